// SPDX-License-Identifier: GPL-2.0

//! Instruction slots: executable pages cut into slots that hold the copied
//! (and single-stepped or boosted) instructions of kprobes, and the
//! detour buffers of optimized kprobes.  Port of the "insn slot" part of
//! `kernel/kprobes.c`.
//!
//! kprobe->ainsn.insn points to the copy of the instruction to be
//! single-stepped.  x86_64, POWER4 and above have no-exec support and
//! stepping on the instruction on a vmalloced/kmalloced/data page is a
//! recipe for disaster, hence the pages come from the cache's `alloc`
//! (`execmem_alloc(EXECMEM_KPROBES, ...)` for `kprobe_insn_slots`).
//!
//! Locking: the page list is RCU-protected (readers: [`is_insn_slot_addr`],
//! [`cache_get_kallsym`]); the slot arrays are protected by the cache's
//! mutex, as in C.
//!
//! The C structs are reached through views made at the FFI edge
//! (`exports.rs`): a [`Cache`] for a `struct kprobe_insn_cache`, a
//! `Locked` cache whose mutex the current task holds, and for its pages a
//! `Page` (under the mutex) or a `PageRcu` (in an RCU read-side
//! section).  No reference to the shared structs is ever formed: other CPUs
//! take the mutex and walk the list while we run, so every field is read
//! and written through raw pointers, as the C code does.

use crate::error::{code::ERANGE, Result};
use crate::ffi::{c_char, c_int, c_uint, c_ulong};
use crate::list;
use crate::locks;
use crate::rcu_policy;
use crate::sys;
use crate::types::{KprobeInsnCache, KprobeOpcode, ListHead};
use core::marker::PhantomData;
use core::mem::{offset_of, size_of};
use core::ptr::{self, NonNull};

/// `struct kprobe_insn_page`: one executable page and the state of its
/// slots.  Private to the core, as in C.
#[repr(C)]
pub struct KprobeInsnPage {
    /// Entry in the cache's `pages`.
    pub list: ListHead,
    /// Page of instruction slots.
    pub insns: *mut KprobeOpcode,
    /// Owning cache.
    pub cache: *mut KprobeInsnCache,
    /// Slots in use (USED or DIRTY).
    pub nused: c_int,
    /// Dirty slots on this page.
    pub ngarbage: c_int,
    /// `char slot_used[]`: one [`SlotState`] per slot.
    pub slot_used: [u8; 0],
}

/// State of one slot (`enum kprobe_slot_state`).
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SlotState {
    /// Free.
    Clean = 0,
    /// Freed but possibly still executed by an interrupted task: reusable
    /// only after an RCU grace period.
    Dirty = 1,
    /// Allocated.
    Used = 2,
}

/// `KPROBE_INSN_PAGE_SIZE(slots)`.
const fn insn_page_size(slots: usize) -> usize {
    offset_of!(KprobeInsnPage, slot_used) + slots
}

/// The page containing list entry `l`.
fn kip_of(l: *mut ListHead) -> *mut KprobeInsnPage {
    crate::container_of!(l, KprobeInsnPage, list)
}

/// A `struct kprobe_insn_cache` (`kprobe_insn_slots`, `kprobe_optinsn_slots`
/// or an arch's), seen from Rust.
///
/// # Invariants
/// `ptr` points to a cache that is live for `'a` and initialized: `mutex`
/// is an initialized mutex, `pages` a list head (empty or linking
/// [`KprobeInsnPage`]s, each allocated with `insn_page_size()` of this
/// cache's slots per page), `sym` a NUL-terminated string that lives as
/// long as the cache, and `alloc`, `free`, `sym` and `insn_size` are not
/// written any more.  Other CPUs concurrently lock `mutex`, walk `pages`
/// under RCU, and with the mutex held change the list, `nr_garbage` and the
/// pages: the view forms no reference to the struct, it takes the mutex
/// only through [`locks::mutex`], walks the list only with `list`'s RCU
/// primitives, and touches `nr_garbage` only while holding the mutex
/// (`Locked`).
#[derive(Clone, Copy)]
pub struct Cache<'a> {
    ptr: NonNull<KprobeInsnCache>,
    _live: PhantomData<&'a KprobeInsnCache>,
}

