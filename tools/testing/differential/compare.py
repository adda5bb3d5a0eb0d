#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the differential scenario suite's output of the two kernels.

    compare.py [--record-divergences] [--record-scenarios] OUTDIR C_RUNDIR RUST_RUNDIR [C_DIVDIR RUST_DIVDIR]

Each RUNDIR is a scripts/vm.sh result directory (results.log = the job's
output, console.log = the kernel console).  The canonical lines
`KPD <scenario> <what>=<value>` are extracted per variant (OUTDIR/c.kpd,
OUTDIR/rust.kpd); a scenario differs if its sequence of lines differs
between the two.  Scenarios listed in divergences.txt (next to this file)
are intended divergences: reported separately, not counted.  Those named
div.* run in a separate boot per variant (C_DIVDIR, RUST_DIVDIR: the job
with kpd.divergence=1), others in the default boot; each variant's lines of such a scenario must equal
the recorded ones in divergences/SCENARIO.{c,rust} (which must differ from
each other); that boot's rust console must be clean (the C core WARNs
there).  The recordings are the architecture's (KP_ARCH, scripts/lib.sh):
divergences/ holds x86_64's, divergences/ARCH/ another's (arm64, riscv64);
there a SCENARIO.same instead says that on this architecture the scenario
does not reach the upstream bug (div.ftrace_aggr_post_handler_joins: arm64
and riscv64 have no kprobes on ftrace) and both kernels must print its
lines.
--record-divergences writes those files from the runs instead
(review the diff before committing).

The kernel tree (KP_TREE, scripts/lib.sh; default 6.12) selects too: an
entry of divergences.txt with a `trees:` field applies only on the trees
it names (elsewhere its scenario is compared like any other), and the
recordings of a tree other than the default one are in divergences/TREE/
(divergences/TREE/ARCH/) where they differ from the default tree's, which
apply otherwise (--record-divergences keeps it so).  Also checked:
each job completed (KPD-END), each console is free of reports (oops, WARN,
BUG, lockdep, KASAN, ...: console_checks() of tools/testing/kpt_results.py),
every phase of the driver ran (no `KPD harness.phase_X ran=no` line on
either kernel), and each kernel ran exactly the scenarios of the
architecture's committed list (tools/testing/expectations/[TREE/][ARCH/]
differential-scenarios.txt, the tree's own where its scenarios differ from
the default tree's; --record-scenarios writes it from the C run): a
scenario that vanishes on both kernels fails as one missing on one.  Writes OUTDIR/{diff.txt,scenarios.txt,checks.txt,summary.txt}; prints
the diff and the checks, and last `differential: N scenarios, M differ`.

