// SPDX-License-Identifier: GPL-2.0

//! Build script of the host builds (`cargo test` of the core, the host
//! differential's build of the core, and the simulation as a C library,
//! `tools/testing/hostdiff/sim/`): the simulated kernel is configured
//! like the `pipeline` kernel (scripts/kconfig/pipeline.config), so the
//! host builds compile the same `#[cfg(CONFIG_...)]` code as that kernel.
//! Kbuild passes the real configuration's cfgs to the kernel build
//! (`include/generated/rustc_cfg`); `CONFIG_RUST` is never set here,
//! which selects the host `sys`: `host/sim.rs` for the core's tests (and
//! `libkpsim.a`), the C model's for the host differential's build of the
//! core (`cfg(KP_MODEL)`, set below).

/// Options of the simulated kernel that the core's cfgs test.
const ENABLED: &[&str] = &[
    "CONFIG_DEBUG_FS",
    "CONFIG_DYNAMIC_FTRACE",
    "CONFIG_FUNCTION_TRACER",
    "CONFIG_HOTPLUG_CPU",
    "CONFIG_KPROBES_ON_FTRACE",
    "CONFIG_KRETPROBE_ON_RETHOOK",
    "CONFIG_MODULES",
    "CONFIG_MODULE_UNLOAD",
    "CONFIG_OPTPROBES",
    "CONFIG_SMP",
    "CONFIG_SYSCTL",
];

/// Options the core tests that the simulated kernel does not have.
const DISABLED: &[&str] = &[
    "CONFIG_RUST",
    "MODULE",
    "CONFIG_CALL_PADDING",
    "CONFIG_CFI",
    "CONFIG_CFI_CLANG",
    "CONFIG_DEBUG_LOCK_ALLOC",
    "CONFIG_JUMP_LABEL",
    "CONFIG_KASAN_GENERIC",
    "CONFIG_KPROBES_RUST_EXPEDITED_GP",
    "CONFIG_KPROBES_RUST_KUNIT_TEST",
    "CONFIG_LOCKDEP",
    "CONFIG_MITIGATION_RETHUNK",
    "CONFIG_MITIGATION_SLS",
    "CONFIG_PREEMPT_COUNT",
    "CONFIG_PREEMPT_RCU",
    "CONFIG_TINY_RCU",
    "CONFIG_X86_KERNEL_IBT",
];

fn main() {
    // This file, relative to the package that builds it.
    let me = match std::env::var("CARGO_PKG_NAME").as_deref() {
        Ok("kprobes_core") => "host/build_cfg.rs",
        _ => "../../../../rust-core/host/build_cfg.rs",
    };
    println!("cargo::rerun-if-changed={me}");
    for name in ENABLED.iter().chain(DISABLED) {
        println!("cargo::rustc-check-cfg=cfg({name})");
    }
    // An option with a value the core tests (arch/x86_64/entry.rs).
    println!("cargo::rustc-check-cfg=cfg(CONFIG_FUNCTION_ALIGNMENT, values(any()))");
    for name in ENABLED {
        println!("cargo::rustc-cfg={name}");
    }
    // The host differential's build of the core (tools/testing/hostdiff/
    // rust/): `sys` is host/sim.rs too, the one simulation the program's C
    // side reaches through its C ABI (tools/testing/hostdiff/sim/abi.rs,
    // core_sys.rs).
    // The kernel tree (`Kbuild` in the kernel build): KP_TREE, which
    // scripts/lib.sh exports; mainline's unless it is 6.12.
    println!("cargo::rustc-check-cfg=cfg(kp_tree_6_12)");
    println!("cargo::rerun-if-env-changed=KP_TREE");
    if std::env::var("KP_TREE").as_deref() == Ok("6.12") {
        println!("cargo::rustc-cfg=kp_tree_6_12");
    }
    println!("cargo::rustc-check-cfg=cfg(KP_MODEL)");
    if std::env::var("CARGO_PKG_NAME").as_deref() == Ok("hostdiff-rust") {
        println!("cargo::rustc-cfg=KP_MODEL");
    }
    // jprobes (the rust variant's option): in the core's tests; not in the
    // host differential, whose C side (upstream kprobes.c) has none.
    println!("cargo::rustc-check-cfg=cfg(CONFIG_KPROBES_RUST_JPROBES)");
    if me == "host/build_cfg.rs" {
        println!("cargo::rustc-cfg=CONFIG_KPROBES_RUST_JPROBES");
    }
}
