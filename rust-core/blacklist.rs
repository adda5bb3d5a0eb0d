// SPDX-License-Identifier: GPL-2.0

//! The kprobe blacklist: address ranges where probes must not be placed.
//! Port of the blacklist part of `kernel/kprobes.c`.
//!
//! Unlike the kretprobe blacklist, the ranges of the blacklisted functions
//! are stored, since a kprobe need not be at the beginning of a function.
//! Sources: the `_kprobe_blacklist` section (`NOKPROBE_SYMBOL()`), the
//! `.kprobes.text` (`__kprobes`) and `.noinstr.text` sections, the arch's
//! own areas, and the same sections of modules while they are loaded.
//!
//! Locking, as in C: the list is RCU for readers ([`within_kprobe_blacklist`]);
//! writers are the boot-time populate and the module notifier, which holds
//! `kprobe_mutex`.  The order of the list is the order of insertion, which
//! `/sys/kernel/debug/kprobes/blacklist` shows.
//!
//! # The index
//! Upstream walks the whole list (thousands of entries) on every check.
//! Here a check reads an index instead, when one is published: the list's
//! `(start_addr, end_addr)` pairs copied into an array sorted by start,
//! with each `end_addr` replaced by the greatest `end_addr` of the entries
//! up to it in that order (`max_end`); a binary search then answers in
//! O(log n) comparisons.  The list stays as it is (debugfs prints it in
//! list order, modules add and remove entries).
//!
//! *Overlaps.*  Entries may overlap, nest, share a start, be empty
//! (`start == end`, an alias symbol) or even wrap (`end < start`); upstream's
//! answer is "some entry has `start <= addr < end`".  Let `k` be the number
//! of ranges with `start <= addr` (sorted by start, they are the first `k`,
//! whatever the order among equal starts).  An entry with `start > addr`
//! never holds `addr`; an entry with `start <= addr` holds it exactly when
//! its `end > addr` (an empty or wrapping one has `end <= start <= addr`,
//! so it never does, as upstream's test says).  So the answer is "some of
//! the first `k` ranges has `end > addr`", that is `k > 0` and the
//! greatest `end` among them, `max_end[k - 1]`, is above `addr`.  Nothing
//! is merged or dropped, so the answer is upstream's for every list.
//!
//! *Publication.*  The index is a copy, so what matters is that it never
//! answers for a list other than the one a reader could have walked.
//! Every change of the list (an entry added, an entry removed) first
//! withdraws the index (`INDEX` becomes null; the old array is freed by
//! `kfree_rcu()`), and the writer publishes a new one of the changed list
//! when it is done (`publish_index()`: at the end of [`populate`],
//! [`add_module`] and [`remove_module`], under `kprobe_mutex`; the arch's
//! calls of `kprobe_add_ksym_blacklist()`/`kprobe_add_area_blacklist()`
//! happen within `populate()`).  So a published index holds exactly the
//! list's ranges, and a check sees one of three things: no index (it walks
//! the list, which is upstream's walk, entries being added or removed
//! included); the index of the list before a change that has begun (its
//! load came before the withdrawal: the check overlaps the change, and an
//! upstream walk overlapping it may as well still find an entry being
//! removed, or not yet find one being added; a check that starts after the
//! change completed cannot load the withdrawn pointer); or the index of
//! the list after a completed change.  A removed module's range can thus
//! answer "blacklisted" only to a check that overlaps its removal, as
//! upstream's RCU walk can.  The withdrawn array is read only inside the
//! checks' RCU read-side sections, which `kfree_rcu()` waits for.
//!
//! Without memory for the index (or with an empty list) nothing is
//! published and checks walk the list: the same answers, no error.

use crate::error::{code::*, to_result, Result};
use crate::ffi::{c_char, c_ulong};
use crate::list;
use crate::locks::{self, KprobeMutex, RcuReadGuard};
use crate::sys;
use crate::types::{KprobeBlacklistEntry, ListHead, RcuHead};
#[cfg(CONFIG_MODULES)]
use crate::views::ModuleView;
use core::ptr::{self, addr_of, addr_of_mut};
use core::sync::atomic::{AtomicPtr, Ordering};

