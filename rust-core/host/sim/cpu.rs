// SPDX-License-Identifier: GPL-2.0

//! The (single simulated) CPU: the per-CPU variables the handlers write,
//! preemption, `num_possible_cpus()`, and the workqueue that runs the
//! optimizer's delayed work (traced as `~work queued` / `~work run`).

use super::image::{image, model};
use super::link;
use super::text::arch;
use super::trace::{ev, hd_fatal};
use super::KPROBE_HIT_ACTIVE;
use crate::ffi::{c_uint, c_ulong};
use crate::types::{Kprobe, PreemptOff};
use std::cell::RefCell;

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
    /// arch.c's `hd_ftrace_recursion`: nested ftrace handler calls
    /// (`ftrace_test_recursion_trylock()`).
    pub ftrace_recursion: usize,
    /// model.c's `hd_relax_count`: `cpu_relax()` calls since the driver
    /// reset it.
    pub relax_count: usize,
    /// A C program's `current_kprobe` and `kprobe_ctlblk.kprobe_status`
    /// ([`set_percpu_cells`]), which then hold the two values instead of
    /// `current_kprobe` and `kprobe_status` above.
    cells: Option<(*mut *mut Kprobe, *mut c_ulong)>,
}

thread_local! {
    static CPU: RefCell<Cpu> = RefCell::new(Cpu::default());
}

/// Runs `f` on this thread's CPU state.
pub fn cpu<R>(f: impl FnOnce(&mut Cpu) -> R) -> R {
    CPU.with(|c| f(&mut c.borrow_mut()))
}

/// `__this_cpu_write(kprobe_instance, kp)`.
pub fn set_kprobe_instance(_po: PreemptOff<'_>, kp: *mut Kprobe) {
    cpu(|c| c.instances.push(kp as usize));
}

/// `reset_kprobe_instance()`.
pub fn reset_kprobe_instance(_po: PreemptOff<'_>) {
    set_kprobe_instance(_po, core::ptr::null_mut());
}

/// `__this_cpu_write(current_kprobe, NULL)`.
pub fn clear_current_kprobe(_po: PreemptOff<'_>) {
    set_current_kprobe(_po, core::ptr::null_mut());
}

/// `kprobe_status = KPROBE_HIT_ACTIVE`.
pub fn set_kprobe_status_hit_active(_po: PreemptOff<'_>) {
    set_kprobe_status(_po, KPROBE_HIT_ACTIVE);
}

/// `__this_cpu_write(current_kprobe, p)`.
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`p` is stored, not dereferenced (the cell is the one written)"
)]
pub fn set_current_kprobe(_po: PreemptOff<'_>, p: *mut Kprobe) {
    cpu(|c| match c.cells {
        // SAFETY: the cells are valid while they are set
        // (`set_percpu_cells()`'s `# Safety`), by this thread alone.
        Some((cur, _)) => unsafe { cur.write(p) },
        None => c.current_kprobe = p as usize,
    });
}

/// `kprobe_running()`: `current_kprobe`.
pub fn current_kprobe() -> *mut Kprobe {
    cpu(|c| match c.cells {
        // SAFETY: as in `set_current_kprobe()`.
        Some((cur, _)) => unsafe { cur.read() },
        None => c.current_kprobe as *mut Kprobe,
    })
}

/// `get_kprobe_ctlblk()->kprobe_status = status`.
pub fn set_kprobe_status(_po: PreemptOff<'_>, status: c_ulong) {
    cpu(|c| match c.cells {
        // SAFETY: as in `set_current_kprobe()`.
        Some((_, st)) => unsafe { st.write(status) },
        None => c.kprobe_status = status,
    });
}

/// `get_kprobe_ctlblk()->kprobe_status`.
pub fn kprobe_status() -> c_ulong {
    cpu(|c| match c.cells {
        // SAFETY: as in `set_current_kprobe()`.
        Some((_, st)) => unsafe { st.read() },
        None => c.kprobe_status,
    })
}

