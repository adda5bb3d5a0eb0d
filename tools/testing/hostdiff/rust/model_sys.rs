// SPDX-License-Identifier: GPL-2.0

//! Kernel services used by the core, host differential build
//! (`cfg(KP_MODEL)`, the staticlib of `tools/testing/hostdiff/rust/`; the
//! core's `sys` module there, included by `rust-core/kprobes_core.rs`).
//!
//! The simulated kernel of `tools/testing/hostdiff/MODEL.md` is C:
//! `model.c` (services) and `arch.c` (x86 arch layer), the same objects
//! upstream `kernel/kprobes.c` runs on in hostdiff-c.  This module is the
//! twin of `sys_kernel.rs` for that kernel: every function forwards to the
//! model's C function of the same name, or, where the stubs
//! (`tools/testing/hostdiff/include/kstub.h`) have only a macro or a static
//! inline, to a one-line wrapper of `tools/testing/hostdiff/rshim.c` (the
//! model's `c-shim/kprobes_shim.c`, which also holds the static C data
//! upstream's file defines: `kprobe_mutex`, the insn caches, the optimizer's
//! work, the ftrace ops, the notifier blocks, the sysctl table, the debugfs
//! files and the initcalls).  No state lives here: whatever the core does
//! to the kernel is traced by the C model exactly as for upstream's file.

use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use crate::ktypes::FtraceOps;
pub use crate::ktypes::{
    ArchOptimizedInsn, ArchSpecificInsn, CtlTable, File, KprobeCtlblk, Module, Mutex, PtRegs,
    Rethook, RethookNode, SeqFile,
};
use crate::types::{
    Kprobe, KprobeInsnCache, KprobeOpcode, KretprobeBlackpoint, ListHead, OptimizedKprobe, RcuHead,
};
use core::mem::size_of;
use core::ptr::{addr_of, addr_of_mut, null_mut};

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = 4096;
/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = 512;
/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 = 2;
/// `NOTIFY_DONE`.
pub const NOTIFY_DONE: c_int = 0;
/// `MODULE_STATE_LIVE`.
pub const MODULE_STATE_LIVE: c_ulong = 0;
/// `MODULE_STATE_COMING`.
pub const MODULE_STATE_COMING: c_ulong = 1;
/// `MODULE_STATE_GOING`.
pub const MODULE_STATE_GOING: c_ulong = 2;
/// `KPROBE_HIT_ACTIVE`.
pub const KPROBE_HIT_ACTIVE: c_ulong = 1;
/// `MAX_OPTIMIZED_LENGTH` (`MAX_INSN_SIZE + DISP32_SIZE`).
pub const MAX_OPTIMIZED_LENGTH: usize = 16 + 4;

/// `struct hd_sections` (model.c's `hd_sec`: the linker symbols).
#[repr(C)]
struct HdSections {
    kprobes_start: c_ulong,
    kprobes_end: c_ulong,
    noinstr_start: c_ulong,
    noinstr_end: c_ulong,
    init_begin: c_ulong,
    init_end: c_ulong,
    entry_start: c_ulong,
    entry_end: c_ulong,
}

// The same numbers as tools/testing/hostdiff/rlayout.c asserts in C (the
// shared types' are in rust-core/host/sim_ktypes.rs).
const _: () = {
    assert!(size_of::<HdSections>() == 64);
};