impl<'a> Cache<'a> {
    /// The view of the cache at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to a `struct kprobe_insn_cache` that stays live for
    /// `'a`, whose mutex and page list are initialized, whose `sym` is a
    /// NUL-terminated string living as long as the cache, and whose `alloc`,
    /// `free`, `sym` and `insn_size` nobody writes during `'a`; its other
    /// fields (the mutex, `pages`, `nr_garbage`) are written only by the
    /// slot functions of this module, on any CPU.
    #[inline]
    pub unsafe fn from_raw(ptr: *mut KprobeInsnCache) -> Cache<'a> {
        // INVARIANT: all of it is this function's `# Safety`, and a pointer
        // to a live cache is not null.
        Cache {
            // SAFETY: `ptr` points to a live cache (this function's
            // `# Safety`), so it is not null.
            ptr: unsafe { NonNull::new_unchecked(ptr) },
            _live: PhantomData,
        }
    }

    /// `&kprobe_insn_slots`.
    fn insn_slots() -> Cache<'static> {
        // SAFETY: `sys::insn_slots()` is `&kprobe_insn_slots`, a static of
        // the C shim, never freed, with static initializers for the mutex,
        // the list head, `alloc`/`free`, `insn_size` and the symbol name (a
        // string literal), none of which is written afterwards.
        unsafe { Cache::from_raw(sys::insn_slots()) }
    }

    /// `&kprobe_optinsn_slots`.
    #[cfg(any(CONFIG_OPTPROBES, not(CONFIG_RUST)))]
    fn optinsn_slots() -> Cache<'static> {
        // SAFETY: `sys::optinsn_slots()` is `&kprobe_optinsn_slots`, a static
        // of the C shim initialized like `kprobe_insn_slots` (its `insn_size`
        // is set once by `init_kprobes()` at boot, before any slot is taken
        // or kallsyms can be read) and never freed.
        unsafe { Cache::from_raw(sys::optinsn_slots()) }
    }

    /// The raw pointer, for `kip->cache`.
    #[inline]
    fn as_ptr(self) -> *mut KprobeInsnCache {
        self.ptr.as_ptr()
    }

    /// `c->insn_size`.
    #[inline]
    fn insn_size(self) -> usize {
        // SAFETY: the cache is live for `'a` and nobody writes `insn_size`
        // any more (type invariants); the read forms no reference.
        unsafe { (*self.as_ptr()).insn_size }
    }

    /// The bytes of a slot (`c->insn_size * sizeof(kprobe_opcode_t)`).
    fn unit(self) -> usize {
        self.insn_size() * size_of::<KprobeOpcode>()
    }

    /// `slots_per_page()`.
    fn slots_per_page(self) -> usize {
        sys::PAGE_SIZE / self.unit()
    }

    /// `mutex_lock(&c->mutex)` until the returned [`Locked`] is dropped.
    /// Sleeps: only for the process-context callers ([`get_insn_slot`],
    /// [`free_insn_slot`]).  Always inlined into those two.
    #[inline(always)]
    fn lock(self) -> Locked<'a> {
        // SAFETY: `mutex` is initialized and lives for `'a` (type invariants), as long as the
        // `Locked<'a>` that releases it.
        let guard = unsafe { locks::mutex(ptr::addr_of_mut!((*self.as_ptr()).mutex)) };
        // INVARIANT: the guard holds this cache's mutex, taken just above,
        // until the `Locked` is dropped; `spp` is the cache's.
        Locked {
            guard,
            spp: self.slots_per_page(),
            _cache: PhantomData,
        }
    }

    /// `&c->pages`, for the list primitives.
    #[inline]
    fn pages_head(self) -> *mut ListHead {
        // SAFETY: the cache is live for `'a` (type invariant); only the
        // address of the field is taken.
        unsafe { ptr::addr_of_mut!((*self.as_ptr()).pages) }
    }

    /// `list_for_each_entry_rcu(kip, &c->pages, list)` in the RCU read-side
    /// section `_rcu`.
    fn pages_rcu<'g>(self, _rcu: &'g locks::RcuReadGuard) -> PagesRcu<'g>
    where
        'a: 'g,
    {
        PagesRcu {
            // SAFETY: `pages` is an initialized list head live for `'a`
            // (type invariants), longer than `'g`, and the iterator cannot
            // outlive the RCU read-side section `_rcu` that it borrows.
            it: unsafe { list::iter_rcu(self.pages_head()) },
            _rcu: PhantomData,
        }
    }

    /// `c->alloc()`: a new executable page, or null.  Sleeps.
    fn alloc_page(self) -> *mut KprobeOpcode {
        // SAFETY: the cache is live for `'a` and `alloc` is not written any
        // more (type invariants); the read forms no reference.
        match unsafe { (*self.as_ptr()).alloc } {
            // SAFETY: `alloc` is the page allocator the cache's owner
            // installed (`alloc_insn_page()`, `alloc_optinsn_page()`): it
            // takes no argument (it may sleep, which `might_sleep()`
            // checks).
            Some(alloc) => (unsafe { alloc() }).cast::<KprobeOpcode>(),
            None => ptr::null_mut(),
        }
    }

    /// `perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, insns, PAGE_SIZE,
    /// unregister, c->sym)` for the page `insns`.
    fn perf_ksymbol(self, insns: *mut KprobeOpcode, unregister: bool) {
        // SAFETY: the cache is live for `'a` and `sym` is not written any
        // more (type invariants); the read forms no reference.
        let sym = unsafe { (*self.as_ptr()).sym };
        // SAFETY: `sym` is NUL-terminated and lives as long as the cache
        // (type invariants), which outlives this call.
        unsafe {
            sys::perf_event_ksymbol(
                sys::PERF_RECORD_KSYMBOL_TYPE_OOL,
                insns as u64,
                sys::PAGE_SIZE as u32,
                unregister,
                sym,
            )
        }
    }

    /// `strscpy(dst, c->sym, dst.len())` without the return value: copies at
    /// most `dst.len() - 1` bytes of the name and NUL-terminates (nothing
    /// if `dst` is empty).
    fn copy_sym(self, dst: &mut [c_char]) {
        // SAFETY: the cache is live for `'a` and `sym` is not written any
        // more (type invariants); the read forms no reference.
        let src = unsafe { (*self.as_ptr()).sym };
        let Some((_, body)) = dst.split_last_mut() else {
            return;
        };
        let mut i = 0;
        for d in body.iter_mut() {
            // SAFETY: `sym` is NUL-terminated and nobody writes it (type
            // invariants), and the copy stops at its NUL: bytes `0..=i` are
            // within the string.
            let ch = unsafe { *src.add(i) };
            if ch == 0 {
                break;
            }
            *d = ch;
            i += 1;
        }
        // `i < dst.len()`: at most `body.len()` bytes were copied.
        if let Some(d) = dst.get_mut(i) {
            *d = 0;
        }
    }
}

