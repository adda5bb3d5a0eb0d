// SPDX-License-Identifier: GPL-2.0
/*
 * Build-time layout checks of hostdiff-rust, C side (no code is generated):
 *  - rust-core's view of the structures it shares with C (rust-core/
 *    types.rs, rendered by cbindgen into c-shim/kprobes_rust_layout.h)
 *    against the stubs' definitions (include/linux/kprobes.h, kstub.h), as
 *    c-shim/kprobes_layout.c checks it against the kernel's;
 *  - the stubs' own types that the Rust side defines by hand
 *    (rust-core/host/sim_ktypes.rs, the host's kernel types, which the
 *    simulation, rust-core/host/sim/, works on) and the constants it
 *    repeats (rust-core/host/sim.rs), against the numbers the Rust side
 *    asserts too.
 */
#include "hd.h"

/* The views against the stubs: the kernel build's checks, unchanged. */
#include "../../../c-shim/kprobes_layout.c"

/* The stubs' types of rust-core/host/sim_ktypes.rs and sim/abi.rs. */
#define SIZE(t, n) _Static_assert(sizeof(t) == (n), "size of " #t " differs from the Rust side")
#define AT(t, f, n) _Static_assert(offsetof(t, f) == (n), "offset of " #t "." #f " differs from the Rust side")
#define SAME(c, n) _Static_assert((c) == (n), #c " differs from the Rust side")

SIZE(struct mutex, 16);
AT(struct mutex, locked, 0);
AT(struct mutex, name, 8);
SIZE(struct pt_regs, 64);
AT(struct pt_regs, ip, 0);
AT(struct pt_regs, sp, 8);
AT(struct pt_regs, args, 16);
SIZE(struct arch_specific_insn, 16);
AT(struct arch_specific_insn, insn, 0);
SIZE(struct arch_optimized_insn, 24);
AT(struct arch_optimized_insn, copied_insn, 0);
AT(struct arch_optimized_insn, insn, 8);
AT(struct arch_optimized_insn, size, 16);
SIZE(struct rethook, 64);
AT(struct rethook, data, 0);
AT(struct rethook, handler, 8);
AT(struct rethook, size, 16);
AT(struct rethook, num, 20);
AT(struct rethook, nfree, 24);
AT(struct rethook, outstanding, 28);
AT(struct rethook, freed, 32);
AT(struct rethook, rcu, 40);
AT(struct rethook, id, 56);
SIZE(struct rethook_node, 48);
AT(struct rethook_node, rcu, 0);
AT(struct rethook_node, next, 16);
AT(struct rethook_node, rethook, 24);
AT(struct rethook_node, ret_addr, 32);
AT(struct rethook_node, frame, 40);
SIZE(struct kprobe_ctlblk, 24);
AT(struct kprobe_ctlblk, kprobe_status, 0);
SIZE(kprobe_opcode_t, 1);
SIZE(struct module, 104);
AT(struct module, state, 8);
AT(struct module, core_start, 24);
AT(struct module, num_kprobe_blacklist, 56);
AT(struct module, kprobe_blacklist, 64);
AT(struct module, kprobes_text_start, 72);
AT(struct module, kprobes_text_size, 80);
AT(struct module, noinstr_text_start, 88);
AT(struct module, noinstr_text_size, 96);
SIZE(enum module_state, 4);
SIZE(struct file, 8);
SIZE(struct seq_file, 32);
AT(struct seq_file, len, 8);
AT(struct seq_file, cap, 16);
AT(struct seq_file, file, 24);
SIZE(struct ctl_table, 48);
AT(struct ctl_table, data, 8);
AT(struct ctl_table, maxlen, 16);
AT(struct ctl_table, mode, 20);
AT(struct ctl_table, proc_handler, 24);
AT(struct ctl_table, extra1, 32);
AT(struct ctl_table, extra2, 40);
SIZE(struct ftrace_ops, 24 + 8 * HD_FTRACE_MAX_FILTER);
AT(struct ftrace_ops, flags, 8);
AT(struct ftrace_ops, nfilter, 16);
AT(struct ftrace_ops, filter, 24);
SAME(HD_FTRACE_MAX_FILTER, 256);
SAME(FTRACE_OPS_FL_ENABLED, 1);
SAME(FTRACE_OPS_FL_SAVE_REGS, 4);
SAME(FTRACE_OPS_FL_IPMODIFY, 512);
SAME(MODULE_STATE_UNFORMED, 3);
SIZE(struct hd_sections, 64);
SIZE(unsigned long, 8);
SIZE(bool, 1);

/* The constants rust-core/host/sim.rs repeats. */
SAME(PAGE_SIZE, 4096);
SAME(KSYM_NAME_LEN, 512);
SAME(PERF_RECORD_KSYMBOL_TYPE_OOL, 2);
/* The errno codes the core returns are rust-core/host/error.rs's. */
#define SAME_ERRNO(c, n) _Static_assert((c) == (n), #c " differs from rust-core/host/error.rs")
SAME_ERRNO(ENOENT, 2);
SAME_ERRNO(E2BIG, 7);
SAME_ERRNO(ENOMEM, 12);
SAME_ERRNO(ENODEV, 19);
SAME_ERRNO(EINVAL, 22);
SAME_ERRNO(ERANGE, 34);
SAME(NOTIFY_DONE, 0);
SAME(MODULE_STATE_LIVE, 0);
SAME(MODULE_STATE_COMING, 1);
SAME(MODULE_STATE_GOING, 2);
SAME(KPROBE_HIT_ACTIVE, 1);
SAME(MAX_OPTIMIZED_LENGTH, 16 + 4);
SAME(KPROBE_FLAG_GONE, 1);
SAME(KPROBE_FLAG_DISABLED, 2);
SAME(KPROBE_FLAG_OPTIMIZED, 4);
SAME(KPROBE_FLAG_FTRACE, 8);
SAME(KPROBE_FLAG_ON_FUNC_ENTRY, 16);
