# SPDX-License-Identifier: GPL-2.0
# Common definitions for the project's scripts.  Source it; do not run it.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything generated lives below $WORK (git-ignored): the kernel tree,
# the O= build directories, initramfs images, serial logs and results.
WORK=${KP_WORK:-$ROOT/build}
KSRC=$WORK/linux

# The kernel configuration: scripts/kconfig/$KP_CONFIG.config (default
# `pipeline`, the one `make run`, the suites and the bench use).  Each
# config has its own O= directories and results: the pipeline's are
# $WORK/out-VARIANT and $WORK/results, any other's
# $WORK/out-CONFIG-VARIANT and $WORK/results/matrix/CONFIG.
KP_CONFIG=${KP_CONFIG:-pipeline}
KCONFIG_FRAG=$ROOT/scripts/kconfig/$KP_CONFIG.config
if [ "$KP_CONFIG" = pipeline ]; then
	OUTPFX=$WORK/out-
	RESULTS=$WORK/results
else
	OUTPFX=$WORK/out-$KP_CONFIG-
	RESULTS=$WORK/results/matrix/$KP_CONFIG
fi
# KP_OUTPFX: the O= directories' prefix instead (scripts/suites/cfgcheck.sh).
OUTPFX=${KP_OUTPFX:-$OUTPFX}

# The kernel source everything is built from.  Pinned; see scripts/setup.sh
# for the fallback when the pinned version is no longer in the archive.
KSRC_PKG=linux-source-6.12
KSRC_PIN=6.12.117-1~deb12u1
KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
# The nightly that runs Miri on the host tests (make test, scripts/setup.sh).
MIRI_TOOLCHAIN=${KP_MIRI_TOOLCHAIN:-nightly-2026-05-20}

# A config fragment may include others and carry directives, in comment
# lines: `# kp-include: NAME` (merged before its own lines, recursively),
# `# kp-base: TARGET` (the starting config: tinyconfig (default), defconfig,
# debian), `# kp-mem: MiB`, `# kp-smp: N`, `# kp-cmdline: ARGS`,
# `# kp-tcg: OPTS` (QEMU `-accel tcg,OPTS` when TCG is used, scripts/vm.sh),
# `# kp-targets: TARGETS` (build only these).
frag_files() { # [FRAGMENT]: the included fragments, then the fragment
	local f=${1:-$KCONFIG_FRAG} inc
	for inc in $(sed -n 's/^# kp-include: *//p' "$f"); do
		frag_files "$ROOT/scripts/kconfig/$inc.config"
	done
	echo "$f"
}
frag_directive() { # NAME: its value in the config's fragments (the last one given)
	local f v last=
	for f in $(frag_files); do
		v=$(sed -n "s/^# kp-$1: *//p" "$f" | tail -n 1)
		[ -z "$v" ] || last=$v
	done
	echo "$last"
}

# The target architecture: `# kp-arch: arm64` in the config's fragments
# (scripts/kconfig/arm64.config) cross-builds with ARCH=arm64 LLVM=1 and
# boots with qemu-system-aarch64; without it, the host's x86_64 as before.
KP_ARCH=$(frag_directive arch 2>/dev/null || true)
KP_ARCH=${KP_ARCH:-x86_64}
case $KP_ARCH in
x86_64) KARCH_ARGS=() KIMAGE_TARGET=bzImage KIMAGE_PATH=arch/x86/boot/bzImage ;;
arm64)	KARCH_ARGS=(ARCH=arm64) KIMAGE_TARGET=Image KIMAGE_PATH=arch/arm64/boot/Image ;;
*)	echo "unknown kp-arch '$KP_ARCH'" >&2; exit 1 ;;
esac

VARIANTS="c rust"
JOBS=${KP_JOBS:-$(nproc)}

export PATH="$HOME/.cargo/bin:$PATH"

if [ -t 1 ]; then _b=$'\e[1m'; _r=$'\e[31m'; _y=$'\e[33m'; _n=$'\e[0m'; else _b= _r= _y= _n=; fi

