// SPDX-License-Identifier: GPL-2.0

//! The core's C symbols that the simulated kernel (`host/sim.rs`) calls,
//! in both host builds (the tests' and the host differential's,
//! `cfg(KP_MODEL)`), and the host differential's handles on the core's
//! state (`driver.c`'s, `hd.h`).
//!
//! The simulation reaches the core only as a kernel reaches `kprobes.o`:
//! through C symbols it declares `extern "C"` (`sim/link.rs`), never
//! through the core's Rust modules, as if it were a separate library the
//! core links against.  Most of those symbols already are C symbols in this
//! build (`get_kprobe()`, `kprobes_rust_optimizer_work()`: `#[no_mangle]`
//! everywhere).  The `ftrace_export!` functions are C symbols in the kernel
//! and in the host differential's build (`cfg(KP_MODEL)`), but plain Rust
//! functions in the tests' (`abi.rs`, kernel-side, is not changed for the
//! tests): the ones the simulation calls are given their C symbol here in
//! that build, each forwarding to the export of the same name.
//! `kprobes_rust_reset_for_test()` is the test harness's:
//! `sys::exclusive()` resets the core through it.

#[cfg(not(KP_MODEL))]
use crate::ffi::{c_int, c_ulong};
use crate::types::Kprobe;
#[cfg(not(KP_MODEL))]
use crate::types::{KprobeInsnCache, KprobeOpcode};

/// `__get_insn_slot()` (the simulated x86's `get_insn_slot()` and
/// `get_optinsn_slot()` call it, with `Image::as_model`).
///
/// # Safety
/// `c` is a live insn cache.
#[cfg(not(KP_MODEL))]
#[no_mangle]
#[allow(improper_ctypes_definitions)]
pub unsafe extern "C" fn __get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
    // SAFETY: `c` is a live cache (this function's `# Safety`), as the
    // export requires.
    unsafe { crate::exports::__get_insn_slot(c) }
}

/// `__free_insn_slot()` (the simulated x86's `free_insn_slot()` and
/// `free_optinsn_slot()`).
///
/// # Safety
/// `c` is a live insn cache and `slot` one of its slots in use (or null).
#[cfg(not(KP_MODEL))]
#[no_mangle]
#[allow(improper_ctypes_definitions)]
pub unsafe extern "C" fn __free_insn_slot(
    c: *mut KprobeInsnCache,
    slot: *mut KprobeOpcode,
    dirty: c_int,
) {
    // SAFETY: this function's `# Safety`, as the export requires.
    unsafe { crate::exports::__free_insn_slot(c, slot, dirty) }
}

/// `kprobe_add_area_blacklist()` (x86's `arch_populate_kprobe_blacklist()`
/// calls it).
///
/// # Safety
/// The current task holds `kprobe_mutex`.
#[cfg(not(KP_MODEL))]
#[no_mangle]
pub unsafe extern "C" fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int {
    // SAFETY: `kprobe_mutex` is held (this function's `# Safety`), as the
    // export requires.
    unsafe { crate::exports::kprobe_add_area_blacklist(start, end) }
}

/// `kprobe_disarmed()` (x86's `arch_check_optimized_kprobe()` calls it).
///
/// # Safety
/// `p` is hashed, and the current task holds `kprobe_mutex`.
#[cfg(not(KP_MODEL))]
#[no_mangle]
pub unsafe extern "C" fn kprobe_disarmed(p: *mut Kprobe) -> bool {
    // SAFETY: `p` is hashed and `kprobe_mutex` held (this function's
    // `# Safety`), as the export requires.
    unsafe { crate::exports::kprobe_disarmed(p) }
}

/// `kprobe_free_init_mem()` (init/main.c calls it before freeing the
/// kernel's init text; the model's `free-init`, `sys::hd_free_init()`).
#[cfg(not(KP_MODEL))]
#[no_mangle]
pub extern "C" fn kprobe_free_init_mem() {
    crate::exports::kprobe_free_init_mem()
}

