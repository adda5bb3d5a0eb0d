// SPDX-License-Identifier: GPL-2.0
/*
 * The part of the Rust kprobes core's C glue that differs on the 6.12 LTS
 * tree: the jump optimizer (rust-core/opt.rs) runs as delayed work, and
 * the sysctl table is writable.  The functions are those of
 * c-shim/tree_v7_3.c, mainline's; on 6.12 there is no optimizer thread,
 * so its start and a pass's end are nothing.
 */
#include <linux/kprobes.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "kprobes_shim.h"
#include "kprobes_rust.h"

#ifdef CONFIG_OPTPROBES
static void kprobe_optimizer(struct work_struct *work)
{
	kprobes_rust_optimizer_work();
}

static DECLARE_DELAYED_WORK(optimizing_work, kprobe_optimizer);

void kprobes_rust_kick_optimizer(void)
{
	schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY);
}

/*
 * One round of wait_for_kprobe_optimizer(), with kprobe_mutex held on
 * entry and on return and released in between.
 */
void kprobes_rust_wait_optimizer_pass(void)
{
	mutex_unlock(&kprobe_mutex);
	/* This will also make 'optimizing_work' execute immmediately. */
	flush_delayed_work(&optimizing_work);
	/* 'optimizing_work' might not have been queued yet, relax. */
	cpu_relax();
	mutex_lock(&kprobe_mutex);
}

void kprobes_rust_optimizer_pass_done(void)
{
}

bool kprobes_rust_optimizer_sleep(void)
{
	return false;
}

void __init kprobes_rust_start_optimizer(void)
{
}
#endif /* CONFIG_OPTPROBES */

/* register_sysctl_init() takes a writable table on 6.12. */
#if defined(CONFIG_SYSCTL) && defined(CONFIG_OPTPROBES)
static struct ctl_table kprobe_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_kprobes_optimization_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

void __init kprobes_rust_sysctls_init(void)
{
	register_sysctl_init("debug", kprobe_sysctls);
}
#endif /* CONFIG_SYSCTL && CONFIG_OPTPROBES */
