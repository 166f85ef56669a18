# Shared by the scripts in tests/tools/ (sourced; not a test itself: no .sh).
# scratch_copy ROOT: sets repo to a copy of what the tools need (Makefile,
# chapters, tools) in a new scratch folder, removed when the test exits.
scratch_copy() {
    scratch=$(mktemp -d) || exit 1
    trap 'rm -rf "$scratch"' EXIT
    repo=$scratch/repo
    mkdir -p "$repo" && tar -C "$1" -cf - Makefile chapters tools | tar -C "$repo" -xf - || exit 1
}
# fixture_copy ROOT: scratch_copy ROOT, then into the copy, with fixtures set
# to ROOT's tests/fixtures (the hand-made results and profiles).
fixture_copy() {
    fixtures=$1/tests/fixtures
    scratch_copy "$1"
    cd "$repo" || exit 1
}
# can_run_book "$@": a test of make book's generator answers --can-run
# (tools/book.py needs python3: exits 77 saying so, else 0); other arguments pass.
can_run_book() {
    [ "${1:-}" = --can-run ] || return 0
    command -v python3 > /dev/null || { echo "no python3: make book's generator, tools/book.py, needs it"; exit 77; }
    exit 0
}
# book_copy ROOT: scratch_copy ROOT with common/ too (the code fingerprints
# make book marks stale rows by read it), then into the copy.
book_copy() {
    scratch_copy "$1"
    cp -R "$1/common" "$repo/" || exit 1
    cd "$repo" || exit 1
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
# can_run_python3 WHY: a --can-run answer for a test that needs python3: exits
# 77 saying "no python3: WHY", 0 where it can.
can_run_python3() {
    command -v python3 > /dev/null || { echo "no python3: $1"; exit 77; }
    exit 0
}
# can_run_tmpfs WHY [git]: a --can-run answer for a test that mounts a tmpfs as
# root (WHY: what for), and runs git: exits 77 saying why not, 0 where it can.
can_run_tmpfs() {
    if [ "${2:-}" = git ]; then command -v git > /dev/null || { echo "no git here"; exit 77; }; fi
    [ "$(id -u)" = 0 ] || { echo "needs root ($1)"; exit 77; }
    local t
    t=$(mktemp -d) || exit 77
    mount -t tmpfs -o size=64k tmpfs "$t" 2> /dev/null || { rmdir "$t"; echo "cannot mount a tmpfs here"; exit 77; }
    umount "$t"; rmdir "$t"
    exit 0
}
# can_run_release: a --can-run answer for a test that makes a student release
# (of this checkout's tracked files, solutions/ left out): exits 77 saying why
# not, 0 where it can.
can_run_release() {
    git rev-parse --verify -q HEAD > /dev/null || { echo "not a git checkout with a commit: a release is made from its tracked files"; exit 77; }
    [ -d solutions ] || { echo "no solutions/ here (a student release): nothing to make a release of"; exit 77; }
    exit 0
}
# release_scratch ROOT: sets root to ROOT's physical path and scratch to a new
# folder removed when the test exits, with no make flags and no clang probe.
release_scratch() {
    root=$(cd "$1" && pwd -P) || exit 1
    scratch=$(mktemp -d) || exit 1
    trap 'rm -rf "$scratch"' EXIT
    export MAKEFLAGS= CLANG_CUDA= # not the flags of a make this runs under; no clang probe
}
# tool_copy ROOT: scratch_copy, and the current folder becomes the copy (no
# clang probe: the tools tested build no CUDA).
tool_copy() {
    scratch_copy "$1"
    cd "$repo" || exit 1
    export CLANG_CUDA=
}
# registry_copy ROOT: tool_copy, with the registry's variables (MACHINE,
# COURSE_EXERCISES, ...) read from make -s print-registry.
registry_copy() {
    tool_copy "$1"
    eval "$(make -s print-registry)" || fail "cannot read the registry"
}
# stand_in_grading [COMMAND]: in the copy, a judge_prepare that builds nothing
# (but runs COMMAND) and a tools/grade.sh that is the bash script on stdin.
stand_in_grading() {
    mv tools/judge.sh tools/judge_real.sh &&
        printf '%s\n' '. "$(dirname "${BASH_SOURCE[0]}")/judge_real.sh"' "judge_prepare() { judge_registry;${1:+ $1} }" > tools/judge.sh &&
        { echo '#!/usr/bin/env bash'; cat; } > tools/grade.sh && chmod +x tools/grade.sh || exit 1
}
# grade_file FILE STUDENT [EXERCISE VERDICT]...: a grade file (make grade's
# CSV) of STUDENT with a row per EXERCISE and VERDICT, no messages, no answer.
grade_file() {
    local file=$1 student=$2
    shift 2
    {
        echo student,commit,machine,gpu,date,exercise,verdict,messages,answer
        while [ $# -ge 2 ]; do
            printf '"%s","c","m","none","2026-11-20T10:00:00Z","%s","%s","",""\n' "$student" "$1" "$2"
            shift 2
        done
    } > "$file" || exit 1
}
# stand_in_ch04: ./ch04, a stand-in chapter of one stage (loop) that takes
# --csv FILE and --images DIR and starts FILE with the results' header where
# there is none, then runs the bash lines on stdin.
stand_in_ch04() {
    {
        cat <<'SH'
#!/usr/bin/env bash
[ "$1" = --list-stages ] && { printf 'loop\tgpu\tk\t-\t-\tthe loop\n'; exit 0; }
csv= images=
while [ $# -gt 0 ]; do case $1 in --csv) csv=$2; shift ;; --images) images=$2; shift ;; esac; shift; done
[ -f "$csv" ] || echo "chapter,stage,workload,threads,median_ms,value,unit,check,device,date" > "$csv"
SH
        cat
    } > ch04 && chmod +x ch04 || exit 1
}
# passing_grading [COMMAND]: stand_in_grading, its tools/grade.sh the lines on
# stdin, then a passed ch01 for STUDENT in GRADE_OUT ("1 passed, 0 failed").
passing_grading() {
    stand_in_grading "$@"
    cat >> tools/grade.sh <<'SH' || exit 1
printf 'student,commit,machine,gpu,date,exercise,verdict,messages,answer\n"%s","c","m","none","2026-11-20T10:00:00Z","ch01","passed","",""\n' "$STUDENT" > "$GRADE_OUT"
echo "1 passed, 0 failed"
SH
}
# sandbox_scratch ROOT: for a test of tools/sandbox.c: cd ROOT, a scratch
# folder t (with t/w, the run's one writable folder), the sandbox built in
# it, run CMD... (the command in the sandbox, 60 s at most), and on exit:
# mnt (a test's mount, if it set one) unmounted, every process left under
# t/ stopped and then killed (a tree that forks as its parent dies regrows
# if killed one by one), t removed.
sandbox_scratch() {
    cd "$1" || exit 1
    t=$(mktemp -d) && mkdir "$t/w" || exit 1
    mnt=''
    trap sandbox_cleanup EXIT
    "${CC:-gcc}" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 tools/sandbox.c -o "$t/sandbox" || fail "the sandbox does not build"
    run() { "$t/sandbox" --write "$t/w" --timeout 60 -- "$@"; }
}
sandbox_cleanup() {
    [ -z "$mnt" ] || { umount "$mnt" 2> /dev/null; rmdir "$mnt" 2> /dev/null; }
    local p x
    for _ in 1 2 3 4 5 6; do
        p=$(pgrep -f "$t/") || break
        for x in $p; do kill -STOP "$x" 2> /dev/null; done
        for x in $p; do kill -KILL "$x" 2> /dev/null; done
        sleep 0.2
    done
    rm -rf "$t"
}
