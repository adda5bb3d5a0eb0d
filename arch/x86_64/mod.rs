// SPDX-License-Identifier: GPL-2.0

//! x86_64: what the core needs of the architecture at the bottom of the
//! crate: the opcode type and the poison delta.  The crate root
//! selects this file by `target_arch` (as `arch`), and with it the
//! architecture's other files: `entry.rs` (`arch_entry`: the entry stub
//! and the assembly `get_kprobe()` macros) and `sys.rs` (`arch_sys`, which
//! `sys` re-exports: per-CPU writes, the jprobes' entry call, the
//! optimizer's `optinsn`).  The generic core has no inline assembly and no
//! architecture's options (`tools/testing/lint.py`,
//! `generic-core-has-no-arch-code`).

/// `kprobe_opcode_t` (`u8`: an int3 is one byte).
pub type KprobeOpcode = u8;

/// `POISON_POINTER_DELTA` (`CONFIG_ILLEGAL_POINTER_VALUE`, x86_64).
pub const POISON_POINTER_DELTA: usize = 0xdead_0000_0000_0000;
