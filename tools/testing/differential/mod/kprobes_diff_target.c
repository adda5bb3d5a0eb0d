// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_diff_target.ko: functions the differential driver probes and
 * then unloads (kprobes on a module that goes away), an __init function
 * (probes on init text), and probes owned by this module itself (a
 * probe-owning module unloaded).  See tools/testing/differential/README.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include "kprobes_diff.h"

static volatile int kpd_t_sink;

noinline int kpd_t_gone(int x)
{
	kpd_t_sink += x;
	kpd_t_sink ^= 0x55;
	return kpd_t_sink + 1;
}

noinline int kpd_t_gone2(int x)
{
	kpd_t_sink -= x;
	kpd_t_sink ^= 0x66;
	return kpd_t_sink + 2;
}

noinline int kpd_t_self(int x)
{
	kpd_t_sink += 3 * x;
	kpd_t_sink ^= 0x77;
	return kpd_t_sink + 3;
}

noinline int __init kpd_t_init_helper(int x)
{
	kpd_t_sink += 5 * x;
	return x + 40;
}

static struct kpd_target kpd_t = {
	.gone = kpd_t_gone,
	.gone2 = kpd_t_gone2,
	.self = kpd_t_self,
};

static int kpd_t_owned_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpd_t.owner_hits_owned);
	return 0;
}

static int kpd_t_self_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpd_t.owner_hits_self);
	return 0;
}

static void kpd_t_self_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

/*
 * self_opt=1 leaves the self probe without a post handler, so the jump
 * optimizer takes it.  Unloading the module right after its exit
 * unregistered that optimized probe, then loading it again (whose init
 * registers the probe at the same address), makes upstream WARN in
 * reuse_unused_kprobe() and hang a later rmmod: the job runs it only with
 * kpd.unsafe=1 (see divergences.txt).
 */
static bool self_opt;
module_param(self_opt, bool, 0444);

/* Probes owned by this module: one on the driver's kpd_fowned, one on our own function. */
static struct kprobe kpd_t_kp_owned = { .symbol_name = "kpd_fowned", .pre_handler = kpd_t_owned_pre };
static struct kprobe kpd_t_kp_self = { .symbol_name = "kpd_t_self", .offset = 9, .pre_handler = kpd_t_self_pre };

static int __init kpd_target_init(void)
{
	kpd_t.init_helper_ret = kpd_t_init_helper(2);
	kpd_t.init_helper_addr = (unsigned long)kpd_t_init_helper;
	if (!self_opt)
		kpd_t_kp_self.post_handler = kpd_t_self_post;
	kpd_t.owner_rc_owned = register_kprobe(&kpd_t_kp_owned);
	kpd_t.owner_rc_self = register_kprobe(&kpd_t_kp_self);
	return kpd_target_register(&kpd_t);
}

static void __exit kpd_target_exit(void)
{
	kpd_target_unregister(&kpd_t);
	if (!kpd_t.owner_rc_owned)
		unregister_kprobe(&kpd_t_kp_owned);
	if (!kpd_t.owner_rc_self)
		unregister_kprobe(&kpd_t_kp_self);
}

module_init(kpd_target_init);
module_exit(kpd_target_exit);
MODULE_DESCRIPTION("kprobes differential suite: probed, unloadable target");
MODULE_LICENSE("GPL");
