// SPDX-License-Identifier: GPL-2.0

//! arm64: the macros that write the core's C symbols as a C function of
//! this kernel starts (`arch_entry_stub!`, used by `ftrace_export!`,
//! `rust-core/abi.rs`) and `get_kprobe()` in assembly (`arch_get_kprobe!`,
//! used by `rust-core/registry.rs`), as `arch/x86_64/entry.rs` for x86_64.
//! The crate root selects this file by `target_arch` as `arch_entry`,
//! before `abi`.

#[cfg(all(
    CONFIG_RUST,
    CONFIG_FUNCTION_TRACER,
    not(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
))]
compile_error!("KPROBES_RUST on arm64 needs DYNAMIC_FTRACE_WITH_ARGS with the function tracer");

// The first instructions of a C function of this kernel, as clang's
// `-fpatchable-function-entry` gives them, in pieces for `concat!`:
// `entry_pre!()` before the symbol, `entry_bti!()` and `entry_site!()`
// after it, `entry_record!(name)` anywhere after.  With the function
// tracer (DYNAMIC_FTRACE_WITH_ARGS): two NOPs at the entry (`mov x9, x30;
// bl ftrace_caller` when traced), after `bti c` with BTI; with CALL_OPS
// also two NOPs before the symbol (the ops literal, 8-byte aligned).  The
// site is recorded in `__patchable_function_entries` as the compiler does:
// the first NOP after the entry (and its BTI), or with CALL_OPS the first
// NOP before the symbol, which is what `ftrace_call_adjust()`
// (arch/arm64/kernel/ftrace.c) expects.
#[cfg(all(CONFIG_RUST, CONFIG_ARM64_BTI_KERNEL))]
macro_rules! entry_bti {
    () => {
        "bti c"
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_ARM64_BTI_KERNEL)))]
macro_rules! entry_bti {
    () => {
        ""
    };
}
#[cfg(all(
    CONFIG_RUST,
    CONFIG_DYNAMIC_FTRACE_WITH_ARGS,
    CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
))]
macro_rules! entry_pre {
    () => {
        ".balign 8\n1:\nnop\nnop"
    };
}
#[cfg(all(
    CONFIG_RUST,
    not(all(CONFIG_DYNAMIC_FTRACE_WITH_ARGS, CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS))
))]
macro_rules! entry_pre {
    () => {
        ".balign 4"
    };
}
#[cfg(all(
    CONFIG_RUST,
    CONFIG_DYNAMIC_FTRACE_WITH_ARGS,
    CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
))]
macro_rules! entry_site {
    () => {
        "nop\nnop"
    };
}
#[cfg(all(
    CONFIG_RUST,
    CONFIG_DYNAMIC_FTRACE_WITH_ARGS,
    not(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)
))]
macro_rules! entry_site {
    () => {
        "1:\nnop\nnop"
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)))]
macro_rules! entry_site {
    () => {
        ""
    };
}
#[cfg(all(CONFIG_RUST, CONFIG_DYNAMIC_FTRACE_WITH_ARGS))]
macro_rules! entry_record {
    ($name:ident) => {
        concat!(
            ".pushsection __patchable_function_entries, \"awo\", %progbits, ",
            stringify!($name),
            "\n.balign 8\n.quad 1b\n.popsection"
        )
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)))]
macro_rules! entry_record {
    ($name:ident) => {
        ""
    };
}

// kCFI (CONFIG_CFI on 7.3, CONFIG_CFI_CLANG on 6.12): an indirect call
// compares the type id in the word before the callee with the one of the
// pointer's C type.  An assembly function of this kernel puts
// `__kcfi_typeid_NAME` there (cfi_types.h's `SYM_TYPED_START()`); clang
// defines that symbol from C's declaration of NAME in every object that
// takes its address (`c-shim/kprobes_rust_cfi.h` takes them all), so the id
// is C's by construction, and a symbol no C code declares is a link error.
// arm64 selects CALL_OPS only without kCFI, whose ops literal would sit
// where the id goes.
#[cfg(all(
    CONFIG_RUST,
    any(CONFIG_CFI, CONFIG_CFI_CLANG),
    CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
))]
compile_error!("KPROBES_RUST on arm64 cannot have both kCFI and DYNAMIC_FTRACE_WITH_CALL_OPS");
#[cfg(all(CONFIG_RUST, any(CONFIG_CFI, CONFIG_CFI_CLANG)))]
macro_rules! entry_cfi {
    ($name:ident) => {
        concat!(".4byte __kcfi_typeid_", stringify!($name))
    };
}
#[cfg(all(CONFIG_RUST, not(any(CONFIG_CFI, CONFIG_CFI_CLANG))))]
macro_rules! entry_cfi {
    ($name:ident) => {
        ""
    };
}

