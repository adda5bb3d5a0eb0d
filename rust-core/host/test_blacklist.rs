// SPDX-License-Identifier: GPL-2.0

//! Host tests of the kprobe blacklist against the simulated kernel image.

use crate::blacklist;
use crate::exports::*;
use crate::ffi::c_ulong;
use crate::sys::{self, image, record, Module, Sym};
use crate::views::{Boot, ModuleView};

const TEXT: usize = 0x1000_0000;
const A: usize = TEXT;
const B: usize = TEXT + 0x100;
const B_COLD: usize = TEXT + 0x8000;
const C: usize = TEXT + 0x200;
const C_ISRA: usize = TEXT + 0x8100;
const KPT: usize = TEXT + 0x2_0000;
const NOI: usize = TEXT + 0x3_0000;
const ARCH: usize = TEXT + 0x4_0000;
const MODT: usize = 0x2000_0000;

/// A small kernel: plain functions, suffixed copies, a `.kprobes.text`
/// and a `.noinstr.text` area (with an alias), an arch area, a module.
fn kernel() {
    image(|i| {
        i.text = vec![(TEXT, TEXT + 0x10_0000), (MODT, MODT + 0x1000)];
        i.symbols = vec![
            Sym::new("func_a", A, 0x100),
            Sym::new("func_b", B, 0x80),
            Sym::new("func_b.cold", B_COLD, 0x40),
            Sym::new("func_c", C, 0x60),
            Sym::new("func_c.isra.0", C_ISRA, 0x30),
            Sym::new("kp_one", KPT, 0x100),
            Sym::new("kp_two", KPT + 0x100, 0x100),
            Sym::new("noinstr_alias", NOI, 0),
            Sym::new("noinstr_one", NOI, 0x80),
            Sym::new("arch_entry", ARCH, 0x40),
            Sym::new("mod_nokprobe", MODT, 0x20),
            Sym::new("mod_kprobes_fn", MODT + 0x100, 0x40),
            Sym::new("mod_plain", MODT + 0x200, 0x40),
        ];
        i.kprobes_text = (KPT, KPT + 0x200);
        i.noinstr_text = (NOI, NOI + 0x80);
        i.arch_populate.areas = vec![(ARCH, ARCH + 0x40)];
    });
}

fn entries() -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    // SAFETY: tests are serialized; the list is quiescent.
    for l in unsafe { crate::list::iter_rcu(&raw mut blacklist::KPROBE_BLACKLIST) } {
        let e = crate::container_of!(l, crate::types::KprobeBlacklistEntry, list);
        // SAFETY: live entry.
        unsafe { v.push(((*e).start_addr, (*e).end_addr)) };
    }
    v
}

/// The export `kprobe_add_ksym_blacklist()`, as the arch calls it: under
/// `kprobe_mutex`.
fn add_ksym(entry: c_ulong) -> crate::ffi::c_int {
    let _km = crate::locks::kprobe_mutex();
    // SAFETY: `kprobe_mutex` is held (`_km`).
    unsafe { kprobe_add_ksym_blacklist(entry) }
}

/// The export `kprobe_add_area_blacklist()`, under `kprobe_mutex`.
fn add_area(start: c_ulong, end: c_ulong) -> crate::ffi::c_int {
    let _km = crate::locks::kprobe_mutex();
    // SAFETY: `kprobe_mutex` is held (`_km`).
    unsafe { kprobe_add_area_blacklist(start, end) }
}

fn populate(section: &[usize]) -> i32 {
    let v: Vec<c_ulong> = section.iter().map(|&a| a as c_ulong).collect();
    crate::error::to_errno(crate::blacklist::populate(&v))
}

#[test]
fn populate_adds_section_then_kprobes_text_then_noinstr_then_arch_in_order() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(populate(&[B, A]), 0);
    assert_eq!(
        entries(),
        vec![
            (B, B + 0x80),
            (A, A + 0x100),
            (KPT, KPT + 0x100),
            (KPT + 0x100, KPT + 0x200),
            // the zero-size alias adds an empty range and advances by one
            (NOI, NOI),
            (NOI + 1, NOI + 1 + 0x80),
            (ARCH, ARCH + 0x40),
        ]
    );
}

