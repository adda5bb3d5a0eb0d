// SPDX-License-Identifier: GPL-2.0

//! The address index behind `get_kprobe()`: an open-addressed table of
//! probe pointers, published with RCU, rebuilt under `kprobe_mutex`, so
//! that a hit finds its probe in a bounded number of steps however many
//! probes are registered (upstream's 64-bucket `kprobe_table` chains grow
//! as N/64).  `kprobe_table` stays, unchanged: it is what `kprobes/list`
//! and the other walks iterate, so their order is upstream's; every probe
//! in it is in the index and the other way round (`registry.rs` changes
//! both under `kprobe_mutex`).
//!
//! # Design
//! - A table has `cap` slots (any number from 64 up, not a power of two);
//!   a probe's home slot is `hash * (cap - TAIL) >> 32`, `hash` being the
//!   low 32 bits of `addr` times `GOLDEN_RATIO_32`, as `hash_32()`'s (the
//!   kernel's text and modules lie within 4 GiB, so those bits tell its
//!   addresses apart); linear probing from there, wrapping at `cap`.  The
//!   header also holds `(cap - TAIL) << 32`: with it one `mul` gives the
//!   home slot, and a 32-bit multiply the hash (on x86 its constant is an
//!   immediate, which a 64-bit hash's cannot be).  No home is among the
//!   last [`TAIL`] slots, so a walk reads the `TAIL` slots after its home
//!   without a wrap-around test: the assembly `get_kprobe()` reads each of
//!   them with a load, a compare of its `addr` and the empty-slot test, and
//!   tests for the wrap-around only beyond.
//! - A slot holds a probe pointer, [`empty()`] (never used: a walk stops)
//!   or [`tomb()`] (a removed probe: a walk goes on).  No tomb is followed
//!   by an empty slot: [`remove`] empties those (see there).  Both are static
//!   sentinel probes whose `addr` is their own address, a data address no
//!   caller looks up, so that the kernel's assembly `get_kprobe()` compares
//!   the address of whatever a slot points at without testing for them
//!   first (what makes it as short as upstream's).
//! - At most 3/4 of the slots are used (live or tomb); a rebuild asks for
//!   8/5 slots per live entry (5/8 load) and uses all the slots of what
//!   `sys::table_alloc()` gives: whole pages of vmalloc (a power of two of
//!   bytes or pages, what `kmalloc()`/`kvmalloc()` would take, can be twice
//!   the request, and kmalloc's caches keep the slabs of freed tables).  So
//!   a table holds 10.7 to 12.8 bytes per registered probe as probes are
//!   added (8-byte slots at 3/4 to 5/8 load), plus less than a page (the
//!   `mem_*_slab_vmalloc` rows count it), up to 64 as probes are removed,
//!   before the table shrinks.  A rebuild also drops the tombs, and
//!   removing down to 1/8 use shrinks the table.
//! - Writers (under `kprobe_mutex`) store a slot with one release store;
//!   readers (the hit path, preemption disabled) load the table and slots
//!   with acquire loads: a reader sees a slot before or after a store,
//!   either of which is a state upstream's `hlist_*_rcu()` also allows
//!   (an inserted probe is not yet found, a removed one is still found
//!   until the grace period its unregistration waits for anyway).
//! - A rebuilt table (live entries only) is published with a release
//!   store; the old one is freed after a grace period (`kfree_rcu()`), so a
//!   reader still walking it stays safe.  The first table is static: no
//!   allocation until 49 probes are registered at once.
//!
//! The hit path ([`lookup`]) cannot panic (wrapping arithmetic, indexes
//! below `cap`), does not allocate and does not sleep.

use crate::error::{code, Result};
use crate::ffi::c_void;
use crate::locks::{KprobeMutex, KprobeMutexCell, RcuReadGuard};
use crate::probe::Hashed;
use crate::sys;
use crate::types::{Kprobe, KprobeOpcode, ListHead, RcuHead};
use core::marker::PhantomData;
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicPtr, Ordering};

/// Slots of the static first table, and the fewest a table has.
const MIN_SLOTS: usize = 64;

/// `GOLDEN_RATIO_32` (as `hash_32()`): below 2^31, so also a sign-extended
/// 32-bit immediate for the assembly.
pub const GOLDEN_RATIO_32: u32 = 0x61C8_8647;

