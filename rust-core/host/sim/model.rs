// SPDX-License-Identifier: GPL-2.0

//! The host differential's fixed kernel image (MODEL.md section 1,
//! model.c's `hd_symbols[]`, `hd_static_calls[]`, `hd_bugs[]`, `hd_sec`,
//! the boot blacklist and module m0), as an [`Image`] with
//! [`Image::as_model`] set: [`Image::model`] and [`install_model`].
//!
//! With the setting, a symbol of module text is present (kallsyms,
//! `ftrace_location()`, `%pS`) only while a loaded module maps it, and
//! [`hd_sym`](super::hd_sym) names every table symbol, present or not, as
//! model.c's.  Module m0 and the driver's `module-load`,
//! `module-init-done`, `module-unload` and `free-init` operations:
//! [`hd_module_load`], [`hd_module_init_done`], [`hd_module_unload`],
//! [`hd_free_init`].

use super::image::{image, Image, Sym};
use super::kernel_text::hd_text_forget;
use super::link;
use super::module::module_at;
use super::text::arch;
use super::trace::ev;
use super::{ModState, Module, MODULE_STATE_COMING, MODULE_STATE_GOING, MODULE_STATE_LIVE};
use crate::ffi::c_ulong;

/// `HD_T`: core kernel text.
pub const HD_T: usize = 0xffff_ffff_8100_0000;
/// `HD_D`: kernel data.
pub const HD_D: usize = 0xffff_ffff_8200_0000;
/// `HD_M`: module m0's core text.
pub const HD_M: usize = 0xffff_ffff_c000_0000;
/// `HD_MI`: module m0's init text.
pub const HD_MI: usize = 0xffff_ffff_c001_0000;

/// `enum hd_symkind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymKind {
    /// `HD_TEXT`.
    Text,
    /// `HD_DATA`.
    Data,
}

/// Which image a table symbol belongs to (`struct hd_symbol`'s `module`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymModule {
    /// vmlinux (0).
    Vmlinux,
    /// m0's core text (1).
    M0Core,
    /// m0's init text (2).
    M0Init,
}

/// `struct hd_symbol`: one symbol of the table.
#[derive(Clone, Copy, Debug)]
pub struct ModelSym {
    /// `name`.
    pub name: &'static str,
    /// `addr`.
    pub addr: usize,
    /// `size`.
    pub size: usize,
    /// `kind`.
    pub kind: SymKind,
    /// `module`.
    pub module: SymModule,
    /// `ftrace`: an ftrace site at +0.
    pub ftrace: bool,
    /// `odd`: `f3`'s instruction layout (boundaries 0, 4, 9, 12, 16, ...).
    pub odd: bool,
    /// `noopt`: `can_optimize()` fails for the whole function.
    pub noopt: bool,
    /// `nonboost`: the offset of a non-boostable instruction.
    pub nonboost: Option<usize>,
}

const fn sym(name: &'static str, addr: usize, size: usize, module: SymModule) -> ModelSym {
    ModelSym {
        name,
        addr,
        size,
        kind: SymKind::Text,
        module,
        ftrace: false,
        odd: false,
        noopt: false,
        nonboost: None,
    }
}

const fn text(name: &'static str, off: usize, size: usize) -> ModelSym {
    sym(name, HD_T + off, size, SymModule::Vmlinux)
}

const fn ftrace(s: ModelSym) -> ModelSym {
    ModelSym { ftrace: true, ..s }
}

/// model.c's `hd_symbols[]`, in its order (MODEL.md section 1).
pub const MODEL_SYMBOLS: [ModelSym; 19] = [
    ftrace(text("f0", 0x000, 0x40)),
    ftrace(text("f1", 0x040, 0x40)),
    text("f2", 0x080, 0x40),
    ModelSym {
        odd: true,
        noopt: true,
        ..text("f3", 0x0c0, 0x40)
    },
    ModelSym {
        nonboost: Some(8),
        ..ftrace(text("f4", 0x100, 0x40))
    },
    ftrace(text("blacklisted_fn", 0x140, 0x40)),
    text("kprobes_fn", 0x180, 0x40),
    text("f7", 0x1c0, 0x40),
    text("noinstr_fn", 0x200, 0x40),
    text("__pfx_f9", 0x240, 0x10),
    ftrace(text("f9", 0x250, 0x30)),
    text("blacklisted_fn.cold", 0x280, 0x40),
    text("entry_fn", 0x2c0, 0x40),
    text("init_fn", 0x400, 0x40),
    ModelSym {
        kind: SymKind::Data,
        ..sym("data_var", HD_D, 0x40, SymModule::Vmlinux)
    },
    ftrace(sym("m0_fn", HD_M, 0x40, SymModule::M0Core)),
    sym("m0_fn2", HD_M + 0x40, 0x40, SymModule::M0Core),
    sym("m0_bl", HD_M + 0x80, 0x40, SymModule::M0Core),
    sym("m0_init", HD_MI, 0x40, SymModule::M0Init),
];

