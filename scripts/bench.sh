#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the A/B benchmark of the two kprobes cores.
#   1. builds tools/testing/bench/kprobes_bench.ko out of tree against the
#      `c` kernel (in $WORK/bench/mod; the same .ko loads into both kernels);
#   2. boots `c`, then `rust`, then `c` again (repeatability check) with
#      KP_ICOUNT=1 and one vCPU, each running tools/testing/bench/job.sh
#      (guest ns == guest instructions).  One vCPU because with two the
#      icount clock interleaves both vCPUs in an order that differs run to
#      run (measured: up to 20% on small registration rows, 0.1% on hit
#      rows); with one only the kernel's own randomness (hash seeds, slab
#      layout) is left, which moves a few registration rows by < 0.01%;
#   3. writes bench/results.json, bench/results.md and bench/ratios.svg
#      (tools/testing/bench/report.py) naming the commit and command.
# The kernels must be built already (make build).  Logs: $RESULTS/VARIANT/bench/
# (console.log, results.log) and $RESULTS/c/bench-repeat/.
# Env: KPB_NO_REPEAT=1 skips the second c run; KPB_SMP=N vCPUs (default 1);
# KPB_JOBS=2 runs the c guest beside the rust one and the cost4 boots (two
# host CPUs; 60 minutes of wall time at b2e3b33, where the guests one after
# another are the sum of 58, 33, 10 and 16); KPB_QUICK=1 uses small sizes
# for a smoke test (then the results go to $WORK/bench/out, not bench/);
# KPB_OUT=dir overrides where the results are written; KPB_RUN=list (of
# kprobes_bench.ko's runs: hits,scale,gp,endis,reg,regentry,regall,mem;
# regbatch is regentry without its one-by-one rows) and
# KPB_EVN="sizes" (of the kprobe_events rows; empty for none), KPB_EVREP=R
# (those rows R times in a row, the later ones suffixed _repR), KPB_EVDIAG=1
# (a line per kprobe_events phase on what the shell and the CPU did), KPB_MAXN
# (the largest N of the registration and scale rows) override the
# guest job's (tools/testing/bench/job.sh), e.g. the scale rows alone at full
# size: KPB_RUN=scale KPB_EVN= KPB_NO_REPEAT=1 KPB_OUT=/tmp/x make bench
# (use a KPB_OUT for partial runs: bench/ holds full runs only);
# KPB_POLICY_RUN (default reg,regentry) and KPB_POLICY_EVN (default
# "10 100 1000") are the run tokens and kprobe_events sizes repeated under
# the other RCU policies (job.sh; empty for none); KPB_COST4=0 skips the
# 4-vCPU boot of the cost4 rows (the policy's cost on the other CPUs);
# KPB_PROFILE=1 also
# runs tools/testing/bench/prof-job.sh on both kernels (registration
# profile: calls and instructions of the kernel services the core uses).
. "$(dirname "$0")/lib.sh"

cd "$ROOT"
B=$WORK/bench
SRC=$ROOT/tools/testing/bench
# Probe targets: 65 modules of 500 functions.  The rows up to N=5,000 use
# the first 10 (as before the regall rows); run token regall registers
# on all 32,500, about as many as the kernel has probeable functions.
NFUNCS=${KPB_NFUNCS:-32500} NMODS=${KPB_NMODS:-65}
# arm64 and riscv64 (KP_CONFIG=arm64 or riscv64 make bench): the hit rows,
# registration and memory with 5,000 targets in 10 modules, the
# kprobe_events rows up to 1,000, no policy repeats and no cost4 boot (its
# IPI counts are x86's): a C run under TCG takes about what the x86 one
# does for ten times as many rows.  Neither has kprobes on ftrace, so the
# `ftrace` rows there measure ebreak/BRK probes on function entries.  The
# results go to bench/arm64/ and bench/riscv64/ (bench/ is the pipeline's;
# on 7.3, bench/7.3/arm64/, bench/7.3/riscv64/ and bench/7.3/).
if [ "$KP_ARCH" = arm64 ] || [ "$KP_ARCH" = riscv64 ]; then
	NFUNCS=${KPB_NFUNCS:-5000} NMODS=${KPB_NMODS:-10}
	: "${KPB_RUN=hits,gp,endis,reg,regentry,mem}" "${KPB_EVN=10 100 1000}"
	: "${KPB_POLICY_RUN=}" "${KPB_POLICY_EVN=}" "${KPB_COST4:=0}"
	export KPB_RUN KPB_EVN KPB_POLICY_RUN KPB_POLICY_EVN KPB_COST4
