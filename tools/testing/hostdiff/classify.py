#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""classify.py C_TRACE RUST_TRACE: compare the two traces of one sequence.

Prints one line and exits with:
  0  identical      the compared lines are identical
  1  real ...       a divergence that is not explained by a recorded
                    upstream anomaly (a bug of the port or of the Rust core)
  3  intended ...   a divergence explained by a recorded upstream anomaly
                    (MODEL.md section 5, docs/divergences.md)

Compared lines (MODEL.md section 4): all lines, except `  ?` lines (pure
arch queries) unless KP_HOSTDIFF_STRICT=1; with KP_HOSTDIFF_LOOSE=1 the
`  ~` lines (grace periods, work queue) are ignored too.

A divergence is "intended" only if ALL of these hold:
  - the C trace contains an operation whose event lines show one of the
    recorded upstream-anomaly signatures below (the first such operation
    is the "anomaly op");
  - the first differing compared line belongs to the anomaly op or to a
    later operation (the traces are identical before the anomaly);
  - the Rust trace has the same operation there (the same `> ` line) and
    it does NOT show that signature (nor any other recorded one);
  - the Rust trace of the anomaly op does what docs/divergences.md
    says the Rust core does there (the Rust check of the
    finding, below);
  - the Rust driver exited 0 (checked by the caller, hostdiff.sh).
Everything else is "real".

