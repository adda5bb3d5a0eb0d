// SPDX-License-Identifier: GPL-2.0

//! Safe views of the `struct kprobe`s the core works on.
//!
//! A `struct kprobe` belongs to the module or subsystem that registered it
//! (or, for an aggregate, to the core), and other CPUs read and write parts
//! of it while the core runs: handlers read `flags`, `pre_handler`,
//! `post_handler` and the child lists, and count `nmissed`; the optimizer
//! and the module notifier change `flags`.  So, as `Opaque<T>` does in
//! `rust/kernel`, no `&Kprobe` is ever formed: a view holds the pointer and
//! reads or writes one field at a time through it (`flags` and the fields
//! handlers read with volatile accesses, see `once.rs`).
//!
//! Raw pointers become views at the edge ([`Probe::from_raw`] in the C ABI
//! functions, the hash table walks of `registry.rs`, the child list walks
//! here); the logic modules take views and are safe code.  A view proves
//! what its type says (live, an aggregate, hashed); the protocol facts no
//! type carries (which lock is held, whether a probe is armed) are the lock
//! tokens of `locks.rs` and the checks upstream makes.

use crate::ffi::{c_char, c_int, c_uint, c_ulong};
use crate::flags;
use crate::list;
use crate::locks::KprobeMutex;
use crate::sys;
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
use crate::types::Jprobe;
#[cfg(CONFIG_OPTPROBES)]
use crate::types::OptimizedKprobe;
use crate::types::{
    HlistNode, Kprobe, KprobeOpcode, KprobePostHandler, KprobePreHandler, Kretprobe, ListHead,
    PreemptOff, PtRegs,
};
use core::ffi::CStr;
use core::marker::PhantomData;
use core::ptr::{addr_of, addr_of_mut, NonNull};

/// A live `struct kprobe`.
///
/// # Invariants
/// `ptr` points to an initialized `struct kprobe` that stays allocated for
/// `'a`: a probe its owner registered or is registering (the kprobes API:
/// it stays valid until unregistration returns), or an aggregate the core
/// allocated (freed only once unhashed, after a grace period, by the
/// `unsafe` [`crate::opt::free_aggr_kprobe`]).  Its `symbol_name` is null
/// or a NUL-terminated string that stays for `'a` (the API's, too).  Other
/// CPUs may read or write its fields concurrently, so no reference to it is
/// formed.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Probe<'a> {
    ptr: NonNull<Kprobe>,
    _life: PhantomData<&'a ()>,
}

