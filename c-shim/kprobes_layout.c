// SPDX-License-Identifier: GPL-2.0
/*
 * Build-time layout checks, C side: the Rust core's view of every structure
 * it shares with C (rust-core/types.rs, rendered by cbindgen into
 * kprobes_rust_layout.h as struct kprobes_rust_view_*) must match
 * the kernel's definition in size and in the offset of every field.  The
 * Rust side asserts the same against bindgen (types.rs, mod layout).
 * No code is generated from this file.
 */
#include <linux/build_bug.h>
#ifdef CONFIG_KPROBES_RUST_JPROBES
#include <linux/jprobes.h>
#endif
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/stddef.h>

#include "kprobes_rust_layout.h"

#define SAME_SIZE(c, r) \
	static_assert(sizeof(struct c) == sizeof(struct kprobes_rust_view_##r), \
		      "size of struct " #c " differs from rust-core's view")
#define SAME_FIELD(c, r, f) \
	static_assert(offsetof(struct c, f) == offsetof(struct kprobes_rust_view_##r, f), \
		      "offset of " #c "." #f " differs from rust-core's view")

SAME_SIZE(list_head, list_head);
SAME_FIELD(list_head, list_head, next);
SAME_FIELD(list_head, list_head, prev);

SAME_SIZE(hlist_head, hlist_head);
SAME_FIELD(hlist_head, hlist_head, first);

SAME_SIZE(hlist_node, hlist_node);
SAME_FIELD(hlist_node, hlist_node, next);
SAME_FIELD(hlist_node, hlist_node, pprev);

SAME_SIZE(rcu_head, rcu_head);
SAME_FIELD(rcu_head, rcu_head, next);
SAME_FIELD(rcu_head, rcu_head, func);

SAME_SIZE(kprobe, kprobe);
SAME_FIELD(kprobe, kprobe, hlist);
SAME_FIELD(kprobe, kprobe, list);
SAME_FIELD(kprobe, kprobe, nmissed);
SAME_FIELD(kprobe, kprobe, addr);
SAME_FIELD(kprobe, kprobe, symbol_name);
SAME_FIELD(kprobe, kprobe, offset);
SAME_FIELD(kprobe, kprobe, pre_handler);
SAME_FIELD(kprobe, kprobe, post_handler);
SAME_FIELD(kprobe, kprobe, opcode);
SAME_FIELD(kprobe, kprobe, ainsn);
SAME_FIELD(kprobe, kprobe, flags);

SAME_SIZE(kprobe_blacklist_entry, kprobe_blacklist_entry);
SAME_FIELD(kprobe_blacklist_entry, kprobe_blacklist_entry, list);
SAME_FIELD(kprobe_blacklist_entry, kprobe_blacklist_entry, start_addr);
SAME_FIELD(kprobe_blacklist_entry, kprobe_blacklist_entry, end_addr);
SAME_FIELD(kprobe_blacklist_entry, kprobe_blacklist_entry, rcu);

SAME_SIZE(kprobe_insn_cache, kprobe_insn_cache);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, mutex);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, alloc);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, free);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, sym);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, pages);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, insn_size);
SAME_FIELD(kprobe_insn_cache, kprobe_insn_cache, nr_garbage);

#ifdef CONFIG_OPTPROBES
SAME_SIZE(optimized_kprobe, optimized_kprobe);
SAME_FIELD(optimized_kprobe, optimized_kprobe, kp);
SAME_FIELD(optimized_kprobe, optimized_kprobe, list);
SAME_FIELD(optimized_kprobe, optimized_kprobe, optinsn);
#endif

SAME_SIZE(kretprobe, kretprobe);
SAME_FIELD(kretprobe, kretprobe, kp);
SAME_FIELD(kretprobe, kretprobe, handler);
SAME_FIELD(kretprobe, kretprobe, entry_handler);
SAME_FIELD(kretprobe, kretprobe, maxactive);
SAME_FIELD(kretprobe, kretprobe, nmissed);
SAME_FIELD(kretprobe, kretprobe, data_size);
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
SAME_FIELD(kretprobe, kretprobe, rh);

SAME_SIZE(kretprobe_instance, kretprobe_instance);
SAME_FIELD(kretprobe_instance, kretprobe_instance, node);
SAME_FIELD(kretprobe_instance, kretprobe_instance, data);
#else /* kretprobes on the arch's own trampoline (arm64) */
SAME_FIELD(kretprobe, kretprobe, rph);

SAME_SIZE(kretprobe_holder, kretprobe_holder);
SAME_FIELD(kretprobe_holder, kretprobe_holder, rp);
SAME_FIELD(kretprobe_holder, kretprobe_holder, pool);

SAME_SIZE(kretprobe_instance, kretprobe_instance);
SAME_FIELD(kretprobe_instance, kretprobe_instance, rcu);
SAME_FIELD(kretprobe_instance, kretprobe_instance, llist);
SAME_FIELD(kretprobe_instance, kretprobe_instance, rph);
SAME_FIELD(kretprobe_instance, kretprobe_instance, ret_addr);
SAME_FIELD(kretprobe_instance, kretprobe_instance, fp);
SAME_FIELD(kretprobe_instance, kretprobe_instance, data);
#endif

SAME_SIZE(kretprobe_blackpoint, kretprobe_blackpoint);
SAME_FIELD(kretprobe_blackpoint, kretprobe_blackpoint, name);
SAME_FIELD(kretprobe_blackpoint, kretprobe_blackpoint, addr);

#ifdef CONFIG_KPROBES_RUST_JPROBES
SAME_SIZE(jprobe, jprobe);
SAME_FIELD(jprobe, jprobe, kp);
SAME_FIELD(jprobe, jprobe, entry);
#endif
