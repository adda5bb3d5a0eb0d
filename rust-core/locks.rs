// SPDX-License-Identifier: GPL-2.0

//! The core's lock contracts as types.
//!
//! Upstream documents "kprobe_mutex must be held" (and the same of
//! `text_mutex` and the CPU hotplug lock) in comments and checks some of it
//! with `lockdep_assert_held()`.  Here a function that needs a lock takes a
//! reference to its token ([`KprobeMutex`], [`TextLocks`], [`CpusRead`]):
//! the only ways to get one are the guards below, which take the lock and
//! release it when they go out of scope (there is no unlock call to forget
//! on an early return), and the `unsafe` [`KprobeMutex::assume_held`] for
//! the entry points that C calls with the lock already held.
//!
//! The order is upstream's: `kprobe_mutex`, then `cpus_read_lock()`, then
//! `jump_label_lock()` where the optimizer's preparation needs it, then
//! `text_mutex`; a [`TextGuard`] borrows the [`KprobeMutex`] it nests in, so
//! it cannot outlive it, and releases its locks in the reverse order.
//!
//! The upstream `lockdep_assert_held()` checks stay where upstream has them:
//! with lockdep they still see the locks the tokens stand for.

use crate::sys;
use core::marker::PhantomData;
use core::ops::Deref;

/// Not `Send`, not `Sync`: a lock is held by the current task.
type NotThreadSafe = PhantomData<*mut ()>;

/// Proof that the current task holds `kprobe_mutex`.
///
/// # Invariants
/// While a `&KprobeMutex` is alive, the current task holds `kprobe_mutex`.
pub struct KprobeMutex {
    _held: NotThreadSafe,
}

impl KprobeMutex {
    /// A token for `kprobe_mutex` taken by someone else (C code that calls
    /// into the core with it held, or a seq_file start whose stop releases
    /// it).
    ///
    /// # Safety
    /// The current task holds `kprobe_mutex` for as long as the token lives.
    #[inline(always)]
    pub unsafe fn assume_held() -> KprobeMutex {
        // INVARIANT: the caller holds `kprobe_mutex` (this function's `# Safety`).
        KprobeMutex { _held: PhantomData }
    }
}

/// `mutex_lock(&kprobe_mutex)` until dropped (`mutex_unlock()`).
///
/// # Invariants
/// The current task holds `kprobe_mutex` from [`kprobe_mutex`] until the
/// guard is dropped.
pub struct KprobeMutexGuard {
    token: KprobeMutex,
}

/// `mutex_lock(&kprobe_mutex)`: protects `kprobe_table` updates, the
/// optimizer's staging lists, the probes' flags and the global switches.
#[inline]
pub fn kprobe_mutex() -> KprobeMutexGuard {
    sys::kprobe_mutex_lock();
    // INVARIANT: locked just above; unlocked only by `drop()`.
    KprobeMutexGuard {
        token: KprobeMutex { _held: PhantomData },
    }
}

impl KprobeMutexGuard {
    /// Keeps `kprobe_mutex` held past this guard's scope: a seq_file's
    /// start takes it and its stop releases it ([`KprobeMutexGuard::resume`]).
    #[inline]
    pub fn keep_held(self) {
        core::mem::forget(self);
    }

    /// The guard of a `kprobe_mutex` that [`KprobeMutexGuard::keep_held`]
    /// left held; dropping it unlocks.
    ///
    /// # Safety
    /// The current task holds `kprobe_mutex`, taken by a guard whose
    /// `keep_held()` left it held, and nothing else will release it.
    #[inline]
    pub unsafe fn resume() -> KprobeMutexGuard {
        // INVARIANT: the caller holds `kprobe_mutex` and hands its release to
        // this guard (this function's `# Safety`).
        KprobeMutexGuard {
            token: KprobeMutex { _held: PhantomData },
        }
    }
}

#[cfg(CONFIG_OPTPROBES)]
impl KprobeMutexGuard {
    /// One round of `wait_for_kprobe_optimizer()`: sleeps until the
    /// optimizer has run, with the mutex released meanwhile and held again
    /// on return.  `&mut self`: nothing borrowed from the guard, read
    /// under the mutex, lives across the wait.
    #[inline]
    pub fn wait_optimizer_pass(&mut self) {
        // SAFETY: the type invariant: `kprobe_mutex` is held; `&mut self`
        // ends every borrow of the token before the wait.
        unsafe { sys::wait_optimizer_pass() }
    }
}

impl Deref for KprobeMutexGuard {
    type Target = KprobeMutex;
    #[inline(always)]
    fn deref(&self) -> &KprobeMutex {
        &self.token
    }
}

impl Drop for KprobeMutexGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: by the type invariant, the current task holds `kprobe_mutex`
        // until now.
        unsafe { sys::kprobe_mutex_unlock() };
    }
}

/// A `Copy` value that only the holder of `kprobe_mutex` reads or writes
/// (counters of the index): each access takes the token, so plain loads and
/// stores do, with no atomic read-modify-write.
pub struct KprobeMutexCell<T: Copy>(core::cell::UnsafeCell<T>);

