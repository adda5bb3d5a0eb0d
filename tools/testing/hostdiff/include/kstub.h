/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel interfaces kernel/kprobes.c uses, in the
 * style of tools/testing/vma: just enough for the host differential harness
 * (see MODEL.md).  Every linux/ and asm/ header kprobes.c includes resolves
 * to a one-line file that includes this one.  Semantics that matter to the
 * core (lists, hash, RCU, locking rules) follow the kernel; services around
 * the core (ftrace, rethook, kallsyms, modules, text patching) are the
 * simulated kernel of MODEL.md, the host tests' simulation
 * (rust-core/host/sim/) behind its C ABI (sim/abi.rs, sim/kpsim.c).
 */
#ifndef HD_KSTUB_H
#define HD_KSTUB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <stdarg.h>

/* ---- configuration (build/out-c/.config of the pipeline) ---------------- */
#define CONFIG_KPROBES 1
#define CONFIG_KRETPROBES 1
#define CONFIG_KRETPROBE_ON_RETHOOK 1
#define CONFIG_OPTPROBES 1
#define CONFIG_KPROBES_ON_FTRACE 1
#define CONFIG_MODULES 1
#define CONFIG_SYSCTL 1
#define CONFIG_DEBUG_FS 1
#define __ARCH_WANT_KPROBES_INSN_SLOT
#define IS_ENABLED(opt) (opt)

/* ---- types and compiler glue ------------------------------------------- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

typedef long ssize_t;
typedef unsigned int gfp_t;
typedef u8 kprobe_opcode_t;

#define __weak __attribute__((weak))
#define __init
#define __initdata
#define __read_mostly
#define __rcu
#define __user
#define __visible
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define nokprobe_inline __always_inline
#define NOKPROBE_SYMBOL(fn)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL(sym)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define __HD_CAT2(a, b) a##b
#define __HD_CAT(a, b) __HD_CAT2(a, b)

#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }
#define BIT(nr) (1UL << (nr))

/* errno values (asm-generic/errno-base.h, errno.h) */
#define ENOENT 2
#define EIO 5
#define E2BIG 7
#define ENOMEM 12
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EINVAL 22
#define ERANGE 34
#define EILSEQ 84
#define EOPNOTSUPP 95

#define GFP_KERNEL 0u
#define PAGE_SIZE 4096UL
#define KSYM_NAME_LEN 512

/* ---- trace and checks --------------------------------------------------- */
void hd_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hd_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
const char *hd_sym(unsigned long addr);	/* "name+0xoff" or "0x..." (rotating buffers) */
bool hd_warn(bool cond, const char *what);

#define WARN_ON(cond) hd_warn(!!(cond), "WARN_ON(" #cond ")")
#define WARN_ON_ONCE(cond) hd_warn(!!(cond), "WARN_ON_ONCE(" #cond ")")
#define WARN(cond, fmt, ...) hd_warn(!!(cond), "WARN(" #cond ")")
#define WARN_ONCE(cond, fmt, ...) hd_warn(!!(cond), "WARN_ONCE(" #cond ")")
#define BUG_ON(cond) do { if (cond) hd_fatal("BUG_ON(%s)", #cond); } while (0)
#define BUG() hd_fatal("BUG()")

