// SPDX-License-Identifier: GPL-2.0

//! Kernel services used by the core, kernel build.
//!
//! This module and `host/sim.rs` (the host build's simulated kernel) offer
//! the same functions with the same signatures; the rest of the crate only
//! calls through them.  Functions come from the bindgen'd `kernel::bindings`
//! (prototypes checked by construction) or, for static inlines, from the C
//! shim's wrappers (`c-shim/kprobes_shim.c`, declared in
//! `c-shim/kprobes_shim.h`).

use crate::ffi::{c_char, c_int, c_void};
use kernel::bindings as b;

/// `struct mutex`.
pub type Mutex = b::mutex;

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = kernel::page::PAGE_SIZE;
/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = b::KSYM_NAME_LEN as usize;

extern "C" {
    fn kprobes_rust_rcu_read_lock();
    fn kprobes_rust_rcu_read_unlock();
    fn kprobes_rust_warn(file: *const c_char, len: c_int, line: c_int);
}

/// `mutex_lock()`.
///
/// # Safety
/// `m` must point to an initialized mutex; may sleep.
#[inline]
pub unsafe fn mutex_lock(m: *mut Mutex) {
    // SAFETY: forwarded caller contract.
    unsafe { b::mutex_lock(m) }
}

/// `mutex_unlock()`.
///
/// # Safety
/// The caller holds `m`.
#[inline]
pub unsafe fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: forwarded caller contract.
    unsafe { b::mutex_unlock(m) }
}

/// `rcu_read_lock()`.
#[inline]
pub fn rcu_read_lock() {
    // SAFETY: no preconditions.
    unsafe { kprobes_rust_rcu_read_lock() }
}

/// `rcu_read_unlock()`.
#[inline]
pub fn rcu_read_unlock() {
    // SAFETY: paired with `rcu_read_lock()` by the callers.
    unsafe { kprobes_rust_rcu_read_unlock() }
}

/// `synchronize_rcu()`; sleeps.
#[inline]
pub fn synchronize_rcu() {
    // SAFETY: called from process context by the callers.
    unsafe { b::synchronize_rcu() }
}

/// `kmalloc(size, GFP_KERNEL)`; null on failure.
#[inline]
pub fn kmalloc(size: usize) -> *mut c_void {
    // SAFETY: krealloc(NULL, ...) is kmalloc.
    unsafe { b::krealloc(core::ptr::null(), size, b::GFP_KERNEL) }
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or came from [`kmalloc`] and is not used afterwards.
#[inline]
pub unsafe fn kfree(p: *mut c_void) {
    // SAFETY: forwarded caller contract.
    unsafe { b::kfree(p) }
}

/// `perf_event_ksymbol()`.
///
/// # Safety
/// `sym` is a NUL-terminated string.
#[inline]
pub unsafe fn perf_event_ksymbol(ksym_type: u16, addr: u64, len: u32, unregister: bool, sym: *const c_char) {
    // SAFETY: forwarded caller contract.
    unsafe { b::perf_event_ksymbol(ksym_type, addr, len, unregister, sym) }
}

/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 = b::perf_record_ksymbol_type_PERF_RECORD_KSYMBOL_TYPE_OOL as u16;

/// `WARN_ON(1)` at the caller's location.
#[track_caller]
#[inline]
pub fn warn() {
    let loc = core::panic::Location::caller();
    let file = loc.file();
    // SAFETY: `file` is valid for `len` bytes; the C side prints it with
    // "%.*s" and does not keep it.
    unsafe { kprobes_rust_warn(file.as_ptr().cast(), file.len() as c_int, loc.line() as c_int) }
}

/// `ERANGE`.
pub const ERANGE: c_int = b::ERANGE as c_int;
