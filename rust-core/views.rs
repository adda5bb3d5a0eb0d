// SPDX-License-Identifier: GPL-2.0

//! Safe views of the C objects that C hands to the core, created at the FFI
//! edge (the exports, the seq_file callbacks, the module notifier), in the
//! manner of the `kernel` crate's `from_raw()` wrappers: the `unsafe` part
//! is the creation of a view, whose `# Safety` states what the caller
//! vouches for; the logic takes the views and is safe code.
//!
//! No view forms a `&T` or `&mut T` to the C object: the object stays
//! behind a raw pointer and each access goes through it, so that fields
//! other CPUs write are never covered by a Rust reference.

use crate::ffi::c_ulong;
#[cfg(CONFIG_DEBUG_FS)]
use crate::ffi::{c_char, c_void};
use crate::sys;
#[cfg(CONFIG_DEBUG_FS)]
use crate::types::Loff;
#[cfg(CONFIG_MODULES)]
use crate::types::ModuleAreas;
#[cfg(CONFIG_DEBUG_FS)]
use core::ffi::CStr;
use core::marker::PhantomData;

/// A `struct seq_file` that the seq_file core is showing: the output of
/// the `show` callbacks (`seq_printf()` with upstream's formats, see `sys`).
///
/// # Invariants
/// `ptr` points to a `struct seq_file` that stays live for `'a` and that
/// the seq_file core is in the middle of showing: it holds the file's
/// `m->lock`, so the buffer that `seq_printf()` appends to is written by
/// the current task only, and `m->file` with its credentials (read by
/// `kallsyms_show_value()`) is live.  It is accessed only through the raw
/// pointer, by the `sys::seq_*` helpers.
#[cfg(CONFIG_DEBUG_FS)]
pub struct SeqView<'a> {
    ptr: *mut sys::SeqFile,
    _file: PhantomData<&'a mut sys::SeqFile>,
}

#[cfg(CONFIG_DEBUG_FS)]
impl<'a> SeqView<'a> {
    /// The view of `ptr` for `'a`.
    ///
    /// # Safety
    /// `ptr` is the `struct seq_file` passed to a `show` callback by the
    /// seq_file core, and the view does not outlive that call.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut sys::SeqFile) -> SeqView<'a> {
        // INVARIANT: the seq_file core is showing `ptr`, with `m->lock`
        // held, for the duration of the callback, which `'a` does not
        // exceed (this function's `# Safety`).
        SeqView {
            ptr,
            _file: PhantomData,
        }
    }

    /// `kallsyms_show_value(m->file->f_cred)`: may the reader see
    /// addresses?
    #[inline(always)]
    pub fn show_value(&self) -> bool {
        // SAFETY: by the type invariant, `self.ptr` is being shown, so its
        // `m->file` and `f_cred`, which the helper reads, are live.
        unsafe { sys::seq_show_value(self.ptr) }
    }

    /// `seq_printf(pi, "%px  %s  %s+0x%x  %s ", addr, ty, sym, offset, modname)`.
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "the addresses are printed (%px, %pS, %ps), never dereferenced"
    )]
    pub fn report_sym(
        &self,
        addr: *mut c_void,
        ty: &CStr,
        sym: CStrPtr<'_>,
        offset: u32,
        modname: CStrPtr<'_>,
    ) {
        // SAFETY: by the type invariant, `self.ptr` is being shown by the
        // current task; `ty` is a `CStr` and `sym`, `modname` are null or C
        // strings (`CStrPtr`'s invariant), which `%s` accepts; `%px` only
        // prints the value of `addr`.
        unsafe {
            sys::seq_report_sym(
                self.ptr,
                addr,
                ty.to_bytes_with_nul().as_ptr().cast(),
                sym.ptr,
                offset,
                modname.ptr,
            )
        }
    }

    /// `seq_printf(pi, "%px  %s  %pS ", addr, ty, paddr)`.
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "the addresses are printed (%px, %pS, %ps), never dereferenced"
    )]
    pub fn report_nosym(&self, addr: *mut c_void, ty: &CStr, paddr: *mut c_void) {
        // SAFETY: by the type invariant, `self.ptr` is being shown by the
        // current task; `ty` is a `CStr`; `%px` and `%pS` only print and
        // look up the values of the addresses, never dereference them.
        unsafe {
            sys::seq_report_nosym(
                self.ptr,
                addr,
                ty.to_bytes_with_nul().as_ptr().cast(),
                paddr,
            )
        }
    }

    /// `seq_printf(pi, "%s%s%s%s\n", a, b, c, d)`.
    #[inline(always)]
    pub fn report_flags(&self, a: &CStr, b: &CStr, c: &CStr, d: &CStr) {
        // SAFETY: by the type invariant, `self.ptr` is being shown by the
        // current task; the four arguments are `CStr`s.
        unsafe {
            sys::seq_report_flags(
                self.ptr,
                a.to_bytes_with_nul().as_ptr().cast(),
                b.to_bytes_with_nul().as_ptr().cast(),
                c.to_bytes_with_nul().as_ptr().cast(),
                d.to_bytes_with_nul().as_ptr().cast(),
            )
        }
    }

    /// `seq_printf(m, "0x%px-0x%px\t%ps\n", start, end, sym)`.
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "the addresses are printed (%px, %pS, %ps), never dereferenced"
    )]
    pub fn blacklist_line(&self, start: *mut c_void, end: *mut c_void, sym: *mut c_void) {
        // SAFETY: by the type invariant, `self.ptr` is being shown by the
        // current task; `%px` and `%ps` only print and look up the values
        // of the addresses, never dereference them.
        unsafe { sys::seq_blacklist_line(self.ptr, start, end, sym) }
    }
}

