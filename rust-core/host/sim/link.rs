// SPDX-License-Identifier: GPL-2.0

//! The core's C symbols the simulation calls, as the kernel's code outside
//! `kprobes.o` does (x86's optprobes and blacklist code, the workqueue).
//! The simulation names no module of the core: it is built as if it were a
//! separate library that the core links against; `host/sim_exports.rs`
//! gives the host tests' build the symbols that only the kernel and the
//! host differential export otherwise.
//!
//! Plain C symbols rather than registered hooks: each has the signature
//! of the kernel's function (so the calls are the ones `arch.c` makes in
//! the host differential), and nothing has to install anything before the
//! first test runs.

use super::{Module, PtRegs};
use crate::ffi::{c_int, c_ulong, c_void};
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode};

// Only pointers to the cache cross (its mutex holds the kernel's
// `arch_spinlock_t`, an empty struct without SMP, which the lint flags).
#[allow(improper_ctypes)]
extern "C" {
    /// `get_kprobe()`.
    pub(super) fn get_kprobe(addr: *mut c_void) -> *mut Kprobe;
    /// `kprobe_disarmed()`.
    pub(super) fn kprobe_disarmed(p: *mut Kprobe) -> bool;
    /// `kprobe_add_area_blacklist()`.
    pub(super) fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int;
    /// The optimizer's delayed work (`kprobe_optimizer()`), as the C shim's
    /// work function calls it.
    pub(super) fn kprobes_rust_optimizer_work();
    /// `__get_insn_slot()` (x86's `get_insn_slot()`, `get_optinsn_slot()`).
    pub(super) fn __get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode;
    /// `__free_insn_slot()` (x86's `free_insn_slot()`, `free_optinsn_slot()`).
    pub(super) fn __free_insn_slot(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: c_int);
    /// The core's module notifier (`kprobes_module_callback()`; in the
    /// kernel the C shim's notifier block calls it).
    pub(super) fn kprobes_rust_module_callback(val: c_ulong, module: *mut Module) -> c_int;
    /// `kprobe_free_init_mem()` (init/main.c calls it).
    pub(super) fn kprobe_free_init_mem();
    /// `kprobes_inc_nmissed_count()` (x86's trap paths call it).
    pub(super) fn kprobes_inc_nmissed_count(p: *mut Kprobe);
    /// `opt_pre_handler()` (x86's `optimized_callback()` calls it).
    pub(super) fn opt_pre_handler(p: *mut Kprobe, regs: *mut PtRegs);
    /// Reads `kprobe_ftrace_disabled` (x86's `kprobe_ftrace_handler()`
    /// reads the variable; Miri supports no extern static, so the
    /// simulation reads it through this handle: the core's is in
    /// `host/sim_exports.rs`, upstream's file's in
    /// `tools/testing/hostdiff/sim/kcore_link.c`).
    pub(super) fn hd_kprobe_ftrace_disabled() -> bool;
    /// `kprobe_aggrprobe(p)` (`p->pre_handler == aggr_pre_handler`,
    /// static upstream): the host differential's handle, which its
    /// `kcore.c` defines for upstream's file and `host/sim_exports.rs`
    /// for the core.
    pub(super) fn hd_kprobe_aggrprobe(p: *mut Kprobe) -> bool;
    /// The test harness's reset of the core's global state.
    pub(super) fn kprobes_rust_reset_for_test();
}
