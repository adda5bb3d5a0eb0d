// SPDX-License-Identifier: GPL-2.0

//! The simulated kernel the core runs against under `cargo test` (host
//! build).  Same functions and signatures as `sys_kernel.rs`; in addition
//! it records what the core did (allocations, RCU grace periods, perf
//! events, warnings) per test thread, so tests can assert on it.

use crate::ffi::{c_char, c_int, c_void};
pub use crate::ktypes::{
    ArchOptimizedInsn, ArchSpecificInsn, Mutex, PtRegs, Rethook, RethookHandler, RethookNode,
};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::RefCell;
use std::ffi::CStr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = 4096;
/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = 512;
/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 = 2;
/// `ERANGE`.
pub const ERANGE: c_int = 34;
/// `EINVAL`.
pub const EINVAL: c_int = 22;
/// `ENOMEM`.
pub const ENOMEM: c_int = 12;

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
    /// concurrent reader ends the grace period with [`rcu_barrier`]).
    pub rcu_deferred: Option<Vec<usize>>,
}

thread_local! {
    static REC: RefCell<Record> = RefCell::new(Record::default());
}

/// Runs `f` on this thread's record.
pub fn record<R>(f: impl FnOnce(&mut Record) -> R) -> R {
    REC.with(|r| f(&mut r.borrow_mut()))
}

/// Global count of live readers, for `synchronize_rcu()` checks.
static RCU_READERS: AtomicUsize = AtomicUsize::new(0);

/// `mutex_lock()`.
///
/// # Safety
/// `m` must point to a live [`Mutex`].
pub unsafe fn mutex_lock(m: *mut Mutex) {
    // SAFETY: caller guarantees `m` is live.
    let l = unsafe { &(*m).locked };
    while l
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::thread::yield_now();
    }
}

/// `mutex_unlock()`.
///
/// # Safety
/// The caller holds `m`.
pub unsafe fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: caller guarantees `m` is live and held.
    let l = unsafe { &(*m).locked };
    assert!(
        l.swap(false, Ordering::Release),
        "mutex_unlock of an unlocked mutex"
    );
}

/// `rcu_read_lock()`.
pub fn rcu_read_lock() {
    RCU_READERS.fetch_add(1, Ordering::SeqCst);
    record(|r| r.rcu_nesting += 1);
}

/// `rcu_read_unlock()`.
pub fn rcu_read_unlock() {
    record(|r| {
        assert!(r.rcu_nesting > 0, "unbalanced rcu_read_unlock");
        r.rcu_nesting -= 1
    });
    RCU_READERS.fetch_sub(1, Ordering::SeqCst);
}

/// `synchronize_rcu_expedited()`: a grace period, like [`synchronize_rcu`]
/// (the simulation has no notion of how long one takes), counted apart.
pub fn synchronize_rcu_expedited() {
    synchronize_rcu();
    record(|r| r.expedited_grace_periods += 1);
}

/// `synchronize_rcu()`: must not be called inside a read-side section.
pub fn synchronize_rcu() {
    record(|r| {
        assert_eq!(r.rcu_nesting, 0, "synchronize_rcu() inside rcu_read_lock()");
        r.grace_periods += 1
    });
}

const HDR: usize = 16;

/// `kmalloc()`.
pub fn kmalloc(size: usize) -> *mut c_void {
    if record(|r| {
        if r.fail_kmalloc > 0 {
            r.fail_kmalloc -= 1;
            true
        } else {
            false
        }
    }) {
        return core::ptr::null_mut();
    }
    let layout = Layout::from_size_align(size + HDR, 16).unwrap();
    // SAFETY: non-zero size.
    let p = unsafe { alloc_zeroed(layout) };
    assert!(!p.is_null());
    // SAFETY: `p` has room for the header.
    unsafe { (p as *mut usize).write(size) };
    record(|r| r.allocs += 1);
    // SAFETY: within the allocation.
    unsafe { p.add(HDR) as *mut c_void }
}

/// `table_size()`: whole 4 KiB pages (vmalloc).
pub fn table_size(size: usize) -> usize {
    size.next_multiple_of(4096)
}

