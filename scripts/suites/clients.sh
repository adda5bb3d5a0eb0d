#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test suite: real kprobes clients (perf probe, bpftrace, fail_function,
# kprobe_events with fetch args) on both variants, compared step by step
# (scripts/clients.sh).  One `PASS step` per step that works on both kernels
# with identical results, `FAIL step detail` otherwise (the detail says
# whether the client does not work at all or differs; the diff is in
# build/results/clients/diff.txt).
. "$(dirname "$0")/../lib.sh"

OUT=$RESULTS/clients
rm -f "$OUT/steps.txt"
"$ROOT/scripts/clients.sh" >"$OUT.log" 2>&1 || true
grep -v -E '^(PASS|FAIL) ' "$OUT.log" | tail -n 20
if [ -s "$OUT/steps.txt" ]; then
	cat "$OUT/steps.txt"     # scripts/test.sh prefixes the names with "clients/"
else
	echo "FAIL run scripts/clients.sh produced no step results; log: $OUT.log"
fi
