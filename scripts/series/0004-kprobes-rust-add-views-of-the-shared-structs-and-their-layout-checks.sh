core rust-core/views.rs rust-core/probe.rs rust-core/cbindgen-layout.toml \
	c-shim/kprobes_rust_layout.h c-shim/kprobes_layout.c
