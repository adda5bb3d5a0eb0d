/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C helpers the Rust kprobes core calls (rust-core/sys_kernel.rs declares
 * the same prototypes): wrappers for static inlines and macros that Rust
 * cannot call directly in 6.12.
 */
#ifndef _KPROBES_RUST_SHIM_H
#define _KPROBES_RUST_SHIM_H

void kprobes_rust_rcu_read_lock(void);
void kprobes_rust_rcu_read_unlock(void);
void kprobes_rust_warn(const char *file, int len, int line);

#endif /* _KPROBES_RUST_SHIM_H */
