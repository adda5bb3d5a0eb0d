// SPDX-License-Identifier: GPL-2.0

//! Kprobes on ftrace: probes at an ftrace location are armed by adding
//! their address to the filter of one of two `ftrace_ops` (the C shim
//! defines them, with the arch's `kprobe_ftrace_handler`): the plain one,
//! or the `IPMODIFY` one for probes with a post_handler (which single-step
//! by changing the IP).  Port of the `CONFIG_KPROBES_ON_FTRACE` part of
//! `kernel/kprobes.c`.
//!
//! One intended divergence from upstream (see
//! `tools/testing/differential/divergences.txt`): upstream picks the ops to
//! disarm an aggregate with from its *current* `post_handler`.  When a
//! probe with a post_handler joins an aggregate that was armed through the
//! plain ops, `post_handler` becomes set without re-arming, and is kept
//! after that probe leaves; disarming then goes to the IPMODIFY ops, whose
//! filter does not have the address: `WARN` "Failed to disarm
//! kprobe-ftrace", the unregister fails silently (the last probe stays in
//! the aggregate and keeps firing after `unregister_kprobe()` returned, a
//! use-after-free once its owner frees it) and the IPMODIFY use count goes
//! negative.  Here an aggregate remembers which ops armed it
//! ([`FLAG_ARMED_IPMODIFY`]) and is disarmed through those.
//!
//! Batches: upstream's `register_kprobes()` arms each ftrace probe with
//! its own `ftrace_set_filter_ip()`, which copies the ops' filter hash and
//! walks every ftrace record, the bulk of registering a kprobe on ftrace
//! (`reg_ftrace_one_5000` against `reg_ftrace_batch_5000`).  While an
//! [`FtraceBatch`] is open (under `kprobe_mutex`, by the array calls of
//! `register.rs` and `kretprobe.rs`), arming and disarming only record the
//! address; [`FtraceBatch::flush`] then makes one
//! `ftrace_set_filter_ips()` per ops and direction, with upstream's
//! registration rules: the filter is set before the ops is registered, and
//! the ops is unregistered before its last addresses leave the filter (an
//! ops registered with an empty filter would trace every function).  The
//! use counts count what ftrace has (`FTRACE_ENABLED`,
//! `IPMODIFY_ENABLED`); pending addresses are added to them by the
//! flush.  A disarm of an address whose arming is still pending cancels it
//! (and the other way round), so a batch rolled back before its flush
//! leaves ftrace untouched.  Without a batch, or when the batch has no
//! room (no memory), arming is upstream's per-probe path, which stays
//! correct beside pending addresses because the counts are what ftrace has.

use crate::error::{code::EBUSY, to_result, Result};
use crate::locks::KprobeMutex;
use crate::probe::{Hashed, Probe};
use crate::sys;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

/// Probes armed through `kprobe_ipmodify_ops` (`kprobe_mutex`).
static IPMODIFY_ENABLED: AtomicI32 = AtomicI32::new(0);
/// Probes armed through `kprobe_ftrace_ops` (`kprobe_mutex`).
static FTRACE_ENABLED: AtomicI32 = AtomicI32::new(0);

/// `kprobe_ftrace_disabled`: set for good by `kprobe_ftrace_kill()` when
/// ftrace dies; read (plainly, as a `bool`) by the arch's ftrace handler.
#[no_mangle]
pub static mut kprobe_ftrace_disabled: bool = false;

fn ftrace_disabled() -> bool {
    // SAFETY: a bool written once (true) by kprobe_ftrace_kill(); a racy
    // read sees either value, as in C.
    unsafe { core::ptr::read_volatile(&raw const kprobe_ftrace_disabled) }
}

/// Private flag of aggregate probes (never set on a caller's probe, never
/// shown): the aggregate is armed through `kprobe_ipmodify_ops`.
pub const FLAG_ARMED_IPMODIFY: u32 = 1 << 31;

