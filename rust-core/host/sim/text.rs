// SPDX-License-Identifier: GPL-2.0

//! The simulated arch (x86's kprobes and optprobes layer): text patching
//! as [`Arch::events`] lines, the insn slot caches, the optimizer's jumps,
//! the arch's kretprobe blacklist; and [`Arch`], the per-thread state of
//! the simulated arch and of the kernel services the registration side
//! uses (locks, ftrace, the workqueue, rethook's hooked returns, printk).
//! Every call the core makes into the "arch" is logged as a line in
//! `Arch::events`, in the host differential's trace vocabulary (`arch.c`'s
//! `hd_trace()` lines without their indent: `arch_arm_kprobe f0+0x4`,
//! `arch_optimize_kprobes f0+0x8`, ...), so tests can assert on the exact
//! sequence of text patching operations.

use super::image::{in_range, model};
use super::kernel_text;
use super::link;
use super::model::{present_model_sym, reserved_site, ModelSym, SymKind, MODEL_ENTRY};
use super::trace::{ev, hd_page, hd_sym, warn};
use super::RethookNode;
use super::{EBUSY_SIM, EEXIST, EILSEQ, EINVAL, ENOMEM, ERANGE};
use crate::ffi::{c_char, c_int, c_uint, c_ulong};
use crate::ktypes::{FtraceOps, FTRACE_OPS_FL_IPMODIFY, FTRACE_OPS_FL_SAVE_REGS};
use crate::types::{
    Kprobe, KprobeInsnCache, KprobeOpcode, KretprobeBlackpoint, ListHead, OptimizedKprobe,
    KPROBE_FLAG_DISABLED, KPROBE_FLAG_GONE,
};
use std::cell::RefCell;

/// Simulated `kprobe_insn_slots` / `kprobe_optinsn_slots`: per test thread,
/// set up by the tests that need them (null otherwise).
#[derive(Clone, Copy)]
pub struct Caches {
    /// `&kprobe_insn_slots`.
    pub insn: *mut KprobeInsnCache,
    /// `&kprobe_optinsn_slots`.
    pub optinsn: *mut KprobeInsnCache,
    /// Number of extra kallsyms entries `arch_kprobe_get_kallsym()` has.
    pub arch_syms: c_uint,
}

thread_local! {
    static CACHES: RefCell<Caches> = const {
        RefCell::new(Caches { insn: core::ptr::null_mut(), optinsn: core::ptr::null_mut(), arch_syms: 0 })
    };
}

/// Sets this thread's global caches.
pub fn set_caches(c: Caches) {
    CACHES.with(|x| *x.borrow_mut() = c);
}

/// `&kprobe_insn_slots`.
pub fn insn_slots() -> *mut KprobeInsnCache {
    CACHES.with(|x| x.borrow().insn)
}

/// `&kprobe_optinsn_slots`.
pub fn optinsn_slots() -> *mut KprobeInsnCache {
    CACHES.with(|x| x.borrow().optinsn)
}

/// `arch_kprobe_get_kallsym()`: `arch_syms` entries named `arch_sym<N>` at
/// `0xa000 + N`, then -ERANGE.
///
/// # Safety
/// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
pub unsafe fn arch_kprobe_get_kallsym(
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    let n = CACHES.with(|x| x.borrow().arch_syms);
    // SAFETY: the out pointers are valid and `sym` has `KSYM_NAME_LEN`
    // bytes, more than a name `arch_sym<N>` needs (this function's
    // `# Safety`).
    unsafe {
        if *symnum < n {
            let name = format!("arch_sym{}\0", *symnum);
            core::ptr::copy_nonoverlapping(name.as_ptr(), sym, name.len());
            *type_ = b't';
            *value = 0xa000 + *symnum as c_ulong;
            return 0;
        }
        *symnum -= n;
    }
    -ERANGE
}

