# The crate root and Kbuild (both staged by `core` as far as the staged
# files need them), the C types, errno codes, the core's own types and
# flags, and the intrusive lists; the new directory in MAINTAINERS.
core rust-core/ctypes.rs rust-core/ktypes_kernel.rs rust-core/error.rs \
	rust-core/types.rs rust-core/once.rs rust-core/flags.rs rust-core/list.rs
apply "$SERIES/0002-kprobes-rust-add-the-core-s-types-and-lists.diff"
