// SPDX-License-Identifier: GPL-2.0

//! The kprobe hash table and [`get_kprobe`].  Port of the registry part of
//! `kernel/kprobes.c`.
//!
//! `kprobe_table` can be accessed by
//! - normal hlist traversal and RCU add/del while `kprobe_mutex` is held, or
//! - RCU hlist traversal with preemption disabled (breakpoint handlers).
//!
//! [`get_kprobe`] runs in the int3/ftrace/optprobe handlers: it is on the
//! kprobe blacklist, cannot panic (no indexing that can fail, wrapping
//! arithmetic), does not allocate and does not sleep.

use crate::list;
use crate::types::{HlistHead, Kprobe, KprobeOpcode};
use core::ptr;

/// `KPROBE_HASH_BITS`.
pub const KPROBE_HASH_BITS: u32 = 6;
/// `KPROBE_TABLE_SIZE`.
pub const KPROBE_TABLE_SIZE: usize = 1 << KPROBE_HASH_BITS;

/// `GOLDEN_RATIO_64` of `<linux/hash.h>`.
pub const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;

/// `kprobe_table`: the hash table of registered (and aggregate) probes,
/// by address.  Static, as upstream's (only this crate walks it).
pub static mut KPROBE_TABLE: [HlistHead; KPROBE_TABLE_SIZE] =
    [HlistHead { first: ptr::null_mut() }; KPROBE_TABLE_SIZE];

/// `hash_ptr(addr, KPROBE_HASH_BITS)` (`hash_64_generic()`; x86 has no
/// arch hash).
#[inline(always)]
pub fn hash_ptr(addr: usize) -> usize {
    ((addr as u64).wrapping_mul(GOLDEN_RATIO_64) >> (64 - KPROBE_HASH_BITS)) as usize
}

/// The bucket of `addr`.
#[inline(always)]
pub fn bucket(addr: usize) -> *mut HlistHead {
    // `hash_ptr` is below KPROBE_TABLE_SIZE, so `add` stays in the array;
    // no bounds-check panic can be reached from trap context.
    (&raw mut KPROBE_TABLE).cast::<HlistHead>().wrapping_add(hash_ptr(addr) & (KPROBE_TABLE_SIZE - 1))
}

/// `get_kprobe()`: the probe (or aggregate) registered at `addr`, or null.
///
/// Called either under `kprobe_mutex` during (un)registration, or with
/// preemption disabled from the architecture's handlers.
///
/// # Safety
/// One of the two contexts above.
#[inline]
pub unsafe fn get_kprobe(addr: *mut KprobeOpcode) -> *mut Kprobe {
    // SAFETY: the caller's context keeps the nodes alive (RCU) or stable
    // (mutex); `hlist` is the first field of `struct kprobe`.
    unsafe {
        let mut n = list::hlist_first_rcu(bucket(addr as usize));
        while !n.is_null() {
            let p = n.cast::<Kprobe>();
            if (*p).addr == addr {
                return p;
            }
            n = list::hlist_next_rcu(n);
        }
    }
    ptr::null_mut()
}

/// Empties the table (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    // SAFETY: host tests are serialized.
    unsafe { (*(&raw mut KPROBE_TABLE)).iter_mut().for_each(|h| h.first = ptr::null_mut()) };
}

/// Calls `f` on every hashed probe (`hlist_for_each_entry` over each
/// bucket).  `f` may not unhash the probe it is given.
///
/// # Safety
/// `kprobe_mutex` held.
pub unsafe fn for_each_hashed(mut f: impl FnMut(*mut Kprobe)) {
    for i in 0..KPROBE_TABLE_SIZE {
        let head = (&raw mut KPROBE_TABLE).cast::<HlistHead>().wrapping_add(i);
        // SAFETY: caller's contract; `hlist` is the first field of `struct
        // kprobe`.
        for n in unsafe { list::hlist_iter(head) } {
            f(n.cast::<Kprobe>());
        }
    }
}

/// `hlist_add_head_rcu(&p->hlist, &kprobe_table[hash_ptr(p->addr)])`.
///
/// # Safety
/// `p` is live and not hashed; `kprobe_mutex` held.
pub unsafe fn hash_probe(p: *mut Kprobe) {
    // SAFETY: caller's contract.
    unsafe {
        list::init_hlist_node(core::ptr::addr_of_mut!((*p).hlist));
        list::hlist_add_head_rcu(core::ptr::addr_of_mut!((*p).hlist), bucket((*p).addr as usize));
    }
}
