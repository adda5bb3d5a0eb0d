// SPDX-License-Identifier: GPL-2.0

//! seq_file output, rendered as the kernel's vsnprintf would; the
//! debugfs files' and the sysctl's helpers (user copies, `kstrtobool`,
//! `proc_dointvec_minmax()`).

use super::image::model;
use super::trace::{cstr, p_s, p_s_short};
use super::{CtlTable, File, SeqFile, EINVAL};
use crate::ffi::{c_char, c_int, c_void};
use crate::types::ListHead;
use std::alloc::{alloc, dealloc, realloc, Layout};

/// The `f_cred` of a reader that may see addresses (the simulation's
/// `kallsyms_show_value()` is true for any non-null cred).
static SHOW_CRED: u8 = 0;

/// The host tests' side of a simulated `struct seq_file` (a C struct: the
/// buffer and the file are the Rust allocator's, freed on drop).
impl SeqFile {
    /// An empty seq_file whose reader may see addresses if `show_value`.
    pub fn sim(show_value: bool) -> SeqFile {
        let cred = if show_value {
            (&raw const SHOW_CRED).cast()
        } else {
            core::ptr::null()
        };
        SeqFile {
            buf: core::ptr::null_mut(),
            len: 0,
            cap: 0,
            file: Box::into_raw(Box::new(File { f_cred: cred })),
        }
    }

    /// The text shown so far.
    pub fn text(&self) -> String {
        if self.buf.is_null() {
            return String::new();
        }
        // SAFETY: `buf` holds `len` initialized bytes (`seq_push()`), owned
        // by this seq_file, which `&self` keeps alive.
        let b = unsafe { core::slice::from_raw_parts(self.buf.cast::<u8>(), self.len) };
        String::from_utf8_lossy(b).into_owned()
    }
}

impl Drop for SeqFile {
    fn drop(&mut self) {
        if !self.buf.is_null() {
            // SAFETY: `seq_push()` allocated `buf` with this layout, and the
            // seq_file being dropped is its only owner.
            unsafe { dealloc(self.buf.cast(), Layout::array::<u8>(self.cap).unwrap()) };
        }
        if !self.file.is_null() {
            // SAFETY: `SeqFile::sim()` made `file` with `Box::into_raw()`,
            // and nothing else frees it.
            drop(unsafe { Box::from_raw(self.file) });
        }
    }
}

/// `seq_printf(m, "%s", s)`: appends `s` to `m`'s buffer, growing it.
///
/// # Safety
/// `m` is a live seq_file of the simulation (its buffer is the Rust
/// allocator's), which only the caller's thread uses.
unsafe fn seq_push(m: *mut SeqFile, s: &str) {
    // SAFETY: `m` is live and used by this thread only (this function's
    // `# Safety`); `buf` has `cap` bytes from the Rust allocator, `len` of
    // them shown, and the new text is copied past them once `cap` allows.
    unsafe {
        let need = (*m).len + s.len();
        if need > (*m).cap {
            let cap = need.next_power_of_two().max(64);
            let new = Layout::array::<u8>(cap).unwrap();
            let buf = if (*m).buf.is_null() {
                alloc(new)
            } else {
                realloc((*m).buf.cast(), Layout::array::<u8>((*m).cap).unwrap(), cap)
            };
            assert!(!buf.is_null(), "seq_file buffer");
            (*m).buf = buf.cast();
            (*m).cap = cap;
        }
        core::ptr::copy_nonoverlapping(s.as_ptr(), (*m).buf.add((*m).len).cast(), s.len());
        (*m).len = need;
    }
}

/// `kallsyms_show_value(m->file->f_cred)`: the simulation shows addresses
/// to any reader with a cred (with [`Image::as_model`](super::Image::as_model),
/// to every reader, as model.c's).
///
/// # Safety
/// `m` is live, with a live `file`.
pub unsafe fn seq_show_value(m: *mut SeqFile) -> bool {
    // SAFETY: `m` and its file are live (this function's `# Safety`).
    model() || unsafe { !(*(*m).file).f_cred.is_null() }
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
    // SAFETY: `pi` is live (this function's `# Safety`), a simulated
    // seq_file that the reading thread alone uses.
    unsafe { seq_push(pi, &s) };
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
    // SAFETY: `pi` is live (this function's `# Safety`), a simulated
    // seq_file that the reading thread alone uses.
    unsafe { seq_push(pi, &s) };
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
    // SAFETY: `pi` is live (this function's `# Safety`), a simulated
    // seq_file that the reading thread alone uses.
    unsafe { seq_push(pi, &s) };
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
    // SAFETY: `m` is live (this function's `# Safety`), a simulated
    // seq_file that the reading thread alone uses.
    unsafe { seq_push(m, &s) };
}

