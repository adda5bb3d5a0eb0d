// SPDX-License-Identifier: GPL-2.0

//! Host tests of the instruction slot caches against the simulated kernel.

use crate::exports::*;
use crate::ffi::{c_char, c_uint, c_ulong, c_void};
use crate::sys::{self, record};
use crate::test_caches::{destroy_cache, new_cache};
use crate::types::{KprobeInsnCache, KprobeOpcode};
use std::cell::Cell;

const PAGE: usize = sys::PAGE_SIZE;
/// x86 MAX_INSN_SIZE.
const INSN: usize = 16;
const SPP: usize = PAGE / INSN;

thread_local! {
    static PAGES: Cell<isize> = const { Cell::new(0) };
    static FAIL_PAGE: Cell<bool> = const { Cell::new(false) };
}

unsafe extern "C" fn page_alloc() -> *mut c_void {
    if FAIL_PAGE.with(|f| f.replace(false)) {
        return core::ptr::null_mut();
    }
    PAGES.with(|p| p.set(p.get() + 1));
    // `alloc_insn_page()`: a page named `pageN` in the trace.
    sys::execmem_alloc(PAGE)
}

unsafe extern "C" fn page_free(p: *mut c_void) {
    PAGES.with(|c| c.set(c.get() - 1));
    // SAFETY: the cache frees only pages of `page_alloc()`, once.
    unsafe { sys::execmem_free(p) }
}

fn pages() -> isize {
    PAGES.with(|p| p.get())
}

/// A heap-allocated cache, initialized like `kprobe_insn_slots`: allocated
/// once and from then on reached only through the raw pointer (its page
/// list points into it, as in C), freed by [`Cache::destroy`].
struct Cache(*mut KprobeInsnCache);

impl Cache {
    fn new(insn_size: usize) -> Cache {
        let c = new_cache(c"kprobe_insn_page", insn_size, page_alloc, Some(page_free));
        Cache(c)
    }
    fn p(&self) -> *mut KprobeInsnCache {
        self.0
    }
    fn get(&mut self) -> *mut KprobeOpcode {
        // SAFETY: live cache.
        unsafe { __get_insn_slot(self.p()) }
    }
    fn free(&mut self, s: *mut KprobeOpcode, dirty: bool) {
        // SAFETY: live cache.
        unsafe { __free_insn_slot(self.p(), s, dirty as i32) }
    }
    fn is_slot(&mut self, a: usize) -> bool {
        // SAFETY: live cache.
        unsafe { __is_insn_slot_addr(self.p(), a as c_ulong) }
    }
    fn nr_garbage(&self) -> i32 {
        // SAFETY: live cache, no slot operation in flight.
        unsafe { (*self.p()).nr_garbage }
    }
    fn kallsym(&mut self, n: u32) -> (i32, u32, usize, u8, String) {
        let mut symnum: c_uint = n;
        let mut value: c_ulong = 0;
        let mut ty: c_char = 0;
        let mut sym = vec![0 as c_char; sys::KSYM_NAME_LEN];
        // SAFETY: valid out pointers, sym has KSYM_NAME_LEN bytes.
        let r = unsafe {
            kprobe_cache_get_kallsym(self.p(), &mut symnum, &mut value, &mut ty, sym.as_mut_ptr())
        };
        // SAFETY: NUL-terminated by the callee (or all zero).
        let s = unsafe { std::ffi::CStr::from_ptr(sym.as_ptr().cast()) }
            .to_string_lossy()
            .into_owned();
        (r, symnum, value as usize, ty as u8, s)
    }
    fn npages(&mut self) -> usize {
        // SAFETY: live list.
        unsafe { crate::list::iter_rcu(&raw mut (*self.p()).pages) }.count()
    }
    /// Frees every page and the cache itself (not an upstream operation).
    fn teardown(self) {
        // SAFETY: test-only teardown of a quiescent cache from `new()`,
        // whose pages came from `page_alloc()`; nothing uses it after.
        unsafe { destroy_cache(self.0, page_free) }
    }
    /// [`Cache::teardown`], as a test epilogue that checks that the core
    /// leaked nothing.
    fn destroy(self) {
        self.teardown();
        assert_eq!(pages(), 0, "pages leaked");
        assert_eq!(record(|r| r.allocs), 0, "kmalloc leaked");
    }
}

fn warnings() -> usize {
    record(|r| r.warnings.len())
}

