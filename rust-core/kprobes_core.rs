// SPDX-License-Identifier: GPL-2.0

//! The Rust kprobes core.
//!
//! This crate replaces `kernel/kprobes.c` when `CONFIG_KPROBES_RUST=y`.  The
//! same source is built by Kbuild into vmlinux (against the `kernel` crate)
//! and by cargo on the host, where `cargo test` runs it against a simulated
//! kernel.  One module per concept of the upstream file.
//!
//! The core is being moved here group by group; until a group has moved,
//! `c-shim/kprobes_upstream.c` still builds it from `kernel/kprobes.c`.

// The kernel build passes `-Zcrate-attr=no_std` itself.
#![cfg_attr(not(any(test, CONFIG_RUST)), no_std)]
