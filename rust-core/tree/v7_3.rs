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
use kernel::bindings as b;

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

/// `kmalloc(size, flags)`: the kernel crate's helpers have only the
/// `_node_align` form of `krealloc()`, which with a null pointer allocates.
#[cfg(CONFIG_RUST)]
#[inline(always)]
pub fn kmalloc(size: usize, flags: b::gfp_t) -> *mut c_void {
    // SAFETY: a null `p` is not read; `krealloc_node_align(NULL, ...)` is
    // `kmalloc_node(size, flags, node)`.
    unsafe { b::krealloc_node_align(core::ptr::null(), size, 1, flags, b::NUMA_NO_NODE) }
}

/// `vmalloc()` with `flags`, as [`kmalloc`].
#[cfg(CONFIG_RUST)]
#[inline(always)]
pub fn vmalloc(size: usize, flags: b::gfp_t) -> *mut c_void {
    // SAFETY: a null `p` is not read; `vrealloc_node_align(NULL, ...)` is
    // `__vmalloc_node(size, 1, flags, node, ...)`.
    unsafe { b::vrealloc_node_align(core::ptr::null(), size, 1, flags, b::NUMA_NO_NODE) }
}

/// `kvmalloc()` with `flags`, as [`kmalloc`].
#[cfg(CONFIG_RUST)]
#[inline(always)]
pub fn kvmalloc(size: usize, flags: b::gfp_t) -> *mut c_void {
    // SAFETY: a null `p` is not read; `kvrealloc_node_align(NULL, ...)` is
    // `kvmalloc_node(size, flags, node)`.
    unsafe { b::kvrealloc_node_align(core::ptr::null(), size, 1, flags, b::NUMA_NO_NODE) }
}
