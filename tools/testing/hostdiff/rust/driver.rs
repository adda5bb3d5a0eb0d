// SPDX-License-Identifier: GPL-2.0

//! The driver of hostdiff-rust: port of `driver.c` (the sequence grammar,
//! the K0..K15 / R0..R7 pools, the handlers, the liveness rules, `check`,
//! the `dump-*` operations) and of the x86 trap paths of `arch.c`
//! (`hit`: int3, optimized jump, ftrace).  MODEL.md sections 2-4.
//!
//! Exit status: 0 done, 2 bad sequence (as hostdiff-c), abort on a violated
//! kernel rule (`sys::fatal`).

use crate::exports as core_api;
use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use crate::sys::{self, trace, PtRegs};
use crate::types::{Kprobe, Kretprobe, KretprobeInstance, OptimizedKprobe, KPROBE_FLAG_DISABLED};
use core::ptr::{addr_of_mut, null_mut};

const NK: usize = 16;
const NR: usize = 8;
const MAXTOK: usize = 40;

const PRE_NONE: u8 = 0;
const PRE_OK: u8 = 1;
const PRE_RET1: u8 = 2;
const PRE_HIT: u8 = 3;

/// `struct hd_kp` (all-zero is a valid value).
#[repr(C)]
struct HdKp {
    kp: Kprobe,
    sym: [u8; 64],
    pre: u8,
    pre_target: usize,
    post: bool,
    live: bool,
    leaked: bool,
}

/// `struct hd_rp` (all-zero is a valid value).
#[repr(C)]
struct HdRp {
    rp: Kretprobe,
    sym: [u8; 64],
    entry: i32,
    handler: bool,
    live: bool,
    leaked: bool,
}

static mut KPS: [core::mem::MaybeUninit<HdKp>; NK] = [const { core::mem::MaybeUninit::zeroed() }; NK];
static mut RPS: [core::mem::MaybeUninit<HdRp>; NR] = [const { core::mem::MaybeUninit::zeroed() }; NR];
static mut HD_SEQ: c_ulong = 0;
static mut LINENO: usize = 0;
static mut HANDLER_CALLS: usize = 0;

fn kp(i: usize) -> *mut HdKp {
    // SAFETY: the pool is zero-initialized, which is a valid HdKp; only its
    // address is taken here.
    unsafe { (&raw mut KPS).cast::<HdKp>().add(i) }
}

fn rp(i: usize) -> *mut HdRp {
    // SAFETY: as for `kp()`.
    unsafe { (&raw mut RPS).cast::<HdRp>().add(i) }
}

fn usage(msg: &str) -> ! {
    sys::flush();
    // SAFETY: single-threaded.
    let line = unsafe { LINENO };
    eprintln!("hostdiff-rust: line {line}: {msg}");
    std::process::exit(2);
}

/// `hd_probe_name()`.
fn probe_name(p: *const Kprobe) -> String {
    for i in 0..NK {
        // SAFETY: pool address arithmetic only.
        if p == unsafe { addr_of_mut!((*kp(i)).kp) } as *const Kprobe {
            return format!("K{i}");
        }
    }
    for i in 0..NR {
        // SAFETY: as above.
        if p == unsafe { addr_of_mut!((*rp(i)).rp.kp) } as *const Kprobe {
            return format!("R{i}");
        }
    }
    "?".into()
}

// ---- handlers ----------------------------------------------------------------

fn count_call() {
    // SAFETY: single-threaded.
    let n = unsafe {
        HANDLER_CALLS += 1;
        HANDLER_CALLS
    };
    if n > 1000 {
        sys::fatal("runaway: more than 1000 handler calls in one operation");
    }
}

unsafe extern "C" fn pre_handler(p: *mut Kprobe, _regs: *mut PtRegs) -> c_int {
    count_call();
    // SAFETY: `p` is the `kp` (first member) of a pool entry.
    let (pre, target) = unsafe {
        let k = p.cast::<HdKp>();
        ((*k).pre, (*k).pre_target)
    };
    match pre {
        PRE_RET1 => {
            trace(&format!("pre {} = 1", probe_name(p)));
            1
        }
        PRE_HIT => {
            trace(&format!("pre {} calls {}", probe_name(p), sys::sym(target)));
            hit(target);
            0
        }
        _ => {
            trace(&format!("pre {}", probe_name(p)));
            0
        }
    }
}

unsafe extern "C" fn post_handler(p: *mut Kprobe, _regs: *mut PtRegs, _flags: c_ulong) {
    count_call();
    trace(&format!("post {}", probe_name(p)));
}

/// `get_kretprobe(ri)`.
unsafe fn get_kretprobe(ri: *mut KretprobeInstance) -> *mut Kretprobe {
    // SAFETY: caller's contract: a live instance of a live rethook.
    unsafe { (*(*ri).node.rethook).data.cast() }
}

