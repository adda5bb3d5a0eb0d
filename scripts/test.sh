#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make test`: everything, ending with one line `N passed, N failed`.
#   1. host: cargo test of rust-core against the simulated kernel (each
#      test a check), and the same tests under Miri (Stacked Borrows): a
#      stage of its own, one check (host/miri-no-undefined-behaviour)
#   2. c-shim/kprobes_rust.h is what cbindgen generates from
#      rust-core; source rules (lint.py); the comparison scripts'
#      self-test (selftest_checks.py); the safety figures and their
#      ratchet (safety.py); the patch series applies to pristine 6.12
#   3. both variants build; the Kconfig switch links the right objects;
#      every global symbol of upstream kprobes.o is defined once by
#      kernel/kprobes_rust/, the moved groups by Rust (nm)
#   4. each variant boots and runs tools/testing/guest/test-job.sh: KUnit
#      kprobes_test, samples/kprobes, kprobe_events, ftracetest (against
#      tools/testing/expectations/), a clean kernel log
#      (scripts/config-suites.sh)
#   5. the suites of scripts/suites/: differential, clients, hostdiff
#   6. further config pairs (KP_TEST_CONFIGS, default `debug arm64`):
#      build, guest suites, differential scenarios and the stress suite
#      (scripts/stress.sh, 4 vCPUs, KP_STRESS_S=20 seconds) on both
#      variants; on `debug` (lockdep/KASAN/UBSAN/kmemleak kernels) also
#      the allocation-failure sweep (scripts/faults.sh); `arm64` is the
#      cross-built arm64 pair under qemu-system-aarch64
# Per-variant results: build/results/VARIANT/test/{console,results}.log and
# checks.json; the summary is build/results/summary.txt.  Every check is
# counted once.  A pair that the time budget or the free disk leaves out
# counts each check of its committed list
# (tools/testing/expectations/pair-checks/KEY.txt) as skipped; the
# summary's first line names the pairs that ran.
. "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh"
# Set-up's time (installing the toolchains on a fresh machine) is not
# part of the scale of section 6's estimates.
t_setup=$SECONDS
mkdir -p "$RESULTS"
SUM=$RESULTS/summary.txt
: >"$SUM"
# The free disk space of $WORK, every 10 s (SECONDS MiB), for the
# summary's disk line: how much a run takes, and how near a machine came
# to a full disk (scripts/lib.sh, KP_KEEP_WORK).
DISK_LOG=$RESULTS/disk-free.log
# It ends with this script ($$ in the loop is this script's PID).
while kill -0 $$ 2>/dev/null; do echo "$SECONDS $(free_mb "$WORK")" || :; sleep 10; done \
	>"$DISK_LOG" 2>/dev/null </dev/null &
