// SPDX-License-Identifier: GPL-2.0

//! The C ABI of the core: every function C code links against, with the
//! upstream names and prototypes (checked against `<linux/kprobes.h>` by the
//! C shim including the generated header).  Each is a thin wrapper around
//! the module that implements it.

use crate::{addr, aggr, arm, blacklist, debugfs, ftrace, init, kretprobe, module, opt, register, registry, slots, state, sys};
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, Kretprobe, OptimizedKprobe, PtRegs, RethookNode};
use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};

/// `__get_insn_slot()`: a free instruction slot of cache `c`, or null.
///
/// # Safety
/// `c` is a live `struct kprobe_insn_cache`; process context.
#[no_mangle]
pub unsafe extern "C" fn __get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
    // SAFETY: forwarded caller contract.
    unsafe { slots::get_insn_slot(c) }
}

/// `__free_insn_slot()`: returns `slot` to cache `c`; a `dirty` slot is
/// reused only after an RCU grace period.
///
/// # Safety
/// `c` is a live cache; process context.
#[no_mangle]
pub unsafe extern "C" fn __free_insn_slot(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: c_int) {
    // SAFETY: forwarded caller contract.
    unsafe { slots::free_insn_slot(c, slot, dirty != 0) }
}

/// `__is_insn_slot_addr()`: is `addr` on a page of cache `c`?
///
/// # Safety
/// `c` is a live cache.
#[no_mangle]
pub unsafe extern "C" fn __is_insn_slot_addr(c: *mut KprobeInsnCache, addr: c_ulong) -> bool {
    // SAFETY: forwarded caller contract.
    unsafe { slots::is_insn_slot_addr(c, addr as usize) }
}

/// `kprobe_cache_get_kallsym()`: the `*symnum`-th page of `c` as a kallsyms
/// entry.
///
/// # Safety
/// `c` is a live cache, the out pointers are valid (`sym` for
/// `KSYM_NAME_LEN` bytes).
#[no_mangle]
pub unsafe extern "C" fn kprobe_cache_get_kallsym(
    c: *mut KprobeInsnCache,
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { slots::cache_get_kallsym(c, symnum, value, type_, sym) }
}

/// `within_kprobe_blacklist()`: may a probe not be placed at `addr`?
#[no_mangle]
pub extern "C" fn within_kprobe_blacklist(addr: c_ulong) -> bool {
    blacklist::within_kprobe_blacklist(addr as usize)
}

/// `kprobe_add_ksym_blacklist()`: blacklists the symbol at `entry`; returns
/// its size or a negative errno.
#[no_mangle]
pub extern "C" fn kprobe_add_ksym_blacklist(entry: c_ulong) -> c_int {
    blacklist::add_ksym_blacklist(entry as usize)
}

/// `kprobe_add_area_blacklist()`: blacklists every symbol in
/// `[start, end)`.
#[no_mangle]
pub extern "C" fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int {
    blacklist::add_area_blacklist(start as usize, end as usize)
}




/// `get_kprobe()`: the probe registered at `addr`, or null.  Called under
/// `kprobe_mutex` or with preemption disabled from the arch handlers.
///
/// # Safety
/// One of those two contexts.
#[no_mangle]
pub unsafe extern "C" fn get_kprobe(addr: *mut c_void) -> *mut Kprobe {
    // SAFETY: forwarded caller contract.
    unsafe { registry::get_kprobe(addr.cast()) }
}
crate::nokprobe_symbol!(get_kprobe);

/// `aggr_pre_handler()`, the pre-handler of every aggregate probe (the
/// transitional C installs it and compares against it).
///
/// # Safety
/// Breakpoint/ftrace handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn aggr_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::aggr_pre_handler(p, regs) }
}
crate::nokprobe_symbol!(aggr_pre_handler);

