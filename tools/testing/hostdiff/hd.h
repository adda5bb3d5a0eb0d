/* SPDX-License-Identifier: GPL-2.0 */
/* Shared declarations of the host differential harness (not kernel API). */
#ifndef HD_H
#define HD_H
#include <linux/kprobes.h>

#define HD_M  0xffffffffc0000000UL	/* module m0 core text (MODEL.md) */
#define HD_MI 0xffffffffc0010000UL	/* module m0 init text */

/* The simulated kernel's handles (rust-core/host/sim/, sim/abi.rs). */
int hd_resolve(const char *spec, unsigned long *addr);		/* NAME[+OFF] | 0xHEX */
const char *hd_page(const void *p);				/* "pageN+0xoff" */

extern struct module hd_m0;
extern struct notifier_block *hd_module_nb;
extern bool hd_init_freed;

/* text model */
void hd_text_check(void);
void hd_text_armed_note(void);		/* kprobes/enabled is 0: armed int3s, jumps left */
void hd_text_forget(unsigned long start, unsigned long end);
void hd_hit(unsigned long addr, int nested);
extern unsigned long hd_frame;

/* ftrace model */
extern struct ftrace_ops *hd_ftrace_ops[2];
const char *hd_ops_name(struct ftrace_ops *ops);
/* The next filter change (register: registration) of either ops returns err. */
void hd_ftrace_fail_next(bool reg, int err);

/* rethook model */
extern struct rethook_node *hd_task_rethooks;
int hd_rethook_return(void);

/* rcu */
void hd_rcu_quiesce(void);

/*
 * The simulated workqueue (sim/abi.rs): 6.12's optimizer work, or the step
 * of 7.3's optimizer thread (kpsim.c, include/kstub.h); the simulation runs
 * it through kprobes_rust_optimizer_work(), kcore_link.c's for upstream's
 * file, which calls hd_optimizer_work() (kcore.c).
 */
bool hd_work_run(void);			/* false: nothing queued */
bool hd_work_pending(void);
void hd_kthread_step(void);
void hd_optimizer_work(void);

/* kcore.c handles */
extern const struct file_operations *hd_kprobes_list_fops, *hd_kprobes_blacklist_fops,
	*hd_kprobes_enabled_fops;
extern int (*hd_pre_handler_kretprobe)(struct kprobe *, struct pt_regs *);
extern struct ctl_table *hd_sysctl_table;
bool hd_kprobe_aggrprobe(struct kprobe *p);
int hd_early_initcall(void);
int hd_subsys_initcall(void);
int hd_late_initcall(void);

/* driver.c */
const char *hd_probe_name(struct kprobe *p);
extern const char *hd_progname;		/* hostdiff-c or hostdiff-rust (sim/kpsim.c) */
extern int hd_relax_count;
#endif
