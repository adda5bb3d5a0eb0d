core rust-core/kretprobe.rs rust-core/kretprobe_rethook.rs rust-core/kretprobe_objpool.rs rust-core/objpool.rs arch/arm64/shim.c arch/arm64/shim.h
