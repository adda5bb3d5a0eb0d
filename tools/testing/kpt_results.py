#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one guest run's logs into checks.

    kpt_results.py VARIANT RESULTS_LOG CONSOLE_LOG [--update-expectations]

The job output (results.log, the guest's ttyS1) holds sections:
  ### kunit        KTAP from /sys/kernel/debug/kunit/kprobes_test/results
  ### ftracetest   KTAP from `ftracetest -K`
  KPT <suite> <test> PASS|FAIL [detail]   lines from the shell suites
Every check is printed as `PASS|FAIL <name> [detail]`; the last line is
`<variant>: N passed, N failed`.  A JSON copy goes next to the log.

ftracetest results are compared with tools/testing/expectations/ftracetest.txt
(recorded from the C variant): a test whose result differs, or that is
missing or new, fails.  --update-expectations rewrites that file from this
run instead (use it only on the `c` variant).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FTRACE_EXPECT = os.path.join(HERE, "expectations", "ftracetest.txt")

# Kernel log lines that mean something went wrong, whatever the tests say.
BAD_CONSOLE = re.compile(
    r"(BUG:|WARNING:|Oops|Kernel panic|general protection fault|UBSAN:|KASAN:|"
    r"possible circular locking|possible recursive locking|INFO: task .* blocked|"
    r"RCU detected stall|rcu_sched self-detected stall|watchdog: BUG: soft lockup|"
    r"Call Trace:)")

KTAP_LINE = re.compile(r"^(\s*)(not ok|ok) (\d+) ?(.*?)(?: # (.*))?$")


def sections(text):
    cur, out = None, {}
    for line in text.splitlines():
        if line.startswith("### "):
            cur = line[4:].strip()
            out.setdefault(cur, [])
            continue
        if cur is not None:
            out[cur].append(line)
    return out


def ftrace_result(ok, directive):
    """Map ftracetest's KTAP line back to its result category."""
    d = (directive or "").strip().split(" ")[0].upper()
    if ok:
        return {"": "PASS", "SKIP": "UNSUPPORTED", "XFAIL": "XFAIL"}.get(d, "PASS:" + d)
    return {"": "FAIL", "UNRESOLVED": "UNRESOLVED", "ERROR": "UNDEFINED"}.get(d, "FAIL:" + d)


def parse_ftracetest(lines):
    res, seen = [], {}
    for line in lines:
        m = KTAP_LINE.match(line)
        if not m or m.group(1):
            continue
        name = m.group(4).strip()
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = "%s #%d" % (name, seen[name])
        res.append((name, ftrace_result(m.group(2) == "ok", m.group(5))))
    return res


def read_expect(path):
    exp = {}
    if not os.path.exists(path):
        return None
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        result, name = line.split("\t", 1)
        exp[name] = result
    return exp


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    update = "--update-expectations" in sys.argv
    variant, results_log, console_log = args
    text = open(results_log, errors="replace").read()
    console = open(console_log, errors="replace").read()
    checks = []

    def check(name, ok, detail=""):
        checks.append({"name": name, "ok": bool(ok), "detail": detail})

    # The job ran to the end.
    m = re.search(r"^KPT-JOB-EXIT (\d+)", text, re.M)
    check("guest/job-completed", m is not None, "" if m else "no KPT-JOB-EXIT line")

    # Shell suites.
    for line in text.splitlines():
        m = re.match(r"^KPT (\S+) (\S+) (PASS|FAIL) ?(.*)$", line)
        if m:
            check("%s/%s" % (m.group(1), m.group(2)), m.group(3) == "PASS", m.group(4))

    sec = sections(text)

    # KUnit kprobes_test: every case ok, as many as the plan announces.
    kl = sec.get("kunit", [])
    plan = None
    cases = 0
    suite_ok = None
    for line in kl:
        pm = re.match(r"^    1\.\.(\d+)$", line)
        if pm:
            plan = int(pm.group(1))
        m = KTAP_LINE.match(line)
        if not m:
            continue
        if m.group(1) == "    ":
            cases += 1
            d = (m.group(5) or "").upper()
            ok = m.group(2) == "ok" and not d.startswith("SKIP")
            check("kunit/kprobes_test.%s" % m.group(4), ok, m.group(5) or "")
        elif m.group(1) == "" and m.group(4) == "kprobes_test":
            suite_ok = m.group(2) == "ok"
    check("kunit/kprobes_test", suite_ok and plan is not None and cases == plan,
          "plan %s, %d results, suite %s" % (plan, cases, {True: "ok", False: "not ok", None: "missing"}[suite_ok]))

    # ftracetest against the committed expectations.
    ft = parse_ftracetest(sec.get("ftracetest", []))
    check("ftracetest/ran", len(ft) > 0, "%d results" % len(ft))
    if update:
        with open(FTRACE_EXPECT, "w") as f:
            f.write("# ftracetest -K on test.d/kprobe and test.d/dynevent, C variant.\n")
            f.write("# Written by `make expectations` (tools/testing/kpt_results.py\n")
            f.write("# --update-expectations); RESULT<TAB>test.  Both variants must match.\n")
            for name, r in ft:
                f.write("%s\t%s\n" % (r, name))
        print("wrote %s (%d tests)" % (FTRACE_EXPECT, len(ft)))
    exp = read_expect(FTRACE_EXPECT)
    if exp is None:
        check("ftracetest/expectations", False, "missing %s: run `make expectations`" % FTRACE_EXPECT)
    else:
        got = dict(ft)
        for name, r in ft:
            if name not in exp:
                check("ftracetest/" + name, False, "%s, not in the expectations" % r)
            else:
                check("ftracetest/" + name, r == exp[name],
                      r if r == exp[name] else "got %s, expected %s" % (r, exp[name]))
        for name in exp:
            if name not in got:
                check("ftracetest/" + name, False, "missing (expected %s)" % exp[name])

    # The kernel log stays clean.
    bad = [l.strip() for l in console.splitlines() if BAD_CONSOLE.search(l)]
    check("console/no-oops-warn-lockdep", not bad, "; ".join(bad[:3]))

    npass = sum(c["ok"] for c in checks)
    nfail = len(checks) - npass
    for c in checks:
        print("%s %s%s" % ("PASS" if c["ok"] else "FAIL", c["name"],
                           (" (" + c["detail"] + ")") if c["detail"] and not c["ok"] else ""))
    with open(os.path.join(os.path.dirname(results_log), "checks.json"), "w") as f:
        json.dump({"variant": variant, "passed": npass, "failed": nfail, "checks": checks}, f, indent=1)
    print("%s: %d passed, %d failed" % (variant, npass, nfail))
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
