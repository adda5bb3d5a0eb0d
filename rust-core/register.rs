// SPDX-License-Identifier: GPL-2.0

//! Registration: `register_kprobe()` and friends, aggregate management
//! (a second probe at an address turns the first into a child of an
//! aggregate), enable/disable and the two-phase unregistration (unhash
//! under `kprobe_mutex`, one RCU grace period, then free).  Port of that
//! part of `kernel/kprobes.c`.

use crate::flags;
use crate::addr;
use crate::aggr::kprobe_aggrprobe;
use crate::arm;
use crate::ffi::{c_int, c_ulong};
use crate::list;
use crate::locks::{self, KprobeMutex, TextLocks};
use crate::opt;
use crate::registry::{self, lookup as get_kprobe};
use crate::state;
use crate::sys::{self, Module};
use crate::types::{Kprobe, ListHead, KPROBE_FLAG_DISABLED, KPROBE_FLAG_GONE, KPROBE_FLAG_ON_FUNC_ENTRY};
use core::ptr::{self, addr_of_mut};

/// The probe whose `list` member is `l`.
#[inline]
fn probe_of(l: *mut ListHead) -> *mut Kprobe {
    crate::container_of!(l, Kprobe, list)
}

/// `add_new_kprobe()`: adds `p` to aggregate `ap`.
///
/// # Safety
/// `ap` is a hashed aggregate, `p` a live probe on no list.
unsafe fn add_new_kprobe(tl: &TextLocks<'_>, ap: *mut Kprobe, p: *mut Kprobe) -> c_int {
    // SAFETY: `ap` is a hashed aggregate, `p` a live probe on no list (this
    // function's `# Safety`), and `tl` proves `kprobe_mutex`, `text_mutex` and the
    // CPU hotplug lock held, as the forced unoptimization and `list_add_rcu()` need.
    unsafe {
        if (*p).post_handler.is_some() {
            opt::unoptimize_kprobe(tl, ap, Some(tl)); // Fall back to normal kprobe.
        }
        list::list_add_rcu(addr_of_mut!((*p).list), addr_of_mut!((*ap).list));
        if (*p).post_handler.is_some() && (*ap).post_handler.is_none() {
            crate::once::write(addr_of_mut!((*ap).post_handler), Some(crate::aggr::aggr_post_handler));
        }
    }
    0
}

/// `register_aggr_kprobe()`: registers the second or subsequent kprobe at
/// the same address.
///
/// # Safety
/// `orig_p` is hashed at `p->addr`, `p` is live.
unsafe fn register_aggr_kprobe(km: &KprobeMutex, orig_p: *mut Kprobe, p: *mut Kprobe) -> c_int {
    let mut ret: c_int;
    let mut ap = orig_p;

    // For preparing optimization, jump_label_text_reserved() is called.
    let tl = locks::text_and_jump_label(km);

    // SAFETY: `orig_p` is hashed and `p` is live (this function's `# Safety`); `tl`
    // holds the CPU hotplug lock, `jump_label_lock` and `text_mutex` under
    // `kprobe_mutex`: what the preparation and `add_new_kprobe()` need.
    unsafe {
        'out: {
            if !kprobe_aggrprobe(orig_p) {
                // If 'orig_p' is not an 'aggr_kprobe', create new one.
                ap = opt::alloc_aggr_kprobe(&tl, orig_p);
                if ap.is_null() {
                    ret = -sys::ENOMEM;
                    break 'out;
                }
                opt::init_aggr_kprobe(km, ap, orig_p);
            } else if opt::kprobe_unused(km, ap) {
                // This probe is going to die. Rescue it.
                ret = opt::reuse_unused_kprobe(km, ap);
                if ret != 0 {
                    break 'out;
                }
            }

            if flags::gone(ap) {
                // Attempting to insert new probe at the same location that
                // had a probe in the module vaddr area which already freed.
                // So, the instruction slot has already been released. We
                // need a new slot for the new probe.
                ret = sys::arch_prepare_kprobe(ap);
                if ret != 0 {
                    // Even if fail to allocate new slot, don't need to free
                    // the 'ap'. It will be used next time, or freed by
                    // unregister_kprobe().
                    break 'out;
                }
                // Prepare optimized instructions if possible.
                opt::prepare_optimized_kprobe(&tl, ap);
                // Clear gone flag to prevent allocating new slot again, and
                // set disabled flag because it is not armed yet.
                flags::put(ap, (flags::get(ap) & !KPROBE_FLAG_GONE) | KPROBE_FLAG_DISABLED);
            }

            // Copy the insn slot of 'p' to 'ap'.
            opt::copy_kprobe(ap, p);
            ret = add_new_kprobe(&tl, ap, p);
        }
    }

    drop(tl);

    // SAFETY: `km` proves `kprobe_mutex` still held; on success `ap` is the hashed
    // aggregate at `p->addr` and `p` one of its children.
    unsafe {
        if ret == 0 && flags::disabled(ap) && !flags::disabled(p) {
            flags::clear(ap, KPROBE_FLAG_DISABLED);
            if !state::all_disarmed() {
                // Arm the breakpoint again.
                ret = arm::arm_kprobe(km, ap);
                if ret != 0 {
                    flags::set(ap, KPROBE_FLAG_DISABLED);
                    list::list_del_rcu(addr_of_mut!((*p).list));
                    sys::synchronize_rcu();
                }
            }
        }
    }
    ret
}

