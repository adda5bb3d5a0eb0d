// SPDX-License-Identifier: GPL-2.0

//! The C ABI of the core: every function C code links against, with the
//! upstream names and prototypes (checked against `<linux/kprobes.h>` by the
//! C shim including the generated header).  Each is a thin wrapper around
//! the module that implements it.

use crate::{addr, aggr, blacklist, debugfs, registry, slots, sys};
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, PtRegs};
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

/// `populate_kprobe_blacklist()`, for the transitional init code.
///
/// # Safety
/// `[start, end)` is the `_kprobe_blacklist` section; init code only
/// (`.init.text`, like upstream's `__init`).
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
#[no_mangle]
pub unsafe extern "C" fn populate_kprobe_blacklist(start: *mut c_ulong, end: *mut c_ulong) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { blacklist::populate(start, end) }
}

/// `add_module_kprobe_blacklist()`, for the transitional module notifier.
///
/// # Safety
/// `module` is live; `kprobe_mutex` is held.
#[no_mangle]
pub unsafe extern "C" fn add_module_kprobe_blacklist(module: *mut sys::Module) {
    // SAFETY: forwarded caller contract.
    unsafe { blacklist::add_module(module) }
}

/// `remove_module_kprobe_blacklist()`, for the transitional module notifier.
///
/// # Safety
/// `module` is live; `kprobe_mutex` is held.
#[no_mangle]
pub unsafe extern "C" fn remove_module_kprobe_blacklist(module: *mut sys::Module) {
    // SAFETY: forwarded caller contract.
    unsafe { blacklist::remove_module(module) }
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

/// `_kprobe_addr()`, for the transitional registration code: the probe
/// address of `addr` or `symbol_name + offset`, or an `ERR_PTR`.
///
/// # Safety
/// `symbol_name` is null or a C string; `on_func_entry` is valid.
#[no_mangle]
pub unsafe extern "C" fn _kprobe_addr(
    addr: *mut KprobeOpcode,
    symbol_name: *const c_char,
    offset: c_ulong,
    on_func_entry: *mut bool,
) -> *mut KprobeOpcode {
    // SAFETY: forwarded caller contract.
    unsafe { addr::kprobe_addr(addr, symbol_name, offset, &mut *on_func_entry) }
}

/// `kprobe_addr()`, for the transitional kretprobe code.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobe_addr(p: *mut Kprobe) -> *mut KprobeOpcode {
    let mut on_func_entry = false;
    // SAFETY: forwarded caller contract.
    unsafe { addr::kprobe_addr((*p).addr, (*p).symbol_name, (*p).offset as c_ulong, &mut on_func_entry) }
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

/// `check_kprobe_address_safe()`, for the transitional registration code.
///
/// # Safety
/// `p` is live; `probed_mod` is valid; process context.
#[no_mangle]
pub unsafe extern "C" fn check_kprobe_address_safe(p: *mut Kprobe, probed_mod: *mut *mut sys::Module) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { addr::check_kprobe_address_safe(p, &mut *probed_mod) }
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
