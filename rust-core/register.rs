// SPDX-License-Identifier: GPL-2.0

//! Registration: `register_kprobe()` and friends, aggregate management
//! (a second probe at an address turns the first into a child of an
//! aggregate), enable/disable and the two-phase unregistration (unhash
//! under `kprobe_mutex`, one RCU grace period, then free).  Port of that
//! part of `kernel/kprobes.c`.

use crate::addr::{self, ReservedWindow};
use crate::arm;
use crate::error::{code::*, to_result, Result};
use crate::ffi::c_ulong;
use crate::ftrace::FtraceBatch;
use crate::index;
use crate::list;
use crate::locks::{self, KprobeMutex, TextLocks};
use crate::opt;
use crate::probe::{Aggr, Array, Hashed, NewProbe, Probe, ProbeArray, View};
use crate::rcu_policy;
use crate::registry;
use crate::state;
use crate::sys;
use crate::tree;
use crate::types::{Kprobe, KPROBE_FLAG_DISABLED, KPROBE_FLAG_GONE, KPROBE_FLAG_ON_FUNC_ENTRY};
use core::ptr;

/// `add_new_kprobe()`: adds `p` to aggregate `ap` (publishes it).
fn add_new_kprobe<'a>(tl: &TextLocks<'_>, ap: Aggr<'_>, p: NewProbe<'a>) -> Probe<'a> {
    let p = p.probe();
    if p.post_handler().is_some() {
        opt::unoptimize_kprobe(tl, ap.probe(), Some(tl)); // Fall back to normal kprobe.
    }
    // SAFETY: `p` is live and on no list (a `NewProbe`), `ap` a live aggregate,
    // and `tl` proves `kprobe_mutex` held, the child lists' writer lock.
    unsafe { list::list_add_rcu(p.list(), ap.probe().list()) };
    if p.post_handler().is_some() && ap.probe().post_handler().is_none() {
        ap.probe()
            .set_post_handler(tl, Some(crate::probe::aggr_post_handler));
    }
    p
}

/// `register_aggr_kprobe()`: registers the second or subsequent kprobe at
/// the same address, where `orig_p` is hashed.
fn register_aggr_kprobe(km: &KprobeMutex, orig_p: Hashed<'_>, p: NewProbe<'_>) -> Result {
    // For preparing optimization, jump_label_text_reserved() is called.
    let tl = locks::text_and_jump_label(km);

    let (ah, ap) = match orig_p.aggr() {
        None => {
            // If 'orig_p' is not an 'aggr_kprobe', create new one.
            let Some(new) = opt::alloc_aggr_kprobe(&tl, *orig_p) else {
                return Err(ENOMEM);
            };
            opt::init_aggr_kprobe(km, new, orig_p)
        }
        Some(ap) => {
            if opt::kprobe_unused(km, ap.probe()) {
                // This probe is going to die. Rescue it.
                opt::reuse_unused_kprobe(km, ap)?;
            }
            (orig_p, ap)
        }
    };

    if ap.probe().gone() {
        // Attempting to insert new probe at the same location that had a
        // probe in the module vaddr area which already freed. So, the
        // instruction slot has already been released. We need a new slot
        // for the new probe.
        // Even if fail to allocate new slot, don't need to free the 'ap'.
        // It will be used next time, or freed by unregister_kprobe().
        // SAFETY: `ap` is a live aggregate whose text went away with its
        // module, so no CPU executes or patches its address, and `tl` proves
        // `text_mutex` held, as `arch_prepare_kprobe()` needs.
        to_result(unsafe { sys::arch_prepare_kprobe(ap.as_ptr()) })?;
        // Prepare optimized instructions if possible.
        opt::prepare_optimized_kprobe(&tl, ap);
        // Clear gone flag to prevent allocating new slot again, and set
        // disabled flag because it is not armed yet.
        ap.probe().put_flags(
            km,
            (ap.probe().flags() & !KPROBE_FLAG_GONE) | KPROBE_FLAG_DISABLED,
        );
    }

    // Copy the insn slot of 'p' to 'ap'.
    p.copy_insn_from(ap.probe());
    let p = add_new_kprobe(&tl, ap, p);
    drop(tl);

    let mut ret = Ok(());
    if ap.probe().disabled() && !p.disabled() {
        ap.probe().clear_flags(km, KPROBE_FLAG_DISABLED);
        if !state::all_disarmed() {
            // Arm the breakpoint again.
            ret = arm::arm_kprobe(km, ah);
            if ret.is_err() {
                ap.probe().set_flags(km, KPROBE_FLAG_DISABLED);
                // SAFETY: `p` is on `ap`'s child list, which `km` guards.
                unsafe { list::list_del_rcu(p.list()) };
                sys::synchronize_rcu();
            }
        }
    }
    ret
}

