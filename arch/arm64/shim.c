// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's C glue of the Rust kprobes core, built with ARM64_PSEUDO_NMI
 * (Kbuild): raw_local_irq_save()/restore() for objpool's rings
 * (rust-core/objpool.rs), which mask interrupts through DAIF without it
 * (arch/arm64/sys.rs); with it the kernel picks DAIF or the GIC priority
 * mask at boot.  On the kretprobe hit path, hence NOKPROBE.
 */

#include <linux/irqflags.h>
#include <linux/kprobes.h>

#include "shim.h"

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
unsigned long kprobes_rust_raw_local_irq_save(void)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	return flags;
}
NOKPROBE_SYMBOL(kprobes_rust_raw_local_irq_save);

void kprobes_rust_raw_local_irq_restore(unsigned long flags)
{
	raw_local_irq_restore(flags);
}
NOKPROBE_SYMBOL(kprobes_rust_raw_local_irq_restore);
#endif