/// A [`Cache`] whose mutex the current task holds: the right to the slot
/// arrays, `nused` and `ngarbage` of its pages, to `nr_garbage`, and to
/// change (add to, unlink from) the page list.
///
/// Two words, so that it is passed in registers ([`collect_garbage_slots`]
/// takes and gives it back): the cache is the one whose mutex `guard`
/// holds.
///
/// # Invariants
/// `guard` holds the mutex of a cache live for `'a` (its `mutex` field),
/// taken by [`Cache::lock`] and released when this is dropped; `spp` is
/// that cache's `slots_per_page()`.
struct Locked<'a> {
    guard: locks::MutexGuard,
    /// `slots_per_page(c)`, computed once per hold (`insn_size` is not
    /// written once the cache is in use).
    spp: usize,
    _cache: PhantomData<Cache<'a>>,
}

impl<'a> Locked<'a> {
    /// The cache whose mutex is held.
    #[inline(always)]
    fn cache(&self) -> Cache<'a> {
        let c = crate::container_of!(self.guard.as_ptr(), KprobeInsnCache, mutex);
        // SAFETY: the guard holds the `mutex` of a cache live for `'a` (type
        // invariant), so `c` is that cache, initialized, as
        // `Cache::from_raw()` requires (the rest of its `# Safety` is the
        // `Cache` the lock was taken through).
        unsafe { Cache::from_raw(c) }
    }

    /// `c->nr_garbage`.
    fn nr_garbage(&self) -> c_int {
        // SAFETY: the cache is live (`Cache` invariant) and `nr_garbage` is
        // written only under the mutex, which we hold (type invariant).
        unsafe { (*self.cache().as_ptr()).nr_garbage }
    }

    /// `c->nr_garbage = v`.
    fn set_nr_garbage(&mut self, v: c_int) {
        // SAFETY: the cache is live (`Cache` invariant) and `nr_garbage` is
        // read and written only under the mutex, which we hold (type
        // invariant).
        unsafe { (*self.cache().as_ptr()).nr_garbage = v }
    }

    /// `list_for_each_entry_rcu(kip, &c->pages, list)` under the mutex and in
    /// the RCU read-side section `_rcu` (as upstream walks it): each page
    /// once, each view valid as long as the mutex, also after `_rcu`.
    fn pages_rcu(&mut self, _rcu: &locks::RcuReadGuard) -> PagesLocked<'_> {
        let spp = self.spp;
        PagesLocked {
            // SAFETY: `pages` is an initialized list head, live as long as
            // the cache (`Cache` invariants); we are in an RCU read-side
            // section and hold the mutex, which keeps every page on the
            // list alive until we unlink it.
            it: unsafe { list::iter_rcu(self.cache().pages_head()) },
            spp,
            _locked: PhantomData,
        }
    }

    /// `list_for_each_entry_safe(kip, next, &c->pages, list)` under the
    /// mutex: the next entry is read before a page is yielded, so the page
    /// may be unlinked and freed (`Page::unlink_and_free()`).
    fn pages_safe(&mut self) -> PagesSafe<'_> {
        let head = self.cache().pages_head();
        PagesSafe {
            head,
            // SAFETY: `head` is an initialized list head, live as long as
            // the cache (`Cache` invariants); the mutex we hold serializes
            // its writers.
            pos: unsafe { (*head).next },
            spp: self.spp,
            _locked: PhantomData,
        }
    }
}

