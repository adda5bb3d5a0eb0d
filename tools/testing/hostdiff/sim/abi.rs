// SPDX-License-Identifier: GPL-2.0

//! The simulation's C ABI: the functions that upstream `kernel/kprobes.c`
//! (`kcore.c`) and `driver.c` call in the simulated kernel (those of the
//! C model it replaced, `model.c` and `arch.c`, of which the comments
//! below speak; git history has them), with the
//! stubs' C signatures (`include/kstub.h`, `include/linux/kprobes.h`,
//! `hd.h`), each a thin adapter onto the simulation's function of the
//! same name (`crate::sim`, `rust-core/host/sim/`), whose image is the
//! host differential's ([`sim::install_model_m0`]).
//!
//! What the adapters do besides calling: C's optional out pointers and
//! null checks, C strings in and out
//! ([`hd_sym`](crate::kpsim_abi::hd_sym)'s rotating buffers, as
//! model.c's), and the state the C side reads or writes itself, which
//! `kpsim.c` defines and passes to
//! [`kpsim_init`](crate::kpsim_abi::kpsim_init)
//! ([`KpsimLinks`](crate::kpsim_abi::KpsimLinks)): the simulation reads
//! `current_kprobe` and `kprobe_status` through them
//! ([`sim::set_percpu_cells`]); the driver's `hd_frame`,
//! `hd_init_freed` and `hd_relax_count` are copied into the simulation
//! where it reads them; and what the driver reads of the simulation is
//! copied out after each call that changes it (the registered ftrace ops
//! and their filters, `hd_ftrace_ops[]`; the hooked rethook nodes,
//! `hd_task_rethooks`).  Trace lines go
//! to the C program's stdout as they happen ([`sim::set_trace_sink`]),
//! and the simulation's `hd_fatal()` (a panic) ends the program as
//! model.c's does (the panic hook: `PROG: FATAL: TEXT` on stderr,
//! `abort()`).
//!
//! No simulated kernel logic lives here.

use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use crate::ktypes::{
    CtlTable, FtraceOps, Module, Mutex, PtRegs, Rethook, RethookHandler, RethookNode,
    FTRACE_OPS_FL_ENABLED, FTRACE_OPS_FL_IPMODIFY,
};
use crate::sim;
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, ListHead, OptimizedKprobe, RcuHead};
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::sync::OnceLock;

/// `struct notifier_block`.
#[repr(C)]
pub struct NotifierBlock {
    /// `notifier_call`.
    pub notifier_call:
        Option<unsafe extern "C" fn(*mut NotifierBlock, c_ulong, *mut c_void) -> c_int>,
    /// `next`.
    pub next: *mut NotifierBlock,
    /// `priority`.
    pub priority: c_int,
}

/// `struct delayed_work`: `{ struct work_struct work; }` (whether it is
/// queued is the simulation's state, [`hd_work_pending`]).
#[repr(C)]
pub struct DelayedWork {
    /// `work.func` (`kcore_link.c` calls it).
    pub func: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// The C variables of `kpsim.c` that the simulation reads or writes
/// (`struct kpsim_links` there): the C side's own state.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct KpsimLinks {
    /// `&current_kprobe`.
    pub current_kprobe: *mut *mut Kprobe,
    /// `&kprobe_ctlblk.kprobe_status`.
    pub kprobe_status: *mut c_ulong,
    /// `&kprobe_insn_slots` (upstream `kprobes.o`'s).
    pub insn_slots: *mut KprobeInsnCache,
    /// `&kprobe_optinsn_slots`.
    pub optinsn_slots: *mut KprobeInsnCache,
    /// `&hd_m0`: module m0, which the driver loads and unloads.
    pub m0: *mut Module,
    /// `&text_mutex`.
    pub text_mutex: *mut Mutex,
    /// `&hd_frame`: the driver's frame number (each top-level `hit`).
    pub frame: *mut c_ulong,
    /// `&hd_init_freed`: the driver's `free-init`.
    pub init_freed: *mut bool,
    /// `&hd_relax_count`: `cpu_relax()` calls, reset by the driver.
    pub relax_count: *mut c_int,
    /// `&hd_task_rethooks`: the hooked nodes, innermost first.
    pub task_rethooks: *mut *mut RethookNode,
    /// `hd_ftrace_ops`: the registered ops, most recent first (two).
    pub ftrace_ops: *mut *mut FtraceOps,
    /// `&hd_module_nb`: the notifier block of `register_module_notifier()`.
    pub module_nb: *mut *mut NotifierBlock,
    /// `&hd_sysctl_table`: the table of `register_sysctl_init()`.
    pub sysctl_table: *mut *mut CtlTable,
    /// `&hd_sec`: `struct hd_sections`, eight addresses.
    pub sections: *mut [c_ulong; 8],
    /// `hd_kprobe_blacklist_syms`: the boot blacklist section.
    pub blacklist: *mut c_ulong,
    /// Its room, in entries.
    pub blacklist_room: usize,
    /// `&hd_kprobe_blacklist_nr`.
    pub blacklist_nr: *mut c_ulong,
}

/// The links, once [`kpsim_init`] has run.
struct Links(KpsimLinks);

// SAFETY: the links are set once, before `main()`, and used by the C
// program's one thread (the simulation's state is per thread).
unsafe impl Sync for Links {}
// SAFETY: as above.
unsafe impl Send for Links {}

static LINKS: OnceLock<Links> = OnceLock::new();

fn links() -> KpsimLinks {
    match LINKS.get() {
        Some(l) => l.0,
        None => sim::hd_fatal(format_args!("libkpsim.a: kpsim_init() was not called")),
    }
}

extern "C" {
    /// Writes one trace line, indented by two blanks (`kpsim.c`).
    fn kpsim_emit(line: *const u8, len: usize);
    /// Flushes stdout, prints `PROG: MSG` on stderr and aborts (`kpsim.c`).
    fn kpsim_die(msg: *const u8, len: usize) -> !;
}

/// The trace sink: the C program's stdout, between the driver's lines.
fn emit(line: &str) {
    // SAFETY: `line` is valid for `len` bytes during the call, which copies
    // them to stdout.
    unsafe { kpsim_emit(line.as_ptr(), line.len()) };
}