unsafe extern "C" fn entry_handler(ri: *mut KretprobeInstance, _regs: *mut PtRegs) -> c_int {
    // SAFETY: `ri` is a live instance; its kretprobe is a pool entry.
    unsafe {
        let r = get_kretprobe(ri);
        let h = r.cast::<HdRp>();
        HD_SEQ += 1;
        let seq = HD_SEQ;
        if (*r).data_size >= core::mem::size_of::<c_ulong>() {
            core::ptr::copy_nonoverlapping((&raw const seq).cast::<u8>(), addr_of_mut!((*ri).data).cast::<u8>(), 8);
        }
        trace(&format!("entry {} = {} data={}", probe_name(addr_of_mut!((*r).kp)), (*h).entry, seq));
        (*h).entry
    }
}

unsafe extern "C" fn ret_handler(ri: *mut KretprobeInstance, _regs: *mut PtRegs) -> c_int {
    // SAFETY: as for `entry_handler`.
    unsafe {
        let r = get_kretprobe(ri);
        if (*r).data_size >= core::mem::size_of::<c_ulong>() {
            let mut d: c_ulong = 0;
            core::ptr::copy_nonoverlapping(addr_of_mut!((*ri).data).cast::<u8>(), (&raw mut d).cast::<u8>(), 8);
            trace(&format!("return {} data={}", probe_name(addr_of_mut!((*r).kp)), d));
        } else {
            trace(&format!("return {}", probe_name(addr_of_mut!((*r).kp))));
        }
    }
    0
}

// ---- trap paths (arch.c) --------------------------------------------------------

/// x86 `kprobe_ftrace_handler()`.
fn kprobe_ftrace_handler(ip: usize) {
    // SAFETY: a plain read of the core's flag.
    if unsafe { core::ptr::read_volatile(&raw const crate::ftrace::kprobe_ftrace_disabled) } {
        return;
    }
    if sys::with(|m| m.ftrace_recursion) >= 2 {
        trace("ftrace recursion");
        return;
    }
    sys::with(|m| m.ftrace_recursion += 1);
    sys::preempt_disable();
    let mut regs = PtRegs { ip, sp: 0 };
    // SAFETY: preemption disabled, as the core requires.
    let p = unsafe { core_api::get_kprobe(ip as *mut c_void) };
    // SAFETY: a hashed probe stays live in this section.
    if !p.is_null() && !unsafe { crate::flags::disabled(p) } {
        if !sys::kprobe_running().is_null() {
            // SAFETY: as above.
            unsafe { core_api::kprobes_inc_nmissed_count(p) };
        } else {
            regs.ip = ip + 1;
            sys::set_current_kprobe(p);
            sys::set_kprobe_status(sys::KPROBE_HIT_ACTIVE);
            // SAFETY: as above.
            unsafe {
                let pre_ret = match (*p).pre_handler {
                    None => 0,
                    Some(h) => h(p, &mut regs),
                };
                if pre_ret == 0 {
                    if let Some(post) = (*p).post_handler {
                        sys::set_kprobe_status(sys::KPROBE_HIT_SSDONE);
                        post(p, &mut regs, 0);
                    }
                }
            }
            sys::clear_current_kprobe();
        }
    }
    sys::preempt_enable();
    sys::with(|m| m.ftrace_recursion -= 1);
}

/// x86 `optimized_callback()`.
fn optimized_callback(op: *mut OptimizedKprobe, regs: &mut PtRegs) {
    // SAFETY: a jump's probe is live while the jump is in the text.
    unsafe {
        let p = addr_of_mut!((*op).kp);
        if crate::flags::disabled(p) {
            return;
        }
        sys::preempt_disable();
        if !sys::kprobe_running().is_null() {
            core_api::kprobes_inc_nmissed_count(p);
        } else {
            regs.ip = (*p).addr as usize + sys::INT3_INSN_SIZE;
            sys::set_current_kprobe(p);
            sys::set_kprobe_status(sys::KPROBE_HIT_ACTIVE);
            core_api::opt_pre_handler(p, regs);
            sys::clear_current_kprobe();
        }
        sys::preempt_enable();
    }
}

/// x86 `kprobe_int3_handler()`.
fn kprobe_int3_handler(a: usize, regs: &mut PtRegs) {
    sys::preempt_disable();
    // SAFETY: preemption disabled.
    let p = unsafe { core_api::get_kprobe(a as *mut c_void) };
    if p.is_null() {
        trace(&format!("!int3 without kprobe {}", sys::sym(a)));
    } else if !sys::kprobe_running().is_null() {
        match sys::kprobe_status() {
            sys::KPROBE_HIT_SSDONE | sys::KPROBE_HIT_ACTIVE | sys::KPROBE_HIT_SS => {
                // SAFETY: a hashed probe, preemption disabled.
                unsafe { core_api::kprobes_inc_nmissed_count(p) }
            }
            _ => sys::fatal("Unrecoverable kprobe detected"),
        }
    } else {
        sys::set_current_kprobe(p);
        sys::set_kprobe_status(sys::KPROBE_HIT_ACTIVE);
        // SAFETY: a hashed probe, preemption disabled.
        unsafe {
            let pre_ret = match (*p).pre_handler {
                None => 0,
                Some(h) => h(p, regs),
            };
            if pre_ret == 0 {
                // single-step, then kprobe_post_process()
                sys::set_kprobe_status(sys::KPROBE_HIT_SSDONE);
                if let Some(post) = (*p).post_handler {
                    post(p, regs, 0);
                }
            }
        }
        sys::clear_current_kprobe();
    }
    sys::preempt_enable();
}

