/* ex_ch11_driver.c - the MPI program exercise ch11 is graded by (built with
 * mpicc by tests/test_ex_ch11.c, run under mpirun at P = 1 .. 4).
 *
 * n = 1025 bodies (ch07's fixed-seed state), split as ch11 splits them; the
 * student's ex_ring_forces computes the own bodies' forces from every block.
 * The driver sees every MPI call the student makes through MPI's profiling
 * interface (it defines MPI_Isend and friends, logs them, and calls PMPI_*),
 * and every ex_ring_compute, and checks, on every rank:
 *   - each round computes the block it should hold, whole: rank (r - s) mod
 *     P's bodies, by content (what was transferred, not what was called);
 *   - P computes; before the compute of each round but the last, a receive
 *     and a send were posted with no wait between them and that compute, and
 *     the receive's buffer is not the block being computed;
 *   - nothing posted in the last round (it passes nothing on);
 * and on rank 0 the gathered forces against ch07's double reference, within
 * ch07's bound. Exit 0 only if every rank passed; each failure says why.
 * The log sees only calls named MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall:
 * the test first compiles the answer alone (EX_CH11_ANSWER_ONLY, below) and
 * rejects any other MPI call it references, so nothing (a blocking call, one
 * made through PMPI_* directly) moves a block behind the log's back. */
#include <mpi.h>

#include "forces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int rank, ranks;
    const int *count;
    body *block[2];
    MPI_Datatype body_type;
    const body *own; /* the driver's: the own bodies and their forces */
    vec3 *a;
} ex_ring;

#ifdef EX_CH11_ANSWER_ONLY
/* The answer alone, for the test's look at the calls it makes: the object's
 * undefined symbols are exactly the functions the answer references. */
void ex_ring_compute(ex_ring *g, const body *block, int count, int add);
#include "ring_step.h"
void ex_ch11_answer(ex_ring *g);
void ex_ch11_answer(ex_ring *g) { ex_ring_forces(g); }
#else

enum { EV_SEND, EV_RECV, EV_WAIT, EV_COMPUTE };
static struct {
    int kind;
    const void *buf;
    const char *call;
} events[4096];
static int event_count, logging;
static const body *all_bodies; /* every rank's bodies, rank k's from first[k]: what each block must hold */
static const int *block_first;
static char wrong_block[160]; /* the first round that computed a block that is not the one it holds */

static void log_event(int kind, const void *buf, const char *call)
{
    if (logging && event_count < 4096)
        events[event_count++] = (typeof(events[0])){kind, buf, call};
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    log_event(EV_SEND, buf, "MPI_Isend");
    return PMPI_Isend(buf, count, t, dest, tag, comm, req);
}
int MPI_Irecv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    log_event(EV_RECV, buf, "MPI_Irecv");
    return PMPI_Irecv(buf, count, t, source, tag, comm, req);
}
int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    log_event(EV_WAIT, NULL, "MPI_Wait");
    return PMPI_Wait(req, status);
}
int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    log_event(EV_WAIT, NULL, "MPI_Waitall");
    return PMPI_Waitall(count, reqs, statuses);
}

/* Round s computes rank k = (r - s) mod P's block: its bodies, all of them,
 * exactly, or a block was lost, cut short or mixed on the way. */
static void ex_ring_compute(ex_ring *g, const body *block, int count, int add)
{
    static int s; /* this call's round */
    int P = g->ranks, k = ((g->rank - s) % P + P) % P;
    if (!wrong_block[0] && s < P &&
        (count != g->count[k] || memcmp(block, all_bodies + block_first[k], (size_t)count * sizeof(body)) != 0))
        snprintf(wrong_block, sizeof wrong_block, "round %d computed %d bodies that are not rank %d's block "
                 "(%d bodies): the block it holds was not passed on whole", s, count, k, g->count[k]);
    s++;
    log_event(EV_COMPUTE, block, "compute");
    cpu_simd_block_forces(g->own, g->count[g->rank], block, count, g->a, add);
}