impl<'a> Probe<'a> {
    /// The view of `p`.
    ///
    /// # Safety
    /// `p` is non-null and points to a `struct kprobe` that stays allocated
    /// and initialized for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(p: *mut Kprobe) -> Probe<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        Probe {
            // SAFETY: `p` is non-null (this function's `# Safety`).
            ptr: unsafe { NonNull::new_unchecked(p) },
            _life: PhantomData,
        }
    }

    /// The view of `p`, or `None` for a null `p`.
    ///
    /// # Safety
    /// A non-null `p` points to a `struct kprobe` that stays allocated and
    /// initialized for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw_opt(p: *mut Kprobe) -> Option<Probe<'a>> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        NonNull::new(p).map(|ptr| Probe {
            ptr,
            _life: PhantomData,
        })
    }

    /// The C pointer, for C and the arch code.
    #[inline(always)]
    pub fn as_ptr(self) -> *mut Kprobe {
        self.ptr.as_ptr()
    }

    /// `p->addr`: written by registration before the probe is published,
    /// and by a failed `unregister_kprobes()` on the owner's side.
    #[inline(always)]
    pub fn addr(self) -> *mut KprobeOpcode {
        // SAFETY: live (type invariant); one aligned load, not through a reference.
        unsafe { crate::once::read(addr_of!((*self.as_ptr()).addr)) }
    }

    /// `p->addr = a`: one store (registration resolves the address before
    /// it checks for a re-registration, and a failed unregistration clears
    /// it, both as upstream; lookups on other CPUs may read it meanwhile).
    #[inline(always)]
    #[allow(
        clippy::not_unsafe_ptr_arg_deref,
        reason = "`a` is stored as a value, never dereferenced"
    )]
    pub fn write_addr(self, a: *mut KprobeOpcode) {
        // SAFETY: live (type invariant); one aligned store, not through a reference.
        unsafe { crate::once::write(addr_of_mut!((*self.as_ptr()).addr), a) }
    }

    /// `p->symbol_name` (null or a C string, the owner's).
    #[inline(always)]
    pub fn symbol_name(self) -> *const c_char {
        // SAFETY: live (type invariant); read through the pointer.
        unsafe { (*self.as_ptr()).symbol_name }
    }

    /// `p->symbol_name` as a C string.
    #[inline(always)]
    pub fn symbol(self) -> Option<&'a CStr> {
        let s = self.symbol_name();
        // SAFETY: null or a C string that stays for `'a` (type invariant).
        (!s.is_null()).then(|| unsafe { crate::ctypes::cstr_from_ptr(s.cast()) })
    }

    /// `p->offset`.
    #[inline(always)]
    pub fn offset(self) -> c_uint {
        // SAFETY: live (type invariant); read through the pointer.
        unsafe { (*self.as_ptr()).offset }
    }

    /// `p->pre_handler` (an aggregate's is changed by no one).
    #[inline(always)]
    pub fn pre_handler(self) -> KprobePreHandler {
        // SAFETY: live (type invariant); read through the pointer.
        unsafe { (*self.as_ptr()).pre_handler }
    }

    /// Whether `p->pre_handler` is set.
    #[inline(always)]
    pub fn has_pre_handler(self) -> bool {
        self.pre_handler().is_some()
    }

    /// `p->pre_handler`, read again where a handler is called, as C's
    /// `p->pre_handler(p, regs)` reads it after testing it (the call reads
    /// its target from memory).
    ///
    /// # Safety
    /// [`Self::has_pre_handler`] was true: a registered probe's handlers are
    /// not written while it is registered (the kprobes API's rule for its
    /// callers; the core writes only an aggregate's `post_handler`).
    #[inline(always)]
    pub unsafe fn pre_handler_set(self) -> unsafe extern "C" fn(*mut Kprobe, *mut PtRegs) -> c_int {
        // SAFETY: set and not written since it was tested (this function's
        // `# Safety`).
        unsafe { self.pre_handler().unwrap_unchecked() }
    }

    /// Whether a child's `p->post_handler` is set (a child's is changed by
    /// no one).
    #[inline(always)]
    pub fn child_has_post_handler(self) -> bool {
        // SAFETY: live (type invariant); read through the pointer.
        unsafe { (*self.as_ptr()).post_handler.is_some() }
    }

    /// A child's `p->post_handler`, read again where it is called, as
    /// [`Self::pre_handler_set`].
    ///
    /// # Safety
    /// [`Self::child_has_post_handler`] was true, as for
    /// [`Self::pre_handler_set`].
    #[inline(always)]
    pub unsafe fn child_post_handler_set(
        self,
    ) -> unsafe extern "C" fn(*mut Kprobe, *mut PtRegs, c_ulong) {
        // SAFETY: live (type invariant); set and not written since it was
        // tested (this function's `# Safety`).
        unsafe { (*self.as_ptr()).post_handler.unwrap_unchecked() }
    }

    /// `p->post_handler` (an aggregate's changes under `kprobe_mutex` while
    /// handlers read it: one access).
    #[inline(always)]
    pub fn post_handler(self) -> KprobePostHandler {
        // SAFETY: live (type invariant); one aligned load, not through a reference.
        unsafe { crate::once::read(addr_of!((*self.as_ptr()).post_handler)) }
    }

    /// `p->post_handler = h`, an aggregate's, under `kprobe_mutex` while
    /// handlers may read it: one store.
    #[inline(always)]
    pub fn set_post_handler(self, _km: &KprobeMutex, h: KprobePostHandler) {
        // SAFETY: live (type invariant); `_km` makes us its only writer, and
        // readers see the old or the new handler.
        unsafe { crate::once::write(addr_of_mut!((*self.as_ptr()).post_handler), h) }
    }

    /// `p->flags`.
    #[inline(always)]
    pub fn flags(self) -> u32 {
        // SAFETY: live (type invariant), as `flags::get()` requires.
        unsafe { flags::get(self.as_ptr()) }
    }

    /// `p->flags = f`, as the flags' writer (`kprobe_mutex`).
    #[inline(always)]
    pub fn put_flags(self, _km: &KprobeMutex, f: u32) {
        // SAFETY: live (type invariant), and `_km` proves `kprobe_mutex` held,
        // which makes us the flags' only writer, as `flags::put()` requires.
        unsafe { flags::put(self.as_ptr(), f) }
    }

    /// `p->flags |= f`, as the flags' writer (`kprobe_mutex`).
    #[inline(always)]
    pub fn set_flags(self, km: &KprobeMutex, f: u32) {
        self.put_flags(km, self.flags() | f)
    }

    /// `p->flags &= ~f`, as the flags' writer (`kprobe_mutex`).
    #[inline(always)]
    pub fn clear_flags(self, km: &KprobeMutex, f: u32) {
        self.put_flags(km, self.flags() & !f)
    }

    /// `kprobe_disabled()`: disabled or gone.
    #[inline(always)]
    pub fn disabled(self) -> bool {
        self.flags() & (crate::types::KPROBE_FLAG_DISABLED | crate::types::KPROBE_FLAG_GONE) != 0
    }

    /// `kprobe_gone()`.
    #[inline(always)]
    pub fn gone(self) -> bool {
        self.flags() & crate::types::KPROBE_FLAG_GONE != 0
    }

    /// `kprobe_ftrace()`.
    #[inline(always)]
    pub fn ftrace(self) -> bool {
        self.flags() & crate::types::KPROBE_FLAG_FTRACE != 0
    }

    /// `kprobe_optimized()`.
    #[inline(always)]
    pub fn optimized(self) -> bool {
        self.flags() & crate::types::KPROBE_FLAG_OPTIMIZED != 0
    }

    /// Counts one missed hit on this probe (`p->nmissed++`, handlers on
    /// several CPUs: one read and one write, as upstream's).
    #[inline(always)]
    pub fn inc_nmissed(self) {
        // SAFETY: live (type invariant); single accesses through the pointer.
        unsafe {
            crate::once::update(addr_of_mut!((*self.as_ptr()).nmissed), |n: c_ulong| {
                n.wrapping_add(1)
            })
        }
    }

    /// `&p->list`: an aggregate's child list head, or a child's entry.
    #[inline(always)]
    pub fn list(self) -> *mut ListHead {
        // SAFETY: live (type invariant); only the field's address is computed.
        unsafe { addr_of_mut!((*self.as_ptr()).list) }
    }

    /// `&p->hlist`: its `kprobe_table` entry.
    #[inline(always)]
    pub fn hlist(self) -> *mut HlistNode {
        // SAFETY: live (type invariant); only the field's address is computed.
        unsafe { addr_of_mut!((*self.as_ptr()).hlist) }
    }

    /// `kprobe_aggrprobe()`: is this an aggregate?
    #[inline(always)]
    pub fn is_aggr(self) -> bool {
        self.pre_handler().map(|f| f as *const ()) == Some(aggr_pre_handler as *const ())
    }

    /// This probe as an aggregate, if it is one.
    #[inline(always)]
    pub fn aggr(self) -> Option<Aggr<'a>> {
        // INVARIANT: its `pre_handler` is `aggr_pre_handler`, which only the
        // core's aggregates (`alloc_aggr_kprobe()`) have.
        self.is_aggr().then_some(Aggr { p: self })
    }
}

