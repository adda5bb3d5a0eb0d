// SPDX-License-Identifier: GPL-2.0

//! Host tests of the address index (`index.rs`): lookups at 10 to 50,000
//! probes, removal (tombstones) and reuse, replacement, growth, and the
//! bounded walk of a missing address.

use crate::index;
use crate::locks;
use crate::probe::Hashed;
use crate::sys;
use crate::types::{Kprobe, KprobeOpcode};

/// Probes at `addrs`, reached only through raw pointers (as the index
/// holds them); freed by [`free`].
fn probes(addrs: impl Iterator<Item = usize>) -> Vec<*mut Kprobe> {
    addrs
        .map(|a| {
            // SAFETY: all-zero is a valid (unregistered) struct kprobe.
            let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
            p.addr = a as *mut KprobeOpcode;
            Box::into_raw(p)
        })
        .collect()
}

/// Empties the index and frees the probes.
///
/// # Safety
/// Each pointer comes from [`probes`] and is not used afterwards; the caller
/// holds `sys::exclusive()`.
unsafe fn free(ps: &[*mut Kprobe]) {
    index::reset();
    for &p in ps {
        // SAFETY: from `Box::into_raw()` in `probes()`, no longer indexed.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// The view the index takes of a test probe.
fn h<'k>(_km: &'k locks::KprobeMutex, p: *mut Kprobe) -> Hashed<'k> {
    // SAFETY: `p` comes from `probes()` and lives until `free()`, which
    // empties the index first: it stands for a hashed probe.
    unsafe { Hashed::from_raw(p) }
}

/// `reserve()` then `insert()`, as `register_kprobe()` does.
fn ins(km: &locks::KprobeMutex, p: *mut Kprobe) -> crate::error::Result {
    index::reserve(km)?;
    index::insert(km, h(km, p));
    Ok(())
}

/// Asserts that probe `i` of `ps` (at `addr(i)`) is found exactly when
/// `kept(i)`, and that nothing is found at the others' addresses.
/// Probe `i` of `ps` is found, by `get_kprobe()`'s look-up and by a
/// writer's `Finder`, exactly when `kept(i)`.
fn assert_indexed(ps: &[*mut Kprobe], kept: impl Fn(usize) -> bool) {
    let km = locks::kprobe_mutex();
    let rcu = locks::rcu_read();
    let f = index::finder(&km, &rcu);
    for (i, &p) in ps.iter().enumerate() {
        let want = if kept(i) { p } else { core::ptr::null_mut() };
        assert_eq!(get(addr(i)), want, "probe {i}");
        assert_eq!(
            f.find(addr(i) as *mut KprobeOpcode)
                .map_or(core::ptr::null_mut(), core::ptr::NonNull::as_ptr),
            want,
            "probe {i}, finder"
        );
    }
}

fn get(a: usize) -> *mut Kprobe {
    // SAFETY: the serialized test stands in for kprobe_mutex.
    unsafe { index::lookup(a as *mut KprobeOpcode) }
}

/// Text-like addresses: 4-byte aligned, clustered as functions are.
fn addr(i: usize) -> usize {
    0xffff_ffff_8100_0000 + (i / 7) * 0x40 + (i % 7) * 4
}

