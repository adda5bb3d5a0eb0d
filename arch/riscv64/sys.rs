// SPDX-License-Identifier: GPL-2.0

//! The riscv64 part of the kernel services (the crate's `arch_sys`, which
//! `sys_kernel.rs` re-exports): the per-CPU writes of the handler paths
//! and the entry arguments of the jprobes.  riscv64 has no OPTPROBES (the
//! core's `opt_none.rs` needs no optimizer hooks) and its kretprobes go
//! through rethook (no objpool of the core's own).

use crate::ffi::{c_uint, c_ulong};
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
use crate::types::PtRegs;
use crate::types::{Kprobe, KretprobeBlackpoint, PreemptOff};
#[cfg(CONFIG_SMP)]
use core::ptr::addr_of;
use core::ptr::addr_of_mut;
use kernel::bindings as b;

/// Where `current_thread_info()->cpu` is: `thread_info` is the start of
/// the task (THREAD_INFO_IN_TASK), and `current` is in `tp` (asm/current.h).
#[cfg(CONFIG_SMP)]
const CPU_OFFSET: usize =
    core::mem::offset_of!(b::task_struct, thread_info) + core::mem::offset_of!(b::thread_info, cpu);

// Per-CPU accesses on the handler paths.  riscv has the generic per-CPU
// offsets (asm-generic/percpu.h): `__my_cpu_offset` is
// `__per_cpu_offset[raw_smp_processor_id()]`, and the CPU number is
// `current_thread_info()->cpu` (asm/smp.h).  With preemption disabled
// (every caller's context: the kprobe and kretprobe handlers) the task
// stays on this CPU, so the offset names this CPU's copy.

/// `__my_cpu_offset`: this CPU's per-CPU offset.
///
/// # Safety
/// Preemption is disabled.
#[cfg(CONFIG_SMP)]
#[inline(always)]
unsafe fn my_cpu_offset() -> usize {
    let cpu: usize;
    // `lwu` zero-extends the `int` (a CPU number is not negative), so the
    // index needs no extension of its own.  `pure` and `readonly` let the
    // value be reused as C's plain load of the field is, but never across a
    // compiler barrier (`preempt_enable()`).
    //
    // SAFETY: loads `current->thread_info.cpu` (`tp` holds `current` in the
    // kernel, live while it runs), a field the scheduler writes only when
    // the task moves, which it cannot while preemption is disabled.
    unsafe {
        core::arch::asm!(
            "lwu {cpu}, {off}(tp)",
            cpu = out(reg) cpu,
            off = const CPU_OFFSET,
            options(pure, readonly, nostack, preserves_flags)
        )
    };
    // SAFETY: `cpu` is a possible CPU's number, below NR_CPUS, the length of
    // `__per_cpu_offset`, which setup_per_cpu_areas() filled at boot and
    // nothing writes since.
    unsafe {
        addr_of!(b::__per_cpu_offset)
            .cast::<c_ulong>()
            .add(cpu)
            .read() as usize
    }
}

/// `this_cpu_ptr(var)`: this CPU's copy of the per-CPU variable `var`.
///
/// # Safety
/// Preemption is disabled; `var` is a per-CPU variable.
#[inline(always)]
unsafe fn this_cpu_ptr<T>(var: *mut T) -> *mut T {
    // Another CPU's copy lies outside the object `var` points to, so the
    // pointer is made from the address (as C's `this_cpu_ptr()` does),
    // which takes the provenance of the per-CPU area the kernel exposed,
    // not `var`'s (an offset of `var` itself would be out of its bounds).
    // SAFETY: preemption is disabled (this function's `# Safety`).
    #[cfg(CONFIG_SMP)]
    return ((var as usize).wrapping_add(unsafe { my_cpu_offset() })) as *mut T;
    #[cfg(not(CONFIG_SMP))]
    var
}

extern "C" {
    /// The shim's `DEFINE_PER_CPU(struct kprobe *, kprobe_instance)`.
    static mut kprobe_instance: *mut Kprobe;
}

/// `__this_cpu_write(kprobe_instance, kp)`.
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "stores the pointer value, never dereferences it"
)]
pub fn set_kprobe_instance(_po: PreemptOff<'_>, kp: *mut Kprobe) {
    // SAFETY: `kprobe_instance` is a per-CPU variable and `_po` proves
    // preemption disabled, so this CPU's copy is ours, as for
    // `__this_cpu_write()`.
    unsafe { this_cpu_ptr(addr_of_mut!(kprobe_instance)).write_volatile(kp) }
}

