// SPDX-License-Identifier: GPL-2.0

//! The kprobe blacklist: address ranges where probes must not be placed.
//! Port of the blacklist part of `kernel/kprobes.c`.
//!
//! Unlike the kretprobe blacklist, the ranges of the blacklisted functions
//! are stored, since a kprobe need not be at the beginning of a function.
//! Sources: the `_kprobe_blacklist` section (`NOKPROBE_SYMBOL()`), the
//! `.kprobes.text` (`__kprobes`) and `.noinstr.text` sections, the arch's
//! own areas, and the same sections of modules while they are loaded.
//!
//! Locking, as in C: the list is RCU for readers ([`within_kprobe_blacklist`]);
//! writers are the boot-time populate and the module notifier, which holds
//! `kprobe_mutex`.  The order of the list is the order of insertion, which
//! `/sys/kernel/debug/kprobes/blacklist` shows.

use crate::error::{code::*, to_result, Result};
use crate::ffi::{c_char, c_ulong};
use crate::list;
use crate::locks::KprobeMutex;
use crate::sys;
use crate::types::{KprobeBlacklistEntry, ListHead};
#[cfg(CONFIG_MODULES)]
use crate::views::ModuleView;
use core::ptr::addr_of_mut;

/// `kprobe_blacklist`: the list of [`KprobeBlacklistEntry`].  Static, as
/// upstream's (only this crate walks it).
pub static mut KPROBE_BLACKLIST: ListHead =
    ListHead { next: &raw mut KPROBE_BLACKLIST, prev: &raw mut KPROBE_BLACKLIST };

fn head() -> *mut ListHead {
    &raw mut KPROBE_BLACKLIST
}

fn entry_of(l: *mut ListHead) -> *mut KprobeBlacklistEntry {
    crate::container_of!(l, KprobeBlacklistEntry, list)
}

/// `__within_kprobe_blacklist()`.
fn within_blacklist_ranges(addr: usize) -> bool {
    if sys::arch_within_kprobe_blacklist(addr) {
        return true;
    }
    // If 'kprobe_blacklist' is defined, check the address and reject any
    // probe registration in the prohibited area.
    // Note: this can return true during transition period where
    // (start_addr, end_addr) in the black list is shrinking but old entry
    // has not been removed yet. This is acceptable because the worst case
    // is that we reject more probes than we should.
    let _rcu = crate::locks::rcu_read();
    let mut ret = false;
    // SAFETY: RCU read side; entries are freed with kfree_rcu().
    for l in unsafe { list::iter_rcu(head()) } {
        let e = entry_of(l);
        // Its list and rcu members may be written meanwhile (a writer
        // unlinking a neighbour, kfree_rcu()): no reference to the entry is
        // formed, the range (never written once published) is read through
        // the raw pointer.
        // SAFETY: `l` is a live entry in this read-side section.
        let (start, end) = unsafe { ((*e).start_addr, (*e).end_addr) };
        if addr >= start && addr < end {
            ret = true;
            break;
        }
    }
    ret
}

/// `within_kprobe_blacklist()`: is `addr` in a blacklisted range, directly
/// or as part of a suffixed copy (`foo.cold`, `foo.isra.0`) of a
/// blacklisted function?
pub fn within_kprobe_blacklist(addr: usize) -> bool {
    within_kprobe_blacklist_named(addr, &mut SymName::new(addr))
}

/// [`within_kprobe_blacklist`] with the name of the symbol at `addr`
/// looked up once for every check that needs it.
pub fn within_kprobe_blacklist_named(addr: usize, sym: &mut SymName) -> bool {
    if within_blacklist_ranges(addr) {
        return true;
    }

    // Check if the address is on a suffixed-symbol.
    let Some(name) = sym.get() else { return false };
    let Some(dot) = name.iter().take_while(|&&c| c != 0).position(|&c| c == b'.' as c_char) else {
        return false;
    };
    // The name up to the dot (put back after the lookup).
    if let Some(c) = name.get_mut(dot) {
        *c = 0;
    }
    // SAFETY: `name` is NUL-terminated.
    let base = unsafe { sys::kprobe_lookup_name(name.as_ptr(), 0) } as usize;
    if let Some(c) = name.get_mut(dot) {
        *c = b'.' as c_char;
    }
    base != 0 && within_blacklist_ranges(base)
}

/// The name of the symbol at an address, from `lookup_symbol_name()`,
/// looked up when first asked for: upstream's `within_kprobe_blacklist()`
/// and `is_cfi_preamble_symbol()` look up the same name in turn (in a
/// module, each a walk of its symbol table).
pub struct SymName {
    addr: usize,
    /// `None`: not looked up yet; `Some(false)`: no symbol.
    found: Option<bool>,
    buf: [c_char; sys::KSYM_NAME_LEN],
}

impl SymName {
    /// The name at `addr`, not looked up yet.
    pub fn new(addr: usize) -> Self {
        SymName { addr, found: None, buf: [0; sys::KSYM_NAME_LEN] }
    }

    /// The NUL-terminated name, or `None` if no symbol holds the address.
    pub fn get(&mut self) -> Option<&mut [c_char; sys::KSYM_NAME_LEN]> {
        if self.found.is_none() {
            // SAFETY: `buf` has KSYM_NAME_LEN bytes.
            self.found = Some(unsafe { sys::lookup_symbol_name(self.addr, self.buf.as_mut_ptr()) } == 0);
        }
        if self.found == Some(true) {
            Some(&mut self.buf)
        } else {
            None
        }
    }
}

