// SPDX-License-Identifier: GPL-2.0

//! x86_64: the macros that write the core's C symbols as a C function of
//! this kernel starts (`arch_entry_stub!`, used by `ftrace_export!`,
//! `rust-core/abi.rs`) and `get_kprobe()` in assembly (`arch_get_kprobe!`,
//! used by `rust-core/registry.rs`).  The crate root selects this file by
//! `target_arch` as `arch_entry`, before `abi`.

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

// What comes before the symbol of an assembly function of this kernel
// (arch/x86/include/asm/linkage.h's `SYM_F_ALIGN`): alignment to
// `FUNCTION_ALIGNMENT` (16, or 64 with DEBUG_FORCE_FUNCTION_ALIGN_64B),
// then with CALL_PADDING as many single-byte NOPs, the padding the call
// depth tracking thunks are written into (arch/x86/kernel/callthunks.c
// refuses a callee whose padding is not NOPs).
#[cfg(all(CONFIG_RUST, CONFIG_FUNCTION_ALIGNMENT = "64"))]
macro_rules! function_alignment {
    () => {
        "64"
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_FUNCTION_ALIGNMENT = "64")))]
macro_rules! function_alignment {
    () => {
        "16"
    };
}
#[cfg(all(CONFIG_RUST, CONFIG_CALL_PADDING))]
macro_rules! entry_align {
    () => {
        concat!(
            ".balign ",
            function_alignment!(),
            ", 0x90; .skip ",
            function_alignment!(),
            ", 0x90"
        )
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_CALL_PADDING)))]
macro_rules! entry_align {
    () => {
        concat!(".balign ", function_alignment!(), ", 0x90")
    };
}

// kCFI (CONFIG_CFI on 7.3, CONFIG_CFI_CLANG on 6.12): an indirect call
// compares the type id that the callee's preamble carries with the one of
// the pointer's C type.  The preamble of an assembly function of this
// kernel (linkage.h's `__CFI_TYPE()`, `SYM_TYPED_FUNC_START()`) is the
// local function `__cfi_NAME`: `mov $__kcfi_typeid_NAME, %eax` and the
// padding up to the function alignment, after that mov with CALL_PADDING,
// before it without.  clang defines `__kcfi_typeid_NAME` from C's
// declaration of NAME in every object that takes its address
// (`c-shim/kprobes_rust_cfi.h` takes them all), so the id is C's by
// construction, and a symbol no C code declares is a link error.
#[cfg(all(CONFIG_RUST, any(CONFIG_CFI, CONFIG_CFI_CLANG), CONFIG_CALL_PADDING))]
macro_rules! cfi_padding {
    (pre) => {
        ""
    };
    (post) => {
        concat!(".skip ", function_alignment!(), " - 5, 0x90")
    };
}
#[cfg(all(
    CONFIG_RUST,
    any(CONFIG_CFI, CONFIG_CFI_CLANG),
    not(CONFIG_CALL_PADDING)
))]
macro_rules! cfi_padding {
    (pre) => {
        concat!(".skip ", function_alignment!(), " - 5, 0x90")
    };
    (post) => {
        ""
    };
}
#[cfg(all(CONFIG_RUST, any(CONFIG_CFI, CONFIG_CFI_CLANG)))]
macro_rules! entry_cfi {
    ($name:ident) => {
        concat!(
            ".type __cfi_",
            stringify!($name),
            ", @function\n",
            "__cfi_",
            stringify!($name),
            ":\n",
            cfi_padding!(pre),
            "\n",
            ".byte 0xb8\n",
            ".long __kcfi_typeid_",
            stringify!($name),
            "\n",
            cfi_padding!(post),
            "\n",
            ".size __cfi_",
            stringify!($name),
            ", .-__cfi_",
            stringify!($name)
        )
    };
}
#[cfg(all(CONFIG_RUST, not(any(CONFIG_CFI, CONFIG_CFI_CLANG))))]
macro_rules! entry_cfi {
    ($name:ident) => {
        ""
    };
}

// A return of an assembly function of this kernel (linkage.h's `RET`): the
// jump to the return thunk with MITIGATION_RETHUNK (objtool records it in
// `.return_sites`, as for the compiler's), `ret; int3` with
// MITIGATION_SLS, else `ret`.
#[cfg(all(CONFIG_RUST, CONFIG_MITIGATION_RETHUNK))]
macro_rules! entry_ret {
    () => {
        "jmp __x86_return_thunk"
    };
}
#[cfg(all(CONFIG_RUST, not(CONFIG_MITIGATION_RETHUNK), CONFIG_MITIGATION_SLS))]
macro_rules! entry_ret {
    () => {
        "ret; int3"
    };
}
#[cfg(all(
    CONFIG_RUST,
    not(CONFIG_MITIGATION_RETHUNK),
    not(CONFIG_MITIGATION_SLS)
))]
macro_rules! entry_ret {
    () => {
        "ret"
    };
}