/// `__get_valid_kprobe()`: checks that `p` is registered and returns the
/// probe hashed at its address (`p` itself or its aggregate).
/// Also where the index holds it (for `registry::unhash_at()`).
#[inline] // into enable_kprobe() and disable_kprobe(): no call of its own on their path
fn get_valid_kprobe<'k>(km: &'k KprobeMutex, p: Probe<'_>) -> Option<(Hashed<'k>, index::Pos)> {
    sys::lockdep_assert_held_kprobe_mutex();
    let (ap, pos) = registry::find_pos(km, p.addr())?;
    // kprobe p is a valid probe if it is the hashed one or on its list.
    (p == *ap || ap.has_child(km, p)).then_some((ap, pos))
}

/// `warn_kprobe_rereg()`: warns and fails if `p` is being re-registered,
/// since there must be a software bug.
pub fn warn_kprobe_rereg(p: Probe<'_>) -> Result {
    warn_kprobe_rereg_locked(&locks::kprobe_mutex(), p)
}

/// [`warn_kprobe_rereg`] with `kprobe_mutex` held (batches).
pub fn warn_kprobe_rereg_locked(km: &KprobeMutex, p: Probe<'_>) -> Result {
    if get_valid_kprobe(km, p).is_some() {
        crate::warn_once!();
        return Err(EINVAL);
    }
    Ok(())
}

/// `register_kprobe()`: `p` is the caller's, alive until unregistered
/// (its `symbol_name` null or a C string); process context.
pub fn register_kprobe(p: Probe<'_>) -> Result {
    let (np, on_func_entry) = resolve_new(p, warn_kprobe_rereg)?;

    let probed_mod = addr::check_kprobe_address_safe(&np, None)?;

    let ret = register_locked(&locks::kprobe_mutex(), np, on_func_entry);

    // The module reference `check_kprobe_address_safe()` took, if any.
    drop(probed_mod);
    ret
}

/// [`register_kprobe`] of a member of `register_kprobes()` or
/// `register_kretprobes()`, with `kprobe_mutex` held throughout: the batch
/// arms its ftrace members before the mutex is released, so no other
/// registration may see the ops' use count before the ops is registered.
/// The address checks run under the mutex too (upstream makes them
/// without it): they take `jump_label_lock`, which nests inside
/// `kprobe_mutex` as in `register_aggr_kprobe()`, and a module reference;
/// `win` is the batch's window of range checks.
pub fn register_kprobe_locked(km: &KprobeMutex, p: Probe<'_>, win: &ReservedWindow) -> Result {
    let (np, on_func_entry) = resolve_new(p, |p| warn_kprobe_rereg_locked(km, p))?;
    let probed_mod = addr::check_kprobe_address_safe(&np, Some(win))?;
    let ret = register_locked(km, np, on_func_entry);
    drop(probed_mod);
    ret
}

