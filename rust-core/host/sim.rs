// SPDX-License-Identifier: GPL-2.0

//! The simulated kernel the core runs against under `cargo test` (host
//! build).  Same functions and signatures as `sys_kernel.rs`; in addition
//! it records what the core did (allocations, RCU grace periods, perf
//! events, warnings, arch events) per test thread, so tests can assert on
//! it.
//!
//! One module per area (`sim/`), re-exported here as the core's `sys`:
//! the image (kallsyms, text, sections), modules, locks, RCU, memory, the
//! CPU (per-CPU variables, preemption, the workqueue), the arch's text
//! patching and optprobes (`text`), ftrace, rethook, seq_file and the
//! sysctl/debugfs helpers, and the trace (records, warnings, printk).  The
//! simulation reaches the core only through C symbols (`sim/link.rs`), as
//! a separate library would.
//!
//! It is also the host differential's simulated kernel
//! (`tools/testing/hostdiff/`), with `Image::as_model` and the C ABI of
//! `tools/testing/hostdiff/sim/`, for upstream `kprobes.c` and for the
//! core.  `model.c` (services) and `arch.c` (the x86 arch layer, trap
//! paths), which the comments of `sim/` cite as the specification of that
//! behaviour ("as model.c's"), name the host differential's C model of the
//! kernel that `tools/testing/hostdiff/MODEL.md` specifies; the simulation
//! behaves as it does.

use crate::ffi::c_int;
use crate::ffi::c_ulong;
pub use crate::ktypes::{
    ArchOptimizedInsn, ArchSpecificInsn, CtlTable, File, FtraceOps, KprobeCtlblk, ModState, Module,
    Mutex, PtRegs, Rethook, RethookHandler, RethookNode, SeqFile,
};

#[path = "sim/cpu.rs"]
mod cpu;
#[path = "sim/ftrace.rs"]
mod ftrace;
#[path = "sim/image.rs"]
mod image;
#[path = "sim/kernel_text.rs"]
mod kernel_text;
#[path = "sim/link.rs"]
mod link;
#[path = "sim/locks.rs"]
mod locks;
#[path = "sim/memory.rs"]
mod memory;
#[path = "sim/model.rs"]
mod model;
#[path = "sim/module.rs"]
mod module;
#[path = "sim/rcu.rs"]
mod rcu;
#[path = "sim/rethook.rs"]
mod rethook;
#[path = "sim/seq.rs"]
mod seq;
#[path = "sim/text.rs"]
mod text;
#[path = "sim/trace.rs"]
mod trace;
#[path = "sim/trap.rs"]
mod trap;

pub use self::cpu::*;
pub use self::ftrace::*;
pub use self::image::*;
pub use self::kernel_text::{hd_text_armed_note, hd_text_check, hd_text_forget};
pub use self::locks::*;
pub use self::memory::*;
pub use self::model::*;
pub use self::module::*;
pub use self::rcu::*;
pub use self::rethook::*;
pub use self::seq::*;
pub use self::text::*;
pub use self::trace::*;
pub use self::trap::{hd_hit, kprobe_ftrace_handler};

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = 4096;

/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = 512;

/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 = 2;

/// `ERANGE`.
pub const ERANGE: c_int = 34;

/// `EINVAL`.
pub const EINVAL: c_int = 22;

/// `ENOMEM`.
pub const ENOMEM: c_int = 12;

/// `KPROBE_HIT_ACTIVE`.
pub const KPROBE_HIT_ACTIVE: c_ulong = 1;
/// `KPROBE_HIT_SS`.
pub const KPROBE_HIT_SS: c_ulong = 2;
/// `KPROBE_HIT_SSDONE`.
pub const KPROBE_HIT_SSDONE: c_ulong = 8;

/// `ENOENT`.
pub const ENOENT: c_int = 2;

/// `E2BIG`.
pub const E2BIG: c_int = 7;

/// An arbitrary error the simulated ftrace returns (`EBUSY`).
pub const EBUSY_SIM: c_int = 16;

/// `EEXIST`.
pub const EEXIST: c_int = 17;

/// `EILSEQ`.
pub const EILSEQ: c_int = 84;

/// `NOTIFY_DONE`.
pub const NOTIFY_DONE: c_int = 0;

/// `MODULE_STATE_LIVE`.
pub const MODULE_STATE_LIVE: c_ulong = 0;

/// `MODULE_STATE_COMING`.
pub const MODULE_STATE_COMING: c_ulong = 1;

/// `MODULE_STATE_GOING`.
pub const MODULE_STATE_GOING: c_ulong = 2;
