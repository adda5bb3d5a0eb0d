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

/// A probe as C would have it: allocated once and from then on reached only
/// through the raw pointer (the lists link the probes by pointer), freed by
/// [`free`].
fn probe(id: u32, has_pre: bool, has_post: bool, flags: u32) -> *mut Kprobe {
    // SAFETY: all-zero is a valid struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.offset = id;
    p.addr = 0x1000 as *mut KprobeOpcode;
    p.pre_handler = if has_pre { Some(pre) } else { None };
    p.post_handler = if has_post { Some(post) } else { None };
    p.flags = flags;
    Box::into_raw(p)
}

/// Frees probes made by [`probe`] (or [`aggregate`]).
///
/// # Safety
/// Each pointer comes from [`probe`], is freed once and not used after.
unsafe fn free(ps: &[*mut Kprobe]) {
    for &p in ps {
        // SAFETY: `p` is from `Box::into_raw` in `probe()` and freed only
        // here (caller).
        drop(unsafe { Box::from_raw(p) });
    }
}

/// An aggregate with `children` in list order.
fn aggregate(children: &[*mut Kprobe]) -> *mut Kprobe {
    let ap = probe(0, false, false, 0);
    // SAFETY: `ap` and the children are live boxes from `probe()`, reached
    // only through these raw pointers; single-threaded construction.
    unsafe {
        (*ap).pre_handler = Some(aggr_pre_handler);
        (*ap).post_handler = Some(aggr_post_handler);
        list::init_list_head(&raw mut (*ap).list);
        for &c in children {
            list::list_add_tail_rcu(&raw mut (*c).list, &raw mut (*ap).list);
        }
    }
    ap
}

