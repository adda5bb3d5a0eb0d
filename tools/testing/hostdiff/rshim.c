// SPDX-License-Identifier: GPL-2.0
/*
 * Glue between the Rust kprobes core and the simulated kernel of the host
 * differential (MODEL.md): the host analog of c-shim/kprobes_shim.c, which
 * it follows item by item.  In hostdiff-rust it stands where kcore.c
 * (upstream kernel/kprobes.c) stands in hostdiff-c: upstream's __weak
 * defaults, the statically initialized C data of the core (kprobe_mutex,
 * the insn slot caches, the optimizer's delayed work, the ftrace ops, the
 * notifier blocks, the sysctl table, the debugfs files), the initcalls,
 * one-line wrappers of the stubs' macros and static inlines for
 * rust/model_sys.rs, and the handles driver.c takes (hd.h; the ones that
 * read the core's state are Rust, rust/model_handles.rs).  No kprobes
 * logic lives here.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include "hd.h"

/* The declarations of the Rust side (cbindgen), checked against the stubs'. */
#include "kprobes_rust.h"

/* __weak defaults of the arch hooks (upstream's). */

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

/* The child probe whose handler is running (written only, as upstream). */
DEFINE_PER_CPU(struct kprobe *, kprobe_instance);

/* Wrappers of the stubs' macros and static inlines. */

void kprobes_rust_lockdep_assert_held(struct mutex *m)
{
	lockdep_assert_held(m);
}

bool kprobes_rust_seq_show_value(struct seq_file *m)
{
	return kallsyms_show_value(m->file->f_cred);
}

bool kprobes_rust_module_is_coming(struct module *mod)
{
	return module_is_coming(mod);
}

void *kprobes_rust_dereference_symbol_descriptor(void *ptr)
{
	return dereference_symbol_descriptor(ptr);
}

/* WARN_ON() for Rust. */
void kprobes_rust_warn(const char *file, int len, int line)
{
	WARN(1, "kprobes: WARN_ON at %.*s:%d\n", len, file, line);
}

/* --- __weak defaults (upstream's) ----------------------------------------- */

kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					unsigned int __unused)
{
	return ((kprobe_opcode_t *)(kallsyms_lookup_name(name)));
}

void __weak *alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

static void free_insn_page(void *page)
{
	execmem_free(page);
}

void __weak *alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}

int __weak kprobe_exceptions_notify(struct notifier_block *self,
					unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

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

/* This protects 'kprobe_table' and 'optimizing_list' (locked by Rust). */
DEFINE_MUTEX(kprobe_mutex);

static DEFINE_MUTEX(kprobe_sysctl_mutex);

void kprobes_rust_sysctl_mutex_lock(void)
{
	mutex_lock(&kprobe_sysctl_mutex);
}

void kprobes_rust_sysctl_mutex_unlock(void)
{
	mutex_unlock(&kprobe_sysctl_mutex);
}

unsigned int kprobes_rust_num_possible_cpus(void)
{
	return num_possible_cpus();
}

bool kprobes_rust_prepared_optinsn(struct optimized_kprobe *op)
{
	return arch_prepared_optinsn(&op->optinsn);
}

/* The jump optimizer's delayed work (rust-core/opt.rs). */
static void kprobe_optimizer(struct work_struct *work)
{
	kprobes_rust_optimizer_work();
}
static DECLARE_DELAYED_WORK(optimizing_work, kprobe_optimizer);
#define OPTIMIZE_DELAY 5

void kprobes_rust_kick_optimizer(void)
{
	schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY);
}

void kprobes_rust_flush_optimizer(void)
{
	flush_delayed_work(&optimizing_work);
}

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

/* --- Notifiers, sysctl, initcalls ----------------------------------------- */

static struct notifier_block kprobe_exceptions_nb = {
	.notifier_call = kprobe_exceptions_notify,
	.priority = 0x7fffffff /* we need to be notified first */
};

int kprobes_rust_register_die_notifier(void)
{
	return register_die_notifier(&kprobe_exceptions_nb);
}

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

static struct ctl_table kprobe_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_kprobes_optimization_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

void __init kprobes_rust_sysctls_init(void)
{
	register_sysctl_init("debug", kprobe_sysctls);
}

static int __init init_kprobes(void)
{
	return kprobes_rust_init();
}
early_initcall(init_kprobes);

static int __init init_optprobes(void)
{
	return kprobes_rust_init_optprobes();
}
subsys_initcall(init_optprobes);

/* --- debugfs: kprobes/list, kprobes/enabled, kprobes/blacklist ------------ */

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

/* --- Handles for driver.c (kcore.c's, hd.h) ------------------------------- */

const struct file_operations *hd_kprobes_list_fops = &kprobes_fops;
const struct file_operations *hd_kprobes_blacklist_fops = &kprobe_blacklist_fops;
const struct file_operations *hd_kprobes_enabled_fops = &fops_kp;
struct delayed_work *hd_optimizing_work = &optimizing_work;
int (*hd_pre_handler_kretprobe)(struct kprobe *, struct pt_regs *) = pre_handler_kretprobe;
