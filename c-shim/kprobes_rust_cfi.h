/* SPDX-License-Identifier: GPL-2.0 */

#ifndef _KPROBES_RUST_CFI_H
#define _KPROBES_RUST_CFI_H

/*
 * Generated from kprobes_rust.h and rust-core/ (scripts/gen-header.sh); do
 * not edit.  Every function of kprobes_rust.h that the Rust core defines,
 * address-taken, so that clang defines its kCFI type id __kcfi_typeid_NAME
 * from the C prototype: the core's assembly entry points carry that id
 * (arch/<arch>/entry.rs), and kcfi_check.py compares it with the id rustc
 * gave each function written in Rust.  Only kprobes_shim.c includes it,
 * with CONFIG_CFI (CONFIG_CFI_CLANG on older trees).
 */

__ADDRESSABLE(dump_kprobe);

__ADDRESSABLE(kprobes_inc_nmissed_count);

__ADDRESSABLE(kprobe_busy_begin);

__ADDRESSABLE(kprobe_busy_end);

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_seq_start);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_seq_next);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_seq_stop);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(show_kprobe_addr);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_blacklist_seq_show);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_blacklist_seq_start);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_blacklist_seq_next);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(kprobe_blacklist_seq_stop);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(read_enabled_file_bool);
#endif

#if defined(CONFIG_DEBUG_FS)
__ADDRESSABLE(write_enabled_file_bool);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(jprobe_pre_handler);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(jprobe_return);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(register_jprobe);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(register_jprobes);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(unregister_jprobe);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(unregister_jprobes);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(enable_jprobe);
#endif

#if defined(CONFIG_KPROBES_RUST_JPROBES)
__ADDRESSABLE(disable_jprobe);
#endif

__ADDRESSABLE(aggr_pre_handler);

__ADDRESSABLE(aggr_post_handler);

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(opt_pre_handler);
#endif

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(kprobes_rust_init_optprobes);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(kretprobe_init_inst);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(kretprobe_fini_pool);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(free_rp_inst_rcu);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(recycle_rp_inst);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(kprobe_flush_task);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(__kretprobe_find_ret_addr);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(kretprobe_find_ret_addr);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(__kretprobe_trampoline_handler);
#endif

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(pre_handler_kretprobe);
#endif

#if defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(pre_handler_kretprobe);
#endif

#if defined(CONFIG_KRETPROBE_ON_RETHOOK)
__ADDRESSABLE(kretprobe_rethook_handler);
#endif

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(kprobes_rust_optimizer_work);
#endif

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(kprobes_rust_optimizer_thread);
#endif

#if (defined(CONFIG_OPTPROBES) && defined(CONFIG_SYSCTL))
__ADDRESSABLE(proc_kprobes_optimization_handler);
#endif

__ADDRESSABLE(get_kprobe);

__ADDRESSABLE(__get_insn_slot);

__ADDRESSABLE(__free_insn_slot);

__ADDRESSABLE(__is_insn_slot_addr);

__ADDRESSABLE(kprobe_cache_get_kallsym);

__ADDRESSABLE(within_kprobe_blacklist);

__ADDRESSABLE(kprobe_add_ksym_blacklist);

__ADDRESSABLE(kprobe_add_area_blacklist);

__ADDRESSABLE(kprobe_get_kallsym);

__ADDRESSABLE(kprobe_on_func_entry);

__ADDRESSABLE(register_kprobe);

__ADDRESSABLE(register_kprobes);

__ADDRESSABLE(unregister_kprobe);

__ADDRESSABLE(unregister_kprobes);

__ADDRESSABLE(enable_kprobe);

__ADDRESSABLE(disable_kprobe);

__ADDRESSABLE(register_kretprobe);

__ADDRESSABLE(register_kretprobes);

__ADDRESSABLE(unregister_kretprobe);

__ADDRESSABLE(unregister_kretprobes);

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(kprobe_disarmed);
#endif

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(optprobe_queued_unopt);
#endif

#if defined(CONFIG_OPTPROBES)
__ADDRESSABLE(wait_for_kprobe_optimizer);
#endif

#if defined(CONFIG_KPROBES_ON_FTRACE)
__ADDRESSABLE(kprobe_ftrace_kill);
#endif

__ADDRESSABLE(kprobe_free_init_mem);

#if defined(CONFIG_MODULES)
__ADDRESSABLE(kprobes_rust_module_callback);
#endif

__ADDRESSABLE(kprobes_rust_init);

#endif  /* _KPROBES_RUST_CFI_H */
