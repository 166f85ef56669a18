#!/usr/bin/env bash
# tools/code_id.sh DIR: the fingerprint of a chapter's code, as it is now: 12
# hex of the sha256 over every file of DIR (chapters/chNN_*), of common/, and
# of the other chapters' folders DIR's files name (ch09 builds ch06's and
# ch07's kernels, ch11 ch07's). make bench stamps it on each chapter's log;
# make book marks a chapter's rows stale when it differs from the code's now.
# Files only, no git: the same files give the same id on any machine, in a
# copy without history, in a student's release.
set -u -o pipefail
dir=${1%/}
[ -d "$dir" ] || { echo "code_id: $dir is not a folder" >&2; exit 2; }
others=$(grep -rhoE '(\.\./|chapters/)ch[0-9]{2}_[a-z0-9_]+' "$dir" 2>/dev/null | sed -E 's|^(\.\./\|chapters/)|chapters/|' |
    sort -u | while read -r d; do [ -d "$d" ] && [ "$d" != "$dir" ] && echo "$d"; done)
# shellcheck disable=SC2086 # folders, one word each
find "$dir" common $others -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-12
