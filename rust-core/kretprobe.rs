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

use crate::flags;
use crate::addr;
use crate::ffi::{c_int, c_ulong, c_void};
use crate::locks;
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
pub unsafe extern "C" fn kretprobe_rethook_handler(rh: *mut RethookNode, data: *mut c_void, _ret_addr: c_ulong, regs: *mut PtRegs) {
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

/// `register_kretprobe()`.
///
/// # Safety
/// `rp` is a caller-owned kretprobe (its `kp.symbol_name` null or a C string)
/// that stays alive until unregistered; process context.
pub unsafe fn register_kretprobe(rp: *mut Kretprobe) -> c_int {
    // SAFETY: `rp` is caller-owned, alive until unregistered, with a valid
    // `kp.symbol_name`, and we may sleep (this function's `# Safety`): what the
    // address checks, `rethook_alloc()` and `register_kprobe()` on `kp` need.
    unsafe {
        let kp = addr_of_mut!((*rp).kp);
        let ret = addr::kprobe_on_func_entry((*kp).addr, (*kp).symbol_name, (*kp).offset as c_ulong);
        if ret != 0 {
            return ret;
        }

        // If only 'rp->kp.addr' is specified, check reregistering kprobes.
        if !(*kp).addr.is_null() && register::warn_kprobe_rereg(kp) != 0 {
            return -sys::EINVAL;
        }

        let bl = sys::kretprobe_blacklist();
        if !bl.is_null() {
            let mut on_func_entry = false;
            let a = addr::kprobe_addr((*kp).addr, (*kp).symbol_name, (*kp).offset as c_ulong, &mut on_func_entry);
            if addr::is_err(a) {
                return addr::ptr_err(a);
            }
            let mut i = 0;
            while !(*bl.add(i)).name.is_null() {
                if (*bl.add(i)).addr == a.cast::<c_void>() {
                    return -sys::EINVAL;
                }
                i += 1;
            }
        }

        if (*rp).data_size > KRETPROBE_MAX_DATA_SIZE {
            return -sys::E2BIG;
        }

        (*kp).pre_handler = Some(pre_handler_kretprobe);
        (*kp).post_handler = None;

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
        if addr::is_err(rh.cast()) {
            (*rp).rh = rh;
            return addr::ptr_err(rh.cast());
        }
        (*rp).rh = rh;

        (*rp).nmissed = 0;
        // Establish function entry probe point.
        let ret = register::register_kprobe(kp);
        if ret != 0 {
            sys::rethook_free((*rp).rh);
            (*rp).rh = ptr::null_mut();
        }
        ret
    }
}

/// `register_kretprobes()`: all or nothing.
///
/// # Safety
/// `rps` holds `num` (when `num > 0`) pointers to kretprobes that meet
/// [`register_kretprobe`]'s contract; process context.
pub unsafe fn register_kretprobes(rps: *mut *mut Kretprobe, num: c_int) -> c_int {
    let mut ret = 0;
    if num <= 0 {
        return -sys::EINVAL;
    }
    for i in 0..num as usize {
        // SAFETY: `i < num` and `rps[i]` meets `register_kretprobe()`'s contract
        // (this function's `# Safety`).
        ret = unsafe { register_kretprobe(*rps.add(i)) };
        if ret < 0 {
            if i > 0 {
                // SAFETY: the first `i` were registered.
                unsafe { unregister_kretprobes(rps, i as c_int) };
            }
            break;
        }
    }
    ret
}

/// `unregister_kretprobes()`.
///
/// # Safety
/// `rps` holds `num` (when `num > 0`) pointers to caller-owned (readable and
/// writable) kretprobes, none of them twice; process context.
pub unsafe fn unregister_kretprobes(rps: *mut *mut Kretprobe, num: c_int) {
    if num <= 0 {
        return;
    }
    let n = num as usize;
    {
        let km = locks::kprobe_mutex();
        for i in 0..n {
            // SAFETY: `i < num` and `rps[i]` is caller-owned, listed once (this
            // function's `# Safety`), as `unregister_top()` requires; `rh`, unless
            // null or an error, is the rethook from `rethook_alloc()`, not freed yet.
            unsafe {
                let rp = *rps.add(i);
                if register::unregister_top(&km, addr_of_mut!((*rp).kp)) < 0 {
                    crate::once::write(addr_of_mut!((*rp).kp.addr), ptr::null_mut());
                }
                // Intended divergence: upstream frees unconditionally.
                if !(*rp).rh.is_null() && !addr::is_err((*rp).rh.cast()) {
                    sys::rethook_free((*rp).rh);
                }
            }
        }
    }

    // Upstream waits with synchronize_rcu().  An expedited grace period is
    // the same guarantee (no handler still runs on these probes once it
    // returns) at a fraction of the cost: ~6.4 k guest instructions instead
    // of ~12 ms of guest time per call (bench row gp_*), which is most of
    // the cost of unregistering kretprobes one by one.
    sys::synchronize_rcu_expedited();
    for i in 0..n {
        // SAFETY: `rps[i]` is valid (this function's `# Safety`); after the grace
        // period above no pre-handler still reads `rh`, and a non-null `kp.addr` means
        // `unregister_top()` succeeded, as `unregister_bottom()` requires.
        unsafe {
            let rp = *rps.add(i);
            if !(*rp).kp.addr.is_null() {
                register::unregister_bottom(addr_of_mut!((*rp).kp));
            }
            (*rp).rh = ptr::null_mut();
        }
    }
}
