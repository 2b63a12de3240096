/* bench_imma_rate - the rate of the int8 tensor-core product the 8-bit blur kernels use
   (mma.sync m16n8k32, unsigned bytes, 32-bit sums: mgpu_kernels.cu's mma_u8) on one GPU,
   with the CUDA runtime; for issue 17's bound on those kernels (README, the tensor-core
   blur paragraph).

     independent   every warp runs 8 independent accumulators (products back to back), at
                   4, 8, 16 and 32 warps a multiprocessor: products a second, and the int8
                   operations a second (2 x 16 x 8 x 32 a product)
     k16           the same for m16n8k16 (half the K), at 16 warps a multiprocessor
     chain         one warp a multiprocessor, each product on the one before: its latency
     wgmma         (built for sm_90a, run on cc 9.0) Hopper's warpgroup product m64nNk32,
                   N = 8, 16, 32, 64, A from registers (rs) or shared memory (ss), B from
                   shared memory, at 1, 2 and 4 warpgroups a multiprocessor; first checked
                   on random bytes against the host's product. Does it beat mma.sync at the
                   shapes a banded product can use? (A step of N rows reads N + 2r rows.)

   Checked, not just timed: one product of constant fragments (every A byte a, every B byte
   b, C = c) must give 32 a b + c in every lane's 4 sums; the wgmma products, the host's.
   Timed with CUDA events, best of 5 launches after a warm-up. Prints `imma rate=<G a
   second> ...`; exits 0, 1 (a check failed) or 77 (no sm_80+ GPU: skipped), as the other
   benchmarks. */
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ void mma_u8(unsigned d[4], const unsigned a[4], const unsigned b[2], const unsigned c[4])
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
}

/* m16n8k16: half the K, a[0], a[1] and b[0] of the fragments above. */
__device__ __forceinline__ void mma_u8_k16(unsigned d[4], const unsigned a[4], const unsigned b[2], const unsigned c[4])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
}

__global__ void check(unsigned a, unsigned b, unsigned c, unsigned *bad)
{
    const unsigned af[4] = { a * 0x01010101u, a * 0x01010101u, a * 0x01010101u, a * 0x01010101u };
    const unsigned bf[2] = { b * 0x01010101u, b * 0x01010101u }, cf[4] = { c, c, c, c };
    unsigned d[4];
    mma_u8(d, af, bf, cf);
    for (int q = 0; q < 4; q++)
        if (d[q] != 32u * a * b + c) atomicAdd(bad, 1u);
    mma_u8_k16(d, af, bf, cf);
    for (int q = 0; q < 4; q++)
        if (d[q] != 16u * a * b + c) atomicAdd(bad, 1u);
}

template <int IND, bool K16 = false>
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
        for (int i = 0; i < IND; i++) {
            if constexpr (K16) mma_u8_k16(d[i], a, b, d[i]);
            else mma_u8(d[i], a, b, d[i]);
        }
    }
    unsigned s = 0;
    for (int i = 0; i < IND; i++)
        for (int q = 0; q < 4; q++) s += d[i][q];
    if (s == 0x12345678u) out[0] = s;                   /* keeps the products */
}

#if defined(MGPU_WGMMA)
/* Hopper's warpgroup product (wgmma, sm_90a): D (64 x N, 32-bit sums) += A (64 x 32 bytes)
   . B (32 x N bytes), issued by the 4 warps of a warpgroup together and run asynchronously.
   B (and A in the "ss" form) is read from shared memory through a descriptor; here in the
   layout without swizzle, K-major: 8 x 16-byte core matrices of 128 contiguous bytes, the
   two along K 128 bytes apart (leading offset), 8-row groups 256 bytes apart (stride
   offset). In the "rs" form each warp holds its 16 rows of A in registers, laid out as
   mma_u8's A fragment. D: register i of a lane (g = lane / 4, t = lane % 4, warp w of the
   group) is row 16 w + g + 8 ((i >> 1) & 1), column 8 (i >> 2) + 2 t + (i & 1). */
template <int N> struct wg;
/* The wgmma code exists in the sm_90a cubin only; the compute_90 PTX beside it (for GPUs
   after Hopper, which run the mma.sync part) has none, and the host runs it on cc 9.0 only. */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_ASM(...) do { } while (0)
#else
#define WG_ASM asm volatile
#endif
template <> struct wg<8> {
    static __device__ void rs(unsigned *d, const unsigned *a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.u8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc) : "memory"); }
    static __device__ void ss(unsigned *d, unsigned long long a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.u8 {%0, %1, %2, %3}, %4, %5, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "l"(a), "l"(b), "r"(acc) : "memory"); }
};
template <> struct wg<16> {
    static __device__ void rs(unsigned *d, const unsigned *a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc) : "memory"); }
    static __device__ void ss(unsigned *d, unsigned long long a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                 : "l"(a), "l"(b), "r"(acc) : "memory"); }
};
template <> struct wg<32> {
    static __device__ void rs(unsigned *d, const unsigned *a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc) : "memory"); }
    static __device__ void ss(unsigned *d, unsigned long long a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                 : "l"(a), "l"(b), "r"(acc) : "memory"); }
};
template <> struct wg<64> {
    static __device__ void rs(unsigned *d, const unsigned *a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc) : "memory"); }
    static __device__ void ss(unsigned *d, unsigned long long a, unsigned long long b, int acc)
    { WG_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                 : "l"(a), "l"(b), "r"(acc) : "memory"); }
};

