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

use crate::error::{code::EINVAL, Result};
use crate::ffi::{c_int, c_void};
use crate::index;
use crate::list;
use crate::locks::{self, KprobeMutex, KprobeMutexGuard, TextLocks};
use crate::probe::{Aggr, Hashed, Probe};
use crate::registry;
use crate::state;
use crate::sys;
use crate::tree;
use crate::types::{
    Kprobe, KprobeOpcode, ListHead, OptimizedKprobe, KPROBE_FLAG_DISABLED, KPROBE_FLAG_OPTIMIZED,
};
use core::mem::size_of;
use core::ptr::{self, addr_of_mut};
use core::sync::atomic::{AtomicBool, AtomicU16, Ordering};

/// `init_aggr_kprobe()`, shared with `opt_none.rs`.
/// cbindgen:ignore
#[path = "opt_aggr.rs"]
mod aggr;
pub use aggr::init_aggr_kprobe;

/// Optimization staging list, protected by `kprobe_mutex`.
static mut OPTIMIZING_LIST: ListHead = ListHead {
    next: &raw mut OPTIMIZING_LIST,
    prev: &raw mut OPTIMIZING_LIST,
};
/// Unoptimization staging list, protected by `kprobe_mutex`.
static mut UNOPTIMIZING_LIST: ListHead = ListHead {
    next: &raw mut UNOPTIMIZING_LIST,
    prev: &raw mut UNOPTIMIZING_LIST,
};
/// Unused aggregates waiting to be freed by the optimizer.
static mut FREEING_LIST: ListHead = ListHead {
    next: &raw mut FREEING_LIST,
    prev: &raw mut FREEING_LIST,
};

fn optimizing_list() -> *mut ListHead {
    &raw mut OPTIMIZING_LIST
}
fn unoptimizing_list() -> *mut ListHead {
    &raw mut UNOPTIMIZING_LIST
}
fn freeing_list() -> *mut ListHead {
    &raw mut FREEING_LIST
}

/// The `optimized_kprobe` whose `list` member is `l`.
#[inline]
fn op_of_list(l: *mut ListHead) -> *mut OptimizedKprobe {
    crate::container_of!(l, OptimizedKprobe, list)
}

/// `kprobe_unused()`: an aggregate that is disabled and has no child left.
pub fn kprobe_unused(_km: &KprobeMutex, p: Probe<'_>) -> bool {
    // SAFETY: `p` is live (a `Probe`) and `_km` proves `kprobe_mutex` held, so
    // its `list` is stable for `list_empty()`.
    p.is_aggr() && p.disabled() && unsafe { list::list_empty(p.list()) }
}

