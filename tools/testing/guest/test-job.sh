# SPDX-License-Identifier: GPL-2.0
# The test job run in the guest by `make test` (and `make matrix`) on each
# variant.  A suite that needs what the kernel's config left out (loadable
# modules, debugfs, a second CPU) reports its checks as SKIP with the reason.
. /kpt/lib.sh

section system
echo "uname: $(uname -a)"
echo "cpus-online: $(cat /sys/devices/system/cpu/online)"
echo "config: $(sed -n 's/.*kpt.config=\([^ ]*\).*/\1/p' /proc/cmdline)"
ncpu=$(grep -c ^processor /proc/cpuinfo)
if [ "$(cat /sys/devices/system/cpu/kernel_max)" = 0 ]; then
	skip system smp-2-cpus-online "a uniprocessor kernel (!CONFIG_SMP)"
else
	[ "$ncpu" -ge 2 ]; result system smp-2-cpus-online $? "online=$(cat /sys/devices/system/cpu/online)"
fi
HAVE_MODULES=0; [ -e /proc/modules ] && HAVE_MODULES=1
HAVE_KPDEBUGFS=0; [ -d $D/kprobes ] && HAVE_KPDEBUGFS=1
NO_MODULES="no loadable modules (!CONFIG_MODULES)"
NO_KPDEBUGFS="no debugfs (!CONFIG_DEBUG_FS)"
# kpt.quick=1 (make test's runs of the debug pair, KP_GUEST_QUICK in
# scripts/config-suites.sh): the same job with the two slow parts cut to
# what exercises the core, on both variants alike; what is left out is
# reported as SKIP.  On a lockdep/KASAN kernel under TCG each ftracetest
# case costs 30-60 s (its set-up walks every trace event) and probing
# every function of kprobes.o 4 minutes.  `make matrix` runs it all.
QUICK=0; grep -qw kpt.quick=1 /proc/cmdline && QUICK=1
QUICK_WHY="left out of make test's quick job on this config (kpt.quick=1); make matrix runs it"
# What differs between the architectures: the samples' register
# dump, the argument registers of a fetcharg, blacklisted symbols of each
# source (NOKPROBE_SYMBOL, .noinstr.text, the arch's entry text), and
# whether entry probes go through ftrace (KPROBES_ON_FTRACE) and the jump
# optimizer exists (OPTPROBES, HAVE_OPT: every x86_64 kernel with kprobes,
# whether or not it has the SYSCTL that shows it): neither on arm64 nor on
# riscv64.
case $(uname -m) in
aarch64)
	SAMPLE_PRE='pc = 0x[0-9a-f]*, pstate = 0x[0-9a-f]*$' SAMPLE_POST='pstate = 0x[0-9a-f]*$'
	ARG1=%x0 ARG3=%x2 BL_NAMES="call_el1_break_hook arm64_enter_el1_dbg vectors get_kprobe"
	ENTRY_FLAG= HAVE_OPT=0 ;;
riscv64)
	SAMPLE_PRE='pc = 0x[0-9a-f]*, status = 0x[0-9a-f]*$' SAMPLE_POST='status = 0x[0-9a-f]*$'
	ARG1=%a0 ARG3=%a2 BL_NAMES="handle_break do_page_fault handle_exception get_kprobe"
	ENTRY_FLAG= HAVE_OPT=0
	# riscv runs a kernel ebreak's handlers in NMI context
	# (irqentry_nmi_enter()), and 6.12's lacks ARCH_HAVE_NMI_SAFE_CMPXCHG,
	# without which the ring buffer takes no event from NMI context: a
	# kprobe event records nothing there, on either core (7.3's has it).
	case $(uname -r) in
	6.12.*) NO_NMI_EVENTS="the ring buffer takes no event from NMI context (6.12's riscv: no ARCH_HAVE_NMI_SAFE_CMPXCHG)" ;;
	esac ;;
*)
	SAMPLE_PRE='ip = [0-9a-f]*, flags = 0x[0-9a-f]*$' SAMPLE_POST='flags = 0x[0-9a-f]*$'
	ARG1=%di ARG3=%dx BL_NAMES="do_int3 sync_regs entry_SYSCALL_64 get_kprobe"
	ENTRY_FLAG=' *\[FTRACE\]' HAVE_OPT=1 ;;
esac

