#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The config matrix's results (scripts/matrix.sh, scripts/randconfig.sh).

    report.py row RDIR --tree T --config NAME --commit C --command CMD
              --build c=RESULT:SECONDS --build rust=RESULT:SECONDS [--build-only TARGETS]
    report.py randconfig RDIR --tree T --commit C --command CMD
    report.py report MDIR --out DIR

`row` turns one config row's run (RDIR/config-suites.log, the
`PASS|FAIL|SKIP name` lines of scripts/config-suites.sh, and
RDIR/config-summary.json) into RDIR/row.json; `randconfig` gathers the
seeds (RDIR/seed-*/seed.json) into RDIR/row.json; `report` writes
DIR/results.json and DIR/results.md from every MDIR/*/row.json and, for
rows (and randconfig seeds) not run there, those already in
DIR/results.json.  A row is a kernel tree's config (`tree`, as KP_TREE
names it; a row without one is 6.12's, from before there were two).
"""
import datetime
import glob
import json
import os
import sys

ORDER = ["pipeline", "debug", "preempt", "minimal-up", "minimal-nofs", "defconfig", "debian", "arm64", "riscv64", "cfi", "cfi-fineibt", "arm64-cfi", "randconfig"]
# Mainline first, then the backport.
TREES = ["7.3", "6.12"]


def tree_of(r):
    return r.get("tree", "6.12")


def key(r):
    return (tree_of(r), r["config"])


def order(k):
    t, c = k
    return (TREES.index(t) if t in TREES else len(TREES), t,
            ORDER.index(c) if c in ORDER else len(ORDER), c)


def opts(argv):
    o, pos, i = {"build": []}, [], 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            k = a[2:].replace("-", "_")
            if k == "build":
                o["build"].append(argv[i + 1])
            else:
                o[k] = argv[i + 1]
            i += 2
        else:
            pos.append(a)
            i += 1
    return o, pos


def unparen(t):
    """kpt_results.py puts a skip's reason in parentheses, config-suites.sh not."""
    t = t.strip()
    return t[1:-1] if t.startswith("(") and t.endswith(")") else t


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def cmd_row(rdir, o):
    build = {}
    for b in o["build"]:
        v, rest = b.split("=", 1)
        res, sec = rest.rsplit(":", 1)
        build[v] = {"result": res, "seconds": int(sec)}
    lines = []
    p = os.path.join(rdir, "config-suites.log")
    if os.path.exists(p):
        lines = [l.rstrip("\n").split(" ", 2) for l in open(p) if l.split(" ", 1)[0] in ("PASS", "FAIL", "SKIP")]
    summ = {}
    p = os.path.join(rdir, "config-summary.json")
    if os.path.exists(p):
        summ = json.load(open(p))
    fails = [" ".join(l[1:]) for l in lines if l[0] == "FAIL"]
    row = {
        "tree": o["tree"], "config": o["config"], "date": now(), "commit": o["commit"], "command": o["command"],
        "build": build, "build_only": o.get("build_only"),
        "checks": {k: sum(1 for l in lines if l[0] == k) for k in ("PASS", "FAIL", "SKIP")},
        "suites": {v: summ.get(v) for v in ("c", "rust")},
        "differ": summ.get("differ", []),
        "guest_seconds": summ.get("guest_seconds", {}),
        "fails": fails,
        "skipped": sorted({unparen(" ".join(l[2:])) for l in lines if l[0] == "SKIP"}),
    }
    built = all(build.get(v, {}).get("result") == "ok" for v in ("c", "rust"))
    if build.get("c", {}).get("result") != "ok":
        row["verdict"] = "c does not build"
    elif not built:
        row["verdict"] = "RUST DOES NOT BUILD"
    elif row["build_only"]:
        row["verdict"] = "both build (build only)"
    elif not lines:
        row["verdict"] = "NOT RUN"
    elif fails or row["differ"]:
        row["verdict"] = "FAIL" if fails else "DIFFER"
    else:
        row["verdict"] = "same as C"
    json.dump(row, open(os.path.join(rdir, "row.json"), "w"), indent=1)
    print("matrix row %s %s: %s" % (row["tree"], row["config"], row["verdict"]))


def with_seeds(row, seeds):
    """ROW with SEEDS (each naming its own commit) and the counts made from them."""
    seeds = sorted(seeds, key=lambda s: s["seed"])
    counted = [s for s in seeds if s["c"] == "ok"]
    rust_fail = [s["seed"] for s in counted if s["rust"] != "ok"]
    return dict(row, seeds=seeds, counted=len(counted), rust_only_failures=rust_fail,
                verdict="%d seeds where C builds, %d Rust-only failures" % (len(counted), len(rust_fail)))


def cmd_randconfig(rdir, o):
    seeds = [json.load(open(p)) for p in glob.glob(os.path.join(rdir, "seed-*", "seed.json"))]
    row = with_seeds({"tree": o["tree"], "config": "randconfig", "date": now(), "commit": o["commit"],
                      "command": o["command"]}, seeds)
    json.dump(row, open(os.path.join(rdir, "row.json"), "w"), indent=1)
    print("matrix row %s randconfig: %s" % (row["tree"], row["verdict"]))


def fmt_build(b):
    if not b:
        return "-"
    return "%s (%ds)" % (b["result"], b["seconds"])


def fmt_suite(s):
    if not s:
        return "-"
    return "%d / %d / %d" % (s["passed"], s["failed"], s["skipped"])


def cmd_report(mdir, o):
    out = o["out"]
    rows = {}
    committed = os.path.join(out, "results.json")
    if os.path.exists(committed):
        for r in json.load(open(committed)).get("rows", []):
            rows[key(r)] = r
    for p in glob.glob(os.path.join(mdir, "*", "row.json")):
        r = json.load(open(p))
        old = rows.get(key(r))
        if old is None or r["date"] >= old["date"]:
            if r["config"] == "randconfig" and old is not None:
                # A run of some seeds: the seeds it did not build stay the
                # committed row's, as the rows not run here do.
                ran = {s["seed"] for s in r["seeds"]}
                r = with_seeds(r, r["seeds"] + [s for s in old["seeds"] if s["seed"] not in ran])
            rows[key(r)] = r
    ordered = [rows[k] for k in sorted(rows, key=order)]
    json.dump({"rows": ordered}, open(committed, "w"), indent=1)

    md = ["# The config matrix: results",
          "",
          "Written by `make matrix` (`scripts/matrix.sh`; one row: `make matrix KP_MATRIX=NAME`,",
          "on the tree KP_TREE names: 7.3, mainline, by default, or 6.12).",
          "Each row names the commit and the command of the run that produced it;",
          "`+local-changes` means the run had uncommitted changes to tracked files.",
          "Suites are `passed / failed / skipped` checks of the guest job on each",
          "variant (KUnit, samples, binary drop-in, kprobe_events, blacklist,",
          "ftracetest, kmemleak, a clean kernel log); the Rust run's ftracetest is",
          "compared with the C run of the same config.  *Differ* lists the checks",
          "whose result is not the same on both variants; *checks* counts every",
          "line of the row (both variants, the cross-variant comparisons and the",
          "differential scenarios).  Build seconds are those of the run: where the",
          "row's `build/out-ROW-*` directories already existed it was an incremental",
          "rebuild (the command says so); the `rust` variant is",
          "built from a copy of the `c` one.  A randconfig seed's `rust` variant is",
          "built in the `c` one's directory after it (from d93cfac on; before, from",
          "a copy, which rebuilt objtool and so, without LTO or IBT, every object).",
          "The pipeline's C suites are compared",
          "with the committed C expectations, every other row's with its own C run.",
          "",
          "| tree | config | C build | Rust build | C suites | Rust suites | checks p/f/s | differ | verdict | guest s (c/rust/diff) | commit, date |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in ordered:
        if r["config"] == "randconfig":
            continue
        g = r.get("guest_seconds") or {}
        ck = r.get("checks", {})
        md.append("| %s | `%s` | %s | %s | %s | %s | %d / %d / %d | %s | **%s** | %s | %s, %s |" % (
            tree_of(r), r["config"], fmt_build(r["build"].get("c")), fmt_build(r["build"].get("rust")),
            fmt_suite((r.get("suites") or {}).get("c")), fmt_suite((r.get("suites") or {}).get("rust")),
            ck.get("PASS", 0), ck.get("FAIL", 0), ck.get("SKIP", 0),
            ", ".join(r.get("differ") or []) or "none", r["verdict"],
            "%s/%s/%s" % (g.get("c", "-"), g.get("rust", "-"), g.get("differential", "-")) if g else "-",
            r["commit"], r["date"]))
    md.append("")
    for t in TREES:
        missing = [c for c in ORDER if (t, c) not in rows]
        if missing:
            md.append("Not run yet on %s: %s." % (t, ", ".join("`%s`" % c for c in missing)))
            md.append("")
    md.append("Commands:")
    md.append("")
    md.extend("- %s `%s`: `%s`" % (tree_of(r), r["config"], r["command"]) for r in ordered)
    md.append("")
    for r in ordered:
        if r["config"] == "randconfig" or not (r.get("fails") or r.get("skipped")):
            continue
        md.append("## %s `%s`" % (tree_of(r), r["config"]))
        if r.get("fails"):
            md.append("")
            md.append("Failed checks:")
            md.extend("- `%s`" % f for f in r["fails"])
        if r.get("skipped"):
            md.append("")
            md.append("Skipped, because: " + "; ".join(r["skipped"]) + ".")
        md.append("")
    for rc in (r for r in ordered if r["config"] == "randconfig"):
        md.append("## %s `randconfig`" % tree_of(rc))
        md.append("")
        md.append("%s (command `%s`, commit %s, %s)." % (rc["verdict"], rc["command"], rc["commit"], rc["date"]))
        md.append("")
        md.append("| seed | C (vmlinux) | Rust | options =y | commit | note |")
        md.append("|---|---|---|---|---|---|")
        for s in rc["seeds"]:
            md.append("| %d | %s (%ds) | %s (%ds) | %d | %s | %s |" % (
                s["seed"], s["c"], s["c_seconds"], s["rust"], s["rust_seconds"], s["options_y"],
                s.get("commit", rc["commit"]), s["note"]))
        md.append("")
    open(os.path.join(out, "results.md"), "w").write("\n".join(md))
    print("wrote %s/results.md and results.json (%d rows)" % (out, len(ordered)))


def main():
    o, pos = opts(sys.argv[1:])
    if len(pos) != 2:
        sys.exit(__doc__)
    {"row": cmd_row, "randconfig": cmd_randconfig, "report": cmd_report}[pos[0]](pos[1], o)


if __name__ == "__main__":
    main()