/// `free_aggr_kprobe()`: frees the optimized instructions and the
/// `optimized_kprobe`.
///
/// # Safety
/// `p` is an unhashed aggregate no reader can see any more, and no view of
/// it is used afterwards.
#[inline(always)] // a tail call to the body otherwise (unregister_bottom())
pub unsafe fn free_aggr_kprobe(p: *mut Kprobe) {
    let op = crate::container_of!(p, OptimizedKprobe, kp);
    // SAFETY: `p` is a live aggregate (this function's `# Safety`); its
    // `addr`, set before it was hashed, does not change.
    near_sub(unsafe { (*p).addr });
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
fn kprobe_optready(p: Probe<'_>) -> bool {
    // SAFETY: `a.op()` is a live `optimized_kprobe` (an `Aggr`), all that
    // `arch_prepared_optinsn()` reads.
    p.aggr()
        .is_some_and(|a| unsafe { sys::arch_prepared_optinsn(a.op()) })
}

/// `kprobe_disarmed()`: is `p` (which must be hashed) disarmed?
pub fn kprobe_disarmed(km: &KprobeMutex, p: Probe<'_>) -> bool {
    // If kprobe is not aggr/opt probe, just return kprobe is disabled.
    match p.aggr() {
        None => p.disabled(),
        Some(a) => aggr_disarmed(km, a),
    }
}

/// `kprobe_disarmed()` of a hashed aggregate.
#[inline(always)]
pub fn aggr_disarmed(_km: &KprobeMutex, a: Aggr<'_>) -> bool {
    // SAFETY: `a` is a live aggregate; its `op->list` changes only under
    // `kprobe_mutex`, which `_km` proves held.
    a.probe().disabled() && unsafe { list::list_empty(a.op_list()) }
}

/// `kprobe_queued()`: is `p` on one of the (un)optimizing lists?
pub fn kprobe_queued(_km: &KprobeMutex, p: Probe<'_>) -> bool {
    // SAFETY: `a` is a live aggregate, whose `op->list` the mutex `_km` proves
    // held guards.
    p.aggr()
        .is_some_and(|a| !unsafe { list::list_empty(a.op_list()) })
}

/// The look-ups of [`get_optimized_kprobe`]: it looks for an aggregate at
/// `addr - i` for each `i` in `1..=NEAR_SPAN` (in opcodes).
const NEAR_SPAN: usize = sys::MAX_OPTIMIZED_LENGTH / size_of::<KprobeOpcode>() - 1;
/// [`NEAR`] counts by blocks of `1 << NEAR_SHIFT` opcodes.
const NEAR_SHIFT: u32 = 4;
/// The blocks [`NEAR`] tells apart (a power of two; 32 KiB of x86 text).
const NEAR_SLOTS: usize = 2048;

/// Where [`get_optimized_kprobe`] may find something, so that it can skip
/// its [`NEAR_SPAN`] look-ups where it cannot (as on nearly every arm and
/// disarm: an upstream could do the same).  For each block of
/// `1 << NEAR_SHIFT` opcodes (modulo [`NEAR_SLOTS`] blocks), the number of
/// hashed aggregates whose address is in the block; the look-ups for `p`
/// can only find an aggregate in the two or three blocks of
/// `p.addr - NEAR_SPAN ..= p.addr - 1` ([`near_clear`]).  Every aggregate
/// counts, prepared or not, ftrace ones too: an upper bound is all the
/// skip needs.  [`init_aggr_kprobe`] adds an aggregate when it hashes it,
/// under `kprobe_mutex`; [`free_aggr_kprobe`] takes it away when it frees
/// it, after it was unhashed and not always under the mutex, hence
/// atomics: the reader, under the mutex, sees every addition of a hashed
/// aggregate, and a removal it does not see yet only makes it look more.
/// A count that would overflow turns the filter off for good
/// ([`NEAR_OFF`]).  One count per aggregate, so that adding and taking
/// away are one atomic operation each (freeing is on every
/// unregistration's path).  4 KiB.
static NEAR: [AtomicU16; NEAR_SLOTS] = [const { AtomicU16::new(0) }; NEAR_SLOTS];
/// Set (for good) when a count of [`NEAR`] would have overflowed: the
/// counts are not read any more and [`get_optimized_kprobe`] always looks.
static NEAR_OFF: AtomicBool = AtomicBool::new(false);

/// `addr` in opcodes.
#[inline(always)]
fn near_pos(addr: *const KprobeOpcode) -> usize {
    addr as usize / size_of::<KprobeOpcode>()
}

/// The count of [`NEAR`] for the block of opcode position `pos`.
#[inline(always)]
fn near(pos: usize) -> &'static AtomicU16 {
    near_block(pos >> NEAR_SHIFT)
}

/// The count of [`NEAR`] for block `b` (opcode positions
/// `b << NEAR_SHIFT ..`).
#[inline(always)]
fn near_block(b: usize) -> &'static AtomicU16 {
    &NEAR[b % NEAR_SLOTS]
}

/// Counts the hashed aggregate at `addr` in [`NEAR`].
pub(crate) fn near_add(_km: &KprobeMutex, addr: *const KprobeOpcode) {
    if near(near_pos(addr))
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
        .is_err()
    {
        NEAR_OFF.store(true, Ordering::Relaxed);
    }
}

/// Takes the aggregate at `addr`, which [`near_add`] counted and which is
/// unhashed now, out of [`NEAR`].  Once the filter is off, the counts are
/// never read again (the one that would have overflowed was not made), so
/// this one may wrap.
#[inline(always)]
pub(crate) fn near_sub(addr: *const KprobeOpcode) {
    near(near_pos(addr)).fetch_sub(1, Ordering::Relaxed);
}