/// `simple_read_from_buffer()` (the user buffer is plain memory here).
///
/// # Safety
/// `to` has room for `count` bytes, `from` holds `available` bytes, and
/// `ppos` is a valid position; the buffers do not overlap.
pub unsafe fn simple_read_from_buffer(
    to: *mut c_void,
    count: usize,
    ppos: *mut i64,
    from: *const c_void,
    available: usize,
) -> isize {
    // SAFETY: `ppos` is valid, and the copy stays within `from`'s
    // `available` bytes (from `pos < available`) and `to`'s `count` bytes
    // (this function's `# Safety`).
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

/// `kstrtobool_from_user()`: 1/y/Y/on → true, 0/n/N/off → false (with
/// [`Image::as_model`](super::Image::as_model), also t/T → true and f/F →
/// false, as model.c's and the kernel's).
///
/// # Safety
/// `s` has `count` bytes.
pub unsafe fn kstrtobool_from_user(s: *const c_char, count: usize, res: &mut bool) -> c_int {
    // SAFETY: `s` has `count` bytes (this function's `# Safety`).
    let b = unsafe { core::slice::from_raw_parts(s.cast::<u8>(), count.min(11)) };
    let tf = model();
    match b {
        [b'1' | b'y' | b'Y', ..] | [b'o' | b'O', b'n' | b'N', ..] => *res = true,
        [b't' | b'T', ..] if tf => *res = true,
        [b'0' | b'n' | b'N', ..] | [b'o' | b'O', b'f' | b'F', ..] => *res = false,
        [b'f' | b'F', ..] if tf => *res = false,
        _ => return -EINVAL,
    }
    0
}

/// `proc_dointvec_minmax()` for a 0..1 table: a write stores the number in
/// the buffer (else -EINVAL), a read does nothing.
///
/// # Safety
/// `table` is live and its `data` points to a live `int`; `buffer` holds
/// `*length` bytes.
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
    // SAFETY: `length` is valid and `buffer` holds `*length` bytes (this
    // function's `# Safety`).
    let txt = unsafe { core::slice::from_raw_parts(buffer.cast::<u8>(), *length) };
    if model() {
        // SAFETY: `table`, its `int` and its bounds are live (this
        // function's `# Safety`).
        return unsafe { model_dointvec_minmax(table, txt) };
    }
    match std::str::from_utf8(txt)
        .ok()
        .and_then(|t| t.trim().parse::<c_int>().ok())
    {
        // SAFETY: `table` and the `int` its `data` points to are live (this
        // function's `# Safety`).
        Some(v @ 0..=1) => unsafe { *(*table).data.cast::<c_int>() = v },
        _ => return -EINVAL,
    }
    0
}

/// model.c's `proc_dointvec_minmax()` write: a decimal number as
/// `strtol()` reads it (leading blanks and a sign; after it the end or a
/// newline), within `extra1` and `extra2` where they are set.
///
/// # Safety
/// `table` is live, its `data` points to a live `int`, and `extra1` and
/// `extra2` are null or point to live `int`s.
unsafe fn model_dointvec_minmax(table: *const CtlTable, txt: &[u8]) -> c_int {
    // model.c copies at most 31 bytes (`snprintf(buf, 32, ...)`), up to a NUL.
    let txt = &txt[..txt.len().min(31)];
    let txt = txt.split(|&c| c == 0).next().unwrap_or_default();
    let t = txt.trim_ascii_start();
    let digits_at = usize::from(matches!(t.first(), Some(b'+' | b'-')));
    let n = t[digits_at..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    // `strtol()`'s end must be the end or a newline.
    if n == 0 || !matches!(&t[digits_at + n..], [] | [b'\n', ..]) {
        return -EINVAL;
    }
    // Out of range: `strtol()` saturates.
    let sat = if t[0] == b'-' { i64::MIN } else { i64::MAX };
    let v: i64 = std::str::from_utf8(&t[..digits_at + n])
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(sat);
    // SAFETY: `table` and its bounds are live (this function's `# Safety`).
    let (lo, hi) = unsafe {
        (
            (*table).extra1.cast::<c_int>(),
            (*table).extra2.cast::<c_int>(),
        )
    };
    // SAFETY: as above.
    if (!lo.is_null() && v < i64::from(unsafe { *lo }))
        || (!hi.is_null() && v > i64::from(unsafe { *hi }))
    {
        return -EINVAL;
    }
    // SAFETY: `table`'s `data` points to a live `int` (this function's
    // `# Safety`).
    unsafe { *(*table).data.cast::<c_int>() = v as c_int };
    0
}

/// `seq_list_start()`.
///
/// # Safety
/// `head` is a stable list.
pub unsafe fn seq_list_start(head: *mut ListHead, pos: i64) -> *mut c_void {
    // SAFETY: `head` is a stable list (this function's `# Safety`): the walk
    // reads live entries until it is back at `head`.
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
    // SAFETY: `v` is an entry of the stable list at `head` (this function's
    // `# Safety`), so its `next` is an entry or `head`; `pos` is valid.
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
///
/// # Safety
/// Called once, at boot (`init_kprobes()`): the table is registered at
/// most once, and its code is `__init`.
pub unsafe fn kprobe_sysctls_init() {}
