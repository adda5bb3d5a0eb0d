// SPDX-License-Identifier: GPL-2.0

//! The simulated kernel of the host differential (MODEL.md section 1) as
//! the core's `sys` module: the same API surface as `rust-core/host/sim.rs`
//! (names, signatures, types), with the semantics of `model.c` (services)
//! and `arch.c` (x86 arch layer), writing the same trace lines at the same
//! points.  Where MODEL.md says "as upstream", the C of model.c/arch.c is
//! what this file mirrors, line by line where the order of trace lines or
//! of array updates is observable.
//!
//! Single-threaded: the state lives in thread-locals (`M`, the model; `OUT`,
//! the trace) and in a few `static mut`s the core needs by address (the
//! insn caches, module m0).  No borrow of the model is held across a call
//! into the core, which may call back into this module.

use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
pub use crate::ktypes::{ArchOptimizedInsn, ArchSpecificInsn, Mutex, PtRegs, Rethook, RethookHandler, RethookNode};
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, KretprobeBlackpoint, ListHead, OptimizedKprobe};
use std::cell::RefCell;
use std::ffi::CStr;
use std::io::Write;

// ---------------------------------------------------------------------------
// Trace, fatal errors.

thread_local! {
    static OUT: RefCell<std::io::BufWriter<std::io::Stdout>> =
        RefCell::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout()));
}

/// Writes a raw line (no indentation) to the trace.
pub fn out_line(s: &str) {
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        let _ = o.write_all(s.as_bytes());
        let _ = o.write_all(b"\n");
    });
}

/// Writes raw bytes (one event line, indentation included) to the trace.
pub fn out_bytes(b: &[u8]) {
    OUT.with(|o| {
        let _ = o.borrow_mut().write_all(b);
    });
}

/// `hd_trace()`: one event line, indented by two blanks.
pub fn trace(s: &str) {
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        let _ = o.write_all(b"  ");
        let _ = o.write_all(s.as_bytes());
        let _ = o.write_all(b"\n");
    });
}

/// Flushes the trace.
pub fn flush() {
    OUT.with(|o| {
        let _ = o.borrow_mut().flush();
    });
}

/// `hd_fatal()`: a violated kernel rule; the trace so far is kept.
pub fn fatal(msg: &str) -> ! {
    flush();
    eprintln!("hostdiff-rust: FATAL: {msg}");
    std::process::abort();
}

/// `WARN_ON(1)` at `file:line` (the core's `warn_once!`): traced as `WARN`.
pub fn warn_at(_file: &'static str, _line: u32) {
    trace("WARN");
}

/// `WARN_ON(1)`.
pub fn warn() {
    trace("WARN");
}

/// `WARN(1, "Failed to unregister kprobe-ftrace ...")`.
pub fn warn_ftrace_unregister(_ret: c_int) {
    trace("WARN");
}

/// `WARN_ONCE(1, "Failed to disarm kprobe-ftrace ...")`.
pub fn warn_once_ftrace_disarm(_addr: *mut KprobeOpcode, _ret: c_int) {
    trace("WARN");
}

// ---------------------------------------------------------------------------
// Constants.

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = 4096;
/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = 512;
/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 = 2;
/// `ENOENT`.
pub const ENOENT: c_int = 2;
/// `E2BIG`.
pub const E2BIG: c_int = 7;
/// `ENOMEM`.
pub const ENOMEM: c_int = 12;
/// `EBUSY`.
pub const EBUSY: c_int = 16;
/// `EEXIST`.
pub const EEXIST: c_int = 17;
/// `EINVAL`.
pub const EINVAL: c_int = 22;
/// `ERANGE`.
pub const ERANGE: c_int = 34;
/// `EILSEQ`.
pub const EILSEQ: c_int = 84;
/// `NOTIFY_DONE`.
pub const NOTIFY_DONE: c_int = 0;
/// `MODULE_STATE_LIVE`.
pub const MODULE_STATE_LIVE: c_ulong = 0;
/// `MODULE_STATE_COMING`.
pub const MODULE_STATE_COMING: c_ulong = 1;
/// `MODULE_STATE_GOING`.
pub const MODULE_STATE_GOING: c_ulong = 2;
/// `KPROBE_HIT_ACTIVE`.
pub const KPROBE_HIT_ACTIVE: c_ulong = 1;
/// `KPROBE_HIT_SS`.
pub const KPROBE_HIT_SS: c_ulong = 2;
/// `KPROBE_HIT_SSDONE`.
pub const KPROBE_HIT_SSDONE: c_ulong = 8;
/// `MAX_INSN_SIZE` (x86).
pub const MAX_INSN_SIZE: usize = 16;
/// `MAX_OPTIMIZED_LENGTH` (x86: `MAX_INSN_SIZE + DISP32_SIZE`).
pub const MAX_OPTIMIZED_LENGTH: usize = MAX_INSN_SIZE + 4;
/// `JMP32_INSN_SIZE`.
pub const JMP32_INSN_SIZE: usize = 5;
/// `INT3_INSN_SIZE`.
pub const INT3_INSN_SIZE: usize = 1;
/// `MAX_OPTINSN_SIZE` (the model's: template 128 + 20 + 5 = 153).
pub fn max_optinsn_size() -> usize {
    128 + MAX_OPTIMIZED_LENGTH + JMP32_INSN_SIZE
}

// ---------------------------------------------------------------------------
// Types the core shares with the "kernel".

/// `struct ctl_table` (the fields the handler's helper reads).
#[repr(C)]
pub struct CtlTable {
    /// `data`.
    pub data: *mut c_int,
}

/// `struct file` (opaque).
pub struct File;

/// `struct seq_file`: the text shown so far.
#[derive(Default)]
pub struct SeqFile {
    /// Output.
    pub out: Vec<u8>,
}

pub use crate::types::ModuleAreas;

/// `struct module` (the model's m0).
pub struct Module {
    /// `name`.
    pub name: &'static str,
    /// `state` (`MODULE_STATE_*`).
    pub state: c_ulong,
    /// References held.
    pub refs: c_int,
    /// Loaded.
    pub loaded: bool,
    /// Core text `[start, end)`.
    pub core: (usize, usize),
    /// Init text `[start, end)` (empty once freed).
    pub init: (usize, usize),
    /// `kprobe_blacklist`.
    pub kprobe_blacklist: [usize; 1],
}

// ---------------------------------------------------------------------------
// The image (MODEL.md section 1, `hd_symbols` of model.c).

/// Core kernel text.
pub const T: usize = 0xffff_ffff_8100_0000;
/// Kernel data.
pub const D: usize = 0xffff_ffff_8200_0000;
/// Module m0 core text.
pub const M: usize = 0xffff_ffff_c000_0000;
/// Module m0 init text.
pub const MI: usize = 0xffff_ffff_c001_0000;

/// One symbol of the model.
pub struct Sym {
    /// Name.
    pub name: &'static str,
    /// Start.
    pub addr: usize,
    /// Size.
    pub size: usize,
    /// Text (else data).
    pub text: bool,
    /// 0: vmlinux, 1: m0 core, 2: m0 init.
    pub module: u8,
    /// Has an ftrace site at +0.
    pub ftrace: bool,
    /// The odd instruction layout of f3.
    pub odd: bool,
    /// `can_optimize()` fails.
    pub noopt: bool,
    /// Offset of a non-boostable instruction, or -1.
    pub nonboost: i64,
}

const fn s(name: &'static str, addr: usize, size: usize, text: bool, module: u8, ftrace: bool, odd: bool, noopt: bool, nonboost: i64) -> Sym {
    Sym { name, addr, size, text, module, ftrace, odd, noopt, nonboost }
}

/// `hd_symbols`.
pub static SYMBOLS: [Sym; 19] = [
    s("f0", T, 0x40, true, 0, true, false, false, -1),
    s("f1", T + 0x040, 0x40, true, 0, true, false, false, -1),
    s("f2", T + 0x080, 0x40, true, 0, false, false, false, -1),
    s("f3", T + 0x0c0, 0x40, true, 0, false, true, true, -1),
    s("f4", T + 0x100, 0x40, true, 0, true, false, false, 8),
    s("blacklisted_fn", T + 0x140, 0x40, true, 0, true, false, false, -1),
    s("kprobes_fn", T + 0x180, 0x40, true, 0, false, false, false, -1),
    s("f7", T + 0x1c0, 0x40, true, 0, false, false, false, -1),
    s("noinstr_fn", T + 0x200, 0x40, true, 0, false, false, false, -1),
    s("__pfx_f9", T + 0x240, 0x10, true, 0, false, false, false, -1),
    s("f9", T + 0x250, 0x30, true, 0, true, false, false, -1),
    s("blacklisted_fn.cold", T + 0x280, 0x40, true, 0, false, false, false, -1),
    s("entry_fn", T + 0x2c0, 0x40, true, 0, false, false, false, -1),
    s("init_fn", T + 0x400, 0x40, true, 0, false, false, false, -1),
    s("data_var", D, 0x40, false, 0, false, false, false, -1),
    s("m0_fn", M, 0x40, true, 1, true, false, false, -1),
    s("m0_fn2", M + 0x40, 0x40, true, 1, false, false, false, -1),
    s("m0_bl", M + 0x80, 0x40, true, 1, false, false, false, -1),
    s("m0_init", MI, 0x40, true, 2, false, false, false, -1),
];

