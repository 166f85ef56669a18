# shellcheck shell=bash
# run_provenance.sh (sourced, not run): where a profile or log came from, written
# the way make bench writes its rows' provenance columns, so a report and the
# rows it is read beside can be matched:
#   provenance_commit   HEAD's short hash, "-dirty" when tracked files outside
#                       data/ differ from it (data/ is what the tools write:
#                       results, profiles, images; a profile written before
#                       this one is not a change to the code); PROFILE_COMMIT
#                       instead where the tree was copied from a commit whose
#                       history the copy lacks; the one provenance_init fixed,
#                       once it has run
#   provenance_init     once, first: exports PROVENANCE_COMMIT (the commit, as
#                       at the start: every report of one invocation names the
#                       same) and BENCH_RUN_ID, the run id every
#                       report of this invocation (and the scripts it calls)
#                       carries: the one given (make profiles right after make
#                       bench, with its id), else a new one made as make bench
#                       makes its: UTC start time and 4 hex digits,
#                       20261126T0415Z-3f9a
#   provenance_lines    the "# commit: ..." and "# run: ..." lines of a report

provenance_commit() {
    if [ -n "${PROVENANCE_COMMIT:-}" ]; then echo "$PROVENANCE_COMMIT"; return; fi
    "$(dirname "${BASH_SOURCE[0]}")/commit.sh" # COURSE_COMMIT / PROFILE_COMMIT, else git; data/ aside
}

provenance_new_run_id() {
    printf '%s-%s\n' "$(date -u +%Y%m%dT%H%MZ)" "$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')"
}

provenance_init() {
    [ -n "${PROVENANCE_COMMIT:-}" ] || PROVENANCE_COMMIT=$(provenance_commit)
    [ -n "${BENCH_RUN_ID:-}" ] || BENCH_RUN_ID=$(provenance_new_run_id)
    export PROVENANCE_COMMIT BENCH_RUN_ID
}

provenance_lines() {
    echo "# commit: $(provenance_commit)"
    echo "# run: ${BENCH_RUN_ID:?provenance_init first}"
}
