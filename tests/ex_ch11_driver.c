/* ex_ch11_driver.c - the MPI program exercise ch11 is graded by (built with
 * mpicc by tests/test_ex_ch11.c, run under mpirun at P = 1 .. 4).
 *
 * n = 1025 bodies (ch07's fixed-seed state), split as ch11 splits them; the
 * student's ex_ring_forces computes the own bodies' forces from every block.
 * The driver sees every MPI call the student makes through MPI's profiling
 * interface (it defines MPI_Isend and friends, records them, and calls
 * PMPI_*), and every ex_ring_compute. Overlap is judged from what was
 * transferred and when, not from which calls were made: for each request it
 * records the round it was posted in (before or after that round's compute),
 * the buffer, the bytes it carries (a send: at posting; a receive: what came,
 * at its wait) and which rank's block those bytes are, whole; and the round
 * it completed in. It checks, on every rank:
 *   - each round computes the block it should hold, whole, by content;
 *   - for every round but the last, the held block went to the next holder
 *     and the next block came in, whole, each by a request posted before the
 *     round's compute and completed after it (so it was in flight meanwhile),
 *     and no receive in flight wrote into the block being computed;
 *   - nothing posted in the last round (it passes nothing on); every request
 *     waited for; no MPI error (a receive too short for its block says so,
 *     in words, instead of Open MPI's abort).
 * The ring may run rightwards (the exercise's: round s holds rank
 * (r - s) mod P's block) or leftwards ((r + s) mod P): both are the ring.
 * Rank 0 gathers each rank's verdict and writes them, with the gathered
 * forces, to the files `report` and `forces` in its working folder; the test
 * (the judge) reads both and checks the forces itself against ch07's double
 * reference: the answer's process never decides the verdict on its own.
 * The log sees only calls named MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall:
 * the test first compiles the answer alone (EX_CH11_ANSWER_ONLY, below) and
 * rejects any call it references but those and a few of the C library's, so
 * nothing (a blocking call, one made through PMPI_* directly, a file written)
 * happens behind the log's back. */
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

enum { N = 1025, MAX_REQUESTS = 512, MAX_ROUNDS = 64, WHY = 400 };
enum { EV_SEND, EV_RECV };
typedef struct {
    int kind;
    MPI_Request handle; /* as PMPI gave it back: found again at the wait */
    const char *buf;
    MPI_Datatype type;
    int count, peer;
    long bytes;  /* a send: what it carries; a receive: the room it has, then what came */
    int block;   /* the rank whose block those bytes are, whole (send: at posting; receive: at completion), or -1 */
    int posted;  /* computes made before it was posted: posted in round `posted`, before its compute */
    int done;    /* computes made before it completed; -1: never waited for */
    int error;   /* MPI's error at its completion */
} request_log;
static request_log reqs[MAX_REQUESTS];
static int req_count, req_overflow, logging, computes, direction = 1; /* 1: rightwards, -1: leftwards */
static const body *all_bodies; /* every rank's bodies, rank k's from first[k]: what each block must hold */
static const int *block_first, *block_count;
static int my_rank, my_ranks;
static const char *compute_buf[MAX_ROUNDS];
static long compute_bytes[MAX_ROUNDS];
static char wrong_block[WHY]; /* the first round that computed a block that is not the one it holds */

static int ring_mod(int a, int P) { return ((a % P) + P) % P; }
/* The rank whose block rank r holds in round s. */
static int holder_block(int r, int s) { return ring_mod(r - direction * s, my_ranks); }

/* The rank whose whole block the bytes at p are, or -1. */
static int which_block(const void *p, long bytes)
{
    for (int k = 0; p && k < my_ranks; k++)
        if (bytes == (long)block_count[k] * (long)sizeof(body) &&
            memcmp(p, all_bodies + block_first[k], (size_t)bytes) == 0)
            return k;
    return -1;
}

static long type_bytes(MPI_Datatype t, int count)
{
    int size = 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS)
        return -1;
    return (long)size * count;
}

