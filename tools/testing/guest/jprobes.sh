# SPDX-License-Identifier: GPL-2.0
# The jprobes suite of the guest job (sourced by test-job.sh after lib.sh):
# the compatibility layer of the Rust core (CONFIG_KPROBES_RUST_JPROBES,
# <linux/jprobes.h>).  Rust-only: a kernel without it (the c variant)
# reports every check as SKIP, and scripts/config-suites.sh does not count
# them as C/Rust differences.
#
# /extra/jprobes/ holds tools/testing/jprobes/ built against this kernel
# (scripts/config-suites.sh): jprobes_test.ko runs the steps this script
# writes to /sys/kernel/debug/jprobes_test/ctl and prints its own checks
# (`KPT jprobes NAME PASS|FAIL`); the shell checks what only it sees in
# between (kprobes/list, dmesg, unloading jprobes_test_target.ko with a
# live jprobe on it).  Then samples/kprobes/jprobe_example.ko on fork.

# Every check, in order: one not reported by the run fails, and all are
# skipped on a kernel without jprobes.
JP_CHECKS="module-insmod
args-register listed-ftrace listed-int3
args-ftrace copies-ftrace ret-ignored-ftrace return-continues-ftrace before-function-ftrace
args-int3 copies-int3 ret-ignored-int3 return-continues-int3 before-function-int3
listed-optimized
args-opt copies-opt ret-ignored-opt return-continues-opt before-function-opt
args-unregistered-silent args-unlisted
agg-register agg-listed-jjkr agg-all-fire agg-disable-one agg-enable-one agg-unregistered-silent agg-unlisted
dis-register disabled-silent disabled-listed enabled-fires enabled-listed
reentry-register reentry-ftrace-nmissed reentry-int3-nmissed reentry-inner-fires-alone
array-register array-listed array-all-fire array-unregistered-silent array-unlisted array-empty-einval
array-bad-not-entry-at-0 array-bad-not-entry-at-1 array-bad-not-entry-at-3
array-bad-null-entry-at-0 array-bad-null-entry-at-1 array-bad-null-entry-at-3
array-bad-no-symbol-at-0 array-bad-no-symbol-at-1 array-bad-no-symbol-at-3 array-bad-unlisted
not-entry-addr not-entry-symbol null-entry no-such-symbol double-register-symbol double-still-fires-once
unregister-never-registered enable-disable-never-registered double-unregister jprobe-return-outside-handler
bad-unlisted bad-no-warn
target-insmod gone-register gone-fires gone-listed gone-rmmod gone-listed-gone gone-unregister gone-unlisted
gone-reregister gone-reregister-fires gone-no-warn
module-rmmod all-unlisted no-warn
sample-insmod sample-planted sample-fires sample-listed sample-rmmod sample-unregistered"

JP_DIR=$D/jprobes_test
JP_X=/extra/jprobes
JP_OPT=/proc/sys/debug/kprobes-optimization
JP_OUT=/tmp/jprobes.out

# jp_step STEP [SED]: run a module step; its lines (through SED) go to the
# job's output and to $JP_OUT.
jp_step() {
	if echo "$1" >$JP_DIR/ctl 2>/dev/null; then
		sed "${2:-}" $JP_DIR/out | tee -a $JP_OUT
	else
		echo "# jprobes_test: step $1 refused" | tee -a $JP_OUT
	fi
}

# jp_res TEST OK [DETAIL]: a shell-side check (lib.sh's result), kept in $JP_OUT.
jp_res() { result jprobes "$@" | tee -a $JP_OUT; }
jp_check() { check jprobes "$@" | tee -a $JP_OUT; }

# jp_list FUNC: the kprobes/list lines of the probes on FUNC.
jp_list() { awk -v f="$1+" 'index($3, f) == 1' $D/kprobes/list; }
# jp_types FUNC: their types (2nd field), sorted, e.g. "jjkr".
jp_types() { jp_list "$1" | awk '{ print $2 }' | sort | tr -d '\n'; }
jp_show() { jp_list "$1" | tr -s ' ' | tr '\n' ';'; }

