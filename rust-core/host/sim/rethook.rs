// SPDX-License-Identifier: GPL-2.0

//! rethook (kretprobes): a pool of nodes per rethook, the hooked returns
//! of the simulated task, and [`function_return`], with which a test makes
//! the innermost hooked function return. With
//! [`Image::as_model`](super::Image::as_model), model.c's rethook instead:
//! `rethook_alloc()`'s checks, nodes allocated by `rethook_try_get()`,
//! recycled nodes freed (after RCU once the rethook is stopped), a freed
//! rethook retired (kept, never reused) after RCU once its last node is
//! back, hooked nodes on frames ([`hd_new_frame`]) and
//! [`hd_rethook_return`], the driver's `ret`.

use super::cpu::{preempt_disable, preempt_enable};
use super::image::model;
use super::memory::{kfree, kmalloc};
use super::rcu::call_rcu;
use super::text::arch;
use super::trace::{ev, hd_fatal};
use super::{PtRegs, Rethook, RethookHandler, RethookNode, EINVAL, ENOMEM};
use crate::ctypes::RcuHead;
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
use crate::ffi::c_ulong;
use crate::ffi::{c_int, c_void};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex as StdMutex;

/// The nodes of a simulated rethook (`struct rethook` is the C model's
/// layout, which has no room for them).
struct Pool {
    /// Free nodes, the most recently freed last.
    free: Vec<usize>,
    /// All nodes.
    all: Vec<usize>,
}

/// The pools of the live rethooks, by `id`.
static POOLS: StdMutex<BTreeMap<c_int, Pool>> = StdMutex::new(BTreeMap::new());
/// Allocation numbers of rethooks (`struct rethook`'s `id`).
static NEXT_ID: AtomicI32 = AtomicI32::new(0);

