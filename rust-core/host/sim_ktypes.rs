// SPDX-License-Identifier: GPL-2.0

//! The kernel's own types that the core embeds or only passes through,
//! host build: the simulated kernel's (`host/sim.rs` uses them;
//! `ktypes_kernel.rs` is the kernel build's twin).  Below `types`, which
//! embeds them in the shared structs, and above `ctypes` only.

use crate::ctypes::{KprobeOpcode, RcuHead};
use crate::ffi::{c_ulong, c_void};
use std::sync::atomic::AtomicBool;

/// Simulated `struct mutex`: a sleeping lock reduced to a spinning one.
#[repr(C)]
pub struct Mutex {
    pub(crate) locked: AtomicBool,
    // Same size as the kernel's 32-byte mutex in the pipeline config.
    _pad: [u8; 31],
}

impl Mutex {
    /// `__MUTEX_INITIALIZER`.
    pub const fn new() -> Self {
        Mutex {
            locked: AtomicBool::new(false),
            _pad: [0; 31],
        }
    }
}

impl Default for Mutex {
    fn default() -> Self {
        Self::new()
    }
}

/// Simulated `struct pt_regs`: the probed context as a test sees it.
#[repr(C)]
#[derive(Default, Debug, Clone)]
pub struct PtRegs {
    /// Instruction pointer.
    pub ip: usize,
    /// The argument registers of the calling convention, in order (x86-64:
    /// rdi, rsi, rdx, rcx, r8, r9).
    pub args: [usize; 6],
}

/// Simulated `struct arch_specific_insn` (x86's is 32 bytes).
#[repr(C, align(8))]
pub struct ArchSpecificInsn {
    /// `insn`: the slot holding the copied instruction.
    pub insn: *mut KprobeOpcode,
    /// The rest, opaque to the core.
    pub rest: [u8; 24],
}

/// Simulated `struct arch_optimized_insn` (x86's layout).
#[repr(C)]
pub struct ArchOptimizedInsn {
    /// Copy of the original instructions.
    pub copied_insn: [u8; 4],
    /// Detour code buffer.
    pub insn: *mut KprobeOpcode,
    /// Size of instructions copied to detour code buffer (0: not prepared).
    pub size: usize,
}

/// Simulated `struct rethook_node`.
#[repr(C)]
pub struct RethookNode {
    /// `rcu`.
    pub rcu: RcuHead,
    /// `llist`.
    pub llist: *mut c_void,
    /// The rethook this node belongs to.
    pub rethook: *mut Rethook,
    /// Return address.
    pub ret_addr: c_ulong,
    /// Frame.
    pub frame: c_ulong,
}

/// `rethook_handler_t`.
pub type RethookHandler = unsafe extern "C" fn(*mut RethookNode, *mut c_void, c_ulong, *mut PtRegs);

/// Simulated `struct rethook`: a pool of `num` nodes of `size` bytes.
pub struct Rethook {
    /// `data` (the kretprobe).
    pub data: *mut c_void,
    /// The handler (None once stopped by `rethook_free()`).
    pub handler: Option<RethookHandler>,
    /// Free nodes.
    pub free: Vec<*mut RethookNode>,
    /// All nodes.
    pub all: Vec<*mut RethookNode>,
}
