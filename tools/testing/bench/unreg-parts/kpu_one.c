// SPDX-License-Identifier: GPL-2.0
/*
 * Three int3 probes at kpb_fn_I+9 registered, then unregistered one by
 * one: the three unregister_kprobe() calls gdb_count.py single-steps.
 * disabled=1: each is disabled first (the kprobe_events remove phase's
 * case: no disarming in unregistration).
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#define KPB_MAIN
#include "kpb_funcs.h"

static bool disabled;
module_param(disabled, bool, 0444);

static struct kprobe kps[3];
static int pre(struct kprobe *p, struct pt_regs *r) { return 0; }

static int __init kpu_one_init(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		kps[i].addr = (void *)kpb_func(i) + 9;
		kps[i].pre_handler = pre;
		if (register_kprobe(&kps[i]))
			return -EINVAL;
	}
	for (i = 0; disabled && i < 3; i++)
		disable_kprobe(&kps[i]);
	for (i = 0; i < 3; i++)
		unregister_kprobe(&kps[i]);
	pr_info("KPU-ONE done\n");
	return 0;
}
static void __exit kpu_one_exit(void) {}
module_init(kpu_one_init);
module_exit(kpu_one_exit);
MODULE_LICENSE("GPL");
