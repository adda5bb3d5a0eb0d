// SPDX-License-Identifier: GPL-2.0

//! The C ABI of the core: every function C code links against, with the
//! upstream names and prototypes (checked against `<linux/kprobes.h>` by the
//! C shim including the generated header).  Each is a thin wrapper around
//! the module that implements it.
//!
//! `ftrace_entry`: every function of upstream `kprobes.o` is a ftrace site
//! (`call __fentry__`, NOPed at boot, listed in `available_filter_functions`,
//! and a kprobe at its entry is an `[FTRACE]` probe).  Rust in 6.12 cannot
//! emit that call, so each exported function that is not on the probe hit
//! path is a naked entry stub `endbr64; call __fentry__; jmp <body>`, whose
//! `call __fentry__` objtool records and NOPs like the compiler's.  The hit
//! path functions (`get_kprobe`, written in assembly below with its ftrace
//! site inline, and the handlers) keep their plain entry.

use crate::{addr, aggr, blacklist, init, kretprobe, module, opt, register, registry, slots, sys};
// The debugfs files' callbacks only.
#[cfg(CONFIG_DEBUG_FS)]
use crate::{arm, debugfs, state};
#[cfg(CONFIG_KPROBES_ON_FTRACE)]
use crate::ftrace;
use crate::types::{Kprobe, KprobeInsnCache, KprobeOpcode, Kretprobe, OptimizedKprobe, PtRegs, RethookNode};
use crate::ffi::{c_char, c_int, c_uint, c_ulong, c_void};

/// `ftrace_entry!(name, body, fn(args) -> ret)`: the exported symbol `name`
/// is an entry stub `[endbr64;] [call __fentry__;] jmp body` (see the module
/// documentation), and `body` must have exactly the signature of the
/// extern declaration of `name` (checked at compile time).
// The first instructions of a C function of this kernel: `endbr64` with
// IBT (`-fcf-protection=branch`), and the ftrace site (`-mfentry`) with the
// function tracer.
#[cfg(all(CONFIG_RUST, CONFIG_X86_KERNEL_IBT))]
macro_rules! entry_endbr {
    () => {
        "endbr64"
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_X86_KERNEL_IBT)))]
macro_rules! entry_endbr {
    () => {
        ""
    };
}
#[cfg(all(CONFIG_RUST, CONFIG_FUNCTION_TRACER))]
macro_rules! entry_fentry {
    () => {
        "call __fentry__"
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_FUNCTION_TRACER)))]
macro_rules! entry_fentry {
    () => {
        ""
    };
}

#[cfg(CONFIG_RUST)]
macro_rules! ftrace_entry {
    ($name:ident, $body:ident, fn($($t:ty),*) $(-> $r:ty)?) => {
        const _: () = {
            let _: [unsafe extern "C" fn($($t),*) $(-> $r)?; 2] = [$name, $body];
        };
        core::arch::global_asm!(
            ".pushsection .text, \"ax\"",
            concat!(".globl ", stringify!($name)),
            concat!(".type ", stringify!($name), ", @function"),
            ".p2align 4",
            concat!(stringify!($name), ":"),
            entry_endbr!(),
            entry_fentry!(),
            "jmp {f}",
            concat!(".size ", stringify!($name), ", .-", stringify!($name)),
            ".popsection",
            f = sym $body,
            options(att_syntax)
        );
    };
}

// `__get_insn_slot()`: a free instruction slot of cache `c`, or null.
//
// # Safety
// `c` is a live `struct kprobe_insn_cache`; process context.
// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
// the cache's mutex) is an empty struct, which the lint flags.
#[allow(improper_ctypes)]
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`__get_insn_slot_impl`].
    pub fn __get_insn_slot(c: *mut KprobeInsnCache) -> *mut KprobeOpcode;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(__get_insn_slot, __get_insn_slot_impl, fn(*mut KprobeInsnCache) -> *mut KprobeOpcode);
#[cfg(not(CONFIG_RUST))]
pub use __get_insn_slot_impl as __get_insn_slot;