/// `kprobe_blacklist`: the list of [`KprobeBlacklistEntry`].  Static, as
/// upstream's (only this crate walks it).
pub static mut KPROBE_BLACKLIST: ListHead = ListHead {
    next: &raw mut KPROBE_BLACKLIST,
    prev: &raw mut KPROBE_BLACKLIST,
};

fn head() -> *mut ListHead {
    &raw mut KPROBE_BLACKLIST
}

fn entry_of(l: *mut ListHead) -> *mut KprobeBlacklistEntry {
    crate::container_of!(l, KprobeBlacklistEntry, list)
}

/// A range of the index: an entry's `start_addr`, and the greatest
/// `end_addr` of the entries sorted up to it (this one included).
#[derive(Clone, Copy)]
#[repr(C)]
struct Range {
    start: usize,
    max_end: usize,
}

/// The index: its header, then `n` ranges sorted by start.
///
/// # Invariants
/// Once published in [`INDEX`] it is never written; `n` ranges follow the
/// header, within its allocation (`kvmalloc()`).
#[repr(C)]
struct Index {
    /// Freed with `kfree_rcu()` once withdrawn.
    rcu: RcuHead,
    n: usize,
    ranges: [Range; 0],
}

/// The published index of the list, or null: the list changed since it
/// was last indexed, it is empty, or the allocation failed (see the module
/// doc: a published index holds exactly the list's ranges).
static INDEX: AtomicPtr<Index> = AtomicPtr::new(ptr::null_mut());

/// The published index's ranges, if one is published, for `_rcu`'s
/// read-side section.
fn published(_rcu: &RcuReadGuard) -> Option<&[Range]> {
    let ix = INDEX.load(Ordering::Acquire);
    if ix.is_null() {
        return None;
    }
    // A published index was written in full before the release store that
    // published it (the acquire load pairs with it) and is never written
    // again, so a shared slice of it is sound.
    // SAFETY: `n` ranges follow the header (`Index`'s invariants); it is freed
    // only by `kfree_rcu()` once withdrawn, so it stays allocated while `_rcu` lasts.
    Some(unsafe {
        core::slice::from_raw_parts(
            addr_of!((*ix).ranges).cast::<Range>(),
            addr_of!((*ix).n).read(),
        )
    })
}

/// Does one of `ranges` (sorted by start, with prefix maxima of the ends)
/// hold `addr`?  O(log n) comparisons; see the module doc for why it is
/// upstream's answer with overlapping entries.
fn index_holds(ranges: &[Range], addr: usize) -> bool {
    // The first `k` ranges are those that start at or before `addr`.
    let k = ranges.partition_point(|r| {
        #[cfg(test)]
        COMPARISONS.with(|c| c.set(c.get() + 1));
        r.start <= addr
    });
    k.checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|r| r.max_end > addr)
}