fn pools<R>(f: impl FnOnce(&mut BTreeMap<c_int, Pool>) -> R) -> R {
    f(&mut POOLS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// `rethook_alloc()`: a pool of `num` nodes of `size` bytes; traced as
/// model.c does (`rethook_alloc num=N = 0|-ERR`).
///
/// # Safety
/// `data` outlives the rethook.
pub unsafe fn rethook_alloc(
    data: *mut c_void,
    handler: RethookHandler,
    size: c_int,
    num: c_int,
) -> *mut Rethook {
    // SAFETY: this function's `# Safety`, passed on.
    let rh = unsafe { alloc_pool(data, handler, size, num) };
    let err = rh as isize;
    let ret = if (-4095..0).contains(&err) { err } else { 0 };
    ev(format!("rethook_alloc num={num} = {ret}"));
    rh
}

/// [`rethook_alloc`]'s work.
///
/// # Safety
/// `data` outlives the rethook.
unsafe fn alloc_pool(
    data: *mut c_void,
    handler: RethookHandler,
    size: c_int,
    num: c_int,
) -> *mut Rethook {
    if num <= 0 || size < core::mem::size_of::<RethookNode>() as c_int {
        return (-(EINVAL as isize)) as *mut Rethook;
    }
    // model.c: `objpool_init()` refuses huge pools.
    if model() && (num > 1 << 24 || size > 1 << 16) {
        return (-(ENOMEM as isize)) as *mut Rethook;
    }
    let rh = kmalloc(core::mem::size_of::<Rethook>()).cast::<Rethook>();
    if rh.is_null() {
        return (-(ENOMEM as isize)) as *mut Rethook;
    }
    // model.c allocates the nodes in `rethook_try_get()`.
    let mut all = Vec::new();
    for _ in 0..if model() { 0 } else { num } {
        let n = kmalloc(size as usize).cast::<RethookNode>();
        // SAFETY: `n` is a fresh, zeroed allocation of at least a node's size
        // (`size` was checked above), still this function's alone.
        unsafe { (*n).rethook = rh };
        all.push(n as usize);
    }
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    // SAFETY: `rh` is a fresh allocation of a `Rethook`'s size, aligned for
    // it (`kmalloc()` aligns to 16), and still this function's alone.
    unsafe {
        rh.write(Rethook {
            data,
            handler: Some(handler),
            size,
            num,
            nfree: num,
            outstanding: 0,
            freed: false,
            rcu: RcuHead {
                next: core::ptr::null_mut(),
                func: None,
            },
            id,
        })
    };
    if !model() {
        pools(|p| {
            p.insert(
                id,
                Pool {
                    free: all.clone(),
                    all,
                },
            )
        });
    }
    rh
}

/// `rethook_free()`: stops the rethook (traced as `rethook_free`); the
/// simulation frees it when all of its nodes are back
/// (`rethook_free_rcu()`).
///
/// # Safety
/// `rh` came from [`rethook_alloc`], freed once.
pub unsafe fn rethook_free(rh: *mut Rethook) {
    if model() {
        // SAFETY: `rh` came from `rethook_alloc()` (this function's
        // `# Safety`).
        return unsafe { model_free(rh) };
    }
    ev("rethook_free".into());
    // SAFETY: `rh` is live (this function's `# Safety`: freed only now); the
    // simulated rethooks are used by the test's thread alone.
    unsafe {
        assert!(
            !(*rh).freed && (*rh).handler.is_some(),
            "rethook freed twice"
        );
        (*rh).handler = None;
        (*rh).freed = true;
        maybe_free_rethook(rh);
    }
}

/// Frees `rh` and its nodes once it is stopped and every node is back.
///
/// # Safety
/// `rh` is live; no other thread uses it.
unsafe fn maybe_free_rethook(rh: *mut Rethook) {
    // SAFETY: `rh` is live (this function's `# Safety`); when every node is
    // back nobody holds one, so the nodes and then the rethook (all
    // `kmalloc()` blocks) can go.
    unsafe {
        if (*rh).freed && (*rh).nfree == (*rh).num {
            let id = (*rh).id;
            if let Some(pool) = pools(|p| p.remove(&id)) {
                for n in pool.all {
                    kfree(n as *mut c_void);
                }
            }
            kfree(rh.cast());
        }
    }
}

/// `rethook_try_get()`: a free node, or null (also once stopped).
///
/// # Safety
/// `rh` is live.
pub unsafe fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    if model() {
        // SAFETY: `rh` is live (this function's `# Safety`).
        return unsafe { model_try_get(rh) };
    }
    // SAFETY: `rh` is live (this function's `# Safety`) and used by the test's
    // thread alone.
    unsafe {
        if (*rh).handler.is_none() {
            return core::ptr::null_mut();
        }
        let id = (*rh).id;
        let n = pools(|p| p.get_mut(&id).and_then(|pool| pool.free.pop()));
        match n {
            Some(n) => {
                (*rh).nfree -= 1;
                (*rh).outstanding += 1;
                n as *mut RethookNode
            }
            None => core::ptr::null_mut(),
        }
    }
}

/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    if model() {
        // SAFETY: `n` came from `rethook_try_get()` (this function's
        // `# Safety`).
        return unsafe { model_recycle(n) };
    }
    // SAFETY: `n` is a node handed out by `rethook_try_get()` (this
    // function's `# Safety`), so its rethook is live (a rethook outlives its
    // nodes), used by the test's thread alone.
    unsafe {
        let rh = (*n).rethook;
        let id = (*rh).id;
        pools(|p| p.get_mut(&id).map(|pool| pool.free.push(n as usize)));
        (*rh).nfree += 1;
        (*rh).outstanding -= 1;
        maybe_free_rethook(rh);
    }
}

/// `rethook_hook()`: the probed function will "return" when the test calls
/// [`function_return`].
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_hook(n: *mut RethookNode, _regs: *mut PtRegs, mcount: bool) {
    if model() {
        // model.c: on the current frame, silently.
        let frame = arch(|a| a.frame);
        // SAFETY: `n` came from `rethook_try_get()` (this function's
        // `# Safety`): a live node of this thread's task.
        unsafe { (*n).frame = frame };
        arch(|a| a.hooked.push(n));
        return;
    }
    ev(format!(
        "rethook-hook{}",
        if mcount { " mcount" } else { "" }
    ));
    arch(|a| a.hooked.push(n));
}

/// The argument registers of the simulated frame (`regs.args`).
///
/// # Safety
/// `regs` is a live frame.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
unsafe fn entry_args(regs: *const PtRegs) -> [c_ulong; 6] {
    // SAFETY: live (this function's `# Safety`).
    unsafe { (*regs).args }
}