/// The position (`loff_t *pos`) that the seq_file core passes to the
/// `start` and `next` callbacks of `kprobes/list`, which return it as the
/// iterator `v` of `show` (one position per hash bucket).
///
/// # Invariants
/// `ptr` is valid for reads and writes of a `loff_t` for `'a`, and only
/// the current task accesses it meanwhile (the seq_file core calls the
/// callbacks with the file's `m->lock` held).  It is accessed through the
/// raw pointer only: the same pointer is handed back to C as `v`.
#[cfg(CONFIG_DEBUG_FS)]
pub struct SeqPos<'a> {
    ptr: *mut Loff,
    _pos: PhantomData<&'a mut Loff>,
}

#[cfg(CONFIG_DEBUG_FS)]
impl<'a> SeqPos<'a> {
    /// The view of `ptr` for `'a`.
    ///
    /// # Safety
    /// `ptr` is the position that the seq_file core passed to a `start` or
    /// `next` callback, or the `v` that such a callback returned for it and
    /// the core passes to `show`; the view does not outlive the callback.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut Loff) -> SeqPos<'a> {
        // INVARIANT: the seq_file core's position, valid and accessed by the
        // current task only for the duration of the callback, which `'a`
        // does not exceed (this function's `# Safety`).
        SeqPos {
            ptr,
            _pos: PhantomData,
        }
    }

    /// `*pos`.
    #[inline(always)]
    pub fn get(&self) -> Loff {
        // SAFETY: by the type invariant, `self.ptr` is valid for reads and
        // no other task writes it meanwhile.
        unsafe { *self.ptr }
    }

    /// `*pos = v`.
    #[inline(always)]
    pub fn set(&mut self, v: Loff) {
        // SAFETY: by the type invariant, `self.ptr` is valid for writes and
        // no other task accesses it meanwhile.
        unsafe { *self.ptr = v }
    }

    /// The position as the seq_file iterator `v` (`return pos;`).
    #[inline(always)]
    pub fn as_iter(&self) -> *mut c_void {
        self.ptr.cast()
    }
}

