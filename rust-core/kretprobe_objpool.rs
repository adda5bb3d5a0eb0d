// SPDX-License-Identifier: GPL-2.0

//! Return probes on the architecture's own trampoline
//! (`!CONFIG_KRETPROBE_ON_RETHOOK`: arm64 in 6.12), the backend of
//! `kretprobe.rs`: the entry probe's pre-handler takes an instance from the
//! kretprobe's object pool and lets the arch (`arch_prepare_kretprobe()`)
//! redirect the return to `__kretprobe_trampoline`, whose handler calls
//! [`__kretprobe_trampoline_handler`].  Port of the `#if
//! !defined(CONFIG_KRETPROBE_ON_RETHOOK)` part of `kernel/kprobes.c`.
//!
//! The instances a task has in flight are on its `kretprobe_instances`
//! list, which only the task itself changes (its probed functions' entries
//! and returns), or `kprobe_flush_task()` once it is dead.  A kretprobe's
//! holder (`rp->rph`) outlives the kretprobe: its `rp` is cleared (RCU) at
//! unregistration, and the pool is freed with its last instance.
//!
//! The handlers run in breakpoint and trampoline context: they are
//! blacklisted (`NOKPROBE_SYMBOL`, as upstream's), cannot panic, allocate
//! or sleep; `pre_handler_kretprobe()` and the trampoline handler only pop
//! and push the pool (objpool's lock-free per-CPU rings).

use crate::error::{code::ENOMEM, Result};
use crate::ffi::{c_int, c_ulong, c_void};
use crate::objpool::Pool;
use crate::probe::RetProbe;
use crate::sys;
use crate::types::{
    Kprobe, KprobeOpcode, Kretprobe, KretprobeHolder, KretprobeInstance, LlistNode, PreemptOff,
    PtRegs, RcuHead,
};
use core::ptr::{self, addr_of_mut};
use core::sync::atomic::{AtomicPtr, Ordering};

/// The kretprobe whose entry probe is `p`.
#[inline(always)]
fn rp_of(p: *mut Kprobe) -> *mut Kretprobe {
    crate::container_of!(p, Kretprobe, kp)
}

/// The instance whose `llist` is `n`.
#[inline(always)]
fn ri_of(n: *mut LlistNode) -> *mut KretprobeInstance {
    crate::container_of!(n, KretprobeInstance, llist)
}

// objpool's callbacks: ordinary functions with an ftrace site, which
// kprobe_events may probe, as upstream's (and whose kCFI id is C's by
// construction, `abi.rs`).
ftrace_export! {
    /// objpool's `objinit` callback (`kretprobe_init_inst()`): the
    /// instance's holder is the pool's context.
    ///
    /// # Safety
    /// objpool's: `nod` is an object of the pool's object size, `context`
    /// the holder given to `objpool_init()`.
    unsafe fn kretprobe_init_inst(nod: *mut c_void, context: *mut c_void) -> c_int {
        // SAFETY: `nod` is a fresh object of at least
        // `size_of::<KretprobeInstance>()` bytes, not yet handed out (this
        // function's `# Safety`).
        unsafe { (*nod.cast::<KretprobeInstance>()).rph = context.cast() };
        0
    }
}

ftrace_export! {
    /// objpool's `release` callback (`kretprobe_fini_pool()`): frees the
    /// holder with the pool.
    ///
    /// # Safety
    /// objpool's: called once, when the pool's last object is gone;
    /// `context` is the holder `alloc_instances()` allocated.
    unsafe fn kretprobe_fini_pool(_head: *mut sys::ObjpoolHead, context: *mut c_void) -> c_int {
        // SAFETY: the holder was `kzalloc()`ed by `alloc_instances()` and
        // nothing refers to it any more (its pool is being released, this
        // function's `# Safety`).
        unsafe { sys::kfree(context) };
        0
    }
}

