// SPDX-License-Identifier: GPL-2.0

//! The jump optimizer: aggregate probes whose breakpoint the arch replaces
//! with a jump to a detour buffer, the delayed work that does it, and the
//! `debug.kprobes-optimization` sysctl.  Port of the `CONFIG_OPTPROBES`
//! part of `kernel/kprobes.c`.
//!
//! Every aggregate is a `struct optimized_kprobe`; its `list` member is on
//! at most one of the three staging lists below, all protected by
//! `kprobe_mutex`.  `arch_optimize_kprobes()` and
//! `arch_unoptimize_kprobes()` (arch/x86/kernel/kprobes/opt.c) walk and
//! empty them, so the lists and `op->list` are shared with C and must stay
//! `struct list_head`s.
//!
//! One intended divergence from upstream, in [`arm_kprobe_locked`] (see
//! `tools/testing/differential/divergences.txt`).

use crate::flags;
use crate::aggr::kprobe_aggrprobe;
use crate::ffi::{c_int, c_void};
use crate::list;
use crate::locks::{self, KprobeMutex, TextLocks};
use crate::registry::{self, lookup as get_kprobe};
use crate::state;
use crate::sys;
use crate::types::{Kprobe, KprobeOpcode, ListHead, OptimizedKprobe, KPROBE_FLAG_DISABLED, KPROBE_FLAG_OPTIMIZED};
use core::ptr::{self, addr_of, addr_of_mut};

/// Optimization staging list, protected by `kprobe_mutex`.
static mut OPTIMIZING_LIST: ListHead =
    ListHead { next: &raw mut OPTIMIZING_LIST, prev: &raw mut OPTIMIZING_LIST };
/// Unoptimization staging list, protected by `kprobe_mutex`.
static mut UNOPTIMIZING_LIST: ListHead =
    ListHead { next: &raw mut UNOPTIMIZING_LIST, prev: &raw mut UNOPTIMIZING_LIST };
/// Unused aggregates waiting to be freed by the optimizer.
static mut FREEING_LIST: ListHead =
    ListHead { next: &raw mut FREEING_LIST, prev: &raw mut FREEING_LIST };

fn optimizing_list() -> *mut ListHead {
    &raw mut OPTIMIZING_LIST
}
fn unoptimizing_list() -> *mut ListHead {
    &raw mut UNOPTIMIZING_LIST
}
fn freeing_list() -> *mut ListHead {
    &raw mut FREEING_LIST
}

/// The `optimized_kprobe` containing aggregate `p`.
#[inline]
pub fn op_of(p: *mut Kprobe) -> *mut OptimizedKprobe {
    crate::container_of!(p, OptimizedKprobe, kp)
}

/// The `optimized_kprobe` whose `list` member is `l`.
#[inline]
fn op_of_list(l: *mut ListHead) -> *mut OptimizedKprobe {
    crate::container_of!(l, OptimizedKprobe, list)
}

/// `kprobe_unused()`: an aggregate that is disabled and has no child left.
///
/// # Safety
/// `p` is live.
pub unsafe fn kprobe_unused(_km: &KprobeMutex, p: *mut Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`) and `_km` proves `kprobe_mutex`
    // held, so its `pre_handler`, flags and `list` are readable and the list is stable.
    unsafe { kprobe_aggrprobe(p) && flags::disabled(p) && list::list_empty(addr_of_mut!((*p).list)) }
}

/// `free_aggr_kprobe()`: frees the optimized instructions and the
/// `optimized_kprobe`.
///
/// # Safety
/// `p` is an unhashed aggregate no reader can see any more.
pub unsafe fn free_aggr_kprobe(p: *mut Kprobe) {
    let op = op_of(p);
    // SAFETY: no reader can see the unhashed aggregate `p` any more (this function's
    // `# Safety`), so its insn slots are unused; every aggregate is the `kp` of an
    // `optimized_kprobe` that `alloc_aggr_kprobe()` got from `kzalloc()`.
    unsafe {
        sys::arch_remove_optimized_kprobe(op);
        sys::arch_remove_kprobe(p);
        sys::kfree(op.cast());
    }
}