/// The first part of `register_kprobe()`: resolves `p`'s address, checks
/// (with `rereg`) that it is not registered yet, and resets its flags;
/// returns it as a new probe, and whether it is at a function entry.
fn resolve_new<'a>(
    p: Probe<'a>,
    rereg: impl Fn(Probe<'_>) -> Result,
) -> Result<(NewProbe<'a>, bool)> {
    let mut on_func_entry = false;

    // Intended divergence: a live probe registered by `addr` with a
    // non-zero `offset` keeps both, so upstream resolves it to
    // addr + 2 * offset below, misses the re-registration and hashes the
    // live probe a second time (corrupting the table).  Detect it at the
    // registered address, as upstream does when offset is 0.
    if p.symbol_name().is_null() && p.offset() != 0 {
        rereg(p)?;
    }
    // Adjust probe address from symbol.
    let a = addr::kprobe_addr(
        p.addr(),
        p.symbol(),
        p.offset() as c_ulong,
        &mut on_func_entry,
    )?;
    p.write_addr(a);

    rereg(p)?;

    // SAFETY: `rereg` (`warn_kprobe_rereg()`) found `p` neither hashed nor in an
    // aggregate, and the kprobes API forbids registering one probe from two tasks
    // at once.
    let np = unsafe { NewProbe::new(p) };
    // User can pass only KPROBE_FLAG_DISABLED to register_kprobe.
    np.reset(0);
    // Mainline marks a function entry here, before the address checks: a
    // probe they refuse keeps the flag.
    if tree::FUNC_ENTRY_FLAG_BEFORE_CHECKS && on_func_entry {
        np.set_flags(KPROBE_FLAG_ON_FUNC_ENTRY);
    }
    Ok((np, on_func_entry))
}

/// The part of `register_kprobe()` under `kprobe_mutex`.
fn register_locked(km: &KprobeMutex, p: NewProbe<'_>, on_func_entry: bool) -> Result {
    if on_func_entry && !tree::FUNC_ENTRY_FLAG_BEFORE_CHECKS {
        p.set_flags(KPROBE_FLAG_ON_FUNC_ENTRY);
    }

    if let Some(old_p) = registry::find(km, p.probe().addr()) {
        // Since this may unoptimize 'old_p', locking 'text_mutex'.
        return register_aggr_kprobe(km, old_p, p);
    }

    // Room in the index first, so that hashing the prepared probe cannot
    // fail (an allocation upstream does not make: see index.rs).
    registry::reserve(km)?;

    // Prevent text modification.
    let prepared = arm::prepare_kprobe(&locks::text(km), &p)?;

    let p = registry::hash_probe(km, prepared);

    if !state::all_disarmed() && !p.disabled() {
        if let Err(e) = arm::arm_kprobe(km, p) {
            registry::unhash(km, p);
            sys::synchronize_rcu();
            return Err(e);
        }
    }

    // Try to optimize kprobe.
    opt::try_to_optimize_kprobe(km, p);
    Ok(())
}

/// `aggr_kprobe_disabled()`: are all probes of aggregate `ap` disabled?
fn aggr_kprobe_disabled(km: &KprobeMutex, ap: Aggr<'_>) -> bool {
    sys::lockdep_assert_held_kprobe_mutex();
    // Since there is an active probe on the list, we can't disable this 'ap'.
    let mut all = true;
    ap.for_each_child(km, |c| {
        all = c.disabled();
        all
    });
    all
}

/// `__disable_kprobe()`: disables `p` (and disarms the probe at its address
/// when nothing there is enabled any more); returns the hashed probe (and
/// where the index holds it) or, as upstream, an error.  Always inlined
/// into its two callers: a `Result` of a pointer and an errno would come
/// back through memory.
#[inline(always)]
fn disable_locked<'k>(km: &'k KprobeMutex, p: Probe<'_>) -> Result<(Hashed<'k>, index::Pos)> {
    sys::lockdep_assert_held_kprobe_mutex();
    // Get an original kprobe for return.
    let (orig_p, pos) = get_valid_kprobe(km, p).ok_or(EINVAL)?;

    if !p.disabled() {
        // Disable probe if it is a child probe.
        if p != *orig_p {
            p.set_flags(km, KPROBE_FLAG_DISABLED);
        }
        // Try to disarm and disable this/parent probe.
        if p == *orig_p || orig_p.aggr().is_some_and(|a| aggr_kprobe_disabled(km, a)) {
            // Don't be lazy here. Even if 'kprobes_all_disarmed' is false,
            // 'orig_p' might not have been armed yet. Note arm_all_kprobes()
            // __tries__ to arm all kprobes on the best effort basis.
            if !state::all_disarmed() && !orig_p.disabled() {
                if let Err(e) = arm::disarm_kprobe(km, orig_p, true) {
                    p.clear_flags(km, KPROBE_FLAG_DISABLED);
                    return Err(e);
                }
            }
            orig_p.set_flags(km, KPROBE_FLAG_DISABLED);
        }
    }
    Ok((orig_p, pos))
}