#[test]
fn finds_every_probe_and_nothing_else_up_to_50000() {
    let _x = sys::exclusive();
    index::reset();
    // Under Miri (an interpreter) the largest sizes would take minutes.
    let sizes: &[usize] = if cfg!(miri) {
        &[0, 10, 47, 48, 49, 640]
    } else {
        &[0, 10, 47, 48, 49, 640, 5_000, 50_000]
    };
    for &n in sizes {
        let ps = probes((0..n).map(addr));
        let km = locks::kprobe_mutex();
        for &p in &ps {
            ins(&km, p).expect("memory");
        }
        let (live, cap) = index::stats(&km);
        // What the assembly `get_kprobe()` multiplies by: homes below
        // `cap - TAIL`, in the static table and in every rebuilt one.
        assert_eq!(
            index::cap_hi(&km),
            ((cap - index::TAIL) as u64) << 32,
            "n={n}"
        );
        drop(km);
        assert_eq!(live, n);
        // At most 3/4 used.
        assert!(cap * 3 >= n * 4, "n={n} cap={cap}");
        // The slots fill the whole pages the allocator gave (a 32-byte
        // header); beyond the static table (a table rebuilt at 3/4 use to
        // 5/8), at most 12.8 bytes of index per probe and less than a page.
        let bytes = cap * 8 + 32;
        assert!(
            n <= 48 || sys::table_size(bytes) - bytes < 8,
            "n={n}: {bytes} bytes of a table"
        );
        assert!(
            n <= 48 || bytes * 5 <= n * 64 + 5 * 4096,
            "n={n}: {} bytes per probe",
            bytes / n
        );
        for (i, &p) in ps.iter().enumerate() {
            assert_eq!(get(addr(i)), p, "n={n} i={i}");
        }
        assert!(get(addr(n)).is_null());
        assert!(get(addr(0) + 1).is_null());
        assert!(get(0).is_null());
        // The sentinels' own addresses are not found either.
        assert!(get(index::empty() as usize).is_null());
        assert!(get(index::tomb() as usize).is_null());
        // SAFETY: serialized; `ps` come from `probes()`.
        unsafe { free(&ps) };
    }
}

#[test]
fn removal_leaves_the_others_and_slots_are_reused() {
    let _x = sys::exclusive();
    index::reset();
    let ps = probes((0..40).map(addr));
    let km = locks::kprobe_mutex();
    for &p in &ps {
        ins(&km, p).unwrap();
    }
    // Remove every other one: the rest stay found past the tombstones.
    for &p in ps.iter().step_by(2) {
        index::remove(&km, h(&km, p));
    }
    drop(km);
    assert_indexed(&ps, |i| i % 2 != 0);
    // Insert and remove many times at the same addresses: the table does not
    // fill up with tombstones (it is rebuilt) and stays small.
    let km = locks::kprobe_mutex();
    for _ in 0..200 {
        for &p in ps.iter().step_by(2) {
            ins(&km, p).unwrap();
        }
        for &p in ps.iter().step_by(2) {
            index::remove(&km, h(&km, p));
        }
    }
    let (live, cap) = index::stats(&km);
    drop(km);
    assert_eq!(live, 20);
    assert!(cap <= 128, "cap {cap}");
    assert_indexed(&ps, |i| i % 2 != 0);
    // SAFETY: serialized; `ps` come from `probes()`.
    unsafe { free(&ps) };
}

#[test]
fn removing_every_probe_leaves_no_tomb() {
    let _x = sys::exclusive();
    index::reset();
    // 40 probes in 64 slots: clusters, with tombs inside once removing.
    let n = 40;
    let ps = probes((0..n).map(addr));
    let km = locks::kprobe_mutex();
    for &p in &ps {
        ins(&km, p).unwrap();
    }
    // Remove in an order that leaves tombs in the middle of clusters: the
    // rest stay found; a slot followed by an empty one, and the tombs
    // before it, become empty.
    let order: Vec<usize> = (0..n).map(|k| (k * 7) % n).collect();
    let (gone, rest) = order.split_at(n / 2 + 1);
    for &i in gone {
        index::remove(&km, h(&km, ps[i]));
    }
    assert!(index::used(&km) < n, "some tombs cleaned already");
    drop(km);
    assert_indexed(&ps, |j| !gone.contains(&j));
    let km = locks::kprobe_mutex();
    for &i in rest {
        index::remove(&km, h(&km, ps[i]));
    }
    assert_eq!(
        index::used(&km),
        0,
        "no tomb left once every probe is removed"
    );
    drop(km);
    assert_indexed(&ps, |_| false);
    // SAFETY: serialized; from `probes()`.
    unsafe { free(&ps) };
}

