#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one or more variants: scripts/build.sh [c] [rust]
#   c     upstream kernel/kprobes.c       (CONFIG_KPROBES_RUST off)
#   rust  this project's core            (CONFIG_KPROBES_RUST=y)
# Same source tree, separate O= directories (scripts/lib.sh: outdir), the
# same config except CONFIG_KPROBES_RUST.  KP_CONFIG names the config
# (scripts/kconfig/$KP_CONFIG.config, default pipeline).  Incremental: the
# config is regenerated only when the fragments change, and make does the
# rest.  The rust variant's first build starts from a copy of the c
# variant's built O= directory: Kbuild's fixdep tracks dependencies per
# config symbol, so only what reads CONFIG_KPROBES_RUST is rebuilt.
# Environment (scripts/suites/cfgcheck.sh): KP_TARGETS builds only these
# make targets; KP_SEED seeds a never-built rust O= directory from that
# built one instead; KP_OUTPFX (scripts/lib.sh) and KP_LOGS move the O=
# directories and the logs.
. "$(dirname "$0")/lib.sh"

[ -f "$KCONFIG_FRAG" ] || die "no config '$KP_CONFIG' ($KCONFIG_FRAG)" \
	"KP_CONFIG names a file of scripts/kconfig/ (without .config)"
LOGS=${KP_LOGS:-$WORK/logs/$KP_CONFIG}
mkdir -p "$LOGS"

BASE=$(frag_directive base)
BASE=${BASE:-tinyconfig}

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
	# The rust variant also has the jprobes layer (it only adds API; the
	# configs still differ only in CONFIG_KPROBES_RUST*), unless the row
	# turns it off (kCFI: its Kconfig excludes jprobes).
	if [ "$v" != rust ]; then want="# CONFIG_KPROBES_RUST is not set"
	elif grep -qx "# CONFIG_KPROBES_RUST_JPROBES is not set" $(frag_files "$KCONFIG_FRAG"); then
		want="CONFIG_KPROBES_RUST=y"
	else want="CONFIG_KPROBES_RUST=y
CONFIG_KPROBES_RUST_JPROBES=y"; fi
	# With built-in KUnit, also the core's own KUnit suites, where the
	# tree has their option (mainline's).
	if [ "$v" = rust ] && grep -qx "config KPROBES_RUST_KUNIT_TEST" "$KSRC/arch/Kconfig" &&
		[ "$(cat $(frag_files "$KCONFIG_FRAG") | grep -E '^(# )?CONFIG_KUNIT[= ]' | tail -n 1)" = CONFIG_KUNIT=y ]; then
		want="$want
CONFIG_KPROBES_RUST_KUNIT_TEST=y"
	fi
	{ cat $(frag_files "$KCONFIG_FRAG"); echo "$want"; } >"$frag_v.new"
	local key
	key=$(cat "$frag_v.new" "$WORK/kernel-source-version" | sha256sum | cut -c1-16)
	if [ -f "$o/.config" ] && [ "$(cat "$o/.kp-config-key" 2>/dev/null)" = "$key" ]; then
		rm -f "$frag_v.new"
		info "config: unchanged"
		return
	fi
	mv "$frag_v.new" "$frag_v"
	step "build[$KP_CONFIG/$v]: configuring ($BASE + scripts/kconfig/$KP_CONFIG.config)"
	base_config "$v"
	echo "$want" >"$o/kprobes-variant-only.config"
	# Fragments in order (merge_config.sh lets a later one override).
	run_logged "$LOGS/merge-$v.log" "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" \
		$(frag_files "$KCONFIG_FRAG") "$o/kprobes-variant-only.config"
	run_logged "$LOGS/olddefconfig-$v.log" kmake "$v" olddefconfig
	# Every requested value must have stuck (the last one given for an
	# option: a fragment may override what it includes).
	local bad=0 line name seen=" "
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) name=${line%%=*} ;;
		"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *} ;;
		*) continue ;;
		esac
		case $seen in *" $name "*) continue ;; esac
		seen="$seen$name "
		if ! grep -qxF "$line" "$o/.config"; then
			if [ "${line#\#}" != "$line" ] && ! grep -q "^$name=" "$o/.config"; then continue; fi
			warn "config[$v]: wanted '$line', got '$(grep -E "^(# )?$name[= ]" "$o/.config" || echo "(absent)")'"
			bad=1
		fi
	done < <(tac "$frag_v")
	[ $bad = 0 ] || die "config $KP_CONFIG for variant $v does not have the requested options" \
		"see the warnings above; fix scripts/kconfig/$KP_CONFIG.config (dependencies)"
	echo "$key" >"$o/.kp-config-key"
}