/// A page of a [`Locked`] cache.
///
/// # Invariants
/// `ptr` points to a [`KprobeInsnPage`] on the list of a cache whose mutex
/// the current task holds for `'l`, with `spp` slots (its `slot_used` has
/// `spp` bytes); the page stays allocated for `'l` unless this view is
/// consumed by `Page::unlink_and_free()`, the only code that frees pages.  No
/// other `Page` of the same page exists (the walkers yield each page once
/// and borrow the [`Locked`] mutably).  `list` and `insns` are read by RCU
/// readers on other CPUs, so no reference to the page is formed;
/// `slot_used`, `nused` and `ngarbage` are accessed only by mutex holders,
/// hence by nobody else during `'l`.
struct Page<'l> {
    ptr: *mut KprobeInsnPage,
    spp: usize,
    _locked: PhantomData<&'l mut KprobeInsnPage>,
}

impl<'l> Page<'l> {
    /// `kip->insns`.
    #[inline]
    fn insns(&self) -> *mut KprobeOpcode {
        // SAFETY: the page is live (type invariant) and `insns` was written
        // before the page was published; the read forms no reference.
        unsafe { (*self.ptr).insns }
    }

    /// `kip->cache`.
    fn cache(&self) -> Cache<'l> {
        // SAFETY: the page is live (type invariant) and `cache` was written
        // before the page was published; the read forms no reference.
        let c = unsafe { (*self.ptr).cache };
        // INVARIANT: `kip->cache` is the cache the page is on (set from a
        // `Cache` when the page was created), initialized, and it outlives
        // its pages, hence `'l`.
        Cache {
            // SAFETY: `c` was set from `Cache::as_ptr()`, which is not null.
            ptr: unsafe { NonNull::new_unchecked(c) },
            _live: PhantomData,
        }
    }

    /// `list_is_singular(&kip->list)`: is it the cache's only page?
    fn is_singular(&self) -> bool {
        // SAFETY: the page is live and on the cache's list, whose updaters
        // the mutex we hold serializes (type invariant).
        unsafe { list::list_is_singular(ptr::addr_of_mut!((*self.ptr).list)) }
    }

    /// `list_del_rcu(&kip->list); synchronize_rcu(); kip->cache->free(kip->insns);
    /// kfree(kip);`: unlinks the page and frees it after a grace period.
    /// Outside RCU read-side sections: sleeps.
    fn unlink_and_free(self) {
        // SAFETY: the page is on the cache's list and we hold the mutex that
        // serializes the list's updaters (type invariant).
        unsafe { list::list_del_rcu(ptr::addr_of_mut!((*self.ptr).list)) };
        // Upstream: synchronize_rcu() (`kprobes.expedited_gp`: expedited).
        rcu_policy::synchronize_unregister();
        let cache = self.cache().as_ptr();
        // SAFETY: the cache is live and its `free` is not written any more
        // (`Cache` invariants); the read forms no reference.
        if let Some(free) = unsafe { (*cache).free } {
            // SAFETY: `insns` came from this cache's `alloc` (`get_insn_slot()`);
            // the page is off the list and a grace period has passed, so no
            // RCU reader still looks at it, and this view, consumed here, was
            // its only one.
            unsafe { free(self.insns().cast()) };
        }
        // SAFETY: the descriptor came from `kmalloc()` in `get_insn_slot()`,
        // nothing reaches it any more (as above), and `self` is consumed.
        unsafe { sys::kfree(self.ptr.cast()) };
    }

    /// `kip->slot_used[0..slots_per_page]`.
    fn slots(&mut self) -> &mut [u8] {
        // SAFETY: `slot_used` has `spp` bytes (the page was allocated with
        // `insn_page_size(spp)`), the page is live, and only mutex holders,
        // that is only this view during `'l`, access them (type invariants):
        // an exclusive reference to just these bytes is sound.
        unsafe {
            core::slice::from_raw_parts_mut(
                ptr::addr_of_mut!((*self.ptr).slot_used).cast::<u8>(),
                self.spp,
            )
        }
    }

    /// State of slot `i` (`kip->slot_used[i]`), `None` past the last slot.
    fn state(&mut self, i: usize) -> Option<u8> {
        self.slots().get(i).copied()
    }

    /// `kip->slot_used[i] = s` (nothing past the last slot).
    fn set_state(&mut self, i: usize, s: SlotState) {
        if let Some(x) = self.slots().get_mut(i) {
            *x = s as u8;
        }
    }

    /// `kip->nused`.
    fn nused(&self) -> c_int {
        // SAFETY: the page is live and `nused` is accessed only under the
        // mutex, which the current task holds (type invariants).
        unsafe { (*self.ptr).nused }
    }

    /// `kip->nused = v`.
    fn set_nused(&mut self, v: c_int) {
        // SAFETY: the page is live and `nused` is accessed only under the
        // mutex, which the current task holds (type invariants).
        unsafe { (*self.ptr).nused = v }
    }

    /// `kip->ngarbage`.
    fn ngarbage(&self) -> c_int {
        // SAFETY: the page is live and `ngarbage` is accessed only under the
        // mutex, which the current task holds (type invariants).
        unsafe { (*self.ptr).ngarbage }
    }

    /// `kip->ngarbage = v`.
    fn set_ngarbage(&mut self, v: c_int) {
        // SAFETY: the page is live and `ngarbage` is accessed only under the
        // mutex, which the current task holds (type invariants).
        unsafe { (*self.ptr).ngarbage = v }
    }
}

