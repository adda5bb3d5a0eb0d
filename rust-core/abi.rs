// SPDX-License-Identifier: GPL-2.0

//! How a Rust function becomes a C symbol of this kernel: the entry stub
//! macros used by every module that exports a function with an ftrace site
//! (`ftrace_export!`), and the first instructions of such a function.
//! Declared first in the crate root (`#[macro_use]`), so that every module
//! can export the functions it owns.
//!
//! With kCFI, C's indirect call of a function checks the type id in the
//! function's preamble against the id of the pointer's C type.  Every
//! function of the core that C may call through a pointer is declared in C
//! with its C prototype (`c-shim/kprobes_rust.h`), and C takes its address
//! (`c-shim/kprobes_rust_cfi.h`), so that clang defines its id as
//! `__kcfi_typeid_NAME`.  An entry stub carries that symbol in its preamble
//! (`arch_entry_stub!`): C's id by construction.  A function rustc compiles
//! (the aggregate handlers, the kretprobe and RCU callbacks) carries rustc's
//! id, which encodes a `#[repr(C)]` struct by its name: the structs in
//! those signatures are named as C names them (`kprobe`,
//! `kretprobe_instance`, `callback_head`; the core's code uses CamelCase
//! aliases), and `c-shim/kcfi_check.py` fails the build when an id differs
//! from clang's.  The same names give the core's own calls of C's handlers
//! (`pre_handler`, `post_handler`, a kretprobe's `handler`) C's ids.

/// `ftrace_export! { DOC ATTRS [unsafe] fn name(args) [-> ret] BODY }`: the
/// C symbol `name`, written once.
///
/// In the kernel, `name` is the architecture's entry stub
/// (`arch_entry_stub!`: on x86_64 `[endbr64;] [call __fentry__;] jmp
/// name::body`), declared to Rust as an
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
            arch_entry_stub!($name, body);
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
