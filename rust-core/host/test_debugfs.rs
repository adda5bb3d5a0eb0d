// SPDX-License-Identifier: GPL-2.0

//! Host tests of the kprobes/list and kprobes/blacklist text.

use crate::debugfs::Loff;
use crate::exports::*;
use crate::ffi::c_void;
use crate::list;
use crate::registry::{bucket, hash_ptr};
use crate::sys::{self, image, SeqFile, Sym};
use crate::types::*;

const F: usize = 0xffff_ffff_8105_c740; // kernel_clone
const G: usize = 0xffff_ffff_8121_b930; // do_sys_openat2

fn kernel() {
    image(|i| {
        i.text = vec![(0xffff_ffff_8100_0000, 0xffff_ffff_8200_0000)];
        i.symbols = vec![
            Sym::new("kernel_clone", F, 0x2b0),
            Sym::new("do_sys_openat2", G, 0xd0),
        ];
    });
}

/// A probe allocated once and from then on reached only through the
/// returned raw pointer, as the hash chains and child lists link it; freed
/// by [`free`].
fn probe(addr: usize, flags: u32) -> *mut Kprobe {
    // SAFETY: all-zero is a valid struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.addr = addr as *mut KprobeOpcode;
    p.flags = flags;
    let p = Box::into_raw(p);
    // SAFETY: `p` is a fresh box, reached only through this pointer.
    unsafe { list::init_list_head(&raw mut (*p).list) };
    p
}

/// Frees probes from [`probe`], after emptying the table that links them.
///
/// # Safety
/// Each pointer comes from [`probe`], is freed once and not used after;
/// the caller holds `sys::exclusive()`.
unsafe fn free(ps: &[*mut Kprobe]) {
    crate::registry::reset();
    for &p in ps {
        // SAFETY: from `Box::into_raw` in `probe()` (caller), no longer
        // hashed.
        drop(unsafe { Box::from_raw(p) });
    }
}

fn hash(p: *mut Kprobe) {
    // SAFETY: serialized test; `p` is a live probe from `probe()`, reached
    // only through raw pointers, so the node pointer keeps the provenance
    // of the whole probe (the list walk reads the probe through it).
    unsafe { list::hlist_add_head_rcu(&raw mut (*p).hlist, bucket((*p).addr as usize)) };
}

/// The whole of kprobes/list, as seq_file would produce it.
pub(crate) fn list_text(show: bool) -> String {
    let mut m = SeqFile::sim(show);
    let mut pos: Loff = 0;
    // SAFETY: valid seq_file and position.
    unsafe {
        let mut v = kprobe_seq_start(&mut m, &mut pos);
        while !v.is_null() {
            show_kprobe_addr(&mut m, v);
            v = kprobe_seq_next(&mut m, v, &mut pos);
        }
    }
    m.text()
}

#[test]
fn plain_probe_line_matches_upstream_format() {
    let _g = sys::exclusive();
    kernel();
    let p = probe(F + 9, KPROBE_FLAG_OPTIMIZED);
    hash(p);
    assert_eq!(
        list_text(true),
        "ffffffff8105c749  k  kernel_clone+0x9    [OPTIMIZED]\n"
    );
    assert_eq!(
        list_text(false),
        "0000000000000000  k  kernel_clone+0x9    [OPTIMIZED]\n"
    );
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[p]) };
}

#[test]
fn kretprobes_are_r_and_state_flags_print_in_order() {
    let _g = sys::exclusive();
    kernel();
    let r = probe(G, KPROBE_FLAG_FTRACE | KPROBE_FLAG_DISABLED);
    // SAFETY: live probe, not hashed yet.
    unsafe { (*r).pre_handler = Some(crate::kretprobe::pre_handler_kretprobe) };
    hash(r);
    assert_eq!(
        list_text(true),
        "ffffffff8121b930  r  do_sys_openat2+0x0    [DISABLED][FTRACE]\n"
    );
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[r]) };
}

