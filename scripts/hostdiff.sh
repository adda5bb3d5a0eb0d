#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-level differential: random operation sequences run
# through upstream kernel/kprobes.c compiled on the host (hostdiff-c) and
# through the Rust core compiled on the host (hostdiff-rust: the staticlib
# of the cargo package tools/testing/hostdiff/rust/), each linked with the
# same driver (driver.c) and simulated kernel: the host tests' simulation
# (rust-core/host/sim/) with its C ABI (the cargo package tools/testing/
# hostdiff/sim/: libkpsim.a for upstream's file, the same files compiled
# into the Rust core's staticlib for hostdiff-rust), built from
# tools/testing/hostdiff/ into build/hostdiff/; the traces must be
# identical, except after a recorded upstream anomaly.
#
#   scripts/hostdiff.sh            KP_HOSTDIFF_SEQS sequences (default 1000)
#   KP_TREE=7.3 scripts/hostdiff.sh   the same against 7.3's kernel/kprobes.c
#
# The C side is the `pristine` kernel/kprobes.c of the tree scripts/lib.sh
# selects (KP_TREE: build/linux for 6.12, build/7.3/linux for 7.3), built
# into that tree's $WORK/hostdiff (build/hostdiff, build/7.3/hostdiff).
#
# Environment:
#   KP_HOSTDIFF_SEQS   number of sequences (default 1000)
#   KP_HOSTDIFF_OPS    operations per sequence (default 200)
#   KP_HOSTDIFF_SEED   first seed (default 1); sequence i uses seed SEED+i
#   KP_HOSTDIFF_JOBS   worker processes (default: the CPUs; tools/testing/
#                      hostdiff/run.py runs the sequences)
#   KP_HOSTDIFF_RUST   a prebuilt Rust driver to use instead of building
#                      build/hostdiff/hostdiff-rust (cargo, then make)
#   KP_HOSTDIFF_STRICT=1  also compare `  ?` lines (pure arch queries)
#   KP_HOSTDIFF_LOOSE=1   ignore `  ~` lines (RCU grace periods, work queue)
#   KP_HOSTDIFF_RESYNC=0  do not look past intended divergences (default 1:
#                      for each, drop the anomaly operation and compare again,
#                      up to 16 times, tools/testing/hostdiff/resync.py; a
#                      real divergence found so counts as real)
# Checks (one PASS/FAIL line each, for scripts/test.sh's suite hook):
#   hostdiff/classify-finding-1, -3, -5, -6, -7, -batch, -batch-finding-1
#                             classify.py's self-test (tools/testing/
#                             hostdiff/test_classify.py, run first, no
#                             driver needed): for each recorded upstream
#                             anomaly, the drivers' traces of its reproducer
#                             are "intended" and hand-made Rust traces that
#                             do something else there are "real"
#                             (hostdiff/classify-selftest: it crashed)
#   hostdiff/c-clean          hostdiff-c exits 0 with empty stderr on every
#                             sequence (ASan/UBSan/LSan, kernel rule checks)
#   hostdiff/c-deterministic  two runs of each sequence give identical traces
#   hostdiff/fatal            each case of tools/testing/hostdiff/fatal.c
#                             breaks a rule of the simulated kernel and must
#                             abort with the FATAL line and trace that
#                             fatal.expected records (fatal.py)
#   hostdiff/rust-identical   no real divergence: every sequence where the C
#                             and Rust traces differ (or hostdiff-rust fails)
#                             is classified by tools/testing/hostdiff/
#                             classify.py; only "intended" ones are allowed
#                             (the first difference comes at or after an
#                             operation whose C trace shows a recorded
#                             upstream anomaly, MODEL.md section 5, and the
#                             Rust trace of that operation does not show it
#                             but does what docs/divergences.md
#                             says the Rust core does there; with resync, a
#                             real divergence after dropping the anomaly
#                             operations counts as real too)
#   hostdiff/every-divergence-resolved  with resync (the default), each
#                             intended divergence was looked past: the
#                             rest of its sequence compared identical; one
#                             still intended after the last round was
#                             compared only up to its anomaly, and fails
# Last line: `hostdiff: N sequences, M diverge, K intended` (after
# fatal.py's `fatal: N cases, M as recorded`).
. "$(dirname "$0")/lib.sh"

