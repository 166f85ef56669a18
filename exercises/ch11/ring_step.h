/* ring_step.h - exercise ch11: one step's forces by the ring, overlapped.
 *
 * P ranks in a ring. Rank r starts the step holding its own bodies in
 * g->block[0]; in round s (s = 0 .. P-1) it holds the block of rank
 * (r - s) mod P, g->count[that rank] bodies. Each round it must
 *   - pass the block it holds to its right neighbour, (r + 1) mod P,
 *   - receive the next one from its left neighbour, (r - 1) mod P, into the
 *     other buffer (never the one being computed on), and
 *   - compute the forces of the block it holds: ex_ring_compute(g, block,
 *     count, add), add = 0 in round 0 (the forces start from it), 1 after;
 * and the passing must overlap the computing: post the receive and the send
 * (MPI_Irecv, MPI_Isend) before computing, wait for them (MPI_Waitall) after.
 * The last round passes nothing on. Blocks may differ in size by one body.
 *
 * What the grader gives you (tests/ex_ch11_driver.c): g->rank, g->ranks,
 * g->count[rank], g->block[2] (each big enough for any block),
 * g->body_type (one body as an MPI datatype) and ex_ring_compute. It checks
 * the forces against ch07's double-precision reference at P = 1 .. 4, and,
 * from what each posted MPI_Isend/MPI_Irecv carried (the whole block, to the
 * next holder) and when it was posted and waited for, that each round's
 * transfer was in flight while that round's block was computed (the ring
 * runs rightwards, to rank + 1; a leftward ring is accepted too). Your code
 * may call only those MPI functions, ex_ring_compute and the C library's
 * memory and printing functions.
 */
static void ex_ring_forces(ex_ring *g)
{
    /* Correct, but nothing overlaps: the block is computed, then passed on
     * with a blocking MPI_Sendrecv. Make the passing happen while computing. */
    int P = g->ranks, r = g->rank, right = (r + 1) % P, left = (r + P - 1) % P;
    for (int s = 0; s < P; s++) {
        int k = (r - s + P) % P, next = (r - s - 1 + 2 * P) % P;
        body *held = g->block[s % 2], *other = g->block[(s + 1) % 2];
        ex_ring_compute(g, held, g->count[k], s > 0);
        if (s + 1 < P)
            MPI_Sendrecv(held, g->count[k], g->body_type, right, s, other, g->count[next], g->body_type, left, s,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}