/// The most slots a table has: `cap_hi`, `(cap - TAIL) << 32`, must fit in
/// 64 bits.
const MAX_SLOTS: usize = u32::MAX as usize;

/// The slots after the last home slot: a walk reads this many slots past
/// its home before it can wrap around (the assembly `get_kprobe()` reads
/// them without testing for it).
pub const TAIL: usize = 2;

/// A sentinel probe: never registered, never written; `addr` is its own
/// address and `list` an empty list (C's `__get_valid_kprobe()` walks the
/// list of what `get_kprobe()` returns).
#[repr(transparent)]
pub struct Sentinel(Kprobe);

// SAFETY: never written after its constant initializer; only its address
// and fields through raw pointers are read.
unsafe impl Sync for Sentinel {}

macro_rules! sentinel {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        pub static $name: Sentinel = Sentinel({
            // SAFETY: all-zero is a valid `struct kprobe` (null pointers,
            // no handlers).
            let mut k: Kprobe = unsafe { core::mem::zeroed() };
            k.addr = ptr::addr_of!($name).cast_mut().cast();
            let l = ptr::addr_of!($name.0.list).cast_mut();
            k.list = ListHead { next: l, prev: l };
            k
        });
    };
}
sentinel!(
    /// What a never-used slot points at.
    EMPTY
);
sentinel!(
    /// What a removed probe's slot points at.
    TOMB
);

/// A never-used slot.
#[inline(always)]
pub fn empty() -> *mut Kprobe {
    ptr::addr_of!(EMPTY).cast_mut().cast()
}

/// A removed probe's slot.
#[inline(always)]
pub fn tomb() -> *mut Kprobe {
    ptr::addr_of!(TOMB).cast_mut().cast()
}

/// A table: its header, then `cap` slots.  The kernel's assembly
/// `get_kprobe()` reads `cap`, `cap_hi` and `slots` at their offsets.
///
/// # Invariants
/// `MIN_SLOTS <= cap <= MAX_SLOTS` slots follow the header, each
/// [`empty()`], [`tomb()`] or a registered probe; at most 3/4 of them are
/// not [`empty()`], so a walk meets an empty slot.  `cap_hi` is
/// `(cap - TAIL) << 32`: every home slot is below `cap - TAIL`.
#[repr(C)]
pub struct Table {
    /// Freed with `kfree_rcu()` once replaced (not the static table).
    rcu: RcuHead,
    /// The number of slots.
    pub cap: usize,
    /// `(cap - TAIL) << 32`: a 32-bit hash times it is the home slot in
    /// the high half of the product.
    pub cap_hi: u64,
    /// `cap` slots, beyond the header.
    pub slots: [AtomicPtr<Kprobe>; 0],
}

#[repr(C)]
struct StaticTable {
    hdr: Table,
    slots: [AtomicPtr<Kprobe>; MIN_SLOTS],
}

// SAFETY: the slots are atomics; the header is never written.
unsafe impl Sync for StaticTable {}

static FIRST: StaticTable = StaticTable {
    hdr: Table {
        rcu: RcuHead {
            next: ptr::null_mut(),
            func: None,
        },
        cap: MIN_SLOTS,
        cap_hi: ((MIN_SLOTS - TAIL) as u64) << 32,
        slots: [],
    },
    slots: [const { AtomicPtr::new(ptr::addr_of!(EMPTY).cast_mut().cast()) }; MIN_SLOTS],
};

/// The published table.
pub static TABLE: AtomicPtr<Table> = AtomicPtr::new(first());
/// Live and tomb slots of the published table.
static USED: KprobeMutexCell<usize> = KprobeMutexCell::new(0);
/// Live slots of the published table.
static LIVE: KprobeMutexCell<usize> = KprobeMutexCell::new(0);
/// [`shrink_below`] of the published table's `cap`: 0 for the static
/// table, which never shrinks.
static SHRINK_BELOW: KprobeMutexCell<usize> = KprobeMutexCell::new(0);

/// The static table, with the provenance of all of `FIRST` (its slots too).
const fn first() -> *mut Table {
    ptr::addr_of!(FIRST).cast_mut().cast()
}

