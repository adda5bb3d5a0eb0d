# Copy the project's kernel-side files into kernel/kprobes_rust/.
for f in $(project_files Kbuild rust-core c-shim arch); do
	case $f in
	*/Cargo.toml|*/Cargo.lock|rust-core/host/*|rust-core/tests/*) continue ;;
	esac
	add "$f" "kernel/kprobes_rust/$f"
done
# The project's core waits as its kprobes.expedited_gp option says; that
# option is patch 0005, so this patch stages the core without it (0005's
# core diff, reversed): upstream's synchronize_rcu().
apply -R "$SERIES/0005-kprobes-add-the-expedited-grace-period-option-core.diff"
# The new directory in the KPROBES entry of MAINTAINERS.
apply "$SERIES/0002-kprobes-add-the-Rust-kprobes-core.diff"