/// `hd_hit()`: execution reaches `a`.
fn hit(a: usize) {
    let mut regs = PtRegs { ip: a + 1, sp: 0 };
    let (int3, jump) = sys::text_at(a);
    if int3 {
        trace(&format!("trap int3 {}", sys::sym(a)));
        if let Some(j) = jump {
            trace(&format!("!text int3 over the jump of {}: resumes inside the jump", sys::sym(j.addr)));
        }
        kprobe_int3_handler(a, &mut regs);
        return;
    }
    if let Some(j) = jump {
        if j.addr != a {
            trace(&format!("trap none (inside optimized jump of {})", sys::sym(j.addr)));
            return;
        }
        trace(&format!("trap jump {}", sys::sym(a)));
        optimized_callback(j.op, &mut regs);
        return;
    }
    let mut trapped = false;
    if sys::ftrace_location(a) == a {
        let list = sys::with(|m| m.ops_list);
        for o in list.into_iter().flatten() {
            if !sys::ftrace_match(o, a) {
                continue;
            }
            trace(&format!("trap ftrace {} {}", sys::ops_name(o), sys::sym(a)));
            trapped = true;
            kprobe_ftrace_handler(a);
        }
    }
    if !trapped {
        trace(&format!("trap none {}", sys::sym(a)));
    }
}

// ---- parsing -----------------------------------------------------------------------

fn index_of(t: Option<&str>, c: char, n: usize) -> usize {
    let Some(t) = t.filter(|t| t.starts_with(c)) else {
        usage(&format!("expected {c}<n>, got '{}'", t.unwrap_or("")));
    };
    let rest = &t.as_bytes()[1..];
    let (v, used) = sys::strtol(rest, 10);
    if used != rest.len() || v < 0 || v >= n as i64 {
        usage(&format!("bad object '{t}'"));
    }
    v as usize
}

fn target(t: &str) -> usize {
    sys::resolve(t).unwrap_or_else(|| usage(&format!("unknown location '{t}'")))
}

fn num(t: &str) -> u64 {
    let (v, used) = sys::strtoul(t.as_bytes(), 0);
    if used != t.len() {
        usage(&format!("bad number '{t}'"));
    }
    v
}

/// `snprintf(buf, 64, "%s", s)` into `buf`.
fn set_name(buf: &mut [u8; 64], s: &str) -> *const c_char {
    let b = s.as_bytes();
    let n = b.len().min(63);
    buf[..n].copy_from_slice(&b[..n]);
    buf[n] = 0;
    buf.as_ptr()
}

/// Common probe fields: `sym=`, `addr=`, `off=`, `disabled`.
fn spec_common(p: &mut Kprobe, symbuf: &mut [u8; 64], t: &str) -> bool {
    if let Some(v) = t.strip_prefix("sym=") {
        p.symbol_name = set_name(symbuf, v);
    } else if let Some(v) = t.strip_prefix("addr=") {
        p.addr = target(v) as *mut u8;
    } else if let Some(v) = t.strip_prefix("off=") {
        p.offset = num(v) as c_uint;
    } else if t == "disabled" {
        p.flags |= KPROBE_FLAG_DISABLED;
    } else {
        return false;
    }
    true
}

fn kp_set(i: usize, tok: &[String], from: usize) -> bool {
    // SAFETY: a pool entry; no other reference to it is live.
    let k = unsafe { &mut *kp(i) };
    if k.live || k.leaked {
        trace(&format!("skip K{i} ({})", if k.live { "registered" } else { "leaked" }));
        return false;
    }
    // SAFETY: all-zero is a valid HdKp (memset in C).
    unsafe { core::ptr::write_bytes(kp(i), 0, 1) };
    // SAFETY: as above.
    let k = unsafe { &mut *kp(i) };
    for t in &tok[from..] {
        if spec_common(&mut k.kp, &mut k.sym, t) {
            continue;
        }
        match t.as_str() {
            "pre=none" => k.pre = PRE_NONE,
            "pre=ok" => k.pre = PRE_OK,
            "pre=ret1" => k.pre = PRE_RET1,
            "post=ok" => k.post = true,
            "post=none" => k.post = false,
            _ => {
                if let Some(v) = t.strip_prefix("pre=hit:") {
                    k.pre = PRE_HIT;
                    k.pre_target = target(v);
                } else {
                    usage(&format!("bad kprobe field '{t}'"));
                }
            }
        }
    }
    k.kp.pre_handler = if k.pre == PRE_NONE { None } else { Some(pre_handler) };
    k.kp.post_handler = if k.post { Some(post_handler) } else { None };
    true
}