static void log_request(int kind, const void *buf, int count, MPI_Datatype t, int peer, MPI_Request *req, int rc)
{
    if (!logging)
        return;
    if (req_count == MAX_REQUESTS) {
        req_overflow = 1;
        return;
    }
    request_log *q = &reqs[req_count++];
    *q = (request_log){kind, *req, (const char *)buf, t, count, peer, type_bytes(t, count), -1, computes, -1, 0};
    if (kind == EV_SEND)
        q->block = which_block(buf, q->bytes);
    if (rc != MPI_SUCCESS) /* it failed as it was posted: nothing to wait for */
        q->done = computes, q->error = rc, q->handle = MPI_REQUEST_NULL;
}

/* The request whose handle was h completed (status st, error err). */
static void log_completion(MPI_Request h, const MPI_Status *st, int err)
{
    for (int k = req_count - 1; logging && h != MPI_REQUEST_NULL && k >= 0; k--) {
        request_log *q = &reqs[k];
        if (q->handle != h || q->done >= 0)
            continue;
        q->done = computes, q->error = err;
        if (q->kind == EV_RECV && err == MPI_SUCCESS) {
            int n = 0;
            q->bytes = PMPI_Get_count(st, q->type, &n) == MPI_SUCCESS && n != MPI_UNDEFINED ? type_bytes(q->type, n) : -1;
            q->block = which_block(q->buf, q->bytes);
        }
        return;
    }
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    int rc = PMPI_Isend(buf, count, t, dest, tag, comm, req);
    log_request(EV_SEND, buf, count, t, dest, req, rc);
    return rc;
}
int MPI_Irecv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    int rc = PMPI_Irecv(buf, count, t, source, tag, comm, req);
    log_request(EV_RECV, buf, count, t, source, req, rc);
    return rc;
}
int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Request h = *req;
    MPI_Status st;
    int rc = PMPI_Wait(req, &st);
    log_completion(h, &st, rc);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return rc;
}
int MPI_Waitall(int count, MPI_Request reqs_[], MPI_Status statuses[])
{
    MPI_Request *h = malloc(((size_t)count + 1) * sizeof *h);
    MPI_Status *st = malloc(((size_t)count + 1) * sizeof *st);
    if (!h || !st)
        abort();
    memcpy(h, reqs_, (size_t)count * sizeof *h);
    int rc = PMPI_Waitall(count, reqs_, st);
    for (int k = 0; k < count; k++)
        log_completion(h[k], &st[k], rc == MPI_ERR_IN_STATUS ? st[k].MPI_ERROR : rc);
    if (statuses != MPI_STATUSES_IGNORE)
        memcpy(statuses, st, (size_t)count * sizeof *st);
    free(h);
    free(st);
    return rc;
}

/* Round s computes the block it holds: its bodies, all of them, exactly, or
 * a block was lost, cut short or mixed on the way. Round 1 tells which way
 * the ring runs (at P > 2; at P <= 2 both ways are one). */
static void ex_ring_compute(ex_ring *g, const body *block, int count, int add)
{
    int P = g->ranks, s = computes;
    if (s == 1 && P > 2 && which_block(block, (long)count * (long)sizeof(body)) == ring_mod(g->rank + 1, P))
        direction = -1;
    int k = holder_block(g->rank, s);
    if (!wrong_block[0] && s < P &&
        (count != g->count[k] || memcmp(block, all_bodies + block_first[k], (size_t)count * sizeof(body)) != 0))
        snprintf(wrong_block, sizeof wrong_block, "round %d computed %d bodies that are not rank %d's block "
                 "(%d bodies), the one a ring brings by then: the block it held was not passed on whole", s, count,
                 k, g->count[k]);
    if (s < MAX_ROUNDS)
        compute_buf[s] = (const char *)block, compute_bytes[s] = (long)count * (long)sizeof(body);
    cpu_simd_block_forces(g->own, g->count[g->rank], block, count, g->a, add);
    computes++;
}

#include "ring_step.h"

static const char *call_name(const request_log *q) { return q->kind == EV_SEND ? "MPI_Isend" : "MPI_Irecv"; }

