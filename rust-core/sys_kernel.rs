// SPDX-License-Identifier: GPL-2.0

//! Kernel services used by the core, kernel build.
//!
//! This module and `host/sim.rs` (the host build's simulated kernel) offer
//! the same functions with the same signatures; the rest of the crate only
//! calls through them.  Functions come from the bindgen'd `kernel::bindings`
//! (prototypes checked by construction) or, for static inlines, from the C
//! shim's wrappers (`c-shim/kprobes_shim.c`; cbindgen writes the
//! declarations below into `c-shim/kprobes_rust.h`, which the shim
//! includes, so both sides are checked against each other).

use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
#[cfg(CONFIG_OPTPROBES)]
pub use crate::ktypes::ArchOptimizedInsn;
pub use crate::ktypes::{ArchSpecificInsn, Mutex, PtRegs, Rethook, RethookNode};
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, RcuHead};
use core::alloc::Layout;
use kernel::alloc::allocator::{KVmalloc, Kmalloc, Vmalloc};
use kernel::alloc::flags::{__GFP_ZERO, GFP_KERNEL};
use kernel::alloc::{Allocator, Flags};
use kernel::bindings as b;

// The architecture's part (arch/ARCH/sys.rs).
pub use crate::arch_sys::*;
pub use crate::tree::{mutex_lock, mutex_unlock, synchronize_rcu};

/// `PAGE_SIZE`.
pub const PAGE_SIZE: usize = kernel::page::PAGE_SIZE;
/// `KSYM_NAME_LEN`.
pub const KSYM_NAME_LEN: usize = b::KSYM_NAME_LEN as usize;

// `struct module` is only passed by pointer (it holds a zero-size lockdep
// map that the lint flags).
#[allow(improper_ctypes)]
extern "C" {
    static __kprobes_text_start: [u8; 0];
    static __kprobes_text_end: [u8; 0];
    static __noinstr_text_start: [u8; 0];
    static __noinstr_text_end: [u8; 0];
    fn kprobes_rust_dereference_symbol_descriptor(p: *mut c_void) -> *mut c_void;
    #[cfg(CONFIG_PREEMPT_COUNT)]
    fn kprobes_rust_preempt_disable();
    #[cfg(CONFIG_PREEMPT_COUNT)]
    fn kprobes_rust_preempt_enable();
    #[cfg(CONFIG_JUMP_LABEL)]
    fn kprobes_rust_jump_label_lock();
    #[cfg(CONFIG_JUMP_LABEL)]
    fn kprobes_rust_jump_label_unlock();
    fn kprobes_rust_jump_label_text_reserved(start: *mut c_void, end: *mut c_void) -> c_int;
    fn kprobes_rust_in_gate_area_no_mm(addr: c_ulong) -> c_int;
    #[cfg(CONFIG_MODULES)]
    fn kprobes_rust_within_module_init(addr: c_ulong, module: *mut Module) -> bool;
    #[cfg(CONFIG_MODULES)]
    fn kprobes_rust_module_is_coming(module: *mut Module) -> bool;
    fn kprobes_rust_seq_show_value(m: *mut SeqFile) -> bool;
    #[cfg(any(CONFIG_PREEMPT_RCU, CONFIG_PREEMPT_COUNT, CONFIG_DEBUG_LOCK_ALLOC))]
    fn kprobes_rust_rcu_read_lock();
    #[cfg(any(CONFIG_PREEMPT_RCU, CONFIG_PREEMPT_COUNT, CONFIG_DEBUG_LOCK_ALLOC))]
    fn kprobes_rust_rcu_read_unlock();
    fn kprobes_rust_warn(file: *const c_char, len: c_int, line: c_int);
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_synchronize_rcu_tasks();
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_kick_optimizer();
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_wait_optimizer_pass();
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_optimizer_pass_done();
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_optimizer_sleep() -> bool;
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_start_optimizer();
    fn kprobes_rust_num_possible_cpus() -> c_uint;
    #[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
    fn kprobes_rust_kretprobe_no_ret_addr();
    #[cfg(CONFIG_MODULES)]
    fn kprobes_rust_within_module_core(addr: c_ulong, module: *mut Module) -> bool;
    #[cfg(CONFIG_KPROBES_ON_FTRACE)]
    fn kprobes_rust_ftrace_ops(ipmodify: bool) -> *mut b::ftrace_ops;
    #[cfg(CONFIG_KPROBES_ON_FTRACE)]
    fn kprobes_rust_warn_ftrace_unregister(ret: c_int);
    #[cfg(CONFIG_KPROBES_ON_FTRACE)]
    fn kprobes_rust_warn_ftrace_disarm(addr: *mut c_void, ret: c_int);
    fn kprobes_rust_register_die_notifier() -> c_int;
    #[cfg(CONFIG_MODULES)]
    fn kprobes_rust_register_module_notifier() -> c_int;
    #[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
    fn kprobes_rust_sysctls_init();
    #[cfg(all(CONFIG_TINY_RCU, not(CONFIG_KASAN_GENERIC)))]
    fn kprobes_rust_kvfree_call_rcu(head: *mut RcuHead, p: *mut c_void);
    #[cfg(CONFIG_OPTPROBES)]
    fn kprobes_rust_max_optinsn_size() -> usize;
    static __init_begin: [u8; 0];
    static __init_end: [u8; 0];
    // `kprobe_mutex` is C data (c-shim/kprobes_shim.c: its initializer
    // depends on the lock debugging options); `text_mutex` is the kernel's
    // (include/linux/memory.h).  Locked directly, as kprobes.c does, not
    // through shim wrappers (an extra call on every (un)registration,
    // enable and disable).
    static mut kprobe_mutex: b::mutex;
    static mut text_mutex: b::mutex;
    // The optimization sysctl's mutex (c-shim/kprobes_shim.c).
    #[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
    static mut kprobe_sysctl_mutex: b::mutex;
}

/// `mutex_lock(&kprobe_mutex)` (the mutex is C data: its initializer
/// depends on the lock debugging options).
#[inline]
pub fn kprobe_mutex_lock() {
    // SAFETY: a static, initialized mutex (`mutex_lock()` may sleep, which
    // `might_sleep()` checks; memory safety does not depend on the context).
    unsafe { mutex_lock(&raw mut kprobe_mutex) }
}

/// `mutex_unlock(&kprobe_mutex)`.
///
/// # Safety
/// The current task holds `kprobe_mutex` (taken with `kprobe_mutex_lock()`).
#[inline]
pub unsafe fn kprobe_mutex_unlock() {
    // SAFETY: the current task holds `kprobe_mutex` (this function's `# Safety`).
    unsafe { mutex_unlock(&raw mut kprobe_mutex) }
}

/// `mutex_lock(&kprobe_sysctl_mutex)`.
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
#[inline]
pub fn sysctl_mutex_lock() {
    // SAFETY: a static, initialized mutex (`mutex_lock()` may sleep, which
    // `might_sleep()` checks; memory safety does not depend on the context).
    unsafe { mutex_lock(&raw mut kprobe_sysctl_mutex) }
}

/// `mutex_unlock(&kprobe_sysctl_mutex)`.
///
/// # Safety
/// The current task holds `kprobe_sysctl_mutex` (taken with `sysctl_mutex_lock()`).
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
#[inline]
pub unsafe fn sysctl_mutex_unlock() {
    // SAFETY: the current task holds `kprobe_sysctl_mutex` (this function's `# Safety`).
    unsafe { mutex_unlock(&raw mut kprobe_sysctl_mutex) }
}

/// `mutex_lock(&text_mutex)`.
#[inline]
pub fn text_mutex_lock() {
    // SAFETY: a static, initialized mutex; process context.
    unsafe { mutex_lock(&raw mut text_mutex) }
}

/// `mutex_unlock(&text_mutex)`.
///
/// # Safety
/// The current task holds `text_mutex` (taken with `text_mutex_lock()`).
#[inline]
pub unsafe fn text_mutex_unlock() {
    // SAFETY: the current task holds `text_mutex` (this function's `# Safety`).
    unsafe { mutex_unlock(&raw mut text_mutex) }
}

/// `lockdep_assert_held(m)`: with lockdep, `WARN_ON(debug_locks &&
/// !lockdep_is_held(m))`.
#[cfg(CONFIG_LOCKDEP)]
#[track_caller]
#[inline]
fn lockdep_assert_held(m: *mut Mutex) {
    // SAFETY: `m` is a static, initialized mutex (its `dep_map` exists with
    // lockdep); lock_is_held_type() only reads the current task's held locks.
    let held = unsafe { b::lock_is_held_type(core::ptr::addr_of!((*m).dep_map), -1) };
    // SAFETY: `debug_locks` is an int that lockdep clears once; a racy read
    // sees either value, as in C.
    if held == 0 && unsafe { core::ptr::read_volatile(&raw const b::debug_locks) } != 0 {
        warn();
    }
}

