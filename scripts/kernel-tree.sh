#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel tree in $KSRC:
#   1. unpack the pinned Debian linux-source tarball of KP_TREE (once) and commit
#      it as the tag `pristine` in a git repository of its own;
#   2. build the project's patch series (scripts/series/) as commits on top
#      of `pristine`, on branch `kprobes-rust`, and check it out.
# Step 2 uses a private index, so it never touches the working tree unless
# the series changed, and then `git checkout` rewrites only the files that
# differ: the O= builds stay incremental.  Re-running is always safe.
. "$(dirname "$0")/lib.sh"

SERIES=$ROOT/scripts/series
srcver=$(cat "$WORK/kernel-source-version" 2>/dev/null) ||
	die "kernel source version unknown" "run scripts/setup.sh (make setup) first"

# One run at a time: make test builds the config pairs' C kernels in the
# background while the foreground builds others, and each build runs this
# script (seen: "Unable to create .../kp-series-index.lock: File exists",
# then "series: ... does not apply", failing that background build).
exec 9>"$WORK/.kernel-tree.lock"
flock 9

g() { git -C "$KSRC" "$@"; }
# Fixed identity and dates: the same inputs give the same commit ids, so an
# unchanged series is detected by comparing one hash.
export GIT_AUTHOR_NAME="kprobes-rust" GIT_AUTHOR_EMAIL="kprobes-rust@localhost"
export GIT_COMMITTER_NAME="kprobes-rust" GIT_COMMITTER_EMAIL="kprobes-rust@localhost"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

if [ "$(cat "$KSRC/.git/kp-source-version" 2>/dev/null)" != "$srcver" ]; then
	step "tree: unpacking $KSRC_TARBALL ($srcver) into $KSRC"
	rm -rf "$KSRC" "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -xf "$KSRC_TARBALL" -C "$KSRC.tmp" --strip-components=1 ||
		die "unpacking $KSRC_TARBALL failed" "re-run scripts/setup.sh; check free disk space"
	step "tree: committing the pristine tree (tag 'pristine')"
	git -C "$KSRC.tmp" init -q -b pristine-base
	git -C "$KSRC.tmp" config core.autocrlf false
	# No background gc: committing ~90k loose objects triggers
	# `git gc --auto`, which then holds HEAD.lock while this script moves
	# the directory and checks out the series (seen: "unable to update
	# HEAD" on a fresh clone).
	git -C "$KSRC.tmp" config gc.auto 0
	git -C "$KSRC.tmp" config maintenance.auto false
	git -C "$KSRC.tmp" add -A -f  # Debian's .gitignore ignores the top level
	git -C "$KSRC.tmp" commit -q -m "Linux $srcver (Debian $KSRC_PKG, pristine)"
	git -C "$KSRC.tmp" tag pristine
	echo "$srcver" >"$KSRC.tmp/.git/kp-source-version"
	mv "$KSRC.tmp" "$KSRC"
fi

# Trees unpacked by older versions of this script: no background gc either.
g config gc.auto 0
g config maintenance.auto false

# --- build the series with a private index ---------------------------------
idx=$KSRC/.git/kp-series-index
export GIT_INDEX_FILE=$idx
g read-tree pristine
parent=$(g rev-parse pristine)

# Files of the project, as they are in its working tree (tracked and
# untracked-but-not-ignored), below the given directories.
# (The project's own index: GIT_INDEX_FILE, exported above for the kernel
# tree's series index, would list the kernel's files, arch/ among them.)
project_files() {
	env -u GIT_INDEX_FILE git -C "$ROOT" ls-files --cached --others --exclude-standard -- "$@" |
		while read -r f; do [ -f "$ROOT/$f" ] && echo "$f"; done | sort -u
}

# stage_file FILE DST: stage FILE (any path) at DST, with FILE's mode.
stage_file() {
	local mode=100644 blob
	[ -x "$1" ] && mode=100755
	blob=$(g hash-object -w --no-filters "$1")
	g update-index --add --cacheinfo "$mode,$blob,$2"
}

# add SRC DST: stage one project file at DST in the series index.
add() {
	stage_file "$ROOT/$1" "$2"
}

