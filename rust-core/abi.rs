// SPDX-License-Identifier: GPL-2.0

//! How a Rust function becomes a C symbol of this kernel: the entry stub
//! macros used by every module that exports a function with an ftrace site
//! (`ftrace_export!`), and the first instructions of such a function.
//! Declared first in the crate root (`#[macro_use]`), so that every module
//! can export the functions it owns.

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

/// `ftrace_export! { DOC ATTRS [unsafe] fn name(args) [-> ret] BODY }`: the
/// C symbol `name`, written once.
///
/// In the kernel, `name` is an entry stub `[endbr64;] [call __fentry__;]
/// jmp name::body` (see the module documentation), declared to Rust as an
/// `extern "C"` function; the body is `name::body`, in a hidden module of
/// the same name (modules and functions live in different namespaces).  On
/// the host, where there is no ftrace, `name` is the body itself (the C
/// symbol `name` in the host differential's build, `cfg(KP_MODEL)`).  The
/// attributes (documentation with its `# Safety` section, `cfg`s, lint
/// allowances) apply to each of those items.  cbindgen does not expand
/// macros: `scripts/gen-header.sh` hands it the same signature.
macro_rules! ftrace_export {
    (
        $(#[$a:meta])* unsafe fn $name:ident($($arg:ident: $t:ty),* $(,)?) $(-> $r:ty)?
        $body:block
    ) => {
        ftrace_export!(@emit [unsafe] $(#[$a])* $name($($arg: $t),*) $(-> $r)? $body);
    };
    ($(#[$a:meta])* fn $name:ident($($arg:ident: $t:ty),* $(,)?) $(-> $r:ty)? $body:block) => {
        ftrace_export!(@emit [] $(#[$a])* $name($($arg: $t),*) $(-> $r)? $body);
    };
    (
        @emit [$($u:tt)*] $(#[$a:meta])* $name:ident($($arg:ident: $t:ty),*) $(-> $r:ty)?
        $body:block
    ) => {
        // `improper_ctypes`: the arguments are pointers to C structs, FFI-safe
        // as pointers; the lint looks at the pointee, and bindgen renders
        // some (`seq_file`'s `lockdep_map` without lockdep) as empty structs.
        #[cfg(CONFIG_RUST)]
        #[allow(improper_ctypes)]
        extern "C" {
            $(#[$a])*
            pub fn $name($($arg: $t),*) $(-> $r)?;
        }
        #[cfg(CONFIG_RUST)]
        $(#[$a])*
        #[doc(hidden)]
        pub mod $name {
            #[allow(unused_imports)]
            use super::*;
            /// The body of the export (its documentation is the export's).
            #[allow(clippy::missing_safety_doc)]
            pub $($u)* extern "C" fn body($($arg: $t),*) $(-> $r)? $body
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
                f = sym body,
                options(att_syntax)
            );
        }
        // On the host, the body itself: a C symbol for the host differential
        // (hostdiff-rust links the core with the C model), a Rust function
        // for the host tests.
        #[cfg(not(CONFIG_RUST))]
        #[cfg_attr(KP_MODEL, no_mangle)]
        $(#[$a])*
        pub $($u)* extern "C" fn $name($($arg: $t),*) $(-> $r)? $body
    };
}
