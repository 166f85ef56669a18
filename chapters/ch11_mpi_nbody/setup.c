/* setup.c - a run's set-up: MPI's view of the ranks, the split of the
 * bodies over them, each rank's GPU, the initial state; per stage, the
 * buffers it needs and the reset to the initial state before each run. */
#include "ranks.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CUDA-aware MPI says so in mpi-ext.h (Open MPI: MPIX_CUDA_AWARE_SUPPORT 1).
 * Debian 12's says 0: its MPI reads host memory only. */
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
#define CUDA_AWARE_MPI 1
#else
#define CUDA_AWARE_MPI 0
#endif

/* Splits n bodies over P ranks: n / P each, the first n % P one more. */
static void split(ranks_problem *p)
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
static int choose_gpu(int quiet, const ranks_problem *p)
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

void ranks_setup(ranks_problem *p, long long n, int quiet)
{
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &p->rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &p->ranks));
    p->gpu = choose_gpu(quiet, p);
    p->n = (int)(p->gpu < 0 && n > CPU_MAX_N ? CPU_MAX_N : n);
    split(p);
    MPI_CHECK(MPI_Type_contiguous(4, MPI_FLOAT, &p->body_type));
    MPI_CHECK(MPI_Type_commit(&p->body_type));
    p->init = cli_alloc((size_t)p->n * sizeof(body), "the initial bodies");
    vec3 *v0 = cli_alloc((size_t)p->n * sizeof(vec3), "the initial velocities");
    nbody_init(p->init, v0, p->n); /* every rank the same fixed-seed state */
    free(v0);
    if (p->rank == 0)
        make_reference(&p->ref, p->init, p->n);
}

void ranks_teardown(ranks_problem *p)
{
    MPI_CHECK(MPI_Type_free(&p->body_type));
    free(p->init);
    free(p->count);
    free_reference(&p->ref); /* rank 0's; the others' is empty */
}

const char *stage_skipped(const ranks_problem *p, const rank_stage *s)
{
    if (s->memory != DEVICE_BUFFERS)
        return NULL;
    if (p->gpu < 0)
        return "the ranks have no GPU";
    if (!CUDA_AWARE_MPI)
        return "this MPI is not CUDA-aware (mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT is not 1), and NCCL is not used";
    return NULL;
}

static void *host_alloc(ranks_problem *p, size_t bytes, const char *what)
{
    if (p->gpu < 0 || p->s->memory != HOST_PINNED)
        return cli_alloc(bytes, what);
    void *ptr = NULL;
    CUDA_CHECK(cudaMallocHost(&ptr, bytes)); /* page-locked: the GPU copies it without staging */
    return ptr;
}

static void host_free(ranks_problem *p, void *ptr)
{
    if (p->gpu < 0 || p->s->memory != HOST_PINNED)
        free(ptr);
    else if (ptr)
        CUDA_CHECK(cudaFreeHost(ptr));
}

void ranks_open(ranks_problem *p)
{
    int c = own_count(p), block = p->count[0]; /* rank 0 owns the most */
    int gathered = p->s->exchange == EXCHANGE_ALLGATHER;
    if (gathered && p->s->memory != DEVICE_BUFFERS)
        p->all = host_alloc(p, room(p->n, sizeof(body)), "all positions");
    if (!gathered)
        for (int k = 0; k < 2; k++)
            p->ring[k] = host_alloc(p, room(block, sizeof(body)), "a ring block");
    p->a = cli_alloc(room(c, sizeof(vec3)), "the own forces");
    p->v = cli_alloc(room(c, sizeof(vec3)), "the own velocities");
    p->own = cli_alloc(room(c, sizeof(body)), "the own bodies");
    if (p->gpu < 0)
        return;
    CUDA_CHECK(cudaSetDevice(p->gpu));
    CUDA_CHECK(cudaMalloc((void **)&p->d_src, room(gathered ? p->n : block, sizeof(body))));
    CUDA_CHECK(cudaMalloc((void **)&p->d_own, room(c, sizeof(body))));
    CUDA_CHECK(cudaMalloc((void **)&p->d_v, room(c, sizeof(vec3))));
    CUDA_CHECK(cudaMalloc((void **)&p->d_a, room(c, sizeof(vec3))));
    CUDA_CHECK(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->copied, cudaEventDisableTiming));
}

void ranks_close(ranks_problem *p)
{
    host_free(p, p->all);
    host_free(p, p->ring[0]);
    host_free(p, p->ring[1]);
    free(p->a);
    free(p->v);
    free(p->own);
    p->all = p->ring[0] = p->ring[1] = p->own = NULL;
    p->a = p->v = NULL;
    if (p->gpu < 0)
        return;
    CUDA_CHECK(cudaFree(p->d_src));
    CUDA_CHECK(cudaFree(p->d_own));
    CUDA_CHECK(cudaFree(p->d_v));
    CUDA_CHECK(cudaFree(p->d_a));
    CUDA_CHECK(cudaStreamDestroy(p->stream));
    CUDA_CHECK(cudaEventDestroy(p->copied));
}

/* This rank's own bodies from the initial state, velocities 0, forces
 * poisoned; on its GPU too. */
static void reset_own(ranks_problem *p)
{
    int c = own_count(p);
    const body *mine = p->init + p->first[p->rank];
    memcpy(p->own, mine, (size_t)c * sizeof(body));
    memset(p->v, 0, room(c, sizeof(vec3)));
    for (int i = 0; i < c; i++) /* poison: a stage that writes no forces fails its check */
        p->a[i] = (vec3){NAN, NAN, NAN};
    if (p->gpu < 0)
        return;
    /* On the rank's own stream, and waited for: that stream is non-blocking, so
     * work on the default stream (a cudaMemset returns before it is done) is not
     * ordered before the step's kernels on it. On the H100, make check-gpu saw
     * ch11's suite fail now and then under load (ring-overlap: a velocity 6000
     * bounds off; allgather-pinned: its own check), which this explains. */
    CUDA_CHECK(cudaMemcpyAsync(p->d_own, mine, (size_t)c * sizeof(body), cudaMemcpyHostToDevice, p->stream));
    CUDA_CHECK(cudaMemsetAsync(p->d_v, 0, room(c, sizeof(vec3)), p->stream));
    CUDA_CHECK(cudaMemsetAsync(p->d_a, 0xFF, room(c, sizeof(vec3)), p->stream));
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
}

void ranks_reset(void *problem)
{
    ranks_problem *p = problem;
    reset_own(p);
    int c = own_count(p);
    const body *mine = p->init + p->first[p->rank];
    if (p->s->exchange == EXCHANGE_RING) {
        memcpy(p->ring[0], mine, (size_t)c * sizeof(body));
    } else if (p->s->memory == DEVICE_BUFFERS) {
        CUDA_CHECK(cudaMemcpyAsync(p->d_src, p->init, (size_t)p->n * sizeof(body), cudaMemcpyHostToDevice, p->stream));
        CUDA_CHECK(cudaStreamSynchronize(p->stream));
    } else {
        for (int i = 0; i < p->n; i++) /* the others' positions must arrive: poisoned (NaN) until they do */
            p->all[i] = i >= p->first[p->rank] && i < p->first[p->rank] + c ? p->init[i]
                                                                             : (body){NAN, NAN, NAN, NAN};
    }
    p->t = (phases){0, 0, 0};
}

