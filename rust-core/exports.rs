// SPDX-License-Identifier: GPL-2.0

//! The C ABI of the core: every function C code links against, with the
//! upstream names and prototypes (checked against `<linux/kprobes.h>` by the
//! C shim including the generated header).  Each is a thin wrapper around
//! the module that implements it.
//!
//! `ftrace_export!`: every function of upstream `kprobes.o` is a ftrace site
//! (`call __fentry__`, NOPed at boot, listed in `available_filter_functions`,
//! and a kprobe at its entry is an `[FTRACE]` probe).  Rust in 6.12 cannot
//! emit that call, so each exported function that is not on the probe hit
//! path is a naked entry stub `endbr64; call __fentry__; jmp <body>`, whose
//! `call __fentry__` objtool records and NOPs like the compiler's.  The hit
//! path functions (`get_kprobe`, written in assembly with its ftrace site
//! inline in `registry.rs`, and the handlers) keep their plain entry.

use crate::ffi::{c_char, c_int, c_uint, c_ulong};
#[cfg(CONFIG_KPROBES_ON_FTRACE)]
use crate::ftrace;
use crate::probe::{Probe, ProbeArray, RetProbe, RetProbeArray};
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, Kretprobe};
use crate::{addr, blacklist, error::to_errno, init, kretprobe, module, register, slots};

// The C symbols that live with the code they belong to: the hit-path
// handlers (no ftrace site, unlike upstream's: docs/design.md, "ftrace sites"),
// `get_kprobe()`, `kprobe_busy_begin/end()`, the sysctl handler and the
// debugfs files' callbacks.
pub use crate::aggr::{dump_kprobe, kprobe_busy_begin, kprobe_busy_end, kprobes_inc_nmissed_count};
#[cfg(CONFIG_DEBUG_FS)]
pub use crate::debugfs::{
    kprobe_blacklist_seq_next, kprobe_blacklist_seq_show, kprobe_blacklist_seq_start,
    kprobe_blacklist_seq_stop, kprobe_seq_next, kprobe_seq_start, kprobe_seq_stop,
    read_enabled_file_bool, show_kprobe_addr, write_enabled_file_bool,
};
pub use crate::kretprobe::pre_handler_kretprobe;
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub use crate::kretprobe_objpool::{
    __kretprobe_trampoline_handler, kprobe_flush_task, kretprobe_find_ret_addr,
};
#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
pub use crate::kretprobe_rethook::kretprobe_rethook_handler;
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
pub use crate::opt::proc_kprobes_optimization_handler;
// The optimizer's (`CONFIG_OPTPROBES`, `opt.rs`).
#[cfg(CONFIG_OPTPROBES)]
pub use crate::opt::kprobes_rust_optimizer_work;
pub use crate::probe::{aggr_post_handler, aggr_pre_handler};
pub use crate::registry::get_kprobe;
#[cfg(CONFIG_OPTPROBES)]
pub use crate::{init::kprobes_rust_init_optprobes, probe::opt_pre_handler};

ftrace_export! {
    /// `__get_insn_slot()`: a free instruction slot of cache `c`, or null.
    ///
    /// # Safety
    /// `c` is a live, initialized cache (see `slots::Cache::from_raw()`); process context.
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn __get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
        // SAFETY: `c` is a live, initialized cache (`# Safety` above), what
        // `slots::Cache::from_raw()` requires.
        slots::get_insn_slot(unsafe { slots::Cache::from_raw(c) })
    }
}

ftrace_export! {
    /// `__free_insn_slot()`: returns `slot` to cache `c`; a `dirty` slot is
    /// reused only after an RCU grace period.
    ///
    /// # Safety
    /// `c` is a live, initialized cache (see `slots::Cache::from_raw()`); process context.
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn __free_insn_slot(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: c_int) {
        // SAFETY: `c` is a live, initialized cache (`# Safety` above), what
        // `slots::Cache::from_raw()` requires.
        slots::free_insn_slot(unsafe { slots::Cache::from_raw(c) }, slot, dirty != 0)
    }
}

