// SPDX-License-Identifier: GPL-2.0

//! The text of `/sys/kernel/debug/kprobes/list` and `kprobes/blacklist`.
//! Port of that part of `kernel/kprobes.c`; the seq_file/debugfs
//! registration stays C glue.  The format strings are upstream's, handed to
//! `seq_printf()` itself (see `sys`), so the output is byte-identical.

use crate::ffi::{c_char, c_int, c_ulong, c_void};
use crate::flags;
use crate::list;
use crate::registry::{KPROBE_TABLE, KPROBE_TABLE_SIZE};
use crate::sys;
use crate::types::{HlistHead, Kprobe, KprobeBlacklistEntry, KprobeOpcode};
use crate::types::{KPROBE_FLAG_FTRACE, KPROBE_FLAG_GONE, KPROBE_FLAG_OPTIMIZED};
use crate::views::{CStrPtr, SeqPos, SeqView};
use core::ffi::CStr;
use core::marker::PhantomData;
use core::ptr;

pub use crate::types::Loff;

/// A probe that `show_kprobe_addr()` reaches in its walk of a hash bucket:
/// a hashed probe, or a child of a hashed aggregate.
///
/// # Invariants
/// `ptr` points to a `struct kprobe` that stays live for `'a`: it was
/// reached from the hash table (or an aggregate's list) with preemption
/// disabled, an RCU read-side section, and unregistered probes are freed
/// only after a grace period.  Other CPUs write its `flags` (the
/// `kprobe_mutex` holders), read here with one volatile load
/// ([`flags::get`]), and its list links; its `addr` and `pre_handler` are
/// not written once it is registered.  No reference to it is formed: the
/// fields are read through the raw pointer.
#[derive(Clone, Copy)]
struct ListedProbe<'a> {
    ptr: *mut Kprobe,
    _rcu: PhantomData<&'a Kprobe>,
}

impl<'a> ListedProbe<'a> {
    /// Is it an aggregate (`p->pre_handler == aggr_pre_handler`)?
    fn is_aggr(self) -> bool {
        // SAFETY: by the type invariant, the probe is live for `'a`: a
        // `Probe`, whose `pre_handler` is not written once registered.
        unsafe { crate::probe::Probe::from_raw(self.ptr) }.is_aggr()
    }

    /// The children of an aggregate, each reached in the read-side section.
    fn children(self) -> impl Iterator<Item = ListedProbe<'a>> {
        // SAFETY: by the type invariant, the aggregate is live and its child
        // list, an RCU list, is walked in the read-side section that lasts
        // for `'a`, longer than the iterator.
        unsafe { list::iter_rcu(ptr::addr_of_mut!((*self.ptr).list)) }.map(|l| {
            // INVARIANT: a child of a hashed aggregate, reached in the
            // read-side section.
            ListedProbe {
                ptr: crate::container_of!(l, Kprobe, list),
                _rcu: PhantomData,
            }
        })
    }

    /// `p->addr`.
    fn addr(self) -> *mut KprobeOpcode {
        // SAFETY: by the type invariant, the probe is live and its `addr` is
        // not written once registered.
        unsafe { (*self.ptr).addr }
    }

    /// Is it a kretprobe (`p->pre_handler == pre_handler_kretprobe`)?
    fn is_kretprobe(self) -> bool {
        // SAFETY: by the type invariant, the probe is live and its
        // `pre_handler` is not written once registered.
        let h = unsafe { (*self.ptr).pre_handler };
        h.map(|f| f as *const ()) == Some(crate::kretprobe::pre_handler_kretprobe as *const ())
    }

    /// Is it a jprobe (`p->pre_handler == jprobe_pre_handler`)?
    #[cfg(CONFIG_KPROBES_RUST_JPROBES)]
    fn is_jprobe(self) -> bool {
        // SAFETY: by the type invariant, the probe is live and its
        // `pre_handler` is not written once registered.
        crate::jprobe::is_jprobe_handler(unsafe { (*self.ptr).pre_handler })
    }

    /// Without jprobes, no probe is one.
    #[cfg(not(CONFIG_KPROBES_RUST_JPROBES))]
    fn is_jprobe(self) -> bool {
        false
    }

    /// `p->flags`.
    fn flags(self) -> u32 {
        // SAFETY: by the type invariant, the probe is live; `flags::get()`
        // is the volatile load its concurrent writers allow.
        unsafe { flags::get(self.ptr) }
    }

    /// `kprobe_disabled(p)`.
    fn disabled(self) -> bool {
        // SAFETY: by the type invariant, the probe is live; `flags::disabled()`
        // reads the flags with one volatile load.
        unsafe { flags::disabled(self.ptr) }
    }
}