/// Whether [`get_optimized_kprobe`] can find nothing for a probe at opcode
/// position `pos`, an aggregate counted in [`NEAR`] if `aggr`: no
/// aggregate but that one counts in the blocks of
/// `pos - NEAR_SPAN ..= pos - 1`.
#[inline(always)]
pub(crate) fn near_clear(pos: usize, aggr: bool) -> bool {
    if NEAR_OFF.load(Ordering::Relaxed) {
        return false;
    }
    let last = pos.wrapping_sub(1) >> NEAR_SHIFT;
    let first = pos.wrapping_sub(NEAR_SPAN) >> NEAR_SHIFT;
    // Two or three blocks: `NEAR_SPAN` is above one block and at most two.
    let count = |b: usize| u32::from(near_block(b).load(Ordering::Relaxed));
    let mut n = count(last) + count(last.wrapping_sub(1));
    if last.wrapping_sub(first) == 2 {
        n += count(first);
    }
    // An aggregate counts in the last block unless its address is the
    // first of its own block.
    if aggr && pos >> NEAR_SHIFT == last {
        n = n.wrapping_sub(1);
    }
    n == 0
}

const _: () = assert!(NEAR_SPAN > 1 << NEAR_SHIFT && NEAR_SPAN <= 2 << NEAR_SHIFT);

/// Host tests: [`NEAR`]'s count for the block of `addr` (`None` when it is
/// off).
#[cfg(test)]
pub(crate) fn near_count(addr: *const KprobeOpcode) -> Option<u16> {
    (!NEAR_OFF.load(Ordering::Relaxed)).then(|| near(near_pos(addr)).load(Ordering::Relaxed))
}

/// Host tests: sets [`NEAR`]'s count for the block of `addr` to `n`.
#[cfg(test)]
pub(crate) fn near_set(addr: *const KprobeOpcode, n: u16) {
    near(near_pos(addr)).store(n, Ordering::Relaxed);
}

/// `get_optimized_kprobe()`: an optimized probe whose jump replaces
/// instructions including `addr` (excluding its own breakpoint).
fn get_optimized_kprobe<'k>(km: &'k KprobeMutex, p: Hashed<'_>) -> Option<Aggr<'k>> {
    get_optimized_kprobe_at(km, p.addr(), p.is_aggr())
}

/// [`get_optimized_kprobe`] for `addr`, where an aggregate counted in
/// [`NEAR`] is if `aggr` (hashed, or unhashed and not freed yet).
fn get_optimized_kprobe_at<'k>(
    km: &'k KprobeMutex,
    addr: *mut KprobeOpcode,
    aggr: bool,
) -> Option<Aggr<'k>> {
    // No aggregate at any of the addresses looked at below ([`NEAR`]).
    if near_clear(near_pos(addr), aggr) {
        return None;
    }
    // One read of the index's table for the whole walk; nothing below
    // changes the index.
    let rcu = locks::rcu_read();
    let f = index::finder(km, &rcu);
    // Don't check i == 0, since that is a breakpoint case.
    for i in 1..=NEAR_SPAN {
        let Some(p) = registry::find_in(km, &f, addr.wrapping_sub(i)) else {
            continue;
        };
        // A disabled probe can have prepared, but inactive, optinsns.
        if !kprobe_optready(*p) || kprobe_disarmed(km, *p) {
            continue;
        }
        let Some(a) = p.aggr() else { continue };
        // SAFETY: `a.op()` is a live `optimized_kprobe` (an `Aggr`) with prepared
        // optinsns, what `arch_within_optimized_kprobe()` reads.
        if unsafe { sys::arch_within_optimized_kprobe(a.op(), addr) } {
            return Some(a);
        }
    }
    None
}

