// SPDX-License-Identifier: GPL-2.0

//! riscv64: the macro that writes the core's C symbols as a C function of
//! this kernel starts (`arch_entry_stub!`, used by `ftrace_export!`,
//! `rust-core/abi.rs`) and `get_kprobe()` (`arch_get_kprobe!`, used by
//! `rust-core/registry.rs`), as `arch/x86_64/entry.rs` for x86_64.  The
//! crate root selects this file by `target_arch` as `arch_entry`, before
//! `abi`.
//!
//! Without the function tracer (Kconfig) a C function of this kernel
//! starts with its own code: the stub is a tail call and `get_kprobe()` the
//! Rust one, which needs no ftrace site before it.

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

/// `arch_get_kprobe! { PLAIN }`: `get_kprobe()` (`rust-core/registry.rs`),
/// the Rust version `PLAIN` in every build.
macro_rules! arch_get_kprobe {
    ($($plain:item)*) => {
        $($plain)*
    };
}
