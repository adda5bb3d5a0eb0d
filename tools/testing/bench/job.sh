# SPDX-License-Identifier: GPL-2.0
# Guest job of `make bench` (scripts/bench.sh): loads kprobes_bench.ko, which
# measures the hit paths (also with N other probes registered: the scale
# rows), registration and memory at insmod time, then
# times kprobe_events from the shell against the module's ktime_get_ns()
# file.  Runs under -icount (guest ns == guest instructions).  Output lines:
#   KPB <name> <unit> <value>     a measurement
#   KPB-ERROR <what>              a failed step (bench.sh fails the run)
#   KPB-INFO / KPB-META ...       context
. /kpt/lib.sh
KPB_RUN=hits,scale,scaleall,gp,endis,reg,regentry,regall,mem KPB_ITERS=20000 KPB_MAXN=5000 KPB_MEMN=2000 KPB_EVN="10 100 1000 5000" KPB_EVREP=1
KPB_POLICY_RUN=reg,regentry KPB_POLICY_EVN="10 100 1000"
[ -f /extra/kpb.conf ] && . /extra/kpb.conf

section bench
echo "KPB-META kernel $(uname -r)"
echo "KPB-META build $(uname -v)"
echo "KPB-META variant $(sed -n 's/.*kpt.variant=\([a-z]*\).*/\1/p' /proc/cmdline)"
echo "KPB-META cpus $(cat /sys/devices/system/cpu/online)"
echo "KPB-META params run=$KPB_RUN iters=$KPB_ITERS maxn=$KPB_MAXN memn=$KPB_MEMN evn=$KPB_EVN policy_run=$KPB_POLICY_RUN policy_evn=$KPB_POLICY_EVN"
dmesg_mark
for m in $(ls /extra/kpb_fns*.ko | sort -V); do
	insmod "$m" || echo "KPB-ERROR insmod $m failed"
done
# The scale rows' last step (run token scaleall) probes every vmlinux
# function; the module reads their addresses from a copy of /proc/kallsyms
# (a seq_file with no read_iter, which kernel_read() refuses).
case ",$KPB_RUN," in *,scaleall,*)
	mkdir -p /tmp && cat /proc/kallsyms >/tmp/kpb.kallsyms ||
		echo "KPB-ERROR copying /proc/kallsyms" ;;
esac
# kpb_load RUN [MAXN [SUFFIX]]: one load of the module running RUN, its
# results printed, each row's name followed by SUFFIX (the RCU policy).
kpb_load() {
	if ! insmod /extra/kprobes_bench.ko run="$1" iters="$KPB_ITERS" maxn="${2:-$KPB_MAXN}" memn="$KPB_MEMN"; then
		echo "KPB-ERROR insmod kprobes_bench.ko run=$1 failed"
		dmesg | tail -n 30
		exit 1
	fi
	sed "s/^\(KPB\|KPB-SKIP\) \([^ ]*\)/\1 \2${3:-}/" $D/kprobes_bench/results
	rmmod kprobes_bench
}
# The RCU policy (docs/bench.md, "The grace period policy"): `normal`,
# both kernels as booted (synchronize_rcu() in unregistration, as
# upstream); `rcuexp`, every grace period of the kernel expedited
# (/sys/kernel/rcu_expedited, on both kernels: equal policy); `kexp`, the
# Rust core's own kprobes.expedited_gp=1 (Rust kernel only).  kpb_policy
# NAME sets it and fails if it cannot.
RCUEXP=/sys/kernel/rcu_expedited KEXP=/sys/module/kprobes/parameters/expedited_gp
kpb_policy() {
	local e=0 k=0
	case $1 in rcuexp) e=1 ;; kexp) k=1 ;; esac
	echo $e > $RCUEXP || { echo "KPB-ERROR cannot write $RCUEXP"; return 1; }
	if [ -e $KEXP ]; then
		echo $k > $KEXP || { echo "KPB-ERROR cannot write $KEXP"; return 1; }
	elif [ $k = 1 ]; then
		return 1
	fi
	echo "KPB-INFO policy $1: rcu_expedited=$(cat $RCUEXP) kprobes.expedited_gp=$(cat $KEXP 2>/dev/null || echo none)"
}
# The policies this kernel has besides `normal`.
policies=rcuexp
[ -e $KEXP ] && policies="rcuexp kexp"
grep -q 'kpt.variant=rust' /proc/cmdline && [ ! -e $KEXP ] && echo "KPB-ERROR the rust kernel has no $KEXP"
kpb_policy normal || exit 1
# kpb_in_policies CMD ARGS...: `CMD ARGS... _POLICY` under each policy
# besides normal, then normal again.
kpb_in_policies() {
	local p
	for p in $policies; do
		kpb_policy $p || exit 1
		"$@" _$p
	done
	kpb_policy normal || exit 1
}
# The memory rows count slab and vmalloc pages, so they run first, in a load of their
# own: both kernels then start them from the same slab state (after the
# other rows, it depends on how quickly each core freed their probes).
case ",$KPB_RUN," in *,mem,*) kpb_load mem ;; esac
# cost4 (KPB_SMP=4 in bench.sh): once per policy.
case ",$KPB_RUN," in *,cost4,*)
	kpb_load cost4
	kpb_in_policies kpb_load cost4 "$KPB_MAXN" ;;
