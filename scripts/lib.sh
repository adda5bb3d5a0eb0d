# SPDX-License-Identifier: GPL-2.0
# Common definitions for the project's scripts.  Source it; do not run it.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The kernel tree: KP_TREE=7.3 (mainline, the series' target and the
# default) or 6.12 (the LTS backport).  What differs between the trees is
# named here (source package, toolchain, work directory), in
# rust-core/tree/, c-shim/tree_*.c, scripts/series/TREE/,
# scripts/kconfig/TREE/ and tools/testing/expectations/TREE/.  The files
# were 6.12's first: a TREE/ directory holds what 7.3 changes of them.
PRIMARY_TREE=7.3
KP_TREE=${KP_TREE:-$PRIMARY_TREE}
export KP_TREE
case $KP_TREE in
6.12)
	# Pinned; see scripts/setup.sh for the fallback when the pinned version
	# is no longer in the archive.
	KSRC_PKG=linux-source-6.12 KSRC_PIN=6.12.117-1~deb12u1 KSRC_SUITE=
	KTREE_ID=v6_12 KLLVM=1 LLVM_DIR=/usr/lib/llvm-14 BINDGEN_VERSION=0.69.5
	TREE_DIR= ;;
7.3)
	# From Debian's trixie-backports, which the machine's apt sources need
	# not list: scripts/setup.sh downloads it with a sources list of its own.
	KSRC_PKG=linux-source-7.3 KSRC_PIN=7.3.4-1~bpo13+1 KSRC_SUITE=trixie-backports
	KTREE_ID=v7_3 KLLVM=-19 LLVM_DIR=/usr/lib/llvm-19 BINDGEN_VERSION=0.72.1
	TREE_DIR=7.3 ;;
*)	echo "unknown KP_TREE '$KP_TREE' (7.3 or 6.12)" >&2; exit 1 ;;
esac
KSRC_TARBALL=/usr/src/$KSRC_PKG.tar.xz
# bindgen of the tree's version, installed with `cargo install --root`
# so that the trees' versions live side by side (scripts/setup.sh).
TOOLS=${KP_TOOLS:-$HOME/.cargo/kp-tools}/bindgen-$BINDGEN_VERSION

# Everything generated lives below $WORK (git-ignored): the kernel tree,
# the O= build directories, initramfs images, serial logs and results;
# build/ for 6.12, build/TREE/ for another tree.
WORK=${KP_WORK:-$ROOT/build${TREE_DIR:+/$TREE_DIR}}
KSRC=$WORK/linux
if [ -n "$TREE_DIR" ]; then
	KSRC_TARBALL=$WORK/src/$KSRC_PKG.tar.xz
fi

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
# The names of the checks of this tree and config start with CHECK_PFX:
# nothing for the primary tree's pipeline, `CONFIG/` for another config,
# and `TREE/` before that for the backport tree.
CHECK_PFX=
[ "$KP_TREE" = "$PRIMARY_TREE" ] || CHECK_PFX=$KP_TREE/
[ "$KP_CONFIG" = pipeline ] || CHECK_PFX="$CHECK_PFX$KP_CONFIG/"
# The tree's committed expectations (ftracetest results, scenario lists):
# tools/testing/expectations/, and TREE/ below it for another tree.
EXPECT=$ROOT/tools/testing/expectations${TREE_DIR:+/$TREE_DIR}

# The nightly that runs Miri on the host tests (make test, scripts/setup.sh).
MIRI_TOOLCHAIN=${KP_MIRI_TOOLCHAIN:-nightly-2026-05-20}

