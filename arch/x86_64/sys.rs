// SPDX-License-Identifier: GPL-2.0

//! The x86_64 part of the kernel services (the crate's `arch_sys`, which
//! `sys_kernel.rs` re-exports): the per-CPU writes of the handler paths,
//! the entry arguments of the jprobes, and what the optimizer reads of
//! x86's `struct arch_optimized_insn`.

use crate::ffi::c_ulong;
#[cfg(CONFIG_OPTPROBES)]
use crate::types::OptimizedKprobe;
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
use crate::types::PtRegs;
use crate::types::{Kprobe, KretprobeBlackpoint, PreemptOff};
use kernel::bindings as b;

/// `MAX_OPTIMIZED_LENGTH` (x86: `MAX_INSN_SIZE + DISP32_SIZE`).
#[cfg(CONFIG_OPTPROBES)]
pub const MAX_OPTIMIZED_LENGTH: usize = b::MAX_INSN_SIZE as usize + b::DISP32_SIZE as usize;

/// `arch_prepared_optinsn(&op->optinsn)`.
///
/// # Safety
/// `op` is live.
#[cfg(CONFIG_OPTPROBES)]
#[inline]
pub unsafe fn arch_prepared_optinsn(op: *mut OptimizedKprobe) -> bool {
    // x86's arch_prepared_optinsn() is a static inline (asm/kprobes.h):
    // `return optinsn->size;`.  Written out here rather than called through
    // a wrapper: it is on the path of every arm and disarm.
    // SAFETY: `op` is live (this function's `# Safety`); `size` is read through
    // a raw pointer (no reference), and it changes only under
    // `kprobe_mutex`, in the arch's prepare and remove.
    unsafe { core::ptr::addr_of!((*op).optinsn.size).read() != 0 }
}

// Per-CPU writes on the handler paths, as the C macros compile them on
// x86_64 (6.12: zero-based per-CPU symbols addressed through %gs): one
// `mov` each, no call.  Rust in 6.12 has no per-CPU API; the variables are
// C's (`current_kprobe`, `kprobe_ctlblk` of arch/x86/kernel/kprobes/core.c,
// `kprobe_instance` of the shim).
extern "C" {
    /// The shim's `DEFINE_PER_CPU(struct kprobe *, kprobe_instance)`.
    static mut kprobe_instance: *mut Kprobe;
}

// The per-CPU operand: `%gs:sym` with SMP (zero-based per-CPU symbols);
// without SMP a per-CPU variable is an ordinary one (`__percpu_prefix` is
// empty in C), addressed RIP-relative.
#[cfg(CONFIG_SMP)]
macro_rules! percpu_operand {
    () => {
        "%gs:{s}"
    };
}
#[cfg(not(CONFIG_SMP))]
macro_rules! percpu_operand {
    () => {
        "{s}(%rip)"
    };
}

macro_rules! this_cpu_write_ulong {
    ($var:path, $val:expr) => {
        // SAFETY: `$var` is a per-CPU variable of 8 bytes (asserted below for
        // the struct member); with SMP %gs points at this CPU's per-CPU area;
        // the callers run with preemption disabled, as `__this_cpu_write()`
        // requires.
        unsafe {
            core::arch::asm!(
                concat!("movq {v}, ", percpu_operand!()),
                s = sym $var,
                v = in(reg) $val,
                options(att_syntax, nostack, preserves_flags)
            )
        }
    };
}

macro_rules! this_cpu_write_ulong_const {
    ($var:path, $val:expr) => {
        // SAFETY: as for `this_cpu_write_ulong!`; an immediate operand, as
        // the C compiler emits for constants.
        unsafe {
            core::arch::asm!(
                concat!("movq ${v}, ", percpu_operand!()),
                s = sym $var,
                v = const $val,
                options(att_syntax, nostack, preserves_flags)
            )
        }
    };
}

const _: () = assert!(core::mem::offset_of!(b::kprobe_ctlblk, kprobe_status) == 0);
const _: () = assert!(core::mem::size_of::<c_ulong>() == 8);