#[test]
fn first_slot_allocates_a_page_and_reports_it_to_perf() {
    let mut c = Cache::new(INSN);
    let s = c.get();
    assert!(!s.is_null());
    assert_eq!(pages(), 1);
    assert_eq!(s as usize % PAGE, 0, "first slot is the page start");
    let ev = record(|r| r.ksym_events.clone());
    assert_eq!(
        ev,
        vec![(
            2,
            s as u64,
            PAGE as u32,
            false,
            "kprobe_insn_page".to_string()
        )]
    );
    assert_eq!(
        sys::arch(|a| a.events.clone()),
        ["perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page"],
        "traced as model.c does"
    );
    c.destroy();
}

#[test]
fn execmem_pages_are_named_in_allocation_order_and_never_renumbered() {
    let a = sys::execmem_alloc(PAGE);
    let b = sys::execmem_alloc(PAGE);
    let at = |p: *mut c_void, off: usize| sys::hd_page(p.cast::<u8>().wrapping_add(off).cast());
    assert_eq!(at(a, 0), "page0+0x0");
    assert_eq!(at(b, 0x10), "page1+0x10");
    assert_eq!(at(b, PAGE), "page?", "past the page");
    assert_eq!(sys::hd_page(core::ptr::null()), "null");
    // SAFETY: `a` is from `execmem_alloc()` and not used after.
    unsafe { sys::execmem_free(a) };
    assert_eq!(at(a, 0), "page?", "a freed page has no name");
    let c = sys::execmem_alloc(PAGE);
    assert_eq!(at(c, 0), "page2+0x0", "numbers are not reused");
    // SAFETY: from `execmem_alloc()`, not used after.
    unsafe {
        sys::execmem_free(b);
        sys::execmem_free(c);
    }
    assert_eq!(
        sys::arch(|a| a.events.clone()),
        [
            "execmem_free page0",
            "execmem_free page1",
            "execmem_free page2"
        ]
    );
}

#[test]
fn slots_are_handed_out_in_order_insn_size_apart() {
    let mut c = Cache::new(INSN);
    let a = c.get();
    let b = c.get();
    let d = c.get();
    assert_eq!(b as usize - a as usize, INSN);
    assert_eq!(d as usize - b as usize, INSN);
    c.destroy();
}

#[test]
fn slots_per_page_follows_insn_size() {
    // An optinsn-like cache with bigger slots fills a page sooner.
    let big = 256;
    let mut c = Cache::new(big);
    let first = c.get();
    for _ in 1..PAGE / big {
        c.get();
    }
    assert_eq!(pages(), 1);
    let next = c.get();
    assert_eq!(pages(), 2);
    assert_ne!(next as usize / PAGE, first as usize / PAGE);
    c.destroy();
}

#[test]
fn full_page_adds_a_new_page_at_the_head() {
    let mut c = Cache::new(INSN);
    let first = c.get();
    for _ in 1..SPP {
        c.get();
    }
    assert_eq!(c.npages(), 1);
    let s = c.get();
    assert_eq!(c.npages(), 2);
    assert_eq!(s as usize % PAGE, 0);
    // list_add_rcu puts the new page first: kallsyms entry 0 is the new one.
    assert_eq!(c.kallsym(0).2, s as usize);
    assert_eq!(c.kallsym(1).2, first as usize);
    c.destroy();
}

#[test]
fn clean_free_makes_the_slot_reusable_at_once() {
    let mut c = Cache::new(INSN);
    let a = c.get();
    let b = c.get();
    c.free(a, false);
    assert_eq!(c.get(), a);
    let _ = b;
    assert_eq!(record(|r| r.grace_periods), 0);
    c.destroy();
}

#[test]
fn dirty_free_is_not_reused_before_a_grace_period() {
    let mut c = Cache::new(INSN);
    let a = c.get();
    c.free(a, true);
    assert_eq!(c.nr_garbage(), 1);
    let b = c.get();
    assert_ne!(
        a, b,
        "a dirty slot must not be handed out while clean ones remain"
    );
    assert_eq!(record(|r| r.grace_periods), 0);
    c.destroy();
}

#[test]
fn garbage_is_collected_when_it_exceeds_a_page_worth() {
    let mut c = Cache::new(INSN);
    let mut s = Vec::new();
    for _ in 0..SPP + 2 {
        s.push(c.get());
    }
    assert_eq!(c.npages(), 2);
    for &x in &s[..SPP] {
        c.free(x, true);
    }
    assert_eq!(c.nr_garbage() as usize, SPP, "not over the threshold yet");
    assert_eq!(record(|r| r.grace_periods), 0);
    c.free(s[SPP], true);
    // nr_garbage > slots_per_page: collected after synchronize_rcu().
    assert_eq!(c.nr_garbage(), 0);
    assert!(record(|r| r.grace_periods) >= 1);
    c.destroy();
}