/// `free_rp_inst_rcu()`: an instance of an unregistered kretprobe goes
/// back to its pool (which may then be freed) after a grace period.
///
/// # Safety
/// `head` is the `rcu` of an instance handed to `call_rcu()` by
/// [`recycle_rp_inst`].
#[no_mangle]
unsafe extern "C" fn free_rp_inst_rcu(head: *mut RcuHead) {
    let ri = crate::container_of!(head, KretprobeInstance, rcu);
    // SAFETY: `ri` is the instance `call_rcu()` was given (this function's
    // `# Safety`), off every list; its holder lives until its pool's last
    // object is dropped, which this may be.
    unsafe { sys::objpool_drop(ri.cast(), addr_of_mut!((*(*ri).rph).pool)) };
}
crate::nokprobe_symbol!(free_rp_inst_rcu);

/// `recycle_rp_inst()`: back to the pool, or, once the kretprobe is gone,
/// dropped after a grace period.  A symbol of its own, blacklisted, as
/// upstream's.
///
/// # Safety
/// `ri` is an instance taken off a task's list, in the trampoline or the
/// dead task's context.
#[no_mangle]
unsafe extern "C" fn recycle_rp_inst(ri: *mut KretprobeInstance) {
    // `get_kretprobe(ri)`: `ri->rph->rp`, null once the kretprobe is
    // unregistered.
    // SAFETY: `ri` is live (this function's `# Safety`), so its `rph`, set by
    // `kretprobe_init_inst()`, is; `rp` is written only by release stores
    // (`rcu_assign_pointer()`), read here with acquire.
    let rp = unsafe { AtomicPtr::from_ptr(addr_of_mut!((*(*ri).rph).rp)).load(Ordering::Acquire) };
    if !rp.is_null() {
        // SAFETY: `rp` is registered (its holder's `rp` is set), so
        // `rp->rph` is its live holder, whose pool `objpool_init()` set up,
        // and `ri` one of that pool's objects, off every list.
        unsafe { Pool::from_raw(addr_of_mut!((*(*rp).rph).pool)).push(ri.cast()) };
    } else {
        // SAFETY: `ri` is off every list and its `rcu` unused; the callback
        // gets it back after a grace period.
        unsafe { sys::call_rcu(addr_of_mut!((*ri).rcu), free_rp_inst_rcu) };
    }
}
crate::nokprobe_symbol!(recycle_rp_inst);

ftrace_export! {
    /// `kprobe_flush_task()`: recycles the kretprobe instances of a dead
    /// task (called from `delayed_put_task_struct()`): probed functions
    /// that were called but will never return.
    ///
    /// # Safety
    /// `tk` is a dead task.
    unsafe fn kprobe_flush_task(tk: *mut sys::TaskStruct) {
        // Early boot, not yet initialized.
        if !crate::state::initialized() {
            return;
        }
        let busy = crate::aggr::busy_begin();
        // `__llist_del_all(&tk->kretprobe_instances)`.
        // SAFETY: `tk` is dead (this function's `# Safety`): no one else walks
        // or changes its list.
        let mut node = unsafe { sys::task_kretprobe_instances(tk).replace(ptr::null_mut()) };
        while !node.is_null() {
            let ri = ri_of(node);
            // SAFETY: `node` is on the dead task's list, which is ours now.
            node = unsafe { (*node).next };
            // SAFETY: `ri` was taken off the dead task's list just above.
            unsafe { recycle_rp_inst(ri) };
        }
        drop(busy);
    }
}
crate::nokprobe_symbol!(kprobe_flush_task);
crate::nokprobe_symbol!(kprobe_flush_task::body);

/// `__kretprobe_find_ret_addr()`: the next instance's return address on
/// `tsk`'s list after `*cur`, skipping the trampoline's; `*cur` is set to
/// its node.  A symbol of its own, blacklisted, as upstream's.
///
/// # Safety
/// `tsk` is the current task or one that is not running; `*cur` is null or
/// a node of its list.
#[export_name = "__kretprobe_find_ret_addr"]
unsafe extern "C" fn find_ret_addr(
    tsk: *mut sys::TaskStruct,
    cur: *mut *mut LlistNode,
) -> *mut KprobeOpcode {
    // SAFETY: `cur` is a valid cursor and `tsk`'s list is not changed under
    // us (this function's `# Safety`); its nodes are live instances.
    let mut node = unsafe { *cur };
    node = if node.is_null() {
        // SAFETY: as above.
        unsafe { sys::task_kretprobe_instances(tsk).get() }
    } else {
        // SAFETY: as above.
        unsafe { (*node).next }
    };
    while !node.is_null() {
        let ri = ri_of(node);
        // SAFETY: `node` is on `tsk`'s list: `ri` is a live instance.
        let ret_addr = unsafe { (*ri).ret_addr };
        if ret_addr != sys::kretprobe_trampoline_addr() {
            // SAFETY: `cur` is valid (this function's `# Safety`).
            unsafe { *cur = node };
            return ret_addr;
        }
        // SAFETY: as above.
        node = unsafe { (*node).next };
    }
    ptr::null_mut()
}
crate::nokprobe_symbol!(find_ret_addr);

