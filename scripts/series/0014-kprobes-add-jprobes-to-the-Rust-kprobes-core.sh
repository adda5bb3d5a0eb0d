# The jprobes core module.
core rust-core/jprobe.rs
# The jprobes API header, the option and the sample.
add include/linux/jprobes.h include/linux/jprobes.h
apply "$SERIES/0014-kprobes-add-jprobes-to-the-Rust-kprobes-core.diff"
add samples/kprobes/jprobe_example.c samples/kprobes/jprobe_example.c
