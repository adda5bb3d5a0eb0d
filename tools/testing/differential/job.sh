# SPDX-License-Identifier: GPL-2.0
# Guest job of the differential scenario suite (scripts/differential.sh).
# Loads /extra/kprobes_diff.ko, runs its phases through
# /sys/kernel/debug/kprobes_diff/ctl and does the shell-side steps in
# between (sysctl debug.kprobes-optimization, kprobes/enabled, loading and
# unloading kprobes_diff_target.ko, kprobe_events, kprobes/list).  Every
# result is a line `KPD <scenario> <what>=<value>` on stdout; nothing in
# them depends on addresses or timing, so the c and rust runs must match
# line for line.  `kpd.unsafe=1` on the kernel command line also runs the
# cases where upstream WARNs (see divergences.txt).
. /kpt/lib.sh
K=$D/kprobes_diff
X=/extra
OPT=/proc/sys/debug/kprobes-optimization

# ph PHASE [ARG]: run a module phase and print its lines.
ph() {
	if echo "$*" >$K/ctl; then cat $K/out
	else echo "KPD harness.phase_$1 ran=no"; fi
}

# lst SCENARIO [INCLUDE-ERE [EXCLUDE-ERE]]: kprobes/list (or the entries
# matching INCLUDE and not EXCLUDE), addresses masked, sorted (the hash order
# depends on addresses), one KPD line per entry.
lst() {
	sed -E 's/[0-9a-f]{16}/ADDR/g; s/0x[0-9a-f]{8,}/0xADDR/g' $D/kprobes/list | tr -s ' \t' '  ' |
		sed 's/ *$//' | grep -E "${2:-.}" | grep -vE "${3:-^\$}" | LC_ALL=C sort >/tmp/kpd.list
	if [ -s /tmp/kpd.list ]; then
		sed "s/^/KPD $1 list=/" /tmp/kpd.list
	else
		echo "KPD $1 list=(empty)"
	fi
}

# biglst SCENARIO: the entries of kprobes/list on the generated kpd_bg_*/kpd_bn_*
# targets (phase big), counted per kind: "COUNTx k kpd_bg_N+0x4 [kprobes_diff] [FTRACE]".
biglst() {
	sed -E 's/[0-9a-f]{16}/ADDR/g' $D/kprobes/list | tr -s ' \t' '  ' | sed 's/ *$//' |
		sed -n 's/kpd_b\([gn]\)_[0-9]*+/kpd_b\1_N+/p' | LC_ALL=C sort | uniq -c |
		sed 's/^ *\([0-9]*\) /\1x /' >/tmp/kpd.list
	if [ -s /tmp/kpd.list ]; then
		sed "s/^/KPD $1 list=/" /tmp/kpd.list
	else
		echo "KPD $1 list=(empty)"
	fi
}

# has FEATURE: the driver can run the section that needs FEATURE of the
# kernel config (debugfs kprobes_diff/features: optprobes, kprobes_on_ftrace).
has() { grep -qx "$1" $K/features; }