/// `__unregister_kprobe_top()`: unregisters `p` without waiting for a
/// grace period (the batches' and kretprobes' copy; `unregister_kprobe()`
/// has its own, inlined, so that it makes no call for it).
pub fn unregister_top(km: &KprobeMutex, p: Probe<'_>) -> Result {
    unregister_top_inline(km, p)
}

/// [`unregister_top`]'s body.
#[inline(always)]
fn unregister_top_inline(km: &KprobeMutex, p: Probe<'_>) -> Result {
    // Disable kprobe. This will disarm it if needed.
    let (ap, pos) = disable_locked(km, p)?;

    if *ap != p {
        // Following process expects this probe is an aggrprobe.
        let a = ap.aggr();
        if a.is_none() {
            sys::warn();
        }
        // !disarmed could happen if the probe is under delayed unoptimizing.
        // (`kprobe_disarmed(ap)` of the aggregate `a` just found.)
        // SAFETY: `ap`'s child list is guarded by the mutex `km` proves held.
        if !(unsafe { list::list_is_singular(ap.list()) }
            && a.map_or_else(|| ap.disabled(), |a| opt::aggr_disarmed(km, a)))
        {
            // If disabling probe has special handlers, update aggrprobe.
            if p.post_handler().is_some() && !p.gone() {
                let mut other_post = false;
                if let Some(a) = a {
                    a.for_each_child(km, |c| {
                        other_post = c != p && c.post_handler().is_some();
                        !other_post
                    });
                }
                // For the kprobe-on-ftrace case, we keep the post_handler
                // setting to identify this aggrprobe armed with
                // kprobe_ipmodify_ops.
                if !other_post && !ap.ftrace() {
                    ap.set_post_handler(km, None);
                }
            }
            // Remove from the aggrprobe: this path will do nothing in
            // __unregister_kprobe_bottom().
            // SAFETY: `p` is a child of `ap` (`get_valid_kprobe()`), and `km`
            // guards the child list.
            unsafe { list::list_del_rcu(p.list()) };
            if !ap.disabled() && !state::all_disarmed() {
                // Try to optimize this probe again, because post handler may
                // have been changed.
                opt::optimize_kprobe(km, *ap);
            }
            return Ok(());
        }
    }
    // disarmed:
    registry::unhash_at(km, ap, pos);
    Ok(())
}

/// `__unregister_kprobe_bottom()`: frees what `p` left after the grace
/// period.
///
/// # Safety
/// `unregister_top(p)` succeeded and a grace period has passed since.
#[inline(always)] // a tail call to the body otherwise (unregister_kprobe())
pub unsafe fn unregister_bottom(p: Probe<'_>) {
    let l = p.list();
    // SAFETY: `unregister_top(p)` succeeded and a grace period has passed (this
    // function's `# Safety`): no handler runs on `p`, and an aggregate left with `p`
    // alone was unhashed disarmed and off the optimizer's lists, so it may be freed.
    unsafe {
        if list::list_empty(l) {
            // This is an independent kprobe.
            sys::arch_remove_kprobe(p.as_ptr());
        } else if list::list_is_singular(l) {
            // This is the last child of an aggrprobe.
            let ap = crate::container_of!((*l).next, Kprobe, list);
            list::list_del(l);
            opt::free_aggr_kprobe(ap);
        }
        // Otherwise, do nothing.
    }
}

/// `register_kprobes()`: all or nothing (each probe as for
/// [`register_kprobe`]).
///
/// Batched: the members are registered under one hold of
/// `kprobe_mutex`, and the ftrace ones armed together before it is
/// released, with one `ftrace_set_filter_ips()` per ops (`ftrace.rs`,
/// [`FtraceBatch`]); upstream makes one `ftrace_set_filter_ip()` per
/// probe, each copying the filter hash and walking every ftrace record.
/// Everything else is upstream's: breakpoint members are armed as they are
/// registered, disabled members and `kprobes/enabled` = 0 arm nothing, a
/// member at a registered address joins its aggregate.  When a member
/// fails, or the arming of the batch does, the members registered so far
/// are unregistered (the ftrace arming they left pending is cancelled, so
/// ftrace never sees it) and the error is returned.  An array of one is
/// `register_kprobe()`.
pub fn register_kprobes(kps: ProbeArray<'_>) -> Result {
    register_members(kps)
}

