#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the global symbols of upstream kernel/kprobes.o (c variant) with
what kernel/kprobes_rust/ defines (rust variant).

    symbols.py OUT_C OUT_RUST MOVED_LIST [PREFIX]

(x86_64, arm64 or riscv64 objects; PREFIX, e.g. `arm64/`, goes before each check's
name.)

Checks, one `PASS|FAIL name` line each, then a progress line:
  - every global symbol upstream kprobes.o defines is defined by exactly one
    object of kernel/kprobes_rust/ (nothing lost, nothing defined twice),
    and kernel/kprobes.o is not built for the rust variant;
  - every function listed in MOVED_LIST that upstream kprobes.o defines in
    this config (the list covers every architecture and config: the
    optimizer's functions exist only with OPTPROBES, the objpool
    kretprobes' only without rethook) is defined by the Rust object, and
    not by C;
  - the trap-path functions the Rust object defines (reached from the
    int3/ftrace/optprobe handlers) are in its _kprobe_blacklist section and
    call no out-of-line Rust function (which would not be blacklisted).
"""
import re
import os
import subprocess
import sys


def nm(path):
    out = subprocess.run(["llvm-nm", "--defined-only", "-g", path],
                         capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = parts[1]
    return syms


def members(archive):
    """Member objects of a thin archive, as paths (nested archives expanded)."""
    out = subprocess.run(["llvm-ar", "t", archive], capture_output=True, text=True, check=True).stdout
    res = []
    for m in out.split():
        # llvm-ar prints thin members relative to the working directory.
        p = m if os.path.exists(m) else os.path.join(os.path.dirname(archive), m)
        p = os.path.normpath(p)
        res.extend(members(p) if p.endswith(".a") else [p])
    return res


# Functions upstream marks NOKPROBE_SYMBOL that run in handler context.
TRAP_PATH = ["get_kprobe", "aggr_pre_handler", "aggr_post_handler", "opt_pre_handler",
             "kprobes_inc_nmissed_count", "dump_kprobe", "pre_handler_kretprobe",
             "kretprobe_rethook_handler", "__kretprobe_trampoline_handler"]
# The relocations of an address in data, and of a call (x86_64, arm64,
# riscv64: `call`/`tail` are an auipc+jalr/jr pair, the relocation on the
# auipc).
ABS_RELOC = r"R_(?:X86_64_64|AARCH64_ABS64|RISCV_64)"
CALL_RELOC = r"R_(?:X86_64_PLT32|AARCH64_CALL26|AARCH64_JUMP26|RISCV_CALL_PLT|RISCV_CALL)"


def blacklisted(obj):
    """Symbols whose address the object puts in _kprobe_blacklist."""
    out = subprocess.run(["llvm-readelf", "-r", obj], capture_output=True, text=True, check=True).stdout
    res, inside = set(), False
    for line in out.splitlines():
        if line.startswith("Relocation section"):
            inside = "'.rela_kprobe_blacklist'" in line
        elif inside:
            m = re.search(ABS_RELOC + r"\s+\S+\s+(\S+)", line)
            if m:
                res.add(m.group(1))
    return res


def rust_calls(obj):
    """Per function of the object: the Rust-mangled functions it calls."""
    out = subprocess.run(["llvm-objdump", "-dr", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    # Function labels per section (riscv64's calls within a section are
    # resolved by address below); the assembler's local `.L` labels are not
    # functions.
    labels, sec = {}, None
    for line in lines:
        m = re.match(r"^Disassembly of section (\S+):$", line)
        if m:
            sec = m.group(1)
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m and not m.group(2).startswith(".L"):
            labels.setdefault(sec, {})[int(m.group(1), 16)] = m.group(2)
    calls, cur, sec, auipc = {}, None, None, {}
    for line in lines:
        m = re.match(r"^Disassembly of section (\S+):$", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            if not m.group(1).startswith(".L"):
                cur = m.group(1)
                calls[cur] = set()
            continue
        m = re.search(CALL_RELOC + r"\s+(_R\S+?)(-0x4)?$", line)
        if cur and m:
            calls[cur].add(m.group(1))
        if re.search(CALL_RELOC, line):
            auipc.clear()   # the pair before this relocation is resolved by it
            continue
        # A call within the object's own section has no relocation:
        # `bl 0x19a4 <_R...>` (arm64), `callq 0x... <_R...>` (x86_64).
        m = re.search(r"\s(?:bl|b|callq?|jmpq?)\s+(?:0x)?[0-9a-f]+ <(_R[^>+]+)>$", line)
        if cur and m and m.group(1) != cur:
            calls[cur].add(m.group(1))
        # riscv64: `auipc ra|t1, HI` then `jalr LO(ra)` or `jr LO(t1)`, whose
        # target is the auipc's address + (HI << 12) + LO (objdump's own
        # symbolization of it is not always right).
        m = re.match(r"^\s*([0-9a-f]+):\s+auipc\s+(ra|t1), (0x[0-9a-f]+|\d+)$", line)
        if m:
            hi = int(m.group(3), 0)
            hi = hi - (1 << 20) if hi & (1 << 19) else hi
            auipc[m.group(2)] = int(m.group(1), 16) + (hi << 12)
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+(?:jalr|jr)\s+(-?(?:0x[0-9a-f]+|\d+))?\((ra|t1)\)", line)
        if m and m.group(2) in auipc:
            target = labels.get(sec, {}).get(auipc.pop(m.group(2)) + int(m.group(1) or "0", 0))
            if cur and target and target.startswith("_R") and target != cur:
                calls[cur].add(target)
    return calls


def main():
    out_c, out_r, moved_list = sys.argv[1:4]
    pfx = sys.argv[4] if len(sys.argv) > 4 else ""
    checks = []
    up = nm(os.path.join(out_c, "kernel/kprobes.o"))
    kdir = os.path.join(out_r, "kernel/kprobes_rust")
    # What links into vmlinux: the members of the thin built-in.a archives
    # (stale objects of removed sources may still lie around in the tree).
    objs = {}
    for m in members(os.path.join(kdir, "built-in.a")):
        objs[os.path.relpath(m, kdir)] = nm(m)
    rust_obj = "rust-core/kprobes_core.o"
    kmembers = [os.path.relpath(m, out_r) for m in members(os.path.join(out_r, "kernel/built-in.a"))]
    checks.append(("symbols/rust-variant-links-no-kernel/kprobes.o", "kernel/kprobes.o" not in kmembers,
                   "kernel/built-in.a has kernel/kprobes.o"))
    checks.append(("symbols/rust-variant-links-the-rust-core", bool(objs.get(rust_obj)),
                   "kernel/kprobes_rust/built-in.a lacks %s" % rust_obj))
    for s, t in sorted(up.items()):
        where = [o for o, syms in objs.items() if s in syms and syms[s] not in "wWvV"]
        weak = [o for o, syms in objs.items() if s in syms and syms[s] in "wWvV"]
        ok = len(where) == 1 or (not where and len(weak) == 1)
        checks.append(("symbols/defined-once/" + s, ok, "strong in %s, weak in %s" % (where, weak)))
    moved = [l.split("#")[0].strip() for l in open(moved_list)]
    moved = [m for m in moved if m]
    for s in moved:
        if s not in up:
            continue
        r = objs.get(rust_obj, {})
        in_c = [o for o, syms in objs.items() if o != rust_obj and s in syms and syms[s] not in "wWvV"]
        checks.append(("symbols/moved-to-rust/" + s, s in r and r[s] in "TtDdBbRr" and not in_c,
                       "rust: %s, also in C: %s" % (r.get(s), in_c)))
    strong = sorted(s for s, t in up.items() if t == "T")
    missing = [s for s in strong if s not in moved]
    checks.append(("symbols/moved-list-covers-every-upstream-function", not missing,
                   "not listed: " + " ".join(missing)))
    robj = os.path.join(kdir, rust_obj)
    if os.path.exists(robj):
        bl = blacklisted(robj)
        calls = rust_calls(robj)
        for f in TRAP_PATH:
            if f not in objs.get(rust_obj, {}):
                continue
            checks.append(("trap-path/blacklisted/" + f, f in bl, "not in _kprobe_blacklist"))
            out_of_line = sorted(calls.get(f, set()))
            checks.append(("trap-path/no-out-of-line-rust-calls/" + f, not out_of_line,
                           "calls " + " ".join(out_of_line)))
    funcs = [s for s, t in up.items() if t in "TW"]
    in_rust = [s for s in funcs if s in objs.get(rust_obj, {})]
    for name, ok, detail in checks:
        print("%s %s%s%s" % ("PASS" if ok else "FAIL", pfx, name, "" if ok else " (" + detail + ")"))
    weak_c = sorted(s for s, t in up.items() if t == "W" and s not in in_rust)
    print("progress: Rust defines %d of the %d function symbols of upstream kprobes.o; "
          "the other %d are upstream's __weak defaults, in the C shim: %s"
          % (len(in_rust), len(funcs), len(funcs) - len(in_rust), " ".join(weak_c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