// SAFETY: every access to the value takes a `&KprobeMutex`, so the
// accesses, from whatever CPU, are serialized by `kprobe_mutex`.
unsafe impl<T: Copy + Send> Sync for KprobeMutexCell<T> {}

impl<T: Copy> KprobeMutexCell<T> {
    /// A cell holding `v`.
    pub const fn new(v: T) -> Self {
        Self(core::cell::UnsafeCell::new(v))
    }

    /// The value.
    #[inline(always)]
    pub fn get(&self, _km: &KprobeMutex) -> T {
        // SAFETY: `_km` proves `kprobe_mutex` held: no other access runs.
        unsafe { *self.0.get() }
    }

    /// Sets the value.
    #[inline(always)]
    pub fn set(&self, _km: &KprobeMutex, v: T) {
        // SAFETY: `_km` proves `kprobe_mutex` held: no other access runs.
        unsafe { *self.0.get() = v }
    }
}

/// Proof that the current task holds the CPU hotplug lock for reading
/// (`cpus_read_lock()`).
///
/// # Invariants
/// While a `&CpusRead` is alive, the current task holds the CPU hotplug lock.
pub struct CpusRead {
    _held: NotThreadSafe,
}

/// `cpus_read_lock()` until dropped (`cpus_read_unlock()`), inside
/// `kprobe_mutex` as upstream takes it.
pub struct CpusReadGuard<'a> {
    token: CpusRead,
    _outer: PhantomData<&'a KprobeMutex>,
}

/// `cpus_read_lock()` under `kprobe_mutex`.
#[inline]
pub fn cpus_read(_km: &KprobeMutex) -> CpusReadGuard<'_> {
    sys::cpus_read_lock();
    // INVARIANT: locked just above; unlocked only by `drop()`.
    CpusReadGuard {
        token: CpusRead { _held: PhantomData },
        _outer: PhantomData,
    }
}

impl Deref for CpusReadGuard<'_> {
    type Target = CpusRead;
    #[inline(always)]
    fn deref(&self) -> &CpusRead {
        &self.token
    }
}

impl Drop for CpusReadGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `cpus_read()` took the lock for this guard, which releases
        // it once, here.
        unsafe { sys::cpus_read_unlock() };
    }
}

/// Proof that the current task holds what text patching needs:
/// `kprobe_mutex`, the CPU hotplug lock and `text_mutex` (and maybe
/// `jump_label_lock`, which no callee asks for by type).  Dereferences to
/// the [`KprobeMutex`] it nests in.
///
/// # Invariants
/// While a `&TextLocks` is alive, the current task holds `kprobe_mutex`,
/// the CPU hotplug lock and `text_mutex`.
pub struct TextLocks<'a> {
    /// Zero-sized: the borrow ties it to the `kprobe_mutex` proof it was
    /// made from, without storing a pointer to pass around.
    _km: PhantomData<&'a KprobeMutex>,
    _held: NotThreadSafe,
}

impl Deref for TextLocks<'_> {
    type Target = KprobeMutex;
    #[inline(always)]
    fn deref(&self) -> &KprobeMutex {
        // INVARIANT: a `TextLocks` lives within the borrow of a
        // `&KprobeMutex` (its `_km`): `kprobe_mutex` is held while the
        // returned token, which borrows `self`, lives.  A constant of a
        // zero-sized type, promoted to a static.
        &KprobeMutex { _held: PhantomData }
    }
}

/// `cpus_read_lock()`, [`jump_label_lock()`] if `JL`, `text_mutex` until
/// dropped, then released in the reverse order.
///
/// [`jump_label_lock()`]: sys::jump_label_lock
pub struct TextGuard<'a, const JL: bool> {
    token: TextLocks<'a>,
}

/// Takes the text-patching locks under `kprobe_mutex`, in upstream's order.
#[inline(always)]
fn text_guard<const JL: bool>(_km: &KprobeMutex) -> TextGuard<'_, JL> {
    sys::cpus_read_lock();
    if JL {
        sys::jump_label_lock();
    }
    sys::text_mutex_lock();
    // INVARIANT: `_km` proves `kprobe_mutex`; the other two were taken above
    // and are released only by `drop()`.
    TextGuard {
        token: TextLocks {
            _km: PhantomData,
            _held: PhantomData,
        },
    }
}

/// `cpus_read_lock(); mutex_lock(&text_mutex);` under `kprobe_mutex`.
#[inline]
pub fn text(km: &KprobeMutex) -> TextGuard<'_, false> {
    text_guard(km)
}

/// `cpus_read_lock(); jump_label_lock(); mutex_lock(&text_mutex);` under
/// `kprobe_mutex`: for the optimizer's preparation, which calls
/// `jump_label_text_reserved()`.
#[inline]
pub fn text_and_jump_label(km: &KprobeMutex) -> TextGuard<'_, true> {
    text_guard(km)
}

impl<'a, const JL: bool> Deref for TextGuard<'a, JL> {
    type Target = TextLocks<'a>;
    #[inline(always)]
    fn deref(&self) -> &TextLocks<'a> {
        &self.token
    }
}