/// A C string or null, as C code hands it over (the `sym` and `modname` of
/// `kallsyms_lookup()`), for `%s`, which prints a null one as `(null)`.
///
/// # Invariants
/// `ptr` is null or points to a NUL-terminated string that stays live and
/// unchanged for `'a`.
#[cfg(CONFIG_DEBUG_FS)]
#[derive(Clone, Copy)]
pub struct CStrPtr<'a> {
    ptr: *const c_char,
    _str: PhantomData<&'a CStr>,
}

#[cfg(CONFIG_DEBUG_FS)]
impl<'a> CStrPtr<'a> {
    /// The view of `ptr` for `'a`.
    ///
    /// # Safety
    /// `ptr` is null or a NUL-terminated string that stays live and
    /// unchanged for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *const c_char) -> CStrPtr<'a> {
        // INVARIANT: this function's `# Safety`.
        CStrPtr {
            ptr,
            _str: PhantomData,
        }
    }

    /// The view of a Rust C string.
    #[inline(always)]
    pub fn new(s: &'a CStr) -> CStrPtr<'a> {
        // INVARIANT: a `&'a CStr` is NUL-terminated and unchanged for `'a`.
        CStrPtr {
            ptr: s.to_bytes_with_nul().as_ptr().cast(),
            _str: PhantomData,
        }
    }

    /// Is it null?
    #[inline(always)]
    pub fn is_null(self) -> bool {
        self.ptr.is_null()
    }
}

/// A `struct module` that the module notifier chain is called for: the
/// areas of its blacklist (`NOKPROBE_SYMBOL()`s, `.kprobes.text`,
/// `.noinstr.text`).
///
/// # Invariants
/// `ptr` points to a `struct module` that stays allocated for `'a` (the
/// notifier runs before a coming module can go and before a going one is
/// freed).  The fields read here (`kprobe_blacklist`,
/// `num_kprobe_blacklist`, `kprobes_text_*`, `noinstr_text_*`) are set by
/// the module loader before `MODULE_STATE_COMING` and never written
/// afterwards, and the `kprobe_blacklist` array they describe lives as
/// long as the module; other CPUs do write other fields (state,
/// reference count), so the module is accessed only through the raw
/// pointer, by `sys::module_areas()`.
#[cfg(CONFIG_MODULES)]
pub struct ModuleView<'a> {
    ptr: *mut sys::Module,
    _module: PhantomData<&'a sys::Module>,
}

#[cfg(CONFIG_MODULES)]
impl<'a> ModuleView<'a> {
    /// The view of `ptr` for `'a`.
    ///
    /// # Safety
    /// `ptr` is the module that the module notifier chain passes to its
    /// callback, and the view does not outlive that call.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut sys::Module) -> ModuleView<'a> {
        // INVARIANT: the notifier's module is allocated, with its blacklist
        // fields set, for the duration of the call, which `'a` does not
        // exceed (this function's `# Safety`).
        ModuleView {
            ptr,
            _module: PhantomData,
        }
    }

    /// The module's blacklist areas.
    #[inline(always)]
    pub fn areas(&self) -> ModuleAreas<'a> {
        // SAFETY: by the type invariant, `self.ptr` is a module allocated
        // for `'a`, whose blacklist fields and array are not written for
        // `'a`, as `sys::module_areas()` requires of the `'a` it returns.
        unsafe { sys::module_areas(self.ptr) }
    }
}

#[cfg(CONFIG_MODULES)]
impl ModuleView<'_> {
    /// `within_module_init(addr, mod)`.
    #[inline(always)]
    pub fn within_init(&self, addr: usize) -> bool {
        // SAFETY: by the type invariant, `self.ptr` is a live module.
        unsafe { sys::within_module_init(addr, self.ptr) }
    }

    /// `within_module_core(addr, mod)`.
    #[inline(always)]
    pub fn within_core(&self, addr: usize) -> bool {
        // SAFETY: by the type invariant, `self.ptr` is a live module.
        unsafe { sys::within_module_core(addr, self.ptr) }
    }
}

