// SPDX-License-Identifier: GPL-2.0

//! The kprobe hash table and [`get_kprobe`].  Port of the registry part of
//! `kernel/kprobes.c`.
//!
//! `kprobe_table` can be accessed by
//! - normal hlist traversal and RCU add/del while `kprobe_mutex` is held, or
//! - RCU hlist traversal with preemption disabled (breakpoint handlers).
//!
//! [`get_kprobe`] (and [`crate::index::lookup`], its Rust body) runs in the int3/ftrace/optprobe
//! handlers: it is on the kprobe blacklist, cannot panic (no indexing that can fail, wrapping
//! arithmetic), does not allocate and does not sleep.

use crate::error::Result;
use crate::index;
use crate::list;
use crate::locks::KprobeMutex;
use crate::probe::{Hashed, Prepared};
use crate::types::{HlistHead, Kprobe, KprobeOpcode};
use core::ptr;

/// `KPROBE_HASH_BITS`.
pub const KPROBE_HASH_BITS: u32 = 6;
/// `KPROBE_TABLE_SIZE`.
pub const KPROBE_TABLE_SIZE: usize = 1 << KPROBE_HASH_BITS;

/// `GOLDEN_RATIO_64` of `<linux/hash.h>`.
pub const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;

/// `kprobe_table`: the hash table of registered (and aggregate) probes,
/// by address.  Static, as upstream's (only this crate walks it).
pub static mut KPROBE_TABLE: [HlistHead; KPROBE_TABLE_SIZE] = [HlistHead {
    first: ptr::null_mut(),
}; KPROBE_TABLE_SIZE];

/// `hash_ptr(addr, KPROBE_HASH_BITS)` (`hash_64_generic()`; x86 has no
/// arch hash).
#[inline(always)]
pub fn hash_ptr(addr: usize) -> usize {
    ((addr as u64).wrapping_mul(GOLDEN_RATIO_64) >> (64 - KPROBE_HASH_BITS)) as usize
}

/// The bucket of `addr`.
#[inline(always)]
pub fn bucket(addr: usize) -> *mut HlistHead {
    // `hash_ptr` is below KPROBE_TABLE_SIZE, so `add` stays in the array;
    // no bounds-check panic can be reached from trap context.
    (&raw mut KPROBE_TABLE)
        .cast::<HlistHead>()
        .wrapping_add(hash_ptr(addr) & (KPROBE_TABLE_SIZE - 1))
}

/// `get_kprobe()` under `kprobe_mutex`: the probe or aggregate hashed at
/// `addr`.  Always inlined: `get_optimized_kprobe()` calls it for each
/// byte of a jump's reach on every arm and disarm.
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`addr` is a key: compared, never dereferenced"
)]
pub fn find(km: &KprobeMutex, addr: *mut KprobeOpcode) -> Option<Hashed<'_>> {
    find_pos(km, addr).map(|(p, _)| p)
}

/// [`find`], and where the index holds it (for [`unhash_at`]).
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`addr` is a key: compared, never dereferenced"
)]
pub fn find_pos(_km: &KprobeMutex, addr: *mut KprobeOpcode) -> Option<(Hashed<'_>, index::Pos)> {
    // SAFETY: what the index holds is in `kprobe_table`, live while `_km`
    // (the holder of `kprobe_mutex`, who alone unhashes) lasts.
    index::lookup_locked_pos(_km, addr).map(|(p, at)| (unsafe { Hashed::from_raw(p.as_ptr()) }, at))
}

/// [`find`] through `f`, which reads the index's table once for several
/// look-ups (`opt.rs`, `get_optimized_kprobe()`).
#[inline(always)]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`addr` is a key: compared, never dereferenced"
)]
pub fn find_in<'k>(
    _km: &'k KprobeMutex,
    f: &index::Finder<'_>,
    addr: *mut KprobeOpcode,
) -> Option<Hashed<'k>> {
    // SAFETY: `f` is the holder's (`index::finder()` takes `kprobe_mutex`),
    // and nothing changed the index since it was made (its users' rule):
    // what it returns is in `kprobe_table`, live while `_km` lasts.
    f.find(addr)
        .map(|p| unsafe { Hashed::from_raw(p.as_ptr()) })
}

/// Empties the table (host tests, under `sys::exclusive()`).
#[cfg(not(CONFIG_RUST))]
pub(crate) fn reset() {
    // SAFETY: host tests are serialized.
    unsafe {
        (&raw mut KPROBE_TABLE).write(
            [HlistHead {
                first: ptr::null_mut(),
            }; KPROBE_TABLE_SIZE],
        )
    };
}

/// Calls `f` on every hashed probe (`hlist_for_each_entry` over each
/// bucket, under `kprobe_mutex`).  `f` may not unhash the probe it is
/// given.
pub fn for_each_hashed<'k>(_km: &'k KprobeMutex, mut f: impl FnMut(Hashed<'k>)) {
    for i in 0..KPROBE_TABLE_SIZE {
        let head = (&raw mut KPROBE_TABLE).cast::<HlistHead>().wrapping_add(i);
        // SAFETY: `_km` proves `kprobe_mutex` held, so no other task changes the
        // chain while `hlist_iter()` walks it (and `f` only unhashes no probe);
        // `hlist` is the first field of `struct kprobe`.
        for n in unsafe { list::hlist_iter(head) } {
            // SAFETY: `n` is in `kprobe_table` and `_km` proves `kprobe_mutex` held.
            f(unsafe { Hashed::from_raw(n.cast::<Kprobe>()) });
        }
    }
}