/// `lockdep_assert_held(&kprobe_mutex)` (nothing without lockdep).
#[track_caller]
#[inline(always)]
pub fn lockdep_assert_held_kprobe_mutex() {
    #[cfg(CONFIG_LOCKDEP)]
    lockdep_assert_held(core::ptr::addr_of_mut!(kprobe_mutex));
}

/// `lockdep_assert_held(&text_mutex)` (nothing without lockdep).
#[track_caller]
#[inline(always)]
pub fn lockdep_assert_held_text_mutex() {
    #[cfg(CONFIG_LOCKDEP)]
    lockdep_assert_held(core::ptr::addr_of_mut!(text_mutex));
}

/// `lockdep_assert_cpus_held()`: a function of kernel/cpu.c with CPU
/// hotplug (it checks only with lockdep), an empty inline without.
#[inline(always)]
pub fn lockdep_assert_cpus_held() {
    // SAFETY: `lockdep_assert_cpus_held()` takes no argument; it only checks (with
    // lockdep) that the current task holds the CPU hotplug lock.
    #[cfg(CONFIG_HOTPLUG_CPU)]
    unsafe {
        b::lockdep_assert_cpus_held()
    }
}

/// `cpus_read_lock()`.
#[inline]
pub fn cpus_read_lock() {
    // SAFETY: process context.  Without CONFIG_HOTPLUG_CPU it is an empty
    // static inline in C.
    #[cfg(CONFIG_HOTPLUG_CPU)]
    unsafe {
        b::cpus_read_lock()
    }
}

/// `cpus_read_unlock()`.
///
/// # Safety
/// The current task holds the CPU hotplug lock for reading (taken with
/// `cpus_read_lock()`).
#[inline]
pub unsafe fn cpus_read_unlock() {
    // SAFETY: the current task holds the lock (this function's `# Safety`).
    #[cfg(CONFIG_HOTPLUG_CPU)]
    unsafe {
        b::cpus_read_unlock()
    }
}

#[cfg(CONFIG_OPTPROBES)]
/// `synchronize_rcu_tasks()`.
#[inline]
pub fn synchronize_rcu_tasks() {
    // SAFETY: process context.
    unsafe { kprobes_rust_synchronize_rcu_tasks() }
}

// The jump optimizer's driver: mainline's kthread or 6.12's delayed work
// (c-shim/tree_*.c), which runs `kprobes_rust_optimizer_work()` or
// `kprobes_rust_optimizer_thread()`.

#[cfg(CONFIG_OPTPROBES)]
/// `kick_kprobe_optimizer()`: a pass within `OPTIMIZE_DELAY`; under
/// `kprobe_mutex`.
#[inline]
pub fn kick_optimizer() {
    // SAFETY: the shim's driver is statically initialized and may be kicked
    // in any context (mainline's checks `kprobe_mutex` with lockdep only).
    unsafe { kprobes_rust_kick_optimizer() }
}

#[cfg(CONFIG_OPTPROBES)]
/// One round of `wait_for_kprobe_optimizer()`: sleeps until the optimizer
/// has run, with `kprobe_mutex` released meanwhile.
///
/// # Safety
/// The current task holds `kprobe_mutex`, and nothing it read under the
/// mutex is used after the call without being read again.
#[inline]
pub unsafe fn wait_optimizer_pass() {
    // SAFETY: process context, `kprobe_mutex` held (this function's
    // `# Safety`); it is held again on return.
    unsafe { kprobes_rust_wait_optimizer_pass() }
}

#[cfg(CONFIG_OPTPROBES)]
/// The end of an optimizer pass, under `kprobe_mutex`: wakes the tasks
/// waiting for one.
#[inline]
pub fn optimizer_pass_done() {
    // SAFETY: called by the optimizer with `kprobe_mutex` held, which guards
    // the shim's pass count.
    unsafe { kprobes_rust_optimizer_pass_done() }
}

#[cfg(CONFIG_OPTPROBES)]
/// The optimizer thread's sleep until it is kicked or flushed; false when
/// it is to stop.
#[inline]
pub fn optimizer_sleep() -> bool {
    // SAFETY: called by the optimizer thread only, in process context.
    unsafe { kprobes_rust_optimizer_sleep() }
}

#[cfg(CONFIG_OPTPROBES)]
/// Starts the optimizer's thread, where there is one (boot).
///
/// # Safety
/// Called once, at boot (`init_kprobes()`).
#[inline]
pub unsafe fn start_optimizer() {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { kprobes_rust_start_optimizer() }
}

/// `num_possible_cpus()`.
#[inline]
pub fn num_possible_cpus() -> c_uint {
    // SAFETY: the shim's wrapper takes no argument and only reads
    // `cpu_possible_mask`, which is fixed before any initcall runs.
    unsafe { kprobes_rust_num_possible_cpus() }
}

/// `within_module_core()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
#[cfg(CONFIG_MODULES)]
#[inline]
pub unsafe fn within_module_core(addr: usize, m: *mut Module) -> bool {
    // SAFETY: callers pass a live module.
    unsafe { kprobes_rust_within_module_core(addr as c_ulong, m) }
}

/// `[__init_begin, __init_end)`: the kernel's init memory.
#[inline]
pub fn init_area() -> (usize, usize) {
    // Linker symbols: only their addresses are taken.
    (
        core::ptr::addr_of!(__init_begin) as usize,
        core::ptr::addr_of!(__init_end) as usize,
    )
}

/// `__start_kprobe_blacklist`.
#[inline(always)]
pub fn kprobe_blacklist_start() -> *const c_ulong {
    (&raw const b::__start_kprobe_blacklist).cast()
}

/// `__stop_kprobe_blacklist`.
#[inline(always)]
pub fn kprobe_blacklist_end() -> *const c_ulong {
    (&raw const b::__stop_kprobe_blacklist).cast()
}

/// `struct ctl_table`.
pub type CtlTable = b::ctl_table;
/// `struct file`.
pub type File = b::file;

#[cfg(CONFIG_OPTPROBES)]
use crate::types::OptimizedKprobe;

#[cfg(CONFIG_OPTPROBES)]
/// `MAX_OPTINSN_SIZE` (x86: computed from the optprobe template's symbols).
#[inline]
pub fn max_optinsn_size() -> usize {
    // SAFETY: the shim's wrapper takes no argument and returns the constant
    // `MAX_OPTINSN_SIZE`.
    unsafe { kprobes_rust_max_optinsn_size() }
}

/// `arch_prepare_kprobe()`.
///
/// # Safety
/// `p` is live; `text_mutex` held; process context (it may sleep).
#[inline]
pub unsafe fn arch_prepare_kprobe(p: *mut Kprobe) -> c_int {
    // The arch's `arch_prepare_kprobe()` (x86's, arm64's) reads the instruction
    // at `p->addr`, takes an instruction slot (`get_insn_slot()`: a mutex and
    // maybe an allocation, so it may sleep) and fills `p->opcode`, `p->ainsn`.
    // SAFETY: `p` is live and `text_mutex` is held, in process context (this
    // function's `# Safety`); `Kprobe` has `struct kprobe`'s layout (types.rs).
    unsafe { b::arch_prepare_kprobe(p.cast()) }
}

/// `arch_prepare_kprobe_ftrace()` (without `CONFIG_KPROBES_ON_FTRACE` a
/// static inline returning `-EINVAL`).
///
/// # Safety
/// `p` is live.
#[inline]
pub unsafe fn arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int {
    // SAFETY: `p` is live (this function's `# Safety`); the arch's
    // `arch_prepare_kprobe_ftrace()` (x86's; arm64 has none in 6.12) only
    // writes `p->ainsn`.
    #[cfg(CONFIG_KPROBES_ON_FTRACE)]
    unsafe {
        b::arch_prepare_kprobe_ftrace(p.cast())
    }
    #[cfg(not(CONFIG_KPROBES_ON_FTRACE))]
    {
        let _ = p;
        crate::error::code::EINVAL.to_errno()
    }
}

/// `arch_arm_kprobe()`.
///
/// # Safety
/// `p` is prepared; `text_mutex` and the CPU hotplug lock held.
#[inline]
pub unsafe fn arch_arm_kprobe(p: *mut Kprobe) {
    // SAFETY: `p` is prepared (its `opcode` saved) and `text_mutex` and the CPU
    // hotplug lock are held (this function's `# Safety`), as the arch's text
    // patching needs (x86's `text_poke()`, arm64's `aarch64_insn_patch_text()`
    // through `stop_machine_cpuslocked()`).
    unsafe { b::arch_arm_kprobe(p.cast()) }
}

