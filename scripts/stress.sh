#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make stress`: the stress suite (tools/testing/stress/) on both variants
# of one config (KP_CONFIG, default pipeline; make test runs it on `debug`).
#   scripts/stress.sh
# Builds tools/testing/stress/mod/ (kprobes_stress.ko, the driver, and
# kprobes_stress_target.ko) out of tree against the config's c O=
# directory, boots each variant with KP_STRESS_SMP vCPUs (default 4) and
# tools/testing/stress/job.sh for KP_STRESS_S seconds (default 20), and
# prints tools/testing/stress/report.py's `PASS|FAIL stress/...` lines and
# its `stress: VARIANT: S s, N ops, N hits, N reports` figures.  Logs:
# $RESULTS/VARIANT/stress/.
. "$(dirname "$0")/lib.sh"

S=${KP_STRESS_S:-20}
SMP=${KP_STRESS_SMP:-4}
SRC=$ROOT/tools/testing/stress
B=$WORK/stress
[ "$KP_CONFIG" = pipeline ] || B=$WORK/stress-$KP_CONFIG
for v in $VARIANTS; do
	[ -f "$(outdir "$v")/$KIMAGE_PATH" ] ||
		die "variant $v of config $KP_CONFIG is not built" "run 'KP_CONFIG=$KP_CONFIG scripts/build.sh' first"
done
config_has c CONFIG_MODULES && config_has c CONFIG_DEBUG_FS || {
	echo "SKIP stress/ran the stress driver is a module controlled through debugfs (needs MODULES, DEBUG_FS)"
	exit 0
}
step "stress[$KP_CONFIG]: building the stress modules against $(outdir c)"
build_test_modules "$SRC/mod" "$B" kprobes_stress.ko kprobes_stress_target.ko
guest_run() { # VARIANT (both side by side: for_variants)
	local v=$1
	rm -f "$RESULTS/$v/stress/results.log" "$RESULTS/$v/stress/console.log"
	# A hung guest must not stall make test: the run takes S seconds plus
	# boot, the exact-count phase and a kmemleak scan.
	KP_SMP=$SMP KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-$((S + 600))} KP_EXTRA_DIR=$B/extra \
		"$ROOT/scripts/vm.sh" "$v" "$SRC/job.sh" stress "kps.seconds=$S" >&2 ||
		warn "stress: the $v guest run failed (console: $RESULTS/$v/stress/console.log)"
}
for_variants guest_run || :
python3 "$SRC/report.py" "${KP_STRESS_PREFIX:-stress}" "$RESULTS/c/stress" "$RESULTS/rust/stress"
