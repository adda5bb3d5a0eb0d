apply "$SERIES/0003-kprobes-add-CONFIG_KPROBES_RUST.diff"