/// `aggr_post_handler()`, the post-handler of aggregates with a child that
/// has one.
///
/// # Safety
/// Breakpoint handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn aggr_post_handler(p: *mut Kprobe, regs: *mut PtRegs, flags: c_ulong) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::aggr_post_handler(p, regs, flags) }
}
crate::nokprobe_symbol!(aggr_post_handler);

/// `opt_pre_handler()`: called by the optprobe detour buffer.
///
/// # Safety
/// Optprobe handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn opt_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::opt_pre_handler(p, regs) }
}
crate::nokprobe_symbol!(opt_pre_handler);

/// `kprobes_inc_nmissed_count()`.
///
/// # Safety
/// Handler context; `p` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_inc_nmissed_count(p: *mut Kprobe) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::inc_nmissed_count(p) }
}
crate::nokprobe_symbol!(kprobes_inc_nmissed_count);

/// `kprobe_busy_begin()`.
#[no_mangle]
pub extern "C" fn kprobe_busy_begin() {
    aggr::busy_begin()
}

/// `kprobe_busy_end()`.
#[no_mangle]
pub extern "C" fn kprobe_busy_end() {
    aggr::busy_end()
}

/// `dump_kprobe()`.
///
/// # Safety
/// `kp` is live.
#[no_mangle]
pub unsafe extern "C" fn dump_kprobe(kp: *mut Kprobe) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::dump_kprobe(kp) }
}
crate::nokprobe_symbol!(dump_kprobe);

/// `kprobe_get_kallsym()`: kallsyms entries of the insn slot pages.
///
/// # Safety
/// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
#[no_mangle]
pub unsafe extern "C" fn kprobe_get_kallsym(symnum: c_uint, value: *mut c_ulong, type_: *mut c_char, sym: *mut c_char) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { slots::kprobe_get_kallsym(symnum, value, type_, sym) }
}



/// `kprobe_on_func_entry()`: 0 if the address is a function entry.
///
/// # Safety
/// `sym` is null or a C string.
#[no_mangle]
pub unsafe extern "C" fn kprobe_on_func_entry(addr: *mut KprobeOpcode, sym: *const c_char, offset: c_ulong) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { addr::kprobe_on_func_entry(addr, sym, offset) }
}


/// `kprobe_seq_start()` of `kprobes/list`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_seq_start(_f: *mut sys::SeqFile, pos: *mut debugfs::Loff) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::seq_start(pos) }
}

/// `kprobe_seq_next()` of `kprobes/list`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_seq_next(_f: *mut sys::SeqFile, _v: *mut c_void, pos: *mut debugfs::Loff) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::seq_next(pos) }
}

/// `kprobe_seq_stop()` of `kprobes/list`: nothing to do.
#[no_mangle]
pub extern "C" fn kprobe_seq_stop(_f: *mut sys::SeqFile, _v: *mut c_void) {}

/// `show_kprobe_addr()`: the lines of one hash bucket in `kprobes/list`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn show_kprobe_addr(pi: *mut sys::SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::show_kprobe_addr(pi, v) }
}

/// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`.
///
/// # Safety
/// seq_file callback contract (kprobe_mutex held by the seq start).
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_show(m: *mut sys::SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::blacklist_seq_show(m, v) }
}

/// `kprobe_blacklist_seq_start()` of `kprobes/blacklist`: takes
/// `kprobe_mutex` until the seq stop.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_start(_m: *mut sys::SeqFile, pos: *mut debugfs::Loff) -> *mut c_void {
    state::lock();
    // SAFETY: forwarded caller contract; the list is stable under the mutex.
    unsafe { sys::seq_list_start(&raw mut blacklist::kprobe_blacklist, *pos) }
}

/// `kprobe_blacklist_seq_next()` of `kprobes/blacklist`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_next(_m: *mut sys::SeqFile, v: *mut c_void, pos: *mut debugfs::Loff) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { sys::seq_list_next(v, &raw mut blacklist::kprobe_blacklist, pos) }
}

