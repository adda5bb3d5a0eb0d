// SPDX-License-Identifier: GPL-2.0

//! What the core did and what it printed: the per-thread [`Record`]
//! (allocations, grace periods, perf ksymbol events, warnings), `WARN_ON`,
//! printk (`pr_*`), the trace lines in [`Arch::events`](super::Arch)
//! (model.c's `hd_trace()`, `hd_sym()`, `hd_page()`) and `%pS`/`%ps`.

use super::image::{lookup, lookup_any, model};
use super::memory::page_name;
use super::module::module_at;
use super::text::arch;
use crate::ffi::{c_char, c_uint};
use crate::types::KprobeOpcode;
use std::cell::{Cell, RefCell};
use std::ffi::CStr;

/// What the core did, per test thread.
#[derive(Default, Debug)]
pub struct Record {
    /// Live kmalloc'ed blocks.
    pub allocs: isize,
    /// Grace periods waited for (`synchronize_rcu()` and
    /// `synchronize_rcu_expedited()` calls).
    pub grace_periods: usize,
    /// Of those, `synchronize_rcu_expedited()` calls.
    pub expedited_grace_periods: usize,
    /// `perf_event_ksymbol()` calls: (type, addr, len, unregister, sym).
    pub ksym_events: Vec<(u16, u64, u32, bool, String)>,
    /// Lines of `WARN_ON` hits.
    pub warnings: Vec<u32>,
    /// Fail the next N kmallocs.
    pub fail_kmalloc: usize,
    /// Current RCU read-side nesting.
    pub rcu_nesting: usize,
    /// While set, `kfree_rcu()` defers its frees here (a test with a
    /// concurrent reader ends the grace period with [`rcu_barrier`](super::rcu_barrier)).
    pub rcu_deferred: Option<Vec<usize>>,
    /// model.c's `call_rcu()` queue (with [`Image::as_model`](super::Image::as_model)):
    /// the callbacks [`hd_rcu_quiesce`](super::hd_rcu_quiesce) runs at the
    /// end of an operation, in the order they were queued.
    pub rcu_callbacks: std::collections::VecDeque<(super::RcuCallback, usize)>,
}

thread_local! {
    static REC: RefCell<Record> = RefCell::new(Record::default());
}

/// Runs `f` on this thread's record.
pub fn record<R>(f: impl FnOnce(&mut Record) -> R) -> R {
    REC.with(|r| f(&mut r.borrow_mut()))
}

/// `perf_event_ksymbol()`: recorded, and traced as model.c does
/// (`perf_event_ksymbol type=T ADDR len=N register|unregister SYM`, ADDR
/// as [`hd_page`] prints it).
///
/// # Safety
/// `sym` is a NUL-terminated string.
pub unsafe fn perf_event_ksymbol(
    ksym_type: u16,
    addr: u64,
    len: u32,
    unregister: bool,
    sym: *const c_char,
) {
    // SAFETY: `sym` is a NUL-terminated string (this function's `# Safety`).
    let s = unsafe { CStr::from_ptr(sym.cast()) }
        .to_string_lossy()
        .into_owned();
    ev(format!(
        "perf_event_ksymbol type={ksym_type} {} len={len} {} {s}",
        hd_page(addr as usize as *const KprobeOpcode),
        if unregister { "unregister" } else { "register" }
    ));
    record(|r| r.ksym_events.push((ksym_type, addr, len, unregister, s)));
}

/// `WARN_ON(1)` at `file:line`: recorded, printed like the kernel would,
/// and traced as `WARN` (model.c's `hd_warn()`; with a [trace
/// sink](set_trace_sink), only traced: model.c prints nothing on stderr).
pub fn warn_at(file: &'static str, line: u32) {
    if SINK.get().is_none() {
        eprintln!("WARNING: at {file}:{line}");
    }
    record(|r| r.warnings.push(line));
    ev("WARN".into());
}

/// `WARN_ON(1)` at the caller's location (see [`warn_at`]).
#[track_caller]
pub fn warn() {
    let loc = core::panic::Location::caller();
    warn_at(loc.file(), loc.line());
}

/// model.c's `hd_printk()`: `log LEVEL: TEXT`, the message formatted into
/// 512 bytes and without its trailing newlines (LEVEL is `err`, `warn` or
/// `info`, as `pr_err()`, `pr_warn()` and `pr_info()` pass it).
pub fn printk(level: &str, mut msg: String) {
    if msg.len() > 511 {
        let mut n = 511;
        while !msg.is_char_boundary(n) {
            n -= 1;
        }
        msg.truncate(n);
    }
    ev(format!("log {level}: {}", msg.trim_end_matches('\n')));
}

/// The `pr_*()` level of a kernel log level (`KERN_ERR` is 3).
fn level_name(level: u8) -> &'static str {
    match level {
        0..=3 => "err",
        4 => "warn",
        _ => "info",
    }
}

/// The `dump_kprobe()` message, as upstream's `pr_err()` traces it in
/// model.c (whose printk is the host's `vsnprintf()`: `%pS` is glibc's
/// `%p` followed by a literal `S`, and a null `%s` is `(null)`).
///
/// # Safety
/// `sym` is null or a C string.
pub unsafe fn pr_err_dump_kprobe(sym: *const c_char, offset: c_uint, addr: *mut KprobeOpcode) {
    let s = if sym.is_null() {
        "(null)".to_string()
    } else {
        // SAFETY: `sym` is null or a C string (this function's `# Safety`).
        unsafe { CStr::from_ptr(sym.cast()) }
            .to_string_lossy()
            .into_owned()
    };
    let p = if addr.is_null() {
        "(nil)".to_string()
    } else {
        format!("{:#x}", addr as usize)
    };
    let msg =
        format!("kprobes: Dump kprobe:\n.symbol_name = {s}, .offset = {offset:x}, .addr = {p}S\n");
    printk("err", msg);
}