impl<const JL: bool> Drop for TextGuard<'_, JL> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `text_guard()` took these locks for this guard (the
        // jump label lock if `JL`), which releases each once, here, in the
        // reverse order.
        unsafe {
            sys::text_mutex_unlock();
            if JL {
                sys::jump_label_unlock();
            }
            sys::cpus_read_unlock();
        }
    }
}

/// `jump_label_lock()` until dropped, for the address checks (outside
/// `kprobe_mutex`, as upstream).
pub struct JumpLabelGuard {
    _held: NotThreadSafe,
}

/// `jump_label_lock()`.
#[inline]
pub fn jump_label() -> JumpLabelGuard {
    sys::jump_label_lock();
    JumpLabelGuard { _held: PhantomData }
}

impl Drop for JumpLabelGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `jump_label()` took the lock for this guard, which releases
        // it once, here.
        unsafe { sys::jump_label_unlock() };
    }
}

/// `mutex_lock(&kprobe_sysctl_mutex)` until dropped.
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
pub struct SysctlGuard {
    _held: NotThreadSafe,
}

/// `mutex_lock(&kprobe_sysctl_mutex)`.
#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
#[inline]
pub fn sysctl() -> SysctlGuard {
    sys::sysctl_mutex_lock();
    SysctlGuard { _held: PhantomData }
}

#[cfg(all(CONFIG_SYSCTL, CONFIG_OPTPROBES))]
impl Drop for SysctlGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `sysctl()` took the mutex for this guard, which releases it
        // once, here.
        unsafe { sys::sysctl_mutex_unlock() };
    }
}

/// An RCU read-side critical section (`rcu_read_lock()`) until dropped.
///
/// # Invariants
/// The current task is in the read-side section [`rcu_read`] began, until
/// the guard is dropped.
pub struct RcuReadGuard {
    _held: NotThreadSafe,
}

/// `rcu_read_lock()`.
#[inline(always)]
pub fn rcu_read() -> RcuReadGuard {
    sys::rcu_read_lock();
    RcuReadGuard { _held: PhantomData }
}

impl Drop for RcuReadGuard {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: by the type invariant, the section `rcu_read()` began is
        // open; this ends it, once.
        unsafe { sys::rcu_read_unlock() };
    }
}

/// A `preempt_disable()` section on this CPU until dropped
/// (`preempt_enable()`).
///
/// # Invariants
/// Preemption is disabled on this CPU from [`preempt_disable`] until the
/// guard is dropped; the guard stays on the CPU (not `Send`).
pub struct PreemptGuard {
    _held: NotThreadSafe,
}

/// `preempt_disable()`.
#[inline(always)]
pub fn preempt_disable() -> PreemptGuard {
    sys::preempt_disable();
    // INVARIANT: disabled just above; enabled only by `drop()`.
    PreemptGuard { _held: PhantomData }
}

impl PreemptGuard {
    /// The guard of a section whose `preempt_disable()` was done by someone
    /// else (a guard left in place); dropping it ends the section.
    ///
    /// # Safety
    /// Preemption is disabled on this CPU by a `preempt_disable()` that
    /// nothing else will end.
    #[inline(always)]
    pub unsafe fn resume() -> PreemptGuard {
        // INVARIANT: the section is open, and ended only by `drop()` (this
        // function's `# Safety`).
        PreemptGuard { _held: PhantomData }
    }

    /// The proof that preemption is disabled, for the guard's lifetime.
    #[inline(always)]
    pub fn token(&self) -> crate::types::PreemptOff<'_> {
        // SAFETY: by the type invariant, preemption stays disabled while
        // `self`, which the token borrows, lives.
        unsafe { crate::types::PreemptOff::assume() }
    }
}

impl Drop for PreemptGuard {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: by the type invariant, `preempt_disable()` began the section
        // this guard ends, once.
        unsafe { sys::preempt_enable() };
    }
}

/// `mutex_lock(m)` of a C `struct mutex` other than `kprobe_mutex` (an
/// instruction slot cache's) until dropped.
///
/// # Invariants
/// `m` is a live, initialized mutex that the current task holds until the
/// guard is dropped.
pub struct MutexGuard {
    m: *mut sys::Mutex,
}

impl MutexGuard {
    /// The mutex held.
    #[inline(always)]
    pub fn as_ptr(&self) -> *mut sys::Mutex {
        self.m
    }
}

/// `mutex_lock(m)`.
///
/// # Safety
/// `m` points to an initialized mutex that outlives the guard.  (It may
/// sleep, which `might_sleep()` checks.)
#[inline]
pub unsafe fn mutex(m: *mut sys::Mutex) -> MutexGuard {
    // SAFETY: `m` is initialized (this function's `# Safety`).
    unsafe { sys::mutex_lock(m) };
    // INVARIANT: locked just above; `m` outlives the guard (`# Safety`).
    MutexGuard { m }
}

impl Drop for MutexGuard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: by the type invariant, `self.m` is live and held by the
        // current task, as `mutex_unlock()` requires.
        unsafe { sys::mutex_unlock(self.m) }
    }
}