/// `arch_disarm_kprobe()`.
///
/// # Safety
/// `p` is armed; `text_mutex` and the CPU hotplug lock held.
#[inline]
pub unsafe fn arch_disarm_kprobe(p: *mut Kprobe) {
    // SAFETY: `p` is armed (its `opcode` is the saved instruction) and
    // `text_mutex` and the CPU hotplug lock are held (this function's
    // `# Safety`), as `arch_disarm_kprobe()`'s text patching needs (see
    // `arch_arm_kprobe()`).
    unsafe { b::arch_disarm_kprobe(p.cast()) }
}

/// `arch_remove_kprobe()`.
///
/// # Safety
/// `p` is prepared and not armed.
#[inline]
pub unsafe fn arch_remove_kprobe(p: *mut Kprobe) {
    // SAFETY: `p` is prepared and not armed (this function's `# Safety`), so no
    // new hit enters the insn slot that `arch_remove_kprobe()` frees (and clears).
    unsafe { b::arch_remove_kprobe(p.cast()) }
}

/// `arch_trampoline_kprobe()`.
///
/// # Safety
/// `p` is live.
#[inline]
pub unsafe fn arch_trampoline_kprobe(p: *mut Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`); x86's and arm64's
    // `arch_trampoline_kprobe()` do not even read it (they return 0).
    unsafe { b::arch_trampoline_kprobe(p.cast()) != 0 }
}

/// `arch_init_kprobes()`.
///
/// # Safety
/// Called once, at boot (`init_kprobes()`), as upstream.
#[inline]
pub unsafe fn arch_init_kprobes() -> c_int {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { b::arch_init_kprobes() }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_prepare_optimized_kprobe()`.
///
/// # Safety
/// `op`, `orig` live; `text_mutex` held.
#[inline]
pub unsafe fn arch_prepare_optimized_kprobe(op: *mut OptimizedKprobe, orig: *mut Kprobe) -> c_int {
    // SAFETY: `op` and `orig` are live and `text_mutex` is held (this function's
    // `# Safety`): x86's version reads the text at `op->kp.addr` and fills
    // `op->optinsn`.  `OptimizedKprobe` is `struct optimized_kprobe` (types.rs).
    unsafe { b::arch_prepare_optimized_kprobe(op.cast(), orig.cast()) }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_check_optimized_kprobe()`.
///
/// # Safety
/// `op` is live; `kprobe_mutex` held.
#[inline]
pub unsafe fn arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int {
    // SAFETY: `op` is live and `kprobe_mutex` is held (this function's `# Safety`),
    // which x86's version needs: it calls `get_kprobe()` and `kprobe_disarmed()`.
    unsafe { b::arch_check_optimized_kprobe(op.cast()) }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_within_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
#[inline]
pub unsafe fn arch_within_optimized_kprobe(
    op: *mut OptimizedKprobe,
    addr: *mut KprobeOpcode,
) -> bool {
    // SAFETY: `op` is live (this function's `# Safety`); x86's version only
    // compares `addr` with `op->kp.addr` and `op->optinsn.size`.
    unsafe { b::arch_within_optimized_kprobe(op.cast(), addr) != 0 }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_remove_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
#[inline]
pub unsafe fn arch_remove_optimized_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: `op` is live (this function's `# Safety`); x86's version frees
    // `op->optinsn.insn` as a dirty slot (reused only after an RCU grace period)
    // and clears it, so a second call does nothing.
    unsafe { b::arch_remove_optimized_kprobe(op.cast()) }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_optimize_kprobes()`.
///
/// # Safety
/// The optimizer's locks are held; `list` holds optimized_kprobes.
#[inline]
pub unsafe fn arch_optimize_kprobes(list: *mut crate::types::ListHead) {
    // SAFETY: the caller holds the optimizer's locks and `list` holds only
    // `optimized_kprobe`s (this function's `# Safety`): x86's version
    // `text_poke_bp()`s each probe's jump and empties `list`.
    unsafe { b::arch_optimize_kprobes(list.cast()) }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_unoptimize_kprobes()`.
///
/// # Safety
/// As for [`arch_optimize_kprobes`]; `done` is a live list head.
#[inline]
pub unsafe fn arch_unoptimize_kprobes(
    list: *mut crate::types::ListHead,
    done: *mut crate::types::ListHead,
) {
    // SAFETY: as for `arch_optimize_kprobes()` and `done` is a live list head (this
    // function's `# Safety`): x86's version restores each int3 and moves the
    // entries of `list` to `done`.
    unsafe { b::arch_unoptimize_kprobes(list.cast(), done.cast()) }
}

#[cfg(CONFIG_OPTPROBES)]
/// `arch_unoptimize_kprobe()`.
///
/// # Safety
/// `op` is optimized; `text_mutex` and the CPU hotplug lock held.
#[inline]
pub unsafe fn arch_unoptimize_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: `op` is optimized and `text_mutex` and the CPU hotplug lock are
    // held (this function's `# Safety`), as x86's `text_poke()` of the int3 needs.
    unsafe { b::arch_unoptimize_kprobe(op.cast()) }
}

/// `A`'s allocation of `size` bytes with `flags` (`Kmalloc`: `kmalloc()`,
/// `Vmalloc`: `vmalloc()`, `KVmalloc`: `kvmalloc()`); null on failure, and
/// for zero bytes (the allocators' dangling pointer is not an allocation;
/// the core never asks for zero bytes).
#[inline]
fn alloc<A: Allocator>(size: usize, flags: Flags) -> *mut c_void {
    match Layout::from_size_align(size, 1) {
        Ok(layout) if size > 0 => crate::tree::alloc::<A>(layout, flags)
            .map_or(core::ptr::null_mut(), |p| p.as_ptr().cast()),
        _ => core::ptr::null_mut(),
    }
}

/// `kzalloc(size, GFP_KERNEL)`; null on failure.
#[inline]
pub fn kzalloc(size: usize) -> *mut c_void {
    alloc::<Kmalloc>(size, GFP_KERNEL | __GFP_ZERO)
}

#[cfg(CONFIG_KPROBES_ON_FTRACE)]
/// `ftrace_set_filter_ip(ops, ip, remove, 0)` on `kprobe_ipmodify_ops`
/// (`ipmodify`) or `kprobe_ftrace_ops`.
#[inline]
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    // SAFETY: the shim's static ops.
    unsafe {
        b::ftrace_set_filter_ip(
            kprobes_rust_ftrace_ops(ipmodify),
            ip as c_ulong,
            c_int::from(remove),
            0,
        )
    }
}

#[cfg(CONFIG_KPROBES_ON_FTRACE)]
/// `ftrace_set_filter_ips(ops, ips, cnt, remove, 0)` on
/// `kprobe_ipmodify_ops` (`ipmodify`) or `kprobe_ftrace_ops`: one copy of
/// the filter hash and one update of the ftrace records for all of `ips`,
/// all or nothing.
#[inline]
pub fn ftrace_set_filter_ips(ipmodify: bool, ips: &[usize], remove: bool) -> c_int {
    // SAFETY: the ops is the shim's static one; ftrace only reads the
    // `ips.len()` addresses (the pointer is not const in its signature), and
    // a slice never has more than `isize::MAX` bytes, fewer entries than
    // `c_uint` can count for any batch the core makes (one per probe).
    unsafe {
        b::ftrace_set_filter_ips(
            kprobes_rust_ftrace_ops(ipmodify),
            ips.as_ptr().cast_mut().cast::<c_ulong>(),
            ips.len() as c_uint,
            c_int::from(remove),
            0,
        )
    }
}

#[cfg(CONFIG_KPROBES_ON_FTRACE)]
/// `register_ftrace_function()` of one of the two ops.
#[inline]
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    // SAFETY: the shim's static ops.
    unsafe { b::register_ftrace_function(kprobes_rust_ftrace_ops(ipmodify)) }
}

#[cfg(CONFIG_KPROBES_ON_FTRACE)]
/// `unregister_ftrace_function()` of one of the two ops.
#[inline]
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    // SAFETY: the shim's static ops.
    unsafe { b::unregister_ftrace_function(kprobes_rust_ftrace_ops(ipmodify)) }
}

#[cfg(CONFIG_KPROBES_ON_FTRACE)]
/// `WARN(1, "Failed to unregister kprobe-ftrace (error %d)\n", ret)`.
#[inline]
pub fn warn_ftrace_unregister(ret: c_int) {
    // SAFETY: the shim's wrapper only formats the integer `ret` into a `WARN()`.
    unsafe { kprobes_rust_warn_ftrace_unregister(ret) }
}

