# SPDX-License-Identifier: GPL-2.0
# attribute.py VMLINUX PCS OBJ... (run.sh count): for each line of PCS (the
# pcs gdb_count.py stepped during one call), the number of instructions,
# those in the core (functions defined in the OBJs: kernel/kprobes.o, or the
# objects of kernel/kprobes_rust/), and for the first call the core's
# instructions per function.
import bisect, subprocess, sys, collections, glob
vm, pcsf, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
out = subprocess.run(["nm", "-n", vm], capture_output=True, text=True).stdout
a, n = [], []
for l in out.splitlines():
    p = l.split()
    if len(p) == 3 and p[1] in "tTwW":
        a.append(int(p[0], 16)); n.append(p[2])
core = set()
for o in objs:
    for l in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
        p = l.split()
        if len(p) == 3 and p[1] in "tTwW": core.add(p[2])
for k, line in enumerate(open(pcsf)):
    per = collections.Counter(n[bisect.bisect_right(a, int(x, 16)) - 1] for x in line.split())
    print("call %d: %d steps, %d in the core" % (k, sum(per.values()), sum(c for f, c in per.items() if f in core)))
    if k == 0:
        for f, c in per.most_common():
            if f in core: print("   %5d %s" % (c, f.replace("_RNvNtCs4uCsQ4bENZ3_12kprobes_core", "")[:100]))
