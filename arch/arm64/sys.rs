// SPDX-License-Identifier: GPL-2.0

//! The arm64 part of the kernel services (the crate's `arch_sys`, which
//! `sys_kernel.rs` re-exports): `current`, the per-CPU writes of the
//! handler paths, the return address of a kretprobe's frame and the entry
//! arguments of the jprobes.  arm64 has no OPTPROBES: the core's
//! `opt_none.rs` needs no optimizer hooks.

use crate::ffi::{c_int, c_uint, c_ulong};
use crate::types::{Kprobe, KretprobeBlackpoint, PreemptOff, PtRegs};
use core::ptr::{addr_of, addr_of_mut};
use kernel::bindings as b;

/// `current` (`get_current()`: SP_EL0 holds it at EL1, and at EL2 with VHE).
#[inline(always)]
pub fn current_task() -> *mut b::task_struct {
    let t: *mut b::task_struct;
    // SAFETY: reads SP_EL0 into a register; no memory is accessed and no
    // flag changed.
    unsafe {
        core::arch::asm!(
            "mrs {t}, sp_el0",
            t = out(reg) t,
            options(nomem, nostack, preserves_flags)
        )
    };
    t
}

// Per-CPU accesses on the handler paths.  C's `__this_cpu_write()` adds
// the CPU's offset, `__kern_my_cpu_offset()` (asm/percpu.h): TPIDR_EL1, or
// TPIDR_EL2 when the kernel runs at EL2 with VHE, an alternative
// (asm/alternative-macros.h) that `apply_boot_alternatives()` patches at
// boot.  `my_cpu_offset()` emits the same instruction and the same
// `.altinstructions` entry.  With preemption disabled (every caller's
// context: the kprobe, ftrace and kretprobe trampoline handlers) the offset
// names this CPU's copy.

/// `__kern_my_cpu_offset()`: this CPU's per-CPU offset.
#[cfg(CONFIG_SMP)]
#[inline(always)]
fn my_cpu_offset() -> usize {
    let off: usize;
    // The `.altinstructions` entry is `ALTINSTR_ENTRY()`'s `struct
    // alt_instr` (s32 orig_offset, s32 alt_offset, u16 cpucap, u8 orig_len,
    // u8 alt_len), the replacement in subsection 1 as
    // `__ALTERNATIVE_CFG()` puts it, both one instruction (the `.org`s are
    // the macro's length checks).  `pure` and `readonly` let the value be
    // reused, as C's fake stack read does, but never across a compiler
    // barrier (`preempt_enable()`).
    //
    // SAFETY: reads TPIDR_EL1 (TPIDR_EL2 once the boot alternatives ran on
    // a CPU with VHE), where the kernel keeps this CPU's offset
    // (`set_my_cpu_offset()`); no memory is accessed and no flag changed.
    unsafe {
        core::arch::asm!(
            "661:",
            "mrs {off}, tpidr_el1",
            "662:",
            ".pushsection .altinstructions, \"a\"",
            ".word 661b - .",
            ".word 663f - .",
            ".hword {cap}",
            ".byte 662b - 661b",
            ".byte 664f - 663f",
            ".popsection",
            ".subsection 1",
            "663:",
            "mrs {off}, tpidr_el2",
            "664:",
            ".org . - (664b - 663b) + (662b - 661b)",
            ".org . - (662b - 661b) + (664b - 663b)",
            ".previous",
            off = out(reg) off,
            cap = const b::ARM64_HAS_VIRT_HOST_EXTN,
            options(pure, readonly, nostack, preserves_flags)
        )
    };
    off
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
    // The `as` casts rather than `with_exposed_provenance` keep to the
    // kernel's minimum rustc (1.78).
    #[cfg(CONFIG_SMP)]
    return ((var as usize).wrapping_add(my_cpu_offset())) as *mut T;
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
    // SAFETY: `current_kprobe` is arm64's per-CPU `struct kprobe *`, and
    // `_po` proves preemption disabled, as for `set_kprobe_instance()`.
    unsafe {
        this_cpu_ptr(addr_of_mut!(b::current_kprobe))
            .cast::<*mut Kprobe>()
            .write_volatile(p)
    }
}

/// `__this_cpu_read(current_kprobe)` (`kprobe_running()`).
#[inline(always)]
pub fn kprobe_running(_po: PreemptOff<'_>) -> *mut Kprobe {
    // SAFETY: as for `set_current_kprobe()`: a read of this CPU's copy.
    unsafe {
        this_cpu_ptr(addr_of_mut!(b::current_kprobe))
            .cast::<*mut Kprobe>()
            .read_volatile()
    }
}

