// SPDX-License-Identifier: GPL-2.0

//! `struct list_head` primitives, including the RCU variants of
//! `include/linux/rculist.h`, for lists shared with C code.
//!
//! Memory ordering follows the C macros: `rcu_assign_pointer()` is a release
//! store, `WRITE_ONCE()` a relaxed (volatile-like) store, and
//! `rcu_dereference()` is implemented as an acquire load (the kernel relies
//! on address dependencies, which the Rust memory model does not promise;
//! on x86 both compile to a plain load).

use crate::types::{HlistHead, HlistNode, ListHead};
use core::sync::atomic::{AtomicPtr, Ordering};

/// `LIST_POISON2` (`0x122 + POISON_POINTER_DELTA`).
pub const LIST_POISON2: usize = 0x122 + crate::arch::POISON_POINTER_DELTA;

/// Loads the `next` field of `l` atomically (`READ_ONCE()`, or
/// `rcu_dereference()` with `Acquire`).
///
/// # Safety
/// `l` must point to a live `ListHead`.
#[inline]
unsafe fn load_next(l: *mut ListHead, order: Ordering) -> *mut ListHead {
    // SAFETY: `l` is live (this function's `# Safety`), the field is aligned
    // and only accessed atomically or under the list's writer lock; the
    // atomic view lives for this load only.
    unsafe { AtomicPtr::from_ptr(core::ptr::addr_of_mut!((*l).next)) }.load(order)
}

/// Stores `v` into the `next` field of `l` atomically (`WRITE_ONCE()`, or
/// `rcu_assign_pointer()` with `Release`).
///
/// # Safety
/// `l` must point to a live `ListHead`.
#[inline]
unsafe fn store_next(l: *mut ListHead, v: *mut ListHead, order: Ordering) {
    // SAFETY: as for `load_next()`; the atomic view lives for this store only.
    unsafe { AtomicPtr::from_ptr(core::ptr::addr_of_mut!((*l).next)) }.store(v, order)
}

/// `INIT_LIST_HEAD()`.
///
/// # Safety
/// `l` must be valid for writes.
#[inline]
pub unsafe fn init_list_head(l: *mut ListHead) {
    // SAFETY: caller guarantees `l` is valid; WRITE_ONCE of next as in C.
    unsafe {
        store_next(l, l, Ordering::Relaxed);
        (*l).prev = l;
    }
}

/// `list_empty()`.
///
/// # Safety
/// `head` must point to a live list head.
#[inline]
pub unsafe fn list_empty(head: *mut ListHead) -> bool {
    // SAFETY: caller guarantees `head` is live.
    unsafe { load_next(head, Ordering::Relaxed) == head }
}

/// `list_is_singular()`: the list has exactly one entry.
///
/// # Safety
/// `head` must point to a live list (head or entry, as in C).
#[inline]
pub unsafe fn list_is_singular(head: *mut ListHead) -> bool {
    // SAFETY: caller guarantees `head` is live.
    unsafe { !list_empty(head) && (*head).next == (*head).prev }
}

/// `list_add_rcu()`: publish `new` right after `head`.
///
/// # Safety
/// Both must be live; the caller holds the list's update-side lock.
#[inline]
pub unsafe fn list_add_rcu(new: *mut ListHead, head: *mut ListHead) {
    // SAFETY: caller guarantees both are live and serializes updaters.
    unsafe {
        let next = (*head).next;
        (*new).next = next;
        (*new).prev = head;
        // rcu_assign_pointer(list_next_rcu(prev), new)
        store_next(head, new, Ordering::Release);
        (*next).prev = new;
    }
}

/// `list_add_tail_rcu()`: publish `new` right before `head`.
///
/// # Safety
/// As for [`list_add_rcu`].
#[inline]
pub unsafe fn list_add_tail_rcu(new: *mut ListHead, head: *mut ListHead) {
    // SAFETY: caller guarantees both are live and serializes updaters.
    unsafe {
        let prev = (*head).prev;
        (*new).next = head;
        (*new).prev = prev;
        store_next(prev, new, Ordering::Release);
        (*head).prev = new;
    }
}

