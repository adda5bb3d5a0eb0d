// SPDX-License-Identifier: GPL-2.0

//! Host tests of aggregate handler dispatch, nmissed, kprobe_busy and
//! kprobe_get_kallsym.

use crate::exports::*;
use crate::ffi::{c_char, c_int, c_uint, c_ulong};
use crate::list;
use crate::sys::{self, cpu};
use crate::types::{Kprobe, KprobeOpcode, PtRegs, KPROBE_FLAG_DISABLED, KPROBE_FLAG_GONE};
use std::cell::RefCell;

thread_local! {
    /// (handler kind, probe id = offset) in call order.
    static CALLS: RefCell<Vec<(&'static str, u32)>> = const { RefCell::new(Vec::new()) };
    /// Probe ids whose pre-handler returns 1.
    static SKIP: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

fn calls() -> Vec<(&'static str, u32)> {
    CALLS.with(|c| c.borrow().clone())
}

unsafe extern "C" fn pre(p: *mut Kprobe, _r: *mut PtRegs) -> c_int {
    // SAFETY: live probe.
    let id = unsafe { (*p).offset };
    CALLS.with(|c| c.borrow_mut().push(("pre", id)));
    SKIP.with(|s| s.borrow().contains(&id)) as c_int
}

unsafe extern "C" fn post(p: *mut Kprobe, _r: *mut PtRegs, _f: c_ulong) {
    // SAFETY: live probe.
    let id = unsafe { (*p).offset };
    CALLS.with(|c| c.borrow_mut().push(("post", id)));
}

fn probe(id: u32, has_pre: bool, has_post: bool, flags: u32) -> Box<Kprobe> {
    // SAFETY: all-zero is a valid struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.offset = id;
    p.addr = 0x1000 as *mut KprobeOpcode;
    p.pre_handler = if has_pre { Some(pre) } else { None };
    p.post_handler = if has_post { Some(post) } else { None };
    p.flags = flags;
    p
}

/// An aggregate with `children` in list order.
fn aggregate(children: &mut [Box<Kprobe>]) -> Box<Kprobe> {
    let mut ap = probe(0, false, false, 0);
    ap.pre_handler = Some(aggr_pre_handler);
    ap.post_handler = Some(aggr_post_handler);
    // SAFETY: single-threaded construction.
    unsafe {
        list::init_list_head(&mut ap.list);
        for c in children.iter_mut() {
            list::list_add_tail_rcu(&mut c.list, &mut ap.list);
        }
    }
    ap
}

fn ptr(p: &mut Box<Kprobe>) -> *mut Kprobe {
    &mut **p
}

#[test]
fn aggr_pre_runs_enabled_children_in_order_and_resets_the_instance() {
    let mut ch = vec![
        probe(1, true, false, 0),
        probe(2, true, false, KPROBE_FLAG_DISABLED),
        probe(3, false, true, 0),
        probe(4, true, false, KPROBE_FLAG_GONE),
        probe(5, true, false, 0),
    ];
    let mut ap = aggregate(&mut ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    let r = unsafe { aggr_pre_handler(ptr(&mut ap), &mut regs) };
    assert_eq!(r, 0);
    assert_eq!(calls(), vec![("pre", 1), ("pre", 5)]);
    let p1 = ptr(&mut ch[0]) as usize;
    let p5 = ptr(&mut ch[4]) as usize;
    // set before each call, reset after every child, called or not
    assert_eq!(cpu(|c| c.instances.clone()), vec![p1, 0, 0, 0, 0, p5, 0]);
}

#[test]
fn aggr_pre_stops_at_the_first_handler_returning_nonzero() {
    let mut ch = vec![probe(1, true, false, 0), probe(2, true, false, 0), probe(3, true, false, 0)];
    SKIP.with(|s| s.borrow_mut().push(2));
    let mut ap = aggregate(&mut ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    let r = unsafe { aggr_pre_handler(ptr(&mut ap), &mut regs) };
    assert_eq!(r, 1);
    assert_eq!(calls(), vec![("pre", 1), ("pre", 2)]);
    // Upstream returns without resetting kprobe_instance.
    let p2 = ptr(&mut ch[1]) as usize;
    assert_eq!(cpu(|c| *c.instances.last().unwrap()), p2);
}

#[test]
fn aggr_post_runs_only_enabled_post_handlers() {
    let mut ch = vec![
        probe(1, true, true, 0),
        probe(2, false, true, KPROBE_FLAG_DISABLED),
        probe(3, true, false, 0),
        probe(4, false, true, 0),
    ];
    let mut ap = aggregate(&mut ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    unsafe { aggr_post_handler(ptr(&mut ap), &mut regs, 0) };
    assert_eq!(calls(), vec![("post", 1), ("post", 4)]);
    let p1 = ptr(&mut ch[0]) as usize;
    let p4 = ptr(&mut ch[3]) as usize;
    assert_eq!(cpu(|c| c.instances.clone()), vec![p1, 0, p4, 0], "no reset for skipped children");
}

#[test]
fn opt_pre_runs_every_enabled_child_whatever_it_returns() {
    let mut ch = vec![probe(1, true, false, 0), probe(2, true, false, 0), probe(3, true, false, KPROBE_FLAG_DISABLED)];
    SKIP.with(|s| s.borrow_mut().push(1));
    let mut ap = aggregate(&mut ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    unsafe { opt_pre_handler(ptr(&mut ap), &mut regs) };
    assert_eq!(calls(), vec![("pre", 1), ("pre", 2)]);
}

#[test]
fn nmissed_counts_on_the_probe_or_on_every_child() {
    let mut single = probe(9, true, false, 0);
    // SAFETY: live probe.
    unsafe { kprobes_inc_nmissed_count(ptr(&mut single)) };
    assert_eq!(single.nmissed, 1);

    let mut ch = vec![probe(1, true, false, 0), probe(2, true, false, KPROBE_FLAG_DISABLED)];
    let mut ap = aggregate(&mut ch);
    // SAFETY: live aggregate.
    unsafe {
        kprobes_inc_nmissed_count(ptr(&mut ap));
        kprobes_inc_nmissed_count(ptr(&mut ap));
    }
    assert_eq!(ap.nmissed, 0, "the aggregate itself does not count");
    assert_eq!((ch[0].nmissed, ch[1].nmissed), (2, 2), "disabled children count too");
}

#[test]
fn aggrprobe_is_recognized_by_its_pre_handler() {
    let mut p = probe(1, true, false, 0);
    let mut ch = vec![probe(2, true, false, 0)];
    let mut ap = aggregate(&mut ch);
    // SAFETY: live probes.
    unsafe {
        assert!(!crate::aggr::kprobe_aggrprobe(ptr(&mut p)));
        assert!(crate::aggr::kprobe_aggrprobe(ptr(&mut ap)));
    }
}

#[test]
fn busy_marks_the_cpu_with_the_get_kprobe_dummy() {
    kprobe_busy_begin();
    let (cur, st, pre) = cpu(|c| (c.current_kprobe, c.kprobe_status, c.preempt));
    assert_ne!(cur, 0);
    // SAFETY: the busy probe is a static.
    let addr = unsafe { (*(cur as *mut Kprobe)).addr } as usize;
    assert_eq!(addr, get_kprobe as *const () as usize, "kprobe_busy.addr = get_kprobe");
    assert_eq!(st, sys::KPROBE_HIT_ACTIVE);
    assert_eq!(pre, 1, "preemption disabled");
    kprobe_busy_end();
    assert_eq!(cpu(|c| (c.current_kprobe, c.preempt)), (0, 0));
}

#[test]
fn dump_kprobe_prints_upstreams_format() {
    let mut p = probe(0x10, false, false, 0);
    p.symbol_name = c"vfs_read".as_ptr().cast();
    p.addr = 0xffff_ffff_8120_0010usize as *mut KprobeOpcode;
    // SAFETY: live probe.
    unsafe { dump_kprobe(ptr(&mut p)) };
    p.symbol_name = core::ptr::null();
    // SAFETY: live probe.
    unsafe { dump_kprobe(ptr(&mut p)) };
    let log = cpu(|c| c.log.clone());
    assert_eq!(log[0], "Dump kprobe:\n.symbol_name = vfs_read, .offset = 10, .addr = 0xffffffff81200010\n");
    assert_eq!(log[1], "Dump kprobe:\n.symbol_name = (null), .offset = 10, .addr = 0xffffffff81200010\n");
}

mod kallsym {
    use super::*;
    use crate::types::{KprobeInsnCache, ListHead};
    use std::alloc::{alloc_zeroed, Layout};

    unsafe extern "C" fn page() -> *mut core::ffi::c_void {
        // SAFETY: non-zero size; pages are leaked by these tests.
        unsafe { alloc_zeroed(Layout::from_size_align(4096, 4096).unwrap()).cast() }
    }

    fn cache(name: &'static core::ffi::CStr, insn_size: usize) -> Box<KprobeInsnCache> {
        let mut c = Box::new(KprobeInsnCache {
            mutex: sys::Mutex::new(),
            alloc: Some(page),
            free: None,
            sym: name.as_ptr().cast(),
            pages: ListHead { next: core::ptr::null_mut(), prev: core::ptr::null_mut() },
            insn_size,
            nr_garbage: 0,
        });
        // SAFETY: live box.
        unsafe { list::init_list_head(&mut c.pages) };
        c
    }

    fn get(n: c_uint) -> (c_int, String, usize) {
        let mut v: c_ulong = 0;
        let mut t: c_char = 0;
        let mut s = vec![0 as c_char; sys::KSYM_NAME_LEN];
        // SAFETY: valid out pointers.
        let r = unsafe { kprobe_get_kallsym(n, &mut v, &mut t, s.as_mut_ptr()) };
        // SAFETY: NUL-terminated.
        let name = unsafe { std::ffi::CStr::from_ptr(s.as_ptr().cast()) }.to_string_lossy().into_owned();
        (r, name, v as usize)
    }

    #[test]
    fn entries_are_insn_pages_then_optinsn_pages_then_arch() {
        let mut insn = cache(c"kprobe_insn_page", 16);
        let mut opt = cache(c"kprobe_optinsn_page", 256);
        sys::set_caches(sys::Caches { insn: &mut *insn, optinsn: &mut *opt, arch_syms: 2 });
        // SAFETY: live caches.
        let (i0, o0) = unsafe { (__get_insn_slot(&mut *insn), __get_insn_slot(&mut *opt)) };
        assert_eq!(get(0), (0, "kprobe_insn_page".into(), i0 as usize));
        assert_eq!(get(1), (0, "kprobe_optinsn_page".into(), o0 as usize));
        assert_eq!(get(2), (0, "arch_sym0".into(), 0xa000));
        assert_eq!(get(3), (0, "arch_sym1".into(), 0xa001));
        assert_eq!(get(4).0, -sys::ERANGE);
    }
}
