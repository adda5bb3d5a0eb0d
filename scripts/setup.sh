#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install everything the pipeline needs.  Idempotent: a second run only
# checks.  Records the kernel source version actually used in
# $WORK/kernel-source-version.
. "$(dirname "$0")/lib.sh"

mkdir -p "$WORK"
stamp=$WORK/.setup-done
qemu_of() { # KP_ARCH: the QEMU system emulator its guests boot in
	case $1 in arm64) echo qemu-system-aarch64 ;; riscv64) echo qemu-system-riscv64 ;; esac
}
# The stamp is only a shortcut; every check below is cheap enough to repeat
# when the stamp is older than this script.
if [ -f "$stamp" ] && [ "$stamp" -nt "$0" ] && [ -f "$KSRC_TARBALL" ] &&
   bindgen --version 2>/dev/null | grep -qF "bindgen $BINDGEN_VERSION" && command -v cbindgen >/dev/null &&
   command -v qemu-system-x86_64 >/dev/null &&
   { [ "$KLLVM" = 1 ] || command -v "clang$KLLVM" >/dev/null; } &&
   { [ "$KP_ARCH" = x86_64 ] || { command -v "$(qemu_of "$KP_ARCH")" >/dev/null &&
     [ -x "$WORK/busybox-$KP_ARCH/bin/busybox" ]; }; }; then
	step "setup: already done ($(cat "$WORK/kernel-source-version"))"
	exit 0
fi

DEBS="clang lld llvm libclang-dev flex bison bc libelf-dev libssl-dev cpio
      qemu-system-x86 busybox-static kmod rsync python3 git make gcc xz-utils
      file diffutils linux-perf bpftrace python3-ply python3-git"
# python3-ply and python3-git: the kernel's scripts/spdxcheck.py, which
# checkpatch.pl runs on each patch's SPDX lines (make test).

need_root() {
	[ "$(id -u)" = 0 ] || die "setup needs root to install Debian packages" \
		"run 'sudo make setup' once, or install: $DEBS $KSRC_PKG"
}

missing=
for p in $DEBS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
# dpkg-query fails for a package it has never seen (a new machine): that is
# "not installed", not an error (set -e and pipefail would end the script
# silently here).
have_src=$( (dpkg-query -W -f='${Status} ${Version}' "$KSRC_PKG" 2>/dev/null || true) |
	sed -n 's/^install ok installed //p')

# LLVM of the tree's or the config's version (7.3 needs LLVM >= 17;
# bookworm's default clang is 14).  bindgen's libclang is pinned to it
# (scripts/lib.sh), so the LLVMs share a machine.
if [ "$KLLVM" != 1 ]; then
	for p in clang$KLLVM lld$KLLVM llvm$KLLVM libclang$KLLVM-dev; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
	done
fi
# A tree from a suite the machine's apt sources do not list is downloaded
# (ksrc_download below), not installed: only the installed package counts.
[ -z "$KSRC_SUITE" ] || have_src=$KSRC_PIN

if [ -n "$missing" ] || [ "$have_src" != "$KSRC_PIN" ]; then
	need_root
	step "setup: apt-get update"
	apt-get update -qq || die "apt-get update failed" "check the network / Debian mirror"
fi
if [ -n "$missing" ]; then
	step "setup: installing Debian packages:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >"$WORK/apt.log" 2>&1 ||
		die "apt-get install failed (log: $WORK/apt.log)" "apt-get install$missing"
fi

if [ "$have_src" != "$KSRC_PIN" ]; then
	step "setup: installing $KSRC_PKG=$KSRC_PIN"
	if apt-cache madison "$KSRC_PKG" | awk '{print $3}' | grep -qx "$KSRC_PIN"; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades \
			"$KSRC_PKG=$KSRC_PIN" >"$WORK/apt.log" 2>&1 ||
			die "installing $KSRC_PKG=$KSRC_PIN failed (log: $WORK/apt.log)"
	else
		warn "##############################################################"
		warn "$KSRC_PKG $KSRC_PIN is no longer in the archive."
		warn "Falling back to the newest 6.12.y the archive offers.  Results"
		warn "and the patch series are then against THAT version (recorded in"
		warn "$WORK/kernel-source-version and in every result file)."
		warn "##############################################################"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$KSRC_PKG" >"$WORK/apt.log" 2>&1 ||
			die "installing $KSRC_PKG failed (log: $WORK/apt.log)" "apt-get install $KSRC_PKG"
	fi