/// How a member of the arrays is registered: on its own (`register_kprobe()`
/// and its twins, which take `kprobe_mutex`), or within a batch, which
/// holds it, the member's address checks in the batch's [`ReservedWindow`].
#[derive(Clone, Copy)]
pub enum Registration<'b> {
    /// On its own.
    Alone,
    /// Within a batch: its hold of `kprobe_mutex` and its window.
    Batch(&'b KprobeMutex, &'b ReservedWindow),
}

impl Registration<'_> {
    /// The checks `register_kretprobe()` makes of its entry probe `kp`
    /// before it sets it up: `kp` is at a function entry and, when its
    /// address is given, not registered yet ([`warn_kprobe_rereg`]).
    pub fn check_entry(self, kp: Probe<'_>) -> Result {
        addr::kprobe_on_func_entry(kp.addr(), kp.symbol(), kp.offset() as c_ulong)?;
        // If only 'rp->kp.addr' is specified, check reregistering kprobes.
        if !kp.addr().is_null() {
            match self {
                Registration::Alone => warn_kprobe_rereg(kp),
                Registration::Batch(km, _) => warn_kprobe_rereg_locked(km, kp),
            }?;
        }
        Ok(())
    }

    /// `register_kprobe()` of `p`: [`register_kprobe`], or in a batch
    /// [`register_kprobe_locked`].
    pub fn register_kprobe(self, p: Probe<'_>) -> Result {
        match self {
            Registration::Alone => register_kprobe(p),
            Registration::Batch(km, win) => register_kprobe_locked(km, p, win),
        }
    }
}

/// A member of the arrays of `register_kprobes()` and its twins: a
/// `struct kprobe`, or a struct its (entry) probe is part of.
pub trait Member<'a>: View<'a> {
    /// Its probe.
    fn kp(self) -> Probe<'a>;

    /// Registers it as its own `register_*()` does, alone or in a batch.
    fn register(self, how: Registration<'_>) -> Result;

    /// Called under `kprobe_mutex` after its probe's
    /// `__unregister_kprobe_top()` (nothing but for kretprobes).
    fn detach(self) {}

    /// Called after the grace period of its unregistration, after its
    /// probe's `__unregister_kprobe_bottom()` if it was `unregistered`
    /// (nothing but for kretprobes).
    fn release(self, _unregistered: bool) {}
}

impl<'a> Member<'a> for Probe<'a> {
    fn kp(self) -> Probe<'a> {
        self
    }

    fn register(self, how: Registration<'_>) -> Result {
        how.register_kprobe(self)
    }
}

/// `register_kprobes()` and its twins: all or nothing; an array of one is
/// the member's own registration, a longer one a batch (`register_batch()`).
pub fn register_members<'a, V: Member<'a>>(ms: Array<'a, V>) -> Result {
    if ms.is_empty() {
        return Err(EINVAL);
    }
    if ms.len() == 1 {
        // Upstream dereferences a null member.
        return ms
            .get(0)
            .map_or(Err(EINVAL), |m| m.register(Registration::Alone));
    }
    register_batch(
        ms.len(),
        |i| ms.get(i).map(|m| m.kp()),
        |i| ms.get(i).and_then(|m| addr::hint(m.kp())),
        // Upstream dereferences a null member.
        |km, i, win| {
            ms.get(i)
                .map_or(Err(EINVAL), |m| m.register(Registration::Batch(km, win)))
        },
        |km, n| unregister_tops(km, ms.prefix(n)),
        |n| unregister_wait_and_free(ms.prefix(n)),
    )
}