/// `__get_valid_kprobe()`: checks that `p` is registered and returns the
/// probe hashed at its address (`p` itself or its aggregate), else null.
///
/// # Safety
/// `p` is readable.
unsafe fn get_valid_kprobe(_km: &KprobeMutex, p: *mut Kprobe) -> *mut Kprobe {
    sys::lockdep_assert_held_kprobe_mutex();
    // SAFETY: `p` is readable (this function's `# Safety`) and `_km` proves
    // `kprobe_mutex` held: `get_kprobe()` may walk the table, and the hashed
    // aggregate's child list is stable for `iter_rcu()`.
    unsafe {
        let ap = get_kprobe((*p).addr);
        if ap.is_null() {
            return ptr::null_mut();
        }
        if p == ap {
            return ap;
        }
        for l in list::iter_rcu(addr_of_mut!((*ap).list)) {
            if probe_of(l) == p {
                // kprobe p is a valid probe.
                return ap;
            }
        }
    }
    ptr::null_mut()
}

/// `warn_kprobe_rereg()`: warns and fails if `p` is being re-registered,
/// since there must be a software bug.
///
/// # Safety
/// `p` is readable.
pub unsafe fn warn_kprobe_rereg(p: *mut Kprobe) -> c_int {
    let mut ret = 0;
    let km = locks::kprobe_mutex();
    // SAFETY: `p` is readable (this function's `# Safety`).
    if unsafe { !get_valid_kprobe(&km, p).is_null() } {
        crate::warn_once!();
        ret = -sys::EINVAL;
    }
    ret
}

/// `register_kprobe()`.
///
/// # Safety
/// `p` is a caller-owned `struct kprobe` (its `symbol_name` null or a C
/// string) that stays alive until it is unregistered; process context.
pub unsafe fn register_kprobe(p: *mut Kprobe) -> c_int {
    let mut on_func_entry = false;
    let mut probed_mod: *mut Module = ptr::null_mut();

    // SAFETY: `p` is caller-owned, stays alive until unregistered, has a valid
    // `symbol_name`, and we may sleep (this function's `# Safety`): what the address
    // checks and `register_locked()` need.
    unsafe {
        // Intended divergence: a live probe registered by `addr` with a
        // non-zero `offset` keeps both, so upstream resolves it to
        // addr + 2 * offset below, misses the re-registration and hashes
        // the live probe a second time (corrupting the table).  Detect it
        // at the registered address, as upstream does when offset is 0.
        if (*p).symbol_name.is_null() && (*p).offset != 0 && warn_kprobe_rereg(p) != 0 {
            return -sys::EINVAL;
        }
        // Adjust probe address from symbol.
        let a = addr::kprobe_addr((*p).addr, (*p).symbol_name, (*p).offset as c_ulong, &mut on_func_entry);
        if addr::is_err(a) {
            return addr::ptr_err(a);
        }
        (*p).addr = a;

        let ret = warn_kprobe_rereg(p);
        if ret != 0 {
            return ret;
        }

        // User can pass only KPROBE_FLAG_DISABLED to register_kprobe.
        flags::put(p, flags::get(p) & KPROBE_FLAG_DISABLED);
        (*p).nmissed = 0;
        list::init_list_head(addr_of_mut!((*p).list));

        let ret = addr::check_kprobe_address_safe(p, &mut probed_mod);
        if ret != 0 {
            return ret;
        }

        let ret = register_locked(&locks::kprobe_mutex(), p, on_func_entry);

        if !probed_mod.is_null() {
            sys::module_put(probed_mod);
        }
        ret
    }
}

