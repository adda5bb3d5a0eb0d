#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""status_table.py [--write FILE | --check FILE]

README's status table, generated from the committed results: one row per
configuration with its architecture, one column per kernel tree (7.3,
mainline, then 6.12), each cell the verdict of that tree's last committed
run of the configuration and the commit it ran at.

  tools/testing/matrix/results.json   the config matrix (`make matrix`;
                                      a row without a tree is 6.12's)
  scripts/kconfig/*.config            which configurations exist, and
                                      their architecture (`# kp-arch:`)
  bench/[7.3/]results.json,           the benchmark runs (`make bench`,
  bench/[7.3/]ARCH/results.json       `KP_CONFIG=ARCH make bench`)

A configuration with no row in the matrix's results says so, and what is
committed for it instead.

Without an option the table is printed.  --write FILE replaces the text
between the lines `<!-- status-table:begin -->` and
`<!-- status-table:end -->` of FILE.  --check FILE prints
`PASS docs/readme-status-table-current` when that text is what --write
would put there, else a FAIL line naming the command that fixes it; it
exits 0 either way (make test counts the line).
"""

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEGIN = "<!-- status-table:begin -->"
END = "<!-- status-table:end -->"
CHECK = "docs/readme-status-table-current"
ARCHES = ["x86_64", "arm64", "riscv64"]
# Mainline first; a tree's results below bench/ are in TREE/ but for
# 6.12's, which were there first.
TREES = ["7.3", "6.12"]
BENCH_DIR = {"7.3": "bench/7.3", "6.12": "bench"}
# The matrix's row order, scripts/matrix.sh's ALL_ROWS, then the other
# configurations.
with open(os.path.join(ROOT, "scripts", "matrix.sh")) as _f:
    MATRIX_ROWS = re.search(r'^ALL_ROWS="([^"]*)"', _f.read(), re.M).group(1).split()
# Row `randconfig` is not a fragment: scripts/randconfig.sh's random x86_64
# configs.
RANDCONFIG_ARCH = "x86_64"


def load(rel):
    path = os.path.join(ROOT, rel)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def short(commit):
    """The first 7 hex digits, keeping a `+local-changes` mark as `+`."""
    c = (commit or "?").strip()
    return c.split("+")[0][:7] + ("+" if "+" in c else "")


def fragment_arch(name, seen=None):
    """The `# kp-arch:` of scripts/kconfig/NAME.config or an included
    fragment (the last one given, as scripts/lib.sh reads it), else x86_64."""
    seen = seen or set()
    path = os.path.join(ROOT, "scripts", "kconfig", name + ".config")
    if name in seen or not os.path.exists(path):
        return None
    seen.add(name)
    arch = None
    with open(path) as f:
        text = f.read()
    for inc in re.findall(r"^# kp-include: *(\S+)", text, re.M):
        arch = fragment_arch(inc, seen) or arch
    own = re.findall(r"^# kp-arch: *(\S+)", text, re.M)
    return own[-1] if own else arch


def matrix_cell(r):
    ck = r.get("checks") or {}
    verdict = r.get("verdict", "?")
    if r["config"] == "randconfig":
        commits = {short(s.get("commit")).rstrip("+") for s in r.get("seeds", [])}
        tail = "row at %s; its %d seeds at %d commits" % (
            short(r.get("commit")), len(r.get("seeds", [])), len(commits))
        return "%s · %s" % (verdict, tail)
    if r.get("build_only"):
        return "%s · %s" % (verdict, short(r.get("commit")))
    return "%s (%d/%d/%d) · %s" % (verdict, ck.get("PASS", 0), ck.get("FAIL", 0),
                                    ck.get("SKIP", 0), short(r.get("commit")))


def tree_of(r):
    return r.get("tree", "6.12")


def bench_line(tree, arch, rel):
    b = load(rel)
    if b is None:
        return None
    m = b.get("metadata", {})
    rows = b.get("rows", [])
    hits = [x["ratio"] for x in rows if x["name"].startswith("hit_") and x.get("ratio") is not None]
    met = sum(1 for x in rows if x.get("meets_target") is True)
    missed = sum(1 for x in rows if x.get("meets_target") is False)
    hit = " hit rows Rust/C %.3f to %.3f," % (min(hits), max(hits)) if hits else ""
    return "%s %s, `%s` at %s:%s %d of %d targets met" % (
        tree, arch, os.path.dirname(rel) + "/results.md", short(m.get("commit")), hit,
        met, met + missed)


def table():
    matrix = load("tools/testing/matrix/results.json") or {"rows": []}
    rows = {(tree_of(r), r["config"]): r for r in matrix.get("rows", [])}
    configs_run = {c for _, c in rows}
    kdir = os.path.join(ROOT, "scripts", "kconfig")
    frags = sorted(f[:-len(".config")] for f in os.listdir(kdir) if f.endswith(".config"))
    # Configurations: the matrix's rows, then each fragment of another
    # architecture (a row of its own, e.g. `arm64`).
    configs = [c for c in MATRIX_ROWS if c in configs_run] + sorted(
        c for c in configs_run if c not in MATRIX_ROWS)
    for f in frags:
        arch = fragment_arch(f)
        if arch and arch != "x86_64" and f not in configs:
            configs.append(f)

    out = ["| config | arch | " + " | ".join(TREES) + " |",
           "|---|---|" + "---|" * len(TREES)]
    for c in configs:
        arch = RANDCONFIG_ARCH if c == "randconfig" else (fragment_arch(c) or "x86_64")
        cells = []
        for t in TREES:
            if (t, c) in rows:
                cells.append(matrix_cell(rows[(t, c)]))
            else:
                cells.append("not run")
        out.append("| `%s` | %s | %s |" % (c, arch, " | ".join(cells)))
    out += ["",
            "A cell: the verdict of the tree's last committed run of the config "
            "(checks passed/failed/skipped, both variants) and its commit, from "
            "`tools/testing/matrix/results.md`; `not run`: no committed run on "
            "that tree."]
    # A config's own runs (bench/TREE/CONFIG/, e.g. `cfi`: hit rows only)
    # follow the architecture's.
    runs = [(t, a, "%s/%sresults.json" % (BENCH_DIR[t], "" if a == "x86_64" else a + "/"))
            for t in TREES for a in ARCHES]
    runs += [(t, "x86_64 `%s`" % c, "%s/%s/results.json" % (BENCH_DIR[t], c))
             for t in TREES for c in configs if c not in ARCHES and c != "pipeline"]
    bench = [line for line in (bench_line(t, a, rel) for t, a, rel in runs) if line]
    if bench:
        out += ["", "Benchmark (`make bench`): " + "; ".join(bench) + "."]
    return "\n".join(out) + "\n"


def splice(text, block):
    """TEXT with the lines between the markers replaced by BLOCK, or None."""
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        return None
    head = text[:b + len(BEGIN)]
    return head + "\n" + block + text[e:]


def main(argv):
    if not argv:
        sys.stdout.write(table())
        return 0
    if len(argv) != 2 or argv[0] not in ("--write", "--check"):
        sys.exit(__doc__)
    path = argv[1]
    with open(path) as f:
        text = f.read()
    new = splice(text, table())
    if argv[0] == "--write":
        if new is None:
            sys.exit("%s: no %s ... %s lines" % (path, BEGIN, END))
        if new != text:
            with open(path, "w") as f:
                f.write(new)
        return 0
    if new is not None and new == text:
        print("PASS %s" % CHECK)
    else:
        print("FAIL %s (run tools/testing/status_table.py --write %s)" % (CHECK, path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
