// SPDX-License-Identifier: GPL-2.0

//! The kernel's own types that the core embeds or only passes through, on
//! the host: the C definitions of the simulated kernel
//! (`tools/testing/hostdiff/include/kstub.h`), one set for both host
//! builds (the core's tests and the host differential's build of the
//! core, `cfg(KP_MODEL)`), which the simulation (`host/sim.rs`) uses, and
//! the C programs that link it (`tools/testing/hostdiff/sim/`) share.  `ktypes_kernel.rs` is the kernel build's twin
//! (bindgen's definitions).  Below `types`, which embeds some of them in
//! the shared structs, and above `ctypes` only.
//!
//! The layouts are checked on both sides against the same numbers: the
//! const assertions below (Rust), and `tools/testing/hostdiff/rlayout.c`
//! (C `_Static_assert`s on the stub definitions, and on rust-core's view of
//! the shared structs, `c-shim/kprobes_rust_layout.h`), so neither side can
//! change alone.
//!
//! The host tests' simulation keeps its own state next to these structs
//! (`host/sim/`), never in Rust-only fields of them.

use crate::ctypes::{KprobeOpcode, RcuHead};
use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use core::mem::{offset_of, size_of};

/// `struct mutex`: `{ int locked; const char *name; }`.
#[repr(C)]
pub struct Mutex {
    /// Held?
    pub locked: c_int,
    /// The name in `hd_fatal()` messages (the C model's).
    pub name: *const c_char,
}

impl Mutex {
    /// `__MUTEX_INITIALIZER` (without a name).
    pub const fn new() -> Self {
        Mutex {
            locked: 0,
            name: core::ptr::null(),
        }
    }
}

impl Default for Mutex {
    fn default() -> Self {
        Self::new()
    }
}

/// `struct pt_regs`: `{ unsigned long ip, sp; unsigned long args[6]; }`.
#[repr(C)]
#[derive(Default, Debug, Clone)]
pub struct PtRegs {
    /// Instruction pointer.
    pub ip: c_ulong,
    /// Stack pointer.
    pub sp: c_ulong,
    /// The argument registers of the calling convention, in order (x86-64:
    /// rdi, rsi, rdx, rcx, r8, r9; the host tests' jprobes read them).
    pub args: [c_ulong; 6],
}

/// `struct arch_specific_insn`: `{ kprobe_opcode_t *insn; unsigned
/// boostable:1; }`.
#[repr(C)]
pub struct ArchSpecificInsn {
    /// The slot holding the copied instruction.
    pub insn: *mut KprobeOpcode,
    /// The unit holding the one-bit field `boostable` (only arch.c reads it).
    pub bits: c_uint,
}

/// `struct arch_optimized_insn` (x86's layout).
#[repr(C)]
pub struct ArchOptimizedInsn {
    /// Copy of the original instructions.
    pub copied_insn: [KprobeOpcode; 4],
    /// Detour code buffer.
    pub insn: *mut KprobeOpcode,
    /// Size of instructions copied to the detour buffer (0: not prepared).
    pub size: usize,
}

/// `rethook_handler_t`.
pub type RethookHandler = unsafe extern "C" fn(*mut RethookNode, *mut c_void, c_ulong, *mut PtRegs);

/// `struct rethook`: a pool of `num` nodes of `size` bytes.
#[repr(C)]
pub struct Rethook {
    /// `data` (the kretprobe).
    pub data: *mut c_void,
    /// The handler (None once stopped by `rethook_free()`).
    pub handler: Option<RethookHandler>,
    /// Size of a node.
    pub size: c_int,
    /// Number of nodes.
    pub num: c_int,
    /// Nodes in the pool.
    pub nfree: c_int,
    /// Nodes handed out (the C model's).
    pub outstanding: c_int,
    /// `rethook_free()` was called.
    pub freed: bool,
    /// `rcu` (the C model frees it after a grace period).
    pub rcu: RcuHead,
    /// Allocation number (the C model's trace).
    pub id: c_int,
}

/// `struct rethook_node`.
#[repr(C)]
pub struct RethookNode {
    /// `rcu`.
    pub rcu: RcuHead,
    /// The simulated task's list of hooked nodes (the C model), the
    /// rethook's list of free nodes (the host tests' simulation).
    pub next: *mut RethookNode,
    /// The rethook this node belongs to.
    pub rethook: *mut Rethook,
    /// Return address.
    pub ret_addr: c_ulong,
    /// The frame (`hit` number) that hooked it.
    pub frame: c_ulong,
}

/// `struct kprobe_ctlblk` (`arch.c`'s per-CPU variable).
#[repr(C)]
pub struct KprobeCtlblk {
    /// `kprobe_status`.
    pub kprobe_status: c_ulong,
    /// `prev_kprobe.kp`.
    pub prev_kp: *mut crate::types::Kprobe,
    /// `prev_kprobe.status`.
    pub prev_status: c_ulong,
}

