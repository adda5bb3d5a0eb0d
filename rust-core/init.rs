// SPDX-License-Identifier: GPL-2.0

//! Boot: `init_kprobes()` (early initcall) and `init_optprobes()` (subsys
//! initcall).  The initcall entries, notifier blocks, sysctl table and
//! debugfs files are C tables in the shim that call in here.  Port of that
//! part of `kernel/kprobes.c`.

use crate::ffi::c_int;
use crate::opt;
use crate::state;
use crate::sys;

/// `init_kprobes()`.
///
/// # Safety
/// Called once, at boot, by the early initcall.
#[inline(always)]
pub unsafe fn init_kprobes() -> c_int {
    // The table's buckets are statically empty (upstream re-initializes
    // them here; nothing can have hashed a probe before this initcall).
    // SAFETY: boot, single-threaded; the linker section bounds.
    let mut err = unsafe { crate::blacklist::populate(sys::kprobe_blacklist_start(), sys::kprobe_blacklist_end()) };
    if err != 0 {
        sys::printk_i(
            c"\x013kprobes: Failed to populate blacklist (error %d), kprobes not restricted, be careful using them!\n",
            err,
        );
    }

    let bl = sys::kretprobe_blacklist();
    if !bl.is_null() {
        // Lookup the function address from its name.
        let mut i = 0;
        // SAFETY: the arch's table ends with a null name.
        unsafe {
            while !(*bl.add(i)).name.is_null() {
                let e = bl.add(i);
                (*e).addr = sys::kprobe_lookup_name((*e).name, 0).cast();
                if (*e).addr.is_null() {
                    sys::printk_s(
                        c"\x013kprobes: Failed to lookup symbol '%s' for kretprobe blacklist. Maybe the target function is removed or renamed.\n",
                        (*e).name,
                    );
                }
                i += 1;
            }
        }
    }

    // By default, kprobes are armed.
    state::set_all_disarmed(&crate::locks::kprobe_mutex(), false);

    // Init 'kprobe_optinsn_slots' for allocation.
    // SAFETY: boot; nothing allocates optinsn slots before this.
    unsafe { (*sys::optinsn_slots()).insn_size = sys::max_optinsn_size() };

    err = sys::arch_init_kprobes();
    if err == 0 {
        err = sys::register_die_notifier();
    }
    #[cfg(CONFIG_MODULES)]
    if err == 0 {
        err = sys::register_module_notifier();
    }

    state::set_initialized(err == 0);
    #[cfg(CONFIG_SYSCTL)]
    sys::kprobe_sysctls_init();
    err
}

/// `init_optprobes()`: enables kprobe optimization.  This kicks the
/// optimizer, which depends on synchronize_rcu_tasks() and ksoftirqd, that
/// is not spawned in early initcall; so it is delayed to here.
pub fn init_optprobes() -> c_int {
    opt::optimize_all_kprobes();
    0
}