// model.c and arch.c (the simulated kernel), and rshim.c (wrappers of the
// stubs' macros and static inlines, the static data of the core).
extern "C" {
    // model.c
    fn hd_printk(level: *const c_char, fmt: *const c_char, ...);
    #[link_name = "kmalloc"]
    fn c_kmalloc(size: usize, gfp: c_uint) -> *mut c_void;
    #[link_name = "kzalloc"]
    fn c_kzalloc(size: usize, gfp: c_uint) -> *mut c_void;
    #[link_name = "kfree"]
    fn c_kfree(p: *const c_void);
    fn hd_kfree_rcu(p: *mut c_void, head: *mut RcuHead);
    #[link_name = "mutex_lock"]
    fn c_mutex_lock(m: *mut Mutex);
    #[link_name = "mutex_unlock"]
    fn c_mutex_unlock(m: *mut Mutex);
    static mut text_mutex: Mutex;
    #[link_name = "cpus_read_lock"]
    fn c_cpus_read_lock();
    #[link_name = "cpus_read_unlock"]
    fn c_cpus_read_unlock();
    #[link_name = "lockdep_assert_cpus_held"]
    fn c_lockdep_assert_cpus_held();
    #[link_name = "jump_label_lock"]
    fn c_jump_label_lock();
    #[link_name = "jump_label_unlock"]
    fn c_jump_label_unlock();
    #[link_name = "preempt_disable"]
    fn c_preempt_disable();
    #[link_name = "preempt_enable"]
    fn c_preempt_enable();
    #[link_name = "rcu_read_lock"]
    fn c_rcu_read_lock();
    #[link_name = "rcu_read_unlock"]
    fn c_rcu_read_unlock();
    #[link_name = "synchronize_rcu"]
    fn c_synchronize_rcu();
    #[link_name = "synchronize_rcu_tasks"]
    fn c_synchronize_rcu_tasks();
    fn hd_cpu_relax();
    #[link_name = "kallsyms_lookup_size_offset"]
    fn c_kallsyms_lookup_size_offset(
        addr: c_ulong,
        size: *mut c_ulong,
        offset: *mut c_ulong,
    ) -> c_int;
    #[link_name = "lookup_symbol_name"]
    fn c_lookup_symbol_name(addr: c_ulong, symname: *mut c_char) -> c_int;
    #[link_name = "kallsyms_lookup"]
    fn c_kallsyms_lookup(
        addr: c_ulong,
        symbolsize: *mut c_ulong,
        offset: *mut c_ulong,
        modname: *mut *mut c_char,
        namebuf: *mut c_char,
    ) -> *const c_char;
    #[link_name = "kernel_text_address"]
    fn c_kernel_text_address(addr: c_ulong) -> c_int;
    #[link_name = "core_kernel_text"]
    fn c_core_kernel_text(addr: c_ulong) -> c_int;
    #[link_name = "in_gate_area_no_mm"]
    fn c_in_gate_area_no_mm(addr: c_ulong) -> c_int;
    #[link_name = "jump_label_text_reserved"]
    fn c_jump_label_text_reserved(start: *mut c_void, end: *mut c_void) -> c_int;
    #[link_name = "static_call_text_reserved"]
    fn c_static_call_text_reserved(start: *mut c_void, end: *mut c_void) -> c_int;
    #[link_name = "find_bug"]
    fn c_find_bug(bugaddr: c_ulong) -> *mut c_void;
    #[link_name = "ftrace_location"]
    fn c_ftrace_location(ip: c_ulong) -> c_ulong;
    static hd_sec: HdSections;
    static hd_kprobe_blacklist_syms: [c_ulong; 0];
    static hd_kprobe_blacklist_nr: c_ulong;
    #[link_name = "kretprobe_blacklist"]
    static mut c_kretprobe_blacklist: [KretprobeBlackpoint; 0];
    static kretprobe_blacklist_size: c_int;
    fn __module_text_address(addr: c_ulong) -> *mut Module;
    #[link_name = "try_module_get"]
    fn c_try_module_get(m: *mut Module) -> bool;
    #[link_name = "module_put"]
    fn c_module_put(m: *mut Module);
    #[link_name = "within_module_init"]
    fn c_within_module_init(addr: c_ulong, m: *const Module) -> bool;
    #[link_name = "within_module_core"]
    fn c_within_module_core(addr: c_ulong, m: *const Module) -> bool;
    #[link_name = "perf_event_ksymbol"]
    fn c_perf_event_ksymbol(
        ksym_type: u16,
        addr: u64,
        len: u32,
        unregister: bool,
        sym: *const c_char,
    );
    #[link_name = "ftrace_set_filter_ip"]
    fn c_ftrace_set_filter_ip(
        ops: *mut FtraceOps,
        ip: c_ulong,
        remove: c_int,
        reset: c_int,
    ) -> c_int;
    #[link_name = "ftrace_set_filter_ips"]
    fn c_ftrace_set_filter_ips(
        ops: *mut FtraceOps,
        ips: *mut c_ulong,
        cnt: c_uint,
        remove: c_int,
        reset: c_int,
    ) -> c_int;
    #[link_name = "register_ftrace_function"]
    fn c_register_ftrace_function(ops: *mut FtraceOps) -> c_int;
    #[link_name = "unregister_ftrace_function"]
    fn c_unregister_ftrace_function(ops: *mut FtraceOps) -> c_int;
    #[link_name = "rethook_alloc"]
    fn c_rethook_alloc(
        data: *mut c_void,
        handler: Option<unsafe extern "C" fn(*mut RethookNode, *mut c_void, c_ulong, *mut PtRegs)>,
        size: c_int,
        num: c_int,
    ) -> *mut Rethook;
    #[link_name = "rethook_free"]
    fn c_rethook_free(rh: *mut Rethook);
    #[link_name = "rethook_try_get"]
    fn c_rethook_try_get(rh: *mut Rethook) -> *mut RethookNode;
    #[link_name = "rethook_recycle"]
    fn c_rethook_recycle(node: *mut RethookNode);
    #[link_name = "rethook_hook"]
    fn c_rethook_hook(node: *mut RethookNode, regs: *mut PtRegs, mcount: bool);
    fn seq_printf(m: *mut SeqFile, fmt: *const c_char, ...);
    #[link_name = "seq_list_start"]
    fn c_seq_list_start(head: *mut ListHead, pos: i64) -> *mut ListHead;
    #[link_name = "seq_list_next"]
    fn c_seq_list_next(v: *mut c_void, head: *mut ListHead, ppos: *mut i64) -> *mut ListHead;
    #[link_name = "simple_read_from_buffer"]
    fn c_simple_read_from_buffer(
        to: *mut c_void,
        count: usize,
        ppos: *mut i64,
        from: *const c_void,
        available: usize,
    ) -> isize;
    #[link_name = "kstrtobool_from_user"]
    fn c_kstrtobool_from_user(s: *const c_char, count: usize, res: *mut bool) -> c_int;
    #[link_name = "proc_dointvec_minmax"]
    fn c_proc_dointvec_minmax(
        table: *const CtlTable,
        write: c_int,
        buffer: *mut c_void,
        lenp: *mut usize,
        ppos: *mut i64,
    ) -> c_int;

    // arch.c
    static mut current_kprobe: *mut Kprobe;
    static mut kprobe_ctlblk: KprobeCtlblk;
    #[link_name = "arch_init_kprobes"]
    fn c_arch_init_kprobes() -> c_int;
    #[link_name = "arch_trampoline_kprobe"]
    fn c_arch_trampoline_kprobe(p: *mut Kprobe) -> c_int;
    #[link_name = "arch_populate_kprobe_blacklist"]
    fn c_arch_populate_kprobe_blacklist() -> c_int;
    #[link_name = "arch_prepare_kprobe"]
    fn c_arch_prepare_kprobe(p: *mut Kprobe) -> c_int;
    #[link_name = "arch_arm_kprobe"]
    fn c_arch_arm_kprobe(p: *mut Kprobe);
    #[link_name = "arch_disarm_kprobe"]
    fn c_arch_disarm_kprobe(p: *mut Kprobe);
    #[link_name = "arch_remove_kprobe"]
    fn c_arch_remove_kprobe(p: *mut Kprobe);
    #[link_name = "arch_prepare_optimized_kprobe"]
    fn c_arch_prepare_optimized_kprobe(op: *mut OptimizedKprobe, orig: *mut Kprobe) -> c_int;
    #[link_name = "arch_check_optimized_kprobe"]
    fn c_arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int;
    #[link_name = "arch_within_optimized_kprobe"]
    fn c_arch_within_optimized_kprobe(op: *mut OptimizedKprobe, addr: *mut KprobeOpcode) -> c_int;
    #[link_name = "arch_remove_optimized_kprobe"]
    fn c_arch_remove_optimized_kprobe(op: *mut OptimizedKprobe);
    #[link_name = "arch_optimize_kprobes"]
    fn c_arch_optimize_kprobes(oplist: *mut ListHead);
    #[link_name = "arch_unoptimize_kprobes"]
    fn c_arch_unoptimize_kprobes(oplist: *mut ListHead, done_list: *mut ListHead);
    #[link_name = "arch_unoptimize_kprobe"]
    fn c_arch_unoptimize_kprobe(op: *mut OptimizedKprobe);
    #[link_name = "arch_prepare_kprobe_ftrace"]
    fn c_arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int;

    // rshim.c: upstream's __weak defaults (kernel/kprobes.c)
    #[link_name = "kprobe_lookup_name"]
    fn c_kprobe_lookup_name(name: *const c_char, offset: c_uint) -> *mut KprobeOpcode;
    #[link_name = "arch_within_kprobe_blacklist"]
    fn c_arch_within_kprobe_blacklist(addr: c_ulong) -> bool;
    #[link_name = "arch_adjust_kprobe_addr"]
    fn c_arch_adjust_kprobe_addr(
        addr: c_ulong,
        offset: c_ulong,
        on_func_entry: *mut bool,
    ) -> *mut KprobeOpcode;
    #[link_name = "arch_kprobe_get_kallsym"]
    fn c_arch_kprobe_get_kallsym(
        symnum: *mut c_uint,
        value: *mut c_ulong,
        type_: *mut c_char,
        sym: *mut c_char,
    ) -> c_int;
    // rshim.c: static data
    static mut kprobe_mutex: Mutex;
    static mut kprobe_insn_slots: KprobeInsnCache;
    static mut kprobe_optinsn_slots: KprobeInsnCache;
    static mut kprobe_instance: *mut Kprobe;
    // rshim.c: wrappers (the names of c-shim/kprobes_shim.c's where it has one)
    fn kprobes_rust_lockdep_assert_held(m: *mut Mutex);
    fn kprobes_rust_sysctl_mutex_lock();
    fn kprobes_rust_sysctl_mutex_unlock();
    fn kprobes_rust_num_possible_cpus() -> c_uint;
    fn kprobes_rust_kick_optimizer();
    fn kprobes_rust_flush_optimizer();
    fn kprobes_rust_dereference_symbol_descriptor(p: *mut c_void) -> *mut c_void;
    fn kprobes_rust_module_is_coming(m: *mut Module) -> bool;
    fn kprobes_rust_seq_show_value(m: *mut SeqFile) -> bool;
    fn kprobes_rust_warn(file: *const c_char, len: c_int, line: c_int);
    fn kprobes_rust_max_optinsn_size() -> usize;
    fn kprobes_rust_ftrace_ops(ipmodify: bool) -> *mut FtraceOps;
    fn kprobes_rust_warn_ftrace_unregister(ret: c_int);
    fn kprobes_rust_warn_ftrace_disarm(addr: *mut c_void, ret: c_int);
    fn kprobes_rust_register_die_notifier() -> c_int;
    fn kprobes_rust_register_module_notifier() -> c_int;
    fn kprobes_rust_sysctls_init();
}

