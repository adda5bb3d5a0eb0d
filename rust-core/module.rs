// SPDX-License-Identifier: GPL-2.0

//! Probes on code that goes away: the module notifier (probes on a going
//! module's text, or on its init text once it is live, become `[GONE]`),
//! `kprobe_free_init_mem()` for the kernel's own init text, and the
//! per-module blacklist updates.  Port of that part of `kernel/kprobes.c`.

#[cfg(CONFIG_MODULES)]
use crate::ffi::{c_int, c_ulong};
use crate::ftrace;
use crate::locks::{self, KprobeMutex};
use crate::opt;
use crate::probe::Hashed;
use crate::registry;
use crate::state;
use crate::sys;
#[cfg(CONFIG_MODULES)]
use crate::sys::Module;
use crate::types::KPROBE_FLAG_GONE;

/// `kill_kprobe()`: sets the kprobe gone and removes its instruction
/// buffer (its text is going away: nothing runs it any more).
pub fn kill_kprobe(km: &KprobeMutex, p: Hashed<'_>) {
    sys::lockdep_assert_held_kprobe_mutex();
    // The module is going away. We should disarm the kprobe which is using
    // ftrace, because ftrace framework is still available at
    // 'MODULE_STATE_GOING' notification.
    if p.ftrace() && !p.disabled() && !state::all_disarmed() {
        // Its error is ignored, as upstream (the ops warn).
        let _ = ftrace::disarm_kprobe_ftrace(km, p);
    }

    p.set_flags(km, KPROBE_FLAG_GONE);
    if let Some(ap) = p.aggr() {
        // If this is an aggr_kprobe, we have to list all the chained probes
        // and mark them GONE.
        ap.for_each_child(km, |c| {
            c.set_flags(km, KPROBE_FLAG_GONE);
            true
        });
        p.set_post_handler(km, None);
        opt::kill_optimized_kprobe(km, ap);
    }
    // Here, we can remove insn_slot safely, because no thread calls the
    // original probed function (which will be freed soon) any more.
    // SAFETY: `p` is hashed, so its slot was allocated by its preparation, and
    // its text is going away, so no CPU will execute from the slot again.
    unsafe { sys::arch_remove_kprobe(p.as_ptr()) };
}

/// `MODULE_STATE_LIVE`, `MODULE_STATE_COMING`, `MODULE_STATE_GOING`.
#[cfg(CONFIG_MODULES)]
pub use sys::{MODULE_STATE_COMING, MODULE_STATE_GOING, MODULE_STATE_LIVE};

/// `kprobes_module_callback()`: the module notifier.
///
/// # Safety
/// Called by the module notifier chain with a live module.
#[cfg(CONFIG_MODULES)]
pub unsafe fn module_callback(val: c_ulong, m: *mut Module) -> c_int {
    let checkcore = val == MODULE_STATE_GOING;
    // SAFETY: `m` is the notifier's module (this function's `# Safety`), as
    // `ModuleView::from_raw()` requires; the view ends with the call.
    let mv = unsafe { crate::views::ModuleView::from_raw(m) };

    if val == MODULE_STATE_COMING {
        crate::blacklist::add_module(&locks::kprobe_mutex(), &mv);
    }
    if val != MODULE_STATE_GOING && val != MODULE_STATE_LIVE {
        return sys::NOTIFY_DONE;
    }

    // When 'MODULE_STATE_GOING' was notified, both of module '.text' and
    // '.init.text' sections would be freed. When 'MODULE_STATE_LIVE' was
    // notified, only '.init.text' section would be freed. We need to
    // disable kprobes which have been inserted in the sections.
    let km = locks::kprobe_mutex();
    registry::for_each_hashed(&km, |p| {
        let a = p.addr() as usize;
        if mv.within_init(a) || (checkcore && mv.within_core(a)) {
            // The vaddr this probe is installed will soon be vfreed but
            // not synced to disk. Hence, disarming the breakpoint isn't
            // needed.
            //
            // Note, this will also move any optimized probes that are
            // pending to be removed from their corresponding lists to
            // the 'freeing_list' and will not be touched by the delayed
            // kprobe_optimizer() work handler.
            kill_kprobe(&km, p);
        }
    });
    if val == MODULE_STATE_GOING {
        crate::blacklist::remove_module(&km, &mv);
    }
    drop(km);
    sys::NOTIFY_DONE
}

/// `kprobe_free_init_mem()`: kills all kprobes on the kernel's init text,
/// which is about to be freed.
pub fn kprobe_free_init_mem() {
    let (start, end) = sys::init_area();
    let km = locks::kprobe_mutex();
    // Kill all kprobes on initmem because the target code has been freed.
    registry::for_each_hashed(&km, |p| {
        let a = p.addr() as usize;
        if start <= a && a < end {
            kill_kprobe(&km, p);
        }
    });
}
