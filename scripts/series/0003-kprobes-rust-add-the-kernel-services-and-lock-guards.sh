core rust-core/tree/$KTREE_ID.rs arch/x86_64/sys.rs arch/arm64/sys.rs arch/riscv64/sys.rs rust-core/sys_kernel.rs rust-core/locks.rs rust-core/print.rs
