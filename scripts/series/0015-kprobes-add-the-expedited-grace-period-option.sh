# The kprobes.expedited_gp policy: the core's part (kernel/kprobes_rust/,
# which the patches that add the core stage without it) and the
# documentation of the option and the parameter.
apply "$SERIES/0015-kprobes-add-the-expedited-grace-period-option.core.diff"
apply "$SERIES/0015-kprobes-add-the-expedited-grace-period-option.diff"