#[cfg(test)]
std::thread_local! {
    /// Start comparisons made by index look-ups on this thread (host tests).
    pub(crate) static COMPARISONS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// The index's answer for `addr`, or `None` if no index is published.
pub(crate) fn index_contains(rcu: &RcuReadGuard, addr: usize) -> Option<bool> {
    published(rcu).map(|r| index_holds(r, addr))
}

/// The number of ranges of the published index, if one is (host tests).
#[cfg(test)]
pub(crate) fn index_len() -> Option<usize> {
    published(&locks::rcu_read()).map(<[Range]>::len)
}

/// Withdraws the published index, before the list changes: until
/// [`publish_index`] publishes one of the changed list, checks walk it.
/// The list's writers are serialized (boot, `kprobe_mutex`).
fn withdraw_index() {
    // Relaxed: a check ordered after the change that follows cannot load
    // the old pointer (coherence), and one that loaded it overlaps the
    // change (see the module doc).
    let ix = INDEX.swap(ptr::null_mut(), Ordering::Relaxed);
    if !ix.is_null() {
        // SAFETY: `ix` came from `kvmalloc()` in `publish_index()`, the swap
        // above unpublished it (so no one else frees it) and `rcu` is its own
        // head: freed once the checks that may still read it are done.
        unsafe { sys::kfree_rcu(ix.cast(), addr_of_mut!((*ix).rcu)) };
    }
}

/// Publishes an index of the list unless one is published (it holds the
/// list already) or the list is empty.  If no memory is left, nothing is
/// published and checks walk the list.
pub(crate) fn publish_index(_km: &KprobeMutex) {
    if !INDEX.load(Ordering::Relaxed).is_null() {
        return;
    }
    // SAFETY: the list's writers are serialized (`_km`; at boot, nothing else
    // runs): the list does not change while it is read here.
    let n = unsafe { list::iter_rcu(head()) }.count();
    let size = n
        .checked_mul(core::mem::size_of::<Range>())
        .and_then(|b| b.checked_add(core::mem::size_of::<Index>()));
    let Some(size) = size.filter(|_| n > 0) else {
        return;
    };
    let ix = sys::kvmalloc(size).cast::<Index>();
    if ix.is_null() {
        return;
    }
    // SAFETY: `ix` is a fresh allocation of `size` bytes: a header and `n`
    // ranges (only the field's address is taken).
    let base = unsafe { addr_of_mut!((*ix).ranges) }.cast::<Range>();
    let mut i = 0;
    // SAFETY: as for the count above.
    let mut it = unsafe { list::iter_rcu(head()) };
    for l in it.by_ref().take(n) {
        let e = entry_of(l);
        // SAFETY: `e` is an entry of the list, which no one changes meanwhile;
        // `i < n` (`take(n)`), so `base + i` is within the fresh allocation of
        // `n` ranges, which no one else sees yet.
        unsafe {
            base.add(i).write(Range {
                start: (*e).start_addr,
                max_end: (*e).end_addr,
            })
        };
        i += 1;
    }
    if i != n || it.next().is_some() {
        // The list changed under us (a writer that broke the serialization):
        // publish nothing rather than an index of another list.
        // SAFETY: `ix` came from `kvmalloc()` above and no one else sees it.
        unsafe { sys::kvfree(ix.cast()) };
        return;
    }
    // SAFETY: `ix` is the fresh allocation of a header and `n` ranges, all
    // written above and not yet visible to anyone.
    let ranges = unsafe {
        addr_of_mut!((*ix).rcu).write(RcuHead {
            next: ptr::null_mut(),
            func: None,
        });
        addr_of_mut!((*ix).n).write(n);
        core::slice::from_raw_parts_mut(base, n)
    };
    sort_by_start(ranges);
    let mut max = 0;
    for r in ranges.iter_mut() {
        max = max.max(r.max_end);
        r.max_end = max;
    }
    // INVARIANT: written in full above and never again.
    INDEX.store(ix, Ordering::Release);
}

/// Sorts `v` by start: heapsort, in place, O(n log n), without allocation,
/// recursion or a panicking path (`core`'s sorts may panic on an
/// inconsistent order, through a function 6.12's objtool does not know as
/// noreturn).  The order among equal starts does not matter.
fn sort_by_start(v: &mut [Range]) {
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift_down(v, root, n);
    }
    for end in (1..n).rev() {
        swap(v, 0, end);
        sift_down(v, 0, end);
    }
}

/// Moves `v[root]` down the max-heap (by start) of `v[..end]`.
fn sift_down(v: &mut [Range], mut root: usize, end: usize) {
    let start = |v: &[Range], i: usize| v.get(i).map_or(0, |r| r.start);
    loop {
        // No overflow: `root < end <= v.len()`, far below `usize::MAX / 2`.
        let mut child = root.wrapping_mul(2).wrapping_add(1);
        if child >= end {
            return;
        }
        if child + 1 < end && start(v, child + 1) > start(v, child) {
            child += 1;
        }
        if start(v, root) >= start(v, child) {
            return;
        }
        swap(v, root, child);
        root = child;
    }
}