/// The batch of [`register_members`] (arrays of two members or more):
/// `register(km, i, win)` registers member `i`
/// under the one hold of `kprobe_mutex`, its address checks within the
/// batch's [`ReservedWindow`] `win`, which `hint(i)` (member `i`'s
/// address, [`addr::hint`]) helps to place; the batch's ftrace arming is
/// flushed before the mutex is released.  When a member or the flush fails, the first
/// `n` members, those registered, are unregistered: `tops(km, n)` under
/// the mutex (cancelling the arming they left pending; the flush after it
/// disarms what a partly failed flush armed), `wait_and_free(n)` after.
/// Member `kp(i)` whose arming failed keeps its flags, as after upstream's
/// failed registration of it; but the members after it, which upstream
/// never registers, are registered and unregistered here.
fn register_batch<'a>(
    members: usize,
    kp: impl Fn(usize) -> Option<Probe<'a>>,
    hint: impl Fn(usize) -> Option<usize>,
    register: impl Fn(&KprobeMutex, usize, &ReservedWindow) -> Result,
    tops: impl FnOnce(&KprobeMutex, usize),
    wait_and_free: impl FnOnce(usize),
) -> Result {
    let km = locks::kprobe_mutex();
    let mut batch = FtraceBatch::begin(&km, members);
    let mut registered = members;
    let mut ret = Ok(());
    let mut win = ReservedWindow::default();
    for i in 0..members {
        win.advance(i, members, &hint);
        ret = register(&km, i, &win);
        if ret.is_err() {
            // The first `i` were registered.
            registered = i;
            break;
        }
    }
    // The member whose arming failed in the batch's flush, as upstream's
    // registration of it would have: it keeps its flags (it was unhashed,
    // never unregistered).
    let mut failed = None;
    if ret.is_ok() {
        ret = batch.flush();
        if ret.is_err() {
            failed = batch.first_unarmed().and_then(|a| {
                (0..members)
                    .filter_map(&kp)
                    .find(|p| p.ftrace() && p.addr() as usize == a)
            });
        }
    }
    let Err(e) = ret else { return Ok(()) };
    if registered > 0 {
        let kept = failed.map(|p| (p, p.flags()));
        tops(&km, registered);
        if let Some((p, flags)) = kept {
            p.put_flags(&km, flags);
        }
        // Disarms what a partly failed flush armed (the rest was cancelled).
        let _ = batch.flush();
        batch.close();
        drop(km);
        wait_and_free(registered);
    }
    Err(e)
}

/// The batch of [`unregister_members`]:
/// `tops(km)` under one hold of `kprobe_mutex`, the ftrace members
/// disarmed together before it is released, then `wait_and_free()`.
fn unregister_batch(members: usize, tops: impl FnOnce(&KprobeMutex), wait_and_free: impl FnOnce()) {
    {
        let km = locks::kprobe_mutex();
        let mut batch = FtraceBatch::begin(&km, members);
        tops(&km);
        // A failure is WARNed as upstream's disarm does; the members are
        // unhashed all the same.
        let _ = batch.flush();
    }
    wait_and_free();
}

/// The part of `unregister_kprobes()` under `kprobe_mutex`: a member that
/// is not registered gets a null `addr` (so that it is not freed).
fn unregister_tops<'a, V: Member<'a>>(km: &KprobeMutex, ms: Array<'a, V>) {
    for m in ms.iter().flatten() {
        let p = m.kp();
        if unregister_top(km, p).is_err() {
            p.write_addr(ptr::null_mut());
        }
        m.detach();
    }
}

/// The part of `unregister_kprobes()` after `kprobe_mutex`: one grace
/// period, then `__unregister_kprobe_bottom()` of each member.
fn unregister_wait_and_free<'a, V: Member<'a>>(ms: Array<'a, V>) {
    // synchronize_rcu(), as upstream (the policy is `rcu_policy`'s).
    rcu_policy::synchronize_unregister();
    for m in ms.iter().flatten() {
        let p = m.kp();
        let unregistered = !p.addr().is_null();
        if unregistered {
            // SAFETY: its `addr` is non-null only if `unregister_top()` succeeded
            // above, and the grace period has passed.
            unsafe { unregister_bottom(p) };
        }
        m.release(unregistered);
    }
}

