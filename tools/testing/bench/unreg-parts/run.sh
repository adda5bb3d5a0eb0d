#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where the instructions of unregister_kprobe() go, on both kernels
# (README.md here).  Needs `make build` and a `make bench` run
# (the generated target modules kpb_fns*.ko and kpb_funcs.h in $WORK/bench/).
#   run.sh parts    kpu_parts.ko on both kernels under icount (KPU lines:
#                   guest ns of each part of (un)registration)
#   run.sh count    gdb single-steps the three unregister_kprobe() calls of
#                   kpu_one.ko on each kernel and attributes every
#                   instruction to its function (attribute.py); the core's
#                   own are those of kernel/kprobes.o or kernel/kprobes_rust/
# KPU_VARIANTS="rust" (default: both) picks the kernels; KPU_OFFS="9 0"
# (default 9) the probes' offsets in the target functions for parts (0:
# entry probes, on ftrace); KPU_NS="10 100 1000" (default "10 100", at
# most 1000) the numbers of probes; KPU_RCUEXP=0 (default 1: every grace
# period expedited) runs parts with normal grace periods; KPU_DISABLED=1
# makes count step the unregistration of disabled probes.
# Results: $WORK/unreg-parts/ (parts-VARIANT.txt, count-VARIANT.txt).
. "$(dirname "$0")/../../../../scripts/lib.sh"
here=$ROOT/tools/testing/bench/unreg-parts
D=$WORK/unreg-parts B=$WORK/bench
[ -f "$B/mod/kpb_funcs.h" ] && ls "$B"/extra/kpb_fns0.ko >/dev/null 2>&1 ||
	die "no generated target modules in $B" "run 'make bench' first"
rm -rf "$D/mod" "$D/extra"
mkdir -p "$D/mod" "$D/extra"
cp "$here/kpu_parts.c" "$here/kpu_one.c" "$here/Kbuild" "$B/mod/kpb_funcs.h" "$D/mod/"
kmake c M="$D/mod" KBUILD_EXTRA_SYMBOLS="$B/mod/Module.symvers" modules >"$D/build.log" 2>&1 ||
	die "module build failed; log: $D/build.log"
cp "$B"/extra/kpb_fns*.ko "$D"/mod/kpu_*.ko "$D/extra/"

case ${1:-} in
parts)
	{ echo "OFFS='${KPU_OFFS:-9}' NS='${KPU_NS:-10 100}' RCUEXP='${KPU_RCUEXP:-1}'"; cat <<'JOB'; } >"$D/parts-job.sh"
. /kpt/lib.sh
for m in $(ls /extra/kpb_fns*.ko | sort -V); do insmod "$m"; done
echo "$RCUEXP" > /sys/kernel/rcu_expedited
for off in $OFFS; do
for opt in 0 1; do
	echo $opt > /proc/sys/debug/kprobes-optimization
	for n in $NS; do
		dmesg -c > /dev/null
		insmod /extra/kpu_parts.ko n=$n off=$off
		dmesg | grep KPU | sed "s/^.*KPU/KPU opt=$opt/"
		rmmod kpu_parts
	done
done
done
JOB
	for v in ${KPU_VARIANTS:-$VARIANTS}; do
		KP_SMP=1 KP_ICOUNT=1 KP_EXTRA_DIR="$D/extra" "$ROOT/scripts/vm.sh" "$v" "$D/parts-job.sh" unreg-parts ||
			die "the $v guest failed"
		grep '^KPU' "$RESULTS/$v/unreg-parts/results.log" | tee "$D/parts-$v.txt"
	done
	;;
count)
	{ echo "DISABLED='${KPU_DISABLED:-0}'"; cat <<'JOB'; } >"$D/count-job.sh"
. /kpt/lib.sh
for m in $(ls /extra/kpb_fns*.ko | sort -V); do insmod "$m"; done
echo 1 > /sys/kernel/rcu_expedited
echo 0 > /proc/sys/debug/kprobes-optimization
insmod /extra/kpu_one.ko disabled=$DISABLED
JOB
	port=1300
	for v in ${KPU_VARIANTS:-$VARIANTS}; do
		port=$((port + 1))
		# vm.sh's guest, stopped at its first instruction until gdb attaches;
		# gdb detaches after the third call and the job runs to its end.
		KP_SMP=1 KP_ICOUNT=1 KP_EXTRA_DIR="$D/extra" KP_VM_TIMEOUT=3600 \
			KP_QEMU_EXTRA="-gdb tcp::$port -S" "$ROOT/scripts/vm.sh" "$v" "$D/count-job.sh" unreg-count &
		vpid=$!
		o=$(outdir "$v")
		timeout 1800 gdb -batch -ex "python PORT='$port'; OUT='$D/pcs-$v.txt'" -x "$here/gdb_count.py" \
			"$o/vmlinux" >"$D/gdb-$v.log" 2>&1 || { kill "$vpid"; die "gdb failed; log: $D/gdb-$v.log"; }
		wait "$vpid" || die "the $v guest failed"
		if [ "$v" = c ]; then objs=$o/kernel/kprobes.o; else objs=$(find "$o/kernel/kprobes_rust" -name '*.o' ! -name 'built-in*'); fi
		# shellcheck disable=SC2086
		python3 "$here/attribute.py" "$o/vmlinux" "$D/pcs-$v.txt" $objs | tee "$D/count-$v.txt"
	done
	;;
*) die "usage: run.sh parts|count" ;;
esac