ftrace_export! {
    /// `__is_insn_slot_addr()`: is `addr` on a page of cache `c`?
    ///
    /// # Safety
    /// `c` is a live, initialized cache (see `slots::Cache::from_raw()`).
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn __is_insn_slot_addr(c: *mut KprobeInsnCache, addr: c_ulong) -> bool {
        // SAFETY: `c` is a live, initialized cache (`# Safety` above), what
        // `slots::Cache::from_raw()` requires.
        slots::is_insn_slot_addr(unsafe { slots::Cache::from_raw(c) }, addr as usize)
    }
}

ftrace_export! {
    /// `kprobe_cache_get_kallsym()`: the `*symnum`-th page of `c` as a kallsyms
    /// entry.
    ///
    /// # Safety
    /// `c` is a live, initialized cache; the out pointers are valid (`sym` for `KSYM_NAME_LEN`
    /// bytes) and not accessed by others during the call (the caller's iterator).
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn kprobe_cache_get_kallsym(
        c: *mut KprobeInsnCache,
        symnum: *mut c_uint,
        value: *mut c_ulong,
        type_: *mut c_char,
        sym: *mut c_char,
    ) -> c_int {
        // SAFETY: `c` is a live cache; the out pointers are valid (`sym` for KSYM_NAME_LEN bytes)
        // and unshared (`# Safety`).
        to_errno(unsafe {
            slots::cache_get_kallsym(
                slots::Cache::from_raw(c),
                &mut *symnum,
                &mut *value,
                &mut *type_,
                &mut *sym.cast(),
            )
        })
    }
}

ftrace_export! {
    /// `within_kprobe_blacklist()`: may a probe not be placed at `addr`?
    fn within_kprobe_blacklist(addr: c_ulong) -> bool {
        blacklist::within_kprobe_blacklist(addr as usize)
    }
}

ftrace_export! {
    /// `kprobe_add_ksym_blacklist()`: blacklists the symbol at `entry`; returns
    /// its size or a negative errno.
    ///
    /// # Safety
    /// The current task holds `kprobe_mutex` (the arch's
    /// `arch_populate_kprobe_blacklist()`, which the core calls with it held).
    unsafe fn kprobe_add_ksym_blacklist(entry: c_ulong) -> c_int {
        // SAFETY: `kprobe_mutex` is held for this call (`# Safety` above).
        let km = unsafe { crate::locks::KprobeMutex::assume_held() };
        blacklist::add_ksym_blacklist(&km, entry as usize)
            .map_or_else(|e| e.to_errno(), |size| size as c_int)
    }
}

ftrace_export! {
    /// `kprobe_add_area_blacklist()`: blacklists every symbol in
    /// `[start, end)`.
    ///
    /// # Safety
    /// As for `kprobe_add_ksym_blacklist()`: under `kprobe_mutex`.
    unsafe fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int {
        // SAFETY: `kprobe_mutex` is held for this call (`# Safety` above).
        let km = unsafe { crate::locks::KprobeMutex::assume_held() };
        to_errno(blacklist::add_area_blacklist(&km, start as usize, end as usize))
    }
}

ftrace_export! {
    /// `kprobe_get_kallsym()`: kallsyms entries of the insn slot pages.
    ///
    /// # Safety
    /// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes, unshared during the call
    /// (`kallsym_iter`'s).
    unsafe fn kprobe_get_kallsym(
        symnum: c_uint,
        value: *mut c_ulong,
        type_: *mut c_char,
        sym: *mut c_char,
    ) -> c_int {
        // SAFETY: valid out pointers, `sym` for KSYM_NAME_LEN bytes, unshared during the call
        // (`# Safety` above).
        let (value, type_, sym) = unsafe { (&mut *value, &mut *type_, &mut *sym.cast()) };
        to_errno(slots::kprobe_get_kallsym(symnum, value, type_, sym))
    }
}

ftrace_export! {
    /// `kprobe_on_func_entry()`: 0 if the address is a function entry.
    ///
    /// # Safety
    /// `sym` is null or a C string.
    unsafe fn kprobe_on_func_entry(
        addr: *mut KprobeOpcode,
        sym: *const c_char,
        offset: c_ulong,
    ) -> c_int {
        // SAFETY: `sym` is null or a C string (`# Safety` above), which the caller keeps for the
        // call.
        let sym = (!sym.is_null()).then(|| unsafe { crate::ctypes::cstr_from_ptr(sym.cast()) });
        to_errno(addr::kprobe_on_func_entry(addr, sym, offset))
    }
}

