// SPDX-License-Identifier: GPL-2.0

//! Which grace period unregistration waits for: `kprobes.expedited_gp`.
//!
//! Upstream waits with `synchronize_rcu()` before it frees what
//! unregistration unlinked (`unregister_kprobes()`,
//! `unregister_kretprobes()`) and before it frees instruction slots
//! (`collect_garbage_slots()`, an emptied slot page); so does this core by
//! default.  With `kprobes.expedited_gp=1` (a boot parameter, also writable
//! at run time in `/sys/module/kprobes/parameters/expedited_gp`; its
//! default is `CONFIG_KPROBES_RUST_EXPEDITED_GP`) it waits with
//! `synchronize_rcu_expedited()` instead.  The guarantee is the same: every
//! RCU read-side section and every preempt- or irq-disabled region that was
//! running when the wait began has ended, so no CPU still runs a handler of
//! an unlinked probe or executes a freed slot.  An expedited grace period
//! reaches it by interrupting the CPUs that run kernel code (an IPI each)
//! instead of waiting for their next quiescent state, which takes ticks
//! (`gp_synchronize_rcu` against `gp_synchronize_rcu_expedited`); that
//! wait is most of the cost of unregistering probes one by one, as
//! `kprobe_events` does (`unreg_int3_one_1000`, its normal and kexp
//! columns), and the expedited one is paid with IPIs on the other CPUs
//! (the `cost4_*` rows).  It is a policy upstream could adopt as well;
//! `rcupdate.rcu_normal=1` turns every expedited grace period of the kernel
//! back into a normal one.

use crate::sys;
use core::sync::atomic::{AtomicBool, Ordering};

/// `kprobes.expedited_gp`: the C shim's `module_param_named()` points at it
/// (the parameter code writes it as a plain `bool`).
#[no_mangle]
pub static mut kprobes_expedited_gp: bool = cfg!(CONFIG_KPROBES_RUST_EXPEDITED_GP);

fn flag() -> &'static AtomicBool {
    // SAFETY: a static, so valid and aligned (a `bool`'s alignment is an
    // `AtomicBool`'s) for the program's life.  Rust reaches it only through
    // this atomic view; the parameter code writes it from C, a single byte
    // store that a racing load sees whole, old or new (as READ_ONCE()).
    unsafe { AtomicBool::from_ptr(&raw mut kprobes_expedited_gp) }
}

/// Whether unregistration waits with an expedited grace period.
pub fn expedited() -> bool {
    flag().load(Ordering::Relaxed)
}

/// Sets `kprobes.expedited_gp` (the host tests; the kernel sets it through
/// the parameter).
#[cfg(not(CONFIG_RUST))]
pub fn set_expedited(on: bool) {
    flag().store(on, Ordering::Relaxed)
}

/// The grace period of unregistration and of freeing instruction slots:
/// `synchronize_rcu()`, or `synchronize_rcu_expedited()` with
/// `kprobes.expedited_gp=1`.  Sleeps.
pub fn synchronize_unregister() {
    if expedited() {
        sys::synchronize_rcu_expedited()
    } else {
        sys::synchronize_rcu()
    }
}