// The simulated kernel's own `list.h` (what `arch.c` gets from the
// stubs): the few operations x86's optimizer code does on `op->list`.

/// `list_for_each_safe()`: the entries of the list at `head`, collected
/// first, so the caller may unlink or move each.
///
/// # Safety
/// `head` is a live list whose lock the caller holds.
unsafe fn list_entries(head: *mut ListHead) -> Vec<*mut ListHead> {
    let mut v = Vec::new();
    // SAFETY: `head` and its entries are live and not changed meanwhile (the
    // caller holds the lock, this function's `# Safety`).
    unsafe {
        let mut l = (*head).next;
        while l != head {
            v.push(l);
            l = (*l).next;
        }
    }
    v
}

/// `container_of(l, struct optimized_kprobe, list)`.
fn op_of_list(l: *mut ListHead) -> *mut OptimizedKprobe {
    l.cast::<u8>()
        .wrapping_sub(core::mem::offset_of!(OptimizedKprobe, list))
        .cast()
}

/// `__list_del_entry()`.
///
/// # Safety
/// `e` is on a list whose lock the caller holds.
unsafe fn list_del_entry(e: *mut ListHead) {
    // SAFETY: `e` and its neighbours are live and only the lock holder, the
    // caller, accesses them (this function's `# Safety`).
    unsafe {
        let (prev, next) = ((*e).prev, (*e).next);
        (*next).prev = prev;
        (*prev).next = next;
    }
}

/// `list_del_init()`.
///
/// # Safety
/// `e` is on a list whose lock the caller holds.
unsafe fn list_del_init(e: *mut ListHead) {
    // SAFETY: as `list_del_entry()` (this function's `# Safety`); `e` is then
    // the caller's alone, to point at itself.
    unsafe {
        list_del_entry(e);
        (*e).next = e;
        (*e).prev = e;
    }
}

/// `list_move(e, head)`: `e` goes right after `head`.
///
/// # Safety
/// `e` is on a list and `head` is live; the caller holds their lock.
unsafe fn list_move(e: *mut ListHead, head: *mut ListHead) {
    // SAFETY: as `list_del_entry()`; `e` is then on no list, and `head` and
    // its first entry are live under the caller's lock (`# Safety`).
    unsafe {
        list_del_entry(e);
        let next = (*head).next;
        (*next).prev = e;
        (*e).next = next;
        (*e).prev = head;
        (*head).next = e;
    }
}