/// `list_del_rcu()`: unlink `entry`, leaving its `next` intact for readers
/// still on it and poisoning `prev`.
///
/// # Safety
/// `entry` must be on a list; the caller holds the update-side lock.
#[inline]
pub unsafe fn list_del_rcu(entry: *mut ListHead) {
    // SAFETY: caller guarantees `entry` and its neighbours are live.
    unsafe {
        let prev = (*entry).prev;
        let next = (*entry).next;
        (*next).prev = prev;
        store_next(prev, next, Ordering::Relaxed);
        (*entry).prev = LIST_POISON2 as *mut ListHead;
    }
}

/// The ordering of `rcu_dereference()`'s load.  The kernel's is
/// `READ_ONCE()`: what the reader then loads through the pointer is
/// ordered after it by the address dependency (the kernel's memory model,
/// which C's lists rely on), so the kernel build's load is a relaxed one,
/// the same instruction.  The host build runs under Rust's memory model
/// (and Miri), which has no dependency ordering: an acquire load there.
#[cfg(CONFIG_RUST)]
const RCU_DEREFERENCE: Ordering = Ordering::Relaxed;
#[cfg(not(CONFIG_RUST))]
const RCU_DEREFERENCE: Ordering = Ordering::Acquire;

/// `rcu_dereference(list_next_rcu(l))`.
///
/// # Safety
/// `l` must be live (the caller is in an RCU read-side section or holds the
/// update-side lock).
#[inline]
pub unsafe fn next_rcu(l: *mut ListHead) -> *mut ListHead {
    // SAFETY: caller guarantees `l` is live.
    unsafe { load_next(l, RCU_DEREFERENCE) }
}

/// Iterator over the entries of an RCU list (`list_for_each_rcu()`), yielding
/// the embedded `ListHead` of each entry.
pub struct RcuIter {
    head: *mut ListHead,
    pos: *mut ListHead,
}

/// Iterates over the list at `head`.
///
/// # Safety
/// `head` must be live and the caller must stay in an RCU read-side
/// critical section (or hold the update-side lock) while iterating.
#[inline]
pub unsafe fn iter_rcu(head: *mut ListHead) -> RcuIter {
    RcuIter {
        head,
        // SAFETY: `head` is live and the caller is an RCU reader or holds the
        // update-side lock (this function's `# Safety`), as `next_rcu()` requires.
        pos: unsafe { next_rcu(head) },
    }
}

impl Iterator for RcuIter {
    type Item = *mut ListHead;
    #[inline]
    fn next(&mut self) -> Option<*mut ListHead> {
        if self.pos == self.head {
            return None;
        }
        let cur = self.pos;
        // SAFETY: `cur` is an entry of the list, live for the read-side
        // section the iterator was created in.
        self.pos = unsafe { next_rcu(cur) };
        Some(cur)
    }
}

/// `container_of()` for a struct whose `ListHead` field sits at `offset`.
#[macro_export]
macro_rules! container_of {
    ($ptr:expr, $type:ty, $field:ident) => {
        ($ptr)
            .cast::<u8>()
            .wrapping_sub(core::mem::offset_of!($type, $field))
            .cast::<$type>()
    };
}

/// `rcu_dereference(hlist_first_rcu(head))`.
///
/// # Safety
/// `head` is live; RCU read side or update-side lock held.
#[inline]
pub unsafe fn hlist_first_rcu(head: *mut HlistHead) -> *mut HlistNode {
    // SAFETY: caller guarantees `head` is live; the field is aligned.
    unsafe { AtomicPtr::from_ptr(core::ptr::addr_of_mut!((*head).first)).load(RCU_DEREFERENCE) }
}

/// `rcu_dereference(hlist_next_rcu(node))`.
///
/// # Safety
/// `node` is live; RCU read side or update-side lock held.
#[inline]
pub unsafe fn hlist_next_rcu(node: *mut HlistNode) -> *mut HlistNode {
    // SAFETY: caller guarantees `node` is live; the field is aligned.
    unsafe { AtomicPtr::from_ptr(core::ptr::addr_of_mut!((*node).next)).load(RCU_DEREFERENCE) }
}