void hd_printk(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_info(fmt, ...) hd_printk("info", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) hd_printk("warn", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) hd_printk("err", pr_fmt(fmt), ##__VA_ARGS__)

/* ---- memory -------------------------------------------------------------- */
void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void kfree(const void *p);
/* slab.h's typed allocations (GFP_KERNEL: 7.3's default_gfp()). */
#define kmalloc_obj(VAR_OR_TYPE) ((__typeof__(VAR_OR_TYPE) *)kmalloc(sizeof(VAR_OR_TYPE), GFP_KERNEL))
#define kzalloc_obj(VAR_OR_TYPE) ((__typeof__(VAR_OR_TYPE) *)kzalloc(sizeof(VAR_OR_TYPE), GFP_KERNEL))
/* struct_size_t(): the struct's size plus COUNT elements of FAM. */
#define kmalloc_flex(VAR_OR_TYPE, FAM, COUNT)					\
	((__typeof__(VAR_OR_TYPE) *)kmalloc(sizeof(VAR_OR_TYPE) +		\
		(size_t)(COUNT) * sizeof(((__typeof__(VAR_OR_TYPE) *)0)->FAM[0]), GFP_KERNEL))

/* ---- lists (include/linux/list.h semantics, poisoning included) -------- */
#define LIST_POISON1 ((void *)0x100 + 0xdead000000000000UL)
#define LIST_POISON2 ((void *)0x122 + 0xdead000000000000UL)

struct list_head { struct list_head *next, *prev; };
struct hlist_head { struct hlist_node *first; };
struct hlist_node { struct hlist_node *next, **pprev; };

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n; n->next = next; n->prev = prev; prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
#define list_add_rcu list_add
#define list_add_tail_rcu list_add_tail
static inline void __list_del(struct list_head *prev, struct list_head *next) { next->prev = prev; prev->next = next; }
static inline void __list_del_entry(struct list_head *e) { __list_del(e->prev, e->next); }
static inline void list_del(struct list_head *e)
{
	__list_del_entry(e); e->next = LIST_POISON1; e->prev = LIST_POISON2;
}
static inline void list_del_rcu(struct list_head *e) { __list_del_entry(e); e->prev = LIST_POISON2; }
static inline void list_del_init(struct list_head *e) { __list_del_entry(e); INIT_LIST_HEAD(e); }
static inline void list_move(struct list_head *l, struct list_head *h) { __list_del_entry(l); list_add(l, h); }
static inline int list_empty(const struct list_head *h) { return READ_ONCE(h->next) == h; }
static inline int list_is_singular(const struct list_head *h) { return !list_empty(h) && (h->next == h->prev); }
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_entry_is_head(pos, head, member) (&pos->member == (head))
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_rcu(pos, head, member, ...) list_for_each_entry(pos, head, member)
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     !list_entry_is_head(pos, head, member);			\
	     pos = n, n = list_next_entry(n, member))

#define HLIST_HEAD_INIT { .first = NULL }
static inline void INIT_HLIST_HEAD(struct hlist_head *h) { h->first = NULL; }
static inline void INIT_HLIST_NODE(struct hlist_node *h) { h->next = NULL; h->pprev = NULL; }
static inline void hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;
	n->next = first; n->pprev = &h->first;
	h->first = n;
	if (first) first->pprev = &n->next;
}
static inline void __hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next, **pprev = n->pprev;
	*pprev = next;
	if (next) next->pprev = pprev;
}
static inline void hlist_del_rcu(struct hlist_node *n) { __hlist_del(n); n->pprev = LIST_POISON2; }
static inline void hlist_replace_rcu(struct hlist_node *old, struct hlist_node *n)
{
	struct hlist_node *next = old->next;
	n->next = next; n->pprev = old->pprev;
	*n->pprev = n;
	if (next) n->next->pprev = &n->next;
	old->pprev = LIST_POISON2;
}
#define hlist_entry(ptr, type, member) container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) \
	({ __typeof__(ptr) ____ptr = (ptr); ____ptr ? hlist_entry(____ptr, type, member) : NULL; })
#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     pos;							\
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
#define hlist_for_each_entry_rcu(pos, head, member, ...) hlist_for_each_entry(pos, head, member)

/* ---- hash (include/linux/hash.h) ---------------------------------------- */
#define GOLDEN_RATIO_64 0x61C8864680B583EBull
static inline u64 hash_64(u64 val, unsigned int bits) { return val * GOLDEN_RATIO_64 >> (64 - bits); }
#define hash_ptr(ptr, bits) ((u32)hash_64((unsigned long)(ptr), bits))

/* ---- locking, RCU, per-CPU, preemption ---------------------------------- */
struct mutex { int locked; const char *name; };
#define __MUTEX_INITIALIZER(lockname) { .locked = 0, .name = #lockname }
#define DEFINE_MUTEX(m) struct mutex m = __MUTEX_INITIALIZER(m)
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
#define lockdep_assert_held(m) do { if (!(m)->locked) hd_fatal("lockdep: %s not held", (m)->name); } while (0)
#define lockdep_is_held(m) ((m)->locked)
extern struct mutex text_mutex;
void cpus_read_lock(void);
void cpus_read_unlock(void);
void lockdep_assert_cpus_held(void);
void jump_label_lock(void);
void jump_label_unlock(void);

