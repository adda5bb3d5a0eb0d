// SPDX-License-Identifier: GPL-2.0

//! Host tests of the kprobe hash table and get_kprobe() (its index has
//! tests of its own in test_index.rs).

use crate::exports::get_kprobe;
use crate::list;
use crate::registry::{self, bucket, hash_ptr};
use crate::sys;
use crate::types::{Kprobe, KprobeOpcode};

/// A probe allocated once and from then on reached only through the
/// returned raw pointer, as the hash chains link it; freed by [`free`].
fn probe(addr: usize) -> *mut Kprobe {
    // SAFETY: all-zero is a valid (unregistered) struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.addr = addr as *mut KprobeOpcode;
    Box::into_raw(p)
}

/// Frees probes from [`probe`], after emptying the table that links them.
///
/// # Safety
/// Each pointer comes from [`probe`], is freed once and not used after;
/// the caller holds `sys::exclusive()`.
unsafe fn free(ps: &[*mut Kprobe]) {
    crate::registry::reset();
    crate::index::reset();
    for &p in ps {
        // SAFETY: from `Box::into_raw` in `probe()` (caller), no longer
        // hashed.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// Hashes `p` in the table and the index, as `registry::hash_probe()`.
fn hash(p: *mut Kprobe) {
    let km = crate::locks::kprobe_mutex();
    crate::index::reserve(&km).expect("memory");
    // SAFETY: serialized test; `p` is a live probe from `probe()`, reached
    // only through raw pointers, so the node pointer keeps the provenance
    // of the whole probe (get_kprobe() reads `addr` through it); it lives
    // until `free()`, which empties the index first.
    unsafe {
        list::hlist_add_head_rcu(&raw mut (*p).hlist, bucket((*p).addr as usize));
        crate::index::insert(&km, crate::probe::Hashed::from_raw(p));
    }
}

fn get(addr: usize) -> *mut Kprobe {
    // SAFETY: serialized test stands in for kprobe_mutex.
    unsafe { get_kprobe(addr as *mut _) }
}

#[test]
fn get_kprobe_finds_only_exact_addresses() {
    let _g = sys::exclusive();
    let a = probe(0xffff_ffff_8100_1000);
    hash(a);
    assert_eq!(get(0xffff_ffff_8100_1000), a);
    assert!(get(0xffff_ffff_8100_1001).is_null());
    assert!(get(0).is_null());
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[a]) };
}

#[test]
fn get_kprobe_walks_a_bucket_chain() {
    let _g = sys::exclusive();
    // Find three addresses that share a bucket.
    let base = 0xffff_ffff_8100_0000usize;
    let b = hash_ptr(base);
    let same: Vec<usize> = (base..).filter(|&a| hash_ptr(a) == b).take(3).collect();
    let ps: Vec<*mut Kprobe> = same.iter().map(|&a| probe(a)).collect();
    for &p in &ps {
        hash(p);
    }
    for (i, &a) in same.iter().enumerate() {
        assert_eq!(get(a), ps[i], "address {a:#x}");
    }
    // The newest is first in the chain (hlist_add_head_rcu).
    // SAFETY: serialized test.
    let first = unsafe { list::hlist_first_rcu(bucket(base)) };
    assert_eq!(first as *mut Kprobe, ps[2]);
    assert!(get(same[2] + 1).is_null() || hash_ptr(same[2] + 1) != b);
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&ps) };
}

#[test]
fn empty_table_finds_nothing() {
    let _g = sys::exclusive();
    for a in (0xffff_ffff_8100_0000usize..).step_by(13).take(1000) {
        assert!(get(a).is_null());
    }
    let _ = registry::KPROBE_HASH_BITS;
}
