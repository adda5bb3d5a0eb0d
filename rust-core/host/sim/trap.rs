// SPDX-License-Identifier: GPL-2.0

//! arch.c's trap paths (MODEL.md section 2, "Executing location A"): what
//! executing an address does with the text model of
//! [`Image::as_model`](super::Image::as_model) (an int3, an optimized
//! jump, an ftrace site), and x86's handlers that run the probes:
//! `kprobe_int3_handler()`, `optimized_callback()` and
//! `kprobe_ftrace_handler()`. The handlers reach the core through its C
//! symbols (`get_kprobe()`, `kprobes_inc_nmissed_count()`,
//! `opt_pre_handler()`, `kprobe_ftrace_disabled`), as x86's code does.

use super::cpu::{
    cpu, current_kprobe, kprobe_status, preempt_disable, preempt_enable, set_current_kprobe,
    set_kprobe_status,
};
use super::ftrace::{ftrace_location, ftrace_match, ops_name};
use super::kernel_text::{int3_at, jump_over};
use super::link;
use super::text::arch;
use super::trace::{ev, hd_fatal, hd_sym};
use super::{PtRegs, KPROBE_HIT_ACTIVE, KPROBE_HIT_SS, KPROBE_HIT_SSDONE};
use crate::ffi::c_ulong;
use crate::types::{Kprobe, OptimizedKprobe, PreemptOff, KPROBE_FLAG_DISABLED, KPROBE_FLAG_GONE};

/// `kprobe_disabled(p)`: DISABLED or GONE.
///
/// # Safety
/// `p` is live.
pub(super) unsafe fn disabled(p: *const Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`); the flags are read
    // through the raw pointer.
    let flags = unsafe { core::ptr::read_volatile(&raw const (*p).flags) };
    flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE) != 0
}

/// `kprobe_running()`.
fn running() -> bool {
    !current_kprobe().is_null()
}

/// `__this_cpu_write(current_kprobe, p)`, called only between this file's
/// `preempt_disable()` and `preempt_enable()`.
fn set_current(p: *mut Kprobe) {
    // SAFETY: every caller is a trap path of this file that has disabled
    // preemption and enables it after its last per-CPU write.
    set_current_kprobe(unsafe { PreemptOff::assume() }, p);
}

/// `kcb->kprobe_status = status`, called as [`set_current`].
fn set_status(status: c_ulong) {
    // SAFETY: as in `set_current()`.
    set_kprobe_status(unsafe { PreemptOff::assume() }, status);
}

/// `get_kprobe(a)`, with preemption disabled (the caller's).
fn get_kprobe(a: usize) -> *mut Kprobe {
    // SAFETY: the core's lookup, called with preemption disabled as the
    // trap paths do.
    unsafe { link::get_kprobe(a as *mut _) }
}

/// `kprobes_inc_nmissed_count(p)`.
///
/// # Safety
/// `p` is a live probe found by `get_kprobe()`, preemption disabled.
unsafe fn inc_nmissed(p: *mut Kprobe) {
    // SAFETY: handler context with `p` live (this function's `# Safety`),
    // as the core's function requires.
    unsafe { link::kprobes_inc_nmissed_count(p) }
}

/// The probe's handlers as x86 runs them after a hit: `pre_handler`, then,
/// unless it returned non-zero, `post_handler` (status SSDONE first).
///
/// # Safety
/// `p` is a live probe found by `get_kprobe()` and `current_kprobe`,
/// preemption disabled; `regs` is valid.
unsafe fn run_handlers(p: *mut Kprobe, regs: *mut PtRegs) {
    // SAFETY: `p` is live (this function's `# Safety`); its handlers are
    // read through the raw pointer and called in handler context, as the
    // core expects of x86.
    unsafe {
        let pre = (*p).pre_handler;
        if pre.is_none_or(|f| f(p, regs) == 0) {
            if let Some(post) = (*p).post_handler {
                set_status(KPROBE_HIT_SSDONE);
                post(p, regs, 0);
            }
        }
    }
}

/// x86's `kprobe_int3_handler()` for the int3 at `a`.
fn int3_handler(a: usize, regs: *mut PtRegs) {
    preempt_disable();
    let p = get_kprobe(a);
    if p.is_null() {
        ev(format!("!int3 without kprobe {}", hd_sym(a)));
    } else if running() {
        match kprobe_status() {
            // SAFETY: `p` was found by `get_kprobe()` with preemption
            // disabled.
            KPROBE_HIT_SSDONE | KPROBE_HIT_ACTIVE | KPROBE_HIT_SS => unsafe { inc_nmissed(p) },
            _ => hd_fatal(format_args!("Unrecoverable kprobe detected")),
        }
    } else {
        set_current(p);
        set_status(KPROBE_HIT_ACTIVE);
        // The single step, then `kprobe_post_process()`: x86 sets SSDONE
        // before a post_handler; without one the status stays ACTIVE here,
        // which nothing reads before `reset_current_kprobe()`.
        // SAFETY: `p` was found by `get_kprobe()` with preemption disabled,
        // and is `current_kprobe`.
        unsafe { run_handlers(p, regs) };
        set_current(core::ptr::null_mut());
    }
    // SAFETY: ends the `preempt_disable()` section this function began.
    unsafe { preempt_enable() };
}

