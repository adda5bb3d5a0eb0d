#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kCFI check of the Rust kprobes core (Kbuild, with CONFIG_CFI): every
function of the core that C declares carries the type id of its C prototype.

    kcfi_check.py [--prefix N] RUST_OBJECT C_OBJECT...

C declares the core's functions in kprobes_rust.h and takes their addresses
(kprobes_rust_cfi.h), so clang defines __kcfi_typeid_NAME in the C objects:
the id an indirect call of NAME through a pointer of NAME's C type checks.
In the core's object, the id is in NAME's preamble, where an indirect call
reads it: on x86-64 the imm32 of the `mov $id, %eax` in __cfi_NAME, 4 + N
bytes before NAME, N the patchable prefix (--prefix: CALL_PADDING's
FUNCTION_PADDING_BYTES, else 0); on arm64 the word before NAME.  For an
assembly entry point (arch/<arch>/entry.rs) that field is a relocation
against __kcfi_typeid_NAME, C's id by construction; for a function rustc
compiled, it is rustc's id, which must equal C's.  The report goes to
stdout; the exit status is 1 on a mismatch or a function without a
preamble, 2 on an input it cannot read.
"""
import struct
import sys

EM_X86_64, EM_AARCH64 = 62, 183
SHT_SYMTAB, SHT_RELA = 2, 4
SHN_UNDEF, SHN_ABS = 0, 0xFFF1
STT_FUNC = 2
TYPEID = "__kcfi_typeid_"


class Elf:
    """The sections, symbols and relocations of a little-endian ELF64
    relocatable object."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ValueError("%s: not a little-endian ELF64 object" % path)
        self.machine = struct.unpack_from("<H", d, 18)[0]
        shoff, = struct.unpack_from("<Q", d, 40)
        shentsize, shnum = struct.unpack_from("<HH", d, 58)
        self.sections = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
                         for i in range(shnum)]
        self.syms = []
        self.relocs = {}
        for sh in self.sections:
            if sh[1] == SHT_SYMTAB:
                strtab = self.sections[sh[6]]
                for off in range(sh[4], sh[4] + sh[5], 24):
                    name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", d, off)
                    self.syms.append((self.cstr(strtab[4] + name), info & 0xF, shndx, value, size))
        for sh in self.sections:
            if sh[1] == SHT_RELA:
                rel = self.relocs.setdefault(sh[7], {})
                for off in range(sh[4], sh[4] + sh[5], 24):
                    r_offset, r_info = struct.unpack_from("<QQ", d, off)
                    rel[r_offset] = self.syms[r_info >> 32][0]

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def bytes_at(self, shndx, off, n):
        sh = self.sections[shndx]
        return self.data[sh[4] + off:sh[4] + off + n]

    def typeids(self):
        return {n[len(TYPEID):]: v & 0xFFFFFFFF for n, _t, s, v, _z in self.syms
                if n.startswith(TYPEID) and s == SHN_ABS}


def preamble(obj, name, funcs, cfi, prefix):
    """(section, offset) of the id field of the preamble right before
    `name`, or None.  By address, not by name: rustc may emit a function as
    an alias of another with the same code, which then has that one's
    preamble (and its type id)."""
    shndx, value = funcs[name]
    if obj.machine == EM_AARCH64:
        return (shndx, value - 4) if value >= 4 else None
    # x86-64: the `mov`'s opcode where the caller's check expects the id
    # after it, inside a __cfi_ symbol (clang's covers the padding before
    # the `mov` or only the `mov`, as the patchable prefix goes after it).
    field = value - 4 - prefix
    if field - 1 not in cfi.get(shndx, ()) or obj.bytes_at(shndx, field - 1, 1) != b"\xb8":
        return None
    return (shndx, field)


def main():
    args, prefix = sys.argv[1:], 0
    if args[:1] == ["--prefix"] and len(args) > 1 and args[1].isdigit():
        prefix, args = int(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    try:
        rust = Elf(args[0])
        cobjs = [Elf(p) for p in args[1:]]
    except (OSError, ValueError, struct.error) as e:
        print("kcfi_check: %s" % e, file=sys.stderr)
        sys.exit(2)
    if rust.machine not in (EM_X86_64, EM_AARCH64):
        print("kcfi_check: machine %d: only x86-64 and arm64" % rust.machine, file=sys.stderr)
        sys.exit(2)
    ids, bad = {}, []
    for o in cobjs + [rust]:
        for name, tid in o.typeids().items():
            if ids.setdefault(name, tid) != tid:
                bad.append("%s: type ids %#x and %#x in different objects" % (name, ids[name], tid))
    funcs = {n: (s, v) for n, t, s, v, _z in rust.syms
             if t == STT_FUNC and s not in (SHN_UNDEF, SHN_ABS) and not n.startswith("__cfi_")}
    # x86-64: the bytes of each section that a __cfi_ preamble covers.
    cfi = {}
    for n, _t, s, v, z in rust.syms:
        if n.startswith("__cfi_"):
            cfi.setdefault(s, set()).update(range(v, v + z))
    by_reloc, by_value = [], []
    for name in sorted(ids):
        if name not in funcs:
            continue
        at = preamble(rust, name, funcs, cfi, prefix)
        if at is None:
            bad.append("%s: no kCFI preamble with its id %d bytes before it" % (name, 4 + prefix))
            continue
        target = rust.relocs.get(at[0], {}).get(at[1])
        if target is not None:
            if target != TYPEID + name:
                bad.append("%s: the preamble's id is %s" % (name, target))
            else:
                by_reloc.append(name)
            continue
        tid, = struct.unpack("<I", rust.bytes_at(at[0], at[1], 4))
        if tid != ids[name]:
            bad.append("%s: rustc's type id %#x, C's %#x" % (name, tid, ids[name]))
        else:
            by_value.append(name)
    print("kCFI: %d functions of the Rust core carry their C prototype's type id: "
          "%d compiled by rustc, %d assembly entry points" %
          (len(by_value) + len(by_reloc), len(by_value), len(by_reloc)))
    print("rustc: " + " ".join(by_value))
    print("assembly: " + " ".join(by_reloc))
    for b in bad:
        print("kcfi_check: " + b, file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