/// State of the simulated arch and of the services below, per thread.
#[derive(Default)]
pub struct Arch {
    /// The trace: what the core did to the simulated kernel, in order, as
    /// the host differential's model (`model.c`, `arch.c`) writes it
    /// (MODEL.md section 4), one line each without the two-blank indent:
    /// `arch_*` calls, ftrace calls, `WARN`, `log LEVEL: ...`,
    /// `~synchronize_rcu*`, `~work ...`, `?` queries.
    pub events: Vec<String>,
    /// Addresses whose `arch_prepare_kprobe()` fails (-EILSEQ).
    pub unpreparable: Vec<usize>,
    /// Addresses the jump optimizer can take (size 5 detour).
    pub optimizable: Vec<usize>,
    /// Fail the next `ftrace_set_filter_ip()` calls with this error.
    pub ftrace_fail: Option<c_int>,
    /// Fail the next `register_ftrace_function()` with this error.
    pub ftrace_register_fail: Option<c_int>,
    /// The two kprobe ftrace ops (plain, ipmodify): registered
    /// (`FTRACE_OPS_FL_ENABLED`) and their filters.
    pub ftrace_ops: [FtraceOps; 2],
    /// `ftrace_set_filter_ips()` calls per ops.
    pub ftrace_batch_calls: [usize; 2],
    /// Fail the next `ftrace_set_filter_ips()` on this ops (ipmodify?)
    /// with this error.
    pub ftrace_batch_fail: Option<(bool, c_int)>,
    /// An address another `FTRACE_OPS_FL_IPMODIFY` ops has: adding it to
    /// the ipmodify ops' filter fails with -EBUSY, every time.
    pub ftrace_busy_ip: Option<usize>,
    /// The optimizer's delayed work is queued.
    pub optimizer_pending: bool,
    /// `synchronize_rcu_tasks()` calls.
    pub rcu_tasks: usize,
    /// Lock state: kprobe_mutex, text_mutex, cpus_read_lock depth.
    pub kprobe_mutex: bool,
    /// `text_mutex` held.
    pub text_mutex: bool,
    /// `cpus_read_lock()` depth.
    pub cpus_read: usize,
    /// The kernel's init text was freed ([`hd_free_init`](super::hd_free_init)).
    pub init_freed: bool,
    /// `jump_label_lock()` held (model.c's `jump_label_mutex`).
    pub jump_label: bool,
    /// `kprobe_sysctl_mutex` held.
    pub sysctl_mutex: bool,
    /// Hooked returns: (node, frame), innermost last.
    pub hooked: Vec<*mut RethookNode>,
    /// The current top-level frame (model.c's `hd_frame`,
    /// [`hd_new_frame`](super::hd_new_frame)).
    pub frame: c_ulong,
    /// The sysctl value the simulated `proc_dointvec_minmax()` writes.
    pub sysctl_write: Option<c_int>,
    /// Simulated `[__init_begin, __init_end)`.
    pub init_area: (usize, usize),
    /// Simulated `_kprobe_blacklist` section contents.
    pub blacklist_section: Vec<c_ulong>,
    /// Simulated possible CPUs.
    pub possible_cpus: c_uint,
    /// arch.c's int3 addresses, in its array order (with
    /// [`Image::as_model`](super::Image::as_model)).
    pub int3s: Vec<usize>,
    /// arch.c's optimized jumps (address, size, `optimized_kprobe`), in its
    /// array order.
    pub jumps: Vec<(usize, usize, usize)>,
    /// The registered ftrace ops, most recently registered first (model.c's
    /// `hd_ftrace_ops[]`; `true`: the IPMODIFY one), for the trap paths.
    pub ftrace_registered: Vec<bool>,
}

thread_local! {
    static ARCH: RefCell<Arch> = RefCell::new(Arch::fresh());
}

impl Arch {
    /// The state at boot: 4 possible CPUs, the two kprobe ftrace ops
    /// (`kprobe_ftrace_ops`, `kprobe_ipmodify_ops`) unregistered.
    fn fresh() -> Arch {
        Arch {
            possible_cpus: 4,
            ftrace_ops: [
                FtraceOps::new(FTRACE_OPS_FL_SAVE_REGS),
                FtraceOps::new(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY),
            ],
            ..Arch::default()
        }
    }
}

/// Runs `f` on this thread's arch state.
pub fn arch<R>(f: impl FnOnce(&mut Arch) -> R) -> R {
    ARCH.with(|a| f(&mut a.borrow_mut()))
}

/// Resets this thread's arch state (the core's reset for the tests calls
/// it, under [`exclusive`](super::exclusive)).
pub fn reset_arch() {
    ARCH.with(|a| {
        *a.borrow_mut() = Arch::fresh();
    });
}

/// `MAX_OPTIMIZED_LENGTH` (x86: `MAX_INSN_SIZE + DISP32_SIZE`, as the
/// kernel and the host differential have it).
pub const MAX_OPTIMIZED_LENGTH: usize = 16 + 4;

/// `MAX_OPTINSN_SIZE` (any non-zero value; with
/// [`Image::as_model`](super::Image::as_model), x86's and arch.c's
/// `128 + 20 + 5`).
pub fn max_optinsn_size() -> usize {
    if model() {
        MODEL_MAX_OPTINSN_SIZE
    } else {
        64
    }
}