// ---------------------------------------------------------------------------
// Locks, RCU, preemption, per-CPU state.

/// `mutex_lock(&kprobe_mutex)` (rshim.c's `DEFINE_MUTEX(kprobe_mutex)`).
pub fn kprobe_mutex_lock() {
    // SAFETY: a static, initialized mutex; model.c checks the locking rules.
    unsafe { c_mutex_lock(addr_of_mut!(kprobe_mutex)) }
}

/// `mutex_unlock(&kprobe_mutex)`.
pub fn kprobe_mutex_unlock() {
    // SAFETY: as above.
    unsafe { c_mutex_unlock(addr_of_mut!(kprobe_mutex)) }
}

/// `mutex_lock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_lock() {
    // SAFETY: rshim.c's wrapper of its static mutex.
    unsafe { kprobes_rust_sysctl_mutex_lock() }
}

/// `mutex_unlock(&kprobe_sysctl_mutex)`.
pub fn sysctl_mutex_unlock() {
    // SAFETY: as above.
    unsafe { kprobes_rust_sysctl_mutex_unlock() }
}

/// `mutex_lock(&text_mutex)` (model.c's).
pub fn text_mutex_lock() {
    // SAFETY: a static, initialized mutex.
    unsafe { c_mutex_lock(addr_of_mut!(text_mutex)) }
}

/// `mutex_unlock(&text_mutex)`.
pub fn text_mutex_unlock() {
    // SAFETY: as above.
    unsafe { c_mutex_unlock(addr_of_mut!(text_mutex)) }
}

/// `lockdep_assert_held(&kprobe_mutex)` (the stubs' check: fatal if not held).
pub fn lockdep_assert_held_kprobe_mutex() {
    // SAFETY: a static mutex, only read.
    unsafe { kprobes_rust_lockdep_assert_held(addr_of_mut!(kprobe_mutex)) }
}

/// `lockdep_assert_held(&text_mutex)`.
pub fn lockdep_assert_held_text_mutex() {
    // SAFETY: a static mutex, only read.
    unsafe { kprobes_rust_lockdep_assert_held(addr_of_mut!(text_mutex)) }
}

/// `lockdep_assert_cpus_held()`.
pub fn lockdep_assert_cpus_held() {
    // SAFETY: model.c; no argument.
    unsafe { c_lockdep_assert_cpus_held() }
}

/// `cpus_read_lock()`.
pub fn cpus_read_lock() {
    // SAFETY: model.c; no argument.
    unsafe { c_cpus_read_lock() }
}

/// `cpus_read_unlock()`.
pub fn cpus_read_unlock() {
    // SAFETY: model.c; no argument.
    unsafe { c_cpus_read_unlock() }
}

/// `jump_label_lock()` (a function of the model, as upstream's file calls it).
pub fn jump_label_lock() {
    // SAFETY: model.c; no argument.
    unsafe { c_jump_label_lock() }
}