ftrace_export! {
    /// `register_kprobe()`: registers `p` (by `addr`, or `symbol_name` +
    /// `offset`).  0 or a negative errno.
    ///
    /// # Safety
    /// `p` is non-null and stays alive and untouched by the caller until it
    /// is unregistered, its `symbol_name` null or a C string; process context.
    unsafe fn register_kprobe(p: *mut Kprobe) -> c_int {
        // SAFETY: `p` lives until unregistered, with a valid `symbol_name` (`# Safety` above): a
        // `Probe`.
        to_errno(register::register_kprobe(unsafe { Probe::from_raw(p) }))
    }
}

ftrace_export! {
    /// `register_kprobes()`: registers `num` probes, all or none.
    ///
    /// # Safety
    /// `kps` holds `num` probes, each as for [`register_kprobe`]; process context.
    unsafe fn register_kprobes(kps: *mut *mut Kprobe, num: c_int) -> c_int {
        // SAFETY: `num` probes, each as for `register_kprobe()` (`# Safety` above): a `ProbeArray`.
        to_errno(register::register_kprobes(unsafe { ProbeArray::from_c(kps, num) }))
    }
}

ftrace_export! {
    /// `unregister_kprobe()`.
    ///
    /// # Safety
    /// `p` is a caller's live `struct kprobe` (`symbol_name` null or a C
    /// string); process context.
    unsafe fn unregister_kprobe(p: *mut Kprobe) {
        // SAFETY: a null `p` or a live caller's probe (`# Safety` above).
        register::unregister_kprobe(unsafe { Probe::from_raw_opt(p) })
    }
}

ftrace_export! {
    /// `unregister_kprobes()`.
    ///
    /// # Safety
    /// `kps` holds `num` probes, each as for [`unregister_kprobe`]; process context.
    unsafe fn unregister_kprobes(kps: *mut *mut Kprobe, num: c_int) {
        // SAFETY: `kps` holds `num` such probes (`# Safety` above): a `ProbeArray`.
        register::unregister_kprobes(unsafe { ProbeArray::from_c(kps, num) })
    }
}

ftrace_export! {
    /// `enable_kprobe()`.
    ///
    /// # Safety
    /// `kp` is a caller's live `struct kprobe` (`symbol_name` null or a C string).
    unsafe fn enable_kprobe(kp: *mut Kprobe) -> c_int {
        // SAFETY: live for the call, with a valid `symbol_name` (`# Safety` above): a `Probe`.
        to_errno(register::enable_kprobe(unsafe { Probe::from_raw(kp) }))
    }
}

ftrace_export! {
    /// `disable_kprobe()`.
    ///
    /// # Safety
    /// `kp` is a caller's live `struct kprobe` (`symbol_name` null or a C string).
    unsafe fn disable_kprobe(kp: *mut Kprobe) -> c_int {
        // SAFETY: live for the call, with a valid `symbol_name` (`# Safety` above): a `Probe`.
        to_errno(register::disable_kprobe(unsafe { Probe::from_raw(kp) }))
    }
}

ftrace_export! {
    /// `register_kretprobe()`.
    ///
    /// # Safety
    /// `rp` is non-null and stays alive and untouched by the caller until
    /// unregistered, its `kp.symbol_name` null or a C string; process context.
    unsafe fn register_kretprobe(rp: *mut Kretprobe) -> c_int {
        // SAFETY: `rp` lives until unregistered (`# Safety` above): a `RetProbe`.
        to_errno(kretprobe::register_kretprobe(unsafe { RetProbe::from_raw(rp) }))
    }
}

ftrace_export! {
    /// `register_kretprobes()`: all or none.
    ///
    /// # Safety
    /// `rps` holds `num` kretprobes, each as for [`register_kretprobe`]; process context.
    unsafe fn register_kretprobes(rps: *mut *mut Kretprobe, num: c_int) -> c_int {
        // SAFETY: `num` kretprobes, each as for `register_kretprobe()` (`# Safety` above): a
        // `RetProbeArray`.
        to_errno(kretprobe::register_kretprobes(unsafe { RetProbeArray::from_c(rps, num) }))
    }
}

