/* setup.c - a run's set-up and its state out: the split of the bodies over
 * the ranks, each rank's GPU, and --state-out. */
#include "ranks.h"

#include "../../common/cuda_util.h"
#include "../../common/image.h"

#include <stdio.h>
#include <stdlib.h>

/* Splits n bodies over P ranks: n / P each, the first n % P one more. */
void split(ranks_problem *p)
{
    int P = p->ranks;
    p->count = cli_alloc(4 * (size_t)P * sizeof(int), "the split");
    p->first = p->count + P, p->count3 = p->count + 2 * P, p->first3 = p->count + 3 * P;
    for (int r = 0, at = 0; r < P; r++) {
        p->count[r] = p->n / P + (r < p->n % P);
        p->first[r] = at;
        p->count3[r] = 3 * p->count[r], p->first3[r] = 3 * at;
        at += p->count[r];
    }
}

/* This rank's GPU (its rank among the ranks of its host, modulo the GPUs
 * there), or -1; GPUs only if every rank has one. */
int choose_gpu(int quiet, const ranks_problem *p)
{
    MPI_Comm host;
    int local = 0, has = 0, all = 0;
    int rank = p->rank;
    deadline_begin(p, "MPI_Comm_split_type (the ranks of this host)");
    MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
    deadline_end();
    MPI_CHECK(MPI_Comm_rank(host, &local));
    MPI_CHECK(MPI_Comm_free(&host));
    char why[256] = "";
    int devices = cuda_device_count(why, sizeof why);
    has = devices > 0;
    deadline_begin(p, "MPI_Allreduce (every rank has a GPU?)");
    MPI_CHECK(MPI_Allreduce(&has, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    deadline_end();
    if (!all) {
        if (rank == 0 && !quiet)
            fprintf(stderr, "ch11: %s%s: every rank computes on its CPU (ch07's cpu-simd loop), n <= %d\n",
                    has ? "a rank has no CUDA device" : "no CUDA device", has ? "" : " on rank 0", CPU_MAX_N);
        return -1;
    }
    int gpu = local % devices;
    CUDA_CHECK(cudaSetDevice(gpu));
    if (!quiet) {
        char host_name[MPI_MAX_PROCESSOR_NAME] = "";
        int len = 0;
        MPI_Get_processor_name(host_name, &len);
        cuda_device_info info;
        cuda_describe_device(gpu, &info);
        fprintf(stderr, "ch11: rank %d on %s: GPU %d of %d (%s)%s\n", rank, host_name, gpu, devices, info.name,
                local >= devices ? ", shared with another rank" : "");
    }
    return gpu;
}

/* --state-out: the last stage once more, every rank's bodies to rank 0, as text. */
int write_state(ranks_problem *p, const char *state_path)
{
    backend_open(p);
    ranks_reset(p);
    ranks_run(p);
    int c = p->count[p->rank], ok = 1;
    body *b = cli_alloc((size_t)(p->rank == 0 ? p->n : c > 0 ? c : 1) * sizeof(body), "the final bodies");
    vec3 *v = cli_alloc((size_t)(p->rank == 0 ? p->n : c > 0 ? c : 1) * sizeof(vec3), "their velocities");
    backend_state_out(p, b + (p->rank == 0 ? p->first[0] : 0), v);
    backend_close(p);
    int *count4 = cli_alloc(2 * (size_t)p->ranks * sizeof(int), "counts"), *first4 = count4 + p->ranks;
    for (int r = 0; r < p->ranks; r++)
        count4[r] = 4 * p->count[r], first4[r] = 4 * p->first[r];
    deadline_begin(p, "MPI_Gatherv (the final state)");
    MPI_CHECK(MPI_Gatherv(p->rank == 0 ? MPI_IN_PLACE : (void *)b, 4 * c, MPI_FLOAT, b, count4, first4, MPI_FLOAT, 0,
                          MPI_COMM_WORLD));
    MPI_CHECK(MPI_Gatherv(p->rank == 0 ? MPI_IN_PLACE : (void *)v, 3 * c, MPI_FLOAT, v, p->count3, p->first3,
                          MPI_FLOAT, 0, MPI_COMM_WORLD));
    deadline_end();
    if (p->rank == 0) {
        char err[IMAGE_ERROR_SIZE];
        FILE *f = file_write_begin(state_path, err, sizeof err);
        for (int i = 0; f && i < p->n; i++)
            fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g\n", b[i].x, b[i].y, b[i].z, v[i].x, v[i].y, v[i].z);
        if (!f || file_write_end(f, !ferror(f), state_path, err, sizeof err) != 0) {
            fprintf(stderr, "ch11: --state-out not written: %s\n", err); /* err: the path and why */
            ok = 0;
        }
    }
    free(b);
    free(v);
    free(count4);
    return ok;
}