/// Makes room in the index for one more probe (before the probe is
/// prepared, so that [`hash_probe`] cannot fail): `ENOMEM` if the index
/// must grow and no memory is left (see `index::reserve()`).
pub fn reserve(km: &KprobeMutex) -> Result {
    index::reserve(km)
}

/// `hlist_add_head_rcu(&p->hlist, &kprobe_table[hash_ptr(p->addr)])`:
/// publishes a prepared probe, in the table and in the index, after a
/// [`reserve`] under the same hold of `kprobe_mutex`.
pub fn hash_probe<'k>(km: &'k KprobeMutex, p: Prepared<'k>) -> Hashed<'k> {
    let p = p.probe();
    // SAFETY: `p` is live and not hashed (a `Prepared`'s invariant) and `km`
    // proves `kprobe_mutex` held, the table's writer lock, as `init_hlist_node()`
    // and `hlist_add_head_rcu()` need; once added it is in the table, prepared.
    let h = unsafe {
        list::init_hlist_node(p.hlist());
        list::hlist_add_head_rcu(p.hlist(), bucket(p.addr() as usize));
        Hashed::from_raw(p.as_ptr())
    };
    index::insert(km, h);
    h
}

/// `hlist_del_rcu(&p->hlist)`: takes a hashed probe out of the table and
/// the index.  Readers may find it until a grace period has passed.
pub fn unhash(km: &KprobeMutex, p: Hashed<'_>) {
    // SAFETY: `p` is in `kprobe_table` (a `Hashed`'s invariant) and `km` proves
    // `kprobe_mutex` held, the table's writer lock.
    unsafe { list::hlist_del_rcu(p.hlist()) };
    index::remove(km, p);
}

/// [`unhash`] of `p`, which [`find_pos`] found at `pos`: the index's
/// removal starts there.
#[inline(always)]
pub fn unhash_at(km: &KprobeMutex, p: Hashed<'_>, pos: index::Pos) {
    // SAFETY: as in `unhash()`.
    unsafe { list::hlist_del_rcu(p.hlist()) };
    index::remove_at(km, p, pos);
}

/// `hlist_replace_rcu(&p->hlist, &ap->hlist)`: puts the aggregate `ap`
/// (same address, being added: prepared, not yet in the table) in `p`'s
/// place, in the table and the index.
pub fn replace(km: &KprobeMutex, p: Hashed<'_>, ap: Hashed<'_>) {
    // SAFETY: `p` is in the table and `ap` is being added (the two views'
    // invariants), and `km` proves `kprobe_mutex` held, the table's writer lock.
    unsafe { list::hlist_replace_rcu(p.hlist(), ap.hlist()) };
    index::replace(km, p, ap);
}

// The architecture's `get_kprobe()` in assembly (arch/ARCH/mod.rs) in
// the kernel build, or this Rust version.
arch_get_kprobe! {
/// `get_kprobe()`: the probe registered at `addr`, or null.  Called under
/// `kprobe_mutex` or with preemption disabled from the arch handlers.
///
/// # Safety
/// One of those two contexts.
#[no_mangle]
// Miri gives a function that may be inlined a new address at each mention
// (Rust does not promise one address per function); `kprobe_busy.addr` is
// this one's address, and `aggr_pre_handler()`, `pre_handler_kretprobe()`
// are compared by address: under Miri only, they are kept out of line, which
// gives them one address there as they have in every real build.
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn get_kprobe(addr: *mut crate::ffi::c_void) -> *mut Kprobe {
    // SAFETY: the caller holds `kprobe_mutex` or runs with preemption disabled
    // (this function's `# Safety`), the two contexts `index::lookup()` accepts.
    unsafe { index::lookup(addr.cast()) }
}
}
crate::nokprobe_symbol!(get_kprobe);

crate::kp_tests!(
    kprobes_rust_registry,
    mod tests {
        use super::{hash_ptr, KPROBE_TABLE_SIZE};

        /// `hash_ptr()` is the kernel's `hash_64_generic()` of the address,
        /// top `KPROBE_HASH_BITS` bits.
        #[test]
        fn hash_ptr_matches_hash_64_generic() {
            // Reference values computed independently (Python big integers:
            // ((v * 0x61C8864680B583EB) mod 2**64) >> 58).
            assert_eq!(hash_ptr(0), 0);
            assert_eq!(hash_ptr(1), 24);
            assert_eq!(hash_ptr(0xffff_ffff_8100_0000), 1);
            assert_eq!(hash_ptr(0xffff_ffff_c000_1234), 21);
            // Inputs 1 << k read out bits [58 - k, 63 - k] of the multiplier, so
            // these cover every bit of GOLDEN_RATIO_64.
            let windows = [
                (58, 43),
                (52, 15),
                (46, 24),
                (40, 45),
                (34, 0),
                (28, 26),
                (22, 36),
                (16, 33),
                (10, 8),
                (4, 7),
            ];
            for (k, h) in windows {
                assert_eq!(hash_ptr(1usize << k), h);
            }
            for a in (0xffff_ffff_8100_0000usize..).step_by(7).take(10_000) {
                assert!(hash_ptr(a) < KPROBE_TABLE_SIZE);
            }
        }

        /// A page of consecutive text addresses reaches every bucket.
        #[test]
        fn hash_spreads_consecutive_text_addresses() {
            let mut used = [0usize; KPROBE_TABLE_SIZE];
            for a in 0xffff_ffff_8100_0000usize..0xffff_ffff_8100_0000 + 4096 {
                used[hash_ptr(a) & (KPROBE_TABLE_SIZE - 1)] += 1;
            }
            assert!(used.iter().all(|&n| n > 0));
        }
    }
);