const STATIC_CALLS: [usize; 1] = [T + 0x1d0];
const BUGS: [usize; 1] = [T + 0x1e0];
const KPROBES_TEXT: (usize, usize) = (T + 0x180, T + 0x1c0);
const NOINSTR_TEXT: (usize, usize) = (T + 0x200, T + 0x240);
const INIT_TEXT: (usize, usize) = (T + 0x400, T + 0x440);
const ENTRY_TEXT: (usize, usize) = (T + 0x2c0, T + 0x300);
static KPROBE_BLACKLIST_SYMS: [c_ulong; 2] = [(T + 0x140) as c_ulong, D as c_ulong];

/// Module m0.
pub static mut M0: Module = Module {
    name: "m0",
    state: MODULE_STATE_LIVE,
    refs: 0,
    loaded: false,
    core: (0, 0),
    init: (0, 0),
    kprobe_blacklist: [M + 0x80],
};

/// `&hd_m0`.
pub fn m0() -> *mut Module {
    &raw mut M0
}

fn present(s: &Sym) -> bool {
    // SAFETY: single-threaded; plain reads of the model's module.
    let (loaded, init) = unsafe { ((*m0()).loaded, (*m0()).init) };
    match s.module {
        1 => loaded,
        2 => loaded && init.1 > init.0,
        _ => true,
    }
}

/// `hd_model_sym()`: any model symbol containing `a`.
pub fn model_sym(a: usize) -> Option<&'static Sym> {
    SYMBOLS.iter().find(|s| a >= s.addr && a < s.addr + s.size)
}

/// `hd_present_sym()`: the kallsyms view.
pub fn present_sym(a: usize) -> Option<&'static Sym> {
    model_sym(a).filter(|s| present(s))
}

/// `hd_sym()`: `name+0xoff` over all model symbols, or `0xhex`.
pub fn sym(a: usize) -> String {
    match model_sym(a) {
        Some(s) => format!("{}+0x{:x}", s.name, a - s.addr),
        None => format!("0x{a:x}"),
    }
}

/// C `strtoul(s, &end, base)`: the value and the number of bytes used
/// (0 when no digits were converted).
pub fn strtoul(s: &[u8], base: u32) -> (u64, usize) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let mut base = base;
    let has_0x = i + 1 < s.len() && s[i] == b'0' && (s[i + 1] | 0x20) == b'x' && i + 2 < s.len() && (s[i + 2] as char).is_ascii_hexdigit();
    if (base == 0 || base == 16) && has_0x {
        i += 2;
        base = 16;
    } else if base == 0 {
        base = if i < s.len() && s[i] == b'0' { 8 } else { 10 };
    }
    let start = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < s.len() {
        let d = match (s[i] as char).to_digit(36) {
            Some(d) if d < base => d,
            _ => break,
        };
        match v.checked_mul(base as u64).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (0, 0);
    }
    if overflow {
        return (u64::MAX, i);
    }
    (if neg { v.wrapping_neg() } else { v }, i)
}

/// C `strtol(s, &end, base)` (for `long`): value and bytes used.
pub fn strtol(s: &[u8], base: u32) -> (i64, usize) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let rest = &s[i..];
    if rest.first().is_none_or(|&c| !(c as char).is_ascii_alphanumeric()) {
        return (0, 0);
    }
    let (mag, n) = strtoul(rest, base);
    if n == 0 {
        return (0, 0);
    }
    let v = if neg {
        if mag > (i64::MAX as u64) + 1 { i64::MIN } else { (mag as i64).wrapping_neg() }
    } else if mag > i64::MAX as u64 {
        i64::MAX
    } else {
        mag as i64
    };
    (v, i + n)
}

/// `hd_resolve()`: `NAME[+OFF]` or `0xHEX`.
pub fn resolve(spec: &str) -> Option<usize> {
    let b = spec.as_bytes();
    if b.starts_with(b"0x") {
        return Some(strtoul(b, 16).0 as usize);
    }
    let (name, off) = match spec.find('+') {
        Some(i) => (&spec[..i], strtoul(&b[i + 1..], 0).0 as usize),
        None => (spec, 0),
    };
    let name = if name.len() > 127 { &name[..127] } else { name };
    SYMBOLS.iter().find(|s| s.name == name).map(|s| s.addr.wrapping_add(off))
}

/// `hd_insn_boundary()`.
pub fn insn_boundary(s: &Sym, off: usize) -> Option<usize> {
    if off >= s.size {
        return None;
    }
    if s.odd {
        for (b, l) in [(0, 4), (4, 5), (9, 3)] {
            if off == b {
                return Some(l);
            }
        }
        if off < 12 || off % 4 != 0 {
            return None;
        }
    } else if off % 4 != 0 {
        return None;
    }
    Some(4)
}

fn overlaps(site: usize, start: usize, end: usize) -> bool {
    site <= end && site + 4 > start
}

/// `hd_reserved_site()`: a static call or a present ftrace site in
/// `[start, end]`.
pub fn reserved_site(start: usize, end: usize) -> bool {
    STATIC_CALLS.iter().any(|&x| overlaps(x, start, end))
        || SYMBOLS.iter().any(|s| s.ftrace && present(s) && overlaps(s.addr, start, end))
}

// ---------------------------------------------------------------------------
// The model's mutable state.

/// An optimized jump in the text model.
#[derive(Clone, Copy)]
pub struct Jump {
    /// Start.
    pub addr: usize,
    /// Size.
    pub size: usize,
    /// The optimized probe.
    pub op: *mut OptimizedKprobe,
}

/// An `ftrace_ops` of the model.
#[derive(Default, Clone)]
pub struct Ops {
    /// `FTRACE_OPS_FL_ENABLED`.
    pub enabled: bool,
    /// The filter, in insertion order.
    pub filter: Vec<usize>,
}

/// State of the simulated kernel.
#[derive(Default)]
pub struct Model {
    /// int3 addresses (array order as arch.c).
    pub int3s: Vec<usize>,
    /// Optimized jumps (array order as arch.c).
    pub jumps: Vec<Jump>,
    /// Insn pages, in allocation order (None once freed).
    pub pages: Vec<Option<usize>>,
    /// ftrace ops: 0 = `kprobe_ftrace_ops`, 1 = `kprobe_ipmodify_ops`.
    pub ops: [Ops; 2],
    /// Registered ops, most recent first (indices into `ops`).
    pub ops_list: [Option<usize>; 2],
    /// Nesting of `kprobe_ftrace_handler()`.
    pub ftrace_recursion: i32,
    /// `rcu_read_lock()` nesting.
    pub rcu_nesting: i32,
    /// `preempt_disable()` count.
    pub preempt: i32,
    /// `cpus_read_lock()` count.
    pub cpus_locked: i32,
    /// `kprobe_mutex`.
    pub kprobe_mutex: bool,
    /// `kprobe_sysctl_mutex`.
    pub sysctl_mutex: bool,
    /// `text_mutex`.
    pub text_mutex: bool,
    /// `jump_label_mutex`.
    pub jump_label_mutex: bool,
    /// `kfree_rcu()` objects, freed at the next quiescent state.
    pub rcu_frees: Vec<usize>,
    /// The optimizer's delayed work is pending.
    pub work_pending: bool,
    /// `cpu_relax()` calls in this operation.
    pub relax_count: i32,
    /// `current_kprobe`.
    pub current_kprobe: usize,
    /// `kprobe_ctlblk.kprobe_status`.
    pub kprobe_status: c_ulong,
    /// Hooked rethook nodes of the task, innermost first.
    pub task_rethooks: Vec<*mut RethookNode>,
    /// Rethooks allocated.
    pub rethook_ids: c_int,
    /// The current frame (`hit` count).
    pub frame: c_ulong,
    /// vmlinux init text freed.
    pub init_freed: bool,
    /// The module notifier is registered.
    pub module_nb: bool,
    /// The sysctl table is registered.
    pub sysctl_registered: bool,
}

