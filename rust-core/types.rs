// SPDX-License-Identifier: GPL-2.0

//! The Rust view of the C structures the core shares with the rest of the
//! kernel (`include/linux/kprobes.h`, `include/linux/types.h`).
//!
//! Every structure here is `#[repr(C)]` and must match its C twin exactly:
//! in the kernel build the const assertions at the end of this file compare
//! the size and the offset of every field with the bindgen'd C definition,
//! so a mismatch is a compile error.

pub use crate::ctypes::{callback_head, HlistHead, HlistNode, KprobeOpcode, ListHead, RcuHead};
use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};

/// `struct pt_regs` (only passed through).
pub type PtRegs = crate::ktypes::PtRegs;
/// `struct arch_specific_insn` (x86; only the arch code looks inside).
pub type ArchSpecificInsn = crate::ktypes::ArchSpecificInsn;

/// Proof that preemption is disabled on this CPU for `'a`: a kprobe,
/// ftrace or kretprobe trampoline handler's context, or a
/// `preempt_disable()` section (`aggr::busy_begin()`).  The per-CPU
/// accesses of the handler paths (`sys::set_current_kprobe()` and the
/// others, `__this_cpu_write()` in C) take it: this CPU's copy stays this
/// CPU's while they run.  Not `Send`: it is one CPU's.
#[derive(Clone, Copy)]
pub struct PreemptOff<'a>(core::marker::PhantomData<&'a *mut ()>);

impl PreemptOff<'_> {
    /// The token, in a context where preemption is disabled.
    ///
    /// # Safety
    /// Preemption is disabled on this CPU for as long as the token is used.
    #[inline(always)]
    pub unsafe fn assume() -> Self {
        PreemptOff(core::marker::PhantomData)
    }
}

/// `kprobe_pre_handler_t`.
pub type KprobePreHandler = Option<unsafe extern "C" fn(*mut Kprobe, *mut PtRegs) -> c_int>;
/// `kprobe_post_handler_t`.
pub type KprobePostHandler = Option<unsafe extern "C" fn(*mut Kprobe, *mut PtRegs, c_ulong)>;

/// `struct kprobe`, named as C names it for kCFI (`abi.rs`).
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct kprobe {
    /// Entry in the `kprobe_table` bucket.
    pub hlist: HlistNode,
    /// List of kprobes for multi-handler support (aggregates).
    pub list: ListHead,
    /// Count the number of times this probe was temporarily disarmed.
    pub nmissed: c_ulong,
    /// Location of the probe point.
    pub addr: *mut KprobeOpcode,
    /// Allow user to indicate symbol name of the probe point.
    pub symbol_name: *const c_char,
    /// Offset into the symbol.
    pub offset: c_uint,
    /// Called before addr is executed.
    pub pre_handler: KprobePreHandler,
    /// Called after addr is executed, unless...
    pub post_handler: KprobePostHandler,
    /// Saved opcode (which has been replaced with breakpoint).
    pub opcode: KprobeOpcode,
    /// Copy of the original instruction.
    pub ainsn: ArchSpecificInsn,
    /// Status flags (`KPROBE_FLAG_*`); protected by kprobe_mutex after
    /// this kprobe is registered.
    pub flags: u32,
}
/// `struct kprobe`.
pub type Kprobe = kprobe;

/// Breakpoint has already gone.
pub const KPROBE_FLAG_GONE: u32 = 1;
/// Probe is temporarily disabled.
pub const KPROBE_FLAG_DISABLED: u32 = 2;
/// Probe is really optimized (only for optimized_kprobe).
pub const KPROBE_FLAG_OPTIMIZED: u32 = 4;
/// Probe is using ftrace.
pub const KPROBE_FLAG_FTRACE: u32 = 8;
/// Probe is on the function entry.
pub const KPROBE_FLAG_ON_FUNC_ENTRY: u32 = 16;

/// `struct kprobe_blacklist_entry`: one blacklisted address range.
#[repr(C)]
pub struct KprobeBlacklistEntry {
    /// Entry in `kprobe_blacklist`.
    pub list: ListHead,
    /// First blacklisted address.
    pub start_addr: usize,
    /// One past the last blacklisted address.
    pub end_addr: usize,
    /// For `kfree_rcu()`.
    pub rcu: callback_head,
}

/// The blacklist-related areas of a module, as `sys::module_areas()` reads
/// them from the kernel's or the simulation's `struct module`.
pub struct ModuleAreas<'a> {
    /// `mod->kprobe_blacklist[0..num_kprobe_blacklist]`.
    pub ksyms: &'a [usize],
    /// `kprobes_text_start`, `kprobes_text_size` (start 0: none).
    pub kprobes_text: (usize, usize),
    /// `noinstr_text_start`, `noinstr_text_size` (start 0: none).
    pub noinstr_text: (usize, usize),
}