/// `table_alloc()` (`kmalloc()` here, with its failures).
pub fn table_alloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kvmalloc(size, GFP_KERNEL)` (`kmalloc()` here, with its failures).
pub fn kvmalloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kvfree()`.
///
/// # Safety
/// `p` is null or came from [`kvmalloc`] and is not used afterwards.
pub unsafe fn kvfree(p: *mut c_void) {
    // SAFETY: `kvmalloc()` is `kmalloc()` here; the rest is this function's
    // `# Safety`.
    unsafe { kfree(p) }
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or from [`kmalloc`].
pub unsafe fn kfree(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` came from kmalloc, which put the size HDR bytes before it.
    unsafe {
        let base = (p as *mut u8).sub(HDR);
        let size = (base as *mut usize).read();
        dealloc(base, Layout::from_size_align(size + HDR, 16).unwrap());
    }
    record(|r| r.allocs -= 1);
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
    // SAFETY: caller guarantees a C string.
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

// ---------------------------------------------------------------------------
// The simulated kernel image: text, symbols, sections, modules.

use crate::types::KprobeOpcode;
use std::sync::{Mutex as StdMutex, MutexGuard};

/// One symbol of the simulated kallsyms.
#[derive(Clone, Debug)]
pub struct Sym {
    /// Name (may carry a suffix such as `.cold` or `.isra.0`).
    pub name: String,
    /// Start address.
    pub addr: usize,
    /// Size in bytes.
    pub size: usize,
}

impl Sym {
    /// A symbol `name` at `addr` of `size` bytes.
    pub fn new(name: &str, addr: usize, size: usize) -> Sym {
        Sym {
            name: name.into(),
            addr,
            size,
        }
    }
}

/// What `arch_populate_kprobe_blacklist()` does on the simulated arch.
#[derive(Clone, Debug, Default)]
pub struct ArchPopulate {
    /// Areas passed to `kprobe_add_area_blacklist()`.
    pub areas: Vec<(usize, usize)>,
    /// Return value when the areas were added successfully.
    pub ret: c_int,
}

/// The simulated kernel image.
#[derive(Default, Debug)]
pub struct Image {
    /// Kernel text ranges `[start, end)` (`kernel_text_address()`).
    pub text: Vec<(usize, usize)>,
    /// kallsyms.
    pub symbols: Vec<Sym>,
    /// `__kprobes_text_start/end`.
    pub kprobes_text: (usize, usize),
    /// `__noinstr_text_start/end`.
    pub noinstr_text: (usize, usize),
    /// The arch's populate hook.
    pub arch_populate: ArchPopulate,
    /// Objects passed to `kfree_rcu()`.
    pub kfree_rcu: usize,
    /// Function entries that start with ENDBR (x86 IBT).
    pub endbr: Vec<usize>,
    /// Addresses the arch cannot read (`arch_adjust_kprobe_addr()` fails).
    pub unreadable: Vec<usize>,
    /// ftrace call sites (`ftrace_location()`).
    pub ftrace_sites: Vec<usize>,
    /// Jump label, static call and BUG() sites.
    pub jump_labels: Vec<usize>,
    /// Static call sites.
    pub static_calls: Vec<usize>,
    /// Calls of `jump_label_text_reserved()` and of `lookup_symbol_name()`.
    pub jump_label_checks: usize,
    pub symbol_name_lookups: usize,
    /// BUG()/WARN() sites.
    pub bugs: Vec<usize>,
    /// The vsyscall gate area.
    pub gate: (usize, usize),
    /// Loaded modules.
    pub modules: Vec<usize>,
    /// `try_module_get()` fails (the module is going away).
    pub module_get_fails: bool,
    /// Locks taken, in order (`jump_label`, `preempt`, ...), for ordering checks.
    pub lock_log: Vec<&'static str>,
}

static IMAGE: StdMutex<Option<Image>> = StdMutex::new(None);
static TEST_LOCK: StdMutex<()> = StdMutex::new(());

/// Runs `f` on the simulated image.
pub fn image<R>(f: impl FnOnce(&mut Image) -> R) -> R {
    let mut g = IMAGE.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(Image::default))
}

/// The core's state is global, as in the kernel: tests that use it hold
/// this guard, which serializes them and starts each from a fresh image and
/// a fresh core (`crate::reset_for_test()`, through the C symbol
/// `kprobes_rust_reset_for_test()`).
pub fn exclusive() -> MutexGuard<'static, ()> {
    let g = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    *IMAGE.lock().unwrap_or_else(|e| e.into_inner()) = Some(Image::default());
    // SAFETY: the harness's reset takes no argument and may run at any time
    // no other thread uses the core: `TEST_LOCK` is held.
    unsafe { kprobes_rust_reset_for_test() };
    g
}

fn lookup(addr: usize) -> Option<Sym> {
    // A zero-size symbol (a marker or alias) is reported, with size 0, for
    // its own address.
    image(|i| {
        i.symbols
            .iter()
            .find(|s| addr >= s.addr && (addr < s.addr + s.size || (s.size == 0 && addr == s.addr)))
            .cloned()
    })
}

/// `kernel_text_address()`.
pub fn kernel_text_address(addr: usize) -> bool {
    image(|i| i.text.iter().any(|&(s, e)| addr >= s && addr < e))
}

/// `kallsyms_lookup_size_offset()`: true and the symbol's size and the
/// offset of `addr` in it, if `addr` is in a symbol.
pub fn kallsyms_lookup_size_offset(addr: usize, size: &mut usize, offset: &mut usize) -> bool {
    match lookup(addr) {
        Some(s) => {
            *size = s.size;
            *offset = addr - s.addr;
            true
        }
        None => false,
    }
}

/// `lookup_symbol_name()`: 0 and the name in `buf` (KSYM_NAME_LEN bytes),
/// or -ERANGE.
///
/// # Safety
/// `buf` is valid for `KSYM_NAME_LEN` bytes.
pub unsafe fn lookup_symbol_name(addr: usize, buf: *mut c_char) -> c_int {
    image(|i| i.symbol_name_lookups += 1);
    match lookup(addr) {
        Some(s) => {
            let n = s.name.len().min(KSYM_NAME_LEN - 1);
            // SAFETY: `buf` has KSYM_NAME_LEN bytes (caller).
            unsafe {
                core::ptr::copy_nonoverlapping(s.name.as_ptr(), buf, n);
                *buf.add(n) = 0;
            }
            0
        }
        None => -ERANGE,
    }
}

/// `kprobe_lookup_name()` (the weak default: `kallsyms_lookup_name()`).
///
/// # Safety
/// `name` is NUL-terminated.
pub unsafe fn kprobe_lookup_name(name: *const c_char, _offset: u32) -> *mut KprobeOpcode {
    // SAFETY: caller guarantees a C string.
    let n = unsafe { CStr::from_ptr(name.cast()) }
        .to_string_lossy()
        .into_owned();
    image(|i| {
        i.symbols
            .iter()
            .find(|s| s.name == n)
            .map_or(core::ptr::null_mut(), |s| s.addr as *mut KprobeOpcode)
    })
}

/// `arch_within_kprobe_blacklist()` (the weak default x86 uses).
pub fn arch_within_kprobe_blacklist(addr: usize) -> bool {
    let (s, e) = image(|i| i.kprobes_text);
    addr >= s && addr < e
}

/// `arch_populate_kprobe_blacklist()`: like x86, adds areas through the
/// core's `kprobe_add_area_blacklist()`.
pub fn arch_populate_kprobe_blacklist() -> c_int {
    let ap = image(|i| i.arch_populate.clone());
    for (s, e) in ap.areas {
        // SAFETY: `kprobe_add_area_blacklist()` takes two addresses by value
        // and is called at boot (`init_kprobes()`), as in the kernel.
        let r = unsafe { kprobe_add_area_blacklist(s as c_ulong, e as c_ulong) };
        if r != 0 {
            return r;
        }
    }
    ap.ret
}

/// `dereference_symbol_descriptor()` (identity on x86).
pub fn dereference_symbol_descriptor(p: usize) -> usize {
    p
}

/// `__kprobes_text_start/end`.
pub fn kprobes_text_area() -> (usize, usize) {
    image(|i| i.kprobes_text)
}

/// `__noinstr_text_start/end`.
pub fn noinstr_text_area() -> (usize, usize) {
    image(|i| i.noinstr_text)
}

/// `kfree_rcu(ptr, rcu)`: the simulation frees at once and counts.
///
/// # Safety
/// `p` came from [`kmalloc`], [`kvmalloc`] or [`table_alloc`] and is no longer reachable by new readers.
pub unsafe fn kfree_rcu(p: *mut c_void, _rcu: *mut crate::types::RcuHead) {
    image(|i| i.kfree_rcu += 1);
    if record(|r| {
        r.rcu_deferred
            .as_mut()
            .map(|d| d.push(p as usize))
            .is_some()
    }) {
        return;
    }
    // SAFETY: `p` came from `kmalloc()` and no new reader can reach it (this
    // function's `# Safety`); the simulation has no reader left.
    unsafe { kfree(p) }
}

/// Ends the deferral of `kfree_rcu()` frees and frees them (the grace period
/// of a test whose concurrent readers have stopped).
pub fn rcu_barrier() {
    for p in record(|r| r.rcu_deferred.take()).unwrap_or_default() {
        // SAFETY: deferred by `kfree_rcu()` (a `kmalloc()` block no reader
        // reaches any more: the caller's readers have stopped).
        unsafe { kfree(p as *mut c_void) };
    }
}

/// State of a simulated module (`enum module_state`).
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
pub enum ModState {
    /// `MODULE_STATE_LIVE`.
    #[default]
    Live,
    /// `MODULE_STATE_COMING`.
    Coming,
    /// `MODULE_STATE_GOING`.
    Going,
}

/// Simulated `struct module`, the fields the core reads.
#[repr(C)]
#[derive(Default)]
pub struct Module {
    /// Core text `[start, end)`.
    pub core_text: (usize, usize),
    /// Init text `[start, end)` (empty once freed).
    pub init_text: (usize, usize),
    /// Module state.
    pub state: ModState,
    /// References held (`try_module_get()` minus `module_put()`).
    pub refs: isize,
    /// `kprobe_blacklist`: addresses from the module's `_kprobe_blacklist`.
    pub kprobe_blacklist: Vec<usize>,
    /// `kprobes_text_start`, `kprobes_text_size`.
    pub kprobes_text: (usize, usize),
    /// `noinstr_text_start`, `noinstr_text_size`.
    pub noinstr_text: (usize, usize),
}

pub use crate::types::ModuleAreas;

/// Reads a module's blacklist areas.
///
/// # Safety
/// `m` is a live module.
pub unsafe fn module_areas<'a>(m: *mut Module) -> ModuleAreas<'a> {
    // SAFETY: caller guarantees `m` is live for 'a.
    let m = unsafe { &*m };
    ModuleAreas {
        ksyms: &m.kprobe_blacklist,
        kprobes_text: m.kprobes_text,
        noinstr_text: m.noinstr_text,
    }
}

// ---------------------------------------------------------------------------
// Per-CPU state of the (single simulated) CPU and printk.

/// Handler-context state of the simulated CPU, per test thread.
#[derive(Default, Debug)]
pub struct Cpu {
    /// `kprobe_instance` writes, in order (null as 0).
    pub instances: Vec<usize>,
    /// `current_kprobe`.
    pub current_kprobe: usize,
    /// `kprobe_ctlblk.kprobe_status`.
    pub kprobe_status: c_ulong,
    /// `preempt_count()`.
    pub preempt: isize,
    /// printk output.
    pub log: Vec<String>,
}

thread_local! {
    static CPU: RefCell<Cpu> = RefCell::new(Cpu::default());
}

/// Runs `f` on this thread's CPU state.
pub fn cpu<R>(f: impl FnOnce(&mut Cpu) -> R) -> R {
    CPU.with(|c| f(&mut c.borrow_mut()))
}

use crate::ffi::{c_uint, c_ulong};
use crate::types::{Kprobe, KprobeInsnCache};

/// `__this_cpu_write(kprobe_instance, kp)`.
pub fn set_kprobe_instance(kp: *mut Kprobe) {
    cpu(|c| c.instances.push(kp as usize));
}
/// `reset_kprobe_instance()`.
pub fn reset_kprobe_instance() {
    set_kprobe_instance(core::ptr::null_mut());
}
/// `__this_cpu_write(current_kprobe, NULL)`.
pub fn clear_current_kprobe() {
    set_current_kprobe(core::ptr::null_mut());
}
/// `kprobe_status = KPROBE_HIT_ACTIVE`.
pub fn set_kprobe_status_hit_active() {
    set_kprobe_status(KPROBE_HIT_ACTIVE);
}
/// `__this_cpu_write(current_kprobe, p)`.
pub fn set_current_kprobe(p: *mut Kprobe) {
    cpu(|c| c.current_kprobe = p as usize);
}
/// `get_kprobe_ctlblk()->kprobe_status = status`.
pub fn set_kprobe_status(status: c_ulong) {
    cpu(|c| c.kprobe_status = status);
}
/// `preempt_disable()`.
pub fn preempt_disable() {
    cpu(|c| c.preempt += 1);
    image(|i| i.lock_log.push("preempt_disable"));
}
/// `preempt_enable()`.
pub fn preempt_enable() {
    image(|i| i.lock_log.push("preempt_enable"));
    cpu(|c| {
        assert!(c.preempt > 0, "unbalanced preempt_enable");
        c.preempt -= 1
    });
}
/// `KPROBE_HIT_ACTIVE`.
pub const KPROBE_HIT_ACTIVE: c_ulong = 1;

/// The `dump_kprobe()` message, formatted as printk would (`%pS` as
/// `0x<addr>`, a null `%s` as `(null)`).
///
/// # Safety
/// `sym` is null or a C string.
pub unsafe fn pr_err_dump_kprobe(sym: *const c_char, offset: c_uint, addr: *mut KprobeOpcode) {
    let s = if sym.is_null() {
        "(null)".to_string()
    } else {
        // SAFETY: caller guarantees a C string.
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

/// Simulated `kprobe_insn_slots` / `kprobe_optinsn_slots`: per test thread,
/// set up by the tests that need them (null otherwise).
#[derive(Clone, Copy)]
pub struct Caches {
    /// `&kprobe_insn_slots`.
    pub insn: *mut KprobeInsnCache,
    /// `&kprobe_optinsn_slots`.
    pub optinsn: *mut KprobeInsnCache,
    /// Number of extra kallsyms entries `arch_kprobe_get_kallsym()` has.
    pub arch_syms: c_uint,
}

thread_local! {
    static CACHES: RefCell<Caches> = const {
        RefCell::new(Caches { insn: core::ptr::null_mut(), optinsn: core::ptr::null_mut(), arch_syms: 0 })
    };
}

/// Sets this thread's global caches.
pub fn set_caches(c: Caches) {
    CACHES.with(|x| *x.borrow_mut() = c);
}

/// `&kprobe_insn_slots`.
pub fn insn_slots() -> *mut KprobeInsnCache {
    CACHES.with(|x| x.borrow().insn)
}

/// `&kprobe_optinsn_slots`.
pub fn optinsn_slots() -> *mut KprobeInsnCache {
    CACHES.with(|x| x.borrow().optinsn)
}

/// `arch_kprobe_get_kallsym()`: `arch_syms` entries named `arch_sym<N>` at
/// `0xa000 + N`, then -ERANGE.
///
/// # Safety
/// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
pub unsafe fn arch_kprobe_get_kallsym(
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    let n = CACHES.with(|x| x.borrow().arch_syms);
    // SAFETY: caller's contract.
    unsafe {
        if *symnum < n {
            let name = format!("arch_sym{}\0", *symnum);
            core::ptr::copy_nonoverlapping(name.as_ptr(), sym, name.len());
            *type_ = b't';
            *value = 0xa000 + *symnum as c_ulong;
            return 0;
        }
        *symnum -= n;
    }
    -ERANGE
}

/// `ENOENT`.
pub const ENOENT: c_int = 2;

fn in_range(a: usize, r: (usize, usize)) -> bool {
    a >= r.0 && a < r.1
}

/// `arch_adjust_kprobe_addr()`, x86's: an ENDBR at the entry is skipped, so
/// offsets 0 and 4 both mean the function entry.
pub fn arch_adjust_kprobe_addr(
    addr: usize,
    offset: usize,
    on_func_entry: &mut bool,
) -> *mut KprobeOpcode {
    let (endbr, bad) = image(|i| (i.endbr.contains(&addr), i.unreadable.contains(&addr)));
    if bad {
        return core::ptr::null_mut();
    }
    let mut offset = offset;
    if endbr {
        *on_func_entry = offset == 0 || offset == 4;
        if *on_func_entry {
            offset = 4;
        }
    } else {
        *on_func_entry = offset == 0;
    }
    (addr + offset) as *mut KprobeOpcode
}

/// `ftrace_location()`: the call site if `addr` is one, else 0 (the
/// simulation has no symbol-start lookup, which the core never relies on).
pub fn ftrace_location(addr: usize) -> usize {
    if image(|i| i.ftrace_sites.contains(&addr)) {
        addr
    } else {
        0
    }
}

/// `core_kernel_text()`: the first text range is the core kernel.
pub fn core_kernel_text(addr: usize) -> bool {
    image(|i| i.text.first().is_some_and(|&r| in_range(addr, r)))
}

/// `__module_text_address()`.
pub fn module_text_address(addr: usize) -> *mut Module {
    let mods = image(|i| i.modules.clone());
    for m in mods {
        // SAFETY: tests keep registered modules alive.
        let md = unsafe { &*(m as *const Module) };
        if in_range(addr, md.core_text) || in_range(addr, md.init_text) {
            return m as *mut Module;
        }
    }
    core::ptr::null_mut()
}

/// `in_gate_area_no_mm()`.
pub fn in_gate_area_no_mm(addr: usize) -> bool {
    image(|i| in_range(addr, i.gate))
}

/// `jump_label_text_reserved(start, end)` (each site one byte); counts the
/// calls.
pub fn jump_label_text_reserved(start: usize, end: usize) -> bool {
    image(|i| {
        i.jump_label_checks += 1;
        i.jump_labels.iter().any(|&a| start <= a && a <= end)
    })
}

/// `static_call_text_reserved(start, end)` (each site one byte).
pub fn static_call_text_reserved(start: usize, end: usize) -> bool {
    image(|i| i.static_calls.iter().any(|&a| start <= a && a <= end))
}

/// `find_bug()`.
pub fn find_bug(addr: usize) -> bool {
    image(|i| i.bugs.contains(&addr))
}

/// `jump_label_lock()`.
pub fn jump_label_lock() {
    image(|i| i.lock_log.push("jump_label_lock"));
}

/// `jump_label_unlock()`.
pub fn jump_label_unlock() {
    image(|i| i.lock_log.push("jump_label_unlock"));
}

/// `try_module_get()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn try_module_get(m: *mut Module) -> bool {
    if image(|i| i.module_get_fails) {
        return false;
    }
    // SAFETY: a live simulated module.
    unsafe { (*m).refs += 1 };
    true
}

/// `module_put()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn module_put(m: *mut Module) {
    // SAFETY: a live simulated module.
    unsafe { (*m).refs -= 1 };
}

/// `within_module_init()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_init(addr: usize, m: *mut Module) -> bool {
    // SAFETY: a live simulated module.
    in_range(addr, unsafe { (*m).init_text })
}

