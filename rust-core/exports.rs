// SPDX-License-Identifier: GPL-2.0

//! The C ABI of the core: every function C code links against, with the
//! upstream names and prototypes (checked against `<linux/kprobes.h>` by the
//! C shim including the generated header).  Each is a thin wrapper around
//! the module that implements it.

use crate::{aggr, blacklist, registry, slots, sys};
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
