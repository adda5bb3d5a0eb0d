// SPDX-License-Identifier: GPL-2.0

//! Boot: `init_kprobes()` (early initcall) and `init_optprobes()` (subsys
//! initcall).  The initcall entries, notifier blocks, sysctl table and
//! debugfs files are C tables in the shim that call in here.  Port of that
//! part of `kernel/kprobes.c`.

use crate::ffi::c_int;
#[cfg(CONFIG_OPTPROBES)]
use crate::opt;
use crate::state;
use crate::sys;
use crate::views::Boot;

/// `init_kprobes()`.  `boot`, taken by value, proves that this is the
/// early initcall's one run, which its accesses to boot-time data and its
/// once-only registrations rely on.
#[inline(always)]
pub fn init_kprobes(boot: Boot<'_>) -> c_int {
    // The table's buckets are statically empty (upstream re-initializes
    // them here; nothing can have hashed a probe before this initcall).
    if let Err(e) = crate::blacklist::populate(boot.kprobe_blacklist_section()) {
        let err = e.to_errno();
        crate::kp_pr!(
            err,
            "Failed to populate blacklist (error {err}), kprobes not restricted, be careful using them!\n"
        );
    }

    let bl = sys::kretprobe_blacklist();
    if !bl.is_null() {
        // Lookup the function address from its name.  The arch's table ends
        // with a null name; `boot` proves that no other CPU is up and nothing
        // registered a kretprobe yet, so nobody reads the entries' `addr`
        // while they are written.
        let mut e = bl;
        loop {
            // SAFETY: `e` is an entry of the table, up to its end (the loop
            // stops there); its name is not written.
            let name = unsafe { (*e).name };
            if name.is_null() {
                break;
            }
            // SAFETY: `name` is a C string of the arch's table.
            let addr = unsafe { sys::kprobe_lookup_name(name, 0) }.cast();
            // SAFETY: `e` is an entry; nobody reads its `addr` yet (`boot`).
            unsafe { (*e).addr = addr };
            if addr.is_null() {
                // SAFETY: `name` is a C string.
                unsafe {
                    sys::printk_s(
                        c"\x013kprobes: Failed to lookup symbol '%s' for kretprobe blacklist. \
                          Maybe the target function is removed or renamed.\n",
                        name,
                    )
                };
            }
            e = e.wrapping_add(1);
        }
    }

    // By default, kprobes are armed.
    state::set_all_disarmed(&crate::locks::kprobe_mutex(), false);

    // Init 'kprobe_optinsn_slots' for allocation.
    // SAFETY: `boot` proves that no other CPU is up and the core is not in
    // use yet, so nothing allocates optinsn slots while this is written.
    #[cfg(CONFIG_OPTPROBES)]
    unsafe {
        (*sys::optinsn_slots()).insn_size = sys::max_optinsn_size()
    };
    // The optimizer's thread (mainline; 6.12's optimizer is delayed work).
    // `boot`, taken by value, proves the early initcall's one run: each of
    // the calls below is made once, at boot.
    // SAFETY: once, at boot (`boot`).
    #[cfg(CONFIG_OPTPROBES)]
    unsafe {
        sys::start_optimizer()
    };

    // SAFETY: once, at boot (`boot`).
    let mut err = unsafe { sys::arch_init_kprobes() };
    if err == 0 {
        // SAFETY: once, at boot (`boot`).
        err = unsafe { sys::register_die_notifier() };
    }
    #[cfg(CONFIG_MODULES)]
    if err == 0 {
        // SAFETY: once, at boot (`boot`).
        err = unsafe { sys::register_module_notifier() };
    }

    state::set_initialized(err == 0);
    // The sysctl is the optimizer's (`debug.kprobes-optimization`).
    // SAFETY: once, at boot (`boot`).
    #[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
    unsafe {
        sys::kprobe_sysctls_init()
    };
    err
}

/// `init_optprobes()`, called by the C shim's subsys initcall.
#[cfg(CONFIG_OPTPROBES)]
#[no_mangle]
pub extern "C" fn kprobes_rust_init_optprobes() -> c_int {
    init_optprobes()
}

#[cfg(CONFIG_OPTPROBES)]
/// `init_optprobes()`: enables kprobe optimization.  This kicks the
/// optimizer, which depends on synchronize_rcu_tasks() and ksoftirqd, that
/// is not spawned in early initcall; so it is delayed to here.
pub fn init_optprobes() -> c_int {
    opt::optimize_all_kprobes();
    0
}
