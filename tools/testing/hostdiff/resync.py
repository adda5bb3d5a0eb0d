#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""resync.py HOSTDIFF_C HOSTDIFF_RUST SEQFILE OUTPREFIX: look past an
intended divergence (scripts/hostdiff.sh with KP_HOSTDIFF_RESYNC=1).

An intended divergence (classify.py) hides the rest of its sequence.  This
drops the operation that showed the upstream anomaly from the sequence and
runs both drivers again, up to ROUNDS times, until the traces are identical
or classify.py finds a real divergence.  The derived sequences are legal:
the drivers' liveness rules (MODEL.md section 3) apply to any sequence.

Prints one line and exits with:
  0  identical after dropping the anomaly operations (listed)
  1  real: a real divergence in a derived sequence, written to
     OUTPREFIX.txt (sequence) and OUTPREFIX.diff (classify.py verdict and
     diff -u of the compared lines, C -> Rust)
  3  unresolved: still intended after ROUNDS rounds, or hostdiff-c failed
     on a derived sequence (not a Rust problem)
"""

import difflib
import os
import re
import subprocess
import sys
import tempfile

ROUNDS = 16
HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import classify  # noqa: E402


def run(exe, seq):
    p = subprocess.run([exe, seq], capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def resync(cexe, rexe, seqfile, outprefix):
    """(code, line): what main() prints and exits with (run.py calls this
    in its worker processes)."""
    with open(seqfile) as f:
        ops = [l.rstrip("\n") for l in f if l.split("#")[0].split()]
    dropped = []
    with tempfile.TemporaryDirectory() as d:
        seq, tc, tr = (os.path.join(d, n) for n in ("seq.txt", "trace.c", "trace.rust"))
        for _ in range(ROUNDS + 1):
            with open(seq, "w") as f:
                f.write("\n".join(ops) + "\n")
            crc, cout, cerr = run(cexe, seq)
            if crc != 0 or cerr:
                return 3, f"unresolved: hostdiff-c failed (exit {crc}) after dropping {dropped}"
            rrc, rout, rerr = run(rexe, seq)
            with open(tc, "wb") as f:
                f.write(cout)
            with open(tr, "wb") as f:
                f.write(rout)
            verdict = classify.verdict(tc, tr)
            if rrc != 0:
                verdict = (1, f"real: hostdiff-rust exit {rrc}: {rerr[:300].decode(errors='replace')}")
            code, why = verdict
            if code == 3 and why.startswith("intended: batched ftrace arming"):
                # Identical but for the batched ftrace calls (classify.py).
                code = 0
            if code == 0:
                return 0, f"identical after dropping {len(dropped)} anomaly operation(s): {dropped}"
            if code == 1:
                with open(outprefix + ".txt", "w") as f:
                    f.write("\n".join(ops) + "\n")
                c = [l for l in classify.read(tc) if classify.compared(l)]
                r = [l for l in classify.read(tr) if classify.compared(l)]
                with open(outprefix + ".diff", "w") as f:
                    f.write(f"# {why} (after dropping {dropped})\n")
                    f.writelines(l + "\n" for l in difflib.unified_diff(c, r, "c", "rust", lineterm=""))
                return 1, f"{why} (after dropping {dropped}; see {outprefix}.diff)"
            m = re.search(r" at op (\d+) '(.*?)'", why)
            i = int(m.group(1))
            dropped.append(ops[i - 1])
            del ops[i - 1]
    return 3, f"unresolved: still intended after dropping {dropped}"


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: resync.py HOSTDIFF_C HOSTDIFF_RUST SEQFILE OUTPREFIX")
    code, line = resync(*sys.argv[1:])
    print(line)
    return code


if __name__ == "__main__":
    sys.exit(main())
