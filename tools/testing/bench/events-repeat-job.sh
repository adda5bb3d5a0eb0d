# SPDX-License-Identifier: GPL-2.0
# kprobe_events at n=10, six times in one boot (the rows of job.sh repeated, to
# see how much one phase moves within a boot).  Not part of make bench; run:
#   KP_SMP=1 KP_ICOUNT=1 KP_EXTRA_DIR=$WORK/bench/extra scripts/vm.sh VARIANT \
#     tools/testing/bench/events-repeat-job.sh evrep
# after a make bench (its extra dir holds the modules); lines: EVR rep=I ...
. /kpt/lib.sh
section evrep
for m in $(ls /extra/kpb_fns*.ko | sort -V); do insmod "$m"; done
insmod /extra/kprobes_bench.ko run=none
T=/sys/kernel/tracing; D=/sys/kernel/debug; NOW=$D/kprobes_bench/now
echo 0 > /proc/sys/debug/kprobes-optimization
read a < $NOW; read b < $NOW; ovh=$((b - a))
for rep in 1 2 3 4 5 6; do
	i=0; defs=
	while [ $i -lt 10 ]; do defs="$defs
p:kpb/e$i kpb_fn_$i+9"; i=$((i + 1)); done
	read t0 < $NOW; echo "$defs" >> $T/kprobe_events; read t1 < $NOW
	echo 1 > $T/events/kpb/enable; read t2 < $NOW
	read t2b < $NOW
	echo 0 > $T/events/kpb/enable; read t3 < $NOW
	echo > $T/kprobe_events; read t4 < $NOW
	echo "EVR rep=$rep define=$((t1 - t0)) enable=$((t2 - t1 - ovh)) disable=$((t3 - t2b - ovh)) remove=$((t4 - t3 - ovh))"
done
echo "EVR-DONE"
