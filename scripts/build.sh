#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one or more variants: scripts/build.sh [c] [rust]
#   c     upstream kernel/kprobes.c       (CONFIG_KPROBES_RUST off)
#   rust  this project's core            (CONFIG_KPROBES_RUST=y)
# Same source tree, separate O= directories ($WORK/out-VARIANT), the same
# config except CONFIG_KPROBES_RUST.  Incremental: the config is regenerated
# only when the fragment changes, and make does the rest.
. "$(dirname "$0")/lib.sh"

FRAG=$ROOT/scripts/kconfig/pipeline.config
LOGS=$WORK/logs
mkdir -p "$LOGS"

# run_logged LOG CMD...: run a long command with its output in LOG, printing
# a heartbeat every 30 s; on failure show the log's tail and its path.
run_logged() {
	local log=$1 pid rc=0 t=0; shift
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5; t=$((t + 5))
		if [ $((t % 30)) = 0 ]; then
			info "[$(date +%H:%M:%S)] ... ${t}s: $(tail -n1 "$log" | cut -c1-100)"
		fi
	done
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ]; then
		grep -n -E 'error|Error' "$log" | tail -n 20 >&2 || true
		tail -n 15 "$log" >&2
		die "'$*' failed (exit $rc); full log: $log"
	fi
}

configure() { # VARIANT
	local v=$1 o frag_v want
	o=$(outdir "$v")
	frag_v=$o/kprobes-variant.config
	mkdir -p "$o"
	if [ "$v" = rust ]; then want="CONFIG_KPROBES_RUST=y"; else want="# CONFIG_KPROBES_RUST is not set"; fi
	{ cat "$FRAG"; echo "$want"; } >"$frag_v.new"
	local key
	key=$(cat "$frag_v.new" "$WORK/kernel-source-version" | sha256sum | cut -c1-16)
	if [ -f "$o/.config" ] && [ "$(cat "$o/.kp-config-key" 2>/dev/null)" = "$key" ]; then
		rm -f "$frag_v.new"
		info "config: unchanged"
		return
	fi
	mv "$frag_v.new" "$frag_v"
	step "build[$v]: configuring (tinyconfig + scripts/kconfig/pipeline.config)"
	run_logged "$LOGS/config-$v.log" kmake "$v" tinyconfig
	run_logged "$LOGS/merge-$v.log" "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$frag_v"
	run_logged "$LOGS/olddefconfig-$v.log" kmake "$v" olddefconfig
	# Every requested value must have stuck.
	local bad=0 line name
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) name=${line%%=*} ;;
		"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *} ;;
		*) continue ;;
		esac
		if ! grep -qxF "$line" "$o/.config"; then
			if [ "${line#\#}" != "$line" ] && ! grep -q "^$name=" "$o/.config"; then continue; fi
			warn "config[$v]: wanted '$line', got '$(grep -E "^(# )?$name[= ]" "$o/.config" || echo "(absent)")'"
			bad=1
		fi
	done <"$frag_v"
	[ $bad = 0 ] || die "config for variant $v does not have the requested options" \
		"see the warnings above; fix scripts/kconfig/pipeline.config (dependencies)"
	echo "$key" >"$o/.kp-config-key"
}

build() { # VARIANT
	local v=$1 o
	o=$(outdir "$v")
	configure "$v"
	step "build[$v]: make bzImage modules (log: $LOGS/build-$v.log)"
	local t0=$SECONDS
	run_logged "$LOGS/build-$v.log" kmake "$v" bzImage modules
	rm -rf "$o/mod-install"
	run_logged "$LOGS/modinst-$v.log" kmake "$v" INSTALL_MOD_PATH="$o/mod-install" modules_install
	step "build[$v]: done in $((SECONDS - t0))s: $o/arch/x86/boot/bzImage ($(kmake "$v" -s kernelrelease))"
}

[ $# -gt 0 ] || set -- $VARIANTS
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/kernel-tree.sh"
if [ ! -f "$WORK/.rustavailable" ] || [ "$WORK/.rustavailable" -ot "$WORK/.setup-done" ]; then
	step "build: checking 'make LLVM=1 rustavailable'"
	make -C "$KSRC" LLVM=1 rustavailable 2>&1 | tail -n 3 | sed 's/^/    /'
	make -s -C "$KSRC" LLVM=1 rustavailable >/dev/null 2>&1 ||
		die "the kernel says Rust is not available" \
		    "run 'make -C $KSRC LLVM=1 rustavailable' for details; 'make setup' installs rust-src and bindgen"
	touch "$WORK/.rustavailable"
fi
for v in "$@"; do
	check_variant "$v"
	build "$v"
done