/// The panic hook: the simulation's `hd_fatal()` panics with `FATAL:
/// TEXT`, which model.c prints as `PROG: FATAL: TEXT` before it aborts; any
/// other panic (a failed assertion of the simulation) the same way, with
/// its location.
fn die(info: &std::panic::PanicHookInfo<'_>) {
    let msg = info.payload_as_str().unwrap_or("(panic)");
    let text = if msg.starts_with("FATAL: ") {
        msg.to_string()
    } else {
        let at = info
            .location()
            .map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        format!("simulation panic{at}: {msg}")
    };
    // SAFETY: `text` is valid for `len` bytes; the call does not return.
    unsafe { kpsim_die(text.as_ptr(), text.len()) }
}

/// Sets the simulation up for the C program (`kpsim.c`'s constructor,
/// before `main()`): the host differential's image with the C `hd_m0` as
/// module m0, the C insn slot caches and per-CPU variables, the trace on
/// stdout, the fatal path, and the section addresses and boot blacklist
/// that the stubs' macros read from C variables.
///
/// # Safety
/// `l` points to valid links whose pointers stay valid for the program's
/// life (the C program's globals), and only the calling thread uses the
/// simulation and those variables.
#[no_mangle]
pub unsafe extern "C" fn kpsim_init(l: *const KpsimLinks) {
    std::panic::set_hook(Box::new(die));
    // SAFETY: `l` is valid (this function's `# Safety`).
    let l = unsafe { *l };
    if LINKS.set(Links(l)).is_err() {
        sim::hd_fatal(format_args!("libkpsim.a: kpsim_init() called twice"));
    }
    // SAFETY: `hd_m0` is a zeroed global of the C program (this function's
    // `# Safety`), used by this thread alone.
    unsafe { sim::install_model_m0(l.m0) };
    sim::set_caches(sim::Caches {
        insn: l.insn_slots,
        optinsn: l.optinsn_slots,
        arch_syms: 0,
    });
    // SAFETY: the C program's per-CPU variables live for the program's life
    // and are only used by this thread (this function's `# Safety`).
    unsafe { sim::set_percpu_cells(l.current_kprobe, l.kprobe_status) };
    sim::set_trace_sink(Some(emit));
    let (k, n, i, e) = (
        sim::kprobes_text_area(),
        sim::noinstr_text_area(),
        sim::init_area(),
        sim::MODEL_ENTRY,
    );
    let sec = [k.0, k.1, n.0, n.1, i.0, i.1, e.0, e.1].map(|a| a as c_ulong);
    let (start, end) = (sim::kprobe_blacklist_start(), sim::kprobe_blacklist_end());
    // SAFETY: the simulation's boot blacklist section is one array.
    let nr = unsafe { end.offset_from(start) } as usize;
    if nr > l.blacklist_room {
        sim::hd_fatal(format_args!("libkpsim.a: the boot blacklist has no room"));
    }
    // SAFETY: the C variables are valid and this thread's (this function's
    // `# Safety`); `hd_kprobe_blacklist_syms` has room for `nr` entries
    // (checked above) and does not overlap the simulation's array.
    unsafe {
        l.sections.write(sec);
        core::ptr::copy_nonoverlapping(start, l.blacklist, nr);
        l.blacklist_nr.write(nr as c_ulong);
    }
}

// ---- trace and checks (model.c) -------------------------------------------

/// `hd_trace()`'s line, formatted by `kpsim.c`.
///
/// # Safety
/// `line` is a C string.
#[no_mangle]
pub unsafe extern "C" fn kpsim_trace(line: *const c_char) {
    // SAFETY: `line` is a C string (this function's `# Safety`).
    sim::hd_trace(unsafe { string(line) });
}

/// `hd_printk()`'s message, formatted into 512 bytes by `kpsim.c`.
///
/// # Safety
/// `level` and `msg` are C strings.
#[no_mangle]
pub unsafe extern "C" fn kpsim_printk(level: *const c_char, msg: *const c_char) {
    // SAFETY: C strings (this function's `# Safety`).
    let (level, msg) = unsafe { (string(level), string(msg)) };
    sim::printk(&level, msg);
}

/// `hd_fatal()`'s message, formatted by `kpsim.c`.
///
/// # Safety
/// `text` is a C string.
#[no_mangle]
pub unsafe extern "C" fn kpsim_fatal(text: *const c_char) -> ! {
    // SAFETY: `text` is a C string (this function's `# Safety`).
    let text = unsafe { string(text) };
    sim::hd_fatal(format_args!("{text}"))
}

/// `seq_printf()`'s `%pS` (`full`) or `%ps` of `a`, into `buf` (`n`
/// bytes, NUL-terminated, cut as `snprintf()` cuts).
///
/// # Safety
/// `buf` is valid for `n` bytes, `n > 0`.
#[no_mangle]
pub unsafe extern "C" fn kpsim_seq_sym(buf: *mut c_char, n: usize, a: c_ulong, full: bool) {
    let s = if full {
        sim::p_s(a as usize)
    } else {
        sim::p_s_short(a as usize)
    };
    let k = s.len().min(n - 1);
    // SAFETY: `buf` has room for `n` bytes (this function's `# Safety`), and
    // `k + 1 <= n`.
    unsafe {
        core::ptr::copy_nonoverlapping(s.as_ptr(), buf, k);
        buf.add(k).write(0);
    }
}

/// A C string as a Rust one.
///
/// # Safety
/// `p` is a C string.
unsafe fn string(p: *const c_char) -> String {
    // SAFETY: `p` is a C string (this function's `# Safety`).
    unsafe { CStr::from_ptr(p.cast()) }
        .to_string_lossy()
        .into_owned()
}

thread_local! {
    /// The rotating buffers of [`hd_sym`] and [`hd_page`] (model.c: 8 and
    /// 4 static buffers, each valid until reused).
    static BUFS: RefCell<(usize, [CString; 8])> = RefCell::new(Default::default());
}

