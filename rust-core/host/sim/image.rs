// SPDX-License-Identifier: GPL-2.0

//! The simulated kernel image: kallsyms, text ranges and sections, the
//! blacklist section, ENDBR, jump label/static call/BUG() sites, and the
//! test harness's [`exclusive`].

use super::link;
use super::model::present;
use super::module::module_at;
use super::text::arch;
use super::ERANGE;
use super::KSYM_NAME_LEN;
use crate::ffi::{c_char, c_int, c_ulong};
use crate::types::KprobeOpcode;
use std::ffi::CStr;
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
    /// Behave as the host differential's model (`model.c`, `arch.c`) where
    /// the simulation's defaults differ: ftrace's filter semantics, symbols
    /// of module text present only while a loaded module maps them
    /// (kallsyms, `ftrace_location()`, `%pS`), module text in
    /// `kernel_text_address()`, `kallsyms_lookup()`'s module name, and
    /// [`hd_sym`](super::hd_sym) naming every symbol of the host
    /// differential's table ([`Image::model`]). The unit tests keep the
    /// defaults (false).
    pub as_model: bool,
    /// The width of a static call or jump label site in bytes (0 means 1,
    /// the unit tests' default; model.c's static calls: 4).
    pub site_width: usize,
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
    /// Arrays the simulated modules point to (`kprobe_blacklist`).
    pub module_arrays: ModuleArrays,
    /// The model's module m0 ([`install_model`](super::install_model)).
    pub m0: super::model::ModelM0,
    /// `try_module_get()` fails (the module is going away).
    pub module_get_fails: bool,
    /// Locks taken, in order (`jump_label`, `preempt`, ...), for ordering checks.
    pub lock_log: Vec<&'static str>,
}

/// The arrays of [`Module::set_kprobe_blacklist`](super::Module): each a
/// `Box<[c_ulong]>` turned into its address and length, freed with the
/// image (so that no `Box` is moved while a module points into it).
#[derive(Default, Debug)]
pub struct ModuleArrays(pub(super) Vec<(usize, usize)>);

impl Drop for ModuleArrays {
    fn drop(&mut self) {
        for &(p, n) in &self.0 {
            let slice = core::ptr::slice_from_raw_parts_mut(p as *mut c_ulong, n);
            // SAFETY: `Module::set_kprobe_blacklist()` made `(p, n)` from
            // `Box::into_raw()` of a boxed slice of `n` elements, and only
            // this drop frees it (the modules pointing to it belong to the
            // test that the image, reset by `exclusive()`, outlives).
            drop(unsafe { Box::from_raw(slice) });
        }
    }
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
/// a fresh core (the core's reset for the tests, through the C symbol
/// `kprobes_rust_reset_for_test()`).
pub fn exclusive() -> MutexGuard<'static, ()> {
    let g = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    *IMAGE.lock().unwrap_or_else(|e| e.into_inner()) = Some(Image::default());
    // SAFETY: the harness's reset takes no argument and may run whenever no
    // other thread uses the core: `TEST_LOCK` is held.
    unsafe { link::kprobes_rust_reset_for_test() };
    g
}

/// Does the simulation behave as model.c (the image's [`Image::as_model`])?
pub(super) fn model() -> bool {
    image(|i| i.as_model)
}

/// The image's symbol `addr` lies in, present or not.
pub(super) fn lookup_any(addr: usize) -> Option<Sym> {
    // A zero-size symbol (a marker or alias) is reported, with size 0, for
    // its own address.
    image(|i| {
        i.symbols
            .iter()
            .find(|s| addr >= s.addr && (addr < s.addr + s.size || (s.size == 0 && addr == s.addr)))
            .cloned()
    })
}

/// The present symbol `addr` lies in (model.c's `hd_present_sym()`; every
/// symbol is present unless [`Image::as_model`]).
pub(super) fn lookup(addr: usize) -> Option<Sym> {
    lookup_any(addr).filter(|s| !model() || present(s.addr))
}

/// `kernel_text_address()`: the image's text ranges (and, with
/// [`Image::as_model`], loaded modules' text, as model.c's).
pub fn kernel_text_address(addr: usize) -> bool {
    (image(|i| i.text.iter().any(|&(s, e)| addr >= s && addr < e)) && !freed_init(addr))
        || (model() && !module_at(addr).is_null())
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
    // SAFETY: `name` is NUL-terminated (this function's `# Safety`).
    let n = unsafe { CStr::from_ptr(name.cast()) }
        .to_string_lossy()
        .into_owned();
    let a = image(|i| i.symbols.iter().find(|s| s.name == n).map(|s| s.addr));
    match a {
        Some(a) if !model() || present(a) => a as *mut KprobeOpcode,
        _ => core::ptr::null_mut(),
    }
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
        let r = unsafe { link::kprobe_add_area_blacklist(s as c_ulong, e as c_ulong) };
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

pub(super) fn in_range(a: usize, r: (usize, usize)) -> bool {
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

/// `core_kernel_text()`: the first text range is the core kernel.
pub fn core_kernel_text(addr: usize) -> bool {
    image(|i| i.text.first().is_some_and(|&r| in_range(addr, r))) && !freed_init(addr)
}

/// Is `addr` in the kernel's init text after [`hd_free_init`](super::hd_free_init)
/// freed it (model.c: no longer core kernel text)?
fn freed_init(addr: usize) -> bool {
    arch(|a| a.init_freed && in_range(addr, a.init_area))
}

/// `in_gate_area_no_mm()`.
pub fn in_gate_area_no_mm(addr: usize) -> bool {
    image(|i| in_range(addr, i.gate))
}

/// Does a site at `a` of `width` bytes (0: one) overlap `[start, end]`
/// (model.c's `overlaps()`)?
fn overlaps(a: usize, width: usize, start: usize, end: usize) -> bool {
    a <= end && a + width.max(1) > start
}

/// `jump_label_text_reserved(start, end)` (each site
/// [`Image::site_width`] bytes); counts the calls.
pub fn jump_label_text_reserved(start: usize, end: usize) -> bool {
    image(|i| {
        i.jump_label_checks += 1;
        let w = i.site_width;
        i.jump_labels.iter().any(|&a| overlaps(a, w, start, end))
    })
}

/// `static_call_text_reserved(start, end)` (each site
/// [`Image::site_width`] bytes).
pub fn static_call_text_reserved(start: usize, end: usize) -> bool {
    image(|i| {
        let w = i.site_width;
        i.static_calls.iter().any(|&a| overlaps(a, w, start, end))
    })
}

/// `find_bug()`.
pub fn find_bug(addr: usize) -> bool {
    image(|i| i.bugs.contains(&addr))
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
            // model.c: the module's name for a module's symbol.
            let m = if model() {
                module_at(addr)
            } else {
                core::ptr::null_mut()
            };
            *modname = if m.is_null() {
                core::ptr::null_mut()
            } else {
                // SAFETY: the image lists live modules (the tests keep the
                // modules they load alive while they are listed).
                unsafe { (*m).name.cast_mut() }
            };
            // SAFETY: `namebuf` has room (caller).
            unsafe { lookup_symbol_name(addr, namebuf) };
            namebuf
        }
        None => core::ptr::null(),
    }
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

/// `register_die_notifier()`.
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): a notifier block is
/// registered at most once.
pub unsafe fn register_die_notifier() -> c_int {
    0
}