fn counter(ipmodify: bool) -> &'static AtomicI32 {
    if ipmodify {
        &IPMODIFY_ENABLED
    } else {
        &FTRACE_ENABLED
    }
}

/// `__arm_kprobe_ftrace()`.
fn arm_ops(_km: &KprobeMutex, p: Hashed<'_>, ipmodify: bool) -> Result {
    sys::lockdep_assert_held_kprobe_mutex();
    let cnt = counter(ipmodify);
    let addr = p.addr() as usize;
    if BATCH.push(_km, ipmodify, addr, false) {
        // Armed by the batch's flush, before kprobe_mutex is released.
        return Ok(());
    }
    to_result(sys::ftrace_set_filter_ip(ipmodify, addr, false))?;
    if cnt.load(Relaxed) == 0 {
        if let Err(e) = to_result(sys::register_ftrace_function(ipmodify)) {
            // At this point, since ops is not registered, we should be safe
            // from registering empty filter.
            sys::ftrace_set_filter_ip(ipmodify, addr, true);
            return Err(e);
        }
    }
    cnt.store(cnt.load(Relaxed) + 1, Relaxed);
    Ok(())
}

/// `arm_kprobe_ftrace()`.
pub fn arm_kprobe_ftrace(km: &KprobeMutex, p: Hashed<'_>) -> Result {
    let ipmodify = p.post_handler().is_some();
    arm_ops(km, p, ipmodify)?;
    if p.is_aggr() {
        note_armed_ops(km, p.probe(), ipmodify);
    }
    Ok(())
}

/// Records in aggregate `p` which ops it is armed through.
pub fn note_armed_ops(km: &KprobeMutex, p: Probe<'_>, ipmodify: bool) {
    if ipmodify {
        p.set_flags(km, FLAG_ARMED_IPMODIFY);
    } else {
        p.clear_flags(km, FLAG_ARMED_IPMODIFY);
    }
}

/// The ops `p` is armed through: an aggregate's recorded ones, else by its
/// post_handler (a caller's probe cannot change handlers while registered).
fn armed_ipmodify(p: Probe<'_>) -> bool {
    if p.is_aggr() {
        p.flags() & FLAG_ARMED_IPMODIFY != 0
    } else {
        p.post_handler().is_some()
    }
}

/// `__disarm_kprobe_ftrace()`: `p` is armed.
fn disarm_ops(_km: &KprobeMutex, p: Hashed<'_>, ipmodify: bool) -> Result {
    sys::lockdep_assert_held_kprobe_mutex();
    let cnt = counter(ipmodify);
    if ftrace_disabled() {
        // Now ftrace is disabled forever, disarm is already done.
        return Ok(());
    }
    let addr = p.addr();
    if BATCH.push(_km, ipmodify, addr as usize, true) {
        // Disarmed by the batch's flush, before kprobe_mutex is released.
        return Ok(());
    }
    if cnt.load(Relaxed) == 1 {
        let ret = sys::unregister_ftrace_function(ipmodify);
        if ret < 0 {
            sys::warn_ftrace_unregister(ret);
            return to_result(ret);
        }
    }
    cnt.store(cnt.load(Relaxed) - 1, Relaxed);

    let ret = sys::ftrace_set_filter_ip(ipmodify, addr as usize, true);
    if ret < 0 {
        sys::warn_once_ftrace_disarm(addr, ret);
    }
    to_result(ret)
}

/// `disarm_kprobe_ftrace()`: `p` is armed (upstream picks the ops by
/// `p->post_handler != NULL`; see the module documentation).
pub fn disarm_kprobe_ftrace(km: &KprobeMutex, p: Hashed<'_>) -> Result {
    disarm_ops(km, p, armed_ipmodify(p.probe()))
}

/// One list of pending addresses of a batch: up to `cap` (the batch's
/// number of members) in a `kvmalloc()`ed array allocated at the first
/// push; a cancelled entry is 0 (no ftrace site is at address 0).
struct IpList {
    buf: *mut usize,
    len: usize,
    /// The entries before it are all cancelled (a cancellation search
    /// starts here: a rollback cancels in the order of the pushes).
    first: usize,
}