/// `hlist_add_head_rcu()`.
///
/// # Safety
/// Both live, `n` not hashed; the caller holds the update-side lock.
#[inline]
pub unsafe fn hlist_add_head_rcu(n: *mut HlistNode, h: *mut HlistHead) {
    // SAFETY: `n` and `h` are live, `n` is not hashed and the caller is the only
    // writer (this function's `# Safety`): `n` is filled before the release store
    // publishes it, and readers load only `first` and `next`, never `pprev`.
    unsafe {
        let first = (*h).first;
        (*n).next = first;
        (*n).pprev = core::ptr::addr_of_mut!((*h).first);
        AtomicPtr::from_ptr(core::ptr::addr_of_mut!((*h).first)).store(n, Ordering::Release);
        if !first.is_null() {
            (*first).pprev = core::ptr::addr_of_mut!((*n).next);
        }
    }
}

/// `LIST_POISON1` (`0x100 + POISON_POINTER_DELTA`).
pub const LIST_POISON1: usize = 0x100 + crate::arch::POISON_POINTER_DELTA;

/// `list_add()`: insert `new` right after `head` (no RCU readers).
///
/// # Safety
/// Both live, `new` on no list; the caller holds the list's lock (and the list
/// has no RCU readers).
#[inline]
pub unsafe fn list_add(new: *mut ListHead, head: *mut ListHead) {
    // SAFETY: `new` and `head` are live, `new` is on no list, and the caller holds
    // the lock of this reader-less list (this function's `# Safety`), so `head`'s
    // neighbour is live too and nobody else accesses the three entries.
    unsafe {
        let next = (*head).next;
        (*next).prev = new;
        (*new).next = next;
        (*new).prev = head;
        store_next(head, new, Ordering::Relaxed);
    }
}

/// `__list_del_entry()`: unlink `entry` from its neighbours.
///
/// # Safety
/// `entry` is on a list; the caller holds the list's lock.
#[inline]
unsafe fn list_del_entry(entry: *mut ListHead) {
    // SAFETY: `entry` is on a list whose lock the caller holds (this function's
    // `# Safety`), so it and its neighbours are live and nobody else writes them.
    unsafe {
        let prev = (*entry).prev;
        let next = (*entry).next;
        (*next).prev = prev;
        store_next(prev, next, Ordering::Relaxed);
    }
}

/// `list_del()`: unlink `entry` and poison it.
///
/// # Safety
/// As for [`list_del_init`].
#[inline]
pub unsafe fn list_del(entry: *mut ListHead) {
    // SAFETY: `entry` is on a list whose lock the caller holds (this function's
    // `# Safety`, as for `list_del_init`), as `list_del_entry()` requires.
    unsafe {
        list_del_entry(entry);
        (*entry).next = LIST_POISON1 as *mut ListHead;
        (*entry).prev = LIST_POISON2 as *mut ListHead;
    }
}

/// `list_del_init()`: unlink `entry` and make it an empty list.
///
/// # Safety
/// `entry` is on a list (possibly its own, empty); lock held.
#[inline]
pub unsafe fn list_del_init(entry: *mut ListHead) {
    // SAFETY: `entry` is on a list, maybe its own, whose lock the caller holds
    // (this function's `# Safety`), as `list_del_entry()` and `init_list_head()` need.
    unsafe {
        list_del_entry(entry);
        init_list_head(entry);
    }
}

/// `list_move()`: move `entry` to right after `head`.
///
/// # Safety
/// Both live, `entry` on a list; lock held.
#[inline]
pub unsafe fn list_move(entry: *mut ListHead, head: *mut ListHead) {
    // SAFETY: `entry` is on a list and `head` is live, with the lock held (this
    // function's `# Safety`): `list_del_entry()` unlinks `entry`, which then is on
    // no list, as `list_add()` requires.
    unsafe {
        list_del_entry(entry);
        list_add(entry, head);
    }
}

/// The entries of a list, collected first so the loop body may unlink or
/// move the current entry (`list_for_each_entry_safe()`: the C macro reads
/// `next` before the body runs; this does the same, one step at a time).
///
/// # Invariants
/// The list's lock is held while the iterator is used ([`iter_safe`]'s
/// `# Safety`); `pos` is the head or an entry, and the loop body unlinks
/// at most the entry last returned.
pub struct SafeIter {
    head: *mut ListHead,
    pos: *mut ListHead,
    next: *mut ListHead,
}

