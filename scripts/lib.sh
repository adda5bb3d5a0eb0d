# SPDX-License-Identifier: GPL-2.0
# Common definitions for the project's scripts.  Source it; do not run it.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything generated lives below $WORK (git-ignored): the kernel tree,
# the O= build directories, initramfs images, serial logs and results.
WORK=${KP_WORK:-$ROOT/build}
KSRC=$WORK/linux
RESULTS=$WORK/results

# The kernel source everything is built from.  Pinned; see scripts/setup.sh
# for the fallback when the pinned version is no longer in the archive.
KSRC_PKG=linux-source-6.12
KSRC_PIN=6.12.117-1~deb12u1
KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz

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
	make -C "$KSRC" O="$WORK/out-$v" LLVM=1 -j"$JOBS" "$@"
}

outdir() { echo "$WORK/out-$1"; }

check_variant() {
	case " $VARIANTS " in *" $1 "*) ;; *) die "unknown variant '$1'" "use one of: $VARIANTS" ;; esac
}
