/* SPDX-License-Identifier: GPL-2.0 */

#ifndef _KPROBES_RUST_ARM64_SHIM_H
#define _KPROBES_RUST_ARM64_SHIM_H

/*
 * arm64's C glue of the Rust kprobes core (shim.c), declared to Rust in
 * arch/arm64/sys.rs.
 */
unsigned long kprobes_rust_raw_local_irq_save(void);
void kprobes_rust_raw_local_irq_restore(unsigned long flags);

#endif /* _KPROBES_RUST_ARM64_SHIM_H */
