# SPDX-License-Identifier: GPL-2.0
# Guest job of the stress suite (scripts/stress.sh): kprobes_stress.ko's
# threads hit, register, unregister and toggle probes of every kind (see
# mod/kprobes_stress.c) while this script, for kps.seconds (default 20):
#   - writes kprobes/enabled 0/1 and debug.kprobes-optimization 0/1,
#   - defines, enables and removes kprobe_events (a kprobe and a kretprobe),
#   - loads and unloads kprobes_stress_target.ko (probed, and a target of
#     register_kprobe() racing its unload),
#   - takes CPUs 1.. offline and online.
# Then the module checks its exact counts with nothing else running, and
# this job checks that nothing is left: kprobes/list empty, the insn-slot
# pages back to where they started, a clean kmemleak scan.  Result lines
# are `KPT stress <check> PASS|FAIL|SKIP [detail]`, and one
#   KPT-STRESS seconds=S ops=N hits=N
# line with the figures (reports are counted on the host from the console).
. /kpt/lib.sh
X=/extra
K=$D/kprobes_stress
EN=$D/kprobes/enabled
OPT=/proc/sys/debug/kprobes-optimization
S=$(sed -n 's/.*kps\.seconds=\([0-9]*\).*/\1/p' /proc/cmdline)
S=${S:-20}

section stress
echo "cpus-online: $(cat /sys/devices/system/cpu/online)"
ncpu=$(grep -c ^processor /proc/cpuinfo)
[ "$ncpu" -ge 4 ]; result stress four-cpus-online $? "online=$(cat /sys/devices/system/cpu/online)"
# The insn-slot pages (kallsyms names them) before anything runs.
pages() { grep -c " $1	\[__builtin__kprobes\]" /proc/kallsyms; }
ip0=$(pages kprobe_insn_page) op0=$(pages kprobe_optinsn_page)
echo "insn-pages-before: $ip0 optinsn-pages-before: $op0"
grep -E '^Slab|SUnreclaim' /proc/meminfo | sed 's/^/before: /'
dmesg_mark
# kps.upstream_bugs=1 also runs what hits known upstream bugs (see
# upstream-findings.txt); by default the C run stays a clean reference.
ub=$(sed -n 's/.*kps\.upstream_bugs=\([01]\).*/\1/p' /proc/cmdline)
check stress insmod insmod $X/kprobes_stress.ko upstream_bugs=${ub:-0}
check stress insmod-target insmod $X/kprobes_stress_target.ko
check stress setup kwrite $K/ctl setup
# The kinds, as kprobes/list shows them once the optimizer has run (it is
# delayed work: up to 10 s), before the storm begins.  arm64 and riscv64
# have neither kprobes on ftrace nor the optimizer (decided by the
# architecture, as test-job.sh's HAVE_OPT): those two kinds are SKIPs
# there, and their probes int3-like BRK/ebreak probes.
case $(uname -m) in aarch64|riscv64) HAVE_OPT=0 ;; *) HAVE_OPT=1 ;; esac
i=0
while [ $HAVE_OPT = 1 ] && [ $i -lt 100 ] && ! grep -q 'kps_f_opt+0x[0-9a-f]* .*\[OPTIMIZED\]' $D/kprobes/list; do
	sleep 0.1; i=$((i + 1))
done
cat $D/kprobes/list >/tmp/list.start
cat /tmp/list.start
# The slot pages in use while the probes are registered (their peak, for
# the pages-back checks below).
ipk=$(pages kprobe_insn_page) opk=$(pages kprobe_optinsn_page)
if [ $HAVE_OPT = 1 ]; then
	grep -qE 'kps_f_entry\+0x[04] .*\[FTRACE\]' /tmp/list.start; result stress kind-entry-ftrace $?
else
	skip stress kind-entry-ftrace "no kprobes on ftrace on $(uname -m)"
fi
grep 'kps_f_boost+0x' /tmp/list.start | grep -qv OPTIMIZED; result stress kind-boost-int3 $?
if [ $HAVE_OPT = 1 ]; then
	grep -q 'kps_f_opt+0x[0-9a-f]* .*\[OPTIMIZED\]' /tmp/list.start; result stress kind-opt-optimized $?
else
	skip stress kind-opt-optimized "no jump optimizer on $(uname -m)"
fi
grep -q 'kps_f_post+0x' /tmp/list.start; result stress kind-post-int3 $?
grep -qE '^[0-9a-f]+  r  kps_f_sleep\+0x[04] ' /tmp/list.start; result stress kind-ret $?

