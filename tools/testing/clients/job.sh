# SPDX-License-Identifier: GPL-2.0
# Guest job of `make clients` (scripts/clients.sh): real kprobes clients on
# the booted variant.  Debian's perf and bpftrace (dynamically linked) and
# their libraries are in /extra/root, run through the dynamic loader there.
#
# Every step prints one result line
#   KPC <step> ok <canonical result>
#   KPC <step> FAIL <why>
# whose text does not depend on addresses, timestamps, pids or CPU numbers,
# so the host can compare the lines of the two kernels verbatim.  The raw
# output of each client follows its `### <step>` header (for humans).
. /kpt/lib.sh

X=/extra/root
LIBS=$X/lib/x86_64-linux-gnu:$X/usr/lib/x86_64-linux-gnu
export HOME=/tmp
# the commands, usable after `timeout N`
PERF="$X/lib64/ld-linux-x86-64.so.2 --library-path $LIBS $X/usr/bin/perf"
BPFTRACE="$X/lib64/ld-linux-x86-64.so.2 --library-path $LIBS $X/usr/bin/bpftrace"
perf() { $PERF "$@"; }
# a client the host could not provide: every step using it fails, saying so
for c in perf bpftrace; do
	[ -x $X/usr/bin/$c ] && continue
	printf '#!/bin/sh\necho "%s is not in /extra/root: not installed on the host (see scripts/clients.sh)"; exit 127\n' $c > /tmp/no-$c
	chmod +x /tmp/no-$c
	[ $c = perf ] && PERF=/tmp/no-perf || BPFTRACE=/tmp/no-bpftrace
done

. /extra/kpc-lib.sh   # ok, bad, join, mask, ksym, unrel, symaddr, klist, trace_lines, elog, raw

section clients
echo "uname: $(uname -r) variant=$(sed -n 's/.*kpt.variant=\([a-z]*\).*/\1/p' /proc/cmdline)"
echo 0 > $T/tracing_on
echo > $T/trace
echo > $T/kprobe_events
echo > $T/error_log 2>/dev/null

# The first two offsets into vfs_read that kprobe_events accepts (the
# kernel checks instruction boundaries): with IBT, +4 (after ENDBR: the
# fentry site, still the function entry) and the next instruction.
off="" off2=""
for i in $(seq 1 64); do
	if echo "p:kpc/try vfs_read+$i" >> $T/kprobe_events 2>/dev/null; then
		echo "-:kpc/try" >> $T/kprobe_events
		if [ -z "$off" ]; then off=$i; else off2=$i; break; fi
	fi
done
echo > $T/error_log

# ---------------------------------------------------------------- perf probe
# Client: Debian linux-perf (perf probe / record / report / script).  No
# vmlinux or debuginfo in the guest: perf resolves symbols from
# /proc/kallsyms and writes the probe definitions to tracefs kprobe_events.
raw perf.version
if v=$(timeout 120 $PERF --version 2>&1); then echo "$v"; ok perf.version "runs"
else echo "$v"; bad perf.version "perf does not start: $(echo "$v" | tail -n 2 | join)"; fi

raw perf.probe-add
out=$(timeout 120 $PERF probe -q -a 'kpc_open=do_sys_openat2 dfd=%di:s32 path=+0(%si):ustring' 2>&1); r1=$?
out2=$(timeout 120 $PERF probe -q -a 'kpc_open_ret=do_sys_openat2%return ret=$retval:s32' 2>&1); r2=$?
printf '%s\n%s\n' "$out" "$out2"
if [ $r1 = 0 ] && [ $r2 = 0 ]; then
	ok perf.probe-add "$(cat $T/kprobe_events | unrel | mask | sort | join)"
else
	bad perf.probe-add "perf probe -a exited $r1/$r2: $(printf '%s\n%s' "$out" "$out2" | tail -n 3 | join)"
fi