/* An MPI error at a request's completion, in words, or NULL. */
static const char *error_problem(char *why)
{
    for (int k = 0; k < req_count; k++) {
        const request_log *q = &reqs[k];
        char text[MPI_MAX_ERROR_STRING] = "";
        int cls = 0, n = 0;
        if (q->error == MPI_SUCCESS)
            continue;
        if (PMPI_Error_class(q->error, &cls) == MPI_SUCCESS && cls == MPI_ERR_TRUNCATE)
            snprintf(why, WHY, "round %d: an MPI_Irecv of %d bodies (from rank %d) was too short for the block "
                     "that came (MPI_ERR_TRUNCATE): receive the next block with its own owner's count, "
                     "g->count[owner], not another block's", q->posted, q->count, q->peer);
        else {
            PMPI_Error_string(q->error, text, &n);
            snprintf(why, WHY, "round %d: %s (to or from rank %d) failed: %s", q->posted, call_name(q), q->peer,
                     text);
        }
        return why;
    }
    return NULL;
}

/* A request posted in the last round, or never waited for, or NULL. */
static const char *leftover_problem(int P, char *why)
{
    for (int k = 0; k < req_count; k++) {
        const request_log *q = &reqs[k];
        if (q->posted >= P - 1) {
            snprintf(why, WHY, "round %d (the last): %s posted, but the last round passes nothing on: every rank "
                     "already holds every block", P - 1, call_name(q));
            return why;
        }
        if (q->done < 0) {
            snprintf(why, WHY, "round %d: an %s was never waited for: every request must end in MPI_Wait or "
                     "MPI_Waitall before ex_ring_forces returns", q->posted, call_name(q));
            return why;
        }
    }
    return NULL;
}

/* Round s's transfer of kind `kind` of rank `block`'s block (to `peer`, for
 * a send): NULL if a request posted before the compute and completed after
 * it carried that block whole, else what went wrong. */
static const char *transfer_problem(int s, int kind, int block, int peer, char *why)
{
    const char *what = kind == EV_SEND ? "send of the held block" : "receive of the next block";
    const char *call = kind == EV_SEND ? "MPI_Isend" : "MPI_Irecv";
    int early = 0, late = 0, elsewhere = -2, spanning = 0, same_size = 0;
    long carried = 0, want = (long)block_count[block] * (long)sizeof(body);
    for (int k = 0; k < req_count; k++) {
        const request_log *q = &reqs[k];
        if (q->kind != kind)
            continue;
        int in_flight = q->posted <= s && q->done > s;
        if (in_flight)
            spanning++, carried += q->bytes > 0 ? q->bytes : 0, same_size |= q->bytes == want;
        if (q->block != block)
            continue;
        if (in_flight && (kind == EV_RECV || q->peer == peer))
            return NULL;
        if (in_flight)
            elsewhere = q->peer;
        else if (q->posted <= s)
            early = 1; /* completed before the compute */
        else if (q->posted == s + 1)
            late = 1; /* posted after the compute */
    }
    int n = block_count[block];
    if (elsewhere > -2)
        snprintf(why, WHY, "round %d: the held block (rank %d's) was sent to rank %d, not to rank %d, the next to "
                 "hold it", s, block, elsewhere, peer);
    else if (early)
        snprintf(why, WHY, "round %d: the %s (rank %d's, %d bodies) was waited for before the compute: it does not "
                 "overlap it", s, what, block, n);
    else if (late)
        snprintf(why, WHY, "round %d: the %s (rank %d's, %d bodies) was posted after the compute: nothing was in "
                 "flight while it ran. Post %s before ex_ring_compute, wait after it", s, what, block, n, call);
    else if (same_size)
        snprintf(why, WHY, "round %d: the %s in flight during the compute carried %ld bytes, the size of rank %d's "
                 "block, but not its bodies: a block was cut short or mixed on the way here", s, call, want, block);
    else if (spanning)
        snprintf(why, WHY, "round %d: the %s%s in flight during the compute carried %ld bytes in all, but none "
                 "carried rank %d's block whole (%d bodies, %ld bytes)", s, call, spanning > 1 ? "s" : "", carried,
                 block, n, want);
    else
        snprintf(why, WHY, "round %d: no %s of rank %d's block (%d bodies) posted before its compute and waited "
                 "for after it", s, call, block, n);
    return why;
}