/// `s` as a C string that stays valid for the next seven calls.
fn rotating(s: String) -> *const c_char {
    let c = CString::new(s).unwrap_or_default();
    BUFS.with(|b| {
        let mut b = b.borrow_mut();
        let i = b.0 % 8;
        b.0 += 1;
        b.1[i] = c;
        b.1[i].as_ptr().cast()
    })
}

/// `hd_sym()`.
#[no_mangle]
pub extern "C" fn hd_sym(addr: c_ulong) -> *const c_char {
    rotating(sim::hd_sym(addr as usize))
}

/// `hd_page()`.
#[no_mangle]
pub extern "C" fn hd_page(p: *const c_void) -> *const c_char {
    rotating(sim::hd_page(p.cast()))
}

/// `hd_warn()`: the `WARN*()` macros.
#[no_mangle]
pub extern "C" fn hd_warn(cond: bool, _what: *const c_char) -> bool {
    if cond {
        sim::warn();
    }
    cond
}

/// `hd_resolve()`: the driver's locations.
///
/// # Safety
/// `spec` is a C string and `addr` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hd_resolve(spec: *const c_char, addr: *mut c_ulong) -> c_int {
    // SAFETY: `spec` is a C string (this function's `# Safety`).
    match sim::hd_resolve(&unsafe { string(spec) }) {
        Some(a) => {
            // SAFETY: `addr` is valid for a write (this function's
            // `# Safety`).
            unsafe { addr.write(a as c_ulong) };
            0
        }
        None => -1,
    }
}

// ---- memory ------------------------------------------------------------------

/// `kmalloc()`.
#[no_mangle]
pub extern "C" fn kmalloc(size: usize, _gfp: c_uint) -> *mut c_void {
    sim::kmalloc(size)
}

/// `kzalloc()`.
#[no_mangle]
pub extern "C" fn kzalloc(size: usize, _gfp: c_uint) -> *mut c_void {
    sim::kzalloc(size)
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or from `kmalloc()`, and not used after.
#[no_mangle]
pub unsafe extern "C" fn kfree(p: *const c_void) {
    // SAFETY: this function's `# Safety`, which the simulation's requires.
    unsafe { sim::kfree(p.cast_mut()) }
}

/// `execmem_alloc()`.
#[no_mangle]
pub extern "C" fn execmem_alloc(_type: c_uint, size: usize) -> *mut c_void {
    sim::execmem_alloc(size)
}

/// `execmem_free()` (an unknown pointer is fatal, as model.c's).
///
/// # Safety
/// `p` is not used after (if it is an execmem page).
#[no_mangle]
pub unsafe extern "C" fn execmem_free(p: *mut c_void) {
    // SAFETY: this function's `# Safety`; the simulation finds the page
    // before it frees anything.
    unsafe { sim::execmem_free(p) }
}

/// `perf_event_ksymbol()`.
///
/// # Safety
/// `sym` is a C string.
#[no_mangle]
pub unsafe extern "C" fn perf_event_ksymbol(
    ksym_type: u16,
    addr: u64,
    len: u32,
    unregister: bool,
    sym: *const c_char,
) {
    // SAFETY: `sym` is a C string (this function's `# Safety`).
    unsafe { sim::perf_event_ksymbol(ksym_type, addr, len, unregister, sym) }
}

// ---- kallsyms, sections, text ---------------------------------------------------

/// `kallsyms_lookup_name()`: a present symbol's address, or 0.
///
/// # Safety
/// `name` is a C string.
#[no_mangle]
pub unsafe extern "C" fn kallsyms_lookup_name(name: *const c_char) -> c_ulong {
    // SAFETY: `name` is a C string (this function's `# Safety`).
    unsafe { sim::kprobe_lookup_name(name, 0) as c_ulong }
}

/// `kallsyms_lookup_size_offset()` (null out pointers are skipped).
///
/// # Safety
/// `size` and `offset` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn kallsyms_lookup_size_offset(
    addr: c_ulong,
    size: *mut c_ulong,
    offset: *mut c_ulong,
) -> c_int {
    let (mut s, mut o) = (0, 0);
    if !sim::kallsyms_lookup_size_offset(addr as usize, &mut s, &mut o) {
        return 0;
    }
    // SAFETY: null or valid for a write (this function's `# Safety`).
    unsafe {
        if !size.is_null() {
            size.write(s as c_ulong);
        }
        if !offset.is_null() {
            offset.write(o as c_ulong);
        }
    }
    1
}

/// `lookup_symbol_name()` (`symname` empty on failure, as model.c's).
///
/// # Safety
/// `symname` is valid for `KSYM_NAME_LEN` bytes.
#[no_mangle]
pub unsafe extern "C" fn lookup_symbol_name(addr: c_ulong, symname: *mut c_char) -> c_int {
    // SAFETY: `symname` has `KSYM_NAME_LEN` bytes (this function's
    // `# Safety`), as the simulation's requires.
    unsafe {
        symname.write(0);
        sim::lookup_symbol_name(addr as usize, symname)
    }
}

/// `kallsyms_lookup()` (null out pointers are skipped).
///
/// # Safety
/// `namebuf` is valid for `KSYM_NAME_LEN` bytes; the other pointers are
/// null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn kallsyms_lookup(
    addr: c_ulong,
    symbolsize: *mut c_ulong,
    offset: *mut c_ulong,
    modname: *mut *mut c_char,
    namebuf: *mut c_char,
) -> *const c_char {
    let (mut off, mut m) = (0, core::ptr::null_mut());
    // SAFETY: `namebuf` has `KSYM_NAME_LEN` bytes (this function's
    // `# Safety`), as the simulation's requires.
    let r = unsafe {
        namebuf.add(sim::KSYM_NAME_LEN - 1).write(0);
        namebuf.write(0);
        sim::kallsyms_lookup(addr as usize, &mut off, &mut m, namebuf)
    };
    if r.is_null() {
        return r;
    }
    let (mut size, mut o) = (0, 0);
    sim::kallsyms_lookup_size_offset(addr as usize, &mut size, &mut o);
    // SAFETY: null or valid for a write (this function's `# Safety`).
    unsafe {
        if !symbolsize.is_null() {
            symbolsize.write(size as c_ulong);
        }
        if !offset.is_null() {
            offset.write(off);
        }
        if !modname.is_null() {
            modname.write(m);
        }
    }
    r
}

