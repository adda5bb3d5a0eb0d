// SPDX-License-Identifier: GPL-2.0

//! Instruction slots: executable pages cut into slots that hold the copied
//! (and single-stepped or boosted) instructions of kprobes, and the
//! detour buffers of optimized kprobes.  Port of the "insn slot" part of
//! `kernel/kprobes.c`.
//!
//! kprobe->ainsn.insn points to the copy of the instruction to be
//! single-stepped.  x86_64, POWER4 and above have no-exec support and
//! stepping on the instruction on a vmalloced/kmalloced/data page is a
//! recipe for disaster, hence the pages come from the cache's `alloc`
//! (`execmem_alloc(EXECMEM_KPROBES, ...)` for `kprobe_insn_slots`).
//!
//! Locking: the page list is RCU-protected (readers: [`is_insn_slot_addr`],
//! [`cache_get_kallsym`]); the slot arrays are protected by the cache's
//! mutex, as in C.

use crate::list;
use crate::locks;
use crate::sys;
use crate::types::{KprobeInsnCache, KprobeOpcode, ListHead};
use crate::ffi::{c_char, c_int, c_uint, c_ulong};
use core::mem::{offset_of, size_of};
use core::ptr;

/// `struct kprobe_insn_page`: one executable page and the state of its
/// slots.  Private to the core, as in C.
#[repr(C)]
pub struct KprobeInsnPage {
    /// Entry in the cache's `pages`.
    pub list: ListHead,
    /// Page of instruction slots.
    pub insns: *mut KprobeOpcode,
    /// Owning cache.
    pub cache: *mut KprobeInsnCache,
    /// Slots in use (USED or DIRTY).
    pub nused: c_int,
    /// Dirty slots on this page.
    pub ngarbage: c_int,
    /// `char slot_used[]`: one [`SlotState`] per slot.
    pub slot_used: [u8; 0],
}

/// State of one slot (`enum kprobe_slot_state`).
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SlotState {
    /// Free.
    Clean = 0,
    /// Freed but possibly still executed by an interrupted task: reusable
    /// only after an RCU grace period.
    Dirty = 1,
    /// Allocated.
    Used = 2,
}

/// `KPROBE_INSN_PAGE_SIZE(slots)`.
const fn insn_page_size(slots: usize) -> usize {
    offset_of!(KprobeInsnPage, slot_used) + slots
}

/// `slots_per_page()`.
///
/// # Safety
/// `c` is a live cache.
unsafe fn slots_per_page(c: *const KprobeInsnCache) -> usize {
    // SAFETY: caller guarantees `c` is live.
    let insn_size = unsafe { (*c).insn_size };
    sys::PAGE_SIZE / (insn_size * size_of::<KprobeOpcode>())
}

/// The page containing list entry `l`.
fn kip_of(l: *mut ListHead) -> *mut KprobeInsnPage {
    crate::container_of!(l, KprobeInsnPage, list)
}

/// Pointer to slot state `i` of `kip`.
///
/// # Safety
/// `kip` is live and `i < slots_per_page(kip->cache)`.
unsafe fn slot(kip: *mut KprobeInsnPage, i: usize) -> *mut u8 {
    // SAFETY: the flexible array has slots_per_page entries (allocation
    // size from `insn_page_size`), `i` is in range.
    unsafe { ptr::addr_of_mut!((*kip).slot_used).cast::<u8>().add(i) }
}

/// `__get_insn_slot()`: finds a slot on an executable page for an
/// instruction, allocating a new page if there is no room on existing ones.
/// Returns null if no memory.
///
/// # Safety
/// `c` is a live, initialized cache; may sleep.
pub unsafe fn get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
    // SAFETY: throughout, `c` is live (caller) and its mutex serializes
    // every writer of the page list and of the slot arrays; readers of the
    // list are RCU, pages are freed only after a grace period.
    unsafe {
        let spp = slots_per_page(c);
        let mut found: *mut KprobeOpcode = ptr::null_mut();

        // Since the slot array is not protected by rcu, we need a mutex.
        let _m = locks::mutex(ptr::addr_of_mut!((*c).mutex));
        'retry: loop {
            {
                let _rcu = locks::rcu_read();
                for l in list::iter_rcu(ptr::addr_of_mut!((*c).pages)) {
                    let kip = kip_of(l);
                    if ((*kip).nused as usize) < spp {
                        for i in 0..spp {
                            if *slot(kip, i) == SlotState::Clean as u8 {
                                *slot(kip, i) = SlotState::Used as u8;
                                (*kip).nused += 1;
                                found = (*kip).insns.add(i * (*c).insn_size);
                                break 'retry;
                            }
                        }
                        // kip->nused is broken. Fix it.
                        (*kip).nused = spp as c_int;
                        sys::warn();
                    }
                }
            }

            // If there are any garbage slots, collect it and try again.
            if (*c).nr_garbage != 0 && collect_garbage_slots(c) == 0 {
                continue 'retry;
            }

            // All out of space.  Need to allocate a new page.
            let kip = sys::kmalloc(insn_page_size(spp)) as *mut KprobeInsnPage;
            if kip.is_null() {
                break 'retry;
            }
            let insns = match (*c).alloc {
                Some(alloc) => alloc() as *mut KprobeOpcode,
                None => ptr::null_mut(),
            };
            if insns.is_null() {
                sys::kfree(kip.cast());
                break 'retry;
            }
            (*kip).insns = insns;
            list::init_list_head(ptr::addr_of_mut!((*kip).list));
            ptr::write_bytes(slot(kip, 0), SlotState::Clean as u8, spp);
            *slot(kip, 0) = SlotState::Used as u8;
            (*kip).nused = 1;
            (*kip).ngarbage = 0;
            (*kip).cache = c;
            list::list_add_rcu(ptr::addr_of_mut!((*kip).list), ptr::addr_of_mut!((*c).pages));
            found = insns;

            // Record the perf ksymbol register event after adding the page.
            sys::perf_event_ksymbol(
                sys::PERF_RECORD_KSYMBOL_TYPE_OOL,
                insns as u64,
                sys::PAGE_SIZE as u32,
                false,
                (*c).sym,
            );
            break 'retry;
        }
        found
    }
}

