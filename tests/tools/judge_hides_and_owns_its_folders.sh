#!/usr/bin/env bash
# tools/judge.sh's folders (round 10 of the attacks): what a grading hides
# (judge_hide) includes a build kept outside the checkout (BUILD=/abs/path:
# its tests/, which link the model answers, and wrong/), and a grading refuses
# a folder of gradings ($TMPDIR/course-judge-UID) that is a link or was made
# by another user (who could swap a grading's folders for links), saying so.
set -u
[ "${1:-}" != --can-run ] || exit 0
. "$(dirname "$0")/lib.bash"
cd "$1" || exit 1
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
mkdir -p "$t/abs/tests" "$t/abs/wrong" "$t/abs/common" || exit 1
hidden=$(BUILD=$t/abs bash -c '. tools/judge.sh && judge_hide "" && printf "%s\n" "$SANDBOX_HIDE"') ||
    fail "judge_hide did not run: $hidden"
grep -qx "$t/abs/tests" <<<"$hidden" && grep -qx "$t/abs/wrong" <<<"$hidden" ||
    fail "a build outside the checkout (BUILD=$t/abs) is not hidden: $hidden"
grep -qx "$(pwd -P)/solutions" <<<"$hidden" || fail "solutions/ not hidden: $hidden"
# The folder of gradings: a link, refused.
mkdir -p "$t/tmp" "$t/elsewhere" && ln -s "$t/elsewhere" "$t/tmp/course-judge-$(id -u)" || exit 1
said=$(TMPDIR=$t/tmp bash -c '. tools/judge.sh && judge_run ch01 exercises/ch01 >/dev/null 2>&1; echo "$stage: $why"' 2>&1)
grep -q "is not yours (another user made it, or it is a link)" <<<"$said" || fail "a link as the folder of gradings was taken: $said"
[ -z "$(ls -A "$t/elsewhere")" ] || fail "a grading wrote through the link: $(ls "$t/elsewhere")"
echo "judge: a build outside the checkout hidden; a folder of gradings that is a link refused"
