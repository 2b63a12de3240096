/* npp_blur.cu - bench_blur's NPP baseline, compiled by nvcc into an object with a C
   interface (peers.h): NVIDIA Performance Primitives' Gaussian filters on 8-bit images,
     - nppiFilterGaussBorder_8u_C1R_Ctx / _8u_C4R_Ctx with NPP_MASK_SIZE_5_X_5 (NPP's fixed
       5x5 mask: a sampled Gaussian of sigma ~1.4, not mgpu's sigma 2; for speed only),
     - nppiFilterGaussAdvancedBorder_8u_C1R_Ctx / _8u_C4R_Ctx with caller-supplied taps
       (bench_blur passes mgpu's sigma-2 radius-2 weights: the same filter size),
   both with NPP_BORDER_REPLICATE, on the caller's stream, timed with CUDA events around
   the whole batch. NPP runs on the runtime's device `ordinal`, whose context is the
   device's primary context, the one mgpu uses, so it takes mgpu_malloc'd pointers and
   mgpu_native_stream streams directly. Built only where nvcc and NPP's headers and
   libraries (libnppif, libnppc) were found; otherwise compiled with -DBENCH_NO_NPP="why"
   (or -DBENCH_PEER_STUB without nvcc) into stubs that say why. */
#include "peers.h"
#include <stdio.h>
#include <string.h>

#if defined(BENCH_PEER_STUB) || defined(BENCH_NO_NPP)
#ifdef BENCH_PEER_STUB
#define NPPPEER_WHY BENCH_PEER_STUB
#else
#define NPPPEER_WHY BENCH_NO_NPP
#endif
static int stub(char *err, size_t cap)
{
    if (err && cap) snprintf(err, cap, "NPP peer not built: %s", NPPPEER_WHY);
    return -1;
}
extern "C" {
int npppeer_available(char *why, size_t cap) { stub(why, cap); return 0; }
const char *npppeer_version(void) { return "NPP peer not built"; }
int npppeer_time(int which, int ordinal, const npppeer_image *imgs, int nimages, int calls, const float *taps,
                 int ntaps, void *stream, float *ms, char *err, size_t cap)
{
    (void)which; (void)ordinal; (void)imgs; (void)nimages; (void)calls; (void)taps; (void)ntaps; (void)stream;
    if (ms) *ms = 0.0f;
    return stub(err, cap);
}
}
#else

#include <cuda_runtime.h>
#include <npp.h>

#define RT(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    snprintf(err, cap, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); goto fail; } } while (0)

extern "C" {

int npppeer_available(char *why, size_t cap)
{
    if (why && cap) why[0] = 0;
    return 1;
}

const char *npppeer_version(void)
{
    static char v[64];
    const NppLibraryVersion *lib = nppGetLibVersion();
    if (lib) snprintf(v, sizeof v, "NPP %d.%d.%d", lib->major, lib->minor, lib->build);
    else snprintf(v, sizeof v, "NPP (version unknown)");
    return v;
}

int npppeer_time(int which, int ordinal, const npppeer_image *imgs, int nimages, int calls, const float *taps,
                 int ntaps, void *stream, float *ms, char *err, size_t cap)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaDeviceProp props;
    NppStreamContext ctx;
    float *dtaps = NULL;
    int i, rc = -1;
    unsigned flags = 0;
    if (err && cap) err[0] = 0;
    if (!imgs || nimages < 1 || calls < 1 || !ms || (which == NPPPEER_GAUSS_ADVANCED && (!taps || ntaps < 1))) {
        snprintf(err, cap, "npppeer_time: bad arguments");
        return -1;
    }
    RT(cudaSetDevice(ordinal));
    RT(cudaGetDeviceProperties(&props, ordinal));
    memset(&ctx, 0, sizeof ctx);
    ctx.hStream = s;
    ctx.nCudaDeviceId = ordinal;
    ctx.nMultiProcessorCount = props.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = props.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = props.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = props.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = props.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = props.minor;
    RT(cudaStreamGetFlags(s, &flags));
    ctx.nStreamFlags = flags;
    if (which == NPPPEER_GAUSS_ADVANCED) {        /* pinned host memory: readable by host and device */
        RT(cudaMallocHost((void **)&dtaps, sizeof(float) * (size_t)ntaps));
        memcpy(dtaps, taps, sizeof(float) * (size_t)ntaps);
    }
    RT(cudaEventCreate(&e0));
    RT(cudaEventCreate(&e1));
    RT(cudaEventRecord(e0, s));
    for (i = 0; i < calls; i++) {
        const npppeer_image *im = &imgs[i % nimages];
        NppiSize size;
        NppiPoint origin;
        NppStatus st;
        size.width = im->width;
        size.height = im->height;
        origin.x = 0;
        origin.y = 0;
        if (im->channels != 1 && im->channels != 4) { snprintf(err, cap, "npppeer_time: %d channels", im->channels); goto fail; }
        if (which == NPPPEER_GAUSS_ADVANCED)
            st = im->channels == 1
                ? nppiFilterGaussAdvancedBorder_8u_C1R_Ctx((const Npp8u *)im->src, (Npp32s)im->spitch, size, origin,
                      (Npp8u *)im->dst, (Npp32s)im->dpitch, size, ntaps, dtaps, NPP_BORDER_REPLICATE, ctx)
                : nppiFilterGaussAdvancedBorder_8u_C4R_Ctx((const Npp8u *)im->src, (Npp32s)im->spitch, size, origin,
                      (Npp8u *)im->dst, (Npp32s)im->dpitch, size, ntaps, dtaps, NPP_BORDER_REPLICATE, ctx);
        else
            st = im->channels == 1
                ? nppiFilterGaussBorder_8u_C1R_Ctx((const Npp8u *)im->src, (Npp32s)im->spitch, size, origin,
                      (Npp8u *)im->dst, (Npp32s)im->dpitch, size, NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx)
                : nppiFilterGaussBorder_8u_C4R_Ctx((const Npp8u *)im->src, (Npp32s)im->spitch, size, origin,
                      (Npp8u *)im->dst, (Npp32s)im->dpitch, size, NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx);
        if (st != NPP_SUCCESS) {
            snprintf(err, cap, "%s_8u_C%dR_Ctx: NppStatus %d", which == NPPPEER_GAUSS_ADVANCED ?
                     "nppiFilterGaussAdvancedBorder" : "nppiFilterGaussBorder", im->channels, (int)st);
            goto fail;
        }
    }
    RT(cudaEventRecord(e1, s));
    RT(cudaEventSynchronize(e1));
    RT(cudaEventElapsedTime(ms, e0, e1));
    rc = 0;
fail:
    if (rc != 0) cudaStreamSynchronize(s);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (dtaps) cudaFreeHost(dtaps);
    return rc;
}

} /* extern "C" */
#endif