/// `jump_label_unlock()`.
pub fn jump_label_unlock() {
    // SAFETY: model.c; no argument.
    unsafe { c_jump_label_unlock() }
}

/// `mutex_lock()`.
///
/// # Safety
/// `m` points to an initialized mutex.
pub unsafe fn mutex_lock(m: *mut Mutex) {
    // SAFETY: the caller's contract.
    unsafe { c_mutex_lock(m) }
}

/// `mutex_unlock()`.
///
/// # Safety
/// The caller holds `m`.
pub unsafe fn mutex_unlock(m: *mut Mutex) {
    // SAFETY: the caller's contract.
    unsafe { c_mutex_unlock(m) }
}

/// `preempt_disable()` (model.c counts it).
pub fn preempt_disable() {
    // SAFETY: model.c; no argument.
    unsafe { c_preempt_disable() }
}

/// `preempt_enable()`.
pub fn preempt_enable() {
    // SAFETY: model.c; no argument.
    unsafe { c_preempt_enable() }
}

/// `rcu_read_lock()` (model.c counts the nesting).
pub fn rcu_read_lock() {
    // SAFETY: model.c; no argument.
    unsafe { c_rcu_read_lock() }
}

/// `rcu_read_unlock()`.
pub fn rcu_read_unlock() {
    // SAFETY: model.c; no argument.
    unsafe { c_rcu_read_unlock() }
}

/// `synchronize_rcu()`.
pub fn synchronize_rcu() {
    // SAFETY: model.c; no argument.
    unsafe { c_synchronize_rcu() }
}

/// `synchronize_rcu_expedited()`: the model has one kind of grace period
/// (model.c has no expedited one; upstream's file never asks for it), so
/// the same guarantee is the same event, `~synchronize_rcu`.
pub fn synchronize_rcu_expedited() {
    synchronize_rcu();
}

/// `synchronize_rcu_tasks()`.
pub fn synchronize_rcu_tasks() {
    // SAFETY: model.c; no argument.
    unsafe { c_synchronize_rcu_tasks() }
}

/// `__this_cpu_write(kprobe_instance, kp)` (rshim.c's variable).
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "stores the pointer value, never dereferences it"
)]
pub fn set_kprobe_instance(kp: *mut Kprobe) {
    // SAFETY: a C global; single-threaded model.
    unsafe { addr_of_mut!(kprobe_instance).write(kp) }
}

/// `__this_cpu_write(kprobe_instance, NULL)`.
pub fn reset_kprobe_instance() {
    set_kprobe_instance(null_mut());
}

/// `__this_cpu_write(current_kprobe, p)` (arch.c's variable).
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "stores the pointer value, never dereferences it"
)]
pub fn set_current_kprobe(p: *mut Kprobe) {
    // SAFETY: a C global; single-threaded model.
    unsafe { addr_of_mut!(current_kprobe).write(p) }
}

/// `__this_cpu_write(current_kprobe, NULL)`.
pub fn clear_current_kprobe() {
    set_current_kprobe(null_mut());
}

/// `get_kprobe_ctlblk()->kprobe_status = status` (arch.c's variable).
pub fn set_kprobe_status(status: c_ulong) {
    // SAFETY: a C global; single-threaded model.
    unsafe { addr_of_mut!(kprobe_ctlblk.kprobe_status).write(status) }
}

/// `get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE`.
pub fn set_kprobe_status_hit_active() {
    set_kprobe_status(KPROBE_HIT_ACTIVE);
}

/// `num_possible_cpus()`.
pub fn num_possible_cpus() -> c_uint {
    // SAFETY: rshim.c's wrapper of the stubs' macro.
    unsafe { kprobes_rust_num_possible_cpus() }
}

/// `cpu_relax()` (the stubs' macro: `hd_cpu_relax()`).
pub fn cpu_relax() {
    // SAFETY: model.c; no argument.
    unsafe { hd_cpu_relax() }
}

/// `schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY)`.
pub fn kick_optimizer() {
    // SAFETY: rshim.c's wrapper of its static work.
    unsafe { kprobes_rust_kick_optimizer() }
}

/// `flush_delayed_work(&optimizing_work)`.
pub fn flush_optimizer() {
    // SAFETY: rshim.c's wrapper of its static work.
    unsafe { kprobes_rust_flush_optimizer() }
}

// ---------------------------------------------------------------------------
// Memory.

/// `kmalloc(size, GFP_KERNEL)`.
pub fn kmalloc(size: usize) -> *mut c_void {
    // SAFETY: model.c's allocator.
    unsafe { c_kmalloc(size, 0) }
}

/// `kzalloc(size, GFP_KERNEL)`.
pub fn kzalloc(size: usize) -> *mut c_void {
    // SAFETY: model.c's allocator.
    unsafe { c_kzalloc(size, 0) }
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or came from [`kmalloc`] and is not used afterwards.
pub unsafe fn kfree(p: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { c_kfree(p) }
}

/// `table_size()`: model.c's `kmalloc()` gets what it is asked.
pub fn table_size(size: usize) -> usize {
    size
}

/// `table_alloc()` (model.c's `kmalloc()`).
pub fn table_alloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kvmalloc(size, GFP_KERNEL)` (model.c's `kmalloc()`).
pub fn kvmalloc(size: usize) -> *mut c_void {
    kmalloc(size)
}

/// `kvfree()`.
///
/// # Safety
/// `p` is null or came from [`kvmalloc`] and is not used afterwards.
pub unsafe fn kvfree(p: *mut c_void) {
    // SAFETY: `kvmalloc()` is model.c's `kmalloc()`; the rest is this
    // function's `# Safety`.
    unsafe { kfree(p) }
}

/// `kfree_rcu(ptr, rcu)` (the stubs' macro: `hd_kfree_rcu()`).
///
/// # Safety
/// `p` came from [`kmalloc`], [`kvmalloc`] or [`table_alloc`], `rcu` is its `rcu_head`, and `p` is no longer
/// reachable by new readers.
pub unsafe fn kfree_rcu(p: *mut c_void, rcu: *mut RcuHead) {
    // SAFETY: the caller's contract.
    unsafe { hd_kfree_rcu(p, rcu) }
}