thread_local! {
    static MODEL: RefCell<Model> = RefCell::new(Model::default());
}

/// Runs `f` on the model (never call into the core from `f`).
pub fn with<R>(f: impl FnOnce(&mut Model) -> R) -> R {
    MODEL.with(|m| f(&mut m.borrow_mut()))
}

// ---------------------------------------------------------------------------
// Memory.

const HDR: usize = 16;

/// `kmalloc()` (zeroed, which the core never relies on).
pub fn kmalloc(size: usize) -> *mut c_void {
    let layout = std::alloc::Layout::from_size_align(size + HDR, 16).unwrap();
    // SAFETY: non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        fatal("out of memory");
    }
    // SAFETY: `p` has room for the header; the result is within the block.
    unsafe {
        (p as *mut usize).write(size);
        p.add(HDR).cast()
    }
}

/// `kzalloc()`.
pub fn kzalloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or from [`kmalloc`], not freed yet.
pub unsafe fn kfree(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` came from kmalloc, which put the size HDR bytes before it.
    unsafe {
        let base = (p as *mut u8).sub(HDR);
        let size = (base as *mut usize).read();
        std::alloc::dealloc(base, std::alloc::Layout::from_size_align(size + HDR, 16).unwrap());
    }
}

/// `kfree_rcu(ptr, rcu)`: freed at the end of the operation.
///
/// # Safety
/// `p` came from [`kmalloc`] and is no longer reachable by new readers.
pub unsafe fn kfree_rcu(p: *mut c_void, _rcu: *mut crate::types::RcuHead) {
    with(|m| m.rcu_frees.push(p as usize));
}

// ---------------------------------------------------------------------------
// Locks, RCU, preemption, per-CPU state.

fn atomic_check(what: &str) {
    let (r, p) = with(|m| (m.rcu_nesting, m.preempt));
    if r != 0 || p != 0 {
        fatal(&format!("mutex_lock({what}) in atomic context"));
    }
}

fn lock_flag(what: &str, f: impl FnOnce(&mut Model) -> &mut bool) {
    atomic_check(what);
    with(|m| {
        let l = f(m);
        if *l {
            fatal(&format!("deadlock: {what} already held"));
        }
        *l = true;
    });
}

fn unlock_flag(what: &str, f: impl FnOnce(&mut Model) -> &mut bool) {
    with(|m| {
        let l = f(m);
        if !*l {
            fatal(&format!("mutex_unlock of unlocked {what}"));
        }
        *l = false;
    });
}

/// `mutex_lock()` of a cache mutex.
///
/// # Safety
/// `m` points to a live [`Mutex`].
pub unsafe fn mutex_lock(m: *mut Mutex) {
    atomic_check("cache mutex");
    // SAFETY: caller's contract.
    let l = unsafe { &(*m).locked };
    if l.get() {
        fatal("deadlock: cache mutex already held");
    }
    l.set(true);
}

/// `mutex_unlock()` of a cache mutex.
///
/// # Safety
/// `m` points to a live [`Mutex`].
pub unsafe fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: caller's contract.
    let l = unsafe { &(*m).locked };
    if !l.get() {
        fatal("mutex_unlock of unlocked cache mutex");
    }
    l.set(false);
}

/// `mutex_lock(&kprobe_mutex)`.
pub fn kprobe_mutex_lock() {
    lock_flag("kprobe_mutex", |m| &mut m.kprobe_mutex);
}
/// `mutex_unlock(&kprobe_mutex)`.
pub fn kprobe_mutex_unlock() {
    unlock_flag("kprobe_mutex", |m| &mut m.kprobe_mutex);
}
/// `mutex_lock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_lock() {
    lock_flag("kprobe_sysctl_mutex", |m| &mut m.sysctl_mutex);
}
/// `mutex_unlock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_unlock() {
    unlock_flag("kprobe_sysctl_mutex", |m| &mut m.sysctl_mutex);
}
/// `mutex_lock(&text_mutex)`.
pub fn text_mutex_lock() {
    lock_flag("text_mutex", |m| &mut m.text_mutex);
}
/// `mutex_unlock(&text_mutex)`.
pub fn text_mutex_unlock() {
    unlock_flag("text_mutex", |m| &mut m.text_mutex);
}
/// `jump_label_lock()`.
pub fn jump_label_lock() {
    lock_flag("jump_label_mutex", |m| &mut m.jump_label_mutex);
}
/// `jump_label_unlock()`.
pub fn jump_label_unlock() {
    unlock_flag("jump_label_mutex", |m| &mut m.jump_label_mutex);
}
/// Leaves a nesting counter (the CPU hotplug lock, preemption, RCU):
/// decrements it; below zero is an unbalanced unlock, fatal as in model.c.
fn leave(what: &str, counter: impl FnOnce(&mut Model) -> &mut i32) {
    if with(|m| {
        let c = counter(m);
        *c -= 1;
        *c < 0
    }) {
        fatal(&format!("{what} underflow"));
    }
}
/// `lockdep_assert_held(&kprobe_mutex)` (model.c: a fatal check).
pub fn lockdep_assert_held_kprobe_mutex() {
    if !with(|m| m.kprobe_mutex) {
        fatal("lockdep: kprobe_mutex not held");
    }
}
/// `lockdep_assert_held(&text_mutex)` (model.c: the same fatal check).
pub fn lockdep_assert_held_text_mutex() {
    if !with(|m| m.text_mutex) {
        fatal("lockdep: text_mutex not held");
    }
}
/// `lockdep_assert_cpus_held()` (model.c).
pub fn lockdep_assert_cpus_held() {
    if with(|m| m.cpus_locked) == 0 {
        fatal("lockdep: cpus_read_lock not held");
    }
}
/// `cpus_read_lock()`.
pub fn cpus_read_lock() {
    with(|m| m.cpus_locked += 1);
}
/// `cpus_read_unlock()`.
pub fn cpus_read_unlock() {
    leave("cpus_read_unlock", |m| &mut m.cpus_locked);
}

/// `preempt_disable()`.
pub fn preempt_disable() {
    with(|m| m.preempt += 1);
}
/// `preempt_enable()`.
pub fn preempt_enable() {
    leave("preempt_enable", |m| &mut m.preempt);
}
/// `rcu_read_lock()`.
pub fn rcu_read_lock() {
    with(|m| m.rcu_nesting += 1);
}
/// `rcu_read_unlock()`.
pub fn rcu_read_unlock() {
    leave("rcu_read_unlock", |m| &mut m.rcu_nesting);
}
/// `synchronize_rcu()`.
pub fn synchronize_rcu() {
    if with(|m| m.rcu_nesting != 0 || m.preempt != 0) {
        fatal("synchronize_rcu() in a read-side section");
    }
    trace("~synchronize_rcu");
}
/// `synchronize_rcu_expedited()`: the same grace-period guarantee as
/// `synchronize_rcu()`, hence the same synchronization event in the trace
/// (`~synchronize_rcu`; upstream waits with `synchronize_rcu()` there).
pub fn synchronize_rcu_expedited() {
    synchronize_rcu();
}
/// `synchronize_rcu_tasks()`.
pub fn synchronize_rcu_tasks() {
    if with(|m| m.rcu_nesting != 0 || m.preempt != 0) {
        fatal("synchronize_rcu_tasks() in a read-side section");
    }
    trace("~synchronize_rcu_tasks");
}

/// End of an operation (`hd_rcu_quiesce()`): a quiescent state.
pub fn rcu_quiesce() {
    let bad = with(|m| {
        if m.rcu_nesting != 0 || m.preempt != 0 || m.cpus_locked != 0 || m.text_mutex || m.jump_label_mutex {
            Some(format!(
                "operation ended with rcu={} preempt={} cpus={} text={} jl={} held",
                m.rcu_nesting, m.preempt, m.cpus_locked, m.text_mutex as i32, m.jump_label_mutex as i32
            ))
        } else {
            None
        }
    });
    if let Some(b) = bad {
        fatal(&b);
    }
    for p in with(|m| std::mem::take(&mut m.rcu_frees)) {
        // SAFETY: from kfree_rcu(); a grace period has passed.
        unsafe { kfree(p as *mut c_void) };
    }
}