/// The pages of a [`Locked`] cache, walked with the RCU primitives.
struct PagesLocked<'l> {
    it: list::RcuIter,
    spp: usize,
    _locked: PhantomData<&'l mut KprobeInsnPage>,
}

impl<'l> Iterator for PagesLocked<'l> {
    type Item = Page<'l>;
    fn next(&mut self) -> Option<Page<'l>> {
        // INVARIANT: an entry of the list of the cache whose mutex is held
        // for `'l`; the walk yields each page once and borrows the `Locked`
        // mutably for `'l`, so no other walk runs.
        self.it.next().map(|l| Page {
            ptr: kip_of(l),
            spp: self.spp,
            _locked: PhantomData,
        })
    }
}

/// The pages of a [`Locked`] cache, each one's `next` read before it is
/// yielded.
struct PagesSafe<'l> {
    head: *mut ListHead,
    pos: *mut ListHead,
    spp: usize,
    _locked: PhantomData<&'l mut KprobeInsnPage>,
}

impl<'l> Iterator for PagesSafe<'l> {
    type Item = Page<'l>;
    fn next(&mut self) -> Option<Page<'l>> {
        if self.pos == self.head {
            return None;
        }
        let cur = self.pos;
        // SAFETY: `cur` is on the list and live: we hold the mutex, so only
        // the `Page` we yielded before it could have been unlinked, and that
        // one's successor `cur` was read while it was still on the list.
        self.pos = unsafe { (*cur).next };
        // INVARIANT: as in `PagesLocked`: an entry of the locked cache's
        // list, yielded once by a walk that borrows the `Locked` mutably.
        Some(Page {
            ptr: kip_of(cur),
            spp: self.spp,
            _locked: PhantomData,
        })
    }
}