ftrace_export! {
    /// `unregister_kretprobe()`.
    ///
    /// # Safety
    /// `rp` is a caller's live `struct kretprobe` (`kp.symbol_name` null or
    /// a C string); process context.
    unsafe fn unregister_kretprobe(rp: *mut Kretprobe) {
        let mut rp = rp;
        // SAFETY: `&mut rp` is an array of one such kretprobe (`# Safety` above).
        kretprobe::unregister_kretprobes(unsafe { RetProbeArray::from_raw(&mut rp, 1) })
    }
}

ftrace_export! {
    /// `unregister_kretprobes()`.
    ///
    /// # Safety
    /// `rps` holds `num` distinct kretprobes, each as for
    /// [`unregister_kretprobe`]; process context.
    unsafe fn unregister_kretprobes(rps: *mut *mut Kretprobe, num: c_int) {
        // SAFETY: `rps` holds `num` such kretprobes (`# Safety` above): a `RetProbeArray`.
        kretprobe::unregister_kretprobes(unsafe { RetProbeArray::from_c(rps, num) })
    }
}

ftrace_export! {
    /// `kprobe_disarmed()`: is hashed probe `p` disarmed?  (Read by the arch's
    /// optprobe code.)
    ///
    /// # Safety
    /// `p` is hashed, and the current task holds `kprobe_mutex` (the arch
    /// calls it from `arch_check_optimized_kprobe()`, which
    /// `optimize_kprobe()` calls under it).
    #[cfg(CONFIG_OPTPROBES)]
    unsafe fn kprobe_disarmed(p: *mut Kprobe) -> bool {
        // SAFETY: the current task holds `kprobe_mutex` for this call (`# Safety`
        // above).
        let km = unsafe { crate::locks::KprobeMutex::assume_held() };
        // SAFETY: a hashed `p` is live (`# Safety` above): a `Probe`.
        crate::opt::kprobe_disarmed(&km, unsafe { Probe::from_raw(p) })
    }
}

ftrace_export! {
    /// `optprobe_queued_unopt()`: is `op` queued for unoptimization?
    ///
    /// # Safety
    /// `kprobe_mutex` held (x86 calls it from `__recover_optprobed_insn()`, under it).
    #[cfg(CONFIG_OPTPROBES)]
    unsafe fn optprobe_queued_unopt(op: *mut crate::types::OptimizedKprobe) -> bool {
        // SAFETY: the caller holds `kprobe_mutex` for the whole call (`# Safety` above).
        crate::opt::optprobe_queued_unopt(&unsafe { crate::locks::KprobeMutex::assume_held() }, op)
    }
}

ftrace_export! {
    /// `wait_for_kprobe_optimizer()`: waits for pending (un)optimization.
    #[cfg(CONFIG_OPTPROBES)]
    fn wait_for_kprobe_optimizer() {
        crate::opt::wait_for_kprobe_optimizer()
    }
}

ftrace_export! {
    /// `kprobe_ftrace_kill()`: ftrace is dead (called by ftrace_kill()).
    #[cfg(CONFIG_KPROBES_ON_FTRACE)]
    fn kprobe_ftrace_kill() {
        ftrace::kprobe_ftrace_kill()
    }
}

ftrace_export! {
    /// `kprobe_free_init_mem()`: called by init/main.c before the kernel's
    /// init text is freed.
    fn kprobe_free_init_mem() {
        module::kprobe_free_init_mem()
    }
}

#[cfg(CONFIG_MODULES)]
/// `kprobes_module_callback()`, called by the C shim's module notifier.
///
/// # Safety
/// Called by the module notifier chain: `module` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_module_callback(
    val: c_ulong,
    module: *mut crate::sys::Module,
) -> c_int {
    // SAFETY: the notifier passes a live `module` (`# Safety` above), as
    // `module::module_callback()` requires.
    unsafe { module::module_callback(val, module) }
}

/// `init_kprobes()`, called by the C shim's early initcall.
///
/// # Safety
/// Once, at boot, by the early initcall (`.init.text`, like upstream's `__init`).
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_init() -> c_int {
    // SAFETY: the early initcall runs once, before `smp_init()`, any use of the core and the
    // freeing of init memory (`# Safety` above); the one token lives for this call.
    init::init_kprobes(unsafe { crate::views::Boot::assume() })
}
