#!/usr/bin/env bash
# Prints the commit this tree is, as every tool records it: the short hash,
# with -dirty when tracked files outside data/ differ from it (data/ is what
# the tools write: make profiles after make bench measures the same code). COURSE_COMMIT (or the older
# PROFILE_COMMIT) names it instead where the tree was copied from a commit
# whose history the copy lacks (a GPU machine sent the working tree): the
# -dirty mark is still this tree's own. "unknown" without git.
set -u
commit=${COURSE_COMMIT:-${PROFILE_COMMIT:-}}
if [ -z "$commit" ]; then
    commit=$(git rev-parse --short=7 HEAD 2>/dev/null) || { echo unknown; exit 0; }
fi
[ -z "$(git status --porcelain --untracked-files=no -- . ':(exclude)data' 2>/dev/null)" ] || commit=${commit%-dirty}-dirty
echo "$commit"
