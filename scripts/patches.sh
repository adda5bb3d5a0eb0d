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
git -C "$KSRC" format-patch -q --no-signature -o "$out" pristine..kprobes-rust
n=$(ls "$out"/*.patch | wc -l)
step "patches: wrote $n patches to $out"
ls "$out" | sed 's/^/    /'

step "patches: checking that the series applies with 'git am' to pristine $(cat "$WORK/kernel-source-version")"
chk=$WORK/am-check
# A run interrupted inside `git worktree add` leaves the worktree locked
# ("initializing"), which prune keeps: unlock it first.
git -C "$KSRC" worktree unlock "$chk" 2>/dev/null || true
git -C "$KSRC" worktree remove --force --force "$chk" 2>/dev/null || rm -rf "$chk"
git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$chk" pristine
git -C "$chk" -c user.name=check -c user.email=check@localhost am -q "$out"/*.patch ||
	die "the series does not apply with git am (worktree left in $chk)"
want=$(git -C "$KSRC" rev-parse 'kprobes-rust^{tree}')
got=$(git -C "$chk" rev-parse 'HEAD^{tree}')
git -C "$KSRC" worktree remove --force "$chk"
[ "$want" = "$got" ] || die "git am result differs from the built tree ($got != $want)"
step "patches: OK, 'git am' gives exactly the tree both variants are built from"
