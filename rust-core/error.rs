// SPDX-License-Identifier: GPL-2.0

//! Errors: the kernel crate's `kernel::error` (`Error`, `Result`, the errno
//! `code`s, `to_result()`, `from_err_ptr()`) in the kernel build, and the
//! same API on the host.  The core computes with `Result`; only the C ABI
//! (`exports.rs`, the shim's callbacks) turns it back into an errno with
//! [`to_errno()`].

use crate::ffi::c_int;

#[cfg(CONFIG_RUST)]
pub use kernel::error::{code, from_err_ptr, to_result, Error, Result};

#[cfg(not(CONFIG_RUST))]
pub use host::{code, from_err_ptr, to_result, Error, Result};

/// 0 for `Ok`, the negative errno for `Err`: what a C caller of the core
/// expects.
#[inline(always)]
pub fn to_errno(r: Result) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// The host's `kernel::error`.
#[cfg(not(CONFIG_RUST))]
#[rustfmt::skip]
#[path = "host/error.rs"]
mod host;
