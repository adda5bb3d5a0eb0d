// SPDX-License-Identifier: GPL-2.0

//! What differs on mainline (Linux 7.3) from the other trees the core
//! builds on: behaviour the core follows per tree, and kernel services the
//! trees offer differently.  `rust-core/tree/v6_12.rs` has the same items
//! for the 6.12 LTS tree; the crate root picks one (`kp_tree_6_12`, set by
//! `Kbuild`, or for the host builds by `host/build_cfg.rs`).  The C glue's
//! part is `c-shim/tree_*.c`.

#[cfg(CONFIG_RUST)]
use crate::ffi::c_void;
#[cfg(CONFIG_RUST)]
use core::alloc::Layout;
#[cfg(CONFIG_RUST)]
use kernel::alloc::{Allocator, Flags, NumaNode};

/// `unoptimize_all_kprobes()` and `disarm_all_kprobes()` wait for the
/// optimizer before they release `kprobe_mutex`.
pub const WAIT_OPTIMIZER_UNDER_MUTEX: bool = true;

/// `do_free_cleaned_kprobes()` retries the optimization of a probe that a
/// freed aggregate held back.
pub const REOPT_SIBLING_AFTER_FREE: bool = true;

/// `check_kprobe_address_safe()` takes the probed module's reference
/// right after looking it up, before the reserved-area checks.
pub const MODULE_REF_BEFORE_CHECKS: bool = true;

/// `register_kprobe()` sets `KPROBE_FLAG_ON_FUNC_ENTRY` before the address
/// checks, so a probe they refuse keeps it.
pub const FUNC_ENTRY_FLAG_BEFORE_CHECKS: bool = true;

/// `A`'s allocation of `size` bytes with `flags` (`Kmalloc`: `kmalloc()`,
/// `Vmalloc`: `vmalloc()`, `KVmalloc`: `kvmalloc()`, on any NUMA node);
/// null on failure, and for zero bytes (where the allocators give a
/// dangling pointer that is not for `kfree()`).
#[cfg(CONFIG_RUST)]
#[inline]
pub fn alloc<A: Allocator>(size: usize, flags: Flags) -> *mut c_void {
    match Layout::from_size_align(size, 1) {
        Ok(layout) if size > 0 => A::alloc(layout, flags, NumaNode::NO_NODE)
            .map_or(core::ptr::null_mut(), |p| p.as_ptr().cast()),
        _ => core::ptr::null_mut(),
    }
}

/// `synchronize_rcu()`; sleeps.
#[cfg(CONFIG_RUST)]
pub use kernel::sync::rcu::synchronize_rcu;

/// A module of tests that run on the host (`cargo test`) and, with
/// `CONFIG_KUNIT=y`, in the kernel as the KUnit suite `$suite`: at boot,
/// its KTAP in debugfs' `kunit/$suite/results`.  Inside, `assert!` and
/// `assert_eq!` take no message (KUnit's take none).
#[macro_export]
macro_rules! kp_tests {
    ($suite:ident, mod $m:ident { $($body:tt)* }) => {
        #[cfg_attr(CONFIG_RUST, kernel::macros::kunit_tests($suite))]
        #[cfg_attr(not(CONFIG_RUST), cfg(test))]
        mod $m { $($body)* }
    };
}