fn rp_set(i: usize, tok: &[String], from: usize) -> bool {
    // SAFETY: a pool entry; no other reference to it is live.
    let r = unsafe { &mut *rp(i) };
    if r.live || r.leaked {
        trace(&format!("skip R{i} ({})", if r.live { "registered" } else { "leaked" }));
        return false;
    }
    // SAFETY: all-zero is a valid HdRp (memset in C).
    unsafe { core::ptr::write_bytes(rp(i), 0, 1) };
    // SAFETY: as above.
    let r = unsafe { &mut *rp(i) };
    r.entry = -1;
    r.handler = true;
    for t in &tok[from..] {
        if spec_common(&mut r.rp.kp, &mut r.sym, t) {
            continue;
        }
        if let Some(v) = t.strip_prefix("maxactive=") {
            r.rp.maxactive = sys::strtol(v.as_bytes(), 0).0 as c_int;
        } else if let Some(v) = t.strip_prefix("data=") {
            r.rp.data_size = num(v) as usize;
        } else {
            match t.as_str() {
                "entry=none" => r.entry = -1,
                "entry=ok" => r.entry = 0,
                "entry=ret1" => r.entry = 1,
                "handler=none" => r.handler = false,
                "handler=ok" => r.handler = true,
                _ => usage(&format!("bad kretprobe field '{t}'")),
            }
        }
    }
    r.rp.entry_handler = if r.entry >= 0 { Some(entry_handler) } else { None };
    r.rp.handler = if r.handler { Some(ret_handler) } else { None };
    true
}

/// Re-registration is defined only where upstream detects it (by symbol,
/// or by address with offset 0).
fn rereg_undefined(p: *const Kprobe, name: &str) -> bool {
    // SAFETY: a pool entry.
    let (symn, off) = unsafe { ((*p).symbol_name, (*p).offset) };
    if !symn.is_null() || off == 0 {
        return false;
    }
    trace(&format!("skip {name} (registered by addr+offset: re-registration undefined)"));
    true
}

/// `hd_kprobe_reachable()`: hashed, or on the list of a hashed aggregate.
fn reachable(p: *mut Kprobe) -> bool {
    let mut found = false;
    // SAFETY: single-threaded, outside any core operation: the table and
    // the aggregate lists are stable.
    unsafe {
        crate::registry::for_each_hashed(&crate::locks::kprobe_mutex(), |q| {
            let q = q.as_ptr();
            if q == p {
                found = true;
            }
            if crate::probe::Probe::from_raw(q).is_aggr() {
                for l in crate::list::iter_rcu(addr_of_mut!((*q).list)) {
                    if crate::container_of!(l, Kprobe, list) == p {
                        found = true;
                    }
                }
            }
        });
    }
    found
}

/// `hd_kprobe_stays_disabled()`: registered probe `p` is still disabled,
/// itself or the hashed aggregate it is on.
fn stays_disabled(p: *mut Kprobe) -> bool {
    let mut r = None;
    // SAFETY: as for `reachable()`.
    unsafe {
        crate::registry::for_each_hashed(&crate::locks::kprobe_mutex(), |q| {
            if r.is_some() {
                return;
            }
            let q = q.as_ptr();
            if q == p {
                r = Some(crate::flags::disabled(p));
            } else if crate::probe::Probe::from_raw(q).is_aggr() {
                for l in crate::list::iter_rcu(addr_of_mut!((*q).list)) {
                    if crate::container_of!(l, Kprobe, list) == p {
                        r = Some(crate::flags::disabled(p) || crate::flags::disabled(q));
                        break;
                    }
                }
            }
        });
    }
    r.unwrap_or(false)
}

/// The driver's note after an `enable` that returned 0 (driver.c
/// `enable_check()`; MODEL.md section 5, finding 5).
fn enable_check(p: *mut Kprobe, live: bool, r: c_int) {
    if r == 0 && live && stays_disabled(p) {
        trace(&format!("!enable {} returned 0 but the probe stays disabled", probe_name(p)));
    }
}

/// kprobes/enabled as its read op shows it: `b'1'` or `b'0'` (driver.c
/// `read_enabled()`).
fn read_enabled() -> u8 {
    let mut b = [0u8; 8];
    let mut pos: i64 = 0;
    // SAFETY: the debugfs read path with a valid buffer.
    let n = unsafe { core_api::read_enabled_file_bool(null_mut(), b.as_mut_ptr(), b.len() - 1, &mut pos) };
    if n > 0 {
        b[0]
    } else {
        b'?'
    }
}

