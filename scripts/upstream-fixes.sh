#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make upstream-fixes`: the C fixes of scripts/upstream-fixes/ for the
# upstream kprobes bugs the project documents (docs/upstream-fixes.md),
# proved on mainline (KP_TREE=7.3, the default):
#   1. `git am` of the fixes onto pristine 7.3, written back as a
#      format-patch series to build/upstream-fixes/7.3/, and
#      `checkpatch.pl --strict` on each;
#   2. the fixes that also apply to pristine 6.12, as a series in
#      build/upstream-fixes/6.12/ (reported, not a check);
#   3. the `c` variant built with the fixes (kprobes-rust + the fixes, in a
#      worktree of its own: $WORK/upstream-fixes/linux, O= directory
#      $WORK/upstream-fixes/out-c; a full build, as the O= directory names
#      its source tree);
#   4. the differential suite, with its divergence boot, on the pristine
#      `c` kernel against the Rust one (make differential), and on the
#      fixed `c` kernel against the same Rust one.  For each fix, from
#      scripts/upstream-fixes/closes: its reproducer (the intended
#      divergence's scenario) shows the bug on pristine C (C prints its
#      recorded lines) and not with the fix (C prints the Rust recording);
#      the rest of the suite must still agree with the Rust core.
# Prints `PASS|FAIL upstream-fixes/...` lines and ends with
# `N passed, N failed`; exit status non-zero on a failure.
. "$(dirname "$0")/lib.sh"

