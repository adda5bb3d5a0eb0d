#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/profile/table.py LOG...: per-member guest instructions per step of
register_kprobes() from the KPROF lines of bench/profile/run.sh, one column
per LOG and N (markdown).  LOG names are given as label=path."""
import re, sys
cols, data = [], {}
for arg in sys.argv[1:]:
    label, path = arg.split('=', 1)
    for line in open(path):
        m = re.search(r'KPROF (\w+) n=(\d+) (\w+)\s+calls=(\d+)\s+total=(\d+)\s+per_member=(\d+)', line)
        if not m:
            continue
        what, n, step, calls, total, per = m.groups()
        if int(n) < 1000:
            continue
        col = f'{label} N={n}'
        if col not in cols:
            cols.append(col)
        data[(what, step, col)] = (int(calls), int(per))
for what in ('register_kprobes', 'unregister_kprobes'):
    steps = []
    for (w, s, c) in data:
        if w == what and s not in steps:
            steps.append(s)
    print(f'\n{what}: guest instructions per member (calls per member)\n')
    print('| step | ' + ' | '.join(cols) + ' |')
    print('|---|' + '---:|' * len(cols))
    for s in steps:
        cells = []
        for c in cols:
            v = data.get((what, s, c))
            n = int(c.split('N=')[1])
            cells.append('' if v is None else f'{v[1]:,}' + ('' if v[0] == n else f' ({v[0] / n:g})'))
        print(f'| {s} | ' + ' | '.join(cells) + ' |')
