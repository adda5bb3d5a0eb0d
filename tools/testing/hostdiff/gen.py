#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen.py SEED N: a random operation sequence for the host differential.

Prints N operations (plus a fixed cleanup tail) in the grammar of MODEL.md.
The sequence is legal kprobes API use, with deliberate bad input (unknown
symbols, offsets off an instruction boundary, blacklisted and data
addresses, both/neither of addr and symbol, re-registration of a live probe,
unregister/enable/disable of probes that are not registered, bad maxactive
and data_size, bad sysctl and debugfs values), but never what is undefined
in C: a live probe object is never re-initialized, and a kretprobe is only
unregistered while registered (upstream dereferences rp->rh).
Same SEED and N, same output (Python's random.Random is stable)."""

import random
import sys

NK, NR = 16, 8

# Probe points: mostly good ones, a hot set to make aggregates likely.
HOT = ["f2+8", "f2+12", "f2+0", "f1+0", "f0+0", "f4+4", "f2+4", "f9+0"]
GOOD = HOT + ["f1+4", "f1+8", "f2+0x3c", "f3+0", "f3+4", "f3+9", "f3+12", "f4+0", "f4+8",
              "f4+12", "f7+0xc", "f7+4", "f9+4", "f9+0x2c", "m0_fn+0", "m0_fn+8",
              "m0_fn2+4", "m0_fn2+0", "m0_init+0", "m0_init+4", "init_fn+0", "init_fn+8"]
BAD = ["f3+8", "f2+2", "f7+0x10", "f7+0x20", "blacklisted_fn+0", "blacklisted_fn+4",
       "kprobes_fn+4", "noinstr_fn+0", "__pfx_f9+0", "blacklisted_fn.cold+4", "entry_fn+8",
       "data_var+0", "0xffffffff81000300", "f2+0x40", "f9+0x30", "m0_bl+0", "f2+0x100",
       "0xffffffffc0000100"]
ENTRIES = ["f0", "f1", "f2", "f4", "f9", "m0_fn", "m0_fn2", "f3", "init_fn"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.out = []
        self.klive = [False] * NK
        self.kused = [False] * NK
        self.rlive = [False] * NR
        self.mod = "none"          # none | coming | live
        self.init_freed = False
        self.frames = 0

    def emit(self, s):
        self.out.append(s)

    def place(self):
        r = self.r.random()
        if r < 0.55:
            return self.r.choice(HOT)
        if r < 0.88:
            return self.r.choice(GOOD)
        return self.r.choice(BAD)

    def location_spec(self):
        """The probe address fields: sym=/addr=/off=."""
        loc = self.place()
        r = self.r.random()
        name, _, off = loc.partition("+")
        off = off or "0"
        if loc.startswith("0x"):
            return f"addr={loc}"
        if r < 0.60:
            return f"sym={name} off={off}"
        if r < 0.88:
            return f"addr={loc}"
        if r < 0.93:
            return f"addr={name} off={off}"
        if r < 0.95:
            return f"sym={name} addr={loc}"        # both: -EINVAL
        if r < 0.97:
            return ""                              # neither: -EINVAL
        return f"sym=no_such_fn off={off}"         # -ENOENT

    def kspec(self):
        s = [self.location_spec()]
        r = self.r.random()
        if r < 0.10:
            pass
        elif r < 0.75:
            s.append("pre=ok")
        elif r < 0.82:
            s.append("pre=ret1")
        else:
            s.append("pre=hit:" + self.r.choice(HOT))
        if self.r.random() < 0.3:
            s.append("post=ok")
        if self.r.random() < 0.15:
            s.append("disabled")
        return " ".join(x for x in s if x)

    def rspec(self):
        r = self.r.random()
        if r < 0.8:
            s = f"sym={self.r.choice(ENTRIES)}"
        elif r < 0.9:
            s = f"addr={self.r.choice(ENTRIES)}+0"
        elif r < 0.95:
            s = f"sym={self.r.choice(ENTRIES)} off=4"   # not an entry: -EINVAL
        else:
            s = self.location_spec()
        ma = self.r.choice([0, 0, 1, 1, 2, 3, 5, -1, 16777217])
        data = self.r.choice([0, 0, 8, 16, 5000])
        entry = self.r.choice(["none", "none", "ok", "ok", "ret1"])
        handler = "none" if self.r.random() < 0.1 else "ok"
        extra = " disabled" if self.r.random() < 0.1 else ""
        return f"{s} maxactive={ma} data={data} entry={entry} handler={handler}{extra}".strip()

    def free_k(self):
        c = [i for i in range(NK) if not self.klive[i]]
        return self.r.choice(c) if c else None

    def live_k(self):
        c = [i for i in range(NK) if self.klive[i]]
        return self.r.choice(c) if c else None

    def any_k(self):
        k = self.live_k()
        if k is None or self.r.random() < 0.15:
            return self.r.randrange(NK)
        return k

    # The driver's liveness rules (MODEL.md): ret == 0 -> all live; else the
    # ones that were live before stay live and the others are not.  The
    # generator cannot know return codes, so it mirrors them by asking the
    # same question the kernel does only where it is certain; otherwise it
    # treats the object as possibly-live and only ever uses it in ways that
    # are defined either way (unreg/enable/disable/rereg of a kprobe).
    def op(self):
        r = self.r.random()
        e = self.emit
        if r < 0.20:
            k = self.free_k()
            if k is None:
                return
            e(f"reg K{k} {self.kspec()}")
            self.klive[k] = None            # unknown (ret not known here)
        elif r < 0.24:
            k = self.r.randrange(NK)
            e(f"rereg K{k}")
            if self.klive[k] is False:
                self.klive[k] = None
        elif r < 0.29:
            n = self.r.randrange(0, 5)
            ks = []
            for _ in range(n):
                k = self.free_k() if self.r.random() < 0.9 else self.r.randrange(NK)
                if k is None:
                    break
                if self.klive[k] is False and k not in ks:
                    e(f"set K{k} {self.kspec()}")
                ks.append(k)
            e("regs " + " ".join(f"K{k}" for k in ks))
            for k in ks:
                if self.klive[k] is False:
                    self.klive[k] = None
        elif r < 0.38:
            k = self.any_k()
            e(f"unreg K{k}")
            self.klive[k] = False
        elif r < 0.41:
            ks = sorted({self.any_k() for _ in range(self.r.randrange(0, 4))})
            e("unregs " + " ".join(f"K{k}" for k in ks))
            for k in ks:
                self.klive[k] = False
        elif r < 0.47:
            e(f"{self.r.choice(['enable', 'disable'])} K{self.any_k()}")
        elif r < 0.53:
            c = [i for i in range(NR) if self.rlive[i] is False]
            i = self.r.choice(c) if c and self.r.random() < 0.9 else self.r.randrange(NR)
            e(f"kret-reg R{i} {self.rspec()}")
            self.rlive[i] = None
        elif r < 0.545:
            e(f"{self.r.choice(['kret-enable', 'kret-disable'])} R{self.r.randrange(NR)}")
        elif r < 0.56:
            if self.r.random() < 0.7:
                i = self.r.randrange(NR)
                e(f"kret-unreg R{i}")
                self.rlive[i] = False
            else:
                rs = sorted({self.r.randrange(NR) for _ in range(self.r.randrange(1, 4))})
                e("kret-unregs " + " ".join(f"R{i}" for i in rs))
                for i in rs:
                    self.rlive[i] = False
        elif r < 0.75:
            e(f"hit {self.r.choice(HOT) if self.r.random() < 0.8 else self.place()}")
            self.frames += 1
        elif r < 0.79:
            e("ret")
        elif r < 0.85:
            e("optimize")
        elif r < 0.87:
            e("optimize-wait")
        elif r < 0.89:
            e(f"sysctl-opt {self.r.choice(['0', '1', '1', '2'])}")
        elif r < 0.91:
            e(f"debugfs-enabled {self.r.choice(['0', '1', '1', 'x'])}")
        elif r < 0.915:
            e("debugfs-read-enabled")
        elif r < 0.93:
            if self.mod == "none":
                e("module-load m0")
                self.mod = "coming"
            elif self.mod == "coming" and self.r.random() < 0.6:
                e("module-init-done m0")
                self.mod = "live"
            else:
                e("module-unload m0")
                self.mod = "none"
        elif r < 0.932:
            if not self.init_freed:
                e("free-init")
                self.init_freed = True
        elif r < 0.95:
            e("dump-list")
        elif r < 0.955:
            e(self.r.choice(["dump-blacklist", "dump-kallsyms"]))
        else:
            which = f"K{self.any_k()}" if self.r.random() < 0.8 else f"R{self.r.randrange(NR)}"
            e(f"{self.r.choice(['flags', 'nmissed'])} {which}")

    def run(self, n):
        if self.r.random() < 0.7:
            self.emit("module-load m0")
            self.mod = "coming"
        while len(self.out) < n:
            self.op()
        return self.out


def sequence(seed, n):
    lines = Gen(seed).run(n)
    # Cleanup tail: everything registered goes, the optimizer settles, and
    # `check` shows what is left in the text (nothing, unless a core leaks).
    lines += ["unregs " + " ".join(f"K{i}" for i in range(NK)), "kret-unreg-live",
              "sysctl-opt 1", "debugfs-enabled 1", "optimize-wait", "ret", "ret", "ret",
              "dump-list", "check"]
    return "".join(line + "\n" for line in lines)


def main():
    # gen.py SEED N                      one sequence on stdout
    # gen.py SEED N COUNT DIR            DIR/seq-<seed>.txt for SEED..SEED+COUNT-1
    a = sys.argv[1:]
    if len(a) == 2:
        sys.stdout.write(sequence(int(a[0]), int(a[1])))
    elif len(a) == 4:
        for seed in range(int(a[0]), int(a[0]) + int(a[2])):
            with open(f"{a[3]}/seq-{seed}.txt", "w") as f:
                f.write(sequence(seed, int(a[1])))
    else:
        sys.exit("usage: gen.py SEED N [COUNT DIR]")


if __name__ == "__main__":
    main()