/// `struct mutex`: the kernel's own in the kernel build (its size depends on
/// the lock debugging options), a simulated one on the host.
pub type Mutex = crate::ktypes::Mutex;

/// `struct kprobe_insn_cache`: a cache of executable pages cut into
/// instruction slots (`kprobe_insn_slots`, `kprobe_optinsn_slots`).
#[repr(C)]
pub struct KprobeInsnCache {
    /// Protects the slot arrays of `pages` (the list itself is RCU).
    pub mutex: Mutex,
    /// Allocates an executable page.
    pub alloc: Option<unsafe extern "C" fn() -> *mut c_void>,
    /// Frees a page from `alloc`.
    pub free: Option<unsafe extern "C" fn(page: *mut c_void)>,
    /// Symbol name of the pages for kallsyms and perf.
    pub sym: *const c_char,
    /// List of [`crate::slots::KprobeInsnPage`], RCU-protected.
    pub pages: ListHead,
    /// Size of one slot, in `kprobe_opcode_t` units.
    pub insn_size: usize,
    /// Number of dirty slots waiting for garbage collection.
    pub nr_garbage: c_int,
}

/// `struct arch_optimized_insn` (x86; only the arch code looks inside,
/// except `arch_prepared_optinsn()`).
#[cfg(CONFIG_OPTPROBES)]
pub type ArchOptimizedInsn = crate::ktypes::ArchOptimizedInsn;

/// `struct optimized_kprobe`: the aggregate probe, which the jump optimizer
/// can turn into a jump to a detour buffer.  `list` is the membership in the
/// optimizer's queues that `arch/x86/kernel/kprobes/opt.c` reads.  Without
/// `CONFIG_OPTPROBES` the kernel has none: an aggregate is a `struct kprobe`
/// (`opt_none.rs`).
#[cfg(CONFIG_OPTPROBES)]
#[repr(C)]
pub struct OptimizedKprobe {
    /// The aggregate probe itself.
    pub kp: kprobe,
    /// Entry in the optimizing/unoptimizing/freeing list, or empty.
    pub list: ListHead,
    /// The arch's detour buffer state.
    pub optinsn: ArchOptimizedInsn,
}

/// `struct rethook` (opaque).
pub type Rethook = crate::ktypes::Rethook;
/// `struct rethook_node`.
pub type RethookNode = crate::ktypes::RethookNode;

/// `kretprobe_handler_t`.
pub type KretprobeHandler =
    Option<unsafe extern "C" fn(*mut KretprobeInstance, *mut PtRegs) -> c_int>;

/// `struct kretprobe`: its last member is the rethook that supplies the
/// instances (`CONFIG_KRETPROBE_ON_RETHOOK`) or the holder of their pool
/// (the arch's own trampoline, arm64).
#[repr(C)]
pub struct Kretprobe {
    /// The entry probe.
    pub kp: kprobe,
    /// Called on return.
    pub handler: KretprobeHandler,
    /// Called on entry; non-zero means no return handler for this call.
    pub entry_handler: KretprobeHandler,
    /// Maximum number of instances in flight (0: default).
    pub maxactive: c_int,
    /// Calls missed because no instance was free.
    pub nmissed: c_int,
    /// Size of the per-instance private data.
    pub data_size: usize,
    /// The rethook that supplies the instances.
    #[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
    pub rh: *mut Rethook,
    /// The holder of the instances' pool.
    #[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
    pub rph: *mut KretprobeHolder,
}

/// `struct kretprobe_holder` (`!CONFIG_KRETPROBE_ON_RETHOOK`): outlives
/// its kretprobe until the pool's last instance is freed.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[repr(C)]
pub struct KretprobeHolder {
    /// The kretprobe (`__rcu`), null once it is unregistered.
    pub rp: *mut Kretprobe,
    /// The instances.
    pub pool: ObjpoolHead,
}

/// `struct objpool_head`.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub type ObjpoolHead = crate::ktypes::ObjpoolHead;
/// `struct llist_node`.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
pub type LlistNode = crate::ktypes::LlistNode;

/// `struct jprobe` of `<linux/jprobes.h>` (`CONFIG_KPROBES_RUST_JPROBES`) (checked by the C
/// shim's layout asserts).
#[repr(C)]
pub struct Jprobe {
    /// The entry probe.
    pub kp: kprobe,
    /// The handler, with the probed function's prototype.
    pub entry: *mut c_void,
}