/// A live aggregate probe: the `kp` of an `optimized_kprobe` the core
/// allocated (without `CONFIG_OPTPROBES`, a `struct kprobe` of its own),
/// whose `list` heads the RCU list of its children.
///
/// # Invariants
/// `p` is live (its own invariant) and, with `CONFIG_OPTPROBES`, embedded
/// as `kp` in a `struct optimized_kprobe` that `alloc_aggr_kprobe()`
/// allocated (without it, `alloc_aggr_kprobe()` allocated `p` itself).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Aggr<'a> {
    p: Probe<'a>,
}

impl<'a> Aggr<'a> {
    /// The aggregate `ap`, which the core just allocated.
    ///
    /// # Safety
    /// `ap` is the `kp` of a live `struct optimized_kprobe` that stays
    /// allocated for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(ap: *mut Kprobe) -> Aggr<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        Aggr {
            // SAFETY: `ap` is live for `'a` (this function's `# Safety`).
            p: unsafe { Probe::from_raw(ap) },
        }
    }

    /// The aggregate as a probe.
    #[inline(always)]
    pub fn probe(self) -> Probe<'a> {
        self.p
    }

    /// The C pointer.
    #[inline(always)]
    pub fn as_ptr(self) -> *mut Kprobe {
        self.p.as_ptr()
    }

    /// The `optimized_kprobe` this aggregate is the `kp` of.
    #[cfg(CONFIG_OPTPROBES)]
    #[inline(always)]
    pub fn op(self) -> *mut OptimizedKprobe {
        crate::container_of!(self.as_ptr(), OptimizedKprobe, kp)
    }

    /// `&op->list`: its entry on the optimizer's staging lists.
    #[cfg(CONFIG_OPTPROBES)]
    #[inline(always)]
    pub fn op_list(self) -> *mut ListHead {
        // SAFETY: embedded in a live `optimized_kprobe` (type invariant); only
        // the field's address is computed.
        unsafe { addr_of_mut!((*self.op()).list) }
    }

    /// Calls `f` on each child in order until it returns false
    /// (`list_for_each_entry_rcu`); the children are live while `km` holds
    /// `kprobe_mutex`, which no child leaves without.
    #[inline(always)]
    pub fn for_each_child<'k>(self, _km: &'k KprobeMutex, f: impl FnMut(Probe<'k>) -> bool) {
        // SAFETY: `_km` proves `kprobe_mutex` held: the child list is stable and
        // each child registered (live) while it lasts.
        unsafe { self.walk(f) }
    }

    /// As [`Aggr::for_each_child`], from handler context.
    ///
    /// # Safety
    /// The caller is an RCU reader (a handler, with preemption disabled) for
    /// `'r`: a child unlinked meanwhile stays allocated until it returns.
    #[inline(always)]
    pub unsafe fn for_each_child_rcu<'r>(self, f: impl FnMut(Probe<'r>) -> bool) {
        // SAFETY: the caller is an RCU reader (this function's `# Safety`).
        unsafe { self.walk(f) }
    }

    /// The walk of both.
    ///
    /// # Safety
    /// `kprobe_mutex` held or an RCU read side for `'r`.
    #[inline(always)]
    unsafe fn walk<'r>(self, mut f: impl FnMut(Probe<'r>) -> bool) {
        let head = self.p.list();
        // SAFETY: the caller's lock or read side keeps the links and the
        // children valid (this function's `# Safety`); `list` entries of an
        // aggregate are the `list` members of live probes.
        unsafe {
            let mut l = list::next_rcu(head);
            while l != head {
                if !f(Probe::from_raw(crate::container_of!(l, Kprobe, list))) {
                    return;
                }
                l = list::next_rcu(l);
            }
        }
    }
}

