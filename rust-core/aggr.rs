// SPDX-License-Identifier: GPL-2.0

//! The missed-hit accounting and the "kprobe busy" reentrancy guard (the
//! handler dispatch of an aggregate is with its type, in `probe.rs`).
//! Port of that part of `kernel/kprobes.c`.
//!
//! Everything here except [`dump_kprobe`] runs in breakpoint, ftrace or
//! optprobe handler context: the functions are on the kprobe blacklist
//! (`nokprobe_symbol!` in `exports.rs`), their helpers are always inlined,
//! nothing can panic, allocate or sleep.  The child lists are RCU lists,
//! read with preemption disabled by the handlers' callers.

use crate::locks::{self, PreemptGuard};
use crate::probe::Probe;
use crate::sys;
use crate::types::{Kprobe, KprobeOpcode};

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

/// A "kprobe busy" section on this CPU ([`busy_begin`]) until dropped
/// (`kprobe_busy_end()`): probes hit meanwhile are counted as missed
/// instead of recursing.
///
/// # Invariants
/// Preemption is disabled (`preempt`) and this CPU's `current_kprobe` is
/// the busy probe from [`busy_begin`] until the guard is dropped.
pub struct Busy {
    preempt: PreemptGuard,
}

/// `kprobe_busy_begin()`: marks this CPU as running a kprobe handler, with
/// preemption disabled, until the returned guard is dropped.
pub fn busy_begin() -> Busy {
    let preempt = locks::preempt_disable();
    let po = preempt.token();
    sys::set_current_kprobe(po, busy_probe());
    sys::set_kprobe_status_hit_active(po);
    // INVARIANT: preemption is off for `preempt`'s life, which the guard
    // owns; `current_kprobe` was set just above.
    Busy { preempt }
}

impl Busy {
    /// Leaves the section open past the guard: C's `kprobe_busy_begin()`,
    /// which C's `kprobe_busy_end()` ends.
    fn keep(self) {
        core::mem::forget(self);
    }
}

impl Drop for Busy {
    #[inline(always)]
    fn drop(&mut self) {
        // Then `preempt` is dropped: `preempt_enable()`.
        sys::clear_current_kprobe(self.preempt.token());
    }
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

/// `kprobes_inc_nmissed_count()`: counts a missed hit on `p`, or on each
/// child if `p` is an aggregate.
///
/// # Safety
/// Handler context; `p` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_inc_nmissed_count(p: *mut Kprobe) {
    // SAFETY: `p` is live (this function's `# Safety`): a `Probe`.
    let p = unsafe { Probe::from_raw(p) };
    match p.aggr() {
        None => p.inc_nmissed(),
        // SAFETY: handler context, an RCU read side (this function's `# Safety`).
        Some(ap) => unsafe {
            ap.for_each_child_rcu(|kp| {
                kp.inc_nmissed();
                true
            })
        },
    }
}
crate::nokprobe_symbol!(kprobes_inc_nmissed_count);

// Not on the hit path (fprobe calls them from its handler, the core
// inlines `busy_begin()`/`busy_end()`): ordinary functions with an ftrace
// site, which kprobe_events may probe, as upstream's.
ftrace_export! {
    /// `kprobe_busy_begin()`.
    fn kprobe_busy_begin() {
        busy_begin().keep()
    }
}

ftrace_export! {
    /// `kprobe_busy_end()`.
    ///
    /// # Safety
    /// After `kprobe_busy_begin()` on this CPU, whose section it ends
    /// (upstream's contract: they pair).
    unsafe fn kprobe_busy_end() {
        // INVARIANT: `kprobe_busy_begin()` began the section on this CPU and
        // left it to this call (this function's `# Safety`); dropping the
        // guard ends it.
        drop(Busy {
            // SAFETY: `kprobe_busy_begin()` disabled preemption on this CPU for
            // the section, which this call ends (this function's `# Safety`).
            preempt: unsafe { PreemptGuard::resume() },
        })
    }
}
