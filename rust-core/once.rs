// SPDX-License-Identifier: GPL-2.0

//! `READ_ONCE()`/`WRITE_ONCE()` for the fields of the shared C structs that
//! one CPU writes while another reads them: a probe's `flags` (see
//! [`crate::flags`]), an aggregate's `post_handler` (the arch's int3
//! handler reads it), the `nmissed` counters (bumped by handlers on any
//! CPU), `addr` of a probe that stays hashed after a failed disarm.
//! Upstream accesses them plainly and relies on the kernel memory model; in
//! Rust a plain access that races with a write is undefined behaviour, and
//! a reference to the struct would claim nobody writes it.  A volatile
//! access through the raw pointer is one machine access, never torn (the
//! fields are aligned and at most a word), never merged or elided: what the
//! kernel means by a marked access.

/// `READ_ONCE(*p)`.
///
/// # Safety
/// `p` is valid for reads and aligned (a field of a live shared struct).
#[inline(always)]
pub unsafe fn read<T: Copy>(p: *const T) -> T {
    // SAFETY: `p` is valid and aligned (this function's `# Safety`).
    unsafe { p.read_volatile() }
}

/// `WRITE_ONCE(*p, v)`.
///
/// # Safety
/// `p` is valid for writes and aligned, and the caller is a writer of that
/// field that the field's lock (or the object being unpublished) serializes
/// against other writers; readers may run at any time.
#[inline(always)]
pub unsafe fn write<T: Copy>(p: *mut T, v: T) {
    // SAFETY: `p` is valid and aligned; writers are serialized (this
    // function's `# Safety`).
    unsafe { p.write_volatile(v) }
}

/// `WRITE_ONCE(*p, f(READ_ONCE(*p)))`: for a counter that handlers on
/// several CPUs may bump at once (`nmissed`), one volatile load and one
/// volatile store, so a concurrent bump may be lost, exactly as with
/// upstream's plain `p->nmissed++`.
///
/// # Safety
/// `p` is valid for reads and writes and aligned.
#[inline(always)]
pub unsafe fn update<T: Copy>(p: *mut T, f: impl FnOnce(T) -> T) {
    // SAFETY: `p` is valid and aligned (this function's `# Safety`); a lost
    // concurrent update of a statistics counter is upstream's behaviour.
    unsafe { p.write_volatile(f(p.read_volatile())) }
}