#[test]
fn replace_swaps_in_place_and_collisions_are_walked() {
    let _x = sys::exclusive();
    index::reset();
    // Addresses 64 KiB apart collide a lot in a small table.
    let ps = probes((0..30).map(|i| 0xffff_ffff_c000_0000 + i * 0x1_0000));
    let agg = probes(core::iter::once(0xffff_ffff_c000_0000 + 5 * 0x1_0000));
    let km = locks::kprobe_mutex();
    for &p in &ps {
        ins(&km, p).unwrap();
    }
    index::replace(&km, h(&km, ps[5]), h(&km, agg[0]));
    drop(km);
    for (i, &p) in ps.iter().enumerate() {
        let want = if i == 5 { agg[0] } else { p };
        assert_eq!(get(0xffff_ffff_c000_0000 + i * 0x1_0000), want);
    }
    // SAFETY: serialized; from `probes()`.
    unsafe {
        free(&ps);
        free(&agg);
    }
}

#[test]
fn a_failed_growth_uses_the_room_left_then_refuses() {
    let _x = sys::exclusive();
    index::reset();
    let ps = probes((0..60).map(addr));
    let km = locks::kprobe_mutex();
    let mut r = Vec::new();
    for &p in &ps {
        sys::record(|r| r.fail_kmalloc = 1);
        r.push(ins(&km, p).is_ok());
        sys::record(|r| r.fail_kmalloc = 0);
    }
    drop(km);
    // 48 fit at 3/4 of the static 64 slots, 56 at 7/8; then Err.
    assert_eq!(r.iter().filter(|&&ok| ok).count(), 56);
    assert!(r[..56].iter().all(|&ok| ok));
    assert_indexed(&ps, |i| i < 56);
    // SAFETY: serialized; from `probes()`.
    unsafe { free(&ps) };
}

#[test]
fn removing_shrinks_the_table() {
    let _x = sys::exclusive();
    index::reset();
    let n = if cfg!(miri) { 500 } else { 5_000 };
    let ps = probes((0..n).map(addr));
    let km = locks::kprobe_mutex();
    for &p in &ps {
        ins(&km, p).unwrap();
    }
    let (_, big) = index::stats(&km);
    for &p in &ps[10..] {
        index::remove(&km, h(&km, p));
    }
    let (live, cap) = index::stats(&km);
    // Adding and removing one probe at that size rebuilds nothing (a shrink
    // only happens when the new table would have fewer slots).
    // (A kmalloc() would take one of the failures set up here.)
    sys::record(|r| r.fail_kmalloc = 1000);
    for _ in 0..100 {
        ins(&km, ps[10]).unwrap();
        index::remove(&km, h(&km, ps[10]));
    }
    assert_eq!(sys::record(|r| std::mem::take(&mut r.fail_kmalloc)), 1000);
    drop(km);
    assert_eq!(live, 10);
    // Down to one page (the smallest table beyond the static one).
    assert!(big >= n * 4 / 3 && cap <= 4096 / 8, "big {big} cap {cap}");
    assert_indexed(&ps, |i| i < 10);
    // SAFETY: serialized; from `probes()`.
    unsafe { free(&ps) };
}

