// SPDX-License-Identifier: GPL-2.0

//! arch.c's model of the kernel text, with
//! [`Image::as_model`](super::Image::as_model): the int3 addresses and the
//! optimized jumps the simulated x86 writes, and the anomalies it finds
//! while writing them, as `!text ...` trace lines (MODEL.md section 1,
//! "Text"; they are behaviour, compared by the host differential).
//! Both sets keep arch.c's array order (removal moves the last element
//! into the hole), which `check`'s jump lines show. [`hd_text_armed_note`]
//! is the driver's note of what stays armed while kprobes are off.

use super::cpu::{preempt_disable, preempt_enable};
use super::link;
use super::text::arch;
use super::trace::{ev, hd_fatal, hd_sym};
use super::trap::disabled;
use crate::types::{Kprobe, OptimizedKprobe};

/// arch.c's `HD_MAX_TEXT`: how many int3s (and jumps) the text holds.
const MAX_TEXT: usize = 512;

/// arch.c's `int3_at()`.
pub(super) fn int3_at(a: usize) -> Option<usize> {
    arch(|x| x.int3s.iter().position(|&i| i == a))
}

/// A jump of the text: its address, the bytes it replaces and its
/// `optimized_kprobe` (as an address).
pub(super) type Jump = (usize, usize, usize);

/// arch.c's `jump_over()`: the jump covering `a` (its index and itself).
pub(super) fn jump_over(a: usize) -> Option<(usize, Jump)> {
    arch(|x| {
        x.jumps
            .iter()
            .position(|&(s, n, _)| a >= s && a < s + n)
            .map(|j| (j, x.jumps[j]))
    })
}

/// arch.c's `set_int3()`: `arch_arm_kprobe()`, `arch_unoptimize_kprobe()`.
pub(super) fn set_int3(a: usize) {
    if let Some((_, (s, _, _))) = jump_over(a) {
        let what = if s == a {
            "int3-on-jump"
        } else {
            "int3-in-jump"
        };
        ev(format!("!text {what} {}", hd_sym(a)));
    }
    if int3_at(a).is_some() {
        ev(format!("!text int3-twice {}", hd_sym(a)));
        return;
    }
    if arch(|x| x.int3s.len()) == MAX_TEXT {
        hd_fatal(format_args!("text model full"));
    }
    arch(|x| x.int3s.push(a));
}

/// arch.c's `clear_int3()`.
fn clear_int3(a: usize) {
    match int3_at(a) {
        Some(i) => {
            arch(|x| x.int3s.swap_remove(i));
        }
        None => ev(format!("!text no-int3 {}", hd_sym(a))),
    }
}

/// arch.c's text side of `arch_disarm_kprobe()`.
pub(super) fn disarm(a: usize) {
    if jump_over(a).is_some() {
        ev(format!("!text disarm-in-jump {}", hd_sym(a)));
    }
    clear_int3(a);
}

/// arch.c's text side of `arch_optimize_kprobes()` for the probe at `a`
/// whose jump replaces `size` bytes (`op`: its `optimized_kprobe`).
pub(super) fn optimize(a: usize, size: usize, op: usize) {
    if int3_at(a).is_none() {
        ev(format!("!text optimize-unarmed {}", hd_sym(a)));
    } else {
        clear_int3(a);
    }
    for i in 1..size {
        if int3_at(a + i).is_some() {
            ev(format!("!text optimize-over-int3 {}", hd_sym(a + i)));
        }
    }
    if jump_over(a).is_some() {
        ev(format!("!text optimize-jump-twice {}", hd_sym(a)));
    }
    arch(|x| x.jumps.push((a, size, op)));
}

/// arch.c's text side of `arch_unoptimize_kprobe()`.
pub(super) fn unoptimize(a: usize) {
    match jump_over(a) {
        Some((j, (s, _, _))) if s == a => {
            arch(|x| x.jumps.swap_remove(j));
        }
        _ => ev(format!("!text unoptimize-no-jump {}", hd_sym(a))),
    }
    set_int3(a);
}

/// `hd_text_forget()`: the text in `[start, end)` was freed (module
/// unload, init text freed): its int3s and jumps are dropped.
pub fn hd_text_forget(start: usize, end: usize) {
    arch(|x| {
        let mut i = 0;
        while i < x.int3s.len() {
            if x.int3s[i] >= start && x.int3s[i] < end {
                x.int3s.swap_remove(i);
            } else {
                i += 1;
            }
        }
        let mut j = 0;
        while j < x.jumps.len() {
            if x.jumps[j].0 >= start && x.jumps[j].0 < end {
                x.jumps.swap_remove(j);
            } else {
                j += 1;
            }
        }
    });
}

/// `hd_text_check()`, the text part of the driver's `check`: `text int3 A`
/// for each int3 (sorted), then `text jump A size=N` for each jump (array
/// order).
pub fn hd_text_check() {
    let (mut int3s, jumps) = arch(|x| (x.int3s.clone(), x.jumps.clone()));
    int3s.sort_unstable();
    for a in int3s {
        ev(format!("text int3 {}", hd_sym(a)));
    }
    for (a, n, _) in jumps {
        ev(format!("text jump {} size={n}", hd_sym(a)));
    }
}

/// arch.c's `int3_idle()`: a hit on the int3 at `a` runs no handler, the
/// probe hashed there being a disabled aggregate (all its probes
/// disabled). An int3 without a probe is not idle.
fn int3_idle(a: usize) -> bool {
    preempt_disable();
    // SAFETY: the core's lookup, with preemption disabled.
    let p: *mut Kprobe = unsafe { link::get_kprobe(a as *mut _) };
    // SAFETY: `p`, if not null, is hashed: live while preemption is off.
    let idle = !p.is_null() && unsafe { disabled(p) && link::hd_kprobe_aggrprobe(p) };
    // SAFETY: ends the `preempt_disable()` section above.
    unsafe { preempt_enable() };
    idle
}

/// `hd_text_armed_note()`, the driver's note after a successful write to
/// `kprobes/enabled` that left kprobes globally disabled (MODEL.md section
/// 5, finding 6): `!kprobes/enabled is 0 but the int3 at A stays armed`
/// for each int3 that is not idle (sorted), then `... the jump at A stays
/// armed` for each jump whose probe is not disabled (array order).
pub fn hd_text_armed_note() {
    let (mut int3s, jumps) = arch(|x| (x.int3s.clone(), x.jumps.clone()));
    int3s.sort_unstable();
    for a in int3s {
        if !int3_idle(a) {
            ev(format!(
                "!kprobes/enabled is 0 but the int3 at {} stays armed",
                hd_sym(a)
            ));
        }
    }
    for (a, _, op) in jumps {
        // SAFETY: a jump of the text model keeps the live `optimized_kprobe`
        // it was written for (`kp` is its first field).
        if !unsafe { disabled(&raw const (*(op as *const OptimizedKprobe)).kp) } {
            ev(format!(
                "!kprobes/enabled is 0 but the jump at {} stays armed",
                hd_sym(a)
            ));
        }
    }
}
