// SPDX-License-Identifier: GPL-2.0

//! The Rust kprobes core.
//!
//! This crate replaces `kernel/kprobes.c` when `CONFIG_KPROBES_RUST=y`.  The
//! same source is built by Kbuild into vmlinux (against the `kernel` crate;
//! `cfg(CONFIG_RUST)`) and by cargo on the host, where `cargo test` runs it
//! against a simulated kernel (`host/sim.rs`), and where the host
//! differential links it into hostdiff-rust (`cfg(KP_MODEL)`, the staticlib
//! of `tools/testing/hostdiff/rust/`) with the same simulation and its C
//! ABI (`tools/testing/hostdiff/sim/`), which the program's C side uses.
//! Those host-only files are not in the kernel tree: their `mod` items
//! carry `#[rustfmt::skip]`, so that the kernel's `make rustfmtcheck` does
//! not look for them.
//! One module per concept of the upstream file; `sys` is the only door to
//! the kernel's services and `exports` the only C ABI.
//!
//! It implements all of the upstream file; every `#if CONFIG_*` of
//! `kprobes.c` is a `cfg` here or an `#if` in the C shim.

/// What the core needs of the architecture at the bottom of the crate
/// (arch/ARCH/mod.rs: the opcode type, the poison delta).  Everything
/// architecture-specific is under arch/; the generic core has no inline
/// assembly, no `cfg(target_arch)` and no architecture's options
/// (`tools/testing/lint.py`).
/// cbindgen:ignore
#[cfg_attr(target_arch = "x86_64", path = "../arch/x86_64/mod.rs")]
#[cfg_attr(target_arch = "aarch64", path = "../arch/arm64/mod.rs")]
#[cfg_attr(target_arch = "riscv64", path = "../arch/riscv64/mod.rs")]
pub mod arch;
/// The architecture's entry stub and assembly `get_kprobe()` macros
/// (arch/ARCH/entry.rs), for `abi` and `registry`.
/// cbindgen:ignore
#[cfg_attr(target_arch = "x86_64", path = "../arch/x86_64/entry.rs")]
#[cfg_attr(target_arch = "aarch64", path = "../arch/arm64/entry.rs")]
#[cfg_attr(target_arch = "riscv64", path = "../arch/riscv64/entry.rs")]
#[macro_use]
mod arch_entry;
/// The architecture's kernel services (arch/ARCH/sys.rs), re-exported
/// by `sys`.
/// cbindgen:ignore
#[cfg(CONFIG_RUST)]
#[cfg_attr(target_arch = "x86_64", path = "../arch/x86_64/sys.rs")]
#[cfg_attr(target_arch = "aarch64", path = "../arch/arm64/sys.rs")]
#[cfg_attr(target_arch = "riscv64", path = "../arch/riscv64/sys.rs")]
pub mod arch_sys;
pub mod ctypes;
/// The simulation's C ABI, for the host differential's C side.
/// cbindgen:ignore
#[cfg(KP_MODEL)]
#[rustfmt::skip]
#[path = "../tools/testing/hostdiff/sim/abi.rs"]
mod kpsim_abi;
#[cfg(CONFIG_RUST)]
#[path = "ktypes_kernel.rs"]
pub mod ktypes;
/// The simulated kernel's C types (both host builds).
/// cbindgen:ignore
#[cfg(not(CONFIG_RUST))]
#[rustfmt::skip]
#[path = "host/sim_ktypes.rs"]
pub mod ktypes;
/// The simulated kernel (host differential: the one its C ABI serves).
/// cbindgen:ignore
#[cfg(KP_MODEL)]
#[rustfmt::skip]
#[path = "host/sim.rs"]
pub mod sim;
/// The core's C symbols the simulated kernel calls (both host builds) and
/// the host differential's handles on the core's state.
/// cbindgen:ignore
#[cfg(not(CONFIG_RUST))]
#[rustfmt::skip]
#[path = "host/sim_exports.rs"]
mod sim_exports;
#[cfg(CONFIG_RUST)]
#[path = "sys_kernel.rs"]
pub mod sys;
/// The simulated kernel's services (host tests).
/// cbindgen:ignore
#[cfg(all(not(CONFIG_RUST), not(KP_MODEL)))]
#[rustfmt::skip]
#[path = "host/sim.rs"]
pub mod sys;
/// The simulation as the core's services (host differential).
/// cbindgen:ignore
#[cfg(KP_MODEL)]
#[rustfmt::skip]
#[path = "../tools/testing/hostdiff/sim/core_sys.rs"]
pub mod sys;
/// What differs between the kernel trees the core builds on (mainline and
/// the 6.12 LTS tree); `kp_tree_6_12` on 6.12.
/// cbindgen:ignore
#[cfg_attr(kp_tree_6_12, path = "tree/v6_12.rs")]
#[cfg_attr(not(kp_tree_6_12), path = "tree/v7_3.rs")]
pub mod tree;

/// C types as the kernel defines them: `char` is unsigned in the kernel
/// (`-funsigned-char`), and so it is in the host build.
pub mod ffi {
    #[cfg(not(CONFIG_RUST))]
    pub use core::ffi::{c_int, c_long, c_uint, c_ulong, c_void};
    #[cfg(CONFIG_RUST)]
    pub use kernel::ffi::*;
    /// `char`.
    #[cfg(not(CONFIG_RUST))]
    #[allow(non_camel_case_types)]
    pub type c_char = u8;
}

