// SPDX-License-Identifier: GPL-2.0

//! Host tests of registration, aggregation, enable/disable, the optimizer's
//! queues, kprobes on ftrace, kretprobes, module removal and the global
//! switches, against the simulated kernel and arch (`host/sim.rs`), which
//! logs every text patching and ftrace operation and checks the lock
//! order (cpus_read_lock, then text_mutex, inside kprobe_mutex).

use crate::exports::*;
use crate::ffi::{c_char, c_int, c_ulong, c_void};
use crate::sys::{self, arch, image, record, ModState, Module, SeqFile, Sym};
use crate::test_caches::{destroy_cache, execmem_page, execmem_page_free, new_cache};
use crate::types::{
    Kprobe, KprobeInsnCache, KprobeOpcode, Kretprobe, KretprobeInstance, PreemptOff, PtRegs,
    KPROBE_FLAG_DISABLED, KPROBE_FLAG_FTRACE, KPROBE_FLAG_GONE, KPROBE_FLAG_ON_FUNC_ENTRY,
    KPROBE_FLAG_OPTIMIZED,
};
use core::ptr;
use std::cell::RefCell;

const TEXT: usize = 0xffff_ffff_8100_0000;
const F0: usize = TEXT; // plain function, optimizable at +8 and +0x10
const F1: usize = TEXT + 0x100; // ftrace site at +0
const F2: usize = TEXT + 0x200; // ftrace site at +0
const REC: usize = TEXT + 0x300; // "recursive" function for kretprobes
const SWITCH: usize = TEXT + 0x400; // __switch_to (kretprobe blacklist)
const BL: usize = TEXT + 0x500; // blacklisted
const INIT: usize = TEXT + 0x8000; // init text
const MODT: usize = 0xffff_ffff_c000_0000;
const MODI: usize = 0xffff_ffff_c010_0000;
/// `f2` of the host differential's image (`sys::Image::model()`).
const HD_F2: usize = sys::HD_T + 0x80;

/// The test kernel; the returned [`Teardown`] frees the test's objects
/// when the test ends.
fn kernel() -> Teardown {
    image(|i| {
        i.text = vec![(TEXT, TEXT + 0x10_0000)];
        i.symbols = vec![
            Sym::new("f0", F0, 0x40),
            Sym::new("f1", F1, 0x40),
            Sym::new("f2", F2, 0x40),
            Sym::new("rec", REC, 0x40),
            Sym::new("__switch_to", SWITCH, 0x40),
            Sym::new("blacklisted", BL, 0x40),
            Sym::new("init_fn", INIT, 0x40),
            Sym::new("mod_fn", MODT, 0x40),
            Sym::new("mod_init_fn", MODI, 0x40),
        ];
        i.ftrace_sites = vec![F1, F2];
    });
    arch(|a| {
        a.optimizable = vec![F0 + 8, F0 + 0x10];
        a.init_area = (INIT, INIT + 0x1000);
    });
    crate::blacklist::add_ksym_blacklist(&crate::locks::kprobe_mutex(), BL).unwrap();
    // The kretprobe blacklist is resolved at init, as upstream does.
    // SAFETY: the simulated arch table.
    unsafe {
        let bl = sys::kretprobe_blacklist();
        (*bl).addr = SWITCH as *mut c_void;
    }
    crate::state::set_allow_optimization(&crate::locks::kprobe_mutex(), true);
    Teardown
}

thread_local! {
    static CALLS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn calls() -> Vec<String> {
    CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// The trace lines since the last call, without the ones these tests do
/// not check: `?` queries (hostdiff also ignores them unless
/// `KP_HOSTDIFF_STRICT=1`), `~` synchronization events, `WARN` and
/// `log LEVEL: ...` lines (the tests count those through [`record`] and
/// [`trace`]).
fn events() -> Vec<String> {
    checked(&trace())
}

/// The lines of `t` that [`events`] keeps.
fn checked(t: &[String]) -> Vec<String> {
    t.iter()
        .filter(|e| !(e.starts_with(['?', '~']) || *e == "WARN" || e.starts_with("log ")))
        .cloned()
        .collect()
}

/// The printk lines of `t` (`log LEVEL: TEXT`).
fn logs(t: &[String]) -> Vec<&str> {
    t.iter()
        .filter(|e| e.starts_with("log "))
        .map(String::as_str)
        .collect()
}

/// Every trace line since the last call (model.c's vocabulary).
fn trace() -> Vec<String> {
    arch(|a| std::mem::take(&mut a.events))
}

unsafe extern "C" fn pre(p: *mut Kprobe, _r: *mut PtRegs) -> c_int {
    CALLS.with(|c| c.borrow_mut().push(format!("pre{}", id(p))));
    0
}

unsafe extern "C" fn post(p: *mut Kprobe, _r: *mut PtRegs, _f: c_ulong) {
    CALLS.with(|c| c.borrow_mut().push(format!("post{}", id(p))));
}

// Test probes carry an id, kept in a side table by probe address.
thread_local! {
    static IDS: RefCell<Vec<(usize, u32)>> = const { RefCell::new(Vec::new()) };
    /// Frees this test's probes, kretprobes and modules (see [`Teardown`]).
    static OWNED: RefCell<Vec<Box<dyn FnOnce()>>> = RefCell::new(Vec::new());
}

/// The id of test probe `p`.
fn id(p: *const Kprobe) -> u32 {
    let a = p as usize;
    IDS.with(|i| i.borrow().iter().find(|x| x.0 == a).map_or(0, |x| x.1))
}

/// Hands `b` over to raw pointers for the rest of the test, as C code
/// would have it: the core links probes (and the sim modules) by pointer,
/// so after this the object is only reached through the returned pointer,
/// never through a fresh reference to the whole of it; [`Teardown`] frees
/// it when the test ends.
fn own<T: 'static>(b: Box<T>) -> *mut T {
    let p = Box::into_raw(b);
    // SAFETY: `p` is from `Box::into_raw` just above and freed only here,
    // once, when the test is over and nothing uses it any more.
    OWNED.with(|o| {
        o.borrow_mut()
            .push(Box::new(move || drop(unsafe { Box::from_raw(p) })))
    });
    p
}

/// Ends a test: frees what [`own`] handed out.  The next test's
/// `sys::exclusive()` resets the core's tables, which may still point
/// to a probe a test left registered.
#[must_use]
struct Teardown;

impl Drop for Teardown {
    fn drop(&mut self) {
        let owned = OWNED.with(|o| std::mem::take(&mut *o.borrow_mut()));
        for free in owned {
            free();
        }
        IDS.with(|i| i.borrow_mut().clear());
    }
}

fn kp(id: u32, addr: usize, has_post: bool) -> *mut Kprobe {
    // SAFETY: all-zero is a valid struct kprobe.
    let mut p: Box<Kprobe> = Box::new(unsafe { core::mem::zeroed() });
    p.addr = addr as *mut KprobeOpcode;
    p.pre_handler = Some(pre);
    if has_post {
        p.post_handler = Some(post);
    }
    let p = own(p);
    IDS.with(|i| i.borrow_mut().push((p as usize, id)));
    p
}

/// A test probe given by `symbol_name` + `offset` (the host differential's
/// `sym=NAME off=N`), not yet registered.
fn kp_sym(id: u32, sym: &'static core::ffi::CStr, off: u32) -> *mut Kprobe {
    let p = kp(id, 0, false);
    // SAFETY: a live, unregistered test probe (freed only by `Teardown`).
    unsafe {
        (*p).symbol_name = sym.as_ptr().cast();
        (*p).offset = off;
    }
    p
}

/// `p->flags` of a test probe.
fn flags(p: *const Kprobe) -> u32 {
    // SAFETY: a live test probe (freed only by `Teardown`); single thread.
    unsafe { (*p).flags }
}

/// `p->addr` of a test probe.
fn addr(p: *const Kprobe) -> usize {
    // SAFETY: as for `flags()`.
    unsafe { (*p).addr as usize }
}

fn reg(p: *mut Kprobe) -> c_int {
    // SAFETY: test probes live until the end of the test.
    unsafe { register_kprobe(p) }
}

fn unreg(p: *mut Kprobe) {
    // SAFETY: as above.
    unsafe { unregister_kprobe(p) }
}

/// What the arch's int3/ftrace handler does on a hit at `addr`.
fn hit(addr: usize) {
    hit_args(addr, [0; 6]);
}

/// [`hit`] with the argument registers `args`.
fn hit_args(addr: usize, args: [usize; 6]) {
    let mut regs = PtRegs {
        ip: addr as c_ulong,
        sp: 0,
        args: args.map(|a| a as c_ulong),
    };
    // SAFETY: handler context is simulated by the single test thread.
    unsafe {
        let p = get_kprobe(addr as *mut c_void);
        if p.is_null() || crate::flags::disabled(p) {
            return;
        }
        if let Some(h) = (*p).pre_handler {
            if h(p, &mut regs) != 0 {
                return;
            }
        }
        if let Some(h) = (*p).post_handler {
            h(p, &mut regs, 0);
        }
    }
}

fn hashed(addr: usize) -> *mut Kprobe {
    // SAFETY: the test thread holds no lock; the sim has no concurrency.
    unsafe { get_kprobe(addr as *mut c_void) }
}

fn allocs() -> isize {
    record(|r| r.allocs)
}

#[test]
fn register_arms_optimizes_and_unregister_frees() {
    let _g = sys::exclusive();
    let _t = kernel();
    let a0 = allocs();
    let p = kp(1, F0 + 8, false);
    assert_eq!(reg(p), 0);
    // A mid-function probe: prepared, armed, then wrapped in an aggregate
    // prepared for optimization and queued.  (The whole trace but its `?`
    // lines, which the host differential compares by default.)
    let compared = || {
        trace()
            .into_iter()
            .filter(|l| !l.starts_with('?'))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        compared(),
        [
            "arch_prepare_kprobe f0+0x8 = 0 slot=page?",
            "arch_arm_kprobe f0+0x8",
            "arch_prepare_optimized_kprobe f0+0x8 = 0 size=5 slot=null",
            "arch_check_optimized_kprobe f0+0x8 = 0",
            "~work queued"
        ]
    );
    let ap = hashed(F0 + 8);
    assert!(!ap.is_null() && ap != p);
    // SAFETY: live aggregate.
    unsafe {
        assert!(crate::probe::Probe::from_raw(ap as *mut _).is_aggr());
        assert_eq!((*ap).flags & KPROBE_FLAG_OPTIMIZED, KPROBE_FLAG_OPTIMIZED);
    }
    assert!(arch(|a| a.optimizer_pending));
    sys::run_optimizer();
    assert_eq!(
        compared(),
        [
            "~work run",
            "~synchronize_rcu_tasks",
            "arch_optimize_kprobes f0+0x8"
        ]
    );
    hit(F0 + 8);
    assert_eq!(calls(), ["pre1"]);

    unreg(p);
    // Queued for unoptimization; the optimizer unhashes and frees it.
    assert!(
        hashed(F0 + 8).is_null() || {
            sys::run_optimizer();
            true
        }
    );
    sys::run_optimizer();
    let ev = events();
    assert!(
        ev.contains(&"arch_unoptimize_kprobe f0+0x8".to_string()),
        "{ev:?}"
    );
    assert!(
        ev.contains(&"arch_disarm_kprobe f0+0x8".to_string()),
        "{ev:?}"
    );
    assert!(hashed(F0 + 8).is_null());
    assert_eq!(allocs(), a0, "aggregate freed");
}

#[test]
fn bad_inputs_get_upstream_error_codes_and_leave_nothing() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0, false);
    // SAFETY: a live, unregistered test probe.
    unsafe { (*p).symbol_name = c"f0".as_ptr().cast::<c_char>() };
    assert_eq!(reg(p), -sys::EINVAL, "both addr and symbol");
    let p = kp(2, 0, false);
    assert_eq!(reg(p), -sys::EINVAL, "neither");
    // SAFETY: as above.
    unsafe { (*p).symbol_name = c"nope".as_ptr().cast::<c_char>() };
    assert_eq!(reg(p), -sys::ENOENT, "unknown symbol");
    let p = kp(3, BL + 4, false);
    assert_eq!(reg(p), -sys::EINVAL, "blacklisted");
    let p = kp(4, TEXT - 0x1000_0000, false);
    assert_eq!(reg(p), -sys::ENOENT, "no symbol there");
    arch(|a| a.unpreparable.push(F0 + 4));
    let p = kp(5, F0 + 4, false);
    assert_eq!(reg(p), -sys::EILSEQ, "arch refuses the instruction");
    assert!(hashed(F0 + 4).is_null());
    assert!(crate::debugfs_list_is_empty());
}

#[test]
fn reregistration_is_einval_with_a_warning() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0 + 4, false);
    assert_eq!(reg(p), 0);
    let w = record(|r| r.warnings.len());
    trace();
    assert_eq!(reg(p), -sys::EINVAL);
    assert_eq!(record(|r| r.warnings.len()), w + 1);
    assert_eq!(trace(), ["WARN"], "traced as model.c's WARN_ON() does");
    unreg(p);
    assert!(hashed(F0 + 4).is_null());
}

#[test]
fn reregistration_by_addr_and_offset_is_detected() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0, false);
    // SAFETY: a live, unregistered test probe.
    unsafe { (*p).offset = 4 };
    assert_eq!(reg(p), 0);
    assert_eq!(addr(p), F0 + 4);
    let w = record(|r| r.warnings.len());
    // Intended divergence: upstream looks at f0+8, misses the live probe
    // and hashes it again.
    assert_eq!(reg(p), -sys::EINVAL);
    assert_eq!(record(|r| r.warnings.len()), w + 1);
    assert!(hashed(F0 + 8).is_null());
    unreg(p);
    assert!(hashed(F0 + 4).is_null());
}

#[test]
fn registered_disabled_then_enabled_and_disabled() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0 + 4, false);
    // SAFETY: a live, unregistered test probe.
    unsafe { (*p).flags = KPROBE_FLAG_DISABLED | KPROBE_FLAG_OPTIMIZED | KPROBE_FLAG_GONE };
    assert_eq!(reg(p), 0);
    assert_eq!(flags(p), KPROBE_FLAG_DISABLED, "only DISABLED is kept");
    // Not armed; the optimizer is still tried (and fails here).
    assert_eq!(
        events(),
        [
            "arch_prepare_kprobe f0+0x4 = 0 slot=page?",
            "arch_prepare_optimized_kprobe f0+0x4 = -84 size=0 slot=null",
            "arch_remove_optimized_kprobe f0+0x4 slot=null"
        ]
    );
    hit(F0 + 4);
    assert!(calls().is_empty());
    // SAFETY: registered probe.
    unsafe {
        assert_eq!(enable_kprobe(p), 0);
        assert_eq!(events(), ["arch_arm_kprobe f0+0x4"]);
        hit(F0 + 4);
        assert_eq!(calls(), ["pre1"]);
        assert_eq!(disable_kprobe(p), 0);
        assert_eq!(events(), ["arch_disarm_kprobe f0+0x4"]);
        assert_eq!(disable_kprobe(p), 0, "idempotent");
        assert!(events().is_empty());
    }
    unreg(p);
    assert_eq!(events(), ["arch_remove_kprobe f0+0x4 slot=page?"]);
}

#[test]
fn never_registered_probe_and_double_unregister_are_harmless() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0 + 4, false);
    // SAFETY: a readable, unregistered probe.
    unsafe {
        assert_eq!(enable_kprobe(p), -sys::EINVAL);
        assert_eq!(disable_kprobe(p), -sys::EINVAL);
    }
    unreg(p);
    assert!(events().is_empty());
    assert_eq!(
        addr(p),
        0,
        "upstream clears addr of a probe it could not find"
    );
    // SAFETY: a live, unregistered test probe.
    unsafe { (*p).addr = (F0 + 4) as *mut KprobeOpcode };
    assert_eq!(reg(p), 0);
    unreg(p);
    events();
    unreg(p);
    assert!(events().is_empty(), "second unregister touches nothing");
    assert_eq!(
        addr(p),
        0,
        "upstream clears addr of a probe it could not find"
    );
}

#[test]
fn aggregate_runs_children_in_order_and_survives_partial_unregister() {
    let _g = sys::exclusive();
    let _t = kernel();
    let a0 = allocs();
    let (p1, p2, p3) = (
        kp(1, F0 + 4, false),
        kp(2, F0 + 4, true),
        kp(3, F0 + 4, false),
    );
    assert_eq!(reg(p1), 0);
    assert_eq!(reg(p2), 0);
    assert_eq!(reg(p3), 0);
    let ap = hashed(F0 + 4);
    // SAFETY: live aggregate.
    unsafe {
        assert!(
            crate::probe::Probe::from_raw(ap as *mut _).is_aggr() && (*ap).post_handler.is_some()
        )
    };
    hit(F0 + 4);
    // Children run in list order: the newest is added right after the head.
    assert_eq!(calls(), ["pre3", "pre2", "pre1", "post2"]);
    unreg(p2);
    // SAFETY: live aggregate.
    unsafe {
        assert!(
            (*ap).post_handler.is_none(),
            "no child with a post_handler left"
        )
    };
    hit(F0 + 4);
    assert_eq!(calls(), ["pre3", "pre1"]);
    unreg(p1);
    assert_eq!(hashed(F0 + 4), ap);
    unreg(p3);
    assert!(hashed(F0 + 4).is_null());
    assert_eq!(allocs(), a0);
}

#[test]
fn disabling_every_child_disarms_the_aggregate_and_enabling_one_rearms() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p1, p2) = (kp(1, F0 + 4, false), kp(2, F0 + 4, false));
    assert_eq!(reg(p1), 0);
    assert_eq!(reg(p2), 0);
    events();
    let ap = hashed(F0 + 4);
    // SAFETY: registered probes.
    unsafe {
        assert_eq!(disable_kprobe(p1), 0);
        assert!(events().is_empty(), "p2 still enabled");
        hit(F0 + 4);
        assert_eq!(calls(), ["pre2"]);
        assert_eq!(disable_kprobe(p2), 0);
        assert_eq!(events(), ["arch_disarm_kprobe f0+0x4"]);
        assert_eq!((*ap).flags & KPROBE_FLAG_DISABLED, KPROBE_FLAG_DISABLED);
        assert_eq!(enable_kprobe(p1), 0);
        assert_eq!(events(), ["arch_arm_kprobe f0+0x4"]);
        assert_eq!(
            flags(p2) & KPROBE_FLAG_DISABLED,
            KPROBE_FLAG_DISABLED,
            "p2 stays disabled"
        );
        hit(F0 + 4);
        assert_eq!(calls(), ["pre1"]);
    }
    unreg(p1);
    unreg(p2);
}

