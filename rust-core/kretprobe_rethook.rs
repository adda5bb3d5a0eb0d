// SPDX-License-Identifier: GPL-2.0

//! Return probes on rethook (`CONFIG_KRETPROBE_ON_RETHOOK`), the backend
//! of `kretprobe.rs`: the entry probe's pre-handler takes an instance from
//! the kretprobe's rethook and hooks the return; the rethook calls back
//! with the instance when the function returns.  Port of that part of
//! `kernel/kprobes.c`.
//!
//! [`pre_handler_kretprobe`] and [`kretprobe_rethook_handler`] run in
//! breakpoint/ftrace and rethook trampoline context: they are blacklisted
//! (`exports.rs`), cannot panic, allocate or sleep.

use crate::error::{from_err_ptr, Result};
use crate::ffi::{c_int, c_ulong, c_void};
use crate::flags;
use crate::probe::RetProbe;
use crate::sys;
use crate::types::{Kprobe, Kretprobe, KretprobeInstance, PreemptOff, PtRegs, RethookNode};
use core::ptr::{self, addr_of_mut};

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
        let po = PreemptOff::assume();
        sys::set_current_kprobe(po, addr_of_mut!((*rp).kp));
        sys::set_kprobe_status_hit_active(po);
        handler(rh.cast::<KretprobeInstance>(), regs);
        sys::clear_current_kprobe(po);
    }
}
crate::nokprobe_symbol!(kretprobe_rethook_handler);

/// Registration: the rethook that supplies the instances (`rp->rh`).
pub(crate) fn alloc_instances(r: RetProbe<'_>) -> Result {
    let rp = r.as_ptr();
    // SAFETY: `rp` is live and not registered yet (a `RetProbe`, whose
    // registration is in progress: `register_kprobe()` refuses a
    // re-registration), so its fields may be written plainly, and we may
    // sleep (process context) in `rethook_alloc()`.
    unsafe {
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
    Ok(())
}

/// The entry probe's registration failed: the rethook just allocated is
/// ours to free.
pub(crate) fn free_instances(r: RetProbe<'_>) {
    let rp = r.as_ptr();
    // SAFETY: not registered (the entry probe's registration failed): no
    // pre-handler reads `rh`, which `alloc_instances()` allocated.
    unsafe {
        sys::rethook_free((*rp).rh);
        (*rp).rh = ptr::null_mut();
    }
}

/// Unregistration, under `kprobe_mutex`: `rethook_free()` (which waits
/// for a grace period before freeing).
pub(crate) fn detach(r: RetProbe<'_>) {
    let rp = r.as_ptr();
    // SAFETY: `rp` is live (a `RetProbe`); `rh`, unless null or an error, is
    // the rethook from `rethook_alloc()`, not freed yet (its `rh` is cleared
    // by `release()` once freed).
    unsafe {
        // Intended divergence: upstream frees unconditionally.
        if !(*rp).rh.is_null() && from_err_ptr((*rp).rh).is_ok() {
            sys::rethook_free((*rp).rh);
        }
    }
}

/// Unregistration, after the grace period: `rh` is cleared (intended
/// divergence, see `kretprobe.rs`).
pub(crate) fn release(r: RetProbe<'_>, _unregistered: bool) {
    // SAFETY: `rp` is live (a `RetProbe`); after the grace period no
    // pre-handler still reads `rh`.
    unsafe { (*r.as_ptr()).rh = ptr::null_mut() };
}