/// arch.c `int3_idle()`: a hit on the int3 at `a` runs no handler (the
/// probe hashed there is a disabled aggregate, e.g. an unregistered
/// optimized probe the optimizer will disarm when its queued
/// unoptimization completes).
fn int3_idle(a: usize) -> bool {
    sys::preempt_disable();
    // SAFETY: preemption disabled; a hashed probe stays live meanwhile.
    let idle = unsafe {
        let p = core_api::get_kprobe(a as *mut c_void);
        !p.is_null() && crate::flags::disabled(p) && crate::probe::Probe::from_raw(p as *mut _).is_aggr()
    };
    sys::preempt_enable();
    idle
}

/// The driver's note after a write to kprobes/enabled that succeeded and
/// left kprobes globally disabled: every armed int3 and every jump of an
/// enabled optimized probe still in the text (driver.c `enabled_check()`,
/// arch.c `hd_text_armed_note()`; MODEL.md section 5, finding 6).
fn enabled_check(len: usize, r: isize) {
    if r != len as isize || read_enabled() != b'0' {
        return;
    }
    let (int3s, jumps) = sys::text_armed();
    for a in int3s {
        if !int3_idle(a) {
            trace(&format!("!kprobes/enabled is 0 but the int3 at {} stays armed", sys::sym(a)));
        }
    }
    for j in jumps {
        // SAFETY: a jump's probe is live while the jump is in the text.
        if !unsafe { crate::flags::disabled(core::ptr::addr_of!((*j.op).kp)) } {
            trace(&format!("!kprobes/enabled is 0 but the jump at {} stays armed", sys::sym(j.addr)));
        }
    }
}

fn update(live: *mut bool, leaked: *mut bool, p: *mut Kprobe, unregistering: bool) {
    let now = reachable(p);
    // SAFETY: fields of a pool entry.
    unsafe {
        if now && unregistering && !*leaked {
            *leaked = true;
            trace(&format!("!leaked {} (still registered after unregister)", probe_name(p)));
        }
        *live = now;
    }
}

fn kupdate(i: usize, unreg: bool) {
    let k = kp(i);
    // SAFETY: field addresses of a pool entry.
    unsafe { update(addr_of_mut!((*k).live), addr_of_mut!((*k).leaked), addr_of_mut!((*k).kp), unreg) }
}

fn rupdate(i: usize, unreg: bool) {
    let r = rp(i);
    // SAFETY: field addresses of a pool entry.
    unsafe { update(addr_of_mut!((*r).live), addr_of_mut!((*r).leaked), addr_of_mut!((*r).rp.kp), unreg) }
}

fn ret(r: impl std::fmt::Display) {
    trace(&format!("= {r}"));
}

fn kprobe_of(i: usize) -> *mut Kprobe {
    // SAFETY: field address of a pool entry.
    unsafe { addr_of_mut!((*kp(i)).kp) }
}

fn kretprobe_of(i: usize) -> *mut Kretprobe {
    // SAFETY: field address of a pool entry.
    unsafe { addr_of_mut!((*rp(i)).rp) }
}

fn klive(i: usize) -> bool {
    // SAFETY: a pool entry.
    unsafe { (*kp(i)).live }
}

fn rlive(i: usize) -> (bool, bool) {
    // SAFETY: a pool entry.
    unsafe { ((*rp(i)).live, (*rp(i)).leaked) }
}

// ---- operations ----------------------------------------------------------------------

/// Splits the seq_file text as `strtok(buf, "\n")` does.
fn trace_seq(out: &[u8]) {
    for l in out.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        let mut line = b"  | ".to_vec();
        line.extend_from_slice(l);
        line.push(b'\n');
        sys::out_bytes(&line);
    }
    trace("| end");
}

fn op_list() {
    let mut m = sys::SeqFile::default();
    let mut pos: i64 = 0;
    // SAFETY: the seq_file callbacks of kprobes/list, called as seq_read() does.
    unsafe {
        let mut v = core_api::kprobe_seq_start(&mut m, &mut pos);
        while !v.is_null() {
            core_api::show_kprobe_addr(&mut m, v);
            v = core_api::kprobe_seq_next(&mut m, v, &mut pos);
        }
        core_api::kprobe_seq_stop(&mut m, v);
    }
    trace_seq(&m.out);
}

fn op_blacklist() {
    let mut m = sys::SeqFile::default();
    let mut pos: i64 = 0;
    // SAFETY: the seq_file callbacks of kprobes/blacklist.
    unsafe {
        let mut v = core_api::kprobe_blacklist_seq_start(&mut m, &mut pos);
        while !v.is_null() {
            core_api::kprobe_blacklist_seq_show(&mut m, v);
            v = core_api::kprobe_blacklist_seq_next(&mut m, v, &mut pos);
        }
        core_api::kprobe_blacklist_seq_stop(&mut m, v);
    }
    trace_seq(&m.out);
}

fn notify(val: c_ulong) {
    if sys::module_notifier_registered() {
        // SAFETY: the module notifier with the model's live module.
        unsafe { core_api::kprobes_rust_module_callback(val, sys::m0()) };
    }
}

