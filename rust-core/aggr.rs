// SPDX-License-Identifier: GPL-2.0

//! Aggregated probes: the handler dispatch of an aggregate (several probes
//! at one address), the missed-hit accounting and the "kprobe busy"
//! reentrancy guard.  Port of that part of `kernel/kprobes.c`.
//!
//! Everything here except [`dump_kprobe`] runs in breakpoint, ftrace or
//! optprobe handler context: the functions are on the kprobe blacklist
//! (`nokprobe_symbol!` in `exports.rs`), their helpers are always inlined,
//! nothing can panic, allocate or sleep.  The child lists are RCU lists,
//! read with preemption disabled by the handlers' callers.

use crate::flags;
use crate::ffi::{c_int, c_ulong};
use crate::list;
use crate::sys;
use crate::types::{Kprobe, KprobeOpcode, ListHead, PtRegs};
use core::ptr::addr_of_mut;

/// The probe whose `list` member is `l`.
#[inline(always)]
fn probe_of(l: *mut ListHead) -> *mut Kprobe {
    crate::container_of!(l, Kprobe, list)
}

/// Calls `f` on each child of aggregate `p` (`list_for_each_entry_rcu`).
///
/// # Safety
/// `p` is a live aggregate; RCU read side (handler context) or
/// `kprobe_mutex` held.
#[inline(always)]
unsafe fn for_each_child(p: *mut Kprobe, mut f: impl FnMut(*mut Kprobe) -> bool) {
    // SAFETY: `p` is a live aggregate and the caller is an RCU reader or holds
    // `kprobe_mutex` (this function's `# Safety`), so `next_rcu()` may follow its
    // child list and each child stays live while `f` runs.
    unsafe {
        let head = addr_of_mut!((*p).list);
        let mut l = list::next_rcu(head);
        while l != head {
            if !f(probe_of(l)) {
                return;
            }
            l = list::next_rcu(l);
        }
    }
}

/// `aggr_pre_handler()`: runs the pre-handlers of the enabled children in
/// order; stops and returns 1 at the first that returns non-zero.
///
/// # Safety
/// Handler context; `p` is a live aggregate.
#[no_mangle]
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn aggr_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    let mut ret = 0;
    // SAFETY: `p` is a live aggregate and we run in handler context, an RCU read
    // side (this function's `# Safety`), as `for_each_child()` requires; each
    // enabled child's own `pre_handler` gets the child and the trap's `regs`.
    unsafe {
        for_each_child(p, |kp| {
            if let Some(h) = (*kp).pre_handler {
                if !flags::disabled(kp) {
                    sys::set_kprobe_instance(kp);
                    if h(kp, regs) != 0 {
                        ret = 1;
                        return false;
                    }
                }
            }
            sys::reset_kprobe_instance();
            true
        });
    }
    ret
}
crate::nokprobe_symbol!(aggr_pre_handler);

/// `aggr_post_handler()`: runs the post-handlers of the enabled children.
///
/// # Safety
/// Handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn aggr_post_handler(p: *mut Kprobe, regs: *mut PtRegs, flags: c_ulong) {
    // SAFETY: `p` is a live aggregate and we run in handler context, an RCU read
    // side (this function's `# Safety`), as `for_each_child()` requires; each
    // enabled child's own `post_handler` gets the child, `regs` and `flags`.
    unsafe {
        for_each_child(p, |kp| {
            if let Some(h) = (*kp).post_handler {
                if !flags::disabled(kp) {
                    sys::set_kprobe_instance(kp);
                    h(kp, regs, flags);
                    sys::reset_kprobe_instance();
                }
            }
            true
        });
    }
}
crate::nokprobe_symbol!(aggr_post_handler);

/// `opt_pre_handler()`: the pre-handler dispatch of an optimized probe: like
/// [`aggr_pre_handler`] but every enabled child runs, whatever it returns.
///
/// # Safety
/// Optprobe handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn opt_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) {
    // SAFETY: `p` is a live aggregate and we run in optprobe handler context, an
    // RCU read side (this function's `# Safety`), as `for_each_child()` requires;
    // each enabled child's own `pre_handler` gets the child and `regs`.
    unsafe {
        for_each_child(p, |kp| {
            if let Some(h) = (*kp).pre_handler {
                if !flags::disabled(kp) {
                    sys::set_kprobe_instance(kp);
                    h(kp, regs);
                }
            }
            sys::reset_kprobe_instance();
            true
        });
    }
}
crate::nokprobe_symbol!(opt_pre_handler);