#[test]
fn boot_section_is_the_linker_array_that_populate_walks() {
    let _g = sys::exclusive();
    kernel();
    sys::arch(|a| a.blacklist_section = vec![B as c_ulong, A as c_ulong]);
    // SAFETY: a serialized host test (`_g`): no other thread uses the core,
    // and the simulated section is not changed while the token lives.
    let boot = unsafe { Boot::assume() };
    let section = boot.kprobe_blacklist_section();
    assert_eq!(section, &[B as c_ulong, A as c_ulong]);
    assert_eq!(crate::blacklist::populate(section), Ok(()));
    assert_eq!(entries()[..2], [(B, B + 0x80), (A, A + 0x100)]);
    sys::arch(|a| a.blacklist_section.clear());
}

#[test]
fn populate_skips_section_entries_outside_kernel_text() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(populate(&[0x9999_0000, A]), 0);
    assert_eq!(entries()[0], (A, A + 0x100));
}

#[test]
fn populate_fails_with_enomem_and_keeps_what_it_added() {
    let _g = sys::exclusive();
    kernel();
    record(|r| r.fail_kmalloc = 0);
    // Second allocation fails.
    let v: Vec<c_ulong> = vec![A as c_ulong, B as c_ulong];
    // Let the first kmalloc through, fail the second one.
    assert_eq!(
        blacklist::add_ksym_blacklist(&crate::locks::kprobe_mutex(), C),
        Ok(0x60)
    );
    record(|r| r.fail_kmalloc = 1);
    let r = crate::blacklist::populate(&v);
    assert_eq!(r, Err(crate::error::code::ENOMEM));
    assert_eq!(entries(), vec![(C, C + 0x60)]);
}

#[test]
fn arch_populate_error_is_returned() {
    let _g = sys::exclusive();
    kernel();
    image(|i| i.arch_populate.ret = -5);
    assert_eq!(populate(&[]), -5);
}

#[test]
fn noinstr_area_error_stops_populate_before_the_arch() {
    let _g = sys::exclusive();
    kernel();
    // A gap without symbol inside .noinstr.text: -EINVAL from the area walk.
    image(|i| i.noinstr_text = (NOI, NOI + 0x100));
    assert_eq!(populate(&[]), -sys::EINVAL);
    assert!(!entries().contains(&(ARCH, ARCH + 0x40)));
}

#[test]
fn add_ksym_returns_the_size_or_einval() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(add_ksym(A as c_ulong), 0x100);
    assert_eq!(add_ksym(0x5000_0000), -sys::EINVAL, "not text");
    assert_eq!(
        add_ksym((TEXT + 0x9000) as c_ulong),
        -sys::EINVAL,
        "text, no symbol"
    );
    assert_eq!(entries(), vec![(A, A + 0x100)]);
}

#[test]
fn add_ksym_mid_symbol_keeps_upstreams_range() {
    // Upstream records [entry, entry + size), not the symbol's own range.
    let _g = sys::exclusive();
    kernel();
    assert_eq!(add_ksym((A + 0x10) as c_ulong), 0x100);
    assert_eq!(entries(), vec![(A + 0x10, A + 0x110)]);
}

#[test]
fn add_area_propagates_the_first_error() {
    let _g = sys::exclusive();
    kernel();
    // func_a, func_b, then the gap after func_b: -EINVAL, nothing more.
    assert_eq!(add_area(A as c_ulong, (C + 0x100) as c_ulong), -sys::EINVAL);
    assert_eq!(entries(), vec![(A, A + 0x100), (B, B + 0x80)]);
}

