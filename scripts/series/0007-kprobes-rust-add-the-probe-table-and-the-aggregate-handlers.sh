core rust-core/index.rs rust-core/registry.rs rust-core/aggr.rs rust-core/abi.rs