/// `__this_cpu_write(kprobe_instance, kp)` (write-only, as upstream).
pub fn set_kprobe_instance(_kp: *mut Kprobe) {}
/// `reset_kprobe_instance()`.
pub fn reset_kprobe_instance() {}
/// `__this_cpu_write(current_kprobe, p)`.
pub fn set_current_kprobe(p: *mut Kprobe) {
    with(|m| m.current_kprobe = p as usize);
}
/// `__this_cpu_write(current_kprobe, NULL)`.
pub fn clear_current_kprobe() {
    set_current_kprobe(core::ptr::null_mut());
}
/// `get_kprobe_ctlblk()->kprobe_status = status`.
pub fn set_kprobe_status(status: c_ulong) {
    with(|m| m.kprobe_status = status);
}
/// `kprobe_status = KPROBE_HIT_ACTIVE`.
pub fn set_kprobe_status_hit_active() {
    set_kprobe_status(KPROBE_HIT_ACTIVE);
}
/// `kprobe_running()`.
pub fn kprobe_running() -> *mut Kprobe {
    with(|m| m.current_kprobe) as *mut Kprobe
}
/// `get_kprobe_ctlblk()->kprobe_status`.
pub fn kprobe_status() -> c_ulong {
    with(|m| m.kprobe_status)
}
/// `num_possible_cpus()`: one CPU.
pub fn num_possible_cpus() -> c_uint {
    1
}
/// `cpu_relax()`: more than 1000 in one operation is a hang.
pub fn cpu_relax() {
    let n = with(|m| {
        m.relax_count += 1;
        m.relax_count
    });
    if n > 1000 {
        fatal("hang: wait_for_kprobe_optimizer() does not finish");
    }
}

// ---------------------------------------------------------------------------
// Delayed work (the optimizer).

/// `schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY)`.
pub fn kick_optimizer() {
    let queued = with(|m| !std::mem::replace(&mut m.work_pending, true));
    if queued {
        trace("~work queued");
    }
}

/// `flush_delayed_work(&optimizing_work)`: runs it if pending.
pub fn flush_delayed_work() -> bool {
    if !with(|m| std::mem::replace(&mut m.work_pending, false)) {
        return false;
    }
    trace("~work run");
    crate::exports::kprobes_rust_optimizer_work();
    true
}

/// `flush_delayed_work(&optimizing_work)` (the core's use).
pub fn flush_optimizer() {
    flush_delayed_work();
}

/// Is the optimizer's work pending?
pub fn work_pending() -> bool {
    with(|m| m.work_pending)
}

// ---------------------------------------------------------------------------
// printk.

fn format_c(fmt: &[u8], args: &[String]) -> String {
    let mut out = String::new();
    let mut it = args.iter();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] == b'%' && i + 1 < fmt.len() {
            match fmt[i + 1] {
                b'd' | b's' => {
                    out.push_str(it.next().map_or("", |s| s.as_str()));
                    i += 2;
                    continue;
                }
                b'%' => {
                    out.push('%');
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(fmt[i] as char);
        i += 1;
    }
    out
}

/// The `kp_pr!` messages: `kprobes: ` and the message, at `level`, traced as
/// the C model's printk traces upstream's `pr_*()`.
pub fn pr_log(level: u8, args: core::fmt::Arguments<'_>) {
    let level = match level {
        0..=3 => "err",
        4 => "warn",
        _ => "info",
    };
    let mut s = format!("kprobes: {args}");
    while s.ends_with('\n') {
        s.pop();
    }
    trace(&format!("log {level}: {s}"));
}

fn klog(fmt: &CStr, args: &[String]) {
    let mut b = fmt.to_bytes();
    let mut level = "info";
    if b.len() >= 2 && b[0] == 1 {
        level = match b[1] {
            b'0'..=b'3' => "err",
            b'4' => "warn",
            _ => "info",
        };
        b = &b[2..];
    }
    let mut s = format_c(b, args);
    while s.ends_with('\n') {
        s.pop();
    }
    trace(&format!("log {level}: {s}"));
}

fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: callers pass C strings.
    unsafe { CStr::from_ptr(p.cast()) }.to_string_lossy().into_owned()
}

/// `printk(fmt, s)`.
///
/// # Safety
/// `s` is a C string.
pub unsafe fn printk_s(fmt: &CStr, s: *const c_char) {
    klog(fmt, &[cstr(s)]);
}
/// `dump_kprobe()`'s `pr_err()`.
///
/// # Safety
/// `sym` is null or a C string.
pub unsafe fn pr_err_dump_kprobe(sym: *const c_char, offset: c_uint, addr: *mut KprobeOpcode) {
    let msg = format!("kprobes: Dump kprobe:\n.symbol_name = {}, .offset = {offset:x}, .addr = {}", cstr(sym), p_s(addr as usize));
    trace(&format!("log err: {msg}"));
}

// ---------------------------------------------------------------------------
// kallsyms and text classification.

/// `kernel_text_address()`.
pub fn kernel_text_address(addr: usize) -> bool {
    core_kernel_text(addr) || in_mod(addr)
}

/// `core_kernel_text()`.
pub fn core_kernel_text(addr: usize) -> bool {
    if (T..T + 0x400).contains(&addr) {
        return true;
    }
    !with(|m| m.init_freed) && (INIT_TEXT.0..INIT_TEXT.1).contains(&addr)
}

fn in_mod(addr: usize) -> bool {
    // SAFETY: single-threaded; plain reads of the model's module.
    let m = unsafe { &*m0() };
    m.loaded && ((m.core.0..m.core.1).contains(&addr) || (m.init.0..m.init.1).contains(&addr))
}

/// `kallsyms_lookup_size_offset()`.
pub fn kallsyms_lookup_size_offset(addr: usize, size: &mut usize, offset: &mut usize) -> bool {
    match present_sym(addr) {
        Some(s) => {
            *size = s.size;
            *offset = addr - s.addr;
            true
        }
        None => false,
    }
}

unsafe fn copy_name(name: &str, buf: *mut c_char) {
    let n = name.len().min(KSYM_NAME_LEN - 1);
    // SAFETY: `buf` has KSYM_NAME_LEN bytes (caller).
    unsafe {
        core::ptr::copy_nonoverlapping(name.as_ptr(), buf, n);
        *buf.add(n) = 0;
    }
}

/// `lookup_symbol_name()`: 0 and the name, or -ERANGE.
///
/// # Safety
/// `buf` is valid for `KSYM_NAME_LEN` bytes.
pub unsafe fn lookup_symbol_name(addr: usize, buf: *mut c_char) -> c_int {
    // SAFETY: caller's contract.
    unsafe { *buf = 0 };
    match present_sym(addr) {
        Some(s) => {
            // SAFETY: caller's contract.
            unsafe { copy_name(s.name, buf) };
            0
        }
        None => -ERANGE,
    }
}

/// `kallsyms_lookup()`.
///
/// # Safety
/// `namebuf` has `KSYM_NAME_LEN` bytes.
pub unsafe fn kallsyms_lookup(addr: usize, offset: &mut c_ulong, modname: &mut *mut c_char, namebuf: *mut c_char) -> *const c_char {
    // SAFETY: caller's contract.
    unsafe {
        *namebuf.add(KSYM_NAME_LEN - 1) = 0;
        *namebuf = 0;
    }
    match present_sym(addr) {
        Some(s) => {
            *offset = (addr - s.addr) as c_ulong;
            *modname = if s.module != 0 { c"m0".as_ptr() as *mut c_char } else { core::ptr::null_mut() };
            // SAFETY: caller's contract.
            unsafe { copy_name(s.name, namebuf) };
            namebuf
        }
        None => core::ptr::null(),
    }
}

/// `kprobe_lookup_name()` (the weak default: `kallsyms_lookup_name()`).
///
/// # Safety
/// `name` is NUL-terminated.
pub unsafe fn kprobe_lookup_name(name: *const c_char, _offset: u32) -> *mut KprobeOpcode {
    // SAFETY: caller's contract.
    let n = unsafe { CStr::from_ptr(name.cast()) }.to_bytes();
    SYMBOLS
        .iter()
        .find(|s| s.name.as_bytes() == n && present(s))
        .map_or(core::ptr::null_mut(), |s| s.addr as *mut KprobeOpcode)
}

/// `arch_adjust_kprobe_addr()`: the weak default (no IBT).
pub fn arch_adjust_kprobe_addr(addr: usize, offset: usize, on_func_entry: &mut bool) -> *mut KprobeOpcode {
    *on_func_entry = offset == 0;
    addr.wrapping_add(offset) as *mut KprobeOpcode
}

/// `ftrace_location()`: `ip` if it starts a present symbol with a site.
pub fn ftrace_location(ip: usize) -> usize {
    match present_sym(ip) {
        Some(s) if s.text && s.ftrace && ip == s.addr => ip,
        _ => 0,
    }
}

/// `in_gate_area_no_mm()`.
pub fn in_gate_area_no_mm(_addr: usize) -> bool {
    false
}