#[test]
fn within_checks_ranges_with_exclusive_end() {
    let _g = sys::exclusive();
    kernel();
    add_ksym(B as c_ulong);
    assert!(within_kprobe_blacklist(B as c_ulong));
    assert!(within_kprobe_blacklist((B + 0x7f) as c_ulong));
    assert!(!within_kprobe_blacklist((B + 0x80) as c_ulong));
    assert!(!within_kprobe_blacklist((B - 1) as c_ulong));
}

#[test]
fn within_covers_kprobes_text_through_the_arch_hook_without_entries() {
    let _g = sys::exclusive();
    kernel();
    assert!(entries().is_empty());
    assert!(within_kprobe_blacklist((KPT + 0x150) as c_ulong));
    assert!(!within_kprobe_blacklist((KPT + 0x200) as c_ulong));
}

#[test]
fn within_follows_suffixed_copies_of_blacklisted_functions() {
    let _g = sys::exclusive();
    kernel();
    add_ksym(B as c_ulong);
    assert!(
        within_kprobe_blacklist((B_COLD + 8) as c_ulong),
        "func_b.cold of blacklisted func_b"
    );
    assert!(
        !within_kprobe_blacklist((C_ISRA + 8) as c_ulong),
        "func_c is not blacklisted"
    );
    add_ksym(C as c_ulong);
    assert!(
        within_kprobe_blacklist((C_ISRA + 8) as c_ulong),
        "func_c.isra.0"
    );
    assert!(!within_kprobe_blacklist((A + 8) as c_ulong), "no suffix");
    assert!(!within_kprobe_blacklist(0x5000_0000), "no symbol");
}

#[test]
fn within_ignores_a_suffixed_symbol_whose_base_is_unknown() {
    let _g = sys::exclusive();
    kernel();
    image(|i| {
        i.symbols
            .push(Sym::new("orphan.part.1", TEXT + 0x9000, 0x10))
    });
    add_area(A as c_ulong, (A + 0x100) as c_ulong);
    assert!(!within_kprobe_blacklist((TEXT + 0x9004) as c_ulong));
}

fn module() -> Module {
    let mut m = Module::default();
    m.set_kprobe_blacklist(&[MODT]);
    m.set_kprobes_text(MODT + 0x100, 0x40);
    m
}

#[test]
fn module_blacklist_comes_and_goes() {
    let _g = sys::exclusive();
    kernel();
    add_ksym(A as c_ulong);
    let mut m = module();
    // SAFETY: `m` is a module that outlives the view and is not written
    // while the view lives.
    let mv = unsafe { ModuleView::from_raw(&mut m) };
    crate::blacklist::add_module(&crate::locks::kprobe_mutex(), &mv);
    assert_eq!(
        entries(),
        vec![
            (A, A + 0x100),
            (MODT, MODT + 0x20),
            (MODT + 0x100, MODT + 0x140)
        ]
    );
    assert!(within_kprobe_blacklist((MODT + 0x110) as c_ulong));
    assert!(!within_kprobe_blacklist((MODT + 0x210) as c_ulong));
    crate::blacklist::remove_module(&crate::locks::kprobe_mutex(), &mv);
    assert_eq!(entries(), vec![(A, A + 0x100)]);
    assert_eq!(
        image(|i| i.kfree_rcu),
        2 + 1,
        "removed entries (and the withdrawn index) are freed after a grace period"
    );
    assert!(!within_kprobe_blacklist((MODT + 0x110) as c_ulong));
}

#[test]
fn module_without_sections_adds_nothing() {
    let _g = sys::exclusive();
    kernel();
    let mut m = Module::default();
    // SAFETY: `m` is a module that outlives the view and is not written
    // while the view lives.
    let mv = unsafe { ModuleView::from_raw(&mut m) };
    crate::blacklist::add_module(&crate::locks::kprobe_mutex(), &mv);
    assert!(entries().is_empty());
    crate::blacklist::remove_module(&crate::locks::kprobe_mutex(), &mv);
    assert_eq!(image(|i| i.kfree_rcu), 0);
}

