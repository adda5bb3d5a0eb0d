// SPDX-License-Identifier: GPL-2.0

//! seq_file output, rendered as the kernel's vsnprintf would; the
//! debugfs files' and the sysctl's helpers (user copies, `kstrtobool`,
//! `proc_dointvec_minmax()`).

use super::trace::{cstr, p_s, p_s_short};
use super::EINVAL;
use crate::ffi::{c_char, c_int, c_void};
use crate::types::ListHead;

/// Simulated `struct seq_file`: the text shown so far.
#[derive(Default)]
pub struct SeqFile {
    /// Output.
    pub out: String,
    /// `kallsyms_show_value()` for the reader.
    pub show_value: bool,
}

/// `kallsyms_show_value(m->file->f_cred)`.
///
/// # Safety
/// `m` is live.
pub unsafe fn seq_show_value(m: *mut SeqFile) -> bool {
    // SAFETY: caller's contract.
    unsafe { (*m).show_value }
}

/// `"%px  %s  %s+0x%x  %s "`.
///
/// # Safety
/// `pi` is live; C strings.
pub unsafe fn seq_report_sym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    sym: *const c_char,
    offset: u32,
    modname: *const c_char,
) {
    let s = format!(
        "{:016x}  {}  {}+0x{:x}  {} ",
        addr as usize,
        cstr(ty),
        cstr(sym),
        offset,
        cstr(modname)
    );
    // SAFETY: caller's contract.
    unsafe { (*pi).out.push_str(&s) };
}

/// `"%px  %s  %pS "`.
///
/// # Safety
/// `pi` is live; C string.
pub unsafe fn seq_report_nosym(
    pi: *mut SeqFile,
    addr: *mut c_void,
    ty: *const c_char,
    paddr: *mut c_void,
) {
    let s = format!(
        "{:016x}  {}  {} ",
        addr as usize,
        cstr(ty),
        p_s(paddr as usize)
    );
    // SAFETY: caller's contract.
    unsafe { (*pi).out.push_str(&s) };
}

/// `"%s%s%s%s\n"`.
///
/// # Safety
/// `pi` is live; C strings.
pub unsafe fn seq_report_flags(
    pi: *mut SeqFile,
    a: *const c_char,
    b: *const c_char,
    c: *const c_char,
    d: *const c_char,
) {
    let s = format!("{}{}{}{}\n", cstr(a), cstr(b), cstr(c), cstr(d));
    // SAFETY: caller's contract.
    unsafe { (*pi).out.push_str(&s) };
}

/// `"0x%px-0x%px\t%ps\n"`.
///
/// # Safety
/// `m` is live.
pub unsafe fn seq_blacklist_line(
    m: *mut SeqFile,
    start: *mut c_void,
    end: *mut c_void,
    sym: *mut c_void,
) {
    let s = format!(
        "0x{:016x}-0x{:016x}\t{}\n",
        start as usize,
        end as usize,
        p_s_short(sym as usize)
    );
    // SAFETY: caller's contract.
    unsafe { (*m).out.push_str(&s) };
}

/// Simulated `struct ctl_table` (the fields the handler's helper reads).
#[repr(C)]
pub struct CtlTable {
    /// `data`.
    pub data: *mut c_int,
}

/// Simulated `struct file` (opaque).
pub struct File;

/// `simple_read_from_buffer()` (the user buffer is plain memory here).
///
/// # Safety
/// Valid buffers.
pub unsafe fn simple_read_from_buffer(
    to: *mut c_void,
    count: usize,
    ppos: *mut i64,
    from: *const c_void,
    available: usize,
) -> isize {
    // SAFETY: caller's contract.
    unsafe {
        let pos = *ppos as usize;
        if pos >= available || count == 0 {
            return 0;
        }
        let n = count.min(available - pos);
        core::ptr::copy_nonoverlapping(from.cast::<u8>().add(pos), to.cast::<u8>(), n);
        *ppos += n as i64;
        n as isize
    }
}

/// `kstrtobool_from_user()`: 1/y/Y/on → true, 0/n/N/off → false.
///
/// # Safety
/// `s` has `count` bytes.
pub unsafe fn kstrtobool_from_user(s: *const c_char, count: usize, res: &mut bool) -> c_int {
    // SAFETY: caller's contract.
    let b = unsafe { core::slice::from_raw_parts(s.cast::<u8>(), count.min(11)) };
    match b {
        [b'1' | b'y' | b'Y', ..] | [b'o' | b'O', b'n' | b'N', ..] => *res = true,
        [b'0' | b'n' | b'N', ..] | [b'o' | b'O', b'f' | b'F', ..] => *res = false,
        _ => return -EINVAL,
    }
    0
}

/// `proc_dointvec_minmax()` for a 0..1 table: a write stores the number in
/// the buffer (else -EINVAL), a read does nothing.
///
/// # Safety
/// Valid table and buffer.
pub unsafe fn proc_dointvec_minmax(
    table: *const CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    _ppos: *mut i64,
) -> c_int {
    if write == 0 {
        return 0;
    }
    // SAFETY: caller's contract.
    let txt = unsafe { core::slice::from_raw_parts(buffer.cast::<u8>(), *length) };
    match std::str::from_utf8(txt)
        .ok()
        .and_then(|t| t.trim().parse::<c_int>().ok())
    {
        // SAFETY: caller's contract.
        Some(v @ 0..=1) => unsafe { *(*table).data = v },
        _ => return -EINVAL,
    }
    0
}

/// `seq_list_start()`.
///
/// # Safety
/// `head` is a stable list.
pub unsafe fn seq_list_start(head: *mut ListHead, pos: i64) -> *mut c_void {
    // SAFETY: caller's contract.
    unsafe {
        let mut l = (*head).next;
        let mut i = pos;
        while l != head {
            if i == 0 {
                return l.cast();
            }
            i -= 1;
            l = (*l).next;
        }
    }
    core::ptr::null_mut()
}

/// `seq_list_next()`.
///
/// # Safety
/// `v` is an entry of the stable list at `head`.
pub unsafe fn seq_list_next(v: *mut c_void, head: *mut ListHead, pos: *mut i64) -> *mut c_void {
    // SAFETY: caller's contract.
    unsafe {
        *pos += 1;
        let n = (*v.cast::<ListHead>()).next;
        if n == head {
            core::ptr::null_mut()
        } else {
            n.cast()
        }
    }
}

/// `kprobe_sysctls_init()`.
pub fn kprobe_sysctls_init() {}
