#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Put cbindgen's C output into kernel style (scripts/gen-header.sh), so that
checkpatch.pl --strict has nothing to say about the generated headers:

  - indentation with tabs: a leading run of N spaces becomes N/8 tabs and
    N%8 spaces (cbindgen indents by `tab_width = 8` and aligns continuation
    lines with spaces);
  - no `extern` on function prototypes in a header (variables keep it);
  - the kernel's fixed-width types (u8..u64, s8..s64) for <stdint.h>'s;
  - a flexible array member `x[]` for cbindgen's `x[0]`;
  - a comment on a struct mutex member (checkpatch asks for one);
  - `#if` conditions longer than 100 columns broken after `||`/`&&`;
  - a conditional struct member's `;` on the member, inside its `#if`
    (cbindgen writes it on a line of its own after the `#endif`).

Usage: kstyle-c.py FILE (rewritten in place)."""
import re
import sys

MUTEX_COMMENT = "/* the C struct's lock: see include/linux/kprobes.h */"


def split_directive(line, width=100):
    """A preprocessor condition longer than WIDTH columns, broken after an
    `||`/`&&` into backslash-continued lines indented by a tab."""
    out = []
    while len(line) > width:
        cut = max(line.rfind(" || ", 0, width - 2), line.rfind(" && ", 0, width - 2))
        if cut < 0:
            break
        out.append(line[: cut + 3] + " \\")
        line = "\t" + line[cut + 4 :]
    return out + [line]


def kstyle(text):
    text = re.sub(r"([^;\n])\n#endif\n[ \t]*;\n", r"\1;\n#endif\n", text)
    out = []
    shift = 0  # columns removed from a prototype's first line (its `extern`)
    for line in text.split("\n"):
        # A function prototype: an identifier directly followed by `(`
        # (a function-pointer variable has `(*` and keeps its extern).
        # Its continuation lines, aligned with the `(`, move left as much;
        # the prototype ends with its `;`.
        if shift:
            line = line[shift:]
        elif line.startswith("extern ") and re.search(r"\b[A-Za-z_]\w*\(", line):
            line = line[len("extern ") :]
            shift = len("extern ")
        if line.endswith(";"):
            shift = 0
        m = re.match(r"^( +)", line)
        if m:
            n = len(m.group(1))
            line = "\t" * (n // 8) + " " * (n % 8) + line[n:]
        line = re.sub(r"\buint(8|16|32|64)_t\b", r"u\1", line)
        line = re.sub(r"\bint(8|16|32|64)_t\b", r"s\1", line)
        line = re.sub(r"^(\t\S.*\w)\[0\];$", r"\1[];", line)
        if re.match(r"^\tstruct mutex \w+;$", line):
            line += " " + MUTEX_COMMENT
        if line.startswith("#if"):
            out.extend(split_directive(line))
        else:
            out.append(line)
    return "\n".join(out)


def main():
    path = sys.argv[1]
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(kstyle(text))


if __name__ == "__main__":
    main()