#include "ring_step.h"

/* The overlap, from the log: NULL if it holds, else what went wrong. */
static const char *overlap_problem(int P)
{
    static char why[256];
    int computes = 0, last_recv = -1, last_send = -1, waited = 0;
    const void *recv_buf = NULL;
    for (int e = 0; e < event_count; e++) {
        switch (events[e].kind) {
        case EV_RECV:
        case EV_SEND:
            if (computes >= P - 1) {
                snprintf(why, sizeof why, "round %d (the last): %s posted, but the last round passes nothing on: "
                         "every rank already holds every block", P - 1, events[e].call);
                return why;
            }
            if (events[e].kind == EV_RECV)
                last_recv = e, recv_buf = events[e].buf, waited = 0;
            else
                last_send = e;
            break;
        case EV_WAIT:
            waited = 1;
            break;
        case EV_COMPUTE:
            if (computes < P - 1) {
                if (last_recv < 0 || last_send < 0) {
                    snprintf(why, sizeof why, "round %d: no MPI_Irecv and MPI_Isend posted before its compute",
                             computes);
                    return why;
                }
                if (waited) {
                    snprintf(why, sizeof why, "round %d: the transfer was waited for before the compute: it "
                             "does not overlap it", computes);
                    return why;
                }
                if (recv_buf == events[e].buf) {
                    snprintf(why, sizeof why, "round %d: the next block is received into the block being "
                             "computed on", computes);
                    return why;
                }
            }
            computes++, last_recv = last_send = -1;
            break;
        }
    }
    if (computes != P) {
        snprintf(why, sizeof why, "%d computes for %d blocks", computes, P);
        return why;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    enum { N = 1025 };
    MPI_Init(&argc, &argv);
    ex_ring g = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.ranks);
    int P = g.ranks, *count = malloc(2 * (size_t)P * sizeof(int));
    int *first = count + P;
    block_first = first;
    for (int r = 0, at = 0; r < P; r++)
        count[r] = N / P + (r < N % P), first[r] = at, at += count[r];
    static body all[N];
    static vec3 v[N], a_all[N];
    nbody_init(all, v, N);
    all_bodies = all;
    int c = count[g.rank];
    g.count = count;
    g.own = all + first[g.rank];
    g.a = malloc((size_t)(c + 1) * sizeof(vec3));
    MPI_Type_contiguous(4, MPI_FLOAT, &g.body_type);
    MPI_Type_commit(&g.body_type);
    for (int k = 0; k < 2; k++)
        g.block[k] = calloc((size_t)count[0] + 1, sizeof(body));
    memcpy(g.block[0], g.own, (size_t)c * sizeof(body));
    logging = 1;
    ex_ring_forces(&g);
    logging = 0;
    const char *why = overlap_problem(P);
    if (!why && wrong_block[0])
        why = wrong_block;
    if (why)
        fprintf(stderr, "rank %d: %s\n", g.rank, why);
    int *count3 = malloc(2 * (size_t)P * sizeof(int)), *first3 = count3 + P;
    for (int r = 0; r < P; r++)
        count3[r] = 3 * count[r], first3[r] = 3 * first[r];
    MPI_Gatherv(g.a, 3 * c, MPI_FLOAT, a_all, count3, first3, MPI_FLOAT, 0, MPI_COMM_WORLD);
    int bad = why != NULL, any_bad = 0;
    if (g.rank == 0) {
        static reference ref;
        make_reference(&ref, all, N);
        double err = force_error(&ref, a_all);
        free_reference(&ref);
        if (!(err <= error_bound(N))) {
            fprintf(stderr, "the forces: error %.3g against ch07's reference, bound %.3g: a block missed, counted "
                    "twice, or the wrong size\n", err, error_bound(N));
            bad = 1;
        }
    }
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (g.rank == 0 && !any_bad)
        printf("ring at P = %d: forces within bound, every round's transfer overlapped its compute\n", P);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
#endif