/// `kprobe_optready()`: is `p` an aggregate with prepared optimized
/// instructions?
///
/// # Safety
/// `p` is live.
unsafe fn kprobe_optready(p: *mut Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`); `op_of(p)` is only used once
    // `kprobe_aggrprobe(p)` said `p` is an aggregate, the `kp` of an `optimized_kprobe`.
    unsafe { kprobe_aggrprobe(p) && sys::arch_prepared_optinsn(op_of(p)) }
}

/// `kprobe_disarmed()`: is `p` (which must be hashed) disarmed?
///
/// # Safety
/// `p` is live.
pub unsafe fn kprobe_disarmed(p: *mut Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`); `op_of(p)` is only used once
    // `kprobe_aggrprobe(p)` said `p` is an aggregate, the `kp` of an `optimized_kprobe`.
    unsafe {
        // If kprobe is not aggr/opt probe, just return kprobe is disabled.
        if !kprobe_aggrprobe(p) {
            return flags::disabled(p);
        }
        flags::disabled(p) && list::list_empty(addr_of_mut!((*op_of(p)).list))
    }
}

/// `kprobe_queued()`: is `p` on one of the (un)optimizing lists?
///
/// # Safety
/// `p` is live.
pub unsafe fn kprobe_queued(_km: &KprobeMutex, p: *mut Kprobe) -> bool {
    // SAFETY: `p` is live (this function's `# Safety`); `op_of(p)` only for an
    // aggregate (checked first), whose `list` the mutex `_km` proves held guards.
    unsafe { kprobe_aggrprobe(p) && !list::list_empty(addr_of_mut!((*op_of(p)).list)) }
}

/// `get_optimized_kprobe()`: an optimized probe whose jump replaces
/// instructions including `addr` (excluding its own breakpoint).
///
fn get_optimized_kprobe(_km: &KprobeMutex, addr: *mut KprobeOpcode) -> *mut Kprobe {
    // Don't check i == 0, since that is a breakpoint case.
    for i in 1..(sys::MAX_OPTIMIZED_LENGTH / core::mem::size_of::<KprobeOpcode>()) {
        // SAFETY: `_km` proves `kprobe_mutex` held, so `get_kprobe()`
        // may walk the table and returns a live probe; `op_of(p)` only for an
        // aggregate (`kprobe_optready()`), which `arch_within_optimized_kprobe()` reads.
        unsafe {
            let p = get_kprobe(addr.wrapping_sub(i));
            // A disabled probe can have prepared, but inactive, optinsns.
            if p.is_null() || !kprobe_optready(p) || kprobe_disarmed(p) {
                continue;
            }
            if sys::arch_within_optimized_kprobe(op_of(p), addr) {
                return p;
            }
        }
    }
    ptr::null_mut()
}

/// `do_optimize_kprobes()`: optimizes the probes on `optimizing_list`
/// (`text_mutex` and the CPU hotplug lock held: the arch code uses
/// stop_machine-like text patching, see upstream's comment).
fn do_optimize_kprobes(_tl: &TextLocks<'_>) {
    sys::lockdep_assert_held_text_mutex();
    sys::lockdep_assert_cpus_held();
    // Optimization never be done when disarmed.
    // SAFETY: `_tl` proves `kprobe_mutex` held, which guards the list.
    if state::all_disarmed() || !state::allow_optimization() || unsafe { list::list_empty(optimizing_list()) } {
        return;
    }
    // SAFETY: the list is ours (`kprobe_mutex`), and `_tl` proves the CPU hotplug
    // lock and `text_mutex` held, as the arch code requires.
    unsafe { sys::arch_optimize_kprobes(optimizing_list()) }
}