/// `module_is_coming()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn module_is_coming(m: *mut Module) -> bool {
    // SAFETY: a live simulated module.
    unsafe { (*m).state == ModState::Coming }
}

// ---------------------------------------------------------------------------
// seq_file output, rendered as the kernel's vsnprintf would.

/// Simulated `struct seq_file`: the text shown so far.
#[derive(Default)]
pub struct SeqFile {
    /// Output.
    pub out: String,
    /// `kallsyms_show_value()` for the reader.
    pub show_value: bool,
}

fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: callers pass C strings.
    unsafe { CStr::from_ptr(p.cast()) }
        .to_string_lossy()
        .into_owned()
}

/// `%pS`: `sym+0xoff/0xsize`, or the raw address when no symbol.
fn p_s(a: usize) -> String {
    match lookup(a) {
        Some(s) => format!("{}+{:#x}/{:#x}", s.name, a - s.addr, s.size),
        None => format!("{a:#x}"),
    }
}

/// `%ps`: the symbol name, or the raw address.
fn p_s_short(a: usize) -> String {
    lookup(a).map_or(format!("{a:#x}"), |s| s.name)
}

/// `kallsyms_show_value(m->file->f_cred)`.
///
/// # Safety
/// `m` is live.
pub unsafe fn seq_show_value(m: *mut SeqFile) -> bool {
    // SAFETY: caller's contract.
    unsafe { (*m).show_value }
}

