// SPDX-License-Identifier: GPL-2.0

//! The core's global state: `kprobe_mutex` and the flags it protects.
//! Port of the globals of `kernel/kprobes.c`.
//!
//! The flags are atomics only so that they can be plain statics without
//! `unsafe`; every write happens under `kprobe_mutex`, as upstream, and
//! `Relaxed` accesses compile to the plain loads and stores of the C code.

use core::sync::atomic::{AtomicBool, Ordering::Relaxed};
use crate::sys;

/// `kprobes_all_disarmed`: set by `kprobes/enabled` = 0 (change it only
/// with `kprobe_mutex` held).
static ALL_DISARMED: AtomicBool = AtomicBool::new(false);
/// `kprobes_allow_optimization` (protected by `kprobe_mutex`).
static ALLOW_OPTIMIZATION: AtomicBool = AtomicBool::new(false);
/// `kprobes_initialized`.
static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// `kprobes_all_disarmed`.
#[inline]
pub fn all_disarmed() -> bool {
    ALL_DISARMED.load(Relaxed)
}

/// Sets `kprobes_all_disarmed` (`kprobe_mutex` held).
#[inline]
pub fn set_all_disarmed(v: bool) {
    ALL_DISARMED.store(v, Relaxed)
}

/// `kprobes_allow_optimization`.
#[inline]
pub fn allow_optimization() -> bool {
    ALLOW_OPTIMIZATION.load(Relaxed)
}

/// Sets `kprobes_allow_optimization` (`kprobe_mutex` held).
#[inline]
pub fn set_allow_optimization(v: bool) {
    ALLOW_OPTIMIZATION.store(v, Relaxed)
}

/// `kprobes_initialized`.
#[inline]
pub fn initialized() -> bool {
    INITIALIZED.load(Relaxed)
}

/// Sets `kprobes_initialized` (init).
#[inline]
pub fn set_initialized(v: bool) {
    INITIALIZED.store(v, Relaxed)
}

/// `mutex_lock(&kprobe_mutex)`: protects `kprobe_table` updates, the
/// optimizer's lists and the flags above.
#[inline]
pub fn lock() {
    sys::kprobe_mutex_lock()
}

/// `mutex_unlock(&kprobe_mutex)`.
#[inline]
pub fn unlock() {
    sys::kprobe_mutex_unlock()
}

/// Resets the state (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    set_all_disarmed(false);
    set_allow_optimization(false);
    set_initialized(false);
}
