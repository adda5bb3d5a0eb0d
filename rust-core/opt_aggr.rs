// SPDX-License-Identifier: GPL-2.0

//! `init_aggr_kprobe()`, one body for both optimizer configurations: a
//! submodule of `opt` (`opt.rs` with `CONFIG_OPTPROBES`, `opt_none.rs`
//! without), whose `NewAggr` is the aggregate its `alloc_aggr_kprobe()`
//! allocated (the `kp` of an `optimized_kprobe`, or a `struct kprobe` of
//! its own); the optimizer also counts the hashed aggregate.

use super::NewAggr;
use crate::flags;
use crate::list;
use crate::locks::KprobeMutex;
use crate::probe::{Aggr, Hashed, NewProbe, Probe};
use crate::registry;
use crate::types::KPROBE_FLAG_OPTIMIZED;
use core::ptr::addr_of_mut;

/// `init_aggr_kprobe()`: fills in aggregate `ap` for the hashed probe `p`
/// and puts `ap` in `p`'s place in the hash table.
pub fn init_aggr_kprobe<'k>(
    km: &'k KprobeMutex,
    ap: NewAggr,
    p: Hashed<'k>,
) -> (Hashed<'k>, Aggr<'k>) {
    let a = ap.kp();
    // SAFETY: `a` is fresh and not yet visible to any reader (a `NewAggr`);
    // `p` is hashed, so prepared: its saved instruction and slot are copied.
    unsafe { NewProbe::new(Probe::from_raw(a)).copy_insn_from(*p) };
    // flush_insn_slot(ap): a no-op on x86 and arm64.
    // SAFETY: no reader sees `a` yet, so its fields may be written plainly
    // before the RCU list updates below publish it.
    unsafe {
        (*a).addr = p.addr();
        flags::put(a, p.flags() & !KPROBE_FLAG_OPTIMIZED);
        (*a).pre_handler = Some(crate::probe::aggr_pre_handler);
        // We don't care the kprobe which has gone.
        if p.post_handler().is_some() && !p.gone() {
            (*a).post_handler = Some(crate::probe::aggr_post_handler);
        }
        list::init_list_head(addr_of_mut!((*a).list));
        list::init_hlist_node(addr_of_mut!((*a).hlist));
    }
    // SAFETY: `a` is prepared (it has `p`'s instruction and slot) and is
    // being hashed in `p`'s place below, with `km` held for `'k`.
    let ah = unsafe { Hashed::from_raw(a) };
    // The aggregate takes over `p`'s arming: remember its ftrace ops
    // (intended divergence, see ftrace.rs).
    #[cfg(CONFIG_KPROBES_ON_FTRACE)]
    if p.ftrace() {
        crate::ftrace::note_armed_ops(km, *ah, p.post_handler().is_some());
    }

    // SAFETY: `p` is hashed and `km` proves `kprobe_mutex` held, which guards
    // the aggregate lists; `a`'s list head is initialized.
    unsafe { list::list_add_rcu(p.list(), addr_of_mut!((*a).list)) };
    #[cfg(CONFIG_OPTPROBES)]
    super::near_add(km, p.addr());
    registry::replace(km, p, ah);
    // SAFETY: `a` is the `kp` of the `optimized_kprobe` `ap` was allocated as,
    // hashed now, so it stays allocated while `km` is held.
    (ah, unsafe { Aggr::from_raw(a) })
}