// ---------------------------------------------------------------------------
// Messages.

/// `WARN_ON(1)` at the caller's location.
#[track_caller]
pub fn warn() {
    let loc = core::panic::Location::caller();
    warn_at(loc.file(), loc.line());
}

/// `WARN_ON(1)` at `file:line` (the core's `warn_once!`: every hit).
pub fn warn_at(file: &'static str, line: u32) {
    // SAFETY: `file` is valid for its length; the C side does not keep it.
    unsafe { kprobes_rust_warn(file.as_ptr().cast(), file.len() as c_int, line as c_int) }
}

/// `WARN(1, "Failed to unregister kprobe-ftrace (error %d)\n", ret)`.
pub fn warn_ftrace_unregister(ret: c_int) {
    // SAFETY: rshim.c's wrapper.
    unsafe { kprobes_rust_warn_ftrace_unregister(ret) }
}

/// `WARN_ONCE(1, "Failed to disarm kprobe-ftrace at %pS (error %d)\n", ...)`.
pub fn warn_once_ftrace_disarm(addr: *mut KprobeOpcode, ret: c_int) {
    // SAFETY: rshim.c's wrapper; `addr` is not dereferenced.
    unsafe { kprobes_rust_warn_ftrace_disarm(addr.cast(), ret) }
}

/// The `kp_pr!` messages: upstream's `pr_*()` of the same text (`pr_fmt`
/// is "kprobes: "), printed by model.c's printk.
pub fn pr_log(level: u8, args: core::fmt::Arguments<'_>) {
    let level: &core::ffi::CStr = match level {
        0..=3 => c"err",
        4 => c"warn",
        _ => c"info",
    };
    let msg = std::ffi::CString::new(format!("kprobes: {args}")).unwrap_or_default();
    // SAFETY: C strings; the format takes one string.
    unsafe { hd_printk(level.as_ptr().cast(), c"%s".as_ptr().cast(), msg.as_ptr()) }
}

/// `printk(fmt, s)`: `fmt` starts with a `KERN_<level>` and has one `%s`.
///
/// # Safety
/// `s` is a C string.
pub unsafe fn printk_s(fmt: &core::ffi::CStr, s: *const c_char) {
    let b = fmt.to_bytes_with_nul();
    let (level, skip): (&core::ffi::CStr, usize) = match b {
        [1, b'0'..=b'3', ..] => (c"err", 2),
        [1, b'4', ..] => (c"warn", 2),
        [1, _, ..] => (c"info", 2),
        _ => (c"info", 0),
    };
    // SAFETY: the rest of `fmt` is a C string with one `%s`; `s` is a C string.
    unsafe { hd_printk(level.as_ptr().cast(), b[skip..].as_ptr().cast(), s) }
}

/// `pr_err("Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n", ...)`.
///
/// # Safety
/// `sym` is null or a C string.
pub unsafe fn pr_err_dump_kprobe(sym: *const c_char, offset: c_uint, addr: *mut KprobeOpcode) {
    // SAFETY: the format matches the arguments, as upstream's in model.c's
    // printk (the host's vsnprintf()).
    unsafe {
        hd_printk(
            c"err".as_ptr().cast(),
            c"kprobes: Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n"
                .as_ptr()
                .cast(),
            sym,
            offset,
            addr,
        )
    }
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
    // SAFETY: the caller's contract.
    unsafe { c_perf_event_ksymbol(ksym_type, addr, len, unregister, sym) }
}

// ---------------------------------------------------------------------------
// kallsyms, text classification, sections.

/// `kernel_text_address()`.
pub fn kernel_text_address(addr: usize) -> bool {
    // SAFETY: model.c; a value.
    unsafe { c_kernel_text_address(addr as c_ulong) != 0 }
}

/// `core_kernel_text()`.
pub fn core_kernel_text(addr: usize) -> bool {
    // SAFETY: model.c; a value.
    unsafe { c_core_kernel_text(addr as c_ulong) != 0 }
}

/// `kallsyms_lookup_size_offset()`.
pub fn kallsyms_lookup_size_offset(addr: usize, size: &mut usize, offset: &mut usize) -> bool {
    let (mut s, mut o): (c_ulong, c_ulong) = (0, 0);
    // SAFETY: valid out pointers.
    let r = unsafe { c_kallsyms_lookup_size_offset(addr as c_ulong, &mut s, &mut o) } != 0;
    *size = s as usize;
    *offset = o as usize;
    r
}

/// `lookup_symbol_name()`.
///
/// # Safety
/// `buf` is valid for `KSYM_NAME_LEN` bytes.
pub unsafe fn lookup_symbol_name(addr: usize, buf: *mut c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_lookup_symbol_name(addr as c_ulong, buf) }
}

/// `kallsyms_lookup(addr, NULL, &offset, &modname, namebuf)`.
///
/// # Safety
/// `namebuf` has `KSYM_NAME_LEN` bytes.
pub unsafe fn kallsyms_lookup(
    addr: usize,
    offset: &mut c_ulong,
    modname: &mut *mut c_char,
    namebuf: *mut c_char,
) -> *const c_char {
    // SAFETY: the caller's contract; valid out pointers.
    unsafe { c_kallsyms_lookup(addr as c_ulong, null_mut(), offset, modname, namebuf) }
}

/// `kprobe_lookup_name()` (rshim.c has upstream's weak default).
///
/// # Safety
/// `name` is NUL-terminated.
pub unsafe fn kprobe_lookup_name(name: *const c_char, offset: u32) -> *mut KprobeOpcode {
    // SAFETY: the caller's contract.
    unsafe { c_kprobe_lookup_name(name, offset) }
}

/// `arch_adjust_kprobe_addr()` (rshim.c has upstream's weak default).
pub fn arch_adjust_kprobe_addr(
    addr: usize,
    offset: usize,
    on_func_entry: &mut bool,
) -> *mut KprobeOpcode {
    // SAFETY: a valid out pointer.
    unsafe { c_arch_adjust_kprobe_addr(addr as c_ulong, offset as c_ulong, on_func_entry) }
}

