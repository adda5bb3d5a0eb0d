// SPDX-License-Identifier: GPL-2.0

//! objpool's ring operations: `objpool_pop()` and `objpool_push()`, the
//! static inlines of `include/linux/objpool.h` that C inlines into the
//! kretprobe handlers (kretprobes without rethook, `kretprobe_objpool.rs`:
//! every hit pops an instance and every return pushes it back).  Ported so
//! that the handlers make no call for them, as upstream's make none; the
//! pool's set-up and release stay objpool's (`objpool_init()`,
//! `objpool_fini()`, `objpool_drop()`).
//!
//! A pool has a ring per possible CPU (`cpu_slots[cpu]`): a power-of-two
//! array of object pointers and three 32-bit counters, `tail` (entries
//! reserved by pushes), `last` (entries written) and `head` (entries
//! taken).  A push reserves `tail` with an acquire cmpxchg, writes the
//! entry and publishes it with a release store of `last`; a pop reads
//! `head` with acquire and takes the entry with a release cmpxchg of
//! `head`.  Both run with local interrupts masked, a push on this CPU's
//! ring, a pop on this CPU's first, then on the others'.  The counters,
//! orders and checks are objpool's, line by line.

use crate::ffi::{c_int, c_void};
use crate::sys::{self, ObjpoolHead, ObjpoolSlot};
use core::marker::PhantomData;
use core::ptr::{self, addr_of, addr_of_mut};
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// An initialized pool.
///
/// # Invariants
/// `head` points to an `objpool_head` that `objpool_init()` set up and
/// that stays allocated, with its rings, for `'a`: its `cpu_slots`, the
/// rings' `mask` and the pool's `nr_objs` and `nr_possible_cpus` are not
/// written meanwhile.
pub struct Pool<'a> {
    head: *mut ObjpoolHead,
    _pool: PhantomData<&'a ObjpoolHead>,
}

/// One CPU's ring of a [`Pool`].
///
/// # Invariants
/// `slot` is a ring of a pool that is live for `'a` (as [`Pool`]'s); its
/// counters are 32-bit aligned words (offsets 0 to 12 of the `__packed`
/// struct, which `objpool_init()` allocates with `kmalloc()` or
/// `vmalloc()`), its entries pointer-aligned (offset 16).
struct Ring<'a> {
    slot: *mut ObjpoolSlot,
    _pool: PhantomData<&'a ObjpoolHead>,
}

impl<'a> Ring<'a> {
    #[inline(always)]
    fn head(&self) -> &'a AtomicU32 {
        // SAFETY: an aligned `u32` of a live ring (the type's invariants),
        // which other CPUs change only atomically (objpool's cmpxchg).
        unsafe { AtomicU32::from_ptr(addr_of_mut!((*self.slot).head)) }
    }

    #[inline(always)]
    fn tail(&self) -> &'a AtomicU32 {
        // SAFETY: as `head()`.
        unsafe { AtomicU32::from_ptr(addr_of_mut!((*self.slot).tail)) }
    }

    #[inline(always)]
    fn last(&self) -> &'a AtomicU32 {
        // SAFETY: as `head()` (written by `smp_store_release()` only).
        unsafe { AtomicU32::from_ptr(addr_of_mut!((*self.slot).last)) }
    }

    /// The entry for counter value `n` (`entries[n & mask]`).
    #[inline(always)]
    fn entry(&self, n: u32) -> &'a AtomicPtr<c_void> {
        // SAFETY: a live ring (the type's invariants): `mask` is an aligned,
        // constant word; `mask + 1` aligned entries follow the counters, so
        // `n & mask` is in bounds; they are written with `WRITE_ONCE()`.
        unsafe {
            let mask = addr_of!((*self.slot).mask).read();
            let entries = addr_of_mut!((*self.slot).entries).cast::<*mut c_void>();
            AtomicPtr::from_ptr(entries.add((n & mask) as usize))
        }
    }
}

impl<'a> Pool<'a> {
    /// The pool at `head`.
    ///
    /// # Safety
    /// `head` was set up by `objpool_init()` and stays allocated for `'a`
    /// (a registered kretprobe's, or one of its objects is outstanding).
    #[inline(always)]
    pub unsafe fn from_raw(head: *mut ObjpoolHead) -> Self {
        // INVARIANT: this function's `# Safety`.
        Self {
            head,
            _pool: PhantomData,
        }
    }

