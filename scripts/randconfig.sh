#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The `randconfig` row of `make matrix`: random x86_64 configs with
# kprobes and Rust forced on (scripts/kconfig/randconfig-forced.config),
# build only (vmlinux).
#   scripts/randconfig.sh [SEED...]    (default: $KP_RANDCONFIG_SEEDS, else 1..20)
# For each seed the c variant is `make randconfig` with that KCONFIG_SEED
# (KCONFIG_PROBABILITY=${KP_RANDCONFIG_PROBABILITY:-10}, which keeps the
# configs near the size of a small distribution kernel) and
# CONFIG_KPROBES_RUST off; the rust variant is the same .config with
# CONFIG_KPROBES_RUST=y (olddefconfig; Kconfig may refuse it, which is
# recorded), built in the c O= directory once the c build is recorded.
# Not in a copy elsewhere: objtool's build compares command lines that
# hold the O= path, so a copy rebuilds objtool, and every object of a
# config without LTO_CLANG or X86_KERNEL_IBT depends on objtool
# (scripts/Makefile.lib, cmd_gen_objtooldep): the copy recompiled the
# whole kernel.  A seed counts when the c variant builds; then the rust
# variant must build too.  Results: build/results/matrix/randconfig/
# seed-N/ and row.json; the O= directory is removed after each seed
# (disk).
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- ${KP_RANDCONFIG_SEEDS:-$(seq 1 20)}
RDIR=$WORK/results/matrix/randconfig
mkdir -p "$RDIR"
FORCED=$ROOT/scripts/kconfig/randconfig-forced.config
commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no -- . | head -n 1)" ] || commit="$commit+local-changes"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/kernel-tree.sh"

rmake() { # O= ARGS...
	local o=$1; shift
	make -C "$KSRC" O="$o" LLVM="$KLLVM" -j"$JOBS" "$@"
}
val() { grep -E "^(# )?$2[= ]" "$1/.config" | head -n 1; }

for seed in "$@"; do
	oc=$WORK/out-rand-$seed log=$RDIR/seed-$seed
	rm -rf "$oc" "$WORK/out-rand-$seed-c" "$WORK/out-rand-$seed-rust"; mkdir -p "$oc" "$log"
	rm -f "$log/config-c" "$log/config-rust"
	{ cat "$FORCED"; echo "# CONFIG_KPROBES_RUST is not set"; } >"$oc/allconfig"
	c=fail r=not-built cs=0 rs=0 note=
	rmake "$oc" KCONFIG_SEED="$seed" KCONFIG_ALLCONFIG="$oc/allconfig" \
		KCONFIG_PROBABILITY="${KP_RANDCONFIG_PROBABILITY:-10}" randconfig >"$log/config.log" 2>&1 &&
		cp "$oc/.config" "$log/config-c"
	ny=0; [ ! -f "$log/config-c" ] || ny=$(grep -c '=y$' "$log/config-c" || true)
	if [ ! -f "$log/config-c" ]; then
		note="randconfig failed"
	elif [ "$(val "$oc" CONFIG_RUST)" != CONFIG_RUST=y ] || [ "$(val "$oc" CONFIG_KPROBES)" != CONFIG_KPROBES=y ]; then
		c=not-applicable note="Kconfig did not keep RUST and KPROBES: $(val "$oc" CONFIG_RUST), $(val "$oc" CONFIG_KPROBES)"
	else
		t0=$SECONDS
		if rmake "$oc" vmlinux >"$log/build-c.log" 2>&1; then c=ok; fi
		cs=$((SECONDS - t0))
		if [ $c = ok ]; then
			sed -i 's/^# CONFIG_KPROBES_RUST is not set$/CONFIG_KPROBES_RUST=y/' "$oc/.config"
			rmake "$oc" olddefconfig >"$log/config-rust.log" 2>&1 || true
			cp "$oc/.config" "$log/config-rust"
			if [ "$(val "$oc" CONFIG_KPROBES_RUST)" != CONFIG_KPROBES_RUST=y ]; then
				r=refused-by-kconfig note="$(val "$oc" CONFIG_KPROBES_RUST)"
			elif ! diff <(grep -v KPROBES_RUST "$log/config-c") <(grep -v KPROBES_RUST "$log/config-rust") >/dev/null; then
				r=fail note="the configs differ in more than CONFIG_KPROBES_RUST"
			else
				t0=$SECONDS
				if rmake "$oc" vmlinux >"$log/build-rust.log" 2>&1; then r=ok; else r=fail; fi
				rs=$((SECONDS - t0))
			fi
		fi
	fi
	step "randconfig seed $seed: c $c (${cs}s), rust $r (${rs}s), $ny options =y${note:+; $note}"
	[ $r != fail ] || grep -E 'error' "$log/build-rust.log" 2>/dev/null | head -n 5 | sed 's/^/    /'
	python3 -c 'import json,sys; print(json.dumps(dict(seed=int(sys.argv[1]), c=sys.argv[2], rust=sys.argv[3],
		c_seconds=int(sys.argv[4]), rust_seconds=int(sys.argv[5]), options_y=int(sys.argv[6]), note=sys.argv[7],
		commit=sys.argv[8])))' "$seed" "$c" "$r" "$cs" "$rs" "$ny" "$note" "$commit" >"$log/seed.json"
	rm -rf "$oc"
done
python3 "$ROOT/tools/testing/matrix/report.py" randconfig "$RDIR" --tree "$KP_TREE" --commit "$commit" \
	--command "KP_TREE=$KP_TREE make matrix KP_MATRIX=randconfig${KP_RANDCONFIG_SEEDS:+ KP_RANDCONFIG_SEEDS=\"$KP_RANDCONFIG_SEEDS\"}"
