core rust-core/kretprobe.rs rust-core/kretprobe_rethook.rs rust-core/kretprobe_objpool.rs rust-core/objpool.rs
