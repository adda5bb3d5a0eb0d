# The kprobes.expedited_gp policy: the core's part (kernel/kprobes_rust/,
# which 0002 stages without it) and the option and parameter's
# documentation.
apply "$SERIES/0005-kprobes-add-the-expedited-grace-period-option-core.diff"
apply "$SERIES/0005-kprobes-add-the-expedited-grace-period-option.diff"
