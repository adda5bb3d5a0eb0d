// SPDX-License-Identifier: GPL-2.0
/*
 * The part of the Rust kprobes core's C glue that differs between kernel
 * trees, mainline's: the jump optimizer (rust-core/opt.rs) runs in a
 * kthread, kicked, flushed and counted as in kernel/kprobes.c, and the
 * sysctl table is const.
 */
#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sysctl.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "kprobes_shim.h"
#include "kprobes_rust.h"

#ifdef CONFIG_OPTPROBES
static struct task_struct *kprobe_optimizer_task;
static DECLARE_WAIT_QUEUE_HEAD(kprobe_optimizer_wait);
static atomic_t optimizer_state;
enum {
	OPTIMIZER_ST_IDLE = 0,
	OPTIMIZER_ST_KICKED = 1,
	OPTIMIZER_ST_FLUSHING = 2,
};

/* Bumped at the end of each kprobe_optimizer() pass, under 'kprobe_mutex' */
static unsigned long optimizer_passes;

/* Start optimizer after OPTIMIZE_DELAY passed */
void kprobes_rust_kick_optimizer(void)
{
	lockdep_assert_held(&kprobe_mutex);
	if (atomic_cmpxchg(&optimizer_state,
		OPTIMIZER_ST_IDLE, OPTIMIZER_ST_KICKED) == OPTIMIZER_ST_IDLE)
		wake_up(&kprobe_optimizer_wait);
}

/*
 * One round of wait_for_kprobe_optimizer_locked(): 'kprobe_mutex' is held
 * on entry and on return, and released while asleep.
 */
void kprobes_rust_wait_optimizer_pass(void)
{
	unsigned long passes = optimizer_passes;

	lockdep_assert_held(&kprobe_mutex);
	/*
	 * Set state to OPTIMIZER_ST_FLUSHING and wake up the thread if it's
	 * idle. If it's already kicked, it will see the state change.
	 */
	if (atomic_xchg_acquire(&optimizer_state,
		OPTIMIZER_ST_FLUSHING) != OPTIMIZER_ST_FLUSHING)
		wake_up(&kprobe_optimizer_wait);

	/*
	 * kprobe_optimizer() holds 'kprobe_mutex' for a whole pass, which
	 * this drops while sleeping, so a new count means a full pass ran.
	 */
	wait_var_event_mutex(&optimizer_passes,
			     optimizer_passes != passes, &kprobe_mutex);
}

/* The end of a kprobe_optimizer() pass: wake up flushers. */
void kprobes_rust_optimizer_pass_done(void)
{
	optimizer_passes++;
	wake_up_var_locked(&optimizer_passes, &kprobe_mutex);
}

/*
 * The optimizer thread's sleep between passes: until kicked (then for up
 * to OPTIMIZE_DELAY more, cut short by a flush) or flushed.  False when
 * the thread is to stop.
 */
bool kprobes_rust_optimizer_sleep(void)
{
	/* To avoid hung_task, wait in interruptible state. */
	wait_event_interruptible(kprobe_optimizer_wait,
		   atomic_read(&optimizer_state) != OPTIMIZER_ST_IDLE ||
		   kthread_should_stop());

	if (kthread_should_stop())
		return false;

	/*
	 * If it was a normal kick, wait for OPTIMIZE_DELAY.
	 * This wait can be interrupted by a flush request.
	 */
	if (atomic_read(&optimizer_state) == OPTIMIZER_ST_KICKED)
		wait_event_interruptible_timeout(kprobe_optimizer_wait,
			atomic_read(&optimizer_state) == OPTIMIZER_ST_FLUSHING ||
			kthread_should_stop(),
			OPTIMIZE_DELAY);

	if (kthread_should_stop())
		return false;

	atomic_set(&optimizer_state, OPTIMIZER_ST_IDLE);
	return true;
}

static int kprobe_optimizer_thread(void *data)
{
	return kprobes_rust_optimizer_thread();
}

void __init kprobes_rust_start_optimizer(void)
{
	atomic_set(&optimizer_state, OPTIMIZER_ST_IDLE);
	kprobe_optimizer_task = kthread_run(kprobe_optimizer_thread, NULL,
					    "kprobe-optimizer");
}
#endif /* CONFIG_OPTPROBES */

#if defined(CONFIG_SYSCTL) && defined(CONFIG_OPTPROBES)
static const struct ctl_table kprobe_sysctls[] = {
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