#[test]
fn post_handler_child_unoptimizes_and_its_removal_reoptimizes() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p1, p2) = (kp(1, F0 + 8, false), kp(2, F0 + 8, true));
    assert_eq!(reg(p1), 0);
    sys::run_optimizer();
    let ap = hashed(F0 + 8);
    events();
    assert_eq!(reg(p2), 0);
    assert_eq!(
        events(),
        ["arch_unoptimize_kprobe f0+0x8"],
        "forced at once"
    );
    // SAFETY: live aggregate.
    unsafe { assert_eq!((*ap).flags & KPROBE_FLAG_OPTIMIZED, 0) };
    hit(F0 + 8);
    assert_eq!(calls(), ["pre2", "pre1", "post2"]);
    unreg(p2);
    // SAFETY: live aggregate.
    unsafe {
        assert_eq!(
            (*ap).flags & KPROBE_FLAG_OPTIMIZED,
            KPROBE_FLAG_OPTIMIZED,
            "queued again"
        )
    };
    sys::run_optimizer();
    assert_eq!(
        events(),
        [
            "arch_check_optimized_kprobe f0+0x8 = 0",
            "arch_optimize_kprobes f0+0x8"
        ]
    );
    unreg(p1);
    sys::run_optimizer();
}

#[test]
fn optimizer_queue_transitions() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0 + 8, false);
    assert_eq!(reg(p), 0);
    let ap = hashed(F0 + 8);
    // SAFETY: a live aggregate.
    let op = unsafe { crate::probe::Probe::from_raw(ap) }
        .aggr()
        .unwrap()
        .op();
    // SAFETY: live aggregate, queued for optimization.
    unsafe {
        assert!(
            !crate::list::list_empty(&mut (*op).list),
            "on optimizing_list"
        );
        assert!(!optprobe_queued_unopt(op));
        // Disabling before the optimizer ran dequeues it (never optimized).
        assert_eq!(disable_kprobe(p), 0);
        assert!(crate::list::list_empty(&mut (*op).list));
        assert_eq!((*ap).flags & KPROBE_FLAG_OPTIMIZED, 0);
        events();
        assert_eq!(enable_kprobe(p), 0);
        sys::run_optimizer();
        assert_eq!(
            events(),
            [
                "arch_arm_kprobe f0+0x8",
                "arch_check_optimized_kprobe f0+0x8 = 0",
                "arch_optimize_kprobes f0+0x8"
            ]
        );
        // Disabling an optimized probe queues it for unoptimization ...
        assert_eq!(disable_kprobe(p), 0);
        assert!(optprobe_queued_unopt(op));
        {
            // (The export's contract: under `kprobe_mutex`.)
            let _km = crate::locks::kprobe_mutex();
            assert!(
                !kprobe_disarmed(ap),
                "still a jump until the optimizer runs"
            );
        }
        // ... and re-enabling before the optimizer ran just dequeues it:
        // the jump is still in the text, nothing is patched (intended
        // divergence: upstream writes an int3 over the live jump here).
        events();
        assert_eq!(enable_kprobe(p), 0);
        assert_eq!(
            events(),
            ["arch_check_optimized_kprobe f0+0x8 = 0"],
            "no int3 over the live jump (only optimize_kprobe()'s check)"
        );
        assert!(!optprobe_queued_unopt(op));
        assert_eq!((*ap).flags & KPROBE_FLAG_OPTIMIZED, KPROBE_FLAG_OPTIMIZED);
        sys::run_optimizer();
        assert!(events()
            .iter()
            .all(|e| !e.starts_with("arch_unoptimize_kprobe ")));
    }
    unreg(p);
    wait_for_kprobe_optimizer();
    assert!(hashed(F0 + 8).is_null());
}

#[test]
fn unused_aggregate_is_reused_by_a_new_probe() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p1 = kp(1, F0 + 8, false);
    assert_eq!(reg(p1), 0);
    sys::run_optimizer();
    let ap = hashed(F0 + 8);
    unreg(p1);
    // Delayed unoptimizing: the aggregate is unused but still hashed.
    assert_eq!(hashed(F0 + 8), ap);
    let p2 = kp(2, F0 + 8, false);
    assert_eq!(reg(p2), 0);
    assert_eq!(hashed(F0 + 8), ap, "rescued, not reallocated");
    hit(F0 + 8);
    assert_eq!(calls(), ["pre2"]);
    unreg(p2);
    wait_for_kprobe_optimizer();
    assert!(hashed(F0 + 8).is_null());
}

#[test]
fn ftrace_probes_share_one_ops_and_post_handlers_use_ipmodify() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p1, p2, p3) = (kp(1, F1, false), kp(2, F2, false), kp(3, F1, true));
    // SAFETY: a live, unregistered test probe.
    unsafe {
        (*p3).addr = ptr::null_mut();
        (*p3).symbol_name = c"f2".as_ptr().cast();
    }
    assert_eq!(reg(p1), 0);
    assert_eq!(flags(p1) & KPROBE_FLAG_FTRACE, KPROBE_FLAG_FTRACE);
    assert_eq!(
        flags(p1) & KPROBE_FLAG_ON_FUNC_ENTRY,
        KPROBE_FLAG_ON_FUNC_ENTRY
    );
    assert_eq!(
        events(),
        [
            "arch_prepare_kprobe_ftrace f1+0x0 = 0",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ftrace_ops = 0"
        ]
    );
    assert_eq!(reg(p2), 0);
    assert_eq!(
        events(),
        [
            "arch_prepare_kprobe_ftrace f2+0x0 = 0",
            "ftrace_set_filter_ip ftrace_ops f2+0x0 remove=0 reset=0 = 0"
        ]
    );
    // A post_handler probe joins p2's address: the aggregate was armed on
    // the plain ops and stays so; no optimization of ftrace probes.
    assert_eq!(reg(p3), 0);
    assert!(events().is_empty());
    hit(F2);
    assert_eq!(calls(), ["pre3", "pre2", "post3"]);
    unreg(p1);
    assert_eq!(
        events(),
        [
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=1 reset=0 = 0",
            "arch_remove_kprobe f1+0x0 slot=null"
        ]
    );
    // p3 leaves first: the aggregate keeps its post_handler (upstream).
    unreg(p3);
    assert!(events().is_empty());
    unreg(p2);
    // Intended divergence (ftrace.rs): the aggregate at f2 was armed
    // through the plain ops and is disarmed through them, although a
    // post_handler probe joined it (upstream uses the IPMODIFY ops there,
    // fails, WARNs and leaves the last probe live).
    assert_eq!(
        events(),
        [
            "unregister_ftrace_function ftrace_ops = 0",
            "ftrace_set_filter_ip ftrace_ops f2+0x0 remove=1 reset=0 = 0",
            "arch_remove_optimized_kprobe f2+0x0 slot=null",
            "arch_remove_kprobe f2+0x0 slot=null"
        ]
    );
    assert!(hashed(F2).is_null(), "really unregistered");
    assert!(arch(|a| (0..2).all(|i| a.ftrace_filter(i).is_empty())));
    // A lone post_handler probe goes through the IPMODIFY ops.
    let p4 = kp(4, F1, true);
    assert_eq!(reg(p4), 0);
    assert_eq!(
        events(),
        [
            "arch_prepare_kprobe_ftrace f1+0x0 = 0",
            "ftrace_set_filter_ip ipmodify_ops f1+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ipmodify_ops = 0"
        ]
    );
    assert!(arch(|a| a.ftrace_ops_registered()[1]));
    unreg(p4);
    assert_eq!(
        events(),
        [
            "unregister_ftrace_function ipmodify_ops = 0",
            "ftrace_set_filter_ip ipmodify_ops f1+0x0 remove=1 reset=0 = 0",
            "arch_remove_kprobe f1+0x0 slot=null"
        ]
    );
}