/// Swaps `v[a]` and `v[b]` (both in bounds at every call).
fn swap(v: &mut [Range], a: usize, b: usize) {
    if let (Some(&x), Some(&y)) = (v.get(a), v.get(b)) {
        if let Some(p) = v.get_mut(a) {
            *p = y;
        }
        if let Some(p) = v.get_mut(b) {
            *p = x;
        }
    }
}

/// The linear walk of `__within_kprobe_blacklist()` (without the arch's
/// areas), within `_rcu`.
pub(crate) fn list_contains(_rcu: &RcuReadGuard, addr: usize) -> bool {
    let mut ret = false;
    // SAFETY: RCU read side (`_rcu`); entries are freed with kfree_rcu().
    for l in unsafe { list::iter_rcu(head()) } {
        let e = entry_of(l);
        // Its list and rcu members may be written meanwhile (a writer
        // unlinking a neighbour, kfree_rcu()): no reference to the entry is
        // formed, the range (never written once published) is read through
        // the raw pointer.
        // SAFETY: `l` is a live entry in this read-side section.
        let (start, end) = unsafe { ((*e).start_addr, (*e).end_addr) };
        if addr >= start && addr < end {
            ret = true;
            break;
        }
    }
    ret
}

/// `__within_kprobe_blacklist()`: from the index if one is published,
/// else by walking the list; the same answer (see the module doc).
pub(crate) fn within_blacklist_ranges(addr: usize) -> bool {
    if sys::arch_within_kprobe_blacklist(addr) {
        return true;
    }
    // If 'kprobe_blacklist' is defined, check the address and reject any
    // probe registration in the prohibited area.
    // Note: this can return true during transition period where
    // (start_addr, end_addr) in the black list is shrinking but old entry
    // has not been removed yet. This is acceptable because the worst case
    // is that we reject more probes than we should.
    let rcu = locks::rcu_read();
    index_contains(&rcu, addr).unwrap_or_else(|| list_contains(&rcu, addr))
}

/// `within_kprobe_blacklist()`: is `addr` in a blacklisted range, directly
/// or as part of a suffixed copy (`foo.cold`, `foo.isra.0`) of a
/// blacklisted function?
pub fn within_kprobe_blacklist(addr: usize) -> bool {
    within_kprobe_blacklist_named(addr, &mut SymName::new(addr))
}

/// [`within_kprobe_blacklist`] with the name of the symbol at `addr`
/// looked up once for every check that needs it.
pub fn within_kprobe_blacklist_named(addr: usize, sym: &mut SymName) -> bool {
    if within_blacklist_ranges(addr) {
        return true;
    }

    // Check if the address is on a suffixed-symbol.
    let Some(name) = sym.get() else { return false };
    let Some(dot) = name
        .iter()
        .take_while(|&&c| c != 0)
        .position(|&c| c == b'.' as c_char)
    else {
        return false;
    };
    // The name up to the dot (put back after the lookup).
    if let Some(c) = name.get_mut(dot) {
        *c = 0;
    }
    // SAFETY: `name` is NUL-terminated.
    let base = unsafe { sys::kprobe_lookup_name(name.as_ptr(), 0) } as usize;
    if let Some(c) = name.get_mut(dot) {
        *c = b'.' as c_char;
    }
    base != 0 && within_blacklist_ranges(base)
}

/// The name of the symbol at an address, from `lookup_symbol_name()`,
/// looked up when first asked for: upstream's `within_kprobe_blacklist()`
/// and `is_cfi_preamble_symbol()` look up the same name in turn (in a
/// module, each a walk of its symbol table).
pub struct SymName {
    addr: usize,
    /// `None`: not looked up yet; `Some(false)`: no symbol.
    found: Option<bool>,
    buf: [c_char; sys::KSYM_NAME_LEN],
}

