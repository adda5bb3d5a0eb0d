# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs (busybox sh).  Result lines have the form
#   KPT <suite> <test> PASS|FAIL|SKIP [detail]
# and are parsed on the host by tools/testing/kpt_results.py.

T=/sys/kernel/tracing
D=/sys/kernel/debug

result() { # suite test ok(0/1) [detail...]
	s=$1 t=$2 r=$3; shift 3
	if [ "$r" = 0 ]; then echo "KPT $s $t PASS $*"; else echo "KPT $s $t FAIL $*"; fi
}

# skip SUITE TEST REASON: the check does not apply to this kernel.
skip() { echo "KPT $1 $2 SKIP $3"; }

# check SUITE TEST CMD...: run CMD; PASS if it exits 0.
check() {
	s=$1 t=$2; shift 2
	if out=$("$@" 2>&1); then result "$s" "$t" 0; else result "$s" "$t" 1 "$(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
}

# kwrite FILE TEXT: write TEXT to a tracefs/debugfs/procfs file (use it
# through `check`, whose own output must not go to FILE).
kwrite() { printf '%s\n' "$2" >"$1"; }

section() { echo "### $*"; }

# The kernel ring buffer since the last mark.
dmesg_mark() { dmesg -c >/dev/null; }

# optimized_probe GROUP/EVENT FUNC: define kprobe event GROUP/EVENT at the
# first offset of FUNC (1..96) that is an instruction boundary the jump
# optimizer takes (as kprobe_opt_types.tc does), and leave it enabled.
# Returns 1 if no offset optimizes.
optimized_probe() {
	ev=$1 fn=$2
	for i in $(seq 1 96); do
		echo "p:$ev $fn+$i" >> $T/kprobe_events 2>/dev/null || continue
		echo 1 > $T/events/$ev/enable
		sleep 0.2
		grep -q "$fn+0x$(printf %x $i) .*OPTIMIZED" $D/kprobes/list && return 0
		echo 0 > $T/events/$ev/enable
		echo "-:$ev" >> $T/kprobe_events
	done
	return 1
}

# kmemleak_scan: on debug kernels, a `### kmemleak` section with a scan's
# report (the objects and their backtraces, for the host to check) and a
# `kmemleak-objects: N` line; nothing without kmemleak.
kmemleak_scan() {
	[ -e $D/kmemleak ] || return 0
	section kmemleak
	echo scan > $D/kmemleak; sleep 1; echo scan > $D/kmemleak
	cat $D/kmemleak
	echo "kmemleak-objects: $(grep -c '^unreferenced object' $D/kmemleak)"
	section end
}
