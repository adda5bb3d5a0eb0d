#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot one variant's kernel in QEMU and run a guest job:
#   scripts/vm.sh VARIANT JOB_SCRIPT NAME [KERNEL-CMDLINE-EXTRA...]
# Userspace is a busybox-static initramfs (docs/testing.md, "The harness")
# holding the variant's modules, the ftrace selftests and tools/testing/guest.
# Two serial ports: ttyS0 = kernel console, ttyS1 = the job's output (arm64,
# `# kp-arch: arm64`: qemu-system-aarch64 -M virt, whose one PL011 ttyAMA0
# is the console and a virtio console hvc0 the job's output; riscv64 the
# same with qemu-system-riscv64 -M virt's one 16550, ttyS0).  Both
# are kept in $RESULTS/VARIANT/NAME/{console,results}.log.  The guest
# reboots when the job ends and QEMU (-no-reboot) exits; a hard timeout
# (KP_VM_TIMEOUT, default 1200 s) kills a hung guest.
# Env: KP_ACCEL=tcg|kvm (default: probe once, see below), KP_ICOUNT=1 for
# deterministic instruction-count timing, KP_LIVE=1 to print the job output
# while it runs, KP_SMP (default 2), KP_MEM (default 1024 MiB), KP_CONFIG
# (scripts/lib.sh), KP_APPEND (more kernel parameters, e.g.
# rcupdate.rcu_normal=1), KP_QEMU_EXTRA (more QEMU arguments, split on
# blanks, e.g. "-gdb tcp::1301 -S").
. "$(dirname "$0")/lib.sh"

