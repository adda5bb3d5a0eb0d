/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_JPROBES_H
#define _LINUX_JPROBES_H
/*
 * jprobes: a handler that runs at a function's entry with the function's
 * arguments (Documentation of kprobes up to 4.14, section 1.2).
 *
 * Upstream removed jprobes in 4.15: their handler ran on a copy of the
 * probed function's stack and returned through jprobe_return(), a trap
 * that restored the stack.  The Rust kprobes core (CONFIG_KPROBES_RUST)
 * offers the same API without the stack copy (CONFIG_KPROBES_RUST_JPROBES):
 * a jprobe is an entry kprobe whose pre_handler calls ->entry with the
 * argument registers of the calling convention.  So:
 *
 *  - kp.addr (or kp.symbol_name + kp.offset) must be a function entry,
 *    else registration fails with -EINVAL, as does a NULL ->entry;
 *  - ->entry has the probed function's prototype; it runs before the
 *    function, sees copies of its arguments (changing them changes nothing
 *    for the function), and its return value is ignored;
 *  - only the arguments passed in registers are seen: up to 6 on x86-64,
 *    8 on arm64 and riscv64.
 *    A function with more (or with arguments passed on the stack, such as
 *    large structs by value) is not supported: the core cannot tell at
 *    registration, and ->entry would read garbage for those arguments;
 *  - jprobe_return() may still be called at the end of ->entry (old
 *    handlers do): it does nothing;
 *  - ->entry runs in the pre_handler's context (preemption disabled, on
 *    x86-64 interrupts too for a breakpoint probe): it must not sleep;
 *  - kp.pre_handler is set by registration; kp.post_handler is left as
 *    given;
 *  - jprobes aggregate with kprobes and kretprobes at the same address;
 *    several jprobes on one function are allowed (the old implementation
 *    refused a second one: its stack copy was per CPU);
 *  - a hit while another probe's handler runs is counted in kp.nmissed;
 *  - kprobes/list shows a jprobe with type "j".
 */
#include <linux/kprobes.h>

struct jprobe {
	struct kprobe kp;
	void *entry;	/* the handler: the probed function's prototype */
};

#ifdef CONFIG_KPROBES_RUST_JPROBES
int register_jprobe(struct jprobe *jp);
void unregister_jprobe(struct jprobe *jp);
int register_jprobes(struct jprobe **jps, int num);
void unregister_jprobes(struct jprobe **jps, int num);
int disable_jprobe(struct jprobe *jp);
int enable_jprobe(struct jprobe *jp);
void jprobe_return(void);
#else
static inline int register_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_jprobe(struct jprobe *jp)
{
}

static inline int register_jprobes(struct jprobe **jps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_jprobes(struct jprobe **jps, int num)
{
}

static inline int disable_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline int enable_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline void jprobe_return(void)
{
}
#endif

#endif /* _LINUX_JPROBES_H */