/// arch.c's `MAX_OPTINSN_SIZE`: `TMPL_END_IDX + MAX_OPTIMIZED_LENGTH +
/// JMP32_INSN_SIZE`.
const MODEL_MAX_OPTINSN_SIZE: usize = 128 + MAX_OPTIMIZED_LENGTH + JMP32_INSN_SIZE;

/// `JMP32_INSN_SIZE`.
const JMP32_INSN_SIZE: usize = 5;

/// `get_insn_slot()` / `get_optinsn_slot()`: a slot of the core's cache
/// (the image must have them: [`set_caches`]).
fn get_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
    assert!(!c.is_null(), "arch.c's slots need the insn caches");
    // SAFETY: `c` is this thread's live insn cache ([`set_caches`]).
    unsafe { link::__get_insn_slot(c) }
}

/// `free_insn_slot()` / `free_optinsn_slot()`.
fn free_slot(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: bool) {
    // SAFETY: `c` is this thread's live insn cache ([`set_caches`]), which
    // gave out `slot`.
    unsafe { link::__free_insn_slot(c, slot, dirty as c_int) }
}

/// arch.c's `can_probe()`: an instruction boundary of a present table
/// symbol; and whether that instruction is boostable.
fn model_can_probe(a: usize) -> Option<bool> {
    let s = present_model_sym(a)?;
    s.insn_at(a - s.addr)?;
    Some(s.nonboost != Some(a - s.addr))
}

/// arch.c's `arch_prepare_kprobe()` (with [`Image::as_model`](super::Image::as_model)).
///
/// # Safety
/// `p` is live.
unsafe fn model_prepare_kprobe(p: *mut Kprobe, a: usize) -> c_int {
    let Some(boost) = model_can_probe(a) else {
        return -EILSEQ;
    };
    let slot = get_slot(insn_slots());
    // SAFETY: `p` is live (this function's `# Safety`).
    unsafe {
        // arch.c saves the address's low byte as the "opcode".
        (*p).opcode = a as KprobeOpcode;
        (*p).ainsn.insn = slot;
        if slot.is_null() {
            return -ENOMEM;
        }
        (*p).ainsn.bits = ((*p).ainsn.bits & !1) | boost as c_uint;
    }
    0
}

/// `arch_prepare_kprobe()`: gives the probe a fake slot, or -EILSEQ for
/// an `unpreparable` address; with [`Image::as_model`](super::Image::as_model),
/// arch.c's: -EILSEQ unless `addr` is an instruction boundary of a present
/// symbol, else a slot of `kprobe_insn_slots` and the `boostable` bit.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe(p: *mut Kprobe) -> c_int {
    // SAFETY: `p` is live (this function's `# Safety`).
    let a = unsafe { (*p).addr } as usize;
    if model() {
        // SAFETY: `p` is live (this function's `# Safety`).
        let ret = unsafe { model_prepare_kprobe(p, a) };
        // SAFETY: `p` is live (this function's `# Safety`).
        let slot = unsafe { (*p).ainsn.insn };
        ev(format!(
            "arch_prepare_kprobe {} = {ret} slot={}",
            hd_sym(a),
            hd_page(if ret == 0 {
                slot
            } else {
                core::ptr::null_mut()
            })
        ));
        return ret;
    }
    let ret = if arch(|x| x.unpreparable.contains(&a)) {
        -EILSEQ
    } else {
        // SAFETY: `p` is live (this function's `# Safety`).
        unsafe { (*p).ainsn.insn = (0x5107_0000 + (a & 0xffff)) as *mut KprobeOpcode };
        0
    };
    // A fake slot, in no execmem page (arch.c's is from kprobe_insn_slots).
    // SAFETY: `p` is live (this function's `# Safety`).
    let slot = if ret == 0 {
        unsafe { (*p).ainsn.insn }
    } else {
        core::ptr::null_mut()
    };
    ev(format!(
        "arch_prepare_kprobe {} = {ret} slot={}",
        hd_sym(a),
        hd_page(slot)
    ));
    ret
}

