/* nccl_peer.cu - bench_collectives' baseline: NCCL with one communicator per GPU in this
   one process (ncclCommInitAll), all ranks driven from one thread with
   ncclGroupStart/ncclGroupEnd. Each GPU gets one non-blocking runtime stream and two
   events; one timed operation is
       event start on every GPU's stream, ncclGroupStart, the call on every GPU,
       ncclGroupEnd, event stop on every GPU's stream, wait for all stops,
   and GPU i's time is stop_i - start_i (the benchmark takes the largest). The buffers are
   the benchmark's (mgpu_malloc'd on the same primary contexts). No device code: nvcc is
   used only so that both peers build the same way. Compiled with
   -DBENCH_NO_NCCL="reason" it only reports why NCCL is missing. */
#include "peers.h"
#include <stdio.h>
#include <string.h>

#ifdef BENCH_NO_NCCL
static int stub(char *err, size_t cap)
{
    if (err && cap) snprintf(err, cap, "NCCL peer not built: %s", BENCH_NO_NCCL);
    return -1;
}
extern "C" {
int ncclpeer_available(char *why, size_t cap) { stub(why, cap); return 0; }
const char *ncclpeer_version(void) { return "NCCL peer not built"; }
int ncclpeer_init(int ndev, const int *ordinals, char *err, size_t cap) { (void)ndev; (void)ordinals; return stub(err, cap); }
int ncclpeer_allreduce_f32(void *const *bufs, size_t count, float *ms_max, float *ms, char *err, size_t cap)
{ (void)bufs; (void)count; (void)ms_max; (void)ms; return stub(err, cap); }
int ncclpeer_broadcast(void *const *bufs, size_t bytes, int root, float *ms_max, float *ms, char *err, size_t cap)
{ (void)bufs; (void)bytes; (void)root; (void)ms_max; (void)ms; return stub(err, cap); }
void ncclpeer_shutdown(void) {}
}
#else

#include <cuda_runtime.h>
#include <nccl.h>

#define RT(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    snprintf(err, cap, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); return -1; } } while (0)
#define NC(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
    snprintf(err, cap, "%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, ncclGetErrorString(r_), ncclGetLastError(NULL)); \
    return -1; } } while (0)

#define PEER_MAX 64
static struct {
    int n;
    int ord[PEER_MAX];
    ncclComm_t comm[PEER_MAX];
    cudaStream_t s[PEER_MAX];
    cudaEvent_t e0[PEER_MAX], e1[PEER_MAX];
} g;

enum { OP_ALLREDUCE, OP_BROADCAST };

/* One timed operation over all GPUs (see the top). */
static int timed(int op, void *const *bufs, size_t count, int root, float *ms_max, float *ms, char *err, size_t cap)
{
    int i;
    float worst = 0;
    if (!g.n) { snprintf(err, cap, "ncclpeer_init was not called"); return -1; }
    for (i = 0; i < g.n; i++) {
        RT(cudaSetDevice(g.ord[i]));
        RT(cudaEventRecord(g.e0[i], g.s[i]));
    }
    NC(ncclGroupStart());
    for (i = 0; i < g.n; i++) {
        ncclResult_t r = op == OP_ALLREDUCE
            ? ncclAllReduce(bufs[i], bufs[i], count, ncclFloat, ncclSum, g.comm[i], g.s[i])
            : ncclBroadcast(bufs[i], bufs[i], count, ncclInt8, root, g.comm[i], g.s[i]);
        if (r != ncclSuccess) {
            (void)ncclGroupEnd();
            snprintf(err, cap, "%s on GPU %d: %s (%s)", op == OP_ALLREDUCE ? "ncclAllReduce" : "ncclBroadcast", i,
                     ncclGetErrorString(r), ncclGetLastError(NULL));
            return -1;
        }
    }
    NC(ncclGroupEnd());
    for (i = 0; i < g.n; i++) {
        RT(cudaSetDevice(g.ord[i]));
        RT(cudaEventRecord(g.e1[i], g.s[i]));
    }
    for (i = 0; i < g.n; i++) {
        float t = 0;
        RT(cudaEventSynchronize(g.e1[i]));
        RT(cudaEventElapsedTime(&t, g.e0[i], g.e1[i]));
        if (ms) ms[i] = t;
        if (t > worst) worst = t;
    }
    *ms_max = worst;
    return 0;
}

extern "C" {

int ncclpeer_available(char *why, size_t cap)
{
    if (why && cap) why[0] = 0;
    return 1;
}

const char *ncclpeer_version(void)
{
    static char buf[96];
    int v = 0;
    ncclGetVersion(&v);
    snprintf(buf, sizeof buf, "NCCL %d.%d.%d (headers %d.%d.%d)", v / 10000, v / 100 % 100, v % 100, NCCL_MAJOR,
             NCCL_MINOR, NCCL_PATCH);
    return buf;
}

int ncclpeer_init(int ndev, const int *ordinals, char *err, size_t cap)
{
    int i;
    if (ndev < 1 || ndev > PEER_MAX) { snprintf(err, cap, "ndev %d out of range", ndev); return -1; }
    memset(&g, 0, sizeof g);
    memcpy(g.ord, ordinals, (size_t)ndev * sizeof *ordinals);
    NC(ncclCommInitAll(g.comm, ndev, g.ord));
    g.n = ndev;
    for (i = 0; i < ndev; i++) {
        RT(cudaSetDevice(g.ord[i]));
        RT(cudaStreamCreateWithFlags(&g.s[i], cudaStreamNonBlocking));
        RT(cudaEventCreate(&g.e0[i]));
        RT(cudaEventCreate(&g.e1[i]));
    }
    return 0;
}

int ncclpeer_allreduce_f32(void *const *bufs, size_t count, float *ms_max, float *ms, char *err, size_t cap)
{
    return timed(OP_ALLREDUCE, bufs, count, 0, ms_max, ms, err, cap);
}

int ncclpeer_broadcast(void *const *bufs, size_t bytes, int root, float *ms_max, float *ms, char *err, size_t cap)
{
    return timed(OP_BROADCAST, bufs, bytes, root, ms_max, ms, err, cap);
}

void ncclpeer_shutdown(void)
{
    int i;
    for (i = 0; i < g.n; i++) {
        cudaSetDevice(g.ord[i]);
        cudaStreamSynchronize(g.s[i]);
        ncclCommDestroy(g.comm[i]);
        cudaEventDestroy(g.e0[i]);
        cudaEventDestroy(g.e1[i]);
        cudaStreamDestroy(g.s[i]);
    }
    g.n = 0;
}

} /* extern "C" */
#endif /* BENCH_NO_NCCL */
