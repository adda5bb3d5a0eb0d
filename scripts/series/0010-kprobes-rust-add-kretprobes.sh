core rust-core/kretprobe.rs
