/* cub_reduce.cu - bench_reduce's baselines, compiled by nvcc into an object with a C
   interface (peers.h):
     - cub::DeviceReduce::Sum over floats (float accumulation, CUB's own tuning), temporary
       storage allocated once by the caller outside the timed region;
     - a read-only bandwidth ceiling: 16-byte non-coherent loads, grid-stride, UNROLL loads
       in flight per thread, every loaded bit XORed into a per-thread word that is stored
       only when it equals a run-time key (so no load can be dropped), in a few launch
       configurations (the benchmark keeps the fastest);
     - a spin kernel (%globaltimer) that holds a stream while the host enqueues a batch.
   Everything runs on the runtime's current device (cubpeer_init), whose context is the
   device's primary context, the one mgpu uses. Compiled with -DBENCH_PEER_STUB="reason"
   (by a C++ compiler, when there is no nvcc) it only reports why it is missing. */
#include "peers.h"
#include <stdio.h>
#include <string.h>

#ifdef BENCH_PEER_STUB
static int stub(char *err, size_t cap)
{
    if (err && cap) snprintf(err, cap, "CUB peer not built: %s", BENCH_PEER_STUB);
    return -1;
}
extern "C" {
int cubpeer_available(char *why, size_t cap) { stub(why, cap); return 0; }
const char *cubpeer_version(void) { return "CUB peer not built"; }
int cubpeer_init(int ordinal, char *err, size_t cap) { (void)ordinal; return stub(err, cap); }
int cubpeer_sum_temp_bytes(size_t n, size_t *bytes, char *err, size_t cap) { (void)n; *bytes = 0; return stub(err, cap); }
int cubpeer_time(const cubpeer_batch *b, void *stream, cubpeer_timing *t, char *err, size_t cap)
{ (void)b; (void)stream; (void)t; return stub(err, cap); }
int cubpeer_read_configs(void) { return 0; }
const char *cubpeer_read_config_name(int cfg) { (void)cfg; return "-"; }
int cubpeer_spin(void *stream, double us, char *err, size_t cap) { (void)stream; (void)us; return stub(err, cap); }
}
#else

#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <climits>
#include <cstdint>
#include <time.h>

#define RT(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    snprintf(err, cap, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); return -1; } } while (0)