/// The driver's `free-init` as the simulation sees it (`hd_init_freed`).
fn sync_init_freed() {
    // SAFETY: a valid C `bool` of this thread's program (`kpsim_init()`).
    let freed = unsafe { links().init_freed.read() };
    sim::arch(|a| a.init_freed = freed);
}

/// `core_kernel_text()`.
#[no_mangle]
pub extern "C" fn core_kernel_text(addr: c_ulong) -> c_int {
    sync_init_freed();
    sim::core_kernel_text(addr as usize) as c_int
}

/// `kernel_text_address()`.
#[no_mangle]
pub extern "C" fn kernel_text_address(addr: c_ulong) -> c_int {
    sync_init_freed();
    sim::kernel_text_address(addr as usize) as c_int
}

/// `in_gate_area_no_mm()`.
#[no_mangle]
pub extern "C" fn in_gate_area_no_mm(addr: c_ulong) -> c_int {
    sim::in_gate_area_no_mm(addr as usize) as c_int
}

/// `jump_label_text_reserved()`.
#[no_mangle]
pub extern "C" fn jump_label_text_reserved(start: *mut c_void, end: *mut c_void) -> c_int {
    sim::jump_label_text_reserved(start as usize, end as usize) as c_int
}

/// `static_call_text_reserved()`.
#[no_mangle]
pub extern "C" fn static_call_text_reserved(start: *mut c_void, end: *mut c_void) -> c_int {
    sim::static_call_text_reserved(start as usize, end as usize) as c_int
}

/// What [`find_bug`] returns for a `BUG()` site (the core only tests it).
static BUG_ENTRY: u8 = 0;

/// `find_bug()`: non-null at a `BUG()` site.
#[no_mangle]
pub extern "C" fn find_bug(addr: c_ulong) -> *const c_void {
    if sim::find_bug(addr as usize) {
        (&raw const BUG_ENTRY).cast()
    } else {
        core::ptr::null()
    }
}

/// `ftrace_location()`.
#[no_mangle]
pub extern "C" fn ftrace_location(ip: c_ulong) -> c_ulong {
    sim::ftrace_location(ip as usize) as c_ulong
}

// ---- modules ------------------------------------------------------------------

/// `register_module_notifier()`: the driver calls `nb` (`hd_module_nb`).
///
/// # Safety
/// `nb` lives as long as the program; called once, at boot (kprobes.c's
/// `init_kprobes()`).
#[no_mangle]
pub unsafe extern "C" fn register_module_notifier(nb: *mut NotifierBlock) -> c_int {
    // SAFETY: a valid C pointer of this thread's program (`kpsim_init()`).
    unsafe { links().module_nb.write(nb) };
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { sim::register_module_notifier() }
}

/// `register_die_notifier()`.
///
/// # Safety
/// Called once, at boot (kprobes.c's `init_kprobes()`).
#[no_mangle]
pub unsafe extern "C" fn register_die_notifier(_nb: *mut NotifierBlock) -> c_int {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { sim::register_die_notifier() }
}

/// `__module_text_address()`.
///
/// # Safety
/// Preemption is disabled or an RCU read-side section is open, as in the
/// kernel.
#[no_mangle]
pub unsafe extern "C" fn __module_text_address(addr: c_ulong) -> *mut Module {
    // SAFETY: preemption is disabled or a read-side section open (this function's `# Safety`).
    unsafe { sim::module_text_address(addr as usize) }
}

/// `try_module_get()`; NULL (the core kernel) succeeds, as the kernel's.
///
/// # Safety
/// `m` is null or a live module.
#[no_mangle]
pub unsafe extern "C" fn try_module_get(m: *mut Module) -> bool {
    // SAFETY: this function's `# Safety`, not null.
    m.is_null() || unsafe { sim::try_module_get(m) }
}

/// `module_put()`; NULL (the core kernel) is nothing, as the kernel's (7.3's
/// `check_kprobe_address_safe()` puts a core kernel address's NULL).
///
/// # Safety
/// `m` is null or a live module.
#[no_mangle]
pub unsafe extern "C" fn module_put(m: *mut Module) {
    if !m.is_null() {
        // SAFETY: this function's `# Safety`, not null.
        unsafe { sim::module_put(m) }
    }
}

/// `within_module_init()`.
///
/// # Safety
/// `m` is a live module.
#[no_mangle]
pub unsafe extern "C" fn within_module_init(addr: c_ulong, m: *const Module) -> bool {
    // SAFETY: this function's `# Safety`; the simulation only reads it.
    unsafe { sim::within_module_init(addr as usize, m.cast_mut()) }
}

/// `within_module_core()`.
///
/// # Safety
/// `m` is a live module.
#[no_mangle]
pub unsafe extern "C" fn within_module_core(addr: c_ulong, m: *const Module) -> bool {
    // SAFETY: this function's `# Safety`; the simulation only reads it.
    unsafe { sim::within_module_core(addr as usize, m.cast_mut()) }
}

// ---- locks, RCU, preemption ------------------------------------------------------

/// Is `m` the core's `kprobe_mutex` (upstream's is static: known by its
/// name, which `DEFINE_MUTEX()` sets)?
///
/// # Safety
/// `m` is a live mutex.
unsafe fn is_kprobe_mutex(m: *mut Mutex) -> bool {
    // SAFETY: `m` is live (this function's `# Safety`); `name` is null or a
    // C string (`__MUTEX_INITIALIZER`).
    let name = unsafe { (*m).name };
    // SAFETY: as above.
    !name.is_null() && unsafe { CStr::from_ptr(name.cast()) } == c"kprobe_mutex"
}