check stress start kwrite $K/ctl start
end=$(($(date +%s) + S))
running() { [ "$(date +%s)" -lt "$end" ]; }
# Each loop counts its operations in /tmp/ops.NAME.
# loop_toggle NAME FILE OFF_S ON_S: write 0, wait OFF_S, write 1, wait ON_S.
loop_toggle() {
	n=0
	while running; do
		echo 0 >$2; sleep $3; echo 1 >$2; sleep $4; n=$((n + 2))
	done
	echo $n >/tmp/ops.$1
}
loop_events() {
	n=0
	while running; do
		echo 'p:kps/e kps_f_post' >>$T/kprobe_events 2>/dev/null
		echo 'r:kps/r kps_f_sleep' >>$T/kprobe_events 2>/dev/null
		echo 1 >$T/events/kps/enable 2>/dev/null
		sleep 0.05
		echo 0 >$T/events/kps/enable 2>/dev/null
		echo '-:kps/e' >>$T/kprobe_events 2>/dev/null
		echo '-:kps/r' >>$T/kprobe_events 2>/dev/null
		n=$((n + 6))
	done
	echo $n >/tmp/ops.events
}
loop_module() {
	n=0
	while running; do
		rmmod kprobes_stress_target 2>/dev/null && n=$((n + 1))
		sleep 0.05
		insmod $X/kprobes_stress_target.ko 2>/dev/null && n=$((n + 1))
		sleep 0.1
	done
	echo $n >/tmp/ops.module
}
loop_hotplug() {
	n=0
	while running; do
		for c in $(seq 1 $((ncpu - 1))); do
			f=/sys/devices/system/cpu/cpu$c/online
			[ -w $f ] || continue
			echo 0 >$f && n=$((n + 1)); sleep 0.1
			echo 1 >$f && n=$((n + 1)); sleep 0.1
		done
	done
	echo $n >/tmp/ops.hotplug
}
rm -f /tmp/ops.*
loop_toggle enabled $EN 0.05 0.3 & loop_toggle opt $OPT 0.1 0.4 & loop_events & loop_module & loop_hotplug &
wait
i=$(pages kprobe_insn_page); [ "$i" -le "$ipk" ] || ipk=$i
i=$(pages kprobe_optinsn_page); [ "$i" -le "$opk" ] || opk=$i
echo "insn-pages-peak: $ipk optinsn-pages-peak: $opk"
# Everything back: probes armed, optimization on, all CPUs online, the
# target loaded (the stop phase does not need it).
echo 1 >$EN; echo 1 >$OPT
for c in $(seq 1 $((ncpu - 1))); do
	f=/sys/devices/system/cpu/cpu$c/online
	[ -w $f ] && [ "$(cat $f)" = 0 ] && echo 1 >$f
done
echo "cpus-online-after: $(cat /sys/devices/system/cpu/online)"
check stress stop kwrite $K/ctl stop
cat $K/out >/tmp/kps.out
cat /tmp/kps.out
sed -n 's/^KPS check \([^ ]*\) \(PASS\|FAIL\) \(.*\)/KPT stress \1 \2 \3/p' /tmp/kps.out
[ "$(grep -c '^KPS check ' /tmp/kps.out)" -ge 14 ]; result stress module-checks-ran $? "$(grep -c '^KPS check ' /tmp/kps.out) checks"
shell_ops=0
for f in /tmp/ops.*; do
	echo "shell-$(basename $f): $(cat $f)"
	shell_ops=$((shell_ops + $(cat $f)))
done
ops=$(($(sed -n 's/^KPS ops //p' /tmp/kps.out) + shell_ops))
hits=$(sed -n 's/^KPS hits //p' /tmp/kps.out)
rmmod kprobes_stress_target 2>/dev/null
check stress rmmod rmmod kprobes_stress
echo > $T/kprobe_events
n=$(wc -l <$D/kprobes/list)
[ "$n" = 0 ]; result stress kprobes-list-empty $? "$(head -n 5 $D/kprobes/list | tr '\n' ' ')"
ip1=$(pages kprobe_insn_page) op1=$(pages kprobe_optinsn_page)
echo "insn-pages-after: $ip1 optinsn-pages-after: $op1"
# Freed slots are reclaimed lazily (a page goes when all its slots are
# free, and never the last one), so "back to where it started" is: no more
# pages than before, or one per cache.  That can only fail where the run
# held more than one page; a run that never did (PEAK <= 1) tests nothing
# and is skipped.  pages_back NAME BEFORE AFTER PEAK
pages_back() {
	if [ "$4" -le 1 ]; then
		skip stress $1 "the run never held more than one page (before=$2 peak=$4 after=$3): nothing to give back"
	else
		[ "$3" -le "$2" ] || [ "$3" -le 1 ]; result stress $1 $? "before=$2 peak=$4 after=$3"
	fi
}
[ "$ip1" -le "$ipk" ] || ipk=$ip1
[ "$op1" -le "$opk" ] || opk=$op1
pages_back insn-pages-back "$ip0" "$ip1" "$ipk"
if [ $HAVE_OPT = 1 ]; then
	pages_back optinsn-pages-back "$op0" "$op1" "$opk"
else
	skip stress optinsn-pages-back "no jump optimizer on $(uname -m): no optinsn pages"
fi
# Slab usage only for the record: KASAN's quarantine keeps freed objects
# in the slabs, so kmemleak (below) is the leak check.
grep -E '^Slab|SUnreclaim' /proc/meminfo | sed 's/^/after: /'
echo "KPT-STRESS seconds=$S ops=$ops hits=$hits"
section end

kmemleak_scan
