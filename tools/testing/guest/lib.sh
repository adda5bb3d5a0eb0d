# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs (busybox sh).  Result lines have the form
#   KPT <suite> <test> PASS|FAIL [detail]
# and are parsed on the host by tools/testing/kpt_results.py.

T=/sys/kernel/tracing
D=/sys/kernel/debug

result() { # suite test ok(0/1) [detail...]
	s=$1 t=$2 r=$3; shift 3
	if [ "$r" = 0 ]; then echo "KPT $s $t PASS $*"; else echo "KPT $s $t FAIL $*"; fi
}

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
