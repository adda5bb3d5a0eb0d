// SPDX-License-Identifier: GPL-2.0

//! What the core did and what it printed: the per-thread [`Record`]
//! (allocations, grace periods, perf ksymbol events, warnings), `WARN_ON`,
//! printk (`pr_*`), the `arch` event lines and `%pS`/`%ps`.

use super::cpu::cpu;
use super::image::lookup;
use super::text::arch;
use crate::ffi::{c_char, c_uint};
use crate::types::KprobeOpcode;
use std::cell::RefCell;
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
}

thread_local! {
    static REC: RefCell<Record> = RefCell::new(Record::default());
}

/// Runs `f` on this thread's record.
pub fn record<R>(f: impl FnOnce(&mut Record) -> R) -> R {
    REC.with(|r| f(&mut r.borrow_mut()))
}

/// `perf_event_ksymbol()`.
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
    record(|r| r.ksym_events.push((ksym_type, addr, len, unregister, s)));
}

/// `WARN_ON(1)` at `file:line`.
pub fn warn_at(file: &'static str, line: u32) {
    eprintln!("WARNING: at {file}:{line}");
    record(|r| r.warnings.push(line));
}

/// `WARN_ON(1)`: recorded, and printed like the kernel would.
#[track_caller]
pub fn warn() {
    let loc = core::panic::Location::caller();
    eprintln!("WARNING: at {}:{}", loc.file(), loc.line());
    record(|r| r.warnings.push(loc.line()));
}

/// The `dump_kprobe()` message, formatted as printk would (`%pS` as
/// `0x<addr>`, a null `%s` as `(null)`).
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
    let msg = format!(
        "Dump kprobe:\n.symbol_name = {s}, .offset = {offset:x}, .addr = {:#x}\n",
        addr as usize
    );
    cpu(|c| c.log.push(msg));
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
pub(super) fn p_s(a: usize) -> String {
    match lookup(a) {
        Some(s) => format!("{}+{:#x}/{:#x}", s.name, a - s.addr, s.size),
        None => format!("{a:#x}"),
    }
}

/// `%ps`: the symbol name, or the raw address.
pub(super) fn p_s_short(a: usize) -> String {
    lookup(a).map_or(format!("{a:#x}"), |s| s.name)
}

pub(super) fn ev(s: String) {
    arch(|a| a.events.push(s));
}

/// `hd_sym()`: an address in a trace line, `name+0xoff` (model.c:
/// `"%s+0x%lx"`), or `0xhex` outside every symbol. model.c names any
/// symbol of its table, present or not; the simulation names those of
/// its image.
pub fn hd_sym(a: usize) -> String {
    match lookup(a) {
        Some(s) => format!("{}+{:#x}", s.name, a - s.addr),
        None => format!("{a:#x}"),
    }
}

/// `hd_page()`: an instruction slot in a trace line. model.c prints
/// `pageN+0xoff` for an address in its Nth execmem page, `null` for NULL
/// and `page?` for anything else; the simulation has no execmem pages
/// (its arch takes no slot from the insn caches; step 4 of
/// PLAN-one-simulation.md), so a slot is `null` or `page?`.
pub fn hd_page(p: *const KprobeOpcode) -> &'static str {
    if p.is_null() {
        "null"
    } else {
        "page?"
    }
}

pub(super) fn klog(fmt: &CStr, args: &[String]) {
    let mut s = fmt.to_string_lossy().into_owned();
    if s.starts_with('\u{1}') {
        s.drain(..2);
    }
    for a in args {
        if let Some(i) = s.find("%d").or_else(|| s.find("%s")) {
            s.replace_range(i..i + 2, a);
        }
    }
    arch(|x| x.log.push(s.trim_end().to_string()));
}

/// The `kp_pr!` messages: `kprobes: ` and the message, at `level`.
pub fn pr_log(_level: u8, args: core::fmt::Arguments<'_>) {
    let s = format!("kprobes: {args}");
    arch(|x| x.log.push(s.trim_end().to_string()));
}

/// `printk(fmt, s)`.
///
/// # Safety
/// `s` is a C string.
pub unsafe fn printk_s(fmt: &CStr, s: *const c_char) {
    klog(fmt, &[cstr(s)]);
}