/// `arch_prepare_kprobe_ftrace()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_prepare_kprobe_ftrace(p: *mut Kprobe) -> c_int {
    // SAFETY: `p` is live (this function's `# Safety`).
    unsafe {
        (*p).ainsn.insn = core::ptr::null_mut();
        ev(format!(
            "arch_prepare_kprobe_ftrace {} = 0",
            hd_sym((*p).addr as usize)
        ));
    }
    0
}

/// `arch_arm_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_arm_kprobe(p: *mut Kprobe) {
    assert!(arch(|a| a.text_mutex), "arm without text_mutex");
    // SAFETY: `p` is live (this function's `# Safety`).
    let a = unsafe { (*p).addr } as usize;
    ev(format!("arch_arm_kprobe {}", hd_sym(a)));
    if model() {
        kernel_text::set_int3(a);
    }
}

/// `arch_disarm_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_disarm_kprobe(p: *mut Kprobe) {
    assert!(arch(|a| a.text_mutex), "disarm without text_mutex");
    // SAFETY: `p` is live (this function's `# Safety`).
    let a = unsafe { (*p).addr } as usize;
    ev(format!("arch_disarm_kprobe {}", hd_sym(a)));
    if model() {
        kernel_text::disarm(a);
    }
}

/// `arch_remove_kprobe()`.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_remove_kprobe(p: *mut Kprobe) {
    // SAFETY: `p` is live (this function's `# Safety`).
    unsafe {
        ev(format!(
            "arch_remove_kprobe {} slot={}",
            hd_sym((*p).addr as usize),
            hd_page((*p).ainsn.insn)
        ));
        // arch.c: `free_insn_slot(insn, boostable)`.
        if model() && !(*p).ainsn.insn.is_null() {
            free_slot(insn_slots(), (*p).ainsn.insn, (*p).ainsn.bits & 1 != 0);
        }
        (*p).ainsn.insn = core::ptr::null_mut();
    }
}

/// `arch_trampoline_kprobe()`: never, in the simulation.
///
/// # Safety
/// `p` is live.
pub unsafe fn arch_trampoline_kprobe(_p: *mut Kprobe) -> bool {
    false
}

/// `arch_init_kprobes()`.
///
/// # Safety
/// Called once, at boot (`init_kprobes()`), as upstream.
pub unsafe fn arch_init_kprobes() -> c_int {
    0
}

/// arch.c's `can_optimize()`: a present text symbol, not entry text, with
/// room for the jump, not `noopt`.
fn model_can_optimize(a: usize) -> Option<&'static ModelSym> {
    let s = present_model_sym(a)?;
    let ok = s.kind == SymKind::Text
        && !in_range(a, MODEL_ENTRY)
        && s.size - (a - s.addr) >= JMP32_INSN_SIZE
        && !s.noopt;
    ok.then_some(s)
}

/// arch.c's `copy_optimized_instructions()`: the bytes the jump replaces
/// (whole boostable instructions, at least 5, within the symbol, over no
/// ftrace or static call site).
fn model_copy(src: usize, s: &ModelSym) -> Result<usize, c_int> {
    let mut len = 0;
    while len < JMP32_INSN_SIZE {
        let off = src + len - s.addr;
        match s.insn_at(off) {
            Some(l) if s.nonboost != Some(off) => len += l,
            _ => return Err(-EINVAL),
        }
    }
    if src + len > s.addr + s.size {
        return Err(-EINVAL);
    }
    if reserved_site(src, src + len - 1) {
        return Err(-EBUSY_SIM);
    }
    Ok(len)
}

