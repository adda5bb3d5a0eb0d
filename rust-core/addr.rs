// SPDX-License-Identifier: GPL-2.0

//! Probe address resolution and safety checks: `symbol_name` + `offset` to
//! an address, function-entry detection, and the checks that decide whether
//! a probe may be placed there.  Port of that part of `kernel/kprobes.c`.

use crate::error::{code::*, Result};
use crate::ffi::{c_char, c_ulong};
use crate::probe::NewProbe;
use crate::sys;
use crate::views::ModuleRef;
use crate::types::KprobeOpcode;
use core::ffi::CStr;
use core::ptr::NonNull;

/// `_kprobe_addr()`: if `symbol_name` is given, looks it up and adds
/// `offset`, so a relative address to a symbol can be given.  Returns the
/// address, or an error: `EINVAL` for both or neither of
/// `addr`/`symbol_name` or when the arch rejects the result, `ENOENT` for
/// an unknown symbol or an address outside any symbol.  Sets
/// `*on_func_entry`.
pub fn kprobe_addr(addr: *mut KprobeOpcode, symbol_name: Option<&CStr>, offset: c_ulong, on_func_entry: &mut bool) -> Result<*mut KprobeOpcode> {
    let mut addr = addr;
    // `c_ulong` is `usize` in the kernel crate, `u64` on the host.
    #[allow(clippy::unnecessary_cast)]
    let mut offset = offset as usize;
    if symbol_name.is_some() != addr.is_null() {
        return Err(EINVAL);
    }

    if let Some(symbol_name) = symbol_name {
        // Input: @sym + @offset
        // Output: @addr + @offset
        //
        // NOTE: kprobe_lookup_name() does *NOT* fold the offset argument
        // into its output!
        // SAFETY: `symbol_name` is a C string.
        addr = unsafe { sys::kprobe_lookup_name(symbol_name.as_ptr().cast(), offset as u32) };
        if addr.is_null() {
            return Err(ENOENT);
        }
    }

    // So here we have @addr + @offset, displace it into a new
    // @addr' + @offset' where @addr' is the symbol start address.
    let a = (addr as usize).wrapping_add(offset);
    let mut size = 0usize;
    if !sys::kallsyms_lookup_size_offset(a, &mut size, &mut offset) {
        return Err(ENOENT);
    }
    let base = a.wrapping_sub(offset);

    // Then ask the architecture to re-combine them, taking care of magical
    // function entry details while telling us if this was indeed at the
    // start of the function.
    let r = sys::arch_adjust_kprobe_addr(base, offset, on_func_entry);
    if r.is_null() {
        return Err(EINVAL);
    }
    Ok(r)
}

/// `kprobe_on_func_entry()`: checks whether the given `addr + offset` or
/// `sym + offset` is on the function entry address or not.  Returns 0 if it
/// is the function entry, or `EINVAL` if it is not, `ENOENT` if the
/// symbol or address lookup fails.  The caller must pass `addr` or `sym`
/// (either one must be null), or this returns `EINVAL`.
pub fn kprobe_on_func_entry(addr: *mut KprobeOpcode, sym: Option<&CStr>, offset: c_ulong) -> Result {
    let mut on_func_entry = false;
    kprobe_addr(addr, sym, offset, &mut on_func_entry)?;
    if !on_func_entry {
        return Err(EINVAL);
    }
    Ok(())
}

/// `check_ftrace_location()`: a probe exactly on an ftrace call site uses
/// ftrace (`KPROBE_FLAG_FTRACE`).
pub fn check_ftrace_location(p: &NewProbe<'_>) -> Result {
    let addr = p.probe().addr() as usize;
    if sys::ftrace_location(addr) == addr {
        #[cfg(CONFIG_KPROBES_ON_FTRACE)]
        p.set_flags(crate::types::KPROBE_FLAG_FTRACE);
        #[cfg(not(CONFIG_KPROBES_ON_FTRACE))]
        return Err(EINVAL);
    }
    Ok(())
}

/// `is_cfi_preamble_symbol()`: is `addr` in a `__cfi_` or `__pfx_` symbol
/// (the CFI hash / padding in front of a function)?
pub fn is_cfi_preamble_symbol(addr: usize) -> bool {
    let mut symbuf = [0 as c_char; sys::KSYM_NAME_LEN];
    // SAFETY: `symbuf` has KSYM_NAME_LEN bytes.
    if unsafe { sys::lookup_symbol_name(addr, symbuf.as_mut_ptr()) } != 0 {
        return false;
    }
    let has_prefix = |pre: &[u8]| symbuf.iter().zip(pre).all(|(&c, &b)| c == b);
    has_prefix(b"__cfi_") || has_prefix(b"__pfx_")
}

/// `check_kprobe_address_safe()`: may a probe be placed at `p->addr`?
/// Returns, for a module address, a reference on the module (the caller
/// drops it after arming, so the module cannot go away while its text is
/// patched), or the error and no reference.
///
/// The module lookup and the reference are taken with preemption disabled,
/// so the module cannot be freed in between (the CVE-2024-35955 fix).
/// Process context.
pub fn check_kprobe_address_safe(p: &NewProbe<'_>) -> Result<Option<ModuleRef>> {
    check_ftrace_location(p)?;
    let addr = p.probe().addr() as usize;
    let jl = crate::locks::jump_label();
    sys::preempt_disable();
    let ret = 'out: {
        // Ensure the address is in a text area, and find a module if exists.
        let mut probed_mod = None;
        if !sys::core_kernel_text(addr) {
            probed_mod = NonNull::new(sys::module_text_address(addr));
            if probed_mod.is_none() {
                break 'out Err(EINVAL);
            }
        }
        // Ensure it is not in reserved area.
        if sys::in_gate_area_no_mm(addr)
            || crate::blacklist::within_kprobe_blacklist(addr)
            || sys::jump_label_text_reserved(addr)
            || sys::static_call_text_reserved(addr)
            || sys::find_bug(addr)
            || is_cfi_preamble_symbol(addr)
        {
            break 'out Err(EINVAL);
        }

        // Get module refcount and reject __init functions for loaded modules.
        let Some(m) = probed_mod else { break 'out Ok(None) };
        // We must hold a refcount of the probed module while updating its
        // code to prohibit unexpected unloading.
        // SAFETY: `__module_text_address()` found `m` and preemption has stayed
        // disabled since, so it is live for the call.
        let Some(r) = (unsafe { ModuleRef::try_get(m) }) else { break 'out Err(ENOENT) };
        // If the module freed '.init.text', we couldn't insert kprobes in
        // there.  (Dropping `r` puts the reference.)
        if r.within_init(addr) && !r.is_coming() {
            break 'out Err(ENOENT);
        }
        Ok(Some(r))
    };
    sys::preempt_enable();
    drop(jl);
    ret
}