/// `mutex_lock()`: model.c's checks, and for `text_mutex` and
/// `kprobe_mutex` the simulation's lock state (its order checks, and what
/// the arch and ftrace assert and the end of an operation checks).
///
/// # Safety
/// `m` is a live mutex.
#[no_mangle]
pub unsafe extern "C" fn mutex_lock(m: *mut Mutex) {
    // SAFETY: `m` is live (this function's `# Safety`).
    unsafe { sim::mutex_lock(m) };
    // SAFETY: `m` is live (this function's `# Safety`).
    let kprobe_mutex = unsafe { is_kprobe_mutex(m) };
    if m == links().text_mutex {
        sim::text_mutex_lock();
    } else if kprobe_mutex {
        sim::kprobe_mutex_lock();
    }
}

/// `mutex_unlock()`.
///
/// # Safety
/// `m` is a live mutex that the current task holds.
#[no_mangle]
pub unsafe extern "C" fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: `m` is live (this function's `# Safety`).
    unsafe { sim::mutex_unlock(m) };
    // SAFETY: `m` is live (this function's `# Safety`).
    let kprobe_mutex = unsafe { is_kprobe_mutex(m) };
    // SAFETY: the current task holds `m` (this function's `# Safety`).
    if m == links().text_mutex {
        unsafe { sim::text_mutex_unlock() };
    } else if kprobe_mutex {
        unsafe { sim::kprobe_mutex_unlock() };
    }
}

/// `cpus_read_lock()`.
#[no_mangle]
pub extern "C" fn cpus_read_lock() {
    sim::cpus_read_lock()
}

/// `cpus_read_unlock()`.
///
/// # Safety
/// The caller holds the CPU hotplug lock for reading.
#[no_mangle]
pub unsafe extern "C" fn cpus_read_unlock() {
    // SAFETY: the lock is held (this function's `# Safety`).
    unsafe { sim::cpus_read_unlock() }
}

/// `lockdep_assert_cpus_held()`.
#[no_mangle]
pub extern "C" fn lockdep_assert_cpus_held() {
    sim::lockdep_assert_cpus_held()
}

/// `jump_label_lock()`.
#[no_mangle]
pub extern "C" fn jump_label_lock() {
    sim::jump_label_lock()
}

/// `jump_label_unlock()`.
///
/// # Safety
/// The caller holds the jump label lock.
#[no_mangle]
pub unsafe extern "C" fn jump_label_unlock() {
    // SAFETY: the lock is held (this function's `# Safety`).
    unsafe { sim::jump_label_unlock() }
}

/// `preempt_disable()`.
#[no_mangle]
pub extern "C" fn preempt_disable() {
    sim::preempt_disable()
}

/// `preempt_enable()`.
///
/// # Safety
/// Ends a section that `preempt_disable()` began.
#[no_mangle]
pub unsafe extern "C" fn preempt_enable() {
    // SAFETY: ends a `preempt_disable()` section (this function's `# Safety`).
    unsafe { sim::preempt_enable() }
}

/// `rcu_read_lock()`.
#[no_mangle]
pub extern "C" fn rcu_read_lock() {
    sim::rcu_read_lock()
}

/// `rcu_read_unlock()`.
///
/// # Safety
/// Ends a read-side section that `rcu_read_lock()` began.
#[no_mangle]
pub unsafe extern "C" fn rcu_read_unlock() {
    // SAFETY: ends a read-side section (this function's `# Safety`).
    unsafe { sim::rcu_read_unlock() }
}

/// `synchronize_rcu()`.
#[no_mangle]
pub extern "C" fn synchronize_rcu() {
    sim::synchronize_rcu()
}

/// `synchronize_rcu_tasks()`.
#[no_mangle]
pub extern "C" fn synchronize_rcu_tasks() {
    sim::synchronize_rcu_tasks()
}

/// `kfree_rcu(p, field)` (model.c's `hd_kfree_rcu()`).
///
/// # Safety
/// `p` is a `kmalloc()` block that no new reader can reach.
#[no_mangle]
pub unsafe extern "C" fn hd_kfree_rcu(p: *mut c_void, head: *mut RcuHead) {
    // SAFETY: this function's `# Safety`, as the simulation's requires.
    unsafe { sim::kfree_rcu(p, head) }
}

/// `hd_rcu_quiesce()`: the end of an operation.
#[no_mangle]
pub extern "C" fn hd_rcu_quiesce() {
    sim::hd_rcu_quiesce()
}

/// `cpu_relax()` (`hd_relax_count`, which the driver resets, counts).
#[no_mangle]
pub extern "C" fn hd_cpu_relax() {
    let l = links();
    // SAFETY: a valid C `int` of this thread's program (`kpsim_init()`).
    let n = unsafe { l.relax_count.read() };
    sim::cpu(|c| c.relax_count = n.max(0) as usize);
    sim::cpu_relax();
    let n = sim::cpu(|c| c.relax_count) as c_int;
    // SAFETY: as above.
    unsafe { l.relax_count.write(n) };
}

// ---- the simulated workqueue: 6.12's delayed work, 7.3's optimizer thread --------

/// `schedule_delayed_work()` (the one delayed work, the optimizer's):
/// `~work queued` when it becomes pending.
#[no_mangle]
pub extern "C" fn schedule_delayed_work(_dwork: *mut DelayedWork, _delay: c_ulong) -> bool {
    let was = sim::arch(|a| a.optimizer_pending);
    sim::kick_optimizer();
    !was
}

/// `flush_delayed_work()`: runs the work now if it is queued ([`hd_work_run`]).
#[no_mangle]
pub extern "C" fn flush_delayed_work(_dwork: *mut DelayedWork) -> bool {
    hd_work_run()
}

/// A `wake_up()` of the one kthread's wait queue (`kpsim.c`): the thread
/// has a step to run, the same pending flag and `~work queued` as
/// [`schedule_delayed_work`] (the model runs 7.3's optimizer thread where
/// it runs 6.12's work, `include/kstub.h`).
#[no_mangle]
pub extern "C" fn kpsim_work_queue() {
    sim::kick_optimizer();
}

/// Runs the queued work or thread step (`~work run`, then the simulation
/// calls `kprobes_rust_optimizer_work()`: the Rust core's, or in a program
/// of upstream's file `kcore_link.c`'s, which runs the work's `func` or
/// the thread's step); false when nothing is queued.  The driver's
/// `optimize`, `flush_delayed_work()`, and on 7.3 `hd_schedule()`.
#[no_mangle]
pub extern "C" fn hd_work_run() -> bool {
    if !sim::arch(|a| a.optimizer_pending) {
        return false;
    }
    sim::run_optimizer();
    true
}