/// The body of [__get_insn_slot].
#[doc(hidden)]
pub unsafe extern "C" fn __get_insn_slot_impl(c: *mut KprobeInsnCache) -> *mut KprobeOpcode {
    // SAFETY: forwarded caller contract.
    unsafe { slots::get_insn_slot(c) }
}

// `__free_insn_slot()`: returns `slot` to cache `c`; a `dirty` slot is
// reused only after an RCU grace period.
//
// # Safety
// `c` is a live cache; process context.
// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
// the cache's mutex) is an empty struct, which the lint flags.
#[allow(improper_ctypes)]
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`__free_insn_slot_impl`].
    pub fn __free_insn_slot(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: c_int);
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(__free_insn_slot, __free_insn_slot_impl, fn(*mut KprobeInsnCache, *mut KprobeOpcode, c_int));
#[cfg(not(CONFIG_RUST))]
pub use __free_insn_slot_impl as __free_insn_slot;

/// The body of [__free_insn_slot].
#[doc(hidden)]
pub unsafe extern "C" fn __free_insn_slot_impl(c: *mut KprobeInsnCache, slot: *mut KprobeOpcode, dirty: c_int) {
    // SAFETY: forwarded caller contract.
    unsafe { slots::free_insn_slot(c, slot, dirty != 0) }
}

// `__is_insn_slot_addr()`: is `addr` on a page of cache `c`?
//
// # Safety
// `c` is a live cache.
// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
// the cache's mutex) is an empty struct, which the lint flags.
#[allow(improper_ctypes)]
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`__is_insn_slot_addr_impl`].
    pub fn __is_insn_slot_addr(c: *mut KprobeInsnCache, addr: c_ulong) -> bool;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(__is_insn_slot_addr, __is_insn_slot_addr_impl, fn(*mut KprobeInsnCache, c_ulong) -> bool);
#[cfg(not(CONFIG_RUST))]
pub use __is_insn_slot_addr_impl as __is_insn_slot_addr;

/// The body of [__is_insn_slot_addr].
#[doc(hidden)]
pub unsafe extern "C" fn __is_insn_slot_addr_impl(c: *mut KprobeInsnCache, addr: c_ulong) -> bool {
    // SAFETY: forwarded caller contract.
    unsafe { slots::is_insn_slot_addr(c, addr as usize) }
}

// `kprobe_cache_get_kallsym()`: the `*symnum`-th page of `c` as a kallsyms
// entry.
//
// # Safety
// `c` is a live cache, the out pointers are valid (`sym` for
// `KSYM_NAME_LEN` bytes).
// Only a pointer crosses: without SMP the kernel's `arch_spinlock_t` (in
// the cache's mutex) is an empty struct, which the lint flags.
#[allow(improper_ctypes)]
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_cache_get_kallsym_impl`].
    pub fn kprobe_cache_get_kallsym(
    c: *mut KprobeInsnCache,
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_cache_get_kallsym, kprobe_cache_get_kallsym_impl, fn(*mut KprobeInsnCache, *mut c_uint, *mut c_ulong, *mut c_char, *mut c_char) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use kprobe_cache_get_kallsym_impl as kprobe_cache_get_kallsym;

/// The body of [kprobe_cache_get_kallsym].
#[doc(hidden)]
pub unsafe extern "C" fn kprobe_cache_get_kallsym_impl(
    c: *mut KprobeInsnCache,
    symnum: *mut c_uint,
    value: *mut c_ulong,
    type_: *mut c_char,
    sym: *mut c_char,
) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { slots::cache_get_kallsym(c, symnum, value, type_, sym) }
}

// `within_kprobe_blacklist()`: may a probe not be placed at `addr`?
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`within_kprobe_blacklist_impl`].
    pub fn within_kprobe_blacklist(addr: c_ulong) -> bool;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(within_kprobe_blacklist, within_kprobe_blacklist_impl, fn(c_ulong) -> bool);
#[cfg(not(CONFIG_RUST))]
pub use within_kprobe_blacklist_impl as within_kprobe_blacklist;

/// The body of [within_kprobe_blacklist].
#[doc(hidden)]
pub extern "C" fn within_kprobe_blacklist_impl(addr: c_ulong) -> bool {
    blacklist::within_kprobe_blacklist(addr as usize)
}

// `kprobe_add_ksym_blacklist()`: blacklists the symbol at `entry`; returns
// its size or a negative errno.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_add_ksym_blacklist_impl`].
    pub fn kprobe_add_ksym_blacklist(entry: c_ulong) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_add_ksym_blacklist, kprobe_add_ksym_blacklist_impl, fn(c_ulong) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use kprobe_add_ksym_blacklist_impl as kprobe_add_ksym_blacklist;

