// SPDX-License-Identifier: GPL-2.0

//! Return probes: registration and unregistration, the part of
//! `kernel/kprobes.c` that both kinds of kretprobe share.  What holds the
//! instances and how the return is hooked is the backend's: rethook
//! (`CONFIG_KRETPROBE_ON_RETHOOK`, x86_64: `kretprobe_rethook.rs`) or the
//! architecture's own trampoline with an object pool of instances
//! (`!CONFIG_KRETPROBE_ON_RETHOOK`, arm64 in 6.12: `kretprobe_objpool.rs`).
//! A backend provides `pre_handler_kretprobe()` (the entry probe's
//! pre-handler), `alloc_instances()` (at registration, after the
//! pre-handler is set; sets `nmissed` to 0), `free_instances()` (the entry
//! probe's registration failed), `detach()` (unregistration, under
//! `kprobe_mutex`) and `release()` (after the grace period).
//!
//! One intended divergence from upstream (see
//! `tools/testing/differential/divergences.txt`): upstream's
//! `unregister_kretprobes()` frees the rethook (`rethook_free(rp->rh)`) or
//! detaches the pool holder (`rp->rph->rp = NULL`) unconditionally, which
//! oopses on a kretprobe that was never registered, or whose registration
//! failed (`rp->rh`/`rp->rph` null), and frees the rethook a second time
//! on a second unregister.  Here a null `rh`/`rph` is skipped, and `rh` is
//! cleared once the grace period after unregistration has passed (`rph`
//! is cleared by upstream's own `free_rp_inst()`).

use crate::addr;
use crate::error::{code::*, Result};
use crate::ffi::{c_int, c_ulong, c_void};
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
use crate::kretprobe_objpool as backend;
#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
use crate::kretprobe_rethook as backend;
use crate::probe::{Probe, RetProbe, RetProbeArray};
use crate::register::{self, Member, Registration};
use crate::sys;

pub use backend::pre_handler_kretprobe;

/// `KRETPROBE_MAX_DATA_SIZE`.
pub const KRETPROBE_MAX_DATA_SIZE: usize = 4096;

/// `register_kretprobe()`; process context.
pub fn register_kretprobe(r: RetProbe<'_>) -> Result {
    register_kretprobe_with(r, Registration::Alone)
}

/// A member of `register_kretprobes()` registers as [`register_kretprobe`]
/// (in a batch with `kprobe_mutex` held throughout, see
/// `register::register_kprobe_locked()`; `rethook_alloc()` may sleep and
/// allocate, as the aggregate allocation under the mutex does); its
/// unregistration detaches its instances and, after the grace period,
/// releases them (the backend's).
impl<'a> Member<'a> for RetProbe<'a> {
    fn kp(self) -> Probe<'a> {
        RetProbe::kp(self)
    }

    fn register(self, how: Registration<'_>) -> Result {
        register_kretprobe_with(self, how)
    }

    fn detach(self) {
        backend::detach(self)
    }

    fn release(self, unregistered: bool) {
        // After the grace period no pre-handler still reads the instances'
        // holder.
        backend::release(self, unregistered)
    }
}

/// `register_kretprobe()`, alone or in a batch (`how`).
fn register_kretprobe_with(r: RetProbe<'_>, how: Registration<'_>) -> Result {
    let kp = r.kp();
    how.check_entry(kp)?;

    let bl = sys::kretprobe_blacklist();
    if !bl.is_null() {
        let mut on_func_entry = false;
        let a = addr::kprobe_addr(
            kp.addr(),
            kp.symbol(),
            kp.offset() as c_ulong,
            &mut on_func_entry,
        )?;
        let mut i = 0;
        // SAFETY: `kretprobe_blacklist` is the kernel's static table, ended by a
        // null name and never written after init.
        unsafe {
            while !(*bl.add(i)).name.is_null() {
                if (*bl.add(i)).addr == a.cast::<c_void>() {
                    return Err(EINVAL);
                }
                i += 1;
            }
        }
    }

    let rp = r.as_ptr();
    // `rp` is live and not registered yet (a `RetProbe`; `register_kprobe()`
    // below refuses a re-registration), so its fields may be read and written
    // plainly: the reason of each unsafe access below.
    // SAFETY: as said above.
    if unsafe { (*rp).data_size } > KRETPROBE_MAX_DATA_SIZE {
        return Err(E2BIG);
    }
    // SAFETY: as said above.
    unsafe {
        (*rp).kp.pre_handler = Some(pre_handler_kretprobe);
        (*rp).kp.post_handler = None;
    }
    // Pre-allocate memory for max kretprobe instances.
    // SAFETY: as said above.
    if unsafe { (*rp).maxactive } <= 0 {
        // SAFETY: as said above.
        unsafe { (*rp).maxactive = core::cmp::max(10, 2 * sys::num_possible_cpus()) as c_int };
    }
    // We may sleep (process context) in the backend's allocation.
    backend::alloc_instances(r)?;
    // Establish function entry probe point.
    let ret = how.register_kprobe(kp);
    if ret.is_err() {
        backend::free_instances(r);
    }
    ret
}

/// `register_kretprobes()`: all or nothing.
///
/// Batched as `register_kprobes()` (`register.rs`): one hold of
/// `kprobe_mutex`, the ftrace entry probes armed with one
/// `ftrace_set_filter_ips()` per ops before it is released; on a failing
/// member or arming, the members registered so far are unregistered and
/// the error returned.  An array of one is `register_kretprobe()`.
pub fn register_kretprobes(rps: RetProbeArray<'_>) -> Result {
    register::register_members(rps)
}

/// `unregister_kretprobes()`: the kretprobes are distinct.  Batched as
/// `unregister_kprobes()` (`register.rs`, which says why a hit between a
/// member's unhash and the batch's disarm is harmless).
pub fn unregister_kretprobes(rps: RetProbeArray<'_>) {
    register::unregister_members(rps)
}