impl IpList {
    const EMPTY: IpList = IpList {
        buf: core::ptr::null_mut(),
        len: 0,
        first: 0,
    };

    /// Appends `addr`; false when there is no room (or no memory).
    fn push(&mut self, cap: usize, addr: usize) -> bool {
        if self.buf.is_null() {
            self.buf = sys::kvmalloc(cap.saturating_mul(core::mem::size_of::<usize>())).cast();
            if self.buf.is_null() {
                return false;
            }
        }
        if self.len >= cap {
            return false;
        }
        // SAFETY: `buf` holds `cap` entries (allocated above with that size) and
        // `len < cap`.
        unsafe { self.buf.add(self.len).write(addr) };
        self.len += 1;
        true
    }

    /// The entries, cancelled ones included.
    fn entries(&mut self) -> &mut [usize] {
        if self.buf.is_null() {
            return &mut [];
        }
        // SAFETY: `buf` holds `cap >= len` entries, the first `len` written by
        // `push()`, and `&mut self` makes this the only reference to them.
        unsafe { core::slice::from_raw_parts_mut(self.buf, self.len) }
    }

    /// Cancels the pending `addr`, if there is one.
    fn cancel(&mut self, addr: usize) -> bool {
        let first = self.first;
        let e = self.entries();
        let Some(i) = e[first..].iter().position(|&x| x == addr) else {
            return false;
        };
        e[first + i] = 0;
        let skip = e[first..].iter().take_while(|&&x| x == 0).count();
        self.first = first + skip;
        true
    }

    /// Drops the cancelled entries; the live ones, in push order.
    fn live(&mut self) -> &[usize] {
        let e = self.entries();
        let mut n = 0;
        for i in 0..e.len() {
            if e[i] != 0 {
                e[n] = e[i];
                n += 1;
            }
        }
        self.len = n;
        self.first = 0;
        &self.entries()[..]
    }

    fn clear(&mut self) {
        self.len = 0;
        self.first = 0;
    }

    /// Drops the first `n` live entries (after [`IpList::live`]).
    fn drop_front(&mut self, n: usize) {
        let e = self.entries();
        for x in e.iter_mut().take(n) {
            *x = 0;
        }
        self.first = n.min(e.len());
    }

    fn free(&mut self) {
        // SAFETY: `buf` is null or came from `kvmalloc()` in `push()`, and is
        // forgotten just below.
        unsafe { sys::kvfree(self.buf.cast()) };
        *self = IpList::EMPTY;
    }
}

/// `__arm_kprobe_ftrace()` of `ips` at once: the filter first, then the
/// ops if it is not registered yet; on an error the filter and the ops
/// are as they were (`ftrace_set_filter_ips()` changes the filter hash all
/// or nothing).
fn arm_ips(ipmodify: bool, ips: &[usize]) -> Result {
    let cnt = counter(ipmodify);
    to_result(sys::ftrace_set_filter_ips(ipmodify, ips, false))?;
    if cnt.load(Relaxed) == 0 {
        if let Err(e) = to_result(sys::register_ftrace_function(ipmodify)) {
            // At this point, since ops is not registered, we should be
            // safe from registering empty filter.
            sys::ftrace_set_filter_ips(ipmodify, ips, true);
            return Err(e);
        }
    }
    cnt.store(cnt.load(Relaxed) + ips.len() as i32, Relaxed);
    Ok(())
}

/// The open batch's pending addresses: `lists[disarm][ipmodify]`.
struct Batch {
    /// The number of members of the open batch; 0 when none is open (or it
    /// has too few members to gain anything: then the per-probe path).
    cap: usize,
    lists: [[IpList; 2]; 2],
}