/// A published (or being built) table, by pointer: its slots lie past the
/// header, beyond what a `&Table` would cover, so it is never a reference.
///
/// # Invariants
/// Points at a [`Table`] (with its slots) that stays allocated for `'t`
/// (the holder's context: see [`lookup`], [`table`], [`finder`]); `cap` is
/// not written once the table is published.
#[derive(Clone, Copy)]
struct TableRef<'t>(*mut Table, PhantomData<&'t Table>);

impl<'t> TableRef<'t> {
    #[inline(always)]
    fn cap(self) -> usize {
        // SAFETY: a live table (the type's invariant).
        unsafe { ptr::addr_of!((*self.0).cap).read() }
    }

    /// Slot `i`, for as long as the table is allocated.
    ///
    /// # Safety
    /// `i < self.cap()`.
    #[inline(always)]
    unsafe fn slot(self, i: usize) -> &'t AtomicPtr<Kprobe> {
        // SAFETY: `i` is below `cap` (this function's `# Safety`), the number
        // of slots that follow the header (`Table`'s invariant), within the
        // allocation the pointer came from, which stays for `'t` (the type's
        // invariant).
        unsafe {
            &*ptr::addr_of!((*self.0).slots)
                .cast::<AtomicPtr<Kprobe>>()
                .add(i)
        }
    }

    /// The home slot of `addr`: below `cap - TAIL`.
    #[inline(always)]
    fn home(self, addr: *mut KprobeOpcode) -> usize {
        home(addr, self.cap())
    }

    /// The slot after `i`.
    #[inline(always)]
    fn next(self, i: usize) -> usize {
        next(i, self.cap())
    }
}

/// The slot after `i` in a table of `cap` slots.
#[inline(always)]
fn next(i: usize, cap: usize) -> usize {
    let i = i.wrapping_add(1);
    if i >= cap {
        0
    } else {
        i
    }
}

/// The slot before `i` in a table of `cap` slots.
#[inline(always)]
fn prev(i: usize, cap: usize) -> usize {
    if i == 0 {
        // `cap` is at least `MIN_SLOTS`.
        cap.wrapping_sub(1)
    } else {
        i - 1
    }
}

/// The home slot of `addr` in a table of `cap` slots: below `cap - TAIL`.
#[inline(always)]
fn home(addr: *mut KprobeOpcode, cap: usize) -> usize {
    let h = (addr as usize as u32).wrapping_mul(GOLDEN_RATIO_32);
    // Below `cap - TAIL`: `h < 2^32`; no overflow: `cap <= MAX_SLOTS < 2^32`
    // (and `cap >= MIN_SLOTS > TAIL`).
    (u64::from(h).wrapping_mul(cap.wrapping_sub(TAIL) as u64) >> 32) as usize
}

/// The probe indexed at `addr`, or null: `get_kprobe()`'s body.
///
/// # Safety
/// Under `kprobe_mutex`, or with preemption disabled (an RCU-sched reader:
/// the table and the probes it holds stay allocated).
#[inline(always)]
pub unsafe fn lookup(addr: *mut KprobeOpcode) -> *mut Kprobe {
    // INVARIANT: see the finder's below.
    let t = TableRef(TABLE.load(Ordering::Acquire), PhantomData);
    // INVARIANT: the caller's context keeps the published table and the
    // probes it holds allocated (this function's `# Safety`) while the
    // finder lives, within this call.
    Finder {
        t,
        cap: t.cap(),
        order: Ordering::Acquire,
        _rcu: PhantomData,
    }
    .find(addr)
    .map_or(ptr::null_mut(), NonNull::as_ptr)
}

/// The probe indexed at `addr`, for the `kprobe_mutex` holder (who alone
/// changes the index, so the table stays while `_km` lasts).
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`addr` is a key: compared, never dereferenced"
)]
pub fn lookup_locked(km: &KprobeMutex, addr: *mut KprobeOpcode) -> Option<NonNull<Kprobe>> {
    lookup_locked_pos(km, addr).map(|(p, _)| p)
}

/// Where a look-up by the `kprobe_mutex` holder found a probe: its slot in
/// the table then published.  A hint for [`remove_at`], which checks it
/// (the index may have changed since).
#[derive(Clone, Copy)]
pub struct Pos(usize);

