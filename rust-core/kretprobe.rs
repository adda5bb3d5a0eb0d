// SPDX-License-Identifier: GPL-2.0

//! Return probes: registration and unregistration, the part of
//! `kernel/kprobes.c` that both kinds of kretprobe share.  What holds the
//! instances and how the return is hooked is the backend's: rethook
//! (`CONFIG_KRETPROBE_ON_RETHOOK`, x86_64: `kretprobe_rethook.rs`) or the
//! architecture's own trampoline with an object pool of instances
//! (`!CONFIG_KRETPROBE_ON_RETHOOK`, arm64 in 6.12: `kretprobe_objpool.rs`).
//! A backend provides `pre_handler_kretprobe()` (the entry probe's
//! pre-handler), `alloc_instances()` (at registration, after the
//! pre-handler is set; sets `nmissed` to 0), `free_instances()` (the entry
//! probe's registration failed), `detach()` (unregistration, under
//! `kprobe_mutex`) and `release()` (after the grace period).
//!
//! One intended divergence from upstream (see
//! `tools/testing/differential/divergences.txt`): upstream's
//! `unregister_kretprobes()` frees the rethook (`rethook_free(rp->rh)`) or
//! detaches the pool holder (`rp->rph->rp = NULL`) unconditionally, which
//! oopses on a kretprobe that was never registered, or whose registration
//! failed (`rp->rh`/`rp->rph` null), and frees the rethook a second time
//! on a second unregister.  Here a null `rh`/`rph` is skipped, and `rh` is
//! cleared once the grace period after unregistration has passed (`rph`
//! is cleared by upstream's own `free_rp_inst()`).

use crate::addr::{self, ReservedWindow};
use crate::error::{code::*, Result};
use crate::ffi::{c_int, c_ulong, c_void};
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
use crate::kretprobe_objpool as backend;
#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
use crate::kretprobe_rethook as backend;
use crate::locks::KprobeMutex;
use crate::probe::{Probe, RetProbe, RetProbeArray};
use crate::rcu_policy;
use crate::register;
use crate::sys;
use core::ptr;

pub use backend::pre_handler_kretprobe;

/// `KRETPROBE_MAX_DATA_SIZE`.
pub const KRETPROBE_MAX_DATA_SIZE: usize = 4096;

/// `register_kretprobe()`; process context.
pub fn register_kretprobe(r: RetProbe<'_>) -> Result {
    register_kretprobe_with(r, register::warn_kprobe_rereg, register::register_kprobe)
}

/// [`register_kretprobe`] of a member of `register_kretprobes()`, with
/// `kprobe_mutex` held throughout (see `register::register_kprobe_locked()`;
/// `rethook_alloc()` may sleep and allocate, as the aggregate allocation
/// under the mutex does).
fn register_kretprobe_locked(km: &KprobeMutex, r: RetProbe<'_>, win: &ReservedWindow) -> Result {
    register_kretprobe_with(
        r,
        |p| register::warn_kprobe_rereg_locked(km, p),
        |p| register::register_kprobe_locked(km, p, win),
    )
}