# jp_wait_list FUNC REGEX: wait up to 10 s for a line of FUNC matching REGEX.
jp_wait_list() {
	i=0
	while [ $i -lt 100 ]; do
		jp_list "$1" | grep -qE "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# jp_mark: as dmesg_mark, but what it clears is kept for the suite's
# final no-warn check.
jp_mark() { dmesg -c >>/tmp/jp.dmesg; }

# jp_no_reports [all]: dmesg since the last jp_mark (or since the suite
# began) has no kernel report; the first ones in /tmp/jp.rep.
jp_no_reports() {
	{ [ "${1:-}" = all ] && cat /tmp/jp.dmesg; dmesg; } |
		grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace:' | head -n 3 | tr '\n' ' ' >/tmp/jp.rep
	[ ! -s /tmp/jp.rep ]
}

jp_tests() {
	jp_check module-insmod insmod $JP_X/jprobes_test.ko
	[ -d $JP_DIR ] || return 0
	has_ftrace=0; grep -q ' kprobe_ftrace_handler$' /proc/kallsyms && has_ftrace=1
	opt0=; [ -w $JP_OPT ] && opt0=$(cat $JP_OPT)

	# The handler's view of the arguments on each kind of entry probe:
	# ftrace (a traced function), breakpoint (a notrace one, with the
	# optimizer off), and jump-optimized (the same, optimizer on).
	[ -n "$opt0" ] && echo 0 >$JP_OPT
	jp_step args-reg
	if [ $has_ftrace = 1 ]; then
		[ "$(jp_types jpt_target_ftrace)" = j ] && jp_list jpt_target_ftrace | grep -q '\[FTRACE\]'
		jp_res listed-ftrace $? "$(jp_show jpt_target_ftrace)"
	else
		skip jprobes listed-ftrace "no kprobes on ftrace (!CONFIG_KPROBES_ON_FTRACE)" | tee -a $JP_OUT
	fi
	[ "$(jp_types jpt_target_int3)" = j ] && ! jp_list jpt_target_int3 | grep -qE '\[(FTRACE|OPTIMIZED)\]'
	jp_res listed-int3 $? "$(jp_show jpt_target_int3)"
	jp_step "args-call ftrace"
	jp_step "args-call int3"
	if [ -n "$opt0" ]; then
		echo 1 >$JP_OPT
		jp_wait_list jpt_target_int3 '\[OPTIMIZED\]'
		jp_res listed-optimized $? "$(jp_show jpt_target_int3)"
		jp_step "args-call opt"
	else
		for c in listed-optimized args-opt copies-opt ret-ignored-opt return-continues-opt before-function-opt; do
			skip jprobes $c "no jump optimizer (no $JP_OPT)" | tee -a $JP_OUT
		done
	fi
	jp_step args-unreg
	[ -z "$(jp_list jpt_target_ftrace)$(jp_list jpt_target_int3)" ]
	jp_res args-unlisted $? "$(jp_show jpt_target_ftrace)$(jp_show jpt_target_int3)"

	# Two jprobes, a kprobe and a kretprobe on one function.
	jp_step agg-reg
	[ "$(jp_types jpt_target_agg)" = jjkr ]; jp_res agg-listed-jjkr $? "$(jp_show jpt_target_agg)"
	jp_step agg-call
	jp_step agg-unreg
	[ -z "$(jp_list jpt_target_agg)" ]; jp_res agg-unlisted $? "$(jp_show jpt_target_agg)"

	# disable_jprobe()/enable_jprobe()
	jp_step dis-reg
	jp_step dis-disable
	[ "$(jp_types jpt_target_dis)" = j ] && jp_list jpt_target_dis | grep -q '\[DISABLED\]'
	jp_res disabled-listed $? "$(jp_show jpt_target_dis)"
	jp_step dis-enable
	[ "$(jp_types jpt_target_dis)" = j ] && ! jp_list jpt_target_dis | grep -q '\[DISABLED\]'
	jp_res enabled-listed $? "$(jp_show jpt_target_dis)"
	jp_step dis-unreg

	# A handler calling probed functions: their hits are missed (nmissed).
	jp_step reent

	# register_jprobes()/unregister_jprobes(); arrays with a bad member.
	jp_step array-reg
	[ "$(jp_types jpt_arr0)$(jp_types jpt_arr1)$(jp_types jpt_arr2)" = jjj ]
	jp_res array-listed $? "$(jp_show jpt_arr0)$(jp_show jpt_arr1)$(jp_show jpt_arr2)"
	jp_step array-unreg
	[ -z "$(jp_list jpt_arr0)$(jp_list jpt_arr1)$(jp_list jpt_arr2)" ]
	jp_res array-unlisted $? "$(jp_show jpt_arr0)$(jp_show jpt_arr1)$(jp_show jpt_arr2)"
	jp_step array-empty
	jp_step array-bad
	[ -z "$(jp_list jpt_arr0)$(jp_list jpt_arr1)$(jp_list jpt_arr2)$(jp_list jpt_target_bad)" ]
	jp_res array-bad-unlisted $? "$(jp_show jpt_arr0)$(jp_show jpt_arr1)$(jp_show jpt_arr2)$(jp_show jpt_target_bad)"

	# Bad input and harmless misuse: no report in dmesg.
	jp_mark
	jp_step bad
	[ -z "$(jp_list jpt_target_bad)$(jp_list jpt_target_dis)" ]
	jp_res bad-unlisted $? "$(jp_show jpt_target_bad)$(jp_show jpt_target_dis)"
	jp_no_reports; jp_res bad-no-warn $? "$(cat /tmp/jp.rep)"

	# A jprobe on a module that goes away: [GONE], then unregistered.
	jp_mark
	jp_check target-insmod insmod $JP_X/jprobes_test_target.ko
	if [ -d /sys/module/jprobes_test_target ]; then
		jp_step gone-reg
		a=$(sed -n 's/^addr \([0-9a-f]*\)$/\1/p' $JP_DIR/out)
		[ "$a" = 0000000000000000 ] && a=	# not registered
		echo 1 >/sys/module/jprobes_test_target/parameters/call
		jp_step gone-check
		[ "$(jp_types jpt_mod_target)" = j ] && jp_list jpt_mod_target | grep -q jprobes_test_target
		jp_res gone-listed $? "$(jp_show jpt_mod_target)"
		jp_check gone-rmmod rmmod jprobes_test_target
		grep "^$a " $D/kprobes/list >/tmp/jp.gone
		[ -n "$a" ] && awk '$2 == "j"' /tmp/jp.gone | grep -q '\[GONE\]'
		jp_res gone-listed-gone $? "addr ${a:-none}: $(tr '\n' ';' </tmp/jp.gone)"
		# unregister_jprobe() of the [GONE] one returned, with no report
		jp_step gone-unreg
		if grep -q '^# unregistered' $JP_DIR/out; then
			jp_no_reports; jp_res gone-unregister $? "$(cat /tmp/jp.rep)"
		else
			jp_res gone-unregister 1 "step gone-unreg did not complete"
		fi
		[ -n "$a" ] && ! grep -q "^$a " $D/kprobes/list
		jp_res gone-unlisted $? "$(grep "^${a:-none} " $D/kprobes/list | tr '\n' ';')"
		# The module again: a new jprobe on it fires.
		insmod $JP_X/jprobes_test_target.ko
		jp_step gone-reg 's/ gone-register / gone-reregister /'
		echo 1 >/sys/module/jprobes_test_target/parameters/call
		jp_step gone-check 's/ gone-fires / gone-reregister-fires /'
		jp_step gone-unreg
		rmmod jprobes_test_target
		jp_no_reports; jp_res gone-no-warn $? "$(cat /tmp/jp.rep)"
	fi

	[ -n "$opt0" ] && echo "$opt0" >$JP_OPT
	jp_check module-rmmod rmmod jprobes_test
	! awk '$2 == "j"' $D/kprobes/list | grep -q .
	jp_res all-unlisted $? "$(awk '$2 == "j"' $D/kprobes/list | tr -s ' ' | tr '\n' ';')"
}

# samples/kprobes/jprobe_example.ko: planted on kernel_clone, fires on fork.
jp_sample() {
	jp_mark
	jp_check sample-insmod modprobe jprobe_example
	/bin/true; /bin/true
	dmesg >/tmp/jp.sample
	grep -q 'Planted jprobe at kernel_clone+0x[0-9a-f]*/0x[0-9a-f]*, handler addr ' /tmp/jp.sample
	jp_res sample-planted $?
	# a fork from the shell: kernel_clone_args with exit_signal SIGCHLD
	grep -q 'jprobe: clone_flags = 0x[0-9a-f]*, stack_start = 0x[0-9a-f]*, exit_signal = 17$' /tmp/jp.sample
	jp_res sample-fires $? "$(grep -m 1 'jprobe: clone_flags' /tmp/jp.sample)"
	[ "$(jp_types kernel_clone)" = j ]; jp_res sample-listed $? "$(jp_show kernel_clone)"
	jp_check sample-rmmod rmmod jprobe_example
	dmesg | grep -q 'jprobe at kernel_clone+0x[0-9a-f]*/0x[0-9a-f]* unregistered'
	jp_res sample-unregistered $?
	grep -m 3 'jprobe' /tmp/jp.sample
}

suite_jprobes() {
	: >$JP_OUT
	: >/tmp/jp.dmesg
	why=
	if ! grep -q ' register_jprobe$' /proc/kallsyms; then
		why="no jprobes in this kernel (!CONFIG_KPROBES_RUST_JPROBES: no register_jprobe in /proc/kallsyms)"
	elif [ $HAVE_MODULES = 0 ]; then
		why=$NO_MODULES
	elif [ $HAVE_KPDEBUGFS = 0 ]; then
		why=$NO_KPDEBUGFS
	fi
	if [ -n "$why" ]; then
		for c in $JP_CHECKS; do skip jprobes "$c" "$why"; done
		return 0
	fi
	dmesg_mark
	if [ -e $JP_X/jprobes_test.ko ]; then
		jp_tests
	else
		echo "# no $JP_X/jprobes_test.ko: the host did not build tools/testing/jprobes (see config-suites)"
	fi
	jp_sample
	jp_no_reports all; jp_res no-warn $? "$(cat /tmp/jp.rep)"
	# The checks this run did not report (a step that did not run, or
	# a guest that died in one).
	for c in $JP_CHECKS; do
		grep -q "^KPT jprobes $c " $JP_OUT || result jprobes "$c" 1 "not reported"
	done
}
