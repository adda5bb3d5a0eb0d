# SPDX-License-Identifier: GPL-2.0
# The `make run` demo job: probes firing on the booted kernel.
. /kpt/lib.sh
echo "== $(uname -r) on $(cat /sys/devices/system/cpu/online | tr -d '\n') CPUs online; kprobes core: $(sed -n 's/.*kpt.variant=\([a-z]*\).*/\1/p' /proc/cmdline)"
echo "== kprobes/enabled: $(cat $D/kprobes/enabled)"
echo
echo "== insmod kprobe_example.ko kretprobe_example.ko (samples/kprobes, probing kernel_clone)"
dmesg_mark
modprobe kprobe_example && modprobe kretprobe_example
# The first argument's register: %di on x86_64, %x0 on arm64, %a0 on riscv64.
case $(uname -m) in aarch64) a1=%x0 ;; riscv64) a1=%a0 ;; *) a1=%di ;; esac
echo "p:demo/open do_sys_openat2 dfd=$a1" > $T/kprobe_events
echo 'r:demo/open_ret do_sys_openat2 ret=$retval' >> $T/kprobe_events
echo 1 > $T/events/demo/enable
# A mid-function probe the jump optimizer takes (x86_64 only: arm64 and
# riscv64 have no OPTPROBES; decided by the architecture, not by the sysctl, which a config
# without SYSCTL lacks while its optimizer runs).
[ "$(uname -m)" = x86_64 ] && optimized_probe demo/mid kernel_clone
echo
echo "== /sys/kernel/debug/kprobes/list"
cat $D/kprobes/list
echo
echo "== trigger: fork (kernel_clone), open (do_sys_openat2)"
/bin/true; cat /proc/version >/dev/null
echo 0 > $T/events/demo/enable
echo "== handler output of the sample modules (dmesg):"
dmesg | grep -E 'kernel_clone|Planted' | head -n 6
echo "== kprobe_events trace:"
for e in open open_ret mid; do grep -m 2 " $e:" $T/trace; done
echo > $T/kprobe_events
rmmod kretprobe_example kprobe_example
echo "== after unregistering, kprobes/list has $(wc -l < $D/kprobes/list) entries"