fn op_module(what: &str, tok: &[String]) {
    if tok.len() != 2 || tok[1] != "m0" {
        usage("only module m0 exists");
    }
    let m = sys::m0();
    // SAFETY: the model's module; no reference is held across core calls.
    unsafe {
        match what {
            "load" => {
                if (*m).loaded {
                    trace("already loaded");
                    return;
                }
                (*m).loaded = true;
                (*m).state = sys::MODULE_STATE_COMING;
                (*m).core = (sys::M, sys::M + 0xc0);
                (*m).init = (sys::MI, sys::MI + 0x40);
                notify(sys::MODULE_STATE_COMING);
            }
            "init-done" => {
                if !(*m).loaded || (*m).state != sys::MODULE_STATE_COMING {
                    trace("not coming");
                    return;
                }
                (*m).state = sys::MODULE_STATE_LIVE;
                notify(sys::MODULE_STATE_LIVE);
                let (s, e) = (*m).init;
                sys::text_forget(s, e);
                (*m).init = (0, 0);
            }
            _ => {
                if !(*m).loaded {
                    trace("not loaded");
                    return;
                }
                (*m).state = sys::MODULE_STATE_GOING;
                notify(sys::MODULE_STATE_GOING);
                if (*m).refs != 0 {
                    trace(&format!("!module refs={} at unload", (*m).refs));
                }
                (*m).loaded = false;
                let (cs, ce) = (*m).core;
                sys::text_forget(cs, ce);
                let (is, ie) = (*m).init;
                sys::text_forget(is, ie);
                (*m).core = (0, 0);
                (*m).init = (0, 0);
            }
        }
    }
}

fn op_check() {
    sys::text_check();
    let list = sys::with(|m| m.ops_list);
    for o in list.into_iter().flatten() {
        let f = sys::with(|m| m.ops[o].filter.clone());
        let b: String = f.iter().map(|&a| format!(" {}", sys::sym(a))).collect();
        trace(&format!("ftrace {} registered filter:{}", sys::ops_name(o), b));
    }
    let frames = sys::rethook_pending();
    if frames != 0 {
        trace(&format!("rethook nodes pending={frames}"));
    }
    if sys::work_pending() {
        trace("optimizer work pending");
    }
    for i in 0..NK {
        if klive(i) {
            // SAFETY: a pool entry.
            trace(&format!("live K{i} flags=0x{:x}", unsafe { (*kp(i)).kp.flags }));
        }
    }
    for i in 0..NR {
        if rlive(i).0 {
            // SAFETY: a pool entry.
            trace(&format!("live R{i} flags=0x{:x}", unsafe { (*rp(i)).rp.kp.flags }));
        }
    }
}

fn sysctl_table() -> sys::CtlTable {
    sys::CtlTable { data: &raw mut crate::opt::sysctl_kprobes_optimization }
}