/// `enum module_state`.
#[repr(u32)]
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
pub enum ModState {
    /// `MODULE_STATE_LIVE`.
    #[default]
    Live = 0,
    /// `MODULE_STATE_COMING`.
    Coming = 1,
    /// `MODULE_STATE_GOING`.
    Going = 2,
    /// `MODULE_STATE_UNFORMED`.
    Unformed = 3,
}

/// `struct module`: the fields the core and the simulated kernels use.
#[repr(C)]
pub struct Module {
    /// `name`.
    pub name: *const c_char,
    /// `state`.
    pub state: ModState,
    /// References held (`try_module_get()` minus `module_put()`).
    pub refs: c_int,
    /// Loaded (the C model's).
    pub loaded: c_int,
    /// Core text `[core_start, core_end)`.
    pub core_start: c_ulong,
    /// End of the core text.
    pub core_end: c_ulong,
    /// Init text `[init_start, init_end)` (empty once freed).
    pub init_start: c_ulong,
    /// End of the init text.
    pub init_end: c_ulong,
    /// `num_kprobe_blacklist`.
    pub num_kprobe_blacklist: c_uint,
    /// `kprobe_blacklist`: addresses from the module's `_kprobe_blacklist`.
    pub kprobe_blacklist: *mut c_ulong,
    /// `kprobes_text_start` (null: none).
    pub kprobes_text_start: *mut c_void,
    /// `kprobes_text_size`.
    pub kprobes_text_size: c_uint,
    /// `noinstr_text_start` (null: none).
    pub noinstr_text_start: *mut c_void,
    /// `noinstr_text_size`.
    pub noinstr_text_size: c_uint,
}

impl Default for Module {
    /// A live module without text, name or blacklist.
    fn default() -> Self {
        Module {
            name: core::ptr::null(),
            state: ModState::Live,
            refs: 0,
            loaded: 0,
            core_start: 0,
            core_end: 0,
            init_start: 0,
            init_end: 0,
            num_kprobe_blacklist: 0,
            kprobe_blacklist: core::ptr::null_mut(),
            kprobes_text_start: core::ptr::null_mut(),
            kprobes_text_size: 0,
            noinstr_text_start: core::ptr::null_mut(),
            noinstr_text_size: 0,
        }
    }
}

/// `struct file`: `{ const struct cred *f_cred; }`.
#[repr(C)]
pub struct File {
    /// `f_cred` (opaque).
    pub f_cred: *const c_void,
}

/// `struct seq_file`: `{ char *buf; size_t len, cap; struct file *file; }`.
#[repr(C)]
pub struct SeqFile {
    /// The text shown so far (`len` bytes, not NUL-terminated).
    pub buf: *mut c_char,
    /// Bytes in `buf`.
    pub len: usize,
    /// Room in `buf`.
    pub cap: usize,
    /// The file being read.
    pub file: *mut File,
}

/// `proc_handler`.
pub type ProcHandler =
    unsafe extern "C" fn(*const CtlTable, c_int, *mut c_void, *mut usize, *mut i64) -> c_int;

/// `struct ctl_table`.
#[repr(C)]
pub struct CtlTable {
    /// `procname`.
    pub procname: *const c_char,
    /// `data`.
    pub data: *mut c_void,
    /// `maxlen`.
    pub maxlen: c_int,
    /// `mode`.
    pub mode: u16,
    /// `proc_handler`.
    pub proc_handler: Option<ProcHandler>,
    /// `extra1`.
    pub extra1: *mut c_void,
    /// `extra2`.
    pub extra2: *mut c_void,
}

impl Default for CtlTable {
    /// An entry with no name, data or handler.
    fn default() -> Self {
        CtlTable {
            procname: core::ptr::null(),
            data: core::ptr::null_mut(),
            maxlen: 0,
            mode: 0,
            proc_handler: None,
            extra1: core::ptr::null_mut(),
            extra2: core::ptr::null_mut(),
        }
    }
}

/// `ftrace_func_t`.
pub type FtraceFunc = unsafe extern "C" fn(c_ulong, c_ulong, *mut FtraceOps, *mut c_void);

/// `HD_FTRACE_MAX_FILTER`: room in an ops' filter.
pub const FTRACE_MAX_FILTER: usize = 256;
/// `FTRACE_OPS_FL_ENABLED`.
pub const FTRACE_OPS_FL_ENABLED: c_ulong = 1 << 0;
/// `FTRACE_OPS_FL_SAVE_REGS`.
pub const FTRACE_OPS_FL_SAVE_REGS: c_ulong = 1 << 2;
/// `FTRACE_OPS_FL_IPMODIFY`.
pub const FTRACE_OPS_FL_IPMODIFY: c_ulong = 1 << 9;

/// `struct ftrace_ops`: its handler and flags, and the simulated kernel's
/// filter (`nfilter` addresses).
#[repr(C)]
pub struct FtraceOps {
    /// `func`.
    pub func: Option<FtraceFunc>,
    /// `flags` (`FTRACE_OPS_FL_*`).
    pub flags: c_ulong,
    /// Addresses in `filter`.
    pub nfilter: c_int,
    /// The filter (empty: every ftrace site).
    pub filter: [c_ulong; FTRACE_MAX_FILTER],
}