/// arch.c's `arch_prepare_optimized_kprobe()` (with [`Image::as_model`](super::Image::as_model)).
///
/// # Safety
/// `op` is live.
unsafe fn model_prepare_optimized(op: *mut OptimizedKprobe, a: usize) -> c_int {
    let Some(s) = model_can_optimize(a) else {
        return -EILSEQ;
    };
    let slot = get_slot(optinsn_slots());
    // SAFETY: `op` is live (this function's `# Safety`).
    unsafe {
        (*op).optinsn.insn = slot;
        if slot.is_null() {
            return -ENOMEM;
        }
        match model_copy(a, s) {
            Ok(len) => {
                (*op).optinsn.size = len;
                0
            }
            Err(e) => {
                free_slot(optinsn_slots(), slot, false);
                (*op).optinsn.insn = core::ptr::null_mut();
                (*op).optinsn.size = 0;
                e
            }
        }
    }
}

/// `arch_prepare_optimized_kprobe()`: size 5 at `optimizable` addresses;
/// with [`Image::as_model`](super::Image::as_model), arch.c's: a slot of
/// `kprobe_optinsn_slots` and the size of the instructions the jump
/// replaces, or -EILSEQ, -EINVAL, -EBUSY (the slot freed again).
///
/// # Safety
/// Both live.
pub unsafe fn arch_prepare_optimized_kprobe(op: *mut OptimizedKprobe, orig: *mut Kprobe) -> c_int {
    // SAFETY: both live (this function's `# Safety`).
    let a = unsafe { (*orig).addr } as usize;
    let ret = if model() {
        // SAFETY: `op` is live (this function's `# Safety`).
        unsafe { model_prepare_optimized(op, a) }
    } else if arch(|x| x.optimizable.contains(&a)) {
        // SAFETY: both live (this function's `# Safety`).
        unsafe { (*op).optinsn.size = 5 };
        0
    } else {
        -EILSEQ
    };
    // SAFETY: both live (this function's `# Safety`).
    let (size, slot) = unsafe { ((*op).optinsn.size, (*op).optinsn.insn) };
    ev(format!(
        "arch_prepare_optimized_kprobe {} = {ret} size={size} slot={}",
        hd_sym(a),
        hd_page(slot)
    ));
    ret
}

/// `arch_prepared_optinsn(&op->optinsn)`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_prepared_optinsn(op: *mut OptimizedKprobe) -> bool {
    // SAFETY: `op` is live (this function's `# Safety`).
    unsafe { (*op).optinsn.size != 0 }
}

/// `arch_check_optimized_kprobe()`: x86's: no other armed probe inside
/// the jump.
///
/// # Safety
/// `op` is live; kprobe_mutex held.
pub unsafe fn arch_check_optimized_kprobe(op: *mut OptimizedKprobe) -> c_int {
    // SAFETY: `op` is live (this function's `# Safety`).
    let (addr, size) = unsafe { ((*op).kp.addr, (*op).optinsn.size) };
    let mut ret = 0;
    for i in 1..size {
        // A simulated text address, not a Rust allocation: no `add`.
        // SAFETY: the caller holds kprobe_mutex, `get_kprobe()`'s context.
        let p = unsafe { link::get_kprobe(addr.wrapping_add(i).cast()) };
        // SAFETY: `p` is hashed (`get_kprobe()` found it), as
        // `kprobe_disarmed()` requires.
        if !p.is_null() && !unsafe { link::kprobe_disarmed(p) } {
            ret = -EEXIST;
            break;
        }
    }
    ev(format!(
        "arch_check_optimized_kprobe {} = {ret}",
        hd_sym(addr as usize)
    ));
    ret
}

/// `arch_within_optimized_kprobe()`: x86's.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_within_optimized_kprobe(
    op: *mut OptimizedKprobe,
    addr: *mut KprobeOpcode,
) -> bool {
    // SAFETY: `op` is live (this function's `# Safety`).
    let (start, size) = unsafe { ((*op).kp.addr as usize, (*op).optinsn.size) };
    let r = start <= addr as usize && start + size > addr as usize;
    ev(format!(
        "?arch_within_optimized_kprobe {} {} = {}",
        hd_sym(start),
        hd_sym(addr as usize),
        r as c_int
    ));
    r
}