# apply [-R] DIFF: stage an edit (-R: the edit reversed) in the series
# index.  The steps are sourced in a `||` list, where `set -e` does not
# stop at a failed command, so a diff that does not apply dies here.
# A tree's own version of a diff (scripts/series/TREE/NAME) is applied
# in place of the shared one.
apply() {
	local how= last=${*: -1} mine
	[ "$1" != -R ] || how=" in reverse"
	mine=$SERIES/${TREE_DIR:-.}/${last##*/}
	if [ -n "$TREE_DIR" ] && [ "$last" = "$SERIES/${last##*/}" ] && [ -f "$mine" ]; then
		set -- "${@:1:$#-1}" "$mine"
	fi
	g apply --cached "$@" ||
		die "series: ${*: -1} does not apply$how" \
		    "regenerate it against the project's files (scripts/series/README)"
}

# --- the core's files -------------------------------------------------------
# The project's kernel-side files land in kernel/kprobes_rust/, a few per
# patch: `core FILE...` (paths relative to the project) stages them, and
# with them the crate root and Kbuild as far as the files staged so far
# need them (scripts/series/core-subset.py).  A later patch that changes
# core files (NNNN-name.core.diff, e.g. the expedited grace period option)
# applies its diff, so `core` stages the files with those diffs reversed:
# from $corebase, the project's files with every *.core.diff reversed.
# A tree's series has that tree's files of rust-core/tree/ and
# c-shim/tree_*.c only.
core_files=$(project_files Kbuild rust-core c-shim arch |
	grep -v -e '/Cargo\.' -e '^rust-core/host/' -e '^rust-core/tests/' |
	grep -v -E "^(rust-core/tree/|c-shim/tree_)" || true
	project_files rust-core/tree c-shim | grep -E "^(rust-core/tree/|c-shim/tree_)$KTREE_ID\.")
corebase=$(mktemp -d)
trap 'rm -rf "$corebase"' EXIT
for f in $core_files; do
	mkdir -p "$(dirname "$corebase/kernel/kprobes_rust/$f")"
	cp -p "$ROOT/$f" "$corebase/kernel/kprobes_rust/$f"
done
for d in $(ls -r "$SERIES"/*.core.diff 2>/dev/null); do
	(cd "$corebase" && git apply -R "$d") ||
		die "series: ${d##*/} does not apply in reverse to the project's files" \
		    "regenerate it against the project's files (scripts/series/README)"
done

core() {
	local f staged what
	for f in "$@"; do
		grep -qxF "$f" <<<"$core_files" ||
			die "series: core file $f is not a kernel-side file of the project"
		stage_file "$corebase/kernel/kprobes_rust/$f" "kernel/kprobes_rust/$f"
	done
	# the files staged so far, and the crate root and Kbuild themselves
	staged="$(g ls-files --cached -- kernel/kprobes_rust/ | sed 's|^kernel/kprobes_rust/||')
rust-core/kprobes_core.rs Kbuild"
	for what in root:rust-core/kprobes_core.rs kbuild:Kbuild; do
		f=${what#*:}
		KP_CORE_FILES="$core_files" python3 "$SERIES/core-subset.py" "${what%%:*}" \
			"$corebase/kernel/kprobes_rust/$f" $staged >"$corebase/subset" ||
			die "series: core-subset.py failed on $f"
		stage_file "$corebase/subset" "kernel/kprobes_rust/$f"
	done
}

commit() { # MSGFILE
	local tree
	tree=$(g write-tree)
	parent=$(g commit-tree "$tree" -p "$parent" -F "$1")
}

# Each series entry is scripts/series/NNNN-name.{msg,sh}: the .sh part is
# sourced and stages its changes with `add` (project files) or
# `git apply --cached` (edits of upstream files); the .msg is the commit
# message.  See scripts/series/README.
# A tree's own message (scripts/series/TREE/NNNN-name.msg) replaces the
# shared one.
for msg in "$SERIES"/[0-9]*.msg; do
	. "${msg%.msg}.sh" || die "series step ${msg##*/} failed"
	if [ -n "$TREE_DIR" ] && [ -f "$SERIES/$TREE_DIR/${msg##*/}" ]; then
		commit "$SERIES/$TREE_DIR/${msg##*/}"
	else
		commit "$msg"
	fi
done
# The whole series has every kernel-side file of the project, as it is.
for f in $core_files; do
	[ "$(g rev-parse -q --verify ":kernel/kprobes_rust/$f")" = "$(g hash-object --no-filters "$ROOT/$f")" ] ||
		die "series: kernel/kprobes_rust/$f at the end of the series differs from the project's $f" \
		    "stage it with 'core' in a step of scripts/series/, or regenerate the *.core.diff that touches it"
done
extra=$(g ls-files --cached -- kernel/kprobes_rust/ | sed 's|^kernel/kprobes_rust/||' |
	grep -vxF "$core_files" || true)
[ -z "$extra" ] || die "series: kernel/kprobes_rust/ has files the project does not: $extra"
unset GIT_INDEX_FILE

head=$(g rev-parse -q --verify refs/heads/kprobes-rust || true)
if [ "$head" = "$parent" ] && [ "$(g rev-parse HEAD)" = "$parent" ]; then
	step "tree: series unchanged ($(g rev-list --count pristine..HEAD) patches on pristine)"
else
	if ! g diff --quiet HEAD -- || ! g diff --cached --quiet HEAD --; then
		die "the kernel tree $KSRC has local edits" \
		    "edit the project files instead (they are copied in); 'git -C $KSRC stash' or 'make tree-reset' drops the edits"
	fi
	g checkout -q -B kprobes-rust "$parent"
	step "tree: applied series ($(g rev-list --count pristine..HEAD) patches on pristine):"
	g log --format='    %h %s' pristine..HEAD
fi