thread_local! {
    /// The arguments of [`note_cb`]'s calls, in order.
    static RCU_CALLS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// An RCU callback that notes its argument.
unsafe fn note_cb(arg: usize) {
    RCU_CALLS.with(|c| c.borrow_mut().push(arg));
    if arg == 1 {
        // Queued from a callback: runs in the same quiescent state.
        // SAFETY: `note_cb` may run at any end of an operation.
        unsafe { sys::call_rcu(note_cb, 3) };
    }
}

/// model.c's `call_rcu()` queue: `kfree_rcu()` frees at once in the unit
/// tests' image, and at the end of the operation (`hd_rcu_quiesce()`, the
/// driver's call after each operation) in the model's; callbacks run in
/// the order they were queued, also those queued by a callback.
#[test]
fn model_rcu_callbacks_run_at_the_end_of_an_operation() {
    let _g = sys::exclusive();
    // Relative to now: `exclusive()` may have freed blocks that an earlier
    // test's thread allocated.
    let base = record(|r| r.allocs);
    let allocs = || record(|r| r.allocs) - base;
    let p = sys::kmalloc(32);
    // SAFETY: a fresh `kmalloc()` block that nothing reaches.
    unsafe { sys::kfree_rcu(p, ptr::null_mut()) };
    assert_eq!(allocs(), 0, "the unit tests' image frees at once");
    sys::install_model();
    let p = sys::kmalloc(32);
    // SAFETY: as above.
    unsafe { sys::kfree_rcu(p, ptr::null_mut()) };
    assert_eq!(allocs(), 1, "queued");
    // SAFETY: `note_cb` may run at any end of an operation.
    unsafe {
        sys::call_rcu(note_cb, 1);
        sys::call_rcu(note_cb, 2);
    }
    assert!(RCU_CALLS.with(|c| c.borrow().is_empty()));
    sys::hd_rcu_quiesce();
    assert_eq!(allocs(), 0, "freed at the end of the operation");
    assert_eq!(RCU_CALLS.with(|c| c.take()), [1, 2, 3]);
    sys::hd_rcu_quiesce();
    assert!(RCU_CALLS.with(|c| c.borrow().is_empty()), "run once");
    // m0 and its blacklist array: see `model_kernel()`.
    image(|i| *i = sys::Image::default());
}

/// model.c's `hd_rcu_quiesce()` is fatal when an operation ends with a
/// lock held (here `cpus_read_lock()`), with its message.
#[test]
#[should_panic(expected = "FATAL: operation ended with rcu=0 preempt=0 cpus=1 text=0 jl=0 held")]
fn model_rcu_quiesce_with_a_lock_held_is_fatal() {
    let _g = sys::exclusive();
    sys::cpus_read_lock();
    sys::hd_rcu_quiesce();
}

/// model.c's grace periods are fatal with preemption disabled (the unit
/// tests' image checks only the RCU read side).
#[test]
#[should_panic(expected = "FATAL: synchronize_rcu_tasks() in a read-side section")]
fn model_grace_period_with_preemption_disabled_is_fatal() {
    let _g = sys::exclusive();
    image(|i| i.as_model = true);
    sys::preempt_disable();
    sys::synchronize_rcu_tasks();
}

/// model.c's `hd_cpu_relax()`: more than 1000 `cpu_relax()` calls since
/// the driver's reset are a hang (`wait_for_kprobe_optimizer()` spins on
/// it); 1000 are not.
#[test]
#[should_panic(expected = "FATAL: hang: wait_for_kprobe_optimizer() does not finish")]
fn model_cpu_relax_past_1000_is_a_hang() {
    let _g = sys::exclusive();
    image(|i| i.as_model = true);
    for _ in 0..1000 {
        sys::cpu_relax();
    }
    sys::hd_relax_reset();
    for _ in 0..1000 {
        sys::cpu_relax();
    }
    sys::cpu_relax();
}

/// model.c's `mutex_lock()` is fatal in atomic context.
#[test]
#[should_panic(expected = "FATAL: mutex_lock(kprobe_mutex) in atomic context")]
fn model_mutex_in_atomic_context_is_fatal() {
    let _g = sys::exclusive();
    image(|i| i.as_model = true);
    sys::preempt_disable();
    sys::kprobe_mutex_lock();
}

/// model.c's `mutex_lock()` of a held mutex: one thread, so a deadlock,
/// fatal (the unit tests' image spins, for their concurrent readers).
#[test]
#[should_panic(expected = "FATAL: deadlock: text_mutex already held")]
fn model_mutex_lock_of_a_held_mutex_is_a_deadlock() {
    let _g = sys::exclusive();
    image(|i| i.as_model = true);
    let mut m = sys::Mutex {
        locked: 0,
        name: c"text_mutex".as_ptr().cast(),
    };
    // SAFETY: a live mutex of this test.
    unsafe {
        sys::mutex_lock(&mut m);
        sys::mutex_unlock(&mut m);
        sys::mutex_lock(&mut m);
        sys::mutex_lock(&mut m);
    }
}

/// model.c's fatal unbalanced unlocks and assertion (`rcu_read_unlock()`,
/// `preempt_enable()`, `cpus_read_unlock()`, an unlocked mutex,
/// `lockdep_assert_cpus_held()`): each ends the run with its message.
#[test]
fn model_unbalanced_unlocks_are_fatal() {
    let _g = sys::exclusive();
    image(|i| i.as_model = true);
    let fatal = |f: fn()| {
        let e = std::panic::catch_unwind(f).expect_err("fatal");
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    let unlock_m1: fn() = || {
        let mut m = sys::Mutex {
            locked: 0,
            name: c"m1".as_ptr().cast(),
        };
        // SAFETY: a live mutex of this closure.
        unsafe { sys::mutex_unlock(&mut m) }
    };
    let cases: [(fn(), &str); 5] = [
        // Three unbalanced calls: the model's checks of the contract they
        // break stop the test before any use of the state.
        (
            // SAFETY: as said above.
            || unsafe { sys::rcu_read_unlock() },
            "FATAL: rcu_read_unlock underflow",
        ),
        (
            // SAFETY: as said above.
            || unsafe { sys::preempt_enable() },
            "FATAL: preempt_enable underflow",
        ),
        (
            // SAFETY: as said above.
            || unsafe { sys::cpus_read_unlock() },
            "FATAL: cpus_read_unlock underflow",
        ),
        (
            sys::lockdep_assert_cpus_held,
            "FATAL: lockdep: cpus_read_lock not held",
        ),
        (unlock_m1, "FATAL: mutex_unlock of unlocked m1"),
    ];
    for (f, text) in cases {
        assert_eq!(fatal(f), text);
    }
}

thread_local! {
    static SUNK: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A C program's hooks (`libkpsim.a`, `tools/testing/hostdiff/sim/`): its
/// own `current_kprobe` and `kprobe_status`, which the trap paths read and
/// write; its own m0, listed while unloaded (no text mapped), present once
/// its driver maps the text; and the trace on its output, as it happens.
#[test]
fn model_c_program_percpu_cells_m0_and_trace_sink() {
    let _g = sys::exclusive();
    let mut cur: *mut Kprobe = ptr::null_mut();
    let mut status: c_ulong = 0;
    // SAFETY: both live until `clear_percpu_cells()` below, and only this
    // thread uses them.
    unsafe { sys::set_percpu_cells(&mut cur, &mut status) };
    // SAFETY: an all-zero `struct kprobe` is valid (null pointers and
    // handlers, no flags).
    let mut kp: Kprobe = unsafe { core::mem::zeroed() };
    // SAFETY: the simulated CPU has one thread and no preemption.
    let po = unsafe { PreemptOff::assume() };
    sys::set_current_kprobe(po, &mut kp);
    sys::set_kprobe_status(po, sys::KPROBE_HIT_SSDONE);
    assert_eq!(sys::current_kprobe(), &raw mut kp);
    assert_eq!(sys::kprobe_status(), sys::KPROBE_HIT_SSDONE);
    sys::clear_current_kprobe(po);
    sys::clear_percpu_cells();
    assert_eq!((cur, status), (ptr::null_mut(), sys::KPROBE_HIT_SSDONE));
    assert_eq!(sys::cpu(|c| (c.current_kprobe, c.kprobe_status)), (0, 0));

    let m0 = Box::into_raw(Box::new(Module::default()));
    // SAFETY: a zeroed module that outlives the image's use of it (the
    // image is reset below, before it is freed), this thread's.
    unsafe { sys::install_model_m0(m0) };
    assert_eq!(sys::hd_m0(), m0);
    // SAFETY: the simulated CPU has one thread and no preemption; only the
    // pointer's value is read.
    assert!(
        unsafe { sys::module_text_address(sys::HD_M) }.is_null(),
        "unloaded"
    );
    // The driver's `module-load m0`, in C: the state and the text ranges.
    // SAFETY: `m0` is live and this thread's.
    unsafe {
        (*m0).loaded = 1;
        (*m0).state = ModState::Coming;
        (*m0).core_start = sys::HD_M as c_ulong;
        (*m0).core_end = (sys::HD_M + 0xc0) as c_ulong;
    }
    // SAFETY: as above.
    assert_eq!(unsafe { sys::module_text_address(sys::HD_M + 0x40) }, m0);
    assert_eq!(sys::p_s(sys::HD_M + 0x44), "m0_fn2+0x4/0x40 [m0]");

    sys::set_trace_sink(Some(|l| SUNK.with(|s| s.borrow_mut().push(l.into()))));
    sys::hd_trace("pre K0".into());
    sys::warn();
    sys::set_trace_sink(None);
    sys::hd_trace("= 0".into());
    assert_eq!(SUNK.with(|s| s.take()), ["pre K0", "WARN"]);
    assert_eq!(arch(|a| a.events.clone()), ["= 0"]);
    image(|i| *i = sys::Image::default());
    // SAFETY: from `Box::into_raw()` above; the image no longer lists it.
    drop(unsafe { Box::from_raw(m0) });
}

#[test]
fn model_ftrace_filters_as_model_c() {
    let _g = sys::exclusive();
    let _t = kernel();
    let filter = |ops: usize| arch(|a| a.ftrace_filter(ops));
    // The simulated ftrace is called under kprobe_mutex, as the core does.
    arch(|a| a.kprobe_mutex = true);
    // The default: an address may be added twice; removing takes both.
    assert_eq!(sys::ftrace_set_filter_ip(false, F1, false), 0);
    assert_eq!(sys::ftrace_set_filter_ip(false, F1, false), 0);
    assert_eq!(filter(0), [F1, F1]);
    assert_eq!(sys::ftrace_set_filter_ip(false, F1, true), 0);
    assert!(filter(0).is_empty());
    trace();
    // model.c's semantics (MODEL.md section 1, "ftrace").
    image(|i| i.as_model = true);
    assert_eq!(sys::ftrace_set_filter_ip(false, F1, false), 0);
    assert_eq!(sys::ftrace_set_filter_ip(false, F1, false), 0, "present: 0");
    assert_eq!(filter(0), [F1], "no address twice");
    assert_eq!(
        sys::ftrace_set_filter_ip(false, F0 + 4, false),
        -sys::EINVAL,
        "not an ftrace site"
    );
    assert_eq!(
        sys::ftrace_set_filter_ip(true, F1, true),
        -sys::ENOENT,
        "not in the ipmodify ops' filter"
    );
    assert_eq!(
        sys::ftrace_set_filter_ips(false, &[F2, F0], false),
        -sys::EINVAL,
        "one bad address"
    );
    assert_eq!(filter(0), [F1], "all or nothing");
    assert_eq!(sys::ftrace_set_filter_ips(false, &[F2, F1], false), 0);
    assert_eq!(filter(0), [F1, F2]);
    assert_eq!(sys::register_ftrace_function(false), 0);
    assert_eq!(sys::register_ftrace_function(false), -sys::EBUSY_SIM);
    assert_eq!(sys::unregister_ftrace_function(false), 0);
    assert_eq!(sys::unregister_ftrace_function(false), -sys::EBUSY_SIM);
    assert_eq!(sys::ftrace_set_filter_ips(false, &[F1, F2], true), 0);
    assert!(filter(0).is_empty());
    assert_eq!(
        trace(),
        [
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=0 reset=0 = 0",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=0 reset=0 = 0",
            "ftrace_set_filter_ip ftrace_ops f0+0x4 remove=0 reset=0 = -22",
            "ftrace_set_filter_ip ipmodify_ops f1+0x0 remove=1 reset=0 = -2",
            "ftrace_set_filter_ips ftrace_ops f2+0x0,f0+0x0 remove=0 reset=0 = -22",
            "ftrace_set_filter_ips ftrace_ops f2+0x0,f1+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ftrace_ops = 0",
            "WARN",
            "register_ftrace_function ftrace_ops = -16",
            "unregister_ftrace_function ftrace_ops = 0",
            "WARN",
            "unregister_ftrace_function ftrace_ops = -16",
            "ftrace_set_filter_ips ftrace_ops f1+0x0,f2+0x0 remove=1 reset=0 = 0",
        ]
    );
    arch(|a| a.kprobe_mutex = false);
}

/// An insn cache as kprobes.c defines them, over execmem pages, reached
/// only through the returned pointer; [`Teardown`] frees its pages and
/// itself.
fn model_cache(sym: &'static core::ffi::CStr, insn_size: usize) -> *mut KprobeInsnCache {
    let c = new_cache(sym, insn_size, execmem_page, Some(execmem_page_free));
    // SAFETY: at the end of the test nothing uses the cache any more.
    let destroy = move || unsafe { destroy_cache(c, execmem_page_free) };
    OWNED.with(|o| o.borrow_mut().push(Box::new(destroy)));
    c
}

/// The host differential's kernel (`sys::install_model()`), after boot's
/// `init_optprobes()` (optimization allowed), with kprobes.c's two insn
/// caches.
fn model_kernel() -> Teardown {
    sys::install_model();
    crate::state::set_allow_optimization(&crate::locks::kprobe_mutex(), true);
    let insn = model_cache(c"kprobe_insn_page", 16);
    let optinsn = model_cache(c"kprobe_optinsn_page", sys::max_optinsn_size());
    sys::set_caches(sys::Caches {
        insn,
        optinsn,
        arch_syms: 0,
    });
    // The epilogue, first: m0 unloaded if the test left it loaded (the
    // core frees its blacklist entries, after the grace period that
    // `hd_rcu_quiesce()` ends), the retired rethooks freed, the caches unset (then freed by
    // `model_cache()`'s closures); last, m0 and its blacklist array are
    // freed with the image (it keeps them by address, which Miri does not
    // count as reachable).
    OWNED.with(|o| {
        let mut o = o.borrow_mut();
        o.insert(
            0,
            Box::new(|| {
                // SAFETY: the image's m0 is live until the image is reset.
                if unsafe { (*sys::hd_m0()).loaded } != 0 {
                    sys::hd_module_unload();
                }
                sys::hd_rcu_quiesce();
                // SAFETY: the test is over: no probe is hit or unregistered
                // any more.
                unsafe { sys::hd_free_retired() };
                sys::set_caches(sys::Caches {
                    insn: ptr::null_mut(),
                    optinsn: ptr::null_mut(),
                    arch_syms: 0,
                })
            }),
        );
        o.push(Box::new(|| image(|i| *i = sys::Image::default())));
    });
    Teardown
}

/// arch.c's slots and `can_probe()`/`can_optimize()` rules: the same
/// operations as this sequence of the host differential give hostdiff-c's
/// trace lines (run on it, the `> ` and `= RET` lines left out): `reg K3
/// sym=f2 off=4`, `reg K4 sym=f3 off=4` (f3 is `noopt`), `reg K6 sym=f7
/// off=0xc` (the jump would cover the static call at +0x10), `reg K7
/// sym=f4 off=4`, `reg K8 sym=f4 off=8` (the instruction at f4+8 is not
/// boostable), `reg K5 sym=f3 off=2` (no instruction boundary), then
/// `unreg` of K3, K4, K6, K7, K8 (all `pre=ok`).
#[test]
fn model_arch_takes_slots_and_prepares_as_arch_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let k3 = kp_sym(3, c"f2", 4);
    assert_eq!(reg(k3), 0);
    assert_eq!(
        trace(),
        [
            "perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page",
            "arch_prepare_kprobe f2+0x4 = 0 slot=page0+0x0",
            "arch_arm_kprobe f2+0x4",
            "perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page",
            "arch_prepare_optimized_kprobe f2+0x4 = 0 size=8 slot=page1+0x0",
            "arch_check_optimized_kprobe f2+0x4 = 0",
            "~work queued"
        ]
    );
    let mut regd = vec![k3];
    for (id, sym, off, slot, opt) in [
        (4, c"f3", 4, "page0+0x10", -sys::EILSEQ),
        (6, c"f7", 0xc, "page0+0x20", -sys::EBUSY_SIM),
        (7, c"f4", 4, "page0+0x30", -sys::EINVAL),
        (8, c"f4", 8, "page0+0x40", -sys::EINVAL),
    ] {
        let p = kp_sym(id, sym, off);
        assert_eq!(reg(p), 0);
        let a = sys::hd_sym(addr(p));
        assert_eq!(
            trace(),
            [
                format!("arch_prepare_kprobe {a} = 0 slot={slot}"),
                format!("arch_arm_kprobe {a}"),
                format!("arch_prepare_optimized_kprobe {a} = {opt} size=0 slot=null"),
                format!("arch_remove_optimized_kprobe {a} slot=null"),
            ]
        );
        regd.push(p);
    }
    let k5 = kp_sym(5, c"f3", 2);
    assert_eq!(reg(k5), -sys::EILSEQ);
    assert_eq!(trace(), ["arch_prepare_kprobe f3+0x2 = -84 slot=null"]);
    unreg(k3);
    assert_eq!(
        trace(),
        [
            "arch_disarm_kprobe f2+0x4",
            "~synchronize_rcu",
            "arch_remove_optimized_kprobe f2+0x4 slot=page1+0x0",
            "arch_remove_kprobe f2+0x4 slot=page0+0x0"
        ]
    );
    for (p, slot) in regd[1..]
        .iter()
        .zip(["page0+0x10", "page0+0x20", "page0+0x30", "page0+0x40"])
    {
        unreg(*p);
        let a = sys::hd_sym(addr(*p));
        assert_eq!(
            trace(),
            [
                format!("arch_disarm_kprobe {a}"),
                "~synchronize_rcu".into(),
                format!("arch_remove_kprobe {a} slot={slot}"),
            ]
        );
    }
}

/// arch.c's text model: the same operations as this sequence of the host
/// differential give hostdiff-c's lines, `check`'s `text` lines included:
/// `reg K3 sym=f2 off=4`, `optimize`, `check`, `reg K4 sym=f2 off=8` (in
/// K3's jump), `check`, `optimize`, `check`, `unreg K4`, `unreg K3`,
/// `optimize`, `check`; and the `!text` lines of writes that do not fit.
#[test]
fn model_text_tracks_int3s_and_jumps_as_arch_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let check = || {
        sys::hd_text_check();
        trace()
    };
    let (k3, k4) = (kp_sym(3, c"f2", 4), kp_sym(4, c"f2", 8));
    assert_eq!(reg(k3), 0);
    trace();
    sys::run_optimizer();
    assert_eq!(
        trace(),
        [
            "~work run",
            "~synchronize_rcu_tasks",
            "arch_optimize_kprobes f2+0x4"
        ]
    );
    assert_eq!(check(), ["text jump f2+0x4 size=8"]);
    assert_eq!(reg(k4), 0);
    assert_eq!(
        trace(),
        [
            "arch_prepare_kprobe f2+0x8 = 0 slot=page0+0x10",
            "?arch_within_optimized_kprobe f2+0x4 f2+0x8 = 1",
            "arch_unoptimize_kprobe f2+0x4",
            "arch_arm_kprobe f2+0x8",
            "arch_prepare_optimized_kprobe f2+0x8 = 0 size=8 slot=page1+0x99",
            "arch_check_optimized_kprobe f2+0x8 = 0",
            "~work queued"
        ]
    );
    assert_eq!(check(), ["text int3 f2+0x4", "text int3 f2+0x8"]);
    sys::run_optimizer();
    assert_eq!(
        trace(),
        [
            "~work run",
            "~synchronize_rcu_tasks",
            "arch_optimize_kprobes f2+0x8"
        ]
    );
    assert_eq!(check(), ["text int3 f2+0x4", "text jump f2+0x8 size=8"]);
    unreg(k4);
    assert_eq!(trace(), ["~work queued", "~synchronize_rcu"]);
    unreg(k3);
    assert_eq!(
        trace(),
        [
            "arch_disarm_kprobe f2+0x4",
            "~synchronize_rcu",
            "arch_remove_optimized_kprobe f2+0x4 slot=page1+0x0",
            "arch_remove_kprobe f2+0x4 slot=page0+0x0"
        ]
    );
    sys::run_optimizer();
    assert_eq!(
        trace(),
        [
            "~work run",
            "arch_unoptimize_kprobe f2+0x8",
            "arch_disarm_kprobe f2+0x8",
            "~synchronize_rcu_tasks",
            "arch_remove_optimized_kprobe f2+0x8 slot=page1+0x99",
            "arch_remove_kprobe f2+0x8 slot=page0+0x10"
        ]
    );
    assert!(check().is_empty(), "nothing left in the text");
    // Writes that do not fit the text are `!text` lines, and forgotten
    // text (module unload, init freed) takes its int3s and jumps along.
    arch(|a| {
        a.text_mutex = true;
        a.cpus_read = 1;
    });
    let p = kp(9, HD_F2 + 4, false);
    // SAFETY: a live, unregistered test probe, only read by the arch.
    unsafe {
        sys::arch_disarm_kprobe(p);
        sys::arch_arm_kprobe(p);
        sys::arch_arm_kprobe(p);
    }
    assert_eq!(
        trace(),
        [
            "arch_disarm_kprobe f2+0x4",
            "!text no-int3 f2+0x4",
            "arch_arm_kprobe f2+0x4",
            "arch_arm_kprobe f2+0x4",
            "!text int3-twice f2+0x4"
        ]
    );
    sys::hd_text_forget(HD_F2, HD_F2 + 0x40);
    assert!(check().is_empty());
    arch(|a| {
        a.text_mutex = false;
        a.cpus_read = 0;
    });
}

/// The same operations as this sequence of the host differential give
/// hostdiff-c's trace lines (its `> ` and `= RET` lines are the driver's):
/// `reg K0 sym=f1 pre=ok`, `reg K2 sym=m0_fn pre=ok`, `module-load m0`,
/// `reg K2 sym=m0_fn pre=ok`, `unreg K2`, `unreg K0`.
#[test]
fn model_image_traces_ftrace_and_module_probes_as_hostdiff_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let (k0, k2) = (kp_sym(0, c"f1", 0), kp_sym(2, c"m0_fn", 0));
    assert_eq!(reg(k0), 0);
    assert_eq!(
        trace(),
        [
            "arch_prepare_kprobe_ftrace f1+0x0 = 0",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ftrace_ops = 0"
        ]
    );
    assert_eq!(reg(k2), -sys::ENOENT, "m0 is not loaded");
    assert!(trace().is_empty());
    // module-load m0 (COMING; the notifier does nothing to these probes).
    sys::hd_module_load();
    assert!(trace().is_empty());
    assert_eq!(reg(k2), 0);
    assert_eq!(
        trace(),
        [
            "arch_prepare_kprobe_ftrace m0_fn+0x0 = 0",
            "ftrace_set_filter_ip ftrace_ops m0_fn+0x0 remove=0 reset=0 = 0"
        ]
    );
    unreg(k2);
    assert_eq!(
        trace(),
        [
            "ftrace_set_filter_ip ftrace_ops m0_fn+0x0 remove=1 reset=0 = 0",
            "~synchronize_rcu",
            "arch_remove_kprobe m0_fn+0x0 slot=null"
        ]
    );
    unreg(k0);
    assert_eq!(
        trace(),
        [
            "unregister_ftrace_function ftrace_ops = 0",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=1 reset=0 = 0",
            "~synchronize_rcu",
            "arch_remove_kprobe f1+0x0 slot=null"
        ]
    );
    // SAFETY: the image's m0 is live until the image is reset.
    assert_eq!(
        unsafe { (*sys::hd_m0()).refs },
        0,
        "module_put() for each probe"
    );
}

/// Module m0 and the kernel's init text through the driver's operations
/// (`module-load`, `module-init-done`, `module-unload`, `free-init`): the
/// same operations as this sequence of the host differential give the
/// lines hostdiff-c printed for it (its `> ` and `= RET` lines and, of
/// `check`, all but the `text` lines are the driver's); each operation
/// ends with `hd_rcu_quiesce()`, as the driver's:
/// `module-init-done m0`, `module-unload m0`, `module-load m0` (twice),
/// `reg K0 sym=m0_fn2`, `reg K1 sym=m0_init off=4`, `reg K2 sym=m0_bl`,
/// `reg K3 sym=init_fn`, `reg K5 sym=m0_fn` (all `pre=ok`), `optimize`,
/// `check`, `module-init-done m0`, `check`, `module-unload m0`, `check`,
/// `free-init` (twice), `reg K4 sym=init_fn off=4 pre=ok`, `check`,
/// `unregs K0 K1 K3 K5`, `check`; with the flags `flags K1`, `flags K0`,
/// `flags K5`, `flags K3` printed.
#[test]
fn model_module_and_init_text_operations_as_hostdiff_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let op = |f: &dyn Fn()| {
        f();
        sys::hd_rcu_quiesce();
        trace()
    };
    let check = || {
        sys::hd_text_check();
        trace()
    };
    let m0 = sys::hd_m0();
    assert_eq!(op(&sys::hd_module_init_done), ["not coming"]);
    assert_eq!(op(&sys::hd_module_unload), ["not loaded"]);
    assert!(op(&sys::hd_module_load).is_empty());
    assert_eq!(op(&sys::hd_module_load), ["already loaded"]);
    let k0 = kp_sym(0, c"m0_fn2", 0);
    let k1 = kp_sym(1, c"m0_init", 4);
    let k2 = kp_sym(2, c"m0_bl", 0);
    let k3 = kp_sym(3, c"init_fn", 0);
    let k5 = kp_sym(5, c"m0_fn", 0);
    for (p, ret, want) in [
        (
            k0,
            0,
            "perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page
            arch_prepare_kprobe m0_fn2+0x0 = 0 slot=page0+0x0
            arch_arm_kprobe m0_fn2+0x0
            perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page
            arch_prepare_optimized_kprobe m0_fn2+0x0 = 0 size=8 slot=page1+0x0
            arch_check_optimized_kprobe m0_fn2+0x0 = 0
            ~work queued",
        ),
        (
            k1,
            0,
            "arch_prepare_kprobe m0_init+0x4 = 0 slot=page0+0x10
            arch_arm_kprobe m0_init+0x4
            arch_prepare_optimized_kprobe m0_init+0x4 = 0 size=8 slot=page1+0x99
            arch_check_optimized_kprobe m0_init+0x4 = 0",
        ),
        // In m0's _kprobe_blacklist.
        (k2, -sys::EINVAL, ""),
        (
            k3,
            0,
            "arch_prepare_kprobe init_fn+0x0 = 0 slot=page0+0x20
            arch_arm_kprobe init_fn+0x0
            arch_prepare_optimized_kprobe init_fn+0x0 = 0 size=8 slot=page1+0x132
            arch_check_optimized_kprobe init_fn+0x0 = 0",
        ),
        (
            k5,
            0,
            "arch_prepare_kprobe_ftrace m0_fn+0x0 = 0
            ftrace_set_filter_ip ftrace_ops m0_fn+0x0 remove=0 reset=0 = 0
            register_ftrace_function ftrace_ops = 0",
        ),
    ] {
        assert_eq!(reg(p), ret);
        assert_eq!(op(&|| ()), lines(want));
    }
    assert_eq!(
        op(&sys::run_optimizer),
        [
            "~work run",
            "~synchronize_rcu_tasks",
            "arch_optimize_kprobes init_fn+0x0",
            "arch_optimize_kprobes m0_init+0x4",
            "arch_optimize_kprobes m0_fn2+0x0"
        ]
    );
    assert_eq!(
        check(),
        [
            "text jump init_fn+0x0 size=8",
            "text jump m0_init+0x4 size=8",
            "text jump m0_fn2+0x0 size=8"
        ]
    );
    // LIVE: the probe on the init text is gone (its text forgotten).
    assert_eq!(
        op(&sys::hd_module_init_done),
        [
            "arch_remove_optimized_kprobe m0_init+0x4 slot=page1+0x99",
            "arch_remove_kprobe m0_init+0x4 slot=page0+0x10"
        ]
    );
    assert_eq!(
        check(),
        [
            "text jump init_fn+0x0 size=8",
            "text jump m0_fn2+0x0 size=8"
        ]
    );
    assert_eq!(flags(k1), KPROBE_FLAG_GONE, "flags=0x1");
    // GOING: the probes on m0's core text are gone.
    let allocs = record(|r| r.allocs);
    assert_eq!(
        op(&sys::hd_module_unload),
        [
            "unregister_ftrace_function ftrace_ops = 0",
            "ftrace_set_filter_ip ftrace_ops m0_fn+0x0 remove=1 reset=0 = 0",
            "arch_remove_kprobe m0_fn+0x0 slot=null",
            "arch_remove_optimized_kprobe m0_fn2+0x0 slot=page1+0x0",
            "arch_remove_kprobe m0_fn2+0x0 slot=page0+0x0"
        ]
    );
    assert!(
        record(|r| r.allocs) < allocs,
        "m0's blacklist entries, kfree_rcu()'d, are freed by the end of the operation"
    );
    assert_eq!(check(), ["text jump init_fn+0x0 size=8"]);
    assert_eq!(
        flags(k0),
        KPROBE_FLAG_GONE | KPROBE_FLAG_ON_FUNC_ENTRY,
        "0x11"
    );
    assert_eq!(
        flags(k5),
        KPROBE_FLAG_GONE | KPROBE_FLAG_FTRACE | KPROBE_FLAG_ON_FUNC_ENTRY,
        "0x19"
    );
    // SAFETY: the image's m0 is live until the image is reset.
    assert_eq!(unsafe { (*m0).refs }, 0, "no `!module refs=N at unload`");
    assert_eq!(
        op(&sys::hd_free_init),
        [
            "arch_remove_optimized_kprobe init_fn+0x0 slot=page1+0x132",
            "arch_remove_kprobe init_fn+0x0 slot=page0+0x20"
        ]
    );
    assert_eq!(op(&sys::hd_free_init), ["already freed"]);
    let k4 = kp_sym(4, c"init_fn", 4);
    assert_eq!(reg(k4), -sys::EINVAL, "no longer kernel text");
    assert!(op(&|| ()).is_empty());
    assert_eq!(
        flags(k3),
        KPROBE_FLAG_GONE | KPROBE_FLAG_ON_FUNC_ENTRY,
        "0x11"
    );
    assert!(check().is_empty());
    let mut v = [k0, k1, k3, k5];
    // SAFETY: four registered (gone) test probes.
    unsafe { unregister_kprobes(v.as_mut_ptr(), 4) };
    assert_eq!(
        op(&|| ()),
        [
            "~synchronize_rcu",
            "arch_remove_optimized_kprobe m0_fn2+0x0 slot=null",
            "arch_remove_kprobe m0_fn2+0x0 slot=null",
            "arch_remove_optimized_kprobe m0_init+0x4 slot=null",
            "arch_remove_kprobe m0_init+0x4 slot=null",
            "arch_remove_optimized_kprobe init_fn+0x0 slot=null",
            "arch_remove_kprobe init_fn+0x0 slot=null",
            "arch_remove_kprobe m0_fn+0x0 slot=null"
        ]
    );
    assert!(check().is_empty());
}

