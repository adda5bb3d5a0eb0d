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
pub unsafe fn show_kprobe_addr(pi: *mut SeqFile, v: *mut c_void) -> c_int {
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