struct rcu_head { struct rcu_head *next; void (*func)(struct rcu_head *); };
void rcu_read_lock(void);
void rcu_read_unlock(void);
void synchronize_rcu(void);
void synchronize_rcu_tasks(void);
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *));
void hd_kfree_rcu(void *p, struct rcu_head *head);
#define kfree_rcu(ptr, field) hd_kfree_rcu((ptr), &(ptr)->field)
#define rcu_assign_pointer(p, v) ((p) = (v))
#define rcu_dereference(p) (p)
#define rcu_dereference_check(p, c) (p)

/*
 * linux/cleanup.h's guards: guard(NAME)(ARGS) takes the lock now and
 * releases it when the enclosing scope ends (also by return or break);
 * scoped_guard(NAME, ARGS) { ... } holds it for the block.  One
 * struct hd_guard_NAME per lock class, its _enter() taking the lock and
 * its _exit() releasing it, as DEFINE_GUARD()/DEFINE_LOCK_GUARD_0() do.
 */
struct hd_guard_rcu { int dummy; };
static inline struct hd_guard_rcu hd_guard_rcu_enter(void) { rcu_read_lock(); return (struct hd_guard_rcu){ 0 }; }
static inline void hd_guard_rcu_exit(struct hd_guard_rcu *g) { (void)g; rcu_read_unlock(); }
struct hd_guard_mutex { struct mutex *m; };
static inline struct hd_guard_mutex hd_guard_mutex_enter(struct mutex *m) { mutex_lock(m); return (struct hd_guard_mutex){ m }; }
static inline void hd_guard_mutex_exit(struct hd_guard_mutex *g) { mutex_unlock(g->m); }
struct hd_guard_cpus_read_lock { int dummy; };
static inline struct hd_guard_cpus_read_lock hd_guard_cpus_read_lock_enter(void)
{
	cpus_read_lock();
	return (struct hd_guard_cpus_read_lock){ 0 };
}
static inline void hd_guard_cpus_read_lock_exit(struct hd_guard_cpus_read_lock *g) { (void)g; cpus_read_unlock(); }
struct hd_guard_jump_label_lock { int dummy; };
static inline struct hd_guard_jump_label_lock hd_guard_jump_label_lock_enter(void)
{
	jump_label_lock();
	return (struct hd_guard_jump_label_lock){ 0 };
}
static inline void hd_guard_jump_label_lock_exit(struct hd_guard_jump_label_lock *g) { (void)g; jump_label_unlock(); }
#define guard(name) \
	struct hd_guard_##name __attribute__((cleanup(hd_guard_##name##_exit), unused)) \
	__HD_CAT(__hd_guard_, __COUNTER__) = hd_guard_##name##_enter
/* The body runs once, the guard live throughout; the cleanup attribute
 * names only the guard, not the loop's done pointer declared with it. */
#define scoped_guard(name, ...) \
	for (struct hd_guard_##name __hd_scope __attribute__((cleanup(hd_guard_##name##_exit))) = \
		     hd_guard_##name##_enter(__VA_ARGS__), *__hd_done = NULL; \
	     !__hd_done; __hd_done = (void *)1)

#define DEFINE_PER_CPU(type, name) type name
#define DECLARE_PER_CPU(type, name) extern type name
#define __this_cpu_write(var, val) ((var) = (val))
#define __this_cpu_read(var) (var)
#define this_cpu_ptr(p) (p)
void preempt_disable(void);
void preempt_enable(void);
#define num_possible_cpus() 1u
#define cpu_relax() hd_cpu_relax()
void hd_cpu_relax(void);

/* ---- workqueue ----------------------------------------------------------- */
struct work_struct { void (*func)(struct work_struct *); };
struct delayed_work { struct work_struct work; };
#define DECLARE_DELAYED_WORK(n, f) struct delayed_work n = { .work = { .func = (f) } }
bool schedule_delayed_work(struct delayed_work *dwork, unsigned long delay);
bool flush_delayed_work(struct delayed_work *dwork);

/* ---- atomics (one CPU, one thread: plain accesses) --------------------- */
typedef struct { int counter; } atomic_t;
static inline int atomic_read(const atomic_t *v) { return READ_ONCE(v->counter); }
static inline void atomic_set(atomic_t *v, int i) { WRITE_ONCE(v->counter, i); }
static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	int r = v->counter;

	if (r == old)
		v->counter = new;
	return r;
}
static inline int atomic_xchg_acquire(atomic_t *v, int new)
{
	int r = v->counter;

	v->counter = new;
	return r;
}

