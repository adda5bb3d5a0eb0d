// SPDX-License-Identifier: GPL-2.0
/*
 * Glue between the Rust kprobes core (rust-core/) and C, for what Rust in
 * the kernel cannot express: __weak defaults, statically initialized C
 * data (mutexes, the insn slot caches, ftrace_ops, notifier blocks,
 * debugfs files), initcalls, EXPORT_SYMBOL_GPL lines, per-CPU accessors
 * and wrappers of static inlines and macros.  What differs between kernel
 * trees (the optimizer's driver, the sysctl table) is in tree_*.c.  No
 * kprobes logic lives here; every function below is a table entry, a
 * one-line wrapper or a weak default copied from upstream kernel/kprobes.c.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/execmem.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/init.h>
#ifdef CONFIG_KPROBES_RUST_JPROBES
#include <linux/jprobes.h>
#endif
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <asm/sections.h>

#include "kprobes_rust.h"
#include "kprobes_shim.h"

/* __weak defaults of the arch hooks, which Rust cannot define in 6.12. */

bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	/* The '__kprobes' functions and entry code must not be probed. */
	return addr >= (unsigned long)__kprobes_text_start &&
	       addr < (unsigned long)__kprobes_text_end;
}

int __init __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

/*
 * arch_adjust_kprobe_addr - adjust the address
 * @addr: symbol base address
 * @offset: offset within the symbol
 * @on_func_entry: was this @addr+@offset on the function entry
 *
 * Typically returns @addr + @offset, except for special cases where the
 * function might be prefixed by a CFI landing pad, in that case any offset
 * inside the landing pad is mapped to the first 'real' instruction of the
 * symbol.
 *
 * Specifically, for things like IBT/BTI, skip the resp. ENDBR/BTI.C
 * instruction at +0.
 */
kprobe_opcode_t *__weak arch_adjust_kprobe_addr(unsigned long addr,
						unsigned long offset,
						bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

int __weak arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value,
				   char *type, char *sym)
{
	return -ERANGE;
}

/*
 * Per-CPU state.  Rust in 6.12 cannot define per-CPU variables (it writes
 * them with %gs-relative movs, rust-core/sys_kernel.rs); the preempt
 * wrappers run in breakpoint handler context, hence NOKPROBE.
 */

/*
 * The child probe whose handler is running (written only, as upstream).  Not
 * static: rust-core writes it with a %gs-relative mov (sys_kernel.rs).
 */
DEFINE_PER_CPU(struct kprobe *, kprobe_instance);

/*
 * Only with CONFIG_PREEMPT_COUNT does Rust call these (without, the C
 * inlines are compiler barriers and Rust emits those itself); they are
 * defined only when used, so that kprobes/blacklist lists exactly the
 * functions upstream's does in this configuration.
 */
#ifdef CONFIG_PREEMPT_COUNT
void kprobes_rust_preempt_disable(void)
{
	preempt_disable();
}
NOKPROBE_SYMBOL(kprobes_rust_preempt_disable);

void kprobes_rust_preempt_enable(void)
{
	preempt_enable();
}
NOKPROBE_SYMBOL(kprobes_rust_preempt_enable);
#endif

/* Wrappers of static inlines. */

bool kprobes_rust_seq_show_value(struct seq_file *m)
{
	return kallsyms_show_value(m->file->f_cred);
}

#ifdef CONFIG_JUMP_LABEL
void kprobes_rust_jump_label_lock(void)
{
	jump_label_lock();
}

void kprobes_rust_jump_label_unlock(void)
{
	jump_label_unlock();
}
#endif

int kprobes_rust_jump_label_text_reserved(void *start, void *end)
{
	return jump_label_text_reserved(start, end);
}

/*
 * An extern function only where the architecture has a gate area
 * (__HAVE_ARCH_GATE_AREA: x86_64 with X86_VSYSCALL_EMULATION), otherwise
 * a static inline returning 0.
 */
