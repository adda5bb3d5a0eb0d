#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Suite for scripts/test.sh: the differential scenario suite
# (scripts/differential.sh) on both variants.  Result lines (test.sh adds
# the `differential/` prefix):
#   PASS|FAIL scenario/<name>      the scenario's KPD lines are identical on c and rust
#   PASS|FAIL intended/<name>      a listed intended divergence (divergences.txt):
#                                  each kernel prints its recorded lines
#   PASS|FAIL guest-<v>/completed, console-<v>/no-reports,
#             scenarios/every-phase-ran, scenarios/complete (the
#             architecture's whole committed scenario list, on each kernel)
#   FAIL run                       the harness itself failed (no results)
. "$(dirname "$0")/../lib.sh"

OUT=$RESULTS/differential
rm -rf "$OUT"
# Its own output (progress, the diff, its FAIL lines) indented, so that
# only the lines below count as results.
"$ROOT/scripts/differential.sh" "$@" 2>&1 | sed 's/^/    /' || true
if [ ! -s "$OUT/checks.txt" ] || [ ! -s "$OUT/scenarios.txt" ]; then
	echo "FAIL run scripts/differential.sh produced no results (see the log above)"
	exit 1
fi
while read -r st name detail; do
	case $st in
	SAME) echo "PASS scenario/$name" ;;
	INTENDED) echo "PASS intended/$name" ;;
	INTENDED-MISMATCH) echo "FAIL intended/$name $detail" ;;
	INTENDED-NOT-RUN) echo "FAIL intended/$name listed in divergences.txt but not run" ;;
	INTENDED-IN-DEFAULT-RUN) ;;
	DIFF) echo "FAIL scenario/$name c and rust differ; see $OUT/diff.txt" ;;
	MISSING-*) echo "FAIL scenario/$name only one variant ran it (${st#MISSING-} did not); see $OUT/diff.txt" ;;
	esac
done <"$OUT/scenarios.txt"
# The per-scenario lines above already carry scenarios/identical.
grep -v ' scenarios/identical' "$OUT/checks.txt"
tail -n 1 "$OUT/summary.txt"
