// SPDX-License-Identifier: GPL-2.0

//! Modules: `struct module` and the module helpers the core calls.

use super::image::{image, in_range};
use crate::ffi::c_int;
pub use crate::types::ModuleAreas;

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

/// `within_module_core()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_core(addr: usize, m: *mut Module) -> bool {
    // SAFETY: a live simulated module.
    in_range(addr, unsafe { (*m).core_text })
}

/// `register_module_notifier()`.
pub fn register_module_notifier() -> c_int {
    0
}