int kprobes_rust_in_gate_area_no_mm(unsigned long addr)
{
	return in_gate_area_no_mm(addr);
}

#ifdef CONFIG_MODULES
bool kprobes_rust_within_module_init(unsigned long addr, struct module *mod)
{
	return within_module_init(addr, mod);
}

bool kprobes_rust_module_is_coming(struct module *mod)
{
	return module_is_coming(mod);
}

bool kprobes_rust_within_module_core(unsigned long addr, struct module *mod)
{
	return within_module_core(addr, mod);
}
#endif /* CONFIG_MODULES */

void *kprobes_rust_dereference_symbol_descriptor(void *ptr)
{
	return dereference_symbol_descriptor(ptr);
}

/* Used by Rust only where rcu_read_lock() is more than a barrier. */
#if defined(CONFIG_PREEMPT_RCU) || defined(CONFIG_PREEMPT_COUNT) || \
	defined(CONFIG_DEBUG_LOCK_ALLOC)
void kprobes_rust_rcu_read_lock(void)
{
	rcu_read_lock();
}
NOKPROBE_SYMBOL(kprobes_rust_rcu_read_lock);

void kprobes_rust_rcu_read_unlock(void)
{
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(kprobes_rust_rcu_read_unlock);
#endif

/*
 * kvfree_call_rcu() is a static inline with tiny RCU (and no KASAN) on 6.12;
 * 7.3 always has the extern, taking a struct kvfree_rcu_head *: the cast
 * (through void *) compiles on both.
 */
#if defined(CONFIG_TINY_RCU) && !defined(CONFIG_KASAN_GENERIC)
void kprobes_rust_kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	kvfree_call_rcu((void *)head, ptr);
}
#endif

/* WARN_ON() for Rust: reports the Rust caller's file and line. */
void kprobes_rust_warn(const char *file, int len, int line)
{
	WARN(1, "kprobes: WARN_ON at %.*s:%d\n", len, file, line);
}

/* --- Exported entry points (defined in rust-core/exports.rs) ------------- */

/*
 * Rust in 6.12 cannot emit a ksymtab entry, so each is exported here by
 * name, as rust/exports.c does for the Rust crates' own symbols.
 */
#define KPROBES_RUST_EXPORT(sym) EXPORT_SYMBOL_GPL(sym)

KPROBES_RUST_EXPORT(register_kprobe);
KPROBES_RUST_EXPORT(register_kprobes);
KPROBES_RUST_EXPORT(unregister_kprobe);
KPROBES_RUST_EXPORT(unregister_kprobes);
KPROBES_RUST_EXPORT(register_kretprobe);
KPROBES_RUST_EXPORT(register_kretprobes);
KPROBES_RUST_EXPORT(unregister_kretprobe);
KPROBES_RUST_EXPORT(unregister_kretprobes);
KPROBES_RUST_EXPORT(disable_kprobe);
KPROBES_RUST_EXPORT(enable_kprobe);
#ifdef CONFIG_KPROBES_RUST_JPROBES
KPROBES_RUST_EXPORT(register_jprobe);
KPROBES_RUST_EXPORT(unregister_jprobe);
KPROBES_RUST_EXPORT(register_jprobes);
KPROBES_RUST_EXPORT(unregister_jprobes);
KPROBES_RUST_EXPORT(disable_jprobe);
KPROBES_RUST_EXPORT(enable_jprobe);
KPROBES_RUST_EXPORT(jprobe_return);
#endif

/* --- __weak defaults (upstream's) ----------------------------------------- */

kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int __unused)
{
	return ((kprobe_opcode_t *)(kallsyms_lookup_name(name)));
}

void __weak *alloc_insn_page(void)
{
	/*
	 * Use execmem_alloc() so this page is within +/- 2GB of where the
	 * kernel image and loaded module images reside. This is required
	 * for most of the architectures.
	 * (e.g. x86-64 needs this to handle the %rip-relative fixups.)
	 */
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

static void free_insn_page(void *page)
{
	execmem_free(page);
}

#ifdef CONFIG_OPTPROBES
void __weak *alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}
#endif

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
	/*
	 * Do nothing by default. Please fill this to update the fake return
	 * address on the stack with the correct one on each arch if possible.
	 */
}
#endif

