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
//! path functions (`get_kprobe`, written in assembly below with its ftrace
//! site inline, and the handlers) keep their plain entry.

use crate::{addr, blacklist, init, kretprobe, module, opt, register, slots, sys};
// The debugfs files' callbacks only.
#[cfg(CONFIG_DEBUG_FS)]
use crate::{arm, debugfs, state};
#[cfg(CONFIG_KPROBES_ON_FTRACE)]
use crate::ftrace;
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, Kretprobe, OptimizedKprobe};
use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};

// The C symbols that live with the code they belong to: the hit-path
// handlers (no ftrace site, as upstream's are `NOKPROBE_SYMBOL`s) and
// `get_kprobe()`.
pub use crate::aggr::{
    aggr_post_handler, aggr_pre_handler, dump_kprobe, kprobe_busy_begin, kprobe_busy_end, kprobes_inc_nmissed_count,
    opt_pre_handler,
};
pub use crate::kretprobe::{kretprobe_rethook_handler, pre_handler_kretprobe};
pub use crate::registry::get_kprobe;


ftrace_export! {
    /// `__get_insn_slot()`: a free instruction slot of cache `c`, or null.
    ///
    /// # Safety
    /// `c` is a live `struct kprobe_insn_cache`; process context.
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn __get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
        // SAFETY: `c` is a live cache and we may sleep (`# Safety` above), as `slots::get_insn_slot()` requires.
        unsafe { slots::get_insn_slot(c) }
    }
}

ftrace_export! {
    /// `__free_insn_slot()`: returns `slot` to cache `c`; a `dirty` slot is
    /// reused only after an RCU grace period.
    ///
    /// # Safety
    /// `c` is a live cache; process context.
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn __free_insn_slot(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: c_int) {
        // SAFETY: `c` is a live cache and we may sleep (`# Safety` above), as `slots::free_insn_slot()` requires.
        unsafe { slots::free_insn_slot(c, slot, dirty != 0) }
    }
}

ftrace_export! {
    /// `__is_insn_slot_addr()`: is `addr` on a page of cache `c`?
    ///
    /// # Safety
    /// `c` is a live cache.
    /// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
    /// the cache's mutex) is an empty struct, which the lint flags.
    #[allow(improper_ctypes)]
    unsafe fn __is_insn_slot_addr(c: *mut KprobeInsnCache, addr: c_ulong) -> bool {
        // SAFETY: `c` is a live cache (`# Safety` above), all that `slots::is_insn_slot_addr()` requires.
        unsafe { slots::is_insn_slot_addr(c, addr as usize) }
    }
}

ftrace_export! {
    /// `kprobe_cache_get_kallsym()`: the `*symnum`-th page of `c` as a kallsyms
    /// entry.
    ///
    /// # Safety
    /// `c` is a live cache, the out pointers are valid (`sym` for
    /// `KSYM_NAME_LEN` bytes).
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
        // SAFETY: `c` is live, the out pointers valid, `sym` for KSYM_NAME_LEN bytes (`# Safety` above), as required.
        unsafe { slots::cache_get_kallsym(c, symnum, value, type_, sym) }
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
    fn kprobe_add_ksym_blacklist(entry: c_ulong) -> c_int {
        blacklist::add_ksym_blacklist(entry as usize)
    }
}

ftrace_export! {
    /// `kprobe_add_area_blacklist()`: blacklists every symbol in
    /// `[start, end)`.
    fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int {
        blacklist::add_area_blacklist(start as usize, end as usize)
    }
}





ftrace_export! {
    /// `kprobe_get_kallsym()`: kallsyms entries of the insn slot pages.
    ///
    /// # Safety
    /// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
    unsafe fn kprobe_get_kallsym(symnum: c_uint, value: *mut c_ulong, type_: *mut c_char, sym: *mut c_char) -> c_int {
        // SAFETY: valid out pointers, `sym` for KSYM_NAME_LEN bytes (`# Safety` above): `slots::kprobe_get_kallsym()`'s needs.
        unsafe { slots::kprobe_get_kallsym(symnum, value, type_, sym) }
    }
}