/// `arch_entry_stub!(name, body)`: the C symbol `name`, a stub
/// `[endbr64;] [call __fentry__;] jmp body` (objtool records and NOPs the
/// call as for C), for `ftrace_export!` (`rust-core/abi.rs`).
#[cfg(CONFIG_RUST)]
macro_rules! arch_entry_stub {
    ($name:ident, $body:path) => {
        core::arch::global_asm!(
            ".pushsection .text, \"ax\"",
            concat!(".globl ", stringify!($name)),
            concat!(".type ", stringify!($name), ", @function"),
            entry_align!(),
            entry_cfi!($name),
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

/// `arch_get_kprobe! { PLAIN }`: `get_kprobe()` (`rust-core/registry.rs`).
/// In the kernel build, the assembly below, and `PLAIN` (the Rust
/// version) is dropped; on the host, `PLAIN`.  It starts and returns as an
/// assembly function of this kernel does (`entry_align!`, `entry_ret!`),
/// so that the return thunk, SLS hardening and call depth tracking treat it
/// as they treat upstream's.
///
/// The assembly is `index::lookup()` written out so that, like upstream's,
/// it starts with an ftrace site and has no extra jump on the probe hit
/// path (every int3/ftrace hit calls it): load the table, `home = (addr32 *
/// GOLDEN_RATIO_32) * ((cap - TAIL) << 32) >> 64` (index.rs: a 32-bit
/// multiply, whose result `imull` zero-extends, and one `mulq`, which leaves
/// the home slot in %rdx), then walk the slots: the home slot and the two
/// after it (`index::TAIL`: no home is among the last two slots) unrolled,
/// a load, a compare and the empty-slot test each, with no wrap-around
/// test, then a loop that wraps at `cap`.  A slot is compared by the `addr`
/// of what it points at without testing for the two sentinels first (their
/// `addr` is their own address, which no caller looks up), so a probe in
/// its home slot is reached without the null test upstream's first chain
/// node needs.  On a mismatch, subtracting the empty sentinel's address (a
/// sign-extended 32-bit immediate: kernel image addresses are,
/// `-mcmodel=kernel`) both tests for it and leaves the null to return
/// (`hit_mid_int3_post` has a found and a missed look-up per hit, the
/// `scale_*` rows a look-up among N probes).  The loads are plain, as
/// acquire loads and `rcu_dereference()` are on x86.
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
        const _: () = assert!(
            $crate::index::TAIL == 2,
            "the assembly reads two slots past the home unrolled"
        );
        core::arch::global_asm!(
            ".pushsection .text, \"ax\"",
            ".globl get_kprobe",
            ".type get_kprobe, @function",
            entry_align!(),
            entry_cfi!(get_kprobe),
            "get_kprobe:",
            entry_endbr!(),
            entry_fentry!(),
            "movq {table}(%rip), %rcx",
            "imull ${golden}, %edi, %eax",
            "mulq {off_cap_hi}(%rcx)",
            "movq {off_slots}(%rcx,%rdx,8), %rax",
            "cmpq %rdi, {off_addr}(%rax)",
            "jne 1f",
            entry_ret!(),
            "1:",
            "subq ${empty}, %rax",
            "jz 9f",
            "movq {off_slots}+8(%rcx,%rdx,8), %rax",
            "cmpq %rdi, {off_addr}(%rax)",
            "jne 2f",
            entry_ret!(),
            "2:",
            "subq ${empty}, %rax",
            "jz 9f",
            "movq {off_slots}+16(%rcx,%rdx,8), %rax",
            "cmpq %rdi, {off_addr}(%rax)",
            "jne 3f",
            entry_ret!(),
            "3:",
            "addq $2, %rdx",
            "4:",
            "subq ${empty}, %rax",
            "jz 9f",
            "incq %rdx",
            "cmpq {off_cap}(%rcx), %rdx",
            "jb 5f",
            "xorl %edx, %edx",
            "5:",
            "movq {off_slots}(%rcx,%rdx,8), %rax",
            "cmpq %rdi, {off_addr}(%rax)",
            "jne 4b",
            entry_ret!(),
            "9:",
            entry_ret!(),
            ".size get_kprobe, .-get_kprobe",
            ".popsection",
            golden = const $crate::index::GOLDEN_RATIO_32,
            table = sym $crate::index::TABLE,
            empty = sym $crate::index::EMPTY,
            off_cap = const core::mem::offset_of!($crate::index::Table, cap),
            off_cap_hi = const core::mem::offset_of!($crate::index::Table, cap_hi),
            off_slots = const core::mem::offset_of!($crate::index::Table, slots),
            off_addr = const core::mem::offset_of!($crate::types::Kprobe, addr),
            options(att_syntax)
        );
    };
}
/// `arch_get_kprobe! { PLAIN }` on the host: `PLAIN`, the Rust
/// `get_kprobe()`.
#[cfg(not(CONFIG_RUST))]
macro_rules! arch_get_kprobe {
    ($($plain:item)*) => {
        $($plain)*
    };
}
