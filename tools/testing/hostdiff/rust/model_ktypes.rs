// SPDX-License-Identifier: GPL-2.0

//! The kernel's own types that the core embeds or only passes through, as
//! the hostdiff model defines them (`model_sys.rs` uses them).

use crate::ctypes::{KprobeOpcode, RcuHead};
use crate::ffi::{c_int, c_ulong, c_void};
use std::cell::Cell;

/// `struct mutex` (the insn caches' own): non-recursive.
#[repr(C)]
pub struct Mutex {
    pub(crate) locked: Cell<bool>,
}

impl Mutex {
    /// `__MUTEX_INITIALIZER`.
    pub const fn new() -> Self {
        Mutex { locked: Cell::new(false) }
    }
}

impl Default for Mutex {
    fn default() -> Self {
        Self::new()
    }
}

/// `struct pt_regs` (the model's: ip, sp).
#[repr(C)]
#[derive(Default, Debug, Clone)]
pub struct PtRegs {
    /// Instruction pointer.
    pub ip: usize,
    /// Stack pointer.
    pub sp: usize,
}

/// `struct arch_specific_insn` (the model's: insn, boostable).
#[repr(C)]
pub struct ArchSpecificInsn {
    /// The slot holding the copied instruction.
    pub insn: *mut KprobeOpcode,
    /// `boostable` (a one-bit field in C).
    pub boostable: u32,
}

/// `struct arch_optimized_insn` (x86's layout).
#[repr(C)]
pub struct ArchOptimizedInsn {
    /// Copy of the original instructions.
    pub copied_insn: [u8; 4],
    /// Detour code buffer.
    pub insn: *mut KprobeOpcode,
    /// Size of instructions copied to detour code buffer (0: not prepared).
    pub size: usize,
}

/// `struct rethook_node` (the model's).
#[repr(C)]
pub struct RethookNode {
    /// `rcu`.
    pub rcu: RcuHead,
    /// The simulated task's list of hooked nodes (innermost first).
    pub next: *mut RethookNode,
    /// The rethook this node belongs to.
    pub rethook: *mut Rethook,
    /// Return address.
    pub ret_addr: c_ulong,
    /// The frame (`hit` number) that hooked it.
    pub frame: c_ulong,
}

/// `rethook_handler_t`.
pub type RethookHandler = unsafe extern "C" fn(*mut RethookNode, *mut c_void, c_ulong, *mut PtRegs);

/// `struct rethook` (the model's pool).
pub struct Rethook {
    /// `data` (the kretprobe).
    pub data: *mut c_void,
    /// The handler (None once stopped by `rethook_free()`).
    pub handler: Option<RethookHandler>,
    /// Size of one node.
    pub size: c_int,
    /// Pool size.
    pub num: c_int,
    /// Free nodes in the pool.
    pub nfree: c_int,
    /// Nodes handed out.
    pub outstanding: c_int,
    /// `rethook_free()` was called.
    pub freed: bool,
    /// Allocation number.
    pub id: c_int,
}
