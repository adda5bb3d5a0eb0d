core rust-core/sys_kernel.rs rust-core/locks.rs rust-core/print.rs
