// SPDX-License-Identifier: GPL-2.0

//! The text of `/sys/kernel/debug/kprobes/list` and `kprobes/blacklist`.
//! Port of that part of `kernel/kprobes.c`; the seq_file/debugfs
//! registration stays C glue.  The format strings are upstream's, handed to
//! `seq_printf()` itself (see `sys`), so the output is byte-identical.

use crate::flags;
use crate::ffi::{c_char, c_int, c_ulong, c_void};
use crate::list;
use crate::registry::{KPROBE_TABLE, KPROBE_TABLE_SIZE};
use crate::sys::{self, SeqFile};
use crate::types::{HlistHead, Kprobe, KprobeBlacklistEntry, ListHead};
use crate::aggr::kprobe_aggrprobe;
use crate::types::{KPROBE_FLAG_FTRACE, KPROBE_FLAG_GONE, KPROBE_FLAG_OPTIMIZED};
use core::ptr;

pub use crate::types::Loff;

/// `report_probe()`: one line of `kprobes/list` for probe `p`, whose
/// (aggregate) hash entry is `pp` (null: `p` itself).
///
/// # Safety
/// `pi` is the seq_file being shown; `p` is live, `pp` null or live; `sym`
/// and `modname` are null or C strings.
pub unsafe fn report_probe(
    pi: *mut SeqFile,
    p: *mut Kprobe,
    sym: *const c_char,
    offset: c_ulong,
    modname: *const c_char,
    pp: *mut Kprobe,
) {
    // SAFETY: `pi` is being shown, `p` is live, `pp` null or live, `sym` and
    // `modname` null or C strings (this function's `# Safety`), as the reads of the
    // probes and the `seq_*` helpers need; every string passed is a C string.
    unsafe {
        let kretprobe = (*p).pre_handler.map(|f| f as *const ()) == Some(crate::kretprobe::pre_handler_kretprobe as *const ());
        let kprobe_type: &core::ffi::CStr = if kretprobe { c"r" } else { c"k" };
        let addr = if sys::seq_show_value(pi) { (*p).addr.cast::<c_void>() } else { ptr::null_mut() };

        if !sym.is_null() {
            let modname = if modname.is_null() { c" ".as_ptr().cast() } else { modname };
            sys::seq_report_sym(pi, addr, kprobe_type.as_ptr().cast(), sym, offset as u32, modname);
        } else {
            // try to use %pS
            sys::seq_report_nosym(pi, addr, kprobe_type.as_ptr().cast(), (*p).addr.cast());
        }

        let pp = if pp.is_null() { p } else { pp };
        let f = flags::get(p);
        let gone = f & KPROBE_FLAG_GONE != 0;
        let mark = |on: bool, s: &'static core::ffi::CStr| -> *const c_char {
            if on { s.as_ptr().cast() } else { c"".as_ptr().cast() }
        };
        sys::seq_report_flags(
            pi,
            mark(gone, c"[GONE]"),
            mark(flags::disabled(p) && !gone, c"[DISABLED]"),
            mark(flags::get(pp) & KPROBE_FLAG_OPTIMIZED != 0, c"[OPTIMIZED]"),
            mark(flags::get(pp) & KPROBE_FLAG_FTRACE != 0, c"[FTRACE]"),
        );
    }
}

/// `kprobe_seq_start()`: one seq position per hash bucket.
///
/// # Safety
/// `pos` is valid.
pub unsafe fn seq_start(pos: *mut Loff) -> *mut c_void {
    // SAFETY: `pos` is valid (this function's `# Safety`).
    if unsafe { *pos } < KPROBE_TABLE_SIZE as Loff { pos.cast() } else { ptr::null_mut() }
}

/// `kprobe_seq_next()`.
///
/// # Safety
/// `pos` is valid.
pub unsafe fn seq_next(pos: *mut Loff) -> *mut c_void {
    // SAFETY: `pos` is valid (this function's `# Safety`).
    unsafe {
        *pos += 1;
        if *pos >= KPROBE_TABLE_SIZE as Loff {
            return ptr::null_mut();
        }
    }
    pos.cast()
}

