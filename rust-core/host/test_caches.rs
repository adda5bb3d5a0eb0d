// SPDX-License-Identifier: GPL-2.0

//! The host tests' instruction slot caches: built as kprobes.c defines
//! `kprobe_insn_slots` and `kprobe_optinsn_slots` (a mutex, a page list,
//! the page callbacks), and freed at the end of a test (not an upstream
//! operation). `test_slots.rs`, `test_aggr.rs` and `test_register.rs` use
//! them.

use crate::ffi::c_void;
use crate::sys;
use crate::types::{KprobeInsnCache, ListHead};
use core::ffi::CStr;

/// A page callback of a cache (`alloc_insn_page()`).
pub(crate) type PageAlloc = unsafe extern "C" fn() -> *mut c_void;
/// A page callback of a cache (`free_insn_page()`).
pub(crate) type PageFree = unsafe extern "C" fn(*mut c_void);

/// `alloc_insn_page()`: an execmem page (`pageN` in the trace).
pub(crate) unsafe extern "C" fn execmem_page() -> *mut c_void {
    sys::execmem_alloc(sys::PAGE_SIZE)
}

/// `free_insn_page()`: `execmem_free()`.
///
/// # Safety
/// `p` is a page of [`execmem_page`], not used after.
pub(crate) unsafe extern "C" fn execmem_page_free(p: *mut c_void) {
    // SAFETY: `p` came from `execmem_page()` and is no longer used (this
    // function's `# Safety`: a cache frees only its own pages, once).
    unsafe { sys::execmem_free(p) }
}

/// A cache of `insn_size`-unit slots whose pages are named `sym`,
/// allocated once and from then on reached only through the returned raw
/// pointer (its page list points into it, as in C); freed by
/// [`destroy_cache`].
pub(crate) fn new_cache(
    sym: &'static CStr,
    insn_size: usize,
    alloc: PageAlloc,
    free: Option<PageFree>,
) -> *mut KprobeInsnCache {
    let c = Box::into_raw(Box::new(KprobeInsnCache {
        mutex: sys::Mutex::new(),
        alloc: Some(alloc),
        free,
        sym: sym.as_ptr().cast(),
        pages: ListHead {
            next: core::ptr::null_mut(),
            prev: core::ptr::null_mut(),
        },
        insn_size,
        nr_garbage: 0,
    }));
    // SAFETY: `c` is a live box, reached only through this pointer.
    unsafe { crate::list::init_list_head(&raw mut (*c).pages) };
    c
}

/// Frees every page of `c` with `free_page`, their descriptors and `c`
/// itself.
///
/// # Safety
/// `c` is from [`new_cache`], quiescent (no slot operation in flight, no
/// reader of its page list) and not used after; `free_page` frees the
/// pages of the cache's `alloc`.
pub(crate) unsafe fn destroy_cache(c: *mut KprobeInsnCache, free_page: PageFree) {
    // SAFETY: `c` is the live box of `new_cache()` and quiescent (this
    // function's `# Safety`); its pages came from its `alloc` (which
    // `free_page` frees) and their descriptors from `sys::kmalloc()` (the
    // core's); nothing uses any of them after.
    unsafe {
        let head = &raw mut (*c).pages;
        let mut l = (*head).next;
        while l != head {
            let next = (*l).next;
            let kip = crate::container_of!(l, crate::slots::KprobeInsnPage, list);
            free_page((*kip).insns.cast());
            sys::kfree(kip.cast());
            l = next;
        }
        drop(Box::from_raw(c));
    }
}