/// `do_unoptimize_kprobes()`: unoptimizes the probes on
/// `unoptimizing_list`, then disarms and unhashes the unused ones.
fn do_unoptimize_kprobes(tl: &TextLocks<'_>) {
    sys::lockdep_assert_held_text_mutex();
    sys::lockdep_assert_cpus_held();
    // SAFETY: `tl` proves `kprobe_mutex`, the CPU hotplug lock and `text_mutex`
    // held, as the arch code, the flags writes and the list walks need; the
    // entries of the staging lists are live aggregates.
    unsafe {
        if !list::list_empty(unoptimizing_list()) {
            sys::arch_unoptimize_kprobes(unoptimizing_list(), freeing_list());
        }
        // Loop on 'freeing_list' for disarming and removing from kprobe hash list.
        for l in list::iter_safe(freeing_list()) {
            let op = op_of_list(l);
            let kp = addr_of_mut!((*op).kp);
            // Switching from detour code to origin.
            flags::clear(kp, KPROBE_FLAG_OPTIMIZED);
            // Disarm probes if marked disabled and not gone.
            //
            // Intended divergence: also while all probes are disarmed
            // (`kprobes/enabled` = 0).  A probe disabled while optimized
            // (its unoptimization queued), then enabled while all are
            // disarmed, has its DISABLED flag cleared without being armed
            // (divergence 2; upstream leaves it DISABLED there, so it is
            // disarmed here).  Unoptimized now, its text is an int3 again;
            // left armed while probing is off, and then unregistered (no
            // disarming while all are disarmed), it would be unhashed with
            // the int3 in the text, and its next hit oopses ("Oops: int3",
            // the debug stress at 6ce4c02).  `disarm_kprobe_locked()` takes
            // the probes it forcibly unoptimized and disarmed off this list,
            // so none is disarmed twice.
            if (flags::disabled(kp) || state::all_disarmed()) && !flags::gone(kp) {
                sys::arch_disarm_kprobe(kp);
            }
            if kprobe_unused(tl, kp) {
                // Remove unused probes from hash list. After waiting for
                // synchronization, these probes are reclaimed (by
                // do_free_cleaned_kprobes()).
                list::hlist_del_rcu(addr_of_mut!((*kp).hlist));
            } else {
                list::list_del_init(l);
            }
        }
    }
}

/// `do_free_cleaned_kprobes()`: reclaims the probes on `freeing_list`.
fn do_free_cleaned_kprobes(km: &KprobeMutex) {
    // SAFETY: `km` proves `kprobe_mutex` held, which guards the list; the entries
    // were unhashed before an RCU tasks grace period.
    unsafe {
        for l in list::iter_safe(freeing_list()) {
            list::list_del_init(l);
            let kp = addr_of_mut!((*op_of_list(l)).kp);
            if !kprobe_unused(km, kp) {
                // This must not happen, but if there is a kprobe still in
                // use, keep it on kprobes hash list.
                crate::warn_once!();
                continue;
            }
            free_aggr_kprobe(kp);
        }
    }
}

/// `kick_kprobe_optimizer()`: start the optimizer after `OPTIMIZE_DELAY`.
fn kick_kprobe_optimizer() {
    sys::kick_optimizer();
}

/// `kprobe_optimizer()`: the delayed work.
pub fn kprobe_optimizer() {
    let km = locks::kprobe_mutex();
    let tl = locks::text(&km);

    // Step 1: Unoptimize kprobes and collect cleaned (unused and disarmed)
    // kprobes before waiting for quiesence period.
    do_unoptimize_kprobes(&tl);

    // Step 2: Wait for quiesence period to ensure all potentially preempted
    // tasks to have normally scheduled. Because optprobe may modify
    // multiple instructions, there is a chance that Nth instruction is
    // preempted. In that case, such tasks can return to 2nd-Nth byte of
    // jump instruction. This wait is for avoiding it.
    sys::synchronize_rcu_tasks();

    // Step 3: Optimize kprobes after quiesence period.
    do_optimize_kprobes(&tl);

    // Step 4: Free cleaned kprobes after quiesence period.
    do_free_cleaned_kprobes(&km);

    drop(tl);

    // Step 5: Kick optimizer again if needed.
    if queues_busy(&km) {
        kick_kprobe_optimizer();
    }
}

/// Is either staging list non-empty?
fn queues_busy(_km: &KprobeMutex) -> bool {
    // SAFETY: `_km` proves `kprobe_mutex` held, which guards both lists.
    unsafe { !list::list_empty(optimizing_list()) || !list::list_empty(unoptimizing_list()) }
}

/// `wait_for_kprobe_optimizer()`: waits until both staging lists are
/// empty.
pub fn wait_for_kprobe_optimizer() {
    while queues_busy(&locks::kprobe_mutex()) {
        // `kprobe_mutex` is released here (the temporary guard above).
        // This will also make 'optimizing_work' execute immmediately.
        sys::flush_optimizer();
        // 'optimizing_work' might not have been queued yet, relax.
        sys::cpu_relax();
    }
}