/// Is a work or thread step queued (the driver's `check`)?
#[no_mangle]
pub extern "C" fn hd_work_pending() -> bool {
    sim::arch(|a| a.optimizer_pending)
}

// ---- ftrace -----------------------------------------------------------------------

/// The two ops the core passed, by their simulation index (IPMODIFY: 1).
static OPS: [std::sync::atomic::AtomicPtr<FtraceOps>; 2] = [
    std::sync::atomic::AtomicPtr::new(core::ptr::null_mut()),
    std::sync::atomic::AtomicPtr::new(core::ptr::null_mut()),
];

/// Which of the simulation's two ops `ops` is (model.c names them by
/// their flags), remembered for [`mirror_ftrace`].
///
/// # Safety
/// `ops` is a live ops that lives as long as the program.
unsafe fn ipmodify(ops: *mut FtraceOps) -> bool {
    // SAFETY: `ops` is live (this function's `# Safety`).
    let ipmodify = unsafe { (*ops).flags } & FTRACE_OPS_FL_IPMODIFY != 0;
    OPS[ipmodify as usize].store(ops, std::sync::atomic::Ordering::Relaxed);
    ipmodify
}

/// Copies the simulation's ftrace state out: each ops' enabled flag and
/// filter, and `hd_ftrace_ops[]` (the registered ops, most recent first),
/// which the driver's `check` reads.
fn mirror_ftrace() {
    let (ops, registered) = sim::arch(|a| {
        (
            [0, 1].map(|k| {
                (
                    a.ftrace_ops[k].flags & FTRACE_OPS_FL_ENABLED,
                    a.ftrace_ops[k].nfilter,
                    a.ftrace_ops[k].filter,
                )
            }),
            a.ftrace_registered.clone(),
        )
    });
    for (k, (enabled, nfilter, filter)) in ops.into_iter().enumerate() {
        let p = OPS[k].load(std::sync::atomic::Ordering::Relaxed);
        if p.is_null() {
            continue;
        }
        // SAFETY: `p` is one of the core's two static ops (`ipmodify()`'s
        // `# Safety`), which no one else accesses meanwhile.
        unsafe {
            (*p).flags = (*p).flags & !FTRACE_OPS_FL_ENABLED | enabled;
            (*p).nfilter = nfilter;
            (*p).filter = filter;
        }
    }
    let list = links().ftrace_ops;
    for i in 0..2 {
        let p = registered.get(i).map_or(core::ptr::null_mut(), |&ipm| {
            OPS[ipm as usize].load(std::sync::atomic::Ordering::Relaxed)
        });
        // SAFETY: `hd_ftrace_ops` has two entries (`kpsim_init()`).
        unsafe { list.add(i).write(p) };
    }
}

/// `ftrace_set_filter_ip()` (the core never resets a filter).
///
/// # Safety
/// `ops` is a live ops that lives as long as the program.
#[no_mangle]
pub unsafe extern "C" fn ftrace_set_filter_ip(
    ops: *mut FtraceOps,
    ip: c_ulong,
    remove: c_int,
    reset: c_int,
) -> c_int {
    if reset != 0 {
        sim::hd_fatal(format_args!("ftrace_set_filter_ip: reset is not simulated"));
    }
    // SAFETY: this function's `# Safety`.
    let ipm = unsafe { ipmodify(ops) };
    let ret = sim::ftrace_set_filter_ip(ipm, ip as usize, remove != 0);
    mirror_ftrace();
    ret
}

/// `ftrace_set_filter_ips()` (the Rust core's batches; upstream's file
/// does not call it).
///
/// # Safety
/// `ops` is a live ops that lives as long as the program; `ips` holds `cnt`
/// addresses.
#[no_mangle]
pub unsafe extern "C" fn ftrace_set_filter_ips(
    ops: *mut FtraceOps,
    ips: *const c_ulong,
    cnt: c_uint,
    remove: c_int,
    reset: c_int,
) -> c_int {
    if reset != 0 {
        sim::hd_fatal(format_args!(
            "ftrace_set_filter_ips: reset is not simulated"
        ));
    }
    // SAFETY: `ips` holds `cnt` addresses (this function's `# Safety`).
    let ips: Vec<usize> = unsafe { core::slice::from_raw_parts(ips, cnt as usize) }
        .iter()
        .map(|&a| a as usize)
        .collect();
    // SAFETY: this function's `# Safety`.
    let ipm = unsafe { ipmodify(ops) };
    let ret = sim::ftrace_set_filter_ips(ipm, &ips, remove != 0);
    mirror_ftrace();
    ret
}

/// `register_ftrace_function()`.
///
/// # Safety
/// `ops` is a live ops that lives as long as the program.
#[no_mangle]
pub unsafe extern "C" fn register_ftrace_function(ops: *mut FtraceOps) -> c_int {
    // SAFETY: this function's `# Safety`.
    let ret = sim::register_ftrace_function(unsafe { ipmodify(ops) });
    mirror_ftrace();
    ret
}

/// `unregister_ftrace_function()`.
///
/// # Safety
/// `ops` is a live ops that lives as long as the program.
#[no_mangle]
pub unsafe extern "C" fn unregister_ftrace_function(ops: *mut FtraceOps) -> c_int {
    // SAFETY: this function's `# Safety`.
    let ret = sim::unregister_ftrace_function(unsafe { ipmodify(ops) });
    mirror_ftrace();
    ret
}

/// `kprobe_ftrace_handler()`, the kprobe ops' `func` (the simulation's
/// trap path calls its own for each matching registered ops).
#[no_mangle]
pub extern "C" fn kprobe_ftrace_handler(
    ip: c_ulong,
    _parent_ip: c_ulong,
    _ops: *mut FtraceOps,
    _fregs: *mut c_void,
) {
    sim::kprobe_ftrace_handler(ip as usize)
}