#[cfg(CONFIG_KPROBES_ON_FTRACE)]
/// `WARN_ONCE(1, "Failed to disarm kprobe-ftrace at %pS (error %d)\n", ...)`.
#[inline]
pub fn warn_once_ftrace_disarm(addr: *mut KprobeOpcode, ret: c_int) {
    // SAFETY: the shim's `WARN_ONCE()` only formats `addr` with `%pS` (a symbol
    // lookup of the value); it never dereferences it.
    unsafe { kprobes_rust_warn_ftrace_disarm(addr.cast(), ret) }
}

#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
/// `rethook_try_get()`.
///
/// # Safety
/// Handler context; `rh` is live.
#[inline(always)]
pub unsafe fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: `rh` is live and the caller runs a probe handler, with preemption
    // disabled (this function's `# Safety`), as `rethook_try_get()` requires.
    unsafe { b::rethook_try_get(rh) }
}

#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`] and was not passed to [`rethook_hook`].
#[inline(always)]
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: `n` came from `rethook_try_get()` and is not hooked (this function's
    // `# Safety`), so `rethook_recycle()` may give it back to its pool.
    unsafe { b::rethook_recycle(n) }
}

#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
/// `rethook_hook()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`]; `regs` are the probed context's.
#[inline(always)]
pub unsafe fn rethook_hook(n: *mut RethookNode, regs: *mut PtRegs, mcount: bool) {
    // SAFETY: `n` is an unused node from `rethook_try_get()` (so the caller is a
    // handler with preemption disabled) and `regs` are the probed context's (this
    // function's `# Safety`), which is what `rethook_hook()` needs.
    unsafe { b::rethook_hook(n, regs, mcount) }
}

#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
/// `rethook_alloc()`: a rethook or an `ERR_PTR`.
///
/// # Safety
/// `data` outlives the rethook.
#[inline]
pub unsafe fn rethook_alloc(
    data: *mut c_void,
    handler: unsafe extern "C" fn(*mut RethookNode, *mut c_void, c_ulong, *mut PtRegs),
    size: c_int,
    num: c_int,
) -> *mut Rethook {
    // SAFETY: `data` outlives the rethook (this function's `# Safety`), as the
    // handler that receives it assumes; `handler` is a function of the C type.
    unsafe { b::rethook_alloc(data, Some(handler), size, num) }
}

#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
/// `rethook_free()`.
///
/// # Safety
/// `rh` came from [`rethook_alloc`] and is freed once.
#[inline]
pub unsafe fn rethook_free(rh: *mut Rethook) {
    // SAFETY: `rh` came from `rethook_alloc()` and is freed once (this function's
    // `# Safety`); `rethook_free()` frees it only after an RCU grace period.
    unsafe { b::rethook_free(rh) }
}

/// `NOTIFY_DONE`.
pub const NOTIFY_DONE: c_int = b::NOTIFY_DONE as c_int;
/// `MODULE_STATE_LIVE`.
#[cfg(CONFIG_MODULES)]
pub const MODULE_STATE_LIVE: c_ulong = b::module_state_MODULE_STATE_LIVE as c_ulong;
/// `MODULE_STATE_COMING`.
#[cfg(CONFIG_MODULES)]
pub const MODULE_STATE_COMING: c_ulong = b::module_state_MODULE_STATE_COMING as c_ulong;
/// `MODULE_STATE_GOING`.
#[cfg(CONFIG_MODULES)]
pub const MODULE_STATE_GOING: c_ulong = b::module_state_MODULE_STATE_GOING as c_ulong;

/// `printk(fmt, s)`: `fmt` has one `%s`.
///
/// # Safety
/// `s` is a C string.
#[inline]
pub unsafe fn printk_s(fmt: &core::ffi::CStr, s: *const c_char) {
    #[cfg(CONFIG_PRINTK)]
    // SAFETY: the argument matches the format.
    unsafe {
        b::_printk(fmt.to_bytes_with_nul().as_ptr().cast(), s)
    };
    #[cfg(not(CONFIG_PRINTK))]
    let _ = (fmt, s);
}

/// `simple_read_from_buffer()`.
///
/// # Safety
/// `to` is a user buffer of `count` bytes, `from` has `available` bytes,
/// `ppos` points to the file position.
#[inline]
pub unsafe fn simple_read_from_buffer(
    to: *mut c_void,
    count: usize,
    ppos: *mut i64,
    from: *const c_void,
    available: usize,
) -> isize {
    // SAFETY: `from` has `available` readable bytes and `ppos` is valid (this
    // function's `# Safety`); `to` is a user pointer, which
    // `simple_read_from_buffer()` only accesses with `copy_to_user()`.
    unsafe { b::simple_read_from_buffer(to, count, ppos, from, available) }
}

/// `kstrtobool_from_user()`.
///
/// # Safety
/// `s` is a user buffer of `count` bytes.
#[inline]
pub unsafe fn kstrtobool_from_user(s: *const c_char, count: usize, res: &mut bool) -> c_int {
    // SAFETY: `s` is a user buffer of `count` bytes (this function's `# Safety`),
    // read only with `copy_from_user()`; `res` is a valid `&mut bool`.
    unsafe { b::kstrtobool_from_user(s, count, res) }
}

/// `proc_dointvec_minmax()`.
///
/// # Safety
/// The arguments the sysctl core passed to a `proc_handler`: `table` is the
/// entry (with `data`, `maxlen`, `extra1`, `extra2`), `buffer` the kernel copy
/// of `*length` bytes, `ppos` the file position.
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
#[inline]
pub unsafe fn proc_dointvec_minmax(
    table: *const CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    ppos: *mut i64,
) -> c_int {
    // SAFETY: `table`, `buffer`, `length` and `ppos` are what the sysctl core
    // passed to the handler (this function's `# Safety`), as
    // `proc_dointvec_minmax()` expects.
    unsafe { b::proc_dointvec_minmax(table, write, buffer, length, ppos) }
}

/// `seq_list_start()`.
///
/// # Safety
/// `head` is a list stable for the seq walk.
#[inline]
pub unsafe fn seq_list_start(head: *mut crate::types::ListHead, pos: i64) -> *mut c_void {
    // SAFETY: `head` is a list that stays stable during the walk (this function's
    // `# Safety`), which `seq_list_start()` follows; `ListHead` is
    // `struct list_head`.
    unsafe { b::seq_list_start(head.cast(), pos).cast() }
}

/// `seq_list_next()`.
///
/// # Safety
/// As for [`seq_list_start`]; `v` is the entry returned by the last
/// [`seq_list_start`] or [`seq_list_next`] on `head`, `pos` is valid.
#[inline]
pub unsafe fn seq_list_next(
    v: *mut c_void,
    head: *mut crate::types::ListHead,
    pos: *mut i64,
) -> *mut c_void {
    // SAFETY: `v` is an entry of `head`, stable during the walk, and `pos` is
    // valid (this function's `# Safety`), as `seq_list_next()` needs.
    unsafe { b::seq_list_next(v, head.cast(), pos).cast() }
}

/// `register_die_notifier(&kprobe_exceptions_nb)` (the shim's block).
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): a notifier block is
/// registered at most once.
#[inline]
pub unsafe fn register_die_notifier() -> c_int {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { kprobes_rust_register_die_notifier() }
}

/// `register_module_notifier(&kprobe_module_nb)` (the shim's block).
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): a notifier block is
/// registered at most once.
#[cfg(CONFIG_MODULES)]
#[inline]
pub unsafe fn register_module_notifier() -> c_int {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { kprobes_rust_register_module_notifier() }
}

/// `kprobe_sysctls_init()`: registers `debug.kprobes-optimization` (the
/// shim's table).  `__init`.
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): the table is registered at
/// most once, and its code is `__init`.
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
#[inline(always)]
pub unsafe fn kprobe_sysctls_init() {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { kprobes_rust_sysctls_init() }
}

