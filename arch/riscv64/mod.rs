// SPDX-License-Identifier: GPL-2.0

//! riscv64: what the core needs of the architecture at the bottom of the
//! crate, as `arch/x86_64/mod.rs` for x86_64: the opcode type and the
//! poison delta; `entry.rs` beside it (`arch_entry`) has the entry stub
//! and `get_kprobe()`, `sys.rs` (`arch_sys`) the kernel services that
//! differ.
//!
//! What riscv64 has (arch/riscv/Kconfig): HAVE_KPROBES, HAVE_KRETPROBES
//! through HAVE_RETHOOK (the core's `kretprobe_rethook.rs`, as on x86_64),
//! no HAVE_OPTPROBES (the core's `opt_none.rs`), no
//! HAVE_KPROBES_ON_FTRACE.  Kconfig (KPROBES_RUST) refuses the function
//! tracer, whose patchable function entries the core's stubs do not
//! write, and Rust refuses kCFI there.

/// `kprobe_opcode_t` (`u32`: an `ebreak`, or a `c.ebreak` in its low half).
pub type KprobeOpcode = u32;

/// `POISON_POINTER_DELTA` (`CONFIG_ILLEGAL_POINTER_VALUE`, 64-bit riscv).
pub const POISON_POINTER_DELTA: usize = 0xdead_0000_0000_0000;