/// model.c's `try_module_get()` fails while the module is GOING, and its
/// `module_put()` is fatal below zero.
#[test]
fn model_module_refs_as_model_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    sys::hd_module_load();
    let m = sys::hd_m0();
    // SAFETY: the image's live m0; the calls are balanced but the last.
    unsafe {
        assert!(sys::try_module_get(m));
        sys::module_put(m);
        (*m).state = sys::ModState::Going;
        assert!(!sys::try_module_get(m), "GOING");
        (*m).state = sys::ModState::Coming;
        assert_eq!((*m).refs, 0);
        let r = std::panic::catch_unwind(|| sys::module_put(m));
        assert!(r.is_err(), "module_put underflow");
        (*m).refs = 0;
    }
    sys::hd_module_unload();
    trace();
}

/// The lines of `text`, each trimmed, without empty ones (a trace
/// excerpt as hostdiff-c printed it, less its indent).
fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// `kprobes/list` with a module loaded and after it left (`%pS` of a gone
/// probe), and model.c's `kstrtobool()` and `proc_dointvec_minmax()`: the
/// same operations as this sequence of the host differential give the
/// lines hostdiff-c printed for it (run on it; its `> ` lines are the
/// driver's, and so are `= RET`, the `| ` prefix and `| end`, which this
/// test checks as the calls' results and the list's text):
/// `module-load m0`, `reg K0 sym=m0_fn2 off=4 pre=ok`, `reg K1 sym=f1
/// pre=ok post=ok`, `reg K2 sym=f2 off=8 pre=ok disabled`, `reg K3
/// sym=m0_fn pre=ok`, `dump-list`, `module-init-done m0`, `module-unload
/// m0`, `dump-list`, `debugfs-enabled t`, `f`, `x`, `on`,
/// `debugfs-read-enabled`, `sysctl-opt 1\n` (a backslash and an n),
/// `-1`, `2`, `01`, `unregs K0 K1 K2 K3`. The list is read without a
/// cred: the model shows addresses to every reader.
#[test]
fn model_list_and_writes_as_hostdiff_c() {
    static ZERO: c_int = 0;
    static ONE: c_int = 1;
    let _g = sys::exclusive();
    let _t = model_kernel();
    let op = |f: &dyn Fn()| {
        f();
        sys::hd_rcu_quiesce();
        trace()
    };
    sys::hd_module_load();
    let k0 = kp_sym(0, c"m0_fn2", 4);
    let k1 = kp_sym(1, c"f1", 0);
    let k2 = kp_sym(2, c"f2", 8);
    let k3 = kp_sym(3, c"m0_fn", 0);
    // SAFETY: live, unregistered test probes.
    unsafe {
        (*k1).post_handler = Some(post);
        (*k2).flags = KPROBE_FLAG_DISABLED;
    }
    for (p, want) in [
        (
            k0,
            "perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page
            arch_prepare_kprobe m0_fn2+0x4 = 0 slot=page0+0x0
            arch_arm_kprobe m0_fn2+0x4
            perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page
            arch_prepare_optimized_kprobe m0_fn2+0x4 = 0 size=8 slot=page1+0x0
            arch_check_optimized_kprobe m0_fn2+0x4 = 0
            ~work queued",
        ),
        (
            k1,
            "arch_prepare_kprobe_ftrace f1+0x0 = 0
            ftrace_set_filter_ip ipmodify_ops f1+0x0 remove=0 reset=0 = 0
            register_ftrace_function ipmodify_ops = 0",
        ),
        (
            k2,
            "arch_prepare_kprobe f2+0x8 = 0 slot=page0+0x10
            arch_prepare_optimized_kprobe f2+0x8 = 0 size=8 slot=page1+0x99",
        ),
        (
            k3,
            "arch_prepare_kprobe_ftrace m0_fn+0x0 = 0
            ftrace_set_filter_ip ftrace_ops m0_fn+0x0 remove=0 reset=0 = 0
            register_ftrace_function ftrace_ops = 0",
        ),
    ] {
        assert_eq!(reg(p), 0);
        assert_eq!(op(&|| ()), lines(want));
    }
    assert_eq!(
        lines(&crate::test_debugfs::list_text(false)),
        lines(
            "ffffffffc0000044  k  m0_fn2+0x4  m0 [OPTIMIZED]
            ffffffffc0000000  k  m0_fn+0x0  m0 [FTRACE]
            ffffffff81000040  k  f1+0x0    [FTRACE]
            ffffffff81000088  k  f2+0x8    [DISABLED]"
        )
    );
    assert!(op(&sys::hd_module_init_done).is_empty());
    assert_eq!(
        op(&sys::hd_module_unload),
        lines(
            "arch_remove_optimized_kprobe m0_fn2+0x4 slot=page1+0x0
            arch_remove_kprobe m0_fn2+0x4 slot=page0+0x0
            unregister_ftrace_function ftrace_ops = 0
            ftrace_set_filter_ip ftrace_ops m0_fn+0x0 remove=1 reset=0 = 0
            arch_remove_kprobe m0_fn+0x0 slot=null"
        )
    );
    assert_eq!(
        lines(&crate::test_debugfs::list_text(false)),
        lines(
            "ffffffffc0000044  k  0xffffffffc0000044 [GONE]
            ffffffffc0000000  k  0xffffffffc0000000 [GONE][FTRACE]
            ffffffff81000040  k  f1+0x0    [FTRACE]
            ffffffff81000088  k  f2+0x8    [DISABLED]"
        )
    );
    let enabled = |v: &str| {
        let r = write_enabled(v);
        sys::hd_rcu_quiesce();
        (r, trace())
    };
    assert_eq!(enabled("t"), (1, vec![]));
    assert_eq!(
        enabled("f"),
        (
            1,
            lines(
                "unregister_ftrace_function ipmodify_ops = 0
                ftrace_set_filter_ip ipmodify_ops f1+0x0 remove=1 reset=0 = 0
                log info: kprobes: Kprobes globally disabled"
            )
        )
    );
    assert_eq!(enabled("x"), (-sys::EINVAL as isize, vec![]));
    assert_eq!(
        enabled("on"),
        (
            2,
            lines(
                "ftrace_set_filter_ip ipmodify_ops f1+0x0 remove=0 reset=0 = 0
                register_ftrace_function ipmodify_ops = 0
                log info: kprobes: Kprobes globally enabled"
            )
        )
    );
    assert_eq!(read_enabled(), "1\n", "= 2 '1'");
    // The sysctl as the shim defines it: 0..1 (SYSCTL_ZERO, SYSCTL_ONE).
    let table = sys::CtlTable {
        data: (&raw mut crate::opt::sysctl_kprobes_optimization).cast(),
        extra1: (&raw const ZERO).cast_mut().cast(),
        extra2: (&raw const ONE).cast_mut().cast(),
        ..Default::default()
    };
    let sysctl = |v: &str| {
        let mut len = v.len();
        let mut ppos = 0;
        // SAFETY: a valid table and buffer.
        let r = unsafe {
            proc_kprobes_optimization_handler(
                &table,
                1,
                v.as_ptr() as *mut c_void,
                &mut len,
                &mut ppos,
            )
        };
        sys::hd_rcu_quiesce();
        (r, trace())
    };
    for v in ["1\\n", "-1", "2"] {
        assert_eq!(sysctl(v), (-sys::EINVAL, vec![]), "{v}");
    }
    assert_eq!(sysctl("01"), (0, vec![]));
    let mut v = [k0, k1, k2, k3];
    // SAFETY: four registered test probes.
    unsafe { unregister_kprobes(v.as_mut_ptr(), 4) };
    // hostdiff-c's second line is `ftrace_set_filter_ip ...`: the Rust core
    // batches unregister_kprobes() (docs/divergences.md, "Batched registration", one
    // `ftrace_set_filter_ips()` per ops), which the host differential
    // compares by its net effect (MODEL.md section 5).
    assert_eq!(
        op(&|| ()),
        lines(
            "unregister_ftrace_function ipmodify_ops = 0
            ftrace_set_filter_ips ipmodify_ops f1+0x0 remove=1 reset=0 = 0
            ~synchronize_rcu
            arch_remove_optimized_kprobe m0_fn2+0x4 slot=null
            arch_remove_kprobe m0_fn2+0x4 slot=null
            arch_remove_kprobe f1+0x0 slot=null
            arch_remove_optimized_kprobe f2+0x8 slot=page1+0x99
            arch_remove_kprobe f2+0x8 slot=page0+0x10
            arch_remove_kprobe m0_fn+0x0 slot=null"
        )
    );
}

/// model.c's `%pS` names a module's symbol with ` [m0]` (upstream's
/// `report_probe()` reaches it only for an address kallsyms cannot name,
/// which the model then cannot either: its format, read from model.c's
/// `seq_printf()`, is checked here on the simulation's own call).
#[test]
fn model_p_s_names_the_module() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let show = |a: usize| {
        let mut m = SeqFile::sim(false);
        // SAFETY: a live seq_file of this thread; C strings.
        unsafe {
            sys::seq_report_nosym(
                &mut m,
                a as *mut c_void,
                c"k".as_ptr().cast(),
                a as *mut c_void,
            )
        };
        m.text()
    };
    assert_eq!(
        show(sys::HD_M + 4),
        "ffffffffc0000004  k  0xffffffffc0000004 "
    );
    sys::hd_module_load();
    assert_eq!(
        show(sys::HD_M + 4),
        "ffffffffc0000004  k  m0_fn+0x4/0x40 [m0] "
    );
    assert_eq!(show(sys::HD_T + 0x44), "ffffffff81000044  k  f1+0x4/0x40 ");
    sys::hd_module_unload();
    sys::hd_rcu_quiesce();
    trace();
}

thread_local! {
    /// Where each `pre=hit:LOC` probe's handler goes: (probe id, LOC).
    static HIT_TARGETS: RefCell<Vec<(u32, usize)>> = const { RefCell::new(Vec::new()) };
}

/// The driver's `pre=ok` handler: `pre K3`, returns 0.
unsafe extern "C" fn pre_ok(p: *mut Kprobe, _r: *mut PtRegs) -> c_int {
    sys::hd_trace(format!("pre K{}", id(p)));
    0
}

/// The driver's `pre=ret1` handler: `pre K3 = 1`, returns 1.
unsafe extern "C" fn pre_ret1(p: *mut Kprobe, _r: *mut PtRegs) -> c_int {
    sys::hd_trace(format!("pre K{} = 1", id(p)));
    1
}

/// The driver's `pre=hit:LOC` handler: `pre K3 calls LOC`, executes LOC
/// (nested), returns 0.
unsafe extern "C" fn pre_hit(p: *mut Kprobe, _r: *mut PtRegs) -> c_int {
    let k = id(p);
    let a = HIT_TARGETS.with(|t| t.borrow().iter().find(|x| x.0 == k).map(|x| x.1));
    let a = a.expect("a pre=hit probe has a target");
    sys::hd_trace(format!("pre K{k} calls {}", sys::hd_sym(a)));
    sys::hd_hit(a);
    0
}

/// The driver's `post=ok` handler: `post K3`.
unsafe extern "C" fn post_ok(p: *mut Kprobe, _r: *mut PtRegs, _f: c_ulong) {
    sys::hd_trace(format!("post K{}", id(p)));
}

/// The trap paths (x86's int3, optimized and ftrace handlers, as arch.c
/// runs them on `hit`): the same operations as this sequence of the host
/// differential give the lines hostdiff-c printed for it (run on it; its
/// `> `, `= RET` and `nmissed=N` lines are the driver's, the handler lines
/// are written by this test's handlers as the driver's are, and of
/// `check` only the `text` lines are the simulation's; the registrations'
/// lines, which the tests above check, are dropped here):
/// `reg K0 sym=f2 off=4 pre=ok`, `hit f2+4`, `optimize`, `hit f2+4`, `hit
/// f2+8`, `reg K6 sym=f3 off=12 pre=ok post=ok`, `hit f3+12`, `reg K1
/// sym=f0 pre=ret1`, `reg K2 sym=f1 pre=ok post=ok`, `hit f0`, `hit f1`,
/// `hit f2`, `hit blacklisted_fn`, `reg K3 sym=f4 off=4 pre=hit:f2+4`,
/// `hit f4+4`, `nmissed K0`, `reg K4 sym=f9 pre=hit:f9`, `hit f9`,
/// `nmissed K4`, `disable K1`, `hit f0`, `hit 0xffffffff81000300`, `reg K5
/// sym=f3 off=4 pre=hit:f3+4`, `hit f3+4`, `nmissed K5`, `disable K0`,
/// `hit f2+4`, `check`.
#[test]
fn model_trap_paths_as_hostdiff_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let op = |f: &dyn Fn()| {
        f();
        sys::hd_rcu_quiesce();
        trace()
    };
    let at = |sym: &str, off: usize| sys::hd_resolve(&format!("{sym}+{off}")).unwrap();
    let hit = |sym: &'static str, off: usize| op(&|| sys::hd_hit(at(sym, off)));
    type Pre = unsafe extern "C" fn(*mut Kprobe, *mut PtRegs) -> c_int;
    let probe = |k: u32, sym: &'static core::ffi::CStr, off: u32, pre: Pre, post: bool| {
        let p = kp_sym(k, sym, off);
        // SAFETY: a live, unregistered test probe.
        unsafe {
            (*p).pre_handler = Some(pre);
            (*p).post_handler = if post { Some(post_ok) } else { None };
        }
        p
    };
    let nmissed = |p: *mut Kprobe| {
        // SAFETY: a live test probe, read by this thread alone.
        unsafe { (*p).nmissed }
    };
    let k0 = probe(0, c"f2", 4, pre_ok, false);
    assert_eq!(reg(k0), 0);
    trace();
    assert_eq!(hit("f2", 4), ["trap int3 f2+0x4", "pre K0"]);
    sys::run_optimizer();
    trace();
    assert_eq!(hit("f2", 4), ["trap jump f2+0x4", "pre K0"]);
    assert_eq!(
        hit("f2", 8),
        ["trap none (inside optimized jump of f2+0x4)"]
    );
    let k6 = probe(6, c"f3", 12, pre_ok, true);
    assert_eq!(reg(k6), 0);
    trace();
    assert_eq!(hit("f3", 12), ["trap int3 f3+0xc", "pre K6", "post K6"]);
    let k1 = probe(1, c"f0", 0, pre_ret1, false);
    let k2 = probe(2, c"f1", 0, pre_ok, true);
    assert_eq!((reg(k1), reg(k2)), (0, 0));
    trace();
    assert_eq!(
        hit("f0", 0),
        ["trap ftrace ftrace_ops f0+0x0", "pre K1 = 1"]
    );
    assert_eq!(
        hit("f1", 0),
        ["trap ftrace ipmodify_ops f1+0x0", "pre K2", "post K2"]
    );
    assert_eq!(hit("f2", 0), ["trap none f2+0x0"]);
    assert_eq!(
        hit("blacklisted_fn", 0),
        ["trap none blacklisted_fn+0x0"],
        "an ftrace site no filter has"
    );
    // A probe whose handler executes a probed location (`pre=hit:LOC`),
    // hit: the nested hit counts a miss on the probe running there.
    let nested =
        |k: u32, sym: &'static core::ffi::CStr, off: u32, to: (&str, usize), want: [&str; 3]| {
            HIT_TARGETS.with(|t| t.borrow_mut().push((k, at(to.0, to.1))));
            let p = probe(k, sym, off, pre_hit, false);
            assert_eq!(reg(p), 0);
            trace();
            assert_eq!(hit(sym.to_str().unwrap(), off as usize), want);
            p
        };
    let k3 = nested(
        3,
        c"f4",
        4,
        ("f2", 4),
        [
            "trap int3 f4+0x4",
            "pre K3 calls f2+0x4",
            "trap jump f2+0x4",
        ],
    );
    assert_eq!(nmissed(k0), 1, "nmissed=1");
    let k4 = nested(
        4,
        c"f9",
        0,
        ("f9", 0),
        [
            "trap ftrace ftrace_ops f9+0x0",
            "pre K4 calls f9+0x0",
            "trap ftrace ftrace_ops f9+0x0",
        ],
    );
    assert_eq!(nmissed(k4), 1, "nmissed=1");
    // SAFETY: a registered test probe.
    assert_eq!(unsafe { disable_kprobe(k1) }, 0);
    assert_eq!(
        op(&|| ()),
        ["ftrace_set_filter_ip ftrace_ops f0+0x0 remove=1 reset=0 = 0"]
    );
    assert_eq!(hit("f0", 0), ["trap none f0+0x0"]);
    assert_eq!(
        op(&|| sys::hd_hit(0xffff_ffff_8100_0300)),
        ["trap none 0xffffffff81000300"]
    );
    let k5 = nested(
        5,
        c"f3",
        4,
        ("f3", 4),
        [
            "trap int3 f3+0x4",
            "pre K5 calls f3+0x4",
            "trap int3 f3+0x4",
        ],
    );
    assert_eq!(nmissed(k5), 1, "nmissed=1");
    // SAFETY: a registered test probe.
    assert_eq!(unsafe { disable_kprobe(k0) }, 0);
    assert_eq!(op(&|| ()), ["~work queued"]);
    assert_eq!(hit("f2", 4), ["trap jump f2+0x4"], "disabled: nothing runs");
    sys::hd_text_check();
    assert_eq!(
        trace(),
        [
            "text int3 f3+0x4",
            "text int3 f3+0xc",
            "text int3 f4+0x4",
            "text jump f2+0x4 size=8"
        ]
    );
    // The cleanup (gen.py's tail): the aggregates are freed.
    let mut v = [k0, k1, k2, k3, k4, k5, k6];
    // SAFETY: seven registered test probes.
    unsafe { unregister_kprobes(v.as_mut_ptr(), 7) };
    op(&sys::run_optimizer);
    sys::hd_text_check();
    assert!(trace().is_empty(), "nothing left in the text");
}

/// The simulated x86 writes an int3 for `p` (live, not registered) by
/// itself, under the locks the core would hold: text the core never
/// leaves (upstream does, MODEL.md section 5).
fn arm_directly(p: *mut Kprobe) {
    arch(|a| {
        a.kprobe_mutex = true;
        a.cpus_read = 1;
        a.text_mutex = true;
    });
    // SAFETY: a live, unregistered test probe, only read by the arch.
    unsafe { sys::arch_arm_kprobe(p) };
    arch(|a| {
        a.kprobe_mutex = false;
        a.cpus_read = 0;
        a.text_mutex = false;
    });
}

