// SPDX-License-Identifier: GPL-2.0

//! `opt` without `CONFIG_OPTPROBES` (arm64 in 6.12: no HAVE_OPTPROBES):
//! the `#else /* !CONFIG_OPTPROBES */` part of `kernel/kprobes.c`.  There
//! is no optimizer: its entry points are upstream's empty macros, arming is
//! `arch_arm_kprobe()` itself, an aggregate is a plain `struct kprobe`
//! freed with the last of its children (so never reused), and nothing
//! below takes a lock, allocates or exports a symbol that upstream's
//! `!CONFIG_OPTPROBES` build does not.  The crate root builds this file as
//! `opt` instead of `opt.rs`; the functions are `opt.rs`'s, with the same
//! signatures.

use crate::ffi::c_void;
use crate::list;
use crate::locks::{KprobeMutex, KprobeMutexGuard, TextLocks};
use crate::probe::{Aggr, Hashed, Probe};
use crate::sys;
use crate::types::Kprobe;
use core::ptr;

/// `init_aggr_kprobe()`, shared with `opt.rs`.
#[path = "opt_aggr.rs"]
mod aggr;
pub use aggr::init_aggr_kprobe;

/// `kprobe_unused()`: an aggregate that is disabled and has no child left.
pub fn kprobe_unused(_km: &KprobeMutex, p: Probe<'_>) -> bool {
    // SAFETY: `p` is live (a `Probe`) and `_km` proves `kprobe_mutex` held, so
    // its `list` is stable for `list_empty()`.
    p.is_aggr() && p.disabled() && unsafe { list::list_empty(p.list()) }
}

/// `free_aggr_kprobe()`: `arch_remove_kprobe()` and `kfree()`.
///
/// # Safety
/// `p` is an unhashed aggregate no reader can see any more, and no view of
/// it is used afterwards.
pub unsafe fn free_aggr_kprobe(p: *mut Kprobe) {
    // SAFETY: no reader can see the unhashed aggregate `p` any more (this
    // function's `# Safety`), so its insn slot is unused; every aggregate is a
    // `struct kprobe` that `alloc_aggr_kprobe()` got from `kzalloc()`.
    unsafe {
        sys::arch_remove_kprobe(p);
        sys::kfree(p.cast::<c_void>());
    }
}

/// `kprobe_disarmed()`: `kprobe_disabled()` (no optimizer to wait for).
#[inline(always)]
pub fn kprobe_disarmed(_km: &KprobeMutex, p: Probe<'_>) -> bool {
    p.disabled()
}

/// `kprobe_disarmed()` of a hashed aggregate.
#[inline(always)]
pub fn aggr_disarmed(_km: &KprobeMutex, a: Aggr<'_>) -> bool {
    a.probe().disabled()
}

/// `wait_for_kprobe_optimizer()`: nothing to wait for.
#[inline(always)]
pub fn wait_for_kprobe_optimizer() {}

/// The wait that ends an update of every probe: nothing to wait for, so
/// just the unlock.
#[inline(always)]
pub fn wait_for_kprobe_optimizer_unlock(km: KprobeMutexGuard) {
    drop(km);
}

/// `optimize_kprobe()`: nothing (upstream's empty macro).
#[inline(always)]
pub fn optimize_kprobe(_km: &KprobeMutex, _p: Probe<'_>) {}

/// `unoptimize_kprobe()`: nothing (upstream's empty macro).
#[inline(always)]
pub fn unoptimize_kprobe(_km: &KprobeMutex, _p: Probe<'_>, _force: Option<&TextLocks<'_>>) {}

/// `kill_optimized_kprobe()`: nothing (upstream's empty macro).
#[inline(always)]
pub fn kill_optimized_kprobe(_km: &KprobeMutex, _ap: Aggr<'_>) {}

/// `prepare_optimized_kprobe()`: nothing (upstream's empty macro).
#[inline(always)]
pub fn prepare_optimized_kprobe(_tl: &TextLocks<'_>, _ap: Aggr<'_>) {}

/// `try_to_optimize_kprobe()`: nothing (upstream's empty macro: no text
/// locks are taken and nothing is allocated on registration).
#[inline(always)]
pub fn try_to_optimize_kprobe(_km: &KprobeMutex, _p: Hashed<'_>) {}

/// `reuse_unused_kprobe()`: an unused aggregate is freed with its last
/// child, so there is none to reuse: `WARN_ON_ONCE(1)`, `-EINVAL`.
pub fn reuse_unused_kprobe(_km: &KprobeMutex, _ap: Aggr<'_>) -> crate::error::Result {
    crate::warn_once!();
    Err(crate::error::code::EINVAL)
}

/// An aggregate fresh from [`alloc_aggr_kprobe`].
///
/// # Invariants
/// `kp` is a `kzalloc()`ed `struct kprobe` that no other CPU can reach
/// until [`init_aggr_kprobe`] hashes it.
pub struct NewAggr {
    kp: ptr::NonNull<Kprobe>,
}

impl NewAggr {
    /// The aggregate's `struct kprobe`.
    fn kp(&self) -> *mut Kprobe {
        self.kp.as_ptr()
    }
}

/// `alloc_aggr_kprobe()`: `kzalloc(sizeof(struct kprobe))`; `None` without
/// memory.
pub fn alloc_aggr_kprobe(_tl: &TextLocks<'_>, _p: Probe<'_>) -> Option<NewAggr> {
    let kp = ptr::NonNull::new(sys::kzalloc(core::mem::size_of::<Kprobe>()).cast::<Kprobe>())?;
    // INVARIANT: just allocated, seen by no one else.
    Some(NewAggr { kp })
}

/// `__arm_kprobe()`: `arch_arm_kprobe()`.
#[inline] // one caller (arm.rs), as kprobes.c's macro
pub fn arm_kprobe_locked(_tl: &TextLocks<'_>, p: Hashed<'_>) {
    // SAFETY: `p` is hashed, so prepared (a `Hashed`), and `_tl` proves
    // `text_mutex` and the CPU hotplug lock held, as `arch_arm_kprobe()`
    // requires.
    unsafe { sys::arch_arm_kprobe(p.as_ptr()) };
}

/// `__disarm_kprobe()`: `arch_disarm_kprobe()`.
#[inline] // one caller (arm.rs), as kprobes.c's macro
pub fn disarm_kprobe_locked(_tl: &TextLocks<'_>, p: Hashed<'_>, _reopt: bool) {
    // SAFETY: `p` is hashed, so prepared (a `Hashed`), and `_tl` proves
    // `text_mutex` and the CPU hotplug lock held, as `arch_disarm_kprobe()`
    // requires.
    unsafe { sys::arch_disarm_kprobe(p.as_ptr()) };
}