impl Pos {
    /// No slot: [`remove_at`] looks the probe up.
    const NONE: Pos = Pos(usize::MAX);
}

/// [`lookup_locked`], and where it found the probe.
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`addr` is a key: compared, never dereferenced"
)]
pub fn lookup_locked_pos(
    km: &KprobeMutex,
    addr: *mut KprobeOpcode,
) -> Option<(NonNull<Kprobe>, Pos)> {
    let t = table(km);
    // INVARIANT: `km` keeps the published table and its probes allocated
    // (see `table()`) while the finder lives, within this call.
    Finder {
        t,
        cap: t.cap(),
        order: Ordering::Relaxed,
        _rcu: PhantomData,
    }
    .find_pos(addr)
}

/// Look-ups in one table: [`lookup`]'s, and those of several addresses in
/// a row by the `kprobe_mutex` holder ([`finder`]: `get_optimized_kprobe()`
/// walks back over a jump's reach, 20 addresses on x86), which read the
/// table and its size once, not per look-up.
///
/// # Invariants
/// `t` has `cap` slots; it and the probes it holds stay allocated while the
/// finder lives (for [`finder`]'s: a table replaced since it was made is
/// freed by `kfree_rcu()` after the RCU read-side section the finder
/// borrows, and a probe only after a grace period too).
pub struct Finder<'a> {
    t: TableRef<'a>,
    cap: usize,
    order: Ordering,
    _rcu: PhantomData<&'a RcuReadGuard>,
}

/// A [`Finder`] for the `kprobe_mutex` holder, valid within `_rcu`.
#[inline(always)]
pub fn finder<'a>(km: &KprobeMutex, _rcu: &'a RcuReadGuard) -> Finder<'a> {
    // INVARIANT (the table's and the finder's): `_rcu` keeps the table
    // published now and its probes allocated (see the type), and `km` that
    // it is the published one.
    let t = TableRef(table(km).0, PhantomData);
    Finder {
        t,
        cap: t.cap(),
        order: Ordering::Relaxed,
        _rcu: PhantomData,
    }
}

impl Finder<'_> {
    /// The probe indexed at `addr`, if any.  A finder from [`finder`] may
    /// be stale if the index changed since it was made (its users change
    /// nothing meanwhile).
    ///
    /// As the assembly `get_kprobe()`, it compares the `addr` of a tomb
    /// too: a sentinel's `addr` is its own address, which no caller looks
    /// up (a probe address is kernel text), so only a probe can match.
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "`addr` is a key: compared, never dereferenced"
    )]
    pub fn find(&self, addr: *mut KprobeOpcode) -> Option<NonNull<Kprobe>> {
        self.find_pos(addr).map(|(p, _)| p)
    }

    /// [`Finder::find`], and where it found the probe.
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "`addr` is a key: compared, never dereferenced"
    )]
    pub fn find_pos(&self, addr: *mut KprobeOpcode) -> Option<(NonNull<Kprobe>, Pos)> {
        let mut i = home(addr, self.cap);
        loop {
            // SAFETY: `home()` and `next()` give slots below `cap`, the
            // table's (the finder's invariant).
            let p = unsafe { self.t.slot(i) }.load(self.order);
            if p == empty() {
                return None;
            }
            // SAFETY: a slot holds a registered probe, allocated while the
            // finder lives (its invariant), or the static tomb; `addr` is
            // fixed while a probe is indexed.
            if unsafe { (*p).addr } == addr {
                // SAFETY: a slot is never null (`Table`'s invariant).
                return Some((unsafe { NonNull::new_unchecked(p) }, Pos(i)));
            }
            i = next(i, self.cap);
        }
    }
}

/// The table, for a writer.
fn table(_km: &KprobeMutex) -> TableRef<'_> {
    // INVARIANT: `_km` proves `kprobe_mutex` held: only its holder replaces
    // or frees a table, so the published one stays allocated while it lasts.
    TableRef(TABLE.load(Ordering::Relaxed), PhantomData)
}