/// `jump_label_text_reserved(addr, addr)`: CONFIG_JUMP_LABEL is off.
pub fn jump_label_text_reserved(_addr: usize) -> bool {
    false
}

/// `static_call_text_reserved(addr, addr)`.
pub fn static_call_text_reserved(addr: usize) -> bool {
    STATIC_CALLS.iter().any(|&x| overlaps(x, addr, addr))
}

/// `find_bug()`.
pub fn find_bug(addr: usize) -> bool {
    BUGS.contains(&addr)
}

/// `dereference_symbol_descriptor()` (identity on x86).
pub fn dereference_symbol_descriptor(p: usize) -> usize {
    p
}

/// `arch_within_kprobe_blacklist()` (upstream's weak default).
pub fn arch_within_kprobe_blacklist(addr: usize) -> bool {
    (KPROBES_TEXT.0..KPROBES_TEXT.1).contains(&addr)
}

/// `arch_populate_kprobe_blacklist()` (x86: the entry text).
pub fn arch_populate_kprobe_blacklist() -> c_int {
    crate::exports::kprobe_add_area_blacklist(ENTRY_TEXT.0 as c_ulong, ENTRY_TEXT.1 as c_ulong)
}

/// `__kprobes_text_start/end`.
pub fn kprobes_text_area() -> (usize, usize) {
    KPROBES_TEXT
}

/// `__noinstr_text_start/end`.
pub fn noinstr_text_area() -> (usize, usize) {
    NOINSTR_TEXT
}

/// `[__init_begin, __init_end)`.
pub fn init_area() -> (usize, usize) {
    INIT_TEXT
}

/// `__start_kprobe_blacklist`.
pub fn kprobe_blacklist_start() -> *const c_ulong {
    KPROBE_BLACKLIST_SYMS.as_ptr()
}

/// `__stop_kprobe_blacklist`.
pub fn kprobe_blacklist_end() -> *const c_ulong {
    KPROBE_BLACKLIST_SYMS.as_ptr().wrapping_add(KPROBE_BLACKLIST_SYMS.len())
}

/// `kretprobe_blacklist`: `kretprobe_blacklist_size == 0` in the model,
/// so upstream never looks at it: none.
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    core::ptr::null_mut()
}

/// `arch_kprobe_get_kallsym()`: the weak default.
///
/// # Safety
/// Valid out pointers.
pub unsafe fn arch_kprobe_get_kallsym(_symnum: *mut c_uint, _value: *mut c_ulong, _type: *mut c_char, _sym: *mut c_char) -> c_int {
    -ERANGE
}

// ---------------------------------------------------------------------------
// Modules.

/// `__module_text_address()`.
pub fn module_text_address(addr: usize) -> *mut Module {
    if in_mod(addr) { m0() } else { core::ptr::null_mut() }
}

/// `try_module_get()`: fails only while GOING.
pub fn try_module_get(m: *mut Module) -> bool {
    // SAFETY: the model's module.
    unsafe {
        if (*m).state == MODULE_STATE_GOING {
            return false;
        }
        (*m).refs += 1;
    }
    true
}

/// `module_put()`.
pub fn module_put(m: *mut Module) {
    // SAFETY: the model's module.
    unsafe {
        (*m).refs -= 1;
        if (*m).refs < 0 {
            fatal("module_put underflow");
        }
    }
}

/// `within_module_init()`.
pub fn within_module_init(addr: usize, m: *mut Module) -> bool {
    // SAFETY: the model's module.
    let r = unsafe { (*m).init };
    (r.0..r.1).contains(&addr)
}

/// `within_module_core()`.
pub fn within_module_core(addr: usize, m: *mut Module) -> bool {
    // SAFETY: the model's module.
    let r = unsafe { (*m).core };
    (r.0..r.1).contains(&addr)
}

/// `module_is_coming()`.
pub fn module_is_coming(m: *mut Module) -> bool {
    // SAFETY: the model's module.
    unsafe { (*m).state == MODULE_STATE_COMING }
}

/// A module's blacklist areas (m0: one symbol, no kprobes/noinstr text).
///
/// # Safety
/// `m` is live for `'a`.
pub unsafe fn module_areas<'a>(m: *mut Module) -> ModuleAreas<'a> {
    // SAFETY: caller's contract.
    let m = unsafe { &*m };
    ModuleAreas { ksyms: &m.kprobe_blacklist, kprobes_text: (0, 0), noinstr_text: (0, 0) }
}

/// `register_die_notifier()`.
pub fn register_die_notifier() -> c_int {
    0
}

/// `register_module_notifier()`.
pub fn register_module_notifier() -> c_int {
    with(|m| m.module_nb = true);
    0
}

/// Is the module notifier registered?
pub fn module_notifier_registered() -> bool {
    with(|m| m.module_nb)
}

// ---------------------------------------------------------------------------
// Insn pages, the insn slot caches, perf.

const MAX_PAGES: usize = 256;

unsafe extern "C" fn alloc_insn_page() -> *mut c_void {
    execmem_alloc()
}

unsafe extern "C" fn free_insn_page(page: *mut c_void) {
    execmem_free(page);
}

/// `execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE)`: pages are numbered in
/// allocation order over the run.
pub fn execmem_alloc() -> *mut c_void {
    if with(|m| m.pages.len()) == MAX_PAGES {
        fatal("too many insn pages");
    }
    let layout = std::alloc::Layout::from_size_align(PAGE_SIZE, PAGE_SIZE).unwrap();
    // SAFETY: non-zero size.
    let p = unsafe { std::alloc::alloc(layout) };
    if p.is_null() {
        fatal("out of memory");
    }
    // SAFETY: a fresh page.
    unsafe { core::ptr::write_bytes(p, 0xcc, PAGE_SIZE) };
    with(|m| m.pages.push(Some(p as usize)));
    p.cast()
}

/// `execmem_free()`.
pub fn execmem_free(ptr: *mut c_void) {
    let i = with(|m| m.pages.iter().position(|&x| x == Some(ptr as usize)));
    match i {
        Some(i) => {
            trace(&format!("execmem_free page{i}"));
            with(|m| m.pages[i] = None);
            let layout = std::alloc::Layout::from_size_align(PAGE_SIZE, PAGE_SIZE).unwrap();
            // SAFETY: from execmem_alloc().
            unsafe { std::alloc::dealloc(ptr.cast(), layout) };
        }
        None => fatal("execmem_free of unknown page"),
    }
}

/// `hd_page()`: `pageN+0xoff`, `null`, or `page?`.
pub fn page(p: usize) -> String {
    if p == 0 {
        return "null".into();
    }
    with(|m| {
        for (i, pg) in m.pages.iter().enumerate() {
            if let Some(b) = *pg {
                if p >= b && p < b + PAGE_SIZE {
                    return format!("page{i}+0x{:x}", p - b);
                }
            }
        }
        "page?".into()
    })
}

/// `perf_event_ksymbol()`.
///
/// # Safety
/// `sym` is a C string.
pub unsafe fn perf_event_ksymbol(ksym_type: u16, addr: u64, len: u32, unregister: bool, sym: *const c_char) {
    trace(&format!(
        "perf_event_ksymbol type={} {} len={} {} {}",
        ksym_type,
        page(addr as usize),
        len,
        if unregister { "unregister" } else { "register" },
        cstr(sym)
    ));
}

static mut INSN_SLOTS: KprobeInsnCache = KprobeInsnCache {
    mutex: Mutex::new(),
    alloc: Some(alloc_insn_page),
    free: Some(free_insn_page),
    sym: c"kprobe_insn_page".as_ptr() as *const c_char,
    pages: ListHead { next: core::ptr::null_mut(), prev: core::ptr::null_mut() },
    insn_size: MAX_INSN_SIZE,
    nr_garbage: 0,
};

static mut OPTINSN_SLOTS: KprobeInsnCache = KprobeInsnCache {
    mutex: Mutex::new(),
    alloc: Some(alloc_insn_page),
    free: Some(free_insn_page),
    sym: c"kprobe_optinsn_page".as_ptr() as *const c_char,
    pages: ListHead { next: core::ptr::null_mut(), prev: core::ptr::null_mut() },
    insn_size: 0,
    nr_garbage: 0,
};

/// `&kprobe_insn_slots`.
pub fn insn_slots() -> *mut KprobeInsnCache {
    &raw mut INSN_SLOTS
}

/// `&kprobe_optinsn_slots`.
pub fn optinsn_slots() -> *mut KprobeInsnCache {
    &raw mut OPTINSN_SLOTS
}