int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}
NOKPROBE_SYMBOL(kprobe_exceptions_notify);

/* --- Statically initialized data ------------------------------------------ */

/* The instruction slot caches (their logic: rust-core/slots.rs). */
struct kprobe_insn_cache kprobe_insn_slots = {
	.mutex = __MUTEX_INITIALIZER(kprobe_insn_slots.mutex),
	.alloc = alloc_insn_page,
	.free = free_insn_page,
	.sym = KPROBE_INSN_PAGE_SYM,
	.pages = LIST_HEAD_INIT(kprobe_insn_slots.pages),
	.insn_size = MAX_INSN_SIZE,
	.nr_garbage = 0,
};

#ifdef CONFIG_OPTPROBES
/* For optimized_kprobe buffer */
struct kprobe_insn_cache kprobe_optinsn_slots = {
	.mutex = __MUTEX_INITIALIZER(kprobe_optinsn_slots.mutex),
	.alloc = alloc_optinsn_page,
	.free = free_optinsn_page,
	.sym = KPROBE_OPTINSN_PAGE_SYM,
	.pages = LIST_HEAD_INIT(kprobe_optinsn_slots.pages),
	/* .insn_size is initialized later (init_kprobes()) */
	.nr_garbage = 0,
};

size_t kprobes_rust_max_optinsn_size(void)
{
	return MAX_OPTINSN_SIZE;
}
#endif /* CONFIG_OPTPROBES */

/*
 * This protects 'kprobe_table' and 'optimizing_list'.  Not static (it is
 * in kprobes.c): the Rust core locks it directly (rust-core/sys_kernel.rs).
 */
DEFINE_MUTEX(kprobe_mutex);

#if defined(CONFIG_SYSCTL) && defined(CONFIG_OPTPROBES)
/* Serializes the optimization sysctl.  Not static: the core locks it. */
DEFINE_MUTEX(kprobe_sysctl_mutex);
#endif

#ifdef CONFIG_OPTPROBES
void kprobes_rust_synchronize_rcu_tasks(void)
{
	synchronize_rcu_tasks();
}
#endif

unsigned int kprobes_rust_num_possible_cpus(void)
{
	return num_possible_cpus();
}

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
/*
 * Kretprobes on the arch's own trampoline (rust-core/kretprobe_objpool.rs):
 * upstream's message when the trampoline finds no return address (the
 * caller then calls BUG(), as upstream's BUG_ON(1)).
 */
void kprobes_rust_kretprobe_no_ret_addr(void)
{
	pr_err("kretprobe: Return address not found, not execute handler. Maybe there is a bug in the kernel.\n");
}
NOKPROBE_SYMBOL(kprobes_rust_kretprobe_no_ret_addr);
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
/* Kprobes on ftrace (rust-core/ftrace.rs). */
static struct ftrace_ops kprobe_ftrace_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static struct ftrace_ops kprobe_ipmodify_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

struct ftrace_ops *kprobes_rust_ftrace_ops(bool ipmodify)
{
	return ipmodify ? &kprobe_ipmodify_ops : &kprobe_ftrace_ops;
}

void kprobes_rust_warn_ftrace_unregister(int ret)
{
	WARN(1, "Failed to unregister kprobe-ftrace (error %d)\n", ret);
}

void kprobes_rust_warn_ftrace_disarm(void *addr, int ret)
{
	WARN_ONCE(1, "Failed to disarm kprobe-ftrace at %pS (error %d)\n",
		  addr, ret);
}
#endif /* CONFIG_KPROBES_ON_FTRACE */

/* --- Notifiers, sysctl, initcalls ----------------------------------------- */

