#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Is the `Oops: int3` at a static-key site with CONFIG_JUMP_LABEL=y
# (docs/testing.md, "QEMU: accelerator and TCG mode") an artefact of
# QEMU's multi-threaded TCG?
#   scripts/jumplabel-tcg.sh [RUNS]      (default $KP_JL_RUNS, else 5)
# KP_JL_APPEND=1 adds RUNS more runs to the recorded ones; KP_JL_LOAD=N
# keeps N busy loops running on the host meanwhile (a loaded host preempts
# QEMU's vCPU threads at arbitrary points, which is when a cross-vCPU
# code-modification race in TCG would show).
# Builds both variants of the `jumplabel` config (pipeline + JUMP_LABEL),
# then boots each variant RUNS times under `-accel tcg,thread=multi` and
# RUNS times under `-accel tcg,thread=single`, each time running the whole
# guest job (tools/testing/guest/test-job.sh: KUnit, samples, kprobe_events,
# ftracetest, ...).  Per run it records whether the job completed, the first
# oops/BUG line of the console, and the wall time.  Writes
# $WORK/results/matrix/jumplabel/runs.jsonl and, from it,
# tools/testing/matrix/jumplabel.md (`make jumplabel-tcg`).
. "$(dirname "$0")/lib.sh"

runs=${1:-${KP_JL_RUNS:-5}}
export KP_CONFIG=jumplabel
RESULTS=$WORK/results/matrix/jumplabel
mkdir -p "$RESULTS"
commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no -- . | head -n 1)" ] || commit="$commit+local-changes"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/kernel-tree.sh"
"$ROOT/scripts/build.sh" c rust

out=$RESULTS/runs.jsonl
first=1
if [ "${KP_JL_APPEND:-0}" = 1 ] && [ -s "$out" ]; then
	first=$(($(python3 -c 'import json,sys; print(max(json.loads(l)["run"] for l in open(sys.argv[1])))' "$out") + 1))
else
	: >"$out"
fi
load=${KP_JL_LOAD:-0}
hogs=()
for _ in $(seq 1 "$load"); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done
trap '[ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null || :' EXIT
for i in $(seq "$first" $((first + runs - 1))); do
	for mode in tcg,thread=multi tcg,thread=single; do
		for v in c rust; do
			name=jl-${mode#tcg,thread=}-$i
			t0=$SECONDS
			KP_ACCEL=$mode KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600} "$ROOT/scripts/vm.sh" "$v" \
				"$ROOT/tools/testing/guest/test-job.sh" "$name" >/dev/null 2>&1 || :
			s=$((SECONDS - t0))
			con=$RESULTS/$v/$name/console.log res=$RESULTS/$v/$name/results.log
			done_=false; grep -q '^KPT-JOB-EXIT ' "$res" 2>/dev/null && done_=true
			oops=$(grep -a -m 1 -E 'Oops|BUG:|kernel BUG|general protection fault|Kernel panic' "$con" 2>/dev/null |
				sed 's/^\[[ 0-9.]*\] //' | tr -d '\r"\\' || :)
			rip=$(grep -a -m 1 -E '^(\[[ 0-9.]*\] )?RIP: ' "$con" 2>/dev/null | sed 's/^\[[ 0-9.]*\] //' | tr -d '\r"\\' || :)
			printf '{"run": %d, "mode": "%s", "load": %d, "variant": "%s", "completed": %s, "seconds": %d, "oops": "%s", "rip": "%s"}\n' \
				"$i" "$mode" "$load" "$v" "$done_" "$s" "$oops" "$rip" >>"$out"
			step "jumplabel[$mode/$v, host load $load] run $i: completed=$done_ ${s}s${oops:+ -- $oops${rip:+ at $rip}}"
		done
	done
done
[ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null || :
hogs=()
python3 - "$out" "$ROOT/tools/testing/matrix/jumplabel.md" "$commit" <<'PY'
import json, sys, datetime
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    r.setdefault("load", 0)
out, commit = sys.argv[2], sys.argv[3]
date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
L = ["# JUMP_LABEL under QEMU TCG: how often each mode oopses", "",
     "Written by `scripts/jumplabel-tcg.sh` (`make jumplabel-tcg`; the last runs at commit %s, %s)." % (commit, date),
     "The `jumplabel` config is the pipeline config with `CONFIG_JUMP_LABEL=y`;",
     "each run boots the variant with 2 vCPUs and runs the whole guest job",
     "(`tools/testing/guest/test-job.sh`: KUnit, samples, kprobe_events,",
     "ftracetest, which flips tracepoint static keys many times).  *Host load*",
     "is the number of busy loops kept running on the 2-core host meanwhile",
     "(`KP_JL_LOAD`).  Seconds are host wall time per run.", "",
     "| TCG mode | host load | variant | runs | completed | oops/BUG | mean s | min s | max s |",
     "|---|---|---|---|---|---|---|---|---|"]
for load in sorted({r["load"] for r in rows}):
    for mode in ("tcg,thread=multi", "tcg,thread=single"):
        for v in ("c", "rust"):
            rs = [r for r in rows if r["mode"] == mode and r["variant"] == v and r["load"] == load]
            if not rs:
                continue
            ss = [r["seconds"] for r in rs]
            L.append("| `%s` | %d | %s | %d | %d | %d | %.0f | %d | %d |" % (
                mode, load, v, len(rs), sum(r["completed"] for r in rs), sum(bool(r["oops"]) for r in rs),
                sum(ss) / len(ss), min(ss), max(ss)))
L += ["", "Runs with a report or not completed:", ""]
bad = [r for r in rows if r["oops"] or not r["completed"]]
for r in bad:
    L.append("- run %d, `%s`, host load %d, %s: %s%s" % (r["run"], r["mode"], r["load"], r["variant"],
             r["oops"] or "job did not complete, no oops line",
             (" (" + r["rip"] + ")") if r["rip"] else ""))
if not bad:
    L.append("- none")
open(out, "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