#[test]
fn remove_area_only_drops_entries_starting_inside() {
    let _g = sys::exclusive();
    kernel();
    add_ksym((A + 0x10) as c_ulong); // [A+0x10, A+0x110) overlaps B
    add_ksym(B as c_ulong);
    blacklist::remove_area_blacklist(&crate::locks::kprobe_mutex(), B, B + 1);
    assert_eq!(entries(), vec![(A + 0x10, A + 0x110)]);
}

// ---------------------------------------------------------------------------
// The index (blacklist.rs, "The index"): the same answers as the list walk.

/// Upstream's test over `ranges`, as a plain loop.
fn naive(ranges: &[(usize, usize)], a: usize) -> bool {
    ranges.iter().any(|&(s, e)| a >= s && a < e)
}

/// Addresses around every bound of `ranges`, and the extremes.
fn probe_points(ranges: &[(usize, usize)]) -> Vec<usize> {
    let mut v = vec![0, 1, usize::MAX - 1, usize::MAX];
    for &(s, e) in ranges {
        for b in [s, e] {
            v.extend([
                b.wrapping_sub(2),
                b.wrapping_sub(1),
                b,
                b.wrapping_add(1),
                b.wrapping_add(2),
            ]);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// The published index answers as the list walk and as upstream's test
/// for every address of `addrs`; returns how many were blacklisted.
fn assert_index_agrees(addrs: &[usize]) -> usize {
    let list = entries();
    assert_eq!(
        blacklist::index_len(),
        Some(list.len()),
        "an index of the whole list is published"
    );
    let rcu = crate::locks::rcu_read();
    let mut hits = 0;
    for &a in addrs {
        let want = naive(&list, a);
        assert_eq!(blacklist::list_contains(&rcu, a), want, "walk at {a:#x}");
        assert_eq!(
            blacklist::index_contains(&rcu, a),
            Some(want),
            "index at {a:#x}"
        );
        hits += want as usize;
    }
    hits
}

fn add_ranges(ranges: &[(usize, usize)]) {
    for &(s, e) in ranges {
        blacklist::add_range(&crate::locks::kprobe_mutex(), s, e).unwrap();
    }
}

fn publish() {
    blacklist::publish_index(&crate::locks::kprobe_mutex());
}

#[test]
fn index_agrees_with_the_walk_on_overlapping_ranges() {
    let _g = sys::exclusive();
    // Inserted out of order: nested, equal starts, empty, adjacent, a long
    // range that short later ones do not reach the end of, a wrapping one
    // (end below start: upstream's test never holds), the extremes.
    let ranges = [
        (0x5000, 0x5100),
        (0x100, 0x400),
        (0x180, 0x200),
        (0x190, 0x1a0),
        (0x1000, 0x1010),
        (0x1000, 0x1100),
        (0x1000, 0x1000),
        (0x2000, 0x2000),
        (0x3010, 0x3020),
        (0x3000, 0x3010),
        (0x4000, 0x4800),
        (0x4100, 0x4110),
        (0x4200, 0x4200),
        (0x6000, 0x10),
        (0, 1),
        (usize::MAX - 4, usize::MAX),
        (0x180, 0x200),
    ];
    add_ranges(&ranges);
    assert_eq!(
        blacklist::index_len(),
        None,
        "not published until the writer is done"
    );
    publish();
    let hits = assert_index_agrees(&probe_points(&ranges));
    assert!(hits > 0);
    let rcu = crate::locks::rcu_read();
    let at = |a| blacklist::index_contains(&rcu, a).unwrap();
    assert!(
        at(0x4400),
        "inside the long range, past the short ones after it"
    );
    assert!(at(0x3010) && at(0x300f) && !at(0x3020), "adjacent");
    assert!(
        at(0x1050) && !at(0x1100),
        "equal starts: the longest counts"
    );
    assert!(
        !at(0x2000) && !at(0x6000) && !at(0x8),
        "empty and wrapping entries hold nothing"
    );
    assert!(
        at(0) && !at(1) && at(usize::MAX - 1) && !at(usize::MAX),
        "extremes"
    );
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 16) as usize
    }
    fn below(&mut self, n: usize) -> usize {
        self.next() % n
    }
}

#[test]
fn index_agrees_with_the_walk_on_random_ranges() {
    let _g = sys::exclusive();
    let (rounds, max_n) = if cfg!(miri) { (3, 40) } else { (40, 400) };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..rounds {
        crate::reset_for_test();
        // A window small enough that the ranges overlap densely.
        let base = 0x1000_0000 + rng.below(1 << 20);
        let win = 64 + rng.below(4096);
        let n = 1 + rng.below(max_n);
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for _ in 0..n {
            let s = match rng.below(8) {
                // equal starts: reuse one
                0 if !ranges.is_empty() => ranges[rng.below(ranges.len())].0,
                // adjacent: start where one ends
                1 if !ranges.is_empty() => ranges[rng.below(ranges.len())].1,
                _ => base + rng.below(win),
            };
            let len = match rng.below(6) {
                0 => 0,
                1 => win,
                _ => rng.below(64),
            };
            ranges.push((s, s + len));
        }
        add_ranges(&ranges);
        publish();
        let mut addrs = probe_points(&ranges);
        addrs.extend((0..256).map(|_| base - 8 + rng.below(win + 16 + 64)));
        assert_index_agrees(&addrs);
        assert!(round < rounds);
    }
}

#[test]
fn a_list_change_withdraws_the_index_until_it_is_published_again() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(populate(&[B, A]), 0);
    assert_eq!(
        blacklist::index_len(),
        Some(entries().len()),
        "populate publishes an index"
    );
    let freed = image(|i| i.kfree_rcu);
    add_ksym(C as c_ulong);
    assert_eq!(blacklist::index_len(), None, "withdrawn by the change");
    assert_eq!(
        image(|i| i.kfree_rcu),
        freed + 1,
        "the withdrawn index goes after a grace period"
    );
    // Meanwhile checks walk the list, with the new entry.
    assert!(within_kprobe_blacklist((C + 4) as c_ulong));
    publish();
    assert!(within_kprobe_blacklist((C + 4) as c_ulong));
    assert_index_agrees(&probe_points(&entries()));
    blacklist::remove_area_blacklist(&crate::locks::kprobe_mutex(), C, C + 1);
    assert_eq!(blacklist::index_len(), None);
    assert!(!within_kprobe_blacklist((C + 4) as c_ulong));
    publish();
    assert!(!within_kprobe_blacklist((C + 4) as c_ulong));
    assert_index_agrees(&probe_points(&entries()));
    // Publishing again without a change keeps the index (no allocation).
    let allocs = record(|r| r.allocs);
    publish();
    assert_eq!(record(|r| r.allocs), allocs);
}