/// `arch_entry_stub!(name, body)`: the C symbol `name`, a stub that
/// branches to `body` after the instructions a C function of this kernel
/// starts with (see above), for `ftrace_export!` (`rust-core/abi.rs`).
#[cfg(CONFIG_RUST)]
macro_rules! arch_entry_stub {
    ($name:ident, $body:path) => {
        core::arch::global_asm!(
            ".pushsection .text, \"ax\"",
            concat!(".globl ", stringify!($name)),
            concat!(".type ", stringify!($name), ", %function"),
            entry_pre!(),
            entry_cfi!($name),
            concat!(stringify!($name), ":"),
            entry_bti!(),
            entry_site!(),
            "b {f}",
            concat!(".size ", stringify!($name), ", .-", stringify!($name)),
            entry_record!($name),
            ".popsection",
            f = sym $body,
        );
    };
}

/// `arch_get_kprobe! { PLAIN }`: `get_kprobe()` (`rust-core/registry.rs`).
/// In the kernel build, the assembly below, and `PLAIN` (the Rust version)
/// is dropped; on a host, `PLAIN`.
///
/// The assembly is `index::lookup()` written out, as on x86_64, so that it
/// starts with an ftrace site like upstream's and adds no jump on the probe
/// hit path: `home = (addr32 * GOLDEN_RATIO_32) * cap_hi >> 64` is a
/// 32-bit `mul` (which zero-extends) and one `umulh`; a slot is compared by
/// the `addr` of what it points at before testing for the empty sentinel
/// (whose `addr` is its own address, which no caller looks up), and the
/// walk wraps at `cap` (no unrolling: it does not rely on `index::TAIL`).
/// The loads are plain `ldr`s: the slot and the probe are reached through
/// address dependencies, which order them on arm64 as `rcu_dereference()`
/// relies on (Rust's acquire loads would be `ldar`s).  x9-x14 are
/// temporaries of AAPCS64.
///
/// # Safety
/// (Of the assembly `get_kprobe()`.) The caller holds `kprobe_mutex` or
/// runs with preemption disabled, as for the Rust version.
#[cfg(CONFIG_RUST)]
macro_rules! arch_get_kprobe {
    ($($plain:item)*) => {
        extern "C" {
            /// The assembly below.
            pub fn get_kprobe(addr: *mut $crate::ffi::c_void) -> *mut $crate::types::Kprobe;
        }
        core::arch::global_asm!(
            ".pushsection .text, \"ax\"",
            ".globl get_kprobe",
            ".type get_kprobe, %function",
            entry_pre!(),
            entry_cfi!(get_kprobe),
            "get_kprobe:",
            entry_bti!(),
            entry_site!(),
            "adrp x9, {table}",
            "ldr x9, [x9, :lo12:{table}]",
            "movz w11, #{golden_lo}",
            "movk w11, #{golden_hi}, lsl #16",
            "ldr x10, [x9, #{off_cap_hi}]",
            "mul w11, w0, w11",
            "umulh x11, x11, x10",
            "add x12, x9, #{off_slots}",
            "2:",
            "ldr x13, [x12, x11, lsl #3]",
            "ldr x14, [x13, #{off_addr}]",
            "cmp x14, x0",
            "b.ne 3f",
            "mov x0, x13",
            "ret",
            "3:",
            "adrp x14, {empty}",
            "add x14, x14, :lo12:{empty}",
            "cmp x13, x14",
            "b.eq 4f",
            "ldr x14, [x9, #{off_cap}]",
            "add x11, x11, #1",
            "cmp x11, x14",
            "csel x11, xzr, x11, hs",
            "b 2b",
            "4:",
            "mov x0, xzr",
            "ret",
            ".size get_kprobe, .-get_kprobe",
            entry_record!(get_kprobe),
            ".popsection",
            golden_lo = const $crate::index::GOLDEN_RATIO_32 & 0xffff,
            golden_hi = const $crate::index::GOLDEN_RATIO_32 >> 16,
            table = sym $crate::index::TABLE,
            empty = sym $crate::index::EMPTY,
            off_cap = const core::mem::offset_of!($crate::index::Table, cap),
            off_cap_hi = const core::mem::offset_of!($crate::index::Table, cap_hi),
            off_slots = const core::mem::offset_of!($crate::index::Table, slots),
            off_addr = const core::mem::offset_of!($crate::types::Kprobe, addr),
        );
    };
}
/// `arch_get_kprobe! { PLAIN }`: `PLAIN`, the Rust `get_kprobe()`.
#[cfg(not(CONFIG_RUST))]
macro_rules! arch_get_kprobe {
    ($($plain:item)*) => {
        $($plain)*
    };
}
