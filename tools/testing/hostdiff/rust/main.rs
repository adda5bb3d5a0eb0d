// SPDX-License-Identifier: GPL-2.0

//! hostdiff-rust: the Rust half of the host differential
//! (`tools/testing/hostdiff/MODEL.md`).
//!
//! The Rust kprobes core (`rust-core/`) is compiled here unchanged: every
//! core module is included by path under its own name, so the core's
//! `crate::...` paths resolve, and `sys` is this crate's `model_sys.rs`, an
//! implementation of the simulated kernel of MODEL.md (the same services
//! and x86 arch layer as `model.c` and `arch.c`, with the same trace).
//! `driver.rs` is the port of `driver.c`: it reads an operation sequence
//! and prints the canonical trace, which `scripts/hostdiff.sh` compares
//! with the trace of upstream `kernel/kprobes.c` (hostdiff-c).
//!
//!     hostdiff-rust SEQFILE      # trace on stdout, exit 0

// The core is written as a library; as a binary, the parts the driver does
// not reach (host-test helpers, kernel-only exports) are dead code here.
#[allow(dead_code)]
#[path = "../../../../rust-core/ctypes.rs"]
pub mod ctypes;
#[path = "model_ktypes.rs"]
pub mod ktypes;
#[path = "model_sys.rs"]
pub mod sys;

/// C types as the kernel defines them (`char` is unsigned in the kernel);
/// the host half of `rust-core/kprobes_core.rs`'s `ffi`.
pub mod ffi {
    pub use core::ffi::{c_int, c_long, c_uint, c_ulong, c_void};
    /// `char`.
    #[allow(non_camel_case_types)]
    pub type c_char = u8;
}

// The core's modules, unchanged, under their own names.
#[macro_use]
#[path = "../../../../rust-core/abi.rs"]
mod abi;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/addr.rs"]
pub mod addr;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/aggr.rs"]
pub mod aggr;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/arm.rs"]
pub mod arm;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/blacklist.rs"]
pub mod blacklist;
#[allow(dead_code)]
#[path = "../../../../rust-core/error.rs"]
pub mod error;
#[allow(dead_code)]
#[path = "../../../../rust-core/flags.rs"]
pub mod flags;
#[allow(dead_code)]
#[path = "../../../../rust-core/once.rs"]
pub mod once;
#[path = "../../../../rust-core/print.rs"]
mod print;
#[allow(dead_code)]
#[path = "../../../../rust-core/probe.rs"]
pub mod probe;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/debugfs.rs"]
pub mod debugfs;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/ftrace.rs"]
pub mod ftrace;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/init.rs"]
pub mod init;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/kretprobe.rs"]
pub mod kretprobe;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/list.rs"]
pub mod list;

#[path = "../../../../rust-core/locks.rs"]
pub mod locks;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/module.rs"]
pub mod module;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/opt.rs"]
pub mod opt;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/register.rs"]
pub mod register;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/registry.rs"]
pub mod registry;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/slots.rs"]
pub mod slots;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/state.rs"]
pub mod state;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/types.rs"]
pub mod types;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/views.rs"]
pub mod views;
#[allow(dead_code, unused_imports)]
#[path = "../../../../rust-core/exports.rs"]
pub mod exports;

/// `NOKPROBE_SYMBOL(f)` (copied from `rust-core/kprobes_core.rs`; only the
/// kernel build emits the section entry).
#[macro_export]
macro_rules! nokprobe_symbol {
    ($f:path) => {};
}

/// `WARN_ON_ONCE(1)` at the caller's location.  As in the C model, every
/// hit is traced (`WARN`), once-ness is ignored (MODEL.md section 4).
#[macro_export]
macro_rules! warn_once {
    () => {{
        $crate::sys::warn_at(file!(), line!());
    }};
}

mod driver;

fn main() {
    driver::main();
}