#[test]
fn full_cache_with_garbage_collects_instead_of_allocating() {
    let mut c = Cache::new(INSN);
    let mut s = Vec::new();
    for _ in 0..SPP {
        s.push(c.get());
    }
    c.free(s[5], true);
    // Page full except for a dirty slot: __get_insn_slot collects garbage
    // and retries rather than allocating a second page.
    let again = c.get();
    assert_eq!(again, s[5]);
    assert_eq!(c.npages(), 1);
    assert_eq!(record(|r| r.grace_periods), 1);
    c.destroy();
}

#[test]
fn emptied_page_is_freed_unless_it_is_the_last_one() {
    let mut c = Cache::new(INSN);
    let mut s = Vec::new();
    for _ in 0..SPP + 1 {
        s.push(c.get());
    }
    assert_eq!(pages(), 2);
    let newest = s[SPP];
    c.free(newest, false);
    assert_eq!(pages(), 1, "empty page freed");
    let ev = record(|r| r.ksym_events.clone());
    assert_eq!(
        ev.last().unwrap(),
        &(
            2,
            newest as u64,
            PAGE as u32,
            true,
            "kprobe_insn_page".to_string()
        )
    );
    assert_eq!(record(|r| r.grace_periods), 1, "freed after a grace period");
    assert_eq!(
        sys::arch(|a| a.events.last().cloned()),
        Some("execmem_free page1".to_string()),
        "the second page allocated is model.c's page1"
    );
    for &x in &s[..SPP] {
        c.free(x, false);
    }
    assert_eq!(pages(), 1, "the last page is kept");
    assert_eq!(c.npages(), 1);
    c.destroy();
}

#[test]
fn is_insn_slot_addr_covers_exactly_the_pages() {
    let mut c = Cache::new(INSN);
    assert!(!c.is_slot(0x1000));
    let s = c.get() as usize;
    assert!(c.is_slot(s));
    assert!(c.is_slot(s + PAGE - 1));
    assert!(!c.is_slot(s + PAGE));
    assert!(!c.is_slot(s - 1));
    c.destroy();
}

#[test]
fn kallsym_enumerates_pages_then_erange() {
    let mut c = Cache::new(INSN);
    assert_eq!(c.kallsym(0).0, -sys::ERANGE);
    let s = c.get() as usize;
    let (r, n, v, t, name) = c.kallsym(0);
    assert_eq!((r, v, t, name.as_str()), (0, s, b't', "kprobe_insn_page"));
    assert_eq!(n, u32::MAX, "symnum is post-decremented like the C code");
    let (r, n, ..) = c.kallsym(1);
    assert_eq!(r, -sys::ERANGE);
    assert_eq!(n, 0, "one page skipped");
    let (r, n, ..) = c.kallsym(5);
    assert_eq!((r, n), (-sys::ERANGE, 4));
    c.destroy();
}

#[test]
fn kallsym_name_is_truncated_to_ksym_name_len() {
    let long = vec![b'x'; sys::KSYM_NAME_LEN + 10];
    let mut cs = long.clone();
    cs.push(0);
    let mut c = Cache::new(INSN);
    // SAFETY: live cache, no slot operation in flight.
    unsafe { (*c.p()).sym = cs.as_ptr() as *const c_char };
    c.get();
    let (r, _, _, _, name) = c.kallsym(0);
    assert_eq!(r, 0);
    assert_eq!(name.len(), sys::KSYM_NAME_LEN - 1);
    c.destroy();
}

#[test]
fn freeing_an_unknown_slot_warns_and_changes_nothing() {
    let mut c = Cache::new(INSN);
    let a = c.get();
    c.free((a as usize + 2 * PAGE) as *mut KprobeOpcode, false);
    assert_eq!(warnings(), 1);
    // The real slot is still in use: the next get is a different slot.
    assert_ne!(c.get(), a);
    c.destroy();
}

#[test]
fn double_free_warns() {
    let mut c = Cache::new(INSN);
    let a = c.get();
    let _b = c.get();
    c.free(a, false);
    assert_eq!(warnings(), 0);
    c.free(a, false);
    assert_eq!(warnings(), 1);
    c.destroy();
}

