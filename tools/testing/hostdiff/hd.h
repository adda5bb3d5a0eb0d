/* SPDX-License-Identifier: GPL-2.0 */
/* Shared declarations of the host differential harness (not kernel API). */
#ifndef HD_H
#define HD_H
#include <linux/kprobes.h>

#define HD_T  0xffffffff81000000UL	/* core kernel text */
#define HD_D  0xffffffff82000000UL	/* kernel data */
#define HD_M  0xffffffffc0000000UL	/* module m0 core text */
#define HD_MI 0xffffffffc0010000UL	/* module m0 init text */

enum hd_symkind { HD_TEXT, HD_DATA };
struct hd_symbol {
	const char *name;
	unsigned long addr, size;
	enum hd_symkind kind;
	int module;		/* 1: m0 core, 2: m0 init, 0: vmlinux */
	int ftrace;		/* has an ftrace site at +0 */
	int odd;		/* instruction layout of f3 (boundaries 0,4,9,12,16,...) */
	int noopt;		/* can_optimize() fails for the whole function */
	long nonboost;		/* offset of a non-boostable instruction, or -1 */
};
extern const struct hd_symbol hd_symbols[];
extern const int hd_nsymbols;
const struct hd_symbol *hd_model_sym(unsigned long addr);	/* any model symbol */
const struct hd_symbol *hd_present_sym(unsigned long addr);	/* kallsyms view */
int hd_resolve(const char *spec, unsigned long *addr);		/* NAME[+OFF] | 0xHEX */
bool hd_insn_boundary(const struct hd_symbol *s, unsigned long off, unsigned long *len);
bool hd_reserved_site(unsigned long start, unsigned long end);	/* ftrace/static_call/BUG */
const char *hd_page(const void *p);				/* "pageN+0xoff" */

extern struct module hd_m0;
extern struct notifier_block *hd_module_nb;
extern bool hd_init_freed;

/* text model (arch.c) */
void hd_text_check(void);
void hd_text_armed_note(void);		/* kprobes/enabled is 0: armed int3s, jumps left */
void hd_text_forget(unsigned long start, unsigned long end);
void hd_hit(unsigned long addr, int nested);
extern unsigned long hd_frame;

/* ftrace model */
extern struct ftrace_ops *hd_ftrace_ops[2];
extern int hd_nftrace_ops;
bool hd_ftrace_match(struct ftrace_ops *ops, unsigned long ip);
const char *hd_ops_name(struct ftrace_ops *ops);
extern int hd_ftrace_recursion;

/* rethook model */
extern struct rethook_node *hd_task_rethooks;
int hd_rethook_return(void);

/* rcu */
void hd_rcu_quiesce(void);
extern int hd_rcu_nesting, hd_preempt, hd_cpus_locked;

/* kcore.c handles */
extern const struct file_operations *hd_kprobes_list_fops, *hd_kprobes_blacklist_fops,
	*hd_kprobes_enabled_fops;
extern struct delayed_work *hd_optimizing_work;
extern int (*hd_pre_handler_kretprobe)(struct kprobe *, struct pt_regs *);
extern struct ctl_table *hd_sysctl_table;
bool hd_kprobe_aggrprobe(struct kprobe *p);
int hd_early_initcall(void);
int hd_subsys_initcall(void);
int hd_late_initcall(void);

/* driver.c */
const char *hd_probe_name(struct kprobe *p);
extern const char *hd_progname;		/* hostdiff-c or hostdiff-rust (model.c) */
extern int hd_relax_count;
#endif
