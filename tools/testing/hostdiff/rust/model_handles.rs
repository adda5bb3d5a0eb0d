// SPDX-License-Identifier: GPL-2.0

//! The host differential's handles on the core's state (`cfg(KP_MODEL)`):
//! the twin of what `tools/testing/hostdiff/kcore.c` computes from
//! upstream's static `kprobe_table` for `driver.c` and `arch.c`.  Not kernel
//! API; only the model's C calls them.

use crate::probe::Probe;
use crate::types::Kprobe;
use core::ptr::addr_of_mut;

/// The answer of `f` for the first hashed probe `q` that is `p` or whose
/// aggregate list holds `p` (`f(q, q == p)`), walking the table as
/// kcore.c does (every bucket, each chain, each aggregate's list).
///
/// # Safety
/// `p` is one of the driver's probe objects; no core operation runs.
unsafe fn find<R>(p: *mut Kprobe, f: impl Fn(*mut Kprobe, bool) -> R) -> Option<R> {
    let mut r = None;
    crate::registry::for_each_hashed(&crate::locks::kprobe_mutex(), |q| {
        if r.is_some() {
            return;
        }
        let q = q.as_ptr();
        if q == p {
            r = Some(f(q, true));
            return;
        }
        // SAFETY: `q` is hashed, so live; `kprobe_mutex` is held, so the
        // aggregate's list is stable.
        unsafe {
            if Probe::from_raw(q).is_aggr() {
                for l in crate::list::iter_rcu(addr_of_mut!((*q).list)) {
                    if crate::container_of!(l, Kprobe, list) == p {
                        r = Some(f(q, false));
                        break;
                    }
                }
            }
        }
    });
    r
}

/// `hd_kprobe_reachable()`: is `p` still known to the core, hashed or on the
/// list of a hashed aggregate?  The driver's notion of "registered".
///
/// # Safety
/// `p` is one of the driver's probe objects; no core operation runs.
#[no_mangle]
pub unsafe extern "C" fn hd_kprobe_reachable(p: *mut Kprobe) -> bool {
    // SAFETY: the caller's contract.
    unsafe { find(p, |_, _| ()) }.is_some()
}

/// `hd_kprobe_stays_disabled()`: is registered probe `p` still disabled,
/// itself or the hashed aggregate it is on?
///
/// # Safety
/// As for [`hd_kprobe_reachable`].
#[no_mangle]
pub unsafe extern "C" fn hd_kprobe_stays_disabled(p: *mut Kprobe) -> bool {
    // SAFETY: the caller's contract; `p` and `q` are live while found.
    unsafe {
        find(p, |q, itself| {
            crate::flags::disabled(p) || (!itself && crate::flags::disabled(q))
        })
        .unwrap_or(false)
    }
}

/// `kprobe_aggrprobe()` for arch.c's text model.
///
/// # Safety
/// `p` is a live probe.
#[no_mangle]
pub unsafe extern "C" fn hd_kprobe_aggrprobe(p: *mut Kprobe) -> bool {
    // SAFETY: the caller's contract.
    unsafe { Probe::from_raw(p) }.is_aggr()
}