/// `optprobe_queued_unopt()`: is `op` on `unoptimizing_list`?
///
/// Under `kprobe_mutex` (the optimizer's locks include it).
pub fn optprobe_queued_unopt(_km: &KprobeMutex, op: *mut OptimizedKprobe) -> bool {
    // SAFETY: `_km` proves `kprobe_mutex` held, so `unoptimizing_list` and its
    // entries are stable while `iter_safe()` walks it; `op` is only compared.
    unsafe { list::iter_safe(unoptimizing_list()).any(|l| op_of_list(l) == op) }
}

/// `optimize_kprobe()`: queues `p` for optimization if it is ready.
///
/// # Safety
/// `p` is live.
pub unsafe fn optimize_kprobe(km: &KprobeMutex, p: *mut Kprobe) {
    // SAFETY: `p` is live (this function's `# Safety`) and `km` proves `kprobe_mutex` held, as
    // the flags writes, the staging lists and `arch_check_optimized_kprobe()` need;
    // `op_of(p)` is only used once `kprobe_optready(p)` said `p` is an aggregate.
    unsafe {
        // Check if the kprobe is disabled or not ready for optimization.
        if !kprobe_optready(p) || !state::allow_optimization() || flags::disabled(p) || state::all_disarmed() {
            return;
        }
        // kprobes with 'post_handler' can not be optimized.
        if (*p).post_handler.is_some() {
            return;
        }
        let op = op_of(p);
        // Check there is no other kprobes at the optimized instructions.
        if sys::arch_check_optimized_kprobe(op) < 0 {
            return;
        }
        // Check if it is already optimized.
        if flags::get(addr_of_mut!((*op).kp)) & KPROBE_FLAG_OPTIMIZED != 0 {
            if optprobe_queued_unopt(km, op) {
                // This is under unoptimizing. Just dequeue the probe.
                list::list_del_init(addr_of_mut!((*op).list));
            }
            return;
        }
        flags::set(addr_of_mut!((*op).kp), KPROBE_FLAG_OPTIMIZED);

        // On the 'unoptimizing_list' and 'optimizing_list', 'op' must have
        // OPTIMIZED flag.
        if !list::list_empty(addr_of_mut!((*op).list)) {
            crate::warn_once!();
            return;
        }
        list::list_add(addr_of_mut!((*op).list), optimizing_list());
    }
    kick_kprobe_optimizer();
}

/// `force_unoptimize_kprobe()`: short cut to direct unoptimizing (CPU
/// hotplug lock held).
///
/// # Safety
/// `op` is live and optimized.
unsafe fn force_unoptimize_kprobe(_tl: &TextLocks<'_>, op: *mut OptimizedKprobe) {
    sys::lockdep_assert_cpus_held();
    // SAFETY: `op` is live and optimized (this function's `# Safety`) and `_tl`
    // proves `text_mutex` and the CPU hotplug lock held, as `arch_unoptimize_kprobe()`
    // requires, and `kprobe_mutex`, which makes us the flags' writer.
    unsafe {
        sys::arch_unoptimize_kprobe(op);
        flags::clear(addr_of_mut!((*op).kp), KPROBE_FLAG_OPTIMIZED);
    }
}

/// `unoptimize_kprobe()`: unoptimizes `p` if it is optimized (queued, or
/// at once if `force`, which is upstream's `force` and needs the text
/// locks).
///
/// # Safety
/// `p` is live.
pub unsafe fn unoptimize_kprobe(km: &KprobeMutex, p: *mut Kprobe, force: Option<&TextLocks<'_>>) {
    // SAFETY: `p` is live (this function's `# Safety`), `km` proves `kprobe_mutex`
    // held, and `force` the text locks when forcing; `op` is forcibly
    // unoptimized only when it is an aggregate with KPROBE_FLAG_OPTIMIZED set.
    unsafe {
        if !kprobe_aggrprobe(p) || kprobe_disarmed(p) {
            return; // This is not an optprobe nor optimized.
        }
        let op = op_of(p);
        if !flags::optimized(p) {
            return;
        }
        let l = addr_of_mut!((*op).list);
        if !list::list_empty(l) {
            if optprobe_queued_unopt(km, op) {
                // Queued in unoptimizing queue.
                if let Some(tl) = force {
                    // Forcibly unoptimize the kprobe here, and queue it in
                    // the freeing list for release afterwards.
                    force_unoptimize_kprobe(tl, op);
                    list::list_move(l, freeing_list());
                }
            } else {
                // Dequeue from the optimizing queue.
                list::list_del_init(l);
                flags::clear(addr_of_mut!((*op).kp), KPROBE_FLAG_OPTIMIZED);
            }
            return;
        }

        // Optimized kprobe case.
        if let Some(tl) = force {
            // Forcibly update the code: this is a special case.
            force_unoptimize_kprobe(tl, op);
        } else {
            list::list_add(l, unoptimizing_list());
            kick_kprobe_optimizer();
        }
    }
}

