#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write c-shim/kprobes_rust_cfi.h: every function of c-shim/kprobes_rust.h
that the Rust core defines (an ftrace_export!, the assembly get_kprobe(),
a #[no_mangle] or #[export_name] extern "C" fn), address-taken with
__ADDRESSABLE() under the header's own #if, so that clang defines
__kcfi_typeid_NAME from each C prototype (scripts/gen-header.sh).
  scripts/kcfi-decls.py HEADER RUST_FILE...   (the header on stdout)"""
import re
import sys

HEAD = """/* SPDX-License-Identifier: GPL-2.0 */

#ifndef _KPROBES_RUST_CFI_H
#define _KPROBES_RUST_CFI_H

/*
 * Generated from kprobes_rust.h and rust-core/ (scripts/gen-header.sh); do
 * not edit.  Every function of kprobes_rust.h that the Rust core defines,
 * address-taken, so that clang defines its kCFI type id __kcfi_typeid_NAME
 * from the C prototype: the core's assembly entry points carry that id
 * (arch/<arch>/entry.rs), and kcfi_check.py compares it with the id rustc
 * gave each function written in Rust.  Only kprobes_shim.c includes it,
 * with CONFIG_CFI (CONFIG_CFI_CLANG on older trees).
 */
"""


def rust_defined(files):
    names = {"get_kprobe"}
    for f in files:
        s = open(f).read()
        for m in re.finditer(r"^ftrace_export! \{.*?^\s*(?:unsafe\s+)?fn\s+(\w+)", s, re.M | re.S):
            names.add(m.group(1))
        names.update(re.findall(r"extern \"C\" fn (\w+)", s))
        names.update(re.findall(r"#\[export_name = \"(\w+)\"\]", s))
    return names


def main():
    header, files = sys.argv[1], sys.argv[2:]
    names = rust_defined(files)
    text = open(header).read()
    out = [HEAD]
    # cbindgen writes one item per paragraph: a declaration, or a
    # declaration inside its own #if ... #endif.
    for para in text.split("\n\n"):
        lines = para.strip("\n").split("\n")
        cond = []
        while lines and lines[0].startswith("#if"):
            cond.append(lines.pop(0))
            while cond[-1].endswith("\\"):
                cond.append(lines.pop(0))
        if lines and lines[-1] == "#endif":
            lines.pop()
        decl = " ".join(lines)
        m = re.match(r"^(?!extern\b)[^;(]*?\b(\w+)\(.*\);$", decl)
        if not m or m.group(1) not in names:
            continue
        item = "__ADDRESSABLE(%s);" % m.group(1)
        out.append("\n".join(cond + [item] + (["#endif"] if cond else [])) + "\n")
    out.append("#endif  /* _KPROBES_RUST_CFI_H */\n")
    sys.stdout.write("\n".join(out))


main()
