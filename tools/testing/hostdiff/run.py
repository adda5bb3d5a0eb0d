#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""run.py HOSTDIFF_C HOSTDIFF_RUST OUT SEED SEQS: the run loop of
scripts/hostdiff.sh, over OUT/seq/seq-SEED.txt .. seq-(SEED+SEQS-1).txt,
in KP_HOSTDIFF_JOBS worker processes (default: the CPUs there are).

For each sequence, as the loop in the shell did before: hostdiff-c twice
(a crash or anything on its stderr counts as c-clean's failure; two
different traces as c-deterministic's), hostdiff-rust once; where the
compared lines (classify.compared) differ or hostdiff-rust fails, the
sequence is copied to OUT/diverge/ and classified (classify.verdict); an
intended divergence is looked past (resync.resync, unless
KP_HOSTDIFF_RESYNC=0).  OUT/diverge/seq-N.diff (real) or
seq-N.intended.diff holds the verdict and diff -u of the compared lines.
Traces stay in OUT/trace/.  One process classifies every sequence its
worker ran: no interpreter start per sequence.

Prints, in seed order, the warnings the shell loop printed (the first
three crashes, nondeterministic sequences and real divergences, to
stderr), then the PASS/FAIL lines and the summary line of
scripts/hostdiff.sh (see there).  Exit status 0 when every check passed.
"""

import concurrent.futures
import difflib
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import classify  # noqa: E402
import resync  # noqa: E402


def run(exe, seq):
    """resync.run(), but 124 on a timeout, as timeout(1) (resync.resync()
    lets the timeout raise: a real divergence there)."""
    try:
        return resync.run(exe, seq)
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or b"", (e.stderr or b"") + b"\n(timed out after 60 s)"


def compared(data):
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [l for l in lines if classify.compared(l)]


def one(cexe, rexe, out, i):
    """Run sequence i.  The result: kind ('crash', 'same', 'intended' or
    'real'), msg and detail for the warnings, nondet (the diff of the two
    C traces) when they differ, resync (resync.resync's code) when it
    ran."""
    s = f"{out}/seq/seq-{i}.txt"
    t = f"{out}/trace/seq-{i}"
    res = {"i": i, "seq": s}
    rc, cout, cerr = run(cexe, s)
    with open(t + ".c", "wb") as f:
        f.write(cout)
    if rc != 0 or cerr:
        with open(t + ".c.err", "wb") as f:
            f.write(cerr)
        res.update(kind="crash", msg=f"hostdiff-c failed (exit {rc}) on {s}",
                   detail="\n".join(cerr.decode(errors="replace").split("\n")[:15]))
        return res
    _, cout2, _ = run(cexe, s)
    if cout2 != cout:
        res["nondet"] = "\n".join(difflib.unified_diff(
            cout.decode(errors="replace").split("\n"), cout2.decode(errors="replace").split("\n"),
            "c", "c2", lineterm="", n=0))
    rrc, rout, rerr = run(rexe, s)
    with open(t + ".rust", "wb") as f:
        f.write(rout)
    with open(t + ".rust.err", "wb") as f:
        f.write(rerr)
    c, r = compared(cout), compared(rout)
    if rrc == 0 and c == r:
        res["kind"] = "same"
        return res
    shutil.copy(s, f"{out}/diverge/")
    d = f"{out}/diverge/seq-{i}.diff"
    try:
        code, why = classify.verdict(t + ".c", t + ".rust")
        if code not in (1, 3):
            why, code = f"real: classify.py gave {code}: {why}", 1
    except Exception as e:  # a classifier bug is a failure, not a pass
        why, code = f"real: classify.py failed: {type(e).__name__}: {e}", 1
    if rrc != 0:
        why = f"real: hostdiff-rust exit {rrc}: " + rerr[:300].decode(errors="replace").replace("\n", " ")
        code = 1
    text = [f"# {why}"] + list(difflib.unified_diff(c, r, "c", "rust", lineterm=""))
    if code == 3 and os.environ.get("KP_HOSTDIFF_RESYNC", "1") == "1":
        try:
            rcode, rwhy = resync.resync(cexe, rexe, s, f"{out}/diverge/seq-{i}.resync")
        except Exception as e:
            rcode, rwhy = 1, f"real: resync.py failed: {type(e).__name__}: {e}"
        text.append(f"# resync: {rwhy}")
        res["resync"] = rcode
        if rcode not in (0, 3):
            code, why = 1, f"real after resync: {rwhy}"
    if code == 3:
        d = f"{out}/diverge/seq-{i}.intended.diff"
    with open(d, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(text) + "\n")
    res.update(kind="intended" if code == 3 else "real", msg=f"sequence {s} diverges: {why}",
               detail="\n".join(text[:25]))
    return res


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: run.py HOSTDIFF_C HOSTDIFF_RUST OUT SEED SEQS")
    cexe, rexe, out = sys.argv[1:4]
    seed, seqs = int(sys.argv[4]), int(sys.argv[5])
    jobs = int(os.environ.get("KP_HOSTDIFF_JOBS", "0")) or os.cpu_count() or 1
    t0 = time.time()
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
        results = list(ex.map(one, *zip(*((cexe, rexe, out, i) for i in range(seed, seed + seqs))),
                              chunksize=8))
    lines = verdicts(results, os.environ.get("KP_HOSTDIFF_RESYNC", "1") == "1",
                     f"{time.time() - t0:.0f} s ({jobs} worker processes); traces in {out}/trace/", out)
    for line in lines:
        print(line, file=sys.stderr if line.startswith(("==>", "*** ", "    ")) else sys.stdout)
    return 1 if any(line.startswith("FAIL ") for line in lines) else 0


def verdicts(results, resync_on, how, outdir="OUT"):
    """The check lines (and progress lines) for the sequences' results
    (traces and diffs in OUTDIR)."""
    out = []
    n = len(results)
    crash = nondet = diverge = intended = real = 0
    resynced = {0: 0, 1: 0, 3: 0}
    for r in results:
        if r["kind"] == "crash":
            crash += 1
            if crash <= 3:
                out.append("*** WARNING: " + r["msg"])
                out.extend("    " + l for l in r["detail"].split("\n"))
            continue
        if "nondet" in r:
            nondet += 1
            if nondet <= 3:
                out.append(f"*** WARNING: hostdiff-c is not deterministic on {r['seq']}")
                out.extend("    " + l for l in r["nondet"].split("\n")[:10])
        if r["kind"] == "same":
            continue
        diverge += 1
        if "resync" in r:
            resynced[r["resync"] if r["resync"] in (0, 3) else 1] += 1
        if r["kind"] == "intended":
            intended += 1
        else:
            real += 1
            if real <= 3:
                out.append("*** WARNING: " + r["msg"] + "; first lines of the diff (c -> rust):")
                out.extend("    " + l for l in r["detail"].split("\n"))
    if how:
        out.append(f"==> hostdiff: {n} sequences in {how}")
    if resync_on:
        out.append(f"==> resync: {resynced[0]} intended divergences identical after dropping the anomaly "
                   f"operations, {resynced[1]} real, {resynced[3]} unresolved")
    if crash == 0:
        out.append("PASS hostdiff/c-clean")
    else:
        out.append(f"FAIL hostdiff/c-clean {crash} of {n} sequences crashed or reported (see {outdir}/trace/*.c.err)")
    if nondet == 0 and crash < n:
        out.append("PASS hostdiff/c-deterministic")
    else:
        out.append(f"FAIL hostdiff/c-deterministic {nondet} of {n} sequences gave two different traces")
    if real == 0 and crash < n:
        out.append("PASS hostdiff/rust-identical")
    else:
        out.append(f"FAIL hostdiff/rust-identical {real} of {n} sequences diverge for real "
                   f"(see {outdir}/diverge/seq-*.diff; intended ones: *.intended.diff)")
    # An intended divergence hides the rest of its sequence until resync
    # looks past it: one it could not look past was compared only up to
    # the anomaly, so the run has not compared what it claims.
    if resync_on:
        unresolved = [r["seq"] for r in results if r.get("resync") == 3]
        if unresolved:
            out.append(f"FAIL hostdiff/every-divergence-resolved {len(unresolved)} intended divergences "
                       f"not looked past (resync unresolved; compared only up to the anomaly): "
                       + " ".join(unresolved[:5]))
        else:
            out.append("PASS hostdiff/every-divergence-resolved")
    out.append(f"hostdiff: {n} sequences, {diverge} diverge, {intended} intended")
    return out


if __name__ == "__main__":
    sys.exit(main())
