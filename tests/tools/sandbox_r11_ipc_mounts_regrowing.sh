#!/usr/bin/env bash
# tools/sandbox.c after round 11's attack: no System V IPC object or POSIX
# message queue in a run (a server outside could answer through one as
# through a socket); a hidden folder stays hidden at every path it is mounted
# at (a bind mount of the checkout, a container's second view of it); and a
# process tree that forks again whenever a parent dies (PR_SET_PDEATHSIG)
# is ended with the run, none left behind. The mount part needs root and
# mount(8) (else said and left out); the IPC part x86-64's seccomp filter.
set -u
if [ "${1:-}" = --can-run ]; then
    "${CC:-gcc}" --version > /dev/null 2>&1 || { echo "no C compiler"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
sandbox_scratch "$1"

cat > "$t/ipc.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
int main(void)
{
    int got = 0;
    got += shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600) >= 0 ? printf("shmget\n") : 0;
    got += shmat(0, NULL, SHM_RDONLY) != (void *)-1 ? printf("shmat\n") : 0;
    got += msgget(IPC_PRIVATE, IPC_CREAT | 0600) >= 0 ? printf("msgget\n") : 0;
    got += semget(IPC_PRIVATE, 1, IPC_CREAT | 0600) >= 0 ? printf("semget\n") : 0;
    got += mq_open("/sandbox-test", O_RDONLY | O_CREAT, 0600, NULL) >= 0 ? printf("mq_open\n") : 0;
    return got;
}
C
cat > "$t/regrow.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
static volatile sig_atomic_t orphaned;
static void on_usr1(int s) { (void)s; orphaned = 1; }
/* each process, when its parent dies, forks three, and once the tree has
 * made 300 (a count the whole tree shares) one: killed one by one, it never
 * ends, each death a birth */
int main(void)
{
    int *made = mmap(NULL, sizeof *made, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (made == MAP_FAILED || fork() != 0)
        return 0;
    if (fork() != 0) /* a parent that lives until the sandbox ends it */
        for (;;)
            pause();
    for (;;) {
        signal(SIGUSR1, on_usr1);
        prctl(PR_SET_PDEATHSIG, SIGUSR1);
        orphaned = 0;
        while (!orphaned)
            pause();
        int child = 0;
        int fan = __atomic_fetch_add(made, 1, __ATOMIC_SEQ_CST) < 300 ? 3 : 1;
        for (int k = 0; k < fan; k++)
            if (fork() == 0) {
                child = 1;
                break;
            }
        if (!child)
            for (;;)
                pause();
    }
}
C
"${CC:-gcc}" -O2 "$t/ipc.c" -o "$t/ipc" -lrt && "${CC:-gcc}" -O2 "$t/regrow.c" -o "$t/regrow" || fail "the test programs do not build"

if [ "$(uname -m)" = x86_64 ] && ! run true 2>&1 | grep -q 'no seccomp filter'; then
    "$t/ipc" > /dev/null && fail "the test's IPC calls do not work outside the sandbox either" || true
    ipcrm --all=shm --all=msg --all=sem 2> /dev/null; rm -f /dev/mqueue/sandbox-test
    out=$(run "$t/ipc") || fail "an IPC object was made or reached in the sandbox: $(tr '\n' ' ' <<< "$out")"
fi

# the regrowing tree: the sandbox ends it; nothing of it runs afterwards
run "$t/regrow"; status=$?
sleep 1
left=$(pgrep -f "$t/regrow" | wc -l)
[ "$left" -eq 0 ] || fail "$left processes of a sandboxed command outlived the sandbox (exit $status)"

if [ "$(id -u)" = 0 ] && "$t/sandbox" --check && command -v mount > /dev/null; then
    mkdir -p "$t/course/solutions" && echo secret > "$t/course/solutions/f" && mnt=$(mktemp -d) || exit 1
    if mount --bind "$t/course" "$mnt" 2> /dev/null; then
        SANDBOX_HIDE="$t/course/solutions" run cat "$mnt/solutions/f" > "$t/seen" 2> /dev/null
        grep -q secret "$t/seen" && fail "a hidden folder was read through a second mount of its checkout"
        umount "$mnt" && mount --bind "$t/course/solutions" "$mnt" || exit 1
        SANDBOX_HIDE="$t/course/solutions" run cat "$mnt/f" > "$t/seen" 2> /dev/null
        grep -q secret "$t/seen" && fail "a hidden folder was read where it alone is mounted again"
    else
        echo "left out: the second-mount check (mount --bind is not allowed here)"
    fi
else
    echo "left out: the second-mount check (it needs root, Landlock and mount)"
fi
exit 0