/// `"%px  %s  %s+0x%x  %s "`.
///
/// # Safety
/// `pi` is live; C strings.
pub unsafe fn seq_report_sym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    sym: *const c_char,
    offset: u32,
    modname: *const c_char,
) {
    let s = format!(
        "{:016x}  {}  {}+0x{:x}  {} ",
        addr as usize,
        cstr(ty),
        cstr(sym),
        offset,
        cstr(modname)
    );
    // SAFETY: caller's contract.
    unsafe { (*pi).out.push_str(&s) };
}

/// `"%px  %s  %pS "`.
///
/// # Safety
/// `pi` is live; C string.
pub unsafe fn seq_report_nosym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    paddr: *mut c_void,
) {
    let s = format!(
        "{:016x}  {}  {} ",
        addr as usize,
        cstr(ty),
        p_s(paddr as usize)
    );
    // SAFETY: caller's contract.
    unsafe { (*pi).out.push_str(&s) };
}

/// `"%s%s%s%s\n"`.
///
/// # Safety
/// `pi` is live; C strings.
pub unsafe fn seq_report_flags(
    pi: *mut SeqFile,
    a: *const c_char,
    b: *const c_char,
    c: *const c_char,
    d: *const c_char,
) {
    let s = format!("{}{}{}{}\n", cstr(a), cstr(b), cstr(c), cstr(d));
    // SAFETY: caller's contract.
    unsafe { (*pi).out.push_str(&s) };
}

/// `"0x%px-0x%px\t%ps\n"`.
///
/// # Safety
/// `m` is live.
pub unsafe fn seq_blacklist_line(
    m: *mut SeqFile,
    start: *mut c_void,
    end: *mut c_void,
    sym: *mut c_void,
) {
    let s = format!(
        "0x{:016x}-0x{:016x}\t{}\n",
        start as usize,
        end as usize,
        p_s_short(sym as usize)
    );
    // SAFETY: caller's contract.
    unsafe { (*m).out.push_str(&s) };
}

/// `kallsyms_lookup()`.
///
/// # Safety
/// `namebuf` has `KSYM_NAME_LEN` bytes.
pub unsafe fn kallsyms_lookup(
    addr: usize,
    offset: &mut c_ulong,
    modname: &mut *mut c_char,
    namebuf: *mut c_char,
) -> *const c_char {
    match lookup(addr) {
        Some(s) => {
            *offset = (addr - s.addr) as c_ulong;
            *modname = core::ptr::null_mut();
            // SAFETY: `namebuf` has room (caller).
            unsafe { lookup_symbol_name(addr, namebuf) };
            namebuf
        }
        None => core::ptr::null(),
    }
}