# --- KUnit: kprobes_test ran at boot (CONFIG_KPROBES_SANITY_TEST=y), and
# on the Rust core the core's own suites (`kp_tests!`; on mainline only:
# 6.12's kernel crate has no #[kunit_tests]); their KTAP logs are in
# debugfs, or only in the kernel log without debugfs.
RUST_KUNIT="kprobes_rust_index kprobes_rust_registry"
kunit_log() { # SUITE
	if [ -r $D/kunit/$1/results ]; then
		cat $D/kunit/$1/results
	elif [ $HAVE_KPDEBUGFS = 0 ]; then
		dmesg | sed 's/^\[[ 0-9.]*\] //' |
			sed -n "/^    # Subtest: $1\$/,/^\(not \)\{0,1\}ok [0-9]* $1\( .*\)\{0,1\}\$/p"
	else
		echo "KPT kunit $1 FAIL no $D/kunit/$1/results"
	fi
}
# kprobes.expedited_gp: only the Rust core has it.
KEXP=/sys/module/kprobes/parameters/expedited_gp
section kunit
kunit_log kprobes_test
# Why this kernel has no Rust suites, if it has none.
if [ ! -e $KEXP ]; then
	no_rust_kunit="the Rust core's suite (the C core)"
elif ! grep -q ' kunit_run_tests$' /proc/kallsyms; then
	no_rust_kunit="no KUnit (CONFIG_KUNIT=y) in this kernel"
else
	case $(uname -r) in
	6.12.*) no_rust_kunit="6.12's kernel crate has no #[kunit_tests]" ;;
	*) no_rust_kunit= ;;
	esac
fi
for s in $RUST_KUNIT; do
	if [ -n "$no_rust_kunit" ]; then skip kunit $s "$no_rust_kunit"; else kunit_log $s; fi
done
section end

# --- samples/kprobes: insmod, trigger the probed function, look for the
# handlers' output, rmmod.
suite_samples() {
dmesg_mark
check samples kprobe_example.insmod modprobe kprobe_example
/bin/true; /bin/true                              # fork -> kernel_clone
sleep 0
dmesg >/tmp/kp.log
grep -q "handler_pre: <kernel_clone> p->addr = 0x[^,]*, $SAMPLE_PRE" /tmp/kp.log; result samples kprobe_example.pre_handler $?
grep -q "handler_post: <kernel_clone> p->addr = 0x[^,]*, $SAMPLE_POST" /tmp/kp.log; result samples kprobe_example.post_handler $?
grep kernel_clone $D/kprobes/list | head -n 3
check samples kprobe_example.rmmod rmmod kprobe_example
dmesg | grep -q 'kprobe at .* unregistered'; result samples kprobe_example.unregistered $?

dmesg_mark
check samples kretprobe_example.insmod modprobe kretprobe_example
/bin/true; /bin/true
dmesg >/tmp/krp.log
grep -q 'Planted return probe at kernel_clone: ' /tmp/krp.log; result samples kretprobe_example.planted $?
grep -q 'kernel_clone returned [0-9]* and took [0-9]* ns to execute' /tmp/krp.log
result samples kretprobe_example.handler $?
check samples kretprobe_example.rmmod rmmod kretprobe_example
dmesg | grep -q 'kretprobe at .* unregistered'; result samples kretprobe_example.unregistered $?
cat /tmp/kp.log /tmp/krp.log | head -n 8
}
section samples
if [ $HAVE_MODULES = 1 ]; then suite_samples; else
	for t in kprobe_example.insmod kprobe_example.pre_handler kprobe_example.post_handler kprobe_example.rmmod \
		kprobe_example.unregistered kretprobe_example.insmod kretprobe_example.planted kretprobe_example.handler \
		kretprobe_example.rmmod kretprobe_example.unregistered; do skip samples $t "$NO_MODULES"; done
fi