/// arch.c's `!int3 without kprobe` line: an int3 in the text that no
/// probe is hashed at (written here by the simulated x86 directly; the
/// core never leaves one, intended divergence 6, docs/divergences.md).
#[test]
fn model_int3_without_a_kprobe_is_traced() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let p = kp(9, HD_F2 + 4, false);
    arm_directly(p);
    trace();
    sys::hd_hit(HD_F2 + 4);
    assert_eq!(trace(), ["trap int3 f2+0x4", "!int3 without kprobe f2+0x4"]);
    sys::hd_text_forget(HD_F2, HD_F2 + 0x40);
}

/// The driver's check after `kprobes/enabled` = 0 (`hd_text_armed_note()`,
/// MODEL.md section 5, finding 6): the same operations as this sequence
/// of the host differential give the lines hostdiff-c printed for it (run
/// on it; `= RET` is the driver's, and of `check` only the `text` lines
/// are the simulation's): `reg K0 sym=f2 off=4 pre=ok`, `optimize`, `reg
/// K1 sym=f3 off=12 pre=ok`, `reg K2 sym=f0 pre=ok`, `debugfs-enabled 0`
/// (nothing stays armed: no note), `check`, `debugfs-enabled 1`, `check`.
/// Then the note on its own while kprobes are on (not a driver step): an
/// int3 or a jump of an enabled probe is armed, a disabled one is not.
#[test]
fn model_armed_note_after_kprobes_enabled_0() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let op = |f: &dyn Fn()| {
        f();
        sys::hd_rcu_quiesce();
        trace()
    };
    // The driver's `debugfs-enabled V`: the note when the write succeeded
    // and kprobes are now off.
    let enabled = |v: &str| {
        let r = write_enabled(v);
        if r == v.len() as isize && read_enabled() == "0\n" {
            sys::hd_text_armed_note();
        }
        sys::hd_rcu_quiesce();
        (r, trace())
    };
    let check = || {
        sys::hd_text_check();
        trace()
    };
    let k0 = kp_sym(0, c"f2", 4);
    let k1 = kp_sym(1, c"f3", 12);
    let k2 = kp_sym(2, c"f0", 0);
    assert_eq!(reg(k0), 0);
    op(&sys::run_optimizer);
    assert_eq!((reg(k1), reg(k2)), (0, 0));
    trace();
    assert_eq!(
        enabled("0"),
        (
            1,
            lines(
                "unregister_ftrace_function ftrace_ops = 0
                ftrace_set_filter_ip ftrace_ops f0+0x0 remove=1 reset=0 = 0
                arch_unoptimize_kprobe f2+0x4
                arch_disarm_kprobe f2+0x4
                arch_disarm_kprobe f3+0xc
                log info: kprobes: Kprobes globally disabled"
            )
        )
    );
    assert!(check().is_empty());
    assert_eq!(
        enabled("1"),
        (
            1,
            lines(
                "ftrace_set_filter_ip ftrace_ops f0+0x0 remove=0 reset=0 = 0
                register_ftrace_function ftrace_ops = 0
                arch_arm_kprobe f2+0x4
                arch_check_optimized_kprobe f2+0x4 = 0
                ~work queued
                arch_arm_kprobe f3+0xc
                log info: kprobes: Kprobes globally enabled"
            )
        )
    );
    assert_eq!(check(), ["text int3 f2+0x4", "text int3 f3+0xc"]);
    // The note itself.
    op(&sys::run_optimizer);
    sys::hd_text_armed_note();
    assert_eq!(
        trace(),
        [
            "!kprobes/enabled is 0 but the int3 at f3+0xc stays armed",
            "!kprobes/enabled is 0 but the jump at f2+0x4 stays armed"
        ]
    );
    // SAFETY: a registered test probe.
    assert_eq!(unsafe { disable_kprobe(k1) }, 0);
    trace();
    sys::hd_text_armed_note();
    assert_eq!(
        trace(),
        ["!kprobes/enabled is 0 but the jump at f2+0x4 stays armed"]
    );
    // An int3 under a disabled aggregate is idle (upstream leaves such
    // ones, finding 6; here the simulated x86 writes it directly).
    let k3 = kp_sym(3, c"f3", 12);
    assert_eq!(reg(k3), 0);
    // SAFETY: a registered test probe (now on an aggregate with K1).
    assert_eq!(unsafe { disable_kprobe(k3) }, 0);
    trace();
    let f3_12 = addr(k3);
    let p = kp(9, f3_12, false);
    arm_directly(p);
    trace();
    sys::hd_text_armed_note();
    assert_eq!(
        trace(),
        ["!kprobes/enabled is 0 but the jump at f2+0x4 stays armed"]
    );
    sys::hd_text_forget(f3_12, f3_12 + 1);
    // The cleanup: the aggregates are freed.
    let mut v = [k0, k1, k2, k3];
    // SAFETY: four registered test probes.
    unsafe { unregister_kprobes(v.as_mut_ptr(), 4) };
    op(&sys::run_optimizer);
}

thread_local! {
    /// The driver's kretprobes of a test: (address, id, entry's return).
    static KRETS: RefCell<Vec<(usize, u32, c_int)>> = const { RefCell::new(Vec::new()) };
    /// The driver's `hd_seq`: entry handler calls so far.
    static KRET_SEQ: RefCell<u64> = const { RefCell::new(0) };
}

/// `get_kretprobe(ri)` and its driver id and entry return value.
///
/// # Safety
/// `ri` is an instance of a live kretprobe of [`KRETS`].
unsafe fn kret_of(ri: *mut KretprobeInstance) -> (*mut Kretprobe, u32, c_int) {
    // SAFETY: the instance's rethook is live and its `data` is the
    // kretprobe (as `get_kretprobe()` reads it).
    let rp = unsafe { (*(*ri).node.rethook).data }.cast::<Kretprobe>();
    let (id, ret) = KRETS.with(|k| {
        let k = k.borrow();
        let e = k
            .iter()
            .find(|e| e.0 == rp as usize)
            .expect("a driver kretprobe");
        (e.1, e.2)
    });
    (rp, id, ret)
}

/// The driver's kretprobe entry handler: `entry R1 = RET data=SEQ`, the
/// sequence number stored in the instance's data if it has 8 bytes.
unsafe extern "C" fn kret_entry(ri: *mut KretprobeInstance, _r: *mut PtRegs) -> c_int {
    // SAFETY: called for an instance of a driver kretprobe.
    let (rp, id, ret) = unsafe { kret_of(ri) };
    let seq = KRET_SEQ.with(|s| {
        *s.borrow_mut() += 1;
        *s.borrow()
    });
    // SAFETY: `rp` is live; the data area has `data_size` bytes, written
    // through a raw pointer to the zero-length `data` member.
    unsafe {
        if (*rp).data_size >= 8 {
            (&raw mut (*ri).data).cast::<u64>().write_unaligned(seq);
        }
    }
    sys::hd_trace(format!("entry R{id} = {ret} data={seq}"));
    ret
}

/// The driver's kretprobe return handler: `return R1 data=N` (or `return
/// R1` without 8 bytes of data).
unsafe extern "C" fn kret_return(ri: *mut KretprobeInstance, _r: *mut PtRegs) -> c_int {
    // SAFETY: called for an instance of a driver kretprobe.
    let (rp, id, _) = unsafe { kret_of(ri) };
    // SAFETY: as in `kret_entry()`.
    if unsafe { (*rp).data_size } >= 8 {
        // SAFETY: as in `kret_entry()`.
        let d = unsafe { (&raw const (*ri).data).cast::<u64>().read_unaligned() };
        sys::hd_trace(format!("return R{id} data={d}"));
    } else {
        sys::hd_trace(format!("return R{id}"));
    }
    0
}

/// model.c's rethook: `rethook_alloc()`'s checks, entry and return
/// handlers on frames, misses, the driver's `ret` (`hd_rethook_return()`),
/// and a rethook retired after `unregister_kretprobe()`: the same
/// operations as this sequence of the host differential give the lines
/// hostdiff-c printed for it (run on it; `> `, `= RET`, `nmissed=...`,
/// `no hooked frame` and, of `check`, all but the `text` lines are the
/// driver's; the handler lines are written by this test's handlers as the
/// driver's): `kret-reg R0 sym=f9 handler=ok maxactive=2 data=8
/// entry=ok`, `kret-reg R1 sym=f2 handler=ok maxactive=1`, `kret-reg R2
/// sym=f1 maxactive=16777217`, `kret-reg R3 sym=f0 handler=ok
/// data=70000`, `hit f9`, `hit f2`, `hit f9`, `hit f9`, `hit f2`,
/// `nmissed R0`, `nmissed R1`, five `ret`, `kret-reg R4 sym=f4
/// handler=ok entry=ret1`, `hit f4`, `ret`, `hit f9`, `kret-unreg R0`,
/// `ret`, `hit f9`, `ret`, `check`, `kret-unreg-live` (R1, R4), `check`.
#[test]
fn model_rethook_frames_as_hostdiff_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let op = |f: &dyn Fn()| {
        f();
        sys::hd_rcu_quiesce();
        trace()
    };
    let hit = |a: usize| {
        op(&|| {
            sys::hd_new_frame();
            sys::hd_hit(a);
        })
    };
    let ret = || {
        op(&|| {
            if sys::hd_rethook_return() != 0 {
                sys::hd_trace("no hooked frame".into());
            }
        })
    };
    let (f2, f4, f9) = (HD_F2, sys::HD_T + 0x100, sys::HD_T + 0x250);
    let kret = |id: u32,
                sym: &'static core::ffi::CStr,
                maxactive: c_int,
                data: usize,
                entry: Option<c_int>,
                handler: bool| {
        // SAFETY: all-zero is a valid struct kretprobe.
        let mut rp: Box<Kretprobe> = Box::new(unsafe { core::mem::zeroed() });
        rp.kp.symbol_name = sym.as_ptr().cast();
        rp.maxactive = maxactive;
        rp.data_size = data;
        rp.entry_handler = entry.map(|_| kret_entry as _);
        rp.handler = if handler { Some(kret_return) } else { None };
        let rp = own(rp);
        KRETS.with(|k| k.borrow_mut().push((rp as usize, id, entry.unwrap_or(0))));
        rp
    };
    let reg = |rp: *mut Kretprobe| {
        // SAFETY: a live, unregistered test kretprobe.
        let r = unsafe { register_kretprobe(rp) };
        (r, op(&|| ()))
    };
    let r0 = kret(0, c"f9", 2, 8, Some(0), true);
    let r1 = kret(1, c"f2", 1, 0, None, true);
    let r2 = kret(2, c"f1", 16777217, 0, None, false);
    let r3 = kret(3, c"f0", 0, 70000, None, true);
    assert_eq!(
        reg(r0),
        (
            0,
            lines(
                "rethook_alloc num=2 = 0
                arch_prepare_kprobe_ftrace f9+0x0 = 0
                ftrace_set_filter_ip ftrace_ops f9+0x0 remove=0 reset=0 = 0
                register_ftrace_function ftrace_ops = 0"
            )
        )
    );
    assert_eq!(
        reg(r1),
        (
            0,
            lines(
                "rethook_alloc num=1 = 0
                perf_event_ksymbol type=2 page0+0x0 len=4096 register kprobe_insn_page
                arch_prepare_kprobe f2+0x0 = 0 slot=page0+0x0
                arch_arm_kprobe f2+0x0
                perf_event_ksymbol type=2 page1+0x0 len=4096 register kprobe_optinsn_page
                arch_prepare_optimized_kprobe f2+0x0 = 0 size=8 slot=page1+0x0
                arch_check_optimized_kprobe f2+0x0 = 0
                ~work queued"
            )
        )
    );
    assert_eq!(
        reg(r2),
        (-sys::ENOMEM, lines("rethook_alloc num=16777217 = -12"))
    );
    assert_eq!(reg(r3), (-7, vec![]), "-E2BIG before rethook_alloc()");
    assert_eq!(
        hit(f9),
        ["trap ftrace ftrace_ops f9+0x0", "entry R0 = 0 data=1"]
    );
    assert_eq!(hit(f2), ["trap int3 f2+0x0"]);
    assert_eq!(
        hit(f9),
        ["trap ftrace ftrace_ops f9+0x0", "entry R0 = 0 data=2"]
    );
    assert_eq!(hit(f9), ["trap ftrace ftrace_ops f9+0x0"], "maxactive=2");
    assert_eq!(hit(f2), ["trap int3 f2+0x0"], "maxactive=1");
    // SAFETY: live test kretprobes, read by this thread alone.
    unsafe {
        assert_eq!(((*r0).nmissed, (*r0).kp.nmissed), (1, 0));
        assert_eq!(((*r1).nmissed, (*r1).kp.nmissed), (1, 0));
    }
    assert_eq!(ret(), ["return R0 data=2"]);
    assert_eq!(ret(), ["return R1"]);
    assert_eq!(ret(), ["return R0 data=1"]);
    assert_eq!(ret(), ["no hooked frame"]);
    assert_eq!(ret(), ["no hooked frame"]);
    let r4 = kret(4, c"f4", 0, 0, Some(1), true);
    assert_eq!(
        reg(r4),
        (
            0,
            lines(
                "rethook_alloc num=10 = 0
                arch_prepare_kprobe_ftrace f4+0x0 = 0
                ftrace_set_filter_ip ftrace_ops f4+0x0 remove=0 reset=0 = 0"
            )
        )
    );
    assert_eq!(
        hit(f4),
        ["trap ftrace ftrace_ops f4+0x0", "entry R4 = 1 data=3"]
    );
    assert_eq!(ret(), ["no hooked frame"], "entry returned 1: not hooked");
    assert_eq!(
        hit(f9),
        ["trap ftrace ftrace_ops f9+0x0", "entry R0 = 0 data=4"]
    );
    // SAFETY: a registered test kretprobe.
    unsafe { unregister_kretprobe(r0) };
    assert_eq!(
        op(&|| ()),
        lines(
            "ftrace_set_filter_ip ftrace_ops f9+0x0 remove=1 reset=0 = 0
            rethook_free
            ~synchronize_rcu
            arch_remove_kprobe f9+0x0 slot=null"
        )
    );
    assert!(
        ret().is_empty(),
        "the handler is gone: the node is recycled"
    );
    assert_eq!(hit(f9), ["trap none f9+0x0"]);
    assert_eq!(ret(), ["no hooked frame"]);
    sys::hd_text_check();
    assert_eq!(trace(), ["text int3 f2+0x0"]);
    let mut v = [r1, r4];
    // SAFETY: two registered test kretprobes.
    unsafe { unregister_kretprobes(v.as_mut_ptr(), 2) };
    // hostdiff-c's lines 3 and 4 are `unregister_ftrace_function` and
    // `ftrace_set_filter_ip ... f4`, before R4's `rethook_free`: the Rust
    // core batches unregister_kretprobes() (docs/divergences.md, "Batched
    // registration": one `ftrace_set_filter_ips()` per ops after every
    // member's first half), which the host differential compares by its
    // net effect (MODEL.md section 5).
    assert_eq!(
        op(&|| ()),
        lines(
            "arch_disarm_kprobe f2+0x0
            rethook_free
            rethook_free
            unregister_ftrace_function ftrace_ops = 0
            ftrace_set_filter_ips ftrace_ops f4+0x0 remove=1 reset=0 = 0
            ~synchronize_rcu
            arch_remove_optimized_kprobe f2+0x0 slot=page1+0x0
            arch_remove_kprobe f2+0x0 slot=page0+0x0
            arch_remove_kprobe f4+0x0 slot=null"
        )
    );
    sys::hd_text_check();
    assert!(trace().is_empty());
}

/// The driver's locations (`hd_resolve()`): the same operations as this
/// sequence of the host differential give the lines hostdiff-c printed
/// for it (run on it; the driver's `flags` lines print the addresses
/// checked here): `reg K0 addr=f2+010 pre=ok` (octal), `reg K1
/// addr=f2+0x0c pre=ok`, `reg K2 addr=0xffffffff81000090 pre=ok`, `hit
/// m0_fn2+4` (m0 not loaded: named all the same), `hit f9+48` (past f9),
/// `hit __pfx_f9`, `hit f2+0x10zz` (strtoul stops at `z`), `hit 0x0x5`,
/// `hit f2+-4`.
#[test]
fn model_locations_as_hostdiff_c() {
    let _g = sys::exclusive();
    let _t = model_kernel();
    let r = |s: &str| sys::hd_resolve(s).unwrap();
    let hit = |s: &str| {
        sys::hd_new_frame();
        sys::hd_hit(r(s));
        sys::hd_rcu_quiesce();
        trace()
    };
    let ps: Vec<*mut Kprobe> = ["f2+010", "f2+0x0c", "0xffffffff81000090"]
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let p = kp(k as u32, r(s), false);
            // SAFETY: a live, unregistered test probe.
            unsafe { (*p).pre_handler = Some(pre_ok) };
            assert_eq!(reg(p), 0);
            p
        })
        .collect();
    trace();
    let names: Vec<String> = ps.iter().map(|&p| sys::hd_sym(addr(p))).collect();
    assert_eq!(
        names,
        ["f2+0x8", "f2+0xc", "f2+0x10"],
        "flags K0..K2's addr="
    );
    assert_eq!(hit("m0_fn2+4"), ["trap none m0_fn2+0x4"]);
    assert_eq!(hit("f9+48"), ["trap none blacklisted_fn.cold+0x0"]);
    assert_eq!(hit("__pfx_f9"), ["trap none __pfx_f9+0x0"]);
    assert_eq!(hit("f2+0x10zz"), ["trap int3 f2+0x10", "pre K2"]);
    // `hit 0x0x5` and `hit f2+-4` (hostdiff-c: `trap none 0x0`, `trap none
    // f1+0x3c`).
    assert_eq!(hit("0x0x5"), ["trap none 0x0"], "strtoul stops at the x");
    assert_eq!(hit("f2+-4"), ["trap none f1+0x3c"], "strtoul negates");
    assert_eq!(sys::hd_resolve("f99"), None, "the driver's usage error");
    let mut v = ps;
    // SAFETY: three registered test probes.
    unsafe { unregister_kprobes(v.as_mut_ptr(), 3) };
    sys::run_optimizer();
    sys::hd_rcu_quiesce();
}

#[test]
fn ftrace_arming_failure_unhashes_and_returns_the_error() {
    let _g = sys::exclusive();
    let _t = kernel();
    arch(|a| a.ftrace_register_fail = Some(-sys::EBUSY_SIM));
    let p = kp(1, F1, false);
    assert_eq!(reg(p), -sys::EBUSY_SIM);
    assert!(hashed(F1).is_null());
    assert_eq!(
        events(),
        [
            "arch_prepare_kprobe_ftrace f1+0x0 = 0",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=0 reset=0 = 0",
            &format!("register_ftrace_function ftrace_ops = {}", -sys::EBUSY_SIM),
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=1 reset=0 = 0"
        ]
    );
    assert_eq!(reg(p), 0, "works once ftrace does");
    unreg(p);
}