/// `register_kretprobe()` with its re-registration check and its
/// `register_kprobe()`.
fn register_kretprobe_with(
    r: RetProbe<'_>,
    rereg: impl Fn(Probe<'_>) -> Result,
    register_kprobe: impl FnOnce(Probe<'_>) -> Result,
) -> Result {
    let kp = r.kp();
    addr::kprobe_on_func_entry(kp.addr(), kp.symbol(), kp.offset() as c_ulong)?;

    // If only 'rp->kp.addr' is specified, check reregistering kprobes.
    if !kp.addr().is_null() {
        rereg(kp)?;
    }

    let bl = sys::kretprobe_blacklist();
    if !bl.is_null() {
        let mut on_func_entry = false;
        let a = addr::kprobe_addr(
            kp.addr(),
            kp.symbol(),
            kp.offset() as c_ulong,
            &mut on_func_entry,
        )?;
        let mut i = 0;
        // SAFETY: `kretprobe_blacklist` is the kernel's static table, ended by a
        // null name and never written after init.
        unsafe {
            while !(*bl.add(i)).name.is_null() {
                if (*bl.add(i)).addr == a.cast::<c_void>() {
                    return Err(EINVAL);
                }
                i += 1;
            }
        }
    }

    let rp = r.as_ptr();
    // SAFETY: `rp` is live and not registered yet (a `RetProbe`; `register_kprobe()`
    // below refuses a re-registration), so its fields may be written plainly.
    unsafe {
        if (*rp).data_size > KRETPROBE_MAX_DATA_SIZE {
            return Err(E2BIG);
        }

        (*rp).kp.pre_handler = Some(pre_handler_kretprobe);
        (*rp).kp.post_handler = None;

        // Pre-allocate memory for max kretprobe instances.
        if (*rp).maxactive <= 0 {
            (*rp).maxactive = core::cmp::max(10, 2 * sys::num_possible_cpus()) as c_int;
        }
    }
    // We may sleep (process context) in the backend's allocation.
    backend::alloc_instances(r)?;
    // Establish function entry probe point.
    let ret = register_kprobe(kp);
    if ret.is_err() {
        backend::free_instances(r);
    }
    ret
}

/// `register_kretprobes()`: all or nothing.
///
/// Batched as `register_kprobes()` (`register.rs`): one hold of
/// `kprobe_mutex`, the ftrace entry probes armed with one
/// `ftrace_set_filter_ips()` per ops before it is released; on a failing
/// member or arming, the members registered so far are unregistered and
/// the error returned.  An array of one is `register_kretprobe()`.
pub fn register_kretprobes(rps: RetProbeArray<'_>) -> Result {
    if rps.is_empty() {
        return Err(EINVAL);
    }
    if rps.len() == 1 {
        // Upstream dereferences a null member.
        return rps.get(0).map_or(Err(EINVAL), register_kretprobe);
    }
    register::register_batch(
        rps.len(),
        |i| rps.get(i).and_then(|r| addr::hint(r.kp())),
        // Upstream dereferences a null member.
        |km, i, win| {
            rps.get(i)
                .map_or(Err(EINVAL), |r| register_kretprobe_locked(km, r, win))
        },
        |km, n| unregister_tops(km, rps.prefix(n)),
        |n| unregister_wait_and_free(rps.prefix(n)),
    )
}

/// The part of `unregister_kretprobes()` under `kprobe_mutex`.
fn unregister_tops(km: &KprobeMutex, rps: RetProbeArray<'_>) {
    for r in rps.iter().flatten() {
        if register::unregister_top(km, r.kp()).is_err() {
            r.kp().write_addr(ptr::null_mut());
        }
        backend::detach(r);
    }
}

/// The part of `unregister_kretprobes()` after `kprobe_mutex`.
fn unregister_wait_and_free(rps: RetProbeArray<'_>) {
    // synchronize_rcu(), as upstream (the policy is `rcu_policy`'s).
    rcu_policy::synchronize_unregister();
    for r in rps.iter().flatten() {
        let unregistered = !r.kp().addr().is_null();
        if unregistered {
            // SAFETY: a non-null `kp.addr` means `unregister_top()` succeeded, and
            // the grace period above has passed.
            unsafe { register::unregister_bottom(r.kp()) };
        }
        // After the grace period no pre-handler still reads the instances'
        // holder.
        backend::release(r, unregistered);
    }
}

/// `unregister_kretprobes()`: the kretprobes are distinct.  Batched as
/// `unregister_kprobes()` (`register.rs`, which says why a hit between a
/// member's unhash and the batch's disarm is harmless).
pub fn unregister_kretprobes(rps: RetProbeArray<'_>) {
    if rps.is_empty() {
        return;
    }
    register::unregister_batch(
        rps.len(),
        |km| unregister_tops(km, rps),
        || unregister_wait_and_free(rps),
    );
}