// ---------------------------------------------------------------------------
// Registration, arming, the optimizer, ftrace, rethook: the simulated arch
// and kernel services the registration side of the core uses.  Every call
// the core makes into the "arch" is logged as a line in `Arch::events`
// (`arm 0x...`, `optimize 0x...`, ...), so tests can assert on the exact
// sequence of text patching operations.

use crate::types::{
    KretprobeBlackpoint, ListHead, OptimizedKprobe, KPROBE_FLAG_DISABLED, KPROBE_FLAG_GONE,
};

// The core's C symbols the simulation calls, as the kernel's code outside
// `kprobes.o` does (x86's optprobes and blacklist code, the workqueue): the
// simulation names no module of the core (`host/sim_exports.rs` gives the
// host tests' build the symbols that only the kernel and the host
// differential export otherwise).  Plain C symbols rather than registered
// hooks: each has the signature of the kernel's function (so the calls are
// the ones `arch.c` makes in the host differential), and nothing has to
// install anything before the first test runs.
extern "C" {
    fn get_kprobe(addr: *mut c_void) -> *mut Kprobe;
    fn kprobe_disarmed(p: *mut Kprobe) -> bool;
    fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int;
    fn kprobes_rust_optimizer_work();
    fn kprobes_rust_reset_for_test();
}

// The simulated kernel's own `list.h` (what `arch.c` gets from the
// stubs): the few operations x86's optimizer code does on `op->list`.

/// `list_for_each_safe()`: the entries of the list at `head`, collected
/// first, so the caller may unlink or move each.
///
/// # Safety
/// `head` is a live list whose lock the caller holds.
unsafe fn list_entries(head: *mut ListHead) -> Vec<*mut ListHead> {
    let mut v = Vec::new();
    // SAFETY: `head` and its entries are live and not changed meanwhile (the
    // caller holds the lock, this function's `# Safety`).
    unsafe {
        let mut l = (*head).next;
        while l != head {
            v.push(l);
            l = (*l).next;
        }
    }
    v
}

/// `container_of(l, struct optimized_kprobe, list)`.
fn op_of_list(l: *mut ListHead) -> *mut OptimizedKprobe {
    l.cast::<u8>()
        .wrapping_sub(core::mem::offset_of!(OptimizedKprobe, list))
        .cast()
}

/// `__list_del_entry()`.
///
/// # Safety
/// `e` is on a list whose lock the caller holds.
unsafe fn list_del_entry(e: *mut ListHead) {
    // SAFETY: `e` and its neighbours are live and only the lock holder, the
    // caller, accesses them (this function's `# Safety`).
    unsafe {
        let (prev, next) = ((*e).prev, (*e).next);
        (*next).prev = prev;
        (*prev).next = next;
    }
}

/// `list_del_init()`.
///
/// # Safety
/// `e` is on a list whose lock the caller holds.
unsafe fn list_del_init(e: *mut ListHead) {
    // SAFETY: as `list_del_entry()` (this function's `# Safety`); `e` is then
    // the caller's alone, to point at itself.
    unsafe {
        list_del_entry(e);
        (*e).next = e;
        (*e).prev = e;
    }
}

/// `list_move(e, head)`: `e` goes right after `head`.
///
/// # Safety
/// `e` is on a list and `head` is live; the caller holds their lock.
unsafe fn list_move(e: *mut ListHead, head: *mut ListHead) {
    // SAFETY: as `list_del_entry()`; `e` is then on no list, and `head` and
    // its first entry are live under the caller's lock (`# Safety`).
    unsafe {
        list_del_entry(e);
        let next = (*head).next;
        (*next).prev = e;
        (*e).next = next;
        (*e).prev = head;
        (*head).next = e;
    }
}

/// Simulated `struct ctl_table` (the fields the handler's helper reads).
#[repr(C)]
pub struct CtlTable {
    /// `data`.
    pub data: *mut c_int,
}

/// Simulated `struct file` (opaque).
pub struct File;

/// State of the simulated arch and of the services below, per thread.
#[derive(Default)]
pub struct Arch {
    /// Patching and ftrace operations, in order.
    pub events: Vec<String>,
    /// Addresses whose `arch_prepare_kprobe()` fails (-EILSEQ).
    pub unpreparable: Vec<usize>,
    /// Addresses the jump optimizer can take (size 5 detour).
    pub optimizable: Vec<usize>,
    /// Fail the next `ftrace_set_filter_ip()` calls with this error.
    pub ftrace_fail: Option<c_int>,
    /// Fail the next `register_ftrace_function()` with this error.
    pub ftrace_register_fail: Option<c_int>,
    /// Registered ftrace ops (plain, ipmodify).
    pub ftrace_ops_registered: [bool; 2],
    /// Filter of each ftrace ops.
    pub ftrace_filter: [Vec<usize>; 2],
    /// `ftrace_set_filter_ips()` calls per ops.
    pub ftrace_batch_calls: [usize; 2],
    /// Fail the next `ftrace_set_filter_ips()` on this ops (ipmodify?)
    /// with this error.
    pub ftrace_batch_fail: Option<(bool, c_int)>,
    /// The optimizer's delayed work is queued.
    pub optimizer_pending: bool,
    /// `synchronize_rcu_tasks()` calls.
    pub rcu_tasks: usize,
    /// Lock state: kprobe_mutex, text_mutex, cpus_read_lock depth.
    pub kprobe_mutex: bool,
    /// `text_mutex` held.
    pub text_mutex: bool,
    /// `cpus_read_lock()` depth.
    pub cpus_read: usize,
    /// `kprobe_sysctl_mutex` held.
    pub sysctl_mutex: bool,
    /// Hooked returns: (node, frame), innermost last.
    pub hooked: Vec<*mut RethookNode>,
    /// printk output.
    pub log: Vec<String>,
    /// The sysctl value the simulated `proc_dointvec_minmax()` writes.
    pub sysctl_write: Option<c_int>,
    /// Simulated `[__init_begin, __init_end)`.
    pub init_area: (usize, usize),
    /// Simulated `_kprobe_blacklist` section contents.
    pub blacklist_section: Vec<c_ulong>,
    /// Simulated possible CPUs.
    pub possible_cpus: c_uint,
}

thread_local! {
    static ARCH: RefCell<Arch> = RefCell::new(Arch { possible_cpus: 4, ..Arch::default() });
}

/// Runs `f` on this thread's arch state.
pub fn arch<R>(f: impl FnOnce(&mut Arch) -> R) -> R {
    ARCH.with(|a| f(&mut a.borrow_mut()))
}

/// Resets this thread's arch state (`exclusive()` callers use it via
/// `crate::reset_for_test()`).
pub fn reset_arch() {
    ARCH.with(|a| {
        *a.borrow_mut() = Arch {
            possible_cpus: 4,
            ..Arch::default()
        }
    });
}

fn ev(s: String) {
    arch(|a| a.events.push(s));
}