# --- an aggregate: three probes at kernel_clone's entry (kprobe module,
# kretprobe module, kprobe_events), all firing; disabling one leaves the
# others firing.
suite_aggregate() {
dmesg_mark
modprobe kprobe_example && modprobe kretprobe_example
kwrite $T/kprobe_events 'p:kpt/clone kernel_clone'
kwrite $T/events/kpt/clone/enable 1
echo > $T/trace; echo 1 > $T/tracing_on
/bin/true
echo 0 > $T/tracing_on
n=$(grep -c "kernel_clone+0x[0-9a-f]*$ENTRY_FLAG" $D/kprobes/list)
[ "$n" = 3 ]; result aggregate listed-3 $? "$(grep kernel_clone $D/kprobes/list | tr '\n' ' ')"
dmesg | grep -q 'handler_pre: <kernel_clone>'; result aggregate kprobe-fired $?
dmesg | grep -q 'kernel_clone returned'; result aggregate kretprobe-fired $?
if [ -n "${NO_NMI_EVENTS:-}" ]; then
	skip aggregate event-fired "$NO_NMI_EVENTS"
else
	grep -q ' clone: (kernel_clone' $T/trace; result aggregate event-fired $?
fi
kwrite $T/events/kpt/clone/enable 0
grep -q 'kernel_clone.*\[DISABLED\]' $D/kprobes/list; result aggregate child-disabled-listed $?
dmesg_mark; echo > $T/trace; echo 1 > $T/tracing_on
/bin/true
echo 0 > $T/tracing_on
dmesg | grep -q 'handler_pre: <kernel_clone>'; result aggregate others-still-fire $?
! grep -q ' clone: ' $T/trace; result aggregate disabled-child-silent $?
kwrite $T/kprobe_events ''
rmmod kretprobe_example kprobe_example
! grep -q kernel_clone $D/kprobes/list; result aggregate all-gone $?
}
section aggregate
if [ $HAVE_MODULES = 1 ] && [ $HAVE_KPDEBUGFS = 1 ]; then suite_aggregate; else
	why=$NO_MODULES; [ $HAVE_MODULES = 1 ] && why=$NO_KPDEBUGFS
	for t in listed-3 kprobe-fired kretprobe-fired event-fired child-disabled-listed others-still-fire \
		disabled-child-silent all-gone; do skip aggregate $t "$why"; done
fi

# --- kprobes/list text: a fixed probe set (ftrace entry kprobe, kretprobe,
# disabled probe, optimized mid-function probe); scripts/test.sh compares
# the listing between the variants with the addresses masked.
if [ $HAVE_KPDEBUGFS = 1 ]; then
kwrite $T/kprobe_events 'p:kpt/l1 do_sys_openat2
r:kpt/l2 do_sys_openat2
p:kpt/l3 vfs_write'
kwrite $T/events/kpt/l1/enable 1
kwrite $T/events/kpt/l2/enable 1
if [ $HAVE_OPT = 1 ]; then
	optimized_probe kpt/l4 kernel_clone; result listing optimized-probe-found $?
else
	skip listing optimized-probe-found "no jump optimizer (!CONFIG_OPTPROBES on $(uname -m))"
fi
section listing
sed 's/^[0-9a-f]\{16\}  /ADDR  /' $D/kprobes/list | sort
section end
echo 0 > $T/events/kpt/enable
kwrite $T/kprobe_events ''
else
	skip listing optimized-probe-found "$NO_KPDEBUGFS"
fi

# --- binary drop-in: the other variant's sample modules, built against the
# other kprobes core, load unchanged and fire (scripts/test.sh puts them in
# /extra/modules).
if [ $HAVE_MODULES = 0 ]; then
	section dropin
	for m in kprobe_example kretprobe_example; do
		for t in insmod fires rmmod; do skip dropin "$m.$t" "$NO_MODULES"; done
	done
elif [ -d /extra/modules ]; then
	section dropin
	for m in kprobe_example kretprobe_example; do
		dmesg_mark
		check dropin "$m.insmod" insmod /extra/modules/$m.ko
		/bin/true; /bin/true
		case $m in
		kprobe_example) pat='handler_pre: <kernel_clone> p->addr = ' ;;
		kretprobe_example) pat='kernel_clone returned [0-9]* and took [0-9]* ns to execute' ;;
		esac
		dmesg | grep -q "$pat"; result dropin "$m.fires" $?
		check dropin "$m.rmmod" rmmod $m
	done
fi

# --- kprobe_events from the shell: a kprobe and a kretprobe fire and show up
# in the trace; kprobes/list lists them while they exist.
section kprobe_events
echo 0 > $T/tracing_on; echo > $T/trace
check kprobe_events define kwrite $T/kprobe_events "p:kpt/open do_sys_openat2 dfd=$ARG1 flags=+0($ARG3):x64
r:kpt/open_ret do_sys_openat2 ret=\$retval"
check kprobe_events enable kwrite $T/events/kpt/enable 1
if [ $HAVE_KPDEBUGFS = 1 ]; then
	grep do_sys_openat2 $D/kprobes/list >/tmp/list; result kprobe_events listed $? "$(cat /tmp/list | tr '\n' ' ')"
else
	skip kprobe_events listed "$NO_KPDEBUGFS"