/// `__this_cpu_write(kprobe_instance, kp)`.
#[inline(always)]
pub fn set_kprobe_instance(_po: PreemptOff<'_>, kp: *mut Kprobe) {
    this_cpu_write_ulong!(kprobe_instance, kp as usize);
}

/// `__this_cpu_write(current_kprobe, p)`.
#[inline(always)]
pub fn set_current_kprobe(_po: PreemptOff<'_>, p: *mut Kprobe) {
    this_cpu_write_ulong!(b::current_kprobe, p as usize);
}

/// `get_kprobe_ctlblk()->kprobe_status = status`.
#[inline(always)]
pub fn set_kprobe_status(_po: PreemptOff<'_>, status: c_ulong) {
    this_cpu_write_ulong!(b::kprobe_ctlblk, status);
}

/// `__this_cpu_write(kprobe_instance, NULL)` (`reset_kprobe_instance()`).
#[inline(always)]
pub fn reset_kprobe_instance(_po: PreemptOff<'_>) {
    this_cpu_write_ulong_const!(kprobe_instance, 0);
}

/// `__this_cpu_write(current_kprobe, NULL)`.
#[inline(always)]
pub fn clear_current_kprobe(_po: PreemptOff<'_>) {
    this_cpu_write_ulong_const!(b::current_kprobe, 0);
}

/// `get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE`.
#[inline(always)]
pub fn set_kprobe_status_hit_active(_po: PreemptOff<'_>) {
    this_cpu_write_ulong_const!(b::kprobe_ctlblk, b::KPROBE_HIT_ACTIVE);
}

/// The argument registers of the function at whose entry `regs` was
/// saved, in the calling convention's order (x86-64: rdi, rsi, rdx, rcx,
/// r8, r9), for the jprobes' handler.
///
/// # Safety
/// `regs` is the register frame of the hit being handled on this CPU.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
#[inline(always)]
unsafe fn entry_args(regs: *const PtRegs) -> [c_ulong; 6] {
    // SAFETY: the frame is this CPU's, live for the handler and written by no
    // one else during it (this function's `# Safety`); the fields are aligned.
    unsafe {
        [
            core::ptr::addr_of!((*regs).di).read(),
            core::ptr::addr_of!((*regs).si).read(),
            core::ptr::addr_of!((*regs).dx).read(),
            core::ptr::addr_of!((*regs).cx).read(),
            core::ptr::addr_of!((*regs).r8).read(),
            core::ptr::addr_of!((*regs).r9).read(),
        ]
    }
}

/// A jprobe's `entry`: the probed function's prototype, with the six
/// argument registers of x86-64.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
type JprobeEntry = unsafe extern "C" fn(c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong);

/// Calls a jprobe's `entry` with the argument registers of the function at
/// whose entry `regs` was saved (`rust-core/jprobe.rs`).
///
/// # Safety
/// `regs` is the register frame of the hit being handled on this CPU;
/// `entry` is a function with the probed function's prototype whose
/// arguments are all in registers.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
#[inline(always)]
pub unsafe fn jprobe_call(entry: *mut crate::ffi::c_void, regs: *const PtRegs) {
    // SAFETY: `regs` is this hit's register frame (this function's `# Safety`).
    let a = unsafe { entry_args(regs) };
    // SAFETY: a C function pointer and `JprobeEntry` have the same size; the
    // C calling convention passes the register arguments in these registers,
    // and `entry` has the probed function's prototype with all its
    // arguments in registers (this function's `# Safety`).
    unsafe {
        let f = core::mem::transmute::<*mut crate::ffi::c_void, JprobeEntry>(entry);
        f(a[0], a[1], a[2], a[3], a[4], a[5]);
    }
}

/// The arch's `kretprobe_blacklist` (null-name terminated), or null if it
/// is empty (`kretprobe_blacklist_size == 0`).
#[inline]
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    // SAFETY: immutable arch data.
    if unsafe { b::kretprobe_blacklist_size } == 0 {
        return core::ptr::null_mut();
    }
    (&raw mut b::kretprobe_blacklist).cast()
}