/// `sym+0xoff` for event lines.
pub fn sym_off(a: usize) -> String {
    match lookup(a) {
        Some(s) => format!("{}+{:#x}", s.name, a - s.addr),
        None => format!("{a:#x}"),
    }
}

/// `mutex_lock(&kprobe_mutex)`: asserts it is not held (no recursion).
pub fn kprobe_mutex_lock() {
    arch(|a| {
        assert!(!a.kprobe_mutex, "kprobe_mutex taken recursively");
        a.kprobe_mutex = true;
    });
}
/// `mutex_unlock(&kprobe_mutex)`.
pub fn kprobe_mutex_unlock() {
    arch(|a| {
        assert!(a.kprobe_mutex, "kprobe_mutex unlocked but not held");
        a.kprobe_mutex = false;
    });
}
/// `mutex_lock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_lock() {
    arch(|a| {
        assert!(!a.sysctl_mutex);
        a.sysctl_mutex = true;
    });
}
/// `mutex_unlock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_unlock() {
    arch(|a| a.sysctl_mutex = false);
}
/// `mutex_lock(&text_mutex)`: upstream's order is cpus_read_lock, then
/// (jump_label_lock,) then text_mutex, all inside kprobe_mutex.
pub fn text_mutex_lock() {
    arch(|a| {
        assert!(!a.text_mutex, "text_mutex taken recursively");
        assert!(a.cpus_read > 0, "text_mutex without cpus_read_lock");
        assert!(a.kprobe_mutex, "text_mutex without kprobe_mutex");
        a.text_mutex = true;
    });
}
/// `mutex_unlock(&text_mutex)`.
pub fn text_mutex_unlock() {
    arch(|a| {
        assert!(a.text_mutex);
        a.text_mutex = false;
    });
}
/// `lockdep_assert_held(&kprobe_mutex)`: the simulated kernel checks it.
pub fn lockdep_assert_held_kprobe_mutex() {
    arch(|a| assert!(a.kprobe_mutex, "lockdep: kprobe_mutex not held"));
}
/// `lockdep_assert_held(&text_mutex)`.
pub fn lockdep_assert_held_text_mutex() {
    arch(|a| assert!(a.text_mutex, "lockdep: text_mutex not held"));
}
/// `lockdep_assert_cpus_held()`.
pub fn lockdep_assert_cpus_held() {
    arch(|a| assert!(a.cpus_read > 0, "lockdep: cpus_read_lock not held"));
}
/// `cpus_read_lock()`.
pub fn cpus_read_lock() {
    arch(|a| {
        assert!(!a.text_mutex, "cpus_read_lock inside text_mutex");
        a.cpus_read += 1;
    });
}
/// `cpus_read_unlock()`.
pub fn cpus_read_unlock() {
    arch(|a| {
        assert!(a.cpus_read > 0);
        a.cpus_read -= 1;
    });
}
/// `synchronize_rcu_tasks()`.
pub fn synchronize_rcu_tasks() {
    arch(|a| a.rcu_tasks += 1);
}
/// `schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY)`.
pub fn kick_optimizer() {
    arch(|a| a.optimizer_pending = true);
}
/// `flush_delayed_work(&optimizing_work)`: runs the work now if queued.
pub fn flush_optimizer() {
    run_optimizer();
}
/// Runs the optimizer's delayed work if it is queued (the simulated
/// workqueue; tests call it to let "time pass").
pub fn run_optimizer() {
    if arch(|a| std::mem::take(&mut a.optimizer_pending)) {
        // SAFETY: the work function takes no argument; the simulated
        // workqueue runs it in process context with no lock held, as the
        // kernel's does.
        unsafe { kprobes_rust_optimizer_work() };
    }
}
/// `cpu_relax()`.
pub fn cpu_relax() {}
/// `num_possible_cpus()`.
pub fn num_possible_cpus() -> c_uint {
    arch(|a| a.possible_cpus)
}
/// `within_module_core()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_core(addr: usize, m: *mut Module) -> bool {
    // SAFETY: a live simulated module.
    in_range(addr, unsafe { (*m).core_text })
}
/// `[__init_begin, __init_end)`.
pub fn init_area() -> (usize, usize) {
    arch(|a| a.init_area)
}
/// `__start_kprobe_blacklist`.
pub fn kprobe_blacklist_start() -> *const c_ulong {
    arch(|a| a.blacklist_section.as_ptr())
}
/// `__stop_kprobe_blacklist`.
pub fn kprobe_blacklist_end() -> *const c_ulong {
    arch(|a| {
        a.blacklist_section
            .as_ptr()
            .wrapping_add(a.blacklist_section.len())
    })
}

/// `MAX_OPTIMIZED_LENGTH` (x86).
pub const MAX_OPTIMIZED_LENGTH: usize = 15 + 4;
/// `MAX_OPTINSN_SIZE` (any non-zero value).
pub fn max_optinsn_size() -> usize {
    64
}

