// SPDX-License-Identifier: GPL-2.0

//! Arming and disarming: breakpoints (under `text_mutex` and the CPU
//! hotplug lock, in upstream's order) or ftrace, and the global switch
//! `/sys/kernel/debug/kprobes/enabled`.  Port of that part of
//! `kernel/kprobes.c`.

use crate::error::{to_result, Result};
#[cfg(CONFIG_DEBUG_FS)]
use crate::ffi::c_int;
use crate::ftrace;
use crate::locks::{self, KprobeMutex, TextLocks};
use crate::opt;
use crate::probe::{Hashed, NewProbe, Prepared};
use crate::sys;
// `kprobes/enabled` (debugfs) only.
#[cfg(CONFIG_DEBUG_FS)]
use crate::{registry, state};

/// `prepare_kprobe()`: the arch preparation of a probe about to be hashed
/// (`text_mutex` held: the arch copies the instruction at `p->addr`).
pub fn prepare_kprobe<'k>(_tl: &TextLocks<'_>, p: &NewProbe<'k>) -> Result<Prepared<'k>> {
    let p = p.probe();
    // SAFETY: `p` is live and seen by no other CPU (a `NewProbe`), at an address
    // the registration checked, and `_tl` proves `kprobe_mutex` and `text_mutex`
    // held, as the arch prepares need.
    let ret = unsafe {
        // Must ensure p->addr is really on ftrace.
        if p.ftrace() {
            sys::arch_prepare_kprobe_ftrace(p.as_ptr())
        } else {
            sys::arch_prepare_kprobe(p.as_ptr())
        }
    };
    to_result(ret)?;
    // SAFETY: its arch preparation just succeeded, under `_tl`'s `kprobe_mutex`.
    Ok(unsafe { Prepared::new(p) })
}

/// `arm_kprobe()`.  Inlined (upstream's is a static function the compiler
/// inlines or calls without an ENDBR): a call of its own costs
/// `enable_kprobe()` an ENDBR and a stack frame more than upstream's.
#[inline(always)]
pub fn arm_kprobe(km: &KprobeMutex, kp: Hashed<'_>) -> Result {
    if kp.ftrace() {
        return ftrace::arm_kprobe_ftrace(km, kp);
    }
    opt::arm_kprobe_locked(&locks::text(km), kp);
    Ok(())
}

/// `disarm_kprobe()`: `kp` is armed.  Inlined, as [`arm_kprobe`].
#[inline(always)]
pub fn disarm_kprobe(km: &KprobeMutex, kp: Hashed<'_>, reopt: bool) -> Result {
    if kp.ftrace() {
        return ftrace::disarm_kprobe_ftrace(km, kp);
    }
    opt::disarm_kprobe_locked(&locks::text(km), kp, reopt);
    Ok(())
}

#[cfg(CONFIG_DEBUG_FS)]
/// `arm_all_kprobes()`: `kprobes/enabled` = 1.
pub fn arm_all_kprobes() -> Result {
    let (mut total, mut errors, mut ret) = (0 as c_int, 0 as c_int, Ok(()));
    let km = locks::kprobe_mutex();
    // If kprobes are armed, just return.
    if state::all_disarmed() {
        // optimize_kprobe() called by arm_kprobe() checks
        // kprobes_all_disarmed, so set kprobes_all_disarmed before
        // arm_kprobe.
        state::set_all_disarmed(&km, false);
        // Arming kprobes doesn't optimize kprobe itself; arm all kprobes on
        // a best-effort basis.
        registry::for_each_hashed(&km, |p| {
            if !p.disabled() {
                if let Err(e) = arm_kprobe(&km, p) {
                    errors += 1;
                    ret = Err(e);
                }
                total += 1;
            }
        });
        if errors != 0 {
            crate::kp_pr!(
                warn,
                "Kprobes globally enabled, but failed to enable {errors} out of {total} probes. Please check which kprobes are kept disabled via debugfs.\n"
            );
        } else {
            crate::kp_pr!(info, "Kprobes globally enabled\n");
        }
    }
    ret
}

#[cfg(CONFIG_DEBUG_FS)]
/// `disarm_all_kprobes()`: `kprobes/enabled` = 0.
pub fn disarm_all_kprobes() -> Result {
    let (mut total, mut errors, mut ret) = (0 as c_int, 0 as c_int, Ok(()));
    let km = locks::kprobe_mutex();
    // If kprobes are already disarmed, just return.
    if state::all_disarmed() {
        return Ok(());
    }
    state::set_all_disarmed(&km, true);
    // Disarm all kprobes on a best-effort basis.
    registry::for_each_hashed(&km, |p| {
        // SAFETY: `p` is live (a `Hashed`), all `arch_trampoline_kprobe()` reads.
        if !unsafe { sys::arch_trampoline_kprobe(p.as_ptr()) } && !p.disabled() {
            // Armed: enabled while probes were not all disarmed.
            if let Err(e) = disarm_kprobe(&km, p, false) {
                errors += 1;
                ret = Err(e);
            }
            total += 1;
        }
    });
    if errors != 0 {
        crate::kp_pr!(
            warn,
            "Kprobes globally disabled, but failed to disable {errors} out of {total} probes. Please check which kprobes are kept enabled via debugfs.\n"
        );
    } else {
        crate::kp_pr!(info, "Kprobes globally disabled\n");
    }

    // Wait for disarming all kprobes by optimizer.
    opt::wait_for_kprobe_optimizer_unlock(km);
    ret
}