/// From now on this thread's `current_kprobe` and `kprobe_status` are the
/// C variables `current` and `status` (a C program's, which upstream
/// `kprobes.c` reads and writes itself: `libkpsim.a`), until
/// [`clear_percpu_cells`].
///
/// # Safety
/// `current` and `status` are valid for reads and writes until the thread
/// ends or calls [`clear_percpu_cells`], and nothing else accesses them
/// meanwhile.
pub unsafe fn set_percpu_cells(current: *mut *mut Kprobe, status: *mut c_ulong) {
    cpu(|c| c.cells = Some((current, status)));
}

/// Back to this thread's own `current_kprobe` and `kprobe_status`.
pub fn clear_percpu_cells() {
    cpu(|c| c.cells = None);
}

/// `preempt_disable()`.
pub fn preempt_disable() {
    cpu(|c| c.preempt += 1);
    image(|i| i.lock_log.push("preempt_disable"));
}

/// `preempt_enable()`.
///
/// # Safety
/// Ends a section that `preempt_disable()` began on this CPU.
pub unsafe fn preempt_enable() {
    image(|i| i.lock_log.push("preempt_enable"));
    if cpu(|c| c.preempt) <= 0 {
        // model.c's fatal error, else a failed assertion.
        if model() {
            hd_fatal(format_args!("preempt_enable underflow"));
        }
        panic!("unbalanced preempt_enable");
    }
    cpu(|c| c.preempt -= 1);
}

/// `schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY)`: traced as
/// `~work queued` when the work becomes pending (model.c).
pub fn kick_optimizer() {
    if !arch(|a| std::mem::replace(&mut a.optimizer_pending, true)) {
        ev("~work queued".into());
    }
}

/// One round of `wait_for_kprobe_optimizer()` (`sys_kernel.rs`): with
/// `kprobe_mutex` released, the work runs now if queued (a flush of
/// 6.12's delayed work; mainline's thread runs a pass then too, as its
/// queues are only busy after a kick), then a relax.
///
/// # Safety
/// `kprobe_mutex` is held.
pub unsafe fn wait_optimizer_pass() {
    super::kprobe_mutex_unlock();
    run_optimizer();
    cpu_relax();
    super::kprobe_mutex_lock();
}

/// The end of an optimizer pass: nothing waits on the simulated work.
pub fn optimizer_pass_done() {}

/// The optimizer thread's sleep: the simulation has no thread (its work
/// queue runs the passes), so the thread function would return at once.
pub fn optimizer_sleep() -> bool {
    false
}

/// Starts the optimizer's thread: none in the simulation.
///
/// # Safety
/// Called once, at boot (`init_kprobes()`).
pub unsafe fn start_optimizer() {}

/// Runs the optimizer's delayed work if it is queued, traced as `~work
/// run` (the simulated workqueue; tests call it to let "time pass", as the
/// host differential's `optimize` operation, whose `~work idle` when
/// nothing is queued is the driver's note, not the kernel's).
pub fn run_optimizer() {
    if arch(|a| std::mem::take(&mut a.optimizer_pending)) {
        ev("~work run".into());
        // SAFETY: the work function takes no argument; the simulated
        // workqueue runs it in process context with no lock held, as the
        // kernel's does.
        unsafe { link::kprobes_rust_optimizer_work() };
    }
}

/// `cpu_relax()`; with [`Image::as_model`](super::Image::as_model),
/// model.c's `hd_cpu_relax()`: more than 1000 calls since the driver's
/// last [`hd_relax_reset`] are a hang, fatal.
pub fn cpu_relax() {
    if model()
        && cpu(|c| {
            c.relax_count += 1;
            c.relax_count > 1000
        })
    {
        hd_fatal(format_args!(
            "hang: wait_for_kprobe_optimizer() does not finish"
        ));
    }
}

/// The driver's `hd_relax_count = 0` (before `sysctl-opt`,
/// `debugfs-enabled` and `optimize-wait`).
pub fn hd_relax_reset() {
    cpu(|c| c.relax_count = 0);
}

/// `num_possible_cpus()`.
pub fn num_possible_cpus() -> c_uint {
    arch(|a| a.possible_cpus)
}
