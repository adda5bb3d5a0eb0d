# SPDX-License-Identifier: GPL-2.0
# Guest job of `make clients` for the intended divergences reached through
# real clients: cases where the C core misbehaves after legal use and the
# Rust core does not.  Run in its own boot (the C kernel is left broken),
# each variant's KPC lines must equal the ones recorded in
# tools/testing/clients/divergences/VARIANT.kpc (scripts/clients.sh
# --record-divergences writes them; review before committing).
#
# div.fail_function-joins-events: the C side of
# tools/testing/differential/divergences.txt's
# div.ftrace_aggr_post_handler_joins, reached with kprobe_events and
# fail_function only.  A kprobe_events probe (no post_handler) is armed
# at __x64_sys_mkdir through kprobe_ftrace_ops; fail_function's probe
# (which has a post_handler) joins it, which sets the aggregate's
# post_handler; upstream then disarms the aggregate through
# kprobe_ipmodify_ops, where it was never armed: disabling the event after
# the injection is removed WARNs ("Failed to disarm kprobe-ftrace ...
# (error -2)") and leaves the probe armed and enabled; removing the event
# then frees a trace_kprobe whose kprobe stays hashed (a later read of
# kprobes/list oopses in report_probe(), a later register_kprobe() at that
# address loops in __get_valid_kprobe(): RCU stall).  The job stops
# before that on the C kernel.
. /kpt/lib.sh
. /extra/kpc-lib.sh
F=$D/fail_function

section divergence
echo 0 > $T/tracing_on; echo > $T/trace; echo > $T/kprobe_events
dmesg -c > /dev/null

raw div.fail_function-joins-events
echo 'p:kpc/mk __x64_sys_mkdir' >> $T/kprobe_events
echo 1 > $T/events/kpc/mk/enable
echo __x64_sys_mkdir > $F/inject
printf '%#x\n' -12 > $F/__x64_sys_mkdir/retval
echo 100 > $F/probability; echo 1 > $F/times; echo 0 > $F/verbose
l1=$(klist __x64_sys_mkdir)
echo 1 > $T/tracing_on
m1=$(mkdir /tmp/kpc-d1 2>&1; echo "rc=$?")
m2=$(mkdir /tmp/kpc-d2 2>&1; echo "rc=$?")
echo 0 > $T/tracing_on
# (the comm normalized: one tracing has not saved yet prints as <...>)
tr=$(trace_lines | sed -E 's/^[^ ]+ (mkr?: )/mkdir \1/; s/__x64_sys_mkdir[+]0x[0-9a-f]*\/0x[0-9a-f]*/__x64_sys_mkdir/' | join)
echo > $F/inject
l2=$(klist __x64_sys_mkdir)
if err=$(echo 0 2>&1 > $T/events/kpc/mk/enable); then dis="disable: ok"; else dis="disable: ${err##*: }"; fi
# Canonical: no times, CPUs or pids, and no function sizes or code offsets
# (they differ between configs, e.g. with kCFI).
warn=$(dmesg | grep -E 'Failed to (disarm|unregister) kprobe-ftrace|WARNING:' |
	sed -E -e 's/^\[ *[0-9]+\.[0-9]+\] //' -e 's/ at kernel\/kprobes\.c:[0-9]+/ at kernel\/kprobes.c/' \
	       -e 's/CPU: [0-9]+ PID: [0-9]+/CPU: N PID: N/' \
	       -e 's/^WARNING: kernel\/kprobes\.c:[0-9]+ at /WARNING: kernel\/kprobes.c at /' \
	       -e 's/, CPU#[0-9]+: [^ ]+\/[0-9]+$/, CPU#N: COMM\/N/' \
	       -e 's/(__x64_sys_mkdir[+]0x[0-9a-f]+)\/0x[0-9a-f]+/\1/' \
	       -e 's/ (disarm_kprobe_ftrace)[+]0x[0-9a-f]+\/0x[0-9a-f]+/ \1/' | join)
l3=$(klist __x64_sys_mkdir)
echo "$l1"; echo "$m1 / $m2"; echo "$tr"; echo "$l2"; echo "$dis"; echo "$warn"; echo "$l3"
if [ -n "$warn" ]; then
	# the C core: the aggregate is still armed through kprobe_ftrace_ops and
	# this probe enabled; removing the event now would leave a freed
	# trace_kprobe's kprobe hashed.  Stop here.
	rest="event not removed: the kernel is left as is (see the header)"
else
	echo 1 > $T/tracing_on; echo > $T/trace
	m3=$(mkdir /tmp/kpc-d3 2>&1; echo "rc=$?")
	echo 0 > $T/tracing_on
	n=$(trace_lines | grep -c ' mk: ')
	echo > $T/kprobe_events
	rest="after disable: $(echo $m3), fired $n times | removed: kprobes/list [$(klist __x64_sys_mkdir)]"
fi
ok div.fail_function-joins-events "armed: $l1 | $(echo $m1) | $(echo $m2) | trace: $tr | inject cleared: $l2 | $dis | dmesg: [${warn}] | kprobes/list: $l3 | $rest"

section end
echo "KPC-END"