/// `arch_within_kprobe_blacklist()` (rshim.c has upstream's weak default).
pub fn arch_within_kprobe_blacklist(addr: usize) -> bool {
    // SAFETY: a value.
    unsafe { c_arch_within_kprobe_blacklist(addr as c_ulong) }
}

/// `arch_populate_kprobe_blacklist()` (arch.c).
pub fn arch_populate_kprobe_blacklist() -> c_int {
    // SAFETY: at init, as upstream.
    unsafe { c_arch_populate_kprobe_blacklist() }
}

/// `arch_kprobe_get_kallsym()` (rshim.c has upstream's weak default).
///
/// # Safety
/// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
pub unsafe fn arch_kprobe_get_kallsym(
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_arch_kprobe_get_kallsym(symnum, value, type_, sym) }
}

/// `dereference_symbol_descriptor()` (the stubs' macro).
pub fn dereference_symbol_descriptor(p: usize) -> usize {
    // SAFETY: a value.
    unsafe { kprobes_rust_dereference_symbol_descriptor(p as *mut c_void) as usize }
}

/// `ftrace_location()`.
pub fn ftrace_location(addr: usize) -> usize {
    // SAFETY: a value.
    unsafe { c_ftrace_location(addr as c_ulong) as usize }
}

/// `in_gate_area_no_mm()`.
pub fn in_gate_area_no_mm(addr: usize) -> bool {
    // SAFETY: a value.
    unsafe { c_in_gate_area_no_mm(addr as c_ulong) != 0 }
}

/// `jump_label_text_reserved(start, end)`.
pub fn jump_label_text_reserved(start: usize, end: usize) -> bool {
    // SAFETY: the pointers are only compared.
    unsafe { c_jump_label_text_reserved(start as *mut c_void, end as *mut c_void) != 0 }
}

/// `static_call_text_reserved(start, end)`.
pub fn static_call_text_reserved(start: usize, end: usize) -> bool {
    // SAFETY: the pointers are only compared.
    unsafe { c_static_call_text_reserved(start as *mut c_void, end as *mut c_void) != 0 }
}

/// `find_bug()`: is there a BUG() site at `addr`?
pub fn find_bug(addr: usize) -> bool {
    // SAFETY: a value; the result is only tested for null.
    unsafe { !c_find_bug(addr as c_ulong).is_null() }
}

/// `__kprobes_text_start/end` (the stubs' macros over `hd_sec`).
pub fn kprobes_text_area() -> (usize, usize) {
    // SAFETY: model.c's constant data.
    unsafe { (hd_sec.kprobes_start as usize, hd_sec.kprobes_end as usize) }
}

/// `__noinstr_text_start/end`.
pub fn noinstr_text_area() -> (usize, usize) {
    // SAFETY: model.c's constant data.
    unsafe { (hd_sec.noinstr_start as usize, hd_sec.noinstr_end as usize) }
}

/// `[__init_begin, __init_end)`.
pub fn init_area() -> (usize, usize) {
    // SAFETY: model.c's constant data.
    unsafe { (hd_sec.init_begin as usize, hd_sec.init_end as usize) }
}

/// `__start_kprobe_blacklist`.
pub fn kprobe_blacklist_start() -> *const c_ulong {
    // Only the address is taken.
    addr_of!(hd_kprobe_blacklist_syms).cast()
}

/// `__stop_kprobe_blacklist`.
pub fn kprobe_blacklist_end() -> *const c_ulong {
    // SAFETY: model.c's array and its constant length.
    unsafe { kprobe_blacklist_start().add(hd_kprobe_blacklist_nr as usize) }
}

/// The arch's `kretprobe_blacklist`, or null if it is empty.
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    // SAFETY: model.c's constant.
    if unsafe { kretprobe_blacklist_size } == 0 {
        return null_mut();
    }
    // Only the address is taken.
    addr_of_mut!(c_kretprobe_blacklist).cast()
}

// ---------------------------------------------------------------------------
// Modules.

pub use crate::types::ModuleAreas;

/// `__module_text_address()`.
pub fn module_text_address(addr: usize) -> *mut Module {
    // SAFETY: a value.
    unsafe { __module_text_address(addr as c_ulong) }
}

/// `try_module_get()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn try_module_get(m: *mut Module) -> bool {
    // SAFETY: `m` is the model's module.
    unsafe { c_try_module_get(m) }
}

/// `module_put()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn module_put(m: *mut Module) {
    // SAFETY: a reference taken with try_module_get().
    unsafe { c_module_put(m) }
}

/// `within_module_init()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_init(addr: usize, m: *mut Module) -> bool {
    // SAFETY: `m` is the model's module.
    unsafe { c_within_module_init(addr as c_ulong, m) }
}

/// `within_module_core()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn within_module_core(addr: usize, m: *mut Module) -> bool {
    // SAFETY: `m` is the model's module.
    unsafe { c_within_module_core(addr as c_ulong, m) }
}

/// `module_is_coming()` (a static inline of the stubs).
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
pub unsafe fn module_is_coming(m: *mut Module) -> bool {
    // SAFETY: `m` is the model's module.
    unsafe { kprobes_rust_module_is_coming(m) }
}

/// Reads a module's blacklist areas.
///
/// # Safety
/// `m` is a live module.
pub unsafe fn module_areas<'a>(m: *mut Module) -> ModuleAreas<'a> {
    // SAFETY: `m` is live (caller); `kprobe_blacklist` has
    // `num_kprobe_blacklist` entries when non-null.
    unsafe {
        let bl = (*m).kprobe_blacklist;
        let ksyms = if bl.is_null() {
            &[][..]
        } else {
            core::slice::from_raw_parts(bl as *const usize, (*m).num_kprobe_blacklist as usize)
        };
        ModuleAreas {
            ksyms,
            kprobes_text: (
                (*m).kprobes_text_start as usize,
                (*m).kprobes_text_size as usize,
            ),
            noinstr_text: (
                (*m).noinstr_text_start as usize,
                (*m).noinstr_text_size as usize,
            ),
        }
    }
}

