// SPDX-License-Identifier: GPL-2.0

//! RCU: read-side sections, grace periods, `kfree_rcu()`; with
//! [`Image::as_model`](super::Image::as_model), model.c's `call_rcu()`
//! queue, which [`hd_rcu_quiesce`] runs at the end of an operation.

use super::cpu::cpu;
use super::image::{image, model};
use super::memory::kfree;
use super::text::arch;
use super::trace::{ev, hd_fatal, record};
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
///
/// # Safety
/// Ends an RCU read-side section that `rcu_read_lock()` began on the
/// current task.
pub unsafe fn rcu_read_unlock() {
    if record(|r| r.rcu_nesting) == 0 {
        // model.c's fatal error, else a failed assertion.
        if model() {
            hd_fatal(format_args!("rcu_read_unlock underflow"));
        }
        panic!("unbalanced rcu_read_unlock");
    }
    record(|r| r.rcu_nesting -= 1);
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

/// `synchronize_rcu()`: must not be called inside a read-side section
/// (with [`Image::as_model`](super::Image::as_model), nor with preemption
/// disabled: model.c's fatal check); traced as `~synchronize_rcu`.
pub fn synchronize_rcu() {
    model_read_side_check("synchronize_rcu()");
    record(|r| {
        assert_eq!(r.rcu_nesting, 0, "synchronize_rcu() inside rcu_read_lock()");
        r.grace_periods += 1
    });
    ev("~synchronize_rcu".into());
}

/// model.c's check of a grace period's caller: fatal in an RCU read-side
/// section or with preemption disabled (with
/// [`Image::as_model`](super::Image::as_model)).
fn model_read_side_check(what: &str) {
    if model() && (record(|r| r.rcu_nesting) != 0 || cpu(|c| c.preempt) != 0) {
        hd_fatal(format_args!("{what} in a read-side section"));
    }
}

/// `kfree_rcu(ptr, rcu)`: the simulation frees at once and counts; with
/// [`Image::as_model`](super::Image::as_model), it queues the free with
/// [`call_rcu`], as model.c's `hd_kfree_rcu()`.
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
    if model() {
        // SAFETY: `kfree_cb` frees `p`, a `kmalloc()` block that no new
        // reader reaches (this function's `# Safety`), after the grace
        // period that ends the operation.
        unsafe { call_rcu(kfree_cb, p as usize) };
        return;
    }
    // SAFETY: `p` came from `kmalloc()` and no new reader can reach it (this
    // function's `# Safety`); the simulation has no reader left.
    unsafe { kfree(p) }
}

/// [`kfree_rcu`]'s callback (model.c's `kfree_rcu_cb()`).
///
/// # Safety
/// `p` is a `kmalloc()` block that no reader reaches any more.
unsafe fn kfree_cb(p: usize) {
    // SAFETY: this function's `# Safety`.
    unsafe { kfree(p as *mut c_void) }
}

/// A callback of [`call_rcu`], called with the argument it was queued with.
pub type RcuCallback = unsafe fn(usize);

/// model.c's `call_rcu()`: queues `f(arg)` to run after a grace period,
/// which [`hd_rcu_quiesce`] ends (the end of an operation).
///
/// # Safety
/// `f(arg)` may run at the end of the current operation, on this thread.
pub unsafe fn call_rcu(f: RcuCallback, arg: usize) {
    record(|r| r.rcu_callbacks.push_back((f, arg)));
}

/// model.c's `hd_rcu_quiesce()`, the end of an operation: a quiescent
/// state, so nothing may be held (a panic with model.c's fatal message
/// otherwise: RCU read side, preemption, `cpus_read_lock()`,
/// `text_mutex`, `jump_label_lock()`), and the queued RCU callbacks run,
/// in order (also those they queue).
pub fn hd_rcu_quiesce() {
    let rcu = record(|r| r.rcu_nesting);
    let preempt = cpu(|c| c.preempt);
    let (cpus, text, jl) = arch(|a| (a.cpus_read, a.text_mutex, a.jump_label));
    if rcu != 0 || preempt != 0 || cpus != 0 || text || jl {
        hd_fatal(format_args!(
            "operation ended with rcu={rcu} preempt={preempt} cpus={cpus} text={} jl={} held",
            text as i32, jl as i32
        ));
    }
    while let Some((f, arg)) = record(|r| r.rcu_callbacks.pop_front()) {
        // SAFETY: `call_rcu()`'s caller allowed `f(arg)` to run at the end
        // of the operation, which this is.
        unsafe { f(arg) };
    }
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
    model_read_side_check("synchronize_rcu_tasks()");
    arch(|a| a.rcu_tasks += 1);
    ev("~synchronize_rcu_tasks".into());
}