KP_DIFF_FIXED="ENTRY..." names intended divergences that the C kernel's
upstream fixes close (scripts/upstream-fixes.sh): on the C kernel those
scenarios must print the Rust recording, and where every intended
divergence of the tree is named, the C kernel's divergence boot must
have a clean console too.
Exit status 0 only if everything passed.
"""
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from kpt_results import BAD_CONSOLE, console_checks  # noqa: E402  (the make-test console checks)

VARIANTS = ("c", "rust")
EXPECT = os.path.join(HERE, "..", "expectations")
SCENARIO_LIST = "differential-scenarios.txt"
# The tree whose files are not in a TREE/ subdirectory (scripts/lib.sh:
# the one with an empty TREE_DIR).
DEFAULT_TREE = "6.12"


def subdirs(tree, arch):
    """The path components of a tree's and an architecture's files: [TREE/][ARCH/]."""
    return ([] if tree == DEFAULT_TREE else [tree]) + ([] if arch == "x86_64" else [arch])


def scenario_list_paths(tree, arch):
    """(the tree's own scenario list, the default tree's): the same file on the default tree.

    KP_DIFF_SCENARIOS names another file, for the self-test."""
    if os.environ.get("KP_DIFF_SCENARIOS"):
        return os.environ["KP_DIFF_SCENARIOS"], os.environ["KP_DIFF_SCENARIOS"]
    return (os.path.join(EXPECT, *subdirs(tree, arch), SCENARIO_LIST),
            os.path.join(EXPECT, *subdirs(DEFAULT_TREE, arch), SCENARIO_LIST))


def listed_names(text):
    return [l.strip() for l in (text or "").splitlines() if l.strip() and not l.startswith("#")]


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "")
    except OSError:
        return None


def divergences(path, tree):
    """NAME | C: ... | Rust: ... | why: ... | repro: ... [| trees: TREE...]  (# comments)

    The entries that apply on `tree`: those without a trees: field, and
    those whose trees: field names it."""
    out = {}
    for line in (read(path) or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        trees = entry_field(line, "trees")
        if trees is not None and tree not in trees.split():
            continue
        out[line.split("|")[0].strip()] = line
    return out


def entry_field(line, key):
    """The value of an entry's optional `key:` field, or None."""
    fields = [f.strip() for f in line.split("|")][1:]
    return next((f.split(":", 1)[1].strip() for f in fields if f.startswith(key + ":")), None)


def console_allowance(line):
    """The entry's `console:` regular expression, or None."""
    c = entry_field(line, "console")
    return re.compile(c, re.S) if c is not None else None


def drop_allowed_reports(con, allowed):
    """(console text without the WARN reports one of `allowed` matches,
    [how many reports each regex matched])."""
    lines = con.splitlines()
    hits = [0] * len(allowed)
    drop = set()
    for i, l in enumerate(lines):
        if "WARNING:" not in l:
            continue
        j = i
        while j < len(lines) and "---[ end trace" not in lines[j]:
            j += 1
        # with the message line of a WARN() before it (not another report's)
        start = i - 1 if i > 0 and not BAD_CONSOLE.search(lines[i - 1]) else i
        block = "\n".join(lines[start:j + 1])
        for k, rx in enumerate(allowed):
            if rx.search(block):
                hits[k] += 1
                drop.update(range(start, min(j + 1, len(lines))))
                break
    return "\n".join(l for n, l in enumerate(lines) if n not in drop) + "\n", hits


def scenario_lines(rundir):
    """(completed, console-bad-lines or None, {scenario: [KPD lines]}, [all KPD lines])"""
    res = read(os.path.join(rundir, "results.log"))
    con = read(os.path.join(rundir, "console.log"))
    kpd = [l for l in (res or "").splitlines() if l.startswith("KPD ")]
    s = {}
    for l in kpd:
        f = l.split(" ", 2)
        s.setdefault(f[1] if len(f) > 1 else "?", []).append(l)
    bad = None if con is None else [l.strip() for l in con.splitlines() if BAD_CONSOLE.search(l)]
    return res is not None and "\nKPD-END" in "\n" + res, bad, s, kpd


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    record = "--record-divergences" in sys.argv
    record_scenarios = "--record-scenarios" in sys.argv
    unsafe = "--unsafe" in sys.argv  # kpd.unsafe=1 adds the unsafe.* scenarios to the list's
    outdir, rundirs = args[0], dict(zip(VARIANTS, args[1:3]))
    divdirs = dict(zip(VARIANTS, args[3:5])) if len(args) >= 5 else None
    os.makedirs(outdir, exist_ok=True)
    checks = []

    def check(name, ok, detail=""):
        checks.append((name, bool(ok), detail))

    lines, scen, completed = {}, {}, {}
    for v in VARIANTS:
        res = read(os.path.join(rundirs[v], "results.log"))
        con = read(os.path.join(rundirs[v], "console.log"))
        kpd = [l for l in (res or "").splitlines() if l.startswith("KPD ")]
        lines[v] = kpd
        with open(os.path.join(outdir, v + ".kpd"), "w") as f:
            f.write("".join(l + "\n" for l in kpd))
        completed[v] = res is not None and "\nKPD-END" in "\n" + res
        check("guest-%s/completed" % v, completed[v], "no KPD-END in %s/results.log" % rundirs[v])
        for name, ok, detail in console_checks(con or "", None, "console-" + v):
            check(name, ok, detail)
        s = {}
        for l in kpd:
            f = l.split(" ", 2)
            s.setdefault(f[1] if len(f) > 1 else "?", []).append(l)
        scen[v] = s

    names = list(scen["c"])
    names += [n for n in scen["rust"] if n not in scen["c"]]
    arch = os.environ.get("KP_ARCH") or "x86_64"
    tree = os.environ.get("KP_TREE") or DEFAULT_TREE
    # (KP_DIFF_DIVERGENCES: another list, for the self-test; the recordings
    # are in divergences/ next to the list.)
    div_list = os.environ.get("KP_DIFF_DIVERGENCES") or os.path.join(HERE, "divergences.txt")
    intended = divergences(div_list, tree)
    fixed = set(os.environ.get("KP_DIFF_FIXED", "").split())
    for n in sorted(fixed - set(intended)):
        check("fixed/%s-is-listed" % n, False, "not an intended divergence on %s" % tree)
    differ, diverge, rows = [], [], []
    for n in names:
        a, b = scen["c"].get(n), scen["rust"].get(n)
        if a == b:
            st = "SAME"
        elif n in intended:
            st = "INTENDED-IN-DEFAULT-RUN"   # checked in the divergence boot below
        else:
            st = "DIFF" if a is not None and b is not None else ("MISSING-rust" if a is not None else "MISSING-c")
            differ.append(n)
        rows.append("%s %s" % (st, n))
    # Intended divergences: their own boot, each variant as recorded.  The
    # recordings of an entry: the tree's own, else (another tree that has
    # none) the default tree's.
    own_ddir = os.path.join(os.path.dirname(div_list), "divergences", *subdirs(tree, arch))
    default_ddir = os.path.join(os.path.dirname(div_list), "divergences", *subdirs(DEFAULT_TREE, arch))

    def recorded_in(n):
        for d in (own_ddir, default_ddir):
            if any(os.path.exists(os.path.join(d, "%s.%s" % (n, e))) for e in ("same", "c", "rust")):
                return d
        return own_ddir
    if intended and divdirs is None:
        for n in intended:
            rows.append("INTENDED-NOT-RUN %s" % n)
    elif intended:
        div = {}
        for v in VARIANTS:
            done, bad, s, _ = scenario_lines(divdirs[v])
            div[v] = s
            check("guest-%s-divergence/completed" % v, done, "no KPD-END in %s/results.log" % divdirs[v])
            if v == "rust" or set(intended) <= fixed:
                # The reports the right behaviour prints (`console:` of the
                # div.* entries) are allowed there, and required.
                allowed = [(n, console_allowance(l)) for n, l in sorted(intended.items()) if n.startswith("div.")]
                allowed = [(n, rx) for n, rx in allowed if rx]
                con, hits = drop_allowed_reports(read(os.path.join(divdirs[v], "console.log")) or "",
                                                 [rx for _, rx in allowed])
                for (n, rx), h in zip(allowed, hits):
                    check("console-%s-divergence/expected-report-%s" % (v, n), h > 0,
                          "" if h else "no WARN report matching %r" % rx.pattern)
                for name, ok, detail in console_checks(con, None, "console-%s-divergence" % v):
                    check(name, ok, detail)
        for n in intended:
            ok, why = True, []
            exp = {}
            ddir = recorded_in(n)
            same = os.path.join(ddir, "%s.same" % n)
            if os.path.exists(same) and not record:
                want = (read(same) or "").splitlines()
                for v in VARIANTS:
                    got = (div[v] if n.startswith("div.") else scen[v]).get(n, [])
                    if got != want:
                        ok = False
                        why.append("%s differs from %s" % (v, os.path.relpath(same, HERE)))
                rows.append("%s %s%s" % ("INTENDED" if ok else "INTENDED-MISMATCH", n,
                                         " (not a divergence on %s: both as recorded)" % arch if ok
                                         else " " + "; ".join(why)))
                if ok:
                    diverge.append(n)
                continue
            # div.* scenarios run in the divergence boot, others in the default one
            got = {v: (div[v] if n.startswith("div.") else scen[v]).get(n, []) for v in VARIANTS}
            if record:
                # Another tree has recordings of its own only where they differ.
                ddir = own_ddir
                if own_ddir != default_ddir and all(
                        got[v] == (read(os.path.join(default_ddir, "%s.%s" % (n, v))) or "").splitlines()
                        for v in VARIANTS):
                    ddir = default_ddir
                for e in ("same", "c", "rust") if ddir != own_ddir else ():
                    if os.path.exists(os.path.join(own_ddir, "%s.%s" % (n, e))):
                        os.remove(os.path.join(own_ddir, "%s.%s" % (n, e)))
                os.makedirs(ddir, exist_ok=True)
                for v in VARIANTS:
                    with open(os.path.join(ddir, "%s.%s" % (n, v)), "w") as fh:
                        fh.write("".join(l + "\n" for l in got[v]))
            for v in VARIANTS:
                # A divergence the C kernel's fix closes: C as Rust.
                f = os.path.join(ddir, "%s.%s" % (n, "rust" if n in fixed else v))
                got_v = got[v]
                exp[v] = (read(f) or "").splitlines()
                if not got_v:
                    ok = False
                    why.append("%s did not run it" % v)
                elif got_v != exp[v]:
                    ok = False
                    why.append("%s differs from %s" % (v, os.path.relpath(f, HERE)))
                    sys.stdout.write("".join(difflib.unified_diff([l + "\n" for l in exp[v]], [l + "\n" for l in got_v],
                                                                  os.path.relpath(f, HERE), "%s run" % v, n=1)))
            if exp["c"] == exp["rust"] and n not in fixed:
                ok = False
                why.append("recorded c and rust lines are identical: not a divergence")
            label = "FIXED" if n in fixed else "INTENDED"
            rows.append("%s %s%s" % (label if ok else label + "-MISMATCH", n, "" if ok else " " + "; ".join(why)))
            if ok:
                diverge.append(n)
    with open(os.path.join(outdir, "scenarios.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")

    diff = list(difflib.unified_diff([l + "\n" for l in lines["c"]], [l + "\n" for l in lines["rust"]],
                                     "c.kpd", "rust.kpd", n=1))
    with open(os.path.join(outdir, "diff.txt"), "w") as f:
        f.writelines(diff)
    if differ:
        sys.stdout.write("".join(diff[:400]))
        if len(diff) > 400:
            print("... (%d diff lines, all in %s/diff.txt)" % (len(diff), outdir))
    not_ran = [l for v in VARIANTS for l in lines[v] if l.startswith("KPD harness.phase_") and "ran=no" in l]
    check("scenarios/every-phase-ran", not not_ran, "; ".join(sorted(set(not_ran))[:5]))
    own_list, default_list = scenario_list_paths(tree, arch)
    listed_path = own_list if os.path.exists(own_list) else default_list
    if record_scenarios and not (completed["c"] and not not_ran):
        check("scenarios/record", False, "the C run is incomplete: not recorded")
    elif record_scenarios:
        ran = [n for n in sorted(scen["c"]) if not n.startswith(("unsafe", "harness.phase_"))]
        # Another tree has a list of its own only where its scenarios differ.
        if own_list != default_list and ran == listed_names(read(default_list)):
            if os.path.exists(own_list):
                os.remove(own_list)
            listed_path = default_list
        else:
            listed_path = own_list
            os.makedirs(os.path.dirname(own_list), exist_ok=True)
            with open(own_list, "w") as f:
                f.write("# The differential's scenarios on %s%s: each kernel must run every one\n"
                        "# (tools/testing/differential/compare.py).  Written from the C kernel's run\n"
                        "# by scripts/differential.sh --record-scenarios.\n"
                        % (arch, "" if tree == DEFAULT_TREE else ", Linux " + tree))
                f.write("".join(n + "\n" for n in ran))
    listed = listed_names(read(listed_path))
    if not listed:
        check("scenarios/complete", False, "no scenario list %s (record it with --record-scenarios)"
              % os.path.relpath(listed_path, HERE))
    else:
        why = []
        for v in VARIANTS:
            missing = [n for n in listed if n not in scen[v]]
            extra = [n for n in scen[v] if n not in listed and not (unsafe and n.startswith("unsafe"))]
            if missing:
                why.append("%s did not run %d listed: %s" % (v, len(missing), " ".join(missing[:5])))
            if extra:
                why.append("%s ran %d not listed: %s" % (v, len(extra), " ".join(extra[:5])))
        check("scenarios/complete", not why, "; ".join(why) + " (list: %s)" % os.path.relpath(listed_path, HERE))
    check("scenarios/identical", not differ, "differ: " + " ".join(differ[:10]))

    with open(os.path.join(outdir, "checks.txt"), "w") as f:
        for name, ok, detail in checks:
            f.write("%s %s%s\n" % ("PASS" if ok else "FAIL", name, (" " + detail) if detail and not ok else ""))
    for name, ok, detail in checks:
        if not ok:
            print("FAIL %s %s" % (name, detail))
    for r in rows:
        if r.startswith(("INTENDED", "FIXED")):
            print(r)
    summary = "differential: %d scenarios, %d differ" % (len(names), len(differ))
    if intended:
        print("differential: %d intended divergences listed, %d as recorded on both kernels"
              % (len(intended), len(diverge)))
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write("%d lines (c), %d lines (rust)\n" % (len(lines["c"]), len(lines["rust"])))
        for name, ok, detail in checks:
            f.write("%s %s %s\n" % ("PASS" if ok else "FAIL", name, detail))
        f.write(summary + "\n")
    print(summary)
    return 0 if all(ok for _, ok, _ in checks) and len(diverge) == len(intended) else 1


if __name__ == "__main__":
    sys.exit(main())