esac
rest=$(echo ",$KPB_RUN," | sed 's/,mem,/,/; s/,cost4,/,/; s/^,//; s/,$//')
[ -z "$rest" ] || kpb_load "$rest"
# The registration rows up to N=1000 again under the other policies
# (KPB_POLICY_RUN: the run tokens, empty for none).
[ -z "$KPB_POLICY_RUN" ] ||
	kpb_in_policies kpb_load "$KPB_POLICY_RUN" $((KPB_MAXN < 1000 ? KPB_MAXN : 1000))
insmod /extra/kprobes_bench.ko run=none	# for its debugfs clock (kprobe_events rows)
dmesg | grep -E 'WARNING|BUG|Oops' && echo "KPB-ERROR kernel warning during the module's benchmark"

# --- kprobe_events: N probes at kpb_fn_I+MID defined with one write, enabled
# and disabled with one write each (the group's enable file), removed with
# one O_TRUNC open.  Each phase is bracketed by reads of the module's
# ktime_get_ns() file; the cost of a bare pair of reads (and for the define
# phase, of the same echo to /dev/null) is measured and subtracted.
NOW=$D/kprobes_bench/now
# tick: wait for the next tick (a read of the module's tick file), so that
# each phase starts at the same point of the tick on both kernels: a phase
# that waits for grace periods (remove: one per probe) otherwise lasts as
# long as where the phase before it happened to end decides.
tick() { read -r _ < $D/kprobes_bench/tick || :; }
OPTSYS=/proc/sys/debug/kprobes-optimization	# absent without a jump optimizer (arm64, riscv64)
[ ! -e $OPTSYS ] || echo 0 > $OPTSYS
# The first event enabled in a boot expands the trace ring buffer to its
# full size (tracing_update_buffers(): ~12 M guest ns, which moves
# between boots of either kernel and belongs to neither core).  Expand it here, untimed, by writing the size it would expand
# to, so that events_enable_N times the enabling itself.
exp=$(sed -n 's/.*(expanded: \([0-9]*\)).*/\1/p' $T/buffer_size_kb)
[ -z "$exp" ] || echo "$exp" > $T/buffer_size_kb ||
	echo "KPB-ERROR expanding the trace ring buffer to $exp KiB"
