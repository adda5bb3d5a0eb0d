#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-level differential (issue 5, part 2): random operation sequences run
# through upstream kernel/kprobes.c compiled on the host (hostdiff-c) and
# through the Rust core compiled on the host (hostdiff-rust: the staticlib
# of the cargo package tools/testing/hostdiff/rust/), each linked with the
# same simulated kernel (model.c, arch.c) and driver (driver.c), built from
# tools/testing/hostdiff/ into build/hostdiff/; the traces must be
# identical, except after a recorded upstream anomaly.  And (issue 13,
# tools/testing/hostdiff/PLAN-one-simulation.md step 5) hostdiff-c2:
# upstream kprobes.c and driver.c on the host tests' simulated kernel
# (libkpsim.a, the cargo package tools/testing/hostdiff/sim/) instead of
# model.c and arch.c, whose traces must be hostdiff-c's, byte for byte.
#
#   scripts/hostdiff.sh            KP_HOSTDIFF_SEQS sequences (default 1000)
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
#                      up to 8 times, tools/testing/hostdiff/resync.py; a
#                      real divergence found so counts as real)
# Checks (one PASS/FAIL line each, for scripts/test.sh's suite hook):
#   hostdiff/classify-finding-1, -3, -5, -6, -batch
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
#   hostdiff/c2-identical     hostdiff-c2 exits 0 with empty stderr and
#                             prints hostdiff-c's trace byte for byte, on
#                             every sequence hostdiff-c ran cleanly
#                             (tools/testing/hostdiff/c2.py)
#   hostdiff/c2-fatal         each case of tools/testing/hostdiff/fatal.c
#                             breaks a rule of the simulated kernel: on
#                             model.c (fatal-c) and on libkpsim.a (fatal-c2)
#                             it aborts with the same FATAL line and trace
#   hostdiff/rust-identical   no real divergence: every sequence where the C
#                             and Rust traces differ (or hostdiff-rust fails)
#                             is classified by tools/testing/hostdiff/
#                             classify.py; only "intended" ones are allowed
#                             (the first difference comes at or after an
#                             operation whose C trace shows a recorded
#                             upstream anomaly, MODEL.md section 5, and the
#                             Rust trace of that operation does not show it
#                             but does what README's intended divergence
#                             says the Rust core does there; with resync, a
#                             real divergence after dropping the anomaly
#                             operations counts as real too)
# Last line: `hostdiff: N sequences, M diverge, K intended` (after c2.py's
# `hostdiff-c2: N sequences, M identical, K skipped` and `c2-fatal: N
# cases, M identical`).
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

step "hostdiff: build hostdiff-c (upstream kernel/kprobes.c on the host)"
mkdir -p "$OUT"
make -s -C "$HD" O="$OUT" KSRC="$KSRC" >"$OUT/build.log" 2>&1 ||
	{ cat "$OUT/build.log" >&2; die "hostdiff-c does not build" "see $OUT/build.log"; }

if [ -z "${KP_HOSTDIFF_RUST:-}" ]; then
	step "hostdiff: build hostdiff-rust (the Rust core on the same simulated kernel)"
	(cd "$ROOT" && cargo build -q -p hostdiff-rust) >"$OUT/cargo.log" 2>&1 ||
		{ cat "$OUT/cargo.log" >&2; die "the Rust core does not build for hostdiff-rust" "see $OUT/cargo.log"; }
	make -s -C "$HD" O="$OUT" KSRC="$KSRC" RUSTLIB="$RUSTLIB" hostdiff-rust >>"$OUT/build.log" 2>&1 ||
		{ cat "$OUT/build.log" >&2; die "hostdiff-rust does not link" "see $OUT/build.log"; }
fi
[ -x "$RUST" ] || die "no Rust driver at $RUST"

step "hostdiff: build hostdiff-c2 (upstream kernel/kprobes.c on the host tests' simulation, libkpsim.a)"
(cd "$ROOT" && cargo build -q -p kpsim) >"$OUT/cargo-kpsim.log" 2>&1 ||
	{ cat "$OUT/cargo-kpsim.log" >&2; die "libkpsim.a does not build" "see $OUT/cargo-kpsim.log"; }
make -s -C "$HD" O="$OUT" KSRC="$KSRC" SIMLIB="$SIMLIB" hostdiff-c2 fatal-c fatal-c2 >>"$OUT/build.log" 2>&1 ||
	{ cat "$OUT/build.log" >&2; die "hostdiff-c2 does not link" "see $OUT/build.log"; }

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

step "hostdiff: hostdiff-c2 against hostdiff-c's traces, and the fatal cases"
c2=0
python3 "$HD/c2.py" "$OUT/hostdiff-c2" "$OUT" "$SEED" "$SEQS" || c2=$?
python3 "$HD/c2.py" --fatal "$OUT/fatal-c" "$OUT/fatal-c2" || c2=$?
tail -n 1 <<<"$runout"
[ "$rc" = 0 ] && [ "$selftest" = 0 ] && [ "$c2" = 0 ]
