# tools/slurm/job.bash - sourced by every tools/slurm/*.sbatch, from the
# checkout's root once the job has moved there (not a job itself: no .sbatch).
# job_setup NAME TOOL...: reads the site's settings (tools/slurm/site.env),
# loads its modules, hands CUDA_ARCH or CUDA_ARCHS to make, and stops the job
# with what to edit when a TOOL it needs (nvcc, mpicc) is still missing.

# The module command, which a batch shell may lack (it is defined by the
# login shell's profile): the usual places that define it, tried in turn.
job_module_command() {
    type module > /dev/null 2>&1 && return 0
    local f
    for f in /etc/profile.d/lmod.sh /etc/profile.d/modules.sh "${MODULESHOME:-/nonexistent}/init/bash"; do
        # shellcheck disable=SC1090 # the site's own
        [ -r "$f" ] && . "$f" > /dev/null 2>&1 && type module > /dev/null 2>&1 && return 0
    done
    return 1
}

# job_tool TOOL: where the build will find it (nvcc as the Makefile finds it), or nothing.
job_tool() {
    case $1 in
    nvcc) local n; n=$(make -s print-nvcc 2> /dev/null); [ -x "$n" ] && echo "$n" ;;
    *) command -v "$1" ;;
    esac
}

job_setup() { # NAME TOOL...
    local name=$1 t missing=()
    shift
    # shellcheck source=tools/slurm/site.env
    . tools/slurm/site.env || { echo "$name: cannot read tools/slurm/site.env (run the job from the checkout's root)" >&2; return 1; }
    if [ -n "${COURSE_MODULES:-}" ]; then
        job_module_command || { echo "$name: no module command in this job, so COURSE_MODULES ($COURSE_MODULES) cannot be loaded" >&2; return 1; }
        # shellcheck disable=SC2086 # the modules are words
        module load $COURSE_MODULES || { echo "$name: module load $COURSE_MODULES failed: fix COURSE_MODULES in tools/slurm/site.env (module avail lists the names)" >&2; return 1; }
    fi
    if [ -n "${CUDA_ARCHS:-}" ]; then export CUDA_ARCHS; unset CUDA_ARCH
    elif [ -n "${CUDA_ARCH:-}" ]; then export CUDA_ARCH; unset CUDA_ARCHS
    else unset CUDA_ARCH CUDA_ARCHS; fi
    for t in "$@"; do [ -n "$(job_tool "$t")" ] || missing+=("$t"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "$name: ${missing[*]} not found in this job (COURSE_MODULES=\"${COURSE_MODULES:-}\"): set COURSE_MODULES in tools/slurm/site.env to the modules that provide ${missing[*]} (module avail cuda; module avail openmpi)" >&2
    return 1
}

# job_help SCRIPT: its opening comment (up to its first #SBATCH line), for --help.
job_help() {
    sed -n '2,/^##*SBATCH/{/^##*SBATCH/q;s/^# \{0,1\}//;p;}' "$1"
}