/// `report_probe()`: one line of `kprobes/list` for probe `p`, whose
/// (aggregate) hash entry is `pp` (`None`: `p` itself).
fn report_probe(
    pi: &SeqView<'_>,
    p: ListedProbe<'_>,
    sym: CStrPtr<'_>,
    offset: c_ulong,
    modname: CStrPtr<'_>,
    pp: Option<ListedProbe<'_>>,
) {
    // "j": a jprobe (`CONFIG_KPROBES_RUST_JPROBES`), as the kprobes
    // documents of 2.6 showed them.
    let kprobe_type: &CStr = if p.is_kretprobe() {
        c"r"
    } else if p.is_jprobe() {
        c"j"
    } else {
        c"k"
    };
    let addr = if pi.show_value() {
        p.addr().cast::<c_void>()
    } else {
        ptr::null_mut()
    };

    if !sym.is_null() {
        let modname = if modname.is_null() {
            CStrPtr::new(c" ")
        } else {
            modname
        };
        pi.report_sym(addr, kprobe_type, sym, offset as u32, modname);
    } else {
        // try to use %pS
        pi.report_nosym(addr, kprobe_type, p.addr().cast());
    }

    let pp = pp.unwrap_or(p);
    let f = p.flags();
    let gone = f & KPROBE_FLAG_GONE != 0;
    let mark = |on: bool, s: &'static CStr| -> &'static CStr {
        if on {
            s
        } else {
            c""
        }
    };
    pi.report_flags(
        mark(gone, c"[GONE]"),
        mark(p.disabled() && !gone, c"[DISABLED]"),
        mark(pp.flags() & KPROBE_FLAG_OPTIMIZED != 0, c"[OPTIMIZED]"),
        mark(pp.flags() & KPROBE_FLAG_FTRACE != 0, c"[FTRACE]"),
    );
}

/// `kprobe_seq_start()`: one seq position per hash bucket.
pub fn seq_start(pos: &SeqPos<'_>) -> *mut c_void {
    if pos.get() < KPROBE_TABLE_SIZE as Loff {
        pos.as_iter()
    } else {
        ptr::null_mut()
    }
}

/// `kprobe_seq_next()`.
pub fn seq_next(pos: &mut SeqPos<'_>) -> *mut c_void {
    pos.set(pos.get() + 1);
    if pos.get() >= KPROBE_TABLE_SIZE as Loff {
        return ptr::null_mut();
    }
    pos.as_iter()
}

/// `show_kprobe_addr()`: the lines of hash bucket `*v`.
pub fn show_bucket(pi: &SeqView<'_>, v: &SeqPos<'_>) -> c_int {
    let i = v.get() as usize;
    let mut namebuf = [0 as c_char; sys::KSYM_NAME_LEN];
    let head: *mut HlistHead = (&raw mut KPROBE_TABLE)
        .cast::<HlistHead>()
        .wrapping_add(i % KPROBE_TABLE_SIZE);
    // Preemption disabled is an RCU read-side section for the hash table
    // and the child lists (as upstream): the probes walked, and the module
    // whose name `kallsyms_lookup()` returns, are live until `preempt` is
    // dropped, after the walk.
    let preempt = crate::locks::preempt_disable();
    // SAFETY: `head` is a bucket of the table, walked in the read-side
    // section `preempt` keeps open for the whole loop.
    for n in unsafe { list::hlist_iter(head) } {
        // INVARIANT: `n` is hashed, reached in the read-side section.
        let lp = ListedProbe {
            ptr: n.cast::<Kprobe>(),
            _rcu: PhantomData,
        };
        let mut offset: c_ulong = 0;
        let mut modname: *mut c_char = ptr::null_mut();
        // SAFETY: `namebuf` has `KSYM_NAME_LEN` bytes.
        let sym = unsafe {
            sys::kallsyms_lookup(
                lp.addr() as usize,
                &mut offset,
                &mut modname,
                namebuf.as_mut_ptr(),
            )
        };
        // SAFETY: `sym` and `modname` are null or C strings (in `namebuf`, or
        // in kallsyms or module data that disabled preemption keeps) that stay
        // unchanged until the next lookup, after these views.
        let (sym, modname) = unsafe { (CStrPtr::from_raw(sym), CStrPtr::from_raw(modname)) };
        if lp.is_aggr() {
            for child in lp.children() {
                report_probe(pi, child, sym, offset, modname, Some(lp));
            }
        } else {
            report_probe(pi, lp, sym, offset, modname, None);
        }
    }
    drop(preempt);
    0
}

/// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`, for the
/// entry `[start_addr, end_addr)`; the addresses are hidden when
/// `/proc/kallsyms` would hide them.
pub fn blacklist_seq_show(m: &SeqView<'_>, start_addr: usize, end_addr: usize) -> c_int {
    let start = start_addr as *mut c_void;
    if !m.show_value() {
        m.blacklist_line(ptr::null_mut(), ptr::null_mut(), start);
    } else {
        m.blacklist_line(start, end_addr as *mut c_void, start);
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
        // SAFETY: `pos` is the position the seq_file core passes to this
        // `start` callback (`# Safety` above); the view ends with the call.
        let pos = unsafe { SeqPos::from_raw(pos) };
        seq_start(&pos)
    }
}

