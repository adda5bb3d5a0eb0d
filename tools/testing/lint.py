#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Source rules of the project, one `PASS|FAIL name` line each:
  - every `unsafe` block and `unsafe impl` in rust-core/ (and the host
    differential's sys, tools/testing/hostdiff/rust/, and the simulation's
    C ABI, tools/testing/hostdiff/sim/) has a `// SAFETY:`
    comment right before it (at most 4 lines up), as rust/kernel/ does;
  - the in-kernel Rust (rust-core/*.rs, not host/, and arch/*/*.rs) has
    no unwrap(), expect(), panic!(), todo!(), unimplemented!() or
    unreachable!();
  - the generic core (rust-core/*.rs) has no architecture-specific code:
    no inline assembly, no cfg(target_arch) but the crate root's
    selection of arch/<arch>/, no architecture's CONFIG_ option (it is all
    under arch/x86_64/, arch/arm64/ and arch/riscv64/);
  - the C shims (c-shim/*.c, arch/*/*.c and the host differential's
    tools/testing/hostdiff/rshim.c) have no loops: no kprobes logic in C;
    the generic shim (c-shim/) has no architecture's CONFIG_ option (its
    arch-specific glue is in arch/<arch>/);
  - docs/kernel-crate.md has a row for each public item of the sys layer
    (rust-core/sys_kernel.rs, with the methods of its public types) and of
    the tree files (rust-core/tree/*.rs), and no row for anything else:
    where each uses the kernel crate, or why it does not;
  - the comments of rust-core/ (with host/), arch/ and c-shim/ state the
    design and its invariants: no commit hash (7 or more hex digits with a
    digit and a letter; 0x... and 16-digit addresses are not hashes), no
    issue number, no `PLAN-` file, no measured figure (a number followed
    by instructions, insns, cycles, ns, us, ms, s or %; "instructions
    per", "guest instructions").  A choice that rests on a measurement
    says why in words and names its bench/results.md row.  String
    literals are not comments: the tests' expected kprobes/list lines
    keep their addresses.
"""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(root)
fails = []

def check(name, bad):
    print("%s %s%s" % ("FAIL" if bad else "PASS", name, (" (" + "; ".join(bad[:5]) + ")") if bad else ""))

bad = []
for f in sorted(glob.glob("rust-core/*.rs") + glob.glob("rust-core/host/**/*.rs", recursive=True) +
                glob.glob("arch/*/*.rs") + glob.glob("tools/testing/hostdiff/rust/*.rs") +
                glob.glob("tools/testing/hostdiff/sim/*.rs")):
    lines = open(f).read().split("\n")
    for i, l in enumerate(lines):
        code = l.split("//")[0]
        if re.search(r"\bunsafe\s*\{", code) or re.match(r"\s*unsafe impl\b", code):
            if not any("SAFETY:" in x for x in lines[max(0, i - 4):i + 1]):
                bad.append("%s:%d" % (f, i + 1))
check("lint/rust-unsafe-has-SAFETY-comment", bad)

bad = []
for f in sorted(glob.glob("rust-core/*.rs") + glob.glob("arch/*/*.rs")):
    for i, l in enumerate(open(f).read().split("\n")):
        code = l.split("//")[0]
        if re.search(r"\.unwrap\(\)|\.expect\(|\b(panic|todo|unimplemented|unreachable)!", code):
            bad.append("%s:%d" % (f, i + 1))
check("lint/kernel-rust-has-no-panicking-calls", bad)

bad = []
for f in sorted(glob.glob("c-shim/*.c") + glob.glob("arch/*/*.c") + ["tools/testing/hostdiff/rshim.c"]):
    txt = re.sub(r"/\*.*?\*/", "", open(f).read(), flags=re.S)
    for i, l in enumerate(txt.split("\n")):
        if re.search(r"\b(for|while|do)\b\s*[({]|\bgoto\b|list_for_each|hlist_for_each", l.split("//")[0]):
            bad.append("%s:%d" % (f, i + 1))
check("lint/c-shim-has-no-loops", bad)

bad = []
ARCH_DISPATCH = re.compile(r'\s*#\[cfg_attr\(target_arch = "\w+", path = "\.\./arch/\w+/\w+\.rs"\)\]\s*$')
for f in sorted(glob.glob("rust-core/*.rs") + glob.glob("c-shim/*.[ch]")):
    for i, l in enumerate(open(f).read().split("\n")):
        code = l.split("//")[0]
        if f.endswith("/kprobes_core.rs") and ARCH_DISPATCH.match(code):
            continue
        if re.search(r"\b(global_asm|asm)!|target_arch|\bCONFIG_(X86|ARM64|ARM|RISCV|PPC|S390|LOONGARCH)\w*", code):
            bad.append("%s:%d" % (f, i + 1))
