#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""classify.py C_TRACE RUST_TRACE: compare the two traces of one sequence.

Prints one line and exits with:
  0  identical      the compared lines are identical
  1  real ...       a divergence that is not explained by a recorded
                    upstream anomaly (a bug of the port or of the Rust core)
  3  intended ...   a divergence explained by a recorded upstream anomaly
                    (MODEL.md section 5, README "Intended divergences")

Compared lines (MODEL.md section 4): all lines, except `  ?` lines (pure
arch queries) unless KP_HOSTDIFF_STRICT=1; with KP_HOSTDIFF_LOOSE=1 the
`  ~` lines (grace periods, work queue) are ignored too.

A divergence is "intended" only if ALL of these hold:
  - the C trace contains an operation whose event lines show one of the
    recorded upstream-anomaly signatures below (the first such operation
    is the "anomaly op");
  - the first differing compared line belongs to the anomaly op or to a
    later operation (the traces are identical before the anomaly);
  - the Rust trace of the anomaly op does NOT show that signature (the
    Rust core does the right thing there);
  - the Rust driver exited 0 (checked by the caller, hostdiff.sh).
Everything else is "real".

Signatures (one operation's event lines in the C trace):
  finding-1  an ftrace aggregate disarmed through the wrong ftrace_ops:
             `ftrace_set_filter_ip ipmodify_ops A remove=1 reset=0 = -2`
             immediately followed by `WARN` (upstream's WARN_ONCE "Failed to
             disarm kprobe-ftrace"); the unregister then leaves the probe
             registered (`!leaked`).
  finding-3  enable of an optimized probe whose unoptimization is queued:
             `arch_arm_kprobe A` immediately followed by
             `!text int3-on-jump A` (an int3 over the first byte of the live
             jump at A).
  finding-5  enable_kprobe() while kprobes/enabled is 0 returns 0 but
             leaves the probe (or its aggregate) disabled for good: the
             drivers' note `!enable K3 returned 0 but the probe stays
             disabled` (README "Intended divergences" 2).
Finding 2 (re-registration by addr+offset) is skipped by the driver and
finding 4 (kretprobe unregister without rethook) is never done, so neither
has a signature here.
"""

import os
import re
import sys

SIGNATURES = [
    ("finding-1 (ftrace aggregate disarmed through kprobe_ipmodify_ops)",
     re.compile(r"^  ftrace_set_filter_ip ipmodify_ops (\S+) remove=1 reset=0 = -2$"),
     lambda m: re.compile(r"^  WARN$")),
    ("finding-3 (enable_kprobe() arms an int3 over a live optimized jump)",
     re.compile(r"^  arch_arm_kprobe (\S+)$"),
     lambda m: re.compile(r"^  !text int3-on-jump " + re.escape(m.group(1)) + r"$")),
    ("finding-5 (enable_kprobe() while kprobes/enabled is 0 leaves the probe disabled)",
     re.compile(r"^  !enable (\S+) returned 0 but the probe stays disabled$"),
     None),
]


def compared(line):
    if os.environ.get("KP_HOSTDIFF_STRICT", "0") == "1":
        return True
    if line.startswith("  ?"):
        return False
    if os.environ.get("KP_HOSTDIFF_LOOSE", "0") == "1" and line.startswith("  ~"):
        return False
    return True


def read(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def ops(lines):
    """The operations: lists of lines, each starting with its `> ` line."""
    out = []
    for l in lines:
        if l.startswith("> ") or not out:
            out.append([])
        out[-1].append(l)
    return out


def signature(block):
    """The first recorded signature in one operation's lines, or None."""
    for name, first, second in SIGNATURES:
        for i, l in enumerate(block):
            m = first.match(l)
            if not m:
                continue
            if second is None or (i + 1 < len(block) and second(m).match(block[i + 1])):
                return name
    return None


def verdict(c_trace, rust_trace):
    """(0, "identical") | (1, "real: ...") | (3, "intended: ...")."""
    c, r = read(c_trace), read(rust_trace)
    fc, fr = [l for l in c if compared(l)], [l for l in r if compared(l)]
    if fc == fr:
        return 0, "identical"
    k = 0
    while k < len(fc) and k < len(fr) and fc[k] == fr[k]:
        k += 1
    # The operation of the first difference: the common prefix has the same
    # `> ` lines on both sides; the difference belongs to the last of them.
    diff_op = sum(1 for l in fc[:k] if l.startswith("> ")) - 1
    first = f"line {k + 1}: c {fc[k] if k < len(fc) else '<end>'!r} rust {fr[k] if k < len(fr) else '<end>'!r}"
    cops, rops = ops(c), ops(r)
    for i, block in enumerate(cops):
        sig = signature(block)
        if not sig:
            continue
        where = f"op {i} '{block[0]}'"
        if diff_op < i:
            return 1, f"real: first difference (op {diff_op}) before the upstream anomaly {sig} at {where}; {first}"
        if i < len(rops) and rops[i][:1] == block[:1] and signature(rops[i]) == sig:
            return 1, f"real: the Rust trace shows the upstream anomaly {sig} too at {where}; {first}"
        return 3, f"intended: {sig} at {where}; first difference in op {diff_op}"
    return 1, f"real: no recorded upstream anomaly in the C trace; first difference in op {diff_op}; {first}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: classify.py C_TRACE RUST_TRACE")
    code, why = verdict(sys.argv[1], sys.argv[2])
    print(why)
    return code


if __name__ == "__main__":
    sys.exit(main())
