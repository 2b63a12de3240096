/* mpi_allreduce.c - an all-reduce (f32 sum) of one device buffer per MPI rank.
   Build: make build/mpi_allreduce (needs mpicc). Run: mpirun -np 4 ./build/mpi_allreduce [N] [ipc|mpi]
   Each rank takes its GPU(s) by local rank (mgpu_desc.gpus_per_rank = 1; without CUDA its
   CPU device) and fills a buffer of N floats (default 2^20) on device 0. Two paths:
     ipc  ranks of one machine: every rank exports its buffer (mgpu_ipc_export_memory), the
          handles go round with MPI_Allgather, and each rank sums one slice of everybody's
          buffers with mgpu_combine_async reading the peers' memory in place, then copies
          the other slices from their owners (reduce-scatter, then all-gather).
     mpi  any ranks: the buffers go through MPI_Allgather (device pointers when the MPI is
          CUDA-aware, else staged through pinned host memory) and each rank sums them.
   Default: ipc when all ranks share a machine, else mpi. Both add the buffers in rank
   order, one IEEE addition each, so the result has the same bits on every rank; each rank
   checks it against the same sums on its CPU device and against rank 0's, and exits 1 on
   a difference. Prints the time and the bus bandwidth (2 (P-1)/P bytes / time). */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>                     /* MPIX_CUDA_AWARE_SUPPORT */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#define CHECK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fprintf(stderr, "rank %d: %s: %s\n", rank, #call, mgpu_last_error()); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int rank, nranks;

static int cuda_aware_mpi(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* Rank r's input: reproducible, so every rank can build the CPU reference itself. */
static void fill(float *x, size_t n, int r)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(r + 1);
    size_t i;
    for (i = 0; i < n; i++) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        x[i] = (float)((double)(s * 2685821657736338717ull >> 40) / (double)(1 << 24) - 0.5);
    }
}

/* y = x_0 + x_1 + ... in rank order, on the stream's device: x[k] is rank k's buffer. */
static void sum_in_rank_order(float *y, float *const *x, size_t n, mgpu_stream s)
{
    int k;
    CHECK(mgpu_memcpy_async(y, x[0], n * sizeof(float), s));
    for (k = 1; k < nranks; k++) CHECK(mgpu_combine_async(y, x[k], n, MGPU_F32, MGPU_OP_SUM, s));
}

/* The ipc path: data is this rank's buffer; on return every rank's buffer holds the sum. */
static void allreduce_ipc(float *data, size_t n, mgpu_stream s)
{
    mgpu_ipc_handle mine, *all = (mgpu_ipc_handle *)malloc((size_t)nranks * sizeof *all);
    float **peer = (float **)malloc((size_t)nranks * sizeof *peer), **slice = (float **)malloc((size_t)nranks * sizeof *slice);
    float *acc;
    size_t per = (n + (size_t)nranks - 1) / (size_t)nranks, lo = (size_t)rank * per, len;
    int k;
    if (!all || !peer || !slice) MPI_Abort(MPI_COMM_WORLD, 1);
    len = lo >= n ? 0 : (n - lo < per ? n - lo : per);
    CHECK(mgpu_ipc_export_memory(data, &mine));
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    for (k = 0; k < nranks; k++) {
        if (k == rank) peer[k] = data;
        else CHECK(mgpu_ipc_open_memory(&all[k], (void **)&peer[k]));
    }
    CHECK(mgpu_stream_synchronize(s));  /* every buffer is filled ... */
    MPI_Barrier(MPI_COMM_WORLD);         /* ... everywhere */
    CHECK(mgpu_malloc((void **)&acc, per * sizeof(float)));
    if (len) {                           /* reduce-scatter: this rank's slice of every buffer */
        for (k = 0; k < nranks; k++) slice[k] = peer[k] + lo;
        sum_in_rank_order(acc, slice, len, s);
    }
    CHECK(mgpu_stream_synchronize(s));
    MPI_Barrier(MPI_COMM_WORLD);         /* nobody reads the inputs any more */
    if (len) CHECK(mgpu_memcpy_async(data + lo, acc, len * sizeof(float), s));
    CHECK(mgpu_stream_synchronize(s));
    MPI_Barrier(MPI_COMM_WORLD);         /* every slice is summed */
    for (k = 0; k < nranks; k++) {       /* all-gather: the other slices from their owners */
        size_t klo = (size_t)k * per, klen = klo >= n ? 0 : (n - klo < per ? n - klo : per);
        if (k != rank && klen) CHECK(mgpu_memcpy_async(data + klo, peer[k] + klo, klen * sizeof(float), s));
    }
    CHECK(mgpu_stream_synchronize(s));
    MPI_Barrier(MPI_COMM_WORLD);         /* nobody reads this rank's buffer any more */
    for (k = 0; k < nranks; k++) if (k != rank) CHECK(mgpu_ipc_close_memory(peer[k]));
    CHECK(mgpu_free(acc));
    free(all); free(peer); free(slice);
}