/*
 * ---- kthreads and wait queues (7.3's optimizer thread) -------------------
 * The model has one kernel thread besides the operations' task, the one
 * kthread_run() starts, and runs it on one CPU in steps, as it runs 6.12's
 * delayed work (MODEL.md section 1, "RCU, locks, work, printk"): a
 * wake_up() of its wait queue queues a step (the simulated workqueue's
 * pending flag: `~work queued` when it becomes pending), and a step
 * (`~work run`: the `optimize` operation, or a task waiting in
 * wait_var_event_mutex()) runs the thread function from the top until it
 * waits in wait_event_interruptible() with its condition false, or reaches
 * that wait a second time: one pass of its loop per step.  There the
 * thread sleeps until the next step: kthread_should_stop() reads true from
 * then until the step ends, so the thread function returns (as a thread's
 * loop tests it right after each wait), and the next step enters it again
 * at the top, which is where it slept, as the loop keeps no state across
 * the wait and holds no lock at it.  wait_event_interruptible_timeout()
 * returns at once: the step stands for the timeout passing.  Nothing else
 * stops the thread (kprobes.c never calls kthread_stop()).
 */
struct task_struct { int (*threadfn)(void *data); void *data; const char *name; };
struct task_struct *kthread_run(int (*threadfn)(void *data), void *data, const char *namefmt, ...)
	__attribute__((format(printf, 3, 4)));
bool kthread_should_stop(void);
typedef struct wait_queue_head { bool initialized; } wait_queue_head_t;
#define DECLARE_WAIT_QUEUE_HEAD(name) wait_queue_head_t name = { .initialized = true }
static inline void init_waitqueue_head(wait_queue_head_t *wq) { wq->initialized = true; }
void wake_up(wait_queue_head_t *wq);
/* The thread's wait: it goes on if @cond holds and the step has not waited
 * yet, else it sleeps until the next step (kthread_should_stop()). */
void hd_kthread_wait(wait_queue_head_t *wq, bool cond);
#define wait_event_interruptible(wq, cond) ({ hd_kthread_wait(&(wq), (cond)); 0; })
#define wait_event_interruptible_timeout(wq, cond, timeout) \
	({ hd_kthread_assert_running(&(wq)); (cond) ? (long)(timeout) : 0L; })
void hd_kthread_assert_running(wait_queue_head_t *wq);
/*
 * wait_var_event_mutex(): the waiter drops @m and sleeps until a
 * wake_up_var_locked() of @var, then retakes @m and tests @cond again.  The
 * sleep is hd_schedule(): the one other thread runs a step if it is woken;
 * if it is not, nothing could ever wake the waiter: a hang, fatal.
 */
void hd_schedule(const char *waiter);
#define wait_var_event_mutex(var, cond, m)				\
	do {								\
		lockdep_assert_held(m);					\
		while (!(cond)) {					\
			mutex_unlock(m);				\
			hd_schedule("wait_var_event_mutex(" #var ")");	\
			mutex_lock(m);					\
		}							\
	} while (0)
#define wake_up_var_locked(var, m) do { (void)(var); lockdep_assert_held(m); } while (0)

/* ---- kallsyms, sections, text classification --------------------------- */
unsigned long kallsyms_lookup_name(const char *name);
int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *size, unsigned long *offset);
int lookup_symbol_name(unsigned long addr, char *symname);
const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize,
			    unsigned long *offset, char **modname, char *namebuf);
#define dereference_symbol_descriptor(p) (p)
int kernel_text_address(unsigned long addr);
int core_kernel_text(unsigned long addr);
int in_gate_area_no_mm(unsigned long addr);
int jump_label_text_reserved(void *start, void *end);
int static_call_text_reserved(void *start, void *end);
struct bug_entry;
struct bug_entry *find_bug(unsigned long bugaddr);
unsigned long ftrace_location(unsigned long ip);

struct hd_sections {
	unsigned long kprobes_start, kprobes_end, noinstr_start, noinstr_end;
	unsigned long init_begin, init_end, entry_start, entry_end;
};
extern struct hd_sections hd_sec;
#define __kprobes_text_start (*(char (*)[1])hd_sec.kprobes_start)
#define __kprobes_text_end (*(char (*)[1])hd_sec.kprobes_end)
#define __noinstr_text_start (*(char (*)[1])hd_sec.noinstr_start)
#define __noinstr_text_end (*(char (*)[1])hd_sec.noinstr_end)
#define __init_begin (*(char (*)[1])hd_sec.init_begin)
#define __init_end (*(char (*)[1])hd_sec.init_end)
extern unsigned long hd_kprobe_blacklist_syms[];
extern unsigned long hd_kprobe_blacklist_nr;
#define __start_kprobe_blacklist (hd_kprobe_blacklist_syms)
#define __stop_kprobe_blacklist (hd_kprobe_blacklist_syms + hd_kprobe_blacklist_nr)