/// Static initialization the C compiler does (`LIST_HEAD_INIT`).
pub fn init_static_data() {
    // SAFETY: before anything uses the caches; single-threaded.
    unsafe {
        crate::list::init_list_head(&raw mut (*insn_slots()).pages);
        crate::list::init_list_head(&raw mut (*optinsn_slots()).pages);
    }
}

// ---------------------------------------------------------------------------
// The text model and the arch hooks (arch.c).

const MAX_TEXT: usize = 512;

fn int3_at(m: &Model, a: usize) -> Option<usize> {
    m.int3s.iter().position(|&x| x == a)
}

/// `jump_over()`: the first jump covering `a`.
pub fn jump_over(m: &Model, a: usize) -> Option<usize> {
    m.jumps.iter().position(|j| a >= j.addr && a < j.addr + j.size)
}

fn set_int3(a: usize) {
    let (j, twice, full) = with(|m| {
        let j = jump_over(m, a).map(|j| m.jumps[j].addr);
        (j, int3_at(m, a).is_some(), m.int3s.len() == MAX_TEXT)
    });
    if let Some(ja) = j {
        trace(&format!("!text {} {}", if ja == a { "int3-on-jump" } else { "int3-in-jump" }, sym(a)));
    }
    if twice {
        trace(&format!("!text int3-twice {}", sym(a)));
        return;
    }
    if full {
        fatal("text model full");
    }
    with(|m| m.int3s.push(a));
}

fn clear_int3(a: usize) {
    let i = with(|m| int3_at(m, a));
    match i {
        None => trace(&format!("!text no-int3 {}", sym(a))),
        Some(i) => {
            with(|m| {
                m.int3s.swap_remove(i);
            });
        }
    }
}

/// `hd_text_forget()`: text in `[start, end)` was freed.
pub fn text_forget(start: usize, end: usize) {
    with(|m| {
        let mut i = 0;
        while i < m.int3s.len() {
            if m.int3s[i] >= start && m.int3s[i] < end {
                m.int3s.swap_remove(i);
            } else {
                i += 1;
            }
        }
        let mut i = 0;
        while i < m.jumps.len() {
            if m.jumps[i].addr >= start && m.jumps[i].addr < end {
                m.jumps.swap_remove(i);
            } else {
                i += 1;
            }
        }
    });
}

/// `hd_text_check()`: what is left in the text.
pub fn text_check() {
    let (mut v, jumps) = with(|m| (m.int3s.clone(), m.jumps.clone()));
    v.sort_unstable();
    for a in v {
        trace(&format!("text int3 {}", sym(a)));
    }
    for j in jumps {
        trace(&format!("text jump {} size={}", sym(j.addr), j.size));
    }
}

/// The int3s (sorted) and the jumps (array order) in the text, for the
/// driver's note after kprobes/enabled=0 (arch.c `hd_text_armed_note()`).
pub fn text_armed() -> (Vec<usize>, Vec<Jump>) {
    let (mut v, jumps) = with(|m| (m.int3s.clone(), m.jumps.clone()));
    v.sort_unstable();
    (v, jumps)
}

/// The int3 at `a`, and the jump covering `a` (start, op) if any.
pub fn text_at(a: usize) -> (bool, Option<Jump>) {
    with(|m| (int3_at(m, a).is_some(), jump_over(m, a).map(|j| m.jumps[j])))
}

fn can_probe(a: usize) -> Option<bool> {
    let s = present_sym(a)?;
    insn_boundary(s, a - s.addr)?;
    Some(s.nonboost != (a - s.addr) as i64)
}

/// `arch_prepare_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: caller's contract.
    let a = unsafe { (*p).addr } as usize;
    let mut ret = 0;
    match can_probe(a) {
        None => ret = -EILSEQ,
        Some(boost) => {
            // SAFETY: caller's contract; the cache is live.
            unsafe {
                (*p).opcode = a as KprobeOpcode;
                (*p).ainsn.insn = crate::exports::__get_insn_slot(insn_slots());
                if (*p).ainsn.insn.is_null() {
                    ret = -ENOMEM;
                } else {
                    (*p).ainsn.boostable = boost as u32;
                }
            }
        }
    }
    // SAFETY: caller's contract.
    let slot = if ret != 0 { 0 } else { (unsafe { (*p).ainsn.insn }) as usize };
    trace(&format!("arch_prepare_kprobe {} = {} slot={}", sym(a), ret, page(slot)));
    ret
}

/// `arch_prepare_kprobe_ftrace()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int {
    // SAFETY: caller's contract.
    unsafe {
        (*p).ainsn.insn = core::ptr::null_mut();
        (*p).ainsn.boostable = 0;
        trace(&format!("arch_prepare_kprobe_ftrace {} = 0", sym((*p).addr as usize)));
    }
    0
}

/// `arch_arm_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_arm_kprobe(p: *mut Kprobe) {
    // SAFETY: caller's contract.
    let a = unsafe { (*p).addr } as usize;
    trace(&format!("arch_arm_kprobe {}", sym(a)));
    set_int3(a);
}

/// `arch_disarm_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_disarm_kprobe(p: *mut Kprobe) {
    // SAFETY: caller's contract.
    let a = unsafe { (*p).addr } as usize;
    let j = with(|m| jump_over(m, a).is_some());
    trace(&format!("arch_disarm_kprobe {}", sym(a)));
    if j {
        trace(&format!("!text disarm-in-jump {}", sym(a)));
    }
    clear_int3(a);
}

/// `arch_remove_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_remove_kprobe(p: *mut Kprobe) {
    // SAFETY: caller's contract.
    unsafe {
        trace(&format!("arch_remove_kprobe {} slot={}", sym((*p).addr as usize), page((*p).ainsn.insn as usize)));
        if !(*p).ainsn.insn.is_null() {
            crate::exports::__free_insn_slot(insn_slots(), (*p).ainsn.insn, (*p).ainsn.boostable as c_int);
            (*p).ainsn.insn = core::ptr::null_mut();
        }
    }
}

/// `arch_trampoline_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_trampoline_kprobe(_p: *mut Kprobe) -> bool {
    false
}

/// `arch_init_kprobes()`.
pub fn arch_init_kprobes() -> c_int {
    0
}

fn copy_optimized_instructions(src: usize, s: &Sym) -> c_int {
    let mut len = 0;
    while len < JMP32_INSN_SIZE {
        let off = src + len - s.addr;
        match insn_boundary(s, off) {
            Some(l) if s.nonboost != off as i64 => len += l,
            _ => return -EINVAL,
        }
    }
    if src + len > s.addr + s.size {
        return -EINVAL;
    }
    if reserved_site(src, src + len - 1) {
        return -EBUSY;
    }
    len as c_int
}

fn can_optimize(a: usize) -> Option<&'static Sym> {
    let s = present_sym(a)?;
    if !s.text {
        return None;
    }
    if (ENTRY_TEXT.0..ENTRY_TEXT.1).contains(&a) {
        return None;
    }
    if s.size - (a - s.addr) < JMP32_INSN_SIZE {
        return None;
    }
    if s.noopt {
        return None;
    }
    Some(s)
}

/// `arch_prepare_optimized_kprobe()`.
///
/// # Safety
/// Both live.
pub unsafe fn arch_prepare_optimized_kprobe(op: *mut OptimizedKprobe, _orig: *mut Kprobe) -> c_int {
    // SAFETY: caller's contract.
    unsafe {
        let a = (*op).kp.addr as usize;
        let ret = 'out: {
            let Some(s) = can_optimize(a) else { break 'out -EILSEQ };
            (*op).optinsn.insn = crate::exports::__get_insn_slot(optinsn_slots());
            if (*op).optinsn.insn.is_null() {
                break 'out -ENOMEM;
            }
            let r = copy_optimized_instructions(a, s);
            if r < 0 {
                crate::exports::__free_insn_slot(optinsn_slots(), (*op).optinsn.insn, 0);
                (*op).optinsn.insn = core::ptr::null_mut();
                (*op).optinsn.size = 0;
                break 'out r;
            }
            (*op).optinsn.size = r as usize;
            0
        };
        trace(&format!(
            "arch_prepare_optimized_kprobe {} = {} size={} slot={}",
            sym(a),
            ret,
            (*op).optinsn.size,
            page((*op).optinsn.insn as usize)
        ));
        ret
    }
}

/// `arch_prepared_optinsn(&op->optinsn)`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_prepared_optinsn(op: *mut OptimizedKprobe) -> bool {
    // SAFETY: caller's contract.
    unsafe { (*op).optinsn.size != 0 }
}