/// Iterates over the list at `head`, tolerating removal of the current
/// entry.
///
/// # Safety
/// `head` is live and the caller holds the list's lock while iterating;
/// the loop body unlinks or moves at most the entry last returned.
#[inline]
pub unsafe fn iter_safe(head: *mut ListHead) -> SafeIter {
    // SAFETY: `head` is live and the caller holds the list's lock (this function's
    // `# Safety`), so `head->next` and its `next` are live entries (or `head`).
    unsafe {
        let pos = (*head).next;
        SafeIter {
            head,
            pos,
            next: (*pos).next,
        }
    }
}

impl Iterator for SafeIter {
    type Item = *mut ListHead;
    #[inline]
    fn next(&mut self) -> Option<*mut ListHead> {
        if self.pos == self.head {
            return None;
        }
        let cur = self.pos;
        self.pos = self.next;
        // SAFETY: by the type invariant, `self.pos` (`cur`'s successor when it
        // was returned) is still the head or an entry of the locked list.
        self.next = unsafe { (*self.pos).next };
        Some(cur)
    }
}

/// `hlist_del_rcu()`.
///
/// # Safety
/// `n` is hashed; the caller holds the update-side lock.
#[inline]
pub unsafe fn hlist_del_rcu(n: *mut HlistNode) {
    // SAFETY: `n` is hashed and the caller holds the update-side lock (this
    // function's `# Safety`), so `*pprev` and `next` are live; readers still on `n`
    // keep following its untouched `next`.
    unsafe {
        let next = (*n).next;
        let pprev = (*n).pprev;
        AtomicPtr::from_ptr(pprev).store(next, Ordering::Relaxed);
        if !next.is_null() {
            (*next).pprev = pprev;
        }
        (*n).pprev = LIST_POISON2 as *mut *mut HlistNode;
    }
}

/// `hlist_replace_rcu()`: put `new` in the place of `old`.
///
/// # Safety
/// `old` is hashed, `new` is live and not hashed; the caller holds the
/// update-side lock.
#[inline]
pub unsafe fn hlist_replace_rcu(old: *mut HlistNode, new: *mut HlistNode) {
    // SAFETY: `old` is hashed, `new` is live and unhashed, and the caller holds the
    // update-side lock (this function's `# Safety`): `new` is filled before the
    // release store publishes it in `old`'s place.
    unsafe {
        let next = (*old).next;
        (*new).next = next;
        (*new).pprev = (*old).pprev;
        AtomicPtr::from_ptr((*new).pprev).store(new, Ordering::Release);
        if !next.is_null() {
            (*next).pprev = core::ptr::addr_of_mut!((*new).next);
        }
        (*old).pprev = LIST_POISON2 as *mut *mut HlistNode;
    }
}

/// `INIT_HLIST_NODE()`.
///
/// # Safety
/// `n` is valid for writes.
#[inline]
pub unsafe fn init_hlist_node(n: *mut HlistNode) {
    // SAFETY: `n` is valid for writes (this function's `# Safety`).
    unsafe {
        (*n).next = core::ptr::null_mut();
        (*n).pprev = core::ptr::null_mut();
    }
}

/// Iterates over the nodes of the hash chain at `head` (caller holds the
/// update-side lock, or is an RCU reader); the next node is read before
/// the current one is yielded, so the body may unhash it
/// (`hlist_for_each_entry_safe()`-like; the C code uses the non-safe form
/// where it does not unhash).
///
/// # Invariants
/// While the iterator is used, the chain's update-side lock is held or an
/// RCU read-side section is open ([`hlist_iter`]'s `# Safety`), so `pos`
/// is null or a live node.
pub struct HlistIter {
    pos: *mut HlistNode,
}

/// Iterates over the hash chain at `head`.
///
/// # Safety
/// `head` is live, and the lock is held or an RCU read-side section open
/// for as long as the iterator is used.
#[inline]
pub unsafe fn hlist_iter(head: *mut HlistHead) -> HlistIter {
    HlistIter {
        // SAFETY: `head` is live and the lock is held or the caller is an RCU reader
        // (this function's `# Safety`), as `hlist_first_rcu()` requires.
        pos: unsafe { hlist_first_rcu(head) },
    }
}

impl Iterator for HlistIter {
    type Item = *mut HlistNode;
    #[inline]
    fn next(&mut self) -> Option<*mut HlistNode> {
        if self.pos.is_null() {
            return None;
        }
        let cur = self.pos;
        // SAFETY: `cur` is a live node (the type invariant).
        self.pos = unsafe { hlist_next_rcu(cur) };
        Some(cur)
    }
}
