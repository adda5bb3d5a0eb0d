#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make clients`: real kprobes clients on both kernels, compared.
#   perf probe (Debian linux-perf), bpftrace (Debian), fail_function and
#   kprobe_events with fetch args, run by tools/testing/clients/job.sh in the
#   guest of each variant.  Every step prints `KPC <step> ok|FAIL <text>`;
#   the text is canonical (no addresses, pids, timestamps), so the two
#   kernels' lines are compared verbatim.
# Output: one line per step and `clients: N steps, M differ, K failed`;
# exit status non-zero if any step differs or failed.
# A second boot per variant runs tools/testing/clients/divergence-job.sh:
# intended divergences (the C core misbehaves, the Rust core does not),
# whose lines must equal tools/testing/clients/divergences/VARIANT.kpc;
# `scripts/clients.sh --record-divergences` rewrites those files from the
# run (review the diff before committing).
# Results: build/results/clients/ (VARIANT.kpc, VARIANT.div.kpc,
# VARIANT[.div].results.log, VARIANT[.div].console.log, steps.txt,
# diff.txt, summary.txt).
# Env: KP_CLIENTS_VARIANTS (default "c rust"), KP_MEM (default 2048 here:
# the clients and their libraries add ~220 MiB to the initramfs).
. "$(dirname "$0")/lib.sh"

record=0
case ${1:-} in
--record-divergences) record=1 ;;
"") ;;
*) die "usage: scripts/clients.sh [--record-divergences]" ;;
esac
OUT=$RESULTS/clients
STAGE=$WORK/clients/extra
[ "$KP_CONFIG" = pipeline ] || STAGE=$WORK/clients-$KP_CONFIG/extra
JOB=$ROOT/tools/testing/clients/job.sh
DIVJOB=$ROOT/tools/testing/clients/divergence-job.sh
variants=${KP_CLIENTS_VARIANTS:-$VARIANTS}
mkdir -p "$OUT"

# --- the clients, with their shared libraries, for /extra/root -------------
real_elf() { # PATH: the ELF binary behind PATH (Debian may install wrappers)
	local p
	p=$(readlink -f "$1")
	if file -L "$p" | grep -q ELF; then echo "$p"; return; fi
	# a wrapper script: perf_<version> next to it
	for p in $(ls -1 "$(dirname "$p")"/"$(basename "$1")"_[0-9]* 2>/dev/null | sort -V -r); do
		if file -L "$p" | grep -q ELF; then echo "$p"; return; fi
	done
	return 1
}

# A client that cannot be had is left out; the job then fails its steps
# with the reason (the other clients still run).
need_tools() {
	if ! command -v bpftrace >/dev/null; then
		step "clients: installing bpftrace (Debian)"
		if [ "$(id -u)" = 0 ]; then apt-get install -y bpftrace >/dev/null
		else sudo apt-get install -y bpftrace >/dev/null; fi ||
			warn "cannot install bpftrace (apt-get install bpftrace, as root): its steps will fail"
	fi
	command -v perf >/dev/null ||
		warn "no perf on the host (apt-get install linux-perf): its steps will fail"
}

stage() {
	local b l c bins=() names=() fresh=1
	for c in perf bpftrace; do
		command -v $c >/dev/null || continue
		b=$(real_elf "$(command -v $c)") || { warn "no $c ELF binary behind $(command -v $c)"; continue; }
		bins+=("$b"); names+=("$c")
		[ -x "$STAGE/root/usr/bin/$c" ] && [ "$STAGE/.stamp" -nt "$b" ] || fresh=0
	done
	# idempotent: redo only when a binary (or this script) changed
	if [ $fresh = 1 ] && [ -f "$STAGE/.stamp" ] && [ "$STAGE/.stamp" -nt "$0" ]; then
		return
	fi
	step "clients: staging ${bins[*]:-nothing} with their libraries in $STAGE"
	rm -rf "$STAGE"
	mkdir -p "$STAGE/root/usr/bin" "$STAGE/root/lib64" "$STAGE/root/lib/x86_64-linux-gnu"
	for i in "${!bins[@]}"; do
		cp "${bins[$i]}" "$STAGE/root/usr/bin/${names[$i]}"
		ldd "${bins[$i]}" | awk '/=> \// { print $3 }' | while read -r l; do
			mkdir -p "$STAGE/root$(dirname "$l")"
			cp -L "$l" "$STAGE/root$l"
		done
	done
	cp -L /lib64/ld-linux-x86-64.so.2 "$STAGE/root/lib64/"
	# perf probe and bpftrace need no more (no vmlinux, no kernel headers)
	du -sh "$STAGE" | sed 's/^/    staged: /'
	touch "$STAGE/.stamp"
}

need_tools
stage
cp "$ROOT/tools/testing/clients/kpc-lib.sh" "$STAGE/kpc-lib.sh"

# --- boot each variant ---------------------------------------------------
# One variant's two boots; the variants side by side (for_variants).
boot_variant() {
	local v=$1
	check_variant "$v"
	rm -f "$OUT/$v.kpc"
	if KP_MEM=${KP_MEM:-2048} KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-900} KP_EXTRA_DIR=$STAGE \
		"$ROOT/scripts/vm.sh" "$v" "$JOB" clients; then
		:
	else
		warn "clients: the $v guest failed; see $RESULTS/$v/clients/console.log"
	fi
	cp "$RESULTS/$v/clients/results.log" "$OUT/$v.results.log" 2>/dev/null || :
	cp "$RESULTS/$v/clients/console.log" "$OUT/$v.console.log" 2>/dev/null || :
	grep -a '^KPC ' "$OUT/$v.results.log" | tr -d '\r' >"$OUT/$v.kpc" 2>/dev/null || :
	# the intended divergences, in their own boot
	rm -f "$OUT/$v.div.kpc"
	if KP_MEM=${KP_MEM:-2048} KP_VM_TIMEOUT=${KP_VM_TIMEOUT:-600} KP_EXTRA_DIR=$STAGE \
		"$ROOT/scripts/vm.sh" "$v" "$DIVJOB" clients-div; then
		:
	else
		warn "clients: the $v divergence guest failed; see $RESULTS/$v/clients-div/console.log"
	fi
	cp "$RESULTS/$v/clients-div/results.log" "$OUT/$v.div.results.log" 2>/dev/null || :
	cp "$RESULTS/$v/clients-div/console.log" "$OUT/$v.div.console.log" 2>/dev/null || :
	grep -a '^KPC ' "$OUT/$v.div.results.log" | tr -d '\r' >"$OUT/$v.div.kpc" 2>/dev/null || :
	if [ $record = 1 ]; then
		local rd=$ROOT/tools/testing/clients/divergences${TREE_DIR:+/$TREE_DIR}
		mkdir -p "$rd"
		cp "$OUT/$v.div.kpc" "$rd/$v.kpc"
		info "recorded ${rd#"$ROOT/"}/$v.kpc (review: git diff)"
	fi
}
for v in $variants; do check_variant "$v"; done
FOR_VARIANTS=$variants for_variants boot_variant || :

# --- compare -------------------------------------------------------------
step "clients: comparing $(echo $variants | sed 's/ / vs /')"
python3 "$ROOT/tools/testing/clients/compare.py" "$OUT" $variants