impl SymName {
    /// The name at `addr`, not looked up yet.
    pub fn new(addr: usize) -> Self {
        SymName {
            addr,
            found: None,
            buf: [0; sys::KSYM_NAME_LEN],
        }
    }

    /// The NUL-terminated name, or `None` if no symbol holds the address.
    pub fn get(&mut self) -> Option<&mut [c_char; sys::KSYM_NAME_LEN]> {
        if self.found.is_none() {
            // SAFETY: `buf` has KSYM_NAME_LEN bytes.
            self.found =
                Some(unsafe { sys::lookup_symbol_name(self.addr, self.buf.as_mut_ptr()) } == 0);
        }
        if self.found == Some(true) {
            Some(&mut self.buf)
        } else {
            None
        }
    }
}

/// `kprobe_add_ksym_blacklist()`: blacklists the whole symbol at `entry`.
/// Returns the symbol's size, `EINVAL` if `entry` is not in kernel text
/// or not in a symbol, `ENOMEM`.  The list's writers hold `kprobe_mutex`.
pub fn add_ksym_blacklist(km: &KprobeMutex, entry: usize) -> Result<usize> {
    let mut offset = 0usize;
    let mut size = 0usize;

    if !sys::kernel_text_address(entry)
        || !sys::kallsyms_lookup_size_offset(entry, &mut size, &mut offset)
    {
        return Err(EINVAL);
    }

    add_range(km, entry, entry.wrapping_add(size))?;
    Ok(size)
}

/// Appends an entry `[start, end)` to the list (the body of
/// [`add_ksym_blacklist`]); `ENOMEM`.
pub(crate) fn add_range(_km: &KprobeMutex, start: usize, end: usize) -> Result {
    let ent =
        sys::kmalloc(core::mem::size_of::<KprobeBlacklistEntry>()).cast::<KprobeBlacklistEntry>();
    if ent.is_null() {
        return Err(ENOMEM);
    }
    withdraw_index();
    // SAFETY: `ent` is a fresh allocation of the right size; the list's
    // writers are serialized by `kprobe_mutex`, which `_km` proves held.
    unsafe {
        (*ent).start_addr = start;
        (*ent).end_addr = end;
        list::init_list_head(addr_of_mut!((*ent).list));
        list::list_add_tail_rcu(addr_of_mut!((*ent).list), head());
    }
    Ok(())
}

/// `kprobe_add_area_blacklist()`: blacklists every symbol in
/// `[start, end)`.  Returns `Ok` or the first error.
pub fn add_area_blacklist(km: &KprobeMutex, start: usize, end: usize) -> Result {
    let mut entry = start;
    while entry < end {
        // `max(1)`: in case of alias symbol (size 0).
        let size = add_ksym_blacklist(km, entry)?.max(1);
        entry = entry.wrapping_add(size);
    }
    Ok(())
}

/// `populate_kprobe_blacklist()`: the boot-time fill from the
/// `_kprobe_blacklist` section (addresses of `NOKPROBE_SYMBOL()`s, see
/// [`Boot::kprobe_blacklist_section`]), `.kprobes.text`, `.noinstr.text`
/// and the arch.
///
/// Boot-time only: placed in `.init.text` like upstream's `__init`.
///
/// [`Boot::kprobe_blacklist_section`]: crate::views::Boot::kprobe_blacklist_section
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
pub fn populate(section: &[c_ulong]) -> Result {
    // Under `kprobe_mutex`, as every writer of the list (upstream's boot
    // takes no lock here: nothing else runs yet).
    let km = locks::kprobe_mutex();
    let r = populate_list(&km, section);
    // What was added is indexed, also after an error (upstream keeps it).
    publish_index(&km);
    r
}