fi

# cfi (KP_CONFIG=cfi make bench): the hit rows only, which kCFI changes (a
# type-id check before each indirect call of a handler); results in
# bench/7.3/cfi/ (bench/cfi/ on 6.12).
if [ "$KP_CONFIG" = cfi ]; then
	NFUNCS=${KPB_NFUNCS:-5000} NMODS=${KPB_NMODS:-10}
	: "${KPB_RUN=hits}" "${KPB_EVN=}" "${KPB_POLICY_RUN=}" "${KPB_POLICY_EVN=}" "${KPB_COST4:=0}"
	export KPB_RUN KPB_EVN KPB_POLICY_RUN KPB_POLICY_EVN KPB_COST4
fi

# The commit the results name: main's state when the run starts (a commit
# made while the guests run must not be named instead).
commit=$(git rev-parse HEAD)
dirty=false
[ -z "$(git status --porcelain --untracked-files=no)" ] || dirty=true

for v in $VARIANTS; do
	[ -f "$(outdir "$v")/$KIMAGE_PATH" ] ||
		die "no kernel image for variant $v" "run 'make build' first"
done
[ -f "$(outdir c)/Module.symvers" ] || die "no $(outdir c)/Module.symvers" "run 'make build-c' first"

# --- the module -------------------------------------------------------------
step "bench: building kprobes_bench.ko against $(outdir c) ($NFUNCS target functions in $NMODS modules)"
rm -rf "$B/mod" "$B/extra"
mkdir -p "$B/mod" "$B/extra"
cp "$SRC/kprobes_bench.c" "$SRC/Kbuild" "$B/mod/"
python3 "$SRC/gen_funcs.py" "$NFUNCS" "$NMODS" "$B/mod"
if ! kmake c M="$B/mod" modules >"$B/build.log" 2>&1; then
	tail -n 20 "$B/build.log" >&2
	die "module build failed; log: $B/build.log"
