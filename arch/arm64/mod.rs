// SPDX-License-Identifier: GPL-2.0

//! arm64: what the core needs of the architecture at the bottom of the
//! crate, as `arch/x86_64/mod.rs` for x86_64: the opcode type and the
//! poison delta; `entry.rs` beside it (`arch_entry`) has the entry
//! stub and the assembly `get_kprobe()` macros, `sys.rs` (`arch_sys`) the
//! kernel services that differ.
//!
//! What arm64 has in 6.12 (arch/arm64/Kconfig): HAVE_KPROBES,
//! HAVE_KRETPROBES on its own trampoline (no HAVE_RETHOOK: the core's
//! `kretprobe_objpool.rs`), no HAVE_OPTPROBES (the core's `opt_none.rs`),
//! no HAVE_KPROBES_ON_FTRACE, ftrace through
//! `-fpatchable-function-entry` (DYNAMIC_FTRACE_WITH_ARGS, with or without
//! CALL_OPS).  Kconfig (KPROBES_RUST) refuses a function tracer without
//! DYNAMIC_FTRACE_WITH_ARGS, whose `_mcount` calls the stubs do not write.

/// `kprobe_opcode_t` (`u32`: one A64 instruction).
pub type KprobeOpcode = u32;

/// `POISON_POINTER_DELTA` (`CONFIG_ILLEGAL_POINTER_VALUE`, arm64).
pub const POISON_POINTER_DELTA: usize = 0xdead_0000_0000_0000;