impl Default for FtraceOps {
    fn default() -> Self {
        Self::new(0)
    }
}

impl FtraceOps {
    /// An ops with these flags, no handler and an empty filter.
    pub const fn new(flags: c_ulong) -> Self {
        FtraceOps {
            func: None,
            flags,
            nfilter: 0,
            filter: [0; FTRACE_MAX_FILTER],
        }
    }

    /// The filter's addresses.
    pub fn filter(&self) -> &[c_ulong] {
        &self.filter[..self.nfilter as usize]
    }

    /// Registered (`FTRACE_OPS_FL_ENABLED`)?
    pub fn enabled(&self) -> bool {
        self.flags & FTRACE_OPS_FL_ENABLED != 0
    }
}

// The same numbers as tools/testing/hostdiff/rlayout.c asserts for the C
// definitions (x86_64).
const _: () = {
    assert!(size_of::<Mutex>() == 16);
    assert!(offset_of!(Mutex, locked) == 0 && offset_of!(Mutex, name) == 8);
    assert!(size_of::<PtRegs>() == 64);
    assert!(offset_of!(PtRegs, ip) == 0 && offset_of!(PtRegs, sp) == 8);
    assert!(offset_of!(PtRegs, args) == 16);
    assert!(size_of::<ArchSpecificInsn>() == 16);
    assert!(offset_of!(ArchSpecificInsn, insn) == 0 && offset_of!(ArchSpecificInsn, bits) == 8);
    assert!(size_of::<ArchOptimizedInsn>() == 24);
    assert!(offset_of!(ArchOptimizedInsn, copied_insn) == 0);
    assert!(offset_of!(ArchOptimizedInsn, insn) == 8 && offset_of!(ArchOptimizedInsn, size) == 16);
    assert!(size_of::<Rethook>() == 64);
    assert!(offset_of!(Rethook, data) == 0 && offset_of!(Rethook, handler) == 8);
    assert!(offset_of!(Rethook, size) == 16 && offset_of!(Rethook, num) == 20);
    assert!(offset_of!(Rethook, nfree) == 24 && offset_of!(Rethook, outstanding) == 28);
    assert!(offset_of!(Rethook, freed) == 32 && offset_of!(Rethook, rcu) == 40);
    assert!(offset_of!(Rethook, id) == 56);
    assert!(size_of::<RethookNode>() == 48);
    assert!(offset_of!(RethookNode, rcu) == 0 && offset_of!(RethookNode, next) == 16);
    assert!(offset_of!(RethookNode, rethook) == 24 && offset_of!(RethookNode, ret_addr) == 32);
    assert!(offset_of!(RethookNode, frame) == 40);
    assert!(size_of::<KprobeCtlblk>() == 24);
    assert!(offset_of!(KprobeCtlblk, kprobe_status) == 0);
    assert!(size_of::<KprobeOpcode>() == 1);
    assert!(size_of::<ModState>() == 4);
    assert!(size_of::<Module>() == 104);
    assert!(offset_of!(Module, state) == 8 && offset_of!(Module, core_start) == 24);
    assert!(
        offset_of!(Module, num_kprobe_blacklist) == 56
            && offset_of!(Module, kprobe_blacklist) == 64
    );
    assert!(
        offset_of!(Module, kprobes_text_start) == 72 && offset_of!(Module, kprobes_text_size) == 80
    );
    assert!(
        offset_of!(Module, noinstr_text_start) == 88 && offset_of!(Module, noinstr_text_size) == 96
    );
    assert!(size_of::<File>() == 8);
    assert!(size_of::<SeqFile>() == 32);
    assert!(offset_of!(SeqFile, len) == 8 && offset_of!(SeqFile, cap) == 16);
    assert!(offset_of!(SeqFile, file) == 24);
    assert!(size_of::<CtlTable>() == 48);
    assert!(offset_of!(CtlTable, data) == 8 && offset_of!(CtlTable, maxlen) == 16);
    assert!(offset_of!(CtlTable, mode) == 20 && offset_of!(CtlTable, proc_handler) == 24);
    assert!(offset_of!(CtlTable, extra1) == 32 && offset_of!(CtlTable, extra2) == 40);
    assert!(size_of::<FtraceOps>() == 24 + 8 * FTRACE_MAX_FILTER);
    assert!(offset_of!(FtraceOps, flags) == 8 && offset_of!(FtraceOps, nfilter) == 16);
    assert!(offset_of!(FtraceOps, filter) == 24);
    use crate::types::*;
    assert!(KPROBE_FLAG_GONE == 1 && KPROBE_FLAG_DISABLED == 2 && KPROBE_FLAG_OPTIMIZED == 4);
    assert!(KPROBE_FLAG_FTRACE == 8 && KPROBE_FLAG_ON_FUNC_ENTRY == 16);
};
