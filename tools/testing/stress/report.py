#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of one stress run per variant (scripts/stress.sh).

    report.py PREFIX C_RUNDIR RUST_RUNDIR

Each run directory holds the guest's results.log (tools/testing/stress/
job.sh) and console.log.  Prints `PASS|FAIL name [detail]` lines:

  PREFIX/rust/<check>          every `KPT stress` check of the Rust run, and
  PREFIX/rust/completed, PREFIX/rust/no-reports (no oops, WARN, BUG,
  lockdep, KASAN, UBSAN, RCU stall or hung task in the kernel log),
  PREFIX/rust/kmemleak-no-kprobes-leak (debug kernels);
  PREFIX/c/ran                 the C run is the reference: it must start the
                               stress; its failed checks, reports and an
                               unfinished job are matched with the upstream
                               findings of upstream-findings.txt, and
  PREFIX/c/only-known-upstream-findings   fails on anything they do not
                               explain (a new finding to look at).
and the figures, `stress: VARIANT: S s, N ops, N hits, N reports`.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from kpt_results import BAD_CONSOLE, kprobes_leaks, read_text as read, sections  # noqa: E402

KPT = re.compile(r"^KPT stress (\S+) (PASS|FAIL|SKIP) ?(.*)$")
FIGURES = re.compile(r"^KPT-STRESS seconds=(\d+) ops=(\d+) hits=(\d+)")


def findings():
    """upstream-findings.txt: (id, console regex, check regex)."""
    out = []
    for line in read(os.path.join(HERE, "upstream-findings.txt")).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fid, console, checks = ([x.strip() for x in line.split(" | ")] + [""])[:3]
        out.append((fid, re.compile(console), re.compile(checks) if checks else None))
    return out


def run(rundir):
    res, con = read(os.path.join(rundir, "results.log")), read(os.path.join(rundir, "console.log"))
    r = {"completed": "KPT-JOB-EXIT" in res, "checks": [], "reports": [], "leaks": [], "figures": None,
         "kmemleak": False}
    for line in res.splitlines():
        m = KPT.match(line)
        if m:
            r["checks"].append(m.groups())
        m = FIGURES.match(line)
        if m:
            r["figures"] = tuple(int(x) for x in m.groups())
    # A report is a bad line of the kernel log, seen with the 3 lines before
    # it (a WARN's message precedes its "WARNING:" line) and the 16 after it
    # (RIP and call trace); a call trace belongs to the report above it.
    # The panic that follows an oops is part of that oops's report.
    lines = con.splitlines()
    for i, line in enumerate(lines):
        if BAD_CONSOLE.search(line) and "Call Trace:" not in line:
            if "Kernel panic - not syncing: Fatal exception" in line and r["reports"]:
                continue
            r["reports"].append((line.strip(), "\n".join(lines[max(0, i - 3):i + 17])))
    sec = sections(res)
    if "kmemleak" in sec:
        r["kmemleak"] = True
        r["leaks"] = kprobes_leaks(sec["kmemleak"])
    return r


def main():
    pfx, cdir, rdir = sys.argv[1:4]
    out = []

    def check(name, ok, detail=""):
        out.append("%s %s%s" % ("PASS" if ok else "FAIL", name, (" " + detail) if detail and not ok else ""))

    runs = {"c": run(cdir), "rust": run(rdir)}
    rust = runs["rust"]
    check(pfx + "/rust/completed", rust["completed"] and rust["figures"] is not None,
          "the job did not finish; see %s/console.log" % rdir)
    for name, res, detail in rust["checks"]:
        if res == "SKIP":
            out.append("SKIP %s/rust/%s %s" % (pfx, name, detail))
        else:
            check("%s/rust/%s" % (pfx, name), res == "PASS", detail)
    check(pfx + "/rust/no-reports", not rust["reports"], "; ".join(h for h, _ in rust["reports"][:3]))
    if rust["kmemleak"]:
        check(pfx + "/rust/kmemleak-no-kprobes-leak", not rust["leaks"], "; ".join(rust["leaks"][:3]))

    # The C run: a reference.  What went wrong there must be a known
    # upstream finding, seen in this run (its console evidence present).
    c = runs["c"]
    check(pfx + "/c/ran", any(n == "start" and r == "PASS" for n, r, _ in c["checks"]),
          "the C reference run did not start the stress; see %s/console.log" % cdir)
    known = findings()
    seen = {fid for fid, cre, _ in known if any(cre.search(ctx) for _, ctx in c["reports"])}
    unexplained = []
    for head, ctx in c["reports"]:
        ids = [fid for fid, cre, _ in known if cre.search(ctx)]
        if ids:
            print("    c: upstream finding %s: %s" % (ids[0], head))
        elif not any(cre.search(ctx) for fid, cre, _ in known if fid in seen):
            unexplained.append(head)
    for name, res, detail in c["checks"]:
        if res != "FAIL":
            continue
        ids = [fid for fid, _, chk in known if chk and fid in seen and chk.search(name)]
        if ids:
            print("    c: upstream finding %s: check %s failed (%s)" % (ids[0], name, detail))
        else:
            unexplained.append("check %s failed (%s)" % (name, detail))
    if c["leaks"]:
        unexplained.append("kmemleak: " + "; ".join(c["leaks"][:3]))
    if not (c["completed"] and c["figures"]):
        if seen:
            print("    c: upstream finding %s: the job did not finish" % sorted(seen)[0])
        else:
            unexplained.append("the job did not finish; see %s/console.log" % cdir)
    check(pfx + "/c/only-known-upstream-findings", not unexplained, "; ".join(unexplained[:3]))

    for line in out:
        print(line)
    for v in ("c", "rust"):
        s, ops, hits = runs[v]["figures"] or (0, 0, 0)
        print("stress: %s: %d s, %d ops, %d hits, %d reports" % (v, s, ops, hits, len(runs[v]["reports"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