Signatures (one operation's event lines in the C trace), and what the Rust
trace of that operation must show instead:
  finding-1  an ftrace aggregate disarmed through the wrong ftrace_ops:
             `ftrace_set_filter_ip ipmodify_ops A remove=1 reset=0 = -2`
             immediately followed by `WARN` (upstream's WARN_ONCE "Failed to
             disarm kprobe-ftrace"); the unregister then leaves the probe
             registered (`!leaked`).  Divergence 1.
             Rust: for each such A, a disarm of A through the ftrace_ops
             that armed it (the last `ftrace_set_filter_ip OPS A remove=0
             reset=0 = 0` before it in the Rust trace):
             `ftrace_set_filter_ip OPS A remove=1 reset=0 = 0`, not followed
             by `WARN`; no failed disarm (`ftrace_set_filter_ip ... remove=1
             ... = -N`, `unregister_ftrace_function ... = -N`); no `!leaked`
             and no other `!` line upstream's op does not have; at most
             upstream's number of `WARN` lines minus the failed disarms;
             the return value: `= 0` for disable/kret-disable (upstream
             returns the disarm error), `= len(V)` and `log info: kprobes:
             Kprobes globally disabled` for debugfs-enabled V (upstream: -2
             and "failed to disable"), else upstream's.
  finding-3  enable of an optimized probe whose unoptimization is queued:
             `arch_arm_kprobe A` immediately followed by
             `!text int3-on-jump A` (an int3 over the first byte of the live
             jump at A).  Divergence 3.
             Rust: no `arch_arm_kprobe A` and no `!` line naming A; the
             queued unoptimization is cancelled through optimize_kprobe()
             instead: the op's compared lines are exactly upstream's
             without that pair (and without upstream's other `!text` lines
             naming A), i.e. the same optimize_kprobe() lines
             (`arch_check_optimized_kprobe A = R`), the same return value,
             nothing unoptimized or disarmed.
  finding-5  enable_kprobe() while kprobes/enabled is 0 returns 0 but
             leaves the probe (or its aggregate) disabled for good: the
             drivers' note `!enable K3 returned 0 but the probe stays
             disabled` (divergence 2).
             Rust: the flag is cleared (so the driver prints no note) and
             nothing is armed while kprobes/enabled is 0: the op's compared
             lines are exactly upstream's without the note (`= 0`, no
             arch_arm_kprobe, ftrace or optimizer lines).
  finding-6  kprobes/enabled=0 while an optimized probe's unoptimization is
             queued: upstream leaves the probe's int3 armed (the probe is
             queued, so __disarm_kprobe() skips the disarm) and it fires
             while probing is off: the drivers' note after a successful
             write that left kprobes globally disabled, `!kprobes/enabled
             is 0 but the int3 at A stays armed` (an int3 whose hit would
             run a handler or find no kprobe; MODEL.md section 3).
             Divergence 6.  The note's jump form (`... the
             jump at A stays armed`) is no signature: upstream is not
             known to leave a jump, so it is real.
             Rust: the probe is disarmed at once (so the driver prints no
             note): for each such A exactly one `arch_disarm_kprobe A` more
             than upstream's op has, and otherwise the op's compared lines
             are exactly upstream's without the notes (the same `log`
             line and return value, no other `!` line, nothing unoptimized).
  finding-7  (7.3 only: KP_TREE=7.3) register_kprobe() reports success for
             a probe it failed to arm: in a registration op (reg, rereg,
             regs, kret-reg, kret-regs), a failed arming call,
             `ftrace_set_filter_ip OPS A remove=0 reset=0 = -N` or
             `register_ftrace_function OPS = -N`, and the op returns
             `= 0` (the probe is unhashed, never fires).  Divergence 7.
             Rust: the error is returned, as 6.12 did: the op's compared
             lines are exactly upstream's with `= 0` replaced by the
             failed call's `= -N`, and for kret-reg and kret-regs a
             `rethook_free` (register_kretprobe() frees the rethook of a
             failed registration) right before it.  A batch of two or
             more members is not covered (its Rust rollback and batched
             arming differ from upstream's per-member calls): real.
Finding 2 (re-registration by addr+offset) is skipped by the driver and
finding 4 (kretprobe unregister without rethook) is never done, so neither
has a signature here.  The driver's `ftrace-fail filter|register ERR`
injects the failed arm of finding 7; gen.py does not generate it.

finding-1 inside a batch operation whose rollback disarms a member the
batch armed (upstream arms it at once, then disarms it through the wrong
ops): the Rust core arms at the end of the batch, so a rolled-back
member's arming is cancelled before ftrace sees it.  The Rust check then
requires, for that address, no ftrace filter line in the operation and
none left armed by the trace before it (and, as always, no leak, the same
return value, no extra WARN).

Batched ftrace arming (not an upstream anomaly, a deliberate
change of the calls made): the Rust core's register_kprobes(),
register_kretprobes() and their unregisters (ops `regs`, `unregs`,
`kret-regs`, `kret-unregs`, `kret-unreg-live`) arm and disarm their ftrace
members with one `ftrace_set_filter_ips` per ops at the end of the
operation, where upstream makes one `ftrace_set_filter_ip` (and
`register_ftrace_function` when the ops' count leaves 0, ...) per member,
interleaved with the members' other lines; a rolled-back batch never
reaches ftrace.  So before anything else, each such operation that has
the same `> ` line on both sides and no failed ftrace call on either side
has its ftrace lines replaced, on both sides, by their net effect (what
each ops' filter gains and loses, whether each ops ends up registered or
unregistered), one `ftrace-net` line per ops right after the `> ` line;
all other lines stay and must be identical.  Traces that are identical
only so are "intended: batched ftrace arming ..." (resync.py counts them
as identical); with an anomaly as well, the rules above apply to the
normalized traces.

tools/testing/hostdiff/test_classify.py checks that each Rust check
rejects a Rust trace that does something else (scripts/hostdiff.sh runs it
first).
"""

import collections
import os
import re
import sys

RET = re.compile(r"^  = (-?\d+)$")


# Read once: compared() runs for every line of every trace (reading the
# environment there took a third of a hostdiff run's Python time).
STRICT = os.environ.get("KP_HOSTDIFF_STRICT", "0") == "1"
LOOSE = os.environ.get("KP_HOSTDIFF_LOOSE", "0") == "1"
# The kernel tree whose kernel/kprobes.c the C trace is of (scripts/lib.sh):
# which recorded anomalies it can show.
TREE = os.environ.get("KP_TREE", "6.12")


def compared(line):
    if STRICT:
        return True
    if line.startswith("  ?"):
        return False
    return not (LOOSE and line.startswith("  ~"))


def read(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def ops(lines):
    """The operations: lists of lines, each starting with its `> ` line."""
    out = []
    for l in lines:
        if l.startswith("> ") or not out:
            out.append([])
        out[-1].append(l)
    return out


def events(block):
    """One operation's event lines, without its `> ` line and the pure
    queries (`  ?`), which are never behaviour."""
    return [l for l in block[1:] if not l.startswith("  ?")]


def names(line, a):
    """Does the trace line name address A (as a whole field)?"""
    return re.search(r"(?<!\S)" + re.escape(a) + r"(?=[\s:]|$)", line) is not None


def hits(block, first, second):
    """Where one signature shows in an operation's lines: (index, match)."""
    out = []
    for i, l in enumerate(block):
        m = first.match(l)
        if m and (second is None or (i + 1 < len(block) and second(m).match(block[i + 1]))):
            out.append((i, m))
    return out


def first_difference(expected, got):
    """The first line where the Rust op differs from what was expected."""
    k = 0
    while k < len(expected) and k < len(got) and expected[k] == got[k]:
        k += 1
    e = expected[k] if k < len(expected) else "<end>"
    g = got[k] if k < len(got) else "<end>"
    return f"expected {e!r}, Rust {g!r}"


def extra_anomalies(cev, rev):
    """The Rust op's `!` lines that upstream's op does not have."""
    c = collections.Counter(l for l in cev if l.startswith("  !"))
    out = []
    for l in rev:
        if l.startswith("  !"):
            if c[l] > 0:
                c[l] -= 1
            else:
                out.append(l)
    return out


def batch_never_armed(cblock, rblock, before, a):
    """Whether upstream armed address a in this batch operation (regs, ...)
    and the Rust core never gave it to ftrace: no ftrace filter line of the
    Rust operation names it and the Rust trace before it leaves it
    unarmed.  The batch arms at its end; a member whose rollback comes
    first has its pending arming cancelled (docs/divergences.md, batched registration),
    so the wrong-ops disarm of finding-1 has nothing to undo."""
    op = cblock[0].split()
    if len(op) < 2 or op[1] not in BATCH_OPS:
        return False
    mentions = re.compile(r"^  ftrace_set_filter_ips? (\S+) (?:\S+,)?" + re.escape(a) +
                          r"(?:,\S+)? remove=([01]) reset=0 = (-?\d+)$")
    if not any((m := mentions.match(l)) and m.group(2) == "0" and m.group(3) == "0" for l in cblock):
        return False
    if any(mentions.match(l) for l in rblock):
        return False
    net = 0
    for l in before:
        m = mentions.match(l)
        if m and m.group(3) == "0":
            net += -1 if m.group(2) == "1" else 1
        elif l.startswith("  ftrace-net ") and re.search(r" \+" + re.escape(a) + r"(?: |$)", l):
            net += 1
        elif l.startswith("  ftrace-net ") and re.search(r" -" + re.escape(a) + r"(?: |$)", l):
            net -= 1
    return net == 0


def rust_finding_1(cblock, rblock, before, found):
    """Divergence 1: the Rust core disarms the aggregate through the
    ftrace_ops that armed it, without a WARN, and the unregister works.
    Returns (None, what was checked) or (why not, None)."""
    cev, rev = events(cblock), events(rblock)
    addrs = list(dict.fromkeys(m.group(1) for _, m in found))
    via = []
    for a in addrs:
        # One address, or one of a batch's (`ftrace_set_filter_ips OPS A,B,...`,
        # or a batch operation's normalized `ftrace-net OPS +A ...`).
        ea = r"(?:\S+,)?" + re.escape(a) + r"(?:,\S+)?"
        dis = re.compile(r"^  ftrace_set_filter_ips? (\S+) " + ea + r" remove=1 reset=0 = (-?\d+)$")
        arm = re.compile(r"^  (?:ftrace_set_filter_ips? (\S+) " + ea + r" remove=0 reset=0 = 0|"
                         r"ftrace-net (\S+) (?:.* )?\+" + re.escape(a) + r"(?: .*)?)$")
        j = next((j for j, l in enumerate(rev) if dis.match(l)), None)
        if j is None and batch_never_armed(cblock, rblock, before, a):
            via.append(f"{a} never (the rolled-back batch's arming of it was cancelled)")
            continue
        if j is None:
            return f"it does not disarm {a} (no `ftrace_set_filter_ip OPS {a} remove=1`)", None
        armed = None
        for l in before + rev[:j]:
            m = arm.match(l)
            if m:
                armed = m.group(1) or m.group(2)
        if armed is None:
            return f"it disarms {a}, which the Rust trace never armed", None
        m = dis.match(rev[j])
        if m.group(1) != armed or m.group(2) != "0":
            return (f"it disarms {a} with {rev[j].strip()!r}, not through {armed} (the ops that armed it) "
                    f"with result 0"), None
        if j + 1 < len(rev) and rev[j + 1] == "  WARN":
            return f"it WARNs after disarming {a}", None
        via.append(f"{a} through {armed}")
    for l in rev:
        if re.match(r"^  (ftrace_set_filter_ips? \S+ \S+ remove=1 reset=0|unregister_ftrace_function \S+) = -\d+$", l):
            return f"a failed ftrace disarm: {l.strip()!r}", None
        if l.startswith("  !leaked "):
            return f"the unregister leaves the probe registered: {l.strip()!r}", None
    extra = extra_anomalies(cev, rev)
    if extra:
        return f"an anomaly upstream's op does not show: {extra[0].strip()!r}", None
    cw, rw = cev.count("  WARN"), rev.count("  WARN")
    if rw > cw - len(found):
        return (f"{rw} WARN line(s), upstream {cw} of which {len(found)} from the wrong ops "
                f"(expected at most {cw - len(found)})"), None
    op = cblock[0].split()
    cret = [l for l in cev if RET.match(l)]
    rret = [l for l in rev if RET.match(l)]
    if op[1] in ("disable", "kret-disable"):
        expected = ["  = 0"]
    elif op[1] == "debugfs-enabled" and len(op) == 3:
        expected = [f"  = {len(op[2])}"]
        if "  log info: kprobes: Kprobes globally disabled" not in rev:
            return "no `log info: kprobes: Kprobes globally disabled` (all probes disarmed)", None
    else:
        expected = cret
    if rret != expected:
        return (f"it returns {' '.join(l.strip() for l in rret) or 'nothing'}, expected "
                f"{' '.join(l.strip() for l in expected) or 'nothing'}"), None
    return None, "disarms " + ", ".join(via)


def rust_finding_3(cblock, rblock, before, found):
    """Divergence 3: no int3 over the live jump; the Rust core
    cancels the queued unoptimization (optimize_kprobe()) instead, so its
    op is upstream's without the int3 write."""
    rev = events(rblock)
    addrs = list(dict.fromkeys(m.group(1) for _, m in found))
    for a in addrs:
        if f"  arch_arm_kprobe {a}" in rev:
            return f"it writes an int3 over the live jump at {a} too (`arch_arm_kprobe {a}`)", None
        bad = [l for l in rev if l.startswith("  !") and names(l, a)]
        if bad:
            return f"a text anomaly at {a}: {bad[0].strip()!r}", None
    drop = {i for i, _ in found} | {i + 1 for i, _ in found}
    drop |= {i for i, l in enumerate(cblock) if l.startswith("  !text") and any(names(l, a) for a in addrs)}
    expected = [l for i, l in enumerate(cblock) if i not in drop and compared(l)]
    got = [l for l in rblock if compared(l)]
    if got != expected:
        for a in addrs:
            for what in ("arch_unoptimize_kprobe", "arch_disarm_kprobe"):
                l = f"  {what} {a}"
                if l in rev and l not in cblock:
                    return f"`{what} {a}` instead of cancelling the queued unoptimization", None
            chk = [l for l in cblock if l.startswith(f"  arch_check_optimized_kprobe {a} ")]
            if chk and not any(l in rev for l in chk):
                return (f"no {chk[0].strip()!r}: optimize_kprobe() is not called to cancel the queued "
                        f"unoptimization"), None
        return f"its op is not upstream's without the int3 write: {first_difference(expected, got)}", None
    return None, "no int3, upstream's op without it"


def rust_finding_5(cblock, rblock, before, found):
    """Divergence 2: enable_kprobe() clears the flag (no note) and
    arms nothing while kprobes/enabled is 0: upstream's op without the
    note."""
    drop = {i for i, _ in found}
    expected = [l for i, l in enumerate(cblock) if i not in drop and compared(l)]
    got = [l for l in rblock if compared(l)]
    if got != expected:
        rev = events(rblock)
        arming = [l for l in rev if re.match(
            r"^  (arch_arm_kprobe |arch_optimize_kprobes |register_ftrace_function |"
            r"ftrace_set_filter_ip \S+ \S+ remove=0 )", l)]
        if arming:
            return f"it arms while kprobes/enabled is 0: {arming[0].strip()!r}", None
        rret = [l.strip() for l in rev if RET.match(l)]
        if rret != ["= 0"]:
            return f"it returns {' '.join(rret) or 'nothing'}, expected = 0", None
        return f"its op is not upstream's without the note: {first_difference(expected, got)}", None
    return None, "= 0, no note, nothing armed"


def rust_finding_6(cblock, rblock, before, found):
    """Divergence 6: the Rust core disarms the probe whose
    unoptimization is queued at once (no note): upstream's op without the
    notes, with one `arch_disarm_kprobe A` more for each noted A."""
    rev = events(rblock)
    addrs = list(dict.fromkeys(m.group(1) for _, m in found))
    for a in addrs:
        d = f"  arch_disarm_kprobe {a}"
        nc, nr = cblock.count(d), rev.count(d)
        if nr == nc:
            return f"it does not disarm {a} (no `arch_disarm_kprobe {a}` beyond upstream's)", None
        if nr != nc + 1:
            return f"{nr} `arch_disarm_kprobe {a}` lines, expected {nc + 1} (upstream's {nc} and one more)", None
    drop = {i for i, _ in found}
    disarms = {f"  arch_disarm_kprobe {a}" for a in addrs}
    extra = extra_anomalies([l for i, l in enumerate(cblock) if i not in drop], rev)
    if extra:
        return f"an anomaly upstream's op does not show: {extra[0].strip()!r}", None
    expected = [l for i, l in enumerate(cblock) if i not in drop and compared(l) and l not in disarms]
    got = [l for l in rblock if compared(l) and l not in disarms]
    if got != expected:
        return (f"its op is not upstream's without the note (apart from the disarm): "
                f"{first_difference(expected, got)}"), None
    return None, "disarms " + ", ".join(addrs) + " at once, no note"


REGISTER_OPS = {"reg", "rereg", "regs", "kret-reg", "kret-regs"}
FAILED_ARM = re.compile(r"^  (?:ftrace_set_filter_ip (\S+) (\S+) remove=0 reset=0|"
                        r"register_ftrace_function (\S+)) = (-\d+)$")


def failed_arm_success(block):
    """finding-7's signature in one operation's lines: [(index, match)] of
    the failed arming calls of a registration op that returns 0, or []."""
    op = block[0].split()
    if len(op) < 2 or op[1] not in REGISTER_OPS or "  = 0" not in block:
        return []
    return [(i, m) for i, l in enumerate(block) if (m := FAILED_ARM.match(l))]


def rust_finding_7(cblock, rblock, before, found):
    """Divergence 7: the Rust core returns the arming error (as 6.12):
    upstream's op with the failed call's error returned, and for a kretprobe
    the rethook freed before it."""
    err = found[0][1].group(4)
    op = cblock[0].split()
    expected = []
    for l in (l for l in cblock if compared(l)):
        if l == "  = 0":
            if op[1].startswith("kret-"):
                expected.append("  rethook_free")
            l = f"  = {err}"
        expected.append(l)
    got = [l for l in rblock if compared(l)]
    if got != expected:
        rret = [l.strip() for l in events(rblock) if RET.match(l)]
        if rret != [f"= {err}"]:
            return f"it returns {' '.join(rret) or 'nothing'}, expected = {err} (the failed arm's error)", None
        return f"its op is not upstream's with the arm's error returned: {first_difference(expected, got)}", None
    return None, f"returns the arm's error {err}"


SIGNATURES = [
    ("finding-1 (ftrace aggregate disarmed through kprobe_ipmodify_ops)",
     re.compile(r"^  ftrace_set_filter_ip ipmodify_ops (\S+) remove=1 reset=0 = -2$"),
     lambda m: re.compile(r"^  WARN$"),
     rust_finding_1),
    ("finding-3 (enable_kprobe() arms an int3 over a live optimized jump)",
     re.compile(r"^  arch_arm_kprobe (\S+)$"),
     lambda m: re.compile(r"^  !text int3-on-jump " + re.escape(m.group(1)) + r"$"),
     rust_finding_3),
    ("finding-5 (enable_kprobe() while kprobes/enabled is 0 leaves the probe disabled)",
     re.compile(r"^  !enable (\S+) returned 0 but the probe stays disabled$"),
     None,
     rust_finding_5),
    ("finding-6 (kprobes/enabled=0 leaves the int3 of a probe whose unoptimization is queued)",
     re.compile(r"^  !kprobes/enabled is 0 but the int3 at (\S+) stays armed$"),
     None,
     rust_finding_6),
]
# 7.3's: (name, signature(block) -> [(index, match)], Rust check).
SIGNATURES_7_3 = [
    ("finding-7 (register_kprobe() returns 0 for a probe it failed to arm)",
     failed_arm_success,
     rust_finding_7),
]


def signatures(tree):
    """The tree's recorded signatures, in the order find() tries them:
    (name, signature(block) -> [(index, match)...], Rust check)."""
    out = [(name, lambda b, f=first, s=second: hits(b, f, s), check)
           for name, first, second, check in SIGNATURES]
    return out + (SIGNATURES_7_3 if tree == "7.3" else [])


def find(block, tree):
    """The first recorded signature in one operation's lines:
    (name, Rust check, [(index, match)...]) or None."""
    for name, sig, check in signatures(tree):
        found = sig(block)
        if found:
            return name, check, found
    return None


BATCH_OPS = {"regs", "unregs", "kret-regs", "kret-unregs", "kret-unreg-live"}
FILTER = re.compile(r"^  ftrace_set_filter_ips? (\S+) (\S+) remove=([01]) reset=0 = (-?\d+)$")
REGISTER = re.compile(r"^  (un)?register_ftrace_function (\S+) = (-?\d+)$")


def ftrace_net(block):
    """A batch operation's lines with its ftrace lines replaced by their net
    effect (one `  ftrace-net OPS +A -B registered|unregistered` line per
    ops, after the `> ` line), or None if an ftrace call failed."""
    net = collections.defaultdict(collections.Counter)
    reg = collections.Counter()
    rest = []
    for l in block[1:]:
        m = FILTER.match(l)
        if m:
            if m.group(4) != "0":
                return None
            for a in m.group(2).split(","):
                net[m.group(1)][a] += -1 if m.group(3) == "1" else 1
            continue
        m = REGISTER.match(l)
        if m:
            if m.group(3) != "0":
                return None
            reg[m.group(2)] += -1 if m.group(1) else 1
            continue
        rest.append(l)
    out = []
    for o in sorted(set(net) | set(reg)):
        ch = [("+" if n > 0 else "-") + a for a, n in sorted(net[o].items()) if n]
        if reg[o]:
            ch.append("registered" if reg[o] > 0 else "unregistered")
        if ch:
            out.append(f"  ftrace-net {o} " + " ".join(ch))
    return block[:1] + out + rest


def normalize_batches(c, r):
    """(c, r, n): both traces with the batch operations' ftrace lines
    normalized where both sides allow it (module docstring), and how many
    operations that made identical."""
    cops, rops = ops(c), ops(r)
    n = 0
    for i, (cb, rb) in enumerate(zip(cops, rops)):
        if cb[:1] != rb[:1] or len(cb[0].split()) < 2 or cb[0].split()[1] not in BATCH_OPS:
            continue
        cn, rn = ftrace_net(cb), ftrace_net(rb)
        if cn is None or rn is None:
            continue
        same = [l for l in cb if compared(l)] == [l for l in rb if compared(l)]
        cops[i], rops[i] = cn, rn
        n += not same and [l for l in cn if compared(l)] == [l for l in rn if compared(l)]
    return [l for b in cops for l in b], [l for b in rops for l in b], n


def verdict_lines(c, r, tree=None):
    """verdict() of two traces given as lists of lines, the C trace of the
    tree's kernel/kprobes.c (default: KP_TREE)."""
    tree = tree or TREE
    fc, fr = [l for l in c if compared(l)], [l for l in r if compared(l)]
    if fc == fr:
        return 0, "identical"
    c, r, nbatch = normalize_batches(c, r)
    fc, fr = [l for l in c if compared(l)], [l for l in r if compared(l)]
    if fc == fr:
        return 3, (f"intended: batched ftrace arming (issue 17) in {nbatch} operation(s), "
                   f"otherwise identical")
    k = 0
    while k < len(fc) and k < len(fr) and fc[k] == fr[k]:
        k += 1
    # The operation of the first difference: the common prefix has the same
    # `> ` lines on both sides; the difference belongs to the last of them.
    diff_op = sum(1 for l in fc[:k] if l.startswith("> ")) - 1
    first = f"line {k + 1}: c {fc[k] if k < len(fc) else '<end>'!r} rust {fr[k] if k < len(fr) else '<end>'!r}"
    cops, rops = ops(c), ops(r)
    for i, block in enumerate(cops):
        f = find(block, tree)
        if not f:
            continue
        sig, check, found = f
        where = f"op {i} '{block[0]}'"
        if diff_op < i:
            return 1, f"real: first difference (op {diff_op}) before the upstream anomaly {sig} at {where}; {first}"
        if i >= len(rops) or rops[i][:1] != block[:1]:
            return 1, f"real: the Rust trace has no operation {block[0]!r} at op {i} (upstream anomaly {sig}); {first}"
        shown = [name for name, sig_of, _ in signatures(tree) if sig_of(rops[i])]
        if sig in shown:
            return 1, f"real: the Rust trace shows the upstream anomaly {sig} too at {where}; {first}"
        if shown:
            return 1, (f"real: the Rust trace shows the upstream anomaly {shown[0]} at {where} "
                       f"(upstream: {sig}); {first}")
        before = [l for b in rops[:i] for l in b]
        why, ok = check(block, rops[i], before, found)
        if why:
            return 1, (f"real: at {where}, where upstream shows {sig}, the Rust trace does not do what "
                       f"the intended divergence in docs/divergences.md specifies: {why}; {first}")
        return 3, f"intended: {sig} at {where}; first difference in op {diff_op}; Rust: {ok}"
    return 1, f"real: no recorded upstream anomaly in the C trace; first difference in op {diff_op}; {first}"


def verdict(c_trace, rust_trace):
    """(0, "identical") | (1, "real: ...") | (3, "intended: ...")."""
    return verdict_lines(read(c_trace), read(rust_trace))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: classify.py C_TRACE RUST_TRACE")
    code, why = verdict(sys.argv[1], sys.argv[2])
    print(why)
    return code


if __name__ == "__main__":
    sys.exit(main())