/// `arch_check_optimized_kprobe()`.
///
/// # Safety
/// `op` is live; kprobe_mutex held.
pub unsafe fn arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int {
    let mut ret = 0;
    // SAFETY: caller's contract.
    unsafe {
        for i in 1..(*op).optinsn.size {
            let p = crate::registry::get_kprobe((*op).kp.addr.wrapping_add(i).cast());
            if !p.is_null() && !crate::exports::kprobe_disarmed(p) {
                ret = -EEXIST;
                break;
            }
        }
        trace(&format!("arch_check_optimized_kprobe {} = {}", sym((*op).kp.addr as usize), ret));
    }
    ret
}

/// `arch_within_optimized_kprobe()` (a pure query, traced with `?`).
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_within_optimized_kprobe(op: *mut OptimizedKprobe, addr: *mut KprobeOpcode) -> bool {
    // SAFETY: caller's contract.
    unsafe {
        let start = (*op).kp.addr as usize;
        let r = start <= addr as usize && start + (*op).optinsn.size > addr as usize;
        trace(&format!("?arch_within_optimized_kprobe {} {} = {}", sym(start), sym(addr as usize), r as i32));
        r
    }
}

/// `arch_remove_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_remove_optimized_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: caller's contract.
    unsafe {
        trace(&format!(
            "arch_remove_optimized_kprobe {} slot={}",
            sym((*op).kp.addr as usize),
            page((*op).optinsn.insn as usize)
        ));
        if !(*op).optinsn.insn.is_null() {
            crate::exports::__free_insn_slot(optinsn_slots(), (*op).optinsn.insn, 1);
            (*op).optinsn.insn = core::ptr::null_mut();
            (*op).optinsn.size = 0;
        }
    }
}

/// `arch_optimize_kprobes()`.
///
/// # Safety
/// The optimizer's locks are held.
pub unsafe fn arch_optimize_kprobes(list: *mut ListHead) {
    // SAFETY: caller's contract.
    unsafe {
        for l in crate::list::iter_safe(list) {
            let op = crate::container_of!(l, OptimizedKprobe, list);
            let a = (*op).kp.addr as usize;
            let size = (*op).optinsn.size;
            trace(&format!("arch_optimize_kprobes {}", sym(a)));
            if crate::flags::disabled(core::ptr::addr_of!((*op).kp)) {
                warn();
            }
            if !with(|m| int3_at(m, a).is_some()) {
                trace(&format!("!text optimize-unarmed {}", sym(a)));
            } else {
                clear_int3(a);
            }
            for i in 1..size {
                if with(|m| int3_at(m, a + i).is_some()) {
                    trace(&format!("!text optimize-over-int3 {}", sym(a + i)));
                }
            }
            if with(|m| jump_over(m, a).is_some()) {
                trace(&format!("!text optimize-jump-twice {}", sym(a)));
            }
            with(|m| m.jumps.push(Jump { addr: a, size, op }));
            crate::list::list_del_init(l);
        }
    }
}

/// `arch_unoptimize_kprobe()`.
///
/// # Safety
/// `op` is live; locks held.
pub unsafe fn arch_unoptimize_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: caller's contract.
    let a = unsafe { (*op).kp.addr } as usize;
    let j = with(|m| jump_over(m, a).filter(|&j| m.jumps[j].addr == a));
    trace(&format!("arch_unoptimize_kprobe {}", sym(a)));
    match j {
        None => trace(&format!("!text unoptimize-no-jump {}", sym(a))),
        Some(j) => {
            with(|m| {
                m.jumps.swap_remove(j);
            });
        }
    }
    set_int3(a);
}

/// `arch_unoptimize_kprobes()`.
///
/// # Safety
/// Locks held.
pub unsafe fn arch_unoptimize_kprobes(list: *mut ListHead, done: *mut ListHead) {
    // SAFETY: caller's contract.
    unsafe {
        for l in crate::list::iter_safe(list) {
            arch_unoptimize_kprobe(crate::container_of!(l, OptimizedKprobe, list));
            crate::list::list_move(l, done);
        }
    }
}

// ---------------------------------------------------------------------------
// ftrace.

const MAX_FILTER: usize = 64;

/// The ops' trace name.
pub fn ops_name(i: usize) -> &'static str {
    if i == 1 { "ipmodify_ops" } else { "ftrace_ops" }
}

/// `ftrace_set_filter_ip(ops, ip, remove, 0)`.
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    let i = ipmodify as usize;
    let loc = ftrace_location(ip);
    let ret = with(|m| {
        let f = &mut m.ops[i].filter;
        if loc == 0 {
            return -EINVAL;
        }
        let pos = f.iter().position(|&x| x == loc);
        if remove {
            match pos {
                None => -ENOENT,
                Some(p) => {
                    f.remove(p);
                    0
                }
            }
        } else if pos.is_some() {
            0
        } else if f.len() == MAX_FILTER {
            -ENOMEM
        } else {
            f.push(loc);
            0
        }
    });
    trace(&format!("ftrace_set_filter_ip {} {} remove={} reset=0 = {}", ops_name(i), sym(ip), remove as i32, ret));
    ret
}

/// `register_ftrace_function()`.
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    let i = ipmodify as usize;
    let enabled = with(|m| m.ops[i].enabled);
    let ret = if enabled {
        trace("WARN");
        -EBUSY
    } else {
        with(|m| {
            m.ops[i].enabled = true;
            m.ops_list[1] = m.ops_list[0];
            m.ops_list[0] = Some(i);
        });
        0
    };
    trace(&format!("register_ftrace_function {} = {}", ops_name(i), ret));
    ret
}

/// `unregister_ftrace_function()`.
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    let i = ipmodify as usize;
    let enabled = with(|m| m.ops[i].enabled);
    let ret = if !enabled {
        trace("WARN");
        -EBUSY
    } else {
        with(|m| {
            m.ops[i].enabled = false;
            if m.ops_list[0] == Some(i) {
                m.ops_list[0] = m.ops_list[1];
            }
            m.ops_list[1] = None;
        });
        0
    };
    trace(&format!("unregister_ftrace_function {} = {}", ops_name(i), ret));
    ret
}

/// `hd_ftrace_match()`: an empty filter traces every function.
pub fn ftrace_match(i: usize, ip: usize) -> bool {
    with(|m| m.ops[i].filter.is_empty() || m.ops[i].filter.contains(&ip))
}

// ---------------------------------------------------------------------------
// rethook.

/// `rethook_alloc()`.
///
/// # Safety
/// `data` outlives the rethook.
pub unsafe fn rethook_alloc(data: *mut c_void, handler: RethookHandler, size: c_int, num: c_int) -> *mut Rethook {
    let rh: *mut Rethook = if num <= 0 || size < core::mem::size_of::<RethookNode>() as c_int {
        (-(EINVAL as isize)) as *mut Rethook
    } else if num > (1 << 24) || size > (1 << 16) {
        (-(ENOMEM as isize)) as *mut Rethook
    } else {
        let id = with(|m| {
            m.rethook_ids += 1;
            m.rethook_ids - 1
        });
        Box::into_raw(Box::new(Rethook {
            data,
            handler: Some(handler),
            size,
            num,
            nfree: num,
            outstanding: 0,
            freed: false,
            id,
        }))
    };
    let r = if (rh as usize) >= (-4095isize) as usize { rh as isize } else { 0 };
    trace(&format!("rethook_alloc num={num} = {r}"));
    rh
}

/// `rethook_free()`: stops the rethook.  The model keeps it (a kretprobe
/// upstream leaves hashed may still read it; see model.c).
///
/// # Safety
/// `rh` came from [`rethook_alloc`].
pub unsafe fn rethook_free(rh: *mut Rethook) {
    // SAFETY: caller's contract.
    unsafe {
        if (*rh).freed {
            fatal("rethook_free twice");
        }
        trace("rethook_free");
        (*rh).handler = None;
        (*rh).freed = true;
    }
}

fn node_layout(size: c_int) -> std::alloc::Layout {
    std::alloc::Layout::from_size_align(size as usize, 16).unwrap()
}

/// `rethook_try_get()`.
///
/// # Safety
/// `rh` is live.
pub unsafe fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: caller's contract; a fresh zeroed node of the pool's size.
    unsafe {
        if (*rh).handler.is_none() || (*rh).nfree == 0 {
            return core::ptr::null_mut();
        }
        (*rh).nfree -= 1;
        (*rh).outstanding += 1;
        let n = std::alloc::alloc_zeroed(node_layout((*rh).size)).cast::<RethookNode>();
        if n.is_null() {
            fatal("out of memory");
        }
        (*n).rethook = rh;
        n
    }
}

