# The crate root and Kbuild (both staged by `core` as far as the staged
# files need them), the architectures' bottom layer (arch/ARCH/mod.rs),
# the C types, errno codes, the core's own types and flags, and the
# intrusive lists; the new directory in MAINTAINERS.
core arch/x86_64/mod.rs arch/arm64/mod.rs arch/riscv64/mod.rs rust-core/ctypes.rs rust-core/ktypes_kernel.rs rust-core/error.rs \
	rust-core/types.rs rust-core/once.rs rust-core/flags.rs rust-core/list.rs
apply "$SERIES/0002-kprobes-rust-add-the-core-s-types-and-lists.diff"