/// The part of `register_kprobe()` under `kprobe_mutex`.
///
/// # Safety
/// As for [`register_kprobe`].
unsafe fn register_locked(km: &KprobeMutex, p: *mut Kprobe, on_func_entry: bool) -> c_int {
    // SAFETY: `p` is live and not hashed yet (this function's `# Safety`) and `km`
    // proves `kprobe_mutex` held: enough for `get_kprobe()`, `register_aggr_kprobe()`,
    // the flags, the hashing and `arm_kprobe()`; `prepare_kprobe()` also gets `text_mutex`.
    unsafe {
        if on_func_entry {
            flags::set(p, KPROBE_FLAG_ON_FUNC_ENTRY);
        }

        let old_p = get_kprobe((*p).addr);
        if !old_p.is_null() {
            // Since this may unoptimize 'old_p', locking 'text_mutex'.
            return register_aggr_kprobe(km, old_p, p);
        }

        // Prevent text modification.
        let ret = arm::prepare_kprobe(&locks::text(km), p);
        if ret != 0 {
            return ret;
        }

        registry::hash_probe(km, p);

        if !state::all_disarmed() && !flags::disabled(p) {
            let ret = arm::arm_kprobe(km, p);
            if ret != 0 {
                list::hlist_del_rcu(addr_of_mut!((*p).hlist));
                sys::synchronize_rcu();
                return ret;
            }
        }

        // Try to optimize kprobe.
        opt::try_to_optimize_kprobe(km, p);
    }
    0
}

/// `aggr_kprobe_disabled()`: are all probes of aggregate `ap` disabled?
///
/// # Safety
/// `ap` is a live aggregate.
unsafe fn aggr_kprobe_disabled(_km: &KprobeMutex, ap: *mut Kprobe) -> bool {
    sys::lockdep_assert_held_kprobe_mutex();
    // SAFETY: `ap` is a live aggregate (this function's `# Safety`) and `_km` proves
    // `kprobe_mutex` held, so its child list and the children are stable for `iter_rcu()`.
    unsafe {
        // Since there is an active probe on the list, we can't disable
        // this 'ap'.
        list::iter_rcu(addr_of_mut!((*ap).list)).all(|l| flags::disabled(probe_of(l)))
    }
}

/// `__disable_kprobe()`: disables `p` (and disarms the probe at its address
/// when nothing there is enabled any more); returns the hashed probe or,
/// as upstream, an `ERR_PTR()` (a pointer comes back in one register; a
/// `Result` would be returned through memory on every enable/disable).
///
/// # Safety
/// `p` is readable.
unsafe fn disable_locked(km: &KprobeMutex, p: *mut Kprobe) -> *mut Kprobe {
    sys::lockdep_assert_held_kprobe_mutex();
    // SAFETY: `p` is readable (this function's `# Safety`) and `km` proves `kprobe_mutex`;
    // `p` is written only once `get_valid_kprobe()` found it registered (so live),
    // and `orig_p` is hashed, and armed when it is disarmed, as `disarm_kprobe()` needs.
    unsafe {
        // Get an original kprobe for return.
        let orig_p = get_valid_kprobe(km, p);
        if orig_p.is_null() {
            return addr::err_ptr(-sys::EINVAL).cast();
        }

        if !flags::disabled(p) {
            // Disable probe if it is a child probe.
            if p != orig_p {
                flags::set(p, KPROBE_FLAG_DISABLED);
            }
            // Try to disarm and disable this/parent probe.
            if p == orig_p || aggr_kprobe_disabled(km, orig_p) {
                // Don't be lazy here. Even if 'kprobes_all_disarmed' is
                // false, 'orig_p' might not have been armed yet. Note
                // arm_all_kprobes() __tries__ to arm all kprobes on the best
                // effort basis.
                if !state::all_disarmed() && !flags::disabled(orig_p) {
                    let ret = arm::disarm_kprobe(km, orig_p, true);
                    if ret != 0 {
                        flags::clear(p, KPROBE_FLAG_DISABLED);
                        return addr::err_ptr(ret).cast();
                    }
                }
                flags::set(orig_p, KPROBE_FLAG_DISABLED);
            }
        }
        orig_p
    }
}