#[test]
fn register_kprobes_rolls_back_and_rejects_num_0() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (a, b, c) = (
        kp(1, F0 + 4, false),
        kp(2, F0 + 12, false),
        kp(3, BL, false),
    );
    let mut v: [*mut Kprobe; 3] = [a, b, c];
    // SAFETY: valid probe array.
    unsafe {
        assert_eq!(register_kprobes(v.as_mut_ptr(), 0), -sys::EINVAL);
        assert_eq!(register_kprobes(v.as_mut_ptr(), -1), -sys::EINVAL);
        assert_eq!(register_kprobes(v.as_mut_ptr(), 3), -sys::EINVAL);
        assert!(
            hashed(F0 + 4).is_null() && hashed(F0 + 12).is_null(),
            "rolled back"
        );
        assert_eq!(register_kprobes(v.as_mut_ptr(), 2), 0);
        assert!(!hashed(F0 + 4).is_null() && !hashed(F0 + 12).is_null());
        unregister_kprobes(v.as_mut_ptr(), 0);
        assert!(!hashed(F0 + 4).is_null());
        unregister_kprobes(v.as_mut_ptr(), 2);
        assert!(hashed(F0 + 4).is_null() && hashed(F0 + 12).is_null());
    }
    // One grace period for the whole batch.
    let g = record(|r| r.grace_periods);
    trace();
    let mut v: Vec<*mut Kprobe> = (0..10)
        .map(|i| kp(10 + i, F0 + 0x20 + i as usize, false))
        .collect();
    // SAFETY: valid probe array.
    unsafe {
        assert_eq!(register_kprobes(v.as_mut_ptr(), 10), 0);
        unregister_kprobes(v.as_mut_ptr(), 10);
    }
    assert_eq!(record(|r| r.grace_periods), g + 1);
    assert_eq!(
        trace().iter().filter(|l| *l == "~synchronize_rcu").count(),
        1,
        "traced as model.c does"
    );
}

#[test]
fn aggregate_allocation_failure_is_enomem_and_keeps_the_first_probe() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p1, p2) = (kp(1, F0 + 4, false), kp(2, F0 + 4, false));
    assert_eq!(reg(p1), 0);
    record(|r| r.fail_kmalloc = 1);
    assert_eq!(reg(p2), -sys::ENOMEM);
    assert_eq!(hashed(F0 + 4), p1);
    hit(F0 + 4);
    assert_eq!(calls(), ["pre1"]);
    unreg(p1);
}

unsafe extern "C" fn ret_handler(ri: *mut KretprobeInstance, _r: *mut PtRegs) -> c_int {
    // SAFETY: the instance's data area holds a u32 when data_size >= 4; it
    // is read through a raw pointer to the zero-length `data` member, which
    // keeps the provenance of the whole instance (a reference to `data`
    // would cover no bytes).
    let d = unsafe { (&raw const (*ri).data).cast::<u32>().read_unaligned() };
    CALLS.with(|c| c.borrow_mut().push(format!("ret{d}")));
    0
}

thread_local! {
    static ENTRY_RET: RefCell<c_int> = const { RefCell::new(0) };
}

unsafe extern "C" fn entry_handler(ri: *mut KretprobeInstance, _r: *mut PtRegs) -> c_int {
    let n = CALLS.with(|c| c.borrow().len()) as u32 + 40;
    // SAFETY: the instance has `data_size` (4) bytes of data, written
    // through a raw pointer as in `ret_handler()`.
    unsafe { (&raw mut (*ri).data).cast::<u32>().write_unaligned(n) };
    CALLS.with(|c| c.borrow_mut().push(format!("entry{n}")));
    ENTRY_RET.with(|e| *e.borrow())
}

fn krp(addr: usize) -> *mut Kretprobe {
    // SAFETY: all-zero is a valid struct kretprobe.
    let mut rp: Box<Kretprobe> = Box::new(unsafe { core::mem::zeroed() });
    rp.kp.addr = addr as *mut KprobeOpcode;
    rp.handler = Some(ret_handler);
    rp.entry_handler = Some(entry_handler);
    rp.data_size = 4;
    own(rp)
}

#[test]
fn kretprobe_pairs_entry_and_return_with_data_and_counts_misses() {
    let _g = sys::exclusive();
    let _t = kernel();
    let a0 = allocs();
    let rp = krp(REC);
    // SAFETY: test kretprobes live until the end of the test and are only
    // reached through their raw pointers.
    unsafe {
        (*rp).maxactive = 1;
        assert_eq!(register_kretprobe(rp), 0);
        // A recursive function: the inner call finds no free instance.
        hit(REC);
        hit(REC);
        assert_eq!((*rp).nmissed, 1);
        let mut regs = PtRegs::default();
        assert!(sys::function_return(&mut regs));
        assert!(!sys::function_return(&mut regs), "only one was hooked");
        assert_eq!(calls(), ["entry40", "ret40"]);
        // entry_handler returning non-zero: no return handler.
        ENTRY_RET.with(|e| *e.borrow_mut() = 1);
        hit(REC);
        assert!(!sys::function_return(&mut regs));
        assert_eq!(calls(), ["entry40"]);
        ENTRY_RET.with(|e| *e.borrow_mut() = 0);
        unregister_kretprobe(rp);
        assert!(
            (*rp).rh.is_null(),
            "cleared after the grace period (intended divergence)"
        );
        // Unregistering again, or a never-registered kretprobe, is harmless
        // here (upstream: double rethook_free / NULL dereference).
        unregister_kretprobe(rp);
        let never = krp(REC);
        unregister_kretprobe(never);
    }
    assert_eq!(allocs(), a0, "rethook and its instances freed");
}

/// `kprobes.expedited_gp`: unregistration waits with `synchronize_rcu()`
/// (upstream's) by default and with `synchronize_rcu_expedited()` when the
/// parameter is set; one grace period per batch either way.
#[test]
fn unregistration_grace_period_follows_kprobes_expedited_gp() {
    let _g = sys::exclusive();
    let _t = kernel();
    let gps = || record(|r| (r.grace_periods, r.expedited_grace_periods));
    for expedited in [false, true] {
        crate::rcu_policy::set_expedited(expedited);
        let mut v: Vec<*mut Kprobe> = (0..3)
            .map(|i| kp(20 + i, F0 + 0x20 + i as usize, false))
            .collect();
        let rp = krp(REC);
        let (g0, e0) = gps();
        // SAFETY: test probes live until the end of the test and are only
        // reached through their raw pointers.
        unsafe {
            assert_eq!(register_kprobes(v.as_mut_ptr(), 3), 0);
            assert_eq!(register_kretprobe(rp), 0);
            assert_eq!(gps(), (g0, e0), "registration waits for none");
            unregister_kprobes(v.as_mut_ptr(), 3);
            unregister_kretprobe(rp);
        }
        let e = if expedited { 2 } else { 0 };
        assert_eq!(gps(), (g0 + 2, e0 + e), "expedited_gp={expedited}");
    }
    crate::rcu_policy::set_expedited(false);
}

#[test]
fn kretprobe_defaults_and_errors() {
    let _g = sys::exclusive();
    let _t = kernel();
    // SAFETY: test kretprobes live until the end of the test and are only
    // reached through their raw pointers.
    unsafe {
        let rp = krp(REC);
        assert_eq!(register_kretprobe(rp), 0);
        assert_eq!((*rp).maxactive, 10, "max(10, 2 * possible CPUs (4))");
        assert!((*rp).kp.post_handler.is_none());
        unregister_kretprobe(rp);
        arch(|a| a.possible_cpus = 8);
        let rp = krp(REC);
        assert_eq!(register_kretprobe(rp), 0);
        assert_eq!((*rp).maxactive, 16);
        unregister_kretprobe(rp);
        let rp = krp(REC + 4);
        assert_eq!(
            register_kretprobe(rp),
            -sys::EINVAL,
            "not at function entry"
        );
        let rp = krp(SWITCH);
        assert_eq!(register_kretprobe(rp), -sys::EINVAL, "kretprobe blacklist");
        let rp = krp(REC);
        (*rp).data_size = 4097;
        assert_eq!(register_kretprobe(rp), -sys::E2BIG);
        let rp = krp(BL);
        assert_eq!(register_kretprobe(rp), -sys::EINVAL, "kprobe blacklist");
        assert!((*rp).rh.is_null(), "freed when the entry probe failed");
        let (r1, r2) = (krp(REC), krp(BL));
        let mut v: [*mut Kretprobe; 2] = [r1, r2];
        assert_eq!(register_kretprobes(v.as_mut_ptr(), 2), -sys::EINVAL);
        assert!(hashed(REC).is_null(), "rolled back");
        assert_eq!(register_kretprobes(v.as_mut_ptr(), 0), -sys::EINVAL);
    }
}

#[test]
fn kprobe_and_kretprobe_on_one_function() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, REC, true);
    let rp = krp(REC);
    // SAFETY: test probes live until the end of the test.
    unsafe {
        assert_eq!(reg(p), 0);
        assert_eq!(register_kretprobe(rp), 0);
        hit(REC);
        let mut regs = PtRegs::default();
        assert!(sys::function_return(&mut regs));
        assert_eq!(calls(), ["entry40", "pre1", "post1", "ret40"]);
        unregister_kretprobe(rp);
        hit(REC);
        assert_eq!(calls(), ["pre1", "post1"]);
    }
    unreg(p);
}

fn module() -> *mut Module {
    let mp = own(Box::new(Module::sim(
        (MODT, MODT + 0x1000),
        (MODI, MODI + 0x1000),
        ModState::Live,
    )));
    image(|i| {
        i.modules.push(mp as usize);
        i.text.push((MODT, MODT + 0x1000));
        i.text.push((MODI, MODI + 0x1000));
    });
    mp
}

fn list_text() -> String {
    let mut m = sys::SeqFile::sim(false);
    let mut pos = 0;
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
fn going_module_makes_its_probes_gone_and_unregister_stays_harmless() {
    let _g = sys::exclusive();
    let _t = kernel();
    let m = module();
    // SAFETY: the test module lives until the end of the test and is only
    // reached through raw pointers.
    unsafe { (*m).state = ModState::Coming }; // init text can only be probed while coming
    let (p1, p2, p3) = (
        kp(1, MODT + 4, false),
        kp(2, MODT + 4, false),
        kp(3, MODI + 4, false),
    );
    assert_eq!(reg(p1), 0);
    assert_eq!(reg(p2), 0);
    assert_eq!(reg(p3), 0);
    // SAFETY: as above.
    assert_eq!(
        unsafe { (*m).refs },
        0,
        "the module reference is only held while registering"
    );
    events();
    // The module finished init: probes on its init text are gone.
    // SAFETY: a live module.
    unsafe {
        (*m).state = ModState::Live;
        kprobes_rust_module_callback(sys::MODULE_STATE_LIVE, m);
        assert_eq!(flags(p3) & KPROBE_FLAG_GONE, KPROBE_FLAG_GONE);
        assert_eq!(flags(p1) & KPROBE_FLAG_GONE, 0);
        (*m).state = ModState::Going;
        kprobes_rust_module_callback(sys::MODULE_STATE_GOING, m);
    }
    assert_eq!(flags(p1) & KPROBE_FLAG_GONE, KPROBE_FLAG_GONE);
    assert_eq!(flags(p2) & KPROBE_FLAG_GONE, KPROBE_FLAG_GONE);
    let ev = events();
    assert!(
        ev.iter().all(|e| !e.starts_with("arch_disarm_kprobe ")),
        "gone text is not patched: {ev:?}"
    );
    assert!(list_text().contains("[GONE]"));
    hit(MODT + 4);
    assert!(calls().is_empty());
    // SAFETY: registered (gone) probe.
    unsafe { assert_eq!(enable_kprobe(p1), -sys::EINVAL) };
    unreg(p1);
    unreg(p2);
    unreg(p3);
    wait_for_kprobe_optimizer();
    assert!(hashed(MODT + 4).is_null() && hashed(MODI + 4).is_null());
    assert!(events()
        .iter()
        .all(|e| !e.starts_with("arch_disarm_kprobe ")));
}

#[test]
fn free_init_mem_kills_probes_on_init_text() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p, q) = (kp(1, INIT + 4, false), kp(2, F0 + 4, false));
    assert_eq!(reg(p), 0);
    assert_eq!(reg(q), 0);
    kprobe_free_init_mem();
    assert_eq!(flags(p) & KPROBE_FLAG_GONE, KPROBE_FLAG_GONE);
    assert_eq!(flags(q) & KPROBE_FLAG_GONE, 0);
    unreg(p);
    unreg(q);
}

fn write_enabled(v: &str) -> isize {
    let mut ppos = 0;
    // SAFETY: a plain buffer stands in for the user buffer.
    unsafe { write_enabled_file_bool(ptr::null_mut(), v.as_ptr().cast(), v.len(), &mut ppos) }
}

fn read_enabled() -> String {
    let mut buf = [0u8; 8];
    let mut ppos = 0;
    // SAFETY: as above.
    let n = unsafe {
        read_enabled_file_bool(
            ptr::null_mut(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut ppos,
        )
    };
    String::from_utf8_lossy(&buf[..n as usize]).into_owned()
}

#[test]
fn kprobes_enabled_disarms_all_and_keeps_disabled_probes_disabled() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p1, p2) = (kp(1, F0 + 4, false), kp(2, F1, false));
    let p3 = kp(3, F0 + 12, false);
    // SAFETY: a live, unregistered test probe.
    unsafe { (*p3).flags = KPROBE_FLAG_DISABLED };
    assert_eq!(reg(p1), 0);
    assert_eq!(reg(p2), 0);
    assert_eq!(reg(p3), 0);
    events();
    assert_eq!(read_enabled(), "1\n");
    assert_eq!(write_enabled("0\n"), 2);
    assert_eq!(read_enabled(), "0\n");
    let t = trace();
    let mut ev = checked(&t);
    ev.sort();
    assert_eq!(
        ev,
        [
            "arch_disarm_kprobe f0+0x4",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=1 reset=0 = 0",
            "unregister_ftrace_function ftrace_ops = 0"
        ]
    );
    assert_eq!(
        logs(&t).last().copied(),
        Some("log info: kprobes: Kprobes globally disabled")
    );
    hit(F0 + 4);
    // Registering while disarmed does not arm.
    let p4 = kp(4, F0 + 20, false);
    assert_eq!(reg(p4), 0);
    assert_eq!(
        events(),
        [
            "arch_prepare_kprobe f0+0x14 = 0 slot=page?",
            "arch_prepare_optimized_kprobe f0+0x14 = -84 size=0 slot=null",
            "arch_remove_optimized_kprobe f0+0x14 slot=null"
        ]
    );
    assert_eq!(write_enabled("x"), -sys::EINVAL as isize);
    assert_eq!(write_enabled("1"), 1);
    let mut ev = events();
    ev.sort();
    assert_eq!(
        ev,
        [
            "arch_arm_kprobe f0+0x14",
            "arch_arm_kprobe f0+0x4",
            "ftrace_set_filter_ip ftrace_ops f1+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ftrace_ops = 0"
        ]
    );
    assert_eq!(
        flags(p3) & KPROBE_FLAG_DISABLED,
        KPROBE_FLAG_DISABLED,
        "stays disabled"
    );
    // Enabling a probe while all are disarmed: it is armed when kprobes/
    // enabled goes back to 1 (intended divergence: upstream keeps it
    // disabled for good).
    assert_eq!(write_enabled("0"), 1);
    events();
    // SAFETY: registered probe.
    assert_eq!(unsafe { enable_kprobe(p3) }, 0);
    assert!(events().is_empty(), "nothing armed while disarmed");
    assert_eq!(flags(p3) & KPROBE_FLAG_DISABLED, 0);
    assert_eq!(write_enabled("1"), 1);
    assert!(events().contains(&"arch_arm_kprobe f0+0xc".to_string()));
    calls();
    hit(F0 + 12);
    assert_eq!(calls(), ["pre3"]);
    unreg(p1);
    unreg(p2);
    unreg(p3);
    unreg(p4);
}

#[test]
fn sysctl_kprobes_optimization_unoptimizes_and_reoptimizes() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0 + 8, false);
    assert_eq!(reg(p), 0);
    sys::run_optimizer();
    events();
    let table = sys::CtlTable {
        data: (&raw mut crate::opt::sysctl_kprobes_optimization).cast(),
        ..Default::default()
    };
    let write = |v: &str| {
        let mut len = v.len();
        let mut ppos = 0;
        // SAFETY: valid table and buffer.
        unsafe {
            proc_kprobes_optimization_handler(
                &table,
                1,
                v.as_ptr() as *mut c_void,
                &mut len,
                &mut ppos,
            )
        }
    };
    assert_eq!(write("0"), 0);
    let t = trace();
    assert_eq!(checked(&t), ["arch_unoptimize_kprobe f0+0x8"]);
    assert_eq!(flags(p) & KPROBE_FLAG_OPTIMIZED, 0);
    let ap = hashed(F0 + 8);
    // SAFETY: live aggregate.
    unsafe { assert_eq!((*ap).flags & KPROBE_FLAG_OPTIMIZED, 0) };
    assert!(logs(&t).contains(
        &"log info: kprobes: kprobe jump-optimization is disabled. All kprobes are based on software breakpoint."
    ));
    assert_eq!(write("2"), -sys::EINVAL, "out of range");
    assert_eq!(write("1"), 0);
    sys::run_optimizer();
    assert_eq!(
        events(),
        [
            "arch_check_optimized_kprobe f0+0x8 = 0",
            "arch_optimize_kprobes f0+0x8"
        ]
    );
    unreg(p);
    wait_for_kprobe_optimizer();
}

#[test]
fn a_probe_inside_an_optimized_jump_falls_back_to_int3() {
    let _g = sys::exclusive();
    let _t = kernel();
    let (p1, p2) = (kp(1, F0 + 8, false), kp(2, F0 + 10, false));
    assert_eq!(reg(p1), 0);
    sys::run_optimizer();
    events();
    // f0+0xa is inside f0+0x8's 5-byte jump: f0+0x8 is unoptimized first.
    assert_eq!(reg(p2), 0);
    let ev = events();
    assert_eq!(
        &ev[..3],
        [
            "arch_prepare_kprobe f0+0xa = 0 slot=page?",
            "arch_unoptimize_kprobe f0+0x8",
            "arch_arm_kprobe f0+0xa"
        ],
        "{ev:?}"
    );
    hit(F0 + 10);
    hit(F0 + 8);
    assert_eq!(calls(), ["pre2", "pre1"]);
    unreg(p2);
    unreg(p1);
    wait_for_kprobe_optimizer();
}

