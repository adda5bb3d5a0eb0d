/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * include/linux/kprobes.h of Linux 6.12 reduced to the configuration of the
 * pipeline (KPROBES, KRETPROBES on RETHOOK, OPTPROBES, KPROBES_ON_FTRACE) for
 * the host build of kernel/kprobes.c.  Structures and inline helpers are
 * copied from upstream; declarations of the arch hooks are upstream's.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <kstub.h>

struct kprobe;
struct kretprobe;
struct kretprobe_instance;
typedef int (*kprobe_pre_handler_t) (struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t) (struct kprobe *, struct pt_regs *, unsigned long flags);
typedef int (*kretprobe_handler_t) (struct kretprobe_instance *, struct pt_regs *);

struct kprobe {
	struct hlist_node hlist;
	struct list_head list;
	unsigned long nmissed;
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
	u32 flags;
};

#define KPROBE_FLAG_GONE	1
#define KPROBE_FLAG_DISABLED	2
#define KPROBE_FLAG_OPTIMIZED	4
#define KPROBE_FLAG_FTRACE	8
#define KPROBE_FLAG_ON_FUNC_ENTRY	16

static inline bool kprobe_gone(struct kprobe *p) { return p->flags & KPROBE_FLAG_GONE; }
static inline bool kprobe_disabled(struct kprobe *p) { return p->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE); }
static inline bool kprobe_optimized(struct kprobe *p) { return p->flags & KPROBE_FLAG_OPTIMIZED; }
static inline bool kprobe_ftrace(struct kprobe *p) { return p->flags & KPROBE_FLAG_FTRACE; }

struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
	struct rethook *rh;
};

#define KRETPROBE_MAX_DATA_SIZE	4096

struct kretprobe_instance {
	struct rethook_node node;
	char data[];
};

struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
	struct rcu_head rcu;
};

DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

extern void kprobe_busy_begin(void);
extern void kprobe_busy_end(void);
extern int arch_trampoline_kprobe(struct kprobe *p);

static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return (struct kretprobe *)ri->node.rethook->data;
}

extern struct kretprobe_blackpoint kretprobe_blacklist[];

extern int arch_prepare_kprobe(struct kprobe *p);
extern void arch_arm_kprobe(struct kprobe *p);
extern void arch_disarm_kprobe(struct kprobe *p);
extern void arch_remove_kprobe(struct kprobe *p);
extern void kprobes_inc_nmissed_count(struct kprobe *p);
extern bool arch_within_kprobe_blacklist(unsigned long addr);
extern int arch_populate_kprobe_blacklist(void);
extern int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym, unsigned long offset);
extern bool within_kprobe_blacklist(unsigned long addr);
extern int kprobe_add_ksym_blacklist(unsigned long entry);
extern int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

struct kprobe_insn_cache {
	struct mutex mutex;
	void *(*alloc)(void);
	void (*free)(void *);
	const char *sym;
	struct list_head pages;
	size_t insn_size;
	int nr_garbage;
};

extern kprobe_opcode_t *__get_insn_slot(struct kprobe_insn_cache *c);
extern void __free_insn_slot(struct kprobe_insn_cache *c, kprobe_opcode_t *slot, int dirty);
extern bool __is_insn_slot_addr(struct kprobe_insn_cache *c, unsigned long addr);

#define DEFINE_INSN_CACHE_OPS(__name)					\
extern struct kprobe_insn_cache kprobe_##__name##_slots;		\
static inline kprobe_opcode_t *get_##__name##_slot(void)		\
{ return __get_insn_slot(&kprobe_##__name##_slots); }			\
static inline void free_##__name##_slot(kprobe_opcode_t *slot, int dirty)\
{ __free_insn_slot(&kprobe_##__name##_slots, slot, dirty); }		\
static inline bool is_kprobe_##__name##_slot(unsigned long addr)	\
{ return __is_insn_slot_addr(&kprobe_##__name##_slots, addr); }
#define KPROBE_INSN_PAGE_SYM		"kprobe_insn_page"
#define KPROBE_OPTINSN_PAGE_SYM		"kprobe_optinsn_page"
int kprobe_cache_get_kallsym(struct kprobe_insn_cache *c, unsigned int *symnum,
			     unsigned long *value, char *type, char *sym);

DEFINE_INSN_CACHE_OPS(insn);

struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;
	struct arch_optimized_insn optinsn;
};

extern int arch_check_optimized_kprobe(struct optimized_kprobe *op);
extern int arch_prepare_optimized_kprobe(struct optimized_kprobe *op, struct kprobe *orig);
extern void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
extern void arch_optimize_kprobes(struct list_head *oplist);
extern void arch_unoptimize_kprobes(struct list_head *oplist, struct list_head *done_list);
extern void arch_unoptimize_kprobe(struct optimized_kprobe *op);
extern int arch_within_optimized_kprobe(struct optimized_kprobe *op, kprobe_opcode_t *addr);
extern void opt_pre_handler(struct kprobe *p, struct pt_regs *regs);

DEFINE_INSN_CACHE_OPS(optinsn);

extern void wait_for_kprobe_optimizer(void);
bool optprobe_queued_unopt(struct optimized_kprobe *op);
bool kprobe_disarmed(struct kprobe *p);

extern void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops, struct ftrace_regs *fregs);
extern int arch_prepare_kprobe_ftrace(struct kprobe *p);
extern bool kprobe_ftrace_disabled __read_mostly;
extern void kprobe_ftrace_kill(void);

struct kprobe *get_kprobe(void *addr);

static inline struct kprobe *kprobe_running(void) { return __this_cpu_read(current_kprobe); }
static inline void reset_current_kprobe(void) { __this_cpu_write(current_kprobe, NULL); }
static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void) { return this_cpu_ptr(&kprobe_ctlblk); }

kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr, unsigned long offset, bool *on_func_entry);

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);
void kprobe_free_init_mem(void);
int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);
void dump_kprobe(struct kprobe *kp);
void *alloc_insn_page(void);
void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type, char *sym);
int arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value, char *type, char *sym);
int kprobe_exceptions_notify(struct notifier_block *self, unsigned long val, void *data);

static inline int disable_kretprobe(struct kretprobe *rp) { return disable_kprobe(&rp->kp); }
static inline int enable_kretprobe(struct kretprobe *rp) { return enable_kprobe(&rp->kp); }

#endif /* _LINUX_KPROBES_H */
