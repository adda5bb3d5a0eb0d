#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest logs of `make bench` into bench/results.{json,md},
bench/ratios.svg and bench/scale.svg.

  report.py --c C_LOG --rust RUST_LOG [--repeat C_LOG2] --out DIR \
            --meta KEY=VALUE ...

A log holds lines `KPB <name> <unit> <value>` (tools/testing/bench/job.sh).
Every row is marked against the project's targets:
  hit paths (hit_*)                      Rust/C <= 1.00
  register+unregister 1000 (*_1000 of regunreg_*, events_all_*)
                                         Rust/C <= 0.20 (5x faster)
  memory (mem_*)                         Rust <= C + 16 B/probe (the address
                                         index's allowance)
  hit cost at scale (scale_KIND_N), the rows at the largest N (maxn,
  and N=all with scaleall)               Rust at each vs Rust N=0: within 2%
                                         or 5 instructions (a target on the
                                         Rust kernel alone; Rust/C is shown
                                         as for any row)
Other rows are informational (no target).  Exit status 1 if a log has a
KPB-ERROR line or misses rows the other has; a repeated c run (--repeat)
that differs from the first is reported in the outputs, not an error.
"""
import argparse
import json
import os
import re
import sys
from xml.sax.saxutils import escape


def parse(path):
    rows, errors, meta = {}, [], {}
    order = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("KPB-ERROR"):
                errors.append(line)
            elif line.startswith("KPB-SKIP "):
                # a step the module did not run (regall: too slow), and why
                row, _, why = line[len("KPB-SKIP "):].partition(" ")
                meta.setdefault("skips", {})[row] = why
            elif line.startswith("KPB-META "):
                k, _, v = line[len("KPB-META "):].partition(" ")
                meta[k] = v
            elif line.startswith("KPB "):
                p = line.split()
                if len(p) == 4:
                    name, unit, val = p[1], p[2], float(p[3])
                    if name not in rows:
                        order.append(name)
                    rows[name] = (unit, val)
    # The scale rows' step beyond maxn (run token scaleall) is N = every
    # probeable function of that kernel, which differs between the kernels
    # (their vmlinux have different functions): compared as N=all.
    pm = re.search(r"\bmaxn=(\d+)", meta.get("params", ""))
    maxn = int(pm.group(1)) if pm else None
    for name in list(order):
        m = SCALE_RE.match(name)
        if maxn is not None and m and m.group(2) != "all" and int(m.group(2)) > maxn:
            new = f"scale_{m.group(1)}_all"
            rows[new] = rows.pop(name)
            order[order.index(name)] = new
            meta.setdefault("scale_all_n", {})[m.group(1)] = int(m.group(2))
    return rows, order, errors, meta


SCALE_RE = re.compile(r"scale_(.+?)_(\d+|all)$")
ALL = 10 ** 9  # the key of N=all in scale_rows()


def n_key(g):
    return ALL if g == "all" else int(g)


def n_label(n):
    return "all" if n == ALL else str(n)


SCALE_TARGET = "Rust at every N (maxn, all) vs N=0: within 2% or 5 ins"


def scale_rows(rows):
    """{kind: {N: value}} of a log's scale_KIND_N rows."""
    out = {}
    for name, (_, val) in rows.items():
        m = SCALE_RE.match(name)
        if m:
            out.setdefault(m.group(1), {})[n_key(m.group(2))] = val
    return out


def scale_met(by_n):
    """The scale target on one kernel's {N: value} of one kind: the value at
    every N within 2% or 5 instructions of the value at N=0."""
    if 0 not in by_n or len(by_n) < 2:
        return None
    v0 = by_n[0]
    return all(abs(v - v0) <= max(0.02 * v0, 5.0) for v in by_n.values())


def target(name):
    """(kind, text, threshold on rust/c or None)"""
    if name.startswith("hit_"):
        return "hit", "Rust/C <= 1.00", 1.0
    if re.match(r"(regunreg_(?!fprobe).*|events_all)_1000$", name):
        return "reg1000", ">= 5x faster (Rust/C <= 0.20)", 0.2
    if re.match(r"(un)?reg_ftrace_batch_5000$", name):
        return "batch5000", ">= 20x faster (Rust/C <= 0.05)", 0.05
    if name.startswith("mem_"):
        return "mem", "Rust <= C + 16 B/probe", None
    return None, "", None


def verdict(name, c, r, c_hi=None):
    """c_hi: the larger of the two c runs, if repeated: memory rows are
    page-granular and move between runs of the same kernel, so Rust meets
    'Rust <= C + 16' when it is within 16 of C's own run-to-run range."""
    kind, _, thr = target(name)
    if kind is None:
        return None
    if kind == "mem":
        return r <= max(c, c_hi if c_hi is not None else c) + 16
    if c <= 0:
        return None
    return r / c <= thr


def fmt(v):
    if v == int(v):
        return f"{int(v):,}".replace(",", "\u2009")
    return f"{v:,.2f}".replace(",", "\u2009")


def fmtn(v):
    return "not run" if v is None else fmt(v)


def svg_chart(rows, path, title):
    """Horizontal bars of Rust/C with a 1.0 line; hand-written SVG."""
    rows = [r for r in rows if r["ratio"] is not None]
    bar_h, gap, left, right, top = 14, 4, 250, 90, 50
    width = 900
    plot_w = width - left - right
    vmax = max([2.0] + [r["ratio"] for r in rows])
    vmax = min(vmax, 10.0)  # clip very large ratios (labelled with the value)
    height = top + len(rows) * (bar_h + gap) + 50

    def x(v):
        return left + plot_w * min(v, vmax) / vmax

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<text x="{width / 2}" y="36" text-anchor="middle" fill="#555">Rust/C (lower is better for Rust; '
           'green: meets the issue\'s target, red: misses it, grey: no target)</text>']
    # grid
    step = 0.25 if vmax <= 2 else (0.5 if vmax <= 4 else 1.0)
    t = 0.0
    while t <= vmax + 1e-9:
        out.append(f'<line x1="{x(t):.1f}" y1="{top - 4}" x2="{x(t):.1f}" y2="{height - 40}" stroke="#eee"/>')
        out.append(f'<text x="{x(t):.1f}" y="{height - 26}" text-anchor="middle" fill="#555">{t:g}</text>')
        t += step
    for i, r in enumerate(rows):
        y = top + i * (bar_h + gap)
        met = r["meets_target"]
        color = "#9e9e9e" if met is None else ("#2e7d32" if met else "#c62828")
        out.append(f'<text x="{left - 6}" y="{y + bar_h - 3}" text-anchor="end">{escape(r["name"])}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{max(x(r["ratio"]) - left, 0.5):.1f}" '
                   f'height="{bar_h}" fill="{color}"/>')
        label = f'{r["ratio"]:.3f}' + (" (clipped)" if r["ratio"] > vmax else "")
        out.append(f'<text x="{x(r["ratio"]) + 4:.1f}" y="{y + bar_h - 3}">{label}</text>')
    out.append(f'<line x1="{x(1.0):.1f}" y1="{top - 8}" x2="{x(1.0):.1f}" y2="{height - 40}" '
               'stroke="black" stroke-width="1.5" stroke-dasharray="4,3"/>')
    out.append(f'<text x="{x(1.0):.1f}" y="{top - 10}" text-anchor="middle">1.0</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">Rust / C</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


SCALE_ORDER = ["entry_ftrace", "int3_boosted", "optimized", "kretprobe"]


def scale_kinds(cs, rs):
    kinds = [k for k in SCALE_ORDER if k in cs or k in rs]
    return kinds + sorted(k for k in set(cs) | set(rs) if k not in kinds)


def scale_table(cs, rs, all_n=(None, None)):
    """Markdown lines: the scale rows by kind and N, both kernels."""
    kinds = scale_kinds(cs, rs)
    if not kinds:
        return []
    ns = sorted({n for d in list(cs.values()) + list(rs.values()) for n in d})
    md = ["## Hit cost at scale", "",
          "`scale_KIND_N`: ins/hit of one probe with N other probes registered (the measured "
          "probe first, then N filler kprobes at +9 of other functions; a column beyond maxn "
          "adds a disabled kprobe at +0 of every vmlinux function register_kprobe() accepts: every "
          "probeable function of the kernel, see the notes); `max/0` is the value at "
          f"the largest N over the value at N=0.  Target on the Rust kernel: `{SCALE_TARGET}`.", "",
          "![hit cost at scale](scale.svg)", "",
          "| row | kernel | " + " | ".join(f"N={n_label(n)}" for n in ns) + " | max/0 | target met |",
          "|---|---|" + "--:|" * len(ns) + "--:|---|"]
    for k in kinds:
        for label, d in (("C", cs.get(k, {})), ("Rust", rs.get(k, {}))):
            vals = " | ".join(fmt(d[n]) if n in d else "" for n in ns)
            ratio = f"{d[max(d)] / d[0]:.3f}" if d and d.get(0) else "n/a"
            met = scale_met(d) if label == "Rust" else None
            met = {True: "yes", False: "**NO**", None: ""}[met]
            md.append(f"| scale_{k} | {label} | {vals} | {ratio} | {met} |")
    if any(all_n):
        md += ["", "N=all: " + "; ".join(
            f"{label} " + ", ".join(f"{k} {fmt(v)}" for k, v in sorted((d or {}).items()))
            for label, d in (("C", all_n[0]), ("Rust", all_n[1])) if d) +
            " (the maxn generated fillers plus the vmlinux functions each kernel's "
            "register_kprobe() accepted: the kernels' vmlinux differ, so do the counts)"]
    return md + [""]


# The RCU policy (job.sh): rows NAME (both kernels as booted: upstream's
# synchronize_rcu() in unregistration), NAME_rcuexp (every grace period of
# the kernel expedited, both kernels: equal policy) and NAME_kexp (the Rust
# core's kprobes.expedited_gp=1; the C core has no such switch).
RUST_ONLY = "_kexp"
POLICY_RE = re.compile(r"(.+)_(rcuexp|kexp)$")


def policy_table(cs, rs):
    """Markdown lines: each row measured under the three policies."""
    base = []
    for n in list(cs) + list(rs):
        m = POLICY_RE.match(n)
        if m and m.group(1) not in base and (m.group(1) in cs or m.group(1) in rs):
            base.append(m.group(1))
    if not base:
        return []

    def cell(d, n):
        return fmt(d[n][1]) if n in d else ""

    def q(a, b):
        return f"{a[1] / b[1]:.3f}" if a and b and b[1] > 0 else "n/a"
    md = ["## RCU grace-period policy", "",
          "Each row under three policies (`docs/bench.md`, \"The grace period policy\"): **normal**, both kernels as "
          "booted, unregistration waits with `synchronize_rcu()` as upstream (the rest of this "
          "report); **rcuexp**, every grace period of the kernel expedited "
          "(`/sys/kernel/rcu_expedited=1`) on both kernels, an equal policy; **kexp**, the Rust "
          "core's own `kprobes.expedited_gp=1` (patch 0015), which expedites only the core's "
          "waits; C has no such switch.  Rust/C compares equal policies; kexp/normal is what the "
          "switch does on the Rust kernel; kexp/C normal is the Rust kernel with the switch "
          "against upstream as shipped.", "",
          "| row | unit | C normal | Rust normal | Rust/C | C rcuexp | Rust rcuexp | Rust/C "
          "| Rust kexp | kexp/normal | kexp/C normal |",
          "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for b in base:
        unit = (cs.get(b) or rs.get(b) or cs.get(b + "_rcuexp") or rs.get(b + "_kexp"))[0]
        e, k = b + "_rcuexp", b + "_kexp"
        md.append(f"| {b} | {unit} | {cell(cs, b)} | {cell(rs, b)} | {q(rs.get(b), cs.get(b))} | "
                  f"{cell(cs, e)} | {cell(rs, e)} | {q(rs.get(e), cs.get(e))} | {cell(rs, k)} | "
                  f"{q(rs.get(k), rs.get(b))} | {q(rs.get(k), cs.get(b))} |")
    return md + [""]


BATCH_RE = re.compile(r"(unreg|reg)_(ftrace|fprobe)_batch_(\d+)$")


def fprobe_table(cs, rs):
    """Markdown lines: register_kprobes()/unregister_kprobes() of N entry
    probes against fprobe's attach/detach of the same N functions, on each
    kernel (fprobe does not use the kprobes core)."""
    rows = {}
    for label, d in (("C", cs), ("Rust", rs)):
        for k, v in d.items():
            m = BATCH_RE.match(k)
            if m:
                rows.setdefault((m.group(1), int(m.group(3))), {})[(label, m.group(2))] = v[1]
    if not any(("C", "fprobe") in v or ("Rust", "fprobe") in v for v in rows.values()):
        return []
    md = ["## Batch registration against fprobe", "",
          "`register_kprobes()`/`unregister_kprobes()` of N kprobes at +0 of N generated functions "
          "(ftrace sites) against `register_fprobe_ips()`/`unregister_fprobe()` of the same N "
          "functions on the same kernel (rows `reg_fprobe_batch_N`; fprobe does not use the "
          "kprobes core): guest instructions (ns under icount); kprobes/fprobe is the cost of "
          "the kprobes batch in units of fprobe's.", "",
          "| call | N | C kprobes | C fprobe | C kprobes/fprobe | Rust kprobes | Rust fprobe "
          "| Rust kprobes/fprobe |", "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for (op, n) in sorted(rows, key=lambda x: (x[0] != "reg", x[1])):
        d = rows[(op, n)]
        cells = []
        for label in ("C", "Rust"):
            kp, fp = d.get((label, "ftrace")), d.get((label, "fprobe"))
            q = f"{kp / fp:.2f}" if kp and fp else "n/a"
            cells += [fmt(kp) if kp is not None else "", fmt(fp) if fp is not None else "", q]
        name = "register" if op == "reg" else "unregister"
        md.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    return md + [""]


def svg_scale(cs, rs, path, title):
    """One panel per scale kind: ins/hit over its N=0 value against N, a line
    for C and one for Rust; the band is the Rust kernel's target.
    Hand-written SVG."""
    kinds = scale_kinds(cs, rs)
    pw, ph, cols, top = 430, 250, 2, 60
    ml, mr, mt, mb = 60, 20, 30, 40
    rows_n = max(1, (len(kinds) + cols - 1) // cols)
    width, height = pw * cols, top + ph * rows_n + 10
    colors = {"C": "#1565c0", "Rust": "#e65100"}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<text x="{width / 2}" y="36" text-anchor="middle" fill="#555">ins/hit with N probes '
           'registered, over the same kernel\'s N=0 value (lower is better; green band: '
           f'{escape(SCALE_TARGET)})</text>']
    lx = width / 2 - 60
    for i, (label, col) in enumerate(colors.items()):
        out.append(f'<line x1="{lx + i * 80}" y1="48" x2="{lx + i * 80 + 20}" y2="48" '
                   f'stroke="{col}" stroke-width="2"/>')
        out.append(f'<text x="{lx + i * 80 + 24}" y="52">{label}</text>')
    if not kinds:
        out.append(f'<text x="{width / 2}" y="{top + 40}" text-anchor="middle">'
                   'no scale rows in this run</text>')
    for idx, k in enumerate(kinds):
        ox, oy = (idx % cols) * pw, top + (idx // cols) * ph
        series = {lab: d for lab, d in (("C", cs.get(k, {})), ("Rust", rs.get(k, {})))
                  if d.get(0)}
        ns = sorted({n for d in series.values() for n in d})
        ratios = [d[n] / d[0] for d in series.values() for n in d]
        r0 = rs.get(k, {}).get(0)
        band = max(0.02, 5.0 / r0) if r0 else 0.02
        lo = min([1.0 - band] + ratios) - 0.02
        hi = max([1.0 + band] + ratios) * 1.05
        x0, x1, y0, y1 = ox + ml, ox + pw - mr, oy + mt, oy + ph - mb

        def x(i):
            return x0 + (x1 - x0) * (i + 0.5) / max(len(ns), 1)

        def y(v):
            return y1 - (y1 - y0) * (v - lo) / (hi - lo)

        out.append(f'<text x="{(x0 + x1) / 2}" y="{oy + 18}" text-anchor="middle" '
                   f'font-size="12">scale_{escape(k)}</text>')
        out.append(f'<rect x="{x0}" y="{y(1 + band):.1f}" width="{x1 - x0}" '
                   f'height="{y(1 - band) - y(1 + band):.1f}" fill="#c8e6c9"/>')
        out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
                   'fill="none" stroke="#999"/>')
        span = hi - lo
        step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50)
                    if span / s <= 8)
        t = step * int(lo / step + 1)
        while t < hi:
            out.append(f'<line x1="{x0}" y1="{y(t):.1f}" x2="{x1}" y2="{y(t):.1f}" stroke="#eee"/>')
            out.append(f'<text x="{x0 - 4}" y="{y(t) + 4:.1f}" text-anchor="end" '
                       f'fill="#555">{t:g}</text>')
            t += step
        out.append(f'<line x1="{x0}" y1="{y(1):.1f}" x2="{x1}" y2="{y(1):.1f}" stroke="black" '
                   'stroke-dasharray="4,3"/>')
        for i, n in enumerate(ns):
            out.append(f'<text x="{x(i):.1f}" y="{y1 + 14}" text-anchor="middle" '
                       f'fill="#555">{n_label(n)}</text>')
        out.append(f'<text x="{(x0 + x1) / 2}" y="{y1 + 30}" text-anchor="middle">'
                   'N, other probes registered (evenly spaced, not to scale)</text>')
        for lab, d in series.items():
            pts = [(x(ns.index(n)), y(d[n] / d[0]), d[n]) for n in sorted(d)]
            out.append(f'<polyline fill="none" stroke="{colors[lab]}" stroke-width="2" points="'
                       + " ".join(f"{px:.1f},{py:.1f}" for px, py, _ in pts) + '"/>')
            for px, py, v in pts:
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colors[lab]}"/>')
            px, py, v = pts[-1]
            dy, anchor = (-6, "middle") if lab == "C" else (14, "middle")
            if lab != "C" and py + dy > y1 - 2:
                # on the axis: above the point, left of it (clear of the
                # x labels and of C's label above its own point)
                dy, px, anchor = -6, px - 6, "end"
            out.append(f'<text x="{px:.1f}" y="{py + dy:.1f}" text-anchor="{anchor}" '
                       f'fill="{colors[lab]}">{v / d[0]:.3f} ({fmt(v)})</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


REG_RE = re.compile(r"(reg|unreg)_(int3|ftrace|fprobe)_(one|batch)_(\d+)$")


def svg_reg(cs, rs, path, title):
    """One panel per (un)registration row kind (reg_/unreg_ of int3/ftrace
    probes one by one or in a batch, and fprobe's): the cost per probe at
    each N over the same kernel's cost per probe at the row's smallest N,
    a line for C and one for Rust (flat: the cost grows linearly with N).
    A step a kernel did not run (KPB-SKIP) has no point.  Hand-written SVG."""
    rows = {}
    for label, d in (("C", cs), ("Rust", rs)):
        for k, v in d.items():
            m = REG_RE.match(k)
            if m:
                key = (m.group(2), m.group(3), m.group(1))
                rows.setdefault(key, {}).setdefault(label, {})[int(m.group(4))] = v[1] / int(m.group(4))
    order = {"int3": 0, "ftrace": 1, "fprobe": 2}
    kinds = sorted(rows, key=lambda k: (order[k[0]], k[1] != "one", k[2] != "reg"))
    pw, ph, cols, top = 430, 230, 2, 60
    ml, mr, mt, mb = 60, 20, 30, 40
    nrows = max(1, (len(kinds) + cols - 1) // cols)
    width, height = pw * cols, top + ph * nrows + 10
    colors = {"C": "#1565c0", "Rust": "#e65100"}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<text x="{width / 2}" y="36" text-anchor="middle" fill="#555">guest ns per probe at N, '
           'over the same kernel\'s per-probe cost at the smallest N (flat: linear in N; '
           'label: ratio and ns per probe at the largest N)</text>']
    lx = width / 2 - 60
    for i, (label, col) in enumerate(colors.items()):
        out.append(f'<line x1="{lx + i * 80}" y1="48" x2="{lx + i * 80 + 20}" y2="48" '
                   f'stroke="{col}" stroke-width="2"/>')
        out.append(f'<text x="{lx + i * 80 + 24}" y="52">{label}</text>')
    if not kinds:
        out.append(f'<text x="{width / 2}" y="{top + 40}" text-anchor="middle">'
                   'no registration rows in this run</text>')
    for idx, k in enumerate(kinds):
        ox, oy = (idx % cols) * pw, top + (idx // cols) * ph
        series = {lab: d for lab, d in rows[k].items() if d}
        ns = sorted({n for d in series.values() for n in d})
        ratios = [d[n] / d[min(d)] for d in series.values() for n in d]
        lo = min([1.0] + ratios) * 0.9
        hi = max([1.0] + ratios) * 1.1
        x0, x1, y0, y1 = ox + ml, ox + pw - mr, oy + mt, oy + ph - mb

        def x(i):
            return x0 + (x1 - x0) * (i + 0.5) / max(len(ns), 1)

        def y(v):
            return y1 - (y1 - y0) * (v - lo) / (hi - lo)
        out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" fill="none" '
                   'stroke="#999"/>')
        name = {"reg": "register", "unreg": "unregister"}[k[2]]
        how = "fprobe" if k[0] == "fprobe" else f"{k[0]}, {'one by one' if k[1] == 'one' else 'batch'}"
        out.append(f'<text x="{(x0 + x1) / 2}" y="{oy + 18}" text-anchor="middle" '
                   f'font-size="12">{name}: {escape(how)}</text>')
        for t in sorted({lo, 1.0, hi}):
            out.append(f'<line x1="{x0}" y1="{y(t):.1f}" x2="{x1}" y2="{y(t):.1f}" stroke="#eee"/>')
            out.append(f'<text x="{x0 - 4}" y="{y(t) + 4:.1f}" text-anchor="end" '
                       f'fill="#555">{t:.3g}</text>')
        for i, n in enumerate(ns):
            out.append(f'<text x="{x(i):.1f}" y="{y1 + 14}" text-anchor="middle" '
                       f'fill="#555">{n}</text>')
        out.append(f'<text x="{(x0 + x1) / 2}" y="{y1 + 30}" text-anchor="middle">'
                   'N (evenly spaced, not to scale)</text>')
        for j, (lab, d) in enumerate(series.items()):
            base = d[min(d)]
            pts = [(x(ns.index(n)), y(d[n] / base), d[n]) for n in sorted(d)]
            out.append(f'<polyline fill="none" stroke="{colors[lab]}" stroke-width="2" points="'
                       + " ".join(f"{px:.1f},{py:.1f}" for px, py, _ in pts) + '"/>')
            for px, py, _ in pts:
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colors[lab]}"/>')
            px, py, v = pts[-1]
            out.append(f'<text x="{x1 - 4}" y="{y0 + 14 + 13 * j}" text-anchor="end" '
                       f'fill="{colors[lab]}">{lab} N={max(d)}: {v / base:.2f} ({fmt(round(v))} ns)</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


NOTES = """\
## How these figures are obtained

- Both kernels boot under QEMU TCG with `-icount shift=0,align=off,sleep=off`
  (`KP_SMP=1 KP_ICOUNT=1 scripts/vm.sh VARIANT tools/testing/bench/job.sh bench`):
  one guest nanosecond is one guest instruction, so `ktime_get_ns()` deltas
  of code that does not wait are instruction counts.  One vCPU: with two, the
  icount clock also advances while the other vCPU runs, and the interleaving
  differs run to run (measured: hit rows moved by up to 0.1%, small
  registration rows by up to 20%).  With one vCPU the hit rows repeat
  exactly; rows that allocate or wait move by tiny amounts (the kernel's own
  randomness: hash seeds, slab freelists), see repeatability above.
  `text_poke_sync()` then has no IPI to send; `synchronize_rcu()` still
  waits for a grace period.
- `kprobes_bench.ko` (tools/testing/bench/kprobes_bench.c, built once against
  the `c` tree and loaded unchanged into both kernels) does the hit, registration
  and memory rows at insmod time; `job.sh` times `kprobe_events` from the shell.
- **Hit rows** (`ins/hit`): a loop calling a noinline target function
  (endbr64, ftrace site, 64-bit `lea`s) with interrupts off, in 20 chunks of
  1000 calls; the fastest chunk with a probe minus the fastest chunk without,
  divided by 1000 (`loop_base` is the probe-less cost per iteration).  Min of
  chunks so that a run on 2 vCPUs (KPB_SMP=2) still counts only the loop (a
  chunk no tick of the other vCPU overlapped); on 1 vCPU all chunks are equal.
  The handler counts its calls; a wrong count is an error.  Entry
  probes are at sym+0, which with IBT is the ftrace site (+4); mid-function
  probes at +9 (first body instruction) with the jump optimizer off
  (`debug.kprobes-optimization=0`), so `hit_mid_int3_boosted` is int3 + the
  boosted copy and `hit_mid_int3_post` (post_handler) int3 + single-step;
  `hit_mid_optimized` is the first offset the optimizer takes (the text must
  read `jmp rel32`); `hit_mid_int3_aggr2` is two kprobes on one int3 address;
  `hit_ftrace_ops_floor` is a bare `ftrace_ops` (SAVE_REGS) callback.
- **Scale rows** (`scale_KIND_N`, `ins/hit`): the hit cost of one probe with N
  other probes registered, N = 0, 64, 640 and maxn (5000; 100 with
  KPB_QUICK=1), measured as the hit rows are, on the same target functions:
  `entry_ftrace` (kprobe at sym+0, on ftrace), `int3_boosted` (+9, optimizer
  off), `optimized` (+9, jump-optimized), `kretprobe` (at entry).  The
  measured probe is registered first, then the fillers: kprobes at +9 of the
  generated `kpb_fn_0 ..` (other functions than the measured one), int3 with
  the optimizer off, jump-optimized in the optimized row (the module waits
  until they all are, and checks that the measured probe still reads
  `jmp rel32`).  With the run token `scaleall` (in `make bench`'s default)
  each row has one more N: the maxn fillers plus a kprobe at +0 of every
  text symbol of vmlinux in /proc/kallsyms (one per address) that
  `register_kprobe()` accepts, registered one by one and disabled (armed,
  they would trap in everything the guest does; disabled, they are hashed
  and indexed like any other, so a look-up searches past them the same):
  every probeable function of the kernel.  The module logs how many symbols
  it tried and how many were refused (KPB-INFO); the row's N differs
  between the kernels only if they accept different addresses, which
  report.py reports as rows one log lacks.
  Upstream's 64-bucket hash prepends, so the measured probe
  sits behind every filler of its bucket, about N/64 of them (the module logs
  the exact count, `ahead=`, as KPB-INFO); the optimized path finds its probe
  without the hash.  Target (Rust kernel only): the rows at every N (maxn
  and all) within 2% or 5 instructions of the same kernel's N=0 row.
- **Registration rows** (`ns`): N distinct probes at +9 of N generated noinline
  functions (helper modules of 500: the first 10 up to N = 5,000), jump
  optimizer off, `register_kprobe`/
  `unregister_kprobe` one by one (`_one_`) or `register_kprobes`/
  `unregister_kprobes` (`_batch_`); `_ftrace_` rows the same at +0 (entry
  probes on ftrace).  Run token `regall` adds N = 32,500 (every generated
  function, about as many as the kernel's probeable functions: vmlinux's
  ~27,500 plus the scale rows' 5,000; on vmlinux's own functions the
  probes would fire during the measurement); a kernel skips such a step,
  and says so (KPB-SKIP, "not run" below), where its own step at 5,000
  times 6.5 is over 120 s of guest time: one-by-one entry probes on both
  kernels and C's entry batch (a loop of them), bound by ftrace's
  per-call filter update (~8 M instructions a probe at 5,000 and growing
  with the filter).  Nothing is extrapolated.  Busy code counts instructions; waits
  (each `unregister_kprobe` waits for an RCU grace period) count guest time,
  which under icount includes idle time skipped to the next timer (still
  deterministic).  A kallsyms lookup of a module address scans that module's
  symbol table (500 functions here) and the C core does about ten of them per
  `register_kprobe`: a large part of the per-probe cost; targets in vmlinux
  would see binary-search lookups instead.
- **RCU policy rows** (`NAME_rcuexp`, `NAME_kexp`; the table "RCU
  grace-period policy"): after the rows above, the job repeats the
  registration rows (run tokens `reg,regentry`, N up to 1,000) and the
  kprobe_events rows (N = 10, 100, 1,000) with `/sys/kernel/rcu_expedited`
  = 1 on both kernels, and on the Rust kernel with
  `/sys/module/kprobes/parameters/expedited_gp` = 1 (rcu_expedited 0).
- **cost4 rows** (a second boot of each kernel, 4 vCPUs, icount): 1,000
  disabled kprobes unregistered one by one from CPU 0 while a kthread on
  each other CPU calls a function with an enabled kprobe in a loop
  (reporting a quiescent state every 100 calls with `schedule()`, as a
  task returning to user space would); once per policy.  Rows: guest ns of
  the 1,000 unregistrations; function-call and rescheduling IPIs received
  by all CPUs per unregistration (x86 `irq_stat`, /proc/interrupts' CAL
  and RES); the loops' slowdown during the unregistrations against a
  200 ms window before them, in percent.  The vCPUs share one icount
  clock, so CPU 0 runs a nice-19 spinner whenever the unregistering task
  sleeps (the loops' share of the clock then stays the same).  Only the
  IPI counts are a measurement: under icount the vCPUs run round-robin,
  one at a time, so an IPI or a quiescent state waits for its CPU's turn,
  which sets the rows' times and slowdowns (in the run of 582313e, 73 to
  141 s for the 1,000 unregistrations, slowdowns from -31% to +6%, the
  kernels 15 points apart under the same policy).
- **kprobe_events rows**: N definitions `p:kpb/eI kpb_fn_I+9` written with one
  `echo` (define = create + register disabled), the group's `enable` written
  1 then 0, and the file truncated (remove); each phase between two reads of
  the module's debugfs `now` (ktime_get_ns), minus the cost of a bare pair of
  reads (and, for define, of the same echo to /dev/null).
- **Memory rows** (`B/probe`): run first, in a module load of their own (so
  both kernels start them from the same slab state); register 2000 probes;
  the difference of the
  global slab page counters (every `kmalloc()`, large ones included) plus
  `VmallocUsed` (vmalloc pages: the Rust index's tables beyond two pages,
  the instruction-slot pages on both kernels) divided by 2000, after
  `rcu_barrier()`, `kvfree_rcu_barrier()` and `vm.stat_refresh`.
  Page-granular: rows of a few pages in total move between runs of the
  same kernel (the "C, 2nd run" column); a memory row meets its target
  when Rust is within C's two runs or below.  The free-page difference is
  logged as KPB-INFO but is too noisy to compare.  `aggr_second_*`: a second kprobe on each of the 1000
  addresses (for an int3 probe the core already made the aggregate when the
  first probe was registered, since it is optimizable; at an ftrace entry the
  second probe creates it).  `kretprobe_maxactive16`: 2000 kretprobes at
  function entries, maxactive 16 (the rethook pool is per possible CPU, so
  this row depends on the vCPU count).
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c", required=True)
    ap.add_argument("--rust", required=True)
    ap.add_argument("--repeat")
    ap.add_argument("--c-extra", help="another C log (the 4-vCPU cost4 boot), merged")
    ap.add_argument("--rust-extra", help="another Rust log, merged")
    ap.add_argument("--out", required=True)
    ap.add_argument("--meta", action="append", default=[])
    ap.add_argument("--notes", help="hand-written markdown appended to results.md")
    a = ap.parse_args()

    c, corder, cerr, cmeta = parse(a.c)
    r, _, rerr, rmeta = parse(a.rust)
    problems = [f"c: {e}" for e in cerr] + [f"rust: {e}" for e in rerr]
    for who, path, rows_, order_ in (("c", a.c_extra, c, corder), ("rust", a.rust_extra, r, None)):
        if path:
            xr, xorder, xerr, _ = parse(path)
            problems += [f"{who} (extra): {e}" for e in xerr]
            rows_.update(xr)
            if order_ is not None:
                order_ += [n for n in xorder if n not in order_]
    meta = dict(m.split("=", 1) for m in a.meta)
    meta["kernel_c"] = cmeta.get("kernel", "?") + " " + cmeta.get("build", "")
    meta["kernel_rust"] = rmeta.get("kernel", "?") + " " + rmeta.get("build", "")
    meta["guest_params"] = cmeta.get("params", "?")
    if cmeta.get("scale_all_n") or rmeta.get("scale_all_n"):
        meta["scale_all_n"] = {"c": cmeta.get("scale_all_n"), "rust": rmeta.get("scale_all_n")}

    repeat = None
    c2 = {}
    if a.repeat:
        c2, _, c2err, _ = parse(a.repeat)
        problems += [f"c (repeat): {e}" for e in c2err]
        # the rows of the first run's boot (not the merged extra boot's)
        rep_rows = [n for n in corder if n in c2 or not n.startswith("cost4_")]
        diffs = [n for n in rep_rows if c2.get(n) != c.get(n)]

        def rel(n):
            a, b = c[n][1], c2.get(n, (None, float("nan")))[1]
            return abs(b - a) / abs(a) * 100 if a else float("inf")
        repeat = {"rows": len(rep_rows), "identical": not diffs,
                  "identical_rows": len(rep_rows) - len(diffs),
                  "differing_rows": {n: [c[n][1], c2.get(n, (None, None))[1], round(rel(n), 5)]
                                     for n in diffs}}
        meta["repeatability"] = repeat

    rscale = scale_rows(r)
    rows = []
    skips = {"c": cmeta.get("skips", {}), "rust": rmeta.get("skips", {})}
    if skips["c"] or skips["rust"]:
        meta["skipped_steps"] = skips

    def skipped(who, n):
        """Why kernel `who` did not run row n's step (KPB-SKIP names the
        regunreg_ row of a reg_/unreg_/regunreg_ triple), or None."""
        return skips[who].get(re.sub(r"^(un)?reg_", "regunreg_", n))

    def one_sided(n, unit, cv, rv, who):
        rows.append({"name": n, "unit": unit, "c": cv, "c_repeat": None, "rust": rv, "ratio": None,
                     "target": None, "meets_target": None, "not_run": f"{who}: {skipped(who, n)}"})
    for n in corder:
        if n not in r:
            if skipped("rust", n):
                one_sided(n, c[n][0], c[n][1], None, "rust")
            else:
                problems.append(f"rust run has no row {n}")
            continue
        unit, cv = c[n]
        rv = r[n][1]
        kind, ttext, _ = target(n)
        cv2 = c2[n][1] if n in c2 else None
        met = verdict(n, cv, rv, cv2)
        m = SCALE_RE.match(n)
        if m and m.group(1) in rscale and n_key(m.group(2)) == max(rscale[m.group(1)]) > 0:
            ttext, met = SCALE_TARGET, scale_met(rscale[m.group(1)])
        rows.append({"name": n, "unit": unit, "c": cv, "c_repeat": cv2, "rust": rv,
                     "ratio": round(rv / cv, 4) if cv > 0 else None,
                     "target": ttext or None, "meets_target": met})
    for n in r:
        if n not in c:
            if n.endswith(RUST_ONLY):
                continue  # the policy table
            if skipped("c", n):
                one_sided(n, r[n][0], None, r[n][1], "c")
            else:
                problems.append(f"c run has no row {n}")

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"metadata": meta, "rows": rows, "problems": problems}, f, indent=1)
        f.write("\n")

    met = [x for x in rows if x["meets_target"] is True]
    missed = [x for x in rows if x["meets_target"] is False]
    md = ["# kprobes A/B benchmark: C core vs Rust core", "",
          "Generated by `make bench` (scripts/bench.sh); do not edit by hand.", ""]
    for k in ("command", "commit", "dirty", "date", "host", "kernel_c", "kernel_rust",
              "bzimage_c", "bzimage_rust", "guest_params"):
        if k in meta:
            md.append(f"- **{k}**: `{meta[k]}`")
    if repeat is not None:
        if repeat["identical"]:
            md.append(f"- **repeatability**: the `c` kernel ran twice; all {repeat['rows']} rows "
                      "identical")
        else:
            d = repeat["differing_rows"]
            groups = [("hit", "hit rows", lambda k: k.startswith("hit_") or k == "loop_base"),
                      ("scale", "scale rows", lambda k: k.startswith("scale_")),
                      ("reg", "module-timed registration rows",
                       lambda k: re.match(r"(un)?reg(unreg)?_", k) is not None),
                      ("events", "kprobe_events rows (timed from the shell)",
                       lambda k: k.startswith("events_")),
                      ("mem", "memory rows (page-granular)", lambda k: k.startswith("mem_"))]
            parts = []
            for _, label, pred in groups:
                names = [k for k in corder if pred(k)]
                diff = [d[k][2] for k in names if k in d]
                if not names:
                    continue
                if not diff:
                    parts.append(f"{label}: all {len(names)} identical")
                else:
                    parts.append(f"{label}: {len(names) - len(diff)} of {len(names)} identical, "
                                 f"the others within {max(diff):.2g}%")
            md.append(f"- **repeatability**: the `c` kernel ran twice ({repeat['identical_rows']} of "
                      f"{repeat['rows']} rows identical). " + "; ".join(parts) + ".  Rows that allocate "
                      "or wait move with the kernel's own randomness (hash seeds, slab freelists) and "
                      "with where waits fall relative to the jiffy; the per-row differences are in "
                      "results.json (metadata.repeatability)")
    md.append(f"- **targets**: {len(met)} rows meet, {len(missed)} miss "
              f"(of {len(met) + len(missed)} with a target; see the notes below for each miss)")
    for who in ("c", "rust"):
        for row, why in skips[who].items():
            md.append(f"- **not run on {who}**: `{row}` (and its reg_/unreg_ rows): {why}")
    if problems:
        md.append("- **problems**: " + "; ".join(problems))
    md += ["", "![Rust/C ratios](ratios.svg)", "", "![(Un)registration per probe against N](registration.svg)", ""]
    md += scale_table(scale_rows(c), rscale, (cmeta.get("scale_all_n"), rmeta.get("scale_all_n")))
    md += fprobe_table(c, r)
    md += policy_table(c, r)
    md += ["| row | unit | C | C, 2nd run | Rust | Rust/C | target | met |",
           "|---|---|--:|--:|--:|--:|---|---|"]
    for x in rows:
        ratio = f"{x['ratio']:.3f}" if x["ratio"] is not None else "n/a"
        m = {True: "yes", False: "**NO**", None: ""}[x["meets_target"]]
        if x["meets_target"] and x["name"].startswith("mem_") and x["rust"] > x["c"] + 16:
            m = "yes (within C's run-to-run range)"
        if x.get("not_run"):
            m = "not run on " + x["not_run"]
        c2s = "" if x["c_repeat"] is None else ("=" if x["c_repeat"] == x["c"] else fmt(x["c_repeat"]))
        md.append(f"| {x['name']} | {x['unit']} | {fmtn(x['c'])} | {c2s} | {fmtn(x['rust'])} | {ratio} | "
                  f"{x['target'] or ''} | {m} |")
    md += ["", NOTES]
    if a.notes and os.path.exists(a.notes):
        with open(a.notes) as f:
            md += ["", f.read().rstrip()]
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    svg_chart(rows, os.path.join(a.out, "ratios.svg"),
              f"kprobes core, Rust vs C (commit {meta.get('commit', '?')[:12]})")
    svg_scale(scale_rows(c), rscale, os.path.join(a.out, "scale.svg"),
              f"Hit cost at scale (commit {meta.get('commit', '?')[:12]})")
    svg_reg(c, r, os.path.join(a.out, "registration.svg"),
            f"(Un)registration cost per probe against N (commit {meta.get('commit', '?')[:12]})")

    w = max(len(x["name"]) for x in rows) if rows else 10
    print(f"    {'row':<{w}} {'unit':<8} {'C':>16} {'Rust':>16} {'Rust/C':>8}  target")
    for x in rows:
        ratio = f"{x['ratio']:.3f}" if x["ratio"] is not None else "n/a"
        m = {True: "met", False: "MISSED", None: ""}[x["meets_target"]]
        cs, rs = (f"{v:>16.2f}" if v is not None else f"{'not run':>16}" for v in (x["c"], x["rust"]))
        print(f"    {x['name']:<{w}} {x['unit']:<8} {cs} {rs} {ratio:>8}  {m}")
    if repeat is not None:
        print("    repeat of the c run: " + ("all rows identical" if repeat["identical"]
              else f"{repeat['identical_rows']} rows identical, {len(repeat['differing_rows'])} differ: "
              + ", ".join(f"{k} {v[2]:.4g}%" for k, v in repeat["differing_rows"].items())))
    for p in problems:
        print(f"    PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
