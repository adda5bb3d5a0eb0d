#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""c2.py HOSTDIFF_C2 OUT SEED SEQS
c2.py --fatal FATAL_C FATAL_C2
The gate of PLAN-one-simulation.md step 5 (scripts/hostdiff.sh runs both
after run.py).

hostdiff-c2 is upstream kernel/kprobes.c and driver.c linked with the host
tests' simulated kernel (libkpsim.a, tools/testing/hostdiff/sim/) in place
of model.c and arch.c.  For each sequence OUT/seq/seq-N.txt that
hostdiff-c ran cleanly (run.py left its trace in OUT/trace/seq-N.c and no
seq-N.c.err), hostdiff-c2 must exit 0 with an empty stderr (ASan, UBSan,
LSan, the simulation's rules) and print the same trace, byte for byte.
Sequences that crashed hostdiff-c (c-clean's failure) are skipped: their
trace is not the reference.  Runs in KP_HOSTDIFF_JOBS worker processes
(default: the CPUs).  A difference is kept as OUT/diverge/seq-N.c2.diff
(diff -u, C -> C2) with hostdiff-c2's stderr.

Prints the first three failures on stderr, then `PASS|FAIL
hostdiff/c2-identical` and `hostdiff-c2: N sequences, M identical, K
skipped`.  Exit status 0 when the check passed.

With --fatal: each case of fatal.c (`FATAL_C --list`) breaks a rule of
the simulated kernel; fatal-c (model.c, arch.c) and fatal-c2 (libkpsim.a)
must both abort (SIGABRT) with `fatal: FATAL: ...` on stderr, and print
the same stdout and stderr, byte for byte.  Prints `PASS|FAIL
hostdiff/c2-fatal` and `c2-fatal: N cases, M identical`.
"""

import concurrent.futures
import difflib
import os
import subprocess
import sys
import time


def one(exe, out, i):
    """Run sequence i through hostdiff-c2: None when it matches (or is
    skipped: 'skip'), else a one-line reason and the diff's first lines."""
    s = f"{out}/seq/seq-{i}.txt"
    t = f"{out}/trace/seq-{i}"
    if os.path.exists(t + ".c.err") or not os.path.exists(t + ".c"):
        return "skip", ""
    with open(t + ".c", "rb") as f:
        ref = f.read()
    try:
        p = subprocess.run([exe, s], capture_output=True, timeout=60)
        rc, got, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, got, err = 124, e.stdout or b"", (e.stderr or b"") + b"\n(timed out after 60 s)"
    with open(t + ".c2", "wb") as f:
        f.write(got)
    if rc == 0 and not err and got == ref:
        return None, ""
    why = []
    if rc != 0:
        why.append(f"exit {rc}")
    if err:
        why.append("stderr: " + err[:200].decode(errors="replace").replace("\n", " "))
    if got != ref:
        why.append("trace differs")
    diff = list(difflib.unified_diff(ref.decode(errors="replace").split("\n"),
                                     got.decode(errors="replace").split("\n"),
                                     "c", "c2", lineterm=""))
    with open(f"{out}/diverge/seq-{i}.c2.diff", "w", encoding="utf-8", errors="replace") as f:
        f.write(f"# {s}: {'; '.join(why)}\n" + "\n".join(diff) + "\n"
                + "# hostdiff-c2 stderr:\n" + err.decode(errors="replace"))
    return f"{s}: {'; '.join(why)}", "\n".join(diff[:20])


def fatal(cexe, c2exe):
    """The --fatal check."""
    cases = subprocess.run([cexe, "--list"], capture_output=True, check=True).stdout.decode().split()
    bad = []
    for c in cases:
        res = [subprocess.run([exe, c], capture_output=True, timeout=60) for exe in (cexe, c2exe)]
        ok = all(r.returncode == -6 and r.stderr.startswith(b"fatal: FATAL: ") for r in res)
        if not ok or res[0].stdout != res[1].stdout or res[0].stderr != res[1].stderr:
            bad.append(c)
            print(f"*** WARNING: fatal case {c}: " + " / ".join(
                f"exit {r.returncode}, stderr {r.stderr[:120]!r}" for r in res), file=sys.stderr)
    if cases and not bad:
        print("PASS hostdiff/c2-fatal")
    else:
        print(f"FAIL hostdiff/c2-fatal {len(bad)} of {len(cases)} cases differ ({', '.join(bad)})")
    print(f"c2-fatal: {len(cases)} cases, {len(cases) - len(bad)} identical")
    return 0 if cases and not bad else 1


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--fatal":
        return fatal(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 5:
        sys.exit("usage: c2.py HOSTDIFF_C2 OUT SEED SEQS | --fatal FATAL_C FATAL_C2")
    exe, out = sys.argv[1:3]
    seed, seqs = int(sys.argv[3]), int(sys.argv[4])
    jobs = int(os.environ.get("KP_HOSTDIFF_JOBS", "0")) or os.cpu_count() or 1
    os.makedirs(f"{out}/diverge", exist_ok=True)
    t0 = time.time()
    idx = list(range(seed, seed + seqs))
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
        results = list(ex.map(one, [exe] * len(idx), [out] * len(idx), idx, chunksize=8))
    bad = [r for r in results if r[0] not in (None, "skip")]
    skipped = sum(1 for r in results if r[0] == "skip")
    for why, diff in bad[:3]:
        print(f"*** WARNING: hostdiff-c2 differs from hostdiff-c: {why}", file=sys.stderr)
        if diff:
            print(diff, file=sys.stderr)
    print(f"==> hostdiff-c2: {len(results)} sequences in {time.time() - t0:.0f} s "
          f"({jobs} worker processes)", file=sys.stderr)
    ran = len(results) - skipped
    if not bad and ran:
        print("PASS hostdiff/c2-identical")
    else:
        print(f"FAIL hostdiff/c2-identical {len(bad)} of {ran} sequences differ or fail "
              f"(see {out}/diverge/seq-*.c2.diff)")
    print(f"hostdiff-c2: {len(results)} sequences, {ran - len(bad)} identical, {skipped} skipped")
    return 0 if not bad and ran else 1


if __name__ == "__main__":
    sys.exit(main())