    /// `pool->nr_objs`.
    #[inline(always)]
    fn nr_objs(&self) -> u32 {
        // SAFETY: a field of the live pool that is not written after
        // `objpool_init()` (the type's invariants).
        unsafe { addr_of!((*self.head).nr_objs).read() as u32 }
    }

    /// `pool->cpu_slots[cpu]`.
    ///
    /// # Safety
    /// `cpu` is a possible CPU (below `nr_cpu_ids`, the length of
    /// `cpu_slots`).
    #[inline(always)]
    unsafe fn ring(&self, cpu: c_int) -> Ring<'a> {
        // SAFETY: `cpu_slots` has an entry per CPU id below `nr_cpu_ids` and
        // is not written after `objpool_init()` (the type's invariants);
        // `cpu` is one (this function's `# Safety`).
        let slot = unsafe { (*self.head).cpu_slots.add(cpu as usize).read() };
        // INVARIANT: a ring of the live pool, allocated by `objpool_init()`.
        Ring {
            slot,
            _pool: PhantomData,
        }
    }

    /// `__objpool_try_get_slot()`: an object of `ring`, or null if it has
    /// none.
    #[inline(always)]
    fn try_get(&self, ring: &Ring<'a>) -> *mut c_void {
        // Load the head snapshot; other CPUs may change it.
        let mut head = ring.head().load(Ordering::Acquire);
        while head != ring.last().load(Ordering::Relaxed) {
            // `last` and `head` are written independently: take an entry only
            // if one is there, `last - head - 1 < nr_objs` (u32 arithmetic).
            if ring
                .last()
                .load(Ordering::Relaxed)
                .wrapping_sub(head)
                .wrapping_sub(1)
                >= self.nr_objs()
            {
                head = ring.head().load(Ordering::Relaxed);
                continue;
            }
            // The object is read before `head` moves past it.
            let obj = ring.entry(head).load(Ordering::Relaxed);
            match ring.head().compare_exchange(
                head,
                head.wrapping_add(1),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return obj,
                Err(now) => head = now,
            }
        }
        ptr::null_mut()
    }

    /// `objpool_pop()`: an object, from this CPU's ring first, then from
    /// the other possible CPUs' in turn; null if every ring is empty.
    #[inline(always)]
    pub fn pop(&self) -> *mut c_void {
        let _irq = sys::RawIrqOff::new();
        let mut cpu = sys::raw_smp_processor_id();
        // SAFETY: a field of the live pool, not written after `objpool_init()`
        // (the type's invariants).
        let n = unsafe { addr_of!((*self.head).nr_possible_cpus).read() };
        for _ in 0..n {
            // SAFETY: `cpu` is this CPU's id, then what `cpumask_next_wrap()`
            // returns over `cpu_possible_mask`: possible CPUs.
            let ring = unsafe { self.ring(cpu) };
            let obj = self.try_get(&ring);
            if !obj.is_null() {
                return obj;
            }
            cpu = sys::next_possible_cpu_wrap(cpu);
        }
        ptr::null_mut()
    }

    /// `objpool_push()` (whose result is always 0): `obj` back on this
    /// CPU's ring.
    ///
    /// # Safety
    /// `obj` is an object of this pool, taken by [`Pool::pop`] (or handed
    /// out by `objpool_init()`) and not in a ring.
    #[inline(always)]
    pub unsafe fn push(&self, obj: *mut c_void) {
        let _irq = sys::RawIrqOff::new();
        // SAFETY: this CPU's id, a possible CPU; interrupts are masked, so
        // the task stays on it.
        let ring = unsafe { self.ring(sys::raw_smp_processor_id()) };
        // Tail and head as a local snapshot, tail first.
        let mut tail = ring.tail().load(Ordering::Relaxed);
        let mut overfull = false;
        loop {
            let head = ring.head().load(Ordering::Relaxed);
            // More objects in the ring than the pool has: a bug somewhere
            // (warned once below, after the loop rather than in it, so that
            // the warning's constants do not take registers in the loop).
            overfull |= tail.wrapping_sub(head) > self.nr_objs();
            match ring.tail().compare_exchange(
                tail,
                tail.wrapping_add(1),
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => tail = now,
            }
        }
        // The entry at `tail` is reserved for `obj`; `last` makes it
        // available to pops.
        ring.entry(tail).store(obj, Ordering::Relaxed);
        ring.last().store(tail.wrapping_add(1), Ordering::Release);
        if overfull {
            crate::warn_once!();
        }
    }
}
