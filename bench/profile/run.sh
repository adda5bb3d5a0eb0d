#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench/profile/run.sh VARIANT [MAXN]: one guest run of the reg_ftrace_batch
# rows only (kprobes_bench.ko run=regentry batchonly=1, N = 10, 100, 1000,
# 5000 up to MAXN) under -icount on one vCPU, as scripts/bench.sh does, then
# prints the KPROF lines the profiling patches (bench/profile/*.patch) log.
# Needs KP_WORK with the patched kernels built (see bench/profile/README.md).
. "$(dirname "$0")/../../scripts/lib.sh"
cd "$ROOT"
v=${1:?variant}; maxn=${2:-5000}
B=$WORK/bench SRC=$ROOT/tools/testing/bench
if [ ! -f "$B/extra/kprobes_bench.ko" ] || [ "$SRC/kprobes_bench.c" -nt "$B/extra/kprobes_bench.ko" ]; then
	rm -rf "$B/mod" "$B/extra"; mkdir -p "$B/mod" "$B/extra"
	cp "$SRC/kprobes_bench.c" "$SRC/Kbuild" "$B/mod/"
	python3 "$SRC/gen_funcs.py" 5000 10 "$B/mod"
	kmake c M="$B/mod" modules >"$B/build.log" 2>&1 || { tail -n 20 "$B/build.log"; die "module build failed"; }
	cp "$B"/mod/*.ko "$B/extra/"
fi
echo "KPB_RUN=regentry KPB_EVN=\"\" KPB_MAXN=$maxn KPB_BATCHONLY=1" >"$B/extra/kpb.conf"
KP_SMP=1 KP_ICOUNT=1 KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-3600} KP_EXTRA_DIR="$B/extra" \
	scripts/vm.sh "$v" "$SRC/job.sh" profile || die "guest run failed: $RESULTS/$v/profile/"
grep -h -E '^KPB (reg|unreg)_|KPROF' "$RESULTS/$v/profile/results.log" | sed 's/^.*KPROF/KPROF/'