/// `arch_prepare_kprobe()`: gives the probe a fake slot, or -EILSEQ for
/// an `unpreparable` address.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: caller's contract.
    let a = unsafe { (*p).addr } as usize;
    ev(format!("prepare {}", sym_off(a)));
    if arch(|x| x.unpreparable.contains(&a)) {
        return -EILSEQ;
    }
    // SAFETY: caller's contract.
    unsafe { (*p).ainsn.insn = (0x5107_0000 + (a & 0xffff)) as *mut KprobeOpcode };
    0
}
/// `arch_prepare_kprobe_ftrace()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int {
    // SAFETY: caller's contract.
    unsafe {
        ev(format!("prepare-ftrace {}", sym_off((*p).addr as usize)));
        (*p).ainsn.insn = core::ptr::null_mut();
    }
    0
}
/// `arch_arm_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_arm_kprobe(p: *mut Kprobe) {
    assert!(arch(|a| a.text_mutex), "arm without text_mutex");
    // SAFETY: caller's contract.
    ev(format!("arm {}", sym_off(unsafe { (*p).addr } as usize)));
}
/// `arch_disarm_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_disarm_kprobe(p: *mut Kprobe) {
    assert!(arch(|a| a.text_mutex), "disarm without text_mutex");
    // SAFETY: caller's contract.
    ev(format!("disarm {}", sym_off(unsafe { (*p).addr } as usize)));
}
/// `arch_remove_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_remove_kprobe(p: *mut Kprobe) {
    // SAFETY: caller's contract.
    unsafe {
        ev(format!("remove {}", sym_off((*p).addr as usize)));
        (*p).ainsn.insn = core::ptr::null_mut();
    }
}
/// `arch_trampoline_kprobe()`: never, in the simulation.
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
/// `arch_prepare_optimized_kprobe()`: size 5 at `optimizable` addresses.
///
/// # Safety
/// Both live.
pub unsafe fn arch_prepare_optimized_kprobe(op: *mut OptimizedKprobe, orig: *mut Kprobe) -> c_int {
    // SAFETY: caller's contract.
    let a = unsafe { (*orig).addr } as usize;
    ev(format!("prepare-opt {}", sym_off(a)));
    if arch(|x| x.optimizable.contains(&a)) {
        // SAFETY: caller's contract.
        unsafe { (*op).optinsn.size = 5 };
        0
    } else {
        -EILSEQ
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
/// `arch_check_optimized_kprobe()`: x86's: no other armed probe inside
/// the jump.
///
/// # Safety
/// `op` is live; kprobe_mutex held.
pub unsafe fn arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int {
    // SAFETY: `op` is live (this function's `# Safety`).
    let (addr, size) = unsafe { ((*op).kp.addr, (*op).optinsn.size) };
    for i in 1..size {
        // A simulated text address, not a Rust allocation: no `add`.
        // SAFETY: the caller holds kprobe_mutex, `get_kprobe()`'s context.
        let p = unsafe { get_kprobe(addr.wrapping_add(i).cast()) };
        // SAFETY: `p` is hashed (`get_kprobe()` found it), as
        // `kprobe_disarmed()` requires.
        if !p.is_null() && !unsafe { kprobe_disarmed(p) } {
            return -EEXIST;
        }
    }
    0
}
/// `arch_within_optimized_kprobe()`: x86's.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_within_optimized_kprobe(
    op: *mut OptimizedKprobe,
    addr: *mut KprobeOpcode,
) -> bool {
    // SAFETY: caller's contract.
    unsafe {
        let start = (*op).kp.addr as usize;
        start <= addr as usize && start + (*op).optinsn.size > addr as usize
    }
}
/// `arch_remove_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_remove_optimized_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: caller's contract.
    unsafe {
        if (*op).optinsn.size != 0 {
            ev(format!("remove-opt {}", sym_off((*op).kp.addr as usize)));
        }
        (*op).optinsn.size = 0;
    }
}
/// `arch_optimize_kprobes()`: x86's: each probe becomes a jump and leaves
/// the list.
///
/// # Safety
/// The optimizer's locks are held.
pub unsafe fn arch_optimize_kprobes(list: *mut ListHead) {
    assert!(arch(|a| a.text_mutex && a.cpus_read > 0));
    // SAFETY: `list` is the optimizer's list of live optimized kprobes, which
    // the caller's locks (kprobe_mutex, text_mutex) protect.
    unsafe {
        for l in list_entries(list) {
            let op = op_of_list(l);
            let flags = core::ptr::read_volatile(core::ptr::addr_of!((*op).kp.flags));
            if flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE) != 0 {
                warn();
            }
            ev(format!("optimize {}", sym_off((*op).kp.addr as usize)));
            list_del_init(l);
        }
    }
}
/// `arch_unoptimize_kprobe()`.
///
/// # Safety
/// `op` is live; locks held.
pub unsafe fn arch_unoptimize_kprobe(op: *mut OptimizedKprobe) {
    assert!(arch(|a| a.text_mutex && a.cpus_read > 0));
    // SAFETY: caller's contract.
    ev(format!(
        "unoptimize {}",
        sym_off(unsafe { (*op).kp.addr } as usize)
    ));
}
/// `arch_unoptimize_kprobes()`: x86's.
///
/// # Safety
/// Locks held.
pub unsafe fn arch_unoptimize_kprobes(list: *mut ListHead, done: *mut ListHead) {
    // SAFETY: `list` is the optimizer's list of live optimized kprobes and
    // `done` a live list head, which the caller's locks protect.
    unsafe {
        for l in list_entries(list) {
            arch_unoptimize_kprobe(op_of_list(l));
            list_move(l, done);
        }
    }
}

/// `kzalloc()`.
pub fn kzalloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

fn ops_name(ipmodify: bool) -> &'static str {
    if ipmodify {
        "ipmodify"
    } else {
        "ftrace"
    }
}
/// `ftrace_set_filter_ip()` on one of the two ops.
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    assert!(
        arch(|a| a.kprobe_mutex),
        "ftrace arming without kprobe_mutex"
    );
    ev(format!(
        "ftrace-filter {} {}{}",
        ops_name(ipmodify),
        if remove { "-" } else { "+" },
        sym_off(ip)
    ));
    if let Some(e) = arch(|a| a.ftrace_fail.take()) {
        return e;
    }
    arch(|a| {
        let f = &mut a.ftrace_filter[ipmodify as usize];
        if remove {
            f.retain(|&x| x != ip);
        } else {
            f.push(ip);
        }
    });
    0
}
/// `ftrace_set_filter_ips()` on one of the two ops: all or nothing, as
/// ftrace's (which sets a copy of the filter hash); one `ftrace-filters`
/// event per call, with every address.
pub fn ftrace_set_filter_ips(ipmodify: bool, ips: &[usize], remove: bool) -> c_int {
    assert!(
        arch(|a| a.kprobe_mutex),
        "ftrace arming without kprobe_mutex"
    );
    let sign = if remove { "-" } else { "+" };
    let list: Vec<String> = ips
        .iter()
        .map(|&ip| format!("{sign}{}", sym_off(ip)))
        .collect();
    ev(format!(
        "ftrace-filters {} {}",
        ops_name(ipmodify),
        list.join(" ")
    ));
    arch(|a| a.ftrace_batch_calls[ipmodify as usize] += 1);
    if let Some(e) = arch(|a| a.ftrace_fail.take()) {
        return e;
    }
    if let Some((_, e)) = arch(|a| a.ftrace_batch_fail.take_if(|f| f.0 == ipmodify)) {
        return e;
    }
    let ok = arch(|a| {
        let f = &a.ftrace_filter[ipmodify as usize];
        ips.iter().all(|ip| !remove || f.contains(ip))
    });
    if !ok {
        return -ENOENT;
    }
    arch(|a| {
        let f = &mut a.ftrace_filter[ipmodify as usize];
        for &ip in ips {
            if remove {
                f.retain(|&x| x != ip);
            } else if !f.contains(&ip) {
                f.push(ip);
            }
        }
    });
    0
}
/// `register_ftrace_function()`.
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    ev(format!("ftrace-register {}", ops_name(ipmodify)));
    if let Some(e) = arch(|a| a.ftrace_register_fail.take()) {
        return e;
    }
    arch(|a| a.ftrace_ops_registered[ipmodify as usize] = true);
    0
}
/// `unregister_ftrace_function()`.
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    ev(format!("ftrace-unregister {}", ops_name(ipmodify)));
    arch(|a| a.ftrace_ops_registered[ipmodify as usize] = false);
    0
}
/// `WARN(1, "Failed to unregister kprobe-ftrace ...")`.
pub fn warn_ftrace_unregister(_ret: c_int) {
    warn();
}
/// `WARN_ONCE(1, "Failed to disarm kprobe-ftrace ...")`.
pub fn warn_once_ftrace_disarm(_addr: *mut KprobeOpcode, _ret: c_int) {
    warn();
}