/// `kprobe_blacklist_seq_stop()` of `kprobes/blacklist`.
#[no_mangle]
pub extern "C" fn kprobe_blacklist_seq_stop(_m: *mut sys::SeqFile, _v: *mut c_void) {
    state::unlock();
}

/// `register_kprobe()`: registers `p` (by `addr`, or `symbol_name` +
/// `offset`).  0 or a negative errno.
///
/// # Safety
/// `p` stays alive and untouched by the caller until it is unregistered.
#[no_mangle]
pub unsafe extern "C" fn register_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::register_kprobe(p) }
}

/// `register_kprobes()`: registers `num` probes, all or none.
///
/// # Safety
/// `kps` holds `num` probes, as for [`register_kprobe`].
#[no_mangle]
pub unsafe extern "C" fn register_kprobes(kps: *mut *mut Kprobe, num: c_int) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::register_kprobes(kps, num) }
}

/// `unregister_kprobe()`.
///
/// # Safety
/// `p` is readable; process context.
#[no_mangle]
pub unsafe extern "C" fn unregister_kprobe(p: *mut Kprobe) {
    let mut p = p;
    // SAFETY: forwarded caller contract.
    unsafe { register::unregister_kprobes(&mut p, 1) }
}

/// `unregister_kprobes()`.
///
/// # Safety
/// `kps` holds `num` readable probes; process context.
#[no_mangle]
pub unsafe extern "C" fn unregister_kprobes(kps: *mut *mut Kprobe, num: c_int) {
    // SAFETY: forwarded caller contract.
    unsafe { register::unregister_kprobes(kps, num) }
}

/// `enable_kprobe()`.
///
/// # Safety
/// `kp` is readable.
#[no_mangle]
pub unsafe extern "C" fn enable_kprobe(kp: *mut Kprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::enable_kprobe(kp) }
}

/// `disable_kprobe()`.
///
/// # Safety
/// `kp` is readable.
#[no_mangle]
pub unsafe extern "C" fn disable_kprobe(kp: *mut Kprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::disable_kprobe(kp) }
}

/// `register_kretprobe()`.
///
/// # Safety
/// `rp` stays alive and untouched by the caller until unregistered.
#[no_mangle]
pub unsafe extern "C" fn register_kretprobe(rp: *mut Kretprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::register_kretprobe(rp) }
}

/// `register_kretprobes()`: all or none.
///
/// # Safety
/// `rps` holds `num` kretprobes, as for [`register_kretprobe`].
#[no_mangle]
pub unsafe extern "C" fn register_kretprobes(rps: *mut *mut Kretprobe, num: c_int) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::register_kretprobes(rps, num) }
}

/// `unregister_kretprobe()`.
///
/// # Safety
/// `rp` is readable; process context.
#[no_mangle]
pub unsafe extern "C" fn unregister_kretprobe(rp: *mut Kretprobe) {
    let mut rp = rp;
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::unregister_kretprobes(&mut rp, 1) }
}

/// `unregister_kretprobes()`.
///
/// # Safety
/// `rps` holds `num` readable kretprobes; process context.
#[no_mangle]
pub unsafe extern "C" fn unregister_kretprobes(rps: *mut *mut Kretprobe, num: c_int) {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::unregister_kretprobes(rps, num) }
}

/// `pre_handler_kretprobe()`: the entry handler of every kretprobe (also
/// how `kprobes/list` tells kretprobes apart).
///
/// # Safety
/// Breakpoint/ftrace handler context; `p` is a registered kretprobe's `kp`.
#[no_mangle]
pub unsafe extern "C" fn pre_handler_kretprobe(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::pre_handler_kretprobe(p, regs) }
}
crate::nokprobe_symbol!(pre_handler_kretprobe);

/// `kretprobe_rethook_handler()`: the rethook callback of every kretprobe.
///
/// # Safety
/// Rethook trampoline context.
#[no_mangle]
pub unsafe extern "C" fn kretprobe_rethook_handler(rh: *mut RethookNode, data: *mut c_void, ret_addr: c_ulong, regs: *mut PtRegs) {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::kretprobe_rethook_handler(rh, data, ret_addr, regs) }
}
crate::nokprobe_symbol!(kretprobe_rethook_handler);