/// `__unregister_kprobe_top()`: unregisters `p` without waiting for a
/// grace period.
///
/// # Safety
/// `p` is readable.
pub unsafe fn unregister_top(km: &KprobeMutex, p: *mut Kprobe) -> c_int {
    // SAFETY: `p` is readable (this function's `# Safety`) and `km` proves `kprobe_mutex`;
    // past `disable_locked()`, `p` is registered and `ap` hashed, so the list and
    // hlist removals and `optimize_kprobe()` run under the lock they need.
    unsafe {
        // Disable kprobe. This will disarm it if needed.
        let ap = disable_locked(km, p);
        if addr::is_err(ap.cast()) {
            return addr::ptr_err(ap.cast());
        }

        if ap != p {
            // Following process expects this probe is an aggrprobe.
            if !kprobe_aggrprobe(ap) {
                sys::warn();
            }
            // !disarmed could happen if the probe is under delayed
            // unoptimizing.
            if !(list::list_is_singular(addr_of_mut!((*ap).list)) && opt::kprobe_disarmed(ap)) {
                // If disabling probe has special handlers, update aggrprobe.
                if (*p).post_handler.is_some() && !flags::gone(p) {
                    let other_post = list::iter_rcu(addr_of_mut!((*ap).list)).any(|l| {
                        let lp = probe_of(l);
                        lp != p && (*lp).post_handler.is_some()
                    });
                    // For the kprobe-on-ftrace case, we keep the
                    // post_handler setting to identify this aggrprobe armed
                    // with kprobe_ipmodify_ops.
                    if !other_post && !flags::ftrace(ap) {
                        crate::once::write(addr_of_mut!((*ap).post_handler), None);
                    }
                }
                // Remove from the aggrprobe: this path will do nothing in
                // __unregister_kprobe_bottom().
                list::list_del_rcu(addr_of_mut!((*p).list));
                if !flags::disabled(ap) && !state::all_disarmed() {
                    // Try to optimize this probe again, because post
                    // handler may have been changed.
                    opt::optimize_kprobe(km, ap);
                }
                return 0;
            }
        }
        // disarmed:
        list::hlist_del_rcu(addr_of_mut!((*ap).hlist));
    }
    0
}

/// `__unregister_kprobe_bottom()`: frees what `p` left after the grace
/// period.
///
/// # Safety
/// `unregister_top(p)` succeeded and a grace period has passed.
pub unsafe fn unregister_bottom(p: *mut Kprobe) {
    // SAFETY: `unregister_top(p)` succeeded and a grace period has passed (this
    // function's `# Safety`): no handler runs on `p`, and an aggregate left with `p`
    // alone was unhashed disarmed and off the optimizer's lists, so it may be freed.
    unsafe {
        let l = addr_of_mut!((*p).list);
        if list::list_empty(l) {
            // This is an independent kprobe.
            sys::arch_remove_kprobe(p);
        } else if list::list_is_singular(l) {
            // This is the last child of an aggrprobe.
            let ap = probe_of((*l).next);
            list::list_del(l);
            opt::free_aggr_kprobe(ap);
        }
        // Otherwise, do nothing.
    }
}

/// `register_kprobes()`: all or nothing.
///
/// # Safety
/// `kps` holds `num` (when `num > 0`) pointers to probes that meet
/// [`register_kprobe`]'s contract; process context.
pub unsafe fn register_kprobes(kps: *mut *mut Kprobe, num: c_int) -> c_int {
    let mut ret = 0;
    if num <= 0 {
        return -sys::EINVAL;
    }
    for i in 0..num as usize {
        // SAFETY: `i < num` and `kps[i]` meets `register_kprobe()`'s contract (this
        // function's `# Safety`).
        ret = unsafe { register_kprobe(*kps.add(i)) };
        if ret < 0 {
            if i > 0 {
                // SAFETY: the first `i` were registered.
                unsafe { unregister_kprobes(kps, i as c_int) };
            }
            break;
        }
    }
    ret
}

