# SPDX-License-Identifier: GPL-2.0
# Helpers of the real-client guest jobs (job.sh, divergence-job.sh); busybox
# sh.  scripts/clients.sh puts this file in /extra.  Uses $T and $D from
# /kpt/lib.sh.

ok() { s=$1; shift; echo "KPC $s ok $*"; }
bad() { s=$1; shift; echo "KPC $s FAIL $*"; }
# join: lines -> one line, " | " separated, blank lines dropped
join() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' | awk 'NR > 1 { printf " | " } { printf "%s", $0 } END { print "" }'; }
# mask: kernel addresses and kallsyms-style hex words
mask() { sed -e 's/0x[0-9a-f]\{12,16\}/ADDR/g' -e 's/\b[0-9a-f]\{16\}\b/ADDR/g'; }
# ksym HEXADDR: "symbol+0xoff" for a kernel text address (nearest text
# symbol at or below it in /proc/kallsyms), empty if none
ksym() {
	awk -v a="$1" '$2 ~ /^[tT]$/ && $1 <= a && $1 > best { best = $1; name = $3 }
		END { if (name != "") print best, name }' /proc/kallsyms |
		{ read -r b n && [ -n "$n" ] && echo "$n+0x$(printf %x $((0x$1 - 0x$b)))"; }
}
# unrel: perf writes kernel probe points as _text+DECIMAL, which depends on
# the kernel's layout; replace each by the symbol+offset at that address
# ("_text+<do_sys_openat2+0x0>").
unrel() {
	base=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
	while IFS= read -r line; do
		n=$(echo "$line" | sed -n 's/.*_text+\([0-9][0-9]*\).*/\1/p')
		if [ -n "$n" ]; then
			sym=$(ksym "$(printf '%016x' $((0x$base + n)))")
			line=$(echo "$line" | sed "s/_text+$n/_text+<${sym:-?}>/")
		fi
		echo "$line"
	done
}
# symaddr: replace each 16-digit hex word (a kernel text address printed by
# perf) by <symbol+0xoffset>
symaddr() {
	in=$(cat)
	for a in $(echo "$in" | grep -oE '(^|[^0-9a-zA-Z_])[0-9a-f]{16}([^0-9a-zA-Z_]|$)' | grep -oE '[0-9a-f]{16}' | sort -u); do
		sym=$(ksym $a)
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

