#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fatal.py FATAL EXPECTED
fatal.py --record FATAL EXPECTED
The check hostdiff/fatal (scripts/hostdiff.sh runs it after run.py).

FATAL is fatal.c linked with upstream kernel/kprobes.c and the simulated
kernel (libkpsim.a, tools/testing/hostdiff/sim/).  Each of its cases
(`FATAL --list`) breaks one rule of the simulated kernel, which must end
the program as hd_fatal() does: the trace so far on stdout, then one line
`fatal: FATAL: TEXT` on stderr, and abort() (SIGABRT).  EXPECTED
(fatal.expected) records, per case, a line `== CASE`, the case's stdout
and its stderr line; a case must print exactly that, byte for byte, and
the two lists of cases must be the same.  The texts were recorded from
the C model (model.c, arch.c) that the simulation replaced, whose fatal
cases the simulation reproduces (MODEL.md): a change of a text is a
change of the simulated kernel's rules, made by re-recording (--record
writes EXPECTED from FATAL's output, for a new case) and reviewing the
diff.

Prints `PASS|FAIL hostdiff/fatal` and `fatal: N cases, M as recorded`.
Exit status 0 when the check passed.
"""

import subprocess
import sys

SIGABRT = -6


def run(exe, case):
    """(exit status, stdout, stderr) of one case."""
    try:
        p = subprocess.run([exe, case], capture_output=True, timeout=60)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or b"", (e.stderr or b"") + b"\n(timed out after 60 s)"


def load(path):
    """{case: (stdout, stderr)} of EXPECTED, in its order."""
    cases, cur = {}, None
    with open(path, "rb") as f:
        for line in f.read().split(b"\n")[:-1]:
            if line.startswith(b"== "):
                cur = line[3:].decode()
                cases[cur] = []
            elif cur is None:
                continue  # the header comment
            else:
                cases[cur].append(line + b"\n")
    return {c: (b"".join(l[:-1]), l[-1] if l else b"") for c, l in cases.items()}


def record(exe, path):
    """Writes EXPECTED from FATAL's output (each case must die by SIGABRT
    with one FATAL line)."""
    cases = subprocess.run([exe, "--list"], capture_output=True, check=True).stdout.decode().split()
    out = [b"# fatal.expected: each case of fatal.c, its stdout and its stderr line",
           b"# (tools/testing/hostdiff/fatal.py; --record rewrites it)."]
    for c in cases:
        rc, so, se = run(exe, c)
        if rc != SIGABRT or not se.startswith(b"fatal: FATAL: ") or se.count(b"\n") != 1:
            sys.exit(f"fatal.py: case {c}: exit {rc}, stderr {se[:200]!r}")
        out += [f"== {c}".encode(), so + se.rstrip(b"\n")]
    with open(path, "wb") as f:
        f.write(b"\n".join(out) + b"\n")
    print(f"fatal: {len(cases)} cases recorded in {path}")
    return 0


def check(exe, path):
    """The check."""
    cases = subprocess.run([exe, "--list"], capture_output=True, check=True).stdout.decode().split()
    want = load(path)
    bad = [f"{c} (not recorded)" for c in cases if c not in want]
    bad += [f"{c} (recorded, not in --list)" for c in want if c not in cases]
    ok = 0
    for c in (c for c in cases if c in want):
        rc, so, se = run(exe, c)
        if (rc, so, se) == (SIGABRT, *want[c]):
            ok += 1
            continue
        bad.append(c)
        print(f"*** WARNING: fatal case {c}: exit {rc}, stderr {se[:160]!r}, expected "
              f"{want[c][1][:160]!r}" + (", stdout differs" if so != want[c][0] else ""),
              file=sys.stderr)
    if cases and not bad:
        print("PASS hostdiff/fatal")
    else:
        print(f"FAIL hostdiff/fatal {len(bad)} cases not as recorded ({', '.join(bad)})")
    print(f"fatal: {len(cases)} cases, {ok} as recorded")
    return 0 if cases and not bad else 1


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--record":
        return record(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        sys.exit("usage: fatal.py [--record] FATAL EXPECTED")
    return check(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