/// `get_optimized_kprobe()`'s filter (`opt::NEAR`): an aggregate at `a`
/// counts in the 16-byte block of `a`, and 2048 blocks further the same
/// count; its count goes when it is freed.
/// The look-ups still find an optimized probe around a probe that is an
/// aggregate itself (its own count is not taken for another's).  A count
/// that would overflow turns the filter off, and the look-ups then find
/// the optimized probe as before.
#[test]
fn get_optimized_kprobe_skips_only_where_no_aggregate_can_be() {
    use crate::opt::{near_count, near_set};
    let _g = sys::exclusive();
    let _t = kernel();
    let at = |a: usize| near_count(a as *const KprobeOpcode);
    let span = sys::MAX_OPTIMIZED_LENGTH - 1;
    assert_eq!(F0 % 16, 0);
    let p1 = kp(1, F0 + 8, false);
    assert_eq!(reg(p1), 0);
    // Its own block, f0.
    assert_eq!(at(F0), Some(1));
    assert_eq!(at(F0 + 8 + span), Some(0));
    assert_eq!(at(F0 + 0x10), Some(0));
    assert_eq!(at(F0 - 1), Some(0));
    assert_eq!(at(F0 + 16 * 2048), Some(1));
    sys::run_optimizer();
    events();
    // f0+0xa is in f0+0x8's jump; an aggregate there (two probes) does not
    // take its own count for f0+0x8's: disarming it looks f0+0x8 up.
    let (p2, p3) = (kp(2, F0 + 10, false), kp(3, F0 + 10, false));
    assert_eq!(reg(p2), 0);
    assert!(events().contains(&"arch_unoptimize_kprobe f0+0x8".to_string()));
    assert_eq!(reg(p3), 0);
    assert_eq!(at(F0), Some(2));
    unreg(p2);
    unreg(p3);
    wait_for_kprobe_optimizer();
    let ev = events();
    // (The arch refuses while f0+0xa is still hashed, as upstream's TODO
    // in `__disarm_kprobe()` says; that it asks shows the look-up ran.)
    assert!(
        ev.contains(&"arch_check_optimized_kprobe f0+0x8 = -17".to_string()),
        "{ev:?}"
    );
    assert_eq!(at(F0), Some(1));
    unreg(p1);
    wait_for_kprobe_optimizer();
    for a in [F0, F0 + 0x10, F0 + 0x20] {
        assert_eq!(at(a), Some(0), "{a:#x}");
    }
    // Overflow: f0's count is full; the aggregate at f0+0x8 counts there
    // too, so the filter turns off.
    near_set(F0 as *const KprobeOpcode, u16::MAX);
    let (p1, p2) = (kp(1, F0 + 8, false), kp(2, F0 + 10, false));
    assert_eq!(reg(p1), 0);
    assert_eq!(at(F0), None);
    sys::run_optimizer();
    events();
    assert_eq!(reg(p2), 0);
    let ev = events();
    assert_eq!(ev[1], "arch_unoptimize_kprobe f0+0x8", "{ev:?}");
    unreg(p2);
    unreg(p1);
    wait_for_kprobe_optimizer();
    assert_eq!(at(F0), None);
}

/// `opt::near_clear()` against the look-ups it stands for: with one
/// aggregate counted at `a`, a probe at `b` (an aggregate itself when it
/// is at `a`) may skip them exactly when no aggregate but itself is in the
/// 16-byte blocks of `b - 19 ..= b - 1`, and never when `a` is in that
/// range, for every `a` and `b` within a few blocks (the two and three
/// block cases, and both ends of a block).
#[test]
fn near_filter_is_exact_within_its_blocks() {
    use crate::opt::{near_add, near_clear, near_sub};
    let _g = sys::exclusive();
    let _t = kernel();
    let km = crate::locks::kprobe_mutex();
    let span = sys::MAX_OPTIMIZED_LENGTH - 1;
    let base = F0 + 0x40;
    assert_eq!(base % 16, 0);
    for a in base..base + 64 {
        near_add(&km, a as *const KprobeOpcode);
        for b in base - 32..base + 96 {
            let reach = b - span <= a && a < b;
            let counted = ((b - span) >> 4..=(b - 1) >> 4).contains(&(a >> 4)) && a != b;
            assert!(counted || !reach);
            assert_eq!(
                near_clear(b, a == b),
                !counted,
                "aggregate at {a:#x}, probe at {b:#x}"
            );
        }
        near_sub(a as *const KprobeOpcode);
        assert!(near_clear(a + 1, false));
    }
}

/// An optimized probe at `f0+0x8` whose unoptimization was queued (the
/// first half of `unoptimize_all_kprobes()`), then `kprobes/enabled` = 0
/// before the optimizer ran: forcibly unoptimized and disarmed at once.
fn force_unoptimized_probe() -> *mut Kprobe {
    let p = kp(1, F0 + 8, false);
    assert_eq!(reg(p), 0);
    sys::run_optimizer();
    let ap = hashed(F0 + 8);
    events();
    // SAFETY: a live aggregate.
    crate::opt::unoptimize_kprobe(
        &crate::locks::kprobe_mutex(),
        unsafe { crate::probe::Probe::from_raw(ap) },
        None,
    );
    assert!(events().is_empty(), "queued, not done");
    assert_eq!(crate::arm::disarm_all_kprobes(), Ok(()));
    assert_eq!(
        events(),
        ["arch_unoptimize_kprobe f0+0x8", "arch_disarm_kprobe f0+0x8"]
    );
    p
}

/// `kprobes/enabled` = 0 while an optimized probe's unoptimization is
/// queued (`debug.kprobes-optimization` = 0 has queued it, the optimizer
/// has not run yet): the forced unoptimization leaves an int3, which must
/// be disarmed at once.  Upstream leaves it in the text, the probe fires
/// while probing is off, and unregistering it then unhashes it with the
/// int3 still there (the stress suite's "Oops: int3" on both kernels).
#[test]
fn disarm_all_disarms_a_probe_queued_for_unoptimization() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = force_unoptimized_probe();
    sys::run_optimizer();
    assert!(events().is_empty(), "disarmed once: {:?}", events());
    // Unregistering while all are disarmed unhashes a disarmed probe.
    unreg(p);
    wait_for_kprobe_optimizer();
    assert!(hashed(F0 + 8).is_null());
    assert!(!events().iter().any(|e| e.starts_with("arch_arm_kprobe ")));
    assert_eq!(crate::arm::arm_all_kprobes(), Ok(()));
}

/// Divergence 6's forced unoptimization takes the probe off the freeing
/// list: disabled before the optimizer runs, it is not disarmed a second
/// time.
#[test]
fn a_force_unoptimized_probe_is_disarmed_once() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = force_unoptimized_probe();
    // SAFETY: a registered probe.
    assert_eq!(unsafe { disable_kprobe(p) }, 0);
    sys::run_optimizer();
    assert!(events().is_empty(), "disarmed twice: {:?}", events());
    unreg(p);
    wait_for_kprobe_optimizer();
    assert_eq!(crate::arm::arm_all_kprobes(), Ok(()));
}

/// A probe disabled while optimized (its unoptimization queued), then
/// `kprobes/enabled` = 0, then enabled again before the optimizer ran.
/// Intended divergence 2 clears its DISABLED flag without arming (all are
/// disarmed); the optimizer then turns its jump back into an int3 and must
/// disarm it although it is not disabled, since all are disarmed: left in
/// the text, the int3 would stay there once the probe is unregistered (no
/// disarming while all are disarmed), and its next hit would be "Oops:
/// int3".  Upstream leaves the probe DISABLED there, so its optimizer
/// disarms it.
#[test]
fn enable_while_disarmed_with_a_queued_unoptimization() {
    let _g = sys::exclusive();
    let _t = kernel();
    let p = kp(1, F0 + 8, false);
    assert_eq!(reg(p), 0);
    sys::run_optimizer();
    events();
    // SAFETY: a registered probe.
    assert_eq!(unsafe { disable_kprobe(p) }, 0);
    // disarm_all_kprobes() in the window between its unlock and its wait for
    // the optimizer, where another task's enable_kprobe() can run: P is
    // disabled, so it only sets kprobes_all_disarmed.
    crate::state::set_all_disarmed(&crate::locks::kprobe_mutex(), true);
    // SAFETY: a registered probe.
    assert_eq!(unsafe { enable_kprobe(p) }, 0);
    sys::run_optimizer();
    let ev = events();
    unreg(p);
    wait_for_kprobe_optimizer();
    crate::state::set_all_disarmed(&crate::locks::kprobe_mutex(), false);
    assert!(
        ev.iter().any(|e| e.starts_with("arch_disarm_kprobe ")),
        "int3 left in the text while all are disarmed: {ev:?}"
    );
}

// ---------------------------------------------------------------------------
// Batches: register_kprobes()/register_kretprobes() and their
// unregisters arm and disarm their ftrace members with one
// ftrace_set_filter_ips() per ops.

/// `register_kprobes()` of all of `v`.
fn reg_all(v: &mut [*mut Kprobe]) -> c_int {
    // SAFETY: `v` holds test probes (live until the end of the test) or null.
    unsafe { register_kprobes(v.as_mut_ptr(), v.len() as c_int) }
}

/// `unregister_kprobes()` of all of `v`.
fn unreg_all(v: &mut [*mut Kprobe]) {
    // SAFETY: as for `reg_all()`.
    unsafe { unregister_kprobes(v.as_mut_ptr(), v.len() as c_int) }
}

/// Base of `n` more functions, each with an ftrace site at +0.
const FN: usize = TEXT + 0x1_0000;

/// Adds the functions `fn<k>` at `FN + k * 0x40` for `k` in `ks`, each an
/// ftrace site.
fn ftrace_functions(ks: core::ops::Range<usize>) {
    image(|i| {
        for k in ks {
            i.symbols
                .push(Sym::new(&format!("fn{k}"), FN + k * 0x40, 0x40));
            i.ftrace_sites.push(FN + k * 0x40);
        }
    });
}

/// The ftrace events of `ev`.
fn ftrace_events(ev: &[String]) -> Vec<String> {
    ev.iter()
        .filter(|e| {
            e.starts_with("ftrace_set_filter_ip")
                || e.starts_with("register_ftrace_function ")
                || e.starts_with("unregister_ftrace_function ")
        })
        .cloned()
        .collect()
}

/// Is `e` an `ftrace_set_filter_ips` line of `ops` (`ftrace_ops`,
/// `ipmodify_ops`) adding (`remove` 0) or removing (1) addresses?
fn is_ips(e: &str, ops: &str, remove: u8) -> bool {
    e.starts_with(&format!("ftrace_set_filter_ips {ops} "))
        && e.contains(&format!(" remove={remove} reset=0 = "))
}

fn batch_calls() -> [usize; 2] {
    arch(|a| std::mem::take(&mut a.ftrace_batch_calls))
}

fn filters_empty() -> bool {
    arch(|a| {
        (0..2).all(|i| a.ftrace_filter(i).is_empty()) && a.ftrace_ops_registered() == [false, false]
    })
}

#[test]
fn a_batch_of_entry_probes_arms_with_one_filter_call_per_ops() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = if cfg!(miri) { 12 } else { 100 };
    ftrace_functions(0..N);
    // Even members plain, odd ones with a post_handler (IPMODIFY), one
    // mid-function breakpoint member, and one disabled member.
    let mut v: Vec<*mut Kprobe> = (0..N)
        .map(|i| kp(i as u32, FN + i * 0x40, i % 2 == 1))
        .collect();
    let int3 = kp(1000, F0 + 4, false);
    let off = kp(1001, F1, false);
    // SAFETY: a live, unregistered test probe.
    unsafe { (*off).flags = KPROBE_FLAG_DISABLED };
    v.push(int3);
    v.push(off);
    assert_eq!(reg_all(&mut v), 0);
    let ev = events();
    assert_eq!(batch_calls(), [1, 1]);
    assert!(
        ev.contains(&"arch_arm_kprobe f0+0x4".to_string()),
        "breakpoints armed as they are registered"
    );
    let fe = ftrace_events(&ev);
    assert_eq!(fe.len(), 4, "{fe:?}");
    let plain: Vec<String> = (0..N).step_by(2).map(|i| format!("fn{i}+0x0")).collect();
    let ipm: Vec<String> = (1..N).step_by(2).map(|i| format!("fn{i}+0x0")).collect();
    let ips = |ops: &str, l: &[String], remove: u8| {
        format!(
            "ftrace_set_filter_ips {ops} {} remove={remove} reset=0 = 0",
            l.join(",")
        )
    };
    assert_eq!(fe[0], ips("ftrace_ops", &plain, 0));
    assert_eq!(
        fe[1], "register_ftrace_function ftrace_ops = 0",
        "the filter first, then the ops"
    );
    assert_eq!(fe[2], ips("ipmodify_ops", &ipm, 0));
    assert_eq!(fe[3], "register_ftrace_function ipmodify_ops = 0");
    assert!(
        !arch(|a| a.ftrace_filter(0).contains(&F1)),
        "the disabled member is not armed"
    );
    for (i, &p) in v.iter().enumerate().take(N) {
        assert_eq!(hashed(FN + i * 0x40), p);
        hit(FN + i * 0x40);
    }
    assert_eq!(
        calls().len(),
        N + N / 2,
        "each fires (pre, and post for odd ones)"
    );

    // A second batch beside the first: the ops are registered already;
    // one member joins a probe of the first batch (an aggregate, not
    // armed again).
    ftrace_functions(N..N + 4);
    let mut w: Vec<*mut Kprobe> = (N..N + 4)
        .map(|i| kp(i as u32, FN + i * 0x40, false))
        .collect();
    w.push(kp(2000, FN, false));
    assert_eq!(reg_all(&mut w), 0);
    assert_eq!(batch_calls(), [1, 0]);
    let fe = ftrace_events(&events());
    assert_eq!(
        fe,
        [format!(
            "ftrace_set_filter_ips ftrace_ops fn{N}+0x0,fn{}+0x0,fn{}+0x0,fn{}+0x0 remove=0 reset=0 = 0",
            N + 1,
            N + 2,
            N + 3
        )]
    );
    hit(FN);
    assert_eq!(calls(), ["pre2000", "pre0"]);

    // Unregistering: the ops first when its last addresses go, then one
    // removal per ops.
    unreg_all(&mut w);
    assert_eq!(
        ftrace_events(&events()),
        [format!(
            "ftrace_set_filter_ips ftrace_ops fn{N}+0x0,fn{}+0x0,fn{}+0x0,fn{}+0x0 remove=1 reset=0 = 0",
            N + 1,
            N + 2,
            N + 3
        )]
    );
    assert_eq!(batch_calls(), [1, 0]);
    unreg_all(&mut v);
    let ev = events();
    let fe = ftrace_events(&ev);
    assert_eq!(fe.len(), 4, "{fe:?}");
    assert_eq!(fe[0], "unregister_ftrace_function ftrace_ops = 0");
    assert_eq!(fe[1], ips("ftrace_ops", &plain, 1));
    assert_eq!(fe[2], "unregister_ftrace_function ipmodify_ops = 0");
    assert_eq!(fe[3], ips("ipmodify_ops", &ipm, 1));
    assert!(
        ev.contains(&"arch_disarm_kprobe f0+0x4".to_string())
            || ev.contains(&"arch_unoptimize_kprobe f0+0x4".to_string()),
        "{ev:?}"
    );
    assert!(filters_empty());
    for i in 0..N {
        assert!(hashed(FN + i * 0x40).is_null());
    }
    sys::run_optimizer();
    // The counts are right: a single probe registers the ops again.
    let p = kp(3000, FN, false);
    assert_eq!(reg(p), 0);
    assert_eq!(
        ftrace_events(&events()),
        [
            "ftrace_set_filter_ip ftrace_ops fn0+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ftrace_ops = 0"
        ]
    );
    unreg(p);
    assert_eq!(
        ftrace_events(&events()),
        [
            "unregister_ftrace_function ftrace_ops = 0",
            "ftrace_set_filter_ip ftrace_ops fn0+0x0 remove=1 reset=0 = 0"
        ]
    );
    assert!(filters_empty());
}

#[test]
fn a_batch_with_an_invalid_member_leaves_nothing_and_ftrace_untouched() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = if cfg!(miri) { 8 } else { 20 };
    ftrace_functions(0..N);
    let a0 = allocs();
    for k in [1, 7, N - 1] {
        let mut v: Vec<*mut Kprobe> = (0..N)
            .map(|i| kp(i as u32, FN + i * 0x40, i % 3 == 0))
            .collect();
        v[k] = kp(99, BL, false);
        assert_eq!(reg_all(&mut v), -sys::EINVAL, "the member's error");
        let ev = events();
        assert!(
            ftrace_events(&ev).is_empty(),
            "the pending arming was cancelled: {ev:?}"
        );
        assert_eq!(batch_calls(), [0, 0]);
        assert!(filters_empty());
        for i in 0..N {
            assert!(hashed(FN + i * 0x40).is_null(), "member {i} unregistered");
        }
        // A null member: EINVAL, as a member upstream would dereference.
        v[k] = ptr::null_mut();
        assert_eq!(reg_all(&mut v), -sys::EINVAL);
        assert!(ftrace_events(&events()).is_empty());
        // The same member twice: the second is a re-registration.
        v[k] = v[0];
        assert_eq!(reg_all(&mut v), -sys::EINVAL);
        assert!(ftrace_events(&events()).is_empty());
        assert!(filters_empty());
    }
    sys::run_optimizer();
    assert_eq!(allocs(), a0, "the index and the batch's lists freed");
    // And the counts are right afterwards.
    let p = kp(3000, FN, false);
    assert_eq!(reg(p), 0);
    assert_eq!(
        ftrace_events(&events()),
        [
            "ftrace_set_filter_ip ftrace_ops fn0+0x0 remove=0 reset=0 = 0",
            "register_ftrace_function ftrace_ops = 0"
        ]
    );
    unreg(p);
}

/// An address another IPMODIFY ops has (-EBUSY, every time): the batch
/// fails at the member upstream's one-by-one registration fails at, which
/// keeps its flags (unhashed, not unregistered, so not disabled); the
/// members before it are unregistered, as upstream's rollback leaves them.  (The members after
/// it, which upstream never registers, are registered and unregistered.)
#[test]
fn a_batch_fails_at_the_member_whose_address_is_busy() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = 4;
    ftrace_functions(0..N);
    // Post handlers at 0, 2 and 3 (the ipmodify ops); 2 is busy.
    let mut v: Vec<*mut Kprobe> = (0..N)
        .map(|i| kp(i as u32, FN + i * 0x40, i != 1))
        .collect();
    arch(|a| a.ftrace_busy_ip = Some(FN + 2 * 0x40));
    assert_eq!(reg_all(&mut v), -sys::EBUSY_SIM);
    arch(|a| a.ftrace_busy_ip = None);
    // SAFETY: the test's probes, unregistered.
    let flags: Vec<u32> = v.iter().map(|&p| unsafe { (*p).flags }).collect();
    // Unregistered: disabled.  The one that failed: as registered.
    let d = |i: usize| flags[i] & KPROBE_FLAG_DISABLED != 0;
    assert!(d(0) && d(1) && !d(2) && d(3), "{flags:x?}");
    assert_eq!(
        flags[2] & KPROBE_FLAG_FTRACE,
        KPROBE_FLAG_FTRACE,
        "{flags:x?}"
    );
    assert!(filters_empty());
    assert!((0..N).all(|i| hashed(FN + i * 0x40).is_null()));
    sys::run_optimizer();
}