/// `rcu_read_lock()`: without preemptible RCU, preempt counting and lock
/// debugging it is a compiler barrier (as the C inline compiles); otherwise
/// the shim's wrapper.
#[inline(always)]
pub fn rcu_read_lock() {
    #[cfg(any(CONFIG_PREEMPT_RCU, CONFIG_PREEMPT_COUNT, CONFIG_DEBUG_LOCK_ALLOC))]
    // SAFETY: the shim's `rcu_read_lock()` wrapper takes no argument and may be
    // called in any context.
    unsafe {
        kprobes_rust_rcu_read_lock()
    }
    #[cfg(not(any(CONFIG_PREEMPT_RCU, CONFIG_PREEMPT_COUNT, CONFIG_DEBUG_LOCK_ALLOC)))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// `rcu_read_unlock()` (see [`rcu_read_lock`]).
///
/// # Safety
/// Ends an RCU read-side section that `rcu_read_lock()` began on the
/// current task.
#[inline(always)]
pub unsafe fn rcu_read_unlock() {
    #[cfg(any(CONFIG_PREEMPT_RCU, CONFIG_PREEMPT_COUNT, CONFIG_DEBUG_LOCK_ALLOC))]
    // SAFETY: the current task is in a read-side section (this function's
    // `# Safety`).
    unsafe {
        kprobes_rust_rcu_read_unlock()
    }
    #[cfg(not(any(CONFIG_PREEMPT_RCU, CONFIG_PREEMPT_COUNT, CONFIG_DEBUG_LOCK_ALLOC)))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// `synchronize_rcu_expedited()`: the same guarantee as `synchronize_rcu()`
/// (every RCU read-side section, preempt- and irq-disabled region that was
/// running when it was called has ended), reached by IPIs instead of
/// waiting for the CPUs' next quiescent states; sleeps.  With
/// `rcupdate.rcu_normal=1` (real-time systems) it is a normal grace period.
#[inline]
pub fn synchronize_rcu_expedited() {
    // SAFETY: takes no argument (it sleeps, which `might_sleep()` checks;
    // memory safety does not depend on the context).  With tiny RCU (!SMP) it
    // is a static inline calling synchronize_rcu().
    #[cfg(not(CONFIG_TINY_RCU))]
    unsafe {
        b::synchronize_rcu_expedited()
    }
    #[cfg(CONFIG_TINY_RCU)]
    synchronize_rcu();
}

/// `kmalloc(size, GFP_KERNEL)`; null on failure.
#[inline]
pub fn kmalloc(size: usize) -> *mut c_void {
    alloc::<Kmalloc>(size, GFP_KERNEL)
}

/// The bytes [`table_alloc`] gets for a request of `size`: whole pages
/// (`usize::MAX`, which no allocation gets, if they overflow).
#[inline]
pub fn table_size(size: usize) -> usize {
    crate::tree::page_align(size).unwrap_or(usize::MAX)
}

/// A table of [`table_size`]`(size)` bytes that any context may read:
/// `vmalloc()`, whole pages, where `kmalloc()` and `kvmalloc()` would take
/// a power of two of bytes or pages, up to twice the request, and a
/// replaced table, once freed, goes straight back to the page allocator
/// (kmalloc's 1 to 8 KiB caches keep their order-3 slabs, shared with
/// other objects); null on failure.  Freed with [`kfree_rcu`]
/// (`kvfree_call_rcu()` frees vmalloc()ed memory too).
#[inline]
pub fn table_alloc(size: usize) -> *mut c_void {
    alloc::<Vmalloc>(size, GFP_KERNEL)
}

/// `kvmalloc(size, GFP_KERNEL)`; null on failure.
#[inline]
pub fn kvmalloc(size: usize) -> *mut c_void {
    alloc::<KVmalloc>(size, GFP_KERNEL)
}

/// `kvfree()`.
///
/// # Safety
/// `p` is null or came from [`kvmalloc`] and is not used afterwards.
#[inline]
pub unsafe fn kvfree(p: *mut c_void) {
    // SAFETY: `p` is null or came from `kvmalloc()` and is not used
    // afterwards (this function's `# Safety`).
    unsafe { b::kvfree(p) }
}

/// `kfree()`.
///
/// # Safety
/// `p` is null or came from [`kmalloc`] and is not used afterwards.
#[inline]
pub unsafe fn kfree(p: *mut c_void) {
    // SAFETY: `p` is null or came from `kmalloc()`/`kzalloc()` (both
    // [`kmalloc`]) and is not used afterwards (this function's `# Safety`).
    unsafe { b::kfree(p) }
}

/// `perf_event_ksymbol()`.
///
/// # Safety
/// `sym` is a NUL-terminated string.
#[inline]
pub unsafe fn perf_event_ksymbol(
    ksym_type: u16,
    addr: u64,
    len: u32,
    unregister: bool,
    sym: *const c_char,
) {
    // SAFETY: `sym` is NUL-terminated (this function's `# Safety`);
    // `perf_event_ksymbol()` reads it only during the call.
    unsafe { b::perf_event_ksymbol(ksym_type, addr, len, unregister, sym) }
}

/// `PERF_RECORD_KSYMBOL_TYPE_OOL`.
pub const PERF_RECORD_KSYMBOL_TYPE_OOL: u16 =
    b::perf_record_ksymbol_type_PERF_RECORD_KSYMBOL_TYPE_OOL as u16;

/// `WARN_ON(1)` at the caller's location.
#[track_caller]
#[inline]
pub fn warn() {
    let loc = core::panic::Location::caller();
    let file = loc.file();
    // SAFETY: `file` is valid for `len` bytes; the C side prints it with
    // "%.*s" and does not keep it.
    unsafe {
        kprobes_rust_warn(
            file.as_ptr().cast(),
            file.len() as c_int,
            loc.line() as c_int,
        )
    }
}

/// `WARN_ON(1)` at `file:line` (for the trap path: no out-of-line Rust
/// call).
#[inline(always)]
pub fn warn_at(file: &'static str, line: u32) {
    // SAFETY: `file` is valid for `len` bytes; the C side prints it with
    // "%.*s" and does not keep it.
    unsafe { kprobes_rust_warn(file.as_ptr().cast(), file.len() as c_int, line as c_int) }
}

/// `kernel_text_address()`.
#[inline]
pub fn kernel_text_address(addr: usize) -> bool {
    // SAFETY: `kernel_text_address()` takes `addr` by value and only looks it up
    // in the kernel's text ranges; no pointer is dereferenced.
    unsafe { b::kernel_text_address(addr) != 0 }
}

/// `kallsyms_lookup_size_offset()`.
#[inline]
pub fn kallsyms_lookup_size_offset(addr: usize, size: &mut usize, offset: &mut usize) -> bool {
    let (mut s, mut o) = (0, 0);
    // SAFETY: valid out pointers.
    let r = unsafe { b::kallsyms_lookup_size_offset(addr, &mut s, &mut o) } != 0;
    // `unsigned long` is `usize` in the kernel crate (the casts document it).
    #[allow(clippy::unnecessary_cast)]
    {
        *size = s as usize;
        *offset = o as usize;
    }
    r
}

/// `lookup_symbol_name()`.
///
/// # Safety
/// `buf` is valid for `KSYM_NAME_LEN` bytes.
#[inline]
pub unsafe fn lookup_symbol_name(addr: usize, buf: *mut c_char) -> c_int {
    // SAFETY: `buf` is valid for `KSYM_NAME_LEN` bytes (this function's
    // `# Safety`), the most `lookup_symbol_name()` writes.
    unsafe { b::lookup_symbol_name(addr, buf) }
}

/// `kprobe_lookup_name()` (weak; the C shim has the default).
///
/// # Safety
/// `name` is NUL-terminated.
#[inline]
pub unsafe fn kprobe_lookup_name(name: *const c_char, offset: u32) -> *mut KprobeOpcode {
    // SAFETY: `name` is NUL-terminated (this function's `# Safety`); the weak
    // default passes it to `kallsyms_lookup_name()`, which only reads it.
    unsafe { b::kprobe_lookup_name(name, offset) }
}

/// `arch_within_kprobe_blacklist()` (weak; the C shim has the default).
#[inline]
pub fn arch_within_kprobe_blacklist(addr: usize) -> bool {
    // SAFETY: the weak default (or the arch's version) only compares `addr`, a
    // value, with text section bounds.
    unsafe { b::arch_within_kprobe_blacklist(addr) }
}

/// `arch_populate_kprobe_blacklist()` (weak; the C shim has the default).
/// `__init`: always inlined into its `.init.text` caller.
#[inline(always)]
pub fn arch_populate_kprobe_blacklist() -> c_int {
    // SAFETY: called at init, as upstream.
    unsafe { b::arch_populate_kprobe_blacklist() }
}

/// `dereference_symbol_descriptor()`.
#[inline]
pub fn dereference_symbol_descriptor(p: usize) -> usize {
    // SAFETY: `p` is passed by value; without function descriptors (x86, arm64) the
    // shim's wrapper returns it unchanged, with them it reads a kernel descriptor.
    unsafe { kprobes_rust_dereference_symbol_descriptor(p as *mut c_void) as usize }
}

/// `__kprobes_text_start/end`.
#[inline]
pub fn kprobes_text_area() -> (usize, usize) {
    // Linker symbols: only their addresses are taken.
    (
        core::ptr::addr_of!(__kprobes_text_start) as usize,
        core::ptr::addr_of!(__kprobes_text_end) as usize,
    )
}

/// `__noinstr_text_start/end`.
#[inline]
pub fn noinstr_text_area() -> (usize, usize) {
    // Linker symbols: only their addresses are taken.
    (
        core::ptr::addr_of!(__noinstr_text_start) as usize,
        core::ptr::addr_of!(__noinstr_text_end) as usize,
    )
}

/// `kfree_rcu(ptr, rcu)`.
///
/// # Safety
/// `p` came from [`kmalloc`], [`kvmalloc`] or [`table_alloc`], `rcu` is its
/// `rcu_head`, and `p` is no longer reachable by new readers.
#[inline]
pub unsafe fn kfree_rcu(p: *mut c_void, rcu: *mut RcuHead) {
    // SAFETY: `p` came from `k(v)malloc()` or `vmalloc()`, `rcu` is its `rcu_head` (`RcuHead` is
    // `struct rcu_head`) and no new reader can reach `p` (`# Safety`), as
    // `kvfree_call_rcu()` requires (it frees with kvfree()).
    #[cfg(any(not(CONFIG_TINY_RCU), CONFIG_KASAN_GENERIC))]
    unsafe {
        b::kvfree_call_rcu(rcu.cast(), p)
    }
    // With tiny RCU (and no KASAN) kvfree_call_rcu() is a static inline.
    // SAFETY: as above.
    #[cfg(all(CONFIG_TINY_RCU, not(CONFIG_KASAN_GENERIC)))]
    unsafe {
        kprobes_rust_kvfree_call_rcu(rcu, p)
    }
}

/// `struct task_struct` (only passed by pointer).
pub type TaskStruct = b::task_struct;

/// `struct module`.
pub type Module = b::module;

pub use crate::types::ModuleAreas;

/// Reads a module's blacklist areas.
///
/// # Safety
/// `m` is a live module.
#[cfg(CONFIG_MODULES)]
#[inline]
pub unsafe fn module_areas<'a>(m: *mut Module) -> ModuleAreas<'a> {
    use core::ptr::addr_of;
    // No `&struct module`: other CPUs write its state and reference count.
    // `m` is live (this function's `# Safety`); the fields read below, through
    // the pointer, are set by the loader before MODULE_STATE_COMING and never
    // written after: the reason of each unsafe read.
    // SAFETY: as said above.
    let (bl, n) = unsafe {
        (
            *addr_of!((*m).kprobe_blacklist),
            *addr_of!((*m).num_kprobe_blacklist),
        )
    };
    let ksyms = if bl.is_null() {
        &[][..]
    } else {
        // SAFETY: a non-null `kprobe_blacklist` has `num_kprobe_blacklist`
        // entries, live with the module and not written after loading.
        unsafe { core::slice::from_raw_parts(bl.cast_const(), n as usize) }
    };
    // SAFETY: as said above.
    let kprobes_text = unsafe {
        (
            *addr_of!((*m).kprobes_text_start),
            *addr_of!((*m).kprobes_text_size),
        )
    };
    // SAFETY: as said above.
    let noinstr_text = unsafe {
        (
            *addr_of!((*m).noinstr_text_start),
            *addr_of!((*m).noinstr_text_size),
        )
    };
    ModuleAreas {
        ksyms,
        kprobes_text: (kprobes_text.0 as usize, kprobes_text.1 as usize),
        noinstr_text: (noinstr_text.0 as usize, noinstr_text.1 as usize),
    }
}

/// `preempt_disable()`: a compiler barrier without `CONFIG_PREEMPT_COUNT`.
#[inline(always)]
pub fn preempt_disable() {
    #[cfg(CONFIG_PREEMPT_COUNT)]
    // SAFETY: the shim's `preempt_disable()` wrapper takes no argument and may be
    // called in any context.
    unsafe {
        kprobes_rust_preempt_disable()
    }
    #[cfg(not(CONFIG_PREEMPT_COUNT))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// `preempt_enable()`: a compiler barrier without `CONFIG_PREEMPT_COUNT`.
///
/// # Safety
/// Ends a section that `preempt_disable()` began on this CPU.
#[inline(always)]
pub unsafe fn preempt_enable() {
    #[cfg(CONFIG_PREEMPT_COUNT)]
    // SAFETY: ends a `preempt_disable()` section (this function's `# Safety`).
    unsafe {
        kprobes_rust_preempt_enable()
    }
    #[cfg(not(CONFIG_PREEMPT_COUNT))]
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// `KPROBE_HIT_ACTIVE`.
pub const KPROBE_HIT_ACTIVE: c_ulong = b::KPROBE_HIT_ACTIVE as c_ulong;

/// `pr_err("Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n", ...)`.
///
/// # Safety
/// `sym` is null or a C string.
#[inline(always)]
pub unsafe fn pr_err_dump_kprobe(sym: *const c_char, offset: c_uint, addr: *mut KprobeOpcode) {
    #[cfg(not(CONFIG_PRINTK))]
    let _ = (sym, offset, addr);
    #[cfg(CONFIG_PRINTK)]
    // SAFETY: the format matches the arguments; printk copes with a null %s.
    unsafe {
        b::_printk(
            c"\x013Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n"
                .to_bytes_with_nul()
                .as_ptr()
                .cast(),
            sym,
            offset,
            addr,
        );
    }
}

/// `&kprobe_insn_slots` (defined by the C shim: its static mutex initializer
/// depends on the lock debugging config).
#[inline(always)]
pub fn insn_slots() -> *mut KprobeInsnCache {
    // Only the address is taken.
    core::ptr::addr_of_mut!(b::kprobe_insn_slots).cast()
}

#[cfg(CONFIG_OPTPROBES)]
/// `&kprobe_optinsn_slots`.
#[inline(always)]
pub fn optinsn_slots() -> *mut KprobeInsnCache {
    // Only the address is taken.
    core::ptr::addr_of_mut!(b::kprobe_optinsn_slots).cast()
}

/// `arch_kprobe_get_kallsym()` (weak; the C shim has the default).
///
/// # Safety
/// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
#[inline(always)]
pub unsafe fn arch_kprobe_get_kallsym(
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    // SAFETY: the out pointers are valid and `sym` has `KSYM_NAME_LEN` bytes (this
    // function's `# Safety`), all that the weak default or an arch's version writes.
    unsafe { b::arch_kprobe_get_kallsym(symnum, value, type_, sym) }
}

/// `arch_adjust_kprobe_addr()` (x86: skips an ENDBR at the entry; arm64:
/// the shim's `__weak` default).
#[inline]
pub fn arch_adjust_kprobe_addr(
    addr: usize,
    offset: usize,
    on_func_entry: &mut bool,
) -> *mut KprobeOpcode {
    // SAFETY: valid out pointer; the arch reads `addr` with
    // copy_from_kernel_nofault().
    unsafe { b::arch_adjust_kprobe_addr(addr, offset, on_func_entry) }
}

/// `ftrace_location()`: the ftrace call site at or in the function of `addr`.
#[inline]
pub fn ftrace_location(addr: usize) -> usize {
    // SAFETY: `ftrace_location()` takes `addr` by value and only searches
    // ftrace's call-site records for it.
    #[cfg(CONFIG_DYNAMIC_FTRACE)]
    unsafe {
        b::ftrace_location(addr) as usize
    }
    // Without dynamic ftrace, a static inline returning 0.
    #[cfg(not(CONFIG_DYNAMIC_FTRACE))]
    {
        let _ = addr;
        0
    }
}

/// `core_kernel_text()`.
#[inline]
pub fn core_kernel_text(addr: usize) -> bool {
    // SAFETY: `core_kernel_text()` only compares `addr`, a value, with the core
    // kernel's text bounds.
    unsafe { b::core_kernel_text(addr) != 0 }
}

/// `__module_text_address()`; preemption must be disabled.
///
/// # Safety
/// Preemption is disabled, or an RCU read-side section is open: the
/// module returned is live only until it ends.
#[inline]
pub unsafe fn module_text_address(addr: usize) -> *mut Module {
    // SAFETY: preemption is disabled or a read-side section is open (this
    // function's `# Safety`), as `__module_text_address()` requires.
    #[cfg(CONFIG_MODULES)]
    unsafe {
        b::__module_text_address(addr)
    }
    // Without modules, a static inline returning NULL.
    #[cfg(not(CONFIG_MODULES))]
    {
        let _ = addr;
        core::ptr::null_mut()
    }
}

/// `in_gate_area_no_mm()`.
#[inline]
pub fn in_gate_area_no_mm(addr: usize) -> bool {
    // SAFETY: the shim's wrapper only compares `addr`, a value, with the gate
    // (vsyscall) page.
    unsafe { kprobes_rust_in_gate_area_no_mm(addr as c_ulong) != 0 }
}

/// `jump_label_text_reserved(start, end)`: does a jump label site overlap
/// `[start, end]`?  Called under jump_label_lock(), with `start` and `end`
/// in the same module's text or both outside modules (else it WARNs).
#[inline]
pub fn jump_label_text_reserved(start: usize, end: usize) -> bool {
    // SAFETY: called under jump_label_lock(); the pointers are only compared
    // with the jump entries' sites, never dereferenced.
    unsafe { kprobes_rust_jump_label_text_reserved(start as *mut c_void, end as *mut c_void) != 0 }
}

/// `static_call_text_reserved(start, end)`: does a static call site overlap
/// `[start, end]`?  Same conditions as [`jump_label_text_reserved`].
#[inline]
pub fn static_call_text_reserved(start: usize, end: usize) -> bool {
    // SAFETY: the pointers are only compared with static call sites, never
    // dereferenced; the function does not sleep.
    #[cfg(CONFIG_HAVE_STATIC_CALL_INLINE)]
    unsafe {
        b::static_call_text_reserved(start as *mut c_void, end as *mut c_void) != 0
    }
    // Without inline static calls (arm64) a static inline returning 0.
    #[cfg(not(CONFIG_HAVE_STATIC_CALL_INLINE))]
    {
        let _ = (start, end);
        false
    }
}

/// `find_bug()`: is there a BUG()/WARN() site at `addr`?
#[inline]
pub fn find_bug(addr: usize) -> bool {
    // SAFETY: `find_bug()` compares `addr`, a value, with the kernel's and the
    // modules' bug tables; the returned entry is only tested for null.
    #[cfg(CONFIG_GENERIC_BUG)]
    return unsafe { !b::find_bug(addr).is_null() };
    // Without GENERIC_BUG (so without BUG) there is no bug table: upstream's
    // find_bug() is then a static inline returning NULL.
    #[cfg(not(CONFIG_GENERIC_BUG))]
    {
        let _ = addr;
        false
    }
}

/// `jump_label_lock()`.
#[inline]
pub fn jump_label_lock() {
    // SAFETY: process context.  Without CONFIG_JUMP_LABEL it is an empty
    // static inline in C.
    #[cfg(CONFIG_JUMP_LABEL)]
    unsafe {
        kprobes_rust_jump_label_lock()
    }
}

/// `jump_label_unlock()`.
///
/// # Safety
/// The current task holds `jump_label_mutex` (taken with `jump_label_lock()`).
#[inline]
pub unsafe fn jump_label_unlock() {
    // SAFETY: the current task holds the lock (this function's `# Safety`).
    #[cfg(CONFIG_JUMP_LABEL)]
    unsafe {
        kprobes_rust_jump_label_unlock()
    }
}

/// `try_module_get()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
#[inline]
pub unsafe fn try_module_get(m: *mut Module) -> bool {
    // SAFETY: `m` is a live module (found with preemption disabled).
    #[cfg(all(CONFIG_MODULES, CONFIG_MODULE_UNLOAD))]
    unsafe {
        b::try_module_get(m)
    }
    // Without module unloading, a static inline: `!m || module_is_live(m)`.
    // SAFETY: `m` is null or a live module.
    #[cfg(all(CONFIG_MODULES, not(CONFIG_MODULE_UNLOAD)))]
    unsafe {
        m.is_null() || (*m).state != b::module_state_MODULE_STATE_GOING
    }
    // Without modules, a static inline returning true.
    #[cfg(not(CONFIG_MODULES))]
    {
        let _ = m;
        true
    }
}

/// `module_put()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
#[inline]
pub unsafe fn module_put(m: *mut Module) {
    // SAFETY: a reference taken with try_module_get().
    #[cfg(all(CONFIG_MODULES, CONFIG_MODULE_UNLOAD))]
    unsafe {
        b::module_put(m)
    }
    // Otherwise an empty static inline.
    #[cfg(not(all(CONFIG_MODULES, CONFIG_MODULE_UNLOAD)))]
    let _ = m;
}

/// `within_module_init()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
#[inline]
pub unsafe fn within_module_init(addr: usize, m: *mut Module) -> bool {
    // SAFETY: `m` is a live module.
    #[cfg(CONFIG_MODULES)]
    unsafe {
        kprobes_rust_within_module_init(addr, m)
    }
    // Without modules, a static inline returning false.
    #[cfg(not(CONFIG_MODULES))]
    {
        let _ = (addr, m);
        false
    }
}

/// `module_is_coming()`.
///
/// # Safety
/// `m` is a live module (found with preemption disabled, referenced, or
/// the module notifier's).
#[inline]
pub unsafe fn module_is_coming(m: *mut Module) -> bool {
    // SAFETY: `m` is a live module.
    #[cfg(CONFIG_MODULES)]
    unsafe {
        kprobes_rust_module_is_coming(m)
    }
    // Without modules, a static inline returning false.
    #[cfg(not(CONFIG_MODULES))]
    {
        let _ = m;
        false
    }
}

/// `struct seq_file`.
pub type SeqFile = b::seq_file;

/// `kallsyms_show_value(m->file->f_cred)`: may the reader see addresses?
///
/// # Safety
/// `m` is a seq_file being shown.
#[inline]
pub unsafe fn seq_show_value(m: *mut SeqFile) -> bool {
    // SAFETY: `m` is a seq_file being shown (this function's `# Safety`), so
    // `m->file` and its `f_cred`, which the shim's wrapper reads, are valid.
    unsafe { kprobes_rust_seq_show_value(m) }
}

/// `seq_printf(pi, "%px  %s  %s+0x%x  %s ", ...)` (upstream's format).
///
/// # Safety
/// `pi` is being shown; the strings are C strings.
#[inline]
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
        b::seq_printf(
            pi,
            c"%px  %s  %s+0x%x  %s ".to_bytes_with_nul().as_ptr().cast(),
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
#[inline]
pub unsafe fn seq_report_nosym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    paddr: *mut c_void,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe {
        b::seq_printf(
            pi,
            c"%px  %s  %pS ".to_bytes_with_nul().as_ptr().cast(),
            addr,
            ty,
            paddr,
        )
    }
}

/// `seq_printf(pi, "%s%s%s%s\n", ...)` (upstream's format).
///
/// # Safety
/// `pi` is being shown; the strings are C strings.
#[inline]
pub unsafe fn seq_report_flags(
    pi: *mut SeqFile,
    a: *const c_char,
    b2: *const c_char,
    c: *const c_char,
    d: *const c_char,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe {
        b::seq_printf(
            pi,
            c"%s%s%s%s\n".to_bytes_with_nul().as_ptr().cast(),
            a,
            b2,
            c,
            d,
        )
    }
}

/// `seq_printf(m, "0x%px-0x%px\t%ps\n", ...)` (upstream's format).
///
/// # Safety
/// `m` is being shown.
#[inline]
pub unsafe fn seq_blacklist_line(
    m: *mut SeqFile,
    start: *mut c_void,
    end: *mut c_void,
    sym: *mut c_void,
) {
    // SAFETY: the arguments match the format's conversions.
    unsafe {
        b::seq_printf(
            m,
            c"0x%px-0x%px\t%ps\n".to_bytes_with_nul().as_ptr().cast(),
            start,
            end,
            sym,
        )
    }
}

/// `kallsyms_lookup(addr, NULL, &offset, &modname, namebuf)`: the symbol
/// name (in `namebuf`) or null.
///
/// # Safety
/// `namebuf` has `KSYM_NAME_LEN` bytes.
#[inline]
pub unsafe fn kallsyms_lookup(
    addr: usize,
    offset: &mut c_ulong,
    modname: &mut *mut c_char,
    namebuf: *mut c_char,
) -> *const c_char {
    // SAFETY: `namebuf` has `KSYM_NAME_LEN` bytes (this function's `# Safety`),
    // the most `kallsyms_lookup()` writes; `offset` and `modname` are `&mut`s, and
    // a null `symbolsize` is accepted (upstream's call passes one too).
    unsafe { b::kallsyms_lookup(addr, core::ptr::null_mut(), offset, modname, namebuf) }
}

// --- Kretprobes without rethook (`!CONFIG_KRETPROBE_ON_RETHOOK`, arm64) ----

/// `struct objpool_head`.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub use crate::types::ObjpoolHead;
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
use crate::types::{KretprobeInstance, LlistNode};

// `kretprobe_trampoline_addr()` is `dereference_kernel_function_descriptor(
// __kretprobe_trampoline)`, the identity without function descriptors.
#[cfg(all(not(CONFIG_KRETPROBE_ON_RETHOOK), CONFIG_HAVE_FUNCTION_DESCRIPTORS))]
compile_error!("kretprobes without rethook: function descriptors are not supported");

/// `kretprobe_trampoline_addr()`: the arch's `__kretprobe_trampoline`.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[inline(always)]
pub fn kretprobe_trampoline_addr() -> *mut KprobeOpcode {
    // Only the address is taken (no function descriptors, above).
    b::__kretprobe_trampoline as *const () as *mut KprobeOpcode
}

/// `struct objpool_slot`: one CPU's ring of a pool (`__packed`; its
/// fields are 32-bit words at offsets 0 to 12 and the entries follow).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub use crate::ktypes::ObjpoolSlot;

/// Local interrupts masked (`raw_local_irq_save()`) until dropped
/// (`raw_local_irq_restore()`), as objpool's static inlines change their
/// rings.
///
/// # Invariants
/// From `new()` to `drop()` this CPU takes no interrupt, and `flags` is
/// what `arch_local_irq_save()` returned in `new()`.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub struct RawIrqOff {
    flags: c_ulong,
}

#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
impl RawIrqOff {
    /// `raw_local_irq_save(flags)`.
    #[inline(always)]
    #[allow(
        clippy::new_without_default,
        reason = "masks interrupts: not a default value"
    )]
    pub fn new() -> Self {
        Self {
            flags: arch_local_irq_save(),
        }
    }
}

#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
impl Drop for RawIrqOff {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `flags` is what `arch_local_irq_save()` returned on this
        // CPU, which took no interrupt since (the type's invariants).
        unsafe { arch_local_irq_restore(self.flags) }
    }
}