/// `do_optimize_kprobes()`: optimizes the probes on `optimizing_list`
/// (`text_mutex` and the CPU hotplug lock held: the arch code uses
/// stop_machine-like text patching, see upstream's comment).
fn do_optimize_kprobes(_tl: &TextLocks<'_>) {
    sys::lockdep_assert_held_text_mutex();
    sys::lockdep_assert_cpus_held();
    // Optimization never be done when disarmed.
    if state::all_disarmed()
        || !state::allow_optimization()
        // SAFETY: `_tl` proves `kprobe_mutex` held, which guards the list.
        || unsafe { list::list_empty(optimizing_list()) }
    {
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
    // SAFETY: `tl` proves `kprobe_mutex` held, the staging lists' lock.
    if unsafe { !list::list_empty(unoptimizing_list()) } {
        // SAFETY: `tl` proves the three locks the arch code needs held; both
        // lists link the `list` members of live optimized aggregates only.
        unsafe { sys::arch_unoptimize_kprobes(unoptimizing_list(), freeing_list()) };
    }
    // Loop on 'freeing_list' for disarming and removing from kprobe hash list.
    // SAFETY: `tl` proves `kprobe_mutex` held, which guards the list; the body
    // unlinks only the entry it is at (`unhash()` or `list_del_init()`).
    for l in unsafe { list::iter_safe(freeing_list()) } {
        // SAFETY: `l` is an entry of the freeing list, which links only the
        // `list` members of live optimized aggregates, and it stays linked
        // until this iteration unlinks it.
        let kp = unsafe { Aggr::from_raw(addr_of_mut!((*op_of_list(l)).kp)) }.probe();
        // Switching from detour code to origin.
        kp.clear_flags(tl, KPROBE_FLAG_OPTIMIZED);
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
        // the int3 in the text, and its next hit would oops ("Oops:
        // int3").  `disarm_kprobe_locked()` takes the probes it forcibly
        // unoptimized and disarmed off this list, so none is disarmed
        // twice.
        if (kp.disabled() || state::all_disarmed()) && !kp.gone() {
            // SAFETY: `kp` is hashed, so prepared, and `tl` proves
            // `text_mutex` and the CPU hotplug lock held.
            unsafe { sys::arch_disarm_kprobe(kp.as_ptr()) };
        }
        if kprobe_unused(tl, kp) {
            // Remove unused probes from hash list. After waiting for
            // synchronization, these probes are reclaimed (by
            // do_free_cleaned_kprobes()).
            // SAFETY: an aggregate on the freeing list is still hashed.
            registry::unhash(tl, unsafe { Hashed::from_raw(kp.as_ptr()) });
        } else {
            // SAFETY: `l` is linked in the freeing list, whose lock `tl` proves.
            unsafe { list::list_del_init(l) };
        }
    }
}

/// `do_free_cleaned_kprobes()`: reclaims the probes on `freeing_list`.
fn do_free_cleaned_kprobes(km: &KprobeMutex) {
    // SAFETY: `km` proves `kprobe_mutex` held, which guards the list; the body
    // unlinks the entry it is at first.
    for l in unsafe { list::iter_safe(freeing_list()) } {
        // SAFETY: `l` is the `list` of an optimized aggregate on the freeing
        // list, unhashed before an RCU tasks grace period and freed below
        // after its last use.
        let kp = unsafe { Aggr::from_raw(addr_of_mut!((*op_of_list(l)).kp)) }.probe();
        // SAFETY: `l` is linked in the freeing list, whose lock `km` proves.
        unsafe { list::list_del_init(l) };
        if !kprobe_unused(km, kp) {
            // This must not happen, but if there is a kprobe still in
            // use, keep it on kprobes hash list.
            crate::warn_once!();
            continue;
        }
        // The aggregator was holding back another probe while it sat
        // on the unoptimizing/freeing lists.  Now that the aggregator
        // has been fully reverted we can safely retry the optimization
        // of that sibling (mainline).  Unhashed, not freed yet: still
        // counted in `NEAR`.
        if tree::REOPT_SIBLING_AFTER_FREE {
            if let Some(sibling) = get_optimized_kprobe_at(km, kp.addr(), true) {
                optimize_kprobe(km, sibling.probe());
            }
        }
        // SAFETY: `kp` is unused and unhashed since an RCU tasks grace
        // period, so no reader sees it; it is not used after this.
        unsafe { free_aggr_kprobe(kp.as_ptr()) };
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

    // Step 5: Wake up flushers, and kick optimizer again if needed.
    sys::optimizer_pass_done();
    if queues_busy(&km) {
        kick_kprobe_optimizer();
    }
}

/// One optimizer pass (`kprobe_optimizer()`), called by the C shim's
/// delayed work (6.12).
#[no_mangle]
pub extern "C" fn kprobes_rust_optimizer_work() {
    kprobe_optimizer()
}

/// The optimizer thread (`kprobe_optimizer_thread()`, mainline), started
/// by the C shim: a pass each time it is kicked or flushed.
#[no_mangle]
pub extern "C" fn kprobes_rust_optimizer_thread() -> c_int {
    while sys::optimizer_sleep() {
        kprobe_optimizer();
    }
    0
}

/// Is either staging list non-empty?
fn queues_busy(_km: &KprobeMutex) -> bool {
    // SAFETY: `_km` proves `kprobe_mutex` held, which guards both lists.
    unsafe { !list::list_empty(optimizing_list()) || !list::list_empty(unoptimizing_list()) }
}

/// `wait_for_kprobe_optimizer_locked()`: waits until both staging lists
/// are empty, `kprobe_mutex` released while asleep (`&mut`: nothing
/// borrowed from the guard lives across the wait).
pub fn wait_for_kprobe_optimizer_locked(km: &mut KprobeMutexGuard) {
    while queues_busy(km) {
        km.wait_optimizer_pass();
    }
}

/// `wait_for_kprobe_optimizer()`.
pub fn wait_for_kprobe_optimizer() {
    wait_for_kprobe_optimizer_locked(&mut locks::kprobe_mutex());
}

/// The wait for the optimizer that ends an update of every probe
/// (`unoptimize_all_kprobes()`, `disarm_all_kprobes()`), then unlocks:
/// mainline waits with `kprobe_mutex` held, 6.12 releases it first
/// ([`tree::WAIT_OPTIMIZER_UNDER_MUTEX`]).
pub fn wait_for_kprobe_optimizer_unlock(km: KprobeMutexGuard) {
    let mut km = km;
    if !tree::WAIT_OPTIMIZER_UNDER_MUTEX {
        drop(km);
        km = locks::kprobe_mutex();
    }
    wait_for_kprobe_optimizer_locked(&mut km);
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
pub fn optimize_kprobe(km: &KprobeMutex, p: Probe<'_>) {
    // Check if the kprobe is disabled or not ready for optimization.
    if !kprobe_optready(p) || !state::allow_optimization() || p.disabled() || state::all_disarmed()
    {
        return;
    }
    // kprobes with 'post_handler' can not be optimized.
    if p.post_handler().is_some() {
        return;
    }
    let Some(ap) = p.aggr() else { return };
    // Check there is no other kprobes at the optimized instructions.
    // SAFETY: `ap.op()` is a live `optimized_kprobe` with prepared optinsns
    // (`kprobe_optready()`), and `km` proves `kprobe_mutex` held, as
    // `arch_check_optimized_kprobe()` requires.
    if unsafe { sys::arch_check_optimized_kprobe(ap.op()) } < 0 {
        return;
    }
    // Check if it is already optimized.
    if p.optimized() {
        if optprobe_queued_unopt(km, ap.op()) {
            // This is under unoptimizing. Just dequeue the probe.
            // SAFETY: on `unoptimizing_list`, which `km` guards.
            unsafe { list::list_del_init(ap.op_list()) };
        }
        return;
    }
    p.set_flags(km, KPROBE_FLAG_OPTIMIZED);

    // On the 'unoptimizing_list' and 'optimizing_list', 'op' must have
    // OPTIMIZED flag.
    // SAFETY: `op->list` and the staging lists are guarded by the mutex `km` proves held.
    unsafe {
        if !list::list_empty(ap.op_list()) {
            crate::warn_once!();
            return;
        }
        list::list_add(ap.op_list(), optimizing_list());
    }
    kick_kprobe_optimizer();
}

/// `force_unoptimize_kprobe()`: short cut to direct unoptimizing (CPU
/// hotplug lock held); `ap` is optimized.
fn force_unoptimize_kprobe(tl: &TextLocks<'_>, ap: Aggr<'_>) {
    sys::lockdep_assert_cpus_held();
    // SAFETY: `ap.op()` is a live, optimized `optimized_kprobe`, and `tl` proves
    // `text_mutex` and the CPU hotplug lock held, as `arch_unoptimize_kprobe()`
    // requires.
    unsafe { sys::arch_unoptimize_kprobe(ap.op()) };
    ap.probe().clear_flags(tl, KPROBE_FLAG_OPTIMIZED);
}

/// `unoptimize_kprobe()`: unoptimizes `p` if it is optimized (queued, or
/// at once if `force`, which is upstream's `force` and needs the text
/// locks).
pub fn unoptimize_kprobe(km: &KprobeMutex, p: Probe<'_>, force: Option<&TextLocks<'_>>) {
    let Some(ap) = p.aggr() else { return }; // This is not an optprobe nor optimized.
    if kprobe_disarmed(km, p) || !p.optimized() {
        return;
    }
    let l = ap.op_list();
    // SAFETY: `op->list` and the staging lists are guarded by the mutex `km` proves held.
    if !unsafe { list::list_empty(l) } {
        if optprobe_queued_unopt(km, ap.op()) {
            // Queued in unoptimizing queue.
            if let Some(tl) = force {
                // Forcibly unoptimize the kprobe here, and queue it in
                // the freeing list for release afterwards.
                force_unoptimize_kprobe(tl, ap);
                // SAFETY: as above.
                unsafe { list::list_move(l, freeing_list()) };
            }
        } else {
            // Dequeue from the optimizing queue.
            // SAFETY: as above.
            unsafe { list::list_del_init(l) };
            p.clear_flags(km, KPROBE_FLAG_OPTIMIZED);
        }
        return;
    }

    // Optimized kprobe case.
    if let Some(tl) = force {
        // Forcibly update the code: this is a special case.
        force_unoptimize_kprobe(tl, ap);
    } else {
        // SAFETY: as above.
        unsafe { list::list_add(l, unoptimizing_list()) };
        kick_kprobe_optimizer();
    }
}

/// `reuse_unused_kprobe()`: cancels unoptimizing of an unused aggregate
/// so that it can be reused.
pub fn reuse_unused_kprobe(km: &KprobeMutex, ap: Aggr<'_>) -> Result {
    // Unused kprobe MUST be on the way of delayed unoptimizing (means
    // there is still a relative jump) and disabled.
    // SAFETY: `op->list` is guarded by the mutex `km` proves held.
    if unsafe { list::list_empty(ap.op_list()) } {
        crate::warn_once!();
    }
    // Enable the probe again.
    ap.probe().clear_flags(km, KPROBE_FLAG_DISABLED);
    // Optimize it again. (remove from 'op->list')
    if !kprobe_optready(ap.probe()) {
        return Err(EINVAL);
    }
    optimize_kprobe(km, ap.probe());
    Ok(())
}

/// `kill_optimized_kprobe()`: drops the optimized instructions of a gone
/// aggregate.
pub fn kill_optimized_kprobe(km: &KprobeMutex, ap: Aggr<'_>) {
    let l = ap.op_list();
    // SAFETY: `op->list` and the staging lists are guarded by the mutex `km`
    // proves held.
    unsafe {
        if !list::list_empty(l) {
            // Dequeue from the (un)optimization queue.
            list::list_del_init(l);
        }
    }
    ap.probe().clear_flags(km, KPROBE_FLAG_OPTIMIZED);

    if kprobe_unused(km, ap.probe()) {
        // Unused kprobe is on unoptimizing or freeing list. We move it
        // to freeing_list and let the kprobe_optimizer() remove it from
        // the kprobe hash list and free it.
        if optprobe_queued_unopt(km, ap.op()) {
            // SAFETY: as above.
            unsafe { list::list_move(l, freeing_list()) };
        }
    }
    // Don't touch the code, because it is already freed.
    // SAFETY: `ap.op()` is a live `optimized_kprobe`, all this reads; its detour
    // buffer is released once, here (its text is gone).
    unsafe { sys::arch_remove_optimized_kprobe(ap.op()) };
}

/// `prepare_optimized_kprobe()`: try to prepare optimized instructions of
/// aggregate `ap` again (its module text came back after it was gone).
pub fn prepare_optimized_kprobe(_tl: &TextLocks<'_>, ap: Aggr<'_>) {
    if !ap.probe().ftrace() {
        // SAFETY: `ap.op()` is a live `optimized_kprobe`, disarmed (gone until now),
        // and `_tl` proves `text_mutex` held, as `arch_prepare_optimized_kprobe()` needs.
        unsafe { sys::arch_prepare_optimized_kprobe(ap.op(), ap.as_ptr()) };
    }
}

/// An aggregate fresh from [`alloc_aggr_kprobe`].
///
/// # Invariants
/// `op` is a `kzalloc()`ed `optimized_kprobe` with `op->list` initialized,
/// `kp.addr` set and its optinsns prepared if possible, that no other CPU
/// can reach until [`init_aggr_kprobe`] hashes it.
pub struct NewAggr {
    op: ptr::NonNull<OptimizedKprobe>,
}

impl NewAggr {
    fn kp(&self) -> *mut Kprobe {
        // SAFETY: `op` is live (type invariant); only the field's address is computed.
        unsafe { addr_of_mut!((*self.op.as_ptr()).kp) }
    }

    /// Frees it (it was never published).
    fn free(self) {
        // SAFETY: seen by no one else (type invariant), so its optinsns may be
        // released and the allocation freed.
        unsafe {
            sys::arch_remove_optimized_kprobe(self.op.as_ptr());
            sys::kfree(self.op.as_ptr().cast::<c_void>());
        }
    }
}

/// `alloc_aggr_kprobe()`: a new `optimized_kprobe` at `p`'s address, with
/// optimized instructions prepared if possible; `None` without memory.
pub fn alloc_aggr_kprobe(_tl: &TextLocks<'_>, p: Probe<'_>) -> Option<NewAggr> {
    let op = ptr::NonNull::new(
        sys::kzalloc(core::mem::size_of::<OptimizedKprobe>()).cast::<OptimizedKprobe>(),
    )?;
    let op_p = op.as_ptr();
    // SAFETY: `op` is a fresh zeroed allocation of the right size, seen by no
    // one else; `p` is live and `_tl` proves `text_mutex` held, as
    // `arch_prepare_optimized_kprobe()` requires.
    unsafe {
        list::init_list_head(addr_of_mut!((*op_p).list));
        (*op_p).kp.addr = p.addr();
        if !p.ftrace() {
            sys::arch_prepare_optimized_kprobe(op_p, p.as_ptr());
        }
    }
    // INVARIANT: allocated, initialized and prepared just above.
    Some(NewAggr { op })
}

/// `try_to_optimize_kprobe()`: prepare an `optimized_kprobe` for the
/// normal registered probe `p` and optimize it.
pub fn try_to_optimize_kprobe(km: &KprobeMutex, p: Hashed<'_>) {
    // Impossible to optimize ftrace-based kprobe.
    if p.ftrace() {
        return;
    }
    // For preparing optimization, jump_label_text_reserved() is called.
    let tl = locks::text_and_jump_label(km);
    if let Some(ap) = alloc_aggr_kprobe(&tl, *p) {
        // SAFETY: `ap`'s `op` is live (a `NewAggr`), all that
        // `arch_prepared_optinsn()` reads.
        if !unsafe { sys::arch_prepared_optinsn(ap.op.as_ptr()) } {
            // If failed to setup optimizing, fallback to kprobe.
            ap.free();
        } else {
            let (ap, _) = init_aggr_kprobe(km, ap, p);
            optimize_kprobe(km, *ap); // This just kicks optimizer thread.
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
            if !p.disabled() {
                optimize_kprobe(&km, *p);
            }
        });
        drop(cpus);
        crate::kp_pr!(
            info,
            "kprobe jump-optimization is enabled. All kprobes are optimized if possible.\n"
        );
    }
}

#[cfg(CONFIG_SYSCTL)]
/// `unoptimize_all_kprobes()`.
pub fn unoptimize_all_kprobes() {
    let km = locks::kprobe_mutex();
    // If optimization is already prohibited, just return.
    if !state::allow_optimization() {
        return;
    }
    let cpus = locks::cpus_read(&km);
    state::set_allow_optimization(&km, false);
    registry::for_each_hashed(&km, |p| {
        if !p.disabled() {
            unoptimize_kprobe(&km, *p, None);
        }
    });
    drop(cpus);

    // Wait for unoptimizing completion.
    wait_for_kprobe_optimizer_unlock(km);
    crate::kp_pr!(
        info,
        "kprobe jump-optimization is disabled. All kprobes are based on software breakpoint.\n"
    );
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
        unsafe { sysctl_kprobes_optimization = if state::allow_optimization() { 1 } else { 0 } };
        // SAFETY: the arguments are the sysctl core's (this function's `# Safety`), as
        // `proc_dointvec_minmax()` expects; its `data` is serialized as above.
        let ret = unsafe { sys::proc_dointvec_minmax(table, write, buffer, length, ppos) };

        // SAFETY: as above.
        if unsafe { sysctl_kprobes_optimization } != 0 {
            optimize_all_kprobes();
        } else {
            unoptimize_all_kprobes();
        }
        ret
    }
}

/// `__arm_kprobe()`: puts the breakpoint of `p`.
#[inline] // one caller (arm.rs), as kprobes.c inlines it there
pub fn arm_kprobe_locked(tl: &TextLocks<'_>, p: Hashed<'_>) {
    sys::lockdep_assert_held_text_mutex();
    // Find the overlapping optimized kprobes.
    if let Some(other) = get_optimized_kprobe(tl, p) {
        // Fallback to unoptimized kprobe.
        unoptimize_kprobe(tl, other.probe(), Some(tl));
    }
    // Intended divergence: an optimized probe whose unoptimization is
    // still queued (disabled, then enabled again before the optimizer
    // ran) still has its jump in the text, so it is armed already.
    // Upstream writes an int3 over the first byte of the live jump
    // here and then dequeues the unoptimization: the probe stays
    // flagged optimized with an int3 in the text, and every hit traps
    // (x86 detours it through the optimized copy) until it is next
    // unoptimized.  Cancelling the queued unoptimization
    // (optimize_kprobe() dequeues it; if it declines, the optimizer
    // turns the jump back into an int3, which stays armed) keeps the
    // jump.
    if let Some(ap) = p.aggr() {
        if p.optimized() && optprobe_queued_unopt(tl, ap.op()) {
            optimize_kprobe(tl, *p);
            return;
        }
    }
    // SAFETY: `p` is hashed, so prepared (a `Hashed`), and `tl` proves `text_mutex`
    // and the CPU hotplug lock held, as `arch_arm_kprobe()` requires.
    unsafe { sys::arch_arm_kprobe(p.as_ptr()) };
    optimize_kprobe(tl, *p); // Try to optimize (add kprobe to a list).
}

/// `__disarm_kprobe()`: removes the breakpoint of `p`, which is armed.
#[inline] // one caller (arm.rs), as kprobes.c inlines it there
pub fn disarm_kprobe_locked(tl: &TextLocks<'_>, p: Hashed<'_>, reopt: bool) {
    sys::lockdep_assert_held_text_mutex();
    // Try to unoptimize (at once when all probes are being disarmed).
    let forced = state::all_disarmed();
    unoptimize_kprobe(tl, *p, forced.then_some(tl));

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
    let queued = kprobe_queued(tl, *p);
    if !queued || forced {
        // SAFETY: `p` is hashed, so prepared (a `Hashed`), and `tl` proves
        // `text_mutex` and the CPU hotplug lock held, as `arch_disarm_kprobe()`
        // requires.
        unsafe { sys::arch_disarm_kprobe(p.as_ptr()) };
    }
    if queued && forced {
        if let Some(ap) = p.aggr() {
            // On the freeing list, forcibly unoptimized and now disarmed: the
            // optimizer, which disarms the probes there while all are
            // disarmed (see `do_unoptimize_kprobes()`), has nothing left to do
            // with it.  It is in use (not disabled), so the optimizer would
            // only have taken it off the list.
            // SAFETY: `op->list` and the freeing list are guarded by the
            // `kprobe_mutex` `tl` proves held.
            unsafe { list::list_del_init(ap.op_list()) };
        }
    }
    if !queued {
        // If another kprobe was blocked, re-optimize it.
        if let Some(other) = get_optimized_kprobe(tl, p) {
            if reopt {
                optimize_kprobe(tl, other.probe());
            }
        }
    }
    // TODO (upstream): Since unoptimization and real disarming will be
    // done by the worker thread, we can not check whether another probe
    // are unoptimized because of this probe here. It should be
    // re-optimized by the worker thread.
}

/// Empties the staging lists (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    // SAFETY: host tests are serialized.
    unsafe {
        list::init_list_head(optimizing_list());
        list::init_list_head(unoptimizing_list());
        list::init_list_head(freeing_list());
        sysctl_kprobes_optimization = 0;
    }
    for n in &NEAR {
        n.store(0, Ordering::Relaxed);
    }
    NEAR_OFF.store(false, Ordering::Relaxed);
}