/* The overlap, from the log: NULL if it holds, else what went wrong. */
static const char *overlap_problem(int r, int P)
{
    static char why[WHY];
    if (req_overflow || computes > MAX_ROUNDS) {
        snprintf(why, sizeof why, "more than %d requests or %d computes: a ring step of P = %d needs %d computes",
                 MAX_REQUESTS, MAX_ROUNDS, P, P);
        return why;
    }
    if (computes != P) {
        snprintf(why, sizeof why, "%d computes for %d blocks", computes, P);
        return why;
    }
    if (error_problem(why))
        return why;
    for (int s = 0; s + 1 < P; s++) {
        for (int k = 0; k < req_count; k++) {
            const request_log *q = &reqs[k];
            if (q->kind == EV_RECV && q->posted <= s && q->done > s && q->bytes > 0 &&
                q->buf < compute_buf[s] + compute_bytes[s] && compute_buf[s] < q->buf + q->bytes) {
                snprintf(why, sizeof why, "round %d: the next block is received into the block being computed on",
                         s);
                return why;
            }
        }
        if (transfer_problem(s, EV_RECV, holder_block(r, s + 1), ring_mod(r - direction, P), why) ||
            transfer_problem(s, EV_SEND, holder_block(r, s), ring_mod(r + direction, P), why))
            return why;
    }
    return leftover_problem(P, why);
}

/* Rank 0 writes every rank's verdict ("rank R: ok" or why not) to `report`
 * and the gathered forces to `forces`, in the working folder. */
static int write_report(int P, const char *why_all, const vec3 *a_all)
{
    FILE *f = fopen("report", "w");
    if (!f)
        return 1;
    for (int r = 0; r < P; r++)
        fprintf(f, "rank %d: %s\n", r, why_all[(size_t)r * WHY] ? why_all + (size_t)r * WHY : "ok");
    fprintf(f, "direction: %s\n", direction > 0 ? "rightwards" : "leftwards");
    int bad = fclose(f) != 0;
    FILE *g = fopen("forces", "wb");
    if (!g)
        return 1;
    bad |= fwrite(a_all, sizeof(vec3), N, g) != N;
    return bad | (fclose(g) != 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* An error (a receive too short) is reported in words, not by Open MPI's abort. */
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ex_ring g = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.ranks);
    int P = g.ranks, *count = malloc(2 * (size_t)P * sizeof(int));
    int *first = count + P;
    my_rank = g.rank, my_ranks = P, block_first = first, block_count = count;
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
    static char why[WHY];
    const char *problem = overlap_problem(g.rank, P);
    if (!problem && wrong_block[0])
        problem = wrong_block;
    if (problem) {
        snprintf(why, sizeof why, "%s", problem);
        fprintf(stderr, "rank %d: %s\n", g.rank, why);
    }
    char *why_all = calloc((size_t)P, WHY);
    int *count3 = malloc(2 * (size_t)P * sizeof(int)), *first3 = count3 + P;
    for (int r = 0; r < P; r++)
        count3[r] = 3 * count[r], first3[r] = 3 * first[r];
    PMPI_Gather(why, WHY, MPI_CHAR, why_all, WHY, MPI_CHAR, 0, MPI_COMM_WORLD);
    PMPI_Gatherv(g.a, 3 * c, MPI_FLOAT, a_all, count3, first3, MPI_FLOAT, 0, MPI_COMM_WORLD);
    int bad = problem != NULL, any_bad = 0;
    if (g.rank == 0 && write_report(P, why_all, a_all)) {
        fprintf(stderr, "rank 0: could not write the report (report, forces) in the working folder\n");
        bad = 1;
    }
    PMPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
#endif
