g apply --cached "$SERIES/0002-kprobes-add-CONFIG_KPROBES_RUST.diff"