fn run(tok: &[String]) {
    let op = tok[0].as_str();
    let t1 = tok.get(1).map(|s| s.as_str());
    let ntok = tok.len();
    match op {
        "set" => {
            kp_set(index_of(t1, 'K', NK), tok, 2);
        }
        "reg" | "rereg" => {
            let i = index_of(t1, 'K', NK);
            if op == "reg" && ntok > 2 && !kp_set(i, tok, 2) {
                return;
            }
            if klive(i) && rereg_undefined(kprobe_of(i), &tok[1]) {
                return;
            }
            // SAFETY: a pool probe, which stays alive.
            let r = unsafe { core_api::register_kprobe(kprobe_of(i)) };
            kupdate(i, false);
            ret(r);
        }
        "regs" => {
            let mut v: Vec<*mut Kprobe> = Vec::new();
            let mut idx = Vec::new();
            let mut was = Vec::new();
            for t in &tok[1..] {
                let k = index_of(Some(t), 'K', NK);
                let p = kprobe_of(k);
                let dup = v.contains(&p);
                v.push(p);
                idx.push(k);
                was.push(klive(k));
                if (klive(k) || dup) && rereg_undefined(p, t) {
                    return;
                }
            }
            // SAFETY: pool probes.
            let r = unsafe { core_api::register_kprobes(v.as_mut_ptr(), v.len() as c_int) };
            for (n, &k) in idx.iter().enumerate() {
                kupdate(k, r != 0 && !was[n]);
            }
            ret(r);
        }
        "unreg" | "unregs" => {
            if op == "unreg" && ntok != 2 {
                usage("unreg takes one probe");
            }
            let idx: Vec<usize> = tok[1..].iter().map(|t| index_of(Some(t), 'K', NK)).collect();
            let mut v: Vec<*mut Kprobe> = idx.iter().map(|&k| kprobe_of(k)).collect();
            let was: Vec<bool> = idx.iter().map(|&k| klive(k)).collect();
            // SAFETY: pool probes.
            unsafe {
                if op == "unreg" {
                    core_api::unregister_kprobe(v[0]);
                } else {
                    core_api::unregister_kprobes(v.as_mut_ptr(), v.len() as c_int);
                }
            }
            for (n, &k) in idx.iter().enumerate() {
                kupdate(k, was[n]);
            }
        }
        "enable" | "disable" => {
            let i = index_of(t1, 'K', NK);
            // SAFETY: a pool probe.
            let r = unsafe {
                if op == "enable" { core_api::enable_kprobe(kprobe_of(i)) } else { core_api::disable_kprobe(kprobe_of(i)) }
            };
            ret(r);
            if op == "enable" {
                enable_check(kprobe_of(i), klive(i), r);
            }
        }
        "kret-set" => {
            rp_set(index_of(t1, 'R', NR), tok, 2);
        }
        "kret-reg" => {
            let i = index_of(t1, 'R', NR);
            if ntok > 2 && !rp_set(i, tok, 2) {
                return;
            }
            // SAFETY: field address of a pool entry.
            if rlive(i).0 && rereg_undefined(unsafe { addr_of_mut!((*kretprobe_of(i)).kp) }, &tok[1]) {
                return;
            }
            // SAFETY: a pool kretprobe, which stays alive.
            let r = unsafe { core_api::register_kretprobe(kretprobe_of(i)) };
            rupdate(i, false);
            ret(r);
        }
        "kret-regs" => {
            let mut v: Vec<*mut Kretprobe> = Vec::new();
            let mut idx = Vec::new();
            let mut was = Vec::new();
            for t in &tok[1..] {
                let k = index_of(Some(t), 'R', NR);
                let p = kretprobe_of(k);
                let dup = v.contains(&p);
                v.push(p);
                idx.push(k);
                was.push(rlive(k).0);
                // SAFETY: field address of a pool entry.
                if (rlive(k).0 || dup) && rereg_undefined(unsafe { addr_of_mut!((*p).kp) }, t) {
                    return;
                }
            }
            // SAFETY: pool kretprobes.
            let r = unsafe { core_api::register_kretprobes(v.as_mut_ptr(), v.len() as c_int) };
            for (n, &k) in idx.iter().enumerate() {
                rupdate(k, r != 0 && !was[n]);
            }
            ret(r);
        }
        "kret-unreg" | "kret-unregs" | "kret-unreg-live" => {
            if op == "kret-unreg" && ntok != 2 {
                usage("kret-unreg takes one kretprobe");
            }
            let mut idx: Vec<usize> = Vec::new();
            if op == "kret-unreg-live" {
                for i in 0..NR {
                    let (live, leaked) = rlive(i);
                    if live && !leaked {
                        idx.push(i);
                    }
                }
            } else {
                for t in &tok[1..] {
                    let k = index_of(Some(t), 'R', NR);
                    let dup = idx.contains(&k);
                    let (live, leaked) = rlive(k);
                    if !live || leaked || dup {
                        let why = if dup { "twice" } else if leaked { "leaked" } else { "not registered" };
                        trace(&format!("skip R{k} ({why})"));
                        continue;
                    }
                    idx.push(k);
                }
            }
            if idx.is_empty() {
                return;
            }
            let mut v: Vec<*mut Kretprobe> = idx.iter().map(|&k| kretprobe_of(k)).collect();
            // SAFETY: registered pool kretprobes.
            unsafe {
                if op == "kret-unreg" {
                    core_api::unregister_kretprobe(v[0]);
                } else {
                    core_api::unregister_kretprobes(v.as_mut_ptr(), v.len() as c_int);
                }
            }
            for &k in &idx {
                rupdate(k, true);
            }
        }
        "kret-enable" | "kret-disable" => {
            let i = index_of(t1, 'R', NR);
            // SAFETY: field address of a pool kretprobe.
            let p = unsafe { addr_of_mut!((*kretprobe_of(i)).kp) };
            // SAFETY: a pool probe.
            let r = unsafe { if op == "kret-enable" { core_api::enable_kprobe(p) } else { core_api::disable_kprobe(p) } };
            ret(r);
            if op == "kret-enable" {
                enable_check(p, rlive(i).0, r);
            }
        }
        "hit" => {
            if ntok != 2 {
                usage("hit takes one location");
            }
            sys::with(|m| m.frame += 1);
            hit(target(&tok[1]));
        }
        "ret" => {
            if !sys::rethook_return() {
                trace("no hooked frame");
            }
        }
        "optimize" => {
            if !sys::flush_delayed_work() {
                trace("~work idle");
            }
        }
        "optimize-wait" => {
            sys::with(|m| m.relax_count = 0);
            core_api::wait_for_kprobe_optimizer();
        }
        "sysctl-opt" => {
            if ntok != 2 {
                usage("sysctl-opt takes a value");
            }
            let mut buf = tok[1].as_bytes().to_vec();
            let mut len = buf.len();
            let mut pos: i64 = 0;
            sys::with(|m| m.relax_count = 0);
            let table = sysctl_table();
            // SAFETY: the sysctl write path with a valid table and buffer.
            let r = unsafe { core_api::proc_kprobes_optimization_handler(&table, 1, buf.as_mut_ptr().cast(), &mut len, &mut pos) };
            ret(r);
        }
        "debugfs-enabled" => {
            if ntok != 2 {
                usage("debugfs-enabled takes a value");
            }
            sys::with(|m| m.relax_count = 0);
            let b = tok[1].as_bytes();
            let mut pos: i64 = 0;
            // SAFETY: the debugfs write path with a valid buffer.
            let r = unsafe { core_api::write_enabled_file_bool(null_mut(), b.as_ptr(), b.len(), &mut pos) };
            ret(r);
            enabled_check(b.len(), r);
        }
        "debugfs-read-enabled" => {
            let mut b = [0u8; 8];
            let mut pos: i64 = 0;
            // SAFETY: the debugfs read path with a valid buffer.
            let n = unsafe { core_api::read_enabled_file_bool(null_mut(), b.as_mut_ptr(), b.len() - 1, &mut pos) };
            let mut line = format!("  = {n} '").into_bytes();
            line.push(b[0]);
            line.extend_from_slice(b"'\n");
            sys::out_bytes(&line);
        }
        "module-load" => op_module("load", tok),
        "module-init-done" => op_module("init-done", tok),
        "module-unload" => op_module("unload", tok),
        "free-init" => {
            if sys::with(|m| m.init_freed) {
                trace("already freed");
                return;
            }
            sys::with(|m| m.init_freed = true);
            core_api::kprobe_free_init_mem();
            let (s, e) = sys::init_area();
            sys::text_forget(s, e);
        }
        "dump-list" => op_list(),
        "dump-blacklist" => op_blacklist(),
        "dump-kallsyms" => {
            let mut n: c_uint = 0;
            loop {
                let mut value: c_ulong = 0;
                let mut ty: c_char = 0;
                let mut name = [0 as c_char; sys::KSYM_NAME_LEN];
                // SAFETY: valid out pointers, `name` of KSYM_NAME_LEN bytes.
                if unsafe { core_api::kprobe_get_kallsym(n, &mut value, &mut ty, name.as_mut_ptr()) } != 0 {
                    break;
                }
                let len = name.iter().position(|&c| c == 0).unwrap_or(name.len());
                let nm = String::from_utf8_lossy(&name[..len]);
                trace(&format!("kallsym {} {} {} {}", n, ty as char, nm, sys::page(value as usize)));
                n += 1;
            }
        }
        "flags" | "nmissed" => {
            if ntok != 2 {
                usage(&format!("{op} takes one probe"));
            }
            let is_r = tok[1].starts_with('R');
            let p = if is_r {
                // SAFETY: field address of a pool entry.
                unsafe { addr_of_mut!((*kretprobe_of(index_of(t1, 'R', NR))).kp) }
            } else {
                kprobe_of(index_of(t1, 'K', NK))
            };
            // SAFETY: a pool probe.
            unsafe {
                if op == "flags" {
                    let a = if (*p).addr.is_null() { "null".to_string() } else { sys::sym((*p).addr as usize) };
                    trace(&format!("flags=0x{:x} addr={}", (*p).flags, a));
                } else if is_r {
                    let r = crate::container_of!(p, Kretprobe, kp);
                    trace(&format!("nmissed={} kp.nmissed={}", (*r).nmissed, (*p).nmissed));
                } else {
                    trace(&format!("nmissed={}", (*p).nmissed));
                }
            }
        }
        "check" => op_check(),
        _ => usage(&format!("unknown op '{op}'")),
    }
}

