// SPDX-License-Identifier: GPL-2.0

//! rethook (kretprobes): a pool of nodes per rethook, the hooked returns
//! of the simulated task, and [`function_return`], with which a test makes
//! the innermost hooked function return.

use super::memory::{kfree, kmalloc};
use super::text::arch;
use super::trace::ev;
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
    let rh = kmalloc(core::mem::size_of::<Rethook>()).cast::<Rethook>();
    if rh.is_null() {
        return (-(ENOMEM as isize)) as *mut Rethook;
    }
    let mut all = Vec::new();
    for _ in 0..num {
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
    pools(|p| {
        p.insert(
            id,
            Pool {
                free: all.clone(),
                all,
            },
        )
    });
    rh
}

/// `rethook_free()`: stops the rethook (traced as `rethook_free`); the
/// simulation frees it when all of its nodes are back
/// (`rethook_free_rcu()`).
///
/// # Safety
/// `rh` came from [`rethook_alloc`], freed once.
pub unsafe fn rethook_free(rh: *mut Rethook) {
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
pub unsafe fn entry_args(regs: *const PtRegs) -> [c_ulong; 6] {
    // SAFETY: live (this function's `# Safety`).
    unsafe { (*regs).args }
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