raw perf.probe-list
out=$(timeout 120 $PERF probe -l 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && [ -n "$out" ]; then ok perf.probe-list "$(echo "$out" | mask | sort | join)"
else bad perf.probe-list "perf probe -l exited $r: $(echo "$out" | tail -n 2 | join)"; fi

# The blacklist is read by perf itself (debugfs kprobes/blacklist): a probe
# on a NOKPROBE_SYMBOL function must be refused before it reaches tracefs,
# and for that reason (perf names it), not because perf failed otherwise.
raw perf.probe-blacklisted
out=$(timeout 120 $PERF probe -a do_int3 2>&1); r=$?
echo "$out"
listed=no
grep -q '[[:space:]]do_int3$' /sys/kernel/debug/kprobes/blacklist && listed=yes
if [ $r != 0 ] && [ $listed = yes ] && echo "$out" | grep -q 'do_int3 is blacklisted function' &&
	! grep -q do_int3 $T/kprobe_events; then
	ok perf.probe-blacklisted "refused: $(echo "$out" | grep -iE 'blacklist|error' | mask | join)"
else
	bad perf.probe-blacklisted "perf probe -a do_int3 exited $r, in kprobes/blacklist: $listed, perf said: $(echo "$out" | tail -n 2 | join), kprobe_events has: $(grep do_int3 $T/kprobe_events)"
	perf probe -q -d 'probe:do_int3*' 2>/dev/null
fi

# Record a workload that makes exactly three opens: two of a missing file
# (-ENOENT), one of /etc/passwd (fd 3).  The workload snapshots kprobes/list
# while the events are enabled.
raw perf.record
rm -f /tmp/kpc-missing /tmp/perf.data
cat > /tmp/kpc-work.sh <<'EOF'
cat /sys/kernel/debug/kprobes/list > /tmp/kpc-list
cat /tmp/kpc-missing
cat /tmp/kpc-missing
cat /etc/passwd
EOF
out=$(timeout 120 $PERF record -q -N -B -o /tmp/perf.data -e probe:kpc_open -e probe:kpc_open_ret__return -- sh /tmp/kpc-work.sh 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && [ -s /tmp/perf.data ]; then
	ok perf.record "exit 0, perf.data written"
	ok perf.record-kprobes-list "$(grep do_sys_openat2 /tmp/kpc-list | mask | sort | join)"
else
	bad perf.record "perf record exited $r: $(echo "$out" | tail -n 3 | join)"
	bad perf.record-kprobes-list "no record"
fi

raw perf.script
out=$(timeout 120 $PERF script -i /tmp/perf.data -F comm,event,trace 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && echo "$out" | grep -q kpc_open; then
	# sample text: comm, event, fetched args; only the workload's cats
	ok perf.script "$(echo "$out" | grep -E '^ *cat ' | symaddr | sed -e 's/  */ /g' | sort | uniq -c | join)"
else
	bad perf.script "perf script exited $r: $(echo "$out" | tail -n 3 | join)"
fi

raw perf.report
out=$(timeout 120 $PERF report -i /tmp/perf.data --stdio --sort comm 2>&1); r=$?
echo "$out" | head -n 40
if [ $r = 0 ] && echo "$out" | grep -q "Samples:"; then
	ok perf.report "$(echo "$out" | grep -E '^# Samples:|^ +[0-9.]+% +cat$' | sed 's/  */ /g' | join)"
else
	bad perf.report "perf report exited $r: $(echo "$out" | tail -n 3 | join)"
fi

# Counting mode: perf stat on the same events, a workload of known opens.
raw perf.stat
out=$(timeout 120 $PERF stat -x, -e probe:kpc_open -e probe:kpc_open_ret__return -- sh /tmp/kpc-work.sh 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && echo "$out" | grep -q 'probe:kpc_open'; then
	ok perf.stat "$(echo "$out" | grep 'probe:' | cut -d, -f1,3 | join)"
else
	bad perf.stat "perf stat exited $r: $(echo "$out" | tail -n 3 | join)"
fi

# A probe at function+offset (no debuginfo: perf checks nothing itself, the
# kernel accepts only an instruction boundary): vfs_read+$off2, the first
# boundary after the fentry call, and vfs_read+1, inside the first insn.
raw perf.probe-offset
out=$(timeout 120 $PERF probe -a "kpc_mid=vfs_read+${off2:-9}" 2>&1); r1=$?
out2=$(timeout 120 $PERF probe -a 'kpc_bad=vfs_read+1' 2>&1); r2=$?
printf '%s\n---\n%s\n' "$out" "$out2"
if [ $r1 = 0 ]; then
	out3=$(timeout 120 $PERF stat -x, -e probe:kpc_mid -- dd if=/etc/passwd of=/dev/null bs=1 count=5 2>&1)
	echo "$out3"
	ok perf.probe-offset "vfs_read+$off2: $(grep kpc_mid $T/kprobe_events | unrel | join), counted $(echo "$out3" | grep 'probe:' | cut -d, -f1,3) | vfs_read+1: exit $r2, $(echo "$out2" | grep -iE 'error|fail' | head -n 2 | join)"
else
	bad perf.probe-offset "perf probe -a vfs_read+$off2 exited $r1: $(echo "$out" | tail -n 3 | join)"
fi

raw perf.probe-del
out=$(timeout 120 $PERF probe -d 'probe:kpc_*' 2>&1); r=$?
echo "$out"
left=$(grep -c kpc_ $T/kprobe_events)
if [ $r = 0 ] && [ "$left" = 0 ] && ! grep -q do_sys_openat2 $D/kprobes/list; then
	ok perf.probe-del "$(echo "$out" | sort | join), kprobe_events and kprobes/list empty"
else
	bad perf.probe-del "perf probe -d exited $r, $left kprobe_events left: $(echo "$out" | tail -n 2 | join)"
fi

# ---------------------------------------------------------------- bpftrace
# Client: Debian bpftrace 0.17 (BPF programs attached through the perf
# kprobe PMU; no BTF, interpreter, no kernel headers: no struct access).
# `dd bs=1 count=10` reads exactly ten 1-byte records: vfs_read is entered
# ten times with count (arg2) 1 and returns 1 ten times.
raw bpftrace.version
if v=$($BPFTRACE --version 2>&1); then echo "$v"; ok bpftrace.version "runs"
else echo "$v"; bad bpftrace.version "bpftrace does not start: $(echo "$v" | tail -n 2 | join)"; fi

raw bpftrace.kprobe-kretprobe
prog='kprobe:vfs_read /comm == "dd"/ { @calls = count(); @count_arg[arg2] = count(); }
kretprobe:vfs_read /comm == "dd"/ { @ret[retval] = count(); }'
cat > /tmp/kpc-bt.sh <<'EOF'
cat /sys/kernel/debug/kprobes/list > /tmp/kpc-btlist
dd if=/etc/passwd of=/dev/null bs=1 count=10 2>/dev/null
EOF
out=$(timeout 300 $BPFTRACE -e "$prog" -c 'sh /tmp/kpc-bt.sh' 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && echo "$out" | grep -q '^@calls'; then
	ok bpftrace.kprobe-kretprobe "$(echo "$out" | grep -E '^(Attaching|@)' | join)"
	ok bpftrace.kprobes-list "$(grep vfs_read /tmp/kpc-btlist | mask | sort | join)"
else
	bad bpftrace.kprobe-kretprobe "bpftrace exited $r: $(echo "$out" | grep -v '^$' | tail -n 4 | join)"
	bad bpftrace.kprobes-list "no bpftrace run"
fi
grep -q vfs_read $D/kprobes/list && echo "!!! vfs_read still in kprobes/list after bpftrace exited"

# interval-bounded, system-wide: the count is only known to be > 0
raw bpftrace.interval
touch /tmp/kpc-busy
(while [ -e /tmp/kpc-busy ]; do head -c 1 /etc/passwd >/dev/null; sleep 0.05; done) &
busy=$!
out=$(timeout 300 $BPFTRACE -e 'kprobe:ksys_read { @c = count(); } interval:s:1 { exit(); }' 2>&1); r=$?
rm -f /tmp/kpc-busy; wait $busy
echo "$out"
n=$(echo "$out" | sed -n 's/^@c: \([0-9]*\)$/\1/p')
if [ $r = 0 ] && [ -n "$n" ]; then
	ok bpftrace.interval "count>0=$([ "$n" -gt 0 ] && echo yes || echo no), gone-after-exit=$(grep -q ksys_read $D/kprobes/list && echo no || echo yes)"
else
	bad bpftrace.interval "bpftrace exited $r: $(echo "$out" | grep -v '^$' | tail -n 4 | join)"
fi

# Strings from a user pointer argument and the return value, printed per
# event (both probes on one function: an aggregate of kprobe + kretprobe).
raw bpftrace.args
# (str(arg1) of do_sys_openat2's user pointer prints nothing: without BTF
# bpftrace reads it as kernel memory; casts to deref a pointer need kernel
# headers.  __set_task_comm()'s buf is a kernel string: the comm at exec.
# mkdirat() is do_mkdirat() up to 6.x, filename_mkdirat() in 7.x, with the
# same arguments.)
mkd=do_mkdirat
grep -q ' filename_mkdirat$' /proc/kallsyms && mkd=filename_mkdirat
prog='kprobe:do_sys_openat2 /comm == "cat"/ { printf("open dfd=%d path=%s\n", arg0, str(arg1)); }
kretprobe:do_sys_openat2 /comm == "cat"/ { printf("ret %d\n", retval); }
kprobe:__set_task_comm { printf("exec comm=%s\n", str(arg1)); }
kprobe:'$mkd' /comm == "mkdir"/ { printf("mkdirat dfd=%d mode=%o\n", arg0, arg2); }
kretprobe:'$mkd' /comm == "mkdir"/ { printf("mkdirat ret %d\n", retval); }'
rm -rf /tmp/kpc-bt-dir
cat > /tmp/kpc-bt2.sh <<'EOF2'
cat /tmp/kpc-missing
mkdir -m 750 /tmp/kpc-bt-dir
mkdir /tmp/kpc-bt-dir
EOF2
# (bpftrace prints each CPU's events in order, not across CPUs: sorted)
out=$(timeout 300 $BPFTRACE -e "$prog" -c 'sh /tmp/kpc-bt2.sh' 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && echo "$out" | grep -q '^open '; then
	ok bpftrace.args "$(echo "$out" | grep -E '^(Attaching|open|ret|exec|mkdirat)' | sort | join)"
else
	bad bpftrace.args "bpftrace exited $r: $(echo "$out" | grep -v '^$' | tail -n 4 | join)"
fi

# A wildcard: one kprobe per matching function, registered and unregistered
# together; counts per probe for a known workload.
raw bpftrace.wildcard
# (CONFIG_FPROBE is off: bpftrace cannot use kprobe_multi links, every
# function gets its own kprobe through the perf kprobe PMU)
cat > /tmp/kpc-bt3.sh <<'EOF2'
grep -c ' k  vfs_' /sys/kernel/debug/kprobes/list > /tmp/kpc-btn
dd if=/etc/passwd of=/dev/null bs=1 count=7
EOF2
out=$(timeout 600 $BPFTRACE -e 'kprobe:vfs_* /comm == "dd"/ { @[probe] = count(); }' -c 'sh /tmp/kpc-bt3.sh' 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && echo "$out" | grep -q '^Attaching'; then
	ok bpftrace.wildcard "$(echo "$out" | grep -E '^(Attaching|@)' | join), in kprobes/list while attached: $(cat /tmp/kpc-btn), after: $(grep -c 'vfs_' $D/kprobes/list)"
else
	bad bpftrace.wildcard "bpftrace exited $r: $(echo "$out" | grep -v '^$' | tail -n 4 | join)"
fi

# ---------------------------------------------------------------- fail_function
# Client: fault injection (CONFIG_FAIL_FUNCTION): a kprobe whose pre_handler
# overrides the return of an ALLOW_ERROR_INJECTION function.
F=$D/fail_function
raw fail_function.injectable
if [ -r $F/injectable ]; then
	grep -E '^(__x64_sys_mkdir|__x64_sys_mkdirat|should_failslab)[[:space:]]' $F/injectable
	ok fail_function.injectable "$(grep -E '^(__x64_sys_mkdir|__x64_sys_mkdirat|should_failslab)[[:space:]]' $F/injectable | sed 's/[[:space:]]\+/ /g' | sort | join)"
else
	bad fail_function.injectable "no $F/injectable (needs CONFIG_FAIL_FUNCTION and debugfs)"
fi

raw fail_function.inject
# which mkdir syscall does busybox use?  Inject both; report which fired.
fi_fn=""
for fn in __x64_sys_mkdir __x64_sys_mkdirat; do
	grep -q "^$fn[[:space:]]" $F/injectable 2>/dev/null || continue
	# retval is parsed as an unsigned 64-bit number: -ENOMEM as such
	echo $fn > $F/inject && printf '%#x\n' -12 > $F/$fn/retval && fi_fn="$fi_fn $fn"
done
if [ -n "$fi_fn" ]; then
	echo 100 > $F/probability; echo 2 > $F/times; echo 1 > $F/interval; echo 0 > $F/verbose
	lst=$(klist '__x64_sys_mkdir')
	rmdir /tmp/kpc-f1 /tmp/kpc-f2 /tmp/kpc-f3 2>/dev/null
	m1=$(mkdir /tmp/kpc-f1 2>&1; echo "rc=$?")
	m2=$(mkdir /tmp/kpc-f2 2>&1; echo "rc=$?")
	m3=$(mkdir /tmp/kpc-f3 2>&1; echo "rc=$?")
	printf '%s\n' "$m1" "$m2" "$m3" "$lst"
	t=$(cat $F/times)
	ok fail_function.inject "injected:$fi_fn | kprobes/list: $lst | 1st: $(echo $m1) | 2nd: $(echo $m2) | 3rd: $(echo $m3) | times left $t"
	echo > $F/inject
	m4=$(mkdir /tmp/kpc-f4 2>&1; echo "rc=$?")
	ok fail_function.remove "after clearing inject: $(echo $m4) | kprobes/list: $(klist '__x64_sys_mkdir')"
else
	bad fail_function.inject "neither __x64_sys_mkdir nor __x64_sys_mkdirat is injectable"
	bad fail_function.remove "no injection"
fi

# fail_function's kprobe and kprobe_events probes on the same function
# form an aggregate.  The aggregate runs its probes newest first and stops
# at a pre_handler returning non-zero, which fail_function's does when it
# overrides the return: the events, registered after the injection, see
# both calls, and the kretprobe the overridden return (-ENOMEM) of the
# first (the second, times exhausted, runs normally).  Only the order "inject
# first" is run here: events first, then the injection (a probe with a
# post_handler joining an aggregate armed through kprobe_ftrace_ops) makes
# the C core WARN on the next disable and leave the probe armed after
# unregister (then oops); that intended divergence is checked in its own
# boot by divergence-job.sh.
ff_case() { # NAME ORDER(events-first|inject-first)
	echo 0 > $T/events/enable 2>/dev/null; echo > $T/kprobe_events
	echo > $T/trace
	if [ $2 = inject-first ]; then echo __x64_sys_mkdir > $F/inject; printf '%#x\n' -12 > $F/__x64_sys_mkdir/retval; fi
	echo 'p:kpc/mk __x64_sys_mkdir
r:kpc/mkr __x64_sys_mkdir ret=$retval:s64' >> $T/kprobe_events
	echo 1 > $T/events/kpc/enable
	if [ $2 = events-first ]; then echo __x64_sys_mkdir > $F/inject; printf '%#x\n' -12 > $F/__x64_sys_mkdir/retval; fi
	echo 100 > $F/probability; echo 1 > $F/times; echo 0 > $F/verbose
	lst=$(klist '__x64_sys_mkdir')
	echo 1 > $T/tracing_on
	rmdir /tmp/kpc-a1 /tmp/kpc-a2 2>/dev/null
	m1=$(mkdir /tmp/kpc-a1 2>&1; echo "rc=$?")
	m2=$(mkdir /tmp/kpc-a2 2>&1; echo "rc=$?")
	echo 0 > $T/tracing_on
	echo "$lst"; echo "$m1"; echo "$m2"; trace_lines
	# The events by name, whatever comm the trace shows: a task whose comm
	# tracing has not saved yet prints as <...> (a race of the tracer's
	# comm cache, on either kernel).
	ok fail_function.$1 "kprobes/list: $lst | 1st: $(echo $m1) | 2nd: $(echo $m2) | trace: $(trace_lines | grep -E '^[^ ]+ mkr?: ' | sed -E 's/^[^ ]+ /mkdir /; s/__x64_sys_mkdir[+]0x[0-9a-f]*\/0x[0-9a-f]*/__x64_sys_mkdir/' | join)"
	echo > $F/inject
	echo 0 > $T/events/kpc/enable; echo > $T/kprobe_events
}
if [ -n "$fi_fn" ]; then
	raw fail_function.aggregate-inject-first
	ff_case aggregate-inject-first inject-first
else
	bad fail_function.aggregate-inject-first "no injection"
fi

# ---------------------------------------------------------------- kprobe_events
# Client: ftrace's dynamic kprobe events with fetch args: registers, $argN
# (no BTF: the calling convention), memory dereference, user/kernel strings,
# $comm, $stack0 as a symbol, $retval with casts, symbol+offset probes.
raw kprobe_events.define
defs='p:kpc/open do_sys_openat2 dfd=%di:s32 a1=$arg1:s32 path=+0(%si):ustring spath=+0(%si):string flags=+0(%dx):x64 mode=+8(%dx):u16 lo=%di:b4@0/32 comm=$comm caller=$stack0:symbol
r:kpc/openr do_sys_openat2 ret=$retval:s32 r8=$retval:u8 rx=$retval:x16 comm=$comm'
if out=$(printf '%s\n' "$defs" 2>&1 >> $T/kprobe_events); then
	cat $T/kprobe_events
	ok kprobe_events.define "$(cat $T/kprobe_events | join)"
	ok kprobe_events.format "$(grep -h '^print fmt' $T/events/kpc/open/format $T/events/kpc/openr/format | join)"
else
	bad kprobe_events.define "write failed: $out | $(elog)"
	bad kprobe_events.format "no events"
fi

raw kprobe_events.fire
echo 'comm == "cat"' > $T/events/kpc/open/filter
echo 'comm == "cat"' > $T/events/kpc/openr/filter
echo 1 > $T/events/kpc/enable
echo > $T/trace
echo 1 > $T/tracing_on
cat /tmp/kpc-missing 2>/dev/null
cat /etc/passwd > /dev/null
echo 0 > $T/tracing_on
lst=$(klist 'do_sys_openat2')
trace_lines
ok kprobe_events.trace "$(trace_lines | join)"
ok kprobe_events.kprobes-list "$lst"
ok kprobe_events.profile "$(awk '$1 ~ /^openr?$/ { print $1, ($2 > 0 ? "hits>0" : "hits=0"), "misses=" $3 }' $T/kprobe_profile | join)"
echo 0 > $T/events/kpc/enable
echo > $T/kprobe_events
ok kprobe_events.removed "kprobe_events: [$(cat $T/kprobe_events | join)] kprobes/list: [$(klist 'do_sys_openat2')]"

# Probes inside a function: the first offset of vfs_read that the kernel
# accepts (with IBT: +4, after ENDBR, the fentry site, i.e. still the
# function entry), and the next one (a real mid-function probe, optimized by
# the jump optimizer after its delay).  dd reads three 1-byte records.
raw kprobe_events.offset
echo "offsets: $off $off2"
if [ -n "$off2" ]; then
	echo "p:kpc/mid vfs_read+$off2 comm=\$comm" >> $T/kprobe_events
	echo "p:kpc/entry vfs_read+$off comm=\$comm" >> $T/kprobe_events
	echo 'comm == "dd"' > $T/events/kpc/mid/filter
	echo 'comm == "dd"' > $T/events/kpc/entry/filter
	echo 1 > $T/events/kpc/enable
	sleep 1
	echo > $T/trace; echo 1 > $T/tracing_on
	dd if=/etc/passwd of=/dev/null bs=1 count=3 2>/dev/null
	echo 0 > $T/tracing_on
	trace_lines
	grep -E ' (mid|entry) ' $T/kprobe_profile
	ok kprobe_events.offset "accepted offsets vfs_read+$off, vfs_read+$off2 | $(trace_lines | sort | uniq -c | join) | $(klist 'vfs_read')"
	echo 0 > $T/events/kpc/enable
	echo > $T/kprobe_events
else
	bad kprobe_events.offset "fewer than two offsets 1..64 of vfs_read accepted: $(elog)"
fi

# Probes on a module (samples/trace_printk, trace-printk.ko, whose init runs
# trace_printk_irq_work() once through irq_work_sync()), defined before the
# module is loaded: registered when it comes, the one on its init text
# killed ([GONE]) when init is done, all [GONE] after rmmod, registered
# again by the next load.
raw kprobe_events.module
if [ -n "$(find /lib/modules -name 'trace-printk.ko*')" ]; then
	echo > $T/trace
	r1=$(echo 'p:kpc/tpm trace_printk:trace_printk_irq_work' 2>&1 >> $T/kprobe_events && echo accepted)
	r2=$(echo 'p:kpc/tpi trace_printk:init_module' 2>&1 >> $T/kprobe_events && echo accepted)
	echo 1 > $T/events/kpc/enable 2>/dev/null
	l0=$(klist 'trace_printk')
	echo 1 > $T/tracing_on
	modprobe trace-printk; l1=$(klist 'trace_printk')
	rmmod trace-printk; l2=$(klist 'trace_printk')
	modprobe trace-printk; l3=$(klist 'trace_printk')
	rmmod trace-printk
	echo 0 > $T/tracing_on
	trace_lines | grep -E ' (tpm|tpi): '
	n_tpm=$(trace_lines | grep -c ' tpm: ') n_tpi=$(trace_lines | grep -c ' tpi: ')
	echo 0 > $T/events/kpc/enable; echo > $T/kprobe_events
	ok kprobe_events.module "define before load: ${r1:-refused} / ${r2:-refused} | before load: [$l0] | loaded: [$l1] | unloaded: [$l2] | reloaded: [$l3] | fired: tpm $n_tpm, tpi $n_tpi | removed: [$(klist 'trace_printk')]"
else
	bad kprobe_events.module "no trace-printk module in the guest (CONFIG_SAMPLE_TRACE_PRINTK=m)"
fi

# kprobes/enabled (debugfs): 0 disarms every probe, 1 re-arms them, but a
# probe disabled meanwhile stays disabled.
raw kprobe_events.all-disarmed
echo 'p:kpc/on vfs_read
p:kpc/off vfs_read+'"${off2:-9}" >> $T/kprobe_events
echo 'comm == "dd"' > $T/events/kpc/on/filter
echo 1 > $T/events/kpc/on/enable
ddn() { echo > $T/trace; echo 1 > $T/tracing_on; dd if=/etc/passwd of=/dev/null bs=1 count=$1 2>/dev/null; echo 0 > $T/tracing_on; trace_lines | grep -c ' on: '; }
a=$(ddn 2); la=$(klist vfs_read)
echo 0 > $D/kprobes/enabled
b=$(ddn 3); lb=$(klist vfs_read)
echo 1 > $D/kprobes/enabled
c=$(ddn 4); lc=$(klist vfs_read)
echo 0 > $T/events/kpc/enable; echo > $T/kprobe_events
echo "$a $b $c | $la | $lb | $lc"
ok kprobe_events.all-disarmed "enabled=1: fired $a of 2 [$la] | enabled=0: fired $b of 3 [$lb] | enabled=1 again: fired $c of 4 [$lc]"

# Definitions that must be refused, with the error the kernel logs (several
# come from register_kprobe()'s return code: -EILSEQ, -EINVAL, -ENOENT).
raw kprobe_events.errors
# vfs_read's size (to the next kallsyms symbol): "+size" is just past its
# end, at the same place relative to vfs_read on any kernel layout
vsz=$(sort /proc/kallsyms | awk '$3 == "vfs_read" { a = $1; next } a != "" && $1 != a { print $1, a; exit }' |
	{ read -r nx cur; echo $((0x$nx - 0x$cur)); })
echo "vfs_read size $vsz"
n=0
for d in 'p:kpc/e1 do_sys_openat2+1' 'p:kpc/e2 kpc_no_such_function' 'p:kpc/e3 do_int3' \
	'r:kpc/e4 vfs_read+'"${off2:-9}" 'p:kpc/e5 vfs_read+'"${vsz:-0}" 'p:kpc/e6 get_kprobe' \
	'p:kpc/e7 do_sys_openat2 x=+0(%zz)' 'p:kpc/e8 do_sys_openat2 x=$arg1:nosuchtype' \
	'r:kpc/e9 do_sys_openat2 x=$stack0:symbol y=$retval:string' 'r2000:kpc/e10 do_sys_openat2' \
	'p:kpc/e11 do_sys_openat2' 'p:kpc/e11 vfs_read' 'p:kpc/e13 vfs_read+'"$((${vsz:-0} + 1))"; do
	n=$((n + 1))
	echo > $T/error_log
	# (busybox's echo, unlike its printf, reports a failed write)
	if err=$(echo "$d" 2>&1 >> $T/kprobe_events); then st=accepted; else st="refused (${err##*: })"; fi
	el=$(grep -E 'error:' $T/error_log | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | join)
	# an accepted definition registers a (disabled) kprobe: where?
	[ "$st" = accepted ] && st="$st, kprobes/list: $(klist '.')"
	echo "$d: $st: $el"
	ok kprobe_events.error$n "$d: $st${el:+: $el}"
	[ "$d" = 'p:kpc/e11 do_sys_openat2' ] || echo > $T/kprobe_events
done

section end
echo "KPC-END"
