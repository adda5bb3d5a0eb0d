/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between kprobes_diff.ko (the driver) and kprobes_diff_target.ko. */
#ifndef _KPROBES_DIFF_H
#define _KPROBES_DIFF_H
#include <linux/atomic.h>

/*
 * The target module registers this with the driver from its init and
 * takes it back in its exit, so the driver holds no reference on the
 * target (which must stay unloadable) yet can call its functions.
 */
struct kpd_target {
	int (*gone)(int);	/* probed by the driver, then the target goes */
	int (*gone2)(int);
	int (*self)(int);	/* probed by the target itself */
	int init_helper_ret;	/* what kpd_t_init_helper returned in init */
	unsigned long init_helper_addr; /* its address (freed after init) */
	int owner_rc_owned;	/* target's own registrations, in init */
	int owner_rc_self;
	atomic_t owner_hits_owned;
	atomic_t owner_hits_self;
};

int kpd_target_register(struct kpd_target *t);
void kpd_target_unregister(struct kpd_target *t);
int kpd_fowned(int x);
#endif