/// Calls a jprobe's `entry` with the simulated frame's six argument
/// registers (the kernel's is arch/ARCH/sys.rs's).
///
/// # Safety
/// `regs` is a live frame; `entry` a function of six `c_ulong` arguments.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
pub unsafe fn jprobe_call(entry: *mut core::ffi::c_void, regs: *const PtRegs) {
    type Entry = unsafe extern "C" fn(c_ulong, c_ulong, c_ulong, c_ulong, c_ulong, c_ulong);
    // SAFETY: live (this function's `# Safety`).
    let a = unsafe { entry_args(regs) };
    // SAFETY: `entry` takes six `c_ulong`s (this function's `# Safety`).
    unsafe {
        let f = core::mem::transmute::<*mut core::ffi::c_void, Entry>(entry);
        f(a[0], a[1], a[2], a[3], a[4], a[5]);
    }
}

/// The innermost hooked function returns: the rethook calls its handler
/// (if not stopped) and recycles the node.  Returns false if nothing was
/// hooked.
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`regs` is passed on to the handler, not dereferenced here (a test helper)"
)]
pub fn function_return(regs: *mut PtRegs) -> bool {
    let Some(n) = arch(|a| a.hooked.pop()) else {
        return false;
    };
    // SAFETY: a hooked node of a live rethook.
    unsafe {
        let rh = (*n).rethook;
        if let Some(h) = (*rh).handler {
            h(n, (*rh).data, 0, regs);
        }
        rethook_recycle(n);
    }
    true
}

/// model.c's `rethook_free()`: stops the rethook (traced as
/// `rethook_free`), whose pool is finalized after a grace period.
///
/// # Safety
/// `rh` came from [`rethook_alloc`].
unsafe fn model_free(rh: *mut Rethook) {
    // SAFETY: `rh` is live (this function's `# Safety`; a freed rethook is
    // retired, never freed), used by this thread alone.
    unsafe {
        if (*rh).freed {
            hd_fatal(format_args!("rethook_free twice"));
        }
        ev("rethook_free".into());
        (*rh).handler = None;
        (*rh).freed = true;
        // SAFETY: `rethook_free_rcu` only marks and maybe retires `rh`,
        // which stays allocated.
        call_rcu(rethook_free_rcu, rh as usize);
    }
}

/// model.c's `rethook_free_rcu()`: the pool is finalized; the rethook is
/// retired with its last node.
///
/// # Safety
/// `rh` is a live rethook.
unsafe fn rethook_free_rcu(rh: usize) {
    let rh = rh as *mut Rethook;
    // SAFETY: `rh` is live (this function's `# Safety`).
    unsafe {
        (*rh).num = -1;
        maybe_release(rh);
    }
}

/// The retired rethooks (model.c's `hd_retired[]`): kept, not freed, as
/// upstream may read `rp->rh` of a kretprobe it left hashed after
/// unregistering it (MODEL.md's findings); held as pointers, so that
/// they stay reachable.
struct Retired(Vec<*mut Rethook>);

// SAFETY: the pointers are only stored, never dereferenced through this
// list; each rethook is used by the thread of the test that made it.
unsafe impl Send for Retired {}

static RETIRED: StdMutex<Retired> = StdMutex::new(Retired(Vec::new()));

/// Frees the retired rethooks: the end of a run (model.c keeps them until
/// the process exits, where LSan finds them reachable; Miri counts them as
/// leaked, so a model test's epilogue calls this).
///
/// # Safety
/// No kretprobe that may still be hit or unregistered points to a retired
/// rethook (`rp->rh`).
pub unsafe fn hd_free_retired() {
    let retired = std::mem::take(&mut RETIRED.lock().unwrap_or_else(|e| e.into_inner()).0);
    for rh in retired {
        // SAFETY: a retired rethook is a `kmalloc()` block with no node
        // out, which nothing uses any more (this function's `# Safety`).
        unsafe { kfree(rh.cast()) };
    }
}