/* The mpi path: everybody's buffer through MPI_Allgather, then the sum on this device. */
static void allreduce_mpi(float *data, size_t n, mgpu_stream s, int on_gpu)
{
    size_t bytes = n * sizeof(float);
    float *gathered, *staged = NULL, **x = (float **)malloc((size_t)nranks * sizeof *x);
    int direct = on_gpu ? cuda_aware_mpi() : 1, k;
    if (!x || bytes * (size_t)nranks > 0x7fffffffu) MPI_Abort(MPI_COMM_WORLD, 1);
    CHECK(mgpu_malloc((void **)&gathered, bytes * (size_t)nranks));
    CHECK(mgpu_stream_synchronize(s));
    if (direct) {                        /* CPU devices' memory is host memory; or a CUDA-aware MPI */
        MPI_Allgather(data, (int)bytes, MPI_BYTE, gathered, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    } else {                             /* staged through pinned host memory */
        CHECK(mgpu_malloc_host((void **)&staged, bytes * (size_t)(nranks + 1)));
        CHECK(mgpu_memcpy(staged, data, bytes));
        MPI_Allgather(staged, (int)bytes, MPI_BYTE, staged + n, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        CHECK(mgpu_memcpy(gathered, staged + n, bytes * (size_t)nranks));
    }
    for (k = 0; k < nranks; k++) x[k] = gathered + (size_t)k * n;
    sum_in_rank_order(data, x, n, s);
    CHECK(mgpu_stream_synchronize(s));
    if (staged) CHECK(mgpu_free_host(staged));
    CHECK(mgpu_free(gathered));
    free(x);
}

int main(int argc, char **argv)
{
    mgpu_desc desc;
    mgpu_device_info info;
    mgpu_stream s, cpu;
    float *host, *data, *ref, **inputs;
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)1 << 20, bytes, i;
    int k, one_machine, use_ipc, bad = 0, all_bad = 0;
    double t0, t1, t, tmax;
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &k);
    one_machine = k == nranks;
    use_ipc = argc > 2 ? !strcmp(argv[2], "ipc") : one_machine;
    if (use_ipc && !one_machine) {
        if (rank == 0) fprintf(stderr, "the ipc path needs every rank on one machine\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (n == 0 || n > ((size_t)1 << 28)) n = (size_t)1 << 20;
    bytes = n * sizeof(float);

    memset(&desc, 0, sizeof desc);
    desc.gpus_per_rank = 1;              /* this rank's GPU, round-robin by local rank */
    CHECK(mgpu_init(&desc));
    CHECK(mgpu_device_info_get(0, &info));
    CHECK(mgpu_stream_create(&s));
    host = (float *)malloc(bytes);
    if (!host) MPI_Abort(MPI_COMM_WORLD, 1);
    fill(host, n, rank);
    CHECK(mgpu_malloc((void **)&data, bytes));
    CHECK(mgpu_memcpy(data, host, bytes));

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (use_ipc) allreduce_ipc(data, n, s);
    else allreduce_mpi(data, n, s, info.backend == MGPU_BACKEND_CUDA);
    t1 = MPI_Wtime();
    t = t1 - t0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    CHECK(mgpu_memcpy(host, data, bytes));

    /* the reference: every rank's input, summed in rank order on the CPU device */
    CHECK(mgpu_set_device(mgpu_cpu_device(0)));
    CHECK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
    inputs = (float **)malloc((size_t)nranks * sizeof *inputs);
    if (!inputs) MPI_Abort(MPI_COMM_WORLD, 1);
    for (k = 0; k < nranks; k++) {
        CHECK(mgpu_malloc((void **)&inputs[k], bytes));
        fill(inputs[k], n, k);
    }
    CHECK(mgpu_malloc((void **)&ref, bytes));
    sum_in_rank_order(ref, inputs, n, cpu);
    for (i = 0; i < n && !bad; i++) bad = memcmp(&host[i], &ref[i], sizeof(float)) != 0;
    if (bad) fprintf(stderr, "rank %d: element %zu is %.9g, the CPU device gives %.9g\n", rank, i - 1,
                     (double)host[i - 1], (double)ref[i - 1]);
    /* the same bits on every rank: compare with rank 0's result */
    memcpy(ref, host, bytes);
    MPI_Bcast(ref, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (memcmp(ref, host, bytes)) { fprintf(stderr, "rank %d: result differs from rank 0's\n", rank); bad = 1; }
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_allreduce: %d ranks, %s path (%s), %zu floats: %.3f ms, busbw %.2f GB/s; %s\n", nranks,
               use_ipc ? "ipc" : "mpi", info.backend == MGPU_BACKEND_CUDA ? (use_ipc ? "GPU memory over IPC" :
               cuda_aware_mpi() ? "CUDA-aware MPI" : "staged through pinned memory") : "CPU devices", n, tmax * 1e3,
               2.0 * (nranks - 1) / nranks * (double)bytes / tmax / 1e9,
               all_bad ? "MISMATCH" : "bit-identical on every rank and equal to the CPU device");
    for (k = 0; k < nranks; k++) CHECK(mgpu_free(inputs[k]));
    CHECK(mgpu_free(ref));
    CHECK(mgpu_free(data));
    CHECK(mgpu_stream_destroy(s));
    CHECK(mgpu_shutdown());
    free(inputs); free(host);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