/// A module the core holds a reference on (`try_module_get()` succeeded):
/// it cannot be unloaded while this lives, and `module_put()` runs when it
/// is dropped.  What `check_kprobe_address_safe()` returns for a probe in
/// a module, held until the probe is armed.
///
/// # Invariants
/// `ptr` is a live module on which this value holds one reference.
pub struct ModuleRef {
    ptr: core::ptr::NonNull<sys::Module>,
}

impl ModuleRef {
    /// `try_module_get(m)`: a reference on `m`, or `None` if it is going.
    ///
    /// # Safety
    /// `m` is live for the call: found by `__module_text_address()` with
    /// preemption still disabled (the module cannot be freed meanwhile).
    #[inline(always)]
    pub unsafe fn try_get(m: core::ptr::NonNull<sys::Module>) -> Option<ModuleRef> {
        // SAFETY: `m` is live for the call (this function's `# Safety`).
        // INVARIANT: on success the reference is ours, and it keeps `m` live.
        // (`then`, not `then_some`: a `ModuleRef` made eagerly and dropped on
        // failure would put a reference never taken.)
        unsafe { sys::try_module_get(m.as_ptr()) }.then(|| ModuleRef { ptr: m })
    }

    /// `within_module_init(addr, mod)`.
    #[inline(always)]
    pub fn within_init(&self, addr: usize) -> bool {
        // SAFETY: live while referenced (the type invariant).
        unsafe { sys::within_module_init(addr, self.ptr.as_ptr()) }
    }

    /// `module_is_coming(mod)`.
    #[inline(always)]
    pub fn is_coming(&self) -> bool {
        // SAFETY: live while referenced (the type invariant).
        unsafe { sys::module_is_coming(self.ptr.as_ptr()) }
    }

    /// The module (host tests compare it).
    #[cfg(test)]
    pub fn as_ptr(&self) -> *mut sys::Module {
        self.ptr.as_ptr()
    }
}

impl Drop for ModuleRef {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the reference this value holds (the type invariant), put once.
        unsafe { sys::module_put(self.ptr.as_ptr()) }
    }
}

/// Proof that the current task runs the kprobes early initcall
/// (`init_kprobes()`).
///
/// # Invariants
/// For `'a`: the current task runs the early initcall of the core, on the
/// boot CPU before `smp_init()` brings up the others; nothing has used the
/// core yet (no probe is registered, no optinsn slot allocated, so nobody
/// reads the arch's `kretprobe_blacklist` or `kprobe_optinsn_slots`); and
/// the kernel's init memory, which holds the `_kprobe_blacklist` section
/// (`INIT_DATA`) and the initcall's `.init.text`, is not freed yet.
pub struct Boot<'a> {
    _boot: PhantomData<(&'a (), *mut ())>,
}

impl<'a> Boot<'a> {
    /// The token of the early initcall.
    ///
    /// # Safety
    /// Called by the early initcall only (before `smp_init()`, before any
    /// use of the core, before init memory is freed), once per boot (the
    /// token stands for the initcall's one run: what takes it by value
    /// runs once), and the token does not outlive the initcall.
    #[inline(always)]
    pub unsafe fn assume() -> Boot<'a> {
        // INVARIANT: this function's `# Safety`.
        Boot { _boot: PhantomData }
    }

    /// `[__start_kprobe_blacklist, __stop_kprobe_blacklist)`: the addresses
    /// of the `NOKPROBE_SYMBOL()`s of the kernel.
    #[inline(always)]
    pub fn kprobe_blacklist_section(&self) -> &'a [c_ulong] {
        let start = sys::kprobe_blacklist_start();
        let end = sys::kprobe_blacklist_end();
        let len = (end as usize).wrapping_sub(start as usize) / core::mem::size_of::<c_ulong>();
        // The linker's `__start/__stop_kprobe_blacklist` bound the section.
        // SAFETY: the section is an aligned, non-null array of `len`
        // addresses that nothing writes after the link, in init data that
        // the type invariant keeps from being freed for `'a`.
        unsafe { core::slice::from_raw_parts(start, len) }
    }
}
