#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make differential`: the in-guest scenario suite on both variants, diffed.
#   scripts/differential.sh [--unsafe] [--compare-only [C_RUNDIR RUST_RUNDIR]]
# Builds tools/testing/differential/mod/ (kprobes_diff.ko, the scenario
# driver, and kprobes_diff_target.ko) out of tree against build/out-c in
# build/differential/, boots the c and the rust kernel with
# tools/testing/differential/job.sh (scripts/vm.sh VARIANT JOB differential),
# and compares the canonical `KPD <scenario> <what>=<value>` lines with
# tools/testing/differential/compare.py.  Results: build/results/differential/
# (c.kpd, rust.kpd, diff.txt, scenarios.txt, checks.txt, summary.txt).
# Last line: `differential: N scenarios, M differ`; exit status non-zero on a
# difference, a failed guest run, a console with an oops/WARN/BUG/lockdep
# splat, or fewer than 60 scenarios.
#   --unsafe        also run the cases where upstream WARNs (kpd.unsafe=1 on
#                   the kernel command line; results in .../differential-unsafe)
#   --compare-only  skip build and boots; compare existing run directories
#                   (default build/results/{c,rust}/differential and, if
#                   divergences.txt has entries, .../differential-div)
#   --record-divergences  write tools/testing/differential/divergences/*.{c,rust}
#                   from this run (review the diff before committing)
#   --record-scenarios  write the architecture's scenario list
#                   (tools/testing/expectations/[ARCH/]differential-scenarios.txt)
#                   from this run's C kernel (review the diff before committing)
# Intended divergences (tools/testing/differential/divergences.txt) run in a
# second boot per variant (kpd.divergence=1), since they leave the C core
# in a bad state; each variant must show its recorded lines.
. "$(dirname "$0")/lib.sh"

name=differential extra=() compare_only=0 cdirs=() record=() unsafe=()
while [ $# -gt 0 ]; do
	case $1 in
	--unsafe) name=differential-unsafe extra=(kpd.unsafe=1) unsafe=(--unsafe) ;;
	--compare-only) compare_only=1 ;;
	--record-divergences | --record-scenarios) record+=("$1") ;;
	-*) die "unknown option $1" "see the header of $0" ;;
	*) cdirs+=("$1") ;;
	esac
	shift
done
SRC=$ROOT/tools/testing/differential
OUT=$RESULTS/$name
rundir() { echo "$RESULTS/$1/$name"; }
# Entries of divergences.txt (non-comment lines).
ndiv=$(grep -cvE '^[[:space:]]*(#|$)' "$SRC/divergences.txt" || true)
boot() { # VARIANT NAME CMDLINE...
	local v=$1 n=$2 r="$RESULTS/$1/$2"; shift 2
	rm -f "$r/results.log" "$r/console.log"
	# A hung guest must not stall make test for 20 minutes; a run takes
	# ~90 s (~60 s of it the scale.big_* batches, phase big).
	if ! KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-300} KP_EXTRA_DIR=$B/extra \
		"$ROOT/scripts/vm.sh" "$v" "$SRC/job.sh" "$n" "$@"; then
		warn "differential: the $v guest run $n failed (console: $r/console.log)"
	fi
}

if [ "$compare_only" = 0 ]; then
	for v in $VARIANTS; do
		[ -f "$(outdir "$v")/$KIMAGE_PATH" ] ||
			die "variant $v is not built" "run 'make build' (or make test) first"
	done
	rm -rf "$OUT"
	B=$WORK/differential
	[ "$KP_CONFIG" = pipeline ] || B=$WORK/differential-$KP_CONFIG
	step "differential[$KP_CONFIG]: building the scenario modules against $(outdir c)"
	build_test_modules "$SRC/mod" "$B" kprobes_diff.ko kprobes_diff_target.ko "$SRC/divergences.txt"

	# The c and rust guests side by side (scripts/lib.sh, for_variants).
	for_variants boot "$name" "${extra[@]}" || :
	if [ "$ndiv" -gt 0 ]; then
		step "differential: $ndiv intended divergence(s), in a separate boot"
		for_variants boot differential-div kpd.divergence=1 || :
	fi
fi

if [ ${#cdirs[@]} = 0 ]; then
	cdirs=("$(rundir c)" "$(rundir rust)")
	[ "$ndiv" = 0 ] || cdirs+=("$RESULTS/c/differential-div" "$RESULTS/rust/differential-div")
fi
step "differential: comparing ${cdirs[0]} and ${cdirs[1]}"
rc=0
KP_ARCH=$KP_ARCH python3 -B "$SRC/compare.py" ${record[@]+"${record[@]}"} ${unsafe[@]+"${unsafe[@]}"} "$OUT" "${cdirs[@]}" | tee "$OUT.log" || rc=1
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
info "results: $OUT/ (c.kpd, rust.kpd, diff.txt, scenarios.txt, summary.txt)"
exit $rc
