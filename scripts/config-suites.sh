#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest suites of one config (KP_CONFIG, default pipeline) on both
# variants, already built:
#   scripts/config-suites.sh [--differential]
# 1. each variant boots and runs tools/testing/guest/test-job.sh (KUnit
#    kprobes_test, samples, binary drop-in with the other variant's sample
#    modules, kprobe_events, the blacklist, ftracetest, the jprobes suite
#    where the variant has CONFIG_KPROBES_RUST_JPROBES (SKIP elsewhere;
#    tools/testing/jprobes/ built against that variant), kmemleak on debug
#    kernels, a clean kernel log); tools/testing/kpt_results.py turns each
#    run into checks.  ftracetest is compared with the committed C
#    expectations for the pipeline config and for a config that has its
#    own (tools/testing/expectations/CONFIG/, the arm64 row), and with the
#    C variant's run of the same config (made just before) for the others;
# 2. cross-variant: the kprobes/list text of the same probe set and the
#    symbols kprobes/blacklist names are identical;
# 3. with --differential, the differential scenario suite
#    (scripts/suites/differential.sh) where the config has modules and
#    debugfs (the scenario driver is a module controlled through debugfs).
# Output: `PASS|FAIL|SKIP name [detail]` lines (anything else is progress),
# and $RESULTS/config-summary.json (per variant: passed/failed/skipped, the
# checks whose result differs between c and rust but for the Rust-only
# jprobes suite, that suite's tally per variant (rust_only), guest seconds).
. "$(dirname "$0")/lib.sh"

differential=0
[ "${1:-}" = --differential ] && differential=1
# KP_GUEST_QUICK=1: the guest jobs' quick form (kpt.quick=1 on the kernel
# command line; tools/testing/guest/test-job.sh says what it leaves out,
# tools/testing/differential/job.sh how it shrinks the scale batches).
quick=; [ "${KP_GUEST_QUICK:-0}" = 1 ] && quick=1
# The kernel parameters of this script's guest runs (scripts/vm.sh).
append="${KP_APPEND:-}${quick:+ kpt.quick=1}"
pfx=$CHECK_PFX
mkdir -p "$RESULTS"
other() { if [ "$1" = c ]; then echo rust; else echo c; fi; }
declare -A guest_s

# The jprobes tests (tools/testing/jprobes/) for each variant with
# CONFIG_KPROBES_RUST_JPROBES, built against its own O= directory (they
# use API the other variant lacks) before the guests start; guest_run puts
# them in /extra/jprobes.  Without them the guest's jprobes suite
# (tools/testing/guest/jprobes.sh) skips on a kernel without jprobes and
# fails on one with jprobes.
jprobes_dir() { if [ "$KP_CONFIG" = pipeline ]; then echo "$WORK/jprobes-$1"; else echo "$WORK/jprobes-$KP_CONFIG-$1"; fi; }
for v in $VARIANTS; do
	jb=$(jprobes_dir "$v")
	rm -rf "$jb"
	config_has "$v" CONFIG_KPROBES_RUST_JPROBES && config_has "$v" CONFIG_MODULES || continue
	if (build_variant_modules "$v" "$ROOT/tools/testing/jprobes" "$jb" jprobes_test.ko jprobes_test_target.ko) >&2; then
		echo "PASS $pfx$v/jprobes/module-build"
	else
		rm -rf "$jb/extra"
		echo "FAIL $pfx$v/jprobes/module-build see $jb/build.log"
	fi
done