/* ---- modules -------------------------------------------------------------- */
enum module_state { MODULE_STATE_LIVE, MODULE_STATE_COMING, MODULE_STATE_GOING, MODULE_STATE_UNFORMED };
struct module {
	const char *name;
	enum module_state state;
	int refs, loaded;
	unsigned long core_start, core_end, init_start, init_end;
	unsigned int num_kprobe_blacklist;
	unsigned long *kprobe_blacklist;
	void *kprobes_text_start;
	unsigned int kprobes_text_size;
	void *noinstr_text_start;
	unsigned int noinstr_text_size;
};
struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long action, void *data);
	struct notifier_block *next;
	int priority;
};
#define NOTIFY_DONE 0
int register_module_notifier(struct notifier_block *nb);
int register_die_notifier(struct notifier_block *nb);
struct module *__module_text_address(unsigned long addr);
bool try_module_get(struct module *mod);
void module_put(struct module *mod);
bool within_module_init(unsigned long addr, const struct module *mod);
bool within_module_core(unsigned long addr, const struct module *mod);
static inline bool module_is_coming(struct module *mod) { return mod->state == MODULE_STATE_COMING; }

/* ---- text memory, perf ------------------------------------------------- */
enum execmem_type { EXECMEM_KPROBES };
void *execmem_alloc(enum execmem_type type, size_t size);
void execmem_free(void *ptr);
#define PERF_RECORD_KSYMBOL_TYPE_OOL 2
void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister, const char *sym);

/* ---- strings --------------------------------------------------------------- */
static inline ssize_t strscpy(char *dst, const char *src, size_t n)
{
	size_t l = strnlen(src, n);
	if (l == n) { if (!n) return -E2BIG; memcpy(dst, src, n - 1); dst[n - 1] = 0; return -E2BIG; }
	memcpy(dst, src, l + 1);
	return l;
}
static inline size_t str_has_prefix(const char *str, const char *prefix)
{
	size_t len = strlen(prefix);
	return strncmp(str, prefix, len) == 0 ? len : 0;
}

/* ---- ftrace -------------------------------------------------------------- */
struct ftrace_regs;
struct ftrace_ops;
typedef void (*ftrace_func_t)(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs);
#define FTRACE_OPS_FL_ENABLED (1UL << 0)
#define FTRACE_OPS_FL_SAVE_REGS (1UL << 2)
#define FTRACE_OPS_FL_IPMODIFY (1UL << 9)
#define HD_FTRACE_MAX_FILTER 256
struct ftrace_ops {
	ftrace_func_t func;
	unsigned long flags;
	/* model state */
	int nfilter;
	unsigned long filter[HD_FTRACE_MAX_FILTER];
};
int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip, int remove, int reset);
int ftrace_set_filter_ips(struct ftrace_ops *ops, unsigned long *ips, unsigned int cnt, int remove, int reset);
int register_ftrace_function(struct ftrace_ops *ops);
int unregister_ftrace_function(struct ftrace_ops *ops);

/* ---- pt_regs, arch (x86-like) ------------------------------------------- */
struct pt_regs { unsigned long ip, sp; unsigned long args[6]; };
static inline void instruction_pointer_set(struct pt_regs *regs, unsigned long val) { regs->ip = val; }
#define MAX_INSN_SIZE 16
#define DISP32_SIZE 4
#define INT3_INSN_SIZE 1
#define JMP32_INSN_SIZE 5
#define MAX_OPTIMIZED_LENGTH (MAX_INSN_SIZE + DISP32_SIZE)
#define HD_TMPL_SIZE 128
#define MAX_OPTINSN_SIZE (HD_TMPL_SIZE + MAX_OPTIMIZED_LENGTH + JMP32_INSN_SIZE)
#define flush_insn_slot(p) do { } while (0)
struct arch_specific_insn { kprobe_opcode_t *insn; unsigned boostable:1; };
struct arch_optimized_insn {
	kprobe_opcode_t copied_insn[DISP32_SIZE];
	kprobe_opcode_t *insn;
	size_t size;
};
static inline int arch_prepared_optinsn(struct arch_optimized_insn *optinsn) { return optinsn->size; }
struct prev_kprobe { struct kprobe *kp; unsigned long status; };
struct kprobe_ctlblk { unsigned long kprobe_status; struct prev_kprobe prev_kprobe; };
#define KPROBE_HIT_ACTIVE 0x00000001
#define KPROBE_HIT_SS 0x00000002
#define KPROBE_REENTER 0x00000004
#define KPROBE_HIT_SSDONE 0x00000008
extern const int kretprobe_blacklist_size;
int arch_init_kprobes(void);

