/* msm_bench.cuh - what bench_bn_field and bench_curve_affine share: the MSM section of
   mgpu_kernels.cu (build/msm_section.cu), the CUDA error check, the random point indices of
   their gathered additions and the timing of a launch.
   Define BENCH_NAME (the program's name, for its error messages) and NPTS_LOG (2^NPTS_LOG
   points in the table the indices reach) before including it. */
#ifndef MSM_BENCH_CUH
#define MSM_BENCH_CUH
/* The section's F_p2 lane exchange names the kernel emulator's emu_pair_swap where
   __CUDA_ARCH__ is not defined: nvcc's host pass parses that branch and never calls it. */
void emu_pair_swap(unsigned *out, const unsigned *v, int m);
#include "msm_section.cu"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CU(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, BENCH_NAME ": %s: %s\n", #call, cudaGetErrorString(e_));              \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

#define NPTS_MASK ((1u << NPTS_LOG) - 1)
__device__ __forceinline__ u32 mix32(u32 h)
{
    h ^= h >> 15; h *= 0x2c1b3c6du; h ^= h >> 12; h *= 0x297a2d39u; h ^= h >> 15;
    return h;
}
/* The j-th point of thread t: at random, or (SEQ) in order across the threads; j odd never
   the same point as j - 1, so that no pair needs a doubling. */
template <bool SEQ> __device__ __forceinline__ u32 point_at(u32 t, u32 j, u32 threads)
{
    if (SEQ) return (j * threads + t) & NPTS_MASK;
    const u32 first = mix32(t * 0x9e3779b1u + (j & ~1u) * 0x85ebca6bu + 1);
    return (first + (j & 1) * (1 + mix32(first) % NPTS_MASK)) & NPTS_MASK;
}
/* 5 timed launches after a warm-up, in ms: the rank-th fastest (0 the best, 2 the median). */
template <typename L> static float launches_ms(L launch, int rank)
{
    float v[5];
    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    launch();
    for (int r = 0; r < 5; r++) {
        CU(cudaEventRecord(e0));
        launch();
        CU(cudaEventRecord(e1));
        CU(cudaEventSynchronize(e1));
        CU(cudaGetLastError());
        CU(cudaEventElapsedTime(&v[r], e0, e1));
    }
    CU(cudaEventDestroy(e0));
    CU(cudaEventDestroy(e1));
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) { float x = v[j]; v[j] = v[j - 1]; v[j - 1] = x; }
    return v[rank];
}
#endif
