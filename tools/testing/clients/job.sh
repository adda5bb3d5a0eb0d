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

ok() { s=$1; shift; echo "KPC $s ok $*"; }
bad() { s=$1; shift; echo "KPC $s FAIL $*"; }
# join: lines -> one line, " | " separated, blank lines dropped
join() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' | awk 'NR > 1 { printf " | " } { printf "%s", $0 } END { print "" }'; }
# mask: kernel addresses and kallsyms-style hex words
mask() { sed -e 's/0x[0-9a-f]\{12,16\}/ADDR/g' -e 's/\b[0-9a-f]\{16\}\b/ADDR/g'; }
# symaddr: replace each 16-digit hex word (a kernel text address printed by
# perf) by <symbol+0xoffset> from /proc/kallsyms (nearest text symbol below)
symaddr() {
	in=$(cat)
	for a in $(echo "$in" | grep -oE '(^|[^0-9a-zA-Z_])[0-9a-f]{16}([^0-9a-zA-Z_]|$)' | grep -oE '[0-9a-f]{16}' | sort -u); do
		sym=$(awk -v a="$a" '$2 ~ /^[tT]$/ && $1 <= a && $1 > best { best = $1; name = $3 }
			END { if (name != "") printf "%s+0x%x", name, 0 }' /proc/kallsyms)
		if [ -n "$sym" ]; then
			base=$(awk -v n="${sym%+0x0}" '$3 == n && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms)
			sym="${sym%+0x0}+0x$(printf %x $((0x$a - 0x$base)))"
		fi
		in=$(echo "$in" | sed "s/$a/<${sym:-ADDR}>/g")
	done
	echo "$in"
}
# klist PATTERN: kprobes/list lines matching PATTERN, masked, sorted
klist() { grep -E "$1" $D/kprobes/list | mask | sort | join; }
# trace_lines: the trace buffer without headers; "comm event: text" per line
trace_lines() {
	grep -v '^#' $T/trace |
		sed -E 's/^ *(.*)-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: /\1 /'
}
# elog: the tracing error_log without its timestamps
elog() { sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' $T/error_log | join; }
raw() { echo "### $*"; }
# unrel: perf writes kernel probe points as _text+DECIMAL, which depends on
# the kernel's layout; replace each by the kallsyms symbol at that address
# ("_text+<do_sys_openat2>"), "_text+<?>" if no symbol starts there.
unrel() {
	base=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
	while IFS= read -r line; do
		n=$(echo "$line" | sed -n 's/.*_text+\([0-9][0-9]*\).*/\1/p')
		if [ -n "$n" ]; then
			a=$(printf '%016x' $((0x$base + n)))
			sym=$(awk -v a="$a" '$1 == a && $2 ~ /^[tT]$/ { print $3; exit }' /proc/kallsyms)
			line=$(echo "$line" | sed "s/_text+$n/_text+<${sym:-?}>/")
		fi
		echo "$line"
	done
}

section clients
echo "uname: $(uname -r) variant=$(sed -n 's/.*kpt.variant=\([a-z]*\).*/\1/p' /proc/cmdline)"
echo 0 > $T/tracing_on
echo > $T/trace
echo > $T/kprobe_events
echo > $T/error_log 2>/dev/null

# ---------------------------------------------------------------- perf probe
# Client: Debian linux-perf (perf probe / record / report / script).  No
# vmlinux or debuginfo in the guest: perf resolves symbols from
# /proc/kallsyms and writes the probe definitions to tracefs kprobe_events.
raw perf.version
if v=$(perf --version 2>&1); then echo "$v"; ok perf.version "runs"
else echo "$v"; bad perf.version "perf does not start: $(echo "$v" | tail -n 2 | join)"; fi

raw perf.probe-add
out=$(perf probe -q -a 'kpc_open=do_sys_openat2 dfd=%di:s32 path=+0(%si):ustring' 2>&1); r1=$?
out2=$(perf probe -q -a 'kpc_open_ret=do_sys_openat2%return ret=$retval:s32' 2>&1); r2=$?
printf '%s\n%s\n' "$out" "$out2"
if [ $r1 = 0 ] && [ $r2 = 0 ]; then
	ok perf.probe-add "$(cat $T/kprobe_events | unrel | mask | sort | join)"
else
	bad perf.probe-add "perf probe -a exited $r1/$r2: $(printf '%s\n%s' "$out" "$out2" | tail -n 3 | join)"
fi

raw perf.probe-list
out=$(perf probe -l 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && [ -n "$out" ]; then ok perf.probe-list "$(echo "$out" | mask | sort | join)"
else bad perf.probe-list "perf probe -l exited $r: $(echo "$out" | tail -n 2 | join)"; fi

# The blacklist is read by perf itself (debugfs kprobes/blacklist): a probe
# on a NOKPROBE_SYMBOL function must be refused before it reaches tracefs.
raw perf.probe-blacklisted
out=$(perf probe -a do_int3 2>&1); r=$?
echo "$out"
if [ $r != 0 ] && ! grep -q do_int3 $T/kprobe_events; then
	ok perf.probe-blacklisted "refused: $(echo "$out" | grep -iE 'blacklist|error' | mask | join)"
else
	bad perf.probe-blacklisted "perf probe -a do_int3 exited $r and kprobe_events has: $(grep do_int3 $T/kprobe_events)"
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
out=$(perf record -q -N -B -o /tmp/perf.data -e probe:kpc_open -e probe:kpc_open_ret__return -- sh /tmp/kpc-work.sh 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && [ -s /tmp/perf.data ]; then
	ok perf.record "exit 0, perf.data written"
	ok perf.record-kprobes-list "$(grep do_sys_openat2 /tmp/kpc-list | mask | sort | join)"
else
	bad perf.record "perf record exited $r: $(echo "$out" | tail -n 3 | join)"
	bad perf.record-kprobes-list "no record"
fi

raw perf.script
out=$(perf script -i /tmp/perf.data -F comm,event,trace 2>&1); r=$?
echo "$out"
if [ $r = 0 ] && echo "$out" | grep -q kpc_open; then
	# sample text: comm, event, fetched args; only the workload's cats
	ok perf.script "$(echo "$out" | grep -E '^ *cat ' | symaddr | sed -e 's/  */ /g' | sort | uniq -c | join)"
else
	bad perf.script "perf script exited $r: $(echo "$out" | tail -n 3 | join)"
fi

raw perf.report
out=$(perf report -i /tmp/perf.data --stdio --sort comm 2>&1); r=$?
echo "$out" | head -n 40
if [ $r = 0 ] && echo "$out" | grep -q "Samples:"; then
	ok perf.report "$(echo "$out" | grep -E '^# Samples:|^ +[0-9.]+% +cat$' | sed 's/  */ /g' | join)"
else
	bad perf.report "perf report exited $r: $(echo "$out" | tail -n 3 | join)"
fi

raw perf.probe-del
out=$(perf probe -d 'probe:kpc_*' 2>&1); r=$?
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
off="" off2=""
for i in $(seq 1 64); do
	if echo "p:kpc/mid vfs_read+$i comm=\$comm" >> $T/kprobe_events 2>/dev/null; then
		if [ -z "$off" ]; then off=$i; echo "-:kpc/mid" >> $T/kprobe_events; else off2=$i; break; fi
	fi
done
echo "offsets: $off $off2"
if [ -n "$off2" ]; then
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
