// SPDX-License-Identifier: GPL-2.0

//! Arming and disarming: breakpoints (under `text_mutex` and the CPU
//! hotplug lock, in upstream's order) or ftrace, and the global switch
//! `/sys/kernel/debug/kprobes/enabled`.  Port of that part of
//! `kernel/kprobes.c`.

use crate::flags;
use crate::ffi::c_int;
use crate::ftrace;
use crate::locks::{self, KprobeMutex, TextLocks};
use crate::opt;
use crate::sys;
use crate::types::Kprobe;
// `kprobes/enabled` (debugfs) only.
#[cfg(CONFIG_DEBUG_FS)]
use crate::{
    ffi::{c_char, c_void},
    registry, state,
};

/// `prepare_kprobe()`.
///
/// # Safety
/// `p` is live, not hashed.
pub unsafe fn prepare_kprobe(_tl: &TextLocks<'_>, p: *mut Kprobe) -> c_int {
    // SAFETY: `p` is live and not hashed (this function's `# Safety`) and `_tl`
    // proves `kprobe_mutex` and `text_mutex` held, as `flags::ftrace()` and the
    // arch prepares need.
    unsafe {
        // Must ensure p->addr is really on ftrace.
        if flags::ftrace(p) {
            return sys::arch_prepare_kprobe_ftrace(p);
        }
        sys::arch_prepare_kprobe(p)
    }
}

/// `arm_kprobe()`.
///
/// # Safety
/// `kp` is hashed.
pub unsafe fn arm_kprobe(km: &KprobeMutex, kp: *mut Kprobe) -> c_int {
    // SAFETY: `kp` is hashed, so live and prepared (this function's `# Safety`), and
    // `km` proves `kprobe_mutex` held: all `arm_kprobe_ftrace()` needs;
    // `arm_kprobe_locked()` also gets the CPU hotplug lock and `text_mutex`.
    unsafe {
        if flags::ftrace(kp) {
            return ftrace::arm_kprobe_ftrace(km, kp);
        }
        opt::arm_kprobe_locked(&locks::text(km), kp);
    }
    0
}

/// `disarm_kprobe()`.
///
/// # Safety
/// `kp` is hashed and armed.
pub unsafe fn disarm_kprobe(km: &KprobeMutex, kp: *mut Kprobe, reopt: bool) -> c_int {
    // SAFETY: `kp` is hashed and armed (this function's `# Safety`) and `km` proves
    // `kprobe_mutex` held: all `disarm_kprobe_ftrace()` needs;
    // `disarm_kprobe_locked()` also gets the CPU hotplug lock and `text_mutex`.
    unsafe {
        if flags::ftrace(kp) {
            return ftrace::disarm_kprobe_ftrace(km, kp);
        }
        opt::disarm_kprobe_locked(&locks::text(km), kp, reopt);
    }
    0
}

#[cfg(CONFIG_DEBUG_FS)]
/// `arm_all_kprobes()`: `kprobes/enabled` = 1.
pub fn arm_all_kprobes() -> c_int {
    let (mut total, mut errors, mut ret) = (0 as c_int, 0 as c_int, 0);
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
            // SAFETY: `for_each_hashed()` yields hashed (so live) probes, as
            // `flags::disabled()` and `arm_kprobe()` need.
            unsafe {
                if !flags::disabled(p) {
                    let err = arm_kprobe(&km, p);
                    if err != 0 {
                        errors += 1;
                        ret = err;
                    }
                    total += 1;
                }
            }
        });
        if errors != 0 {
            sys::printk_ii(
                c"\x014kprobes: Kprobes globally enabled, but failed to enable %d out of %d probes. Please check which kprobes are kept disabled via debugfs.\n",
                errors,
                total,
            );
        } else {
            sys::printk(c"\x016kprobes: Kprobes globally enabled\n");
        }
    }
    ret
}

#[cfg(CONFIG_DEBUG_FS)]
/// `disarm_all_kprobes()`: `kprobes/enabled` = 0.
pub fn disarm_all_kprobes() -> c_int {
    let (mut total, mut errors, mut ret) = (0 as c_int, 0 as c_int, 0);
    {
        let km = locks::kprobe_mutex();
        // If kprobes are already disarmed, just return.
        if state::all_disarmed() {
            return 0;
        }
        state::set_all_disarmed(&km, true);
        // Disarm all kprobes on a best-effort basis.
        registry::for_each_hashed(&km, |p| {
            // SAFETY: `for_each_hashed()` yields hashed probes, armed if enabled
            // (probes were not all disarmed), as `disarm_kprobe()` needs.
            unsafe {
                if !sys::arch_trampoline_kprobe(p) && !flags::disabled(p) {
                    let err = disarm_kprobe(&km, p, false);
                    if err != 0 {
                        errors += 1;
                        ret = err;
                    }
                    total += 1;
                }
            }
        });
        if errors != 0 {
            sys::printk_ii(
                c"\x014kprobes: Kprobes globally disabled, but failed to disable %d out of %d probes. Please check which kprobes are kept enabled via debugfs.\n",
                errors,
                total,
            );
        } else {
            sys::printk(c"\x016kprobes: Kprobes globally disabled\n");
        }
    }

    // Wait for disarming all kprobes by optimizer.
    opt::wait_for_kprobe_optimizer();
    ret
}

#[cfg(CONFIG_DEBUG_FS)]
/// `read_enabled_file_bool()`: "1\n" or "0\n".
///
/// # Safety
/// `user_buf` is a user buffer of `count` bytes, `ppos` the valid file
/// position (a debugfs `read`).
pub unsafe fn read_enabled_file_bool(user_buf: *mut c_char, count: usize, ppos: *mut crate::types::Loff) -> isize {
    let buf: [u8; 3] = [if state::all_disarmed() { b'0' } else { b'1' }, b'\n', 0];
    // SAFETY: `user_buf` is a user buffer of `count` bytes and `ppos` is valid
    // (this function's `# Safety`); `buf` holds the 2 bytes offered.
    unsafe { sys::simple_read_from_buffer(user_buf.cast(), count, ppos, buf.as_ptr().cast::<c_void>(), 2) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `write_enabled_file_bool()`.
///
/// # Safety
/// `user_buf` is a user buffer of `count` bytes (a debugfs `write`).
pub unsafe fn write_enabled_file_bool(user_buf: *const c_char, count: usize) -> isize {
    let mut enable = false;
    // SAFETY: `user_buf` is a user buffer of `count` bytes (this function's
    // `# Safety`), as `kstrtobool_from_user()` requires.
    let ret = unsafe { sys::kstrtobool_from_user(user_buf, count, &mut enable) };
    if ret != 0 {
        return ret as isize;
    }
    let ret = if enable { arm_all_kprobes() } else { disarm_all_kprobes() };
    if ret != 0 {
        return ret as isize;
    }
    count as isize
}