/// A module with `n` NOKPROBE symbols at `at` (each 0x20 bytes, some
/// nested in the previous one's range by a mid-symbol address) and a
/// `.kprobes.text` area of two functions.
fn big_module(at: usize, n: usize) -> Module {
    image(|i| {
        i.text.push((at, at + 0x10_0000));
        for k in 0..n {
            i.symbols.push(Sym::new("mod_sym", at + k * 0x20, 0x20));
        }
        i.symbols.push(Sym::new("mod_kp1", at + 0x8_0000, 0x30));
        i.symbols.push(Sym::new("mod_kp2", at + 0x8_0030, 0x30));
    });
    // Every third address is mid-symbol: [a, a + 0x20) overlaps the next one.
    let bl: Vec<usize> = (0..n)
        .map(|k| at + k * 0x20 + if k % 3 == 0 { 0x10 } else { 0 })
        .collect();
    let mut m = Module::default();
    m.set_kprobe_blacklist(&bl);
    m.set_kprobes_text(at + 0x8_0000, 0x60);
    m
}

#[test]
fn index_follows_modules_coming_and_going() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(populate(&[B, A, C]), 0);
    let n = if cfg!(miri) { 12 } else { 200 };
    let (m1, m2) = (0x3000_0000, 0x4000_0000);
    let mut a = big_module(m1, n);
    let mut b = big_module(m2, n);
    // SAFETY: `a` and `b` outlive their views and are not written meanwhile.
    let (va, vb) = unsafe { (ModuleView::from_raw(&mut a), ModuleView::from_raw(&mut b)) };
    let base = entries();
    let pts = |m: usize| {
        let mut v = probe_points(&base);
        v.extend((0..n * 0x20 + 0x40).step_by(7).map(|o| m + o));
        v.extend((0..0x70).map(|o| m + 0x8_0000 + o));
        v
    };
    let all: Vec<usize> = pts(m1).into_iter().chain(pts(m2)).collect();
    assert_index_agrees(&all);
    blacklist::add_module(&crate::locks::kprobe_mutex(), &va);
    assert!(assert_index_agrees(&all) > 0);
    assert!(within_kprobe_blacklist((m1 + 0x8_0040) as c_ulong));
    blacklist::add_module(&crate::locks::kprobe_mutex(), &vb);
    assert_index_agrees(&all);
    blacklist::remove_module(&crate::locks::kprobe_mutex(), &va);
    assert_index_agrees(&all);
    assert!(
        !within_kprobe_blacklist((m1 + 0x8_0040) as c_ulong),
        "gone with its module"
    );
    assert!(within_kprobe_blacklist((m2 + 0x8_0040) as c_ulong));
    blacklist::remove_module(&crate::locks::kprobe_mutex(), &vb);
    assert_eq!(entries(), base);
    assert_index_agrees(&all);
}