check("lint/generic-core-has-no-arch-code", bad)

def comments(src, rust):
    """(line, text) of every comment of a Rust or C source, string and
    character literals skipped (Rust block comments nest, C ones do not)."""
    out, i, n, line = [], 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append((line, src[i:j]))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if rust and src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            for k, t in enumerate(src[i:j].split("\n")):
                out.append((line + k, t))
            line += src.count("\n", i, j)
            i = j
        elif rust and re.match(r'[bc]?r#*"', src[i:i + 8]) and not re.match(r"\w", src[i - 1:i]):
            m = re.match(r'[bc]?r(#*)"', src[i:])
            j = src.find('"' + m.group(1), i + m.end())
            j = n if j < 0 else j + 1 + len(m.group(1))
            line += src.count("\n", i, j)
            i = j
        elif c == '"' or (rust and c in "bc" and src[i + 1:i + 2] == '"' and not re.match(r"\w", src[i - 1:i])):
            j = i + (1 if c == '"' else 2)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            line += src.count("\n", i, j)
            i = j + 1
        elif c == "'":
            # A character literal ('x', '\n', '\x7f', '\u{..}'); otherwise
            # a Rust lifetime or label, which is skipped as a word.
            m = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'", src[i:i + 14])
            i += m.end() if m else 1
        elif c.isalnum() or c == "_":
            i += re.match(r"\w+", src[i:]).end()
        else:
            i += 1
    return out

bad = []
# A commit hash: a word of 7 or more hex digits with a digit and a letter
# (not kernel_clone, not 16777217), not 0x... (the word then has the x)
# and not 16 digits (an address, as in a kprobes/list line).
HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])(?![0-9a-f]{16}\b)[0-9a-f]{7,}\b")
HISTORY = re.compile(r"\bissues?\s+#?\d+|\binstructions per\b|\bguest instructions\b|\bPLAN-")
# A number (not part of a word such as int3s) and a unit of measure.
FIGURE = re.compile(r"(?<![\w.])\d[\d,.]*\s?[kMG]?\s?(instructions|insns|cycles|ns|us|µs|ms|s)\b"
                    r"|(?<![\w.])\d[\d,.]*\s?%")
for f in sorted(set(glob.glob("rust-core/**/*.rs", recursive=True) +
                    [g for e in ("rs", "c", "h", "S") for g in glob.glob("arch/**/*." + e, recursive=True)] +
                    glob.glob("c-shim/*.[ch]"))):
    for n, t in comments(open(f).read(), f.endswith(".rs")):
        m = HASH.search(t) or HISTORY.search(t) or FIGURE.search(t)
        if m:
            bad.append("%s:%d: %s" % (f, n, m.group(0).strip()))
check("lint/comments-state-design", bad)

def public_items(src):
    """The names of a file's public items: top-level `pub` items (each name
    of a `pub use` list; a glob re-export by its module's name), the `pub fn`
    methods of its `impl` blocks, and its `macro_rules!`."""
    names = []
    for m in re.finditer(r"^pub (?:unsafe )?(?:fn|struct|const|static|type|trait|enum|mod) (\w+)", src, re.M):
        names.append(m.group(1))
    for m in re.finditer(r"^pub use ([^;]+);", src, re.M | re.S):
        path = m.group(1)
        if "{" in path:
            names += [n.strip().split(" as ")[-1] for n in path[path.index("{") + 1:path.rindex("}")].split(",") if n.strip()]
        elif path.endswith("::*"):
            names.append(path[:-3].split("::")[-1])
        else:
            names.append(path.split("::")[-1].split(" as ")[-1].strip())
    names += re.findall(r"^    pub (?:unsafe )?fn (\w+)", src, re.M)
    names += re.findall(r"^macro_rules! (\w+)", src, re.M)
    return names

def doc_rows(doc, heading):
    """The first cells (a backticked name) of the table below HEADING."""
    part = doc.split(heading, 1)[1] if heading in doc else ""
    part = part.split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", part, re.M)

bad = []
doc = open("docs/kernel-crate.md").read() if os.path.exists("docs/kernel-crate.md") else ""
for files, heading in ((["rust-core/sys_kernel.rs"], "## `rust-core/sys_kernel.rs`"),
                       (sorted(glob.glob("rust-core/tree/*.rs")), "## `rust-core/tree/")):
    items = set()
    for f in files:
        items |= set(public_items(open(f).read()))
    rows = set(doc_rows(doc, heading))
    bad += ["%s: no row in docs/kernel-crate.md" % n for n in sorted(items - rows)]
    bad += ["docs/kernel-crate.md: row `%s` is no public item of %s" % (n, " or ".join(files)) for n in sorted(rows - items)]
check("lint/sys-layer-items-documented", bad)