# poll TRIES COMMAND...: run COMMAND up to TRIES times, 0.1 s apart, until
# it succeeds; the status is whether it did.
poll() {
	tries=$1
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# wait_list REGEX present|absent: poll kprobes/list (the optimizer is
# delayed work) for up to 10 s; the listing printed afterwards shows the
# state either way.
listed() { grep -qE "$1" $D/kprobes/list; }
unlisted() { ! listed "$1"; }
wait_list() {
	if [ "$2" = present ]; then poll 100 listed "$1"; else poll 100 unlisted "$1"; fi
}

section differential
dmesg_mark
unsafe=0
grep -q 'kpd.unsafe=1' /proc/cmdline && unsafe=1
# kpt.quick=1 (make test's debug pair, KP_GUEST_QUICK): the batches of
# phase big at a fifth of their sizes (on a lockdep/KASAN kernel under TCG
# registering the 2,000 int3 probes alone takes a minute); both variants
# alike, so the comparison stands.
big_div=1
grep -qw kpt.quick=1 /proc/cmdline && big_div=5
insmod $X/kprobes_diff.ko unsafe=$unsafe big_div=$big_div; echo "KPD harness.insmod driver_rc=$?"
[ -w $K/ctl ] || { echo "KPD harness.debugfs ctl=missing"; exit 1; }

# Shell-level reproducers for divergence candidates, named like their
# scenario with . -> _ (run when listed in divergences.txt).
# An optimized probe the target registers on itself in init and unregisters
# in exit; rmmod and insmod at once: upstream WARNs in reuse_unused_kprobe()
# (and a later rmmod hung once, so there is none here).
div_optimized_probe_module_reload() {
	s=div.optimized_probe_module_reload
	insmod $X/kprobes_diff_target.ko self_opt=1; echo "KPD $s insmod1_rc=$?"
	wait_list 'kpd_t_self\+0x9 .*OPTIMIZED' present
	lst $s
	rmmod kprobes_diff_target; echo "KPD $s rmmod1_rc=$?"
	insmod $X/kprobes_diff_target.ko self_opt=1; echo "KPD $s insmod2_rc=$?"
	wait_list 'kpd_t_self\+0x9 .*OPTIMIZED' present
	lst $s
}

# Of div_disarm_all_unopt_queued() below: x86's boot clocksource is
# replaced; `writer sysctl|enabled`: whether that writer's child returned
# (returned|waiting); both did.
past_tsc_early() {
	[ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" != tsc-early ]
}
writer() { if [ -e /tmp/kpd.dq.$1 ]; then echo returned; else echo waiting; fi; }
both_returned() { [ -e /tmp/kpd.dq.sysctl ] && [ -e /tmp/kpd.dq.enabled ]; }

# kprobes/enabled = 0 while an optimized probe's unoptimization is queued
# (intended divergence 6).  The sysctl's writer queues the unoptimization and
# waits for the optimizer; the optimizer (a kthread on 7.3, a kworker on
# 6.12) is SCHED_NORMAL, so SCHED_FIFO spinners on every CPU (no system
# calls: a spinner that blocks, even for a moment, lets it run), with RT
# throttling and the fair server off, keep it from running while the job
# (SCHED_FIFO above them) writes kprobes/enabled = 0 and calls the probed
# function; then the spinners stop, the optimizer runs, and it is called
# again.  Each writer runs in a child that leaves a file once it returned.
# Its entry comes first in divergences.txt: on C, the probes later entries
# leave behind would be disarmed by kprobes/enabled = 0 too.
div_disarm_all_unopt_queued() {
	s=div.disarm_all_unopt_queued
	has optprobes || return 0
	# A starved task that holds a lock kprobes/enabled needs would hold the
	# writer off too: first let x86's switch from the boot clocksource
	# (tsc-early; a kworker that flips static keys under text_mutex) finish.
	poll 300 past_tsc_early
	ph div_dq_reg
	rt=/proc/sys/kernel/sched_rt_runtime_us
	rt_saved=$(cat $rt)
	fs=$(ls $D/sched/fair_server/cpu*/runtime 2>/dev/null)
	fs_saved=$(cat $D/sched/fair_server/cpu0/runtime 2>/dev/null)
	rm -f /tmp/kpd.dq.*
	echo sched_fifo >$K/ctl
	echo -1 >$rt
	for f in $fs; do echo 0 >$f; done
	pids=
	c=0
	while [ $c -lt "$(nproc)" ]; do
		taskset -c $c sh -c "echo sched_fifo_low >$K/ctl; while :; do :; done" &
		pids="$pids $!"
		c=$((c + 1))
	done
	sleep 0.5
	sh -c "echo 0 >$OPT; touch /tmp/kpd.dq.sysctl" &
	sleep 1
	a=$(writer sysctl)
	sh -c "echo 0 >$D/kprobes/enabled; touch /tmp/kpd.dq.enabled" &
	sleep 1
	b=$(writer enabled)
	echo div_dq_call >$K/ctl && cat $K/out >/tmp/kpd.dq.during
	kill -9 $pids
	wait $pids 2>/dev/null
	for f in $fs; do echo "$fs_saved" >$f; done
	echo "$rt_saved" >$rt
	echo sched_normal >$K/ctl
	poll 100 both_returned
	echo "KPD $s optimizer_held sysctl_writer=$a enabled_writer=$b"
	sed 's/ \(text0\|order\)=/ during.\1=/' /tmp/kpd.dq.during
	echo "KPD $s optimizer_run sysctl_writer=$(writer sysctl) enabled_writer=$(writer enabled)"
	ph div_dq_call | sed 's/ \(text0\|order\)=/ after.\1=/'
	echo 1 >$D/kprobes/enabled
	echo 1 >$OPT
	ph div_dq_unreg
	lst $s kpd_fdq
}

# A kretprobe whose registration failed, unregistered (twice): upstream
# dereferences its NULL rethook with kprobe_mutex held, and the shell that
# wrote the phase is killed.  The phase runs in a child shell, and its output
# is read only if it returned (the module's lock is held otherwise); it is
# the last div.* entry, since nothing of kprobes works after it on C.
div_unregister_failed_kretprobe() {
	s=div.unregister_failed_kretprobe
	ph div_kret_fail_reg
	sh -c "echo div_kret_fail_unreg >$K/ctl" 2>/dev/null
	st=$?
	# Killed: by SIGKILL after a page fault oops, SIGSEGV after a general
	# protection fault (KASAN's shadow check) or on arm64.
	if [ $st = 0 ]; then
		echo "KPD $s unregister_shell=returned"
		cat $K/out
	elif [ $st -gt 128 ]; then
		echo "KPD $s unregister_shell=killed"
	else
		echo "KPD $s unregister_shell=exit$st"
	fi
	lst $s 'kpd_fa\+'
}

# kpd.divergence=1: only the intended divergences named div.* in
# divergences.txt, each a module phase named like its scenario; the C core
# is left in a bad state by them, so nothing else runs and the driver stays
# loaded.
if grep -q 'kpd.divergence=1' /proc/cmdline; then
	for s in $(sed -n 's/^\(div\.[^ |]*\) *|.*/\1/p' $X/divergences.txt); do
		f=$(echo "$s" | tr . _)
		if type "$f" >/dev/null 2>&1; then "$f"	# a shell-level reproducer below
		else ph "$s"; lst "$s"; fi
	done
	echo "KPD-END"
	exit 0
fi
echo "KPD harness.kprobes_enabled initial=$(cat $D/kprobes/enabled)"
echo "KPD harness.kprobes_optimization initial=$(cat $OPT)"
lst harness.list_initial

# Whether the kprobes API functions are ftrace sites (traceable by the
# function tracer, and where a kprobe on them is ftrace-based).
for f in register_kprobe unregister_kprobe register_kprobes unregister_kprobes \
	register_kretprobe unregister_kretprobe register_kretprobes unregister_kretprobes \
	enable_kprobe disable_kprobe get_kprobe kprobe_on_func_entry; do
	echo "KPD ftrace.kprobes_api_traceable $f=$(grep -cx "$f" $T/available_filter_functions)"
done

# --- bad input, aggregation, reentrancy (all inside the module)
ph bad
lst bad.list_after
[ $unsafe = 1 ] && { ph unsafe; lst unsafe.list_after; }
ph aggr
lst aggr.list_after
ph reent
lst reent.list_after

# --- optimization
ph opt_reg
wait_list 'kpd_fopt\+0x9 .*OPTIMIZED' present
lst opt.mid_optimized
ph opt_call opt.optimized_call
ph opt_add_post
wait_list 'kpd_fopt\+0x9 .*OPTIMIZED' absent
lst opt.post_handler_unoptimizes
ph opt_call opt.unoptimized_call
ph opt_del_post
wait_list 'kpd_fopt\+0x9 .*OPTIMIZED' present
lst opt.reoptimized_after_post_removed
echo 0 >$OPT
echo "KPD opt.sysctl_0 value=$(cat $OPT)"
wait_list 'OPTIMIZED' absent
lst opt.sysctl_0
ph opt_call opt.sysctl_0_call
ph opt_disabled
ph opt_reg_while_off
sleep 0.3
lst opt.registered_disabled_while_sysctl_0
echo 1 >$OPT
echo "KPD opt.sysctl_1 value=$(cat $OPT)"
wait_list 'kpd_fopt\+0x9 .*OPTIMIZED' present
wait_list 'kpd_fopt3\+0x9 .*OPTIMIZED' present
sleep 0.5
lst opt.sysctl_1
ph opt_call opt.sysctl_1_call
ph opt_enable3
wait_list 'kpd_fopt2\+0x9 .*OPTIMIZED' present
lst opt.enable_disabled
ph opt_reent
ph opt_disable_one
wait_list 'kpd_fopt2\+0x9 .*OPTIMIZED' absent
lst opt.disable_optimized
wait_list 'kpd_fopt\+0x9 .*OPTIMIZED' present
ph opt_reuse
wait_list 'kpd_fopt\+0x9 .*OPTIMIZED' present
lst opt.reuse_unused_aggregate
ph opt_unreg
lst opt.unregister

# --- kprobes/enabled 0/1 with some probes disabled
# (enabled.enable_while_off: its own probes on kpd_fu*, listed apart)
EWO=enabled.enable_while_off
ph en_setup
lst enabled.setup . kpd_fu
wait_list 'kpd_fu2\+0x9' present
lst $EWO kpd_fu
echo 0 >$D/kprobes/enabled
echo "KPD enabled.off value=$(cat $D/kprobes/enabled)"
ph en_off
lst enabled.off . kpd_fu
lst $EWO kpd_fu
echo 0 >$D/kprobes/enabled
echo "KPD enabled.write_0_twice value=$(cat $D/kprobes/enabled)"
echo 1 >$D/kprobes/enabled
echo "KPD enabled.on value=$(cat $D/kprobes/enabled)"
ph en_on
lst enabled.on . kpd_fu
wait_list 'kpd_fu2\+0x9 .*OPTIMIZED' present   # only if U2 really got enabled
lst $EWO kpd_fu
echo 1 >$D/kprobes/enabled
echo "KPD enabled.write_1_twice value=$(cat $D/kprobes/enabled)"
ph en_cleanup
lst enabled.cleanup

# --- flushing the optimizer (x86 optprobes): writing 0 to kprobes/enabled
# or to the sysctl waits for the optimizer, writing 1 queues optimizations
# and flags them at once, so each listing below is taken right after its
# write, without waiting for the optimizer (see kprobes_diff.c, flush_*).
if has optprobes; then
	ph flush_reg
	lst flush.registered kpd_ffl
	ph flush_disable
	echo 0 >$D/kprobes/enabled
	lst flush.enabled_0 kpd_ffl
	ph flush_call flush.enabled_0
	echo 1 >$D/kprobes/enabled
	lst flush.enabled_1 kpd_ffl
	ph flush_call flush.enabled_1
	echo 0 >$OPT
	lst flush.sysctl_0 kpd_ffl
	ph flush_call flush.sysctl_0
	ph flush_enable_b
	lst flush.enable_while_sysctl_0 kpd_ffl
	echo 1 >$OPT
	lst flush.sysctl_1 kpd_ffl
	ph flush_call flush.sysctl_1
	ph flush_rereg
	lst flush.reregister kpd_ffl
	ph flush_disable_c
	echo 0 >$OPT
	lst flush.disable_then_sysctl_0 kpd_ffl
	echo 1 >$OPT
	lst flush.disable_then_sysctl_1 kpd_ffl
	ph flush_enable_c
	lst flush.enable_after_flush kpd_ffl
	ph flush_unreg
	lst flush.unregister kpd_ffl

	# A neighbour re-optimized once the probe blocking it is freed (7.3
	# only); each phase returns after the optimizer's pass it waited for.
	ph sib_reg
	lst sibling.blocked kpd_fsib
	ph sib_disable_q
	lst sibling.neighbour_disabled kpd_fsib
	ph sib_enable_q
	lst sibling.neighbour_enabled kpd_fsib
	ph sib_unreg_q
	lst sibling.neighbour_freed kpd_fsib
	ph sib_unreg
	lst sibling.unregistered kpd_fsib

	# enable_kprobe() of an optimized probe whose unoptimization is queued
	# (intended divergence 3: upstream writes an int3 over the live jump).
	ph opt_enable_queued
	lst opt.enable_while_unopt_queued kpd_feq
	ph opt_enable_queued_unreg
fi

# --- a kprobe on ftrace that cannot be armed (another IPMODIFY ftrace_ops)
if has kprobes_on_ftrace; then
	ph arm_fail_single
	lst arm_fail.single 'kpd_fi[0-9]'
	ph arm_fail_batch
	lst arm_fail.batch 'kpd_fi[0-9]'
	ph arm_fail_cleanup
	lst arm_fail.cleanup 'kpd_fi[0-9]'
fi

# --- kretprobes
ph kret
lst kret.list_after
# The maxactive limit of kprobe_events (KRETPROBE_MAXACTIVE_MAX, trace_kprobe)
for n in 4096 4097; do
	echo "r$n:kpd/r$n kpd_fadd" >>$T/kprobe_events 2>/dev/null
	echo "KPD kret.events_maxactive_$n accepted=$([ -d $T/events/kpd/r$n ] && echo 1 || echo 0)"
	lst kret.events_maxactive_$n
	echo "-:kpd/r$n" >>$T/kprobe_events 2>/dev/null
done

# --- modules: probes on init text, on an unloaded module, a probe owner unloaded
ph mod_arm_init
insmod $X/kprobes_diff_target.ko; echo "KPD mod.harness insmod_target_rc=$?"
ph mod_loaded
lst mod.loaded
rmmod kprobes_diff_target; echo "KPD mod.harness rmmod_target_rc=$?"
lst mod.gone_list
ph mod_gone
lst mod.gone_partly_unregistered
insmod $X/kprobes_diff_target.ko; echo "KPD mod.harness reinsmod_target_rc=$?"
ph mod_reload
wait_list 'kpd_t_gone\+0x9 .*OPTIMIZED' present
lst mod.reloaded_list
ph mod_reload_unreg
lst mod.reloaded_after
rmmod kprobes_diff_target; echo "KPD mod.harness rermmod_target_rc=$?"

# --- scale and concurrency
ph scale
lst scale.list_after
# Thousands of probes in one register_k*probes() (phase big, see
# kprobes_diff.c): a batch with one invalid member, the valid batch, every
# target called once, unregistered, called again.  The optimizer is off: it
# would optimize the int3 probes in the background, which only costs time.
echo 0 >$OPT
for f in kprobe_entry kprobe_int3 kretprobe_entry kretprobe_int3; do
	ph big $f bad
	biglst scale.big_${f}_bad_member
	ph big $f reg
	biglst scale.big_${f}_batch
	ph big $f run
	biglst scale.big_${f}_batch
done
echo 1 >$OPT
echo "KPD scale.big_harness optimization_restored=$(cat $OPT)"

ph conc
lst conc.list_after
ph conc_kret
lst conc.kretprobe_list_after

# --- upstream WARNs here (unsafe=1 only): an optimized probe a module
# unregistered in its exit, the module unloaded and loaded again at once.
if [ $unsafe = 1 ]; then
	insmod $X/kprobes_diff_target.ko self_opt=1; echo "KPD unsafe.optimized_probe_module_reload insmod1_rc=$?"
	wait_list 'kpd_t_self\+0x9 .*OPTIMIZED' present
	lst unsafe.optimized_probe_module_reload
	rmmod kprobes_diff_target; echo "KPD unsafe.optimized_probe_module_reload rmmod1_rc=$?"
	insmod $X/kprobes_diff_target.ko self_opt=1; echo "KPD unsafe.optimized_probe_module_reload insmod2_rc=$?"
	lst unsafe.optimized_probe_module_reload_after
	timeout 20 rmmod kprobes_diff_target; echo "KPD unsafe.optimized_probe_module_reload rmmod2_rc=$?"
fi

rmmod kprobes_diff; echo "KPD harness.rmmod driver_rc=$?"
lst harness.list_final
echo "KPD harness.kprobes_enabled final=$(cat $D/kprobes/enabled)"
echo "KPD-END"
section end