impl Batch {
    /// Records the arming (`!disarm`) or disarming of `addr` through one
    /// ops; false when there is no open batch or no room (per-probe path).
    fn push(&mut self, ipmodify: bool, addr: usize, disarm: bool) -> bool {
        if self.cap == 0 {
            return false;
        }
        let o = usize::from(ipmodify);
        // Disarming an address whose arming is pending (a rollback), or
        // the other way round: ftrace never sees either.
        if self.lists[usize::from(!disarm)][o].cancel(addr) {
            return true;
        }
        let cap = self.cap;
        self.lists[usize::from(disarm)][o].push(cap, addr)
    }

    /// Applies the pending addresses of one ops: on an error the ops and its
    /// filter are as they were, and what was to be armed stays pending.
    fn flush_ops(&mut self, ipmodify: bool) -> Result {
        let cnt = counter(ipmodify);
        let o = usize::from(ipmodify);
        let arm = &mut self.lists[0][o];
        let ips = arm.live();
        if !ips.is_empty() {
            if let Err(e) = arm_ips(ipmodify, ips) {
                // -EBUSY: an address another IPMODIFY ops has, which stays
                // so.  Then one by one, as upstream arms them: those before
                // the first that fails are armed, it and the rest stay
                // pending.  (Another error stays the batch's.)
                let mut done = 0;
                let mut ret = Err(e);
                if e == EBUSY && ips.len() > 1 {
                    ret = Ok(());
                    for &ip in ips.iter() {
                        ret = arm_ips(ipmodify, &[ip]);
                        if ret.is_err() {
                            break;
                        }
                        done += 1;
                    }
                }
                arm.drop_front(done);
                ret?;
            }
            arm.clear();
        }
        let disarm = &mut self.lists[1][o];
        let ips = disarm.live();
        if ips.is_empty() {
            return Ok(());
        }
        let (n, first) = (ips.len(), ips[0]);
        let ret = if ftrace_disabled() {
            // Now ftrace is disabled forever, disarm is already done.
            0
        } else {
            let mut r = 0;
            if cnt.load(Relaxed) == n as i32 {
                // __disarm_kprobe_ftrace() of the last armed ones: the ops
                // first, so that it is never registered with an empty filter.
                r = sys::unregister_ftrace_function(ipmodify);
                if r < 0 {
                    sys::warn_ftrace_unregister(r);
                }
            }
            if r < 0 {
                // As upstream, the count and the filter stay; here the probes
                // are unhashed already, so a hit at these addresses finds no
                // probe and returns.
                r
            } else {
                cnt.store(cnt.load(Relaxed) - n as i32, Relaxed);
                let r = sys::ftrace_set_filter_ips(ipmodify, ips, true);
                if r < 0 {
                    sys::warn_once_ftrace_disarm(first as *mut _, r);
                }
                r
            }
        };
        disarm.clear();
        to_result(ret)
    }
}

/// The open batch, under `kprobe_mutex`.
struct BatchCell(UnsafeCell<Batch>);

// SAFETY: the batch is reached only through `with()`, under `kprobe_mutex`.
unsafe impl Sync for BatchCell {}

static BATCH: BatchCell = BatchCell(UnsafeCell::new(Batch {
    cap: 0,
    lists: [
        [IpList::EMPTY, IpList::EMPTY],
        [IpList::EMPTY, IpList::EMPTY],
    ],
}));

impl BatchCell {
    fn with<R>(&self, _km: &KprobeMutex, f: impl FnOnce(&mut Batch) -> R) -> R {
        // `f` (a closure of this module) calls nothing that reaches `with()`
        // again: ftrace and the allocator do not call the core, and the
        // probe handlers never touch the batch.
        // SAFETY: `_km` proves `kprobe_mutex` held, which serializes every use
        // of the batch, and `f` does not nest: this is the only reference.
        let b = unsafe { &mut *self.0.get() };
        f(b)
    }

    fn push(&self, km: &KprobeMutex, ipmodify: bool, addr: usize, disarm: bool) -> bool {
        self.with(km, |b| b.push(ipmodify, addr, disarm))
    }
}

