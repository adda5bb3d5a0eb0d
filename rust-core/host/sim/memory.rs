// SPDX-License-Identifier: GPL-2.0

//! Memory: `kmalloc()` and friends over the system allocator, counted
//! in the [`Record`](super::Record), with injected failures.

use super::trace::record;
use crate::ffi::c_void;
use std::alloc::{alloc_zeroed, dealloc, Layout};

const HDR: usize = 16;

/// `kmalloc()`.
pub fn kmalloc(size: usize) -> *mut c_void {
    if record(|r| {
        if r.fail_kmalloc > 0 {
            r.fail_kmalloc -= 1;
            true
        } else {
            false
        }
    }) {
        return core::ptr::null_mut();
    }
    let layout = Layout::from_size_align(size + HDR, 16).unwrap();
    // SAFETY: non-zero size.
    let p = unsafe { alloc_zeroed(layout) };
    assert!(!p.is_null());
    // SAFETY: `p` has room for the header.
    unsafe { (p as *mut usize).write(size) };
    record(|r| r.allocs += 1);
    // SAFETY: within the allocation.
    unsafe { p.add(HDR) as *mut c_void }
}

/// `table_size()`: whole 4 KiB pages (vmalloc).
pub fn table_size(size: usize) -> usize {
    size.next_multiple_of(4096)
}

/// `table_alloc()` (`kmalloc()` here, with its failures).
pub fn table_alloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kvmalloc(size, GFP_KERNEL)` (`kmalloc()` here, with its failures).
pub fn kvmalloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kvfree()`.
///
/// # Safety
/// `p` is null or came from [`kvmalloc`] and is not used afterwards.
pub unsafe fn kvfree(p: *mut c_void) {
    // SAFETY: `kvmalloc()` is `kmalloc()` here; the rest is this function's
    // `# Safety`.
    unsafe { kfree(p) }
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or from [`kmalloc`].
pub unsafe fn kfree(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` came from kmalloc, which put the size HDR bytes before it.
    unsafe {
        let base = (p as *mut u8).sub(HDR);
        let size = (base as *mut usize).read();
        dealloc(base, Layout::from_size_align(size + HDR, 16).unwrap());
    }
    record(|r| r.allocs -= 1);
}

/// `kzalloc()`.
pub fn kzalloc(size: usize) -> *mut c_void {
    kmalloc(size)
}