/// `register_die_notifier(&kprobe_exceptions_nb)` (rshim.c's block).
pub fn register_die_notifier() -> c_int {
    // SAFETY: once, at init.
    unsafe { kprobes_rust_register_die_notifier() }
}

/// `register_module_notifier(&kprobe_module_nb)` (rshim.c's block).
pub fn register_module_notifier() -> c_int {
    // SAFETY: once, at init.
    unsafe { kprobes_rust_register_module_notifier() }
}

/// `kprobe_sysctls_init()` (rshim.c's table).
pub fn kprobe_sysctls_init() {
    // SAFETY: once, at init.
    unsafe { kprobes_rust_sysctls_init() }
}

// ---------------------------------------------------------------------------
// The arch layer (arch.c) and the insn caches (rshim.c).

/// `&kprobe_insn_slots`.
pub fn insn_slots() -> *mut KprobeInsnCache {
    // Only the address is taken.
    addr_of_mut!(kprobe_insn_slots)
}

/// `&kprobe_optinsn_slots`.
pub fn optinsn_slots() -> *mut KprobeInsnCache {
    // Only the address is taken.
    addr_of_mut!(kprobe_optinsn_slots)
}

/// `MAX_OPTINSN_SIZE`.
pub fn max_optinsn_size() -> usize {
    // SAFETY: rshim.c returns the constant.
    unsafe { kprobes_rust_max_optinsn_size() }
}

/// `arch_init_kprobes()`.
pub fn arch_init_kprobes() -> c_int {
    // SAFETY: once, at init.
    unsafe { c_arch_init_kprobes() }
}

/// `arch_prepare_kprobe()`.
///
/// # Safety
/// `p` is live; `text_mutex` held.
pub unsafe fn arch_prepare_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_arch_prepare_kprobe(p) }
}

/// `arch_prepare_kprobe_ftrace()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_arch_prepare_kprobe_ftrace(p) }
}

/// `arch_arm_kprobe()`.
///
/// # Safety
/// `p` is prepared; `text_mutex` held.
pub unsafe fn arch_arm_kprobe(p: *mut Kprobe) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_arm_kprobe(p) }
}

/// `arch_disarm_kprobe()`.
///
/// # Safety
/// `p` is armed; `text_mutex` held.
pub unsafe fn arch_disarm_kprobe(p: *mut Kprobe) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_disarm_kprobe(p) }
}

/// `arch_remove_kprobe()`.
///
/// # Safety
/// `p` is prepared and not armed.
pub unsafe fn arch_remove_kprobe(p: *mut Kprobe) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_remove_kprobe(p) }
}

/// `arch_trampoline_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_trampoline_kprobe(p: *mut Kprobe) -> bool {
    // SAFETY: the caller's contract.
    unsafe { c_arch_trampoline_kprobe(p) != 0 }
}

/// `arch_prepare_optimized_kprobe()`.
///
/// # Safety
/// `op`, `orig` live; `text_mutex` held.
pub unsafe fn arch_prepare_optimized_kprobe(op: *mut OptimizedKprobe, orig: *mut Kprobe) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_arch_prepare_optimized_kprobe(op, orig) }
}

/// `arch_prepared_optinsn(&op->optinsn)` (a static inline of the stubs).
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_prepared_optinsn(op: *mut OptimizedKprobe) -> bool {
    // SAFETY: `op` is live (`# Safety`): `size` is read through a raw pointer.
    unsafe { core::ptr::addr_of!((*op).optinsn.size).read() != 0 }
}

/// `arch_check_optimized_kprobe()`.
///
/// # Safety
/// `op` is live; `kprobe_mutex` held.
pub unsafe fn arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_arch_check_optimized_kprobe(op) }
}

/// `arch_within_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_within_optimized_kprobe(
    op: *mut OptimizedKprobe,
    addr: *mut KprobeOpcode,
) -> bool {
    // SAFETY: the caller's contract.
    unsafe { c_arch_within_optimized_kprobe(op, addr) != 0 }
}

/// `arch_remove_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_remove_optimized_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_remove_optimized_kprobe(op) }
}

/// `arch_optimize_kprobes()`.
///
/// # Safety
/// The optimizer's locks are held; `list` holds optimized_kprobes.
pub unsafe fn arch_optimize_kprobes(list: *mut ListHead) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_optimize_kprobes(list) }
}

/// `arch_unoptimize_kprobes()`.
///
/// # Safety
/// As for [`arch_optimize_kprobes`]; `done` is a live list head.
pub unsafe fn arch_unoptimize_kprobes(list: *mut ListHead, done: *mut ListHead) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_unoptimize_kprobes(list, done) }
}

/// `arch_unoptimize_kprobe()`.
///
/// # Safety
/// `op` is optimized; `text_mutex` and the CPU hotplug lock held.
pub unsafe fn arch_unoptimize_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: the caller's contract.
    unsafe { c_arch_unoptimize_kprobe(op) }
}

// ---------------------------------------------------------------------------
// ftrace (rshim.c's two ops, model.c's ftrace).

/// `ftrace_set_filter_ip(ops, ip, remove, 0)` on `kprobe_ipmodify_ops`
/// (`ipmodify`) or `kprobe_ftrace_ops`.
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    // SAFETY: rshim.c's static ops.
    unsafe {
        c_ftrace_set_filter_ip(
            kprobes_rust_ftrace_ops(ipmodify),
            ip as c_ulong,
            remove as c_int,
            0,
        )
    }
}

/// `ftrace_set_filter_ips(ops, ips, cnt, remove, 0)` on one of the two
/// ops.
pub fn ftrace_set_filter_ips(ipmodify: bool, ips: &[usize], remove: bool) -> c_int {
    // SAFETY: rshim.c's static ops; model.c only reads the `ips.len()`
    // addresses.
    unsafe {
        c_ftrace_set_filter_ips(
            kprobes_rust_ftrace_ops(ipmodify),
            ips.as_ptr().cast_mut().cast::<c_ulong>(),
            ips.len() as c_uint,
            remove as c_int,
            0,
        )
    }
}