/// `__this_cpu_write(current_kprobe, p)`.
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "stores the pointer value, never dereferences it"
)]
pub fn set_current_kprobe(_po: PreemptOff<'_>, p: *mut Kprobe) {
    // SAFETY: `current_kprobe` is the per-CPU `struct kprobe *` of riscv's
    // kprobes.c, and `_po` proves preemption disabled, as for
    // `set_kprobe_instance()`.
    unsafe {
        this_cpu_ptr(addr_of_mut!(b::current_kprobe))
            .cast::<*mut Kprobe>()
            .write_volatile(p)
    }
}

/// `get_kprobe_ctlblk()->kprobe_status = status` (an `unsigned int` on
/// riscv).
#[inline(always)]
pub fn set_kprobe_status(_po: PreemptOff<'_>, status: c_ulong) {
    // SAFETY: `kprobe_ctlblk` is riscv's per-CPU control block, and `_po`
    // proves preemption disabled, as for `set_kprobe_instance()`; the
    // status field is written through a raw pointer.
    unsafe {
        let kcb = this_cpu_ptr(addr_of_mut!(b::kprobe_ctlblk));
        addr_of_mut!((*kcb).kprobe_status).write_volatile(status as c_uint)
    }
}

/// `__this_cpu_write(kprobe_instance, NULL)`.
#[inline(always)]
pub fn reset_kprobe_instance(_po: PreemptOff<'_>) {
    set_kprobe_instance(_po, core::ptr::null_mut());
}

/// `__this_cpu_write(current_kprobe, NULL)`.
#[inline(always)]
pub fn clear_current_kprobe(_po: PreemptOff<'_>) {
    set_current_kprobe(_po, core::ptr::null_mut());
}

/// `get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE`.
#[inline(always)]
pub fn set_kprobe_status_hit_active(_po: PreemptOff<'_>) {
    set_kprobe_status(_po, b::KPROBE_HIT_ACTIVE as c_ulong);
}

/// A jprobe's `entry`: the probed function's prototype, with the eight
/// integer argument registers of the riscv psABI (a0-a7).
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
type JprobeEntry =
    unsafe extern "C" fn(c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong);

/// Where `struct pt_regs` keeps a0-a7: right after s1 and right before s2
/// (one `struct_group(a_regs, ...)` on mainline, eight fields on 6.12;
/// the offsets of the neighbours are the same on both trees, and bindgen
/// names them alike).
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
const A_REGS: usize = core::mem::offset_of!(PtRegs, s1) + core::mem::size_of::<c_ulong>();
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
const _: () =
    assert!(core::mem::offset_of!(PtRegs, s2) == A_REGS + 8 * core::mem::size_of::<c_ulong>());

/// Calls a jprobe's `entry` with the argument registers (a0-a7) of the
/// function at whose entry `regs` was saved (`rust-core/jprobe.rs`).
///
/// # Safety
/// `regs` is the register frame of the hit being handled on this CPU;
/// `entry` is a function with the probed function's prototype whose
/// arguments are all in registers.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
#[inline(always)]
pub unsafe fn jprobe_call(entry: *mut crate::ffi::c_void, regs: *const PtRegs) {
    // SAFETY: the frame is this CPU's, live for the handler and written by
    // no one else during it (this function's `# Safety`); a0-a7 are eight
    // aligned `unsigned long`s at `A_REGS` (asserted above).
    let a = unsafe { regs.cast::<u8>().add(A_REGS).cast::<[c_ulong; 8]>().read() };
    // SAFETY: a C function pointer and `JprobeEntry` have the same size; the
    // riscv psABI passes the first eight integer arguments in a0-a7, and
    // `entry` has the probed function's prototype with all its arguments in
    // registers (this function's `# Safety`).
    unsafe {
        let f = core::mem::transmute::<*mut crate::ffi::c_void, JprobeEntry>(entry);
        f(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    }
}

/// The arch's `kretprobe_blacklist`: none on riscv
/// (`kretprobe_blacklist_size` is the constant 0, and there is no table).
#[inline]
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    core::ptr::null_mut()
}
