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
    selection of arch/<arch>/, no architecture's CONFIG_ option (issue 12:
    it is all under arch/x86_64/ and arch/arm64/);
  - the C shims (c-shim/*.c, arch/*/*.c and the host differential's
    tools/testing/hostdiff/rshim.c) have no loops: no kprobes logic in C;
    the generic shim (c-shim/) has no architecture's CONFIG_ option (its
    arch-specific glue is in arch/<arch>/).
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
            if not any("SAFETY" in x for x in lines[max(0, i - 4):i + 1]):
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
