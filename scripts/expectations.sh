#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make expectations`: re-record the ftracetest expectations from a whole
# guest job (not the quick one) of the c variant of KP_CONFIG: for the
# pipeline config tools/testing/expectations/ftracetest.txt, for another
# tools/testing/expectations/$KP_CONFIG/ftracetest.txt (which
# scripts/config-suites.sh then uses for that row).  Review the diff
# before committing it.
. "$(dirname "$0")/lib.sh"
exp=$EXPECT/ftracetest.txt
[ "$KP_CONFIG" = pipeline ] || exp=$EXPECT/$KP_CONFIG/ftracetest.txt
mkdir -p "$(dirname "$exp")"
"$ROOT/scripts/build.sh" c
KP_APPEND= "$ROOT/scripts/vm.sh" c "$ROOT/tools/testing/guest/test-job.sh" test
python3 "$ROOT/tools/testing/kpt_results.py" c "$RESULTS/c/test/results.log" "$RESULTS/c/test/console.log" \
	--expect "$exp" --update-expectations