/// `hd_static_calls[]`: `f7+0x10` (4 bytes).
pub const MODEL_STATIC_CALLS: [usize; 1] = [HD_T + 0x1d0];
/// `hd_bugs[]`: `f7+0x20`.
pub const MODEL_BUGS: [usize; 1] = [HD_T + 0x1e0];
/// `hd_sec.init_begin`, `init_end`: `init_fn`.
pub const MODEL_INIT: (usize, usize) = (HD_T + 0x400, HD_T + 0x440);
/// `hd_sec.entry_start`, `entry_end`: `entry_fn`.
pub const MODEL_ENTRY: (usize, usize) = (HD_T + 0x2c0, HD_T + 0x300);

impl ModelSym {
    /// `hd_insn_boundary()`: the length of the instruction that starts at
    /// `off`, if one does (every 4 bytes; `f3`: 0 (4 bytes), 4 (5), 9 (3),
    /// then every 4 bytes from 12).
    pub fn insn_at(&self, off: usize) -> Option<usize> {
        if off >= self.size {
            return None;
        }
        if self.odd {
            match off {
                0 => return Some(4),
                4 => return Some(5),
                9 => return Some(3),
                _ if off < 12 => return None,
                _ => {}
            }
        }
        off.is_multiple_of(4).then_some(4)
    }
}

/// `hd_model_sym()`: the table symbol `addr` lies in, present or not.
pub fn model_sym(addr: usize) -> Option<&'static ModelSym> {
    MODEL_SYMBOLS
        .iter()
        .find(|s| addr >= s.addr && addr < s.addr + s.size)
}

/// model.c's `present()` for the symbol at `addr` of an image with
/// [`Image::as_model`]: vmlinux symbols always, a module's while a loaded
/// module maps its start (m0's init text: until it is freed).
pub(super) fn present(addr: usize) -> bool {
    match model_sym(addr) {
        Some(s) if s.module != SymModule::Vmlinux => !module_at(s.addr).is_null(),
        _ => true,
    }
}

/// `hd_present_sym()`: the present table symbol `addr` lies in.
pub fn present_model_sym(addr: usize) -> Option<&'static ModelSym> {
    model_sym(addr).filter(|s| present(s.addr))
}

/// `hd_reserved_site()`: does `[start, end]` overlap a static call site or
/// the ftrace site of a present symbol (4 bytes each)?
pub fn reserved_site(start: usize, end: usize) -> bool {
    let overlaps = |site: usize| site <= end && site + 4 > start;
    MODEL_STATIC_CALLS.iter().any(|&a| overlaps(a))
        || MODEL_SYMBOLS
            .iter()
            .any(|s| s.ftrace && present(s.addr) && overlaps(s.addr))
}

impl Image {
    /// The host differential's image (MODEL.md section 1) with
    /// [`Image::as_model`]: the symbol table, core text `[T, T+0x400)`
    /// and `init_fn` (one range: the image's first is the core kernel),
    /// `.kprobes.text`, `.noinstr.text`, the entry text that
    /// `arch_populate_kprobe_blacklist()` adds, the ftrace, static call
    /// (4 bytes) and `BUG()` sites; no ENDBR, no jump labels, no gate area.
    /// Module m0 is not there: [`install_model`] adds it, unloaded.
    pub fn model() -> Image {
        let mut i = Image {
            as_model: true,
            site_width: 4,
            text: vec![(HD_T, MODEL_INIT.1)],
            symbols: MODEL_SYMBOLS
                .iter()
                .map(|s| Sym::new(s.name, s.addr, s.size))
                .collect(),
            kprobes_text: (HD_T + 0x180, HD_T + 0x1c0),
            noinstr_text: (HD_T + 0x200, HD_T + 0x240),
            ftrace_sites: MODEL_SYMBOLS
                .iter()
                .filter(|s| s.ftrace)
                .map(|s| s.addr)
                .collect(),
            static_calls: MODEL_STATIC_CALLS.to_vec(),
            bugs: MODEL_BUGS.to_vec(),
            ..Image::default()
        };
        i.arch_populate.areas = vec![MODEL_ENTRY];
        i
    }
}

