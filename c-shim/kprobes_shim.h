/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPROBES_SHIM_H
#define _KPROBES_SHIM_H

/*
 * What the C shim's files share: c-shim/kprobes_shim.c and the kernel
 * tree's part, c-shim/tree_*.c.
 */
#ifdef CONFIG_KPROBES_RUST_JPROBES
#include <linux/jprobes.h>
#endif
#include <linux/kprobes.h>
#include <linux/mutex.h>

/* kprobes.c's mutex (defined in kprobes_shim.c; the Rust core locks it). */
extern struct mutex kprobe_mutex;
#if defined(CONFIG_SYSCTL) && defined(CONFIG_OPTPROBES)
extern struct mutex kprobe_sysctl_mutex;
#endif

/* The jump optimizer waits this many jiffies after a kick. */
#define OPTIMIZE_DELAY 5

#endif /* _KPROBES_SHIM_H */
