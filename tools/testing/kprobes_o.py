#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare how the functions of upstream kernel/kprobes.o can be probed on
the two variants of one config (section `kprobes-o` of each guest test run,
written by tools/testing/guest/test-job.sh).

    kprobes_o.py RESULTS_C_LOG RESULTS_RUST_LOG OUT_DIFF

Each line of the section is `NAME absent`, `NAME refused` or `NAME ok
+OFFSET FLAGS` (where kprobes/list shows the probe defined at NAME: +0x4
past an endbr64 with IBT, and its flags, such as [FTRACE]).  Every function that exists by name in both kernels must have
the same outcome.  Functions the Rust kernel has no text symbol for (static
helpers of kprobes.c that the Rust core inlines or names otherwise) are
counted, not compared.

Prints one line: `PASS|FAIL name detail`; OUT_DIFF gets the differences
and the names found in one kernel only.
"""
import sys

NAME = "differential/kprobes-o-functions-probe-alike"


def outcomes(path):
    d, on = {}, False
    for line in open(path, errors="replace"):
        line = line.strip()
        if line == "### kprobes-o":
            on = True
        elif line.startswith("### "):
            on = False
        elif on and line:
            n, _, o = line.partition(" ")
            d[n] = o
    return d


def main():
    c, r = outcomes(sys.argv[1]), outcomes(sys.argv[2])
    if not c or not r:
        print("FAIL %s no kprobes-o section in the %s run" % (NAME, "c" if not c else "rust"))
        return
    present = lambda d, n: d.get(n, "absent") != "absent"
    both = sorted(n for n in c if present(c, n) and present(r, n))
    differ = ["%s: c %s, rust %s" % (n, c[n], r[n]) for n in both if c[n] != r[n]]
    only_c = sorted(n for n in c if present(c, n) and not present(r, n))
    only_r = sorted(n for n in r if present(r, n) and not present(c, n))
    with open(sys.argv[3], "w") as f:
        for l in differ + ["only in c: " + n for n in only_c] + ["only in rust: " + n for n in only_r]:
            f.write(l + "\n")
    detail = "%d functions in both kernels (%d probed, %d refused), %d only in c" % (
        len(both), sum(c[n].startswith("ok") for n in both), sum(c[n] == "refused" for n in both), len(only_c))
    if differ:
        for d in differ[:20]:
            print(d, file=sys.stderr)
        print("FAIL %s %d differ; %s; see %s" % (NAME, len(differ), detail, sys.argv[3]))
    elif len(both) < 10:
        print("FAIL %s only %d functions compared; %s" % (NAME, len(both), detail))
    else:
        print("PASS %s %s" % (NAME, detail))


main()
