// SPDX-License-Identifier: GPL-2.0

//! Return probes on rethook (`CONFIG_KRETPROBE_ON_RETHOOK`): the entry
//! probe's pre-handler takes an instance from the kretprobe's rethook and
//! hooks the return; the rethook calls back with the instance when the
//! function returns.  Port of that part of `kernel/kprobes.c`.
//!
//! [`pre_handler_kretprobe`] and [`kretprobe_rethook_handler`] run in
//! breakpoint/ftrace and rethook trampoline context: they are blacklisted
//! (`exports.rs`), cannot panic, allocate or sleep.
//!
//! One intended divergence from upstream (see
//! `tools/testing/differential/divergences.txt`): upstream's
//! `unregister_kretprobes()` calls `rethook_free(rp->rh)` unconditionally,
//! which oopses on a kretprobe that was never registered, or whose
//! registration failed (`rp->rh == NULL`), and frees the rethook a second
//! time on a second unregister.  Here a null `rh` is skipped and `rh` is
//! cleared once the grace period after unregistration has passed.

use crate::addr::{self, ReservedWindow};
use crate::error::{code::*, from_err_ptr, Result};
use crate::ffi::{c_int, c_ulong, c_void};
use crate::flags;
use crate::locks::KprobeMutex;
use crate::probe::{Probe, RetProbe, RetProbeArray};
use crate::rcu_policy;
use crate::register;
use crate::sys;
use crate::types::{Kprobe, Kretprobe, KretprobeInstance, PtRegs, RethookNode};
use core::ptr::{self, addr_of_mut};

/// `KRETPROBE_MAX_DATA_SIZE`.
pub const KRETPROBE_MAX_DATA_SIZE: usize = 4096;

/// The kretprobe whose entry probe is `p`.
#[inline(always)]
fn rp_of(p: *mut Kprobe) -> *mut Kretprobe {
    crate::container_of!(p, Kretprobe, kp)
}

/// `pre_handler_kretprobe()`: registered with every kretprobe; when the
/// probe hits, it sets up the return probe.
///
/// # Safety
/// Handler context; `p` is the `kp` of a registered kretprobe.
#[no_mangle]
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn pre_handler_kretprobe(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    let rp = rp_of(p);
    // SAFETY: `p` is the `kp` of a registered kretprobe, in handler context with
    // preemption disabled (this function's `# Safety`): `rp` and its rethook stay live
    // until a grace period after unregistration; `rhn` is then recycled or hooked once.
    unsafe {
        let rhn = sys::rethook_try_get((*rp).rh);
        if rhn.is_null() {
            crate::once::update(addr_of_mut!((*rp).nmissed), |n| n.wrapping_add(1));
            return 0;
        }
        let ri = rhn.cast::<KretprobeInstance>();
        match (*rp).entry_handler {
            Some(h) if h(ri, regs) != 0 => sys::rethook_recycle(rhn),
            _ => sys::rethook_hook(rhn, regs, flags::ftrace(p)),
        }
    }
    0
}
crate::nokprobe_symbol!(pre_handler_kretprobe);

/// `kretprobe_rethook_handler()`: the rethook's callback on return.
///
/// # Safety
/// Rethook trampoline context; `data` is the kretprobe (set by
/// `rethook_alloc()`), `rh` one of its instances.
#[no_mangle]
pub unsafe extern "C" fn kretprobe_rethook_handler(
    rh: *mut RethookNode,
    data: *mut c_void,
    _ret_addr: c_ulong,
    regs: *mut PtRegs,
) {
    let rp = data.cast::<Kretprobe>();
    // The data must NOT be null. This means rethook data structure is broken.
    if rp.is_null() {
        crate::warn_once!();
        return;
    }
    // SAFETY: `rp` is the (non-null) kretprobe given to `rethook_alloc()` and `rh`
    // one of its instances, in the rethook trampoline's preemption-disabled
    // context (this function's `# Safety`), as the per-CPU writes need.
    unsafe {
        let Some(handler) = (*rp).handler else { return };
        sys::set_current_kprobe(addr_of_mut!((*rp).kp));
        sys::set_kprobe_status_hit_active();
        handler(rh.cast::<KretprobeInstance>(), regs);
        sys::clear_current_kprobe();
    }
}
crate::nokprobe_symbol!(kretprobe_rethook_handler);

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
    // below refuses a re-registration), so its fields may be written plainly, and
    // we may sleep (process context) in `rethook_alloc()`.
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

        let rh = sys::rethook_alloc(
            rp.cast(),
            kretprobe_rethook_handler,
            (core::mem::size_of::<KretprobeInstance>() + (*rp).data_size) as c_int,
            (*rp).maxactive,
        );
        (*rp).rh = rh;
        from_err_ptr(rh)?;

        (*rp).nmissed = 0;
    }
    // Establish function entry probe point.
    let ret = register_kprobe(kp);
    if ret.is_err() {
        // SAFETY: not registered: the rethook just allocated is ours to free.
        unsafe {
            sys::rethook_free((*rp).rh);
            (*rp).rh = ptr::null_mut();
        }
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
        let rp = r.as_ptr();
        // SAFETY: `rp` is live (a `RetProbe`); `rh`, unless null or an error, is
        // the rethook from `rethook_alloc()`, not freed yet (its `rh` is cleared
        // by `unregister_wait_and_free()` once freed).
        unsafe {
            // Intended divergence: upstream frees unconditionally.
            if !(*rp).rh.is_null() && from_err_ptr((*rp).rh).is_ok() {
                sys::rethook_free((*rp).rh);
            }
        }
    }
}

/// The part of `unregister_kretprobes()` after `kprobe_mutex`.
fn unregister_wait_and_free(rps: RetProbeArray<'_>) {
    // synchronize_rcu(), as upstream (the policy is `rcu_policy`'s).
    rcu_policy::synchronize_unregister();
    for r in rps.iter().flatten() {
        if !r.kp().addr().is_null() {
            // SAFETY: a non-null `kp.addr` means `unregister_top()` succeeded, and
            // the grace period above has passed.
            unsafe { register::unregister_bottom(r.kp()) };
        }
        // SAFETY: `rp` is live (a `RetProbe`); after the grace period no
        // pre-handler still reads `rh`.
        unsafe { (*r.as_ptr()).rh = ptr::null_mut() };
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