/// The body of [kprobe_add_ksym_blacklist].
#[doc(hidden)]
pub extern "C" fn kprobe_add_ksym_blacklist_impl(entry: c_ulong) -> c_int {
    blacklist::add_ksym_blacklist(entry as usize)
}

// `kprobe_add_area_blacklist()`: blacklists every symbol in
// `[start, end)`.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_add_area_blacklist_impl`].
    pub fn kprobe_add_area_blacklist(start: c_ulong, end: c_ulong) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_add_area_blacklist, kprobe_add_area_blacklist_impl, fn(c_ulong, c_ulong) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use kprobe_add_area_blacklist_impl as kprobe_add_area_blacklist;

/// The body of [kprobe_add_area_blacklist].
#[doc(hidden)]
pub extern "C" fn kprobe_add_area_blacklist_impl(start: c_ulong, end: c_ulong) -> c_int {
    blacklist::add_area_blacklist(start as usize, end as usize)
}




/// `get_kprobe()`: the probe registered at `addr`, or null.  Called under
/// `kprobe_mutex` or with preemption disabled from the arch handlers.
///
/// # Safety
/// One of those two contexts.
#[cfg(not(all(CONFIG_RUST, not(any(CONFIG_MITIGATION_RETHUNK, CONFIG_MITIGATION_SLS)))))]
#[no_mangle]
// Miri gives a function that may be inlined a new address at each mention
// (Rust does not promise one address per function); `kprobe_busy.addr` is
// this one's address, and `aggr_pre_handler()`, `pre_handler_kretprobe()`
// are compared by address: under Miri only, they are kept out of line, which
// gives them one address there as they have in every real build.
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn get_kprobe(addr: *mut c_void) -> *mut Kprobe {
    // SAFETY: forwarded caller contract.
    unsafe { registry::get_kprobe(addr.cast()) }
}

// `get_kprobe()`, kernel build: [`registry::get_kprobe`] written out in
// assembly so that, like upstream's, it starts with an ftrace site and has
// no extra jump on the probe hit path (every int3/ftrace hit calls it).
// `hash_ptr()` is `(addr * GOLDEN_RATIO_64) >> (64 - KPROBE_HASH_BITS)`;
// `hlist` is the first member of `struct kprobe`, so a chain node is its
// probe; the loads are plain, as `rcu_dereference()` on x86.  (With return
// thunks or SLS mitigation the plain Rust version above is used.)
//
// # Safety
// One of those two contexts.
#[cfg(all(CONFIG_RUST, not(any(CONFIG_MITIGATION_RETHUNK, CONFIG_MITIGATION_SLS))))]
extern "C" {
    /// The assembly below.
    pub fn get_kprobe(addr: *mut c_void) -> *mut Kprobe;
}
#[cfg(all(CONFIG_RUST, not(any(CONFIG_MITIGATION_RETHUNK, CONFIG_MITIGATION_SLS))))]
core::arch::global_asm!(
    ".pushsection .text, \"ax\"",
    ".globl get_kprobe",
    ".type get_kprobe, @function",
    ".p2align 4",
    "get_kprobe:",
    entry_endbr!(),
    entry_fentry!(),
    "movabsq ${golden}, %rax",
    "imulq %rdi, %rax",
    "shrq ${shift}, %rax",
    "movq {table}(,%rax,8), %rax",
    "testq %rax, %rax",
    "je 3f",
    "2:",
    "cmpq %rdi, {off_addr}(%rax)",
    "je 3f",
    "movq (%rax), %rax",
    "testq %rax, %rax",
    "jne 2b",
    "3:",
    "retq",
    ".size get_kprobe, .-get_kprobe",
    ".popsection",
    golden = const registry::GOLDEN_RATIO_64,
    shift = const 64 - registry::KPROBE_HASH_BITS,
    table = sym registry::KPROBE_TABLE,
    off_addr = const core::mem::offset_of!(Kprobe, addr),
    options(att_syntax)
);
crate::nokprobe_symbol!(get_kprobe);

