// SPDX-License-Identifier: GPL-2.0

//! jprobes (`CONFIG_KPROBES_RUST_JPROBES`, `<linux/jprobes.h>`): the API of
//! the kprobes documents up to 4.14, without the stack copy that made
//! upstream remove it in 4.15.
//!
//! A jprobe is an entry kprobe (`kp`) whose pre-handler,
//! [`jprobe_pre_handler`], calls the jprobe's `entry` with the argument
//! registers of the calling convention ([`sys::jprobe_call`]): `entry` has
//! the probed function's prototype, sees copies of its register arguments
//! and returns to the pre-handler, which returns 0 (the function then runs
//! as for any kprobe).  Old upstream pointed the trap's return at `entry`
//! on a copy of the stack and came back through the trap of
//! `jprobe_return()`; here `jprobe_return()` does nothing.
//!
//! Everything else is the kprobe's: registration (with the function-entry
//! check kretprobes make, and a null `entry` refused), aggregation with
//! other probes at the address, enable/disable, `nmissed` on reentry,
//! unregistration and the module-gone handling.  `kprobes/list` shows a
//! jprobe with type `j` (`debugfs.rs`).
//!
//! Limits: only the register arguments are passed (six on x86-64, eight
//! on arm64 and riscv64); a
//! function with more, or with arguments on the stack, is not supported
//! (the core cannot tell at registration: the header says so).

use crate::error::{code::*, to_errno, Result};
use crate::ffi::c_int;
use crate::probe::{JProbe, JProbeArray, Probe};
use crate::register::{self, Member, Registration};
use crate::sys;
use crate::types::{Jprobe, Kprobe, PtRegs};
use core::ptr::addr_of;

/// The handler's type as the pre-handler calls it: the argument registers
/// in order (an argument narrower than a register reads its low part, as
/// the callee of a C call does).
/// The jprobe whose entry probe is `p`.
#[inline(always)]
fn jp_of(p: *mut Kprobe) -> *mut Jprobe {
    crate::container_of!(p, Jprobe, kp)
}

/// The pre-handler of every jprobe: calls `entry` with the probed
/// function's register arguments.
///
/// # Safety
/// Handler context (the arch's kprobe or ftrace handler, or an aggregate's
/// pre-handler); `p` is the `kp` of a registered jprobe and `regs` the
/// hit's register frame.
#[no_mangle]
// One address for every use under Miri too (`is_jprobe_handler()` compares it).
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn jprobe_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    let jp = jp_of(p);
    // SAFETY: `p` is the `kp` of a registered jprobe (this function's `# Safety`):
    // the jprobe is live until a grace period after unregistration, and its
    // `entry` is not written while it is registered (`JProbe`'s invariant).
    let entry = unsafe { addr_of!((*jp).entry).read() };
    if entry.is_null() {
        return 0; // refused at registration; never here
    }
    // SAFETY: `regs` is this hit's register frame, live for the handler, and
    // `entry` is non-null and, as registration requires, a function with the
    // probed function's prototype, whose arguments are all in registers
    // (stack arguments are unsupported, `<linux/jprobes.h>`).
    unsafe { sys::jprobe_call(entry, regs) };
    0
}
crate::nokprobe_symbol!(jprobe_pre_handler);

/// `jprobe_return()`: old handlers end with it; nothing is left to undo.
#[no_mangle]
pub extern "C" fn jprobe_return() {}
crate::nokprobe_symbol!(jprobe_return);

/// `register_jprobe()`, alone or in a batch (`how`): the checks of
/// `register_kretprobe()` (a function entry; not registered yet when
/// `kp.addr` is given), a non-null `entry`, then the kprobe with
/// [`jprobe_pre_handler`].
fn register_with(j: JProbe<'_>, how: Registration<'_>) -> Result {
    let kp = j.kp();
    how.check_entry(kp)?;
    if j.entry().is_null() {
        return Err(EINVAL);
    }
    // SAFETY: not registered: `check_entry()` refused a registered `kp.addr`,
    // and with only a symbol `kp.addr` is null, which no registered probe has.
    unsafe { j.set_pre_handler(Some(jprobe_pre_handler)) };
    how.register_kprobe(kp)
}

