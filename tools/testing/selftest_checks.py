#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of the comparison checks that are easy to fake (make test).

Each case feeds a comparison script made-up results of both kernels in
which the behaviour the check names is wrong, and requires the check to
fail (or, where nothing can be compared, to be skipped rather than
passed); and the same results with the fault removed, which must pass, so
that a case cannot pass by the script failing for another reason.  One
`PASS|FAIL harness/selftest-NAME [detail]` line per case:

  differential-phase-not-run   a driver phase that fails on both kernels
                               (`KPD harness.phase_X ran=no` alike) fails
                               differential/scenarios/every-phase-ran
  differential-scenario-gone   a listed scenario that neither kernel ran
                               fails differential/scenarios/complete
  differential-tree-divergence an intended divergence listed for another
                               kernel tree (`trees:` in divergences.txt)
                               fails differential/scenarios/identical; on
                               its own tree it passes as recorded
  cross-variant-rust-skip      a check PASS on C and SKIP on Rust fails
                               differential/rust-runs-what-c-passes, unless
                               declared config-dependent
  faults-one-kernel-site       a failing allocation met on one kernel only
                               is a SKIP line, not counted as passed
  differential-expected-report a divergence-boot WARN report that an
                               entry's console: field describes passes on
                               the Rust kernel; without it the entry's
                               expected-report check fails, and any other
                               WARN fails console-rust-divergence
  hostdiff-unresolved          an intended divergence that resync could not
                               look past fails hostdiff/every-divergence-
                               resolved (the rest of its sequence was not
                               compared)
  kunit-rust-case              a case of the Rust core's KUnit suite
                               that is `not ok`, or missing from its plan,
                               fails its case and suite checks
                               (kpt_results.py); all `ok`, they pass
  kcfi-check-mismatch          the Kbuild kCFI check (c-shim/kcfi_check.py),
                               on objects compiled here by rustc and clang
                               with kCFI: a callback whose struct has its
                               Rust name (`Kprobe`, not C's `kprobe`) fails
                               it, and so does an assembly preamble naming
                               another function's type id; with C's name
                               and the right id it passes
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
CONSOLE = "Linux version 6.12.0 (selftest)\nnothing to report\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(args, env=None):
    p = subprocess.run([sys.executable, "-B"] + args, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout


def lines_of(out, name):
    return [l for l in out.splitlines() if l.split(" ", 2)[1:2] == [name]]


def result(name, ok, detail=""):
    print("%s harness/selftest-%s%s" % ("PASS" if ok else "FAIL", name, "" if ok else " " + detail))


def differential(tmp, c_kpd, rust_kpd, listed, intended="# none\n", recorded=None, tree="6.12", fixed="",
                 div=None):
    """compare.py's check lines for the two kernels' KPD lines.

    intended: the divergences.txt; recorded: {path under divergences/: lines};
    tree: KP_TREE; fixed: KP_DIFF_FIXED.  The divergence boot is the
    default run's directories, or div: {variant: (KPD lines, console.log)}."""
    d = os.path.join(tmp, "diff-%d" % len(os.listdir(tmp)))
    for v, kpd in (("c", c_kpd), ("rust", rust_kpd)):
        write(os.path.join(d, v, "results.log"), "".join(l + "\n" for l in kpd) + "KPD-END\n")
        write(os.path.join(d, v, "console.log"), CONSOLE)
    for v, (kpd, con) in (div or {}).items():
        write(os.path.join(d, v + "-div", "results.log"), "".join(l + "\n" for l in kpd) + "KPD-END\n")
        write(os.path.join(d, v + "-div", "console.log"), con)
    dd = "-div" if div else ""
    write(os.path.join(d, "list.txt"), "".join(n + "\n" for n in listed))
    write(os.path.join(d, "divergences.txt"), intended)
    for path, lines in (recorded or {}).items():
        write(os.path.join(d, "divergences", path), "".join(l + "\n" for l in lines))
    rc, out = run([os.path.join(HERE, "differential", "compare.py"), os.path.join(d, "out"),
                   os.path.join(d, "c"), os.path.join(d, "rust"), os.path.join(d, "c" + dd),
                   os.path.join(d, "rust" + dd)],
                  {"KP_DIFF_SCENARIOS": os.path.join(d, "list.txt"), "KP_ARCH": "x86_64",
                   "KP_DIFF_DIVERGENCES": os.path.join(d, "divergences.txt"), "KP_TREE": tree,
                   "KP_DIFF_FIXED": fixed})
    checks = open(os.path.join(d, "out", "checks.txt")).read() if os.path.exists(
        os.path.join(d, "out", "checks.txt")) else ""
    return rc, checks


def check_differential(tmp):
    good = ["KPD harness.insmod driver_rc=0", "KPD bad.a rc=-22", "KPD opt.b optimized=1"]
    listed = ["harness.insmod", "bad.a", "opt.b"]
    rc0, ok_checks = differential(tmp, good, good, listed)
    base_ok = rc0 == 0 and "PASS scenarios/every-phase-ran" in ok_checks and \
        "PASS scenarios/complete" in ok_checks
    # A phase that fails on both kernels: its scenario vanishes alike.
    broken = ["KPD harness.insmod driver_rc=0", "KPD bad.a rc=-22", "KPD harness.phase_opt_reg ran=no"]
    rc1, c1 = differential(tmp, broken, broken, listed + ["harness.phase_opt_reg"])
    result("differential-phase-not-run", base_ok and rc1 != 0 and "FAIL scenarios/every-phase-ran" in c1,
           "rc=%d/%d: %s" % (rc0, rc1, " ".join(l for l in c1.splitlines() if "scenarios/" in l)))
    # A listed scenario neither kernel ran (the old floor of 60 passed it).
    gone = good[:2]
    rc2, c2 = differential(tmp, gone, gone, listed)
    result("differential-scenario-gone", base_ok and rc2 != 0 and "FAIL scenarios/complete" in c2,
           "rc=%d/%d: %s" % (rc0, rc2, " ".join(l for l in c2.splitlines() if "scenarios/" in l)))
    # A scenario intended to diverge on 7.3 only: on 6.12 it is an ordinary one.
    c = good + ["KPD arm.a rc=0"]
    rust = good + ["KPD arm.a rc=-16"]
    entry = "arm.a | C: 0 | Rust: -16 | why: made up | repro: none | trees: 7.3\n"
    rec = {"7.3/arm.a.c": ["KPD arm.a rc=0"], "7.3/arm.a.rust": ["KPD arm.a rc=-16"]}
    rc3, c3 = differential(tmp, c, rust, listed + ["arm.a"], entry, rec, "7.3")
    rc4, c4 = differential(tmp, c, rust, listed + ["arm.a"], entry, rec, "6.12")
    result("differential-tree-divergence", base_ok and rc3 == 0 and rc4 != 0
           and "FAIL scenarios/identical" in c4,
           "rc=%d/%d/%d: %s" % (rc0, rc3, rc4, " ".join(l for l in c4.splitlines() if "scenarios/" in l)))
    # A divergence that a C fix closes (scripts/upstream-fixes.sh): the C
    # kernel must then print the Rust recording; still printing its own
    # (the fix not applied) fails.
    rc5, c5 = differential(tmp, rust, rust, listed + ["arm.a"], entry, rec, "7.3", "arm.a")
    rc6, c6 = differential(tmp, c, rust, listed + ["arm.a"], entry, rec, "7.3", "arm.a")
    result("differential-fixed-divergence", base_ok and rc5 == 0 and rc6 != 0,
           "rc=%d/%d/%d: %s" % (rc0, rc5, rc6, " ".join(l for l in c6.splitlines() if l.startswith("FAIL"))))
    # The report the right behaviour prints (an entry's console: field) is
    # allowed in the Rust kernel's divergence boot, and required there.
    c = ["KPD div.x again.rc=0"]
    rust = ["KPD div.x again.rc=-22"]
    entry = "div.x | C: 0 | Rust: -22 | why: made up | repro: none | console: register_kprobe.*ph_div_x\n"
    rec = {"div.x.c": ["KPD div.x again.rc=0"], "div.x.rust": ["KPD div.x again.rc=-22"]}
    warn = ("kprobes: WARN_ON at rust-core/register.rs:1\nWARNING: CPU: 0 PID: 1 at shim.c:2 w+0x1\n"
            "Call Trace:\n register_kprobe+0x1\n ph_div_x+0x1 [m]\n---[ end trace 0 ]---\n")
    other = warn.replace("ph_div_x", "ph_other")
    def boot(con):
        return {"c": (c, CONSOLE + other), "rust": (rust, con)}
    rc7, c7 = differential(tmp, good, good, listed, entry, rec, div=boot(CONSOLE + warn))
    rc8, c8 = differential(tmp, good, good, listed, entry, rec, div=boot(CONSOLE))
    rc9, c9 = differential(tmp, good, good, listed, entry, rec, div=boot(CONSOLE + other))
    exp = "console-rust-divergence/expected-report-div.x"
    result("differential-expected-report", base_ok and rc7 == 0 and rc8 != 0 and rc9 != 0
           and "FAIL " + exp in c8 and "FAIL console-rust-divergence/no-reports" in c9,
           "rc=%d/%d/%d/%d: %s | %s" % (rc0, rc7, rc8, rc9,
                                        " ".join(l for l in c7.splitlines() if l.startswith("FAIL")),
                                        " ".join(l for l in c8.splitlines() if l.startswith("FAIL"))))


def check_cross_variant(tmp):
    def one(c, rust, declared):
        d = os.path.join(tmp, "cross-%d" % len(os.listdir(tmp)))
        for v, res in (("c", c), ("rust", rust)):
            checks = [{"name": n, "ok": r == "PASS", "skip": r == "SKIP"} for n, r in res.items()]
            write(os.path.join(d, v, "test", "checks.json"), json.dumps({"checks": checks}))
        write(os.path.join(d, "declared.txt"), declared)
        return run([os.path.join(HERE, "cross_variant.py"), d, "0", "0", "0", "", os.path.join(d, "declared.txt")])[1]

    c = {"kunit/case-a": "PASS", "blacklist/listed-do_int3": "PASS"}
    good = one(c, dict(c), "")
    bad = one(c, {"kunit/case-a": "PASS", "blacklist/listed-do_int3": "SKIP"}, "")
    missing = one(c, {"kunit/case-a": "PASS"}, "")
    declared = one(c, {"kunit/case-a": "PASS", "blacklist/listed-do_int3": "SKIP"},
                   "blacklist/listed-.* a made-up reason\n")
    name = "differential/rust-runs-what-c-passes"
    ok = (lines_of(good, name) and good.startswith("PASS") and bad.startswith("FAIL")
          and missing.startswith("FAIL") and declared.startswith("PASS"))
    result("cross-variant-rust-skip", ok, "outputs: %r %r %r %r" % (good, bad, missing, declared))


def check_kunit(tmp):
    def one(cases, plan):
        d = os.path.join(tmp, "kunit-%d" % len(os.listdir(tmp)))
        log = ("### kunit\nKTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: kprobes_rust_index\n"
               "    1..%d\n%sok 1 kprobes_rust_index\n### end\n"
               % (plan, "".join("    %s %d case_%d\n" % (r, i + 1, i) for i, r in enumerate(cases))))
        write(os.path.join(d, "results.log"), log)
        write(os.path.join(d, "console.log"), CONSOLE)
        out = run([os.path.join(HERE, "kpt_results.py"), "rust", os.path.join(d, "results.log"),
                   os.path.join(d, "console.log")])[1]
        return [l.split(" ", 2)[0] for l in out.splitlines()
                if l.split(" ", 2)[1:2] in (["kunit/kprobes_rust_index"], ["kunit/kprobes_rust_index.case_1"])]

    good = one(["ok", "ok"], 2)
    failed = one(["ok", "not ok"], 2)
    short = one(["ok"], 2)
    ok = good == ["PASS", "PASS"] and failed == ["FAIL", "FAIL"] and short == ["FAIL"]
    result("kunit-rust-case", ok, "outputs: %r %r %r" % (good, failed, short))


def check_faults(tmp):
    def sweep(sites):
        """SITES: (case, failing allocation's caller[, outcome]) per injected step."""
        text = "### faults\n"
        for case, site, *outcome in sites:
            text += "KPF %s step=1 %s injected=1\n" % (case, outcome[0] if outcome else "rc=-12")
            text += "KPFT FAULT_INJECTION: forcing a failure.\n"
            text += "KPFT __kmalloc+0x10/0x100\nKPFT %s+0x20/0x200\n" % site
        text += "KPF kprobe_events.after rc=0 injected=0\n### end\nKPT-JOB-EXIT\n"
        return text

    def one(c_sites, rust_sites, env=None):
        d = os.path.join(tmp, "faults-%d" % len(os.listdir(tmp)))
        for v, sites in (("c", c_sites), ("rust", rust_sites)):
            write(os.path.join(d, v, "results.log"), sweep(sites))
            write(os.path.join(d, v, "console.log"), CONSOLE)
        return run([os.path.join(HERE, "faults", "compare.py"), "faults", os.path.join(d, "c"),
                    os.path.join(d, "rust")], env)[1]

    both = [("register_kprobe", "alloc_aggr_kprobe")]
    good = one(both, both)
    onesided = one(both + [("register_kprobe", "kprobe_slot_alloc")], both)
    skip = [l for l in onesided.splitlines() if l.startswith("SKIP faults/not-compared/")]
    ok = ("PASS faults/same-outcome-per-failing-allocation" in good and "SKIP " not in good
          and len(skip) == 1 and "kprobe_slot_alloc" in skip[0]
          and "PASS faults/same-outcome-per-failing-allocation" in onesided)
    result("faults-one-kernel-site", ok, "good=%r one-sided=%r" % (good[:300], onesided[:400]))

    # Divergence 7 in the sweep: 7.3's C reports success (nothing fired)
    # where Rust returns -ENOMEM; read as 6.12's C on 7.3 only.
    def one7(tree):
        case = "register_kprobe.ftrace"
        return one([(case, "alloc_ftrace_hash", "ret=0 fired=0"), (case, "alloc_aggr_kprobe", "ret=0 fired=1")],
                   [(case, "alloc_ftrace_hash", "ret=-12 fired=0"), (case, "alloc_aggr_kprobe", "ret=0 fired=1")],
                   {"KP_TREE": tree})

    on73, on612 = one7("7.3"), one7("6.12")
    name = "faults/same-outcome-per-failing-allocation"
    ok = "PASS " + name in on73 and "FAIL " + name in on612 and "INTENDED" in on73
    result("faults-divergence-7", ok, "7.3=%r 6.12=%r" % (on73[:300], on612[:300]))


def check_hostdiff():
    sys.path.insert(0, os.path.join(HERE, "hostdiff"))
    import run as hostdiff_run  # noqa: E402  (tools/testing/hostdiff/run.py)

    seqs = [{"kind": "same", "seq": "s1"}, {"kind": "intended", "resync": 0, "seq": "s2"}]
    good = hostdiff_run.verdicts(seqs, True, "")
    bad = hostdiff_run.verdicts(seqs + [{"kind": "intended", "resync": 3, "seq": "s3"}], True, "")
    name = "hostdiff/every-divergence-resolved"
    ok = ("PASS " + name in good and any(l.startswith("FAIL " + name) for l in bad)
          and "PASS hostdiff/rust-identical" in bad)
    result("hostdiff-unresolved", ok, "good=%r bad=%r" % (good, bad))


KCFI_C = """struct kprobe;
struct pt_regs;
int cb(struct kprobe *p, struct pt_regs *regs);
int stub(struct kprobe *p, struct pt_regs *regs);
void *addresses[] = { cb, stub };
"""
KCFI_RUST = """#![no_std]
#![allow(non_camel_case_types)]
#[repr(C)]
pub struct STRUCT { x: i32 }
#[repr(C)]
pub struct pt_regs { x: i32 }
#[no_mangle]
pub unsafe extern "C" fn cb(_p: *mut STRUCT, _r: *mut pt_regs) -> i32 { 1 }
core::arch::global_asm!(
    ".pushsection .text, \\"ax\\"", ".globl stub", ".type stub, @function", ".balign 16",
    ".type __cfi_stub, @function", "__cfi_stub:", ".skip 11, 0x90", ".byte 0xb8",
    ".long __kcfi_typeid_ID", ".size __cfi_stub, .-__cfi_stub",
    "stub:", "xorl %eax, %eax", "ret", ".size stub, .-stub", ".popsection",
    options(att_syntax)
);
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }
"""


def check_kcfi(tmp):
    """c-shim/kcfi_check.py on a C object and a Rust object of x86-64 with
    kCFI: the C prototypes' ids against rustc's preamble and an assembly
    preamble's relocation, and the preambles' place (both are laid out
    for no patchable prefix, so CALL_PADDING's --prefix 11 finds neither)."""
    d = os.path.join(tmp, "kcfi")
    write(os.path.join(d, "c.c"), KCFI_C)
    cc = subprocess.run(["clang-19", "-c", "-O2", "-fsanitize=kcfi",
                         "-fsanitize-cfi-icall-experimental-normalize-integers",
                         os.path.join(d, "c.c"), "-o", os.path.join(d, "c.o")],
                        capture_output=True, text=True)
    if cc.returncode:
        return result("kcfi-check-mismatch", False, "clang-19: " + cc.stderr[:200])
    outs = {}
    def kcfi_check(*args):
        p = subprocess.run([sys.executable, "-B", os.path.join(HERE, "..", "..", "c-shim", "kcfi_check.py")]
                           + list(args), capture_output=True, text=True)
        return (p.returncode, p.stdout + p.stderr)

    for case, struct_name, typeid in (("good", "kprobe", "stub"), ("rust-name", "Kprobe", "stub"),
                                      ("asm-id", "kprobe", "cb")):
        src = os.path.join(d, case + ".rs")
        write(src, KCFI_RUST.replace("STRUCT", struct_name).replace("__kcfi_typeid_ID",
                                                                     "__kcfi_typeid_" + typeid))
        rc = subprocess.run(["rustc", "--edition", "2021", "-O", "--crate-type=lib", "--emit=obj",
                             "-Cpanic=abort", "-Zsanitizer=kcfi", "-Zsanitizer-cfi-normalize-integers",
                             "-Cunsafe-allow-abi-mismatch=sanitizer,sanitizer-cfi-normalize-integers",
                             "--target", "x86_64-unknown-linux-gnu", src, "-o", src[:-3] + ".o"],
                            capture_output=True, text=True, env=dict(os.environ, RUSTC_BOOTSTRAP="1"))
        if rc.returncode:
            return result("kcfi-check-mismatch", False, "rustc (%s): %s" % (case, rc.stderr[:200]))
        outs[case] = kcfi_check(src[:-3] + ".o", os.path.join(d, "c.o"))
    outs["prefix"] = kcfi_check("--prefix", "11", os.path.join(d, "good.o"), os.path.join(d, "c.o"))
    good, bad_name, bad_id, bad_at = outs["good"], outs["rust-name"], outs["asm-id"], outs["prefix"]
    ok = (good[0] == 0 and "rustc: cb\n" in good[1] and "assembly: stub\n" in good[1]
          and bad_name[0] == 1 and "cb: rustc's type id" in bad_name[1]
          and bad_id[0] == 1 and "stub: the preamble's id is __kcfi_typeid_cb" in bad_id[1]
          and bad_at[0] == 1 and "cb: no kCFI preamble with its id 15 bytes" in bad_at[1]
          and "stub: no kCFI preamble with its id 15 bytes" in bad_at[1])
    result("kcfi-check-mismatch", ok, repr(outs)[:400])


def main():
    with tempfile.TemporaryDirectory(prefix="kp-selftest-") as tmp:
        for f in (check_differential, check_cross_variant, check_faults, check_kunit):
            try:
                f(tmp)
            except Exception as e:  # a broken self-test fails, it does not pass
                result(f.__name__[6:].replace("_", "-"), False, "%s: %s" % (type(e).__name__, e))
    try:
        check_hostdiff()
    except Exception as e:
        result("hostdiff-unresolved", False, "%s: %s" % (type(e).__name__, e))
    with tempfile.TemporaryDirectory(prefix="kp-selftest-") as tmp:
        try:
            check_kcfi(tmp)
        except Exception as e:
            result("kcfi-check-mismatch", False, "%s: %s" % (type(e).__name__, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