# A config fragment may include others and carry directives, in comment
# lines: `# kp-include: NAME` (merged before its own lines, recursively),
# `# kp-base: TARGET` (the starting config: tinyconfig (default), defconfig,
# debian), `# kp-mem: MiB`, `# kp-smp: N`, `# kp-cmdline: ARGS`,
# `# kp-tcg: OPTS` (QEMU `-accel tcg,OPTS` when TCG is used, scripts/vm.sh),
# `# kp-targets: TARGETS` (build only these), `# kp-llvm: SUFFIX` (below).
frag_files() { # [FRAGMENT]: the included fragments, then the fragment
	local f=${1:-$KCONFIG_FRAG} inc
	for inc in $(sed -n 's/^# kp-include: *//p' "$f"); do
		frag_files "$ROOT/scripts/kconfig/$inc.config"
	done
	echo "$f"
	# What a tree changes of a fragment: scripts/kconfig/TREE/NAME.config,
	# merged right after it.
	[ -z "$TREE_DIR" ] || [ ! -f "$ROOT/scripts/kconfig/$TREE_DIR/${f##*/}" ] ||
		echo "$ROOT/scripts/kconfig/$TREE_DIR/${f##*/}"
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
# (scripts/kconfig/arm64.config) cross-builds with ARCH=arm64 and boots
# with qemu-system-aarch64, `# kp-arch: riscv64` (riscv64.config) with
# ARCH=riscv and qemu-system-riscv64; without it, the host's x86_64.
KP_ARCH=$(frag_directive arch 2>/dev/null || true)
KP_ARCH=${KP_ARCH:-x86_64}
# The toolchain (scripts/setup.sh installs it): the tree's LLVM for
# `make LLVM=$KLLVM`, or the config's (`# kp-llvm: -19`: 6.12's kCFI needs
# clang >= 16, which its LLVM 14 is not), and bindgen's libclang pinned to
# it, as clang-sys otherwise loads the newest libclang installed.
KP_LLVM=$(frag_directive llvm 2>/dev/null || true)
[ -z "$KP_LLVM" ] || KLLVM=$KP_LLVM LLVM_DIR=/usr/lib/llvm$KP_LLVM
export LIBCLANG_PATH=$LLVM_DIR/lib

case $KP_ARCH in
x86_64) KARCH_ARGS=() KIMAGE_TARGET=bzImage KIMAGE_PATH=arch/x86/boot/bzImage ;;
arm64)	KARCH_ARGS=(ARCH=arm64) KIMAGE_TARGET=Image KIMAGE_PATH=arch/arm64/boot/Image ;;
riscv64) KARCH_ARGS=(ARCH=riscv) KIMAGE_TARGET=Image KIMAGE_PATH=arch/riscv/boot/Image ;;
*)	echo "unknown kp-arch '$KP_ARCH'" >&2; exit 1 ;;
esac

VARIANTS="c rust"

# Disk: a machine's free space varies, and a full disk fails whatever step
# meets it.  KP_KEEP_WORK=0, the default when CI is set, removes what a step
# made once no later step reads it: a guest's initramfs after the guest,
# cfgcheck's O= copies after their row, a config pair's O= directories
# (and another tree's kernel tree) after the pair.  KP_KEEP_WORK=1, the
# default otherwise, keeps them for incremental re-runs and by-hand
# debugging.
if [ -n "${CI:-}" ]; then KP_KEEP_WORK=${KP_KEEP_WORK:-0}; else KP_KEEP_WORK=${KP_KEEP_WORK:-1}; fi
case $KP_KEEP_WORK in 0|1) ;; *) echo "KP_KEEP_WORK must be 0 or 1, not '$KP_KEEP_WORK'" >&2; exit 1 ;; esac
export KP_KEEP_WORK
# free_mb DIR: the free space of DIR's file system, in MiB.
free_mb() { df -Pm "$1" | awk 'NR == 2 { print $4 }'; }
JOBS=${KP_JOBS:-$(nproc)}

export PATH="$TOOLS/bin:$HOME/.cargo/bin:$PATH"

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
	make -C "$KSRC" O="$(outdir "$v")" ${KARCH_ARGS[@]+"${KARCH_ARGS[@]}"} LLVM="$KLLVM" -j"$JOBS" "$@"
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
