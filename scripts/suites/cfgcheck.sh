#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Compile check of the Rust core with clippy (the kernel's `make CLIPPY=1`
# lints), in the pipeline config and in a config that make test does
# not boot: the cfg branches that neither the pipeline nor the debug
# kernel takes (no modules, no SMP, no sysctl, as the matrix row
# `minimal-up`; no debugfs, no function tracer and so no
# KPROBES_ON_FTRACE, as `minimal-nofs`; both at once: `minimal`) must
# compile, without a rustc or clippy warning.  For each row, the rust variant's config
# (scripts/kconfig/ROW.config) is applied to a copy of the pipeline's built
# rust O= directory and only kernel/kprobes_rust/ (with the kernel crate it
# needs) is built, in $WORK/cfgcheck/.  `make matrix` builds, boots and
# tests these rows in full.
# The `cfi` row (kCFI) and `cfi-fineibt` (kCFI with CALL_PADDING's
# layout) run the core's kCFI check there (c-shim/kcfi_check.py, from
# Kbuild): every function of the core that C declares carries its C
# prototype's type id where an indirect call reads it.
#   scripts/suites/cfgcheck.sh        rows from KP_CFGCHECK_ROWS
#                                     (default: pipeline minimal cfi
#                                     cfi-fineibt; any
#                                     row of scripts/kconfig/ works)
# Checks: cfgcheck/ROW-compiles, cfgcheck/ROW-no-warnings, and for a row
# with kCFI cfgcheck/ROW-kcfi-type-ids.
. "$(dirname "$0")/../lib.sh"

seed=$(outdir rust)
[ -f "$seed/vmlinux" ] || die "no built pipeline rust kernel in $seed" "run scripts/build.sh rust first"
for row in ${KP_CFGCHECK_ROWS-pipeline minimal cfi cfi-fineibt}; do
	step "cfgcheck: $row (kernel/kprobes_rust/ only)"
	logs=$WORK/cfgcheck/logs-$row
	mkdir -p "$logs"
	t0=$SECONDS
	# The core is always compiled again (its warnings are checked below).
	rm -rf "$WORK/cfgcheck/$row-rust/kernel/kprobes_rust"
	# Two makes: the kernel crate (rust/, rebuilt for the row's config)
	# must be complete before the core compiles against it (single-directory
	# targets of one make run in parallel).  Both with CLIPPY=1: a crate
	# built by rustc would be built again by clippy-driver (the command
	# changed), and the pipeline row, whose config is the seed's, is not
	# configured again (scripts/build.sh keeps the seed's config key).
	if KP_CONFIG=$row KP_OUTPFX=$WORK/cfgcheck/$row- KP_LOGS=$logs KP_SEED=$seed \
		KP_TARGETS="CLIPPY=1 rust/" "$ROOT/scripts/build.sh" rust >"$logs/cfgcheck.log" 2>&1 &&
		KP_CONFIG=$row KP_OUTPFX=$WORK/cfgcheck/$row- KP_LOGS=$logs \
		KP_TARGETS="CLIPPY=1 kernel/kprobes_rust/" "$ROOT/scripts/build.sh" rust >>"$logs/cfgcheck.log" 2>&1; then
		info "built in $((SECONDS - t0)) s"
		echo "PASS cfgcheck/$row-compiles"
		built=1
	else
		grep -E '^error' -A 6 "$logs/build-rust.log" 2>/dev/null | head -n 20 | sed 's/^/    /'
		echo "FAIL cfgcheck/$row-compiles see $logs/build-rust.log"
		built=0
	fi
	# The kCFI check's report, written by Kbuild when it passes.
	if grep -qxE "CONFIG_CFI(_CLANG)?=y" $(frag_files "$ROOT/scripts/kconfig/$row.config"); then
		report=$WORK/cfgcheck/$row-rust/kernel/kprobes_rust/c-shim/kcfi_check.txt
		if [ -s "$report" ]; then
			info "$(head -n 1 "$report")"
			echo "PASS cfgcheck/$row-kcfi-type-ids"
		else
			grep 'kcfi_check' "$logs/build-rust.log" 2>/dev/null | head -n 10 | sed 's/^/    /'
			echo "FAIL cfgcheck/$row-kcfi-type-ids no report from c-shim/kcfi_check.py (see $logs/build-rust.log)"
		fi
	fi
	if [ "$built" = 1 ]; then
		# rustc's, clippy's and clang's warnings on the core's files.
		w=$(grep -E -A 3 '(^|: )warning' "$logs/build-rust.log" | grep -c 'kprobes_rust/' || true)
		if [ "$w" = 0 ]; then
			echo "PASS cfgcheck/$row-no-warnings"
		else
			grep -E -A 3 '(^|: )warning' "$logs/build-rust.log" | head -n 12 | sed 's/^/    /'
			echo "FAIL cfgcheck/$row-no-warnings $w warning lines in kernel/kprobes_rust/ (see $logs/build-rust.log)"
		fi
	fi
	# The row's O= copy (the logs stay).
	[ "$KP_KEEP_WORK" = 1 ] || rm -rf "$WORK/cfgcheck/$row-rust"
done