# guest_run VARIANT: one variant's guest run (both side by side:
# for_variants); its guest seconds in $RESULTS/VARIANT/test/guest-seconds.
guest_run() {
	local v=$1 o xd t0
	o=$(outdir "$v")
	xd=$WORK/extra-$KP_CONFIG-$v
	rm -rf "$xd"; mkdir -p "$xd/modules" "$RESULTS/$v/test"
	# The other variant's sample modules, for the binary drop-in check.
	cp "$(outdir "$(other "$v")")"/samples/kprobes/*.ko "$xd/modules/" 2>/dev/null || :
	# The jprobes tests, where built (above).
	if [ -d "$(jprobes_dir "$v")/extra" ]; then cp -a "$(jprobes_dir "$v")/extra" "$xd/jprobes"; fi
	# The functions of upstream kernel/kprobes.o (the c variant's object),
	# which the guest tries to probe (section kprobes-o).
	if [ -f "$(outdir c)/kernel/kprobes.o" ]; then
		llvm-nm --defined-only "$(outdir c)/kernel/kprobes.o" |
			awk '$2 ~ /^[tT]$/ && $3 !~ /[.$]/ { print $3 }' | LC_ALL=C sort -u >"$xd/kprobes-o-functions"
	fi
	t0=$SECONDS
	# A run that fails is read as far as it went: the same checks, with
	# guest/job-completed and whatever did not run failing.
	KP_EXTRA_DIR=$xd KP_APPEND=$append \
		"$ROOT/scripts/vm.sh" "$v" "$ROOT/tools/testing/guest/test-job.sh" test >&2 ||
		warn "the $v guest run failed; see $RESULTS/$v/test/console.log"
	echo $((SECONDS - t0)) >"$RESULTS/$v/test/guest-seconds"
}
for_variants guest_run || :

# The tree's ftracetest expectations, and a config's own (the arm64
# row's), recorded from its C variant by `KP_CONFIG=CONFIG make
# expectations`; without them a matrix row compares with its C variant's
# run of the same job.
cfg_expect=$EXPECT/$KP_CONFIG/ftracetest.txt
[ "$KP_CONFIG" != pipeline ] || cfg_expect=$EXPECT/ftracetest.txt
for v in $VARIANTS; do
	o=$(outdir "$v")
	guest_s[$v]=$(cat "$RESULTS/$v/test/guest-seconds" 2>/dev/null || echo 0)
	like=()
	if [ -f "$cfg_expect" ]; then
		like=(--expect "$cfg_expect")
	elif [ "$KP_CONFIG" != pipeline ]; then
		if [ "$v" = c ]; then like=(--reference); else like=(--ftrace-like "$RESULTS/c/test/results.log"); fi
	fi
	python3 "$ROOT/tools/testing/kpt_results.py" "$v" "$RESULTS/$v/test/results.log" \
		"$RESULTS/$v/test/console.log" "${like[@]}" --config "$o/.config" >"$RESULTS/$v/test/checks.txt" ||
		[ -s "$RESULTS/$v/test/checks.txt" ] || echo "FAIL guest/results kpt_results.py failed" >"$RESULTS/$v/test/checks.txt"
	grep -E '^(PASS|FAIL|SKIP) ' "$RESULTS/$v/test/checks.txt" | sed "s|^\([A-Z]*\) |\1 $pfx$v/|"
	tail -n 1 "$RESULTS/$v/test/checks.txt" >&2
done

# Cross-variant: the kprobes/list text of the same probe set, the symbols
# kprobes/blacklist names (the Rust core blacklists what upstream does).
section_of() { tr -d '\r' <"$RESULTS/$1/test/results.log" | sed -n "/^### $2\$/,/^### end\$/p"; }
if [ -s "$RESULTS/c/test/results.log" ] && [ -s "$RESULTS/rust/test/results.log" ]; then
	if [ -z "$(section_of c listing)" ] && [ -z "$(section_of rust listing)" ] &&
		grep -q '^KPT listing optimized-probe-found SKIP' "$RESULTS/c/test/results.log"; then
		echo "SKIP ${pfx}differential/kprobes-list-identical no debugfs (!CONFIG_DEBUG_FS)"
		echo "SKIP ${pfx}differential/kprobes-blacklist-symbols-identical no debugfs (!CONFIG_DEBUG_FS)"
	else
		if [ "$(section_of c listing | wc -l)" -gt 3 ] &&
			diff <(section_of c listing) <(section_of rust listing) >"$RESULTS/listing.diff"; then
			echo "PASS ${pfx}differential/kprobes-list-identical"
		else
			cat "$RESULTS/listing.diff" >&2
			echo "FAIL ${pfx}differential/kprobes-list-identical see $RESULTS/listing.diff"
		fi
		# The same symbols, but for the shim's trap-path wrappers of
		# preempt_disable()/enable() and rcu_read_lock()/unlock(): they
		# exist only where those are out-of-line calls for Rust
		# (PREEMPT_COUNT, PREEMPT_RCU, DEBUG_LOCK_ALLOC), and must be
		# blacklisted; upstream inlines them.  And the jprobes layer's
		# handler and jprobe_return() (CONFIG_KPROBES_RUST_JPROBES, which
		# upstream does not have), as upstream's kretprobe handler.
		diff <(section_of c blacklist-names) <(section_of rust blacklist-names) >"$RESULTS/blacklist-names.diff" || :
		jp='^$'; config_has rust CONFIG_KPROBES_RUST_JPROBES && jp='jprobe_pre_handler|jprobe_return'
		extra=$(sed -n 's/^> //p' "$RESULTS/blacklist-names.diff" |
			grep -vxE "kprobes_rust_(preempt_disable|preempt_enable|rcu_read_lock|rcu_read_unlock|raw_local_irq_save|raw_local_irq_restore|kretprobe_no_ret_addr)|_R[0-9A-Za-z_]*(kprobe_flush_task|kretprobe_find_ret_addr)4body|$jp" || :)
		if [ "$(section_of c blacklist-names | wc -l)" -gt 100 ] && ! grep -q '^< ' "$RESULTS/blacklist-names.diff" &&
			[ -z "$extra" ]; then
			echo "PASS ${pfx}differential/kprobes-blacklist-symbols-identical"
		else
			head -n 20 "$RESULTS/blacklist-names.diff" >&2
			echo "FAIL ${pfx}differential/kprobes-blacklist-symbols-identical see $RESULTS/blacklist-names.diff"
		fi
	fi
fi

# Every function of upstream kprobes.o that exists by name in both kernels
# is probed at its entry with the same outcome (tools/testing/kprobes_o.py).
if [ -n "$quick" ]; then
	echo "SKIP ${pfx}differential/kprobes-o-functions-probe-alike left out of the quick guest job (KP_GUEST_QUICK=1); make matrix runs it"
elif [ -n "$(section_of c kprobes-o 2>/dev/null)" ] || [ -n "$(section_of rust kprobes-o 2>/dev/null)" ]; then
	out=$(python3 "$ROOT/tools/testing/kprobes_o.py" "$RESULTS/c/test/results.log" "$RESULTS/rust/test/results.log" \
		"$RESULTS/kprobes-o.diff") || out="FAIL differential/kprobes-o-functions-probe-alike kprobes_o.py failed"
	echo "$out" | sed "s|^\([A-Z]*\) |\1 $pfx|"
elif config_has c CONFIG_DEBUG_FS && config_has c CONFIG_KPROBE_EVENTS; then
	echo "FAIL ${pfx}differential/kprobes-o-functions-probe-alike no kprobes-o section in either run"
fi

# The differential scenarios (kernel modules: only where the config has them).
if [ "$differential" = 1 ]; then
	if config_has c CONFIG_MODULES && config_has c CONFIG_DEBUG_FS; then
		t0=$SECONDS
		KP_APPEND=$append \
			"$ROOT/scripts/suites/differential.sh" >"$RESULTS/suite-differential.log" 2>&1 || true
		guest_s[differential]=$((SECONDS - t0))
		grep -v -E '^(PASS|FAIL) ' "$RESULTS/suite-differential.log" | tail -n 3 >&2
		n=$(grep -cE '^(PASS|FAIL) ' "$RESULTS/suite-differential.log" || true)
		[ "$n" -gt 0 ] || echo "FAIL ${pfx}differential/ran no results; log: $RESULTS/suite-differential.log"
		grep -E '^(PASS|FAIL) ' "$RESULTS/suite-differential.log" | sed "s|^\([A-Z]*\) |\1 ${pfx}differential/|"
	elif ! config_has c CONFIG_MODULES; then
		echo "SKIP ${pfx}differential/scenarios the scenarios are kernel modules (!CONFIG_MODULES)"
	else
		echo "SKIP ${pfx}differential/scenarios the scenario driver is driven through debugfs (!CONFIG_DEBUG_FS)"
	fi
fi

# The guest checks' results side by side (config-summary.json), and one
# check: what passes on the C kernel runs on the Rust one
# (tools/testing/cross_variant.py).
python3 "$ROOT/tools/testing/cross_variant.py" "$RESULTS" "${guest_s[c]:-0}" "${guest_s[rust]:-0}" \
	"${guest_s[differential]:-0}" "$pfx" "$ROOT/tools/testing/expectations/config-dependent.txt" ||
	echo "FAIL ${pfx}differential/rust-runs-what-c-passes cross_variant.py failed"
