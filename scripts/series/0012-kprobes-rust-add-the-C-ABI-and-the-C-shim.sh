core rust-core/exports.rs rust-core/cbindgen.toml c-shim/kprobes_rust.h c-shim/kprobes_shim.c
