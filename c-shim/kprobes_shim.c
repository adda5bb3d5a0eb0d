// SPDX-License-Identifier: GPL-2.0
/*
 * Glue between the Rust kprobes core and C: wrappers for static inlines and
 * macros.  No kprobes logic lives here.
 */
#include <linux/bug.h>
#include <linux/jump_label.h>
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/fs.h>
#include <asm/sections.h>

#include <linux/kprobes_rust.h>


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
 * Per-CPU state.  Rust in 6.12 cannot define or access per-CPU variables;
 * these accessors run in breakpoint handler context, hence NOKPROBE.
 */

/* The child probe whose handler is running (written only, as upstream). */
static DEFINE_PER_CPU(struct kprobe *, kprobe_instance);

void kprobes_rust_set_kprobe_instance(struct kprobe *kp)
{
	__this_cpu_write(kprobe_instance, kp);
}
NOKPROBE_SYMBOL(kprobes_rust_set_kprobe_instance);

void kprobes_rust_set_current_kprobe(struct kprobe *p)
{
	__this_cpu_write(current_kprobe, p);
}
NOKPROBE_SYMBOL(kprobes_rust_set_current_kprobe);

void kprobes_rust_set_kprobe_status(unsigned long status)
{
	get_kprobe_ctlblk()->kprobe_status = status;
}
NOKPROBE_SYMBOL(kprobes_rust_set_kprobe_status);

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

/* Wrappers of static inlines. */

bool kprobes_rust_seq_show_value(struct seq_file *m)
{
	return kallsyms_show_value(m->file->f_cred);
}

void kprobes_rust_jump_label_lock(void)
{
	jump_label_lock();
}

void kprobes_rust_jump_label_unlock(void)
{
	jump_label_unlock();
}

int kprobes_rust_jump_label_text_reserved(void *start, void *end)
{
	return jump_label_text_reserved(start, end);
}

bool kprobes_rust_within_module_init(unsigned long addr, struct module *mod)
{
	return within_module_init(addr, mod);
}

bool kprobes_rust_module_is_coming(struct module *mod)
{
	return module_is_coming(mod);
}

void *kprobes_rust_dereference_symbol_descriptor(void *ptr)
{
	return dereference_symbol_descriptor(ptr);
}

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

/* WARN_ON() for Rust: reports the Rust caller's file and line. */
void kprobes_rust_warn(const char *file, int len, int line)
{
	WARN(1, "kprobes: WARN_ON at %.*s:%d\n", len, file, line);
}
