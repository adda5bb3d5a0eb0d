// SPDX-License-Identifier: GPL-2.0

//! The kernel's own types that the core embeds or only passes through,
//! kernel build: bindgen's definitions (`host/sim_ktypes.rs` is the host
//! build's twin).  Below `types`, which embeds them in the shared structs
//! and asserts those structs' layout, and below `sys`, which passes them
//! to the kernel.

use kernel::bindings as b;

/// `struct mutex` (its size depends on the lock debugging options).
pub type Mutex = b::mutex;
/// `struct pt_regs`.
pub type PtRegs = b::pt_regs;
/// `struct arch_specific_insn`.
pub type ArchSpecificInsn = b::arch_specific_insn;
/// `struct arch_optimized_insn` (`CONFIG_OPTPROBES`).
#[cfg(CONFIG_OPTPROBES)]
pub type ArchOptimizedInsn = b::arch_optimized_insn;
/// `struct objpool_head` (kretprobes without rethook).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub type ObjpoolHead = b::objpool_head;
/// `struct objpool_slot` (kretprobes without rethook).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub type ObjpoolSlot = b::objpool_slot;
/// `struct llist_node` (kretprobes without rethook).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub type LlistNode = b::llist_node;
/// `struct rethook`.
pub type Rethook = b::rethook;
/// `struct rethook_node`.
pub type RethookNode = b::rethook_node;