# `scripts/vm.sh --accel` prints the accelerator the guests use (probing it
# once, see below), so that guests started side by side do not all probe.
probe_only=0
if [ "${1:-}" = --accel ]; then probe_only=1; set -- c "$0" accel; fi
[ $# -ge 3 ] || die "usage: scripts/vm.sh VARIANT JOB_SCRIPT NAME [CMDLINE...]"
v=$1 job=$2 name=$3; shift 3
check_variant "$v"
o=$(outdir "$v")
kimg=$o/$KIMAGE_PATH
[ -f "$kimg" ] || die "no kernel image for variant $v ($kimg)" "run 'scripts/build.sh $v'"
[ -f "$job" ] || die "no job script $job"
rel=$(cat "$o/include/config/kernel.release")
rdir=$RESULTS/$v/$name
[ $probe_only = 1 ] || mkdir -p "$rdir"
timeout_s=${KP_VM_TIMEOUT:-1200}
# The config's fragments may ask for more memory (KASAN, kmemleak), fewer
# vCPUs (a !SMP kernel) or kernel parameters (scripts/lib.sh).
SMP=${KP_SMP:-$(frag_directive smp)}; SMP=${SMP:-2}
MEM=${KP_MEM:-$(frag_directive mem)}; MEM=${MEM:-1024}
CMDLINE=$(frag_directive cmdline)

# --- initramfs -------------------------------------------------------------
make_initramfs() { # OUT JOB
	local out=$1 job=$2 st
	st=$(mktemp -d "$WORK/initramfs.XXXXXX")
	mkdir -p "$st"/{bin,sbin,dev,proc,sys,tmp,kpt,kselftest,lib/modules,etc}
	# arm64: Debian's busybox-static:arm64 cannot be installed beside the
	# amd64 one (not Multi-Arch), so set-up unpacks its .deb into $WORK.
	local bb=/bin/busybox
	[ "$KP_ARCH" = x86_64 ] || bb=${KP_BUSYBOX:-$WORK/busybox-$KP_ARCH/bin/busybox}
	cp "$bb" "$st/bin/busybox"
	file -L "$st/bin/busybox" | grep -q 'statically linked' ||
		die "$bb is not static" "apt-get install busybox-static"
	cp "$ROOT/tools/testing/guest/init" "$st/init"
	cp "$ROOT"/tools/testing/guest/*.sh "$st/kpt/"
	cp "$job" "$st/job.sh"
	if [ -d "$o/mod-install/lib/modules/$rel" ]; then
		cp -a "$o/mod-install/lib/modules/$rel" "$st/lib/modules/"
	fi
	# Extra files for the job (e.g. the other variant's modules) below
	# $KP_EXTRA_DIR land in /extra.
	if [ -n "${KP_EXTRA_DIR:-}" ]; then cp -a "$KP_EXTRA_DIR" "$st/extra"; fi
	cp -a "$KSRC/tools/testing/selftests/ftrace" "$st/kselftest/ftrace"
	echo "root:x:0:0:root:/:/bin/sh" >"$st/etc/passwd"
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out"
	# /dev/console must exist before init runs; gen_init_cpio makes the node
	# without needing root.
	printf 'nod /dev/console 0600 0 0 c 5 1\n' >"$st.list"
	"$o/usr/gen_init_cpio" "$st.list" >>"$out"
	rm -rf "$st" "$st.list"
}

# --- accelerator -----------------------------------------------------------
# The KVM device on these machines is a paravirtual nested KVM on which a
# stock guest hangs before printing anything.  Probe it once per machine:
# boot with KVM and a job that only prints a marker; no marker within 30 s
# (or no usable /dev/kvm) means TCG.  The verdict is cached in $WORK/.accel.
qemu_cmd() { # ACCEL INITRD CONSOLE RESULTS CMDLINE-EXTRA...: sets QEMU=(...)
	local accel=$1 initrd=$2 con=$3 res=$4; shift 4
	local console=ttyS0
	case $KP_ARCH in
	x86_64) QEMU=(qemu-system-x86_64 -machine pc -accel "$accel") ;;
	# KP_ARM64_MACHINE/KP_ARM64_CPU: another board or CPU, e.g.
	# virt,virtualization=on and max,pauth=off to boot at EL2 with VHE
	# (docs/arm64.md).
	arm64)	QEMU=(qemu-system-aarch64 -machine "${KP_ARM64_MACHINE:-virt}"
			-cpu "${KP_ARM64_CPU:-cortex-a57}" -accel "$accel") console=ttyAMA0 ;;
	# riscv64: the virt board boots OpenSBI (qemu-system-data's, QEMU's
	# default -bios), which starts the kernel in S-mode; its 16550 is ttyS0.
	riscv64) QEMU=(qemu-system-riscv64 -machine virt -cpu rv64 -bios default -accel "$accel") ;;
	esac
	[ "${KP_ICOUNT:-0}" = 1 ] && QEMU+=(-icount shift=0,align=off,sleep=off)
	QEMU+=(-smp "$SMP" -m "$MEM" -kernel "$kimg" -initrd "$initrd"
		-append "console=$console panic=-1 kpt.variant=$v kpt.config=$KP_CONFIG $CMDLINE ${KP_APPEND:-} $*"
		-no-reboot -display none -monitor none -nodefaults
		-serial "file:$con")
	case $KP_ARCH in
	x86_64) QEMU+=(-serial "file:$res") ;;
	# virt has one PL011: the results port is a virtio console (hvc0)
	arm64|riscv64) QEMU+=(-device virtio-serial-device -chardev "file,id=kpres,path=$res"
			-device virtconsole,chardev=kpres) ;;
	esac
	# shellcheck disable=SC2206 # split on blanks: several arguments
	QEMU+=(${KP_QEMU_EXTRA:-})
}

accel() {
	if [ -n "${KP_ACCEL:-}" ]; then echo "$KP_ACCEL"; return; fi
	local a
	# No KVM for another architecture than the host's.
	if [ "$KP_ARCH" = x86_64 ]; then a=$(probe_accel); else a=tcg; fi
	# Under TCG a config may ask for a mode (`# kp-tcg: thread=single` for
	# JUMP_LABEL kernels: docs/testing.md); KVM is left alone.
	if [ "$a" = tcg ] && [ -n "$(frag_directive tcg)" ]; then a="tcg,$(frag_directive tcg)"; fi
	echo "$a"
}

probe_accel() {
	if [ -f "$WORK/.accel" ]; then cat "$WORK/.accel"; return; fi
	local a=tcg
	if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		local p=$WORK/kvm-probe
		mkdir -p "$p"
		echo 'echo KPT-KVM-PROBE-OK' >"$p/job.sh"
		make_initramfs "$p/initramfs.cpio" "$p/job.sh"
		: >"$p/results.log"
		qemu_cmd kvm "$p/initramfs.cpio" "$p/console.log" "$p/results.log"
		timeout -k 5 30 "${QEMU[@]}" </dev/null >"$p/qemu.log" 2>&1 || true
		if grep -q KPT-KVM-PROBE-OK "$p/results.log"; then a=kvm; fi
		info "KVM probe: $([ $a = kvm ] && echo 'KVM works' || echo "KVM guest hung or failed (log: $p/console.log), using TCG")" >&2
	else
		info "no usable /dev/kvm: using TCG" >&2
	fi
	echo "$a" >"$WORK/.accel"
	echo "$a"
}

acc=$(accel)
if [ $probe_only = 1 ]; then echo "$acc"; exit 0; fi
[ "${KP_ICOUNT:-0}" = 1 ] && acc=tcg   # -icount needs TCG (and runs one vCPU thread)
make_initramfs "$rdir/initramfs.cpio" "$job"
con=$rdir/console.log res=$rdir/results.log
: >"$con"; : >"$res"
step "vm[$KP_CONFIG/$v]: $name ($acc, $SMP vCPUs${KP_ICOUNT:+, icount}); logs in $rdir"
rc=0
qemu_cmd "$acc" "$rdir/initramfs.cpio" "$con" "$res" "$@"
echo "${QEMU[*]}" >"$rdir/qemu.cmd"
timeout -k 10 "$timeout_s" "${QEMU[@]}" </dev/null >"$rdir/qemu.log" 2>&1 &
qpid=$!
# If this script is interrupted or killed, do not leave the guest running.
# The initramfs is made again for every run (a clients guest's is hundreds
# of MiB): kept only with KP_KEEP_WORK=1, whether the guest passed or not.
trap 'kill "$qpid" 2>/dev/null || true; [ "$KP_KEEP_WORK" = 1 ] || rm -f "$rdir/initramfs.cpio"' EXIT
if [ "${KP_LIVE:-0}" = 1 ]; then
	tail -n +1 -f --pid=$qpid "$res" &
fi
wait $qpid || rc=$?
[ "${KP_LIVE:-0}" = 1 ] && sleep 0.3
if [ $rc = 124 ] || [ $rc = 137 ]; then
	warn "vm[$v]: $name timed out after ${timeout_s}s"
	tail -n 20 "$con" >&2
	die "guest did not finish; console log: $con, job output: $res"
fi
if [ $rc != 0 ]; then
	cat "$rdir/qemu.log" >&2
	die "qemu exited with $rc; console log: $con, qemu log: $rdir/qemu.log"
fi
if ! grep -q '^KPT-JOB-EXIT ' "$res"; then
	tail -n 30 "$con" >&2
	die "vm[$v]: $name: the job did not complete (kernel panic or init died?); console log: $con" \
	    "look at the end of $con for the panic / oops"
fi
step "vm[$KP_CONFIG/$v]: $name finished ($(grep '^KPT-JOB-EXIT ' "$res"))"