SEQS=${KP_HOSTDIFF_SEQS:-1000}
OPS=${KP_HOSTDIFF_OPS:-200}
SEED=${KP_HOSTDIFF_SEED:-1}
OUT=$WORK/hostdiff
RUST=${KP_HOSTDIFF_RUST:-$OUT/hostdiff-rust}
RUSTLIB=${CARGO_TARGET_DIR:-$ROOT/target}/debug/libkprobes_model.a
SIMLIB=${CARGO_TARGET_DIR:-$ROOT/target}/debug/libkpsim.a
HD=$ROOT/tools/testing/hostdiff

[ -d "$KSRC/.git" ] || die "no kernel tree at $KSRC" "run 'make tree' first"
git -C "$KSRC" rev-parse -q --verify pristine >/dev/null ||
	die "the kernel tree has no 'pristine' tag" "run scripts/kernel-tree.sh (make tree)"

step "hostdiff: classify.py self-test (tools/testing/hostdiff/test_classify.py)"
selftest=0
out=$(python3 "$HD/test_classify.py" 2>&1) || selftest=$?
grep -E '^(PASS|FAIL) ' <<<"$out" || true
if [ "$selftest" != 0 ] && ! grep -q '^FAIL ' <<<"$out"; then
	tail -n 15 <<<"$out" >&2
	echo "FAIL hostdiff/classify-selftest test_classify.py failed (exit $selftest) without a result line"
fi

step "hostdiff: build hostdiff-c (upstream kernel/kprobes.c on the host, with the simulated kernel libkpsim.a)"
mkdir -p "$OUT"
(cd "$ROOT" && cargo build -q -p kpsim) >"$OUT/cargo-kpsim.log" 2>&1 ||
	{ cat "$OUT/cargo-kpsim.log" >&2; die "libkpsim.a does not build" "see $OUT/cargo-kpsim.log"; }
make -s -C "$HD" O="$OUT" KSRC="$KSRC" KP_TREE="${KP_TREE:-6.12}" SIMLIB="$SIMLIB" hostdiff-c fatal >"$OUT/build.log" 2>&1 ||
	{ cat "$OUT/build.log" >&2; die "hostdiff-c does not build" "see $OUT/build.log"; }

if [ -z "${KP_HOSTDIFF_RUST:-}" ]; then
	step "hostdiff: build hostdiff-rust (the Rust core on the same simulated kernel)"
	(cd "$ROOT" && cargo build -q -p hostdiff-rust) >"$OUT/cargo.log" 2>&1 ||
		{ cat "$OUT/cargo.log" >&2; die "the Rust core does not build for hostdiff-rust" "see $OUT/cargo.log"; }
	make -s -C "$HD" O="$OUT" KSRC="$KSRC" KP_TREE="${KP_TREE:-6.12}" RUSTLIB="$RUSTLIB" hostdiff-rust >>"$OUT/build.log" 2>&1 ||
		{ cat "$OUT/build.log" >&2; die "hostdiff-rust does not link" "see $OUT/build.log"; }
fi
[ -x "$RUST" ] || die "no Rust driver at $RUST"

step "hostdiff: generate $SEQS sequences of $OPS operations (seeds $SEED..$((SEED + SEQS - 1)))"
rm -rf "$OUT/seq" "$OUT/trace" "$OUT/diverge"
mkdir -p "$OUT/seq" "$OUT/trace" "$OUT/diverge"
python3 "$HD/gen.py" "$SEED" "$OPS" "$SEQS" "$OUT/seq" || die "gen.py failed"

info "rust driver: $RUST"

step "hostdiff: run"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# The loop, the classification and the checks' lines (run.py; it compares
# the lines MODEL.md "Trace" and classify.compared() say).
rc=0
runout=$(python3 "$HD/run.py" "$OUT/hostdiff-c" "$RUST" "$OUT" "$SEED" "$SEQS") || rc=$?
sed '$d' <<<"$runout"

step "hostdiff: the fatal cases (fatal.c against fatal.expected)"
fatal=0
python3 "$HD/fatal.py" "$OUT/fatal" "$HD/fatal.expected" || fatal=$?
tail -n 1 <<<"$runout"
[ "$rc" = 0 ] && [ "$selftest" = 0 ] && [ "$fatal" = 0 ]