/// `cpumask_next_wrap(cpu, cpu_possible_mask, -1, 1)`: the possible CPU
/// after `cpu`, wrapping (objpool's walk over the other CPUs' rings).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[inline(always)]
pub fn next_possible_cpu_wrap(cpu: c_int) -> c_int {
    // The trees' `cpumask_next_wrap()` differ (mainline's is a two-argument
    // `static __always_inline`, without a binding): open-coded as
    // `find_next_bit_wrap(bits, nbits, cpu + 1)` with the out-of-line
    // `_find_next_bit()`/`_find_first_bit()` both have.  The possible mask
    // has no bit at or above `nr_cpu_ids`, so searching `NR_CPUS` bits finds
    // the same CPU.  `cpu` is below `NR_CPUS` (or -1): `wrapping_add()`
    // cannot wrap, and puts no overflow check on this hit path.
    let bits = core::ptr::addr_of!(b::__cpu_possible_mask).cast::<c_ulong>();
    let nbits = b::NR_CPUS as c_ulong;
    // SAFETY: `__cpu_possible_mask` is set up at boot, `NR_CPUS` bits long,
    // and only read here; the find-bit functions may be called in any context.
    unsafe {
        let next = b::_find_next_bit(bits, nbits, cpu.wrapping_add(1) as c_ulong);
        let next = if next >= nbits {
            b::_find_first_bit(bits, nbits)
        } else {
            next
        };
        next as c_int
    }
}

