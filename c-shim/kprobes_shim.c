// SPDX-License-Identifier: GPL-2.0
/*
 * Glue between the Rust kprobes core and C: wrappers for static inlines and
 * macros.  No kprobes logic lives here.
 */
#include <linux/bug.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>

#include "kprobes_shim.h"

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
