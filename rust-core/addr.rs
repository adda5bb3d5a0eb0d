// SPDX-License-Identifier: GPL-2.0

//! Probe address resolution and safety checks: `symbol_name` + `offset` to
//! an address, function-entry detection, and the checks that decide whether
//! a probe may be placed there.  Port of that part of `kernel/kprobes.c`.

use crate::blacklist::SymName;
use crate::error::{code::*, Result};
use crate::ffi::{c_char, c_ulong};
use crate::probe::NewProbe;
use crate::sys;
use crate::tree;
use crate::types::KprobeOpcode;
use crate::views::ModuleRef;
use core::ffi::CStr;
use core::ptr::{self, NonNull};

/// `_kprobe_addr()`: if `symbol_name` is given, looks it up and adds
/// `offset`, so a relative address to a symbol can be given.  Returns the
/// address, or an error: `EINVAL` for both or neither of
/// `addr`/`symbol_name` or when the arch rejects the result, `ENOENT` for
/// an unknown symbol or an address outside any symbol.  Sets
/// `*on_func_entry`.
pub fn kprobe_addr(
    addr: *mut KprobeOpcode,
    symbol_name: Option<&CStr>,
    offset: c_ulong,
    on_func_entry: &mut bool,
) -> Result<*mut KprobeOpcode> {
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
        addr = unsafe {
            sys::kprobe_lookup_name(
                symbol_name.to_bytes_with_nul().as_ptr().cast(),
                offset as u32,
            )
        };
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
pub fn kprobe_on_func_entry(
    addr: *mut KprobeOpcode,
    sym: Option<&CStr>,
    offset: c_ulong,
) -> Result {
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

/// `is_cfi_preamble_symbol()`: is the symbol `sym` (at the probe's
/// address) a `__cfi_` or `__pfx_` one (the CFI hash / padding in front of
/// a function)?
fn is_cfi_preamble_named(sym: &mut SymName) -> bool {
    let Some(name) = sym.get() else { return false };
    let has_prefix = |pre: &[u8]| name.iter().zip(pre).all(|(&c, &b)| c == b as c_char);
    has_prefix(b"__cfi_") || has_prefix(b"__pfx_")
}

/// `check_kprobe_address_safe()`: may a probe be placed at `p->addr`?
/// Returns, for a module address, a reference on the module (the caller
/// drops it after arming, so the module cannot go away while its text is
/// patched), or the error and no reference.
///
/// The module lookup and the reference are taken in one RCU read-side
/// section, so the module cannot be freed in between (the CVE-2024-35955
/// fix): on mainline ([`tree::MODULE_REF_BEFORE_CHECKS`]) the lookup and
/// the reference, the reserved-area checks then preemptible with the
/// module pinned; on 6.12 the whole check with preemption disabled, the
/// reference after the reserved-area checks.  `win` is the window of a
/// batch ([`ReservedWindow`]), if any.  Process context.
pub fn check_kprobe_address_safe(
    p: &NewProbe<'_>,
    win: Option<&ReservedWindow>,
) -> Result<Option<ModuleRef>> {
    check_ftrace_location(p)?;
    let addr = p.probe().addr() as usize;
    let jl = crate::locks::jump_label();
    let early = tree::MODULE_REF_BEFORE_CHECKS;
    // 6.12 looks the module up with preemption disabled, mainline in an RCU
    // read-side section.
    let preempt = (!early).then(crate::locks::preempt_disable);
    let ret = 'out: {
        // Ensure the address is in a text area, and find a module if exists.
        let mut probed_mod = None;
        // The reference, taken here on mainline (dropped on an error).
        let mut early_ref = None;
        if !sys::core_kernel_text(addr) {
            let rcu = early.then(crate::locks::rcu_read);
            // SAFETY: preemption is disabled (`preempt`) or a read-side
            // section open (`rcu`) until after the module's use below.
            probed_mod = NonNull::new(unsafe { sys::module_text_address(addr) });
            let Some(m) = probed_mod else {
                break 'out Err(EINVAL);
            };
            if early {
                // We must hold a refcount of the probed module while
                // updating its code to prohibit unexpected unloading.
                // SAFETY: `__module_text_address()` found `m` and the RCU
                // read-side section has stayed open since, so it is live for
                // the call.
                let Some(r) = (unsafe { ModuleRef::try_get(m) }) else {
                    break 'out Err(ENOENT);
                };
                early_ref = Some(r);
            }
            drop(rcu);
        }
        // Ensure it is not in reserved area.  (A batch's window may have
        // shown that no jump label or static call site is near `addr`.)
        let key = probed_mod.map_or(ptr::null_mut(), NonNull::as_ptr);
        let clear = |f: fn(&Clear) -> bool| win.and_then(|w| w.clear(addr, key)).is_some_and(f);
        // The name of the symbol at `addr`, for the blacklist's and the CFI
        // check (looked up once).
        let mut sym = SymName::new(addr);
        if sys::in_gate_area_no_mm(addr)
            || crate::blacklist::within_kprobe_blacklist_named(addr, &mut sym)
            || (!clear(|c| c.jump) && sys::jump_label_text_reserved(addr, addr))
            || (!clear(|c| c.static_call) && sys::static_call_text_reserved(addr, addr))
            || sys::find_bug(addr)
            || is_cfi_preamble_named(&mut sym)
        {
            break 'out Err(EINVAL);
        }

        // Get module refcount and reject __init functions for loaded modules.
        let Some(m) = probed_mod else {
            break 'out Ok(None);
        };
        let r = match early_ref {
            Some(r) => r,
            None => {
                // We must hold a refcount of the probed module while
                // updating its code to prohibit unexpected unloading.
                // SAFETY: `__module_text_address()` found `m` and preemption
                // has stayed disabled since (6.12), so it is live for the
                // call.
                let Some(r) = (unsafe { ModuleRef::try_get(m) }) else {
                    break 'out Err(ENOENT);
                };
                r
            }
        };
        // If the module freed '.init.text', we couldn't insert kprobes in
        // there.  (Dropping `r` puts the reference.)
        if r.within_init(addr) && !r.is_coming() {
            break 'out Err(ENOENT);
        }
        Ok(Some(r))
    };
    drop(preempt);
    drop(jl);
    ret
}

/// The range checks of a batch (`register_kprobes()`,
/// `register_kretprobes()`).
///
/// Upstream asks `jump_label_text_reserved(addr, addr)` and
/// `static_call_text_reserved(addr, addr)` for every probe, and each call
/// walks all of the kernel's jump entries (or static call sites) and the
/// module's: on x86 `addr_conflict()` decodes the instruction of every
/// kernel entry below `addr`, which dominates a member's registration
/// (`reg_int3_batch_5000`; `bench/profile/` has the profile).  Both take
/// a range: a batch asks them once for `[lo, hi]`, the span of a window of
/// consecutive members whose addresses are in the same module (or all in
/// the kernel), and when no site overlaps the span, a member found in that
/// module (or the kernel) at an address inside it skips that call; the
/// checks' results are the same, only their count differs.
///
/// The window's addresses are hints ([`hint`]): a member whose resolved
/// address is outside the span is checked as upstream does.  A span with
/// a site in it halves the window until it is clear (or one member, which
/// is checked as upstream does); a span that is not clear is asked only
/// while the calls saved pay for it, so a batch never makes more than 4
/// `jump_label_text_reserved()` calls more than upstream.  (The static
/// call span is asked with each jump label span: where a static call site
/// lies in a span clear of jump labels, its members are asked one by one
/// as well, one call more than upstream per such span.)
///
/// # Invariants
/// When `cur` is set, `jump_label_text_reserved(cur.lo, cur.hi)` (if
/// `cur.jump`) and `static_call_text_reserved(cur.lo, cur.hi)` (if
/// `cur.static_call`) returned false for the module `cur.key` (null: the
/// kernel's text), on which `cur`'s reference is held, so its sites (fixed
/// while it is loaded) are still those the calls saw.
pub struct ReservedWindow {
    cur: Option<Clear>,
    /// The member after the window (the next window starts there).
    end: usize,
    /// The length of the next window.
    len: usize,
    /// Calls not made (a clear span's members but one), and spans that
    /// were not clear.
    saved: usize,
    wasted: usize,
}

/// A span that no jump label (or no static call) site overlaps.
pub struct Clear {
    key: *mut sys::Module,
    lo: usize,
    hi: usize,
    /// No jump label site overlaps the span.
    pub jump: bool,
    /// No static call site overlaps the span.
    pub static_call: bool,
    /// The reference on `key` (none for the kernel's text).
    _mod: Option<ModuleRef>,
}

impl Default for ReservedWindow {
    /// A window for a batch (nothing checked yet).
    fn default() -> Self {
        ReservedWindow {
            cur: None,
            end: 0,
            len: Self::MAX_LEN,
            saved: 0,
            wasted: 0,
        }
    }
}

impl ReservedWindow {
    /// The longest window (hints looked up at once).
    const MAX_LEN: usize = 4096;

    /// Before member `i` of `members` is registered: when `i` is past the
    /// current window, checks the span of the next one, the members from
    /// `i` whose `hint(j)` is known and in the same module as `i`'s.
    /// Process context; takes `jump_label_lock`.
    pub fn advance(&mut self, i: usize, members: usize, hint: impl Fn(usize) -> Option<usize>) {
        if i < self.end {
            return;
        }
        // Drops the reference on the last window's module.
        self.cur = None;
        self.end = i + 1;
        let Some(key) = hint(i).and_then(text_key) else {
            return;
        };
        // Halves the window until its span is clear, while the calls not
        // made (`saved`) pay for those that found a site (`wasted`).
        while self.wasted < 4 + self.saved {
            let (mut lo, mut hi) = (usize::MAX, 0);
            let mut n = 0;
            while n < self.len && i + n < members {
                let Some(h) = hint(i + n) else { break };
                if text_key(h) != Some(key) {
                    break;
                }
                lo = lo.min(h);
                hi = hi.max(h);
                n += 1;
            }
            if n < 2 {
                break;
            }
            let Some(c) = check_span(lo, hi) else { break };
            if c.jump {
                self.saved += n - 1;
                self.end = i + n;
                self.len = Self::MAX_LEN.min(self.len * 2);
                // INVARIANT: `check_span()` made the calls for `c.key`, which
                // `c` holds.
                self.cur = Some(c);
                return;
            }
            self.wasted += 1;
            self.len = n / 2;
        }
        // Member `i` is checked alone; the next window starts small.
        self.len = 2;
    }

    /// The span covering `addr` in module `key` (null: the kernel's text),
    /// if there is one.
    fn clear(&self, addr: usize, key: *mut sys::Module) -> Option<&Clear> {
        self.cur
            .as_ref()
            .filter(|c| c.key == key && c.lo <= addr && addr <= c.hi)
    }
}

/// A member's address as `kprobe_addr()` will resolve it, near enough for a
/// [`ReservedWindow`]: `addr + offset`, or the symbol's address + `offset`
/// (without the arch's adjustment, e.g. past an x86 ENDBR).
pub fn hint(p: crate::probe::Probe<'_>) -> Option<usize> {
    // `c_ulong` is `usize` in the kernel crate, `u64` on the host.
    #[allow(clippy::unnecessary_cast)]
    let offset = p.offset() as usize;
    let base = match p.symbol() {
        None => p.addr(),
        // SAFETY: `name` is a C string.
        Some(name) => unsafe {
            sys::kprobe_lookup_name(name.to_bytes_with_nul().as_ptr().cast(), offset as u32)
        },
    };
    (!base.is_null()).then(|| (base as usize).wrapping_add(offset))
}

/// The module whose text holds `addr` (null for the kernel's text), or
/// `None` for an address outside all text.
fn text_key(addr: usize) -> Option<*mut sys::Module> {
    let _preempt = crate::locks::preempt_disable();
    if sys::core_kernel_text(addr) {
        Some(ptr::null_mut())
    } else {
        // SAFETY: preemption is disabled (`_preempt`); only the pointer's
        // value is kept, as a key.
        Some(unsafe { sys::module_text_address(addr) }).filter(|m| !m.is_null())
    }
}

/// Asks `jump_label_text_reserved(lo, hi)` and
/// `static_call_text_reserved(lo, hi)`, as `check_kprobe_address_safe()`
/// does for one address: under `jump_label_lock`, with preemption
/// disabled, and with a reference on the module (both ends must be in its
/// text, or both in the kernel's).
fn check_span(lo: usize, hi: usize) -> Option<Clear> {
    let jl = crate::locks::jump_label();
    let preempt = crate::locks::preempt_disable();
    let c = 'out: {
        let (key, module) = if sys::core_kernel_text(lo) {
            if !sys::core_kernel_text(hi) {
                break 'out None;
            }
            (ptr::null_mut(), None)
        } else {
            // SAFETY: preemption is disabled (`preempt`) until after the
            // module's use below.
            let m = unsafe { sys::module_text_address(lo) };
            let Some(nm) = NonNull::new(m) else {
                break 'out None;
            };
            // SAFETY: as above.
            if unsafe { sys::module_text_address(hi) } != m {
                break 'out None;
            }
            // SAFETY: `__module_text_address()` found `nm` and preemption has
            // stayed disabled since, so it is live for the call.
            let Some(r) = (unsafe { ModuleRef::try_get(nm) }) else {
                break 'out None;
            };
            (m, Some(r))
        };
        Some(Clear {
            key,
            lo,
            hi,
            jump: !sys::jump_label_text_reserved(lo, hi),
            static_call: !sys::static_call_text_reserved(lo, hi),
            _mod: module,
        })
    };
    drop(preempt);
    drop(jl);
    c
}
