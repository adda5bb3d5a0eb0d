#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate include/linux/kprobes_rust.h from rust-core with cbindgen.
#   scripts/gen-header.sh           rewrite the header
#   scripts/gen-header.sh --check   fail if the committed header is stale
. "$(dirname "$0")/lib.sh"
command -v cbindgen >/dev/null || die "cbindgen not found" "run scripts/setup.sh (make setup)"
hdr=$ROOT/include/linux/kprobes_rust.h
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
(cd "$ROOT/rust-core" && cbindgen --quiet --config cbindgen.toml --output "$tmp" .) ||
	die "cbindgen failed"
if [ "${1:-}" = --check ]; then
	if ! diff -u "$hdr" "$tmp"; then
		die "include/linux/kprobes_rust.h is stale" "run scripts/gen-header.sh and commit the result"
	fi
	info "include/linux/kprobes_rust.h is up to date"
else
	cp "$tmp" "$hdr"
	info "wrote $hdr"
fi