ftrace_export! {
    /// `kretprobe_find_ret_addr()`: the real return address that a
    /// kretprobe on `tsk` hid for the frame `fp` (arm64's unwinder), or 0.
    ///
    /// # Safety
    /// `tsk` is the current task or one that is not running; `cur` is null
    /// or points to null or to the cursor of a previous call.
    unsafe fn kretprobe_find_ret_addr(
        tsk: *mut sys::TaskStruct,
        fp: *mut c_void,
        cur: *mut *mut LlistNode,
    ) -> c_ulong {
        if cur.is_null() {
            crate::warn_once!();
            return 0;
        }
        loop {
            // SAFETY: as this function's `# Safety`.
            let ret = unsafe { find_ret_addr(tsk, cur) };
            if ret.is_null() {
                return 0;
            }
            // SAFETY: `find_ret_addr()` set `*cur` to a node of the list, of a
            // live instance.
            if unsafe { (*ri_of(*cur)).fp } == fp {
                return ret as c_ulong;
            }
        }
    }
}
crate::nokprobe_symbol!(kretprobe_find_ret_addr);
crate::nokprobe_symbol!(kretprobe_find_ret_addr::body);

/// `__kretprobe_trampoline_handler()`: runs the return handlers of the
/// instances of this frame (`frame_pointer`) and returns the real return
/// address.
///
/// # Safety
/// The arch trampoline's context on the current task
/// (`kretprobe_trampoline_handler()`: preemption disabled, in a
/// `kprobe_busy_begin()` section).
#[no_mangle]
pub unsafe extern "C" fn __kretprobe_trampoline_handler(
    regs: *mut PtRegs,
    frame_pointer: *mut c_void,
) -> c_ulong {
    let cur = sys::current_task();
    let mut node: *mut LlistNode = ptr::null_mut();
    // Find correct address and all nodes for this frame.
    // SAFETY: `cur` is the current task and `node` a null cursor.
    let correct_ret_addr = unsafe { find_ret_addr(cur, &mut node) };
    if correct_ret_addr.is_null() {
        // pr_err(...) and BUG_ON(1), which does not return.
        sys::kretprobe_no_ret_addr();
    }

    // Set the return address as the instruction pointer, because if the
    // user handler calls stack_trace_save_regs() with this 'regs', the
    // stack trace will start from the instruction pointer.
    // SAFETY: `regs` is the trampoline's frame on this CPU (this function's
    // `# Safety`).
    unsafe { sys::instruction_pointer_set(regs, correct_ret_addr as usize) };

    // SAFETY: the trampoline handler's context (this function's `# Safety`):
    // preemption is disabled.
    let po = unsafe { PreemptOff::assume() };

    // Run the user handler of the nodes.
    // SAFETY: the current task's list, which only it changes.
    let head = unsafe { sys::task_kretprobe_instances(cur) };
    let mut first = head.get();
    while !first.is_null() {
        let ri = ri_of(first);
        // SAFETY: `first` is on the current task's list: `ri` is live.
        if unsafe { (*ri).fp } != frame_pointer {
            crate::warn_once!();
            break;
        }
        // `get_kretprobe(ri)`.
        // SAFETY: `ri` is live, so its holder is (see `recycle_rp_inst()`).
        let rp =
            unsafe { AtomicPtr::from_ptr(addr_of_mut!((*(*ri).rph).rp)).load(Ordering::Acquire) };
        // SAFETY: a non-null `rp` is registered (it stays allocated until a
        // grace period after its unregistration, and this handler runs with
        // preemption disabled), its `handler` not written while registered.
        if let Some(h) = (!rp.is_null()).then(|| unsafe { (*rp).handler }).flatten() {
            let prev = sys::kprobe_running(po);
            // SAFETY: `rp` is live (above); this CPU's `current_kprobe` with
            // preemption disabled; `ri` is this frame's instance, `regs` the
            // trampoline's frame, as the handler expects.
            unsafe {
                sys::set_current_kprobe(po, addr_of_mut!((*rp).kp));
                (*ri).ret_addr = correct_ret_addr;
                h(ri, regs);
            }
            sys::set_current_kprobe(po, prev);
        }
        if first == node {
            break;
        }
        // SAFETY: `first` is on the list (above).
        first = unsafe { (*first).next };
    }

    // SAFETY: `regs` is the trampoline's frame (this function's `# Safety`).
    unsafe { sys::arch_kretprobe_fixup_return(regs, correct_ret_addr) };

    // Unlink all nodes for this frame.
    first = head.get();
    // SAFETY: `node` is the non-null node `find_ret_addr()` found on the
    // current task's list, at or after `first`.
    unsafe {
        head.set((*node).next);
        (*node).next = ptr::null_mut();
    }

    // Recycle free instances.
    while !first.is_null() {
        let ri = ri_of(first);
        // SAFETY: `first` is on the list just unlinked, now ours.
        first = unsafe { (*first).next };
        // SAFETY: `ri` was taken off the current task's list just above.
        unsafe { recycle_rp_inst(ri) };
    }
    correct_ret_addr as c_ulong
}
crate::nokprobe_symbol!(__kretprobe_trampoline_handler);