/// model.c's `rethook_maybe_release()`: a freed rethook without handler,
/// with no node out and its pool finalized, is retired.
///
/// # Safety
/// `rh` is a live rethook.
unsafe fn maybe_release(rh: *mut Rethook) {
    // SAFETY: `rh` is live (this function's `# Safety`).
    unsafe {
        if (*rh).freed && (*rh).handler.is_none() && (*rh).outstanding == 0 && (*rh).num == -1 {
            RETIRED.lock().unwrap_or_else(|e| e.into_inner()).0.push(rh);
            (*rh).num = -2;
        }
    }
}

/// model.c's `rethook_try_get()`: null without a handler or a free node;
/// else a new zeroed node of the rethook's `size`.
///
/// # Safety
/// `rh` is live.
unsafe fn model_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: `rh` is live (this function's `# Safety`), used by this
    // thread alone.
    unsafe {
        if (*rh).handler.is_none() || (*rh).nfree == 0 {
            return core::ptr::null_mut();
        }
        let n = kmalloc((*rh).size as usize).cast::<RethookNode>();
        if n.is_null() {
            return n;
        }
        (*rh).nfree -= 1;
        (*rh).outstanding += 1;
        (*n).rethook = rh;
        n
    }
}

/// model.c's `rethook_recycle()`: back to the pool (freed) while the
/// handler is set, else freed after a grace period.
///
/// # Safety
/// `n` came from [`rethook_try_get`] and is not used after.
unsafe fn model_recycle(n: *mut RethookNode) {
    // SAFETY: `n` is a live node (this function's `# Safety`), whose
    // rethook outlives it.
    unsafe {
        let rh = (*n).rethook;
        if (*rh).handler.is_some() {
            (*rh).outstanding -= 1;
            (*rh).nfree += 1;
            kfree(n.cast());
        } else {
            // SAFETY: `free_node_rcu` frees `n`, which nothing uses after
            // (this function's `# Safety`).
            call_rcu(free_node_rcu, n as usize);
        }
    }
}

/// model.c's `free_rethook_node_rcu()`.
///
/// # Safety
/// `n` is a recycled node that nothing uses.
unsafe fn free_node_rcu(n: usize) {
    let n = n as *mut RethookNode;
    // SAFETY: `n` is live and unused (this function's `# Safety`); its
    // rethook outlives it.
    unsafe {
        let rh = (*n).rethook;
        kfree(n.cast());
        (*rh).outstanding -= 1;
        maybe_release(rh);
    }
}

/// The driver's `hit`: a new top-level frame (model.c's `hd_frame`), on
/// which `rethook_hook()` hooks nodes.
pub fn hd_new_frame() {
    arch(|a| a.frame += 1);
}

/// model.c's `hd_rethook_return()`, the driver's `ret`: the innermost
/// hooked frame returns: its nodes, newest first, call their rethook's
/// handler if it is still set (preemption disabled), then are recycled.
/// -1 if nothing is hooked (the driver then writes `no hooked frame`).
pub fn hd_rethook_return() -> c_int {
    let nodes = arch(|a| {
        let top = *a.hooked.last()?;
        // SAFETY: a hooked node is live until it is recycled below.
        let frame = unsafe { (*top).frame };
        let k = a
            .hooked
            .iter()
            .rev()
            // SAFETY: as above, for each hooked node.
            .take_while(|&&n| unsafe { (*n).frame } == frame)
            .count();
        let at = a.hooked.len() - k;
        Some(a.hooked[at..].iter().rev().copied().collect::<Vec<_>>())
    });
    let Some(nodes) = nodes else {
        return -1;
    };
    let mut regs = PtRegs::default();
    preempt_disable();
    for &n in &nodes {
        // SAFETY: a hooked node and its live rethook; the handler is read
        // once, as `READ_ONCE()`, and called as the trampoline does.
        unsafe {
            let rh = (*n).rethook;
            if let Some(h) = core::ptr::read_volatile(&raw const (*rh).handler) {
                h(n, (*rh).data, 0, &mut regs);
            }
        }
    }
    // SAFETY: ends the `preempt_disable()` section above.
    unsafe { preempt_enable() };
    arch(|a| {
        let keep = a.hooked.len() - nodes.len();
        a.hooked.truncate(keep);
    });
    for n in nodes {
        // SAFETY: an unhooked node of `rethook_try_get()`, not used after.
        unsafe { rethook_recycle(n) };
    }
    0
}
