# shellcheck shell=bash
# provenance.sh (sourced, not run): where a profile or log came from, written
# the way make bench writes its rows' provenance columns, so a report and the
# rows it is read beside can be matched:
#   provenance_commit   HEAD's short hash, "-dirty" when tracked files differ
#                       from it; PROFILE_COMMIT instead where the tree was
#                       copied from a commit whose history the copy lacks
#   provenance_init     once, first: exports BENCH_RUN_ID, the run id every
#                       report of this invocation (and the scripts it calls)
#                       carries: the one given (make profiles right after make
#                       bench, with its id), else a new one made as make bench
#                       makes its: UTC start time and 4 hex digits,
#                       20261126T0415Z-3f9a
#   provenance_lines    the "# commit: ..." and "# run: ..." lines of a report

provenance_commit() {
    if [ -n "${PROFILE_COMMIT:-}" ]; then echo "$PROFILE_COMMIT"; return; fi
    local hash
    hash=$(git rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
    # tracked files only: a build's untracked outputs do not make the tree dirty
    if git diff --quiet HEAD -- 2>/dev/null; then echo "$hash"; else echo "$hash-dirty"; fi
}

provenance_new_run_id() {
    printf '%s-%s\n' "$(date -u +%Y%m%dT%H%MZ)" "$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')"
}

provenance_init() {
    [ -n "${BENCH_RUN_ID:-}" ] || BENCH_RUN_ID=$(provenance_new_run_id)
    export BENCH_RUN_ID
}

provenance_lines() {
    echo "# commit: $(provenance_commit)"
    echo "# run: ${BENCH_RUN_ID:?provenance_init first}"
}
