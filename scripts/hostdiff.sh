#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-level differential (issue 5, part 2): random operation sequences run
# through upstream kernel/kprobes.c compiled on the host (hostdiff-c, built
# from tools/testing/hostdiff/ into build/hostdiff/) and, when present,
# through the Rust core's host driver; the traces must be identical.
#
#   scripts/hostdiff.sh            KP_HOSTDIFF_SEQS sequences (default 1000)
#
# Environment:
#   KP_HOSTDIFF_SEQS   number of sequences (default 1000)
#   KP_HOSTDIFF_OPS    operations per sequence (default 200)
#   KP_HOSTDIFF_SEED   first seed (default 1); sequence i uses seed SEED+i
#   KP_HOSTDIFF_RUST   the Rust driver (default target/debug/hostdiff-rust)
#   KP_HOSTDIFF_STRICT=1  also compare `  ?` lines (pure arch queries)
#   KP_HOSTDIFF_LOOSE=1   ignore `  ~` lines (RCU grace periods, work queue)
# Checks (one PASS/FAIL line each, for scripts/test.sh's suite hook):
#   hostdiff/c-clean          hostdiff-c exits 0 with empty stderr on every
#                             sequence (ASan/UBSan/LSan, kernel rule checks)
#   hostdiff/c-deterministic  two runs of each sequence give identical traces
#   hostdiff/rust-identical   C and Rust traces identical (only with a driver)
# Last line: `hostdiff: N sequences, M diverge`.
. "$(dirname "$0")/lib.sh"

SEQS=${KP_HOSTDIFF_SEQS:-1000}
OPS=${KP_HOSTDIFF_OPS:-200}
SEED=${KP_HOSTDIFF_SEED:-1}
RUST=${KP_HOSTDIFF_RUST:-$ROOT/target/debug/hostdiff-rust}
OUT=$WORK/hostdiff
HD=$ROOT/tools/testing/hostdiff

[ -d "$KSRC/.git" ] || die "no kernel tree at $KSRC" "run 'make tree' first"
git -C "$KSRC" rev-parse -q --verify pristine >/dev/null ||
	die "the kernel tree has no 'pristine' tag" "run scripts/kernel-tree.sh (make tree)"

step "hostdiff: build hostdiff-c (upstream kernel/kprobes.c on the host)"
mkdir -p "$OUT"
make -s -C "$HD" O="$OUT" KSRC="$KSRC" >"$OUT/build.log" 2>&1 ||
	{ cat "$OUT/build.log" >&2; die "hostdiff-c does not build" "see $OUT/build.log"; }

step "hostdiff: generate $SEQS sequences of $OPS operations (seeds $SEED..$((SEED + SEQS - 1)))"
rm -rf "$OUT/seq" "$OUT/trace" "$OUT/diverge"
mkdir -p "$OUT/seq" "$OUT/trace" "$OUT/diverge"
python3 "$HD/gen.py" "$SEED" "$OPS" "$SEQS" "$OUT/seq" || die "gen.py failed"

have_rust=0
if [ -x "$RUST" ]; then
	have_rust=1
	info "rust driver: $RUST"
else
	info "rust driver not present ($RUST): comparing nothing"
fi

# The lines that are compared (MODEL.md, "Trace").
filter() {
	if [ "${KP_HOSTDIFF_STRICT:-0}" = 1 ]; then cat "$1"
	elif [ "${KP_HOSTDIFF_LOOSE:-0}" = 1 ]; then grep -v -e '^  ?' -e '^  ~' "$1" || true
	else grep -v '^  ?' "$1" || true
	fi
}

step "hostdiff: run"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
crash=0 nondet=0 diverge=0 n=0
t0=$(date +%s)
for ((i = SEED; i < SEED + SEQS; i++)); do
	s=$OUT/seq/seq-$i.txt t=$OUT/trace/seq-$i
	n=$((n + 1))
	rc=0
	timeout 60 "$OUT/hostdiff-c" "$s" >"$t.c" 2>"$t.c.err" || rc=$?
	if [ "$rc" != 0 ] || [ -s "$t.c.err" ]; then
		crash=$((crash + 1))
		[ "$crash" -gt 3 ] || { warn "hostdiff-c failed (exit $rc) on $s"; head -n 15 "$t.c.err" >&2; }
		continue
	fi
	timeout 60 "$OUT/hostdiff-c" "$s" >"$t.c2" 2>/dev/null || true
	if ! cmp -s "$t.c" "$t.c2"; then
		nondet=$((nondet + 1))
		[ "$nondet" -gt 3 ] || { warn "hostdiff-c is not deterministic on $s"; diff "$t.c" "$t.c2" | head -n 10 >&2; }
	fi
	rm -f "$t.c2" "$t.c.err"
	if [ "$have_rust" = 1 ]; then
		rc=0
		timeout 60 "$RUST" "$s" >"$t.rust" 2>"$t.rust.err" || rc=$?
		if [ "$rc" != 0 ] || ! cmp -s <(filter "$t.c") <(filter "$t.rust"); then
			diverge=$((diverge + 1))
			cp "$s" "$OUT/diverge/"
			diff -u <(filter "$t.c") <(filter "$t.rust") >"$OUT/diverge/seq-$i.diff" || true
			if [ "$diverge" -le 3 ]; then
				warn "sequence $s diverges (rust exit $rc); first lines of the diff (c -> rust):"
				head -n 25 "$OUT/diverge/seq-$i.diff" >&2
			fi
		fi
	fi
done
t1=$(date +%s)
info "$n sequences in $((t1 - t0)) s; traces in $OUT/trace/"

if [ "$crash" = 0 ]; then echo "PASS hostdiff/c-clean"
else echo "FAIL hostdiff/c-clean $crash of $n sequences crashed or reported (see $OUT/trace/*.c.err)"; fi
if [ "$nondet" = 0 ] && [ "$crash" -lt "$n" ]; then echo "PASS hostdiff/c-deterministic"
else echo "FAIL hostdiff/c-deterministic $nondet of $n sequences gave two different traces"; fi
if [ "$have_rust" = 1 ]; then
	if [ "$diverge" = 0 ]; then echo "PASS hostdiff/rust-identical"
	else echo "FAIL hostdiff/rust-identical $diverge of $n sequences diverge (see $OUT/diverge/)"; fi
	echo "hostdiff: $n sequences, $diverge diverge"
else
	echo "hostdiff: $n sequences, rust driver not present"
fi
[ "$crash" = 0 ] && [ "$nondet" = 0 ] && [ "$diverge" = 0 ]