/// A reader looks up probes while the writer grows the table many times
/// (old tables are freed only after the reader stops, as a grace period
/// would): every probe registered before the reader started is found in
/// every round, whichever table the reader sees.
#[test]
fn lookups_during_rebuilds_find_the_probes() {
    let _x = sys::exclusive();
    index::reset();
    sys::record(|r| r.rcu_deferred = Some(Vec::new()));
    let n = if cfg!(miri) { 200 } else { 20_000 };
    let ps = probes((0..n).map(addr));
    let km = locks::kprobe_mutex();
    for &p in &ps[..40] {
        ins(&km, p).unwrap();
    }
    let stop = std::sync::Arc::new(core::sync::atomic::AtomicBool::new(false));
    let want: Vec<usize> = ps[..40].iter().map(|&p| p as usize).collect();
    let reader = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut rounds = 0usize;
            while !stop.load(core::sync::atomic::Ordering::Acquire) || rounds == 0 {
                for (i, &p) in want.iter().enumerate() {
                    assert_eq!(get(addr(i)) as usize, p, "probe {i}");
                }
                rounds += 1;
            }
            rounds
        })
    };
    for &p in &ps[40..] {
        ins(&km, p).unwrap();
    }
    stop.store(true, core::sync::atomic::Ordering::Release);
    let rounds = reader.join().expect("reader");
    drop(km);
    assert!(rounds > 0);
    sys::rcu_barrier();
    for (i, &p) in ps.iter().enumerate() {
        assert_eq!(get(addr(i)), p);
    }
    // SAFETY: serialized; from `probes()`.
    unsafe { free(&ps) };
}

/// An address whose 32-bit hash is `h` (`GOLDEN_RATIO_32` is odd, so the
/// hash is a bijection of the low 32 bits).
fn with_hash(h: u32) -> usize {
    // Newton's iteration for the inverse modulo 2^32: five steps from an
    // `g` itself (its own inverse modulo 8: correct to 3 bits) reach 96 bits.
    let g = index::GOLDEN_RATIO_32;
    let mut inv = g;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(g.wrapping_mul(inv)));
    }
    assert_eq!(g.wrapping_mul(inv), 1);
    0xffff_ffff_0000_0000 | h.wrapping_mul(inv) as usize
}

#[test]
fn no_home_in_the_tail_and_a_cluster_at_the_end_wraps_around() {
    let _x = sys::exclusive();
    index::reset();
    // The largest hashes have the last home slot, `cap - TAIL - 1`: six of
    // them fill it, the `TAIL` slots after it, then wrap around to slot 0
    // and on, where six probes of the smallest hashes (home 0) follow.
    let mut a: Vec<usize> = (0..6).map(|k| with_hash(u32::MAX - k)).collect();
    a.extend((0..6).map(with_hash));
    let ps = probes(a.iter().copied());
    let km = locks::kprobe_mutex();
    for &p in &ps {
        ins(&km, p).unwrap();
    }
    let (live, cap) = index::stats(&km);
    let at: Vec<Option<usize>> = a
        .iter()
        .map(|&x| index::position(&km, x as *mut KprobeOpcode))
        .collect();
    drop(km);
    assert_eq!((live, cap), (12, 64), "the static table");
    let want: Vec<Option<usize>> = [61, 62, 63, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        .into_iter()
        .map(Some)
        .collect();
    assert_eq!(
        at, want,
        "homes 61 (= 64 - TAIL - 1) and 0, then linear probing"
    );
    for (i, &p) in ps.iter().enumerate() {
        assert_eq!(get(a[i]), p, "probe {i}");
    }
    // Misses end at the first empty slot: one whose walk wraps around (home
    // 61) and one from home 0.
    assert!(get(with_hash(u32::MAX - 6)).is_null());
    assert!(get(with_hash(6)).is_null());
    // Removing the ones in the tail and at slot 0 leaves tombs the others
    // are found past; removing all leaves nothing.
    let km = locks::kprobe_mutex();
    for &i in &[1usize, 2, 3, 6] {
        index::remove(&km, h(&km, ps[i]));
    }
    drop(km);
    for (i, &p) in ps.iter().enumerate() {
        let want = if [1, 2, 3, 6].contains(&i) {
            core::ptr::null_mut()
        } else {
            p
        };
        assert_eq!(get(a[i]), want, "probe {i} after removals");
    }
    let km = locks::kprobe_mutex();
    for (i, &p) in ps.iter().enumerate() {
        if ![1, 2, 3, 6].contains(&i) {
            index::remove(&km, h(&km, p));
        }
    }
    assert_eq!(index::used(&km), 0, "no tomb left");
    drop(km);
    // SAFETY: serialized; from `probes()`.
    unsafe { free(&ps) };
}