/// Makes room for one more probe, rebuilding the table if it is 3/4 used.
/// If no memory is left for that, the old table takes it while it is less
/// than 7/8 used, else `ENOMEM` (a code `register_kprobe()` returns for
/// other allocations too).
pub fn reserve(km: &KprobeMutex) -> Result {
    let t = table(km);
    let used = USED.get(km) + 1;
    if used * 4 > t.cap() * 3 && !rebuild(km, t, LIVE.get(km) + 1) && used * 8 > t.cap() * 7 {
        return Err(code::ENOMEM);
    }
    Ok(())
}

/// Indexes `p` (just hashed, not indexed yet), after a successful
/// [`reserve`] under the same hold of `kprobe_mutex`.  A hashed probe stays
/// live until it is unhashed and a grace period has passed, so the index
/// only holds live probes.
pub fn insert(km: &KprobeMutex, p: Hashed<'_>) {
    let t = table(km);
    let mut i = t.home(p.addr());
    let p = p.as_ptr();
    loop {
        // SAFETY: `home()` and `next()` give slots below `cap`.
        let s = unsafe { t.slot(i) };
        let cur = s.load(Ordering::Relaxed);
        if cur == empty() || cur == tomb() {
            // Below `cap` after `reserve()`.
            if cur == empty() {
                USED.set(km, USED.get(km).wrapping_add(1));
            }
            LIVE.set(km, LIVE.get(km).wrapping_add(1));
            s.store(p, Ordering::Release);
            return;
        }
        i = t.next(i);
    }
}

/// The slot holding `p`, if indexed.
fn find_slot<'t>(t: TableRef<'t>, p: Hashed<'_>) -> Option<&'t AtomicPtr<Kprobe>> {
    // SAFETY: `find_index()` gives a slot of `t`, below its `cap`.
    find_index(t, p).map(|i| unsafe { t.slot(i) })
}

/// The index of the slot holding `p`, if indexed.
#[inline(always)]
fn find_index(t: TableRef<'_>, p: Hashed<'_>) -> Option<usize> {
    let mut i = t.home(p.addr());
    let p = p.as_ptr();
    loop {
        // SAFETY: `home()` and `next()` give slots below `cap`.
        let cur = unsafe { t.slot(i) }.load(Ordering::Relaxed);
        if cur == empty() {
            return None;
        }
        if cur == p {
            return Some(i);
        }
        i = t.next(i);
    }
}

/// Removes `p` from the index (a reader may still find it until a grace
/// period has passed).  Shrinks a table left 1/8 used, if memory allows.
///
/// A slot followed by an empty one becomes empty rather than a tomb, and
/// so do the tombs just before it: no walk needs them (a walk that would
/// pass them stops at the empty slot after them anyway), and a look-up
/// that misses, as every single-step trap's does, stops sooner.
pub fn remove(km: &KprobeMutex, p: Hashed<'_>) {
    remove_at(km, p, Pos::NONE);
}

/// [`remove`], `p` having been found at `pos` by [`lookup_locked_pos`]
/// (under this hold of `kprobe_mutex`, or it is looked up again).
#[inline(always)]
pub fn remove_at(km: &KprobeMutex, p: Hashed<'_>, pos: Pos) {
    let t = table(km);
    let cap = t.cap();
    // SAFETY: `pos.0 < cap` is checked first.
    let i = if pos.0 < cap && unsafe { t.slot(pos.0) }.load(Ordering::Relaxed) == p.as_ptr() {
        pos.0
    } else {
        let Some(i) = find_index(t, p) else {
            return;
        };
        i
    };
    // `i`, a slot of `t`, and the slots `next()` and `prev()` give are below
    // `cap`: the `# Safety` of each `slot()` below.
    // SAFETY: as said above.
    if unsafe { t.slot(next(i, cap)) }.load(Ordering::Relaxed) == empty() {
        let mut j = i;
        loop {
            // SAFETY: as said above.
            unsafe { t.slot(j) }.store(empty(), Ordering::Release);
            // At most `used` slots (a walk meets an empty one first).
            USED.set(km, USED.get(km).wrapping_sub(1));
            j = prev(j, cap);
            // SAFETY: as said above.
            if unsafe { t.slot(j) }.load(Ordering::Relaxed) != tomb() {
                break;
            }
        }
    } else {
        // SAFETY: as said above.
        unsafe { t.slot(i) }.store(tomb(), Ordering::Release);
    }
    // `p` was live: at least one.
    let live = LIVE.get(km).wrapping_sub(1);
    LIVE.set(km, live);
    if live < SHRINK_BELOW.get(km) {
        rebuild(km, t, live);
    }
}