/// `reuse_unused_kprobe()`: cancels unoptimizing of an unused aggregate
/// so that it can be reused.
///
/// # Safety
/// `ap` is an unused aggregate.
pub unsafe fn reuse_unused_kprobe(km: &KprobeMutex, ap: *mut Kprobe) -> c_int {
    // SAFETY: `ap` is an unused aggregate, the `kp` of a live `optimized_kprobe`
    // (this function's `# Safety`), and `km` proves `kprobe_mutex` held, as the flags write,
    // `kprobe_optready()` and `optimize_kprobe()` require.
    unsafe {
        // Unused kprobe MUST be on the way of delayed unoptimizing (means
        // there is still a relative jump) and disabled.
        let op = op_of(ap);
        if list::list_empty(addr_of_mut!((*op).list)) {
            crate::warn_once!();
        }
        // Enable the probe again.
        flags::clear(ap, KPROBE_FLAG_DISABLED);
        // Optimize it again. (remove from 'op->list')
        if !kprobe_optready(ap) {
            return -sys::EINVAL;
        }
        optimize_kprobe(km, ap);
    }
    0
}

/// `kill_optimized_kprobe()`: drops the optimized instructions of a gone
/// aggregate.
///
/// # Safety
/// `p` is a live aggregate.
pub unsafe fn kill_optimized_kprobe(km: &KprobeMutex, p: *mut Kprobe) {
    // SAFETY: `p` is a live aggregate (this function's `# Safety`), so `op` is its
    // `optimized_kprobe`, and `km` proves `kprobe_mutex` held: the staging lists and the
    // flags may be changed, and `arch_remove_optimized_kprobe()` needs only `op` live.
    unsafe {
        let op = op_of(p);
        let l = addr_of_mut!((*op).list);
        if !list::list_empty(l) {
            // Dequeue from the (un)optimization queue.
            list::list_del_init(l);
        }
        flags::clear(addr_of_mut!((*op).kp), KPROBE_FLAG_OPTIMIZED);

        if kprobe_unused(km, p) {
            // Unused kprobe is on unoptimizing or freeing list. We move it
            // to freeing_list and let the kprobe_optimizer() remove it from
            // the kprobe hash list and free it.
            if optprobe_queued_unopt(km, op) {
                list::list_move(l, freeing_list());
            }
        }
        // Don't touch the code, because it is already freed.
        sys::arch_remove_optimized_kprobe(op);
    }
}

/// `__prepare_optimized_kprobe()`.
///
/// # Safety
/// `op`, `p` live.
unsafe fn prepare_optimized_kprobe_op(_tl: &TextLocks<'_>, op: *mut OptimizedKprobe, p: *mut Kprobe) {
    // SAFETY: `op` and `p` are live (this function's `# Safety`) and `_tl` proves
    // `text_mutex` held, as `flags::ftrace()` and `arch_prepare_optimized_kprobe()` need.
    unsafe {
        if !flags::ftrace(p) {
            sys::arch_prepare_optimized_kprobe(op, p);
        }
    }
}

/// `prepare_optimized_kprobe()`: try to prepare optimized instructions.
///
/// # Safety
/// `p` is a live aggregate.
pub unsafe fn prepare_optimized_kprobe(tl: &TextLocks<'_>, p: *mut Kprobe) {
    // SAFETY: `p` is a live aggregate, the `kp` of an `optimized_kprobe` (this
    // function's `# Safety`).
    unsafe { prepare_optimized_kprobe_op(tl, op_of(p), p) }
}