#[test]
fn without_memory_for_the_index_checks_walk_the_list() {
    let _g = sys::exclusive();
    kernel();
    let mut m = big_module(0x3000_0000, 8);
    // SAFETY: `m` outlives the view and is not written meanwhile.
    let mv = unsafe { ModuleView::from_raw(&mut m) };
    assert_eq!(populate(&[B, A]), 0);
    blacklist::add_module(&crate::locks::kprobe_mutex(), &mv);
    let allocs = record(|r| r.allocs);
    // Removing frees entries and allocates nothing but the new index: fail it.
    record(|r| r.fail_kmalloc = 1);
    blacklist::remove_module(&crate::locks::kprobe_mutex(), &mv);
    assert_eq!(
        record(|r| r.fail_kmalloc),
        0,
        "the index's allocation was the one that failed"
    );
    assert_eq!(blacklist::index_len(), None, "nothing published");
    assert!(record(|r| r.allocs) < allocs, "no allocation left behind");
    let list = entries();
    let pts = probe_points(&list);
    {
        let rcu = crate::locks::rcu_read();
        for &a in &pts {
            assert_eq!(blacklist::index_contains(&rcu, a), None);
            assert_eq!(
                blacklist::within_blacklist_ranges(a),
                naive(&list, a) || sys::arch_within_kprobe_blacklist(a),
                "{a:#x}"
            );
        }
    }
    assert!(within_kprobe_blacklist((A + 4) as c_ulong));
    assert!(!within_kprobe_blacklist((0x3000_0000 + 4) as c_ulong));
    // A publish that fails leaves none, and the next change retries.
    blacklist::add_range(&crate::locks::kprobe_mutex(), 0x10, 0x20).unwrap();
    publish();
    assert_eq!(blacklist::index_len(), Some(entries().len()));
    blacklist::add_range(&crate::locks::kprobe_mutex(), 0x30, 0x40).unwrap();
    record(|r| r.fail_kmalloc = 1);
    publish();
    assert_eq!(blacklist::index_len(), None);
    assert!(blacklist::within_blacklist_ranges(0x18) && blacklist::within_blacklist_ranges(0x38));
    assert!(!blacklist::within_blacklist_ranges(0x28));
    blacklist::add_module(&crate::locks::kprobe_mutex(), &mv);
    assert_index_agrees(&probe_points(&entries()));
}

