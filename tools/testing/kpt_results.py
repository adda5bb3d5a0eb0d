#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one guest run's logs into checks.

    kpt_results.py VARIANT RESULTS_LOG CONSOLE_LOG [--update-expectations]
                   [--expect FILE | --ftrace-like C_RESULTS_LOG | --reference]
                   [--config DOTCONFIG]

The job output (results.log, the guest's ttyS1) holds sections:
  ### kunit        KTAP from /sys/kernel/debug/kunit/SUITE/results: kprobes_test,
                   and on the Rust core its kprobes_rust_* suites
  ### ftracetest   KTAP from `ftracetest -K`
  ### kmemleak     a kmemleak scan (debug kernels)
  KPT <suite> <test> PASS|FAIL|SKIP [detail]   lines from the shell suites
Every check is printed as `PASS|FAIL|SKIP <name> [detail]`; the last line
is `<variant>: N passed, N failed, N skipped`.  A JSON copy goes next to
the log.

ftracetest results are compared with tools/testing/expectations/ftracetest.txt
(recorded from the C variant of the pipeline config): a test whose result
differs, or that is missing or new, fails.  --update-expectations rewrites
that file from this run instead (use it only on the `c` variant).  For the
other configs of the matrix, --ftrace-like takes the expectations from the
C variant's run of the same config instead (a run made beside this one);
that C run itself is given --reference: its ftracetest results are only
counted (ftracetest/ran), not compared with anything.  A config with
expectations of its own (tools/testing/expectations/CONFIG/ftracetest.txt,
the arm64 row's) gives them with --expect to both variants, which are then
compared as the pipeline's are (--update-expectations writes that file).
In a quick guest job (kpt.quick=1: `KPT ftracetest-case FILE SKIP` lines
for the cases left out) an expected test that did not run cannot be told
from a left-out one, as the results name tests by description and the
skips by file: each test that ran must match, and the tests that ran and
the cases left out must add up to the expectations (ftracetest/
all-expected-ran).  A test that is
UNSUPPORTED or UNRESOLVED on both kernels is reported as skipped: it ran
nothing that could fail.

The logs of a run that did not complete are read as far as they go: the
checks keep their names (guest/job-completed fails, missing results fail).
With --config, each report detector the kernel is built with (lockdep,
KASAN, kmemleak) must be seen initialised in the console log
(console/DETECTOR-active): a clean log then means what it says.
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
    r"ODEBUG:|kmemleak: .* new suspected memory leaks|Call Trace:)")

# A leaked object whose allocation backtrace goes through the kprobes core
# (upstream's or this project's: Rust v0 symbols such as
# _RNvNtCs..._12kprobes_core3opt17alloc_aggr_kprobe, hence no word
# boundaries), the arch's kprobes code (arch_prepare_optimized_kprobe,
# alloc_insn_page), rethook, or kprobes' users (trace_kprobe, the test
# modules).
KPROBES_FRAME = re.compile(r"(kprobe|kretprobe|rethook|insn_slot|optinsn|insn_page|jprobe)")

KTAP_LINE = re.compile(r"^(\s*)(not ok|ok) (\d+) ?(.*?)(?: # (.*))?$")


def read_text(path):
    """A guest log as text (CR dropped; empty if the file is missing)."""
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "")
    except OSError:
        return ""


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


# Report detectors: (name, CONFIG option, the console line of its start).
DETECTORS = [
    ("lockdep", "CONFIG_LOCKDEP", "Lock dependency validator"),
    ("kasan", "CONFIG_KASAN", "KernelAddressSanitizer initialized"),
    ("kmemleak", "CONFIG_DEBUG_KMEMLEAK", "Kernel memory leak detector initialized"),
]


def config_options(path):
    """The `=y` options of a .config (empty without one)."""
    return {l.split("=", 1)[0] for l in read_text(path).splitlines() if l.endswith("=y")} if path else set()


def console_checks(console, dotconfig=None, pfx="console"):
    """[(name, ok, detail)]: no report in the kernel log (which must exist),
    and each detector of the kernel's config seen starting."""
    bad = [l.strip() for l in console.splitlines() if BAD_CONSOLE.search(l)]
    booted = "Linux version" in console
    out = [(pfx + "/no-reports", booted and not bad,
            "; ".join(bad[:3]) if bad else "" if booted else "no kernel log")]
    opts = config_options(dotconfig)
    for name, opt, banner in DETECTORS:
        if opt in opts:
            out.append(("%s/%s-active" % (pfx, name), banner in console,
                        "" if banner in console else "%s=y but no '%s' in the log" % (opt, banner)))
    return out


