// SPDX-License-Identifier: GPL-2.0

//! Memory: `kmalloc()` and friends over the system allocator, counted
//! in the [`Record`](super::Record), with injected failures; and model.c's
//! execmem pages, named `pageN` in the trace.

use super::trace::{ev, hd_fatal, record};
use super::PAGE_SIZE;
use crate::ffi::c_void;
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::cell::Cell;
use std::sync::Mutex as StdMutex;

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

/// model.c's `HD_MAX_PAGES`: how many execmem pages one run may allocate.
const MAX_PAGES: usize = 256;

/// A live execmem page: address, size, number.
type Page = (usize, usize, usize);

/// The live execmem pages (model.c's `hd_pages[]`). Global, as a page may
/// be freed by another thread than the one that allocated it (a host test
/// of the insn caches does that).
static PAGES: StdMutex<Vec<Page>> = StdMutex::new(Vec::new());

thread_local! {
    /// The number of the next execmem page this thread allocates: pages are
    /// numbered in allocation order per thread (one test, or one host
    /// differential run, as model.c's), and numbers are never reused.
    static NEXT_PAGE: Cell<usize> = const { Cell::new(0) };
}

fn pages<R>(f: impl FnOnce(&mut Vec<Page>) -> R) -> R {
    f(&mut PAGES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The layout of an execmem allocation of `size` bytes (model.c:
/// `aligned_alloc(PAGE_SIZE, size)`).
fn page_layout(size: usize) -> Layout {
    Layout::from_size_align(size.max(1), PAGE_SIZE).unwrap()
}

/// `execmem_alloc(type, size)`, model.c's: page-aligned memory filled with
/// int3 (0xcc), numbered `pageN` in allocation order for the trace
/// ([`hd_page`](super::hd_page)). More than 256 pages in one run are fatal.
pub fn execmem_alloc(size: usize) -> *mut c_void {
    let n = NEXT_PAGE.with(|c| c.replace(c.get() + 1));
    if n >= MAX_PAGES {
        hd_fatal(format_args!("too many insn pages"));
    }
    let layout = page_layout(size);
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc(layout) };
    assert!(!p.is_null());
    // SAFETY: `p` is valid for `layout.size()` bytes.
    unsafe { p.write_bytes(0xcc, layout.size()) };
    pages(|v| v.push((p as usize, size, n)));
    p.cast()
}

/// `execmem_free()`, model.c's: traces `execmem_free pageN`; a pointer that
/// is not a live execmem page is fatal.
///
/// # Safety
/// `p` came from [`execmem_alloc`], and nothing uses it afterwards.
pub unsafe fn execmem_free(p: *mut c_void) {
    let found = pages(|v| {
        let i = v.iter().position(|e| e.0 == p as usize)?;
        Some(v.remove(i))
    });
    let Some((_, size, n)) = found else {
        hd_fatal(format_args!("execmem_free of unknown page"));
    };
    ev(format!("execmem_free page{n}"));
    // SAFETY: `p` came from `execmem_alloc(size)`, which allocated it with
    // this layout, and is no longer used (this function's `# Safety`).
    unsafe { dealloc(p.cast(), page_layout(size)) };
}

/// The name of the execmem page that `p` lies in (`pageN+0xoff`, model.c:
/// within `PAGE_SIZE` of a live page's start), if any.
pub(super) fn page_name(p: usize) -> Option<String> {
    pages(|v| {
        v.iter()
            .find(|e| p >= e.0 && p < e.0 + PAGE_SIZE)
            .map(|e| format!("page{}+{:#x}", e.2, p - e.0))
    })
}