/// `collect_one_slot()`: frees slot `idx`.  Returns true if the page has no
/// slot in use any more (then all its garbage is collected).
///
/// # Safety
/// Called with `kip->cache->mutex` held, outside RCU read-side sections.
unsafe fn collect_one_slot(kip: *mut KprobeInsnPage, idx: usize) -> bool {
    // SAFETY: caller holds the cache mutex; `kip` is on the cache's list.
    unsafe {
        *slot(kip, idx) = SlotState::Clean as u8;
        (*kip).nused -= 1;
        if (*kip).nused != 0 {
            return false;
        }
        // Page is no longer in use.  Free it unless it's the last one.  We
        // keep the last one so as not to have to set it up again the next
        // time somebody inserts a probe.
        if !list::list_is_singular(ptr::addr_of_mut!((*kip).list)) {
            let cache = (*kip).cache;
            // Record perf ksymbol unregister event before removing the page.
            sys::perf_event_ksymbol(
                sys::PERF_RECORD_KSYMBOL_TYPE_OOL,
                (*kip).insns as u64,
                sys::PAGE_SIZE as u32,
                true,
                (*cache).sym,
            );
            list::list_del_rcu(ptr::addr_of_mut!((*kip).list));
            // Upstream: synchronize_rcu(); expedited gives the same
            // guarantee (see unregister_kprobes()).
            sys::synchronize_rcu_expedited();
            if let Some(free) = (*cache).free {
                free((*kip).insns.cast());
            }
            sys::kfree(kip.cast());
        }
        true
    }
}

/// `collect_garbage_slots()`: frees every dirty slot after a grace period.
///
/// # Safety
/// Called with `c->mutex` held, outside RCU read-side sections.
unsafe fn collect_garbage_slots(c: *mut KprobeInsnCache) -> c_int {
    // SAFETY: caller holds the mutex, so the list is stable for us (the
    // _safe iteration: `next` is read before the entry may be freed).
    unsafe {
        let spp = slots_per_page(c);
        // Ensure no-one is interrupted on the garbages.  Upstream:
        // synchronize_rcu(); expedited gives the same guarantee and this runs
        // every ~26 freed optimized probes (see unregister_kprobes()).
        sys::synchronize_rcu_expedited();

        let head = ptr::addr_of_mut!((*c).pages);
        let mut l = (*head).next;
        while l != head {
            let next = (*l).next;
            let kip = kip_of(l);
            if (*kip).ngarbage != 0 {
                (*kip).ngarbage = 0; // we will collect all garbages
                for i in 0..spp {
                    if *slot(kip, i) == SlotState::Dirty as u8 && collect_one_slot(kip, i) {
                        break;
                    }
                }
            }
            l = next;
        }
        (*c).nr_garbage = 0;
        0
    }
}

