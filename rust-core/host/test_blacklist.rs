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
    assert_eq!(blacklist::add_ksym_blacklist(C), Ok(0x60));
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
    assert_eq!(kprobe_add_ksym_blacklist(A as c_ulong), 0x100);
    assert_eq!(kprobe_add_ksym_blacklist(0x5000_0000), -sys::EINVAL, "not text");
    assert_eq!(kprobe_add_ksym_blacklist((TEXT + 0x9000) as c_ulong), -sys::EINVAL, "text, no symbol");
    assert_eq!(entries(), vec![(A, A + 0x100)]);
}

#[test]
fn add_ksym_mid_symbol_keeps_upstreams_range() {
    // Upstream records [entry, entry + size), not the symbol's own range.
    let _g = sys::exclusive();
    kernel();
    assert_eq!(kprobe_add_ksym_blacklist((A + 0x10) as c_ulong), 0x100);
    assert_eq!(entries(), vec![(A + 0x10, A + 0x110)]);
}

#[test]
fn add_area_propagates_the_first_error() {
    let _g = sys::exclusive();
    kernel();
    // func_a, func_b, then the gap after func_b: -EINVAL, nothing more.
    assert_eq!(kprobe_add_area_blacklist(A as c_ulong, (C + 0x100) as c_ulong), -sys::EINVAL);
    assert_eq!(entries(), vec![(A, A + 0x100), (B, B + 0x80)]);
}

#[test]
fn within_checks_ranges_with_exclusive_end() {
    let _g = sys::exclusive();
    kernel();
    kprobe_add_ksym_blacklist(B as c_ulong);
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
    kprobe_add_ksym_blacklist(B as c_ulong);
    assert!(within_kprobe_blacklist((B_COLD + 8) as c_ulong), "func_b.cold of blacklisted func_b");
    assert!(!within_kprobe_blacklist((C_ISRA + 8) as c_ulong), "func_c is not blacklisted");
    kprobe_add_ksym_blacklist(C as c_ulong);
    assert!(within_kprobe_blacklist((C_ISRA + 8) as c_ulong), "func_c.isra.0");
    assert!(!within_kprobe_blacklist((A + 8) as c_ulong), "no suffix");
    assert!(!within_kprobe_blacklist(0x5000_0000), "no symbol");
}

#[test]
fn within_ignores_a_suffixed_symbol_whose_base_is_unknown() {
    let _g = sys::exclusive();
    kernel();
    image(|i| i.symbols.push(Sym::new("orphan.part.1", TEXT + 0x9000, 0x10)));
    kprobe_add_area_blacklist(A as c_ulong, (A + 0x100) as c_ulong);
    assert!(!within_kprobe_blacklist((TEXT + 0x9004) as c_ulong));
}

fn module() -> Module {
    Module {
        kprobe_blacklist: vec![MODT],
        kprobes_text: (MODT + 0x100, 0x40),
        noinstr_text: (0, 0),
        ..Default::default()
    }
}

#[test]
fn module_blacklist_comes_and_goes() {
    let _g = sys::exclusive();
    kernel();
    kprobe_add_ksym_blacklist(A as c_ulong);
    let mut m = module();
    // SAFETY: `m` is a module that outlives the view and is not written
    // while the view lives.
    let mv = unsafe { ModuleView::from_raw(&mut m) };
    crate::blacklist::add_module(&crate::locks::kprobe_mutex(), &mv);
    assert_eq!(entries(), vec![(A, A + 0x100), (MODT, MODT + 0x20), (MODT + 0x100, MODT + 0x140)]);
    assert!(within_kprobe_blacklist((MODT + 0x110) as c_ulong));
    assert!(!within_kprobe_blacklist((MODT + 0x210) as c_ulong));
    crate::blacklist::remove_module(&crate::locks::kprobe_mutex(), &mv);
    assert_eq!(entries(), vec![(A, A + 0x100)]);
    assert_eq!(image(|i| i.kfree_rcu), 2, "removed entries are freed after a grace period");
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
    kprobe_add_ksym_blacklist((A + 0x10) as c_ulong); // [A+0x10, A+0x110) overlaps B
    kprobe_add_ksym_blacklist(B as c_ulong);
    blacklist::remove_area_blacklist(&crate::locks::kprobe_mutex(), B, B + 1);
    assert_eq!(entries(), vec![(A + 0x10, A + 0x110)]);
}
