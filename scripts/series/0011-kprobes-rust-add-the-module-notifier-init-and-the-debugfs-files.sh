core rust-core/module.rs rust-core/init.rs rust-core/debugfs.rs