/// `pre_handler_kretprobe()`: registered with every kretprobe; when the
/// probe hits, it sets up the return probe.
///
/// # Safety
/// Handler context; `p` is the `kp` of a registered kretprobe.
#[no_mangle]
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn pre_handler_kretprobe(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    let rp = rp_of(p);
    // SAFETY: `rp` is registered, in handler context (this function's `# Safety`):
    // it and its holder stay live until a grace period after unregistration,
    // `rph` is not written meanwhile, and its pool was set up at registration.
    let pool = unsafe { Pool::from_raw(addr_of_mut!((*(*rp).rph).pool)) };
    let ri = pool.pop().cast::<KretprobeInstance>();
    if ri.is_null() {
        // SAFETY: `rp` is live (above); `nmissed` is updated as upstream's
        // `rp->nmissed++` (one volatile read-modify-write).
        unsafe { crate::once::update(addr_of_mut!((*rp).nmissed), |n| n.wrapping_add(1)) };
        return 0;
    }

    // SAFETY: `rp` is live and its `entry_handler` not written while it is
    // registered.
    if let Some(h) = unsafe { (*rp).entry_handler } {
        // SAFETY: `ri` is an instance of `rp`'s pool, ours until pushed or
        // listed; `regs` is the hit's frame, as the handler expects.
        if unsafe { h(ri, regs) } != 0 {
            // SAFETY: `ri` came from this pool and is not listed.
            unsafe { pool.push(ri.cast()) };
            return 0;
        }
    }

    // SAFETY: `ri` is ours (above), `regs` the hit's frame on the current
    // task: the arch saves the return address and frame pointer in `ri` and
    // points the return at its trampoline.
    unsafe { sys::arch_prepare_kretprobe(ri, regs) };

    // `__llist_add(&ri->llist, &current->kretprobe_instances)`.
    // SAFETY: the current task's list, which only it changes (preemption is
    // disabled: no other code of this task runs meanwhile); `ri` is ours.
    unsafe {
        let head = sys::task_kretprobe_instances(sys::current_task());
        (*ri).llist.next = head.get();
        head.set(addr_of_mut!((*ri).llist));
    }
    0
}
crate::nokprobe_symbol!(pre_handler_kretprobe);