/// `alloc_aggr_kprobe()`: a new `optimized_kprobe` at `p`'s address, with
/// optimized instructions prepared if possible; null without memory.
///
/// # Safety
/// `p` is live.
pub unsafe fn alloc_aggr_kprobe(tl: &TextLocks<'_>, p: *mut Kprobe) -> *mut Kprobe {
    let op = sys::kzalloc(core::mem::size_of::<OptimizedKprobe>()).cast::<OptimizedKprobe>();
    if op.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: `op` is a fresh zeroed allocation of the right size.
    unsafe {
        list::init_list_head(addr_of_mut!((*op).list));
        (*op).kp.addr = (*p).addr;
        prepare_optimized_kprobe_op(tl, op, p);
        addr_of_mut!((*op).kp)
    }
}

/// `copy_kprobe()`: keep all fields in the kprobe consistent (copies the
/// saved opcode and the insn slot of `ap` into `p`).
///
/// # Safety
/// Both live, and distinct.
pub unsafe fn copy_kprobe(ap: *mut Kprobe, p: *mut Kprobe) {
    // SAFETY: `ap` and `p` are live and distinct (this function's `# Safety`), so the
    // one-element copies of plain data (`opcode`, `ainsn`) do not overlap.
    unsafe {
        ptr::copy_nonoverlapping(addr_of!((*ap).opcode), addr_of_mut!((*p).opcode), 1);
        ptr::copy_nonoverlapping(addr_of!((*ap).ainsn), addr_of_mut!((*p).ainsn), 1);
    }
}

/// `init_aggr_kprobe()`: fills in aggregate `ap` for the hashed probe `p`
/// and puts `ap` in `p`'s place in the hash table.
///
/// # Safety
/// `ap` is fresh from `alloc_aggr_kprobe()`, `p` is hashed.
pub unsafe fn init_aggr_kprobe(km: &KprobeMutex, ap: *mut Kprobe, p: *mut Kprobe) {
    // SAFETY: `ap` is fresh and not yet visible to any reader, `p` is hashed (this
    // function's `# Safety`) and `km` proves `kprobe_mutex` held: `ap`'s fields may be
    // written plainly before the RCU list updates publish it in `p`'s place.
    unsafe {
        // Copy the insn slot of 'p' to 'ap'.
        copy_kprobe(p, ap);
        // flush_insn_slot(ap): a no-op on x86.
        (*ap).addr = (*p).addr;
        flags::put(ap, flags::get(p) & !KPROBE_FLAG_OPTIMIZED);
        (*ap).pre_handler = Some(crate::aggr::aggr_pre_handler);
        // We don't care the kprobe which has gone.
        if (*p).post_handler.is_some() && !flags::gone(p) {
            crate::once::write(addr_of_mut!((*ap).post_handler), Some(crate::aggr::aggr_post_handler));
        }
        list::init_list_head(addr_of_mut!((*ap).list));
        list::init_hlist_node(addr_of_mut!((*ap).hlist));
        // The aggregate takes over `p`'s arming: remember its ftrace ops
        // (intended divergence, see ftrace.rs).
        if flags::ftrace(p) {
            #[cfg(CONFIG_KPROBES_ON_FTRACE)]
            crate::ftrace::note_armed_ops(km, ap, (*p).post_handler.is_some());
        }

        list::list_add_rcu(addr_of_mut!((*p).list), addr_of_mut!((*ap).list));
        list::hlist_replace_rcu(addr_of_mut!((*p).hlist), addr_of_mut!((*ap).hlist));
    }
}

/// `try_to_optimize_kprobe()`: prepare an `optimized_kprobe` for the
/// normal registered probe `p` and optimize it.
///
/// # Safety
/// `p` is hashed.
pub unsafe fn try_to_optimize_kprobe(km: &KprobeMutex, p: *mut Kprobe) {
    // Impossible to optimize ftrace-based kprobe.
    // SAFETY: `p` is hashed, hence live (this function's `# Safety`).
    if unsafe { flags::ftrace(p) } {
        return;
    }
    // For preparing optimization, jump_label_text_reserved() is called.
    let tl = locks::text_and_jump_label(km);

    // SAFETY: `p` is hashed (this function's `# Safety`), and `tl` holds the
    // text locks under `kprobe_mutex`, as `alloc_aggr_kprobe()`, `init_aggr_kprobe()`
    // need; an unprepared `op` is freed before anyone else could see it.
    unsafe {
        let ap = alloc_aggr_kprobe(&tl, p);
        if !ap.is_null() {
            let op = op_of(ap);
            if !sys::arch_prepared_optinsn(op) {
                // If failed to setup optimizing, fallback to kprobe.
                sys::arch_remove_optimized_kprobe(op);
                sys::kfree(op.cast::<c_void>());
            } else {
                init_aggr_kprobe(km, ap, p);
                optimize_kprobe(km, ap); // This just kicks optimizer thread.
            }
        }
    }
}

