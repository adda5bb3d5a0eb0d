// SPDX-License-Identifier: GPL-2.0

//! riscv64: the macro that writes the core's C symbols as a C function of
//! this kernel starts (`arch_entry_stub!`, used by `ftrace_export!`,
//! `rust-core/abi.rs`) and `get_kprobe()` (`arch_get_kprobe!`, used by
//! `rust-core/registry.rs`), as `arch/x86_64/entry.rs` for x86_64.  The
//! crate root selects this file by `target_arch` as `arch_entry`, before
//! `abi`.
//!
//! Without the function tracer (Kconfig) a C function of this kernel
//! starts with its own code: the stub is a tail call, and `get_kprobe()`
//! needs no ftrace site before it.

#[cfg(all(CONFIG_RUST, CONFIG_FUNCTION_TRACER))]
compile_error!("KPROBES_RUST on riscv64 does not write the function tracer's entries");
#[cfg(all(CONFIG_RUST, any(CONFIG_CFI, CONFIG_CFI_CLANG)))]
compile_error!("KPROBES_RUST on riscv64 does not write kCFI type ids");

/// `arch_entry_stub!(name, body)`: the C symbol `name`, a stub that
/// tail-calls `body`, for `ftrace_export!` (`rust-core/abi.rs`).  `tail`
/// (`auipc` + `jr` through t1, a temporary the callee may clobber) reaches
/// `body` wherever the linker puts it.
#[cfg(CONFIG_RUST)]
macro_rules! arch_entry_stub {
    ($name:ident, $body:path) => {
        core::arch::global_asm!(
            ".pushsection .text, \"ax\"",
            concat!(".globl ", stringify!($name)),
            concat!(".type ", stringify!($name), ", %function"),
            ".balign 4",
            concat!(stringify!($name), ":"),
            "tail {f}",
            concat!(".size ", stringify!($name), ", .-", stringify!($name)),
            ".popsection",
            f = sym $body,
        );
    };
}

/// `arch_get_kprobe! { PLAIN }`: `get_kprobe()` (`rust-core/registry.rs`).
/// In the kernel build, the assembly below, and `PLAIN` (the Rust version)
/// is dropped; on a host, `PLAIN`.
///
/// The assembly is `index::lookup()` written out, as on arm64, so that its
/// loads are the plain loads C's `rcu_dereference()` compiles to (Rust's
/// acquire loads add a `fence r, rw` after each on riscv): the slot and
/// the probe are reached through address dependencies, which order them
/// (RVWMO).  `home = (addr32 * GOLDEN_RATIO_32) * cap_hi >> 64` is a `mulw`,
/// its zero extension and one `mulhu`; a slot is compared by the `addr` of
/// what it points at before testing for the empty sentinel (whose `addr`
/// is its own address, which no caller looks up), and the walk wraps at
/// `cap`.  t0-t6 are temporaries of the psABI.  No frame record: a leaf
/// that calls nothing, as the arm64 and x86_64 versions.
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
            ".balign 4",
            "get_kprobe:",
            "ld t0, {table}",
            "li t2, {golden}",
            "ld t1, {off_cap_hi}(t0)",
            "mulw t2, a0, t2",
            "slli t2, t2, 32",
            "srli t2, t2, 32",
            "mulhu t3, t2, t1",
            "addi t4, t0, {off_slots}",
            "2:",
            "slli t5, t3, 3",
            "add t5, t5, t4",
            "ld t5, 0(t5)",
            "ld t6, {off_addr}(t5)",
            "bne t6, a0, 3f",
            "mv a0, t5",
            "ret",
            "3:",
            "lla t6, {empty}",
            "beq t5, t6, 4f",
            "ld t6, {off_cap}(t0)",
            "addi t3, t3, 1",
            "bltu t3, t6, 2b",
            "li t3, 0",
            "j 2b",
            "4:",
            "li a0, 0",
            "ret",
            ".size get_kprobe, .-get_kprobe",
            ".popsection",
            golden = const $crate::index::GOLDEN_RATIO_32,
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