/// `rethook_recycle()`: back to the pool while the handler is set, else
/// freed (after RCU in the C model; not observable).
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: caller's contract.
    unsafe {
        let rh = (*n).rethook;
        (*rh).outstanding -= 1;
        if (*rh).handler.is_some() {
            (*rh).nfree += 1;
        }
        std::alloc::dealloc(n.cast(), node_layout((*rh).size));
    }
}

/// `rethook_hook()`: on the task's stack, with the current frame.
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_hook(n: *mut RethookNode, _regs: *mut PtRegs, _mcount: bool) {
    let frame = with(|m| m.frame);
    // SAFETY: caller's contract.
    unsafe { (*n).frame = frame };
    with(|m| m.task_rethooks.insert(0, n));
}

/// `rethook_trampoline_handler()` for the innermost hooked frame; false if
/// nothing is hooked.
pub fn rethook_return() -> bool {
    let nodes: Vec<*mut RethookNode> = with(|m| {
        let Some(&first) = m.task_rethooks.first() else { return Vec::new() };
        // SAFETY: hooked nodes are live.
        let frame = unsafe { (*first).frame };
        // SAFETY: as above.
        let n = m.task_rethooks.iter().take_while(|&&x| unsafe { (*x).frame } == frame).count();
        m.task_rethooks.drain(..n).collect()
    });
    if nodes.is_empty() {
        return false;
    }
    let mut regs = PtRegs::default();
    preempt_disable();
    for &n in &nodes {
        // SAFETY: a hooked node of a live (possibly stopped) rethook.
        unsafe {
            let rh = (*n).rethook;
            if let Some(h) = (*rh).handler {
                h(n, (*rh).data, 0, &mut regs);
            }
        }
    }
    preempt_enable();
    for n in nodes {
        // SAFETY: as above; the node leaves the task now.
        unsafe { rethook_recycle(n) };
    }
    true
}

/// Hooked nodes on the task.
pub fn rethook_pending() -> usize {
    with(|m| m.task_rethooks.len())
}

// ---------------------------------------------------------------------------
// seq_file, debugfs, sysctl.

/// `%pS`: `name+0xoff/0xsize` (` [m0]` for module symbols), or `0xhex`.
fn p_s(a: usize) -> String {
    match present_sym(a) {
        Some(s) if s.module != 0 => format!("{}+0x{:x}/0x{:x} [m0]", s.name, a - s.addr, s.size),
        Some(s) => format!("{}+0x{:x}/0x{:x}", s.name, a - s.addr, s.size),
        None => format!("0x{a:x}"),
    }
}

/// `%ps`.
fn p_s_short(a: usize) -> String {
    match present_sym(a) {
        Some(s) => s.name.to_string(),
        None => format!("0x{a:x}"),
    }
}

/// `kallsyms_show_value()`: true.
///
/// # Safety
/// `m` is live.
pub unsafe fn seq_show_value(_m: *mut SeqFile) -> bool {
    true
}

unsafe fn seq_push(m: *mut SeqFile, s: &str) {
    // SAFETY: caller's contract.
    unsafe { (*m).out.extend_from_slice(s.as_bytes()) };
}

/// `"%px  %s  %s+0x%x  %s "`.
///
/// # Safety
/// `pi` is live; C strings.
pub unsafe fn seq_report_sym(pi: *mut SeqFile, addr: *mut c_void, ty: *const c_char, sym: *const c_char, offset: u32, modname: *const c_char) {
    let s = format!("{:016x}  {}  {}+0x{:x}  {} ", addr as usize, cstr(ty), cstr(sym), offset, cstr(modname));
    // SAFETY: caller's contract.
    unsafe { seq_push(pi, &s) };
}

/// `"%px  %s  %pS "`.
///
/// # Safety
/// `pi` is live; C string.
pub unsafe fn seq_report_nosym(pi: *mut SeqFile, addr: *mut c_void, ty: *const c_char, paddr: *mut c_void) {
    let s = format!("{:016x}  {}  {} ", addr as usize, cstr(ty), p_s(paddr as usize));
    // SAFETY: caller's contract.
    unsafe { seq_push(pi, &s) };
}

/// `"%s%s%s%s\n"`.
///
/// # Safety
/// `pi` is live; C strings.
pub unsafe fn seq_report_flags(pi: *mut SeqFile, a: *const c_char, b: *const c_char, c: *const c_char, d: *const c_char) {
    let s = format!("{}{}{}{}\n", cstr(a), cstr(b), cstr(c), cstr(d));
    // SAFETY: caller's contract.
    unsafe { seq_push(pi, &s) };
}

/// `"0x%px-0x%px\t%ps\n"`.
///
/// # Safety
/// `m` is live.
pub unsafe fn seq_blacklist_line(m: *mut SeqFile, start: *mut c_void, end: *mut c_void, sym: *mut c_void) {
    let s = format!("0x{:016x}-0x{:016x}\t{}\n", start as usize, end as usize, p_s_short(sym as usize));
    // SAFETY: caller's contract.
    unsafe { seq_push(m, &s) };
}

/// `seq_list_start()`.
///
/// # Safety
/// `head` is a stable list.
pub unsafe fn seq_list_start(head: *mut ListHead, pos: i64) -> *mut c_void {
    // SAFETY: caller's contract.
    unsafe {
        let mut l = (*head).next;
        let mut i = pos;
        while l != head {
            if i == 0 {
                return l.cast();
            }
            i -= 1;
            l = (*l).next;
        }
    }
    core::ptr::null_mut()
}

/// `seq_list_next()`.
///
/// # Safety
/// `v` is an entry of the stable list at `head`.
pub unsafe fn seq_list_next(v: *mut c_void, head: *mut ListHead, pos: *mut i64) -> *mut c_void {
    // SAFETY: caller's contract.
    unsafe {
        *pos += 1;
        let n = (*v.cast::<ListHead>()).next;
        if n == head { core::ptr::null_mut() } else { n.cast() }
    }
}

/// `simple_read_from_buffer()`.
///
/// # Safety
/// Valid buffers.
pub unsafe fn simple_read_from_buffer(to: *mut c_void, count: usize, ppos: *mut i64, from: *const c_void, available: usize) -> isize {
    // SAFETY: caller's contract.
    unsafe {
        if *ppos >= available as i64 {
            return 0;
        }
        let pos = *ppos as usize;
        let n = count.min(available - pos);
        core::ptr::copy_nonoverlapping(from.cast::<u8>().add(pos), to.cast::<u8>(), n);
        *ppos += n as i64;
        n as isize
    }
}

/// `kstrtobool_from_user()` (`kstrtobool()`).
///
/// # Safety
/// `s` has `count` bytes.
pub unsafe fn kstrtobool_from_user(s: *const c_char, count: usize, res: &mut bool) -> c_int {
    if count == 0 {
        return -EINVAL;
    }
    // SAFETY: caller's contract.
    let b = unsafe { core::slice::from_raw_parts(s.cast::<u8>(), count) };
    match b[0] {
        b'y' | b'Y' | b't' | b'T' | b'1' => {
            *res = true;
            return 0;
        }
        b'n' | b'N' | b'f' | b'F' | b'0' => {
            *res = false;
            return 0;
        }
        b'o' | b'O' => {
            if count > 1 && (b[1] == b'n' || b[1] == b'N') {
                *res = true;
                return 0;
            }
            if count > 1 && (b[1] == b'f' || b[1] == b'F') {
                *res = false;
                return 0;
            }
        }
        _ => {}
    }
    -EINVAL
}

/// `proc_dointvec_minmax()` for one int in [0, 1], written as decimal text.
///
/// # Safety
/// Valid table and buffer.
pub unsafe fn proc_dointvec_minmax(table: *const CtlTable, write: c_int, buffer: *mut c_void, length: *mut usize, _ppos: *mut i64) -> c_int {
    if write == 0 {
        return 0;
    }
    // SAFETY: caller's contract.
    let txt = unsafe { core::slice::from_raw_parts(buffer.cast::<u8>(), (*length).min(31)) };
    let txt = match txt.iter().position(|&c| c == 0) {
        Some(n) => &txt[..n],
        None => txt,
    };
    let (v, n) = strtol(txt, 10);
    if n == 0 || (n < txt.len() && txt[n] != b'\n') {
        return -EINVAL;
    }
    if !(0..=1).contains(&v) {
        return -EINVAL;
    }
    // SAFETY: caller's contract.
    unsafe { *(*table).data = v as c_int };
    0
}

/// `register_sysctl_init("debug", kprobe_sysctls)`.
pub fn kprobe_sysctls_init() {
    with(|m| m.sysctl_registered = true);
}
