// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress_target.ko: a module the stress job loads and unloads
 * while kprobes_stress.ko registers probes on kps_t_func() (racing the
 * unload).  A thread of its own calls kps_t_func() while the module is
 * loaded; module exit stops it.  (Calling it from the stress module through
 * symbol_get() would race __symbol_get() against the unload, which hits a
 * BUG_ON in the module loader: not what this tests.)
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>

static volatile int kps_t_sink;
static struct task_struct *kps_t_thread;

noinline int kps_t_func(int x)
{
	kps_t_sink = kps_t_sink + x * 13;
	kps_t_sink = kps_t_sink ^ (x + 17);
	return kps_t_sink + 3;
}

static int kps_t_fn(void *arg)
{
	int i = 0;

	while (!kthread_should_stop()) {
		kps_t_func(i++);
		usleep_range(20, 50);
	}
	return 0;
}

static int __init kps_t_init(void)
{
	kps_t_thread = kthread_run(kps_t_fn, NULL, "kps_target");
	return PTR_ERR_OR_ZERO(kps_t_thread);
}

static void __exit kps_t_exit(void)
{
	kthread_stop(kps_t_thread);
}

module_init(kps_t_init);
module_exit(kps_t_exit);
MODULE_DESCRIPTION("kprobes stress target (tools/testing/stress)");
MODULE_LICENSE("GPL");