/// The list part of [`populate`].
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
fn populate_list(km: &KprobeMutex, section: &[c_ulong]) -> Result {
    for &addr in section {
        // `c_ulong` is `usize` in the kernel crate, `u64` on the host.
        #[allow(clippy::unnecessary_cast)]
        let entry = sys::dereference_symbol_descriptor(addr as usize);
        match add_ksym_blacklist(km, entry) {
            Err(e) if e != EINVAL => return Err(e),
            _ => {}
        }
    }

    // Symbols in '__kprobes_text' are blacklisted.
    let (s, e) = sys::kprobes_text_area();
    add_area_blacklist(km, s, e)?;

    // Symbols in 'noinstr' section are blacklisted.
    let (s, e) = sys::noinstr_text_area();
    add_area_blacklist(km, s, e)?;
    // The arch adds its areas through the exports, with `kprobe_mutex`
    // still held.
    to_result(sys::arch_populate_kprobe_blacklist())
}

/// `kprobe_remove_area_blacklist()`: drops the entries starting in
/// `[start, end)`.
pub fn remove_area_blacklist(_km: &KprobeMutex, start: usize, end: usize) {
    // SAFETY: the list's writers are serialized by `kprobe_mutex`, which `_km`
    // proves held for the loop; its body unlinks only the entry it is given.
    for l in unsafe { list::iter_safe(head()) } {
        let ent = entry_of(l);
        // SAFETY: an entry of the list, live under `_km`; its range is not
        // written once it is listed.
        let s = unsafe { (*ent).start_addr };
        if s >= start && s < end {
            withdraw_index();
            // SAFETY: `l` is on the list, whose writers `_km` serializes.
            unsafe { list::list_del_rcu(l) };
            // SAFETY: `ent` came from `kmalloc()` (`add_range()`) and is
            // unlinked: freed after the readers that may still see it, so
            // they never see freed memory.
            unsafe { sys::kfree_rcu(ent.cast(), addr_of_mut!((*ent).rcu)) };
        }
    }
}

#[cfg(CONFIG_MODULES)]
/// `kprobe_remove_ksym_blacklist()`.
fn remove_ksym_blacklist(km: &KprobeMutex, entry: usize) {
    remove_area_blacklist(km, entry, entry.wrapping_add(1));
}

#[cfg(CONFIG_MODULES)]
/// `add_module_kprobe_blacklist()`: a coming module's blacklist.
pub fn add_module(km: &KprobeMutex, m: &ModuleView<'_>) {
    let a = m.areas();
    // Best effort, as upstream: errors are ignored.
    for &e in a.ksyms {
        let _ = add_ksym_blacklist(km, e);
    }
    for (start, size) in [a.kprobes_text, a.noinstr_text] {
        if start != 0 {
            let _ = add_area_blacklist(km, start, start.wrapping_add(size));
        }
    }
    publish_index(km);
}

#[cfg(CONFIG_MODULES)]
/// `remove_module_kprobe_blacklist()`: a going module's blacklist.
pub fn remove_module(km: &KprobeMutex, m: &ModuleView<'_>) {
    let a = m.areas();
    for &e in a.ksyms {
        remove_ksym_blacklist(km, e);
    }
    for (start, size) in [a.kprobes_text, a.noinstr_text] {
        if start != 0 {
            remove_area_blacklist(km, start, start.wrapping_add(size));
        }
    }
    publish_index(km);
}

/// Empties the list and frees its entries (host tests start from scratch;
/// the previous test's entries would otherwise leak).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    // SAFETY: host tests are serialized (`sys::exclusive()`): no reader is
    // left; each entry came from `sys::kmalloc()` in `add_ksym_blacklist()`,
    // and `iter_safe` reads the next link before the body frees an entry.
    unsafe {
        for l in list::iter_safe(head()) {
            sys::kfree(entry_of(l).cast());
        }
        list::init_list_head(head());
    }
    let ix = INDEX.swap(ptr::null_mut(), Ordering::Relaxed);
    // SAFETY: host tests are serialized: no reader is left; the index came
    // from `kvmalloc()` (null if none).
    unsafe { sys::kvfree(ix.cast()) };
}