/// `kprobe_aggrprobe(p)`, the host differential's handle (`sim/link.rs`;
/// `tools/testing/hostdiff/kcore.c` has upstream's).
///
/// # Safety
/// `p` is a live probe.
#[no_mangle]
pub unsafe extern "C" fn hd_kprobe_aggrprobe(p: *mut Kprobe) -> bool {
    // SAFETY: `p` is a live probe (this function's `# Safety`), which
    // `Probe::from_raw()` requires.
    unsafe { crate::probe::Probe::from_raw(p) }.is_aggr()
}

/// Reads `kprobe_ftrace_disabled` for the simulated x86's ftrace handler
/// (`sim/link.rs`: Miri supports no extern static).
#[no_mangle]
pub extern "C" fn hd_kprobe_ftrace_disabled() -> bool {
    // SAFETY: a volatile read of the core's flag, as x86's handler reads it
    // (written only by `kprobe_ftrace_kill()` and the test harness's reset).
    unsafe { core::ptr::read_volatile(&raw const crate::ftrace::kprobe_ftrace_disabled) }
}

/// Resets the core's global state (`crate::reset_for_test()`), for
/// `sys::exclusive()`.
#[no_mangle]
pub extern "C" fn kprobes_rust_reset_for_test() {
    crate::reset_for_test()
}

/// The answer of `f` for the first hashed probe `q` that is `p` or whose
/// aggregate list holds `p` (`f(q, q == p)`), walking the table as
/// `kcore.c` does (every bucket, each chain, each aggregate's list).
///
/// # Safety
/// `p` is one of the driver's probe objects; no core operation runs.
#[cfg(KP_MODEL)]
unsafe fn find<R>(p: *mut Kprobe, f: impl Fn(*mut Kprobe, bool) -> R) -> Option<R> {
    use crate::probe::Probe;
    let mut r = None;
    crate::registry::for_each_hashed(&crate::locks::kprobe_mutex(), |q| {
        if r.is_some() {
            return;
        }
        let q = q.as_ptr();
        if q == p {
            r = Some(f(q, true));
            return;
        }
        // SAFETY: `q` is hashed, so live; `kprobe_mutex` is held, so the
        // aggregate's list is stable.
        unsafe {
            if Probe::from_raw(q).is_aggr() {
                for l in crate::list::iter_rcu(core::ptr::addr_of_mut!((*q).list)) {
                    if crate::container_of!(l, Kprobe, list) == p {
                        r = Some(f(q, false));
                        break;
                    }
                }
            }
        }
    });
    r
}

/// `hd_kprobe_reachable()` (`kcore.c`'s twin, for `driver.c`): is `p`
/// still known to the core, hashed or on the list of a hashed aggregate?
/// The driver's notion of "registered".
///
/// # Safety
/// `p` is one of the driver's probe objects; no core operation runs.
#[cfg(KP_MODEL)]
#[no_mangle]
pub unsafe extern "C" fn hd_kprobe_reachable(p: *mut Kprobe) -> bool {
    // SAFETY: `p` is the driver's and no core operation runs (this
    // function's `# Safety`), as `find()` requires.
    unsafe { find(p, |_, _| ()) }.is_some()
}

/// `hd_kprobe_stays_disabled()` (`kcore.c`'s twin): is registered probe
/// `p` still disabled, itself or the hashed aggregate it is on?
///
/// # Safety
/// As for [`hd_kprobe_reachable`].
#[cfg(KP_MODEL)]
#[no_mangle]
pub unsafe extern "C" fn hd_kprobe_stays_disabled(p: *mut Kprobe) -> bool {
    // SAFETY: as in `hd_kprobe_reachable()`; `p` and the found `q` are live
    // (hashed, or on a hashed aggregate's list) while `f` runs.
    unsafe {
        find(p, |q, itself| {
            crate::flags::disabled(p) || (!itself && crate::flags::disabled(q))
        })
        .unwrap_or(false)
    }
}