/// `aggr_pre_handler()`, the pre-handler of every aggregate probe.  An
/// unmangled symbol, as upstream's static function is in kallsyms: the
/// `kprobes/blacklist` file names it (`NOKPROBE_SYMBOL`).
///
/// # Safety
/// Breakpoint/ftrace handler context; `p` is a live aggregate.
#[no_mangle]
// Compared by address: one address under Miri too (see `get_kprobe()`).
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn aggr_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::aggr_pre_handler(p, regs) }
}
crate::nokprobe_symbol!(aggr_pre_handler);

/// `aggr_post_handler()`, the post-handler of aggregates with a child that
/// has one.
///
/// # Safety
/// Breakpoint handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn aggr_post_handler(p: *mut Kprobe, regs: *mut PtRegs, flags: c_ulong) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::aggr_post_handler(p, regs, flags) }
}
crate::nokprobe_symbol!(aggr_post_handler);

/// `opt_pre_handler()`: called by the optprobe detour buffer.
///
/// # Safety
/// Optprobe handler context; `p` is a live aggregate.
#[no_mangle]
pub unsafe extern "C" fn opt_pre_handler(p: *mut Kprobe, regs: *mut PtRegs) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::opt_pre_handler(p, regs) }
}
crate::nokprobe_symbol!(opt_pre_handler);

/// `kprobes_inc_nmissed_count()`.
///
/// # Safety
/// Handler context; `p` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_inc_nmissed_count(p: *mut Kprobe) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::inc_nmissed_count(p) }
}
crate::nokprobe_symbol!(kprobes_inc_nmissed_count);

/// `kprobe_busy_begin()`.
#[no_mangle]
pub extern "C" fn kprobe_busy_begin() {
    aggr::busy_begin()
}

/// `kprobe_busy_end()`.
#[no_mangle]
pub extern "C" fn kprobe_busy_end() {
    aggr::busy_end()
}

/// `dump_kprobe()`.
///
/// # Safety
/// `kp` is live.
#[no_mangle]
pub unsafe extern "C" fn dump_kprobe(kp: *mut Kprobe) {
    // SAFETY: forwarded caller contract.
    unsafe { aggr::dump_kprobe(kp) }
}
crate::nokprobe_symbol!(dump_kprobe);

// `kprobe_get_kallsym()`: kallsyms entries of the insn slot pages.
//
// # Safety
// Valid out pointers, `sym` for `KSYM_NAME_LEN` bytes.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_get_kallsym_impl`].
    pub fn kprobe_get_kallsym(symnum: c_uint, value: *mut c_ulong, type_: *mut c_char, sym: *mut c_char) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_get_kallsym, kprobe_get_kallsym_impl, fn(c_uint, *mut c_ulong, *mut c_char, *mut c_char) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use kprobe_get_kallsym_impl as kprobe_get_kallsym;

/// The body of [kprobe_get_kallsym].
#[doc(hidden)]
pub unsafe extern "C" fn kprobe_get_kallsym_impl(symnum: c_uint, value: *mut c_ulong, type_: *mut c_char, sym: *mut c_char) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { slots::kprobe_get_kallsym(symnum, value, type_, sym) }
}



// `kprobe_on_func_entry()`: 0 if the address is a function entry.
//
// # Safety
// `sym` is null or a C string.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_on_func_entry_impl`].
    pub fn kprobe_on_func_entry(addr: *mut KprobeOpcode, sym: *const c_char, offset: c_ulong) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_on_func_entry, kprobe_on_func_entry_impl, fn(*mut KprobeOpcode, *const c_char, c_ulong) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use kprobe_on_func_entry_impl as kprobe_on_func_entry;