/// `objpool_init(pool, nr, size, GFP_KERNEL, context, objinit, release)`.
///
/// # Safety
/// `pool` is an unused `objpool_head` that stays allocated until its
/// `release` ran; process context (it allocates and may sleep).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub unsafe fn objpool_init(
    pool: *mut ObjpoolHead,
    nr: c_int,
    size: c_int,
    context: *mut c_void,
    objinit: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
    release: unsafe extern "C" fn(*mut ObjpoolHead, *mut c_void) -> c_int,
) -> c_int {
    // SAFETY: as this function's `# Safety`; the callbacks have objpool's
    // prototypes.
    unsafe {
        b::objpool_init(
            pool,
            nr,
            size,
            b::GFP_KERNEL,
            context,
            Some(objinit),
            Some(release),
        )
    }
}

/// `objpool_fini()`: frees the pool's free objects; the pool and its
/// `release` go with its last object.
///
/// # Safety
/// `pool` is an initialized pool no one pops from any more.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub unsafe fn objpool_fini(pool: *mut ObjpoolHead) {
    // SAFETY: as this function's `# Safety`.
    unsafe { b::objpool_fini(pool) }
}

/// `objpool_drop()`: an object of a finished pool is freed (and the pool
/// with its last one).
///
/// # Safety
/// `obj` is an object of `pool`, not in it.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub unsafe fn objpool_drop(obj: *mut c_void, pool: *mut ObjpoolHead) {
    // SAFETY: as this function's `# Safety`.
    unsafe { b::objpool_drop(obj, pool) };
}