/// `optimize_all_kprobes()`.
pub fn optimize_all_kprobes() {
    let km = locks::kprobe_mutex();
    // If optimization is already allowed, just return.
    if !state::allow_optimization() {
        let cpus = locks::cpus_read(&km);
        state::set_allow_optimization(&km, true);
        registry::for_each_hashed(&km, |p| {
            // SAFETY: `for_each_hashed()` yields hashed (so live) probes, as
            // `flags::disabled()` and `optimize_kprobe()` need.
            unsafe {
                if !flags::disabled(p) {
                    optimize_kprobe(&km, p);
                }
            }
        });
        drop(cpus);
        sys::printk(c"\x016kprobes: kprobe jump-optimization is enabled. All kprobes are optimized if possible.\n");
    }
}

#[cfg(CONFIG_SYSCTL)]
/// `unoptimize_all_kprobes()`.
pub fn unoptimize_all_kprobes() {
    {
        let km = locks::kprobe_mutex();
        // If optimization is already prohibited, just return.
        if !state::allow_optimization() {
            return;
        }
        let _cpus = locks::cpus_read(&km);
        state::set_allow_optimization(&km, false);
        registry::for_each_hashed(&km, |p| {
            // SAFETY: `for_each_hashed()` yields hashed (so live) probes, as
            // `flags::disabled()` and `unoptimize_kprobe()` need.
            unsafe {
                if !flags::disabled(p) {
                    unoptimize_kprobe(&km, p, None);
                }
            }
        });
    }

    // Wait for unoptimizing completion.
    wait_for_kprobe_optimizer();
    sys::printk(c"\x016kprobes: kprobe jump-optimization is disabled. All kprobes are based on software breakpoint.\n");
}

#[cfg(CONFIG_SYSCTL)]
/// `sysctl_kprobes_optimization`, the value behind
/// `/proc/sys/debug/kprobes-optimization` (the C shim's `ctl_table`
/// points at it).
#[no_mangle]
pub static mut sysctl_kprobes_optimization: c_int = 0;

ftrace_export! {
    /// `proc_kprobes_optimization_handler()`: the `proc_handler` of
    /// `debug.kprobes-optimization` (the C shim's sysctl table).
    ///
    /// # Safety
    /// The arguments the sysctl core passes to a `proc_handler`.
    #[cfg(CONFIG_SYSCTL)]
    unsafe fn proc_kprobes_optimization_handler(
        table: *const sys::CtlTable,
        write: c_int,
        buffer: *mut c_void,
        length: *mut usize,
        ppos: *mut crate::types::Loff,
    ) -> c_int {
        let _sysctl = locks::sysctl();
        // SAFETY: serialized by `kprobe_sysctl_mutex`, as upstream.
        unsafe { *(&raw mut sysctl_kprobes_optimization) = if state::allow_optimization() { 1 } else { 0 } };
        // SAFETY: the arguments are the sysctl core's (this function's `# Safety`), as
        // `proc_dointvec_minmax()` expects; its `data` is serialized as above.
        let ret = unsafe { sys::proc_dointvec_minmax(table, write, buffer, length, ppos) };

        // SAFETY: as above.
        if unsafe { *(&raw const sysctl_kprobes_optimization) } != 0 {
            optimize_all_kprobes();
        } else {
            unoptimize_all_kprobes();
        }
        ret
    }
}