/// A page of a cache seen in an RCU read-side section.
///
/// # Invariants
/// `ptr` points to a [`KprobeInsnPage`] that was on the cache's list in the
/// RCU read-side section `'g`, so it is not freed before `'g` ends.  Only
/// `insns`, written before the page was published, is read; no reference to
/// the page is formed (the mutex holder writes its other fields meanwhile).
struct PageRcu<'g> {
    ptr: *mut KprobeInsnPage,
    _rcu: PhantomData<&'g locks::RcuReadGuard>,
}

impl PageRcu<'_> {
    /// `kip->insns`.
    #[inline]
    fn insns(&self) -> *mut KprobeOpcode {
        // SAFETY: the page is live in this RCU read-side section and `insns`
        // was written before `list_add_rcu()` published it (type invariant).
        unsafe { (*self.ptr).insns }
    }
}

/// The pages of a cache in an RCU read-side section.
struct PagesRcu<'g> {
    it: list::RcuIter,
    _rcu: PhantomData<&'g locks::RcuReadGuard>,
}

impl<'g> Iterator for PagesRcu<'g> {
    type Item = PageRcu<'g>;
    fn next(&mut self) -> Option<PageRcu<'g>> {
        // INVARIANT: an entry of the list, read in the RCU read-side section
        // `'g`.
        self.it.next().map(|l| PageRcu {
            ptr: kip_of(l),
            _rcu: PhantomData,
        })
    }
}