fi
cp "$B"/mod/*.ko "$B/extra/"
if [ "${KPB_QUICK:-0}" = 1 ]; then
	echo 'KPB_ITERS=2000 KPB_MAXN=100 KPB_MEMN=100 KPB_EVN="10 100" KPB_POLICY_EVN="10"' >"$B/extra/kpb.conf"
	OUT=${KPB_OUT:-$B/out}
	warn "KPB_QUICK=1: small sizes, results in $OUT (not committed figures)"
else
	# bench/ holds 6.12's runs, bench/7.3/ mainline's (TREE_DIR).
	OUT=${KPB_OUT:-$ROOT/bench${TREE_DIR:+/$TREE_DIR}}
	[ "$KP_CONFIG" = pipeline ] || OUT=${KPB_OUT:-$ROOT/bench${TREE_DIR:+/$TREE_DIR}/$KP_CONFIG}
fi
[ -z "${KPB_RUN:-}" ] || echo "KPB_RUN=$KPB_RUN" >>"$B/extra/kpb.conf"
[ -z "${KPB_EVN+set}" ] || echo "KPB_EVN=\"$KPB_EVN\"" >>"$B/extra/kpb.conf"
[ -z "${KPB_EVREP:-}" ] || echo "KPB_EVREP=$KPB_EVREP" >>"$B/extra/kpb.conf"
[ -z "${KPB_EVDIAG:-}" ] || echo "KPB_EVDIAG=$KPB_EVDIAG" >>"$B/extra/kpb.conf"
[ -z "${KPB_MAXN:-}" ] || echo "KPB_MAXN=$KPB_MAXN" >>"$B/extra/kpb.conf"
[ -z "${KPB_POLICY_RUN+set}" ] || echo "KPB_POLICY_RUN=\"$KPB_POLICY_RUN\"" >>"$B/extra/kpb.conf"
[ -z "${KPB_POLICY_EVN+set}" ] || echo "KPB_POLICY_EVN=\"$KPB_POLICY_EVN\"" >>"$B/extra/kpb.conf"
# The cost4 boot (4 vCPUs): the same modules, only the cost4 rows.
rm -rf "$B/extra4"
cp -a "$B/extra" "$B/extra4"
echo 'KPB_RUN=cost4 KPB_EVN= KPB_POLICY_RUN= KPB_POLICY_EVN=' >>"$B/extra4/kpb.conf"

# --- the runs -------------------------------------------------------------
# run VARIANT NAME: one guest run; KPB-ERROR or a missing KPB-DONE fails it.
bz() { sha256sum "$(outdir "$1")/$KIMAGE_PATH" | cut -c1-16; }
declare -A booted
# run VARIANT NAME [VCPUS EXTRA_DIR]
run() {
	local v=$1 name=$2 res=$RESULTS/$1/$2 try smp=${3:-${KPB_SMP:-1}} extra=${4:-$B/extra}
	for try in 1 2; do
		booted[$name-$v]=$(bz "$v")
		step "bench: $v kernel ($name, $smp vCPUs), under icount: takes several minutes"
		# A C run takes ~35 minutes (the scale rows at every probeable
		# function register 27,518 probes one by one four times; the
		# regall rows 32,500 int3 probes one by one and in a batch): more
		# than vm.sh's default limit for a hung guest.
		if KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-5400} KP_SMP=$smp KP_ICOUNT=1 KP_EXTRA_DIR="$extra" \
			scripts/vm.sh "$v" "$SRC/job.sh" "$name"; then
			break
		fi
		# The lead rebuilds build/out-rust often; a run that fails because
		# the image changed under us is worth one retry.
		[ "$try" = 1 ] && [ "$v" = rust ] || die "bench: the $v guest failed; logs: $res/console.log, $res/results.log"
		warn "bench: the $v guest failed, retrying once (logs: $res/)"
	done
	if grep -q '^KPB-ERROR' "$res/results.log"; then
		grep '^KPB-ERROR' "$res/results.log" >&2
		die "bench: $v reported errors; logs: $res/results.log, $res/console.log"
	fi
	grep -q '^KPB-DONE' "$res/results.log" ||
		die "bench: $v job did not finish; logs: $res/results.log, $res/console.log"
	info "$v: $(grep -c '^KPB ' "$res/results.log") rows"
}

# The RCU policy's cost on the other CPUs: 4 vCPUs (KPB_COST4=0: skipped).
extra=()
[ "${KPB_COST4:-1}" = 0 ] ||
	extra=(--c-extra "$RESULTS/c/bench-cost4/results.log" --rust-extra "$RESULTS/rust/bench-cost4/results.log")
cost4() {
	[ "${KPB_COST4:-1}" = 0 ] && return
	run c bench-cost4 4 "$B/extra4"
	run rust bench-cost4 4 "$B/extra4"
}
if [ "${KPB_JOBS:-1}" -ge 2 ]; then
	# KPB_JOBS=2: two guests at a time, one a host CPU (the figures are
	# guest instructions under icount: the host's load changes only the
	# wall time).  Lane 1 is the C run (the longest), lane 2 the Rust run
	# and then the cost4 boots.  Each lane is a subshell, so the images
	# are hashed here (they are not rebuilt while the guests run).
	booted[bench-c]=$(bz c) booted[bench-rust]=$(bz rust)
	step "bench: KPB_JOBS=2: the c run beside the rust run and the cost4 boots"
	(run c bench) >"$B/lane1.log" 2>&1 &
	lane1=$!
	(run rust bench && cost4) >"$B/lane2.log" 2>&1 &
	lane2=$!
	ok=0
	wait "$lane1" || ok=1
	wait "$lane2" || ok=1
	cat "$B/lane1.log" "$B/lane2.log"
	[ "$ok" = 0 ] || die "bench: a guest run failed (above; logs: $B/lane1.log, $B/lane2.log)"
else
	run c bench
	run rust bench
	cost4
fi
repeat=()
if [ "${KPB_NO_REPEAT:-0}" != 1 ]; then
	run c bench-repeat
	repeat=(--repeat "$RESULTS/c/bench-repeat/results.log")
fi

if [ "${KPB_PROFILE:-0}" = 1 ]; then
	for v in $VARIANTS; do
		step "bench: registration profile on $v"
		KP_SMP=1 KP_ICOUNT=1 KP_EXTRA_DIR="$B/extra" scripts/vm.sh "$v" "$SRC/prof-job.sh" bench-profile ||
			die "bench: profile run failed; logs: $RESULTS/$v/bench-profile/"
		sed -n 's/^KPP /    /p' "$RESULTS/$v/bench-profile/results.log"
	done
fi

# --- the report -------------------------------------------------------------
declare -A QEMU_BIN=([x86_64]=qemu-system-x86_64 [arm64]=qemu-system-aarch64 [riscv64]=qemu-system-riscv64)
cmdpfx=; [ "$KP_CONFIG" = pipeline ] || cmdpfx="KP_CONFIG=$KP_CONFIG "
# The hand-written notes on the run: analysis.md for 6.12's x86_64 run,
# analysis-ARCH.md for another architecture's, analysis-TREE[-ARCH].md for
# another tree's (none yet: the report has no notes).
notes=$SRC/analysis${TREE_DIR:+-$TREE_DIR}.md
[ "$KP_ARCH" = x86_64 ] || notes=$SRC/analysis${TREE_DIR:+-$TREE_DIR}-$KP_ARCH.md
step "bench: writing $OUT/results.json, results.md, ratios.svg, scale.svg"
tools/testing/bench/report.py --c "$RESULTS/c/bench/results.log" \
	--rust "$RESULTS/rust/bench/results.log" "${repeat[@]}" "${extra[@]}" --out "$OUT" \
	--notes "$notes" \
	--meta "command=${cmdpfx}make bench${KPB_QUICK:+ (KPB_QUICK=$KPB_QUICK)}${KPB_COST4:+ (KPB_COST4=$KPB_COST4)}${KPB_POLICY_RUN+ (KPB_POLICY_RUN=$KPB_POLICY_RUN)}${KPB_POLICY_EVN+ (KPB_POLICY_EVN=$KPB_POLICY_EVN)}${KPB_SMP:+ (KPB_SMP=$KPB_SMP)}${KPB_RUN:+ (KPB_RUN=$KPB_RUN)}${KPB_EVN+ (KPB_EVN=$KPB_EVN)}${KPB_EVREP:+ (KPB_EVREP=$KPB_EVREP)}${KPB_MAXN:+ (KPB_MAXN=$KPB_MAXN)}${KPB_NO_REPEAT:+ (KPB_NO_REPEAT=$KPB_NO_REPEAT)}${KPB_JOBS:+ (KPB_JOBS=$KPB_JOBS)}${KP_APPEND:+ (KP_APPEND=$KP_APPEND)}" \
	--meta "vcpus=${KPB_SMP:-1}" \
	--meta "commit=$commit" --meta "dirty=$dirty" \
	--meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--meta "config=$KP_CONFIG ($KP_ARCH)" \
	--meta "host=$(uname -n), $(nproc) CPUs, $("${QEMU_BIN[$KP_ARCH]}" --version | head -n 1)" \
	--meta "bzimage_c=sha256:${booted[bench-c]} (at boot)" \
	--meta "bzimage_rust=sha256:${booted[bench-rust]} (at boot)" ||
	die "bench: the report found problems (see PROBLEM lines); logs: $RESULTS/{c,rust}/bench/results.log"
for f in "$OUT/ratios.svg" "$OUT/scale.svg"; do
	python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$f" ||
		die "bench: $f is not well-formed XML"
done
step "bench: done; table in $OUT/results.md"
