# Copy the project's kernel-side files into kernel/kprobes_rust/.
for f in $(project_files Kbuild rust-core c-shim arch); do
	case $f in
	*/Cargo.toml|*/Cargo.lock|rust-core/host/*|rust-core/tests/*) continue ;;
	esac
	add "$f" "kernel/kprobes_rust/$f"
done
# The new directory in the KPROBES entry of MAINTAINERS.
g apply --cached "$SERIES/0002-kprobes-add-the-Rust-kprobes-core.diff"
