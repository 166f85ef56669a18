/* deadline.c - no rank waits for ever. MPI has no time limit of its own: a
 * rank whose peer died or hangs waits in its next collective indefinitely.
 * So every wait runs under a timer (SIGALRM); if it fires, this rank says
 * which call it was stuck in and exits non-zero, and mpirun, seeing a rank
 * exit non-zero, ends the others. */
#include "ranks.h"

#include "../../common/status.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static char message[256];

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t written = write(STDERR_FILENO, message, strlen(message)); /* async-signal-safe, unlike stdio */
    (void)written;
    _exit(EXIT_CHECK_FAIL);
}

void deadline_begin(const ranks_problem *p, const char *what)
{
    snprintf(message, sizeof message,
             "ch11: rank %d: %s did not finish within %g s (--timeout): another rank failed or hangs\n", p->rank,
             what, p->timeout);
    static int installed; /* the handler once; each wait only sets the timer */
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
        installed = 1;
    }
    long us = (long)(p->timeout * 1e6);
    struct itimerval t = {.it_value = {.tv_sec = us / 1000000, .tv_usec = us % 1000000}};
    setitimer(ITIMER_REAL, &t, NULL);
}

void deadline_end(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
}

void mpi_check(int code, const char *what, const char *file, int line)
{
    if (code == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    fprintf(stderr, "%s:%d: MPI error: %s\n  in: %s\n", file, line, text, what);
    MPI_Abort(MPI_COMM_WORLD, EXIT_CHECK_FAIL);
}