pub(super) fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: callers pass C strings.
    unsafe { CStr::from_ptr(p.cast()) }
        .to_string_lossy()
        .into_owned()
}

/// `%pS`: `sym+0xoff/0xsize`, or the raw address when no symbol.
pub fn p_s(a: usize) -> String {
    match lookup(a) {
        Some(s) => format!(
            "{}+{:#x}/{:#x}{}",
            s.name,
            a - s.addr,
            s.size,
            module_suffix(a)
        ),
        None => format!("{a:#x}"),
    }
}

/// `%pS`'s ` [MODNAME]` for a module's symbol, with
/// [`Image::as_model`](super::Image::as_model) (model.c's `seq_printf()`;
/// the unit tests' image prints none).
fn module_suffix(a: usize) -> String {
    if !model() {
        return String::new();
    }
    let m = module_at(a);
    if m.is_null() {
        return String::new();
    }
    // SAFETY: the image lists live modules, whose `name` is a C string
    // (the tests keep the modules they load alive while they are listed).
    format!(" [{}]", cstr(unsafe { (*m).name }))
}

/// `%ps`: the symbol name, or the raw address.
pub fn p_s_short(a: usize) -> String {
    lookup(a).map_or(format!("{a:#x}"), |s| s.name)
}

/// Where trace lines go instead of [`Arch::events`](super::Arch): a C
/// program's output (the host differential's `libkpsim.a` writes each
/// line to its stdout as it happens, between the driver's own lines).
pub type TraceSink = fn(&str);

thread_local! {
    static SINK: Cell<Option<TraceSink>> = const { Cell::new(None) };
}

/// Sends this thread's trace lines to `sink` from now on (`None`: back to
/// [`Arch::events`](super::Arch), the unit tests' default).
pub fn set_trace_sink(sink: Option<TraceSink>) {
    SINK.set(sink);
}

pub(super) fn ev(s: String) {
    match SINK.get() {
        Some(sink) => sink(&s),
        None => arch(|a| a.events.push(s)),
    }
}

/// model.c's `hd_fatal()`: the simulated kernel found a broken rule (a
/// lock held at the end of an operation, a double free, ...). model.c
/// prints `PROG: FATAL: TEXT` on stderr and aborts; the simulation panics
/// with `FATAL: TEXT` (a test expects the panic; `libkpsim.a`'s panic
/// hook prints model.c's line and aborts, `tools/testing/hostdiff/sim/`).
pub fn hd_fatal(text: std::fmt::Arguments) -> ! {
    panic!("FATAL: {text}")
}

/// `hd_trace()`: a line of the trace written by the caller (in the host
/// differential, the driver's: handler lines such as `pre K3`).
pub fn hd_trace(s: String) {
    ev(s);
}

/// `hd_sym()`: an address in a trace line, `name+0xoff` (model.c:
/// `"%s+0x%lx"`), or `0xhex` outside every symbol: any symbol of the
/// image, present or not (with [`Image::as_model`](super::Image::as_model),
/// a symbol of module text whose module is not loaded is named too, as
/// model.c names every symbol of its table).
pub fn hd_sym(a: usize) -> String {
    match lookup_any(a) {
        Some(s) => format!("{}+{:#x}", s.name, a - s.addr),
        None => format!("{a:#x}"),
    }
}

/// `hd_page()`: an instruction slot in a trace line, as model.c prints
/// it: `pageN+0xoff` for an address in the Nth execmem page
/// ([`execmem_alloc`](super::execmem_alloc)), `null` for NULL and `page?`
/// for anything else (e.g. the fake slots of the default arch).
pub fn hd_page(p: *const KprobeOpcode) -> String {
    if p.is_null() {
        "null".into()
    } else {
        page_name(p as usize).unwrap_or_else(|| "page?".into())
    }
}

/// `printk(fmt, args...)`: `fmt` may start with a `KERN_<level>`; each
/// `%d` or `%s` takes the next of `args`.
pub(super) fn klog(fmt: &CStr, args: &[String]) {
    let mut s = fmt.to_string_lossy().into_owned();
    let mut level = "info";
    if s.starts_with('\u{1}') {
        level = level_name(s.as_bytes().get(1).map_or(6, |c| c.wrapping_sub(b'0')));
        s.drain(..2);
    }
    for a in args {
        if let Some(i) = s.find("%d").or_else(|| s.find("%s")) {
            s.replace_range(i..i + 2, a);
        }
    }
    printk(level, s);
}

/// The `kp_pr!` messages: upstream's `pr_*()` of the same text (`pr_fmt`
/// is `kprobes: `) at `level`.
pub fn pr_log(level: u8, args: core::fmt::Arguments<'_>) {
    printk(level_name(level), format!("kprobes: {args}"));
}

/// `printk(fmt, s)`.
///
/// # Safety
/// `s` is a C string.
pub unsafe fn printk_s(fmt: &CStr, s: *const c_char) {
    klog(fmt, &[cstr(s)]);
}
