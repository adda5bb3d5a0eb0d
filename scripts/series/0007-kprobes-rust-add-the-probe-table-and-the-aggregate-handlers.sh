core rust-core/index.rs rust-core/registry.rs rust-core/aggr.rs rust-core/abi.rs arch/x86_64/entry.rs arch/arm64/entry.rs arch/riscv64/entry.rs