// The handler dispatch of an aggregate.  These run in breakpoint, ftrace
// or optprobe handler context: they are on the kprobe blacklist, cannot
// panic, allocate or sleep, and walk the child lists as RCU readers (their
// callers disable preemption).

/// The pre-handler dispatch of [`aggr_pre_handler`] and, with
/// `CONFIG_OPTPROBES`, `opt_pre_handler()`: runs the pre-handlers of
/// aggregate `p`'s enabled children in order; with `stop`, stops and
/// returns 1 at the first that returns non-zero (the optprobe's dispatch
/// runs every one and returns 0).
///
/// # Safety
/// Handler context (preemption disabled, an RCU read side); `p` is a live
/// aggregate.
#[inline(always)]
unsafe fn run_pre_handlers(p: *mut Kprobe, regs: *mut PtRegs, stop: bool) -> c_int {
    let mut ret = 0;
    // SAFETY: handler context (this function's `# Safety`): preemption is
    // disabled.
    let po = unsafe { PreemptOff::assume() };
    let run = |kp: Probe<'_>| {
        if kp.has_pre_handler() && !kp.disabled() {
            sys::set_kprobe_instance(po, kp.as_ptr());
            // SAFETY: tested just above; the enabled child's own pre-handler,
            // called with the child and the trap's `regs` in handler context.
            if unsafe { kp.pre_handler_set()(kp.as_ptr(), regs) } != 0 && stop {
                ret = 1;
                return false;
            }
        }
        sys::reset_kprobe_instance(po);
        true
    };
    // SAFETY: `p` is a live aggregate and we run in handler context, an RCU
    // read side (this function's `# Safety`), as the walk of its children needs.
    unsafe { Aggr::from_raw(p).for_each_child_rcu(run) };
    ret
}