/// `register_ftrace_function()` of one of the two ops.
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    // SAFETY: rshim.c's static ops.
    unsafe { c_register_ftrace_function(kprobes_rust_ftrace_ops(ipmodify)) }
}

/// `unregister_ftrace_function()` of one of the two ops.
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    // SAFETY: rshim.c's static ops.
    unsafe { c_unregister_ftrace_function(kprobes_rust_ftrace_ops(ipmodify)) }
}

// ---------------------------------------------------------------------------
// rethook (model.c).

/// `rethook_alloc()`: a rethook or an `ERR_PTR`.
///
/// # Safety
/// `data` outlives the rethook.
pub unsafe fn rethook_alloc(
    data: *mut c_void,
    handler: unsafe extern "C" fn(*mut RethookNode, *mut c_void, c_ulong, *mut PtRegs),
    size: c_int,
    num: c_int,
) -> *mut Rethook {
    // SAFETY: the caller's contract.
    unsafe { c_rethook_alloc(data, Some(handler), size, num) }
}

/// `rethook_free()`.
///
/// # Safety
/// `rh` came from [`rethook_alloc`] and is freed once.
pub unsafe fn rethook_free(rh: *mut Rethook) {
    // SAFETY: the caller's contract.
    unsafe { c_rethook_free(rh) }
}

/// `rethook_try_get()`.
///
/// # Safety
/// Handler context; `rh` is live.
pub unsafe fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: the caller's contract.
    unsafe { c_rethook_try_get(rh) }
}

/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`] and was not hooked.
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: the caller's contract.
    unsafe { c_rethook_recycle(n) }
}

/// `rethook_hook()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`]; `regs` are the probed context's.
pub unsafe fn rethook_hook(n: *mut RethookNode, regs: *mut PtRegs, mcount: bool) {
    // SAFETY: the caller's contract.
    unsafe { c_rethook_hook(n, regs, mcount) }
}

// ---------------------------------------------------------------------------
// seq_file, debugfs, sysctl (model.c).

/// `kallsyms_show_value(m->file->f_cred)`.
///
/// # Safety
/// `m` is a seq_file being shown.
pub unsafe fn seq_show_value(m: *mut SeqFile) -> bool {
    // SAFETY: the caller's contract.
    unsafe { kprobes_rust_seq_show_value(m) }
}

/// `seq_printf(pi, "%px  %s  %s+0x%x  %s ", ...)` (upstream's format).
///
/// # Safety
/// `pi` is being shown; the strings are C strings.
pub unsafe fn seq_report_sym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    sym: *const c_char,
    offset: u32,
    modname: *const c_char,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe {
        seq_printf(
            pi,
            c"%px  %s  %s+0x%x  %s ".as_ptr().cast(),
            addr,
            ty,
            sym,
            offset,
            modname,
        )
    }
}

/// `seq_printf(pi, "%px  %s  %pS ", ...)` (upstream's format).
///
/// # Safety
/// `pi` is being shown; `ty` is a C string.
pub unsafe fn seq_report_nosym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    paddr: *mut c_void,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe { seq_printf(pi, c"%px  %s  %pS ".as_ptr().cast(), addr, ty, paddr) }
}

/// `seq_printf(pi, "%s%s%s%s\n", ...)` (upstream's format).
///
/// # Safety
/// `pi` is being shown; the strings are C strings.
pub unsafe fn seq_report_flags(
    pi: *mut SeqFile,
    a: *const c_char,
    b: *const c_char,
    c: *const c_char,
    d: *const c_char,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe { seq_printf(pi, c"%s%s%s%s\n".as_ptr().cast(), a, b, c, d) }
}

/// `seq_printf(m, "0x%px-0x%px\t%ps\n", ...)` (upstream's format).
///
/// # Safety
/// `m` is being shown.
pub unsafe fn seq_blacklist_line(
    m: *mut SeqFile,
    start: *mut c_void,
    end: *mut c_void,
    sym: *mut c_void,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe { seq_printf(m, c"0x%px-0x%px\t%ps\n".as_ptr().cast(), start, end, sym) }
}

/// `seq_list_start()`.
///
/// # Safety
/// `head` is a list stable for the seq walk.
pub unsafe fn seq_list_start(head: *mut ListHead, pos: i64) -> *mut c_void {
    // SAFETY: the caller's contract.
    unsafe { c_seq_list_start(head, pos).cast() }
}

/// `seq_list_next()`.
///
/// # Safety
/// As for [`seq_list_start`]; `v` is the last entry returned on `head`.
pub unsafe fn seq_list_next(v: *mut c_void, head: *mut ListHead, pos: *mut i64) -> *mut c_void {
    // SAFETY: the caller's contract.
    unsafe { c_seq_list_next(v, head, pos).cast() }
}

/// `simple_read_from_buffer()`.
///
/// # Safety
/// `to` has `count` bytes, `from` has `available` bytes, `ppos` is valid.
pub unsafe fn simple_read_from_buffer(
    to: *mut c_void,
    count: usize,
    ppos: *mut i64,
    from: *const c_void,
    available: usize,
) -> isize {
    // SAFETY: the caller's contract.
    unsafe { c_simple_read_from_buffer(to, count, ppos, from, available) }
}

/// `kstrtobool_from_user()`.
///
/// # Safety
/// `s` has `count` bytes.
pub unsafe fn kstrtobool_from_user(s: *const c_char, count: usize, res: &mut bool) -> c_int {
    // SAFETY: the caller's contract; a valid out pointer.
    unsafe { c_kstrtobool_from_user(s, count, res) }
}

/// `proc_dointvec_minmax()`.
///
/// # Safety
/// The arguments the sysctl core passed to a `proc_handler`.
pub unsafe fn proc_dointvec_minmax(
    table: *const CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    ppos: *mut i64,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { c_proc_dointvec_minmax(table, write, buffer, length, ppos) }
}