/// Registration: the holder and the object pool of instances
/// (`rp->rph`), and `rph->rp = rp` (RCU).
pub(crate) fn alloc_instances(r: RetProbe<'_>) -> Result {
    let rp = r.as_ptr();
    let rph = sys::kzalloc(core::mem::size_of::<KretprobeHolder>()).cast::<KretprobeHolder>();
    // SAFETY: `rp` is live and not registered yet (a `RetProbe`, whose
    // registration is in progress), so its fields may be written plainly.
    unsafe { (*rp).rph = rph };
    if rph.is_null() {
        return Err(ENOMEM);
    }
    // SAFETY: `rph` is a fresh zeroed holder, seen by no one else; the pool
    // gets `maxactive` objects of an instance and `data_size` bytes, each
    // pointed at `rph` by `kretprobe_init_inst()`; we may sleep (process
    // context).
    let err = unsafe {
        sys::objpool_init(
            addr_of_mut!((*rph).pool),
            (*rp).maxactive,
            ((*rp).data_size + core::mem::size_of::<KretprobeInstance>()) as c_int,
            rph.cast(),
            kretprobe_init_inst,
            kretprobe_fini_pool,
        )
    };
    if err != 0 {
        // SAFETY: the holder is ours (the pool was not made) and `rp` not
        // registered.
        unsafe {
            sys::kfree(rph.cast());
            (*rp).rph = ptr::null_mut();
        }
        return Err(ENOMEM);
    }
    // SAFETY: `rph` is ours; `rcu_assign_pointer(rp->rph->rp, rp)`; `rp` is
    // not registered.
    unsafe {
        AtomicPtr::from_ptr(addr_of_mut!((*rph).rp)).store(rp, Ordering::Release);
        (*rp).nmissed = 0;
    }
    Ok(())
}

/// `free_rp_inst()`: the pool's release (`objpool_fini()`: the free
/// objects now, the holder with the last one).  `rp->rph` is written only
/// here and at registration, both by the (un)registering thread.
fn free_rp_inst(r: RetProbe<'_>, _unused: PoolUnused) {
    let rp = r.as_ptr();
    // SAFETY: `rp` is live (a `RetProbe`).
    let rph = unsafe { (*rp).rph };
    if rph.is_null() {
        return;
    }
    // SAFETY: `rph` is the holder `alloc_instances()` made, whose pool no
    // pre-handler uses any more (`PoolUnused`).
    unsafe {
        (*rp).rph = ptr::null_mut();
        sys::objpool_fini(addr_of_mut!((*rph).pool));
    }
}

/// That no pre-handler pops a kretprobe's pool any more: its entry probe
/// was never registered, or was unregistered a grace period ago.  Made
/// only where that holds ([`free_instances`], [`release`]).
struct PoolUnused(());

/// The entry probe's registration failed: `free_rp_inst()`.
pub(crate) fn free_instances(r: RetProbe<'_>) {
    // The entry probe was never registered.
    free_rp_inst(r, PoolUnused(()));
}

/// Unregistration, under `kprobe_mutex`: `rcu_assign_pointer(rp->rph->rp,
/// NULL)`, after which instances in flight are dropped instead of recycled.
pub(crate) fn detach(r: RetProbe<'_>) {
    let rp = r.as_ptr();
    // SAFETY: `rp` is live (a `RetProbe`); `rph`, unless null, is the holder
    // `alloc_instances()` made, which lives as long as its pool.
    unsafe {
        let rph = (*rp).rph;
        // Intended divergence: upstream dereferences a null `rph` (a
        // kretprobe never registered, or whose registration failed).
        if !rph.is_null() {
            AtomicPtr::from_ptr(addr_of_mut!((*rph).rp)).store(ptr::null_mut(), Ordering::Release);
        }
    }
}

/// Unregistration, after the grace period: `free_rp_inst()` of an
/// unregistered kretprobe (as upstream, only if its entry probe's
/// unregistration succeeded).
pub(crate) fn release(r: RetProbe<'_>, unregistered: bool) {
    if unregistered {
        // The entry probe was unregistered a grace period ago (the caller,
        // `kretprobe.rs`).
        free_rp_inst(r, PoolUnused(()));
    }
}
