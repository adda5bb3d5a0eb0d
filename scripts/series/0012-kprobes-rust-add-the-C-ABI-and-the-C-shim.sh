core rust-core/exports.rs rust-core/cbindgen.toml c-shim/kprobes_rust.h c-shim/kprobes_shim.c \
	c-shim/kprobes_rust_cfi.h c-shim/kcfi_check.py \
	c-shim/kprobes_shim.h c-shim/tree_$KTREE_ID.c
