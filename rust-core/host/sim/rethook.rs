// SPDX-License-Identifier: GPL-2.0

//! rethook (kretprobes): a pool of nodes per rethook, the hooked returns
//! of the simulated task, and [`function_return`], with which a test makes
//! the innermost hooked function return.

use super::memory::{kfree, kmalloc};
use super::text::arch;
use super::trace::ev;
use super::{PtRegs, Rethook, RethookHandler, RethookNode, EINVAL, ENOMEM};
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
use crate::ffi::c_ulong;
use crate::ffi::{c_int, c_void};

/// `rethook_alloc()`.
///
/// # Safety
/// `data` outlives the rethook.
pub unsafe fn rethook_alloc(
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
        // SAFETY: a fresh node.
        unsafe { (*n).rethook = rh };
        all.push(n);
    }
    // SAFETY: a fresh allocation of the right size.
    unsafe {
        rh.write(Rethook {
            data,
            handler: Some(handler),
            free: all.clone(),
            all,
        })
    };
    rh
}

/// `rethook_free()`: stops the rethook; the simulation frees it when all
/// of its nodes are back (`rethook_free_rcu()`).
///
/// # Safety
/// `rh` came from [`rethook_alloc`], freed once.
pub unsafe fn rethook_free(rh: *mut Rethook) {
    // SAFETY: caller's contract.
    unsafe {
        assert!((*rh).handler.is_some(), "rethook freed twice");
        (*rh).handler = None;
        maybe_free_rethook(rh);
    }
}

unsafe fn maybe_free_rethook(rh: *mut Rethook) {
    // SAFETY: a live rethook.
    unsafe {
        if (*rh).handler.is_none() && (*rh).free.len() == (*rh).all.len() {
            for &n in &(*rh).all {
                kfree(n.cast());
            }
            core::ptr::drop_in_place(rh);
            kfree(rh.cast());
        }
    }
}

/// `rethook_try_get()`: a free node, or null (also once stopped).
///
/// # Safety
/// `rh` is live.
pub unsafe fn rethook_try_get(rh: *mut Rethook) -> *mut RethookNode {
    // SAFETY: caller's contract.
    unsafe {
        if (*rh).handler.is_none() {
            return core::ptr::null_mut();
        }
        (*rh).free.pop().unwrap_or(core::ptr::null_mut())
    }
}

/// `rethook_recycle()`.
///
/// # Safety
/// `n` came from [`rethook_try_get`].
pub unsafe fn rethook_recycle(n: *mut RethookNode) {
    // SAFETY: caller's contract.
    unsafe {
        let rh = (*n).rethook;
        (*rh).free.push(n);
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
    unsafe { (*regs).args.map(|a| a as c_ulong) }
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