/// The body of [kprobe_on_func_entry].
#[doc(hidden)]
pub unsafe extern "C" fn kprobe_on_func_entry_impl(addr: *mut KprobeOpcode, sym: *const c_char, offset: c_ulong) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { addr::kprobe_on_func_entry(addr, sym, offset) }
}


#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_seq_start()` of `kprobes/list`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_seq_start(_f: *mut sys::SeqFile, pos: *mut crate::types::Loff) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::seq_start(pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_seq_next()` of `kprobes/list`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_seq_next(_f: *mut sys::SeqFile, _v: *mut c_void, pos: *mut crate::types::Loff) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::seq_next(pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_seq_stop()` of `kprobes/list`: nothing to do.
#[no_mangle]
pub extern "C" fn kprobe_seq_stop(_f: *mut sys::SeqFile, _v: *mut c_void) {}

#[cfg(CONFIG_DEBUG_FS)]
/// `show_kprobe_addr()`: the lines of one hash bucket in `kprobes/list`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn show_kprobe_addr(pi: *mut sys::SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::show_kprobe_addr(pi, v) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_show()`: one line of `kprobes/blacklist`.
///
/// # Safety
/// seq_file callback contract (kprobe_mutex held by the seq start).
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_show(m: *mut sys::SeqFile, v: *mut c_void) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { debugfs::blacklist_seq_show(m, v) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_start()` of `kprobes/blacklist`: takes
/// `kprobe_mutex` until the seq stop.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_start(_m: *mut sys::SeqFile, pos: *mut crate::types::Loff) -> *mut c_void {
    state::lock();
    // SAFETY: forwarded caller contract; the list is stable under the mutex.
    unsafe { sys::seq_list_start(&raw mut blacklist::KPROBE_BLACKLIST, *pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_next()` of `kprobes/blacklist`.
///
/// # Safety
/// seq_file callback contract.
#[no_mangle]
pub unsafe extern "C" fn kprobe_blacklist_seq_next(_m: *mut sys::SeqFile, v: *mut c_void, pos: *mut crate::types::Loff) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { sys::seq_list_next(v, &raw mut blacklist::KPROBE_BLACKLIST, pos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `kprobe_blacklist_seq_stop()` of `kprobes/blacklist`.
#[no_mangle]
pub extern "C" fn kprobe_blacklist_seq_stop(_m: *mut sys::SeqFile, _v: *mut c_void) {
    state::unlock();
}

// `register_kprobe()`: registers `p` (by `addr`, or `symbol_name` +
// `offset`).  0 or a negative errno.
//
// # Safety
// `p` stays alive and untouched by the caller until it is unregistered.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`register_kprobe_impl`].
    pub fn register_kprobe(p: *mut Kprobe) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(register_kprobe, register_kprobe_impl, fn(*mut Kprobe) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use register_kprobe_impl as register_kprobe;

/// The body of [register_kprobe].
#[doc(hidden)]
pub unsafe extern "C" fn register_kprobe_impl(p: *mut Kprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::register_kprobe(p) }
}

// `register_kprobes()`: registers `num` probes, all or none.
//
// # Safety
// `kps` holds `num` probes, as for [`register_kprobe`].
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`register_kprobes_impl`].
    pub fn register_kprobes(kps: *mut *mut Kprobe, num: c_int) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(register_kprobes, register_kprobes_impl, fn(*mut *mut Kprobe, c_int) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use register_kprobes_impl as register_kprobes;

/// The body of [register_kprobes].
#[doc(hidden)]
pub unsafe extern "C" fn register_kprobes_impl(kps: *mut *mut Kprobe, num: c_int) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::register_kprobes(kps, num) }
}

// `unregister_kprobe()`.
//
// # Safety
// `p` is readable; process context.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`unregister_kprobe_impl`].
    pub fn unregister_kprobe(p: *mut Kprobe);
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(unregister_kprobe, unregister_kprobe_impl, fn(*mut Kprobe));
#[cfg(not(CONFIG_RUST))]
pub use unregister_kprobe_impl as unregister_kprobe;

/// The body of [unregister_kprobe].
#[doc(hidden)]
pub unsafe extern "C" fn unregister_kprobe_impl(p: *mut Kprobe) {
    let mut p = p;
    // SAFETY: forwarded caller contract.
    unsafe { register::unregister_kprobes(&mut p, 1) }
}

// `unregister_kprobes()`.
//
// # Safety
// `kps` holds `num` readable probes; process context.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`unregister_kprobes_impl`].
    pub fn unregister_kprobes(kps: *mut *mut Kprobe, num: c_int);
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(unregister_kprobes, unregister_kprobes_impl, fn(*mut *mut Kprobe, c_int));
#[cfg(not(CONFIG_RUST))]
pub use unregister_kprobes_impl as unregister_kprobes;

/// The body of [unregister_kprobes].
#[doc(hidden)]
pub unsafe extern "C" fn unregister_kprobes_impl(kps: *mut *mut Kprobe, num: c_int) {
    // SAFETY: forwarded caller contract.
    unsafe { register::unregister_kprobes(kps, num) }
}

// `enable_kprobe()`.
//
// # Safety
// `kp` is readable.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`enable_kprobe_impl`].
    pub fn enable_kprobe(kp: *mut Kprobe) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(enable_kprobe, enable_kprobe_impl, fn(*mut Kprobe) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use enable_kprobe_impl as enable_kprobe;

/// The body of [enable_kprobe].
#[doc(hidden)]
pub unsafe extern "C" fn enable_kprobe_impl(kp: *mut Kprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::enable_kprobe(kp) }
}

// `disable_kprobe()`.
//
// # Safety
// `kp` is readable.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`disable_kprobe_impl`].
    pub fn disable_kprobe(kp: *mut Kprobe) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(disable_kprobe, disable_kprobe_impl, fn(*mut Kprobe) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use disable_kprobe_impl as disable_kprobe;

/// The body of [disable_kprobe].
#[doc(hidden)]
pub unsafe extern "C" fn disable_kprobe_impl(kp: *mut Kprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { register::disable_kprobe(kp) }
}

// `register_kretprobe()`.
//
// # Safety
// `rp` stays alive and untouched by the caller until unregistered.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`register_kretprobe_impl`].
    pub fn register_kretprobe(rp: *mut Kretprobe) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(register_kretprobe, register_kretprobe_impl, fn(*mut Kretprobe) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use register_kretprobe_impl as register_kretprobe;

/// The body of [register_kretprobe].
#[doc(hidden)]
pub unsafe extern "C" fn register_kretprobe_impl(rp: *mut Kretprobe) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::register_kretprobe(rp) }
}

// `register_kretprobes()`: all or none.
//
// # Safety
// `rps` holds `num` kretprobes, as for [`register_kretprobe`].
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`register_kretprobes_impl`].
    pub fn register_kretprobes(rps: *mut *mut Kretprobe, num: c_int) -> c_int;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(register_kretprobes, register_kretprobes_impl, fn(*mut *mut Kretprobe, c_int) -> c_int);
