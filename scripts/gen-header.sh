#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate c-shim/kprobes_rust.h from rust-core with cbindgen.
#   scripts/gen-header.sh           rewrite the header
#   scripts/gen-header.sh --check   fail if the committed header is stale
. "$(dirname "$0")/lib.sh"
command -v cbindgen >/dev/null || die "cbindgen not found" "run scripts/setup.sh (make setup)"
tmp=$(mktemp)
src=$(mktemp -d)
trap 'rm -rf "$tmp" "$src"' EXIT
mode=${1:-}
# emit H: $tmp is what c-shim/H must be; check it (--check) or write it.
emit() {
	local hdr=$ROOT/c-shim/$1
	if [ "$mode" = --check ]; then
		diff -u "$hdr" "$tmp" || die "c-shim/$1 is stale" "run scripts/gen-header.sh and commit the result"
		info "c-shim/$1 is up to date"
	else
		cp "$tmp" "$hdr"
		info "wrote $hdr"
	fi
}
# cbindgen reads a copy of rust-core/ in which each ftrace_export! is
# written out as the extern "C" declaration it stands for.
cp -a "$ROOT/rust-core/." "$src/"
python3 "$ROOT/scripts/export-decls.py" "$src"/*.rs || die "scripts/export-decls.py failed"
# c-shim/kprobes_rust.h: the exports and the shim functions Rust
# calls; c-shim/kprobes_rust_layout.h: Rust's view of the shared
# structs, checked against the kernel's by c-shim/kprobes_layout.c.
for pair in kprobes_rust.h:cbindgen.toml kprobes_rust_layout.h:cbindgen-layout.toml; do
	h=${pair%%:*} cfg=${pair#*:}
	(cd "$src" && cbindgen --quiet --config "$cfg" --output "$tmp" .) ||
		die "cbindgen failed ($cfg)"
	python3 "$ROOT/scripts/kstyle-c.py" "$tmp" || die "scripts/kstyle-c.py failed"
	emit "$h"
done
# c-shim/kprobes_rust_cfi.h: the functions of kprobes_rust.h the core
# defines, address-taken for their kCFI type ids (from the header just
# checked or written).
python3 "$ROOT/scripts/kcfi-decls.py" "$ROOT/c-shim/kprobes_rust.h" "$ROOT"/rust-core/*.rs \
	"$ROOT"/rust-core/tree/*.rs "$ROOT"/arch/*/*.rs >"$tmp" || die "scripts/kcfi-decls.py failed"
emit kprobes_rust_cfi.h