/// `struct kretprobe_instance` (`CONFIG_KRETPROBE_ON_RETHOOK`): a rethook
/// node followed by `data_size` bytes of private data.
#[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct kretprobe_instance {
    /// The rethook node (first: the instance is its container).
    pub node: RethookNode,
    /// The private data.
    pub data: [u8; 0],
}

/// `struct kretprobe_instance` (`!CONFIG_KRETPROBE_ON_RETHOOK`): an
/// object of its kretprobe's pool followed by `data_size` bytes of private
/// data.
#[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct kretprobe_instance {
    /// For `call_rcu()` once its kretprobe is gone.
    pub rcu: callback_head,
    /// On its task's `kretprobe_instances` list.
    pub llist: LlistNode,
    /// Its kretprobe's holder.
    pub rph: *mut KretprobeHolder,
    /// The real return address.
    pub ret_addr: *mut KprobeOpcode,
    /// The frame it is for.
    pub fp: *mut c_void,
    /// The private data.
    pub data: [u8; 0],
}

/// `struct kretprobe_instance`.
pub type KretprobeInstance = kretprobe_instance;

/// `struct kretprobe_blackpoint`: a function kretprobes may not probe.
#[repr(C)]
pub struct KretprobeBlackpoint {
    /// Its name (null ends the table).
    pub name: *const c_char,
    /// Its address, looked up at init.
    pub addr: *mut c_void,
}

/// Compile-time layout checks against the kernel's C definitions.
#[cfg(CONFIG_RUST)]
mod layout {
    use super::*;
    use core::mem::{offset_of, size_of};
    use kernel::bindings as b;

    /// Asserts that two structs have the same size and that every listed
    /// field sits at the same offset in both.
    macro_rules! same_layout {
        ($rust:ty, $c:ty, [$($f:ident),* $(,)?]) => {
            const _: () = {
                assert!(size_of::<$rust>() == size_of::<$c>());
                $( assert!(offset_of!($rust, $f) == offset_of!($c, $f)); )*
            };
        };
    }

    same_layout!(ListHead, b::list_head, [next, prev]);
    same_layout!(RcuHead, b::callback_head, [next, func]);
    same_layout!(HlistHead, b::hlist_head, [first]);
    same_layout!(HlistNode, b::hlist_node, [next, pprev]);
    same_layout!(
        Kprobe,
        b::kprobe,
        [
            hlist,
            list,
            nmissed,
            addr,
            symbol_name,
            offset,
            pre_handler,
            post_handler,
            opcode,
            ainsn,
            flags
        ]
    );
    const _: () = {
        assert!(KPROBE_FLAG_GONE == b::KPROBE_FLAG_GONE);
        assert!(KPROBE_FLAG_DISABLED == b::KPROBE_FLAG_DISABLED);
        assert!(KPROBE_FLAG_OPTIMIZED == b::KPROBE_FLAG_OPTIMIZED);
        assert!(KPROBE_FLAG_FTRACE == b::KPROBE_FLAG_FTRACE);
        assert!(KPROBE_FLAG_ON_FUNC_ENTRY == b::KPROBE_FLAG_ON_FUNC_ENTRY);
    };
    same_layout!(
        KprobeBlacklistEntry,
        b::kprobe_blacklist_entry,
        [list, start_addr, end_addr, rcu]
    );
    same_layout!(
        KprobeInsnCache,
        b::kprobe_insn_cache,
        [mutex, alloc, free, sym, pages, insn_size, nr_garbage]
    );
    const _: () = assert!(size_of::<KprobeOpcode>() == size_of::<b::kprobe_opcode_t>());
    #[cfg(CONFIG_OPTPROBES)]
    same_layout!(OptimizedKprobe, b::optimized_kprobe, [kp, list, optinsn]);
    same_layout!(
        Kretprobe,
        b::kretprobe,
        [kp, handler, entry_handler, maxactive, nmissed, data_size]
    );
    #[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
    const _: () = assert!(offset_of!(Kretprobe, rh) == offset_of!(b::kretprobe, rh));
    #[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
    const _: () = assert!(offset_of!(Kretprobe, rph) == offset_of!(b::kretprobe, rph));
    #[cfg(CONFIG_KRETPROBE_ON_RETHOOK)]
    same_layout!(KretprobeInstance, b::kretprobe_instance, [node, data]);
    #[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
    same_layout!(KretprobeHolder, b::kretprobe_holder, [rp, pool]);
    #[cfg(not(CONFIG_KRETPROBE_ON_RETHOOK))]
    same_layout!(
        KretprobeInstance,
        b::kretprobe_instance,
        [rcu, llist, rph, ret_addr, fp, data]
    );
    same_layout!(KretprobeBlackpoint, b::kretprobe_blackpoint, [name, addr]);
}

/// `loff_t`.
pub type Loff = i64;