/* ---- rethook ------------------------------------------------------------- */
struct rethook_node;
typedef void (*rethook_handler_t)(struct rethook_node *, void *, unsigned long, struct pt_regs *);
struct rethook {
	void *data;
	rethook_handler_t handler;
	int size, num, nfree, outstanding;
	bool freed;
	struct rcu_head rcu;
	int id;
};
struct rethook_node {
	struct rcu_head rcu;
	struct rethook_node *next;	/* llist of the simulated task */
	struct rethook *rethook;
	unsigned long ret_addr;
	unsigned long frame;
};
struct rethook *rethook_alloc(void *data, rethook_handler_t handler, int size, int num);
void rethook_free(struct rethook *rh);
struct rethook_node *rethook_try_get(struct rethook *rh);
void rethook_recycle(struct rethook_node *node);
void rethook_hook(struct rethook_node *node, struct pt_regs *regs, bool mcount);

/* ---- seq_file, debugfs, sysctl ------------------------------------------- */
struct cred;
struct file { const struct cred *f_cred; };
struct seq_file { char *buf; size_t len, cap; struct file *file; };
void seq_printf(struct seq_file *m, const char *fmt, ...);
struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};
struct inode;
struct file_operations {
	const struct seq_operations *seq_ops;
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	loff_t (*llseek)(struct file *, loff_t, int);
};
#define DEFINE_SEQ_ATTRIBUTE(__name) \
	static const struct file_operations __name##_fops = { .seq_ops = &__name##_sops }
struct list_head *seq_list_start(struct list_head *head, loff_t pos);
struct list_head *seq_list_next(void *v, struct list_head *head, loff_t *ppos);
bool kallsyms_show_value(const struct cred *cred);
struct dentry;
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, unsigned short mode, struct dentry *parent,
				   void *data, const struct file_operations *fops);
loff_t default_llseek(struct file *file, loff_t offset, int whence);
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos, const void *from, size_t available);
int kstrtobool_from_user(const char __user *s, size_t count, bool *res);

struct ctl_table;
typedef int proc_handler(const struct ctl_table *ctl, int write, void *buffer, size_t *lenp, loff_t *ppos);
struct ctl_table {
	const char *procname;
	void *data;
	int maxlen;
	unsigned short mode;
	proc_handler *proc_handler;
	void *extra1, *extra2;
};
extern const int hd_sysctl_vals[];
#define SYSCTL_ZERO ((void *)&hd_sysctl_vals[0])
#define SYSCTL_ONE ((void *)&hd_sysctl_vals[1])
int proc_dointvec_minmax(const struct ctl_table *table, int write, void *buffer, size_t *lenp, loff_t *ppos);
/* 7.3's table is const; the simulation only reads it (through the driver). */
#define register_sysctl_init(path, table) \
	hd_register_sysctl_init(path, (struct ctl_table *)(table), ARRAY_SIZE(table))
void hd_register_sysctl_init(const char *path, struct ctl_table *table, size_t n);

/* ---- initcalls: expose the static init functions to the driver -------- */
#define early_initcall(fn) int hd_early_initcall(void) { return fn(); }
#define subsys_initcall(fn) int hd_subsys_initcall(void) { return fn(); }
/* Boot parameters: the model has no command line (defaults stay). */
#define MODULE_PARAM_PREFIX ""
#define module_param_named(name, value, type, perm) extern int hd_param_##name
#define MODULE_PARM_DESC(name, desc) extern int hd_param_desc_##name
#define late_initcall(fn) int hd_late_initcall(void) { return fn(); }

#endif /* HD_KSTUB_H */