/// Puts `new` (at the same address, taking `old`'s place in the hash
/// table) where `old` is indexed, in one store.
pub fn replace(km: &KprobeMutex, old: Hashed<'_>, new: Hashed<'_>) {
    if let Some(s) = find_slot(table(km), old) {
        s.store(new.as_ptr(), Ordering::Release);
    }
}

/// The bytes of a table's header.
const HDR: usize = core::mem::size_of::<Table>();
/// The bytes of a slot.
const SLOT: usize = core::mem::size_of::<AtomicPtr<Kprobe>>();

/// The bytes `sys::table_alloc()` gives a table with room for `want`
/// entries at 5/8 load (and at least [`MIN_SLOTS`] slots).
fn alloc_size(want: usize) -> usize {
    let want = (want.saturating_mul(8) / 5).clamp(MIN_SLOTS, MAX_SLOTS / 2);
    sys::table_size(HDR + want * SLOT)
}

/// The slots a table of `size` bytes has: all that fit, since `vmalloc()`
/// rounds up to whole pages, which would otherwise be left unused.
fn slots(size: usize) -> usize {
    ((size - HDR) / SLOT).min(MAX_SLOTS)
}

/// Whether a table of `cap` slots with `live` entries shrinks: at 1/8 use
/// (`live * 8 < cap`) if a rebuild for `live` gives fewer slots.
fn shrinks(live: usize, cap: usize) -> bool {
    live * 8 < cap && slots(alloc_size(live)) < cap
}

/// The number of live entries below which a table of `cap` slots shrinks:
/// one more than the largest `live` with `live * 8 < cap` (1/8 use) for
/// which a rebuild gives fewer slots (0 if there is none).  Both tests
/// hold for every `live` below a bound (`alloc_size()` does not decrease
/// as `live` grows), found by bisection, once per rebuild, so that
/// [`remove`] compares one number.
fn shrink_below(cap: usize) -> usize {
    let shrinks = |live| shrinks(live, cap);
    if !shrinks(0) {
        return 0;
    }
    // `shrinks(lo)`, and `shrinks(live)` is false for every `live > hi`.
    let (mut lo, mut hi) = (0, (cap - 1) / 8);
    if shrinks(hi) {
        return hi + 1;
    }
    // Here `shrinks(hi)` is false too.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if shrinks(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + 1
}

/// Publishes a table of `old`'s live entries, with room for `want` entries
/// at 5/8 load or more; false if no memory.  On success `old` is freed
/// after a grace period: the caller uses it no more.
fn rebuild(km: &KprobeMutex, old: TableRef<'_>, want: usize) -> bool {
    let size = alloc_size(want);
    let cap = slots(size);
    // vmalloc(): whole pages (kvmalloc() would first try kmalloc()'s power
    // of two), and a table of 50,000 probes, 640 KiB, needs no contiguous
    // pages.
    let n = sys::table_alloc(size).cast::<Table>();
    if n.is_null() {
        return false;
    }
    // SAFETY: `n` is a fresh allocation of a header and `cap` slots, not yet
    // visible to anyone: written in full before it is published.
    unsafe {
        ptr::addr_of_mut!((*n).rcu).write(RcuHead {
            next: ptr::null_mut(),
            func: None,
        });
        ptr::addr_of_mut!((*n).cap).write(cap);
        ptr::addr_of_mut!((*n).cap_hi).write(((cap - TAIL) as u64) << 32);
        let s = ptr::addr_of_mut!((*n).slots).cast::<AtomicPtr<Kprobe>>();
        for i in 0..cap {
            s.add(i).write(AtomicPtr::new(empty()));
        }
    }
    // INVARIANT: initialized above; freed only after it is replaced, by the
    // holder of `km`.
    let t: TableRef<'_> = TableRef(n, PhantomData);
    let mut live = 0;
    for i in 0..old.cap() {
        // SAFETY: `i < old.cap()`.
        let p = unsafe { old.slot(i) }.load(Ordering::Relaxed);
        if p != empty() && p != tomb() {
            // SAFETY: an indexed probe is live under `km`.
            let mut j = t.home(unsafe { (*p).addr });
            // SAFETY: `home()` and `next()` give slots below `t`'s `cap`.
            while unsafe { t.slot(j) }.load(Ordering::Relaxed) != empty() {
                j = t.next(j);
            }
            // SAFETY: as just above.
            unsafe { t.slot(j) }.store(p, Ordering::Relaxed);
            live += 1;
        }
    }
    USED.set(km, live);
    LIVE.set(km, live);
    SHRINK_BELOW.set(km, shrink_below(cap));
    TABLE.store(n, Ordering::Release);
    let oldp = old.0;
    if oldp != first() {
        // SAFETY: `oldp` came from `table_alloc()` here, is no longer published,
        // and `rcu` is its own head: freed once current readers are done.
        unsafe { sys::kfree_rcu(oldp.cast::<c_void>(), ptr::addr_of_mut!((*oldp).rcu)) };
    }
    true
}

