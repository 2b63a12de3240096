/* bench_imma_rate - the rate of the int8 tensor-core product the 8-bit blur kernels use
   (mma.sync m16n8k32, unsigned bytes, 32-bit sums: mgpu_kernels.cu's mma_u8) on one GPU,
   with the CUDA runtime; for issue 17's bound on those kernels (README, the tensor-core
   blur paragraph).

     independent   every warp runs 8 independent accumulators (products back to back), at
                   4, 8, 16 and 32 warps a multiprocessor: products a second, and the int8
                   operations a second (2 x 16 x 8 x 32 a product)
     chain         one warp a multiprocessor, each product on the one before: its latency

   Checked, not just timed: one product of constant fragments (every A byte a, every B byte
   b, C = c) must give 32 a b + c in every lane's 4 sums. Timed with CUDA events, best of 5
   launches after a warm-up. Prints `imma rate=<G a second> ...`; exits 0, 1 (the check
   failed) or 77 (no sm_80+ GPU: skipped), as the other benchmarks. */
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ void mma_u8(unsigned d[4], const unsigned a[4], const unsigned b[2], const unsigned c[4])
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
}

__global__ void check(unsigned a, unsigned b, unsigned c, unsigned *bad)
{
    const unsigned af[4] = { a * 0x01010101u, a * 0x01010101u, a * 0x01010101u, a * 0x01010101u };
    const unsigned bf[2] = { b * 0x01010101u, b * 0x01010101u }, cf[4] = { c, c, c, c };
    unsigned d[4];
    mma_u8(d, af, bf, cf);
    for (int q = 0; q < 4; q++)
        if (d[q] != 32u * a * b + c) atomicAdd(bad, 1u);
}

template <int IND>
__global__ void rate(int iters, unsigned seed, unsigned *out)
{
    unsigned a[4], b[2], d[IND][4];
    for (int q = 0; q < 4; q++) a[q] = seed * (threadIdx.x + 7u * q + 1u);
    b[0] = seed ^ threadIdx.x;
    b[1] = seed + threadIdx.x;
    for (int i = 0; i < IND; i++)
        for (int q = 0; q < 4; q++) d[i][q] = i + q;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int i = 0; i < IND; i++) mma_u8(d[i], a, b, d[i]);
    }
    unsigned s = 0;
    for (int i = 0; i < IND; i++)
        for (int q = 0; q < 4; q++) s += d[i][q];
    if (s == 0x12345678u) out[0] = s;                   /* keeps the products */
}

template <int IND>
static float best_ms(int blocks, int threads, int iters, unsigned *o)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    rate<IND><<<blocks, threads>>>(iters, 3u, o);
    float best = 1e30f, ms;
    for (int r = 0; r < 5; r++) {
        cudaEventRecord(e0);
        rate<IND><<<blocks, threads>>>(iters, 5u + r, o);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

int main()
{
    int sms = 0, major = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess) {
        printf("skip: no CUDA device\n");
        return 77;
    }
    if (major < 8) { printf("skip: sm_%d0 has no m16n8k32 int8 product\n", major); return 77; }
    unsigned *o = nullptr;
    cudaMalloc(&o, 2 * sizeof(unsigned));
    cudaMemset(o, 0, 2 * sizeof(unsigned));
    check<<<1, 32>>>(200u, 250u, 12345u, o + 1);
    unsigned bad = 1;
    cudaMemcpy(&bad, o + 1, sizeof bad, cudaMemcpyDeviceToHost);
    if (bad) { printf("FAIL: the product of constant fragments is wrong in %u sums\n", bad); return 1; }
    const int iters = 20000;
    for (int wps = 4; wps <= 32; wps *= 2) {
        const int blocks = sms * wps / 4;
        const double n = (double)blocks * 4 * iters * 8, ms = best_ms<8>(blocks, 128, iters, o);
        printf("imma rate=%.1f G/s independent warps_per_sm=%d (%.3f per SM and ns; %.0f T int8 ops/s)\n",
               n / ms / 1e6, wps, n / ms / 1e6 / sms, n / ms / 1e6 * 8192 / 1e3);
    }
    const float ms = best_ms<1>(sms, 32, iters, o);
    printf("imma chain latency=%.1f ns (one warp a multiprocessor)\n", ms * 1e6 / iters);
    cudaFree(o);
    return 0;
}
