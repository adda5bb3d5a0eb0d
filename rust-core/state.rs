// SPDX-License-Identifier: GPL-2.0

//! The core's global switches, protected by `kprobe_mutex` (see
//! [`crate::locks`]).  Port of the globals of `kernel/kprobes.c`.
//!
//! The flags are atomics only so that they can be plain statics without
//! `unsafe`; every write takes the [`KprobeMutex`] token, as upstream writes
//! them under `kprobe_mutex`, and `Relaxed` accesses compile to the plain
//! loads and stores of the C code.

use crate::locks::KprobeMutex;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

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

/// Sets `kprobes_all_disarmed`.
#[inline]
pub fn set_all_disarmed(_km: &KprobeMutex, v: bool) {
    ALL_DISARMED.store(v, Relaxed)
}

/// `kprobes_allow_optimization`.
#[inline]
pub fn allow_optimization() -> bool {
    ALLOW_OPTIMIZATION.load(Relaxed)
}

/// Sets `kprobes_allow_optimization`.
#[inline]
pub fn set_allow_optimization(_km: &KprobeMutex, v: bool) {
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

/// Resets the state (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    ALL_DISARMED.store(false, Relaxed);
    ALLOW_OPTIMIZATION.store(false, Relaxed);
    set_initialized(false);
}