/// The driver's `ftrace-fail filter|register ERR`: the next
/// `ftrace_set_filter_ip()` or `ftrace_set_filter_ips()` (`reg`: the next
/// `register_ftrace_function()`) of either ops returns `err` and changes
/// nothing (the simulation's injected failures, as ftrace's `-ENOMEM`, or
/// `-EBUSY` where another IPMODIFY ops, a livepatch, claims the function).
#[no_mangle]
pub extern "C" fn hd_ftrace_fail_next(reg: bool, err: c_int) {
    if reg {
        sim::arch(|a| a.ftrace_register_fail = Some(err));
    } else {
        sim::arch(|a| a.ftrace_fail = Some(err));
    }
}

/// `hd_ops_name()`: model.c names the ops by their flags.
///
/// # Safety
/// `ops` is a live ops.
#[no_mangle]
pub unsafe extern "C" fn hd_ops_name(ops: *mut FtraceOps) -> *const c_char {
    // SAFETY: `ops` is live (this function's `# Safety`).
    let ipm = unsafe { (*ops).flags } & FTRACE_OPS_FL_IPMODIFY != 0;
    let name = sim::ops_name(ipm);
    // The simulation's two names, as C strings.
    let c: &'static CStr = if name == "ipmodify_ops" {
        c"ipmodify_ops"
    } else {
        c"ftrace_ops"
    };
    c.as_ptr().cast()
}

// ---- rethook ------------------------------------------------------------------------

/// Copies the simulation's hooked rethook nodes out to `hd_task_rethooks`
/// (innermost first, linked by `next`), which the driver's `check`
/// counts.
fn mirror_rethooks() {
    let hooked = sim::arch(|a| a.hooked.clone());
    let mut next = core::ptr::null_mut();
    for &n in &hooked {
        // SAFETY: a hooked node is live until the simulation recycles it,
        // which unhooks it first; its `next` is unused by the simulation's
        // model rethook.
        unsafe { (*n).next = next };
        next = n;
    }
    // SAFETY: a valid C pointer of this thread's program (`kpsim_init()`).
    unsafe { links().task_rethooks.write(next) };
}

/// `rethook_alloc()` (no handler: `-EINVAL`, as model.c's).
///
/// # Safety
/// `data` outlives the rethook.
#[no_mangle]
pub unsafe extern "C" fn rethook_alloc(
    data: *mut c_void,
    handler: Option<RethookHandler>,
    size: c_int,
    num: c_int,
) -> *mut Rethook {
    let Some(handler) = handler else {
        let e = -sim::EINVAL;
        sim::hd_trace(format!("rethook_alloc num={num} = {e}"));
        return e as isize as *mut Rethook;
    };
    // SAFETY: this function's `# Safety`.
    unsafe { sim::rethook_alloc(data, handler, size, num) }
}

/// `rethook_free()`.
///
/// # Safety
/// `rh` came from `rethook_alloc()`.
#[no_mangle]
pub unsafe extern "C" fn rethook_free(rh: *mut Rethook) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::rethook_free(rh) }
}

/// `rethook_try_get()`.
///
/// # Safety
/// `rh` is live.
#[no_mangle]
pub unsafe extern "C" fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::rethook_try_get(rh) }
}

/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from `rethook_try_get()` and is not used after.
#[no_mangle]
pub unsafe extern "C" fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::rethook_recycle(n) };
    mirror_rethooks();
}

/// `rethook_hook()`: on the driver's current frame (`hd_frame`).
///
/// # Safety
/// `n` came from `rethook_try_get()`.
#[no_mangle]
pub unsafe extern "C" fn rethook_hook(n: *mut RethookNode, regs: *mut PtRegs, mcount: bool) {
    // SAFETY: a valid C variable of this thread's program (`kpsim_init()`).
    let frame = unsafe { links().frame.read() };
    sim::arch(|a| a.frame = frame);
    // SAFETY: this function's `# Safety`.
    unsafe { sim::rethook_hook(n, regs, mcount) };
    mirror_rethooks();
}

/// `hd_rethook_return()`: the driver's `ret`.
#[no_mangle]
pub extern "C" fn hd_rethook_return() -> c_int {
    let r = sim::hd_rethook_return();
    mirror_rethooks();
    r
}

// ---- seq_file, debugfs, sysctl -------------------------------------------------------

/// `seq_list_start()`.
///
/// # Safety
/// `head` is a stable list.
#[no_mangle]
pub unsafe extern "C" fn seq_list_start(head: *mut ListHead, pos: i64) -> *mut ListHead {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::seq_list_start(head, pos) }.cast()
}

/// `seq_list_next()`.
///
/// # Safety
/// `v` is an entry of the stable list at `head`; `ppos` is valid.
#[no_mangle]
pub unsafe extern "C" fn seq_list_next(
    v: *mut c_void,
    head: *mut ListHead,
    ppos: *mut i64,
) -> *mut ListHead {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::seq_list_next(v, head, ppos) }.cast()
}

/// `kallsyms_show_value()`: every reader sees addresses (model.c's).
#[no_mangle]
pub extern "C" fn kallsyms_show_value(_cred: *const c_void) -> bool {
    true
}

/// What the debugfs functions return (the core only tests it).
static DENTRY: u8 = 0;

/// `debugfs_create_dir()`.
#[no_mangle]
pub extern "C" fn debugfs_create_dir(_name: *const c_char, _parent: *mut c_void) -> *const c_void {
    (&raw const DENTRY).cast()
}

/// `debugfs_create_file()`.
#[no_mangle]
pub extern "C" fn debugfs_create_file(
    _name: *const c_char,
    _mode: u16,
    _parent: *mut c_void,
    _data: *mut c_void,
    _fops: *const c_void,
) -> *const c_void {
    (&raw const DENTRY).cast()
}

/// `default_llseek()`: the offset (model.c's).
#[no_mangle]
pub extern "C" fn default_llseek(_file: *mut c_void, offset: i64, _whence: c_int) -> i64 {
    offset
}

