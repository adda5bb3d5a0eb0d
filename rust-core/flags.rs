// SPDX-License-Identifier: GPL-2.0

//! `struct kprobe`'s `flags`, read and written in one place.
//!
//! Handlers on other CPUs read a probe's flags (`kprobe_disabled()` in the
//! aggregate dispatch) while a `kprobe_mutex` holder changes them, and the
//! module notifier and the optimizer change them too.  So no `&Kprobe` is
//! ever formed to test a flag (a shared reference would claim that nobody
//! writes the struct while it lives): each access is a single volatile load
//! or store through the raw pointer, the Rust spelling of upstream's plain
//! `p->flags` accesses as the kernel memory model treats them (one access,
//! never torn, never merged with another).  Writers are serialized by
//! `kprobe_mutex` (or run before the probe is published), as upstream.

use crate::types::{
    Kprobe, KPROBE_FLAG_DISABLED, KPROBE_FLAG_FTRACE, KPROBE_FLAG_GONE, KPROBE_FLAG_OPTIMIZED,
};
use core::ptr::{addr_of, addr_of_mut};

/// `p->flags`.
///
/// # Safety
/// `p` points to a live `struct kprobe` (registered, being registered, or
/// reached under RCU from the hash table or an aggregate's list).
#[inline(always)]
pub unsafe fn get(p: *const Kprobe) -> u32 {
    // SAFETY: `p` is live (the function's contract); a volatile load of an
    // aligned `u32` field is one access that concurrent writers cannot tear.
    unsafe { crate::once::read(addr_of!((*p).flags)) }
}

/// `p->flags = f`.
///
/// # Safety
/// `p` points to a live `struct kprobe`, and the caller is its flags'
/// writer: it holds `kprobe_mutex`, or the probe is not published yet.
#[inline(always)]
pub unsafe fn put(p: *mut Kprobe, f: u32) {
    // SAFETY: `p` is live and the caller is the only writer (contract);
    // readers see the old or the new value, never a mix.
    unsafe { crate::once::write(addr_of_mut!((*p).flags), f) }
}

/// `p->flags |= f`.
///
/// # Safety
/// As [`put`].
#[inline(always)]
pub unsafe fn set(p: *mut Kprobe, f: u32) {
    // SAFETY: as `put`, whose contract this function's is.
    unsafe { put(p, get(p) | f) }
}

/// `p->flags &= ~f`.
///
/// # Safety
/// As [`put`].
#[inline(always)]
pub unsafe fn clear(p: *mut Kprobe, f: u32) {
    // SAFETY: as `put`, whose contract this function's is.
    unsafe { put(p, get(p) & !f) }
}

/// `kprobe_disabled()`: disabled or gone.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub unsafe fn disabled(p: *const Kprobe) -> bool {
    // SAFETY: as `get`, whose contract this function's is.
    unsafe { get(p) & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE) != 0 }
}

/// `kprobe_gone()`.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub unsafe fn gone(p: *const Kprobe) -> bool {
    // SAFETY: as `get`, whose contract this function's is.
    unsafe { get(p) & KPROBE_FLAG_GONE != 0 }
}

/// `kprobe_ftrace()`.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub unsafe fn ftrace(p: *const Kprobe) -> bool {
    // SAFETY: as `get`, whose contract this function's is.
    unsafe { get(p) & KPROBE_FLAG_FTRACE != 0 }
}

/// `kprobe_optimized()`.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub unsafe fn optimized(p: *const Kprobe) -> bool {
    // SAFETY: as `get`, whose contract this function's is.
    unsafe { get(p) & KPROBE_FLAG_OPTIMIZED != 0 }
}
