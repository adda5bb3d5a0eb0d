// SPDX-License-Identifier: GPL-2.0

//! Kprobes on ftrace: probes at an ftrace location are armed by adding
//! their address to the filter of one of two `ftrace_ops` (the C shim
//! defines them, with the arch's `kprobe_ftrace_handler`): the plain one,
//! or the `IPMODIFY` one for probes with a post_handler (which single-step
//! by changing the IP).  Port of the `CONFIG_KPROBES_ON_FTRACE` part of
//! `kernel/kprobes.c`.
//!
//! One intended divergence from upstream (see
//! `tools/testing/differential/divergences.txt`): upstream picks the ops to
//! disarm an aggregate with from its *current* `post_handler`.  When a
//! probe with a post_handler joins an aggregate that was armed through the
//! plain ops, `post_handler` becomes set without re-arming, and is kept
//! after that probe leaves; disarming then goes to the IPMODIFY ops, whose
//! filter does not have the address: `WARN` "Failed to disarm
//! kprobe-ftrace", the unregister fails silently (the last probe stays in
//! the aggregate and keeps firing after `unregister_kprobe()` returned, a
//! use-after-free once its owner frees it) and the IPMODIFY use count goes
//! negative.  Here an aggregate remembers which ops armed it
//! ([`FLAG_ARMED_IPMODIFY`]) and is disarmed through those.

use crate::error::{to_result, Result};
use crate::locks::KprobeMutex;
use crate::sys;
use crate::probe::{Hashed, Probe};
use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

/// Probes armed through `kprobe_ipmodify_ops` (`kprobe_mutex`).
static IPMODIFY_ENABLED: AtomicI32 = AtomicI32::new(0);
/// Probes armed through `kprobe_ftrace_ops` (`kprobe_mutex`).
static FTRACE_ENABLED: AtomicI32 = AtomicI32::new(0);

/// `kprobe_ftrace_disabled`: set for good by `kprobe_ftrace_kill()` when
/// ftrace dies; read (plainly, as a `bool`) by the arch's ftrace handler.
#[no_mangle]
pub static mut kprobe_ftrace_disabled: bool = false;

fn ftrace_disabled() -> bool {
    // SAFETY: a bool written once (true) by kprobe_ftrace_kill(); a racy
    // read sees either value, as in C.
    unsafe { core::ptr::read_volatile(&raw const kprobe_ftrace_disabled) }
}

/// Private flag of aggregate probes (never set on a caller's probe, never
/// shown): the aggregate is armed through `kprobe_ipmodify_ops`.
pub const FLAG_ARMED_IPMODIFY: u32 = 1 << 31;

fn counter(ipmodify: bool) -> &'static AtomicI32 {
    if ipmodify { &IPMODIFY_ENABLED } else { &FTRACE_ENABLED }
}

/// `__arm_kprobe_ftrace()`.
fn arm_ops(_km: &KprobeMutex, p: Hashed<'_>, ipmodify: bool) -> Result {
    sys::lockdep_assert_held_kprobe_mutex();
    let cnt = counter(ipmodify);
    let addr = p.addr() as usize;
    to_result(sys::ftrace_set_filter_ip(ipmodify, addr, false))?;
    if cnt.load(Relaxed) == 0 {
        if let Err(e) = to_result(sys::register_ftrace_function(ipmodify)) {
            // At this point, since ops is not registered, we should be safe
            // from registering empty filter.
            sys::ftrace_set_filter_ip(ipmodify, addr, true);
            return Err(e);
        }
    }
    cnt.store(cnt.load(Relaxed) + 1, Relaxed);
    Ok(())
}

/// `arm_kprobe_ftrace()`.
pub fn arm_kprobe_ftrace(km: &KprobeMutex, p: Hashed<'_>) -> Result {
    let ipmodify = p.post_handler().is_some();
    arm_ops(km, p, ipmodify)?;
    if p.is_aggr() {
        note_armed_ops(km, p.probe(), ipmodify);
    }
    Ok(())
}

/// Records in aggregate `p` which ops it is armed through.
pub fn note_armed_ops(km: &KprobeMutex, p: Probe<'_>, ipmodify: bool) {
    if ipmodify {
        p.set_flags(km, FLAG_ARMED_IPMODIFY);
    } else {
        p.clear_flags(km, FLAG_ARMED_IPMODIFY);
    }
}

/// The ops `p` is armed through: an aggregate's recorded ones, else by its
/// post_handler (a caller's probe cannot change handlers while registered).
fn armed_ipmodify(p: Probe<'_>) -> bool {
    if p.is_aggr() {
        p.flags() & FLAG_ARMED_IPMODIFY != 0
    } else {
        p.post_handler().is_some()
    }
}

/// `__disarm_kprobe_ftrace()`: `p` is armed.
fn disarm_ops(_km: &KprobeMutex, p: Hashed<'_>, ipmodify: bool) -> Result {
    sys::lockdep_assert_held_kprobe_mutex();
    let cnt = counter(ipmodify);
    if ftrace_disabled() {
        // Now ftrace is disabled forever, disarm is already done.
        return Ok(());
    }
    if cnt.load(Relaxed) == 1 {
        let ret = sys::unregister_ftrace_function(ipmodify);
        if ret < 0 {
            sys::warn_ftrace_unregister(ret);
            return to_result(ret);
        }
    }
    cnt.store(cnt.load(Relaxed) - 1, Relaxed);

    let addr = p.addr();
    let ret = sys::ftrace_set_filter_ip(ipmodify, addr as usize, true);
    if ret < 0 {
        sys::warn_once_ftrace_disarm(addr, ret);
    }
    to_result(ret)
}

/// `disarm_kprobe_ftrace()`: `p` is armed (upstream picks the ops by
/// `p->post_handler != NULL`; see the module documentation).
pub fn disarm_kprobe_ftrace(km: &KprobeMutex, p: Hashed<'_>) -> Result {
    disarm_ops(km, p, armed_ipmodify(p.probe()))
}

/// `kprobe_ftrace_kill()`: ftrace is dead; never touch it again.
pub fn kprobe_ftrace_kill() {
    // SAFETY: see `ftrace_disabled()`.
    unsafe { core::ptr::write_volatile(&raw mut kprobe_ftrace_disabled, true) }
}

/// Resets the counters (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    IPMODIFY_ENABLED.store(0, Relaxed);
    FTRACE_ENABLED.store(0, Relaxed);
    // SAFETY: host tests are serialized.
    unsafe { core::ptr::write_volatile(&raw mut kprobe_ftrace_disabled, false) }
}