/// `simple_read_from_buffer()`.
///
/// # Safety
/// As the simulation's: `to` has room for `count` bytes, `from` holds
/// `available`, `ppos` is valid.
#[no_mangle]
pub unsafe extern "C" fn simple_read_from_buffer(
    to: *mut c_void,
    count: usize,
    ppos: *mut i64,
    from: *const c_void,
    available: usize,
) -> isize {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::simple_read_from_buffer(to, count, ppos, from, available) }
}

/// `kstrtobool_from_user()`.
///
/// # Safety
/// `s` has `count` bytes; `res` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn kstrtobool_from_user(
    s: *const c_char,
    count: usize,
    res: *mut bool,
) -> c_int {
    if count == 0 {
        return -sim::EINVAL;
    }
    let mut v = false;
    // SAFETY: `s` has `count` bytes (this function's `# Safety`).
    let r = unsafe { sim::kstrtobool_from_user(s, count, &mut v) };
    if r == 0 {
        // SAFETY: `res` is valid for a write (this function's `# Safety`).
        unsafe { res.write(v) };
    }
    r
}

/// `register_sysctl_init()` (model.c's `hd_register_sysctl_init()`): the
/// driver writes through `hd_sysctl_table`.
///
/// # Safety
/// Called once, at boot (kprobes.c's `init_kprobes()`).
#[no_mangle]
pub unsafe extern "C" fn hd_register_sysctl_init(
    _path: *const c_char,
    table: *mut CtlTable,
    _n: usize,
) {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { sim::kprobe_sysctls_init() };
    // SAFETY: a valid C pointer of this thread's program (`kpsim_init()`).
    unsafe { links().sysctl_table.write(table) };
}

/// `proc_dointvec_minmax()`.
///
/// # Safety
/// As the simulation's: `table`, its `int` and bounds are live; `buffer`
/// holds `*lenp` bytes.
#[no_mangle]
pub unsafe extern "C" fn proc_dointvec_minmax(
    table: *const CtlTable,
    write: c_int,
    buffer: *mut c_void,
    lenp: *mut usize,
    ppos: *mut i64,
) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::proc_dointvec_minmax(table, write, buffer, lenp, ppos) }
}

// ---- the arch (x86's kprobes, optprobes and kprobes on ftrace) ------------------------

/// `arch_prepare_kprobe()`.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_prepare_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_prepare_kprobe(p) }
}

/// `arch_arm_kprobe()`.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_arm_kprobe(p: *mut Kprobe) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_arm_kprobe(p) }
}

/// `arch_disarm_kprobe()`.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_disarm_kprobe(p: *mut Kprobe) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_disarm_kprobe(p) }
}

/// `arch_remove_kprobe()`.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_remove_kprobe(p: *mut Kprobe) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_remove_kprobe(p) }
}

/// `arch_prepare_kprobe_ftrace()`.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_prepare_kprobe_ftrace(p) }
}

/// `arch_trampoline_kprobe()`.
///
/// # Safety
/// `p` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_trampoline_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_trampoline_kprobe(p) as c_int }
}

/// `arch_init_kprobes()`.
///
/// # Safety
/// Called once, at boot (kprobes.c's `init_kprobes()`).
#[no_mangle]
pub unsafe extern "C" fn arch_init_kprobes() -> c_int {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { sim::arch_init_kprobes() }
}

/// `arch_populate_kprobe_blacklist()` (`kpsim.c` defines the strong
/// symbol that overrides upstream's `__weak` one).
#[no_mangle]
pub extern "C" fn kpsim_arch_populate_kprobe_blacklist() -> c_int {
    sim::arch_populate_kprobe_blacklist()
}

/// `arch_prepare_optimized_kprobe()`.
///
/// # Safety
/// Both live.
#[no_mangle]
pub unsafe extern "C" fn arch_prepare_optimized_kprobe(
    op: *mut OptimizedKprobe,
    orig: *mut Kprobe,
) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_prepare_optimized_kprobe(op, orig) }
}

/// `arch_check_optimized_kprobe()`.
///
/// # Safety
/// `op` is live; `kprobe_mutex` is held.
#[no_mangle]
pub unsafe extern "C" fn arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_check_optimized_kprobe(op) }
}

/// `arch_within_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_within_optimized_kprobe(
    op: *mut OptimizedKprobe,
    addr: *mut KprobeOpcode,
) -> c_int {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_within_optimized_kprobe(op, addr) as c_int }
}

/// `arch_remove_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
#[no_mangle]
pub unsafe extern "C" fn arch_remove_optimized_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_remove_optimized_kprobe(op) }
}

/// `arch_optimize_kprobes()`.
///
/// # Safety
/// The optimizer's locks are held; `list` is its list.
#[no_mangle]
pub unsafe extern "C" fn arch_optimize_kprobes(list: *mut ListHead) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_optimize_kprobes(list) }
}

/// `arch_unoptimize_kprobe()`.
///
/// # Safety
/// `op` is live; the optimizer's locks are held.
#[no_mangle]
pub unsafe extern "C" fn arch_unoptimize_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_unoptimize_kprobe(op) }
}

/// `arch_unoptimize_kprobes()`.
///
/// # Safety
/// The optimizer's locks are held; both are its lists.
#[no_mangle]
pub unsafe extern "C" fn arch_unoptimize_kprobes(list: *mut ListHead, done: *mut ListHead) {
    // SAFETY: this function's `# Safety`.
    unsafe { sim::arch_unoptimize_kprobes(list, done) }
}

// ---- the driver's handles on the simulated kernel (hd.h) ---------------------------------

/// `hd_text_check()`: `check`'s text lines.
#[no_mangle]
pub extern "C" fn hd_text_check() {
    sim::hd_text_check()
}

/// `hd_text_armed_note()`.
#[no_mangle]
pub extern "C" fn hd_text_armed_note() {
    sim::hd_text_armed_note()
}

/// `hd_text_forget()`: text in `[start, end)` was freed.
#[no_mangle]
pub extern "C" fn hd_text_forget(start: c_ulong, end: c_ulong) {
    sim::hd_text_forget(start as usize, end as usize)
}

/// `hd_hit()`: execution reaches `addr`.
#[no_mangle]
pub extern "C" fn hd_hit(addr: c_ulong, _nested: c_int) {
    sim::hd_hit(addr as usize)
}
