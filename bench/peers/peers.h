/* bench/peers/peers.h - the C interface of the benchmarks' baselines built with nvcc.

   cub_reduce.cu  (bench_reduce)       CUB DeviceReduce::Sum, a read-only bandwidth ceiling
                                       kernel and a spin kernel used as a queue blocker.
   nccl_peer.cu   (bench_collectives)  NCCL all-reduce and broadcast, one communicator per GPU.
   npp_blur.cu    (bench_blur)         NPP's Gaussian filters on 8-bit images (1 and 4 channels).

   Both use the CUDA runtime on the devices' primary contexts, the ones mgpu uses, so they
   take mgpu_malloc'd pointers and (for the CUB and NPP peers) mgpu's native streams
   directly. Every function returns 0 on success, else non-zero with a message in err.
   Built without nvcc (or without nccl.h for the NCCL peer, without NPP for the NPP peer)
   they compile to stubs: *_available() returns 0 and writes why. Times are CUDA-event
   milliseconds. */
#ifndef BENCH_PEERS_H
#define BENCH_PEERS_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ cub_reduce.cu */
/* 1 when built with nvcc; else 0 with the reason in why. */
int cubpeer_available(char *why, size_t cap);
/* "CUB 3.0.0, CUDA runtime 13000" or similar. */
const char *cubpeer_version(void);
/* Selects the device (runtime ordinal = mgpu_device_info.ordinal) for the calls that follow
   on this thread and reads its multiprocessor count. */
int cubpeer_init(int ordinal, char *err, size_t cap);
/* Temporary storage cub::DeviceReduce::Sum needs for n floats. */
int cubpeer_sum_temp_bytes(size_t n, size_t *bytes, char *err, size_t cap);

/* One timed batch, the same shape as bench_reduce times mgpu:
     [spin blocker_us] event start, `inner` calls, event stop, synchronize.
   Call i reads src + ((first + i) % nslots) * stride (elements) and writes outs[i] (device
   memory, `inner` floats; unused by the read-only kernel, which writes *sink only when
   its XOR of all the bits equals `key`, so the loads cannot be dropped). stream: a CUstream
   / cudaStream_t (e.g. mgpu_native_stream of an mgpu stream). */
enum { CUBPEER_SUM = 0, CUBPEER_READ = 1 };
typedef struct cubpeer_batch {
    int what;                            /* CUBPEER_SUM or CUBPEER_READ */
    const float *src;
    size_t n, stride;
    int nslots, first, inner;
    float *outs;
    void *temp;                          /* CUB temporary storage, allocated once by the caller */
    size_t temp_bytes;
    int read_cfg;                        /* CUBPEER_READ: 0 .. cubpeer_read_configs() - 1 */
    unsigned *sink;                      /* CUBPEER_READ: one device word */
    unsigned key;
    double blocker_us;                   /* 0: none */
} cubpeer_batch;
typedef struct cubpeer_timing {
    float ms;                            /* start -> stop */
    float blocker_ms;                    /* the blocker's own GPU time */
    double enqueue_us;                   /* host time to enqueue the `inner` calls */
} cubpeer_timing;
int cubpeer_time(const cubpeer_batch *b, void *stream, cubpeer_timing *t, char *err, size_t cap);
/* The read-only kernel's launch configurations, and a description of one. */
int cubpeer_read_configs(void);
const char *cubpeer_read_config_name(int cfg);
/* Enqueues a kernel that spins for `us` microseconds (%globaltimer) on stream. */
int cubpeer_spin(void *stream, double us, char *err, size_t cap);

/* ------------------------------------------------------------------ nccl_peer.cu */
/* 1 when built with NCCL; else 0 with the reason in why. */
int ncclpeer_available(char *why, size_t cap);
/* "NCCL 2.28.9 (headers 2.28.9)" or similar. */
const char *ncclpeer_version(void);
/* ncclCommInitAll over the runtime ordinals; one non-blocking stream and two events per GPU. */
int ncclpeer_init(int ndev, const int *ordinals, char *err, size_t cap);
/* In place, every bufs[i] (count floats on GPU i): ncclAllReduce(ncclFloat, ncclSum) in one
   ncclGroupStart/End. Timed as: event start on every stream, the group, event stop on every
   stream; ms[i] = GPU i's stop - start; *ms_max = the largest. ms may be NULL. */
int ncclpeer_allreduce_f32(void *const *bufs, size_t count, float *ms_max, float *ms, char *err, size_t cap);
/* ncclBroadcast of `bytes` (ncclInt8) from bufs[root] into every bufs[i], in place; timed alike. */
int ncclpeer_broadcast(void *const *bufs, size_t bytes, int root, float *ms_max, float *ms, char *err, size_t cap);
void ncclpeer_shutdown(void);

/* ------------------------------------------------------------------ npp_blur.cu */
/* 1 when built with NPP; else 0 with the reason in why. */
int npppeer_available(char *why, size_t cap);
/* "NPP 13.0.1" or similar. */
const char *npppeer_version(void);
/* An 8-bit image pair in device memory: channels 1 or 4, pitches in bytes. */
typedef struct npppeer_image {
    const void *src;
    void *dst;
    int width, height, channels;
    size_t spitch, dpitch;
} npppeer_image;
enum {
    NPPPEER_GAUSS = 0,                   /* nppiFilterGaussBorder_8u_C{1,4}R_Ctx, NPP_MASK_SIZE_5_X_5 */
    NPPPEER_GAUSS_ADVANCED = 1           /* nppiFilterGaussAdvancedBorder_8u_C{1,4}R_Ctx with taps[0..ntaps-1] */
};
/* Times `calls` filter calls with NPP_BORDER_REPLICATE on the runtime device `ordinal`, call
   i on imgs[i % nimages], all on `stream` (a CUstream / cudaStream_t): event start, the
   calls, event stop, synchronize; *ms = stop - start. taps: host floats (copied). */
int npppeer_time(int which, int ordinal, const npppeer_image *imgs, int nimages, int calls, const float *taps,
                 int ntaps, void *stream, float *ms, char *err, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* BENCH_PEERS_H */
