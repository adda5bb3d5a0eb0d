apply "$SERIES/0013-kprobes-add-CONFIG_KPROBES_RUST.diff"
