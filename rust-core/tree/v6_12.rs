// SPDX-License-Identifier: GPL-2.0

//! What differs on the 6.12 LTS tree from mainline: the items of
//! `rust-core/tree/v7_3.rs`, as 6.12 has them.

#[cfg(CONFIG_RUST)]
use crate::ffi::c_void;
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

/// `kmalloc(size, flags)`: `krealloc()` of a null pointer allocates.
#[cfg(CONFIG_RUST)]
#[inline(always)]
pub fn kmalloc(size: usize, flags: b::gfp_t) -> *mut c_void {
    // SAFETY: a null `p` is not read; `krealloc(NULL, ...)` is `kmalloc()`.
    unsafe { b::krealloc(core::ptr::null(), size, flags) }
}

/// `vmalloc()` with `flags`, as [`kmalloc`].
#[cfg(CONFIG_RUST)]
#[inline(always)]
pub fn vmalloc(size: usize, flags: b::gfp_t) -> *mut c_void {
    // SAFETY: a null `p` is not read; `vrealloc(NULL, ...)` is `vmalloc()`.
    unsafe { b::vrealloc(core::ptr::null(), size, flags) }
}

/// `kvmalloc()` with `flags`, as [`kmalloc`].
#[cfg(CONFIG_RUST)]
#[inline(always)]
pub fn kvmalloc(size: usize, flags: b::gfp_t) -> *mut c_void {
    // SAFETY: a null `p` is not read; `kvrealloc(NULL, ...)` is `kvmalloc()`.
    unsafe { b::kvrealloc(core::ptr::null(), size, flags) }
}