/// A member of `register_jprobes()` (batched as `register_kprobes()`, as
/// `register_kretprobes()`'s members) and `unregister_jprobes()`
/// (`unregister_kprobes()` of their `kp`s).
impl<'a> Member<'a> for JProbe<'a> {
    fn kp(self) -> Probe<'a> {
        JProbe::kp(self)
    }

    fn register(self, how: Registration<'_>) -> Result {
        register_with(self, how)
    }
}

/// `enable_jprobe()`.
fn enable(j: JProbe<'_>) -> Result {
    register::enable_kprobe(j.kp())
}

/// `disable_jprobe()`.
fn disable(j: JProbe<'_>) -> Result {
    register::disable_kprobe(j.kp())
}

/// Is `p` a jprobe's entry probe (`p->pre_handler == jprobe_pre_handler`)?
pub fn is_jprobe_handler(h: crate::types::KprobePreHandler) -> bool {
    h.map(|f| f as *const ()) == Some(jprobe_pre_handler as *const ())
}

// The C ABI (`<linux/jprobes.h>`; exported GPL by the C shim).

ftrace_export! {
    /// `register_jprobe()` (`<linux/jprobes.h>`): registers `jp` at a
    /// function entry (`kp.addr`, or `kp.symbol_name` + `kp.offset`).
    ///
    /// # Safety
    /// `jp` is non-null and stays alive and untouched by the caller until
    /// unregistered, its `kp.symbol_name` null or a C string and its `entry`
    /// a function with the probed function's prototype; process context.
    unsafe fn register_jprobe(jp: *mut Jprobe) -> c_int {
        // SAFETY: `jp` lives until unregistered (`# Safety` above): a `JProbe`.
        to_errno(register_with(unsafe { JProbe::from_raw(jp) }, Registration::Alone))
    }
}

ftrace_export! {
    /// `register_jprobes()`: all or none.
    ///
    /// # Safety
    /// `jps` holds `num` jprobes, each as for [`register_jprobe`]; process context.
    unsafe fn register_jprobes(jps: *mut *mut Jprobe, num: c_int) -> c_int {
        // SAFETY: `num` jprobes, each as for `register_jprobe()` (`# Safety` above): a
        // `JProbeArray`.
        to_errno(register::register_members(unsafe { JProbeArray::from_c(jps, num) }))
    }
}

ftrace_export! {
    /// `unregister_jprobe()`.
    ///
    /// # Safety
    /// `jp` is a caller's live `struct jprobe` (`kp.symbol_name` null or a
    /// C string); process context.
    unsafe fn unregister_jprobe(jp: *mut Jprobe) {
        let mut jp = jp;
        // SAFETY: `&mut jp` is an array of one such jprobe, live for the call (`# Safety` above).
        register::unregister_members(unsafe { JProbeArray::from_raw(&mut jp, 1) })
    }
}

ftrace_export! {
    /// `unregister_jprobes()`.
    ///
    /// # Safety
    /// `jps` holds `num` distinct jprobes, each as for [`unregister_jprobe`];
    /// process context.
    unsafe fn unregister_jprobes(jps: *mut *mut Jprobe, num: c_int) {
        // SAFETY: `jps` holds `num` such jprobes (`# Safety` above): a `JProbeArray`.
        register::unregister_members(unsafe { JProbeArray::from_c(jps, num) })
    }
}

ftrace_export! {
    /// `enable_jprobe()`.
    ///
    /// # Safety
    /// `jp` is a caller's live `struct jprobe` (`kp.symbol_name` null or a C string).
    unsafe fn enable_jprobe(jp: *mut Jprobe) -> c_int {
        // SAFETY: live for the call, with a valid `kp.symbol_name` (`# Safety` above): a `JProbe`.
        to_errno(enable(unsafe { JProbe::from_raw(jp) }))
    }
}

ftrace_export! {
    /// `disable_jprobe()`.
    ///
    /// # Safety
    /// `jp` is a caller's live `struct jprobe` (`kp.symbol_name` null or a C string).
    unsafe fn disable_jprobe(jp: *mut Jprobe) -> c_int {
        // SAFETY: live for the call, with a valid `kp.symbol_name` (`# Safety` above): a `JProbe`.
        to_errno(disable(unsafe { JProbe::from_raw(jp) }))
    }
}