[ "$KP_TREE" = 7.3 ] || die "the fixes are made against mainline" "run it with KP_TREE=7.3 (the default)"
[ "$KP_CONFIG" = pipeline ] || die "make upstream-fixes runs on the pipeline config"
FIX=$ROOT/scripts/upstream-fixes
OUT=$ROOT/build/upstream-fixes
FW=$WORK/upstream-fixes
P=0 F=0
rec() { # ok(0/1) NAME [DETAIL]
	if [ "$1" = 0 ]; then P=$((P + 1)); echo "PASS $2"
	else F=$((F + 1)); echo "FAIL $2 ${3:-}"; fi
}
G=(-c user.name=kprobes-rust -c user.email=kprobes-rust@localhost)
# worktree REPO DIR COMMIT [BRANCH]: a fresh worktree of REPO at COMMIT.
worktree() {
	git -C "$1" worktree remove --force "$2" 2>/dev/null || rm -rf "$2"
	git -C "$1" worktree prune
	if [ -n "${4:-}" ]; then git -C "$1" worktree add -q -B "$4" "$2" "$3"
	else git -C "$1" worktree add -q --detach "$2" "$3"; fi
}
mapfile -t fixes < <(ls "$FIX"/[0-9]*.patch)
[ ${#fixes[@]} -gt 0 ] || die "no fixes in $FIX"

"$ROOT/scripts/setup.sh" >/dev/null
"$ROOT/scripts/kernel-tree.sh"
"$ROOT/scripts/build.sh" c rust
mkdir -p "$FW" "$OUT"

# 1. The series on pristine 7.3 --------------------------------------------
step "upstream-fixes: git am onto pristine $(cat "$WORK/kernel-source-version")"
worktree "$KSRC" "$FW/pristine" pristine
rm -rf "$OUT/7.3"
if git -C "$FW/pristine" "${G[@]}" am -q "${fixes[@]}" >"$FW/am.log" 2>&1; then
	rec 0 upstream-fixes/git-am-on-pristine-7.3
	git -C "$FW/pristine" format-patch -q --no-signature -o "$OUT/7.3" pristine..HEAD
else
	rec 1 upstream-fixes/git-am-on-pristine-7.3 "log: $FW/am.log"
	git -C "$FW/pristine" am --abort 2>/dev/null || :
fi
# checkpatch: no ERROR, no WARNING.  UNKNOWN_COMMIT_ID is ignored: the
# kernel tree here is Debian's source without upstream's history, so
# checkpatch cannot look up the commits a Fixes: tag names.
for pf in "$OUT"/7.3/*.patch; do
	[ -e "$pf" ] || break
	n=$(basename "$pf" .patch) log=$FW/checkpatch-${n%%-*}.txt
	(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --show-types \
		--ignore UNKNOWN_COMMIT_ID "$pf") >"$log" 2>&1 || :
	if [ "$(grep -c -E '^(ERROR|WARNING):' "$log")" = 0 ] && grep -q '^total: ' "$log"; then
		rec 0 "upstream-fixes/checkpatch-${n%%-*}"
	else
		rec 1 "upstream-fixes/checkpatch-${n%%-*}" "$(grep -E '^(ERROR|WARNING):' "$log" | head -n 3 | tr '\n' ' ')(log: $log)"
	fi
done

# 2. Which apply to 6.12 (that tree's pristine) -------------------------------
step "upstream-fixes: which fixes apply to pristine 6.12"
KSRC612=$(KP_TREE=6.12 bash -c '. "$1/scripts/lib.sh"; echo "$KSRC"' _ "$ROOT")
{ KP_TREE=6.12 "$ROOT/scripts/setup.sh" && KP_TREE=6.12 "$ROOT/scripts/kernel-tree.sh"; } >"$FW/tree-6.12.log" 2>&1 ||
	die "could not set up the 6.12 tree (log: $FW/tree-6.12.log)"
worktree "$KSRC612" "$FW/pristine-6.12" pristine
rm -rf "$OUT/6.12"
for pf in "${fixes[@]}"; do
	n=$(basename "$pf" .patch)
	if git -C "$FW/pristine-6.12" "${G[@]}" am -q "$pf" >/dev/null 2>&1; then
		info "${n%%-*} applies to 6.12"
	else
		git -C "$FW/pristine-6.12" am --abort 2>/dev/null || :
		info "${n%%-*} does not apply to 6.12"
	fi
done
git -C "$FW/pristine-6.12" format-patch -q --no-signature -o "$OUT/6.12" pristine..HEAD
info "series: $OUT/7.3/ ($(ls "$OUT/7.3" 2>/dev/null | wc -l) patches), $OUT/6.12/ ($(ls "$OUT/6.12" 2>/dev/null | wc -l))"

# 3. The c variant with the fixes -----------------------------------------------
# $FW is a work directory of its own for scripts/lib.sh (KP_WORK): its
# kernel tree is the worktree with the fixes, its out-c the fixed C kernel,
# its out-rust the Rust kernel of $WORK.
step "upstream-fixes: building the c variant with the fixes ($FW/out-c)"
worktree "$KSRC" "$FW/linux" kprobes-rust kprobes-rust-upstream-fixes
built=0
if git -C "$FW/linux" "${G[@]}" am -q "${fixes[@]}" >"$FW/am-kprobes-rust.log" 2>&1; then
	cp "$WORK/kernel-source-version" "$FW/"
	mkdir -p "$FW/out-c"
	cp "$(outdir c)/.config" "$FW/out-c/.config"
	ln -sfn "$(outdir rust)" "$FW/out-rust"
	[ ! -f "$WORK/.accel" ] || cp "$WORK/.accel" "$FW/"
	# shellcheck disable=SC2016
	if KP_WORK=$FW bash -c '. "$1/scripts/lib.sh"; kmake c olddefconfig && kmake c "$KIMAGE_TARGET" modules' \
		_ "$ROOT" >"$FW/build-c.log" 2>&1; then
		built=1
	fi
fi
rec $((1 - built)) upstream-fixes/c-builds-with-the-fixes "log: $FW/build-c.log"

# 4. The reproducers without and with the fixes --------------------------------
if [ "$built" = 1 ]; then
	step "upstream-fixes: the differential on pristine C and the Rust core"
	"$ROOT/scripts/differential.sh" >"$FW/differential-pristine.log" 2>&1 || :
	step "upstream-fixes: the differential on C with the fixes and the Rust core"
	closed=$(sed -e 's/#.*//' "$FIX/closes" | awk 'NF > 1 { $1 = ""; print }' | xargs)
	drc=0
	KP_WORK=$FW KP_DIFF_FIXED=$closed "$ROOT/scripts/differential.sh" \
		>"$FW/differential-fixed.log" 2>&1 || drc=$?
	pristine_rows=$RESULTS/differential/scenarios.txt
	fixed_rows=$FW/results/differential/scenarios.txt
	while read -r num entries; do
		case $num in '#'* | '') continue ;; esac
		for e in $entries; do
			# row FILE ENTRY: the entry's line of a compare.py scenarios.txt.
			row() { grep -E " $2( |\$)" "$1" 2>/dev/null || echo "no row in $1"; }
			ok=0; grep -qx "INTENDED $e" "$pristine_rows" 2>/dev/null || ok=1
			rec $ok "upstream-fixes/$num/$e/bug-on-pristine-c" "$(row "$pristine_rows" "$e")"
			ok=0; grep -qx "FIXED $e" "$fixed_rows" 2>/dev/null || ok=1
			rec $ok "upstream-fixes/$num/$e/fixed-c-as-rust" "$(row "$fixed_rows" "$e")"
		done
	done <"$FIX/closes"
	rec "$((drc != 0))" upstream-fixes/differential-fixed-c-agrees-with-rust \
		"$(grep -E '^FAIL|differ$' "$FW/differential-fixed.log" | head -n 5 | tr '\n' ' ')(log: $FW/differential-fixed.log)"
	tail -n 2 "$FW/differential-fixed.log" | sed 's/^/    /'
fi

echo "$P passed, $F failed"
[ "$F" = 0 ]