#[test]
fn gone_is_not_also_disabled() {
    let _g = sys::exclusive();
    kernel();
    let p = probe(F + 0x20, KPROBE_FLAG_GONE | KPROBE_FLAG_DISABLED);
    hash(p);
    assert_eq!(
        list_text(true),
        "ffffffff8105c760  k  kernel_clone+0x20    [GONE]\n"
    );
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[p]) };
}

#[test]
fn aggregate_children_are_listed_with_the_aggregates_optimized_and_ftrace_state() {
    let _g = sys::exclusive();
    kernel();
    let ap = probe(F + 4, KPROBE_FLAG_FTRACE);
    let k1 = probe(F + 4, 0);
    let k2 = probe(F + 4, KPROBE_FLAG_DISABLED);
    // SAFETY: serialized test; live probes from `probe()`, reached only
    // through these raw pointers.
    unsafe {
        (*ap).pre_handler = Some(aggr_pre_handler);
        (*k2).pre_handler = Some(crate::kretprobe::pre_handler_kretprobe);
        list::list_add_tail_rcu(&raw mut (*k1).list, &raw mut (*ap).list);
        list::list_add_tail_rcu(&raw mut (*k2).list, &raw mut (*ap).list);
    }
    hash(ap);
    assert_eq!(
        list_text(true),
        "ffffffff8105c744  k  kernel_clone+0x4    [FTRACE]\n\
         ffffffff8105c744  r  kernel_clone+0x4    [DISABLED][FTRACE]\n"
    );
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[ap, k1, k2]) };
}

#[test]
fn address_without_symbol_uses_ps() {
    let _g = sys::exclusive();
    kernel();
    let p = probe(0xffff_ffff_c000_1000, 0);
    hash(p);
    assert_eq!(
        list_text(true),
        "ffffffffc0001000  k  0xffffffffc0001000 \n"
    );
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[p]) };
}

#[test]
fn buckets_are_listed_in_table_order() {
    let _g = sys::exclusive();
    kernel();
    let a = probe(F + 9, 0);
    let b = probe(G, 0);
    hash(a);
    hash(b);
    let t = list_text(true);
    let (first, second) = if hash_ptr(F + 9) <= hash_ptr(G) {
        ("kernel_clone", "do_sys_openat2")
    } else {
        ("do_sys_openat2", "kernel_clone")
    };
    assert!(t.find(first).unwrap() < t.find(second).unwrap(), "{t}");
    assert_eq!(t.lines().count(), 2);
    // SAFETY: from `probe()`, not used after; `_g` is held.
    unsafe { free(&[a, b]) };
}

#[test]
fn seq_positions_cover_the_table() {
    let mut pos: Loff = 63;
    let mut m = SeqFile::sim(false);
    // SAFETY: valid pointers.
    unsafe {
        assert!(!kprobe_seq_start(&mut m, &mut pos).is_null());
        assert!(kprobe_seq_next(&mut m, core::ptr::null_mut(), &mut pos).is_null());
        assert_eq!(pos, 64);
        assert!(kprobe_seq_start(&mut m, &mut pos).is_null());
    }
}

#[test]
fn blacklist_lines_match_upstream_format() {
    let _g = sys::exclusive();
    kernel();
    crate::blacklist::add_ksym_blacklist(&crate::locks::kprobe_mutex(), F).unwrap();
    // SAFETY: the blacklist's first entry.
    let node = unsafe { crate::blacklist::KPROBE_BLACKLIST.next } as *mut c_void;
    let mut m = SeqFile::sim(true);
    // SAFETY: a live entry.
    unsafe { kprobe_blacklist_seq_show(&mut m, node) };
    assert_eq!(
        m.text(),
        "0xffffffff8105c740-0xffffffff8105c9f0\tkernel_clone\n"
    );
    let mut m = SeqFile::sim(false);
    // SAFETY: as above.
    unsafe { kprobe_blacklist_seq_show(&mut m, node) };
    assert_eq!(
        m.text(),
        "0x0000000000000000-0x0000000000000000\tkernel_clone\n"
    );
}
