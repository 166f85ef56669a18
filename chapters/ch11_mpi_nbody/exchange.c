/* exchange.c - a step's positions to every rank, as the stage says (its
 * `exchange` and `memory`), and the own bodies' forces from them: every
 * block at once, or one block at a time round a ring with the next block's
 * transfer overlapping the current block's forces. */
#include "ranks.h"

/* Every rank's positions to every rank, in place, then the forces from all n. */
static void allgather_forces(ranks_problem *p)
{
    body *all = p->s->memory == DEVICE_BUFFERS ? p->d_src : p->all;
    double t0 = MPI_Wtime();
    deadline_begin(p, "MPI_Allgatherv");
    MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, p->count, p->first, p->body_type,
                             MPI_COMM_WORLD));
    deadline_end();
    double t1 = MPI_Wtime();
    backend_forces(p, all, p->n, 0);
    p->t.exchange += t1 - t0;
    p->t.compute += MPI_Wtime() - t1;
}

/* P rounds: in round s a rank holds the block of rank (r - s) mod P. It
 * passes that block to its right neighbour and receives the next from its
 * left (MPI_Isend, MPI_Irecv) while its GPU computes that block's forces;
 * the block's buffer is reused only after the GPU has copied it. */
static void ring_forces(ranks_problem *p)
{
    int P = p->ranks, r = p->rank, right = (r + 1) % P, left = (r + P - 1) % P;
    for (int s = 0; s < P; s++) {
        int k = (r - s + P) % P, next_k = (r - s - 1 + 2 * P) % P, pending = 0;
        body *cur = p->ring[s % 2], *next = p->ring[(s + 1) % 2];
        MPI_Request req[2];
        double t0 = MPI_Wtime();
        if (s + 1 < P) {
            if (s > 0)
                backend_block_released(p); /* round s-1 copied `next` to the GPU */
            double t1 = MPI_Wtime();
            MPI_CHECK(MPI_Irecv(next, p->count[next_k], p->body_type, left, s, MPI_COMM_WORLD, &req[pending++]));
            MPI_CHECK(MPI_Isend(cur, p->count[k], p->body_type, right, s, MPI_COMM_WORLD, &req[pending++]));
            p->t.compute += t1 - t0;
            p->t.exchange += MPI_Wtime() - t1;
        }
        double t2 = MPI_Wtime();
        backend_forces(p, cur, p->count[k], s > 0);
        double t3 = MPI_Wtime();
        deadline_begin(p, "MPI_Waitall (the ring's block)");
        MPI_CHECK(MPI_Waitall(pending, req, MPI_STATUSES_IGNORE));
        deadline_end();
        p->t.compute += t3 - t2;
        p->t.exchange += MPI_Wtime() - t3;
    }
}

void exchange_forces(ranks_problem *p)
{
    if (p->s->exchange == EXCHANGE_ALLGATHER)
        allgather_forces(p);
    else
        ring_forces(p);
}