/// `kprobe_disarmed()`: is hashed probe `p` disarmed?  (Read by the arch's
/// optprobe code.)
///
/// # Safety
/// `p` is hashed.
#[no_mangle]
pub unsafe extern "C" fn kprobe_disarmed(p: *mut Kprobe) -> bool {
    // SAFETY: forwarded caller contract.
    unsafe { opt::kprobe_disarmed(p) }
}

/// `optprobe_queued_unopt()`: is `op` queued for unoptimization?
///
/// # Safety
/// `kprobe_mutex` held (the arch calls it from the optimizer).
#[no_mangle]
pub unsafe extern "C" fn optprobe_queued_unopt(op: *mut OptimizedKprobe) -> bool {
    // SAFETY: forwarded caller contract.
    unsafe { opt::optprobe_queued_unopt(op) }
}

/// `wait_for_kprobe_optimizer()`: waits for pending (un)optimization.
#[no_mangle]
pub extern "C" fn wait_for_kprobe_optimizer() {
    opt::wait_for_kprobe_optimizer()
}

/// `kprobe_ftrace_kill()`: ftrace is dead (called by ftrace_kill()).
#[no_mangle]
pub extern "C" fn kprobe_ftrace_kill() {
    ftrace::kprobe_ftrace_kill()
}

/// `kprobe_free_init_mem()`: called by init/main.c before the kernel's
/// init text is freed.
#[no_mangle]
pub extern "C" fn kprobe_free_init_mem() {
    module::kprobe_free_init_mem()
}

/// The optimizer's delayed work (`kprobe_optimizer()`), called by the C
/// shim's work function.
#[no_mangle]
pub extern "C" fn kprobes_rust_optimizer_work() {
    opt::kprobe_optimizer()
}

/// `kprobes_module_callback()`, called by the C shim's module notifier.
///
/// # Safety
/// Module notifier contract: `module` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_module_callback(val: c_ulong, module: *mut sys::Module) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { module::module_callback(val, module) }
}

/// `init_kprobes()`, called by the C shim's early initcall.
///
/// # Safety
/// Once, at boot (`.init.text`, like upstream's `__init`).
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_init() -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { init::init_kprobes() }
}

/// `init_optprobes()`, called by the C shim's subsys initcall.
#[no_mangle]
pub extern "C" fn kprobes_rust_init_optprobes() -> c_int {
    init::init_optprobes()
}

/// `proc_kprobes_optimization_handler()`: the `proc_handler` of
/// `debug.kprobes-optimization` (the C shim's sysctl table).
///
/// # Safety
/// sysctl core contract.
#[no_mangle]
pub unsafe extern "C" fn proc_kprobes_optimization_handler(
    table: *const sys::CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    ppos: *mut debugfs::Loff,
) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { opt::sysctl_handler(table, write, buffer, length, ppos) }
}

/// `read_enabled_file_bool()`: `read` of `kprobes/enabled`.
///
/// # Safety
/// debugfs `read` contract.
#[no_mangle]
pub unsafe extern "C" fn read_enabled_file_bool(_file: *mut sys::File, user_buf: *mut c_char, count: usize, ppos: *mut debugfs::Loff) -> isize {
    // SAFETY: forwarded caller contract.
    unsafe { arm::read_enabled_file_bool(user_buf, count, ppos) }
}

/// `write_enabled_file_bool()`: `write` of `kprobes/enabled`.
///
/// # Safety
/// debugfs `write` contract.
#[no_mangle]
pub unsafe extern "C" fn write_enabled_file_bool(_file: *mut sys::File, user_buf: *const c_char, count: usize, _ppos: *mut debugfs::Loff) -> isize {
    // SAFETY: forwarded caller contract.
    unsafe { arm::write_enabled_file_bool(user_buf, count) }
}