fi
# debian_mirror: the Debian mirror the machine's apt sources name.
debian_mirror() {
	local uri
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
	[ -n "$uri" ] || uri=$(sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null |
		grep -v security | head -n 1)
	echo "$uri"
}
# apt_download DIR SUITE ARCH PACKAGE: the package's .deb of SUITE for ARCH
# into DIR, through a sources list of DIR's own (the system's apt state is
# not touched).
apt_download() { # ... [HINT]: what else to do by hand without a mirror
	local d=$1 suite=$2 arch=$3 pkg=$4 uri
	uri=$(debian_mirror)
	[ -n "$uri" ] || die "no Debian mirror in the machine's apt sources" \
		"download $pkg ($suite, $arch) by hand${5:+ and $5}"
	rm -rf "$d"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" >"$d/sources.list"
	local -a o=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache"
		-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch")
	apt-get "${o[@]}" update -qq >"$WORK/apt.log" 2>&1 ||
		die "apt-get update of $suite failed (log: $WORK/apt.log)"
	(cd "$d" && apt-get "${o[@]}" download "$pkg" >>"$WORK/apt.log" 2>&1) ||
		die "apt-get download $pkg ($suite, $arch) failed (log: $WORK/apt.log)"
}
# ksrc_download: $KSRC_PKG=$KSRC_PIN from $KSRC_SUITE, unpacked into
# $WORK/src.
ksrc_download() {
	local d=$WORK/src/apt deb
	[ -n "$(debian_mirror)" ] || die "no Debian mirror in the machine's apt sources" \
		"download $KSRC_PKG=$KSRC_PIN ($KSRC_SUITE) and unpack its tarball to $KSRC_TARBALL"
	step "setup: downloading $KSRC_PKG=$KSRC_PIN ($KSRC_SUITE)"
	apt_download "$d" "$KSRC_SUITE" "$(dpkg --print-architecture)" "$KSRC_PKG=$KSRC_PIN"
	deb=$(ls "$d"/"${KSRC_PKG}"_*.deb)
	rm -rf "$d/x"
	dpkg-deb -x "$deb" "$d/x"
	mv "$d/x/usr/src/$KSRC_PKG.tar.xz" "$KSRC_TARBALL"
	echo "$KSRC_PIN" >"$WORK/src/version"
	rm -rf "$d"
}
if [ -n "$KSRC_SUITE" ]; then
	mkdir -p "$WORK/src"
	[ -f "$KSRC_TARBALL" ] && [ "$(cat "$WORK/src/version" 2>/dev/null)" = "$KSRC_PIN" ] || ksrc_download
	cp "$WORK/src/version" "$WORK/kernel-source-version"