/// `show_kprobe_addr()`: the lines of hash bucket `*v`.
///
/// # Safety
/// `pi` is the seq_file being shown; `v` is a position from [`seq_start`]
/// or [`seq_next`].
pub unsafe fn show_bucket(pi: *mut SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: `v` points to a valid position below KPROBE_TABLE_SIZE.
    let i = unsafe { *v.cast::<Loff>() } as usize;
    let mut namebuf = [0 as c_char; sys::KSYM_NAME_LEN];
    let head: *mut HlistHead = (&raw mut KPROBE_TABLE).cast::<HlistHead>().wrapping_add(i % KPROBE_TABLE_SIZE);
    sys::preempt_disable();
    // SAFETY: preemption is disabled, which is an RCU read-side section for
    // the hash table and the child lists (as upstream).
    unsafe {
        let mut n = list::hlist_first_rcu(head);
        while !n.is_null() {
            let p = n.cast::<Kprobe>();
            let mut offset: c_ulong = 0;
            let mut modname: *mut c_char = ptr::null_mut();
            let sym = sys::kallsyms_lookup((*p).addr as usize, &mut offset, &mut modname, namebuf.as_mut_ptr());
            if kprobe_aggrprobe(p) {
                let lh: *mut ListHead = ptr::addr_of_mut!((*p).list);
                for l in list::iter_rcu(lh) {
                    let kp = crate::container_of!(l, Kprobe, list);
                    report_probe(pi, kp, sym, offset, modname, p);
                }
            } else {
                report_probe(pi, p, sym, offset, modname, ptr::null_mut());
            }
            n = list::hlist_next_rcu(n);
        }
    }
    sys::preempt_enable();
    0
}

/// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`; the
/// addresses are hidden when `/proc/kallsyms` would hide them.
///
/// # Safety
/// `m` is the seq_file being shown; `v` is an entry of the blacklist.
pub unsafe fn blacklist_seq_show(m: *mut SeqFile, v: *mut c_void) -> c_int {
    let ent = crate::container_of!(v, KprobeBlacklistEntry, list);
    // SAFETY: `v` is the `list` member of a live entry (kprobe_mutex held
    // by the seq start/stop).
    unsafe {
        let start = (*ent).start_addr as *mut c_void;
        if !sys::seq_show_value(m) {
            sys::seq_blacklist_line(m, ptr::null_mut(), ptr::null_mut(), start);
        } else {
            sys::seq_blacklist_line(m, start, (*ent).end_addr as *mut c_void, start);
        }
    }
    0
}

// The seq_file and file callbacks of the debugfs files (the C shim
// registers them): C symbols with an ftrace site, as upstream's.

ftrace_export! {
    /// `kprobe_seq_start()` of `kprobes/list`.
    ///
    /// # Safety
    /// `pos` is the seq_file core's valid position pointer.
    unsafe fn kprobe_seq_start(_f: *mut sys::SeqFile, pos: *mut crate::types::Loff) -> *mut c_void {
        // SAFETY: `pos` is valid (`# Safety` above), all that `seq_start()` requires.
        unsafe { seq_start(pos) }
    }
}

ftrace_export! {
    /// `kprobe_seq_next()` of `kprobes/list`.
    ///
    /// # Safety
    /// `pos` is the seq_file core's valid position pointer.
    unsafe fn kprobe_seq_next(_f: *mut sys::SeqFile, _v: *mut c_void, pos: *mut crate::types::Loff) -> *mut c_void {
        // SAFETY: `pos` is valid (`# Safety` above), all that `seq_next()` requires.
        unsafe { seq_next(pos) }
    }
}

ftrace_export! {
    /// `kprobe_seq_stop()` of `kprobes/list`: nothing to do.
    fn kprobe_seq_stop(_f: *mut sys::SeqFile, _v: *mut c_void) {}
}