/// `unregister_kprobe()`: upstream's `unregister_kprobes(&p, 1)`, the
/// same steps without the array and the batch (which an array of one
/// does not open): the top under `kprobe_mutex` (a probe that is not
/// registered gets a null `addr`), one grace period, then the bottom.  A
/// null `p` (upstream dereferences it) only waits for the grace period,
/// as an array of one null member does.
#[inline(always)] // into its one C ABI body (exports.rs)
pub fn unregister_kprobe(p: Option<Probe<'_>>) {
    let done = p.filter(|&p| {
        let km = locks::kprobe_mutex();
        let ok = unregister_top_inline(&km, p).is_ok();
        if !ok {
            // Under `kprobe_mutex`, as upstream's `kps[i]->addr = NULL`.
            p.write_addr(ptr::null_mut());
        }
        ok
    });
    // synchronize_rcu(), as upstream (the policy is `rcu_policy`'s).
    rcu_policy::synchronize_unregister();
    if let Some(p) = done {
        // SAFETY: `unregister_top(p)` succeeded above (so its `addr` is not
        // null, the test upstream makes) and the grace period has passed.
        unsafe { unregister_bottom(p) };
    }
}

/// `unregister_kprobes()`.
///
/// Batched: the ftrace members are disarmed together, with one
/// `ftrace_set_filter_ips()` per ops, before `kprobe_mutex` is released
/// (an array of one is upstream's `unregister_kprobe()`).  A member is
/// thus unhashed before its address leaves ftrace's filter: an ftrace hit
/// in between finds no probe (`get_kprobe()` returns NULL) and the arch's
/// handler returns, as for a hit at any other filtered address without a
/// probe; no handler of a member runs after the unhash but one that had
/// already found it, which the grace period below waits for, as upstream's
/// does for a hit that found it before its disarm.
pub fn unregister_kprobes(kps: ProbeArray<'_>) {
    unregister_members(kps)
}

/// `unregister_kprobes()` and its twins, of an array of distinct members.
pub fn unregister_members<'a, V: Member<'a>>(ms: Array<'a, V>) {
    if ms.is_empty() {
        return;
    }
    unregister_batch(
        ms.len(),
        |km| unregister_tops(km, ms),
        || unregister_wait_and_free(ms),
    );
}

/// `disable_kprobe()`.
// Inlined into its C ABI bodies (exports.rs, jprobe.rs): no wrapper call
// on the path `disable_kprobe_int3` measures.
#[inline(always)]
pub fn disable_kprobe(kp: Probe<'_>) -> Result {
    let km = locks::kprobe_mutex();
    disable_locked(&km, kp).map(|_| ())
}

/// `enable_kprobe()`.
// Inlined into its C ABI bodies (exports.rs, jprobe.rs): no wrapper call
// on the path `enable_kprobe_int3` measures.
#[inline(always)]
pub fn enable_kprobe(kp: Probe<'_>) -> Result {
    let km = locks::kprobe_mutex();
    // Check whether specified probe is valid.
    let (p, _) = get_valid_kprobe(&km, kp).ok_or(EINVAL)?;
    if kp.gone() {
        // This kprobe has gone, we couldn't enable it.
        return Err(EINVAL);
    }
    if *p != kp {
        kp.clear_flags(&km, KPROBE_FLAG_DISABLED);
    }
    let mut ret = Ok(());
    if state::all_disarmed() {
        // Intended divergence: upstream leaves the hashed probe DISABLED
        // here (it clears the flag only together with arming), so a probe
        // enabled while kprobes/enabled is 0 never fires after
        // kprobes/enabled=1, although enable_kprobe() returned 0.  Clear
        // it: arm_all_kprobes() arms every probe that is not disabled.
        if !p.gone() {
            p.clear_flags(&km, KPROBE_FLAG_DISABLED);
        }
    } else if p.disabled() {
        p.clear_flags(&km, KPROBE_FLAG_DISABLED);
        ret = arm::arm_kprobe(&km, p);
        if ret.is_err() {
            p.set_flags(&km, KPROBE_FLAG_DISABLED);
            if *p != kp {
                kp.set_flags(&km, KPROBE_FLAG_DISABLED);
            }
        }
    }
    ret
}
