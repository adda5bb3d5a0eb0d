# SPDX-License-Identifier: GPL-2.0
# Guest job: which synchronize_rcu() calls the int3 registration rows make.
# kprobes_bench.ko run=reg (maxn=100) with a kprobe event on synchronize_rcu
# and a stacktrace trigger; prints each call (GC-CALL: timestamp and frames
# 5-9 of its stack, under the tracing frames).  Run on both kernels with
#   KP_SMP=1 KP_ICOUNT=1 KP_EXTRA_DIR=$WORK/bench/extra scripts/vm.sh VARIANT tools/testing/bench/gc-job.sh gcexp
# after a `make bench` has built the modules into $WORK/bench/extra.
# What it showed: tools/testing/bench/analysis.md, on reg_int3_one_100.
. /kpt/lib.sh
section gc
for m in /extra/kpb_fns*.ko; do insmod $m; done
echo 'p:sr synchronize_rcu' >> $T/kprobe_events
echo 'stacktrace' > $T/events/kprobes/sr/trigger
echo 1 > $T/events/kprobes/sr/enable
insmod /extra/kprobes_bench.ko run=reg iters=20000 maxn=100 memn=100
grep -E '^KPB (reg|unreg)_int3_one_100 |reps (reg|unreg)_int3_one_100 ' $D/kprobes_bench/results
echo 0 > $T/events/kprobes/sr/enable
# One line per call: the timestamp and the first frames under synchronize_rcu.
awk '/ sr: /{ if (ts != "") print ts, fr; match($0, /[0-9]+\.[0-9]+: sr:/); ts=substr($0, RSTART, RLENGTH-4); fr=""; n=0; next }
     /^ => /{ if (n >= 5 && n < 10) { f=$2; sub(/\+.*/, "", f); fr=fr " " f }; n++ }
     END { if (ts != "") print ts, fr }' $T/trace > /tmp/calls
echo "GC-CALLS $(wc -l < /tmp/calls)"
sed 's/^/GC-CALL /' /tmp/calls
