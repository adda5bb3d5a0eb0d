#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every prefix of the patch series compiles the Rust core's objects
# (kernel/kprobes_rust/) with `make CLIPPY=1` (clippy-driver, with the
# kernel's lint flags, compiles the Rust objects) without a warning, in a
# copy of the built rust variant's O= directory (make build first; make
# patches runs this, and make test after the builds).  Before the kernel/Makefile switch nothing
# lists the directory, so for those prefixes the checkout gets
# `obj-y += kprobes_rust/` (kbuild descends only into listed
# directories), undone after the build; before the patch that adds
# CONFIG_KPROBES_RUST the objects are built with the option undefined
# (the core's cfgs on it name its sub-options, off then).  It checks the
# prefixes out in $KSRC, one at a time, and the series again at the end:
# run nothing else on the tree meanwhile.  KP_CONFIG=arm64 (or any config
# with `# kp-arch:`) builds that architecture's prefixes.
. "$(dirname "$0")/lib.sh"
[ -f "$(outdir rust)/.config" ] || die "no built rust variant in $(outdir rust)" "run 'make build' first"
g() { git -C "$KSRC" "$@"; }
pfx=$WORK/out-prefix
step "prefix builds: copying $(outdir rust) to $pfx for the prefix builds"
rm -rf "$pfx"
cp -a "$(outdir rust)" "$pfx"
# The copy goes at the end, passed or failed (each run copies it afresh).
trap 'g checkout -q -- kernel/Makefile; g checkout -q kprobes-rust; rm -rf "$pfx"' EXIT
i=0
for c in $(g rev-list --reverse pristine..kprobes-rust); do
	i=$((i + 1))
	subj=$(g log --format=%s -1 "$c")
	if ! g cat-file -e "$c:kernel/kprobes_rust/Kbuild" 2>/dev/null; then
		info "prefix $i ($subj): no kernel/kprobes_rust/ yet"
		continue
	fi
	g checkout -q "$c"
	# Before the kernel/Makefile switch nothing lists the directory, and
	# kbuild descends only into listed ones: list it in this checkout
	# alone (undone below).
	scratch=
	if ! grep -q 'kprobes_rust/' "$KSRC/kernel/Makefile"; then
		echo 'obj-y += kprobes_rust/' >>"$KSRC/kernel/Makefile"
		scratch=1
	fi
	log=$WORK/out-prefix-$i.log
	"$KSRC/scripts/config" --file "$pfx/.config" -e KPROBES_RUST -e KPROBES_RUST_JPROBES -e KPROBES_RUST_KUNIT_TEST
	if ! make -C "$KSRC" O="$pfx" ${KARCH_ARGS[@]+"${KARCH_ARGS[@]}"} LLVM="$KLLVM" olddefconfig >"$log" 2>&1 ||
		! make -C "$KSRC" O="$pfx" ${KARCH_ARGS[@]+"${KARCH_ARGS[@]}"} LLVM="$KLLVM" CLIPPY=1 -j"$JOBS" kernel/kprobes_rust/ >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "prefix $i ($subj) does not build the core; log: $log"
	fi
	[ -z "$scratch" ] || g checkout -q -- kernel/Makefile
	n=$(grep -cE '^ *(RUSTC|CLIPPY|CC) +kernel/kprobes_rust/' "$log" || true)
	[ "$n" -gt 0 ] || die "prefix $i ($subj): nothing of kernel/kprobes_rust/ was compiled; log: $log"
	if grep -q 'warning:' "$log"; then
		grep -A 3 'warning:' "$log" | head -n 20 >&2
		die "prefix $i ($subj) builds the core with warnings; log: $log"
	fi
	info "prefix $i ($subj): kernel/kprobes_rust/ builds ($n objects compiled)"
done
step "prefix builds: every prefix that has kernel/kprobes_rust/ compiles it (CLIPPY=1) without warnings"

