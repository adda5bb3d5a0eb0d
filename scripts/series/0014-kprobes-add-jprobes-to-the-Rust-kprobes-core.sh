# The jprobes core module, and the core's jprobes glue (the shim's exports,
# the layout checks of struct jprobe, its view, the "j" of kprobes/list),
# which the patches that add the core stage without it.
core rust-core/jprobe.rs
apply "$SERIES/0014-kprobes-add-jprobes-to-the-Rust-kprobes-core.core.diff"
# The jprobes API header, the option and the sample.
add include/linux/jprobes.h include/linux/jprobes.h
apply "$SERIES/0014-kprobes-add-jprobes-to-the-Rust-kprobes-core.diff"
add samples/kprobes/jprobe_example.c samples/kprobes/jprobe_example.c