/// `__get_insn_slot()`: finds a slot on an executable page for an
/// instruction, allocating a new page if there is no room on existing ones.
/// Returns null if no memory.  Process context: may sleep.
pub fn get_insn_slot(c: Cache<'_>) -> *mut KprobeOpcode {
    let mut found: *mut KprobeOpcode = ptr::null_mut();

    // Since the slot array is not protected by rcu, we need a mutex.
    let mut m = c.lock();
    let spp = m.spp;
    'retry: loop {
        {
            let rcu = locks::rcu_read();
            for mut kip in m.pages_rcu(&rcu) {
                if (kip.nused() as usize) < spp {
                    if let Some(i) = kip
                        .slots()
                        .iter()
                        .position(|&s| s == SlotState::Clean as u8)
                    {
                        kip.set_state(i, SlotState::Used);
                        kip.set_nused(kip.nused() + 1);
                        found = kip.insns().wrapping_add(i * c.insn_size());
                        break 'retry;
                    }
                    // kip->nused is broken. Fix it.
                    kip.set_nused(spp as c_int);
                    sys::warn();
                }
            }
        }

        // If there are any garbage slots, collect it and try again.
        if m.nr_garbage() != 0 {
            // Upstream's `collect_garbage_slots(c) == 0`: always.
            m = collect_garbage_slots(m);
            continue 'retry;
        }

        // All out of space.  Need to allocate a new page.
        let kip = sys::kmalloc(insn_page_size(spp)).cast::<KprobeInsnPage>();
        if kip.is_null() {
            break 'retry;
        }
        let insns = c.alloc_page();
        if insns.is_null() {
            // SAFETY: `kip` came from `kmalloc()` just above and was never
            // published.
            unsafe { sys::kfree(kip.cast()) };
            break 'retry;
        }
        // SAFETY: `kip` is a fresh `kmalloc()` of `insn_page_size(spp)` bytes (aligned for the
        // struct): the header and the `spp` slot states are in bounds, and nobody sees it until
        // `list_add_rcu()` publishes it (release store) once filled in; the list head is live
        // (`Cache` invariants) and its updaters are serialized by the mutex, which `m` holds.
        unsafe {
            (*kip).insns = insns;
            list::init_list_head(ptr::addr_of_mut!((*kip).list));
            let slot_used = ptr::addr_of_mut!((*kip).slot_used).cast::<u8>();
            ptr::write_bytes(slot_used, SlotState::Clean as u8, spp);
            *slot_used = SlotState::Used as u8;
            (*kip).nused = 1;
            (*kip).ngarbage = 0;
            (*kip).cache = c.as_ptr();
            list::list_add_rcu(ptr::addr_of_mut!((*kip).list), c.pages_head());
        }
        found = insns;

        // Record the perf ksymbol register event after adding the page.
        c.perf_ksymbol(insns, false);
        break 'retry;
    }
    found
}

