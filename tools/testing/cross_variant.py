#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest checks of both variants side by side (scripts/config-suites.sh).

    cross_variant.py RESULTS C_S RUST_S DIFF_S PREFIX DECLARED

Reads RESULTS/{c,rust}/test/checks.json (kpt_results.py), writes
RESULTS/config-summary.json (per variant passed/failed/skipped, the
checks whose result differs, the Rust-only suites' counts, the guest
seconds) and prints one line:

  PASS|FAIL PREFIXdifferential/rust-runs-what-c-passes [names]

A check that passes on the C kernel must run on the Rust kernel: SKIP or
missing there fails, unless DECLARED (tools/testing/expectations/
config-dependent.txt: a regular expression over the check name a line,
then why) declares it config-dependent.  ftracetest's cases are left out:
they are compared with the recorded expectations case by case already.
"""
import json
import os
import re
import sys

# Suites only the Rust variant has (SKIP on c): reported apart, not as
# differences: jprobes (CONFIG_KPROBES_RUST_JPROBES), the grace period
# policy (kprobes.expedited_gp) and the core's KUnit suites.
RUST_ONLY = ("jprobes/", "rcu-policy/", "kunit/kprobes_rust_")


def load(path):
    d = json.load(open(path)) if os.path.exists(path) else {"passed": 0, "failed": 0, "skipped": 0, "checks": []}
    return d, {c["name"]: ("SKIP" if c.get("skip") else "PASS" if c["ok"] else "FAIL") for c in d["checks"]}


def declared_patterns(path):
    out = []
    for line in open(path) if os.path.exists(path) else []:
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(re.compile(line.split()[0]))
    return out


def not_run_on_rust(c, rust, declared):
    """Checks PASS on c and SKIP or missing on rust, not declared."""
    return [n for n in sorted(c) if not n.startswith("ftracetest/") and c[n] == "PASS"
            and rust.get(n) in ("SKIP", None) and not any(d.fullmatch(n) for d in declared)]


def main():
    res, gc, gr, gd, pfx, declared_file = sys.argv[1:7]
    out = {"guest_seconds": {"c": int(gc), "rust": int(gr), "differential": int(gd)}}
    checks = {}
    for v in ("c", "rust"):
        d, checks[v] = load(os.path.join(res, v, "test", "checks.json"))
        out[v] = {k: d.get(k, 0) for k in ("passed", "failed", "skipped")}
    names = sorted(set(checks["c"]) | set(checks["rust"]))
    out["differ"] = [n for n in names if not n.startswith(("ftracetest/",) + RUST_ONLY)
                     and checks["c"].get(n) != checks["rust"].get(n)]
    out["rust_only"] = {v: {r: sum(1 for n, x in checks[v].items() if n.startswith(RUST_ONLY) and x == r)
                            for r in ("PASS", "FAIL", "SKIP")} for v in ("c", "rust")}
    json.dump(out, open(os.path.join(res, "config-summary.json"), "w"), indent=1)
    bad = not_run_on_rust(checks["c"], checks["rust"], declared_patterns(declared_file))
    name = pfx + "differential/rust-runs-what-c-passes"
    if bad:
        print("FAIL %s %d checks PASS on C are %s: %s (a config-dependent one is declared in "
              "tools/testing/expectations/config-dependent.txt)"
              % (name, len(bad), "skipped or missing on Rust",
                 " ".join("%s=%s" % (n, checks["rust"].get(n) or "missing") for n in bad[:8])))
    elif not checks["c"]:
        print("FAIL %s no C results to compare with" % name)
    else:
        print("PASS " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