/// `kprobe_add_ksym_blacklist()`: blacklists the whole symbol at `entry`.
/// Returns the symbol's size, `EINVAL` if `entry` is not in kernel text
/// or not in a symbol, `ENOMEM`.
pub fn add_ksym_blacklist(entry: usize) -> Result<usize> {
    let mut offset = 0usize;
    let mut size = 0usize;

    if !sys::kernel_text_address(entry) || !sys::kallsyms_lookup_size_offset(entry, &mut size, &mut offset) {
        return Err(EINVAL);
    }

    let ent = sys::kmalloc(core::mem::size_of::<KprobeBlacklistEntry>()) as *mut KprobeBlacklistEntry;
    if ent.is_null() {
        return Err(ENOMEM);
    }
    // SAFETY: `ent` is a fresh allocation of the right size; the list
    // writers are serialized by the callers (init, kprobe_mutex).
    unsafe {
        (*ent).start_addr = entry;
        (*ent).end_addr = entry.wrapping_add(size);
        list::init_list_head(addr_of_mut!((*ent).list));
        list::list_add_tail_rcu(addr_of_mut!((*ent).list), head());
    }
    Ok(size)
}

/// `kprobe_add_area_blacklist()`: blacklists every symbol in
/// `[start, end)`.  Returns `Ok` or the first error.
pub fn add_area_blacklist(start: usize, end: usize) -> Result {
    let mut entry = start;
    while entry < end {
        // `max(1)`: in case of alias symbol (size 0).
        let size = add_ksym_blacklist(entry)?.max(1);
        entry = entry.wrapping_add(size);
    }
    Ok(())
}

/// `populate_kprobe_blacklist()`: the boot-time fill from the
/// `_kprobe_blacklist` section (addresses of `NOKPROBE_SYMBOL()`s, see
/// [`Boot::kprobe_blacklist_section`]), `.kprobes.text`, `.noinstr.text`
/// and the arch.
///
/// Boot-time only: placed in `.init.text` like upstream's `__init`.
///
/// [`Boot::kprobe_blacklist_section`]: crate::views::Boot::kprobe_blacklist_section
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
pub fn populate(section: &[c_ulong]) -> Result {
    for &addr in section {
        // `c_ulong` is `usize` in the kernel crate, `u64` on the host.
        #[allow(clippy::unnecessary_cast)]
        let entry = sys::dereference_symbol_descriptor(addr as usize);
        match add_ksym_blacklist(entry) {
            Err(e) if e != EINVAL => return Err(e),
            _ => {}
        }
    }

    // Symbols in '__kprobes_text' are blacklisted.
    let (s, e) = sys::kprobes_text_area();
    add_area_blacklist(s, e)?;

    // Symbols in 'noinstr' section are blacklisted.
    let (s, e) = sys::noinstr_text_area();
    add_area_blacklist(s, e)?;
    to_result(sys::arch_populate_kprobe_blacklist())
}

/// `kprobe_remove_area_blacklist()`: drops the entries starting in
/// `[start, end)`.
pub fn remove_area_blacklist(_km: &KprobeMutex, start: usize, end: usize) {
    // SAFETY: writers are serialized by kprobe_mutex (`_km` proves it held); `next` is
    // read before an entry is unlinked, and entries are freed after a grace
    // period, so readers never see freed memory.
    unsafe {
        let h = head();
        let mut l = (*h).next;
        while l != h {
            let next = (*l).next;
            let ent = entry_of(l);
            if (*ent).start_addr >= start && (*ent).start_addr < end {
                list::list_del_rcu(l);
                sys::kfree_rcu(ent.cast(), addr_of_mut!((*ent).rcu));
            }
            l = next;
        }
    }
}

#[cfg(CONFIG_MODULES)]
/// `kprobe_remove_ksym_blacklist()`.
fn remove_ksym_blacklist(km: &KprobeMutex, entry: usize) {
    remove_area_blacklist(km, entry, entry.wrapping_add(1));
}

#[cfg(CONFIG_MODULES)]
/// `add_module_kprobe_blacklist()`: a coming module's blacklist.
pub fn add_module(_km: &KprobeMutex, m: &ModuleView<'_>) {
    let a = m.areas();
    // Best effort, as upstream: errors are ignored.
    for &e in a.ksyms {
        let _ = add_ksym_blacklist(e);
    }
    for (start, size) in [a.kprobes_text, a.noinstr_text] {
        if start != 0 {
            let _ = add_area_blacklist(start, start.wrapping_add(size));
        }
    }
}

#[cfg(CONFIG_MODULES)]
/// `remove_module_kprobe_blacklist()`: a going module's blacklist.
pub fn remove_module(km: &KprobeMutex, m: &ModuleView<'_>) {
    let a = m.areas();
    for &e in a.ksyms {
        remove_ksym_blacklist(km, e);
    }
    for (start, size) in [a.kprobes_text, a.noinstr_text] {
        if start != 0 {
            remove_area_blacklist(km, start, start.wrapping_add(size));
        }
    }
}

/// Empties the list and frees its entries (host tests start from scratch;
/// the previous test's entries would otherwise leak).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    // SAFETY: host tests are serialized (`sys::exclusive()`): no reader is
    // left; each entry came from `sys::kmalloc()` in `add_ksym_blacklist()`,
    // and `iter_safe` reads the next link before the body frees an entry.
    unsafe {
        for l in list::iter_safe(head()) {
            sys::kfree(entry_of(l).cast());
        }
        list::init_list_head(head());
    }
}