static int g_sms[128];                   /* multiprocessors per runtime ordinal */
static cudaEvent_t g_ev[128][3];         /* per ordinal: before the blocker, start, stop */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ------------------------------------------------------------------ kernels */
__global__ void cubpeer_spin_kernel(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

enum { LD_NC = 0, LD_CS = 1 };           /* __ldg (non-coherent) or __ldcs (evict-first) */

template <int LD>
__device__ __forceinline__ uint4 ld16(const uint4 *p)
{
    return LD == LD_NC ? __ldg(p) : __ldcs(p);
}

template <int UNROLL, int LD>
__global__ void cubpeer_read_kernel(const uint4 *__restrict__ src, size_t n16, const unsigned *__restrict__ tail,
                                    unsigned ntail, unsigned *sink, unsigned key)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (; i + (size_t)(UNROLL - 1) * stride < n16; i += (size_t)UNROLL * stride) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = ld16<LD>(src + i + (size_t)u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n16; i += stride) {
        uint4 v = ld16<LD>(src + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < ntail) acc ^= tail[threadIdx.x];
    if (acc == key) *sink = acc;         /* the dependency: all loads feed this compare */
}

typedef struct { int threads, blocks_per_sm, unroll, ld; const char *name; } read_cfg;
static const read_cfg g_cfg[] = {
    { 256, 8, 4, LD_NC, "256 thr x 8 blk/SM, 4 x 16 B in flight, ld.nc" },
    { 256, 8, 8, LD_NC, "256 thr x 8 blk/SM, 8 x 16 B in flight, ld.nc" },
    { 512, 4, 4, LD_NC, "512 thr x 4 blk/SM, 4 x 16 B in flight, ld.nc" },
    { 1024, 2, 4, LD_NC, "1024 thr x 2 blk/SM, 4 x 16 B in flight, ld.nc" },
    { 256, 4, 8, LD_NC, "256 thr x 4 blk/SM, 8 x 16 B in flight, ld.nc" },
    { 256, 8, 4, LD_CS, "256 thr x 8 blk/SM, 4 x 16 B in flight, ld.cs" },
};
#define NCFG ((int)(sizeof g_cfg / sizeof g_cfg[0]))

static cudaError_t launch_read(int cfg, const float *src, size_t n, unsigned *sink, unsigned key, int sms,
                               cudaStream_t s)
{
    const read_cfg *c = &g_cfg[cfg];
    size_t n16 = n / 4;
    unsigned ntail = (unsigned)(n % 4);
    const unsigned *tail = (const unsigned *)(src + n16 * 4);
    dim3 grid((unsigned)(sms * c->blocks_per_sm)), block((unsigned)c->threads);
    const uint4 *p = (const uint4 *)src;
#define L(U, D) cubpeer_read_kernel<U, D><<<grid, block, 0, s>>>(p, n16, tail, ntail, sink, key)
    if (c->ld == LD_CS) { if (c->unroll == 8) L(8, LD_CS); else L(4, LD_CS); }
    else { if (c->unroll == 8) L(8, LD_NC); else L(4, LD_NC); }
#undef L
    return cudaGetLastError();
}

/* ------------------------------------------------------------------ C interface */
extern "C" {

int cubpeer_available(char *why, size_t cap)
{
    if (why && cap) why[0] = 0;
    return 1;
}

const char *cubpeer_version(void)
{
    static char buf[96];
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    snprintf(buf, sizeof buf, "CUB %d.%d.%d, CUDA runtime %d", CUB_VERSION / 100000, CUB_VERSION / 100 % 1000,
             CUB_VERSION % 100, rt);
    return buf;
}

int cubpeer_init(int ordinal, char *err, size_t cap)
{
    int k;
    if (ordinal < 0 || ordinal >= 128) { snprintf(err, cap, "ordinal %d out of range", ordinal); return -1; }
    RT(cudaSetDevice(ordinal));
    RT(cudaDeviceGetAttribute(&g_sms[ordinal], cudaDevAttrMultiProcessorCount, ordinal));
    for (k = 0; k < 3; k++)
        if (!g_ev[ordinal][k]) RT(cudaEventCreate(&g_ev[ordinal][k]));
    return 0;
}

int cubpeer_sum_temp_bytes(size_t n, size_t *bytes, char *err, size_t cap)
{
    *bytes = 0;
    if (n <= (size_t)INT_MAX)
        RT(cub::DeviceReduce::Sum(NULL, *bytes, (const float *)NULL, (float *)NULL, (int)n));
    else
        RT(cub::DeviceReduce::Sum(NULL, *bytes, (const float *)NULL, (float *)NULL, (unsigned long long)n));
    if (*bytes == 0) *bytes = 1;
    return 0;
}

int cubpeer_read_configs(void) { return NCFG; }
const char *cubpeer_read_config_name(int cfg) { return cfg >= 0 && cfg < NCFG ? g_cfg[cfg].name : "?"; }

int cubpeer_spin(void *stream, double us, char *err, size_t cap)
{
    cubpeer_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((unsigned long long)(us * 1e3));
    RT(cudaGetLastError());
    return 0;
}

int cubpeer_time(const cubpeer_batch *b, void *stream, cubpeer_timing *t, char *err, size_t cap)
{
    cudaStream_t s = (cudaStream_t)stream;
    int dev = 0, i;
    double t0, t1;
    RT(cudaGetDevice(&dev));
    if (dev >= 128 || !g_ev[dev][0]) { snprintf(err, cap, "cubpeer_init(%d) was not called", dev); return -1; }
    if (b->nslots < 1 || b->inner < 1) { snprintf(err, cap, "bad batch (nslots %d, inner %d)", b->nslots, b->inner); return -1; }
    if (b->what == CUBPEER_READ && (b->read_cfg < 0 || b->read_cfg >= NCFG)) { snprintf(err, cap, "bad read config"); return -1; }
    if ((uintptr_t)b->src % 16 || b->stride % 4) { snprintf(err, cap, "sources must be 16-byte aligned"); return -1; }
    memset(t, 0, sizeof *t);
    if (b->blocker_us > 0) {
        RT(cudaEventRecord(g_ev[dev][0], s));
        cubpeer_spin_kernel<<<1, 1, 0, s>>>((unsigned long long)(b->blocker_us * 1e3));
        RT(cudaGetLastError());
    }
    RT(cudaEventRecord(g_ev[dev][1], s));
    t0 = now_us();
    for (i = 0; i < b->inner; i++) {
        const float *src = b->src + (size_t)((b->first + i) % b->nslots) * b->stride;
        if (b->what == CUBPEER_SUM) {
            size_t tb = b->temp_bytes;
            if (b->n <= (size_t)INT_MAX)
                RT(cub::DeviceReduce::Sum(b->temp, tb, src, b->outs + i, (int)b->n, s));
            else
                RT(cub::DeviceReduce::Sum(b->temp, tb, src, b->outs + i, (unsigned long long)b->n, s));
        } else {
            RT(launch_read(b->read_cfg, src, b->n, b->sink, b->key, g_sms[dev], s));
        }
    }
    t1 = now_us();
    RT(cudaEventRecord(g_ev[dev][2], s));
    RT(cudaEventSynchronize(g_ev[dev][2]));
    RT(cudaEventElapsedTime(&t->ms, g_ev[dev][1], g_ev[dev][2]));
    if (b->blocker_us > 0) RT(cudaEventElapsedTime(&t->blocker_ms, g_ev[dev][0], g_ev[dev][1]));
    t->enqueue_us = t1 - t0;
    return 0;
}

} /* extern "C" */
#endif /* BENCH_PEER_STUB */
