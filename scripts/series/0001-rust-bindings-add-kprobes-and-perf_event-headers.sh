apply "$SERIES/0001-rust-bindings-add-kprobes-and-perf_event-headers.diff"