/// Live entries and slots of the published table (host tests).
#[cfg(test)]
pub fn stats(km: &KprobeMutex) -> (usize, usize) {
    (LIVE.get(km), table(km).cap())
}

/// The published table's `cap_hi`, which only the kernel's assembly
/// `get_kprobe()` reads (host tests).
#[cfg(test)]
pub(crate) fn cap_hi(km: &KprobeMutex) -> u64 {
    // SAFETY: the published table, live under `km`.
    unsafe { ptr::addr_of!((*table(km).0).cap_hi).read() }
}

/// Live and tomb slots of the published table (host tests).
#[cfg(test)]
pub(crate) fn used(km: &KprobeMutex) -> usize {
    USED.get(km)
}

/// The slot that holds the probe at `addr`, if any (host tests): the
/// writer's look-up, then the slot of what it found.
#[cfg(test)]
pub(crate) fn position(km: &KprobeMutex, addr: *mut KprobeOpcode) -> Option<usize> {
    let p = lookup_locked(km, addr)?;
    // SAFETY: the index holds hashed probes only, live while `km` is held.
    find_index(table(km), unsafe { Hashed::from_raw(p.as_ptr()) })
}

/// Empties the index (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    let cur = TABLE.swap(first(), Ordering::Relaxed);
    if cur != first() {
        // SAFETY: host tests are serialized; the table came from table_alloc().
        unsafe { sys::kvfree(cur.cast()) };
    }
    for s in FIRST.slots.iter() {
        s.store(empty(), Ordering::Relaxed);
    }
    // SAFETY: host tests are serialized (`sys::exclusive()`): no other
    // access to the counters runs.
    let km = unsafe { KprobeMutex::assume_held() };
    USED.set(&km, 0);
    LIVE.set(&km, 0);
    SHRINK_BELOW.set(&km, 0);
}

crate::kp_tests!(
    kprobes_rust_index,
    mod tests {
        use super::{alloc_size, shrink_below, shrinks, slots};

        /// Whether [`shrink_below`]`(cap)` gives [`shrinks`]`(live, cap)` for
        /// every `live` up to `cap`; `cap` 0 means the capacity of a table
        /// rebuilt for `want` entries.
        fn shrink_below_matches(cap: usize, want: usize) -> bool {
            let cap = if cap == 0 {
                slots(alloc_size(want))
            } else {
                cap
            };
            let b = shrink_below(cap);
            (0..=cap).all(|live| (live < b) == shrinks(live, cap))
        }

        /// The shrink threshold a rebuild records is the test `remove()` made
        /// on each removal before: for the static table, for tables rebuilt
        /// for 0 to 3,000 entries (their sizes are the kernel's `PAGE_SIZE`
        /// multiples), and for capacities no rebuild gives.
        #[test]
        fn shrink_threshold() {
            assert!(shrink_below_matches(64, 0));
            for want in [0, 1, 40, 48, 49, 100, 300, 640, 1000, 3000] {
                assert!(shrink_below_matches(0, want));
            }
            for cap in [65, 100, 511, 512, 513, 1000, 1023, 2047] {
                assert!(shrink_below_matches(cap, 0));
            }
        }
    }
);
