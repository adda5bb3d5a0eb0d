#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Write the project as a `git format-patch` series against the pristine
# 6.12 tree into $WORK/patches (default build/patches), then prove it:
# `git am` the series onto a fresh worktree of `pristine` and compare the
# resulting tree object with the tree the variants are built from.
. "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh" >/dev/null
"$ROOT/scripts/kernel-tree.sh"
out=${KP_PATCHES:-$WORK/patches}
rm -rf "$out"; mkdir -p "$out"
git -C "$KSRC" -c user.name=kprobes-rust -c user.email=kprobes-rust@localhost format-patch -q --no-signature --cover-letter -o "$out" pristine..kprobes-rust
# The cover letter's subject and text: scripts/series/cover-letter (first
# line the subject, then a blank line and the text); git writes the
# shortlog and the diffstat under them.
python3 - "$out/0000-cover-letter.patch" "$ROOT/scripts/series/cover-letter" <<'PY' ||
import sys
cl, src = sys.argv[1], open(sys.argv[2]).read()
subject, _, blurb = src.partition("\n\n")
t = open(cl).read()
if "*** SUBJECT HERE ***" not in t or "*** BLURB HERE ***" not in t:
    sys.exit("no placeholders in " + cl)
t = t.replace("*** SUBJECT HERE ***", subject.strip()).replace("*** BLURB HERE ***", blurb.rstrip())
open(cl, "w").write(t)
PY
	die "writing the cover letter failed"
patches=$(ls "$out"/*.patch | grep -v /0000-cover-letter.patch)
step "patches: wrote $(echo "$patches" | wc -l) patches and a cover letter to $out"
ls "$out" | sed 's/^/    /'

step "patches: checking that the series applies with 'git am' to pristine $(cat "$WORK/kernel-source-version")"
chk=$WORK/am-check
# A run interrupted inside `git worktree add` leaves the worktree locked
# ("initializing"), which prune keeps: unlock it first.
git -C "$KSRC" worktree unlock "$chk" 2>/dev/null || true
git -C "$KSRC" worktree remove --force --force "$chk" 2>/dev/null || rm -rf "$chk"
git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$chk" pristine
git -C "$chk" -c user.name=check -c user.email=check@localhost am -q $patches ||
	die "the series does not apply with git am (worktree left in $chk)"
want=$(git -C "$KSRC" rev-parse 'kprobes-rust^{tree}')
got=$(git -C "$chk" rev-parse 'HEAD^{tree}')
git -C "$KSRC" worktree remove --force "$chk"
[ "$want" = "$got" ] || die "git am result differs from the built tree ($got != $want)"
step "patches: OK, 'git am' gives exactly the tree both variants are built from"

# KP_PREFIX_BUILDS=1: each prefix of the series compiles the Rust core's
# objects (kernel/kprobes_rust/, no warning), in a copy of the built rust
# variant's O= directory (make build first).  The patches before the
# kernel/Makefile switch add files nothing builds yet.  It checks the
# prefixes out in $KSRC, one at a time, and checks the series out again
# at the end: run nothing else on the tree meanwhile.
[ "${KP_PREFIX_BUILDS:-0}" = 1 ] || exit 0
[ -f "$(outdir rust)/.config" ] || die "no built rust variant in $(outdir rust)" "run 'make build' first"
pfx=$WORK/out-prefix
step "patches: copying $(outdir rust) to $pfx for the prefix builds"
rm -rf "$pfx"
cp -a "$(outdir rust)" "$pfx"
trap 'git -C "$KSRC" checkout -q kprobes-rust' EXIT
i=0
for c in $(git -C "$KSRC" rev-list --reverse pristine..kprobes-rust); do
	i=$((i + 1))
	subj=$(git -C "$KSRC" log --format=%s -1 "$c")
	if ! git -C "$KSRC" show "$c:kernel/Makefile" | grep -q 'kprobes_rust/'; then
		info "prefix $i ($subj): kernel/kprobes_rust/ is not built yet"
		continue
	fi
	git -C "$KSRC" checkout -q "$c"
	log=$WORK/out-prefix-$i.log
	"$KSRC/scripts/config" --file "$pfx/.config" -e KPROBES_RUST -e KPROBES_RUST_JPROBES
	if ! make -C "$KSRC" O="$pfx" LLVM=1 olddefconfig >"$log" 2>&1 ||
		! make -C "$KSRC" O="$pfx" LLVM=1 -j"$JOBS" kernel/kprobes_rust/ >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "prefix $i ($subj) does not build the core; log: $log"
	fi
	if grep -q 'warning:' "$log"; then
		grep -A 3 'warning:' "$log" | head -n 20 >&2
		die "prefix $i ($subj) builds the core with warnings; log: $log"
	fi
	info "prefix $i ($subj): kernel/kprobes_rust/ builds ($(grep -cE '^ *(RUSTC|CC) +kernel/kprobes_rust/' "$log") objects compiled)"
done
step "patches: every prefix that builds kernel/kprobes_rust/ compiles it without warnings"