# step MESSAGE: a progress line, with a timestamp so slow steps are visible.
step() { printf '%s==> [%s] %s%s\n' "$_b" "$(date +%H:%M:%S)" "$*" "$_n"; }
info() { printf '    %s\n' "$*"; }
warn() { printf '%s*** WARNING: %s%s\n' "$_y" "$*" "$_n" >&2; }
# die MESSAGE [HINT]: stop with what failed and how to fix it.
die() {
	printf '%s*** ERROR: %s%s\n' "$_r" "$1" "$_n" >&2
	[ $# -lt 2 ] || printf '    fix: %s\n' "$2" >&2
	exit 1
}

# kmake VARIANT ARGS...: make in the kernel tree for one variant's O= dir.
kmake() {
	local v=$1; shift
	make -C "$KSRC" O="$(outdir "$v")" ${KARCH_ARGS[@]+"${KARCH_ARGS[@]}"} LLVM=1 -j"$JOBS" "$@"
}

outdir() { echo "$OUTPFX$1"; }

# config_has VARIANT CONFIG_NAME: is the option =y (or =m) in the variant's
# .config?
config_has() { grep -qE "^$2=(y|m)$" "$(outdir "$1")/.config"; }

check_variant() {
	case " $VARIANTS " in *" $1 "*) ;; *) die "unknown variant '$1'" "use one of: $VARIANTS" ;; esac
}

# build_test_modules SRC_MOD_DIR BUILD_DIR FILE...: builds the out-of-tree
# modules of SRC_MOD_DIR against the c variant's O= directory in
# BUILD_DIR/mod (log BUILD_DIR/build.log; compiler warnings are shown) and
# copies FILE... (relative to BUILD_DIR/mod, or absolute) to BUILD_DIR/extra,
# which becomes the guest's /extra (KP_EXTRA_DIR).
build_test_modules() { build_variant_modules c "$@"; }

# build_variant_modules VARIANT SRC_MOD_DIR BUILD_DIR FILE...: the same
# against VARIANT's O= directory (modules using API only one variant has,
# such as the jprobes tests).
build_variant_modules() {
	local v=$1 src=$2 b=$3 f; shift 3
	rm -rf "$b/mod" "$b/extra"
	mkdir -p "$b/mod" "$b/extra"
	cp "$src"/* "$b/mod/"
	kmake "$v" M="$b/mod" modules >"$b/build.log" 2>&1 ||
		{ tail -n 20 "$b/build.log" >&2; die "module build failed (log: $b/build.log)"; }
	! grep -E 'warning:|error:' "$b/build.log" >&2 || warn "compiler warnings above (log: $b/build.log)"
	for f in "$@"; do
		case $f in /*) cp "$f" "$b/extra/" ;; *) cp "$b/mod/$f" "$b/extra/" ;; esac
	done
}

# for_variants FUNC [ARGS...]: `FUNC VARIANT ARGS...` for each of $VARIANTS
# (or $FOR_VARIANTS), side by side: every guest runs under single-threaded
# TCG (or one KVM vCPU thread per vCPU), so on two host CPUs the c and the
# rust guest of a suite take the time of one.  Each call's standard output
# is kept and printed in the variants' order once all have ended, so that
# result lines never interleave; progress on standard error may.  Returns
# non-zero if any call did.  KP_PARALLEL=0 (or a one-CPU host) runs them one
# after the other.  FUNC runs in a subshell: it cannot set the caller's
# variables (write files instead).
for_variants() {
	local fn=$1 vs=${FOR_VARIANTS:-$VARIANTS} v rc=0 d p
	shift
	if [ "${KP_PARALLEL:-1}" = 0 ] || [ "$(nproc)" -lt 2 ]; then
		for v in $vs; do "$fn" "$v" "$@" || rc=1; done
		return $rc
	fi
	# The accelerator probe (scripts/vm.sh) runs once, before the guests.
	"$ROOT/scripts/vm.sh" --accel >/dev/null
	d=$(mktemp -d "$WORK/for-variants.XXXXXX")
	local -a pids=()
	for v in $vs; do
		"$fn" "$v" "$@" >"$d/$v.out" &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	for v in $vs; do cat "$d/$v.out"; done
	rm -rf "$d"
	return $rc
}