#[cfg(not(CONFIG_RUST))]
pub use register_kretprobes_impl as register_kretprobes;

/// The body of [register_kretprobes].
#[doc(hidden)]
pub unsafe extern "C" fn register_kretprobes_impl(rps: *mut *mut Kretprobe, num: c_int) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::register_kretprobes(rps, num) }
}

// `unregister_kretprobe()`.
//
// # Safety
// `rp` is readable; process context.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`unregister_kretprobe_impl`].
    pub fn unregister_kretprobe(rp: *mut Kretprobe);
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(unregister_kretprobe, unregister_kretprobe_impl, fn(*mut Kretprobe));
#[cfg(not(CONFIG_RUST))]
pub use unregister_kretprobe_impl as unregister_kretprobe;

/// The body of [unregister_kretprobe].
#[doc(hidden)]
pub unsafe extern "C" fn unregister_kretprobe_impl(rp: *mut Kretprobe) {
    let mut rp = rp;
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::unregister_kretprobes(&mut rp, 1) }
}

// `unregister_kretprobes()`.
//
// # Safety
// `rps` holds `num` readable kretprobes; process context.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`unregister_kretprobes_impl`].
    pub fn unregister_kretprobes(rps: *mut *mut Kretprobe, num: c_int);
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(unregister_kretprobes, unregister_kretprobes_impl, fn(*mut *mut Kretprobe, c_int));
#[cfg(not(CONFIG_RUST))]
pub use unregister_kretprobes_impl as unregister_kretprobes;