disk_pid=$!
trap 'kill "$disk_pid" 2>/dev/null || :' EXIT
step "test: $(free_mb "$WORK") MiB of disk free in $WORK (KP_KEEP_WORK=$KP_KEEP_WORK)"
P=0 F=0 S=0 RP=0 RF=0 RS=0
# Reference checks exercise the C kernel alone (a `c/` path component, the
# differential's guest-c*/console-c, the stress and fault sweeps' c/): they
# show that the harness and upstream behave, so that the Rust results have
# something to be compared with, but test nothing of this project.  They
# are counted apart (`REF PASS|FAIL|SKIP` in the summary); a failing one
# also counts as failed, as the comparison it anchors is void.  c/dropin/*
# is not one: it loads the modules built for the Rust kernel on the C one.
is_reference() {
	[[ $1 =~ (^|/)(c|guest-c|guest-c-divergence|console-c)/ ]] && ! [[ $1 =~ (^|/)c/dropin/ ]]
}
# PAIR_LOG: the file the check names go to, compared at the end with a
# committed list (check_list below): the primary pipeline's (sections 1
# to 5, and Miri's), and while a config pair runs, that pair's (the list
# a budget-skipped run of that pair counts as skipped).
PRIMARY_LOG=$RESULTS/pipeline-checks.txt
: >"$PRIMARY_LOG"
PAIR_LOG=$PRIMARY_LOG
# pair_log NAME: into the pair's list, unless its name varies between
# runs (a fault sweep's allocation sites met on one kernel only).
pair_log() {
	[ -n "$PAIR_LOG" ] || return 0
	case $1 in */not-compared/*) ;; *) echo "$1" >>"$PAIR_LOG" ;; esac
}
record() { # ok(0/1) NAME [DETAIL]
	pair_log "$2"
	if is_reference "$2"; then
		if [ "$1" = 0 ]; then RP=$((RP + 1)); echo "REF PASS $2" >>"$SUM"; return; fi
		RF=$((RF + 1))
	fi
	if [ "$1" = 0 ]; then P=$((P + 1)); echo "PASS $2" >>"$SUM"
	else F=$((F + 1)); echo "FAIL $2 ${3:-}" >>"$SUM"; echo "FAIL $2 ${3:-}" >&2; fi
}
skipped() { # NAME [DETAIL]
	pair_log "$1"
	if is_reference "$1"; then RS=$((RS + 1)); echo "REF SKIP $1 ${2:-}" >>"$SUM"
	else S=$((S + 1)); echo "SKIP $1 ${2:-}" >>"$SUM"; fi
}
# record_lines LOG: count its `PASS|FAIL|SKIP name [detail]` lines.
record_lines() {
	local res name rest
	while read -r res name rest; do
		case $res in
		PASS) record 0 "$name" ;;
		FAIL) record 1 "$name" "$rest" ;;
		SKIP) skipped "$name" "$rest" ;;
		esac
	done <"$1"
}

# 1. host tests ------------------------------------------------------------
step "test: cargo test (host, simulated kernel)"
rc=0
(cd "$ROOT" && cargo test --workspace 2>&1) | tee "$RESULTS/cargo-test.log" | grep -E '^test |test result:' || true
rc=${PIPESTATUS[0]}
# libtest_counts LOG: the passed, failed and ignored tests its libtest
# `test result:` lines add up to.
libtest_counts() {
	awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1); if ($(i) ~ /^ignored;?$/) g += $(i-1) } } END { print p+0, f+0, g+0 }' "$1"
}
read -r cp cf _ < <(libtest_counts "$RESULTS/cargo-test.log")
P=$((P + cp)) F=$((F + cf))
# Each test's name into the check list (they are counted by libtest's
# totals above, not one by one).
sed -n 's/^test \([^ ]*\)\( - should panic\)\? \.\.\. \(ok\|FAILED\)$/cargo-test\/\1/p' \
	"$RESULTS/cargo-test.log" >>"$PRIMARY_LOG"
echo "cargo test: $cp passed, $cf failed" >>"$SUM"
# An #[ignore]d test (a known bug's reproducer) is reported as skipped.
while read -r t; do skipped "cargo-test/$t" "ignored: see the test's documentation"; done \
	< <(sed -n 's/^test \([^ ]*\) \.\.\. ignored.*/\1/p' "$RESULTS/cargo-test.log")
grep -q '^test result:' "$RESULTS/cargo-test.log" || record 1 cargo-test "cargo test did not run (log: $RESULTS/cargo-test.log)"
[ "$rc" = 0 ] || [ "$cf" != 0 ] || record 1 cargo-test "cargo test exited $rc (log: $RESULTS/cargo-test.log)"

# The host tests of the other tree's build of the core (its tree's
# behaviour, rust-core/tree/): one check, in a target directory of its own.
other_tree=7.3; [ "$KP_TREE" != 7.3 ] || other_tree=6.12
step "test: cargo test of the core as built for $other_tree"
if (cd "$ROOT" && KP_TREE=$other_tree CARGO_TARGET_DIR=$ROOT/target/tree-$other_tree \
	cargo test --workspace) >"$RESULTS/cargo-test-$other_tree.log" 2>&1; then
	record 0 "host/cargo-test-tree-$other_tree"
else
	grep -E '^test .* FAILED|^error' "$RESULTS/cargo-test-$other_tree.log" | head -n 10 >&2
	record 1 "host/cargo-test-tree-$other_tree" "log: $RESULTS/cargo-test-$other_tree.log"
fi

# Miri interprets on one thread, so the tests are dealt round-robin to one
# `cargo miri test --exact` process per CPU (KP_MIRI_SHARDS), each with its
# own target directory; together they must run every test of the list.
# They run in the background at the lowest CPU priority (nice 19) from
# here to the summary: they take the cycles the rest leaves idle (the
# kernel builds' serial link steps and rustc runs, guests waiting on RCU
# or timers) and are waited for at the end, so Miri costs CI little wall
# time.  KP_MIRI_BG=0 runs them in the foreground here.
shards=${KP_MIRI_SHARDS:-$JOBS}
miri_nice=19; [ "${KP_MIRI_BG:-1}" = 1 ] || miri_nice=0
step "test: cargo miri test (host tests under Miri, $MIRI_TOOLCHAIN, $shards processes, nice $miri_nice)"
mapfile -t mtests < <(cd "$ROOT" && cargo test -q -p kprobes_core -- --list 2>/dev/null | sed -n 's/: test$//p')
rm -f "$RESULTS"/miri-*.log
miri_pids=() miri_t0=$SECONDS miri_epoch=$(date +%s)
# kill_tree PID: PID and every process under it.
kill_tree() {
	local c
	for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c"; done
	kill "$1" 2>/dev/null || :
}
prebuild_pid=
trap 'kill "${miri_pids[@]}" "$disk_pid" 2>/dev/null || :; [ -z "$prebuild_pid" ] || kill_tree "$prebuild_pid"' EXIT
for ((k = 0; k < shards; k++)); do
	mine=()
	for ((j = k; j < ${#mtests[@]}; j += shards)); do mine+=("${mtests[j]}"); done
	[ ${#mine[@]} -gt 0 ] || continue
	(cd "$ROOT" && CARGO_TARGET_DIR=$ROOT/target/miri-shard$k MIRIFLAGS=-Zmiri-permissive-provenance \
		exec nice -n "$miri_nice" cargo "+$MIRI_TOOLCHAIN" miri test -p kprobes_core -- --exact "${mine[@]}" \
		>"$RESULTS/miri-$k.log" 2>&1) &
	miri_pids+=($!)
done
# miri_collect: wait for the Miri processes and record their results.
miri_collect() {
	local rc=0 p mp mf mi
	step "test: waiting for cargo miri test (started $((SECONDS - miri_t0)) s ago)"
	for p in "${miri_pids[@]}"; do wait "$p" || rc=$?; done
	miri_pids=()
	cat "$RESULTS"/miri-*.log >"$RESULTS/miri.log" 2>/dev/null || true
	grep -E 'test result:|Undefined Behavior' "$RESULTS/miri.log" || true
	read -r mp mf mi < <(libtest_counts "$RESULTS/miri.log")
	# Miri runs the host tests cargo test ran above: its own stage, one
	# check (no undefined behaviour in any of them), not a second count of
	# the tests.
	local last why=
	last=$(stat -c %Y "$RESULTS"/miri-*.log 2>/dev/null | sort -n | tail -n 1) || :
	MIRI_LINE="miri: $mp passed, $mf failed of ${#mtests[@]} host tests ($shards processes, nice $miri_nice;"
	MIRI_LINE="$MIRI_LINE finished $((${last:-$miri_epoch} - miri_epoch)) s after their start, collected after $((SECONDS - miri_t0)) s)"
	echo "$MIRI_LINE" >>"$SUM"
	if [ ${#mtests[@]} = 0 ]; then
		why="cargo test -p kprobes_core -- --list gave no tests"
	elif [ "$mf" != 0 ]; then
		why="$mf tests failed under Miri: $(grep -m1 -E 'Undefined Behavior|^test .* FAILED' "$RESULTS/miri.log" || :)"
	elif [ "$rc" != 0 ]; then
		why="cargo miri test exited $rc: $(grep -m1 -E '^error' "$RESULTS/miri.log" || :)"
	elif [ $((mp + mf + mi)) != ${#mtests[@]} ]; then
		why="$((mp + mf + mi)) results for ${#mtests[@]} tests listed"
	fi
	if [ -z "$why" ]; then record 0 host/miri-no-undefined-behaviour
	else record 1 host/miri-no-undefined-behaviour "$why (log: $RESULTS/miri.log)"; fi
}
MIRI_LINE="miri: not run"
[ "$miri_nice" = 19 ] || miri_collect

# 2. generated header and patch series ---------------------------------------
step "test: c-shim/kprobes_rust.h matches rust-core (cbindgen)"
if "$ROOT/scripts/gen-header.sh" --check >"$RESULTS/header.log" 2>&1; then record 0 header/up-to-date
else cat "$RESULTS/header.log" >&2; record 1 header/up-to-date "run scripts/gen-header.sh"; fi

step "test: source rules (tools/testing/lint.py)"
python3 "$ROOT/tools/testing/lint.py" >"$RESULTS/lint.txt" 2>&1 || echo "FAIL lint/script-error" >>"$RESULTS/lint.txt"
record_lines "$RESULTS/lint.txt"

# record_script LOG NAME CMD...: run a script that prints check lines into
# LOG and count them; NAME fails if it exits non-zero or prints none.
record_script() {
	local log=$1 name=$2
	shift 2
	"$@" >"$log" 2>&1 || echo "FAIL $name the script exited non-zero" >>"$log"
	grep -q '^PASS \|^FAIL ' "$log" || echo "FAIL $name no results" >>"$log"
	record_lines "$log"
}

# The comparison scripts' own checks, fed made-up results in which the
# behaviour each check names is wrong: each must fail (or skip) there.
step "test: self-test of the comparison checks (tools/testing/selftest_checks.py)"
record_script "$RESULTS/selftest.txt" harness/selftest-script python3 -B "$ROOT/tools/testing/selftest_checks.py"

step "test: README's status table is the committed results' (tools/testing/status_table.py)"
record_script "$RESULTS/status-table.txt" docs/readme-status-table-current \
	python3 -B "$ROOT/tools/testing/status_table.py" --check "$ROOT/README.md"

step "test: cargo clippy (host builds of the core and the host differential)"
if (cd "$ROOT" && cargo clippy --workspace --all-targets -- -D warnings) >"$RESULTS/clippy.log" 2>&1; then
	record 0 lint/clippy-host-clean
else
	grep -E '^(error|warning)' -A 4 "$RESULTS/clippy.log" | head -n 20 >&2
	record 1 lint/clippy-host-clean "log: $RESULTS/clippy.log"
fi

step "test: rustfmt --check with the kernel's .rustfmt.toml (what make rustfmtcheck runs)"
if (cd "$ROOT" && git ls-files -z '*.rs' | xargs -0 rustfmt --edition 2021 --config-path .rustfmt.toml --check) >"$RESULTS/rustfmt.log" 2>&1; then
	record 0 lint/rustfmt-clean
else
	grep -E '^Diff in' "$RESULTS/rustfmt.log" | head -n 10 >&2
	record 1 lint/rustfmt-clean "log: $RESULTS/rustfmt.log"
fi

# The kernel's `make rustdoc` documents the rust/ crates only; the core's
# documentation is built by cargo from the same source (the host build),
# with every rustdoc warning (broken or private intra-doc links, bad
# markup) an error, private items included.
step "test: rustdoc of the core (cargo doc -D warnings, private items too)"
if (cd "$ROOT" && RUSTDOCFLAGS="-D warnings" cargo doc -p kprobes_core --no-deps --document-private-items \
	--target-dir "$WORK/rustdoc") >"$RESULTS/rustdoc.log" 2>&1; then
	record 0 lint/rustdoc-clean
else
	grep -E '^(error|warning)' -A 4 "$RESULTS/rustdoc.log" | head -n 20 >&2
	record 1 lint/rustdoc-clean "log: $RESULTS/rustdoc.log"
fi

step "test: safety figures and ratchet (tools/testing/safety.py)"
python3 "$ROOT/tools/testing/safety.py" >"$RESULTS/safety.txt" 2>&1 || echo "FAIL lint/safety-script-error" >>"$RESULTS/safety.txt"
while read -r res name rest; do
	case $res in
	PASS) record 0 "$name" ;;
	FAIL) record 1 "$name" "$rest" ;;
	FIGURE) echo "safety figure: $name $rest" >>"$SUM" ;;
	esac
done <"$RESULTS/safety.txt"

# series_checks PFX: the series of the current KP_TREE as patches
# ($WORK/patches of that tree): `git am` on pristine, and checkpatch on
# each; check names PFXpatches/...
series_checks() {
	local cp=$1 work ksrc
	read -r work ksrc < <(bash -c '. "$1/scripts/lib.sh"; echo "$WORK $KSRC"' _ "$ROOT")
	step "test: patch series${cp:+ ($KP_TREE)}"
	if KP_PREFIX_BUILDS=0 "$ROOT/scripts/patches.sh" >"$RESULTS/${cp//\//-}patches.log" 2>&1; then
		record 0 "${cp}patches/git-am-on-pristine"
	else
		tail -n 5 "$RESULTS/${cp//\//-}patches.log" >&2
		record 1 "${cp}patches/git-am-on-pristine" "log: $RESULTS/${cp//\//-}patches.log"
	fi
	# The kernel's own style checker on each patch: no ERROR and no WARNING
	# (`checkpatch.pl --strict`, run in the kernel tree).  The CHECKs left are
	# counted in the summary; docs/series.md ("checkpatch") gives their
	# reasons.  One WARNING is a question: FILE_PATH_CHANGES ("added, moved or
	# deleted file(s), does MAINTAINERS need updating?") comes with every
	# patch that adds files and does not touch MAINTAINERS, as patches 3-12
	# add files to kernel/kprobes_rust/, which patch 2 puts in the KPROBES
	# entry.  It is answered, not ignored: it passes only if every file the
	# patch adds has the KPROBES maintainers (scripts/get_maintainer.pl).
	step "test: scripts/checkpatch.pl --strict on each patch${cp:+ ($KP_TREE)}"
	for pf in "$work"/patches/*.patch; do
		[ -e "$pf" ] || { record 1 "${cp}patches/checkpatch" "no patches in $work/patches"; break; }
		case $pf in */0000-cover-letter.patch) continue ;; esac
		n=$(basename "$pf" .patch)
		num=${n%%-*} log=$RESULTS/${cp//\//-}checkpatch-$n.txt
		# Debian's python3 first: checkpatch runs scripts/spdxcheck.py, which
		# needs the python3-ply and python3-git that set-up installs (a
		# python3 earlier in PATH, e.g. pyenv's, lacks them).
		(cd "$ksrc" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --show-types "$pf") >"$log" 2>&1 || :
		ne=$(grep -c '^ERROR:' "$log" || :)
		nw=$(grep -c '^WARNING:' "$log" || :)
		nc=$(grep -c '^CHECK:' "$log" || :)
		fpc=
		if grep -q '^WARNING:FILE_PATH_CHANGES:' "$log"; then
			uncovered=
			for f in $(awk '/^diff --git /{f=substr($4, 3)} /^new file mode/{print f}' "$pf"); do
				(cd "$ksrc" && perl scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f") |
					grep -q '(maintainer:KPROBES)' || uncovered="$uncovered $f"
			done
			if [ -z "$uncovered" ]; then
				nw=$((nw - 1))
				fpc=" (FILE_PATH_CHANGES answered: every added file is in the KPROBES entry)"
			else
				echo "    files without the KPROBES maintainers:$uncovered" >&2
			fi
		fi
		echo "${cp}checkpatch $num: $ne errors, $nw warnings, $nc checks$fpc" >>"$SUM"
		if grep -q '^Traceback' "$log"; then
			record 1 "${cp}patches/checkpatch-$num" "a helper script failed (log: $log)"
		elif [ "$ne" = 0 ] && [ "$nw" = 0 ] && grep -q '^total: ' "$log"; then
			record 0 "${cp}patches/checkpatch-$num"
		else
			grep -E -A 3 '^(ERROR|WARNING):' "$log" | head -n 12 >&2
			record 1 "${cp}patches/checkpatch-$num" "$ne errors, $nw warnings (log: $log)"
		fi
	done
	# What the kernel's `make rustfmtcheck` runs, over the Rust files the
	# series adds, in the kernel tree (the tree `git am` gives, checked
	# above): there the host-only modules are absent, which rustfmt must
	# not look for.
	step "test: rustfmt --check of the series' Rust files in the kernel tree${cp:+ ($KP_TREE)}"
	log=$RESULTS/${cp//\//-}rustfmt-in-tree.log
	if (cd "$ksrc" && find kernel/kprobes_rust -name '*.rs' -print0 | sort -z |
		xargs -0 rustfmt --edition 2021 --config-path .rustfmt.toml --check) >"$log" 2>&1; then
		record 0 "${cp}patches/rustfmt-in-tree"
	else
		grep -E '^(Diff in|error)' "$log" | head -n 10 >&2
		record 1 "${cp}patches/rustfmt-in-tree" "log: $log"
	fi
}
series_checks ""

# 3. builds --------------------------------------------------------------------
"$ROOT/scripts/build.sh" $VARIANTS
o_c=$(outdir c) o_r=$(outdir rust)
grep -qx '# CONFIG_KPROBES_RUST is not set' "$o_c/.config"; record $? build/c-config-kprobes-rust-off
grep -qx 'CONFIG_KPROBES_RUST=y' "$o_r/.config"; record $? build/rust-config-kprobes-rust-on
# What kernel/built-in.a links (the rust O= directory starts as a copy of
# the c one, so a stale kernel/kprobes.o may lie there unused).  The
# listing is read whole first: `llvm-ar t | grep -q` fails under pipefail
# when grep exits before llvm-ar has written everything (EPIPE, exit 74).
linked_c=$(cd "$o_c" && llvm-ar t kernel/built-in.a) linked_r=$(cd "$o_r" && llvm-ar t kernel/built-in.a)
if grep -qx kernel/kprobes.o <<<"$linked_c" && ! grep -q '^kernel/kprobes_rust/' <<<"$linked_c"; then
	record 0 build/c-links-kernel-kprobes.o
else
	record 1 build/c-links-kernel-kprobes.o "$(grep kprobes <<<"$linked_c" | tr '\n' ' ')"
fi
if ! grep -qx kernel/kprobes.o <<<"$linked_r" && grep -qx kernel/kprobes_rust/rust-core/kprobes_core.o <<<"$linked_r"; then
	record 0 build/rust-links-kprobes_rust-not-kprobes.o
else
	record 1 build/rust-links-kprobes_rust-not-kprobes.o "$(grep kprobes <<<"$linked_r" | tr '\n' ' ')"
fi
diff <(grep -v KPROBES_RUST "$o_c/.config") <(grep -v KPROBES_RUST "$o_r/.config") >/dev/null
record $? build/configs-differ-only-in-KPROBES_RUST

# Symbols: upstream kprobes.o's globals all defined once by kernel/kprobes_rust/,
# the moved groups by the Rust object (tools/testing/expectations/moved-to-rust.txt).
step "test: symbols of upstream kprobes.o vs kernel/kprobes_rust/"
python3 "$ROOT/tools/testing/symbols.py" "$o_c" "$o_r" "$ROOT/tools/testing/expectations/moved-to-rust.txt" \
	>"$RESULTS/symbols.txt" 2>&1 || echo "FAIL symbols/script-error" >>"$RESULTS/symbols.txt"
record_lines "$RESULTS/symbols.txt"
grep '^progress:' "$RESULTS/symbols.txt" | cut -c1-100 | sed 's/^/    /'

# Bisectability: each prefix of the series compiles kernel/kprobes_rust/
# without a warning (it checks the prefixes out in $KSRC one by one, so it
# runs here, with nothing else on the tree).
step "test: each prefix of the patch series compiles the core (scripts/prefix-builds.sh)"
if "$ROOT/scripts/prefix-builds.sh" >"$RESULTS/prefix-builds.log" 2>&1; then
	record 0 patches/prefix-builds
else
	tail -n 8 "$RESULTS/prefix-builds.log" >&2
	record 1 patches/prefix-builds "log: $RESULTS/prefix-builds.log"
fi
echo "prefix builds: $(grep -c 'kernel/kprobes_rust/ builds' "$RESULTS/prefix-builds.log" || :) prefixes compile the core" >>"$SUM"

# The C kernels of section 6's pairs are built from here on in the
# background, one after the other, at nice 19 as Miri runs (not earlier:
# the prefix builds above check the series' prefixes out in the kernel
# tree these builds compile from).  The guest suites leave about 40 % of
# the two CPUs idle (guests waiting on timers and grace periods), which
# these builds take.  Section 6 waits for each before its pair, and builds
# it in the foreground if this failed.  KP_PREBUILD=0: no background
# builds.
: "${KP_TEST_CONFIGS=$([ "$KP_TREE" = 7.3 ] && echo 6.12 || echo 7.3):pipeline debug arm64}"
# A pair is CONFIG (of this tree) or TREE:CONFIG.  pair_env PAIR: its
# tree, config, key (its files' name: the check prefix with `-` for `/`)
# check prefix, O= prefix and kernel tree, as scripts/lib.sh computes them.
pair_env() {
	local tree=$KP_TREE cfg=$1
	case $1 in *:*) tree=${1%%:*} cfg=${1#*:} ;; esac
	# shellcheck disable=SC2016
	KP_TREE=$tree KP_CONFIG=$cfg bash -c '. "$1/scripts/lib.sh"; p=${CHECK_PFX%/}; p=${p:-$KP_TREE}; echo "$KP_TREE $KP_CONFIG ${p//\//-} ${CHECK_PFX:-/} $OUTPFX $KSRC"' _ "$ROOT"
}
# prefixed_suite NAME PFX: a suite of section 5 (scripts/suites/NAME.sh)
# on another tree's pair, its check names as section 5 has them, after PFX.
prefixed_suite() {
	"$ROOT/scripts/suites/$1.sh" | sed -E "s#^(PASS|FAIL|SKIP) ($1/)?#\1 $2$1/#"
}
if [ -n "$KP_TEST_CONFIGS" ] && [ "${KP_PREBUILD:-1}" = 1 ] && [[ " $VARIANTS " == *" c "* ]]; then
	step "test: the C kernels of $KP_TEST_CONFIGS, in the background at nice 19"
	for pair in $KP_TEST_CONFIGS; do
		read -r _ _ key _ _ _ < <(pair_env "$pair")
		mkdir -p "$WORK/results/matrix/$key"
		rm -f "$WORK/results/matrix/$key/prebuild.rc"
	done
	(
		for pair in $KP_TEST_CONFIGS; do
			read -r tree cfg key _ _ _ < <(pair_env "$pair")
			rc=0
			KP_TREE=$tree KP_CONFIG=$cfg nice -n 19 "$ROOT/scripts/build.sh" c \
				>"$WORK/results/matrix/$key/prebuild.log" 2>&1 || rc=$?
			echo "$rc" >"$WORK/results/matrix/$key/prebuild.rc"
		done
	) &
	prebuild_pid=$!
fi

# 4. guest suites of the pipeline config (scripts/config-suites.sh) ---------
step "test: guest suites (pipeline config, both variants)"
"$ROOT/scripts/config-suites.sh" >"$RESULTS/config-suites.log" || true
record_lines "$RESULTS/config-suites.log"
grep -E '^FAIL ' "$RESULTS/config-suites.log" >&2 || true

# 5. further suites: each scripts/suites/*.sh runs on the built variants and
# prints `PASS name` / `FAIL name detail` lines (anything else is progress).
for s in "$ROOT"/scripts/suites/*.sh; do
	[ -e "$s" ] || continue
	n=$(basename "$s" .sh)
	step "test: suite $n"
	"$s" >"$RESULTS/suite-$n.log" 2>&1 || true
	grep -v -E '^(PASS|FAIL) ' "$RESULTS/suite-$n.log" | tail -n 5 | sed 's/^/    /'
	np=0
	while read -r res name rest; do
		name=${name#"$n/"}  # a suite that names its checks SUITE/... itself
		case $res in
		PASS) record 0 "$n/$name"; np=$((np + 1)) ;;
		FAIL) record 1 "$n/$name" "$rest"; np=$((np + 1)) ;;
		esac
	done <"$RESULTS/suite-$n.log"
	[ "$np" -gt 0 ] || record 1 "$n/ran" "no results; log: $RESULTS/suite-$n.log"
done

# pair_cleanup: with KP_KEEP_WORK=0, the pair's O= directories (no later
# step reads them) and another tree's kernel tree when no later pair
# builds from it; never what the primary pipeline uses (one KP_WORK for
# both trees).  A pair whose C kernel is still being built in the
# background keeps its directories.
pair_cleanup() {
	[ "$KP_KEEP_WORK" = 0 ] || return 0
	[ -z "$prebuild_pid" ] || [ -e "$cres/prebuild.rc" ] || ! kill -0 "$prebuild_pid" 2>/dev/null || return 0
	[ "$poutpfx" = "$OUTPFX" ] || rm -rf "${poutpfx}c" "${poutpfx}rust"
	local later=${KP_TEST_CONFIGS#*"$pair"}
	[ "$tree" = "$KP_TREE" ] || [ "$pksrc" = "$KSRC" ] || [[ " $later " == *" $tree:"* ]] ||
		rm -rf "$pksrc"
}

# check_list LOG LIST NAME: the check names of LOG (a run's) against the
# committed LIST, a multiset: a listed check that the run did not report
# (its suite did not build or run) fails under its own name; checks the
# list lacks fail NAME (the list is out of date: copy LOG there).
check_list() {
	local log=$1 list=$2 name=$3 n extra
	LC_ALL=C sort -o "$log" "$log"
	# The committed list in comm's order, without blank lines (none if
	# there is no list).
	{ grep -v '^$' "$list" 2>/dev/null || :; } | LC_ALL=C sort >"${log%.txt}-expected.txt"
	while read -r n; do
		record 1 "$n" "listed in $list, not reported by this run"
	done < <(LC_ALL=C comm -13 "$log" "${log%.txt}-expected.txt")
	extra=$(LC_ALL=C comm -23 "$log" "${log%.txt}-expected.txt" | wc -l)
	if [ "$extra" = 0 ]; then
		record 0 "$name"
	else
		record 1 "$name" "$extra checks missing from $list (copy $log there)"
	fi
}

# config_suite CFG NAME SUMMARY_RE CMD...: run one suite script on config
# CFG's pair (output in $WORK/results/matrix/CFG/NAME.{log,err}); record its
# PASS|FAIL|SKIP lines (none at all is a failure, CFG/NAME/ran) and copy the
# lines matching SUMMARY_RE into the summary, prefixed with CFG.
config_suite() {
	local cfg=$1 name=$2 re=$3 out=$WORK/results/matrix/$1/$2
	shift 3
	"$@" >"$out.log" 2>"$out.err" || true
	grep -E '^(PASS|FAIL|SKIP) ' "$out.log" >"$out-checks.log" || true
	[ -s "$out-checks.log" ] || echo "FAIL $cfg/$name/ran no results; log: $out.err" >"$out-checks.log"
	record_lines "$out-checks.log"
	grep -E '^FAIL ' "$out-checks.log" >&2 || true
	grep -E "$re" "$out.log" | sed "s|^|$cfg |" | tee -a "$SUM" || true
}

# 6. further configs (KP_TEST_CONFIGS): built, booted, the guest suites, the
# differential scenarios and the stress suite on both variants; the
# allocation-failure sweep where KP_TEST_FAULTS lists the config.  By
# default the `debug` pair (lockdep/KASAN/UBSAN/kmemleak) and the `arm64`
# pair, in the order in which CI's time budget keeps them; KP_TEST_CONFIGS= runs none,
# `make matrix` runs every row.  Their guest job is the quick one
# (KP_GUEST_QUICK=1, see tools/testing/guest/test-job.sh: a subset of
# ftracetest, no kprobes-o sweep, the rest reported as SKIP);
# KP_GUEST_QUICK=0 runs it whole.
#
# CI stops a run at 90 minutes, and make test must stay within
# KP_TEST_BUDGET_S (4,800 s when CI is set; unset, no limit).  A pair
# whose estimated time would take the run past it is not started and is
# reported as SKIP, with the estimate.  The estimate scales the pair's
# cost, measured as a multiple of the time make test took to get here
# (PAIR_COST, docs/testing.md "The CI time budget"), by this machine's time to get
# here.
: "${KP_TEST_FAULTS=debug}"
budget=${KP_TEST_BUDGET_S:-}
[ -n "$budget" ] || [ -z "${CI:-}" ] || budget=4800
# The pair's wall time divided by the time from set-up's end to section
# 6, in percent, from fresh-clone runs on the 2-core machine (the runs
# and their figures: tools/testing/ci-times.md), rounded up and with a
# margin: PAIR_COST with its C kernel built in the foreground,
# PAIR_COST_PREBUILT when that kernel is already built (in the
# background) when the pair starts, PAIR_COST_BUILDING when it is still
# being built there (the pair waits for it).  The arm64 pair's
# PAIR_COST_BUILDING is the largest share measured, rounded up, with no
# further margin: with one, the pair was left out of runs that it would
# have ended well within the budget.
# A pair is not started either when less disk is free than it may take:
# its rust O= directory, module and initramfs builds and results (its C
# kernel is built in the background).
pair_min_free=${KP_PAIR_MIN_FREE_MB:-3072}
declare -A PAIR_COST=([debug]=100 [arm64]=60 [6.12]=100)
declare -A PAIR_COST_PREBUILT=([debug]=60 [arm64]=25 [6.12]=70)
declare -A PAIR_COST_BUILDING=([debug]=80 [arm64]=44 [6.12]=85)
t6=$((SECONDS - t_setup))
T0_TREE=$KP_TREE T0_CONFIG=$KP_CONFIG
PAIR_LOG=
PAIRS_RUN="pipeline" PAIRS_OUT=
for pair in ${KP_TEST_CONFIGS}; do
	read -r tree cfg key ppfx poutpfx pksrc < <(pair_env "$pair")
	[ "$ppfx" != / ] || ppfx=  # the primary tree's pipeline: no prefix
	# Less when its C kernel is already built, or being built, in the
	# background (above).
	cres=$WORK/results/matrix/$key
	cost=${PAIR_COST[$key]:-100}
	if [ -n "$prebuild_pid" ]; then
		if [ -e "$cres/prebuild.rc" ]; then
			[ "$(cat "$cres/prebuild.rc")" != 0 ] ||
				cost=${PAIR_COST_PREBUILT[$key]:-$cost}
		elif kill -0 "$prebuild_pid" 2>/dev/null; then
			cost=${PAIR_COST_BUILDING[$key]:-$cost}
		fi
	fi
	est=$((t6 * cost / 100))
	why=
	if [ -n "$budget" ] && [ $((SECONDS + est)) -gt "$budget" ]; then
		why="pair not run: ~${est} s estimated after $SECONDS s would pass the ${budget} s budget (KP_TEST_BUDGET_S)"
	else
		free=$(free_mb "$WORK")
		[ "$free" -ge "$pair_min_free" ] ||
			why="pair not run: $free MiB of disk free, less than the ${pair_min_free} MiB a pair may need (KP_PAIR_MIN_FREE_MB)"
	fi
	if [ -n "$why" ]; then
		# Each of its checks counts as skipped: the names of the pair's
		# last full run, committed (`pair-checks.txt` of a run that did
		# run the pair, copied there).
		plist=$ROOT/tools/testing/expectations/pair-checks/$key.txt
		n=0
		if [ -s "$plist" ]; then
			while read -r name || [ -n "$name" ]; do
				[ -n "$name" ] || continue
				skipped "$name" "$why"; n=$((n + 1))
			done <"$plist"
		else
			skipped "${ppfx}pair" "$why; no check list in $plist: its checks are not counted"
		fi
		skipped "${ppfx}pair/check-list" "$why"
		echo "$key pair: not run (${why#pair not run: }); $n checks skipped" >>"$SUM"
		PAIRS_OUT="$PAIRS_OUT $key"
		pair_cleanup
		continue
	fi
	step "test: config $key (both variants; ~${est} s estimated)"
	mkdir -p "$cres"
	PAIR_LOG=$cres/pair-checks.txt
	: >"$PAIR_LOG"
	PAIRS_RUN="$PAIRS_RUN $key"
	tc=$SECONDS
	vs=$VARIANTS
	if [ -n "$prebuild_pid" ]; then
		# Its C kernel from the background (above), then the rest here.
		while [ ! -e "$cres/prebuild.rc" ] && kill -0 "$prebuild_pid" 2>/dev/null; do sleep 5; done
		step "test: config $key: its C kernel built in the background (exit $(cat "$cres/prebuild.rc" 2>/dev/null || echo none), waited $((SECONDS - tc)) s)"
		[ "$(cat "$cres/prebuild.rc" 2>/dev/null)" != 0 ] || vs=${VARIANTS/c /}
	fi
	export KP_TREE=$tree KP_CONFIG=$cfg
	if "$ROOT/scripts/build.sh" $vs; then
		if [ "$cfg" = pipeline ]; then
			series_checks "$ppfx"
			if "$ROOT/scripts/prefix-builds.sh" >"$cres/prefix-builds.log" 2>&1; then
				record 0 "${ppfx}patches/prefix-builds"
			else
				tail -n 8 "$cres/prefix-builds.log" >&2
				record 1 "${ppfx}patches/prefix-builds" "log: $cres/prefix-builds.log"
			fi
		fi
		# The symbol and trap-path checks of 3. on this pair's objects
		# (the arm64 pair's are the only check of its blacklist section).
		python3 "$ROOT/tools/testing/symbols.py" "${poutpfx}c" "${poutpfx}rust" \
			"$ROOT/tools/testing/expectations/moved-to-rust.txt" "$ppfx" >"$cres/symbols.txt" 2>&1 ||
			echo "FAIL ${ppfx}symbols/script-error" >>"$cres/symbols.txt"
		record_lines "$cres/symbols.txt"
		KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-900} KP_GUEST_QUICK=${KP_GUEST_QUICK-1} \
			"$ROOT/scripts/config-suites.sh" --differential \
			>"$cres/config-suites.log" || true
		record_lines "$cres/config-suites.log"
		grep -E '^FAIL ' "$cres/config-suites.log" >&2 || true
		# The stress suite (KP_STRESS_S seconds, 20 by default) on both,
		# and the allocation-failure sweep where KP_TEST_FAULTS says.
		config_suite "$key" stress '^(stress:|    c: upstream finding)' env \
			KP_STRESS_S="${KP_STRESS_S:-20}" KP_STRESS_PREFIX="${ppfx}stress" "$ROOT/scripts/stress.sh"
		if [[ " $KP_TEST_FAULTS " == *" $pair "* ]]; then
			config_suite "$key" faults '^faults:' env KP_FAULTS_PREFIX="${ppfx}faults" \
				"$ROOT/scripts/faults.sh"
		fi
		# Another tree's pipeline pair: that tree's series (as section 2
		# and 3 check this tree's), and the suites of section 5 that the
		# guest suites above do not run (the real clients, the host
		# differential against that tree's kprobes.c).
		if [ "$cfg" = pipeline ]; then
			for n in clients hostdiff; do
				config_suite "$key" "$n" "^$n:" prefixed_suite "$n" "$ppfx"
			done
		fi
	else
		record 1 "${ppfx}build" "scripts/build.sh failed for config $cfg of $tree (logs: $poutpfx*)"
	fi
	export KP_TREE=$T0_TREE KP_CONFIG=$T0_CONFIG
	pair_cleanup
	echo "$key pair: $((SECONDS - tc)) s (estimated ${est} s; $((t6 > 0 ? (SECONDS - tc) * 100 / t6 : 0)) % of the $t6 s from set-up's end to section 6)" >>"$SUM"
	plog=$PAIR_LOG PAIR_LOG=
	check_list "$plog" "$ROOT/tools/testing/expectations/pair-checks/$key.txt" "${ppfx}pair/check-list"
done

# The background Miri run (a foreground one was collected above).
PAIR_LOG=$PRIMARY_LOG
[ "$miri_nice" = 0 ] || miri_collect
PAIR_LOG=
# The primary pipeline's check list (the primary tree's only: another
# tree as KP_TREE has none).
if [ "$KP_TREE" = "$PRIMARY_TREE" ]; then
	check_list "$PRIMARY_LOG" "$ROOT/tools/testing/expectations/pair-checks/primary.txt" pipeline/check-list
else
	skipped pipeline/check-list "no committed check list for $KP_TREE as the primary tree"
fi

step "test: summary in $SUM"
# The summary's first line: which config pairs ran.
out=${PAIRS_OUT# }
pairs="pairs run: ${PAIRS_RUN}; left out by the time budget or the free disk: ${out:-none} (their checks count as skipped)"
{ echo "$pairs"; cat "$SUM"; } >"$SUM.new" && mv "$SUM.new" "$SUM"
echo "$pairs"
echo "$MIRI_LINE"
# The disk line: free at the start, and the least free during the run.
kill "$disk_pid" 2>/dev/null || :
sort -n -k2,2 "$DISK_LOG" | awk -v first="$(head -n 1 "$DISK_LOG" | cut -d' ' -f2)" \
	'NR == 1 { printf "disk: %d MiB free at the start, %d MiB at least (at %d s): %d MiB taken at most (KP_KEEP_WORK=%s)\n", first, $2, $1, first - $2, ENVIRON["KP_KEEP_WORK"] }' |
	tee -a "$SUM"
echo "reference checks of the C kernel alone: $RP passed, $RF failed, $RS skipped (failures also count below)" | tee -a "$SUM"
echo "$P passed, $F failed, $S skipped" | tee -a "$SUM"
[ "$F" = 0 ]