/// `__free_insn_slot()`: returns `slot` to the cache.  A `dirty` slot may
/// still be executed by an interrupted task and is only reused after a
/// grace period.
///
/// # Safety
/// `c` is a live cache; may sleep.
pub unsafe fn free_insn_slot(c: *mut KprobeInsnCache, slot_addr: *mut KprobeOpcode, dirty: bool) {
    // SAFETY: `c` is live (caller); the mutex serializes slot state.
    unsafe {
        let spp = slots_per_page(c);
        let unit = ((*c).insn_size * size_of::<KprobeOpcode>()) as isize;
        let mut hit: Option<(*mut KprobeInsnPage, usize)> = None;

        let _m = locks::mutex(ptr::addr_of_mut!((*c).mutex));
        {
            let _rcu = locks::rcu_read();
            for l in list::iter_rcu(ptr::addr_of_mut!((*c).pages)) {
                let kip = kip_of(l);
                let idx = (slot_addr as isize).wrapping_sub((*kip).insns as isize) / unit;
                if idx >= 0 && (idx as usize) < spp {
                    hit = Some((kip, idx as usize));
                    break;
                }
            }
            // Could not find this slot.
            if hit.is_none() {
                sys::warn();
            }
        }
        // Mark and sweep: this may sleep.
        if let Some((kip, idx)) = hit {
            // Check double free.
            if *slot(kip, idx) != SlotState::Used as u8 {
                sys::warn();
            }
            if dirty {
                *slot(kip, idx) = SlotState::Dirty as u8;
                (*kip).ngarbage += 1;
                (*c).nr_garbage += 1;
                if (*c).nr_garbage as usize > spp {
                    collect_garbage_slots(c);
                }
            } else {
                collect_one_slot(kip, idx);
            }
        }
    }
}

/// `__is_insn_slot_addr()`: is `addr` on a page of this cache?  Sleep-less;
/// used to tell whether an address on a stack is text.
///
/// # Safety
/// `c` is a live cache.
pub unsafe fn is_insn_slot_addr(c: *mut KprobeInsnCache, addr: usize) -> bool {
    let mut ret = false;
    let _rcu = locks::rcu_read();
    // SAFETY: RCU read side; pages are freed only after a grace period.
    for l in unsafe { list::iter_rcu(ptr::addr_of_mut!((*c).pages)) } {
        // SAFETY: `l` is an entry of the list, live in this section.
        let insns = unsafe { (*kip_of(l)).insns } as usize;
        if addr >= insns && addr < insns.wrapping_add(sys::PAGE_SIZE) {
            ret = true;
            break;
        }
    }
    ret
}

/// `kprobe_cache_get_kallsym()`: the `*symnum`-th page of the cache as a
/// kallsyms entry; decrements `*symnum` for each page skipped.  Returns 0,
/// or `-ERANGE` when `*symnum` is past the last page.
///
/// # Safety
/// `c` is a live cache; the out pointers are valid, `sym` for
/// `KSYM_NAME_LEN` bytes.
pub unsafe fn cache_get_kallsym(
    c: *mut KprobeInsnCache,
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    let mut ret = -sys::ERANGE;
    let _rcu = locks::rcu_read();
    // SAFETY: RCU read side for the list; out pointers valid (caller).
    unsafe {
        for l in list::iter_rcu(ptr::addr_of_mut!((*c).pages)) {
            let n = *symnum;
            *symnum = n.wrapping_sub(1);
            if n != 0 {
                continue;
            }
            strscpy(sym, (*c).sym, sys::KSYM_NAME_LEN);
            *type_ = b't' as c_char;
            *value = (*kip_of(l)).insns as c_ulong;
            ret = 0;
            break;
        }
    }
    ret
}

/// `strscpy()` without the return value: copies at most `size - 1` bytes of
/// `src` and NUL-terminates.
///
/// # Safety
/// `dst` is valid for `size` bytes, `src` is NUL-terminated, `size > 0`.
unsafe fn strscpy(dst: *mut c_char, src: *const c_char, size: usize) {
    let mut i = 0;
    // SAFETY: reads stop at src's NUL, writes stay below `size`.
    unsafe {
        while i + 1 < size {
            let ch = *src.add(i);
            if ch == 0 {
                break;
            }
            *dst.add(i) = ch;
            i += 1;
        }
        *dst.add(i) = 0;
    }
}

/// `kprobe_get_kallsym()`: the `symnum`-th kallsyms entry the core adds:
/// the pages of `kprobe_insn_slots`, then of `kprobe_optinsn_slots`, then
/// the arch's.  Returns 0, or `-ERANGE` past the last.
///
/// # Safety
/// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
pub unsafe fn kprobe_get_kallsym(mut symnum: c_uint, value: *mut c_ulong, type_: *mut c_char, sym: *mut c_char) -> c_int {
    // SAFETY: the caches are the kernel's globals; out pointers valid
    // (caller).
    unsafe {
        if cache_get_kallsym(sys::insn_slots(), &mut symnum, value, type_, sym) == 0 {
            return 0;
        }
        #[cfg(any(CONFIG_OPTPROBES, not(CONFIG_RUST)))]
        if cache_get_kallsym(sys::optinsn_slots(), &mut symnum, value, type_, sym) == 0 {
            return 0;
        }
        if sys::arch_kprobe_get_kallsym(&mut symnum, value, type_, sym) == 0 {
            return 0;
        }
    }
    -sys::ERANGE
}
