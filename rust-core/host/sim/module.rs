// SPDX-License-Identifier: GPL-2.0

//! Modules: `struct module` and the module helpers the core calls.

use super::image::{image, in_range, model};
use super::trace::hd_fatal;
use crate::ffi::{c_int, c_uint, c_ulong, c_void};
pub use crate::types::ModuleAreas;

use super::{ModState, Module};

/// The host tests' constructors of a simulated module (a C `struct module`:
/// the arrays it points to are kept by the image, [`image`]).
impl Module {
    /// A module in `state` with core text `[core.0, core.1)` and init text
    /// `[init.0, init.1)`.
    pub fn sim(core: (usize, usize), init: (usize, usize), state: ModState) -> Module {
        Module {
            core_start: core.0 as c_ulong,
            core_end: core.1 as c_ulong,
            init_start: init.0 as c_ulong,
            init_end: init.1 as c_ulong,
            state,
            ..Module::default()
        }
    }

    /// Sets `kprobe_blacklist` to a copy of `addrs`, which the simulated
    /// image keeps until the next [`exclusive`](super::exclusive).
    pub fn set_kprobe_blacklist(&mut self, addrs: &[usize]) {
        let a: Box<[c_ulong]> = addrs.iter().map(|&x| x as c_ulong).collect();
        let n = a.len();
        // From now on reached only through this raw pointer (the module's
        // field), until the image frees it.
        let p = Box::into_raw(a).cast::<c_ulong>();
        self.kprobe_blacklist = p;
        self.num_kprobe_blacklist = n as c_uint;
        image(|i| i.module_arrays.0.push((p as usize, n)));
    }

    /// Sets `kprobes_text_start` and `kprobes_text_size` (start 0: none).
    pub fn set_kprobes_text(&mut self, start: usize, size: usize) {
        self.kprobes_text_start = start as *mut c_void;
        self.kprobes_text_size = size as c_uint;
    }

    /// Sets `noinstr_text_start` and `noinstr_text_size` (start 0: none).
    pub fn set_noinstr_text(&mut self, start: usize, size: usize) {
        self.noinstr_text_start = start as *mut c_void;
        self.noinstr_text_size = size as c_uint;
    }
}

/// Reads a module's blacklist areas.
///
/// # Safety
/// `m` is a live module, whose blacklist array outlives `'a`.
pub unsafe fn module_areas<'a>(m: *mut Module) -> ModuleAreas<'a> {
    // SAFETY: `m` is live (this function's `# Safety`); the fields are read
    // through the raw pointer, no reference to the module is formed.
    let (bl, n, kt, kts, nt, nts) = unsafe {
        (
            (*m).kprobe_blacklist,
            (*m).num_kprobe_blacklist as usize,
            (*m).kprobes_text_start,
            (*m).kprobes_text_size,
            (*m).noinstr_text_start,
            (*m).noinstr_text_size,
        )
    };
    let ksyms = if bl.is_null() || n == 0 {
        &[][..]
    } else {
        // SAFETY: a module's `kprobe_blacklist` holds `num_kprobe_blacklist`
        // addresses (a `c_ulong` is a `usize` on the host) and outlives `'a`
        // (this function's `# Safety`); nothing writes them.
        unsafe { core::slice::from_raw_parts(bl.cast::<usize>(), n) }
    };
    ModuleAreas {
        ksyms,
        kprobes_text: (kt as usize, kts as usize),
        noinstr_text: (nt as usize, nts as usize),
    }
}

/// `[start, end)` of a module's core text.
///
/// # Safety
/// `m` is a live module.
unsafe fn core_text(m: *const Module) -> (usize, usize) {
    // SAFETY: `m` is live (this function's `# Safety`).
    unsafe { ((*m).core_start as usize, (*m).core_end as usize) }
}

/// `[start, end)` of a module's init text.
///
/// # Safety
/// `m` is a live module.
unsafe fn init_text(m: *const Module) -> (usize, usize) {
    // SAFETY: `m` is live (this function's `# Safety`).
    unsafe { ((*m).init_start as usize, (*m).init_end as usize) }
}

/// `__module_text_address()`.
///
/// # Safety
/// Preemption is disabled, or an RCU read-side section is open: the
/// module returned is live only until it ends.
pub unsafe fn module_text_address(addr: usize) -> *mut Module {
    module_at(addr)
}

/// The simulation's own lookup of `__module_text_address()`: its modules
/// stay live while the image lists them, so it needs no section.
pub(super) fn module_at(addr: usize) -> *mut Module {
    let mods = image(|i| i.modules.clone());
    for m in mods {
        let m = m as *mut Module;
        // SAFETY: the image lists live modules (tests keep the modules they
        // load alive while they are listed).
        if unsafe { in_range(addr, core_text(m)) || in_range(addr, init_text(m)) } {
            return m;
        }
    }
    core::ptr::null_mut()
}

/// `try_module_get()` (with [`Image::as_model`](super::Image::as_model),
/// model.c's: it fails while the module is GOING).
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn try_module_get(m: *mut Module) -> bool {
    if image(|i| i.module_get_fails) {
        return false;
    }
    // model.c: fails while the module is going away.
    // SAFETY: a live simulated module (this function's `# Safety`).
    if model() && unsafe { (*m).state } == ModState::Going {
        return false;
    }
    // SAFETY: a live simulated module.
    unsafe { (*m).refs += 1 };
    true
}

/// `module_put()` (with [`Image::as_model`](super::Image::as_model), an
/// underflow is fatal, as model.c's).
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn module_put(m: *mut Module) {
    // SAFETY: a live simulated module.
    let refs = unsafe {
        (*m).refs -= 1;
        (*m).refs
    };
    // model.c's (the unit tests' image lets refs go negative).
    if model() && refs < 0 {
        hd_fatal(format_args!("module_put underflow"));
    }
}

/// `within_module_init()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_init(addr: usize, m: *mut Module) -> bool {
    // SAFETY: a live simulated module (this function's `# Safety`).
    in_range(addr, unsafe { init_text(m) })
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

/// `within_module_core()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_core(addr: usize, m: *mut Module) -> bool {
    // SAFETY: a live simulated module (this function's `# Safety`).
    in_range(addr, unsafe { core_text(m) })
}

/// `register_module_notifier()`.
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): a notifier block is
/// registered at most once.
pub unsafe fn register_module_notifier() -> c_int {
    0
}