ftrace_export! {
    /// `kprobe_seq_next()` of `kprobes/list`.
    ///
    /// # Safety
    /// `pos` is the seq_file core's valid position pointer.
    unsafe fn kprobe_seq_next(
        _f: *mut sys::SeqFile,
        _v: *mut c_void,
        pos: *mut crate::types::Loff,
    ) -> *mut c_void {
        // SAFETY: `pos` is the position the seq_file core passes to this
        // `next` callback (`# Safety` above); the view ends with the call.
        let mut pos = unsafe { SeqPos::from_raw(pos) };
        seq_next(&mut pos)
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
        // SAFETY: `pi` is the seq_file the core is showing, and `v` the
        // position pointer that `kprobe_seq_start/next()` returned for it
        // (they return no other non-null value), both for this call
        // (`# Safety` above).
        let (pi, v) = unsafe { (SeqView::from_raw(pi), SeqPos::from_raw(v.cast())) };
        show_bucket(&pi, &v)
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`.
    ///
    /// # Safety
    /// `m` is being shown; `v` is from the seq start/next (`kprobe_mutex` held since the start).
    unsafe fn kprobe_blacklist_seq_show(m: *mut sys::SeqFile, v: *mut c_void) -> c_int {
        // SAFETY: `m` is the seq_file the core is showing, for this call
        // (`# Safety` above).
        let m = unsafe { SeqView::from_raw(m) };
        let ent = crate::container_of!(v, KprobeBlacklistEntry, list);
        // SAFETY: `v` is the `list` of an entry that `kprobe_mutex`, held
        // since the seq start, keeps on the list (`# Safety` above); its
        // range is never written once the entry is published.
        let (start, end) = unsafe { ((*ent).start_addr, (*ent).end_addr) };
        blacklist_seq_show(&m, start, end)
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_start()` of `kprobes/blacklist`: takes
    /// `kprobe_mutex` until the seq stop.
    ///
    /// # Safety
    /// `pos` is the seq_file core's valid position pointer.
    unsafe fn kprobe_blacklist_seq_start(
        _m: *mut sys::SeqFile,
        pos: *mut crate::types::Loff,
    ) -> *mut c_void {
        crate::locks::kprobe_mutex().keep_held();
        // SAFETY: `pos` is valid (`# Safety` above); `kprobe_mutex`, taken above, keeps the list
        // stable until the stop.
        unsafe { sys::seq_list_start(&raw mut crate::blacklist::KPROBE_BLACKLIST, *pos) }
    }
}

ftrace_export! {
    /// `kprobe_blacklist_seq_next()` of `kprobes/blacklist`.
    ///
    /// # Safety
    /// `v` is the entry the last start/next returned, `pos` is valid; `kprobe_mutex` is held.
    unsafe fn kprobe_blacklist_seq_next(
        _m: *mut sys::SeqFile,
        v: *mut c_void,
        pos: *mut crate::types::Loff,
    ) -> *mut c_void {
        // SAFETY: `v` is an entry of the list that `kprobe_mutex` keeps stable, `pos` is valid
        // (`# Safety` above).
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
    unsafe fn read_enabled_file_bool(
        _file: *mut sys::File,
        user_buf: *mut c_char,
        count: usize,
        ppos: *mut crate::types::Loff,
    ) -> isize {
        let buf: [u8; 3] = [if crate::state::all_disarmed() { b'0' } else { b'1' }, b'\n', 0];
        // SAFETY: `user_buf` is a user buffer of `count` bytes and `ppos` is valid
        // (`# Safety` above); `buf` holds the 2 bytes offered.
        unsafe {
            let from = buf.as_ptr().cast::<core::ffi::c_void>();
            sys::simple_read_from_buffer(user_buf.cast(), count, ppos, from, 2)
        }
    }
}

ftrace_export! {
    /// `write_enabled_file_bool()`: `write` of `kprobes/enabled`.
    ///
    /// # Safety
    /// `user_buf` is a user buffer of `count` bytes.
    unsafe fn write_enabled_file_bool(
        _file: *mut sys::File,
        user_buf: *const c_char,
        count: usize,
        _ppos: *mut crate::types::Loff,
    ) -> isize {
        let mut enable = false;
        // SAFETY: `user_buf` is a user buffer of `count` bytes (`# Safety` above), as
        // `kstrtobool_from_user()` requires.
        let ret = unsafe { sys::kstrtobool_from_user(user_buf, count, &mut enable) };
        if ret != 0 {
            return ret as isize;
        }
        let ret = if enable {
            crate::arm::arm_all_kprobes()
        } else {
            crate::arm::disarm_all_kprobes()
        };
        match ret {
            Ok(()) => count as isize,
            Err(e) => e.to_errno() as isize,
        }
    }
}
