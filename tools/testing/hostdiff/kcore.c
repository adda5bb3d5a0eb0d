// SPDX-License-Identifier: GPL-2.0
/*
 * The translation unit of upstream kernel/kprobes.c, compiled against the
 * stubs in include/ (like tools/testing/vma includes mm/vma.c).  The build
 * copies the pristine file to build/hostdiff/kprobes.c; it is never
 * committed here.
 */

#include "kprobes.c"

/* Handles on static objects of kprobes.c the driver needs. */
const struct file_operations *hd_kprobes_list_fops = &kprobes_fops;
const struct file_operations *hd_kprobes_blacklist_fops = &kprobe_blacklist_fops;
const struct file_operations *hd_kprobes_enabled_fops = &fops_kp;
struct delayed_work *hd_optimizing_work = &optimizing_work;
int (*hd_pre_handler_kretprobe)(struct kprobe *, struct pt_regs *) = pre_handler_kretprobe;