/// `collect_one_slot()`: frees slot `idx`.  Returns the page back while it
/// still has slots in use; `None` (upstream's true) when it has none any
/// more, then it is freed unless it is the cache's last page (and all its
/// garbage is collected).  Outside RCU read-side sections: may sleep.
fn collect_one_slot(mut kip: Page<'_>, idx: usize) -> Option<Page<'_>> {
    kip.set_state(idx, SlotState::Clean);
    kip.set_nused(kip.nused().wrapping_sub(1));
    if kip.nused() != 0 {
        return Some(kip);
    }
    // Page is no longer in use.  Free it unless it's the last one.  We
    // keep the last one so as not to have to set it up again the next
    // time somebody inserts a probe.
    if !kip.is_singular() {
        // Record perf ksymbol unregister event before removing the page.
        kip.cache().perf_ksymbol(kip.insns(), true);
        kip.unlink_and_free();
    }
    None
}

/// `collect_garbage_slots()`: frees every dirty slot after a grace period,
/// and gives the lock back (upstream's always returns 0).  Outside RCU
/// read-side sections: sleeps.
fn collect_garbage_slots(mut m: Locked<'_>) -> Locked<'_> {
    // Ensure no-one is interrupted on the garbages.  Upstream:
    // synchronize_rcu() (`kprobes.expedited_gp`: expedited).
    rcu_policy::synchronize_unregister();

    for mut kip in m.pages_safe() {
        if kip.ngarbage() != 0 {
            kip.set_ngarbage(0); // we will collect all garbages
            for i in 0..kip.spp {
                if kip.state(i) == Some(SlotState::Dirty as u8) {
                    match collect_one_slot(kip, i) {
                        Some(k) => kip = k,
                        None => break,
                    }
                }
            }
        }
    }
    m.set_nr_garbage(0);
    m
}

/// `__free_insn_slot()`: returns `slot` to the cache.  A `dirty` slot may
/// still be executed by an interrupted task and is only reused after a
/// grace period.  Process context: may sleep.
#[inline(always)] // into its one C ABI body (exports.rs): no wrapper call
pub fn free_insn_slot(c: Cache<'_>, slot_addr: *mut KprobeOpcode, dirty: bool) {
    let mut m = c.lock();
    let spp = m.spp;
    // Read after the lock, as upstream's loop does: nothing to keep across
    // the mutex_lock() call.
    let unit = c.unit();
    let mut hit: Option<(Page<'_>, usize)> = None;
    {
        let rcu = locks::rcu_read();
        for kip in m.pages_rcu(&rcu) {
            // Upstream's `long / size_t` is an unsigned division: a slot
            // below the page gives an index far above `spp`.
            let idx = (slot_addr as usize).wrapping_sub(kip.insns() as usize) / unit;
            if idx < spp {
                hit = Some((kip, idx));
                break;
            }
        }
        // Could not find this slot.
        if hit.is_none() {
            sys::warn();
        }
    }
    // Mark and sweep: this may sleep.
    if let Some((mut kip, idx)) = hit {
        // Check double free.  Warned once the slot is marked (below), as
        // the mutex still is held: a call here would keep the page, the
        // index and `dirty` in callee-saved registers on every call.
        let double = kip.state(idx) != Some(SlotState::Used as u8);
        if dirty {
            kip.set_state(idx, SlotState::Dirty);
            // At most `spp` each (collected beyond it): no overflow.
            kip.set_ngarbage(kip.ngarbage().wrapping_add(1));
            m.set_nr_garbage(m.nr_garbage().wrapping_add(1));
            if m.nr_garbage() as usize > spp {
                // Released when the lock it gives back is dropped.
                drop(collect_garbage_slots(m));
            }
        } else {
            collect_one_slot(kip, idx);
        }
        if double {
            sys::warn();
        }
    }
}

/// `__is_insn_slot_addr()`: is `addr` on a page of this cache?  Sleep-less;
/// used to tell whether an address on a stack is text.
pub fn is_insn_slot_addr(c: Cache<'_>, addr: usize) -> bool {
    let mut ret = false;
    let rcu = locks::rcu_read();
    for kip in c.pages_rcu(&rcu) {
        let insns = kip.insns() as usize;
        if addr >= insns && addr < insns.wrapping_add(sys::PAGE_SIZE) {
            ret = true;
            break;
        }
    }
    ret
}

/// `kprobe_cache_get_kallsym()`: the `*symnum`-th page of the cache as a
/// kallsyms entry; decrements `*symnum` for each page skipped.  `ERANGE`
/// when `*symnum` is past the last page.
pub fn cache_get_kallsym(
    c: Cache<'_>,
    symnum: &mut c_uint,
    value: &mut c_ulong,
    type_: &mut c_char,
    sym: &mut [c_char; sys::KSYM_NAME_LEN],
) -> Result {
    let mut ret = Err(ERANGE);
    let rcu = locks::rcu_read();
    for kip in c.pages_rcu(&rcu) {
        let n = *symnum;
        *symnum = n.wrapping_sub(1);
        if n != 0 {
            continue;
        }
        c.copy_sym(sym);
        *type_ = b't' as c_char;
        *value = kip.insns() as c_ulong;
        ret = Ok(());
        break;
    }
    ret
}

/// `kprobe_get_kallsym()`: the `symnum`-th kallsyms entry the core adds:
/// the pages of `kprobe_insn_slots`, then of `kprobe_optinsn_slots`, then
/// the arch's.  `ERANGE` past the last.
pub fn kprobe_get_kallsym(
    mut symnum: c_uint,
    value: &mut c_ulong,
    type_: &mut c_char,
    sym: &mut [c_char; sys::KSYM_NAME_LEN],
) -> Result {
    if cache_get_kallsym(Cache::insn_slots(), &mut symnum, value, type_, sym).is_ok() {
        return Ok(());
    }
    #[cfg(any(CONFIG_OPTPROBES, not(CONFIG_RUST)))]
    if cache_get_kallsym(Cache::optinsn_slots(), &mut symnum, value, type_, sym).is_ok() {
        return Ok(());
    }
    // SAFETY: the pointers come from exclusive references, valid for the
    // call, and `sym` has `KSYM_NAME_LEN` bytes by its type: all that the
    // arch's `arch_kprobe_get_kallsym()` writes.
    if unsafe { sys::arch_kprobe_get_kallsym(&mut symnum, value, type_, sym.as_mut_ptr()) } == 0 {
        return Ok(());
    }
    Err(ERANGE)
}