/// An open batch of ftrace arming and disarming (see the module
/// documentation): from [`FtraceBatch::begin`] until dropped, under the
/// `kprobe_mutex` hold it borrows, the ftrace probes armed or disarmed are
/// recorded, and [`FtraceBatch::flush`] applies them with one
/// `ftrace_set_filter_ips()` per ops and direction.  Dropping it flushes
/// what is still pending (errors ignored) and frees its lists.
pub struct FtraceBatch<'k> {
    km: &'k KprobeMutex,
    open: bool,
}

impl<'k> FtraceBatch<'k> {
    /// Opens a batch for the arming or disarming of up to `members`
    /// probes (each arms or disarms at most one address; a rollback
    /// disarms what it armed).  Fewer than 2 members: no batch (the
    /// per-probe path, as upstream).
    pub fn begin(km: &'k KprobeMutex, members: usize) -> Self {
        let open = members >= 2
            && BATCH.with(km, |b| {
                if b.cap != 0 {
                    // One batch per kprobe_mutex hold.
                    crate::warn_once!();
                    return false;
                }
                b.cap = members;
                true
            });
        FtraceBatch { km, open }
    }

    /// Arms and disarms what is pending: one `ftrace_set_filter_ips()` per
    /// ops and direction, registering or unregistering the ops as its use
    /// count leaves or reaches 0.  On an error (the first one, as upstream
    /// returns it) what could not be armed stays pending, so that
    /// disarming the members (a rollback) cancels it, and what was to be
    /// disarmed is as upstream leaves it after the same error (WARNed).
    pub fn flush(&mut self) -> Result {
        if !self.open {
            return Ok(());
        }
        BATCH.with(self.km, |b| {
            let r = b.flush_ops(false);
            let s = if r.is_ok() { b.flush_ops(true) } else { Ok(()) };
            r.and(s)
        })
    }
}

impl FtraceBatch<'_> {
    /// After a failed [`FtraceBatch::flush`]: the first address whose
    /// arming failed (the first pending one of the ops that failed; the
    /// ops are flushed in order, so that is the first ops with any
    /// pending).  As upstream arms the members one by one, the first
    /// member armed at this address is the one whose registration fails.
    pub fn first_unarmed(&self) -> Option<usize> {
        if !self.open {
            return None;
        }
        BATCH.with(self.km, |b| {
            b.lists[0]
                .iter_mut()
                .find_map(|l| l.live().first().copied())
        })
    }

    /// Flushes what is still pending (errors ignored) and frees the lists,
    /// as dropping it does: before `kprobe_mutex` is released.
    pub fn close(self) {}
}

impl Drop for FtraceBatch<'_> {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let _ = self.flush();
        BATCH.with(self.km, |b| {
            if b.lists.iter().flatten().any(|l| l.len != 0) {
                // An arming that failed and was not rolled back: the
                // callers disarm every member after a failed flush.
                crate::warn_once!();
            }
            for l in b.lists.iter_mut().flatten() {
                l.free();
            }
            b.cap = 0;
        });
    }
}

/// `kprobe_ftrace_kill()`: ftrace is dead; never touch it again.
pub fn kprobe_ftrace_kill() {
    // SAFETY: see `ftrace_disabled()`.
    unsafe { core::ptr::write_volatile(&raw mut kprobe_ftrace_disabled, true) }
}

/// Resets the counters (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    IPMODIFY_ENABLED.store(0, Relaxed);
    FTRACE_ENABLED.store(0, Relaxed);
    // SAFETY: host tests are serialized, and a test's batch is closed (or
    // leaked by a failed test: its lists are forgotten, not freed).
    unsafe {
        *BATCH.0.get() = Batch {
            cap: 0,
            lists: [
                [IpList::EMPTY, IpList::EMPTY],
                [IpList::EMPTY, IpList::EMPTY],
            ],
        }
    };
    // SAFETY: host tests are serialized.
    unsafe { core::ptr::write_volatile(&raw mut kprobe_ftrace_disabled, false) }
}
