# Shared by the scripts in tests/tools/ (sourced; not a test itself: no .sh).
# scratch_copy ROOT: sets repo to a copy of what the tools need (Makefile,
# chapters, tools) in a new scratch folder, removed when the test exits.
scratch_copy() {
    scratch=$(mktemp -d) || exit 1
    trap 'rm -rf "$scratch"' EXIT
    repo=$scratch/repo
    mkdir -p "$repo" && tar -C "$1" -cf - Makefile chapters tools | tar -C "$repo" -xf - || exit 1
}
# fail MESSAGE: says why on the last line and fails the test.
fail() { echo "FAIL: $*"; exit 1; }
# A test's commit and run id come from its own scratch repository and run, not
# from a copied tree's name for them (the GPU gate exports COURSE_COMMIT and
# PROFILE_COMMIT; make profiles, BENCH_RUN_ID).
unset COURSE_COMMIT PROFILE_COMMIT PROVENANCE_COMMIT BENCH_RUN_ID
# can_run_grading [patch] [python3]: a --can-run answer for a test that grades
# the solutions (and applies wrong answers with patch, reads CSV with
# python3): exits 77 saying why not, 0 where it can.
can_run_grading() {
    if [ "${1:-}" = patch ] && ! command -v patch > /dev/null; then
        echo "patch is not installed (the wrong answers are patches)"; exit 77
    fi
    [ -d solutions ] || { echo "no solutions/ here (a student release): this test grades the model answers"; exit 77; }
    if [[ " $* " == *" python3 "* ]] && ! command -v python3 > /dev/null; then
        echo "no python3: collect-grades (tools/collect_grades.py) and this test read CSV with it"; exit 77
    fi
    exit 0
}
# graded_copy ROOT: scratch_copy, plus what grading needs (common, exercises,
# solutions, tests), committed in a git repository of its own (the judges'
# stubs are read by blob id); the current folder becomes the copy.
graded_copy() {
    scratch_copy "$1"
    tar -C "$1" -cf - common exercises solutions tests | tar -C "$repo" -xf - || fail "cannot copy the course"
    cd "$repo" || exit 1
    export CLANG_CUDA= # no clang probe: the exercises graded are plain C
    git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm course || fail "git commit in the scratch copy"
}