/// x86's `optimized_callback()` for the jump of `op`.
///
/// # Safety
/// `op` is the live `optimized_kprobe` of a jump in the text.
unsafe fn optimized_callback(op: *mut OptimizedKprobe, regs: *mut PtRegs) {
    // SAFETY: `op` is live (this function's `# Safety`); `kp` is its first
    // field, reached through the raw pointer.
    let kp = unsafe { &raw mut (*op).kp };
    // SAFETY: as above.
    if unsafe { disabled(kp) } {
        return;
    }
    preempt_disable();
    if running() {
        // SAFETY: `kp` is live, preemption disabled.
        unsafe { inc_nmissed(kp) };
    } else {
        // SAFETY: `kp` is live; `regs` is the caller's.
        unsafe { (*regs).ip = (*kp).addr as c_ulong + 1 };
        set_current(kp);
        set_status(KPROBE_HIT_ACTIVE);
        // SAFETY: optprobe handler context with `kp` live and current.
        unsafe { link::opt_pre_handler(kp, regs) };
        set_current(core::ptr::null_mut());
    }
    // SAFETY: ends the `preempt_disable()` section this function began.
    unsafe { preempt_enable() };
}

/// x86's `kprobe_ftrace_handler()` for the ftrace site `ip` (the kprobe
/// ftrace ops' `func`; the trap path calls it for each matching ops).
pub fn kprobe_ftrace_handler(ip: usize) {
    // SAFETY: a read of the core's flag, which may happen any time.
    if unsafe { link::hd_kprobe_ftrace_disabled() } {
        return;
    }
    // `ftrace_test_recursion_trylock()`: one nested level is allowed.
    if cpu(|c| c.ftrace_recursion) >= 2 {
        ev("ftrace recursion".into());
        return;
    }
    cpu(|c| c.ftrace_recursion += 1);
    preempt_disable();
    let p = get_kprobe(ip);
    // SAFETY: `p`, if not null, was found by `get_kprobe()` with preemption
    // disabled.
    if !p.is_null() && !unsafe { disabled(p) } {
        if running() {
            // SAFETY: as above.
            unsafe { inc_nmissed(p) };
        } else {
            let mut regs = PtRegs {
                ip: (ip + 1) as c_ulong,
                ..PtRegs::default()
            };
            set_current(p);
            set_status(KPROBE_HIT_ACTIVE);
            // SAFETY: as above, and `p` is current.
            unsafe { run_handlers(p, &mut regs) };
            set_current(core::ptr::null_mut());
        }
    }
    // SAFETY: ends the `preempt_disable()` section this function began.
    unsafe { preempt_enable() };
    cpu(|c| c.ftrace_recursion -= 1);
}

/// arch.c's `hd_hit()`: execution reaches `a` (the driver's `hit A`, or a
/// handler's call). An int3 at `a` traps (`trap int3 A`, and `!text int3
/// over the jump of S: resumes inside the jump` where it was written over
/// a jump's first byte); else a jump starting at `a` runs its probe (`trap
/// jump A`; inside a jump: `trap none (inside optimized jump of S)`);
/// else at an ftrace site every registered ops whose filter matches calls
/// the handler, most recently registered first (`trap ftrace OPS A`);
/// else `trap none A`. With [`Image::as_model`](super::Image::as_model)
/// (the text model).
pub fn hd_hit(a: usize) {
    let mut regs = PtRegs {
        ip: (a + 1) as c_ulong,
        ..PtRegs::default()
    };
    let j = jump_over(a);
    if int3_at(a).is_some() {
        ev(format!("trap int3 {}", hd_sym(a)));
        if let Some((_, (s, _, _))) = j {
            ev(format!(
                "!text int3 over the jump of {}: resumes inside the jump",
                hd_sym(s)
            ));
        }
        int3_handler(a, &mut regs);
        return;
    }
    if let Some((_, (s, _, op))) = j {
        if s != a {
            ev(format!(
                "trap none (inside optimized jump of {})",
                hd_sym(s)
            ));
            return;
        }
        ev(format!("trap jump {}", hd_sym(a)));
        // SAFETY: the text model's jump records the live `optimized_kprobe`
        // that `arch_optimize_kprobes()` wrote it for; unoptimizing or
        // forgetting the text removes it.
        unsafe { optimized_callback(op as *mut OptimizedKprobe, &mut regs) };
        return;
    }
    let mut trapped = false;
    if ftrace_location(a) == a {
        for ipmodify in arch(|x| x.ftrace_registered.clone()) {
            if !ftrace_match(ipmodify, a) {
                continue;
            }
            ev(format!("trap ftrace {} {}", ops_name(ipmodify), hd_sym(a)));
            trapped = true;
            kprobe_ftrace_handler(a);
        }
    }
    if !trapped {
        ev(format!("trap none {}", hd_sym(a)));
    }
}
