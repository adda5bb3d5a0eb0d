// SPDX-License-Identifier: GPL-2.0

//! What differs on the 6.12 LTS tree from mainline: the items of
//! `rust-core/tree/v7_3.rs`, as 6.12 has them.

#[cfg(CONFIG_RUST)]
use core::alloc::Layout;
#[cfg(CONFIG_RUST)]
use core::ptr::NonNull;
#[cfg(CONFIG_RUST)]
use kernel::alloc::{AllocError, Allocator, Flags};
#[cfg(CONFIG_RUST)]
use kernel::bindings as b;

/// `unoptimize_all_kprobes()` and `disarm_all_kprobes()` release
/// `kprobe_mutex` before they wait for the optimizer.
pub const WAIT_OPTIMIZER_UNDER_MUTEX: bool = false;

/// A probe that a freed aggregate held back stays unoptimized (the TODO
/// in `__disarm_kprobe()`).
pub const REOPT_SIBLING_AFTER_FREE: bool = false;

/// `check_kprobe_address_safe()` takes the probed module's reference after
/// the reserved-area checks.
pub const MODULE_REF_BEFORE_CHECKS: bool = false;

/// `register_kprobe()` sets `KPROBE_FLAG_ON_FUNC_ENTRY` under `kprobe_mutex`,
/// after the address checks.
pub const FUNC_ENTRY_FLAG_BEFORE_CHECKS: bool = false;

/// `A::alloc()` (6.12's allocators take no NUMA node).
#[cfg(CONFIG_RUST)]
#[inline]
pub fn alloc<A: Allocator>(layout: Layout, flags: Flags) -> Result<NonNull<[u8]>, AllocError> {
    A::alloc(layout, flags)
}

/// `size` rounded up to whole pages; `None` if that overflows (6.12's
/// kernel crate has no `page::page_align()`).
#[cfg(CONFIG_RUST)]
#[inline]
pub fn page_align(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(kernel::page::PAGE_SIZE)
}

/// `synchronize_rcu()`; sleeps (6.12's kernel crate has no `sync::rcu`).
#[cfg(CONFIG_RUST)]
#[inline]
pub fn synchronize_rcu() {
    // SAFETY: takes no argument (it sleeps, which `might_sleep()` checks;
    // memory safety does not depend on the context).
    unsafe { kernel::bindings::synchronize_rcu() }
}

/// `mutex_lock(m)` of a C `struct mutex`: the binding, as 6.12's
/// `MutexBackend::lock()` is not inline (one more call per lock).
///
/// # Safety
/// `m` points to an initialized mutex; may sleep.
#[cfg(CONFIG_RUST)]
#[inline]
pub unsafe fn mutex_lock(m: *mut b::mutex) {
    // SAFETY: `m` points to an initialized mutex and the caller may sleep
    // (this function's `# Safety`), as `mutex_lock()` requires.
    unsafe { b::mutex_lock(m) }
}

/// `mutex_unlock(m)` (see [`mutex_lock`]).
///
/// # Safety
/// The current task holds `m`, locked by [`mutex_lock`].
#[cfg(CONFIG_RUST)]
#[inline]
pub unsafe fn mutex_unlock(m: *mut b::mutex) {
    // SAFETY: the current task holds `m` (this function's `# Safety`), as
    // `mutex_unlock()` requires.
    unsafe { b::mutex_unlock(m) }
}

/// Tests on the host only: 6.12's kernel crate has no `#[kunit_tests]`.
#[macro_export]
macro_rules! kp_tests {
    ($suite:ident, mod $m:ident { $($body:tt)* }) => {
        #[cfg(all(test, not(CONFIG_RUST)))]
        mod $m { $($body)* }
    };
}
