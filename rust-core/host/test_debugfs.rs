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

fn probe(addr: usize, flags: u32) -> Box<Kprobe> {
    // SAFETY: all-zero is a valid struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.addr = addr as *mut KprobeOpcode;
    p.flags = flags;
    // SAFETY: fresh probe.
    unsafe { list::init_list_head(&mut p.list) };
    p
}

fn hash(p: &mut Kprobe) {
    // SAFETY: serialized test.
    unsafe { list::hlist_add_head_rcu(&mut p.hlist, bucket(p.addr as usize)) };
}

/// The whole of kprobes/list, as seq_file would produce it.
fn list_text(show: bool) -> String {
    let mut m = SeqFile { out: String::new(), show_value: show };
    let mut pos: Loff = 0;
    // SAFETY: valid seq_file and position.
    unsafe {
        let mut v = kprobe_seq_start(&mut m, &mut pos);
        while !v.is_null() {
            show_kprobe_addr(&mut m, v);
            v = kprobe_seq_next(&mut m, v, &mut pos);
        }
    }
    m.out
}

#[test]
fn plain_probe_line_matches_upstream_format() {
    let _g = sys::exclusive();
    kernel();
    let mut p = probe(F + 9, KPROBE_FLAG_OPTIMIZED);
    hash(&mut p);
    assert_eq!(list_text(true), "ffffffff8105c749  k  kernel_clone+0x9    [OPTIMIZED]\n");
    assert_eq!(list_text(false), "0000000000000000  k  kernel_clone+0x9    [OPTIMIZED]\n");
}

#[test]
fn kretprobes_are_r_and_state_flags_print_in_order() {
    let _g = sys::exclusive();
    kernel();
    let mut r = probe(G, KPROBE_FLAG_FTRACE | KPROBE_FLAG_DISABLED);
    r.pre_handler = Some(sys::sim_pre_handler_kretprobe);
    hash(&mut r);
    assert_eq!(list_text(true), "ffffffff8121b930  r  do_sys_openat2+0x0    [DISABLED][FTRACE]\n");
}

#[test]
fn gone_is_not_also_disabled() {
    let _g = sys::exclusive();
    kernel();
    let mut p = probe(F + 0x20, KPROBE_FLAG_GONE | KPROBE_FLAG_DISABLED);
    hash(&mut p);
    assert_eq!(list_text(true), "ffffffff8105c760  k  kernel_clone+0x20    [GONE]\n");
}

#[test]
fn aggregate_children_are_listed_with_the_aggregates_optimized_and_ftrace_state() {
    let _g = sys::exclusive();
    kernel();
    let mut ap = probe(F + 4, KPROBE_FLAG_FTRACE);
    ap.pre_handler = Some(aggr_pre_handler);
    let mut k1 = probe(F + 4, 0);
    let mut k2 = probe(F + 4, KPROBE_FLAG_DISABLED);
    k2.pre_handler = Some(sys::sim_pre_handler_kretprobe);
    // SAFETY: serialized test.
    unsafe {
        list::list_add_tail_rcu(&mut k1.list, &mut ap.list);
        list::list_add_tail_rcu(&mut k2.list, &mut ap.list);
    }
    hash(&mut ap);
    assert_eq!(
        list_text(true),
        "ffffffff8105c744  k  kernel_clone+0x4    [FTRACE]\n\
         ffffffff8105c744  r  kernel_clone+0x4    [DISABLED][FTRACE]\n"
    );
}

#[test]
fn address_without_symbol_uses_ps() {
    let _g = sys::exclusive();
    kernel();
    let mut p = probe(0xffff_ffff_c000_1000, 0);
    hash(&mut p);
    assert_eq!(list_text(true), "ffffffffc0001000  k  0xffffffffc0001000 \n");
}

#[test]
fn buckets_are_listed_in_table_order() {
    let _g = sys::exclusive();
    kernel();
    let mut a = probe(F + 9, 0);
    let mut b = probe(G, 0);
    hash(&mut a);
    hash(&mut b);
    let t = list_text(true);
    let (first, second) = if hash_ptr(F + 9) <= hash_ptr(G) { ("kernel_clone", "do_sys_openat2") } else { ("do_sys_openat2", "kernel_clone") };
    assert!(t.find(first).unwrap() < t.find(second).unwrap(), "{t}");
    assert_eq!(t.lines().count(), 2);
}

#[test]
fn seq_positions_cover_the_table() {
    let mut pos: Loff = 63;
    let mut m = SeqFile::default();
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
    crate::blacklist::add_ksym_blacklist(F);
    // SAFETY: the blacklist's first entry.
    let node = unsafe { crate::blacklist::KPROBE_BLACKLIST.next } as *mut c_void;
    let mut m = SeqFile { out: String::new(), show_value: true };
    // SAFETY: a live entry.
    unsafe { kprobe_blacklist_seq_show(&mut m, node) };
    assert_eq!(m.out, "0xffffffff8105c740-0xffffffff8105c9f0\tkernel_clone\n");
    let mut m = SeqFile { out: String::new(), show_value: false };
    // SAFETY: as above.
    unsafe { kprobe_blacklist_seq_show(&mut m, node) };
    assert_eq!(m.out, "0x0000000000000000-0x0000000000000000\tkernel_clone\n");
}