#[test]
fn a_failing_batch_flush_leaves_nothing() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = 10;
    ftrace_functions(0..N);
    let mk = |base: u32| -> Vec<*mut Kprobe> {
        (0..N)
            .map(|i| kp(base + i as u32, FN + i * 0x40, i % 2 == 1))
            .collect()
    };
    // 1. The filter of the first ops refuses (no memory): nothing was added.
    let mut v = mk(0);
    arch(|a| a.ftrace_batch_fail = Some((false, -sys::ENOMEM)));
    assert_eq!(reg_all(&mut v), -sys::ENOMEM);
    let fe = ftrace_events(&events());
    assert_eq!(fe.len(), 1, "only the failed call: {fe:?}");
    assert!(filters_empty());
    assert!((0..N).all(|i| hashed(FN + i * 0x40).is_null()));
    // 2. The second ops refuses after the first was armed: the first is
    // disarmed again (ops unregistered first).
    let mut v2 = mk(100);
    arch(|a| a.ftrace_batch_fail = Some((true, -sys::ENOMEM)));
    assert_eq!(reg_all(&mut v2), -sys::ENOMEM);
    let fe = ftrace_events(&events());
    assert_eq!(fe.len(), 5, "{fe:?}");
    assert!(is_ips(&fe[0], "ftrace_ops", 0) && fe[1] == "register_ftrace_function ftrace_ops = 0");
    assert!(is_ips(&fe[2], "ipmodify_ops", 0));
    assert!(
        fe[3] == "unregister_ftrace_function ftrace_ops = 0" && is_ips(&fe[4], "ftrace_ops", 1)
    );
    assert!(filters_empty());
    assert!((0..N).all(|i| hashed(FN + i * 0x40).is_null()));
    // 3. Registering the ops fails: its filter is restored.  (Fresh probes:
    // an unregistered probe keeps KPROBE_FLAG_DISABLED, as upstream's.)
    let mut v = mk(200);
    arch(|a| a.ftrace_register_fail = Some(-sys::ENOMEM));
    assert_eq!(reg_all(&mut v), -sys::ENOMEM, "{:?}", events());
    let fe = ftrace_events(&events());
    assert_eq!(fe.len(), 3, "{fe:?}");
    assert!(
        is_ips(&fe[0], "ftrace_ops", 0)
            && fe[1] == format!("register_ftrace_function ftrace_ops = {}", -sys::ENOMEM)
    );
    assert!(is_ips(&fe[2], "ftrace_ops", 1));
    assert!(filters_empty());
    assert!((0..N).all(|i| hashed(FN + i * 0x40).is_null()));
    // Then it works, and unregisters with one call per ops.
    batch_calls();
    let mut v2 = mk(300);
    assert_eq!(reg_all(&mut v2), 0);
    assert_eq!(batch_calls(), [1, 1]);
    unreg_all(&mut v2);
    assert_eq!(batch_calls(), [1, 1]);
    assert!(filters_empty());
}

#[test]
fn a_batch_while_kprobes_are_disabled_arms_nothing_until_enabled() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = 6;
    ftrace_functions(0..N);
    assert_eq!(write_enabled("0"), 1);
    events();
    let mut v: Vec<*mut Kprobe> = (0..N).map(|i| kp(i as u32, FN + i * 0x40, false)).collect();
    assert_eq!(reg_all(&mut v), 0);
    assert!(ftrace_events(&events()).is_empty());
    assert_eq!(write_enabled("1"), 1);
    assert!(arch(
        |a| a.ftrace_filter(0).len() == N && a.ftrace_ops_registered()[0]
    ));
    events();
    assert_eq!(write_enabled("0"), 1);
    assert!(filters_empty());
    events();
    unreg_all(&mut v);
    assert!(ftrace_events(&events()).is_empty(), "nothing is armed");
    assert_eq!(write_enabled("1"), 1);
    assert!(filters_empty());
}

fn krp_at(addr: usize) -> *mut Kretprobe {
    let rp = krp(addr);
    // SAFETY: a live, unregistered test kretprobe.
    unsafe { (*rp).maxactive = 2 };
    rp
}

#[test]
fn a_batch_of_kretprobes_arms_and_disarms_with_one_call() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = if cfg!(miri) { 6 } else { 30 };
    ftrace_functions(0..N);
    let a0 = allocs();
    let mut v: Vec<*mut Kretprobe> = (0..N).map(|i| krp_at(FN + i * 0x40)).collect();
    // SAFETY: valid kretprobe arrays of live test kretprobes, here and below.
    unsafe {
        assert_eq!(register_kretprobes(v.as_mut_ptr(), N as c_int), 0);
        let fe = ftrace_events(&events());
        assert_eq!(fe.len(), 2, "{fe:?}");
        assert!(
            fe[0].starts_with("ftrace_set_filter_ips ftrace_ops fn0+0x0,fn1+0x0,")
                && is_ips(&fe[0], "ftrace_ops", 0)
                && fe[1] == "register_ftrace_function ftrace_ops = 0"
        );
        assert_eq!(batch_calls(), [1, 0]);
        hit(FN + 3 * 0x40);
        let mut regs = PtRegs::default();
        assert!(sys::function_return(&mut regs));
        assert_eq!(calls().len(), 2, "entry and return");
        unregister_kretprobes(v.as_mut_ptr(), N as c_int);
        let fe = ftrace_events(&events());
        assert!(
            fe.len() == 2
                && fe[0] == "unregister_ftrace_function ftrace_ops = 0"
                && is_ips(&fe[1], "ftrace_ops", 1)
        );
        assert!(filters_empty());
        assert!(v.iter().all(|&r| (*r).rh.is_null()));
        // A failing member: nothing left, the rethooks freed.
        let mut w: Vec<*mut Kretprobe> = (0..N).map(|i| krp_at(FN + i * 0x40)).collect();
        w[N / 2] = krp_at(SWITCH);
        assert_eq!(
            register_kretprobes(w.as_mut_ptr(), N as c_int),
            -sys::EINVAL
        );
        assert!(ftrace_events(&events()).is_empty());
        assert!(filters_empty());
        assert!((0..N).all(|i| hashed(FN + i * 0x40).is_null()));
        // A failing flush likewise.
        w[N / 2] = krp_at(FN + (N / 2) * 0x40);
        arch(|a| a.ftrace_batch_fail = Some((false, -sys::ENOMEM)));
        assert_eq!(
            register_kretprobes(w.as_mut_ptr(), N as c_int),
            -sys::ENOMEM
        );
        assert!(filters_empty());
        assert!((0..N).all(|i| hashed(FN + i * 0x40).is_null()));
        assert!(w.iter().all(|&r| (*r).rh.is_null()));
    }
    sys::run_optimizer();
    assert_eq!(
        allocs(),
        a0,
        "rethooks, instances and the batch's lists freed"
    );
}

fn jump_label_checks() -> usize {
    image(|i| std::mem::take(&mut i.jump_label_checks))
}

#[test]
fn a_batch_asks_the_range_checks_once_per_window_with_the_same_results() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = if cfg!(miri) { 24 } else { 64 };
    ftrace_functions(0..N);
    let at = |k: usize| FN + k * 0x40;
    let batch = |base: u32| -> Vec<*mut Kprobe> {
        (0..N).map(|i| kp(base + i as u32, at(i), false)).collect()
    };
    let all_hashed = |v: &[*mut Kprobe]| (0..N).all(|i| hashed(at(i)) == v[i]);

    // 1. No site near: one range check for the whole batch.
    jump_label_checks();
    let mut v = batch(0);
    assert_eq!(reg_all(&mut v), 0);
    assert_eq!(jump_label_checks(), 1);
    assert!(all_hashed(&v));
    unreg_all(&mut v);

    // 2. A jump label inside fn10 (not at a member): the spans over it are
    // not clear, so their members are checked one by one; the rest are
    // covered; every member is registered.
    image(|i| i.jump_labels.push(at(10) + 8));
    let mut v = batch(100);
    assert_eq!(reg_all(&mut v), 0);
    let n = jump_label_checks();
    assert!(n > 1 && n < N / 2 + 4, "{n} checks");
    assert!(all_hashed(&v));
    unreg_all(&mut v);

    // 3. A member on a jump label, or on a static call site: EINVAL as
    // upstream, nothing left registered.
    for site in [true, false] {
        let mut v = batch(200);
        let a = at(20) + 8;
        v[20] = kp(99, a, false);
        image(|i| {
            if site {
                i.jump_labels.push(a)
            } else {
                i.static_calls.push(a)
            }
        });
        assert_eq!(reg_all(&mut v), -sys::EINVAL, "site {site}");
        assert!((0..N).all(|i| hashed(at(i)).is_null()));
        assert!(hashed(a).is_null());
        image(|i| {
            if site {
                i.jump_labels.pop()
            } else {
                i.static_calls.pop()
            }
        });
    }
    jump_label_checks();

    // 4. A jump label in every function: no span is clear; after four
    // spans the batch stops asking (upstream's calls + 4).
    image(|i| i.jump_labels.extend((0..N).map(|k| at(k) + 8)));
    let mut v = batch(300);
    assert_eq!(reg_all(&mut v), 0);
    assert_eq!(jump_label_checks(), N + 4);
    assert!(all_hashed(&v));
    unreg_all(&mut v);
    image(|i| i.jump_labels.clear());

    // 5. Members in a module and in the kernel, interleaved in runs: one
    // span per run, in the run's module; the window's module reference is
    // put when the batch ends.
    let m = module();
    image(|i| {
        for k in 0..8 {
            i.symbols
                .push(Sym::new(&format!("mfn{k}"), MODT + 0x100 + k * 0x40, 0x40));
            i.ftrace_sites.push(MODT + 0x100 + k * 0x40);
        }
    });
    let mut w: Vec<*mut Kprobe> = (0..4).map(|k| kp(400 + k as u32, at(k), false)).collect();
    w.extend((0..8).map(|k| kp(500 + k as u32, MODT + 0x100 + k * 0x40, false)));
    w.extend((4..8).map(|k| kp(600 + k as u32, at(k), false)));
    assert_eq!(reg_all(&mut w), 0);
    assert_eq!(jump_label_checks(), 3);
    // SAFETY: the test module lives until the end of the test.
    assert_eq!(
        unsafe { (*m).refs },
        0,
        "the members' and the window's references put"
    );
    assert!(w.iter().all(|&p| !hashed(addr(p)).is_null()));
    unreg_all(&mut w);
}

#[test]
fn a_failing_batch_disarm_warns_and_still_unregisters_every_member() {
    let _g = sys::exclusive();
    let _t = kernel();
    const N: usize = 10;
    ftrace_functions(0..N + 1);
    let at = |k: usize| FN + k * 0x40;
    // A probe outside the batch keeps the ops registered.
    let keep = kp(900, at(N), false);
    assert_eq!(reg(keep), 0);
    let mut v: Vec<*mut Kprobe> = (0..N).map(|i| kp(i as u32, at(i), false)).collect();
    assert_eq!(reg_all(&mut v), 0);
    events();
    // ftrace refuses to remove the batch's addresses from the filter.
    arch(|a| a.ftrace_batch_fail = Some((false, -sys::EBUSY_SIM)));
    let w = record(|r| r.warnings.len());
    unreg_all(&mut v);
    assert_eq!(
        record(|r| r.warnings.len()),
        w + 1,
        "WARN_ONCE as upstream's disarm"
    );
    let fe = ftrace_events(&events());
    assert_eq!(fe.len(), 1, "one removal, refused: {fe:?}");
    // Intended divergence (docs/divergences.md): every member is unregistered all the
    // same (upstream leaves each hashed with its addr cleared); a hit at
    // their still-filtered addresses finds no probe and runs nothing.
    for i in 0..N {
        assert!(hashed(at(i)).is_null(), "member {i} unhashed");
        hit(at(i));
    }
    assert!(calls().is_empty());
    hit(at(N));
    assert_eq!(calls(), ["pre900"]);
    // Probes at the same addresses register and fire.  (Fresh ones: an
    // unregistered probe keeps KPROBE_FLAG_DISABLED, as upstream's.)
    let mut v: Vec<*mut Kprobe> = (0..N).map(|i| kp(100 + i as u32, at(i), false)).collect();
    assert_eq!(reg_all(&mut v), 0);
    for i in 0..N {
        hit(at(i));
    }
    assert_eq!(calls().len(), N);
    unreg_all(&mut v);
    unreg(keep);
    assert_eq!(arch(|a| a.ftrace_ops_registered()), [false, false]);
}

/// jprobes (`CONFIG_KPROBES_RUST_JPROBES`): an entry kprobe whose
/// pre-handler calls `entry` with the argument registers.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
mod jprobes {
    use super::*;
    use crate::jprobe::*;
    use crate::types::Jprobe;

    /// A jprobe handler: records its arguments (the host tests' handler has
    /// the pre-handler's own call type, which Miri checks).
    unsafe extern "C" fn entry(
        a: c_ulong,
        b: c_ulong,
        c: c_ulong,
        d: c_ulong,
        e: c_ulong,
        f: c_ulong,
    ) {
        CALLS.with(|x| {
            x.borrow_mut()
                .push(format!("j {a:x} {b:x} {c:x} {d:x} {e:x} {f:x}"))
        });
        jprobe_return();
    }

    fn jp(addr: usize) -> *mut Jprobe {
        // SAFETY: all-zero is a valid struct jprobe.
        let mut j: Box<Jprobe> = Box::new(unsafe { core::mem::zeroed() });
        j.kp.addr = addr as *mut KprobeOpcode;
        j.entry = entry as *mut c_void;
        own(j)
    }

    #[test]
    fn the_handler_gets_the_register_arguments_and_the_function_runs() {
        let _g = sys::exclusive();
        let _t = kernel();
        let j = jp(F1);
        // SAFETY: test jprobes live until the end of the test and are only
        // reached through their raw pointers.
        unsafe {
            assert_eq!(register_jprobe(j), 0);
            assert!(crate::jprobe::is_jprobe_handler((*j).kp.pre_handler));
            assert_eq!(
                flags(ptr::addr_of!((*j).kp)) & KPROBE_FLAG_FTRACE,
                KPROBE_FLAG_FTRACE,
                "an entry probe on ftrace"
            );
            hit_args(
                F1,
                [
                    1,
                    0xffff_ffff_ffff_fffb,
                    3,
                    usize::MAX,
                    5,
                    0x1234_5678_9abc_def0,
                ],
            );
            assert_eq!(
                calls(),
                ["j 1 fffffffffffffffb 3 ffffffffffffffff 5 123456789abcdef0"]
            );
            assert!(list_text().contains("  j  f1+0x0"), "{}", list_text());
            unregister_jprobe(j);
            hit(F1);
            assert!(calls().is_empty());
            assert!(hashed(F1).is_null());
        }
    }

    #[test]
    fn bad_jprobes_get_the_kprobe_error_codes_and_leave_nothing() {
        let _g = sys::exclusive();
        let _t = kernel();
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                register_jprobe(jp(F0 + 4)),
                -sys::EINVAL,
                "not at a function entry"
            );
            let j = jp(0);
            (*j).kp.symbol_name = c"f0".as_ptr().cast();
            (*j).kp.offset = 4;
            assert_eq!(
                register_jprobe(j),
                -sys::EINVAL,
                "symbol + offset not at the entry"
            );
            let j = jp(F0);
            (*j).entry = ptr::null_mut();
            assert_eq!(register_jprobe(j), -sys::EINVAL, "no entry");
            assert_eq!(register_jprobe(jp(BL)), -sys::EINVAL, "blacklisted");
            let j = jp(F0);
            assert_eq!(register_jprobe(j), 0);
            let w = record(|r| r.warnings.len());
            assert_eq!(register_jprobe(j), -sys::EINVAL, "registered twice");
            assert_eq!(
                record(|r| r.warnings.len()),
                w + 1,
                "with upstream's warning for a kprobe"
            );
            unregister_jprobe(j);
            assert!(crate::debugfs_list_is_empty());
            // Never registered, and unregistered twice: nothing happens.
            unregister_jprobe(jp(F0));
            unregister_jprobe(j);
            let w = record(|r| r.warnings.len());
            jprobe_return();
            assert_eq!(record(|r| r.warnings.len()), w);
            // An array whose second member is bad: the first is rolled back.
            let mut v = [jp(F0), jp(F0 + 4), jp(F2)];
            assert_eq!(register_jprobes(v.as_mut_ptr(), 3), -sys::EINVAL);
            assert!(crate::debugfs_list_is_empty());
            assert_eq!(register_jprobes(v.as_mut_ptr(), 0), -sys::EINVAL);
        }
    }

    #[test]
    fn jprobes_aggregate_with_kprobes_and_kretprobes_and_can_be_disabled() {
        let _g = sys::exclusive();
        let _t = kernel();
        let (j, p, rp) = (jp(REC), kp(1, REC, false), krp(REC));
        // SAFETY: as above.
        unsafe {
            assert_eq!(register_jprobe(j), 0);
            assert_eq!(reg(p), 0);
            assert_eq!(register_kretprobe(rp), 0);
            hit_args(REC, [7, 0, 0, 0, 0, 9]);
            let mut regs = PtRegs::default();
            assert!(sys::function_return(&mut regs));
            // Upstream runs an aggregate's newest member first.
            assert_eq!(calls(), ["entry40", "pre1", "j 7 0 0 0 0 9", "ret40"]);
            let l = list_text();
            for t in ["  j  rec+0x0", "  k  rec+0x0", "  r  rec+0x0"] {
                assert!(l.contains(t), "{t}: {l}");
            }
            assert_eq!(disable_jprobe(j), 0);
            assert!(
                list_text().contains("  j  rec+0x0    [DISABLED]"),
                "{}",
                list_text()
            );
            hit(REC);
            assert!(sys::function_return(&mut regs));
            assert_eq!(
                calls(),
                ["entry40", "pre1", "ret40"],
                "the disabled jprobe is silent"
            );
            assert_eq!(enable_jprobe(j), 0);
            hit(REC);
            assert!(sys::function_return(&mut regs));
            assert_eq!(calls(), ["entry40", "pre1", "j 0 0 0 0 0 0", "ret40"]);
            let mut v = [j];
            unregister_jprobes(v.as_mut_ptr(), 1);
            hit(REC);
            assert!(sys::function_return(&mut regs));
            assert_eq!(calls(), ["entry40", "pre1", "ret40"]);
            unregister_kretprobe(rp);
        }
        unreg(p);
    }

    #[test]
    fn register_jprobes_registers_all_and_unregister_jprobes_removes_all() {
        let _g = sys::exclusive();
        let _t = kernel();
        let mut v = [jp(F0), jp(F1), jp(F2), jp(F1)];
        // SAFETY: as above.
        unsafe {
            assert_eq!(register_jprobes(v.as_mut_ptr(), 4), 0);
            hit_args(F1, [2, 0, 0, 0, 0, 0]);
            assert_eq!(
                calls(),
                ["j 2 0 0 0 0 0", "j 2 0 0 0 0 0"],
                "two jprobes on one function"
            );
            unregister_jprobes(v.as_mut_ptr(), 4);
        }
        assert!(crate::debugfs_list_is_empty());
        assert_eq!(arch(|a| a.ftrace_ops_registered()), [false, false]);
    }

    #[test]
    fn a_jprobe_on_a_going_module_is_gone_and_unregisters() {
        let _g = sys::exclusive();
        let _t = kernel();
        let m = module();
        let j = jp(MODT);
        // SAFETY: as above; the test module is live.
        unsafe {
            assert_eq!(register_jprobe(j), 0);
            (*m).state = ModState::Going;
            kprobes_rust_module_callback(sys::MODULE_STATE_GOING, m);
            assert_eq!(
                flags(ptr::addr_of!((*j).kp)) & KPROBE_FLAG_GONE,
                KPROBE_FLAG_GONE
            );
            assert!(
                list_text().contains("  j  mod_fn+0x0    [GONE]"),
                "{}",
                list_text()
            );
            hit(MODT);
            assert!(calls().is_empty());
            assert_eq!(enable_jprobe(j), -sys::EINVAL);
            unregister_jprobe(j);
        }
        assert!(crate::debugfs_list_is_empty());
    }
}