#[test]
fn aggr_pre_runs_enabled_children_in_order_and_resets_the_instance() {
    let ch = [
        probe(1, true, false, 0),
        probe(2, true, false, KPROBE_FLAG_DISABLED),
        probe(3, false, true, 0),
        probe(4, true, false, KPROBE_FLAG_GONE),
        probe(5, true, false, 0),
    ];
    let ap = aggregate(&ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    let r = unsafe { aggr_pre_handler(ap, &mut regs) };
    assert_eq!(r, 0);
    assert_eq!(calls(), vec![("pre", 1), ("pre", 5)]);
    let p1 = ch[0] as usize;
    let p5 = ch[4] as usize;
    // set before each call, reset after every child, called or not
    assert_eq!(cpu(|c| c.instances.clone()), vec![p1, 0, 0, 0, 0, p5, 0]);
    // SAFETY: from `probe()`, not used after.
    unsafe {
        free(&[ap]);
        free(&ch);
    }
}

#[test]
fn aggr_pre_stops_at_the_first_handler_returning_nonzero() {
    let ch = [
        probe(1, true, false, 0),
        probe(2, true, false, 0),
        probe(3, true, false, 0),
    ];
    SKIP.with(|s| s.borrow_mut().push(2));
    let ap = aggregate(&ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    let r = unsafe { aggr_pre_handler(ap, &mut regs) };
    assert_eq!(r, 1);
    assert_eq!(calls(), vec![("pre", 1), ("pre", 2)]);
    // Upstream returns without resetting kprobe_instance.
    let p2 = ch[1] as usize;
    assert_eq!(cpu(|c| *c.instances.last().unwrap()), p2);
    // SAFETY: from `probe()`, not used after.
    unsafe {
        free(&[ap]);
        free(&ch);
    }
}

#[test]
fn aggr_post_runs_only_enabled_post_handlers() {
    let ch = [
        probe(1, true, true, 0),
        probe(2, false, true, KPROBE_FLAG_DISABLED),
        probe(3, true, false, 0),
        probe(4, false, true, 0),
    ];
    let ap = aggregate(&ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    unsafe { aggr_post_handler(ap, &mut regs, 0) };
    assert_eq!(calls(), vec![("post", 1), ("post", 4)]);
    let p1 = ch[0] as usize;
    let p4 = ch[3] as usize;
    assert_eq!(
        cpu(|c| c.instances.clone()),
        vec![p1, 0, p4, 0],
        "no reset for skipped children"
    );
    // SAFETY: from `probe()`, not used after.
    unsafe {
        free(&[ap]);
        free(&ch);
    }
}

#[test]
fn opt_pre_runs_every_enabled_child_whatever_it_returns() {
    let ch = [
        probe(1, true, false, 0),
        probe(2, true, false, 0),
        probe(3, true, false, KPROBE_FLAG_DISABLED),
    ];
    SKIP.with(|s| s.borrow_mut().push(1));
    let ap = aggregate(&ch);
    let mut regs = PtRegs::default();
    // SAFETY: live aggregate.
    unsafe { opt_pre_handler(ap, &mut regs) };
    assert_eq!(calls(), vec![("pre", 1), ("pre", 2)]);
    // SAFETY: from `probe()`, not used after.
    unsafe {
        free(&[ap]);
        free(&ch);
    }
}

#[test]
fn nmissed_counts_on_the_probe_or_on_every_child() {
    let single = probe(9, true, false, 0);
    // SAFETY: live probe, reached only through `single`.
    unsafe {
        kprobes_inc_nmissed_count(single);
        assert_eq!((*single).nmissed, 1);
    }

    let ch = [
        probe(1, true, false, 0),
        probe(2, true, false, KPROBE_FLAG_DISABLED),
    ];
    let ap = aggregate(&ch);
    // SAFETY: live aggregate and children, reached only through these raw
    // pointers.
    unsafe {
        kprobes_inc_nmissed_count(ap);
        kprobes_inc_nmissed_count(ap);
        assert_eq!((*ap).nmissed, 0, "the aggregate itself does not count");
        assert_eq!(
            ((*ch[0]).nmissed, (*ch[1]).nmissed),
            (2, 2),
            "disabled children count too"
        );
    }
    // SAFETY: from `probe()`, not used after.
    unsafe {
        free(&[single, ap]);
        free(&ch);
    }
}

#[test]
fn aggrprobe_is_recognized_by_its_pre_handler() {
    let p = probe(1, true, false, 0);
    let ch = [probe(2, true, false, 0)];
    let ap = aggregate(&ch);
    // SAFETY: live probes.
    unsafe {
        assert!(!crate::probe::Probe::from_raw(p as *mut _).is_aggr());
        assert!(crate::probe::Probe::from_raw(ap as *mut _).is_aggr());
    }
    // SAFETY: from `probe()`, not used after.
    unsafe {
        free(&[p, ap]);
        free(&ch);
    }
}

#[test]
fn busy_marks_the_cpu_with_the_get_kprobe_dummy() {
    kprobe_busy_begin();
    let (cur, st, pre) = cpu(|c| (c.current_kprobe, c.kprobe_status, c.preempt));
    assert_ne!(cur, 0);
    // SAFETY: the busy probe is a static.
    let addr = unsafe { (*(cur as *mut Kprobe)).addr } as usize;
    assert_eq!(
        addr, get_kprobe as *const () as usize,
        "kprobe_busy.addr = get_kprobe"
    );
    assert_eq!(st, sys::KPROBE_HIT_ACTIVE);
    assert_eq!(pre, 1, "preemption disabled");
    // SAFETY: after `kprobe_busy_begin()` on this (simulated) CPU.
    unsafe { kprobe_busy_end() };
    assert_eq!(cpu(|c| (c.current_kprobe, c.preempt)), (0, 0));
}

#[test]
fn dump_kprobe_prints_upstreams_format() {
    let p = probe(0x10, false, false, 0);
    // SAFETY: live probe from `probe()`, reached only through `p`; freed
    // once at the end.
    unsafe {
        (*p).symbol_name = c"vfs_read".as_ptr().cast();
        (*p).addr = 0xffff_ffff_8120_0010usize as *mut KprobeOpcode;
        dump_kprobe(p);
        (*p).symbol_name = core::ptr::null();
        dump_kprobe(p);
        free(&[p]);
    }
    // printk's lines in the trace, as model.c writes them (its `%pS` is
    // the host's `%p` and a literal `S`).
    let log: Vec<String> = sys::arch(|a| {
        a.events
            .iter()
            .filter(|e| e.starts_with("log "))
            .cloned()
            .collect()
    });
    assert_eq!(
        log[0],
        "log err: kprobes: Dump kprobe:\n.symbol_name = vfs_read, .offset = 10, .addr = 0xffffffff81200010S"
    );
    assert_eq!(
        log[1],
        "log err: kprobes: Dump kprobe:\n.symbol_name = (null), .offset = 10, .addr = 0xffffffff81200010S"
    );
}

mod kallsym {
    use super::*;
    use crate::test_caches::{destroy_cache, execmem_page, execmem_page_free, new_cache};
    use crate::types::KprobeInsnCache;

    /// A cache over execmem pages (freed by [`destroy`]); its pages are
    /// not freed while it lives.
    fn cache(name: &'static core::ffi::CStr, insn_size: usize) -> *mut KprobeInsnCache {
        new_cache(name, insn_size, execmem_page, None)
    }

    /// Frees the pages of `c`, their descriptors and `c` itself (a test
    /// epilogue, not an upstream operation).
    ///
    /// # Safety
    /// `c` is from [`cache`], quiescent, and not used after.
    unsafe fn destroy(c: *mut KprobeInsnCache) {
        // SAFETY: `c` is from `cache()`, quiescent and not used after
        // (this function's `# Safety`); its pages are execmem pages.
        unsafe { destroy_cache(c, execmem_page_free) }
    }

    fn get(n: c_uint) -> (c_int, String, usize) {
        let mut v: c_ulong = 0;
        let mut t: c_char = 0;
        let mut s = vec![0 as c_char; sys::KSYM_NAME_LEN];
        // SAFETY: valid out pointers.
        let r = unsafe { kprobe_get_kallsym(n, &mut v, &mut t, s.as_mut_ptr()) };
        // SAFETY: NUL-terminated.
        let name = unsafe { std::ffi::CStr::from_ptr(s.as_ptr().cast()) }
            .to_string_lossy()
            .into_owned();
        (r, name, v as usize)
    }

    #[test]
    fn entries_are_insn_pages_then_optinsn_pages_then_arch() {
        let insn = cache(c"kprobe_insn_page", 16);
        let opt = cache(c"kprobe_optinsn_page", 256);
        sys::set_caches(sys::Caches {
            insn,
            optinsn: opt,
            arch_syms: 2,
        });
        // SAFETY: live caches.
        let (i0, o0) = unsafe { (__get_insn_slot(insn), __get_insn_slot(opt)) };
        assert_eq!(get(0), (0, "kprobe_insn_page".into(), i0 as usize));
        assert_eq!(get(1), (0, "kprobe_optinsn_page".into(), o0 as usize));
        assert_eq!(get(2), (0, "arch_sym0".into(), 0xa000));
        assert_eq!(get(3), (0, "arch_sym1".into(), 0xa001));
        assert_eq!(get(4).0, -sys::ERANGE);
        sys::set_caches(sys::Caches {
            insn: core::ptr::null_mut(),
            optinsn: core::ptr::null_mut(),
            arch_syms: 0,
        });
        // SAFETY: from `cache()`, no longer reachable through `sys`.
        unsafe {
            destroy(insn);
            destroy(opt);
        }
    }
}