/// The body of [unregister_kretprobes].
#[doc(hidden)]
pub unsafe extern "C" fn unregister_kretprobes_impl(rps: *mut *mut Kretprobe, num: c_int) {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::unregister_kretprobes(rps, num) }
}

/// `pre_handler_kretprobe()`: the entry handler of every kretprobe (also
/// how `kprobes/list` tells kretprobes apart).
///
/// # Safety
/// Breakpoint/ftrace handler context; `p` is a registered kretprobe's `kp`.
#[no_mangle]
// Compared by address: one address under Miri too (see `get_kprobe()`).
#[cfg_attr(miri, inline(never))]
pub unsafe extern "C" fn pre_handler_kretprobe(p: *mut Kprobe, regs: *mut PtRegs) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::pre_handler_kretprobe(p, regs) }
}
crate::nokprobe_symbol!(pre_handler_kretprobe);

/// `kretprobe_rethook_handler()`: the rethook callback of every kretprobe.
///
/// # Safety
/// Rethook trampoline context.
#[no_mangle]
pub unsafe extern "C" fn kretprobe_rethook_handler(rh: *mut RethookNode, data: *mut c_void, ret_addr: c_ulong, regs: *mut PtRegs) {
    // SAFETY: forwarded caller contract.
    unsafe { kretprobe::kretprobe_rethook_handler(rh, data, ret_addr, regs) }
}
crate::nokprobe_symbol!(kretprobe_rethook_handler);

// `kprobe_disarmed()`: is hashed probe `p` disarmed?  (Read by the arch's
// optprobe code.)
//
// # Safety
// `p` is hashed.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_disarmed_impl`].
    pub fn kprobe_disarmed(p: *mut Kprobe) -> bool;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_disarmed, kprobe_disarmed_impl, fn(*mut Kprobe) -> bool);
#[cfg(not(CONFIG_RUST))]
pub use kprobe_disarmed_impl as kprobe_disarmed;

/// The body of [kprobe_disarmed].
#[doc(hidden)]
pub unsafe extern "C" fn kprobe_disarmed_impl(p: *mut Kprobe) -> bool {
    // SAFETY: forwarded caller contract.
    unsafe { opt::kprobe_disarmed(p) }
}

// `optprobe_queued_unopt()`: is `op` queued for unoptimization?
//
// # Safety
// `kprobe_mutex` held (the arch calls it from the optimizer).
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`optprobe_queued_unopt_impl`].
    pub fn optprobe_queued_unopt(op: *mut OptimizedKprobe) -> bool;
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(optprobe_queued_unopt, optprobe_queued_unopt_impl, fn(*mut OptimizedKprobe) -> bool);
#[cfg(not(CONFIG_RUST))]
pub use optprobe_queued_unopt_impl as optprobe_queued_unopt;

/// The body of [optprobe_queued_unopt].
#[doc(hidden)]
pub unsafe extern "C" fn optprobe_queued_unopt_impl(op: *mut OptimizedKprobe) -> bool {
    // SAFETY: forwarded caller contract.
    unsafe { opt::optprobe_queued_unopt(op) }
}

// `wait_for_kprobe_optimizer()`: waits for pending (un)optimization.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`wait_for_kprobe_optimizer_impl`].
    pub fn wait_for_kprobe_optimizer();
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(wait_for_kprobe_optimizer, wait_for_kprobe_optimizer_impl, fn());
#[cfg(not(CONFIG_RUST))]
pub use wait_for_kprobe_optimizer_impl as wait_for_kprobe_optimizer;

/// The body of [wait_for_kprobe_optimizer].
#[doc(hidden)]
pub extern "C" fn wait_for_kprobe_optimizer_impl() {
    opt::wait_for_kprobe_optimizer()
}

