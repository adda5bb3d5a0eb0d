#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite each `ftrace_export! { ... }` of a Rust file as the `extern "C"`
declaration it stands for, so that cbindgen (which does not expand
macros) writes the C prototype, and each `arch_get_kprobe! { ITEM }`
(registry.rs: the architecture's assembly `get_kprobe()` or ITEM, the
Rust one; the same prototype) as ITEM: scripts/gen-header.sh runs
cbindgen on a copy of rust-core/ passed through this.
  scripts/export-decls.py FILE...   (rewrites the files in place)"""
import re
import sys


def block_end(s, i):
    """Index just past the `}` that closes the `{` at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    raise SystemExit("unbalanced ftrace_export! block")


def rewrite(s):
    out, pos = [], 0
    for m in re.finditer(r"^ftrace_export! \{", s, re.M):
        if m.start() < pos:
            continue
        end = block_end(s, m.end() - 1)
        inner = s[m.end():end - 1]
        sig = re.search(r"^\s*(?:unsafe\s+)?fn\s+(\w+)\s*(\(.*?\))\s*(->\s*[^{]+?)?\s*\{", inner, re.M | re.S)
        if not sig:
            raise SystemExit("ftrace_export! without a fn: %r" % inner[:80])
        attrs = [l.strip() for l in inner[:sig.start()].split("\n") if l.strip().startswith("#[")]
        decl = "pub fn %s%s%s;" % (sig.group(1), sig.group(2), " " + sig.group(3).strip() if sig.group(3) else "")
        out.append(s[pos:m.start()])
        out.append("extern \"C\" {\n%s\n    %s\n}" % ("\n".join("    " + a for a in attrs), decl))
        pos = end
    out.append(s[pos:])
    return unwrap_arch("".join(out))


def unwrap_arch(s):
    out, pos = [], 0
    for m in re.finditer(r"^arch_get_kprobe! \{", s, re.M):
        end = block_end(s, m.end() - 1)
        out.append(s[pos:m.start()])
        out.append(s[m.end():end - 1])
        pos = end
    out.append(s[pos:])
    return "".join(out)


for f in sys.argv[1:]:
    with open(f) as fh:
        s = fh.read()
    t = rewrite(s)
    if t != s:
        with open(f, "w") as fh:
            fh.write(t)