fi
echo 1 > $T/tracing_on
cat /proc/version >/dev/null
echo 0 > $T/tracing_on
if [ -n "${NO_NMI_EVENTS:-}" ]; then
	skip kprobe_events kprobe-fired "$NO_NMI_EVENTS"
else
	grep -q ' open: (do_sys_openat2+0x0/0x[0-9a-f]*) dfd=0x[0-9a-f]* flags=0x' $T/trace
	result kprobe_events kprobe-fired $?
fi
grep -q ' open_ret: (.*<- do_sys_openat2) ret=' $T/trace; result kprobe_events kretprobe-fired $?
grep ' open' $T/trace | head -n 4
echo 0 > $T/events/kpt/enable
check kprobe_events remove kwrite $T/kprobe_events ''
if [ $HAVE_KPDEBUGFS = 1 ]; then
	! grep -q do_sys_openat2 $D/kprobes/list; result kprobe_events unlisted $?
else
	skip kprobe_events unlisted "$NO_KPDEBUGFS"
fi

# --- kprobes.expedited_gp, the Rust core's switch of the grace period that
# unregistration waits for (rust-core/rcu_policy.rs, patch 0015): present,
# off as build.sh configures it (CONFIG_KPROBES_RUST_EXPEDITED_GP unset),
# and kprobe_events' unregistration works with it on.  SKIP on a kernel
# without it (the C core).
section rcu-policy
if [ -e $KEXP ]; then
	v=$(cat $KEXP); [ "$v" = N ]; result rcu-policy default-off $? "expedited_gp=$v"
	check rcu-policy set kwrite $KEXP 1
	check rcu-policy define kwrite $T/kprobe_events 'p:kpt/exp do_sys_openat2'
	check rcu-policy enable kwrite $T/events/kpt/exp/enable 1
	check rcu-policy disable kwrite $T/events/kpt/exp/enable 0
	check rcu-policy remove kwrite $T/kprobe_events ''
	check rcu-policy reset kwrite $KEXP 0
else
	for t in default-off set define enable disable remove reset; do
		skip rcu-policy $t "no kprobes.expedited_gp (the C core)"
	done
fi
section end

# --- the blacklist: populated from every source, and enforced.
section blacklist
if [ $HAVE_KPDEBUGFS = 1 ]; then
BL=$D/kprobes/blacklist
n=$(wc -l < $BL)
[ "$n" -gt 100 ]; result blacklist populated $? "$n entries"
# NOKPROBE_SYMBOL (_kprobe_blacklist), .noinstr.text, the arch's entry text
for f in $BL_NAMES; do
	grep -q "	$f\$" $BL; result blacklist "listed-$f" $?
done
# the symbols, for scripts/test.sh's cross-variant comparison
section blacklist-names
cut -f2 $BL | sort
section end
section blacklist
# the format: 0xSTART-0xEND<TAB>symbol, START <= END (aliases are empty)
awk -F'[-\t]' '{ if (length($1) != 18 || length($2) != 18 || $1 > $2) bad++ } END { exit bad > 0 }' $BL
result blacklist format $?
else
	for t in populated $(for f in $BL_NAMES; do echo listed-$f; done) format; do
		skip blacklist $t "$NO_KPDEBUGFS"
	done
fi
# Refused for being blacklisted, not for any failure: the function is a
# text symbol, the write fails, and the tracing error log says
# register_kprobe() refused it (FAIL_REG_PROBE), not the parser or the
# symbol look-up (every one of those is EINVAL to the writer); the same
# definition on vfs_read is accepted (below).  kprobe_events refuses a
# function without an ftrace site itself, before register_kprobe(), where
# kprobes are on ftrace (trace_kprobe's notrace check, which logs
# FAIL_REG_PROBE too): there the check tests nothing of the core and is
# skipped (the differential's bad.blacklist_* scenarios call
# register_kprobe() directly).
for f in $BL_NAMES; do
	if ! awk -v f="$f" '($2 == "t" || $2 == "T") && $3 == f { found = 1 } END { exit !found }' /proc/kallsyms; then
		result blacklist "refused-$f" 1 "no text symbol $f in /proc/kallsyms"
		continue
	fi
	kwrite $T/error_log ''
	nt="Could not probe notrace function $f\$"
	n0=$(dmesg | grep -c "$nt")
	if kwrite $T/kprobe_events "p:kpt/bl $f" 2>/dev/null; then
		result blacklist "refused-$f" 1 "accepted"
		kwrite $T/kprobe_events ''
	elif [ "$(dmesg | grep -c "$nt")" -gt "$n0" ]; then
		skip blacklist "refused-$f" "refused by kprobe_events' notrace check before register_kprobe() (no ftrace site)"
	elif grep -q 'error: Failed to register probe event' $T/error_log &&
		grep -qE "^  Command: p:kpt/bl $f *\$" $T/error_log; then
		result blacklist "refused-$f" 0
	else
		result blacklist "refused-$f" 1 "refused, but not by register_kprobe(): $(tr '\n' ' ' <$T/error_log)"
	fi
