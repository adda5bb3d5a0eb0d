# SPDX-License-Identifier: GPL-2.0
# Guest job of the allocation-failure sweep (scripts/faults.sh).  For each
# case of kprobes_faults.ko (cat /sys/kernel/debug/kprobes_faults/cases),
# N = 1, 2, ...: the N-th allocation of the case's API call fails (the
# module sets the task's fail_nth, as /proc/self/fail-nth does), until N is
# past the call's last allocation (injected=0).  Then the same for a
# kprobe_events definition written from the shell, with /proc/self/fail-nth
# itself.  After every step kprobes/list must be empty and the case's
# probes must have fired if the call succeeded.  Output: `KPF ...` lines
# that must be identical on both kernels, then a kmemleak scan.
. /kpt/lib.sh
X=/extra
K=$D/kprobes_faults
MAXN=300
OPT=/proc/sys/debug/kprobes-optimization
# drain: let the optimizer finish with the probes just unregistered
# (turning optimization off waits for it), so that the next step does not
# reuse an aggregate still queued for freeing: whether it can depends on
# timing, and it saves that step's allocations.
drain() { echo 0 >$OPT; echo 1 >$OPT; }

section faults
# failslab and fail_page_alloc also fail allocations that may sleep (the
# defaults ignore them) and log a stack trace of each failure they make
# (verbose 2); fail-nth then picks the allocation.  The traces are printed
# as `KPFT` lines after their step: the host names each failure by the
# function that made the allocation (allocation counts inside vmalloc,
# KASAN's shadow and percpu depend on addresses and timing, so the N of
# a given failure is not the same from boot to boot, even on one kernel).
for f in failslab fail_page_alloc; do
	echo N >$D/$f/ignore-gfp-wait
	echo 2 >$D/$f/verbose
	echo 0 >$D/$f/verbose_ratelimit_interval_ms
done
echo N >$D/fail_page_alloc/ignore-gfp-highmem
echo 0 >$D/fail_page_alloc/min-order
dmesg_mark
insmod $X/kprobes_faults.ko || echo "KPF harness insmod=failed"
# traces: the fault-injection stack traces logged since the last call.
traces() { dmesg -c | sed -n '/FAULT_INJECTION: forcing a failure/,/<\/TASK>/p' | sed 's/^\[[ 0-9.]*\] */KPFT /'; }
dmesg -c >/dev/null
for c in $(cat $K/cases); do
	n=1
	while [ $n -le $MAXN ]; do
		if ! echo "$c $n" >$K/ctl; then echo "KPF $c n=$n ctl=failed"; break; fi
		cat $K/out
		traces
		drain
		l=$(wc -l <$D/kprobes/list)
		[ "$l" = 0 ] || { echo "KPF $c n=$n list_after=$l"; cat $D/kprobes/list; }
		grep -q 'injected=0' $K/out && break
		n=$((n + 1))
	done
	[ $n -le $MAXN ] || echo "KPF $c n=$MAXN never_succeeded"
done
rmmod kprobes_faults

# A kprobe_events definition (trace_kprobe's allocations, then the core's).
c=kprobe_events.define
n=1
while [ $n -le $MAXN ]; do
	# One shell process: the redirections, the write and the read of
	# /proc/self/fail-nth are that task's.  If that read's own open is the
	# allocation that fails, the write made fewer than N allocations (N
	# varies: KASAN and vmalloc allocate a varying number of times), and
	# the step is `injected=late`: nothing failed in the write, which must
	# have succeeded; the sweep goes on to the next N.
	out=$(sh -c "echo $n >/proc/self/fail-nth; echo 'p:kpf/e kernel_clone' >>$T/kprobe_events; rc=\$?; if read left </proc/self/fail-nth; then echo rc=\$rc injected=\$((left == 0)); else echo rc=\$rc injected=late; fi" 2>/dev/null)
	e=$(grep -c 'kpf/e' $T/kprobe_events)
	l=$(wc -l <$D/kprobes/list)
	echo "KPF $c n=$n $out events=$e list=$l"
	traces
	echo '-:kpf/e' >>$T/kprobe_events 2>/dev/null
	drain
	case $out in *injected=0*) break ;; esac
	n=$((n + 1))
done
echo "KPF kprobe_events.after list=$(wc -l <$D/kprobes/list) events=$(grep -c . $T/kprobe_events)"
for f in failslab fail_page_alloc; do echo Y >$D/$f/ignore-gfp-wait; done
section end

kmemleak_scan
