// SPDX-License-Identifier: GPL-2.0
/*
 * The C symbols the simulation calls in the kprobes implementation
 * (rust-core/host/sim/link.rs) that upstream kernel/kprobes.c does not
 * define under these names: where the kernel's own code reaches kprobes.c
 * (the workqueue runs the optimizer's work, the module loader calls the
 * notifier block, x86's ftrace handler reads kprobe_ftrace_disabled), for
 * hostdiff-c = kcore.o + driver.o + kcore_link.o + libkpsim.a.  The Rust
 * core defines the same symbols itself (hostdiff-rust, the host tests:
 * rust-core/exports.rs, rust-core/host/sim_exports.rs).
 */
#include "hd.h"

/* The simulated workqueue runs the optimizer (abi.rs's hd_work_run(), which
 * has cleared its pending flag): 6.12's delayed work or a step of 7.3's
 * thread (kcore.c). */
void kprobes_rust_optimizer_work(void)
{
	hd_optimizer_work();
}

/* The module loader calls the core's notifier block. */
int kprobes_rust_module_callback(unsigned long val, struct module *mod)
{
	return hd_module_nb->notifier_call(hd_module_nb, val, mod);
}

/* x86's kprobe_ftrace_handler() reads the variable. */
bool hd_kprobe_ftrace_disabled(void)
{
	return kprobe_ftrace_disabled;
}

/* The host tests' reset of the core: no C program has one. */
void kprobes_rust_reset_for_test(void)
{
	hd_fatal("kprobes_rust_reset_for_test() in a C program");
}