/// `get_kprobe_ctlblk()->kprobe_status = status` (an `unsigned int` on
/// arm64).
#[inline(always)]
pub fn set_kprobe_status(_po: PreemptOff<'_>, status: c_ulong) {
    // SAFETY: `kprobe_ctlblk` is arm64's per-CPU control block, and `_po`
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

/// `instruction_pointer_set(regs, val)`.
///
/// # Safety
/// `regs` is the live register frame of the trap being handled on this CPU.
#[inline(always)]
pub unsafe fn instruction_pointer_set(regs: *mut PtRegs, val: usize) {
    // SAFETY: `regs` is live and this CPU's (this function's `# Safety`);
    // `pc` is written through a raw pointer.
    unsafe { addr_of_mut!((*regs).__bindgen_anon_1.__bindgen_anon_1.pc).write(val as u64) }
}

/// A jprobe's `entry`: the probed function's prototype, with the eight
/// argument registers of AAPCS64 (x0-x7).
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
type JprobeEntry =
    unsafe extern "C" fn(c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong);

/// Calls a jprobe's `entry` with the argument registers (x0-x7) of the
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
    // no one else during it (this function's `# Safety`).
    let r = unsafe { addr_of!((*regs).__bindgen_anon_1.__bindgen_anon_1.regs).read() }
        .map(|x| x as c_ulong);
    // SAFETY: a C function pointer and `JprobeEntry` have the same size;
    // AAPCS64 passes the first eight integer arguments in x0-x7, and `entry`
    // has the probed function's prototype with all its arguments in
    // registers (this function's `# Safety`).
    unsafe {
        let f = core::mem::transmute::<*mut crate::ffi::c_void, JprobeEntry>(entry);
        f(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    }
}

/// The arch's `kretprobe_blacklist`: none on arm64
/// (`kretprobe_blacklist_size` is the constant 0, and there is no table).
#[inline]
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    core::ptr::null_mut()
}

/// `raw_smp_processor_id()`: `current_thread_info()->cpu` in 6.12
/// (asm/smp.h).  The caller keeps the task on this CPU (interrupts or
/// preemption disabled) for as long as the id must stay its own.
#[inline(always)]
pub fn raw_smp_processor_id() -> c_int {
    // SAFETY: `current` is the running task, live while it runs; its
    // `thread_info.cpu` is written by the scheduler when it moves the task,
    // read here as C's plain load.
    unsafe { addr_of!((*current_task()).thread_info.cpu).read() as c_int }
}

/// `arch_local_irq_save()`: without `CONFIG_ARM64_PSEUDO_NMI`,
/// `__daif_local_irq_save()` (DAIF read, then IRQ and FIQ masked).  With
/// it the kernel picks DAIF or the GIC's priority mask at boot (a static
/// branch on the cpucap and the priority-mask sequence, left to C): the
/// arm64 shim's `raw_local_irq_save()` (arch/arm64/shim.c).
#[inline(always)]
pub fn arch_local_irq_save() -> c_ulong {
    #[cfg(not(CONFIG_ARM64_PSEUDO_NMI))]
    {
        let flags: c_ulong;
        // SAFETY: reads DAIF and masks IRQ and FIQ on this CPU, as
        // `__daif_local_irq_save()`; the asm is a compiler barrier (no
        // `nomem`), as C's `barrier()` around it.
        unsafe {
            core::arch::asm!(
                "mrs {f}, daif",
                "msr daifset, #3",
                f = out(reg) flags,
                options(nostack, preserves_flags)
            )
        };
        flags
    }
    #[cfg(CONFIG_ARM64_PSEUDO_NMI)]
    // SAFETY: the shim's `raw_local_irq_save()`, for any context.
    unsafe {
        kprobes_rust_raw_local_irq_save()
    }
}

/// `arch_local_irq_restore(flags)` (`__daif_local_irq_restore()`, or the
/// shim's `raw_local_irq_restore()` with `CONFIG_ARM64_PSEUDO_NMI`).
///
/// # Safety
/// `flags` is what [`arch_local_irq_save`] returned on this CPU, and the
/// interrupts it masked are unmasked by nothing else meanwhile.
#[inline(always)]
pub unsafe fn arch_local_irq_restore(flags: c_ulong) {
    #[cfg(not(CONFIG_ARM64_PSEUDO_NMI))]
    // SAFETY: writes back the DAIF saved on this CPU (this function's
    // `# Safety`); a compiler barrier, as C's.
    unsafe {
        core::arch::asm!("msr daif, {f}", f = in(reg) flags, options(nostack, preserves_flags))
    };
    #[cfg(CONFIG_ARM64_PSEUDO_NMI)]
    // SAFETY: the flags of the shim's save on this CPU (this function's
    // `# Safety`).
    unsafe {
        kprobes_rust_raw_local_irq_restore(flags)
    };
}

// arm64's C glue (arch/arm64/shim.c, prototypes in shim.h).
#[cfg(CONFIG_ARM64_PSEUDO_NMI)]
extern "C" {
    fn kprobes_rust_raw_local_irq_save() -> c_ulong;
    fn kprobes_rust_raw_local_irq_restore(flags: c_ulong);
}