/// `__arm_kprobe()`: puts the breakpoint of `p`.
///
/// # Safety
/// `p` is hashed.
#[inline] // one caller (arm.rs), as kprobes.c inlines it there
pub unsafe fn arm_kprobe_locked(tl: &TextLocks<'_>, p: *mut Kprobe) {
    sys::lockdep_assert_held_text_mutex();
    // SAFETY: `p` is hashed, so live and prepared (this function's `# Safety`), and
    // `tl` proves `kprobe_mutex`, `text_mutex` and the CPU hotplug lock held, as the forced
    // unoptimization, `arch_arm_kprobe()` and `optimize_kprobe()` require.
    unsafe {
        // Find the overlapping optimized kprobes.
        let other = get_optimized_kprobe(tl, (*p).addr);
        if !other.is_null() {
            // Fallback to unoptimized kprobe.
            unoptimize_kprobe(tl, other, Some(tl));
        }
        // Intended divergence: an optimized probe whose unoptimization is
        // still queued (disabled, then enabled again before the optimizer
        // ran) still has its jump in the text, so it is armed already.
        // Upstream writes an int3 over the first byte of the live jump
        // here; a hit then single-steps the original instruction and
        // resumes inside the jump's displacement.  Cancelling the queued
        // unoptimization (optimize_kprobe() dequeues it; if it declines,
        // the optimizer turns the jump back into an int3) keeps the text
        // consistent.
        if kprobe_aggrprobe(p) && flags::optimized(p) && optprobe_queued_unopt(tl, op_of(p)) {
            optimize_kprobe(tl, p);
            return;
        }
        sys::arch_arm_kprobe(p);
        optimize_kprobe(tl, p); // Try to optimize (add kprobe to a list).
    }
}

/// `__disarm_kprobe()`: removes the breakpoint of `p`.
///
/// # Safety
/// `p` is hashed and armed.
#[inline] // one caller (arm.rs), as kprobes.c inlines it there
pub unsafe fn disarm_kprobe_locked(tl: &TextLocks<'_>, p: *mut Kprobe, reopt: bool) {
    sys::lockdep_assert_held_text_mutex();
    // SAFETY: `p` is hashed and armed (this function's `# Safety`), and `tl` proves
    // `kprobe_mutex`, `text_mutex` and the CPU hotplug lock held, as the forced
    // unoptimization and `arch_disarm_kprobe()` require.
    unsafe {
        // Try to unoptimize (at once when all probes are being disarmed).
        let forced = state::all_disarmed();
        unoptimize_kprobe(tl, p, forced.then_some(tl));

        // Intended divergence: when all probes are being disarmed
        // (`kprobes/enabled` = 0), an optimized probe whose unoptimization
        // was queued (by `debug.kprobes-optimization` = 0, just before) is
        // unoptimized at once and moved to the freeing list: its text is an
        // int3 again, but upstream leaves it there because the probe is
        // queued, and the optimizer later disarms only disabled probes.
        // The probe keeps firing while probing is off, and when it is then
        // unregistered (no disarming while all are disarmed) it is unhashed
        // with its int3 still in the text: the next hit oopses ("Oops:
        // int3"; the stress suite hits it on both kernels).  A forced
        // unoptimization leaves the int3 form, so disarm it here.
        let queued = kprobe_queued(tl, p);
        if !queued || forced {
            sys::arch_disarm_kprobe(p);
        }
        if queued && forced {
            // On the freeing list, forcibly unoptimized and now disarmed: the
            // optimizer, which disarms the probes there while all are
            // disarmed (see `do_unoptimize_kprobes()`), has nothing left to do
            // with it.  It is in use (not disabled), so the optimizer would
            // only have taken it off the list.
            list::list_del_init(addr_of_mut!((*op_of(p)).list));
        }
        if !queued {
            // If another kprobe was blocked, re-optimize it.
            let other = get_optimized_kprobe(tl, (*p).addr);
            if !other.is_null() && reopt {
                optimize_kprobe(tl, other);
            }
        }
        // TODO (upstream): Since unoptimization and real disarming will be
        // done by the worker thread, we can not check whether another probe
        // are unoptimized because of this probe here. It should be
        // re-optimized by the worker thread.
    }
}

/// Empties the staging lists (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    // SAFETY: host tests are serialized.
    unsafe {
        list::init_list_head(optimizing_list());
        list::init_list_head(unoptimizing_list());
        list::init_list_head(freeing_list());
        *(&raw mut sysctl_kprobes_optimization) = 0;
    }
}