#[macro_use]
mod abi;
pub mod addr;
pub mod aggr;
pub mod arm;
pub mod blacklist;
#[cfg(CONFIG_DEBUG_FS)]
pub mod debugfs;
pub mod error;
pub mod flags;
#[cfg(CONFIG_KPROBES_ON_FTRACE)]
pub mod ftrace;
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
pub mod jprobe;
pub mod once;
mod print;
pub mod probe;
pub mod rcu_policy;
/// Without `CONFIG_KPROBES_ON_FTRACE`: upstream's stubs (no probe is ever
/// an ftrace probe then; `check_ftrace_location()` refuses ftrace sites).
#[cfg(not(CONFIG_KPROBES_ON_FTRACE))]
pub mod ftrace {
    use crate::error::{code::ENODEV, Result};
    use crate::locks::KprobeMutex;
    use crate::probe::Hashed;

    /// `arm_kprobe_ftrace()`: `ENODEV`.
    pub fn arm_kprobe_ftrace(_km: &KprobeMutex, _p: Hashed<'_>) -> Result {
        Err(ENODEV)
    }

    /// `disarm_kprobe_ftrace()`: `ENODEV`.
    pub fn disarm_kprobe_ftrace(_km: &KprobeMutex, _p: Hashed<'_>) -> Result {
        Err(ENODEV)
    }

    /// No ftrace probes, nothing to batch.
    pub struct FtraceBatch<'k>(core::marker::PhantomData<&'k KprobeMutex>);

    impl<'k> FtraceBatch<'k> {
        /// No batch.
        pub fn begin(_km: &'k KprobeMutex, _members: usize) -> Self {
            FtraceBatch(core::marker::PhantomData)
        }

        /// Nothing pending.
        pub fn flush(&mut self) -> Result {
            Ok(())
        }

        /// Nothing armed, so nothing failed to be.
        pub fn first_unarmed(&self) -> Option<usize> {
            None
        }

        /// Nothing to close.
        pub fn close(self) {}
    }
}
pub mod index;
pub mod init;
pub mod kretprobe;
// `kretprobe.rs`'s backend: the arch's own trampoline
// (`!CONFIG_KRETPROBE_ON_RETHOOK`, arm64) or rethook.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub mod kretprobe_objpool;
#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
pub mod kretprobe_rethook;
pub mod list;
pub mod locks;
pub mod module;
// objpool's ring operations (kretprobes without rethook).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub mod objpool;
#[cfg(CONFIG_OPTPROBES)]
pub mod opt;
/// Without `CONFIG_OPTPROBES` (arm64): upstream's stubs, no optimizer (no
/// C symbol: cbindgen, which would read `opt.rs` for it, skips it).
/// cbindgen:ignore
#[cfg(not(CONFIG_OPTPROBES))]
#[path = "opt_none.rs"]
pub mod opt;
pub mod register;
pub mod registry;
pub mod slots;
pub mod state;
pub mod types;
pub mod views;

pub mod exports;

/// `NOKPROBE_SYMBOL(f)`: puts the address of `f` into the `_kprobe_blacklist`
/// section, from which the blacklist is populated at boot, so no kprobe can
/// be placed on `f` (functions reached from the breakpoint handlers).
#[macro_export]
macro_rules! nokprobe_symbol {
    ($f:path) => {
        #[cfg(CONFIG_RUST)]
        const _: () = {
            #[repr(transparent)]
            struct KblAddr(*const ());
            // SAFETY: an immutable function address.
            unsafe impl Sync for KblAddr {}
            #[used]
            #[link_section = "_kprobe_blacklist"]
            static KBL_ADDR: KblAddr = KblAddr($f as *const ());
        };
    };
}

/// `pr_fmt`: the prefix of the kernel crate's `pr_*!` messages.
#[cfg(CONFIG_RUST)]
const __LOG_PREFIX: &[u8] = b"kprobes\0";

/// `WARN_ON_ONCE(1)` at the caller's location: warns the first time this
/// call site is reached.
#[macro_export]
macro_rules! warn_once {
    () => {{
        // The host tests count every hit (tests share the process, so a
        // once-per-boot flag would make them depend on their order).
        #[cfg(CONFIG_RUST)]
        {
            static WARNED: core::sync::atomic::AtomicBool =
                core::sync::atomic::AtomicBool::new(false);
            if !WARNED.swap(true, core::sync::atomic::Ordering::Relaxed) {
                $crate::sys::warn_at(file!(), line!());
            }
        }
        #[cfg(not(CONFIG_RUST))]
        $crate::sys::warn_at(file!(), line!());
    }};
}

/// Resets the core's global state (host tests, under `sys::exclusive()`;
/// unused by the host differential, which runs one sequence per process).
#[cfg(not(CONFIG_RUST))]
pub fn reset_for_test() {
    blacklist::reset();
    registry::reset();
    index::reset();
    state::reset();
    opt::reset();
    ftrace::reset();
    rcu_policy::set_expedited(false);
    #[cfg(not(KP_MODEL))]
    sys::reset_arch();
}

#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_addr.rs"]
mod test_addr;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_aggr.rs"]
mod test_aggr;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_blacklist.rs"]
mod test_blacklist;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_caches.rs"]
mod test_caches;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_debugfs.rs"]
mod test_debugfs;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_index.rs"]
mod test_index;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_register.rs"]
mod test_register;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_registry.rs"]
mod test_registry;
#[cfg(test)]
#[rustfmt::skip]
#[path = "host/test_slots.rs"]
mod test_slots;

/// Is `kprobes/list` empty (no hashed probe)?  For host tests.
#[cfg(test)]
pub(crate) fn debugfs_list_is_empty() -> bool {
    let mut empty = true;
    registry::for_each_hashed(&locks::kprobe_mutex(), |_| empty = false);
    empty
}
