// SPDX-License-Identifier: GPL-2.0

//! hostdiff-rust's `sys` (`cfg(KP_MODEL)`, `rust-core/kprobes_core.rs`):
//! the simulated kernel of the host tests (`crate::sim`,
//! `rust-core/host/sim.rs`), the very one whose C ABI (`abi.rs`,
//! `crate::kpsim_abi`) serves the program's C side (`driver.c`, the
//! kernel build's shim in `rshim.c`, `kpsim.c`): one simulated kernel per
//! program, as `libkpsim.a` is upstream's file's.
//!
//! The core calls the simulation's functions directly, as in its host
//! tests, but for the services whose state the C side keeps and the
//! driver reads: those take the kernel build's way (`sys_kernel.rs`),
//! through the shim's wrapper or the C function, so that the shim's
//! static data is the one used (the optimizer's delayed work, the two
//! ftrace ops, the module notifier block, the sysctl table) and `abi.rs`
//! keeps the C side in step as for upstream's file (each ops' filter and
//! `hd_ftrace_ops[]`, `hd_task_rethooks`; the
//! driver's `hd_frame`, `hd_init_freed` and `hd_relax_count` read in), and
//! `seq_printf()` is `kpsim.c`'s, whose buffer the driver frees.  No
//! simulated kernel logic lives here.

pub use crate::sim::*;

use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use crate::kpsim_abi as abi;

// The kernel build's shim (`c-shim/kprobes_shim.c`, in `rshim.c`) and
// `kpsim.c`'s `seq_printf()`.
extern "C" {
    fn kprobes_rust_ftrace_ops(ipmodify: bool) -> *mut FtraceOps;
    fn kprobes_rust_kick_optimizer();
    fn kprobes_rust_flush_optimizer();
    fn kprobes_rust_register_module_notifier() -> c_int;
    fn kprobes_rust_sysctls_init();
    fn seq_printf(m: *mut SeqFile, fmt: *const c_char, ...);
}

/// `ftrace_set_filter_ip(ops, ip, remove, 0)` on the shim's
/// `kprobe_ipmodify_ops` (`ipmodify`) or `kprobe_ftrace_ops`.
pub fn ftrace_set_filter_ip(ipmodify: bool, ip: usize, remove: bool) -> c_int {
    // SAFETY: the shim's static ops.
    unsafe {
        abi::ftrace_set_filter_ip(
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
    // SAFETY: the shim's static ops; `ips` holds `ips.len()` addresses
    // (`usize` is `unsigned long` here).
    unsafe {
        abi::ftrace_set_filter_ips(
            kprobes_rust_ftrace_ops(ipmodify),
            ips.as_ptr().cast::<c_ulong>(),
            ips.len() as c_uint,
            remove as c_int,
            0,
        )
    }
}

/// `register_ftrace_function()` of one of the shim's two ops.
pub fn register_ftrace_function(ipmodify: bool) -> c_int {
    // SAFETY: the shim's static ops.
    unsafe { abi::register_ftrace_function(kprobes_rust_ftrace_ops(ipmodify)) }
}

/// `unregister_ftrace_function()` of one of the shim's two ops.
pub fn unregister_ftrace_function(ipmodify: bool) -> c_int {
    // SAFETY: the shim's static ops.
    unsafe { abi::unregister_ftrace_function(kprobes_rust_ftrace_ops(ipmodify)) }
}

/// `schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY)` (the shim's
/// work).
pub fn kick_optimizer() {
    // SAFETY: the shim's wrapper of its static work.
    unsafe { kprobes_rust_kick_optimizer() }
}

/// One round of `wait_for_kprobe_optimizer()`: `kprobe_mutex` released,
/// the work flushed (run if queued), relax, the mutex taken again.
///
/// # Safety
/// `kprobe_mutex` is held (as `sys_kernel.rs`'s).
pub unsafe fn wait_optimizer_pass() {
    kprobe_mutex_unlock();
    // SAFETY: the model shim's wrapper of its static work.
    unsafe { kprobes_rust_flush_optimizer() };
    cpu_relax();
    kprobe_mutex_lock();
}

/// `cpu_relax()`: the model's, which the driver's `hd_relax_count` counts
/// (`cpu_relax()` in the model's C, `include/kstub.h`).
pub fn cpu_relax() {
    abi::hd_cpu_relax()
}

/// `core_kernel_text()` (after the driver's `free-init`, `hd_init_freed`).
pub fn core_kernel_text(addr: usize) -> bool {
    abi::core_kernel_text(addr as c_ulong) != 0
}

/// `kernel_text_address()`.
pub fn kernel_text_address(addr: usize) -> bool {
    abi::kernel_text_address(addr as c_ulong) != 0
}

/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from `rethook_try_get()` and is not used after.
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: this function's `# Safety`.
    unsafe { abi::rethook_recycle(n) }
}

/// `rethook_hook()` (on the driver's current frame, `hd_frame`).
///
/// # Safety
/// `n` came from `rethook_try_get()`.
pub unsafe fn rethook_hook(n: *mut RethookNode, regs: *mut PtRegs, mcount: bool) {
    // SAFETY: this function's `# Safety`.
    unsafe { abi::rethook_hook(n, regs, mcount) }
}

/// `register_module_notifier(&kprobe_module_nb)` (the shim's block, which
/// the driver calls).
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): a notifier block is
/// registered at most once.
pub unsafe fn register_module_notifier() -> c_int {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { kprobes_rust_register_module_notifier() }
}

/// `kprobe_sysctls_init()` (the shim's table, which the driver writes
/// through).
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): the table is registered at
/// most once, and its code is `__init`.
pub unsafe fn kprobe_sysctls_init() {
    // SAFETY: once, at boot (this function's `# Safety`).
    unsafe { kprobes_rust_sysctls_init() }
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
