// SPDX-License-Identifier: GPL-2.0

//! The kernel's own types that the core embeds or only passes through,
//! host differential build (`cfg(KP_MODEL)`): the C definitions of the
//! simulated kernel (`tools/testing/hostdiff/include/kstub.h`), which
//! `model.c` and `arch.c` are compiled with.  `ktypes_kernel.rs` is the
//! kernel build's twin (bindgen's definitions).
//!
//! The layouts are checked on both sides against the same numbers: the
//! const assertions below (Rust), and `tools/testing/hostdiff/rlayout.c`
//! (C `_Static_assert`s on the stub definitions, and on rust-core's view of
//! the shared structs, `c-shim/kprobes_rust_layout.h`), so neither side can
//! change alone.

use crate::ctypes::{KprobeOpcode, RcuHead};
use crate::ffi::{c_char, c_int, c_uint, c_ulong};
use core::mem::{offset_of, size_of};

/// `struct mutex` of the model: `{ int locked; const char *name; }`.
#[repr(C)]
pub struct Mutex {
    /// Held?
    pub locked: c_int,
    /// The name in `hd_fatal()` messages.
    pub name: *const c_char,
}

/// `struct pt_regs` of the model: `{ unsigned long ip, sp; }`.
#[repr(C)]
pub struct PtRegs {
    /// Instruction pointer.
    pub ip: c_ulong,
    /// Stack pointer.
    pub sp: c_ulong,
}

/// `struct arch_specific_insn` of the model: `{ kprobe_opcode_t *insn;
/// unsigned boostable:1; }`.
#[repr(C)]
pub struct ArchSpecificInsn {
    /// The slot holding the copied instruction.
    pub insn: *mut KprobeOpcode,
    /// The unit holding the one-bit field `boostable` (only arch.c reads it).
    pub bits: c_uint,
}

/// `struct arch_optimized_insn` (x86's layout).
#[repr(C)]
pub struct ArchOptimizedInsn {
    /// Copy of the original instructions.
    pub copied_insn: [KprobeOpcode; 4],
    /// Detour code buffer.
    pub insn: *mut KprobeOpcode,
    /// Size of instructions copied to the detour buffer (0: not prepared).
    pub size: usize,
}

/// `struct rethook`: opaque to the core (model.c's pool).
#[repr(C)]
pub struct Rethook {
    _opaque: [u8; 0],
}

/// `struct rethook_node` of the model.
#[repr(C)]
pub struct RethookNode {
    /// `rcu`.
    pub rcu: RcuHead,
    /// The simulated task's list of hooked nodes.
    pub next: *mut RethookNode,
    /// The rethook this node belongs to.
    pub rethook: *mut Rethook,
    /// Return address.
    pub ret_addr: c_ulong,
    /// The frame (`hit` number) that hooked it.
    pub frame: c_ulong,
}

/// `struct kprobe_ctlblk` of the model (`arch.c`'s per-CPU variable).
#[repr(C)]
pub struct KprobeCtlblk {
    /// `kprobe_status`.
    pub kprobe_status: c_ulong,
    /// `prev_kprobe.kp`.
    pub prev_kp: *mut crate::types::Kprobe,
    /// `prev_kprobe.status`.
    pub prev_status: c_ulong,
}

// The same numbers as tools/testing/hostdiff/rlayout.c asserts for the C
// definitions (x86_64).
const _: () = {
    assert!(size_of::<Mutex>() == 16);
    assert!(offset_of!(Mutex, locked) == 0 && offset_of!(Mutex, name) == 8);
    assert!(size_of::<PtRegs>() == 16);
    assert!(offset_of!(PtRegs, ip) == 0 && offset_of!(PtRegs, sp) == 8);
    assert!(size_of::<ArchSpecificInsn>() == 16);
    assert!(offset_of!(ArchSpecificInsn, insn) == 0 && offset_of!(ArchSpecificInsn, bits) == 8);
    assert!(size_of::<ArchOptimizedInsn>() == 24);
    assert!(offset_of!(ArchOptimizedInsn, copied_insn) == 0);
    assert!(offset_of!(ArchOptimizedInsn, insn) == 8 && offset_of!(ArchOptimizedInsn, size) == 16);
    assert!(size_of::<RethookNode>() == 48);
    assert!(offset_of!(RethookNode, rcu) == 0 && offset_of!(RethookNode, next) == 16);
    assert!(offset_of!(RethookNode, rethook) == 24 && offset_of!(RethookNode, ret_addr) == 32);
    assert!(offset_of!(RethookNode, frame) == 40);
    assert!(size_of::<KprobeCtlblk>() == 24);
    assert!(offset_of!(KprobeCtlblk, kprobe_status) == 0);
    assert!(size_of::<KprobeOpcode>() == 1);
    use crate::types::*;
    assert!(KPROBE_FLAG_GONE == 1 && KPROBE_FLAG_DISABLED == 2 && KPROBE_FLAG_OPTIMIZED == 4);
    assert!(KPROBE_FLAG_FTRACE == 8 && KPROBE_FLAG_ON_FUNC_ENTRY == 16);
};