// `kprobe_ftrace_kill()`: ftrace is dead (called by ftrace_kill()).
#[cfg(all(CONFIG_RUST, CONFIG_KPROBES_ON_FTRACE))]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_ftrace_kill_impl`].
    pub fn kprobe_ftrace_kill();
}
#[cfg(all(CONFIG_RUST, CONFIG_KPROBES_ON_FTRACE))]
ftrace_entry!(kprobe_ftrace_kill, kprobe_ftrace_kill_impl, fn());
#[cfg(not(CONFIG_RUST))]
pub use kprobe_ftrace_kill_impl as kprobe_ftrace_kill;

/// The body of [kprobe_ftrace_kill].
#[cfg(CONFIG_KPROBES_ON_FTRACE)]
#[doc(hidden)]
pub extern "C" fn kprobe_ftrace_kill_impl() {
    ftrace::kprobe_ftrace_kill()
}

// `kprobe_free_init_mem()`: called by init/main.c before the kernel's
// init text is freed.
#[cfg(CONFIG_RUST)]
extern "C" {
    /// The entry stub (assembly below): an ftrace site, then [`kprobe_free_init_mem_impl`].
    pub fn kprobe_free_init_mem();
}
#[cfg(CONFIG_RUST)]
ftrace_entry!(kprobe_free_init_mem, kprobe_free_init_mem_impl, fn());
#[cfg(not(CONFIG_RUST))]
pub use kprobe_free_init_mem_impl as kprobe_free_init_mem;

/// The body of [kprobe_free_init_mem].
#[doc(hidden)]
pub extern "C" fn kprobe_free_init_mem_impl() {
    module::kprobe_free_init_mem()
}

/// The optimizer's delayed work (`kprobe_optimizer()`), called by the C
/// shim's work function.
#[no_mangle]
pub extern "C" fn kprobes_rust_optimizer_work() {
    opt::kprobe_optimizer()
}

#[cfg(CONFIG_MODULES)]
/// `kprobes_module_callback()`, called by the C shim's module notifier.
///
/// # Safety
/// Module notifier contract: `module` is live.
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_module_callback(val: c_ulong, module: *mut sys::Module) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { module::module_callback(val, module) }
}

/// `init_kprobes()`, called by the C shim's early initcall.
///
/// # Safety
/// Once, at boot (`.init.text`, like upstream's `__init`).
#[cfg_attr(CONFIG_RUST, link_section = ".init.text")]
#[no_mangle]
pub unsafe extern "C" fn kprobes_rust_init() -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { init::init_kprobes() }
}

/// `init_optprobes()`, called by the C shim's subsys initcall.
#[no_mangle]
pub extern "C" fn kprobes_rust_init_optprobes() -> c_int {
    init::init_optprobes()
}

#[cfg(CONFIG_SYSCTL)]
/// `proc_kprobes_optimization_handler()`: the `proc_handler` of
/// `debug.kprobes-optimization` (the C shim's sysctl table).
///
/// # Safety
/// sysctl core contract.
#[no_mangle]
pub unsafe extern "C" fn proc_kprobes_optimization_handler(
    table: *const sys::CtlTable,
    write: c_int,
    buffer: *mut c_void,
    length: *mut usize,
    ppos: *mut crate::types::Loff,
) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { opt::sysctl_handler(table, write, buffer, length, ppos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `read_enabled_file_bool()`: `read` of `kprobes/enabled`.
///
/// # Safety
/// debugfs `read` contract.
#[no_mangle]
pub unsafe extern "C" fn read_enabled_file_bool(_file: *mut sys::File, user_buf: *mut c_char, count: usize, ppos: *mut crate::types::Loff) -> isize {
    // SAFETY: forwarded caller contract.
    unsafe { arm::read_enabled_file_bool(user_buf, count, ppos) }
}

#[cfg(CONFIG_DEBUG_FS)]
/// `write_enabled_file_bool()`: `write` of `kprobes/enabled`.
///
/// # Safety
/// debugfs `write` contract.
#[no_mangle]
pub unsafe extern "C" fn write_enabled_file_bool(_file: *mut sys::File, user_buf: *const c_char, count: usize, _ppos: *mut crate::types::Loff) -> isize {
    // SAFETY: forwarded caller contract.
    unsafe { arm::write_enabled_file_bool(user_buf, count) }
}
