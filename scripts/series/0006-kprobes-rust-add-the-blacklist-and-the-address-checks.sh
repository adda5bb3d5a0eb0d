core rust-core/blacklist.rs rust-core/addr.rs