echo "KPB-INFO trace ring buffer $(cat $T/buffer_size_kb) KiB per CPU before the kprobe_events rows"
# The probe point in the body: +9 on x86_64, where the module found it on
# arm64 and riscv64.
MID=$(sed -n 's/^KPB-INFO mid probe point +//p' $D/kprobes_bench/results)
[ -n "$MID" ] || echo "KPB-ERROR the module did not say its mid probe point"
read a < $NOW; read b < $NOW
ovh=$((b - a))
echo "KPB-INFO kprobe_events read-pair overhead $ovh ns"
# KPB_EVDIAG=1: after each phase, which tasks ran during it and for how
# long (the change of se.sum_exec_runtime in /proc/PID/sched, in ms; the
# shell's own figure is stale: it is updated only when it is switched
# out), and the local timer interrupts and softirqs.  A KPB-INFO evdiag
# line per phase; the snapshots are taken outside the timed windows.
kpb_snap() {
	[ "${KPB_EVDIAG:-0}" = 1 ] || return 1
	awk 'FNR == 1 { c = $1 } /^se.sum_exec_runtime/ { split(FILENAME, f, "/"); print f[3] "/" c, $3 }' /proc/[0-9]*/sched > /tmp/snap.$1 2>/dev/null
	echo "irq/LOC $(awk '/LOC:/{print $2}' /proc/interrupts)" >> /tmp/snap.$1
	awk '$1 != "CPU0" { print "softirq/" $1, $2 }' /proc/softirqs >> /tmp/snap.$1
}
# kpb_diag PHASE: what changed since the last kpb_snap (shown if > 0.005).
kpb_diag() {
	kpb_snap b || return 1
	echo "KPB-INFO evdiag $1: $(awk 'NR == FNR { o[$1] = $2; next } ($1 in o) && ($2 - o[$1]) > 0.005 { printf " %s=%.3f", $1, $2 - o[$1] }' /tmp/snap.a /tmp/snap.b)"
	kpb_snap a
}
# kpb_events "SIZES" [POLICY_SUFFIX]: the kprobe_events rows.
kpb_events() {
	for n in $1; do
		[ "$n" -le "$KPB_MAXN" ] || continue
		i=0; : > /tmp/defs
		while [ $i -lt "$n" ]; do echo "p:kpb/e$i kpb_fn_$i+$MID" >> /tmp/defs; i=$((i + 1)); done
		defs=$(cat /tmp/defs)
		# KPB_EVREP=R: the phases R times in a row; the rows of repetition r > 1
		# are named with a suffix _repR (how much a phase moves within a boot).
		rep=0
		while [ $rep -lt "$KPB_EVREP" ]; do
			rep=$((rep + 1))
			sfx=; [ $rep = 1 ] || sfx=_rep$rep
			tick; read a < $NOW; echo "$defs" > /dev/null; read b < $NOW
			eovh=$((b - a))
			kpb_snap a
			tick; read t0 < $NOW
			echo "$defs" >> $T/kprobe_events
			read t1 < $NOW
			kpb_diag define_$n$sfx${2:-}
			tick; read t1b < $NOW
			echo 1 > $T/events/kpb/enable
			read t2 < $NOW
			kpb_diag enable_$n$sfx${2:-}
			got=$(grep -c 'kpb_fn_' $D/kprobes/list)
			kpb_snap a
			tick; read t2b < $NOW
			echo 0 > $T/events/kpb/enable
			read t3 < $NOW
			kpb_diag disable_$n$sfx${2:-}
			tick; read t3b < $NOW
			echo > $T/kprobe_events
			read t4 < $NOW
			kpb_diag remove_$n$sfx${2:-}
			left=$(grep -c 'kpb_fn_' $D/kprobes/list)
			if [ "$got" != "$n" ] || [ "$left" != 0 ]; then
				echo "KPB-ERROR kprobe_events n=$n: $got probes listed after enable (want $n), $left after removal"
				continue 2
			fi
			def=$((t1 - t0 - eovh)) en=$((t2 - t1b - ovh)) dis=$((t3 - t2b - ovh)) rm=$((t4 - t3b - ovh))
			echo "KPB events_define_$n$sfx${2:-} ns $def"
			echo "KPB events_enable_$n$sfx${2:-} ns $en"
			echo "KPB events_disable_$n$sfx${2:-} ns $dis"
			echo "KPB events_remove_$n$sfx${2:-} ns $rm"
			echo "KPB events_all_$n$sfx${2:-} ns $((def + en + dis + rm))"
		done
	done
}
kpb_events "$KPB_EVN"
[ -z "$KPB_POLICY_EVN" ] || kpb_in_policies kpb_events "$KPB_POLICY_EVN"
[ ! -e $OPTSYS ] || echo 1 > $OPTSYS
rmmod kprobes_bench || echo "KPB-ERROR rmmod kprobes_bench failed"
for m in /extra/kpb_fns*.ko; do m=${m##*/}; rmmod "${m%.ko}" || echo "KPB-ERROR rmmod $m failed"; done
dmesg | grep -E 'WARNING|BUG|Oops' && echo "KPB-ERROR kernel warning during the benchmark"
echo "KPB-DONE"
