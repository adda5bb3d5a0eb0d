// SPDX-License-Identifier: GPL-2.0
/*
 * The translation unit of upstream kernel/kprobes.c, compiled against the
 * stubs in include/ (like tools/testing/vma includes mm/vma.c).  The build
 * copies the pristine file of the kernel tree (KP_TREE: 6.12 or 7.3) to its
 * output directory's kprobes.c; it is never committed here.
 */

#include "kprobes.c"
#include "hd.h"

/* Handles on static objects of kprobes.c the driver needs. */
const struct file_operations *hd_kprobes_list_fops = &kprobes_fops;
const struct file_operations *hd_kprobes_blacklist_fops = &kprobe_blacklist_fops;
const struct file_operations *hd_kprobes_enabled_fops = &fops_kp;
int (*hd_pre_handler_kretprobe)(struct kprobe *, struct pt_regs *) = pre_handler_kretprobe;

/*
 * The optimizer, when the simulated workqueue runs it (kcore_link.c): 6.12's
 * delayed work, or on 7.3 a step of the kthread init_optprobe() started
 * (kpsim.c).  The Makefile's KP_TREE says which file this is.
 */
#if HD_TREE_7_3
void hd_optimizer_work(void)
{
	hd_kthread_step();
}
#else
void hd_optimizer_work(void)
{
	optimizing_work.work.func(&optimizing_work.work);
}
#endif

/* kprobe_aggrprobe() for the text model (hd_text_armed_note(), sim/link.rs). */
bool hd_kprobe_aggrprobe(struct kprobe *p)
{
	return kprobe_aggrprobe(p);
}

/*
 * Is @p still known to the core: hashed, or on the list of a hashed
 * aggregate?  The driver's notion of "registered" (MODEL.md, liveness).
 */
bool hd_kprobe_reachable(struct kprobe *p)
{
	struct kprobe *q, *kp;

	for (int i = 0; i < KPROBE_TABLE_SIZE; i++)
		hlist_for_each_entry(q, &kprobe_table[i], hlist) {
			if (q == p)
				return true;
			if (kprobe_aggrprobe(q))
				list_for_each_entry(kp, &q->list, list)
					if (kp == p)
						return true;
		}
	return false;
}

/*
 * Is registered probe @p still disabled: itself, or the hashed aggregate it
 * is on?  After an enable_kprobe() that returned 0 (the driver's
 * `!enable ... stays disabled` note, MODEL.md section 5).
 */
bool hd_kprobe_stays_disabled(struct kprobe *p)
{
	struct kprobe *q, *kp;

	for (int i = 0; i < KPROBE_TABLE_SIZE; i++)
		hlist_for_each_entry(q, &kprobe_table[i], hlist) {
			if (q == p)
				return kprobe_disabled(p);
			if (kprobe_aggrprobe(q))
				list_for_each_entry(kp, &q->list, list)
					if (kp == p)
						return kprobe_disabled(p) || kprobe_disabled(q);
		}
	return false;
}
