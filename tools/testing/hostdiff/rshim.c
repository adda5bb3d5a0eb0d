// SPDX-License-Identifier: GPL-2.0
/*
 * Glue between the Rust kprobes core and the simulated kernel of the host
 * differential (MODEL.md): the kernel build's C shim, c-shim/kprobes_shim.c,
 * compiled unchanged against the stubs (as kcore.c compiles upstream
 * kernel/kprobes.c), plus the handles driver.c takes.  In hostdiff-rust it
 * stands where kcore.c stands in hostdiff-c: upstream's __weak defaults,
 * the statically initialized C data of the core (kprobe_mutex, the insn
 * slot caches, the optimizer's delayed work, the ftrace ops, the notifier
 * blocks, the sysctl table, the debugfs files), the initcalls and the
 * shim's one-line wrappers, which the core calls where the C side shares
 * the state (sim/core_sys.rs).  The handles that read the core's state
 * are Rust (rust-core/host/sim_exports.rs).  No kprobes logic lives here.
 */
#include "../../../c-shim/kprobes_shim.c"
/*
 * The optimizer's driver: the 6.12 tree's delayed work on every tree (the
 * simulated work queue runs it where mainline's thread would run a pass;
 * MODEL.md), with the flush that sim/core_sys.rs's wait round calls.
 */
#include "../../../c-shim/tree_v6_12.c"

void kprobes_rust_flush_optimizer(void)
{
	flush_delayed_work(&optimizing_work);
}

#include "hd.h"

/* --- Handles for driver.c (kcore.c's, hd.h) ------------------------------- */

const struct file_operations *hd_kprobes_list_fops = &kprobes_fops;
const struct file_operations *hd_kprobes_blacklist_fops = &kprobe_blacklist_fops;
const struct file_operations *hd_kprobes_enabled_fops = &fops_kp;
int (*hd_pre_handler_kretprobe)(struct kprobe *, struct pt_regs *) = pre_handler_kretprobe;