ftrace_export! {
    /// `show_kprobe_addr()`: the lines of one hash bucket in `kprobes/list`.
    ///
    /// # Safety
    /// `pi` is the seq_file being shown; `v` was returned by `kprobe_seq_start/next()`.
    unsafe fn show_kprobe_addr(pi: *mut sys::SeqFile, v: *mut c_void) -> c_int {
        // SAFETY: `pi` is being shown, `v` a position from the seq start/next (`# Safety` above), as required.
        unsafe { show_bucket(pi, v) }
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`.
    ///
    /// # Safety
    /// `m` is being shown; `v` is from the seq start/next (`kprobe_mutex` held since the start).
    unsafe fn kprobe_blacklist_seq_show(m: *mut sys::SeqFile, v: *mut c_void) -> c_int {
        // SAFETY: `m` is being shown, `v` the `list` of an entry that `kprobe_mutex` keeps alive (`# Safety` above).
        unsafe { blacklist_seq_show(m, v) }
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_start()` of `kprobes/blacklist`: takes
    /// `kprobe_mutex` until the seq stop.
    ///
    /// # Safety
    /// `pos` is the seq_file core's valid position pointer.
    unsafe fn kprobe_blacklist_seq_start(_m: *mut sys::SeqFile, pos: *mut crate::types::Loff) -> *mut c_void {
        crate::locks::kprobe_mutex().keep_held();
        // SAFETY: `pos` is valid (`# Safety` above); `kprobe_mutex`, taken above, keeps the list stable until the stop.
        unsafe { sys::seq_list_start(&raw mut crate::blacklist::KPROBE_BLACKLIST, *pos) }
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_next()` of `kprobes/blacklist`.
    ///
    /// # Safety
    /// `v` is the entry the last start/next returned, `pos` is valid; `kprobe_mutex` is held.
    unsafe fn kprobe_blacklist_seq_next(_m: *mut sys::SeqFile, v: *mut c_void, pos: *mut crate::types::Loff) -> *mut c_void {
        // SAFETY: `v` is an entry of the list that `kprobe_mutex` keeps stable, `pos` is valid (`# Safety` above).
        unsafe { sys::seq_list_next(v, &raw mut crate::blacklist::KPROBE_BLACKLIST, pos) }
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_stop()` of `kprobes/blacklist`: releases the
    /// `kprobe_mutex` that the start took.
    ///
    /// # Safety
    /// Called by the seq_file core once after `kprobe_blacklist_seq_start()`.
    unsafe fn kprobe_blacklist_seq_stop(_m: *mut sys::SeqFile, _v: *mut c_void) {
        // SAFETY: the seq_file core calls the stop after the start, which left
        // `kprobe_mutex` held for it (`# Safety` above).
        drop(unsafe { crate::locks::KprobeMutexGuard::resume() });
    }
}

ftrace_export! {
    /// `read_enabled_file_bool()`: `read` of `kprobes/enabled`.
    ///
    /// # Safety
    /// `user_buf` is a user buffer of `count` bytes, `ppos` the valid file position.
    unsafe fn read_enabled_file_bool(_file: *mut sys::File, user_buf: *mut c_char, count: usize, ppos: *mut crate::types::Loff) -> isize {
        // SAFETY: `user_buf`, `count`, `ppos` as `crate::arm::read_enabled_file_bool()` requires them (`# Safety` above).
        unsafe { crate::arm::read_enabled_file_bool(user_buf, count, ppos) }
    }
}

ftrace_export! {
    /// `write_enabled_file_bool()`: `write` of `kprobes/enabled`.
    ///
    /// # Safety
    /// `user_buf` is a user buffer of `count` bytes.
    unsafe fn write_enabled_file_bool(_file: *mut sys::File, user_buf: *const c_char, count: usize, _ppos: *mut crate::types::Loff) -> isize {
        // SAFETY: `user_buf` is a user buffer of `count` bytes (`# Safety` above), as `crate::arm::write_enabled_file_bool()` requires.
        unsafe { crate::arm::write_enabled_file_bool(user_buf, count) }
    }
}