#[test]
fn lookups_take_a_logarithmic_number_of_comparisons() {
    let _g = sys::exclusive();
    // Under Miri 1,000 entries (bound 11): Miri interprets every
    // comparison, and 5,000 would make this one test most of its run.
    let n: usize = if cfg!(miri) { 1_000 } else { 5_000 };
    let mut rng = Rng(42);
    let ranges: Vec<(usize, usize)> = (0..n)
        .map(|_| {
            let s = 0x1000_0000 + rng.below(1 << 24);
            (s, s + rng.below(0x400))
        })
        .collect();
    add_ranges(&ranges);
    publish();
    // ceil(log2(n)) + 1: the halving steps and the last comparison.
    let bound = (usize::BITS - (n - 1).leading_zeros()) as usize + 1;
    let queries = if cfg!(miri) { 100 } else { 5_000 };
    let list = entries();
    let rcu = crate::locks::rcu_read();
    let mut worst = 0;
    for q in 0..queries {
        let a = if q % 2 == 0 {
            ranges[rng.below(n)].0 + rng.below(0x400)
        } else {
            0x1000_0000 + rng.below(1 << 24)
        };
        blacklist::COMPARISONS.with(|c| c.set(0));
        let got = blacklist::index_contains(&rcu, a);
        let cmp = blacklist::COMPARISONS.with(|c| c.get());
        assert_eq!(got, Some(naive(&list, a)), "{a:#x}");
        worst = worst.max(cmp);
    }
    assert!(
        worst <= bound,
        "{worst} comparisons for {n} entries (bound {bound})"
    );
    assert!(worst >= bound / 2, "{worst}: comparisons not counted?");
}

/// A check on another thread while modules come and go: the kernel's
/// ranges are always found, an address in none never, whichever index
/// (or none, mid-change) the reader sees; withdrawn indexes and removed
/// entries are freed only after the reader stops, as after a grace period.
#[test]
fn checks_during_module_changes_keep_their_answers() {
    let _g = sys::exclusive();
    kernel();
    assert_eq!(populate(&[B, A, C]), 0);
    let mut m = big_module(0x3000_0000, if cfg!(miri) { 4 } else { 64 });
    // SAFETY: `m` outlives the view and is not written meanwhile.
    let mv = unsafe { ModuleView::from_raw(&mut m) };
    record(|r| r.rcu_deferred = Some(Vec::new()));
    let stop = std::sync::Arc::new(core::sync::atomic::AtomicBool::new(false));
    let reader = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut rounds = 0usize;
            while !stop.load(core::sync::atomic::Ordering::Acquire) || rounds == 0 {
                for a in [A, A + 0xff, B + 0x10, C + 0x5f, NOI + 0x10] {
                    assert!(blacklist::within_blacklist_ranges(a), "{a:#x}");
                }
                for a in [
                    A + 0x100 + 0x80,
                    C + 0x60,
                    TEXT + 0x9000,
                    0x3000_0000 + 0x9_0000,
                ] {
                    assert!(!blacklist::within_blacklist_ranges(a), "{a:#x}");
                }
                // Either answer, while the module comes and goes.
                let _ = blacklist::within_blacklist_ranges(0x3000_0000 + 0x8_0010);
                rounds += 1;
            }
            rounds
        })
    };
    for _ in 0..if cfg!(miri) { 3 } else { 200 } {
        blacklist::add_module(&crate::locks::kprobe_mutex(), &mv);
        blacklist::remove_module(&crate::locks::kprobe_mutex(), &mv);
    }
    stop.store(true, core::sync::atomic::Ordering::Release);
    assert!(reader.join().expect("reader") > 0);
    sys::rcu_barrier();
    assert_index_agrees(&probe_points(&entries()));
}