/// `aggr_pre_handler()`: runs the pre-handlers of the enabled children in
/// order; stops and returns 1 at the first that returns non-zero.
///
/// # Safety
/// Handler context; `p` is a live aggregate.
#[no_mangle]
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn aggr_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    // SAFETY: handler context and a live aggregate `p` (this function's
    // `# Safety`).
    unsafe { run_pre_handlers(p, regs, true) }
}
crate::nokprobe_symbol!(aggr_pre_handler);

/// `aggr_post_handler()`: runs the post-handlers of the enabled children.
///
/// # Safety
/// Handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn aggr_post_handler(p: *mut Kprobe, regs: *mut PtRegs, flags: c_ulong) {
    // SAFETY: handler context (this function's `# Safety`): preemption is
    // disabled.
    let po = unsafe { PreemptOff::assume() };
    // SAFETY: `p` is a live aggregate and we run in handler context, an RCU read
    // side (this function's `# Safety`); each enabled child's own `post_handler`
    // gets the child, `regs` and `flags`.
    unsafe {
        Aggr::from_raw(p).for_each_child_rcu(|kp| {
            if kp.child_has_post_handler() && !kp.disabled() {
                sys::set_kprobe_instance(po, kp.as_ptr());
                kp.child_post_handler_set()(kp.as_ptr(), regs, flags);
                sys::reset_kprobe_instance(po);
            }
            true
        });
    }
}
crate::nokprobe_symbol!(aggr_post_handler);

/// `opt_pre_handler()`: the pre-handler dispatch of an optimized probe: like
/// [`aggr_pre_handler`] but every enabled child runs, whatever it returns.
///
/// # Safety
/// Optprobe handler context; `p` is a live aggregate.
#[cfg(CONFIG_OPTPROBES)]
#[no_mangle]
pub unsafe extern "C" fn opt_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) {
    // SAFETY: optprobe handler context and a live aggregate `p` (this
    // function's `# Safety`).
    unsafe { run_pre_handlers(p, regs, false) };
}
#[cfg(CONFIG_OPTPROBES)]
crate::nokprobe_symbol!(opt_pre_handler);

/// A probe the address lookup of `kprobe_table` finds (`get_kprobe()`):
/// registered, or an aggregate.
///
/// # Invariants
/// `p` is live (its own invariant), was in `kprobe_table` when the view
/// was made, under the `kprobe_mutex` hold `'a` borrows, and was prepared
/// for arming before it was hashed (`arch_prepare_kprobe()`, its ftrace or
/// aggregate variants): arming and disarming it patch only its own address
/// with its own saved instruction.  (A probe unhashed later in the same
/// hold stays allocated until the hold ends: aggregates are freed after a
/// grace period, owners' probes after unregistration returns.)
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Hashed<'a> {
    p: Probe<'a>,
}

