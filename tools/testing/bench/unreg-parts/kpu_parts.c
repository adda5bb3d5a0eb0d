// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of int3 (un)registration of n probes at kpb_fn_I+off (off 9 by
 * default; 0: entry probes, on ftrace), in guest ns
 * under icount, three times: register one by one, disable, enable, disable,
 * unregister (disabled), register, unregister (armed), register,
 * unregister_kprobes() of all (armed), and a bare grace period.  One KPU line per repetition (run.sh).
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#define KPB_MAIN
#include "kpb_funcs.h"

static int n = 10;
module_param(n, int, 0444);
static int off = 9;
module_param(off, int, 0444);
static struct kprobe kps[1000], *kpp[1000];

static int pre(struct kprobe *p, struct pt_regs *r) { return 0; }

static void prep(void)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&kps[i], 0, sizeof(kps[i]));
		kps[i].addr = (void *)kpb_func(i) + off;
		kps[i].pre_handler = pre;
		kpp[i] = &kps[i];
	}
}

static int __init kpu_parts_init(void)
{
	u64 t[14];
	int i, r, k;

	if (n < 1 || n > ARRAY_SIZE(kps))
		return -EINVAL;
	for (k = 0; k < 3; k++) {
		prep();
		t[0] = ktime_get_ns();
		for (i = 0; i < n; i++) {
			r = register_kprobe(&kps[i]);
			if (r) { pr_err("KPU reg %d: %d\n", i, r); return r; }
		}
		t[1] = ktime_get_ns();
		for (i = 0; i < n; i++)
			disable_kprobe(&kps[i]);
		t[2] = ktime_get_ns();
		for (i = 0; i < n; i++)
			enable_kprobe(&kps[i]);
		t[3] = ktime_get_ns();
		for (i = 0; i < n; i++)
			disable_kprobe(&kps[i]);
		t[4] = ktime_get_ns();
		for (i = 0; i < n; i++)
			unregister_kprobe(&kps[i]);
		t[5] = ktime_get_ns();
		prep();
		for (i = 0; i < n; i++)
			register_kprobe(&kps[i]);
		t[6] = ktime_get_ns();
		for (i = 0; i < n; i++)
			unregister_kprobe(&kps[i]);
		t[7] = ktime_get_ns();
		prep();
		for (i = 0; i < n; i++)
			register_kprobe(&kps[i]);
		t[10] = ktime_get_ns();
		unregister_kprobes(kpp, n);
		t[11] = ktime_get_ns();
		synchronize_rcu();
		t[8] = ktime_get_ns();
		synchronize_rcu();
		t[9] = ktime_get_ns();
		pr_info("KPU off=%d n=%d rep=%d reg=%llu disable=%llu enable=%llu unreg_disabled=%llu unreg_armed=%llu unreg_batch=%llu gp=%llu\n",
			off, n, k, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[5] - t[4], t[7] - t[6], t[11] - t[10], t[9] - t[8]);
	}
	return 0;
}

static void __exit kpu_parts_exit(void) {}
module_init(kpu_parts_init);
module_exit(kpu_parts_exit);
MODULE_LICENSE("GPL");
