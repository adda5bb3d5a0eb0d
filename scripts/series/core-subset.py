#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The crate root or the Kbuild file of kernel/kprobes_rust/ as a prefix of
the series has it: only the parts whose files that prefix has staged.

    core-subset.py root  FILE STAGED...   rust-core/kprobes_core.rs
    core-subset.py kbuild FILE STAGED...  Kbuild

FILE is the file as the whole series has it; STAGED are the paths (relative
to kernel/kprobes_rust/) the prefix has staged so far.  The result goes to
stdout.  With every file staged the result is FILE unchanged
(kernel-tree.sh checks the whole series against the project's files).

root: a module item (its doc comments and attributes, then `mod X;` or
`mod X { ... }`) stays when its file (its `#[path]`, else rust-core/X.rs;
for an architecture's module, `#[cfg_attr(target_arch = ..., path =
"../arch/ARCH/X.rs")]`, the first such file; for the kernel tree's
module, `#[cfg_attr(kp_tree_..., path = "tree/X.rs")]`, the one the
series has) is staged or is not a kernel-side core file (host-only modules, which are
cfg'd out of the kernel build; `host/test_X.rs` goes with X).  In the other
top-level items, a statement line `X::f(...);` naming a module that is not
staged is dropped, and an item that names one anywhere else is dropped.
kbuild: an `obj-y += DIR/X.o` or `obj-$(CONFIG_...) += DIR/X.o` line (and the comment lines right above it)
stays when DIR/X.rs or DIR/X.c is staged or is not a file of the series
(another tree's); a paragraph without obj- lines stays when every file of
the series it names is staged.
"""
import os
import re
import sys


def root(text, staged, every):
    core = {os.path.basename(f)[:-3] for f in every if f.startswith("rust-core/") and f.endswith(".rs")}
    have = {os.path.basename(f)[:-3] for f in staged if f.startswith("rust-core/") and f.endswith(".rs")}
    missing = core - have
    lines = text.splitlines(keepends=True)
    out, pending, i = [], [], 0
    mod_re = re.compile(r"^(?:pub(?:\([a-z]+\))? )?mod (\w+)\s*(;|\{)")
    miss_re = re.compile(r"\b(%s)::" % "|".join(sorted(missing))) if missing else None

    def module_file(attrs, name):
        # The architecture's modules (`#[cfg_attr(target_arch = ..., path =
        # "../arch/ARCH/X.rs")]`): their files relative to kernel/kprobes_rust/.
        for a in attrs:
            m = re.match(r'#\[cfg_attr\(target_arch = "\w+", path = "\.\./(arch/[^"]+)"\)\]', a)
            if m:
                return m.group(1)
        # The kernel tree's module (`#[cfg_attr(kp_tree_..., path =
        # "tree/X.rs")]`): the series of a tree has that tree's file only.
        trees = [m.group(1) for a in attrs
                 for m in [re.match(r'#\[cfg_attr\((?:not\()?kp_tree_\w+\)?, path = "(tree/[^"]+)"\)\]', a)] if m]
        if trees:
            return "rust-core/" + next((t for t in trees if "rust-core/" + t in every), trees[0])
        for a in attrs:
            m = re.match(r'#\[path = "([^"]+)"\]', a)
            if m:
                p = m.group(1)
                m2 = re.match(r"host/test_(\w+)\.rs$", p)
                if m2:
                    return m2.group(1) + ".rs"
                return p
        return name + ".rs"

    def item_end(start):
        # A top-level item ends at its first line that ends in `;` or `}`
        # with every brace opened since `start` closed.
        depth = 0
        for j in range(start, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0 and lines[j].rstrip().endswith((";", "}")):
                return j
        return len(lines) - 1

    while i < len(lines):
        ln = lines[i]
        if ln.startswith("///") or ln.startswith("#["):
            pending.append(ln)
            i += 1
            continue
        m = mod_re.match(ln)
        if m:
            end = i if m.group(2) == ";" else item_end(i)
            f = module_file([p.strip() for p in pending], m.group(1))
            drop = (f.endswith(".rs") and "/" not in f and f[:-3] in missing) or \
                (f.startswith(("arch/", "rust-core/tree/")) and f in every and f not in staged)
            if not drop:
                out += pending + lines[i:end + 1]
            pending, i = [], end + 1
            continue
        if pending or re.match(r"^(pub |const |static |fn |macro_rules|impl |struct |enum )", ln):
            # another top-level item, with its docs and attributes
            end = item_end(i)
            body = lines[i:end + 1]
            if miss_re is not None:
                kept = []
                for b in body:
                    if miss_re.search(b):
                        if re.match(r"^\s+\w+::\w+\([^()]*\);\s*$", b):
                            continue
                        kept = None
                        break
                    kept.append(b)
                if kept is None:
                    pending, i = [], end + 1
                    continue
                body = kept
            out += pending + body
            pending, i = [], end + 1
            continue
        out.append(ln)
        i += 1
    out += pending
    # no blank line left doubled or at the end by a dropped item
    text = re.sub(r"\n{3,}", "\n\n", "".join(out))
    return text.rstrip("\n") + "\n"


def kbuild(text, staged, every):
    have = {f.rsplit(".", 1)[0] for f in staged}
    # Objects of files that are not the series' (another tree's) stay.
    ours = {f.rsplit(".", 1)[0] for f in every}
    # A paragraph without obj- lines (a rule of the core's own, with its
    # comment) goes whole while a series file it names is not staged.
    paras = []
    for para in re.split(r"(?<=\n)\n", text):
        names = {m.group(1) for m in re.finditer(r"\b((?:rust-core|c-shim|arch)/[\w/]+)\.\w+", para)}
        if not re.search(r"^obj-", para, re.M) and any(n in ours and n not in have for n in names):
            continue
        paras.append(para)
    text = "\n".join(paras)
    out, comments = [], []
    for ln in text.splitlines(keepends=True):
        if ln.startswith("#"):
            comments.append(ln)
            continue
        m = re.match(r"^obj-(?:y|\$\(CONFIG_\w+\)) \+= (\S+)\.o\s*$", ln)
        if not m or m.group(1) in have or m.group(1) not in ours:
            out += comments + [ln]
        comments = []
    return "".join(out + comments).rstrip("\n") + "\n"


if __name__ == "__main__":
    what, path, staged = sys.argv[1], sys.argv[2], sys.argv[3:]
    # Every kernel-side file of the core (KP_CORE_FILES, whitespace
    # separated): a module whose file is not one of them is host-only.
    every = os.environ.get("KP_CORE_FILES", "").split()
    text = open(path).read()
    sys.stdout.write(root(text, staged, every) if what == "root" else kbuild(text, staged, every))