/// Makes this test's kernel the host differential's: [`Image::model`]
/// with module m0 unloaded, `[__init_begin, __init_end)`, the boot
/// blacklist section (`{ blacklisted_fn, data_var }`) and one possible
/// CPU.
pub fn install_model() {
    let m = Box::into_raw(Box::new(Module::default()));
    // SAFETY: a fresh module, which the image owns from now on.
    unsafe { install(m, true) };
}

/// [`install_model`] with `m` as m0: a C program's `hd_m0`, which its
/// driver loads and unloads itself (it sets the state and maps the text
/// ranges, then calls the core's notifier), so the image lists it as a
/// module from now on (its text ranges are empty while it is not loaded)
/// and never frees it.
///
/// # Safety
/// `m` is a zeroed module that lives as long as the image, and only this
/// thread uses it.
pub unsafe fn install_model_m0(m: *mut Module) {
    // SAFETY: this function's `# Safety`.
    unsafe { install(m, false) };
    image(|i| i.modules.push(m as usize));
}

/// [`install_model`]'s work, m0 being `m` (owned by the image if `owned`).
///
/// # Safety
/// `m` is a live module that lives as long as the image (or that the
/// image owns, from `Box::into_raw()`), used by this thread alone.
unsafe fn install(m: *mut Module, owned: bool) {
    image(|i| *i = Image::model());
    // model.c's `hd_m0`: named, with its blacklist, unloaded (no text, state
    // 0 = LIVE) until `module-load`.
    // SAFETY: `m` is live and this thread's (this function's `# Safety`).
    unsafe {
        (*m).name = c"m0".as_ptr().cast();
        (*m).set_kprobe_blacklist(&[HD_M + 0x80]);
    }
    image(|i| i.m0 = ModelM0(m as usize, owned));
    arch(|a| {
        a.init_area = MODEL_INIT;
        a.blacklist_section = MODEL_BOOT_BLACKLIST.iter().map(|&x| x as c_ulong).collect();
        a.possible_cpus = 1;
    });
}

/// The boot blacklist section (`__start_kprobe_blacklist`): `{
/// blacklisted_fn, data_var }`.
pub const MODEL_BOOT_BLACKLIST: [usize; 2] = [HD_T + 0x140, HD_D];

/// The model's module m0 (model.c's `hd_m0`), owned by the image if the
/// flag says so: a `Box<Module>` turned into its address by
/// [`install_model`] (0: none), freed with the image, so that no `Box` is
/// retagged while the core points into it; else a C program's
/// ([`install_model_m0`]).
#[derive(Default, Debug)]
pub struct ModelM0(usize, bool);

impl Drop for ModelM0 {
    fn drop(&mut self) {
        if self.0 != 0 && self.1 {
            // SAFETY: `install_model()` made the address with
            // `Box::into_raw()` (the owned flag), and only this drop frees
            // it; the image that owns it outlives the test that uses m0
            // (`exclusive()` resets it before the next one).
            drop(unsafe { Box::from_raw(self.0 as *mut Module) });
        }
    }
}

/// The image's m0 (model.c's `hd_m0`; this test's: tests that use the
/// image are serialized by [`exclusive`](super::exclusive)).
pub fn hd_m0() -> *mut Module {
    let m = image(|i| i.m0.0) as *mut Module;
    assert!(!m.is_null(), "no model image (install_model())");
    m
}

/// Calls the core's module notifier for `m` (model.c: the notifier block
/// `register_module_notifier()` gave it).
fn notify(val: c_ulong, m: *mut Module) {
    // SAFETY: `m` is the image's live m0, which the notifier may look into.
    unsafe { link::kprobes_rust_module_callback(val, m) };
}

/// The driver's `module-load m0`: m0 becomes COMING with its core text
/// `[M, M+0xc0)` and init text `[MI, MI+0x40)` mapped (listed in
/// [`Image::modules`]), then the notifier runs with `MODULE_STATE_COMING`;
/// `already loaded` if it is.
pub fn hd_module_load() {
    let m = hd_m0();
    // SAFETY: `m` is the image's live m0 (`hd_m0()`), used by this thread
    // alone; no reference to it is formed.
    let loaded = unsafe { (*m).loaded != 0 };
    if loaded {
        ev("already loaded".into());
        return;
    }
    // SAFETY: as above.
    unsafe {
        (*m).loaded = 1;
        (*m).state = ModState::Coming;
        (*m).core_start = HD_M as c_ulong;
        (*m).core_end = (HD_M + 0xc0) as c_ulong;
        (*m).init_start = HD_MI as c_ulong;
        (*m).init_end = (HD_MI + 0x40) as c_ulong;
    }
    image(|i| i.modules.push(m as usize));
    notify(MODULE_STATE_COMING, m);
}