# base_config VARIANT: the starting .config.
base_config() {
	local v=$1
	case $BASE in
	debian)
		# Debian's own amd64 config (package linux-config-6.12).
		local deb=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
		[ -f "$deb" ] || die "no $deb" "apt-get install linux-config-6.12 (make setup does)"
		xz -dc "$deb" >"$(outdir "$v")/.config"
		run_logged "$LOGS/config-$v.log" kmake "$v" olddefconfig ;;
	*)	run_logged "$LOGS/config-$v.log" kmake "$v" "$BASE" ;;
	esac
}

# seed_from_c: a rust O= directory that was never built starts as a copy of
# the built c one (see the top of this file), or of the built O= directory
# KP_SEED names (scripts/suites/cfgcheck.sh: another config's).
seed_from_c() {
	local oc or
	oc=${KP_SEED:-$(outdir c)} or=$(outdir rust)
	[ ! -f "$or/.config" ] && [ -f "$oc/vmlinux" ] && [ -f "$oc/.kp-config-key" ] || return 0
	step "build[$KP_CONFIG/rust]: starting from a copy of $oc"
	rm -rf "$or.tmp"
	mkdir -p "$(dirname "$or")"
	cp -a "$oc/." "$or.tmp"
	# Its config key stays: configure() compares it with this variant's
	# and config's own, so a c seed (another variant) or another config's
	# seed is configured again, a seed of the same config and variant
	# (cfgcheck's pipeline row) is not.
	mv "$or.tmp" "$or"
}

build() { # VARIANT
	local v=$1 o
	o=$(outdir "$v")
	[ "$v" != rust ] || seed_from_c
	configure "$v"
	local targets t0=$SECONDS
	targets=${KP_TARGETS:-$(frag_directive targets)}
	if [ -n "$targets" ]; then
		# A build-only row (`# kp-targets:`): just those targets.
		step "build[$KP_CONFIG/$v]: make $targets (log: $LOGS/build-$v.log)"
		run_logged "$LOGS/build-$v.log" kmake "$v" $targets
	elif config_has "$v" CONFIG_MODULES; then
		step "build[$KP_CONFIG/$v]: make $KIMAGE_TARGET modules (log: $LOGS/build-$v.log)"
		run_logged "$LOGS/build-$v.log" kmake "$v" "$KIMAGE_TARGET" modules
		rm -rf "$o/mod-install"
		run_logged "$LOGS/modinst-$v.log" kmake "$v" INSTALL_MOD_PATH="$o/mod-install" modules_install
	else
		step "build[$KP_CONFIG/$v]: make $KIMAGE_TARGET (log: $LOGS/build-$v.log)"
		run_logged "$LOGS/build-$v.log" kmake "$v" "$KIMAGE_TARGET"
		rm -rf "$o/mod-install"
	fi
	echo $((SECONDS - t0)) >"$o/.kp-build-seconds"
	step "build[$KP_CONFIG/$v]: done in $((SECONDS - t0))s: $o ($(kmake "$v" -s kernelrelease))"
}

[ $# -gt 0 ] || set -- $VARIANTS
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/kernel-tree.sh"
ra=$WORK/.rustavailable-$KP_ARCH-llvm$KLLVM
if [ ! -f "$ra" ] || [ "$ra" -ot "$WORK/.setup-done" ]; then
	step "build: checking 'make ${KARCH_ARGS[*]+${KARCH_ARGS[*]} }LLVM=$KLLVM rustavailable'"
	make -C "$KSRC" ${KARCH_ARGS[@]+"${KARCH_ARGS[@]}"} LLVM=$KLLVM rustavailable 2>&1 | tail -n 3 | sed 's/^/    /'
	make -s -C "$KSRC" ${KARCH_ARGS[@]+"${KARCH_ARGS[@]}"} LLVM=$KLLVM rustavailable >/dev/null 2>&1 ||
		die "the kernel says Rust is not available" \
		    "run 'make -C $KSRC LLVM=$KLLVM rustavailable' for details; 'make setup' installs rust-src and bindgen"
	touch "$ra"
fi
for v in "$@"; do
	check_variant "$v"
	build "$v"
done