done
kwrite $T/kprobe_events 'p:kpt/ok vfs_read' && r=0 || r=1
result blacklist accepted-vfs_read $r
kwrite $T/kprobe_events ''

# --- the functions of upstream kernel/kprobes.o (the C build's, listed in
# /extra/kprobes-o-functions by scripts/config-suites.sh): can each be
# probed at its entry, and how (kprobes/list's flags)?  One line each, for
# the cross-variant comparison (tools/testing/kprobes_o.py): NAME absent (no
# text symbol of that name), NAME refused, or NAME ok +OFFSET FLAGS.  The
# probe is defined (disabled) and removed at once.
if [ $QUICK = 1 ]; then
	skip kprobes-o functions-probed "$QUICK_WHY"
elif [ -s /extra/kprobes-o-functions ] && [ $HAVE_KPDEBUGFS = 1 ]; then
	awk 'NR == FNR { want[$1] = 1; next } ($2 == "t" || $2 == "T") && NF == 3 && ($3 in want) { print $3 }' \
		/extra/kprobes-o-functions /proc/kallsyms | sort -u >/tmp/kprobes-o-present
	section kprobes-o
	while read -r f; do
		if ! grep -qx "$f" /tmp/kprobes-o-present; then
			echo "$f absent"
		elif kwrite $T/kprobe_events "p:kpt/ko $f" 2>/dev/null; then
			# the offset it landed at (past an endbr64 with IBT) and its flags
			l=$(grep -E "[[:space:]]$f\+0x[0-9a-f]+[[:space:]]" $D/kprobes/list)
			echo "$f ok $(echo "$l" | grep -oE '\+0x[0-9a-f]+' | head -n 1) $(echo "$l" | grep -oE '\[[A-Z]+\]' | sort | tr -d '\n')"
			kwrite $T/kprobe_events ''
		else
			echo "$f refused"
		fi
	done </extra/kprobes-o-functions
	section end
fi

# --- ftracetest (tools/testing/selftests/ftrace), KTAP output.
section ftracetest
FTRACETEST_CASES=${FTRACETEST_CASES:-test.d/kprobe test.d/dynevent}
if [ $QUICK = 1 ]; then
	# The cases that drive the core itself: registration and removal,
	# enable/disable of a busy event, ftrace-based probes beside the
	# function tracer, module probes, several probes on one address,
	# optimization, kretprobe instances.  The others test trace_kprobe's
	# argument parser and the other dynamic events, or, as
	# multiple_kprobes (4 minutes here), what the differential's scale
	# batches do.
	quick="add_and_remove busy_check kprobe_ftrace kprobe_module kprobe_multiprobe
		kprobe_opt_types kretprobe_maxactive"
	FTRACETEST_CASES=
	for f in $(cd /kselftest/ftrace && ls test.d/kprobe/*.tc test.d/dynevent/*.tc); do
		b=$(basename "$f" .tc)
		case " $(echo $quick) " in
		*" $b "*) FTRACETEST_CASES="$FTRACETEST_CASES $f" ;;
		*) skipped="${skipped:-} ${f#test.d/}" ;;
		esac
	done
fi
cd /kselftest/ftrace && ./ftracetest -K -l /tmp/ftracetest-logs $FTRACETEST_CASES 2>&1
cd /
section end
for f in ${skipped:-}; do skip ftracetest-case "$f" "$QUICK_WHY"; done

# --- jprobes (CONFIG_KPROBES_RUST_JPROBES): the Rust core's compatibility
# layer, tools/testing/guest/jprobes.sh.  Rust-only: every check is SKIP
# on a kernel without it.  After ftracetest, so that a crash here costs
# no other suite's results; before kmemleak, which then scans its objects.
. /kpt/jprobes.sh
section jprobes
suite_jprobes
section end

# --- kmemleak (debug kernels): a scan after everything above; the objects
# it reports, with their backtraces, for the host to check.
kmemleak_scan