impl<'a> Hashed<'a> {
    /// The view of a probe found in, or just added to, `kprobe_table`.
    ///
    /// # Safety
    /// `p` is in `kprobe_table` (or is being added by the caller, prepared)
    /// and `kprobe_mutex` is held for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(p: *mut Kprobe) -> Hashed<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        Hashed {
            // SAFETY: a hashed probe is live while `kprobe_mutex` is held.
            p: unsafe { Probe::from_raw(p) },
        }
    }

    /// The probe.
    #[inline(always)]
    pub fn probe(self) -> Probe<'a> {
        self.p
    }

    /// This probe as an aggregate, if it is one.
    #[inline(always)]
    pub fn aggr(self) -> Option<Aggr<'a>> {
        self.p.aggr()
    }

    /// Whether `c` is on this probe's `list`: one of its children if it is
    /// an aggregate (a hashed probe that is not has an empty list, set by
    /// its registration), the walk of upstream's `__get_valid_kprobe()`.
    #[inline(always)]
    pub fn has_child(self, _km: &KprobeMutex, c: Probe<'_>) -> bool {
        let head = self.p.list();
        // SAFETY: `_km` proves `kprobe_mutex` held: the list is stable, its
        // entries the `list` members of live children, and a hashed probe's
        // list is initialized (`NewProbe::reset()`); only addresses are
        // compared.
        unsafe {
            let mut l = list::next_rcu(head);
            while l != head {
                if crate::container_of!(l, Kprobe, list) == c.as_ptr() {
                    return true;
                }
                l = list::next_rcu(l);
            }
        }
        false
    }
}

impl<'a> core::ops::Deref for Hashed<'a> {
    type Target = Probe<'a>;
    #[inline(always)]
    fn deref(&self) -> &Probe<'a> {
        &self.p
    }
}

/// A view made from a non-null C pointer (for [`Array`]).
pub trait View<'a>: Copy {
    /// The C struct.
    type Raw;
    /// The view of `p`.
    ///
    /// # Safety
    /// `p` is non-null and meets the view's invariants for `'a`.
    unsafe fn from_ptr(p: *mut Self::Raw) -> Self;
}

impl<'a> View<'a> for Probe<'a> {
    type Raw = Kprobe;
    /// # Safety
    /// As for [`Probe::from_raw`].
    #[inline(always)]
    unsafe fn from_ptr(p: *mut Kprobe) -> Probe<'a> {
        // SAFETY: the trait's contract is `from_raw()`'s.
        unsafe { Probe::from_raw(p) }
    }
}

/// An array `struct kprobe **kps` (or of kretprobes) of
/// `register_kprobes()` and friends.
///
/// # Invariants
/// `ptrs` points to `n` readable pointers, each null or meeting `V`'s
/// invariants for `'a`.
pub struct Array<'a, V: View<'a>> {
    ptrs: *mut *mut V::Raw,
    n: usize,
    _life: PhantomData<(&'a (), V)>,
}

impl<'a, V: View<'a>> Clone for Array<'a, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<'a, V: View<'a>> Copy for Array<'a, V> {}

/// `struct kprobe **kps`.
pub type ProbeArray<'a> = Array<'a, Probe<'a>>;

impl<'a, V: View<'a>> Array<'a, V> {
    /// The view of `ptrs[0..n]`.
    ///
    /// # Safety
    /// When `n > 0`, `ptrs` points to `n` readable pointers, each null or
    /// meeting `V`'s invariants for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(ptrs: *mut *mut V::Raw, n: usize) -> Self {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        Array {
            ptrs,
            n,
            _life: PhantomData,
        }
    }

    /// The view of the C array `ptrs[0..num]` of `register_kprobes()` and
    /// its twins: a negative `num` is an empty array, as upstream's loops
    /// take it.
    ///
    /// # Safety
    /// As for [`Array::from_raw`], with `num` for `n` when it is positive.
    #[inline(always)]
    pub unsafe fn from_c(ptrs: *mut *mut V::Raw, num: c_int) -> Self {
        // SAFETY: `num.max(0)` pointers as the caller guarantees (this
        // function's `# Safety`).
        unsafe { Self::from_raw(ptrs, num.max(0) as usize) }
    }

    /// The number of entries.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.n
    }

    /// Whether there are none.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.n == 0
    }

    /// The first `n` entries.
    #[inline(always)]
    pub fn prefix(self, n: usize) -> Self {
        // INVARIANT: a prefix of the type invariant's pointers.
        Array {
            ptrs: self.ptrs,
            n: n.min(self.n),
            _life: PhantomData,
        }
    }

    /// Entry `i` (`None` for a null entry or out of range).
    #[inline(always)]
    pub fn get(self, i: usize) -> Option<V> {
        if i >= self.n {
            return None;
        }
        // SAFETY: `i < n`, so the pointer is readable, and when non-null it meets
        // `V`'s invariants (type invariant).
        unsafe {
            let p = *self.ptrs.add(i);
            (!p.is_null()).then(|| V::from_ptr(p))
        }
    }

    /// The entries in order.
    pub fn iter(self) -> impl Iterator<Item = Option<V>> + use<'a, V> {
        (0..self.n).map(move |i| self.get(i))
    }
}