static struct notifier_block kprobe_exceptions_nb = {
	.notifier_call = kprobe_exceptions_notify,
	.priority = 0x7fffffff /* we need to be notified first */
};

int kprobes_rust_register_die_notifier(void)
{
	return register_die_notifier(&kprobe_exceptions_nb);
}

#ifdef CONFIG_MODULES
static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	return kprobes_rust_module_callback(val, data);
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0
};

int kprobes_rust_register_module_notifier(void)
{
	return register_module_notifier(&kprobe_module_nb);
}
#endif /* CONFIG_MODULES */

/*
 * kprobes.expedited_gp: whether unregistration waits for an expedited RCU
 * grace period instead of a normal one (rust-core/rcu_policy.rs); its
 * default is CONFIG_KPROBES_RUST_EXPEDITED_GP.
 */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "kprobes."
module_param_named(expedited_gp, kprobes_expedited_gp, bool, 0644);
MODULE_PARM_DESC(expedited_gp, "Unregistration waits for expedited RCU grace periods");

static int __init init_kprobes(void)
{
	return kprobes_rust_init();
}
early_initcall(init_kprobes);

#ifdef CONFIG_OPTPROBES
static int __init init_optprobes(void)
{
	return kprobes_rust_init_optprobes();
}
subsys_initcall(init_optprobes);
#endif

/* --- debugfs: kprobes/list, kprobes/enabled, kprobes/blacklist ------------ */

#ifdef CONFIG_DEBUG_FS

static const struct seq_operations kprobes_sops = {
	.start = kprobe_seq_start,
	.next  = kprobe_seq_next,
	.stop  = kprobe_seq_stop,
	.show  = show_kprobe_addr
};

DEFINE_SEQ_ATTRIBUTE(kprobes);

static const struct seq_operations kprobe_blacklist_sops = {
	.start = kprobe_blacklist_seq_start,
	.next  = kprobe_blacklist_seq_next,
	.stop  = kprobe_blacklist_seq_stop,
	.show  = kprobe_blacklist_seq_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_blacklist);

static const struct file_operations fops_kp = {
	.read =         read_enabled_file_bool,
	.write =        write_enabled_file_bool,
	.llseek =	default_llseek,
};

static int __init debugfs_kprobe_init(void)
{
	struct dentry *dir;

	dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &kprobes_fops);

	debugfs_create_file("enabled", 0600, dir, NULL, &fops_kp);

	debugfs_create_file("blacklist", 0400, dir, NULL,
			    &kprobe_blacklist_fops);

	return 0;
}

late_initcall(debugfs_kprobe_init);
#endif /* CONFIG_DEBUG_FS */

/* --- kCFI ----------------------------------------------------------------- */

/*
 * The core's callbacks that C calls through a pointer of another name have
 * that pointer's type: their kCFI type id is then the one the call checks
 * (kcfi_check.py compares it with the id rustc gave them).  The core's
 * other entry points are stored by C initializers above, which the compiler
 * type-checks.
 */
#define SAME_TYPE(f, t) \
	static_assert(__builtin_types_compatible_p(typeof(f) *, t), \
		      #f " is not a " #t)

SAME_TYPE(aggr_pre_handler, kprobe_pre_handler_t);
SAME_TYPE(aggr_post_handler, kprobe_post_handler_t);
SAME_TYPE(pre_handler_kretprobe, kprobe_pre_handler_t);
#ifdef CONFIG_KPROBES_RUST_JPROBES
SAME_TYPE(jprobe_pre_handler, kprobe_pre_handler_t);
#endif
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
SAME_TYPE(kretprobe_rethook_handler, rethook_handler_t);
#else
SAME_TYPE(kretprobe_init_inst, objpool_init_obj_cb);
SAME_TYPE(kretprobe_fini_pool, objpool_fini_cb);
SAME_TYPE(free_rp_inst_rcu, rcu_callback_t);
#endif

#if defined(CONFIG_CFI) || defined(CONFIG_CFI_CLANG)
#include "kprobes_rust_cfi.h"
#endif
