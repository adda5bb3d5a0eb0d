// SPDX-License-Identifier: GPL-2.0

//! `libkpsim.a`: the host tests' simulated kernel (`rust-core/host/sim.rs`
//! and `sim/`, the core's `sys` under `cargo test`) as a static library
//! with a C ABI (`abi.rs`), for C programs compiled against the host
//! differential's stubs (`tools/testing/hostdiff/include/`): upstream
//! `kernel/kprobes.c` (`kcore.c`) and `driver.c` link it as `hostdiff-c`
//! (`tools/testing/hostdiff/MODEL.md`).  The Rust core's build for
//! `hostdiff-rust` includes the same `abi.rs` with the simulation.
//!
//! The simulation is compiled here without the core: it names only
//! `crate::{ffi, ctypes, types, ktypes}` (the C layouts, as C code
//! includes `kprobes.h`) and reaches the kprobes implementation through C
//! symbols (`sim/link.rs`), which upstream `kprobes.o` and `kcore_link.c`
//! define.  The variadic functions (`hd_trace()`, `hd_fatal()`,
//! `hd_printk()`, `seq_printf()`), the C data the stubs declare and the
//! constructor that sets the simulation up are in `kpsim.c`.

/// `arch/<arch>/mod.rs`: the architecture's types and constants, picked
/// as the core's crate root picks them.
#[cfg_attr(target_arch = "x86_64", path = "../../../../arch/x86_64/mod.rs")]
#[cfg_attr(target_arch = "aarch64", path = "../../../../arch/arm64/mod.rs")]
pub mod arch;
/// `rust-core/ctypes.rs`: the kernel's basic C types.
#[path = "../../../../rust-core/ctypes.rs"]
pub mod ctypes;
/// `rust-core/host/sim_ktypes.rs`: the stubs' C types.
#[path = "../../../../rust-core/host/sim_ktypes.rs"]
pub mod ktypes;
/// `rust-core/types.rs`: the shared C structs.
#[path = "../../../../rust-core/types.rs"]
pub mod types;

/// C types as the kernel defines them (`rust-core/kprobes_core.rs`'s).
pub mod ffi {
    pub use core::ffi::{c_int, c_long, c_uint, c_ulong, c_void};
    /// `char` (unsigned in the kernel).
    #[allow(non_camel_case_types)]
    pub type c_char = u8;
}

/// The simulated kernel (`rust-core/host/sim.rs`).
#[path = "../../../../rust-core/host/sim.rs"]
pub mod sim;

/// The C ABI (`abi.rs`; `kpsim_abi` as in the core's build, whose name
/// the links of its documentation use).
#[path = "abi.rs"]
mod kpsim_abi;
