#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How far the Rust core is from "safe by construction", measured
on the sources, and a ratchet so that it only gets better.

  tools/testing/safety.py                 print the figures and the checks
  tools/testing/safety.py --write-baseline  record today's figures

Figures (rust-core/*.rs, and arch/*/*.rs where said; host/ is the
simulated kernel and its tests):
  unsafe-fn-in-logic   `unsafe fn` in the logic modules (LOGIC below: not
                       the FFI/sys/arch edge); target <= 10.  The C
                       symbols a module owns (`unsafe extern "C" fn`: the
                       hit-path handlers, `get_kprobe`, the `ftrace_export!`s of
                       the debugfs callbacks) are the FFI edge
                       and counted apart
  unsafe-fn-no-safety-doc   of both, how many lack a `# Safety` section;
                       target 0
  boilerplate-safety-%  SAFETY comments that give no reason ("forwarded
                       caller contract", "caller's contract", "no
                       preconditions"), percent of all (arch/ too);
                       target <= 10
  modules-in-cycles    modules in an import cycle (`crate::X` references
                       between rust-core modules, and arch/'s `arch` and
                       `arch_sys`); target 0
  exports-lines        lines of exports.rs; target <= 424 (half of 849)
  manual-lock-calls    lock and unlock calls (`kprobe_mutex`, `text_mutex`,
                       `cpus_read_lock()`, `jump_label_lock()`, the sysctl
                       and slot-cache mutexes, `rcu_read_lock()`,
                       `preempt_disable()`) outside rust-core/locks.rs,
                       whose guards are the only way to take them, and
                       sys_kernel.rs, which wraps them; target 0
  caller-reliant-safe-fns  safe functions (rust-core/, arch/) whose SAFETY
                       comments rest on their callers ("the caller(s)",
                       "paired with", "called once"): a function whose
                       soundness depends on its caller is an `unsafe fn`
                       with a `# Safety` section, or takes a token that
                       proves the condition; target 0
  unbounded-lifetimes  safe functions whose return type borrows for a
                       lifetime that no parameter carries (a reference
                       that may outlive its referent); target 0
  test-code-in-kernel  functions documented as for the host tests that the
                       kernel build compiles (no `#[cfg(test)]` or
                       `#[cfg(not(CONFIG_RUST))]`); target 0
  long-unsafe-blocks   `unsafe` blocks of more than 10 lines (rust-core/,
                       arch/): an unsafe block covers one operation, with
                       its own SAFETY reason (a block that is one `asm!`
                       is one operation); target 0

Output: one `FIGURE name value target met|not-met` line per figure, then
`PASS|FAIL lint/safety-ratchet` (FAIL when a figure is worse than the
committed baseline, tools/testing/safety-baseline.json), one
`PASS|FAIL lint/safety-target-NAME` line for each target that the
baseline records as met (a met target may not be lost again), and one
`PASS|FAIL lint/safety-selftest-NAME` line per self-test of the
soundness checks (SELFTESTS: each must find a made-up fault and pass the
same source without it).
"""
import glob
import json
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(root)
BASELINE = "tools/testing/safety-baseline.json"

# The logic modules of the issue; the edge is exports (C ABI), sys_kernel
# (kernel services), types/list (C layouts), objpool (objpool.h's ring
# operations on C's memory, as list.rs is list.h's), state, kprobes_core
# (crate root).
LOGIC = ["aggr", "arm", "opt", "register", "kretprobe", "ftrace", "slots", "blacklist",
         "addr", "registry", "index", "module", "debugfs", "init", "jprobe", "opt_none",
         "opt_aggr", "kretprobe_rethook", "kretprobe_objpool"]
BOILER = re.compile(r"SAFETY:\s*(forwarded caller contract|(the )?caller'?s contract|no preconditions)", re.I)
TARGETS = {  # name: (limit, lower is better)
    "unsafe-fn-in-logic": 10,
    "unsafe-fn-no-safety-doc": 0,
    "boilerplate-safety-%": 10,
    "modules-in-cycles": 0,
    "exports-lines": 424,
    "manual-lock-calls": 0,
    "caller-reliant-safe-fns": 0,
    "unbounded-lifetimes": 0,
    "test-code-in-kernel": 0,
    "long-unsafe-blocks": 0,
}
LOCKCALL = re.compile(r"\b(?:sys::(?:kprobe_mutex|text_mutex|cpus_read|jump_label|sysctl_mutex|rcu_read)_(?:lock|unlock)"
                      r"|sys::mutex_(?:lock|unlock)|sys::preempt_(?:disable|enable)|state::(?:lock|unlock))\s*\(")
# A SAFETY reason that rests on the function's callers.
CALLER = re.compile(r"\b(paired with|called once|(the |its |every |by the )?callers?\b|caller's)", re.I)
FNDECL = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(unsafe\s+)?(?:extern\s+\"C\"\s+)?fn\s+(\w+)")


def edge_src():
    """[(path, text)] of the in-kernel Rust: rust-core/*.rs and arch/*/*.rs."""
    return [(f, open(f).read()) for f in sorted(glob.glob("rust-core/*.rs") + glob.glob("arch/*/*.rs"))]


def comment_at(lines, i):
    """The comment starting at line i, with its continuation lines."""
    txt = lines[i]
    j = i + 1
    while j < len(lines) and lines[j].strip().startswith("//") and "SAFETY" not in lines[j]:
        txt += " " + lines[j].strip()[2:]
        j += 1
    return txt


def caller_reliant(files=None):
    """file:line name of SAFETY comments in safe functions that cite their callers."""
    out = []
    for f, text in files or edge_src():
        lines = text.split("\n")
        stack = []  # (indent, unsafe, name) of the enclosing fn declarations
        for i, l in enumerate(lines):
            m = FNDECL.match(l)
            if m:
                ind = len(m.group(1))
                stack = [s for s in stack if s[0] < ind] + [(ind, bool(m.group(2)), m.group(3))]
            if "SAFETY:" in l and CALLER.search(comment_at(lines, i)):
                ind = len(l) - len(l.lstrip())
                enc = [s for s in stack if s[0] < ind]
                if enc and not enc[-1][1]:
                    out.append("%s:%d %s" % (f, i + 1, enc[-1][2]))
    return out


def unbounded_lifetimes(files=None):
    """Safe functions returning a borrow for a lifetime no parameter has."""
    out = []
    for f, text in files or edge_src():
        src = re.sub(r"//[^\n]*", "", text)
        for m in re.finditer(r"(?<![\w\"])(unsafe\s+)?(?:extern\s+\"C\"\s+)?fn\s+(\w+)\s*<([^>]*)>\s*\(", src):
            if m.group(1):
                continue
            # The parameters: up to the parenthesis that closes the list.
            depth, k = 1, m.end()
            while k < len(src) and depth:
                depth += {"(": 1, ")": -1}.get(src[k], 0)
                k += 1
            params = src[m.end():k - 1]
            ret = re.match(r"\s*->\s*([^{;]*)", src[k:])
            for lt in re.findall(r"'(\w+)", m.group(3)):
                if ret and "'" + lt in ret.group(1) and "'" + lt not in params:
                    out.append("%s:%d %s" % (f, src[:m.start()].count("\n") + 1, m.group(2)))
    return out


def test_code_in_kernel(files=None):
    """Functions documented as for host tests without a cfg keeping them out of the kernel."""
    out = []
    for f, text in files or edge_src():
        lines = text.split("\n")
        for i, l in enumerate(lines):
            m = FNDECL.match(l)
            if not m:
                continue
            j, doc, attrs = i - 1, [], []
            while j >= 0 and lines[j].strip().startswith(("///", "#[")):
                (doc if lines[j].strip().startswith("///") else attrs).append(lines[j])
                j -= 1
            if re.search(r"\bhost tests\b|\(tests\b", " ".join(doc)) and not any(
                    re.search(r"cfg\((test|not\(CONFIG_RUST\))\)", a) for a in attrs):
                out.append("%s:%d %s" % (f, i + 1, m.group(3)))
    return out


def long_unsafe_blocks(files=None, limit=10):
    """file:line (lines) of unsafe blocks longer than `limit` lines."""
    out = []
    for f, text in files or edge_src():
        lines = text.split("\n")
        for i, l in enumerate(lines):
            if not re.search(r"\bunsafe\s*\{\s*$", l.split("//")[0]):
                continue
            ind = len(l) - len(l.lstrip())
            j = i + 1
            while j < len(lines) and not (lines[j].strip().startswith("}") and
                                          len(lines[j]) - len(lines[j].lstrip()) == ind):
                j += 1
            if j - i - 1 > limit and not one_asm(lines[i + 1:j], ind + 4):
                out.append("%s:%d (%d lines)" % (f, i + 1, j - i - 1))
    return out


def one_asm(body, ind):
    """Whether an unsafe block's lines are one `asm!` invocation: a single
    operation however many lines its template takes."""
    top = [l for l in body if l.strip() and not l.strip().startswith("//")
           and len(l) - len(l.lstrip()) == ind]
    return (len(top) == 2 and re.match(r"\s*(core::arch::)?asm!\($", top[0]) is not None
            and top[1].strip() in (")", ");"))


def src(m):
    return open("rust-core/%s.rs" % m).read()


def unsafe_fns():
    # A module's other-config twin (opt_none.rs for opt.rs without
    # OPTPROBES, kretprobe_objpool.rs for kretprobe_rethook.rs without
    # rethook)
    # defines the same functions: an `unsafe fn` of either is counted once.
    TWIN = {"opt_none": "opt", "kretprobe_objpool": "kretprobe_rethook"}
    n = nodoc = cabi = 0
    seen = set()
    for m in LOGIC:
        if not os.path.exists("rust-core/%s.rs" % m):
            continue
        lines = src(m).split("\n")
        in_export = False
        for i, l in enumerate(lines):
            code = l.split("//")[0]
            if l.startswith("ftrace_export! {"):
                in_export = True
            elif l.startswith("}"):
                in_export = False
            # (a function pointer type, `type X = unsafe extern "C" fn(..)`, is no function)
            if re.search(r"\bunsafe\s+(extern\s+\"C\"\s+)?fn\b", code) and not re.match(r"\s*(pub\s+)?type\b", code):
                name = (TWIN.get(m, m), re.search(r"\bfn\s+(\w+)", code).group(1))
                if "extern" in code or in_export:
                    cabi += 1  # a C symbol of the module that owns it: the FFI edge
                elif name not in seen:
                    n += 1
                seen.add(name)
                j = i - 1
                doc = []
                while j >= 0:
                    t = lines[j].strip()
                    if t.startswith(("//", "#[")):
                        doc.append(lines[j])
                    elif t.endswith(")]"):
                        # the last line of an attribute rustfmt split over lines
                        while j > 0 and not lines[j].strip().startswith("#["):
                            j -= 1
                    else:
                        break
                    j -= 1
                if not any("# Safety" in d for d in doc):
                    nodoc += 1
    return n, nodoc, cabi


def boilerplate():
    total = boiler = 0
    for f in glob.glob("rust-core/*.rs") + glob.glob("arch/*/*.rs"):
        for l in open(f).read().split("\n"):
            if "SAFETY:" in l:
                total += 1
                boiler += bool(BOILER.search(l))
    return round(100.0 * boiler / max(total, 1), 1), boiler, total


def lock_calls():
    where = []
    for m in modules():
        if m in ("locks", "sys_kernel"):
            continue
        for i, l in enumerate(src(m).split("\n")):
            if LOCKCALL.search(l.split("//")[0]):
                where.append("%s.rs:%d" % (m, i + 1))
    return where


def modules():
    return sorted(os.path.basename(f)[:-3] for f in glob.glob("rust-core/*.rs"))


def import_graph():
    alias = {"sys_kernel": "sys", "ktypes_kernel": "ktypes"}  # cfg-selected by #[path]
    mods = set(modules()) | set(alias.values()) | {"ffi", "arch", "arch_entry", "arch_sys"}
    g = {}
    for m in modules():
        name = alias.get(m, m)
        if m == "kprobes_core":
            continue  # the crate root declares every module
        txt = re.sub(r"//.*", "", src(m))
        deps = set(re.findall(r"\bcrate::(\w+)", txt))
        # `use crate::{a, b::c}`
        for grp in re.findall(r"\bcrate::\{([^}]*)\}", txt):
            deps |= set(re.findall(r"(?:^|,)\s*(\w+)", grp))
        g[name] = sorted(d for d in deps if d in mods and d != name)
    # The architecture's modules, each the union of every
    # architecture's file: `arch` (arch/*/mod.rs), `arch_entry`
    # (arch/*/entry.rs) and `arch_sys` (arch/*/sys.rs), which the crate root selects by target_arch.  A
    # macro's `$crate::X` is not counted: it resolves where the macro is
    # used (registry.rs's `arch_get_kprobe!`), whose imports count.
    for name, base in (("arch", "mod.rs"), ("arch_entry", "entry.rs"), ("arch_sys", "sys.rs")):
        deps = set()
        for f in glob.glob("arch/*/" + base):
            txt = re.sub(r"//.*", "", open(f).read())
            deps |= set(re.findall(r"(?<!\$)\bcrate::(\w+)", txt))
            for grp in re.findall(r"\bcrate::\{([^}]*)\}", txt):
                deps |= set(re.findall(r"(?:^|,)\s*(\w+)", grp))
        g[name] = sorted(d for d in deps if d in mods and d != name)
    return g


def sccs(g):
    idx, low, on, st, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        idx[v] = low[v] = n[0]
        n[0] += 1
        st.append(v)
        on.add(v)
        for w in g.get(v, []):
            if w not in idx:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in idx:
            visit(v)
    return [c for c in out if len(c) > 1]


def figures():
    n, nodoc, cabi = unsafe_fns()
    pct, boiler, total = boilerplate()
    cyc = sccs(import_graph())
    f = {
        "unsafe-fn-in-logic": n,
        "unsafe-fn-no-safety-doc": nodoc,
        "boilerplate-safety-%": pct,
        "modules-in-cycles": sum(len(c) for c in cyc),
        "exports-lines": src("exports").count("\n"),
        "manual-lock-calls": len(lock_calls()),
        "caller-reliant-safe-fns": len(caller_reliant()),
        "unbounded-lifetimes": len(unbounded_lifetimes()),
        "test-code-in-kernel": len(test_code_in_kernel()),
        "long-unsafe-blocks": len(long_unsafe_blocks()),
    }
    notes = {
        "unsafe-fn-in-logic": "not counted: %d C symbols these modules own (unsafe extern \"C\" fn, ftrace_export!)" % cabi,
        "boilerplate-safety-%": "%d of %d SAFETY comments" % (boiler, total),
        "modules-in-cycles": "; ".join(" ".join(c) for c in cyc) or "none",
        "manual-lock-calls": " ".join(lock_calls()[:8]) or "none",
        "caller-reliant-safe-fns": "; ".join(caller_reliant()[:8]) or "none",
        "unbounded-lifetimes": "; ".join(unbounded_lifetimes()[:8]) or "none",
        "test-code-in-kernel": "; ".join(test_code_in_kernel()[:8]) or "none",
        "long-unsafe-blocks": "; ".join(long_unsafe_blocks()[:12]) or "none",
    }
    return f, notes


# Each new check's self-test: (name, checker, source with the fault, the
# same source without it).  The check must find the first and not the
# second, so it can fail and passes only for the right reason.
SELFTESTS = [
    ("caller-reliant", caller_reliant,
     "pub fn unlock() {\n    // SAFETY: paired with `lock()` by the callers.\n    unsafe { raw_unlock() }\n}\n",
     "/// # Safety\n/// Held.\npub unsafe fn unlock() {\n    // SAFETY: paired with `lock()` by the callers.\n"
     "    unsafe { raw_unlock() }\n}\n"),
    ("unbounded-lifetime", unbounded_lifetimes,
     "fn get<'a>(p: *mut T) -> &'a T {\n    // SAFETY: x.\n    unsafe { &*p }\n}\n",
     "fn get<'a>(p: &'a Holder) -> &'a T {\n    &p.t\n}\n"),
    ("test-code", test_code_in_kernel,
     "/// Resets the index (host tests).\npub fn reset() {}\n",
     "/// Resets the index (host tests).\n#[cfg(not(CONFIG_RUST))]\npub fn reset() {}\n"),
    ("long-unsafe", long_unsafe_blocks,
     "fn f() {\n    // SAFETY: x.\n    unsafe {\n" + "        a();\n" * 11 + "    }\n}\n",
     "fn f() {\n    // SAFETY: x.\n    unsafe {\n" + "        a();\n" * 10 + "    }\n}\n"),
    # One asm! is one operation, however long its template; anything else
    # in the block makes it long again.
    ("long-unsafe-asm", long_unsafe_blocks,
     "fn f() {\n    // SAFETY: x.\n    unsafe {\n        core::arch::asm!(\n" + "            \"nop\",\n" * 10
     + "        );\n        a();\n    }\n}\n",
     "fn f() {\n    // SAFETY: x.\n    unsafe {\n        core::arch::asm!(\n" + "            \"nop\",\n" * 10
     + "        );\n    }\n}\n"),
]


def selftest():
    for name, check, bad, good in SELFTESTS:
        found, clean = check([("t.rs", bad)]), check([("t.rs", good)])
        ok = bool(found) and not clean
        print("%s lint/safety-selftest-%s%s" % ("PASS" if ok else "FAIL", name,
                                               "" if ok else " (fault found: %s; clean source flagged: %s)" % (found, clean)))


def main():
    f, notes = figures()
    if "--write-baseline" in sys.argv:
        old = json.load(open(BASELINE)) if os.path.exists(BASELINE) else {}
        met = sorted(set(old.get("met", [])) | {k for k, v in f.items() if v <= TARGETS[k]})
        json.dump({"figures": f, "met": met}, open(BASELINE, "w"), indent=1, sort_keys=True)
        print("wrote %s" % BASELINE)
        return
    for k, v in f.items():
        print("FIGURE %s %s <=%s %s%s" % (k, v, TARGETS[k], "met" if v <= TARGETS[k] else "not-met",
                                         " (%s)" % notes[k] if k in notes else ""))
    base = json.load(open(BASELINE))
    worse = ["%s %s > baseline %s" % (k, v, base["figures"][k]) for k, v in f.items()
             if k in base["figures"] and v > base["figures"][k]]
    print("%s lint/safety-ratchet%s" % ("FAIL" if worse else "PASS",
                                       " (" + "; ".join(worse) + ")" if worse else ""))
    for k in base.get("met", []):
        ok = f[k] <= TARGETS[k]
        print("%s lint/safety-target-%s%s" % ("PASS" if ok else "FAIL", k,
                                              "" if ok else " (%s > %s)" % (f[k], TARGETS[k])))
    selftest()


main()
