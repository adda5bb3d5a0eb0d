#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the real-client results of the kernel variants (make clients).

  compare.py OUTDIR VARIANT...

reads OUTDIR/VARIANT.kpc (the guest's `KPC <step> ok|FAIL <text>` lines) and
OUTDIR/VARIANT.console.log, and writes OUTDIR/steps.txt (one line per step:
`PASS step` or `FAIL step detail`), OUTDIR/diff.txt and OUTDIR/summary.txt.
A step passes when it ran (`ok`) on every variant with identical text.  A
step that fails on the first variant (the upstream C core) is a client that
does not work in this environment; the reason is the guest's FAIL text.
The kernel console of each variant is checked as one more step (`console`):
no BUG/WARNING/Oops/lockdep/stall lines.  The intended divergences
(OUTDIR/VARIANT.div.kpc, from divergence-job.sh) must each equal the
lines recorded in divergences/VARIANT.kpc next to this script; they are
listed as steps of their own (div.*) and never count as differences.
Exit status 1 if any step failed.
"""
import difflib
import os
import re
import sys

BAD = re.compile(r'BUG:|WARNING:|Oops|general protection|Call Trace:|'
                 r'possible circular locking|INFO: rcu|soft lockup|hung_task|'
                 r'kernel BUG|UBSAN|KASAN|invalid opcode')


def read_kpc(path):
    steps = {}
    order = []
    if not os.path.exists(path):
        return steps, order
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')   # serial port: CRLF
            parts = line.split(' ', 3)
            if len(parts) < 3 or parts[0] != 'KPC':
                continue
            step, status = parts[1], parts[2]
            text = parts[3] if len(parts) > 3 else ''
            if step in steps:          # a step printed twice is a job bug
                text = steps[step][1] + ' || ' + text
                status = 'FAIL' if 'FAIL' in (status, steps[step][0]) else status
            else:
                order.append(step)
            steps[step] = (status, text)
    return steps, order


def console_step(path):
    if not os.path.exists(path):
        return ('FAIL', 'no console log')
    bad = []
    with open(path, errors='replace') as f:
        for line in f:
            if BAD.search(line):
                bad.append(re.sub(r'^\[ *[0-9.]+\] ', '', line.strip()))
    if bad:
        return ('FAIL', 'kernel console: ' + ' | '.join(bad[:5]))
    return ('ok', 'no BUG/WARNING/Oops/lockdep/stall lines')


def main():
    out, variants = sys.argv[1], sys.argv[2:]
    res = {}
    order = []
    for v in variants:
        steps, o = read_kpc(os.path.join(out, v + '.kpc'))
        steps['console'] = console_step(os.path.join(out, v + '.console.log'))
        o.append('console')
        res[v] = steps
        for s in o:
            if s not in order:
                order.append(s)
    lines, diffs = [], []
    ndiff = nfail = 0
    for s in order:
        have = {v: res[v].get(s) for v in variants}
        missing = [v for v in variants if have[v] is None]
        failed = [v for v in variants if have[v] is not None and have[v][0] != 'ok']
        texts = {have[v][1] for v in variants if have[v] is not None and have[v][0] == 'ok'}
        differ = len(texts) > 1
        if differ:
            ndiff += 1
            oks = [v for v in variants if have[v] is not None and have[v][0] == 'ok']
            a = oks[0]
            b = next(v for v in oks[1:] if have[v][1] != have[a][1])
            ta = have[a][1].split(' | ')
            tb = have[b][1].split(' | ')
            d = list(difflib.unified_diff(ta, tb, '%s: %s' % (a, s), '%s: %s' % (b, s), lineterm='', n=1))
            diffs.append('\n'.join(d))
        if missing or failed or differ:
            nfail += 1
            why = []
            if missing:
                why.append('no result on ' + ','.join(missing) + ' (guest job did not get there)')
            for v in failed:
                why.append('%s: %s' % (v, have[v][1]))
            if failed and variants[0] in failed:
                why.insert(0, 'the client does not work on the %s kernel either:' % variants[0])
            if differ:
                why.append('differs between ' + ' and '.join(variants) + ' (see diff.txt)')
            lines.append('FAIL %s %s' % (s, ' ; '.join(why)))
        else:
            lines.append('PASS %s' % s)
    # intended divergences: each variant's lines as recorded
    ndiv = ndivbad = 0
    # Another tree's recordings (divergences/TREE/) where it has its own.
    exp_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'divergences')
    tree = os.environ.get('KP_TREE', '6.12')
    if tree != '6.12' and os.path.isdir(os.path.join(exp_dir, tree)):
        exp_dir = os.path.join(exp_dir, tree)
    div_order = []
    got, exp = {}, {}
    for v in variants:
        got[v], o1 = read_kpc(os.path.join(out, v + '.div.kpc'))
        exp[v], o2 = read_kpc(os.path.join(exp_dir, v + '.kpc'))
        for s in o2 + o1:
            if s not in div_order:
                div_order.append(s)
    for s in div_order:
        ndiv += 1
        why = []
        for v in variants:
            g, e = got[v].get(s), exp[v].get(s)
            if e is None:
                why.append('%s: not recorded in divergences/%s.kpc' % (v, v))
            elif g is None:
                why.append('%s: no result (guest job did not get there)' % v)
            elif g != e:
                why.append('%s: not as recorded (see diff.txt)' % v)
                d = difflib.unified_diff(e[1].split(' | '), g[1].split(' | '),
                                         'recorded %s: %s' % (v, s), 'now %s: %s' % (v, s),
                                         lineterm='', n=1)
                diffs.append('\n'.join(d))
        if why:
            ndivbad += 1
            nfail += 1
            lines.append('FAIL %s %s' % (s, ' ; '.join(why)))
        else:
            lines.append('PASS %s' % s)
    summary = 'clients: %d steps, %d differ, %d failed; %d intended divergences, %d not as recorded' % (
        len(order) + ndiv, ndiff, nfail, ndiv, ndivbad)
    with open(os.path.join(out, 'steps.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    with open(os.path.join(out, 'diff.txt'), 'w') as f:
        f.write('\n\n'.join(diffs) + ('\n' if diffs else ''))
    with open(os.path.join(out, 'summary.txt'), 'w') as f:
        f.write(summary + '\n')
    for l in lines:
        print(l)
    for d in diffs:
        print(d)
    print(summary)
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main())