/// `arch_remove_optimized_kprobe()`.
///
/// # Safety
/// `op` is live.
pub unsafe fn arch_remove_optimized_kprobe(op: *mut OptimizedKprobe) {
    // SAFETY: `op` is live (this function's `# Safety`).
    unsafe {
        ev(format!(
            "arch_remove_optimized_kprobe {} slot={}",
            hd_sym((*op).kp.addr as usize),
            hd_page((*op).optinsn.insn)
        ));
        // arch.c: `free_optinsn_slot(insn, 1)`.
        if model() && !(*op).optinsn.insn.is_null() {
            free_slot(optinsn_slots(), (*op).optinsn.insn, true);
            (*op).optinsn.insn = core::ptr::null_mut();
        }
        (*op).optinsn.size = 0;
    }
}

/// `arch_optimize_kprobes()`: x86's: each probe becomes a jump and leaves
/// the list.
///
/// # Safety
/// The optimizer's locks are held.
pub unsafe fn arch_optimize_kprobes(list: *mut ListHead) {
    assert!(arch(|a| a.text_mutex && a.cpus_read > 0));
    // SAFETY: `list` is the optimizer's list of live optimized kprobes, which
    // the caller's locks (kprobe_mutex, text_mutex) protect.
    unsafe {
        for l in list_entries(list) {
            let op = op_of_list(l);
            ev(format!(
                "arch_optimize_kprobes {}",
                hd_sym((*op).kp.addr as usize)
            ));
            let flags = core::ptr::read_volatile(core::ptr::addr_of!((*op).kp.flags));
            // arch.c's `WARN_ON(kprobe_disabled())`: DISABLED or GONE.
            if flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE) != 0 {
                warn();
            }
            if model() {
                kernel_text::optimize((*op).kp.addr as usize, (*op).optinsn.size, op as usize);
            }
            list_del_init(l);
        }
    }
}

/// `arch_unoptimize_kprobe()`.
///
/// # Safety
/// `op` is live; locks held.
pub unsafe fn arch_unoptimize_kprobe(op: *mut OptimizedKprobe) {
    assert!(arch(|a| a.text_mutex && a.cpus_read > 0));
    // SAFETY: `op` is live; locks held (this function's `# Safety`).
    let a = unsafe { (*op).kp.addr } as usize;
    ev(format!("arch_unoptimize_kprobe {}", hd_sym(a)));
    if model() {
        kernel_text::unoptimize(a);
    }
}

/// `arch_unoptimize_kprobes()`: x86's.
///
/// # Safety
/// Locks held.
pub unsafe fn arch_unoptimize_kprobes(list: *mut ListHead, done: *mut ListHead) {
    // SAFETY: `list` is the optimizer's list of live optimized kprobes and
    // `done` a live list head, which the caller's locks protect.
    unsafe {
        for l in list_entries(list) {
            arch_unoptimize_kprobe(op_of_list(l));
            list_move(l, done);
        }
    }
}

static mut KRETPROBE_BLACKLIST: [KretprobeBlackpoint; 2] = [
    KretprobeBlackpoint {
        name: c"__switch_to".as_ptr().cast(),
        addr: core::ptr::null_mut(),
    },
    KretprobeBlackpoint {
        name: core::ptr::null(),
        addr: core::ptr::null_mut(),
    },
];

/// The arch's `kretprobe_blacklist` (x86's: `__switch_to`), or null if it
/// is empty: with [`Image::as_model`](super::Image::as_model), as
/// model.c's (`kretprobe_blacklist_size == 0`, MODEL.md).
pub fn kretprobe_blacklist() -> *mut KretprobeBlackpoint {
    if model() {
        return core::ptr::null_mut();
    }
    (&raw mut KRETPROBE_BLACKLIST).cast()
}