/// `kprobe_aggrprobe()`: is `p` an aggregator?
///
/// # Safety
/// `p` is live.
#[inline(always)]
pub unsafe fn kprobe_aggrprobe(p: *const Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`).
    let h = unsafe { (*p).pre_handler };
    h.map(|f| f as *const ()) == Some(aggr_pre_handler as *const ())
}

/// `kprobes_inc_nmissed_count()`: counts a missed hit on `p`, or on each
/// child if `p` is an aggregate.
///
/// # Safety
/// Handler context; `p` is live.
#[inline(always)]
pub unsafe fn inc_nmissed_count(p: *mut Kprobe) {
    // SAFETY: `p` is live and we are in handler context, an RCU read side (this
    // function's `# Safety`), as `kprobe_aggrprobe()` and `for_each_child()` need.
    unsafe {
        if !kprobe_aggrprobe(p) {
            crate::once::update(addr_of_mut!((*p).nmissed), |n| n.wrapping_add(1));
        } else {
            for_each_child(p, |kp| {
                crate::once::update(addr_of_mut!((*kp).nmissed), |n| n.wrapping_add(1));
                true
            });
        }
    }
}

/// The dummy probe `current_kprobe` points at while the core is busy
/// (`kprobe_busy_begin()`); its address is `get_kprobe`, as upstream.
struct BusyProbe(core::cell::UnsafeCell<Kprobe>);
// SAFETY: never written after initialization; only its address is used.
unsafe impl Sync for BusyProbe {}

static KPROBE_BUSY: BusyProbe = BusyProbe(core::cell::UnsafeCell::new(Kprobe {
    addr: crate::registry::get_kprobe as *mut KprobeOpcode,
    // SAFETY: all-zero is a valid value for every other field.
    ..unsafe { core::mem::zeroed::<Kprobe>() }
}));

#[inline(always)]
fn busy_probe() -> *mut Kprobe {
    KPROBE_BUSY.0.get()
}

/// `kprobe_busy_begin()`: marks this CPU as running a kprobe handler, so
/// probes hit meanwhile are counted as missed instead of recursing.
/// Disables preemption until [`busy_end`].
pub fn busy_begin() {
    sys::preempt_disable();
    sys::set_current_kprobe(busy_probe());
    sys::set_kprobe_status_hit_active();
}

/// `kprobe_busy_end()`.
pub fn busy_end() {
    sys::clear_current_kprobe();
    sys::preempt_enable();
}

/// `dump_kprobe()`: prints `kp` for a critical error report (never in the
/// usual path).
///
/// Reached from the breakpoint handler's fatal paths (`reenter_kprobe()`):
/// always inlined into the blacklisted export.
///
/// # Safety
/// `kp` is live, with `symbol_name` null or a C string (as in any registered
/// probe).
#[no_mangle]
pub unsafe extern "C" fn dump_kprobe(kp: *mut Kprobe) {
    // SAFETY: `kp` is live and its `symbol_name` is null or a C string (this
    // function's `# Safety`), as `pr_err_dump_kprobe()` requires.
    unsafe { sys::pr_err_dump_kprobe((*kp).symbol_name, (*kp).offset, (*kp).addr) }
}
crate::nokprobe_symbol!(dump_kprobe);

/// `kprobes_inc_nmissed_count()`.
///
/// # Safety
/// Handler context; `p` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_inc_nmissed_count(p: *mut Kprobe) {
    // SAFETY: `p` is live and we are in handler context (this function's
    // `# Safety`), all that `inc_nmissed_count()` requires.
    unsafe { inc_nmissed_count(p) }
}
crate::nokprobe_symbol!(kprobes_inc_nmissed_count);

// Not on the hit path (fprobe calls them from its handler, the core
// inlines `busy_begin()`/`busy_end()`): ordinary functions with an ftrace
// site, which kprobe_events may probe, as upstream's.
ftrace_export! {
    /// `kprobe_busy_begin()`.
    fn kprobe_busy_begin() {
        busy_begin()
    }
}

ftrace_export! {
    /// `kprobe_busy_end()`.
    fn kprobe_busy_end() {
        busy_end()
    }
}