/// A caller's `struct kretprobe`.
///
/// # Invariants
/// `rp` points to a `struct kretprobe` that stays allocated for `'a`, whose
/// `kp` meets [`Probe`]'s invariants; until it is registered, no other CPU
/// reads or writes it.
#[derive(Clone, Copy)]
pub struct RetProbe<'a> {
    rp: NonNull<Kretprobe>,
    _life: PhantomData<&'a ()>,
}

impl<'a> RetProbe<'a> {
    /// The view of `rp`.
    ///
    /// # Safety
    /// `rp` is non-null and meets the invariants above for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(rp: *mut Kretprobe) -> RetProbe<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        RetProbe {
            // SAFETY: non-null (this function's `# Safety`).
            rp: unsafe { NonNull::new_unchecked(rp) },
            _life: PhantomData,
        }
    }

    /// The C pointer.
    #[inline(always)]
    pub fn as_ptr(self) -> *mut Kretprobe {
        self.rp.as_ptr()
    }

    /// Its entry probe.
    #[inline(always)]
    pub fn kp(self) -> Probe<'a> {
        // SAFETY: `kp` of a live kretprobe meets `Probe`'s invariants (type invariant).
        unsafe { Probe::from_raw(addr_of_mut!((*self.rp.as_ptr()).kp)) }
    }
}

impl<'a> View<'a> for RetProbe<'a> {
    type Raw = Kretprobe;
    /// # Safety
    /// As for [`RetProbe::from_raw`].
    #[inline(always)]
    unsafe fn from_ptr(p: *mut Kretprobe) -> RetProbe<'a> {
        // SAFETY: the trait's contract is `from_raw()`'s.
        unsafe { RetProbe::from_raw(p) }
    }
}

/// `struct kretprobe **rps`.
pub type RetProbeArray<'a> = Array<'a, RetProbe<'a>>;

/// A caller's `struct jprobe`.
///
/// # Invariants
/// `jp` points to a `struct jprobe` that stays allocated for `'a`, whose
/// `kp` meets [`Probe`]'s invariants; its `entry` is not written while it
/// is registered; until it is registered, no other CPU reads or writes it.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
#[derive(Clone, Copy)]
pub struct JProbe<'a> {
    jp: NonNull<Jprobe>,
    _life: PhantomData<&'a ()>,
}

#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
impl<'a> JProbe<'a> {
    /// The view of `jp`.
    ///
    /// # Safety
    /// `jp` is non-null and meets the invariants above for `'a`.
    #[inline(always)]
    pub unsafe fn from_raw(jp: *mut Jprobe) -> JProbe<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        JProbe {
            // SAFETY: non-null (this function's `# Safety`).
            jp: unsafe { NonNull::new_unchecked(jp) },
            _life: PhantomData,
        }
    }

    /// Its entry probe.
    #[inline(always)]
    pub fn kp(self) -> Probe<'a> {
        // SAFETY: `kp` of a live jprobe meets `Probe`'s invariants (type invariant).
        unsafe { Probe::from_raw(addr_of_mut!((*self.jp.as_ptr()).kp)) }
    }

    /// `entry`.
    pub fn entry(self) -> *mut core::ffi::c_void {
        // SAFETY: the jprobe is live, and no other CPU writes its `entry`
        // (type invariant: not while it is registered, and before that no
        // other CPU touches it).
        unsafe { addr_of!((*self.jp.as_ptr()).entry).read() }
    }

    /// Sets `kp.pre_handler` to `h` (the jprobes' pre-handler).
    ///
    /// # Safety
    /// `kp` is not registered (a handler may read `pre_handler` once it is).
    pub unsafe fn set_pre_handler(self, h: KprobePreHandler) {
        // SAFETY: the jprobe is live and not registered (this function's
        // `# Safety`), so no other CPU reads or writes it (type invariant).
        unsafe { (*self.jp.as_ptr()).kp.pre_handler = h };
    }
}

