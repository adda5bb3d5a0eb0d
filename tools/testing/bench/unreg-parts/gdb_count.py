# SPDX-License-Identifier: GPL-2.0
# gdb -batch -ex "python PORT='1301'; OUT='pcs.txt'" -x gdb_count.py vmlinux
# (run.sh count): attaches to QEMU's gdb stub, and at each of the three
# unregister_kprobe() calls single-steps until the call returns, writing
# every pc stepped (one line per call; other tasks' code too, if the call
# sleeps: attribute.py sorts it out).  Under icount one step is one guest
# instruction.  Then it detaches: the guest's job runs to its end.
import gdb
gdb.execute("set pagination off")
gdb.execute("set confirm off")
import time
for attempt in range(120):  # vm.sh builds the initramfs before QEMU listens
    try:
        gdb.execute("target remote :%s" % PORT)
        break
    except gdb.error:
        time.sleep(1)
else:
    raise gdb.GdbError("no gdb stub on port %s" % PORT)
gdb.execute("hbreak unregister_kprobe")
out = open(OUT, "w")
# Only the module's calls: the boot's (the KUnit suite's) return to vmlinux
# text, below x86_64's module area.
MODULES_VADDR = 0xffffffffa0000000
for call in range(3):
    while True:
        gdb.execute("continue")
        sp = int(gdb.parse_and_eval("$sp"))
        ret = int(gdb.parse_and_eval("*(unsigned long *)$sp"))
        if ret >= MODULES_VADDR:
            break
    pcs = []
    while True:
        pc = int(gdb.parse_and_eval("$pc"))
        if pc == ret and int(gdb.parse_and_eval("$sp")) == sp + 8:
            break
        pcs.append(pc)
        gdb.execute("stepi", to_string=True)
        if len(pcs) > 400000:
            break
    out.write(" ".join("%x" % p for p in pcs) + "\n")
    out.flush()
gdb.execute("delete")
gdb.execute("detach")