ftrace_export! {
    /// `kprobe_on_func_entry()`: 0 if the address is a function entry.
    ///
    /// # Safety
    /// `sym` is null or a C string.
    unsafe fn kprobe_on_func_entry(addr: *mut KprobeOpcode, sym: *const c_char, offset: c_ulong) -> c_int {
        // SAFETY: `sym` is null or a C string (`# Safety` above), all that `addr::kprobe_on_func_entry()` requires.
        unsafe { addr::kprobe_on_func_entry(addr, sym, offset) }
    }
}


#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_seq_start()` of `kprobes/list`.
///
/// # Safety
/// `pos` is the seq_file core's valid position pointer.
#[no_mangle]
pub unsafe extern "C" fn kprobe_seq_start(_f: *mut sys::SeqFile, pos: *mut crate::types::Loff) -> *mut c_void {
    // SAFETY: `pos` is valid (`# Safety` above), all that `debugfs::seq_start()` requires.
    unsafe { debugfs::seq_start(pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_seq_next()` of `kprobes/list`.
///
/// # Safety
/// `pos` is the seq_file core's valid position pointer.
#[no_mangle]
pub unsafe extern "C" fn kprobe_seq_next(_f: *mut sys::SeqFile, _v: *mut c_void, pos: *mut crate::types::Loff) -> *mut c_void {
    // SAFETY: `pos` is valid (`# Safety` above), all that `debugfs::seq_next()` requires.
    unsafe { debugfs::seq_next(pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_seq_stop()` of `kprobes/list`: nothing to do.
#[no_mangle]
pub extern "C" fn kprobe_seq_stop(_f: *mut sys::SeqFile, _v: *mut c_void) {}

#[cfg(CONFIG_DEBUG_FS)]
/// `show_kprobe_addr()`: the lines of one hash bucket in `kprobes/list`.
///
/// # Safety
/// `pi` is the seq_file being shown; `v` was returned by `kprobe_seq_start/next()`.
#[no_mangle]
pub unsafe extern "C" fn show_kprobe_addr(pi: *mut sys::SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: `pi` is being shown, `v` a position from the seq start/next (`# Safety` above), as required.
    unsafe { debugfs::show_kprobe_addr(pi, v) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`.
///
/// # Safety
/// `m` is being shown; `v` is from the seq start/next (`kprobe_mutex` held since the start).
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_show(m: *mut sys::SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: `m` is being shown, `v` the `list` of an entry that `kprobe_mutex` keeps alive (`# Safety` above).
    unsafe { debugfs::blacklist_seq_show(m, v) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_start()` of `kprobes/blacklist`: takes
/// `kprobe_mutex` until the seq stop.
///
/// # Safety
/// `pos` is the seq_file core's valid position pointer.
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_start(_m: *mut sys::SeqFile, pos: *mut crate::types::Loff) -> *mut c_void {
    state::lock();
    // SAFETY: `pos` is valid (`# Safety` above); `kprobe_mutex`, taken above, keeps the list stable until the stop.
    unsafe { sys::seq_list_start(&raw mut blacklist::KPROBE_BLACKLIST, *pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_next()` of `kprobes/blacklist`.
///
/// # Safety
/// `v` is the entry the last start/next returned, `pos` is valid; `kprobe_mutex` is held.
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_next(_m: *mut sys::SeqFile, v: *mut c_void, pos: *mut crate::types::Loff) -> *mut c_void {
    // SAFETY: `v` is an entry of the list that `kprobe_mutex` keeps stable, `pos` is valid (`# Safety` above).
    unsafe { sys::seq_list_next(v, &raw mut blacklist::KPROBE_BLACKLIST, pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_stop()` of `kprobes/blacklist`.
#[no_mangle]
pub extern "C" fn kprobe_blacklist_seq_stop(_m: *mut sys::SeqFile, _v: *mut c_void) {
    state::unlock();
}

ftrace_export! {
    /// `register_kprobe()`: registers `p` (by `addr`, or `symbol_name` +
    /// `offset`).  0 or a negative errno.
    ///
    /// # Safety
    /// `p` stays alive and untouched by the caller until it is unregistered; process context.
    unsafe fn register_kprobe(p: *mut Kprobe) -> c_int {
        // SAFETY: `p` lives until unregistered, process context (`# Safety` above), as `register::register_kprobe()` needs.
        unsafe { register::register_kprobe(p) }
    }
}

ftrace_export! {
    /// `register_kprobes()`: registers `num` probes, all or none.
    ///
    /// # Safety
    /// `kps` holds `num` probes, each as for [`register_kprobe`]; process context.
    unsafe fn register_kprobes(kps: *mut *mut Kprobe, num: c_int) -> c_int {
        // SAFETY: `num` probes, each as for `register_kprobe()` (`# Safety` above), as `register::register_kprobes()` needs.
        unsafe { register::register_kprobes(kps, num) }
    }
}

ftrace_export! {
    /// `unregister_kprobe()`.
    ///
    /// # Safety
    /// `p` is readable; process context.
    unsafe fn unregister_kprobe(p: *mut Kprobe) {
        let mut p = p;
        // SAFETY: `&mut p` is an array of one readable probe, process context (`# Safety` above), as required.
        unsafe { register::unregister_kprobes(&mut p, 1) }
    }
}

ftrace_export! {
    /// `unregister_kprobes()`.
    ///
    /// # Safety
    /// `kps` holds `num` readable probes; process context.
    unsafe fn unregister_kprobes(kps: *mut *mut Kprobe, num: c_int) {
        // SAFETY: `kps` holds `num` readable probes, process context (`# Safety` above), as required.
        unsafe { register::unregister_kprobes(kps, num) }
    }
}

ftrace_export! {
    /// `enable_kprobe()`.
    ///
    /// # Safety
    /// `kp` is readable.
    unsafe fn enable_kprobe(kp: *mut Kprobe) -> c_int {
        // SAFETY: `kp` is readable (`# Safety` above), all that `register::enable_kprobe()` requires.
        unsafe { register::enable_kprobe(kp) }
    }
}

ftrace_export! {
    /// `disable_kprobe()`.
    ///
    /// # Safety
    /// `kp` is readable.
    unsafe fn disable_kprobe(kp: *mut Kprobe) -> c_int {
        // SAFETY: `kp` is readable (`# Safety` above), all that `register::disable_kprobe()` requires.
        unsafe { register::disable_kprobe(kp) }
    }
}

ftrace_export! {
    /// `register_kretprobe()`.
    ///
    /// # Safety
    /// `rp` stays alive and untouched by the caller until unregistered; process context.
    unsafe fn register_kretprobe(rp: *mut Kretprobe) -> c_int {
        // SAFETY: `rp` lives until unregistered, process context (`# Safety` above), as `kretprobe::register_kretprobe()` needs.
        unsafe { kretprobe::register_kretprobe(rp) }
    }
}

ftrace_export! {
    /// `register_kretprobes()`: all or none.
    ///
    /// # Safety
    /// `rps` holds `num` kretprobes, each as for [`register_kretprobe`]; process context.
    unsafe fn register_kretprobes(rps: *mut *mut Kretprobe, num: c_int) -> c_int {
        // SAFETY: `num` kretprobes, each as for `register_kretprobe()` (`# Safety` above), as required.
        unsafe { kretprobe::register_kretprobes(rps, num) }
    }
}

ftrace_export! {
    /// `unregister_kretprobe()`.
    ///
    /// # Safety
    /// `rp` is readable; process context.
    unsafe fn unregister_kretprobe(rp: *mut Kretprobe) {
        let mut rp = rp;
        // SAFETY: `&mut rp` is an array of one readable kretprobe, process context (`# Safety` above), as required.
        unsafe { kretprobe::unregister_kretprobes(&mut rp, 1) }
    }
}

ftrace_export! {
    /// `unregister_kretprobes()`.
    ///
    /// # Safety
    /// `rps` holds `num` distinct, readable kretprobes; process context.
    unsafe fn unregister_kretprobes(rps: *mut *mut Kretprobe, num: c_int) {
        // SAFETY: `rps` holds `num` distinct, readable kretprobes, process context (`# Safety` above), as required.
        unsafe { kretprobe::unregister_kretprobes(rps, num) }
    }
}

ftrace_export! {
    /// `kprobe_disarmed()`: is hashed probe `p` disarmed?  (Read by the arch's
    /// optprobe code.)
    ///
    /// # Safety
    /// `p` is hashed.
    unsafe fn kprobe_disarmed(p: *mut Kprobe) -> bool {
        // SAFETY: a hashed `p` is live (`# Safety` above), all that `opt::kprobe_disarmed()` requires.
        unsafe { opt::kprobe_disarmed(p) }
    }
}

ftrace_export! {
    /// `optprobe_queued_unopt()`: is `op` queued for unoptimization?
    ///
    /// # Safety
    /// `kprobe_mutex` held (x86 calls it from `__recover_optprobed_insn()`, under it).
    unsafe fn optprobe_queued_unopt(op: *mut OptimizedKprobe) -> bool {
        // SAFETY: `kprobe_mutex` is held (`# Safety` above), which keeps `unoptimizing_list` stable for the walk.
        unsafe { opt::optprobe_queued_unopt(op) }
    }
}

ftrace_export! {
    /// `wait_for_kprobe_optimizer()`: waits for pending (un)optimization.
    fn wait_for_kprobe_optimizer() {
        opt::wait_for_kprobe_optimizer()
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

/// The optimizer's delayed work (`kprobe_optimizer()`), called by the C
/// shim's work function.
#[no_mangle]
pub extern "C" fn kprobes_rust_optimizer_work() {
    opt::kprobe_optimizer()
}

#[cfg(CONFIG_MODULES)]
/// `kprobes_module_callback()`, called by the C shim's module notifier.
///
/// # Safety
/// Called by the module notifier chain: `module` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_module_callback(val: c_ulong, module: *mut sys::Module) -> c_int {
    // SAFETY: the notifier passes a live `module` (`# Safety` above), as `module::module_callback()` requires.
    unsafe { module::module_callback(val, module) }
}

/// `init_kprobes()`, called by the C shim's early initcall.
///
/// # Safety
/// Once, at boot (`.init.text`, like upstream's `__init`).
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_init() -> c_int {
    // SAFETY: called once, at boot (`# Safety` above), as `init::init_kprobes()` requires.
    unsafe { init::init_kprobes() }
}

/// `init_optprobes()`, called by the C shim's subsys initcall.
#[no_mangle]
pub extern "C" fn kprobes_rust_init_optprobes() -> c_int {
    init::init_optprobes()
}

#[cfg(CONFIG_SYSCTL)]
/// `proc_kprobes_optimization_handler()`: the `proc_handler` of
/// `debug.kprobes-optimization` (the C shim's sysctl table).
///
/// # Safety
/// The arguments the sysctl core passes to a `proc_handler`.
#[no_mangle]
pub unsafe extern "C" fn proc_kprobes_optimization_handler(
    table: *const sys::CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    ppos: *mut crate::types::Loff,
) -> c_int {
    // SAFETY: the sysctl core's own arguments (`# Safety` above), as `opt::sysctl_handler()` requires.
    unsafe { opt::sysctl_handler(table, write, buffer, length, ppos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `read_enabled_file_bool()`: `read` of `kprobes/enabled`.
///
/// # Safety
/// `user_buf` is a user buffer of `count` bytes, `ppos` the valid file position.
#[no_mangle]
pub unsafe extern "C" fn read_enabled_file_bool(_file: *mut sys::File, user_buf: *mut c_char, count: usize, ppos: *mut crate::types::Loff) -> isize {
    // SAFETY: `user_buf`, `count`, `ppos` as `arm::read_enabled_file_bool()` requires them (`# Safety` above).
    unsafe { arm::read_enabled_file_bool(user_buf, count, ppos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `write_enabled_file_bool()`: `write` of `kprobes/enabled`.
///
/// # Safety
/// `user_buf` is a user buffer of `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn write_enabled_file_bool(_file: *mut sys::File, user_buf: *const c_char, count: usize, _ppos: *mut crate::types::Loff) -> isize {
    // SAFETY: `user_buf` is a user buffer of `count` bytes (`# Safety` above), as `arm::write_enabled_file_bool()` requires.
    unsafe { arm::write_enabled_file_bool(user_buf, count) }
}