#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
impl<'a> View<'a> for JProbe<'a> {
    type Raw = Jprobe;
    /// # Safety
    /// As for [`JProbe::from_raw`].
    #[inline(always)]
    unsafe fn from_ptr(p: *mut Jprobe) -> JProbe<'a> {
        // SAFETY: the trait's contract is `from_raw()`'s.
        unsafe { JProbe::from_raw(p) }
    }
}

/// `struct jprobe **jps`.
#[cfg(CONFIG_KPROBES_RUST_JPROBES)]
pub type JProbeArray<'a> = Array<'a, JProbe<'a>>;

/// A probe prepared for arming and not hashed yet: what
/// `registry::hash_probe()` publishes.
///
/// # Invariants
/// `p` is live (its own invariant), not in `kprobe_table`, and its
/// `arch_prepare_kprobe()` (or ftrace variant) succeeded under the
/// `kprobe_mutex` hold `'a` borrows.
#[derive(Clone, Copy)]
pub struct Prepared<'a> {
    p: Probe<'a>,
}

impl<'a> Prepared<'a> {
    /// The view of a probe whose preparation just succeeded.
    ///
    /// # Safety
    /// `p` is not hashed and its arch preparation succeeded, under the
    /// `kprobe_mutex` hold of `'a`.
    #[inline(always)]
    pub unsafe fn new(p: Probe<'a>) -> Prepared<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        Prepared { p }
    }

    /// The probe.
    #[inline(always)]
    pub fn probe(self) -> Probe<'a> {
        self.p
    }
}

/// A probe being registered that no other CPU can see yet.
///
/// # Invariants
/// `p` is live (its own invariant), neither hashed nor on an aggregate's
/// list, and until the registration publishes it (hashes it or adds it to
/// an aggregate) no other CPU reads or writes it.
pub struct NewProbe<'a> {
    p: Probe<'a>,
}

impl<'a> NewProbe<'a> {
    /// The probe `p`, which the caller is registering.
    ///
    /// # Safety
    /// `p` is not registered (neither hashed nor a child of an aggregate)
    /// and no other task registers it meanwhile (the kprobes API), so no
    /// other CPU reaches it until it is published.
    #[inline(always)]
    pub unsafe fn new(p: Probe<'a>) -> NewProbe<'a> {
        // INVARIANT: the caller's guarantee (this function's `# Safety`).
        NewProbe { p }
    }

    /// The probe.
    #[inline(always)]
    pub fn probe(&self) -> Probe<'a> {
        self.p
    }

    /// The state a registration starts from: only `KPROBE_FLAG_DISABLED`
    /// kept from the caller's flags (plus `extra`), no missed hits, an empty
    /// child list.
    pub fn reset(&self, extra: u32) {
        let p = self.p.as_ptr();
        // SAFETY: live and seen by no other CPU (type invariant): plain writes.
        unsafe {
            flags::put(
                p,
                (flags::get(p) & crate::types::KPROBE_FLAG_DISABLED) | extra,
            );
            (*p).nmissed = 0;
            list::init_list_head(addr_of_mut!((*p).list));
        }
    }

    /// `p->flags |= f`.
    pub fn set_flags(&self, f: u32) {
        let p = self.p.as_ptr();
        // SAFETY: live and seen by no other CPU (type invariant).
        unsafe { flags::put(p, flags::get(p) | f) }
    }

    /// `copy_kprobe(src, p)`: takes the saved instruction and the insn slot
    /// of `src` (the aggregate this probe joins).
    pub fn copy_insn_from(&self, src: Probe<'_>) {
        let (s, d) = (src.as_ptr(), self.p.as_ptr());
        // SAFETY: both live; `d` is seen by no other CPU (type invariant) and
        // `src`'s `opcode` and `ainsn` are written only by its preparation,
        // under `kprobe_mutex` as here; `ptr::copy` allows `s == d`.
        unsafe {
            core::ptr::copy(addr_of!((*s).opcode), addr_of_mut!((*d).opcode), 1);
            core::ptr::copy(addr_of!((*s).ainsn), addr_of_mut!((*d).ainsn), 1);
        }
    }
}
