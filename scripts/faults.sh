#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make faults`: the allocation-failure sweep (tools/testing/faults/) on
# both variants of one config (KP_CONFIG, default debug: it needs FAILSLAB
# and FAIL_PAGE_ALLOC).  Builds kprobes_faults.ko against the config's c
# O= directory, boots each variant with tools/testing/faults/job.sh and
# prints tools/testing/faults/compare.py's `PASS|FAIL faults/...` lines and
# `faults: VARIANT: N injected, D differ, L leaked, R reports`.  Logs: $RESULTS/VARIANT/faults/.
. "$(dirname "$0")/lib.sh"

SRC=$ROOT/tools/testing/faults
B=$WORK/faults-$KP_CONFIG
for v in $VARIANTS; do
	[ -f "$(outdir "$v")/$KIMAGE_PATH" ] ||
		die "variant $v of config $KP_CONFIG is not built" "run 'KP_CONFIG=$KP_CONFIG scripts/build.sh' first"
done
if ! config_has c CONFIG_FAILSLAB || ! config_has c CONFIG_FAIL_PAGE_ALLOC || ! config_has c CONFIG_MODULES; then
	echo "SKIP faults/ran needs FAILSLAB, FAIL_PAGE_ALLOC and MODULES (config $KP_CONFIG)"
	exit 0
fi
step "faults[$KP_CONFIG]: building kprobes_faults.ko against $(outdir c)"
build_test_modules "$SRC/mod" "$B" kprobes_faults.ko
guest_run() { # VARIANT (both side by side: for_variants)
	local v=$1
	rm -f "$RESULTS/$v/faults/results.log" "$RESULTS/$v/faults/console.log"
	KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-900} KP_EXTRA_DIR=$B/extra \
		"$ROOT/scripts/vm.sh" "$v" "$SRC/job.sh" faults >&2 ||
		warn "faults: the $v guest run failed (console: $RESULTS/$v/faults/console.log)"
}
for_variants guest_run || :
python3 "$SRC/compare.py" "${KP_FAULTS_PREFIX:-faults}" "$RESULTS/c/faults" "$RESULTS/rust/faults"