__device__ __forceinline__ unsigned long long wg_desc(const void *p, unsigned lead, unsigned stride)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    return (unsigned long long)((s & 0x3FFFFu) >> 4) | (unsigned long long)(lead >> 4) << 16 | (unsigned long long)(stride >> 4) << 32;
}
__device__ __forceinline__ void wg_fence() { WG_ASM("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { WG_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int K> __device__ __forceinline__ void wg_wait() { WG_ASM("wgmma.wait_group.sync.aligned %0;\n" :: "n"(K) : "memory"); }
__device__ __forceinline__ int wg_off(int row, int k) { return row / 8 * 256 + k / 16 * 128 + row % 8 * 16 + k % 16; }

/* The product of random bytes a (64 x 32, row-major) and b (N x 32: B transposed, row-major)
   by one warpgroup, A from registers (AREG) or shared memory, set (scale-d false) and then
   added once more: d = 2 a . b (64 x N, row-major). */
template <int N, bool AREG>
__global__ void wg_check(const unsigned char *a, const unsigned char *b, unsigned *d)
{
    __shared__ __align__(128) unsigned char sa[64 * 32], sb[N * 32];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
    for (int e = tid; e < 64 * 32; e += 128) sa[wg_off(e / 32, e % 32)] = a[e];
    for (int e = tid; e < N * 32; e += 128) sb[wg_off(e / 32, e % 32)] = b[e];
    WG_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    unsigned af[4], acc[N / 2];
    for (int q = 0; q < 4; q++)
        af[q] = *(const unsigned *)(a + (16 * w + g + 8 * (q & 1)) * 32 + 4 * t + 16 * (q >> 1));
    for (int i = 0; i < N / 2; i++) acc[i] = 0u;        /* (not read: the first product does not add) */
    wg_fence();
    if constexpr (AREG) { wg<N>::rs(acc, af, wg_desc(sb, 128, 256), 0); wg<N>::rs(acc, af, wg_desc(sb, 128, 256), 1); }
    else { wg<N>::ss(acc, wg_desc(sa, 128, 256), wg_desc(sb, 128, 256), 0); wg<N>::ss(acc, wg_desc(sa, 128, 256), wg_desc(sb, 128, 256), 1); }
    wg_commit();
    wg_wait<0>();
    for (int i = 0; i < N / 2; i++)
        d[(16 * w + g + 8 * ((i >> 1) & 1)) * N + 8 * (i >> 2) + 2 * t + (i & 1)] = acc[i];
}

/* IND independent accumulators a warpgroup, one group of IND products in flight while the
   next is issued. */
template <int N, int IND, bool AREG>
__global__ void wg_rate(int iters, unsigned seed, unsigned *out)
{
    __shared__ __align__(128) unsigned char sa[64 * 32], sb[N * 32];
    const int tid = threadIdx.x;
    for (int e = tid; e < 64 * 32; e += blockDim.x) sa[e] = (unsigned char)(seed * (e + 1));
    for (int e = tid; e < N * 32; e += blockDim.x) sb[e] = (unsigned char)(seed * (e + 3));
    WG_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const unsigned long long da = wg_desc(sa, 128, 256), db = wg_desc(sb, 128, 256);
    unsigned af[4], acc[IND][N / 2];
    for (int q = 0; q < 4; q++) af[q] = seed * (tid + 7u * q + 1u);
    for (int i = 0; i < IND; i++)
        for (int j = 0; j < N / 2; j++) acc[i][j] = i + j;
    for (int it = 0; it < iters; it++) {
        wg_fence();
        if constexpr (AREG) {
#pragma unroll
            for (int i = 0; i < IND; i++) wg<N>::rs(acc[i], af, db, 1);
        } else {
#pragma unroll
            for (int i = 0; i < IND; i++) wg<N>::ss(acc[i], da, db, 1);
        }
        wg_commit();
        if (IND > 1) wg_wait<1>(); else wg_wait<0>();
    }
    wg_wait<0>();
    unsigned s = 0;
    for (int i = 0; i < IND; i++)
        for (int j = 0; j < N / 2; j++) s += acc[i][j];
    if (s == 0x12345678u) out[0] = s;
}
#endif

/* The best of 5 timed launches after a warm-up (CUDA events), in ms; launch(r) launches once. */
template <class F>
static float best_ms(F launch)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    launch(0);
    float best = 1e30f, ms;
    for (int r = 1; r <= 5; r++) {
        cudaEventRecord(e0);
        launch(r);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

#if defined(MGPU_WGMMA)
/* wg_check for one N, A from registers and from shared memory, against the host's product:
   the number of wrong sums. */
template <int N>
static long wg_check_n(unsigned char *da, unsigned char *db, unsigned *dd)
{
    static unsigned char a[64 * 32], b[N * 32];
    static unsigned d[64 * N];
    unsigned x = 12345u + N;
    for (int e = 0; e < 64 * 32; e++) a[e] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    for (int e = 0; e < N * 32; e++) b[e] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    long bad = 0;
    for (int areg = 0; areg < 2; areg++) {
        cudaMemset(dd, 0, sizeof d);
        if (areg) wg_check<N, true><<<1, 128>>>(da, db, dd);
        else wg_check<N, false><<<1, 128>>>(da, db, dd);
        if (cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost) != cudaSuccess) return -1;
        for (int m = 0; m < 64; m++)
            for (int n = 0; n < N; n++) {
                unsigned s = 0u;            /* twice the product: once set, once added */
                for (int k = 0; k < 32; k++) s += 2u * a[m * 32 + k] * b[n * 32 + k];
                bad += d[m * N + n] != s;
            }
    }
    return bad;
}

/* wg_rate for one N at 1, 2 and 4 warpgroups a multiprocessor, A from registers (rs) and
   shared memory (ss). A product m64nNk32 is N / 2 of mma_u8's m16n8k32. */
template <int N, int IND>
static void wg_rate_n(int sms, unsigned *o)
{
    const int iters = 20000;
    for (int areg = 1; areg >= 0; areg--)
        for (int wgs = 1; wgs <= 4; wgs *= 2) {
            const float ms = best_ms([&](int r) {
                if (areg) wg_rate<N, IND, true><<<sms * wgs, 128>>>(iters, 5u + r, o);
                else wg_rate<N, IND, false><<<sms * wgs, 128>>>(iters, 5u + r, o);
            });
            const double n = (double)sms * wgs * iters * IND;
            printf("wgmma rate m64n%dk32 %s warpgroups_per_sm=%d: %.1f G/s (%.1f G m16n8k32 a second; %.0f T int8 ops/s)\n",
                   N, areg ? "rs" : "ss", wgs, n / ms / 1e6, n / ms / 1e6 * N / 2, n / ms / 1e6 * 2.0 * 64 * N * 32 / 1e3);
        }
}
#endif

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
        const double n = (double)blocks * 4 * iters * 8;
        const float ms = best_ms([&](int r) { rate<8><<<blocks, 128>>>(iters, 5u + r, o); });
        printf("imma rate=%.1f G/s independent warps_per_sm=%d (%.3f per SM and ns; %.0f T int8 ops/s)\n",
               n / ms / 1e6, wps, n / ms / 1e6 / sms, n / ms / 1e6 * 8192 / 1e3);
    }
    {
        const int blocks = sms * 4;
        const double n = (double)blocks * 4 * iters * 8;
        const float ms = best_ms([&](int r) { rate<8, true><<<blocks, 128>>>(iters, 5u + r, o); });
        printf("imma k16 rate=%.1f G/s independent warps_per_sm=16 (m16n8k16: half the K; %.0f T int8 ops/s)\n",
               n / ms / 1e6, n / ms / 1e6 * 4096 / 1e3);
    }
    const float ms = best_ms([&](int r) { rate<1><<<sms, 32>>>(iters, 5u + r, o); });
    printf("imma chain latency=%.1f ns (one warp a multiprocessor)\n", ms * 1e6 / iters);
#if defined(MGPU_WGMMA)
    int minor = 0;
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    if (major == 9 && minor == 0) {
        unsigned char *da = nullptr, *db = nullptr;
        unsigned *dd = nullptr;
        cudaMalloc(&da, 64 * 32);
        cudaMalloc(&db, 64 * 32);
        cudaMalloc(&dd, 64 * 64 * sizeof(unsigned));
        const long bad = wg_check_n<8>(da, db, dd) + wg_check_n<16>(da, db, dd) + wg_check_n<32>(da, db, dd) + wg_check_n<64>(da, db, dd);
        cudaFree(da);
        cudaFree(db);
        cudaFree(dd);
        if (bad) { printf("FAIL: wgmma products of random bytes: %ld wrong sums\n", bad); return 1; }
        wg_rate_n<8, 8>(sms, o);
        wg_rate_n<16, 4>(sms, o);
        wg_rate_n<32, 2>(sms, o);
        wg_rate_n<64, 2>(sms, o);
        const float lat = best_ms([&](int r) { wg_rate<8, 1, true><<<sms, 128>>>(iters, 5u + r, o); });
        printf("wgmma chain latency=%.1f ns (m64n8k32 rs, one warpgroup a multiprocessor, issue to wait)\n", lat * 1e6 / iters);
    }
#endif
    cudaFree(o);
    return 0;
}