def kprobes_leaks(lines):
    """The headers of a kmemleak report's objects allocated through kprobes
    code (a KPROBES_FRAME in the backtrace)."""
    return [h for h, body in kmemleak_objects(lines) if any(KPROBES_FRAME.search(l) for l in body)]


def kmemleak_objects(lines):
    """The objects of a kmemleak report: (header, [lines])."""
    objs, cur = [], None
    for line in lines:
        if line.startswith("unreferenced object"):
            cur = (line, [])
            objs.append(cur)
        elif cur is not None:
            cur[1].append(line)
    return objs


def main():
    argv = sys.argv[1:]
    like = None
    if "--ftrace-like" in argv:
        i = argv.index("--ftrace-like")
        like = argv[i + 1]
        del argv[i:i + 2]
    expect = FTRACE_EXPECT
    if "--expect" in argv:
        i = argv.index("--expect")
        expect = argv[i + 1]
        del argv[i:i + 2]
    dotconfig = None
    if "--config" in argv:
        i = argv.index("--config")
        dotconfig = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    update = "--update-expectations" in argv
    reference = "--reference" in argv
    variant, results_log, console_log = args
    text = read_text(results_log)
    console = read_text(console_log)
    checks = []

    def check(name, ok, detail="", skip=False):
        checks.append({"name": name, "ok": bool(ok), "skip": skip, "detail": detail})

    # The job ran to the end.
    m = re.search(r"^KPT-JOB-EXIT (\d+)", text, re.M)
    check("guest/job-completed", m is not None and m.group(1) == "0",
          "job exited %s" % m.group(1) if m else "no KPT-JOB-EXIT line: the guest did not finish the job")

    # Shell suites.
    for line in text.splitlines():
        m = re.match(r"^KPT (\S+) (\S+) (PASS|FAIL|SKIP) ?(.*)$", line)
        if m:
            check("%s/%s" % (m.group(1), m.group(2)), m.group(3) != "FAIL", m.group(4),
                  skip=m.group(3) == "SKIP")

    sec = sections(text)

    # KUnit: kprobes_test and the Rust core's suites, each with every case
    # ok, as many as its plan announces, and the suite's own line ok; a
    # suite KUnit skipped whole (its top line `# SKIP`, no subtest) is
    # skipped.  A suite whose KTAP the job could not read has its KPT
    # line (FAIL, or SKIP where the kernel has none) and no other check.
    kpt_kunit = set(re.findall(r"^KPT kunit (\S+) ", text, re.M))
    suites = {"kprobes_test": [None, 0, None, 0]}
    cur = None
    for line in sec.get("kunit", []):
        sm = re.match(r"^    # Subtest: (\S+)$", line)
        if sm:
            cur = sm.group(1)
            suites.setdefault(cur, [None, 0, None, 0])
            continue
        pm = re.match(r"^    1\.\.(\d+)$", line)
        if pm and cur:
            suites[cur][0] = int(pm.group(1))
            continue
        m = KTAP_LINE.match(line)
        if not m:
            continue
        if m.group(1) == "    " and cur:
            suites[cur][1] += 1
            d = (m.group(5) or "").upper()
            ok = m.group(2) == "ok" and not d.startswith("SKIP")
            suites[cur][3] += not ok
            check("kunit/%s.%s" % (cur, m.group(4)), ok, m.group(5) or "")
        elif m.group(1) == "" and m.group(4):
            d = (m.group(5) or "").upper()
            e = suites.setdefault(m.group(4), [None, 0, None, 0])
            e[2] = "SKIP" if d.startswith("SKIP") and not e[1] else m.group(2) == "ok"
    for name, (plan, cases, suite_ok, bad) in suites.items():
        if name in kpt_kunit:
            continue
        if suite_ok == "SKIP":
            check("kunit/" + name, True, "skipped by KUnit", skip=True)
            continue
        check("kunit/" + name, suite_ok and plan is not None and cases == plan and not bad,
              "plan %s, %d results, %d not ok, suite %s"
              % (plan, cases, bad, {True: "ok", False: "not ok", None: "missing"}[suite_ok]))

    # ftracetest against the committed expectations.
    ft = parse_ftracetest(sec.get("ftracetest", []))
    check("ftracetest/ran", len(ft) > 0, "%d results" % len(ft))
    # The ftracetest cases a quick guest job (kpt.quick=1) left out.
    left_out = re.findall(r"^KPT ftracetest-case (\S+) SKIP", text, re.M)
    if update and left_out:
        sys.exit("kpt_results.py: a quick guest job (kpt.quick=1) left ftracetest cases out: "
                 "record the expectations from a whole one")
    if update:
        os.makedirs(os.path.dirname(expect), exist_ok=True)
        with open(expect, "w") as f:
            f.write("# ftracetest -K on test.d/kprobe and test.d/dynevent, C variant.\n")
            f.write("# Written by `make expectations` (tools/testing/kpt_results.py\n")
            f.write("# --update-expectations); RESULT<TAB>test.  Both variants must match.\n")
            for name, r in ft:
                f.write("%s\t%s\n" % (r, name))
        print("wrote %s (%d tests)" % (expect, len(ft)))
    if reference:
        # The C run of a matrix config: its ftracetest results are the
        # expectations of the Rust run, not checks of their own.
        exp = None
    elif like is not None:
        ctext = read_text(like)
        cft = parse_ftracetest(sections(ctext).get("ftracetest", []))
        exp = dict(cft) if cft else None
        where = "the C variant's run %s" % like
    else:
        exp = read_expect(expect)
        where = expect
    if reference:
        pass
    elif exp is None:
        check("ftracetest/expectations", False, "no expectations: %s (`make expectations`)" % where)
    else:
        got = dict(ft)
        for name, r in ft:
            if name not in exp:
                check("ftracetest/" + name, False, "%s, not in the expectations" % r)
            else:
                inert = r == exp[name] and r in ("UNSUPPORTED", "UNRESOLVED")
                check("ftracetest/" + name, r == exp[name],
                      "%s on both kernels" % r if inert else r if r == exp[name] else
                      "got %s, expected %s" % (r, exp[name]), skip=inert)
        # Expectations from the C run of the same job left the same cases
        # out: each of its tests must have run here too (below).
        if left_out and like is None:
            ran = sum(1 for name in exp if name in got)
            check("ftracetest/all-expected-ran", ran + len(left_out) == len(exp),
                  "%d expected tests ran, %d cases left out, %d expected" % (ran, len(left_out), len(exp)))
        else:
            for name in exp:
                if name not in got:
                    check("ftracetest/" + name, False, "missing (expected %s)" % exp[name])

    # kmemleak (debug kernels): no leaked object allocated by the kprobes
    # core or its users; the total is reported (leaks elsewhere in the
    # kernel are not this project's, and are the same on both variants).
    if "kmemleak" in sec:
        objs = kmemleak_objects(sec["kmemleak"])
        ours = kprobes_leaks(sec["kmemleak"])
        check("kmemleak/scan-ran", any(l.startswith("kmemleak-objects:") for l in sec["kmemleak"]))
        check("kmemleak/no-kprobes-leak", not ours,
              "%d of %d leaked objects from kprobes code: %s" % (len(ours), len(objs), "; ".join(ours[:3])))
        print("kmemleak: %d unreferenced objects in all" % len(objs))

    # The kernel log stays clean, and the detectors the kernel is built
    # with were running.
    for name, ok, detail in console_checks(console, dotconfig):
        check(name, ok, detail)

    nskip = sum(c["skip"] for c in checks)
    npass = sum(c["ok"] and not c["skip"] for c in checks)
    nfail = len(checks) - npass - nskip
    for c in checks:
        res = "SKIP" if c["skip"] else "PASS" if c["ok"] else "FAIL"
        print("%s %s%s" % (res, c["name"], (" (" + c["detail"] + ")") if c["detail"] and res != "PASS" else ""))
    os.makedirs(os.path.dirname(results_log) or ".", exist_ok=True)
    with open(os.path.join(os.path.dirname(results_log), "checks.json"), "w") as f:
        json.dump({"variant": variant, "passed": npass, "failed": nfail, "skipped": nskip, "checks": checks},
                  f, indent=1)
    print("%s: %d passed, %d failed, %d skipped" % (variant, npass, nfail, nskip))
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
