// SPDX-License-Identifier: GPL-2.0

//! What differs on mainline (Linux 7.3) from the other trees the core
//! builds on: behaviour the core follows per tree, and kernel services the
//! trees offer differently.  `rust-core/tree/v6_12.rs` has the same items
//! for the 6.12 LTS tree; the crate root picks one (`kp_tree_6_12`, set by
//! `Kbuild`, or for the host builds by `host/build_cfg.rs`).  The C glue's
//! part is `c-shim/tree_*.c`.

#[cfg(CONFIG_RUST)]
use core::alloc::Layout;
#[cfg(CONFIG_RUST)]
use core::ptr::NonNull;
#[cfg(CONFIG_RUST)]
use kernel::alloc::{AllocError, Allocator, Flags, NumaNode};
#[cfg(CONFIG_RUST)]
use kernel::bindings as b;
#[cfg(CONFIG_RUST)]
use kernel::sync::lock::{mutex::MutexBackend, Backend};

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

/// `A::alloc()`, on any NUMA node.
#[cfg(CONFIG_RUST)]
#[inline]
pub fn alloc<A: Allocator>(layout: Layout, flags: Flags) -> Result<NonNull<[u8]>, AllocError> {
    A::alloc(layout, flags, NumaNode::NO_NODE)
}

/// `size` rounded up to whole pages; `None` if that overflows.
#[cfg(CONFIG_RUST)]
pub use kernel::page::page_align;

/// `synchronize_rcu()`; sleeps.
#[cfg(CONFIG_RUST)]
pub use kernel::sync::rcu::synchronize_rcu;

/// `mutex_lock(m)` of a C `struct mutex`, by the kernel crate's mutex
/// backend (its `Lock` would own the mutex; the core's are C's).
///
/// # Safety
/// `m` points to an initialized mutex; may sleep.
#[cfg(CONFIG_RUST)]
#[inline]
pub unsafe fn mutex_lock(m: *mut b::mutex) {
    // SAFETY: `m` points to a mutex that `DEFINE_MUTEX()` or `mutex_init()`
    // initialized (what `Backend::init()` does), and the caller may sleep
    // (this function's `# Safety`), what `Backend::lock()` requires.
    unsafe { <MutexBackend as Backend>::lock(m) }
}

/// `mutex_unlock(m)` (see [`mutex_lock`]).
///
/// # Safety
/// The current task holds `m`, locked by [`mutex_lock`].
#[cfg(CONFIG_RUST)]
#[inline]
pub unsafe fn mutex_unlock(m: *mut b::mutex) {
    // SAFETY: the current task holds `m`, locked by `mutex_lock()` (this
    // function's `# Safety`), what `Backend::unlock()` requires.
    unsafe { <MutexBackend as Backend>::unlock(m, &()) }
}

/// A module of tests that run on the host (`cargo test`) and, with
/// `CONFIG_KPROBES_RUST_KUNIT_TEST`, in the kernel as the KUnit suite
/// `$suite`: at boot, its KTAP in debugfs' `kunit/$suite/results`.  A
/// kernel without the option builds none of it.  Inside, `assert!` and
/// `assert_eq!` take no message (KUnit's take none).
#[macro_export]
macro_rules! kp_tests {
    ($suite:ident, mod $m:ident { $($body:tt)* }) => {
        #[cfg_attr(CONFIG_KPROBES_RUST_KUNIT_TEST, kernel::macros::kunit_tests($suite))]
        #[cfg_attr(not(CONFIG_KPROBES_RUST_KUNIT_TEST), cfg(all(test, not(CONFIG_RUST))))]
        mod $m { $($body)* }
    };
}