#[test]
fn kmalloc_failure_returns_null_and_leaks_nothing() {
    let mut c = Cache::new(INSN);
    record(|r| r.fail_kmalloc = 1);
    assert!(c.get().is_null());
    assert_eq!(pages(), 0);
    assert_eq!(c.npages(), 0);
    assert!(!c.get().is_null(), "works again afterwards");
    c.destroy();
}

#[test]
fn page_alloc_failure_returns_null_and_frees_the_descriptor() {
    let mut c = Cache::new(INSN);
    FAIL_PAGE.with(|f| f.set(true));
    assert!(c.get().is_null());
    assert_eq!(record(|r| r.allocs), 0);
    assert_eq!(c.npages(), 0);
    assert!(
        record(|r| r.ksym_events.is_empty()),
        "no perf event for a page never added"
    );
    c.destroy();
}

#[test]
fn broken_nused_is_fixed_with_a_warning() {
    let mut c = Cache::new(INSN);
    let a = c.get();
    // Corrupt the accounting: nused says free slots exist, the array is full.
    // SAFETY: live cache with one page.
    let kip = crate::container_of!(
        unsafe { (*c.p()).pages.next },
        crate::slots::KprobeInsnPage,
        list
    );
    for _ in 1..SPP {
        c.get();
    }
    // SAFETY: `kip` is the cache's only page.
    unsafe { (*kip).nused = 3 };
    let b = c.get();
    assert_eq!(warnings(), 1);
    // SAFETY: as above.
    assert_eq!(unsafe { (*kip).nused } as usize, SPP, "nused repaired");
    assert!(!b.is_null());
    assert_ne!(
        b as usize / PAGE,
        a as usize / PAGE,
        "got a slot on a new page"
    );
    c.destroy();
}

#[test]
fn concurrent_get_and_free_keep_slots_unique() {
    /// The cache pointer, shared by the threads as C would share it.
    #[derive(Clone, Copy)]
    struct Shared(*mut KprobeInsnCache);
    // SAFETY: the cache is only touched through its mutex-protected API.
    unsafe impl Send for Shared {}
    impl Shared {
        // A method, so that the closures capture the whole `Send` wrapper
        // rather than its raw pointer field.
        fn ptr(self) -> *mut KprobeInsnCache {
            self.0
        }
    }
    let c = Cache::new(INSN);
    let shared = Shared(c.p());
    // Fewer rounds under Miri, which interprets every step; still enough for
    // several pages, dirty frees and garbage collections across threads.
    let rounds = if cfg!(miri) { 300 } else { 2000 };
    let mut hs = Vec::new();
    for _ in 0..4 {
        hs.push(std::thread::spawn(move || {
            let cp = shared.ptr();
            let mut mine = Vec::new();
            for i in 0..rounds {
                // SAFETY: live cache, API is mutex-protected.
                let s = unsafe { __get_insn_slot(cp) };
                assert!(!s.is_null());
                mine.push(s as usize);
                if i % 3 == 0 {
                    let x = mine.swap_remove(0);
                    // SAFETY: as above.
                    unsafe { __free_insn_slot(cp, x as *mut KprobeOpcode, i % 2) };
                }
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for h in hs {
        all.extend(h.join().unwrap());
    }
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "a slot was handed out twice");
    // The pages and descriptors were counted on the worker threads: free
    // them without the per-thread leak checks.
    c.teardown();
}

#[test]
fn view_api_behaves_like_the_exports() {
    use crate::slots::{self, Cache as View};
    let c = Cache::new(INSN);
    // SAFETY: `c` is a live, initialized cache (`Cache::new()`); its
    // configuration is not written while the views exist.
    let v = unsafe { View::from_raw(c.p()) };
    let a = slots::get_insn_slot(v);
    let b = slots::get_insn_slot(v);
    assert_eq!(b as usize - a as usize, INSN);
    assert!(slots::is_insn_slot_addr(v, a as usize));
    assert!(!slots::is_insn_slot_addr(v, a as usize + PAGE));
    let (mut n, mut value, mut ty) = (0 as c_uint, 0 as c_ulong, 0 as c_char);
    let mut sym = [0 as c_char; sys::KSYM_NAME_LEN];
    assert_eq!(
        slots::cache_get_kallsym(v, &mut n, &mut value, &mut ty, &mut sym),
        Ok(())
    );
    assert_eq!((value as usize, ty), (a as usize, b't'));
    slots::free_insn_slot(v, a, true);
    assert_eq!(c.nr_garbage(), 1);
    slots::free_insn_slot(v, b, false);
    assert_eq!(slots::get_insn_slot(v), b, "a clean slot is reused at once");
    assert_eq!(warnings(), 0);
    c.destroy();
}
