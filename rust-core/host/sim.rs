// SPDX-License-Identifier: GPL-2.0

//! The simulated kernel the core runs against under `cargo test` (host
//! build).  Same functions and signatures as `sys_kernel.rs`; in addition
//! it records what the core did (allocations, RCU grace periods, perf
//! events, warnings) per test thread, so tests can assert on it.

use crate::ffi::{c_char, c_int, c_void};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::RefCell;
use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Simulated `struct mutex`: a sleeping lock reduced to a spinning one.
#[repr(C)]
pub struct Mutex {
    locked: AtomicBool,
    // Same size as the kernel's 32-byte mutex in the pipeline config.
    _pad: [u8; 31],
}

impl Mutex {
    /// `__MUTEX_INITIALIZER`.
    pub const fn new() -> Self {
        Mutex { locked: AtomicBool::new(false), _pad: [0; 31] }
    }
}

impl Default for Mutex {
    fn default() -> Self {
        Self::new()
    }
}

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = 4096;
/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = 512;
/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 = 2;
/// `ERANGE`.
pub const ERANGE: c_int = 34;

/// What the core did, per test thread.
#[derive(Default, Debug)]
pub struct Record {
    /// Live kmalloc'ed blocks.
    pub allocs: isize,
    /// `synchronize_rcu()` calls.
    pub grace_periods: usize,
    /// `perf_event_ksymbol()` calls: (type, addr, len, unregister, sym).
    pub ksym_events: Vec<(u16, u64, u32, bool, String)>,
    /// Lines of `WARN_ON` hits.
    pub warnings: Vec<u32>,
    /// Fail the next N kmallocs.
    pub fail_kmalloc: usize,
    /// Current RCU read-side nesting.
    pub rcu_nesting: usize,
}

thread_local! {
    static REC: RefCell<Record> = RefCell::new(Record::default());
}

/// Runs `f` on this thread's record.
pub fn record<R>(f: impl FnOnce(&mut Record) -> R) -> R {
    REC.with(|r| f(&mut r.borrow_mut()))
}

/// Global count of live readers, for `synchronize_rcu()` checks.
static RCU_READERS: AtomicUsize = AtomicUsize::new(0);

/// `mutex_lock()`.
///
/// # Safety
/// `m` must point to a live [`Mutex`].
pub unsafe fn mutex_lock(m: *mut Mutex) {
    // SAFETY: caller guarantees `m` is live.
    let l = unsafe { &(*m).locked };
    while l.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
        std::thread::yield_now();
    }
}

/// `mutex_unlock()`.
///
/// # Safety
/// The caller holds `m`.
pub unsafe fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: caller guarantees `m` is live and held.
    let l = unsafe { &(*m).locked };
    assert!(l.swap(false, Ordering::Release), "mutex_unlock of an unlocked mutex");
}

/// `rcu_read_lock()`.
pub fn rcu_read_lock() {
    RCU_READERS.fetch_add(1, Ordering::SeqCst);
    record(|r| r.rcu_nesting += 1);
}

/// `rcu_read_unlock()`.
pub fn rcu_read_unlock() {
    record(|r| {
        assert!(r.rcu_nesting > 0, "unbalanced rcu_read_unlock");
        r.rcu_nesting -= 1
    });
    RCU_READERS.fetch_sub(1, Ordering::SeqCst);
}

/// `synchronize_rcu()`: must not be called inside a read-side section.
pub fn synchronize_rcu() {
    record(|r| {
        assert_eq!(r.rcu_nesting, 0, "synchronize_rcu() inside rcu_read_lock()");
        r.grace_periods += 1
    });
}

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

/// `perf_event_ksymbol()`.
///
/// # Safety
/// `sym` is a NUL-terminated string.
pub unsafe fn perf_event_ksymbol(ksym_type: u16, addr: u64, len: u32, unregister: bool, sym: *const c_char) {
    // SAFETY: caller guarantees a C string.
    let s = unsafe { CStr::from_ptr(sym.cast()) }.to_string_lossy().into_owned();
    record(|r| r.ksym_events.push((ksym_type, addr, len, unregister, s)));
}

/// `WARN_ON(1)`: recorded, and printed like the kernel would.
#[track_caller]
pub fn warn() {
    let loc = core::panic::Location::caller();
    eprintln!("WARNING: at {}:{}", loc.file(), loc.line());
    record(|r| r.warnings.push(loc.line()));
}