else
	[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing after installing $KSRC_PKG"
	dpkg-query -W -f='${Version}\n' "$KSRC_PKG" >"$WORK/kernel-source-version"
fi

command -v cargo >/dev/null || die "cargo not found" "install the Rust toolchain with rustup"
if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
	step "setup: rustup component add rust-src"
	rustup component add rust-src || die "rustup component add rust-src failed"
fi
if ! cargo clippy --version >/dev/null 2>&1; then
	step "setup: rustup component add clippy"
	rustup component add clippy || die "rustup component add clippy failed"
fi
if ! rustfmt --version >/dev/null 2>&1; then
	step "setup: rustup component add rustfmt"
	rustup component add rustfmt || die "rustup component add rustfmt failed"
fi
# Miri runs the host tests (make test) on a pinned nightly; the kernel
# build keeps the machine's stable rustc.
if ! rustup run "$MIRI_TOOLCHAIN" cargo miri --version >/dev/null 2>&1; then
	step "setup: rustup toolchain install $MIRI_TOOLCHAIN with miri and rust-src (a few minutes)"
	rustup toolchain install "$MIRI_TOOLCHAIN" --profile minimal --component miri,rust-src \
		>"$WORK/miri-install.log" 2>&1 ||
		die "installing $MIRI_TOOLCHAIN with miri failed (log: $WORK/miri-install.log)"
fi
# bindgen: the tree's version, first on PATH (scripts/lib.sh: $TOOLS).
if ! bindgen --version 2>/dev/null | grep -qF "bindgen $BINDGEN_VERSION"; then
	step "setup: cargo install --locked bindgen-cli --version $BINDGEN_VERSION --root $TOOLS (a few minutes)"
	cargo install --locked bindgen-cli --version "$BINDGEN_VERSION" --root "$TOOLS" >"$WORK/bindgen-install.log" 2>&1 ||
		die "cargo install bindgen-cli failed (log: $WORK/bindgen-install.log)"
fi

if ! cbindgen --version 2>/dev/null | grep -q '0\.27\.0'; then
	step "setup: cargo install --locked cbindgen --version 0.27.0 (a few minutes)"
	cargo install --locked cbindgen --version 0.27.0 >"$WORK/cbindgen-install.log" 2>&1 ||
		die "cargo install cbindgen failed (log: $WORK/cbindgen-install.log)"
fi

# arm64 (a config with `# kp-arch: arm64`): QEMU for aarch64 and an arm64
# busybox-static.  Debian's busybox-static is not Multi-Arch, so
# busybox-static:arm64 would replace the amd64 one the x86_64 guests use:
# its .deb is unpacked into $WORK/busybox-arm64 instead (scripts/vm.sh).
if [ "$KP_ARCH" = arm64 ]; then
	if ! command -v qemu-system-aarch64 >/dev/null; then
		need_root
		step "setup: installing qemu-system-arm"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-arm >"$WORK/apt.log" 2>&1 ||
			die "apt-get install qemu-system-arm failed (log: $WORK/apt.log)"
	fi
	if [ ! -x "$WORK/busybox-arm64/bin/busybox" ]; then
		need_root
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			step "setup: dpkg --add-architecture arm64; apt-get update"
			dpkg --add-architecture arm64
			apt-get update -qq || die "apt-get update failed"
		fi
		step "setup: busybox-static:arm64 (downloaded and unpacked into $WORK/busybox-arm64)"
		d=$(mktemp -d "$WORK/bb.XXXXXX")
		(cd "$d" && apt-get download busybox-static:arm64 >"$WORK/apt.log" 2>&1) ||
			die "apt-get download busybox-static:arm64 failed (log: $WORK/apt.log)"
		rm -rf "$WORK/busybox-arm64"
		dpkg-deb -x "$d"/busybox-static_*_arm64.deb "$WORK/busybox-arm64"
		rm -rf "$d"
		file "$WORK/busybox-arm64/bin/busybox" | grep -q 'ARM aarch64.*statically linked' ||
			die "$WORK/busybox-arm64/bin/busybox is not a static arm64 binary"
	fi
fi

# riscv64 (`# kp-arch: riscv64`): QEMU's riscv64 system emulator
# (qemu-system-misc, with OpenSBI in qemu-system-data) and a riscv64
# busybox-static, which bookworm does not build (riscv64 became an
# official architecture in trixie): trixie's .deb, downloaded through a
# sources list of its own and unpacked into $WORK/busybox-riscv64.
if [ "$KP_ARCH" = riscv64 ]; then
	if ! command -v qemu-system-riscv64 >/dev/null ||
	   [ ! -f /usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin ]; then
		need_root
		step "setup: installing qemu-system-misc qemu-system-data"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-misc qemu-system-data \
			>"$WORK/apt.log" 2>&1 ||
			die "apt-get install qemu-system-misc qemu-system-data failed (log: $WORK/apt.log)"
	fi
	if [ ! -x "$WORK/busybox-riscv64/bin/busybox" ]; then
		step "setup: busybox-static:riscv64 of trixie (downloaded and unpacked into $WORK/busybox-riscv64)"
		d=$WORK/busybox-riscv64.apt
		apt_download "$d" trixie riscv64 busybox-static
		rm -rf "$WORK/busybox-riscv64"
		dpkg-deb -x "$d"/busybox-static_*_riscv64.deb "$d/x"
		# trixie's is /usr/bin/busybox (merged /usr); vm.sh takes bin/busybox
		mkdir -p "$WORK/busybox-riscv64/bin"
		mv "$d/x/usr/bin/busybox" "$WORK/busybox-riscv64/bin/busybox"
		rm -rf "$d"
		file "$WORK/busybox-riscv64/bin/busybox" | grep -q 'RISC-V.*statically linked' ||
			die "$WORK/busybox-riscv64/bin/busybox is not a static riscv64 binary"
	fi
fi

# The pinned tarball is unpacked and checked with `make rustavailable` by
# scripts/kernel-tree.sh, which needs the tree; nothing more to do here.
touch "$stamp"
step "setup: done (kernel source $(cat "$WORK/kernel-source-version"))"