/// The driver's `module-init-done m0`: m0 becomes LIVE, the notifier runs
/// with `MODULE_STATE_LIVE`, then its init text is freed (forgotten by the
/// text model, unmapped); `not coming` unless m0 is loaded and COMING.
pub fn hd_module_init_done() {
    let m = hd_m0();
    // SAFETY: `m` is the image's live m0 (`hd_m0()`), used by this thread
    // alone; no reference to it is formed.
    let coming = unsafe { (*m).loaded != 0 && (*m).state == ModState::Coming };
    if !coming {
        ev("not coming".into());
        return;
    }
    // SAFETY: as above.
    unsafe { (*m).state = ModState::Live };
    notify(MODULE_STATE_LIVE, m);
    // SAFETY: as above.
    let init = unsafe { ((*m).init_start as usize, (*m).init_end as usize) };
    hd_text_forget(init.0, init.1);
    // SAFETY: as above.
    unsafe {
        (*m).init_start = 0;
        (*m).init_end = 0;
    }
}

/// The driver's `module-unload m0`: m0 becomes GOING, the notifier runs
/// with `MODULE_STATE_GOING`, `!module refs=N at unload` if references
/// are left, then it is unloaded (unlisted, its text forgotten and
/// unmapped); `not loaded` if it is not.
pub fn hd_module_unload() {
    let m = hd_m0();
    // SAFETY: `m` is the image's live m0 (`hd_m0()`), used by this thread
    // alone; no reference to it is formed.
    let loaded = unsafe { (*m).loaded != 0 };
    if !loaded {
        ev("not loaded".into());
        return;
    }
    // SAFETY: as above.
    unsafe { (*m).state = ModState::Going };
    notify(MODULE_STATE_GOING, m);
    // SAFETY: as above.
    let (refs, core, init) = unsafe {
        (
            (*m).refs,
            ((*m).core_start as usize, (*m).core_end as usize),
            ((*m).init_start as usize, (*m).init_end as usize),
        )
    };
    if refs != 0 {
        ev(format!("!module refs={refs} at unload"));
    }
    image(|i| i.modules.retain(|&x| x != m as usize));
    hd_text_forget(core.0, core.1);
    hd_text_forget(init.0, init.1);
    // SAFETY: as above.
    unsafe {
        (*m).loaded = 0;
        (*m).core_start = 0;
        (*m).core_end = 0;
        (*m).init_start = 0;
        (*m).init_end = 0;
    }
}

/// The driver's `free-init`: the kernel's init text is freed
/// (`kprobe_free_init_mem()`, then `init_fn` leaves `core_kernel_text()`
/// and `kernel_text_address()` and the text model forgets it); `already
/// freed` the second time.
pub fn hd_free_init() {
    if arch(|a| std::mem::replace(&mut a.init_freed, true)) {
        ev("already freed".into());
        return;
    }
    // SAFETY: init/main.c's call, from process context with no lock held.
    unsafe { link::kprobe_free_init_mem() };
    let (start, end) = arch(|a| a.init_area);
    hd_text_forget(start, end);
}

/// C's `strtoul(s, NULL, base)` for base 0 (`0x` hex, `0` octal, else
/// decimal) or 16: the number its longest valid prefix spells (0 if
/// none; a leading `-` negates, as C's).
fn strtoul(s: &str, base: u32) -> usize {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let hex =
        s.len() > 2 && s[..2].eq_ignore_ascii_case("0x") && s.as_bytes()[2].is_ascii_hexdigit();
    let (radix, digits) = match base {
        16 if hex => (16, &s[2..]),
        16 => (16, s),
        _ if hex => (16, &s[2..]),
        _ if s.starts_with('0') => (8, s),
        _ => (10, s),
    };
    let mut v: usize = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v.wrapping_mul(radix as usize).wrapping_add(d as usize);
    }
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// model.c's `hd_resolve()`: the driver's `LOC` (`NAME`, `NAME+OFF` with
/// OFF as `strtoul(.., 0)` reads it, or `0xHEX`) as an address, over every
/// table symbol, present or not; `None` for an unknown name.
pub fn hd_resolve(spec: &str) -> Option<usize> {
    if spec.starts_with("0x") {
        return Some(strtoul(spec, 16));
    }
    let (name, off) = match spec.split_once('+') {
        Some((n, o)) => (n, strtoul(o, 0)),
        None => (spec, 0),
    };
    // model.c copies at most 127 bytes of the name.
    let name = &name[..name.len().min(127)];
    MODEL_SYMBOLS
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.addr.wrapping_add(off))
}