/// `main()` of the driver.
pub fn main() {
    let args: Vec<String> = std::env::args().collect();
    let input: Vec<u8> = if args.len() > 1 {
        match std::fs::read(&args[1]) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{}: {e}", args[1]);
                std::process::exit(2);
            }
        }
    } else {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut b);
        b
    };
    sys::init_static_data();
    sys::out_line("> boot");
    // SAFETY: boot, once: the early, subsys and late initcalls.
    unsafe {
        core_api::kprobes_rust_init();
    }
    core_api::kprobes_rust_init_optprobes();
    sys::rcu_quiesce();
    for raw in input.split(|&c| c == b'\n') {
        // SAFETY: single-threaded.
        unsafe { LINENO += 1 };
        let line = match raw.iter().position(|&c| c == b'#') {
            Some(h) => &raw[..h],
            None => raw,
        };
        let line = String::from_utf8_lossy(line);
        let tok: Vec<String> = line.split([' ', '\t', '\r']).filter(|t| !t.is_empty()).map(String::from).collect();
        if tok.is_empty() {
            continue;
        }
        if tok.len() > MAXTOK {
            usage("too many fields");
        }
        sys::out_line(&format!("> {}", tok.join(" ")));
        // SAFETY: single-threaded.
        unsafe { HANDLER_CALLS = 0 };
        run(&tok);
        sys::rcu_quiesce();
    }
    sys::flush();
}
