// SPDX-License-Identifier: GPL-2.0

//! The host's `kernel::error`: the subset of 6.12's API the core uses, with
//! the same semantics (an `Error` is a negative errno in `-4095..=-1`).

use crate::ffi::c_int;
use core::num::NonZeroI32;

/// A negative errno.
///
/// # Invariants
/// The value is in `-4095..=-1` (`MAX_ERRNO`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error(NonZeroI32);

impl Error {
    /// `errno` as an `Error`; `EINVAL` if it is not a negative errno
    /// (the kernel crate also warns then).
    pub fn from_errno(errno: c_int) -> Error {
        match NonZeroI32::new(errno) {
            Some(e) if errno >= -4095 => Error(e),
            _ => code::EINVAL,
        }
    }

    /// The negative errno.
    pub fn to_errno(self) -> c_int {
        self.0.get()
    }
}

impl core::fmt::Debug for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Error({})", self.0.get())
    }
}

/// `()` (named: cbindgen, which reads this crate for the C header, does not
/// parse a tuple as a type parameter default).
pub type Unit = ();

/// `kernel::error::Result`.
pub type Result<T = Unit, E = Error> = core::result::Result<T, E>;

/// `Err` for a negative `err`, else `Ok(())`.
pub fn to_result(err: c_int) -> Result {
    if err < 0 {
        Err(Error::from_errno(err))
    } else {
        Ok(())
    }
}

/// `IS_ERR(ptr) ? Err(PTR_ERR(ptr)) : Ok(ptr)`.
pub fn from_err_ptr<T>(ptr: *mut T) -> Result<*mut T> {
    let v = ptr as isize;
    if (-4095..0).contains(&v) {
        return Err(Error::from_errno(v as c_int));
    }
    Ok(ptr)
}

/// The errno codes the core uses (`kernel::error::code`).
pub mod code {
    use super::Error;
    use core::num::NonZeroI32;

    const fn err(errno: i32) -> Error {
        match NonZeroI32::new(-errno) {
            Some(e) => Error(e),
            None => panic!("errno 0"),
        }
    }

    /// `ENOENT`.
    pub const ENOENT: Error = err(2);
    /// `E2BIG`.
    pub const E2BIG: Error = err(7);
    /// `ENOMEM`.
    pub const ENOMEM: Error = err(12);
    /// `EBUSY`.
    pub const EBUSY: Error = err(16);
    /// `ENODEV`.
    pub const ENODEV: Error = err(19);
    /// `EINVAL`.
    pub const EINVAL: Error = err(22);
    /// `ERANGE`.
    pub const ERANGE: Error = err(34);
}
