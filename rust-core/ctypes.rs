// SPDX-License-Identifier: GPL-2.0

//! The kernel's basic C types that the core's shared structures are made
//! of (`include/linux/types.h`, the opcode type of the architecture).
//! The bottom of the crate: it uses nothing but `ffi` and `arch`; `types.rs` re-exports
//! them and asserts their layout against the kernel's.

/// `kprobe_opcode_t` (the architecture's).
pub use crate::arch::KprobeOpcode;

/// `struct list_head`.
#[repr(C)]
pub struct ListHead {
    /// Next entry.
    pub next: *mut ListHead,
    /// Previous entry.
    pub prev: *mut ListHead,
}

/// `struct hlist_head`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HlistHead {
    /// First node.
    pub first: *mut HlistNode,
}

/// `struct hlist_node`.
#[repr(C)]
pub struct HlistNode {
    /// Next node.
    pub next: *mut HlistNode,
    /// Address of the previous node's `next` (or of the head's `first`).
    pub pprev: *mut *mut HlistNode,
}

/// `struct rcu_head` (`struct callback_head`).
///
/// Named as C names it: kCFI encodes a `#[repr(C)]` struct in a function
/// type by its name, so an `rcu_callback_t` of the core carries C's type id
/// only if the struct is called `callback_head` (`abi.rs`).
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct callback_head {
    /// Next callback.
    pub next: *mut callback_head,
    /// The callback.
    pub func: Option<unsafe extern "C" fn(head: *mut callback_head)>,
}
/// `struct rcu_head`.
pub type RcuHead = callback_head;

/// `CStr::from_ptr()` for a C string the kernel passes (`const char *`).
///
/// 7.3's `.clippy.toml` disallows `core::ffi::CStr::from_ptr` in favour of
/// `kernel::prelude::CStrExt::from_char_ptr`, which 6.12 does not have:
/// the one call is here, allowed.
///
/// # Safety
/// `p` is a non-null, NUL-terminated string that stays unchanged for `'a`.
#[inline(always)]
#[allow(clippy::disallowed_methods)]
pub unsafe fn cstr_from_ptr<'a>(p: *const core::ffi::c_char) -> &'a core::ffi::CStr {
    // SAFETY: the caller's guarantee (`# Safety`).
    unsafe { core::ffi::CStr::from_ptr(p) }
}
