#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-function instruction counts of two runs of insn_count.so (C and
Rust kernels), largest difference first:

    per_symbol.py C_COUNTS C_SYSTEM_MAP RUST_COUNTS RUST_SYSTEM_MAP [MIN]

Addresses above the kernel image (modules) count as `[module]`; only
functions with at least MIN (default 10,000) executions on either kernel
are listed."""
import bisect
import collections
import sys


def per_symbol(counts, system_map):
    syms = sorted((int(a, 16), n) for a, t, n in
                  (line.split()[:3] for line in open(system_map)) if t in "tTwW")
    addrs = [a for a, _ in syms]
    total = collections.Counter()
    for line in open(counts):
        addr, n = line.split()
        addr = int(addr, 16)
        i = bisect.bisect_right(addrs, addr) - 1
        name = syms[i][1] if i >= 0 and addr < 0xffffffffa0000000 else "[module]"
        total[name] += int(n)
    return total


def main():
    c = per_symbol(sys.argv[1], sys.argv[2])
    r = per_symbol(sys.argv[3], sys.argv[4])
    least = int(sys.argv[5]) if len(sys.argv) > 5 else 10000
    names = [k for k in set(c) | set(r) if max(c[k], r[k]) >= least]
    names.sort(key=lambda k: -abs(r[k] - c[k]))
    print("%-50s %14s %14s %12s" % ("function", "C", "Rust", "Rust - C"))
    for k in names:
        if r[k] != c[k]:
            print("%-50s %14d %14d %+12d" % (k[:50], c[k], r[k], r[k] - c[k]))


main()