/// `unregister_kprobes()`.
///
/// # Safety
/// `kps` holds `num` (when `num > 0`) pointers to caller-owned (readable and
/// writable) probes; process context.
pub unsafe fn unregister_kprobes(kps: *mut *mut Kprobe, num: c_int) {
    if num <= 0 {
        return;
    }
    let n = num as usize;
    {
        let km = locks::kprobe_mutex();
        for i in 0..n {
            // SAFETY: `i < num` and `kps[i]` is a caller-owned probe (this function's
            // `# Safety`), as `unregister_top()` requires.
            unsafe {
                let p = *kps.add(i);
                if unregister_top(&km, p) < 0 {
                    crate::once::write(addr_of_mut!((*p).addr), ptr::null_mut());
                }
            }
        }
    }

    // Upstream waits with synchronize_rcu().  An expedited grace period is
    // the same guarantee (no handler still runs on these probes once it
    // returns) at a fraction of the cost: ~6.4 k guest instructions instead
    // of ~12 ms of guest time per call (bench row gp_*), which is most of
    // the cost of unregistering probes one by one (kprobe_events does).
    sys::synchronize_rcu_expedited();
    for i in 0..n {
        // SAFETY: `kps[i]` is valid (this function's `# Safety`); its `addr` is non-null
        // only if `unregister_top()` succeeded, and the grace period above has passed.
        unsafe {
            let p = *kps.add(i);
            if !(*p).addr.is_null() {
                unregister_bottom(p);
            }
        }
    }
}

/// `disable_kprobe()`.
///
/// # Safety
/// `kp` is readable.
#[inline] // into its C ABI body (exports.rs): one jump less per call
pub unsafe fn disable_kprobe(kp: *mut Kprobe) -> c_int {
    let km = locks::kprobe_mutex();
    // SAFETY: `kp` is readable (this function's `# Safety`), all that
    // `disable_locked()` requires.
    let ap = unsafe { disable_locked(&km, kp) };
    if addr::is_err(ap.cast()) { addr::ptr_err(ap.cast()) } else { 0 }
}

/// `enable_kprobe()`.
///
/// # Safety
/// `kp` is readable.
#[inline] // into its C ABI body (exports.rs): one jump less per call
pub unsafe fn enable_kprobe(kp: *mut Kprobe) -> c_int {
    let mut ret = 0;
    let km = locks::kprobe_mutex();
    // SAFETY: `kp` is readable (this function's `# Safety`); `kp` is written only
    // once `get_valid_kprobe()` found it registered (so live), and `p` is hashed,
    // as `arm_kprobe()` needs.
    unsafe {
        'out: {
            // Check whether specified probe is valid.
            let p = get_valid_kprobe(&km, kp);
            if p.is_null() {
                ret = -sys::EINVAL;
                break 'out;
            }
            if flags::gone(kp) {
                // This kprobe has gone, we couldn't enable it.
                ret = -sys::EINVAL;
                break 'out;
            }
            if p != kp {
                flags::clear(kp, KPROBE_FLAG_DISABLED);
            }
            if state::all_disarmed() {
                // Intended divergence: upstream leaves the hashed probe
                // DISABLED here (it clears the flag only together with
                // arming), so a probe enabled while kprobes/enabled is 0
                // never fires after kprobes/enabled=1, although
                // enable_kprobe() returned 0.  Clear it: arm_all_kprobes()
                // arms every probe that is not disabled.
                if !flags::gone(p) {
                    flags::clear(p, KPROBE_FLAG_DISABLED);
                }
            } else if flags::disabled(p) {
                flags::clear(p, KPROBE_FLAG_DISABLED);
                ret = arm::arm_kprobe(&km, p);
                if ret != 0 {
                    flags::set(p, KPROBE_FLAG_DISABLED);
                    if p != kp {
                        flags::set(kp, KPROBE_FLAG_DISABLED);
                    }
                }
            }
        }
    }
    ret
}
