// SPDX-License-Identifier: GPL-2.0

//! RCU: read-side sections, grace periods, `kfree_rcu()`.

use super::image::image;
use super::memory::kfree;
use super::text::arch;
use super::trace::{ev, record};
use crate::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Global count of live readers, for `synchronize_rcu()` checks.
static RCU_READERS: AtomicUsize = AtomicUsize::new(0);

/// `rcu_read_lock()`.
pub fn rcu_read_lock() {
    RCU_READERS.fetch_add(1, Ordering::SeqCst);
    record(|r| r.rcu_nesting += 1);
}

/// `rcu_read_unlock()`.
pub fn rcu_read_unlock() {
    record(|r| {
        assert!(r.rcu_nesting > 0, "unbalanced rcu_read_unlock");
        r.rcu_nesting -= 1
    });
    RCU_READERS.fetch_sub(1, Ordering::SeqCst);
}

/// `synchronize_rcu_expedited()`: a grace period, like [`synchronize_rcu`]
/// (the simulation has no notion of how long one takes), counted apart;
/// traced as `~synchronize_rcu` (model.c has one kind of grace period, and
/// hostdiff-rust traces the core's expedited ones so).
pub fn synchronize_rcu_expedited() {
    synchronize_rcu();
    record(|r| r.expedited_grace_periods += 1);
}

/// `synchronize_rcu()`: must not be called inside a read-side section;
/// traced as `~synchronize_rcu`.
pub fn synchronize_rcu() {
    record(|r| {
        assert_eq!(r.rcu_nesting, 0, "synchronize_rcu() inside rcu_read_lock()");
        r.grace_periods += 1
    });
    ev("~synchronize_rcu".into());
}

/// `kfree_rcu(ptr, rcu)`: the simulation frees at once and counts.
///
/// # Safety
/// `p` came from [`kmalloc`](super::kmalloc), [`kvmalloc`](super::kvmalloc) or
/// [`table_alloc`](super::table_alloc) and is no longer reachable by new readers.
pub unsafe fn kfree_rcu(p: *mut c_void, _rcu: *mut crate::types::RcuHead) {
    image(|i| i.kfree_rcu += 1);
    if record(|r| {
        r.rcu_deferred
            .as_mut()
            .map(|d| d.push(p as usize))
            .is_some()
    }) {
        return;
    }
    // SAFETY: `p` came from `kmalloc()` and no new reader can reach it (this
    // function's `# Safety`); the simulation has no reader left.
    unsafe { kfree(p) }
}

/// Ends the deferral of `kfree_rcu()` frees and frees them (the grace period
/// of a test whose concurrent readers have stopped).
pub fn rcu_barrier() {
    for p in record(|r| r.rcu_deferred.take()).unwrap_or_default() {
        // SAFETY: deferred by `kfree_rcu()` (a `kmalloc()` block no reader
        // reaches any more: the caller's readers have stopped).
        unsafe { kfree(p as *mut c_void) };
    }
}

/// `synchronize_rcu_tasks()`, traced as `~synchronize_rcu_tasks`.
pub fn synchronize_rcu_tasks() {
    arch(|a| a.rcu_tasks += 1);
    ev("~synchronize_rcu_tasks".into());
}