/// `call_rcu(head, func)`.
///
/// # Safety
/// `head` is an unused `rcu_head` that stays allocated until `func` ran.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub unsafe fn call_rcu(head: *mut RcuHead, func: unsafe extern "C" fn(*mut RcuHead)) {
    // SAFETY: as this function's `# Safety`; `RcuHead` is `struct rcu_head`.
    unsafe {
        b::call_rcu(
            head.cast(),
            Some(core::mem::transmute::<
                unsafe extern "C" fn(*mut RcuHead),
                unsafe extern "C" fn(*mut b::callback_head),
            >(func)),
        )
    }
}

/// `arch_prepare_kretprobe()`: the arch saves the return address and frame
/// of `regs` in `ri` and redirects the return to its trampoline.
///
/// # Safety
/// `ri` is an instance the caller owns, `regs` the frame of a kprobe hit at
/// a function's entry on the current task.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[inline]
pub unsafe fn arch_prepare_kretprobe(ri: *mut KretprobeInstance, regs: *mut PtRegs) {
    // SAFETY: as this function's `# Safety`; `KretprobeInstance` is `struct
    // kretprobe_instance` (types.rs).
    unsafe { b::arch_prepare_kretprobe(ri.cast(), regs) }
}

/// `arch_kretprobe_fixup_return()` (the shim has the `__weak` default).
///
/// # Safety
/// `regs` is the kretprobe trampoline's frame on this CPU.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[inline]
pub unsafe fn arch_kretprobe_fixup_return(regs: *mut PtRegs, correct_ret_addr: *mut KprobeOpcode) {
    // SAFETY: as this function's `# Safety`.
    unsafe { b::arch_kretprobe_fixup_return(regs, correct_ret_addr) }
}

/// `pr_err("kretprobe: Return address not found, ...")` (the shim's, with
/// upstream's `pr_fmt`) and `BUG_ON(1)`: `BUG()`, as the kernel crate's
/// panic handler calls it, which does not return.  Always inlined: the
/// trampoline handler, a trap-path function, makes no out-of-line Rust
/// call (an out-of-line copy would not be on the kprobe blacklist).
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[inline(always)]
pub fn kretprobe_no_ret_addr() -> ! {
    // SAFETY: takes no argument; callable in any context.
    unsafe { kprobes_rust_kretprobe_no_ret_addr() };
    // SAFETY: `BUG()` takes nothing; the kernel stops here, as upstream's
    // `BUG_ON(1)` does.
    unsafe { b::BUG() }
}

/// `&tsk->kretprobe_instances.first`, a task's list of kretprobe instances
/// in flight (newest first).
///
/// # Invariants
/// Points to the `first` field of a live task's `kretprobe_instances`
/// that no one else changes while the handle is used.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub struct TaskInstances(*mut *mut LlistNode);

#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
impl TaskInstances {
    /// The first node, or null.
    #[inline(always)]
    pub fn get(&self) -> *mut LlistNode {
        // SAFETY: a live field no one else changes (type invariant).
        unsafe { self.0.read() }
    }

    /// Sets the first node.
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "stores the pointer value, never dereferences it"
    )]
    pub fn set(&self, n: *mut LlistNode) {
        // SAFETY: as for `get()`.
        unsafe { self.0.write(n) }
    }

    /// Sets the first node, returning the old one.
    #[inline(always)]
    pub fn replace(&self, n: *mut LlistNode) -> *mut LlistNode {
        let old = self.get();
        self.set(n);
        old
    }
}

/// The list of kretprobe instances of `tsk`.
///
/// # Safety
/// `tsk` is live, and the current task or one that is not running (dead,
/// for a writer): no one else changes its list while the handle is used.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[inline(always)]
pub unsafe fn task_kretprobe_instances(tsk: *mut TaskStruct) -> TaskInstances {
    // SAFETY: `tsk` is live (this function's `# Safety`); only the field's
    // address is computed.  `LlistNode` is `struct llist_node`.
    let first = unsafe { core::ptr::addr_of_mut!((*tsk).kretprobe_instances.first) };
    // INVARIANT: this function's `# Safety`.
    TaskInstances(first.cast())
}