/// `rethook_alloc()`.
///
/// # Safety
/// `data` outlives the rethook.
pub unsafe fn rethook_alloc(
    data: *mut c_void,
    handler: RethookHandler,
    size: c_int,
    num: c_int,
) -> *mut Rethook {
    if num <= 0 || size < core::mem::size_of::<RethookNode>() as c_int {
        return (-(EINVAL as isize)) as *mut Rethook;
    }
    let rh = kmalloc(core::mem::size_of::<Rethook>()).cast::<Rethook>();
    if rh.is_null() {
        return (-(ENOMEM as isize)) as *mut Rethook;
    }
    let mut all = Vec::new();
    for _ in 0..num {
        let n = kmalloc(size as usize).cast::<RethookNode>();
        // SAFETY: a fresh node.
        unsafe { (*n).rethook = rh };
        all.push(n);
    }
    // SAFETY: a fresh allocation of the right size.
    unsafe {
        rh.write(Rethook {
            data,
            handler: Some(handler),
            free: all.clone(),
            all,
        })
    };
    rh
}
/// `rethook_free()`: stops the rethook; the simulation frees it when all
/// of its nodes are back (`rethook_free_rcu()`).
///
/// # Safety
/// `rh` came from [`rethook_alloc`], freed once.
pub unsafe fn rethook_free(rh: *mut Rethook) {
    // SAFETY: caller's contract.
    unsafe {
        assert!((*rh).handler.is_some(), "rethook freed twice");
        (*rh).handler = None;
        maybe_free_rethook(rh);
    }
}
unsafe fn maybe_free_rethook(rh: *mut Rethook) {
    // SAFETY: a live rethook.
    unsafe {
        if (*rh).handler.is_none() && (*rh).free.len() == (*rh).all.len() {
            for &n in &(*rh).all {
                kfree(n.cast());
            }
            core::ptr::drop_in_place(rh);
            kfree(rh.cast());
        }
    }
}
/// `rethook_try_get()`: a free node, or null (also once stopped).
///
/// # Safety
/// `rh` is live.
pub unsafe fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: caller's contract.
    unsafe {
        if (*rh).handler.is_none() {
            return core::ptr::null_mut();
        }
        (*rh).free.pop().unwrap_or(core::ptr::null_mut())
    }
}
/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: caller's contract.
    unsafe {
        let rh = (*n).rethook;
        (*rh).free.push(n);
        maybe_free_rethook(rh);
    }
}
/// `rethook_hook()`: the probed function will "return" when the test calls
/// [`function_return`].
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_hook(n: *mut RethookNode, _regs: *mut PtRegs, mcount: bool) {
    ev(format!(
        "rethook-hook{}",
        if mcount { " mcount" } else { "" }
    ));
    arch(|a| a.hooked.push(n));
}
/// The argument registers of the simulated frame (`regs.args`).
///
/// # Safety
/// `regs` is a live frame.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
pub unsafe fn entry_args(regs: *const PtRegs) -> [c_ulong; 6] {
    // SAFETY: live (this function's `# Safety`).
    unsafe { (*regs).args.map(|a| a as c_ulong) }
}
/// The innermost hooked function returns: the rethook calls its handler
/// (if not stopped) and recycles the node.  Returns false if nothing was
/// hooked.
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`regs` is passed on to the handler, not dereferenced here (a test helper)"
)]
pub fn function_return(regs: *mut PtRegs) -> bool {
    let Some(n) = arch(|a| a.hooked.pop()) else {
        return false;
    };
    // SAFETY: a hooked node of a live rethook.
    unsafe {
        let rh = (*n).rethook;
        if let Some(h) = (*rh).handler {
            h(n, (*rh).data, 0, regs);
        }
        rethook_recycle(n);
    }
    true
}

static mut KRETPROBE_BLACKLIST: [KretprobeBlackpoint; 2] = [
    KretprobeBlackpoint {
        name: c"__switch_to".as_ptr().cast(),
        addr: core::ptr::null_mut(),
    },
    KretprobeBlackpoint {
        name: core::ptr::null(),
        addr: core::ptr::null_mut(),
    },
];
/// The arch's `kretprobe_blacklist` (x86's: `__switch_to`).
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    (&raw mut KRETPROBE_BLACKLIST).cast()
}

/// `E2BIG`.
pub const E2BIG: c_int = 7;
/// An arbitrary error the simulated ftrace returns (`EBUSY`).
pub const EBUSY_SIM: c_int = 16;
/// `EEXIST`.
pub const EEXIST: c_int = 17;
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

fn klog(fmt: &CStr, args: &[String]) {
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

/// `simple_read_from_buffer()` (the user buffer is plain memory here).
///
/// # Safety
/// Valid buffers.
pub unsafe fn simple_read_from_buffer(
    to: *mut c_void,
    count: usize,
    ppos: *mut i64,
    from: *const c_void,
    available: usize,
) -> isize {
    // SAFETY: caller's contract.
    unsafe {
        let pos = *ppos as usize;
        if pos >= available || count == 0 {
            return 0;
        }
        let n = count.min(available - pos);
        core::ptr::copy_nonoverlapping(from.cast::<u8>().add(pos), to.cast::<u8>(), n);
        *ppos += n as i64;
        n as isize
    }
}
/// `kstrtobool_from_user()`: 1/y/Y/on → true, 0/n/N/off → false.
///
/// # Safety
/// `s` has `count` bytes.
pub unsafe fn kstrtobool_from_user(s: *const c_char, count: usize, res: &mut bool) -> c_int {
    // SAFETY: caller's contract.
    let b = unsafe { core::slice::from_raw_parts(s.cast::<u8>(), count.min(11)) };
    match b {
        [b'1' | b'y' | b'Y', ..] | [b'o' | b'O', b'n' | b'N', ..] => *res = true,
        [b'0' | b'n' | b'N', ..] | [b'o' | b'O', b'f' | b'F', ..] => *res = false,
        _ => return -EINVAL,
    }
    0
}
/// `proc_dointvec_minmax()` for a 0..1 table: a write stores the number in
/// the buffer (else -EINVAL), a read does nothing.
///
/// # Safety
/// Valid table and buffer.
pub unsafe fn proc_dointvec_minmax(
    table: *const CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    _ppos: *mut i64,
) -> c_int {
    if write == 0 {
        return 0;
    }
    // SAFETY: caller's contract.
    let txt = unsafe { core::slice::from_raw_parts(buffer.cast::<u8>(), *length) };
    match std::str::from_utf8(txt)
        .ok()
        .and_then(|t| t.trim().parse::<c_int>().ok())
    {
        // SAFETY: caller's contract.
        Some(v @ 0..=1) => unsafe { *(*table).data = v },
        _ => return -EINVAL,
    }
    0
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
        if n == head {
            core::ptr::null_mut()
        } else {
            n.cast()
        }
    }
}
/// `register_die_notifier()`.
pub fn register_die_notifier() -> c_int {
    0
}
/// `register_module_notifier()`.
pub fn register_module_notifier() -> c_int {
    0
}
/// `kprobe_sysctls_init()`.
pub fn kprobe_sysctls_init() {}
