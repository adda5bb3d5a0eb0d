#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Write the project as a `git format-patch` series against the pristine
# tree of KP_TREE into $WORK/patches (default build/patches, for 7.3
# build/7.3/patches), then prove it:
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
# A tree's own cover letter (scripts/series/TREE/cover-letter) replaces it.
cover=$ROOT/scripts/series/cover-letter
[ -z "$TREE_DIR" ] || [ ! -f "$ROOT/scripts/series/$TREE_DIR/cover-letter" ] ||
	cover=$ROOT/scripts/series/$TREE_DIR/cover-letter
python3 - "$out/0000-cover-letter.patch" "$cover" <<'PY' ||
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

# Each prefix of the series compiles the core (scripts/prefix-builds.sh)
# when the rust variant is built; KP_PREFIX_BUILDS=0 skips it (make test
# runs it itself, after the builds).
if [ "${KP_PREFIX_BUILDS:-1}" = 0 ]; then
	exit 0
elif [ ! -f "$(outdir rust)/.config" ]; then
	info "SKIP prefix builds: no built rust variant in $(outdir rust) (make build first)"
	exit 0
fi
exec "$ROOT/scripts/prefix-builds.sh"
