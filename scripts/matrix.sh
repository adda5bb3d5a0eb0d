#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make matrix`: build, boot and test both variants in each configuration.
#   scripts/matrix.sh [ROW...]        (default: $KP_MATRIX, else every row)
# A row is a config of scripts/kconfig/ (pipeline, debug, preempt,
# minimal-up, minimal-nofs, defconfig, debian, arm64, riscv64, cfi, cfi-fineibt,
# arm64-cfi) or `randconfig`
# (scripts/randconfig.sh; seeds from KP_RANDCONFIG_SEEDS).  For a config
# row: the c variant is built, then the rust variant (from a copy of the c
# O= directory: only what reads CONFIG_KPROBES_RUST is rebuilt); unless the
# row is build-only (`# kp-targets:`), both boot and run the guest suites
# and the differential scenarios (scripts/config-suites.sh --differential).
# KP_TREE (7.3 by default, or 6.12) names the kernel tree; each row writes
# $WORK/results/matrix/ROW/row.json (build/ for 6.12, build/7.3/ for 7.3),
# and the report, a row per tree and config
# (tools/testing/matrix/results.{md,json}) is rewritten from those and the
# committed rows that were not re-run, each row naming its commit and
# command.
. "$(dirname "$0")/lib.sh"

ALL_ROWS="pipeline debug preempt minimal-up minimal-nofs defconfig debian arm64 riscv64 cfi cfi-fineibt arm64-cfi randconfig"
[ $# -gt 0 ] || set -- ${KP_MATRIX:-$ALL_ROWS}
MDIR=$WORK/results/matrix
mkdir -p "$MDIR"
commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)
dirty=$(git -C "$ROOT" status --porcelain --untracked-files=no -- . | head -n 1)
[ -z "$dirty" ] || commit="$commit+local-changes"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/kernel-tree.sh"

row_config() { # CONFIG: build both variants, run the suites; writes row.json
	local cfg=$1 rdir=$MDIR/$1 t0 bc=fail br=fail sc=0 sr=0 buildonly
	mkdir -p "$rdir"
	buildonly=$(KP_CONFIG=$cfg bash -c '. "$0"; frag_directive targets' "$ROOT/scripts/lib.sh")
	t0=$SECONDS
	KP_CONFIG=$cfg "$ROOT/scripts/build.sh" c >"$rdir/build-c.log" 2>&1 && bc=ok
	sc=$((SECONDS - t0))
	if [ $bc = ok ]; then
		t0=$SECONDS
		KP_CONFIG=$cfg "$ROOT/scripts/build.sh" rust >"$rdir/build-rust.log" 2>&1 && br=ok
		sr=$((SECONDS - t0))
	else
		br=not-built
	fi
	step "matrix[$cfg]: build c $bc (${sc}s), rust $br (${sr}s)"
	: >"$rdir/config-suites.log"
	rm -f "$rdir/config-summary.json"
	if [ $bc = ok ] && [ $br = ok ] && [ -z "$buildonly" ]; then
		KP_CONFIG=$cfg KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-2400} "$ROOT/scripts/config-suites.sh" --differential \
			>"$rdir/config-suites.log" 2>"$rdir/config-suites.err" || true
		# The pipeline config keeps its results in build/results (make test's
		# place); the row's summary is wanted in the row directory.
		cres=$(KP_CONFIG=$cfg bash -c '. "$0"; echo "$RESULTS"' "$ROOT/scripts/lib.sh")
		[ "$cres" = "$rdir" ] || cp "$cres/config-summary.json" "$rdir/" 2>/dev/null || :
		step "matrix[$cfg]: $(grep -c '^PASS ' "$rdir/config-suites.log") passed, $(grep -c '^FAIL ' "$rdir/config-suites.log") failed, $(grep -c '^SKIP ' "$rdir/config-suites.log") skipped"
		grep '^FAIL ' "$rdir/config-suites.log" | head -n 10 | sed 's/^/    /' || :
	fi
	python3 "$ROOT/tools/testing/matrix/report.py" row "$rdir" --tree "$KP_TREE" --config "$cfg" --commit "$commit" \
		--command "KP_TREE=$KP_TREE make matrix KP_MATRIX=$cfg" --build "c=$bc:$sc" --build "rust=$br:$sr" \
		${buildonly:+--build-only "$buildonly"}
}

for row in "$@"; do
	case $row in
	randconfig) "$ROOT/scripts/randconfig.sh" ;;
	*)
		[ -f "$ROOT/scripts/kconfig/$row.config" ] || die "no matrix row '$row'" "rows: $ALL_ROWS"
		step "matrix: row $row"
		row_config "$row" ;;
	esac
done
python3 "$ROOT/tools/testing/matrix/report.py" report "$MDIR" --out "$ROOT/tools/testing/matrix"
