/* bench_bn_field - throughput of mgpu's BN254 base-field arithmetic on one GPU: the code of
   mgpu_kernels.cu's MSM section (build/msm_section.cu, as the kernel emulator takes it),
   compiled into small kernels here with the CUDA runtime.

     mul      a_k <- a_k * b_k, the unrolled lazy multiplication (mul<FP>: in and out [0, 2p))
     sqr      a_k <- a_k^2 (sqr<FP>: 512-bit square, one reduction)
     madd     acc <- acc + P, the mixed XYZZ addition of the bucket accumulation (add_affine)
     bn254_fp2_mul, bls12_381_fp_mul, bls12_381_fp2_mul (and _sqr): the other MSM groups'
              tuned products (mgpu_cv::ext<F, D, true>), beside their compact ones

   Then the same additions with the accumulation's memory pattern, and the alternative issue
   13 asks to measure before building it (affine sums with a batched inversion), over a
   table of 2^24 random points (1 GB) and one wave of threads (2 blocks of 256 an SM):
     madd_gather   buckets of 32 points gathered at random, one mixed XYZZ addition each
                   after the first (msm_accumulate's loop)
     affine_batch  K pairs of points gathered at random summed in affine coordinates,
                   x3 = l^2 - xa - xb, y3 = l (xa - x3) - ya, l = (yb - ya) / (xb - xa),
                   the K divisions by one inversion (Montgomery's trick: the running
                   product stored before each pair, the inverse of the whole product by
                   Fermat with 4-bit windows, then the pairs in reverse): 5 multiplications
                   and a square a sum, against the mixed addition's 8 and 2
     affine_seq    the same with the pairs read in order (thread t's pair i at 2 (i T + t)):
                   the reads of a tree's later rounds, which would read the sums before them
   The affine sums are checked against the mixed additions of the same pairs (as points).

   Then the FP64 variants (bn_field_fp64.h, docs/msm_fp64.md): the multiplication in 52-bit
   limbs on the FP64 pipe in product chains, and the mixed additions with chosen products on
   it, in registers and gathered (products split inside an addition, or whole additions in
   some warps), every output word compared with the integer code's. BN_PROFILE=1 runs only
   the gathered variants, once each, for ncu (bench/bn_field_fp64.sh).

   Every thread runs CHAINS independent chains of ITERS operations (one chain of additions);
   the results are folded into one word per thread. Checked, not just timed: the lazy chains'
   results, reduced, equal the compact multiplication's (mul<FP, false>, canonical, a
   different loop) over the same chain for the first CHECK threads, and the additions equal
   full XYZZ additions (add_xyzz, another formula) as points (x / zz, y / zzz). Timed with
   CUDA events, best of 5 launches after a warm-up, a grid of 4 waves (occupancy API).
   Prints `mgpu_field op=<op> G_per_s=<x>`; era-bellman-cuda's fd_p::mul is timed the same
   way by its peer program (.peers/field_bench, built outside this repository).

   make build/bench_bn_field [ARCH=sm_90]; ./build/bench_bn_field [ITERS=2048] [DEVICE=0]
   Exit: 0, 1 on a CUDA error or a wrong result, 77 without the GPU. */
#define BENCH_NAME "bench_bn_field"
enum { NPTS_LOG = 24 };
#include "msm_bench.cuh"
#include "bn_field_fp64.h"
#include <string.h>

enum { CHAINS = 8, THREADS = 256, CHECK = 512 };
enum { OP_MUL, OP_SQR, OP_MUL_COMPACT, OP_SQR_COMPACT, OP_MADD, OP_ADD_FULL };

/* Chain k of thread t starts at (t, k + 1, 0, ..) and uses b[k] (values below p); the N
   results, reduced, are folded into one word. */
template <int N> __device__ __forceinline__ void chains_start(u32 (*a)[8], u32 (*b)[8], const u32 *b_in, u32 tid)
{
#pragma unroll
    for (int k = 0; k < N; k++) {
#pragma unroll
        for (int j = 0; j < 8; j++) { a[k][j] = j == 0 ? tid : j == 1 ? k + 1 : 0; b[k][j] = b_in[8 * k + j]; }
    }
}
template <int N> __device__ __forceinline__ u32 chains_fold(u32 (*a)[8])
{
    u32 x = 0;
#pragma unroll
    for (int k = 0; k < N; k++) {
        reduce_once<FP>(a[k], a[k]);
#pragma unroll
        for (int j = 0; j < 8; j++) x ^= a[k][j] * (2 * j + 1) + k;
    }
    return x;
}
template <int OP> __global__ void __launch_bounds__(THREADS) chains(const u32 *b_in, unsigned iters, u32 *out)
{
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 a[CHAINS][8], b[CHAINS][8];
    chains_start<CHAINS>(a, b, b_in, tid);
#pragma unroll 1
    for (unsigned i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < CHAINS; k++) {
            if (OP == OP_MUL) mul<FP>(a[k], a[k], b[k]);
            else if (OP == OP_SQR) sqr<FP>(a[k], a[k]);
            else if (OP == OP_MUL_COMPACT) mul<FP, false>(a[k], a[k], b[k]);
            else mul<FP, false>(a[k], a[k], a[k]);
        }
    }
    out[tid] = chains_fold<CHAINS>(a);
}

/* The other groups' fields (mgpu_cv::ext<F, D, FAST>: F_p of BLS12-381, F_p2 of BN254 and
   BLS12-381): CV_CHAINS chains a <- a b (SQ: a <- a^2) with the tuned (FAST) or the compact
   products; chain k of thread t starts at (t, k + 1, 0, ..) with b fixed (below p); the
   results, canonical, folded into one word. */
enum { CV_CHAINS = 4 };
template <class F, int D, bool SQ, bool FAST> __global__ void __launch_bounds__(THREADS) cv_chains(const u32 *b_in, unsigned iters, u32 *out)
{
    typedef mgpu_cv::ext<F, D, FAST> E;
    enum { W = E::W };
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 a[CV_CHAINS][W], b[CV_CHAINS][W], x = 0;
    (void)b_in;
#pragma unroll
    for (int k = 0; k < CV_CHAINS; k++)
#pragma unroll
        for (int j = 0; j < W; j++) {
            a[k][j] = j == 0 ? tid : j == 1 ? k + 1 : 0;
            b[k][j] = (0x9e3779b9u * (u32)(k * W + j + 7)) ^ (u32)((k * W + j) * 0x85ebca6bu);
            if (j % F::N == F::N - 1) b[k][j] &= 0x0fffffffu;   /* below p */
        }
#pragma unroll 1
    for (unsigned i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < CV_CHAINS; k++) {
            if (SQ) E::sqr(a[k], a[k]);
            else E::mul(a[k], a[k], b[k]);
        }
    }
#pragma unroll
    for (int k = 0; k < CV_CHAINS; k++) {
        E::canon(a[k]);
#pragma unroll
        for (int j = 0; j < W; j++) x ^= a[k][j] * (2 * j + 1) + k;
    }
    out[tid] = x;
}

/* acc = (t, 1) lifted, then acc += P_(i % 2) for i < iters (even; P from b). OP_MADD: add_affine
   (add_affine_x<FM> of bn_field_fp64.h: the products of FM on the FP64 pipe); OP_ADD_FULL:
   add_xyzz with P lifted to XYZZ (zz = zzz = 1). Writes the XYZZ result. */
template <int OP, unsigned FM = 0> __global__ void __launch_bounds__(THREADS) additions(const u32 *b_in, unsigned iters, u32 *out)
{
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    xyzz acc, q;
    u32 px[2][8], py[2][8];
#pragma unroll
    for (int j = 0; j < 8; j++) {
        acc.x[j] = j == 0 ? tid : 0; acc.y[j] = j == 0 ? 1 : 0;
        acc.zz[j] = ONE_P[j]; acc.zzz[j] = ONE_P[j];
        px[0][j] = b_in[j]; py[0][j] = b_in[8 + j]; px[1][j] = b_in[16 + j]; py[1][j] = b_in[24 + j];
    }
#pragma unroll 1
    for (unsigned i = 0; i < iters; i += 2) {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            if (OP == OP_MADD) {
                mgpu_fp64::add_affine_x<FM>(acc, px[s], py[s], false);
            } else {
                copy(q.x, px[s]); copy(q.y, py[s]); copy(q.zz, ONE_P); copy(q.zzz, ONE_P);
                add_xyzz(acc, q);
            }
        }
    }
    reduce_once<FP>(acc.x, acc.x); reduce_once<FP>(acc.y, acc.y);
    reduce_once<FP>(acc.zz, acc.zz); reduce_once<FP>(acc.zzz, acc.zzz);
    store_xyzz(out + (u64)tid * 32, acc);
}
/* out[t] = 1 where the two XYZZ results of thread t are the same point (x1 zz2 = x2 zz1, y1 zzz2 = y2 zzz1) */
__global__ void same_points(const u32 *p, const u32 *q, unsigned count, u32 *out)
{
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    xyzz a, b;
    u32 l[8], r[8];
    load_xyzz(a, p + (u64)t * 32);
    load_xyzz(b, q + (u64)t * 32);
    mul<FP, false>(l, a.x, b.zz); mul<FP, false>(r, b.x, a.zz);
    bool ok = equal(l, r) && !is_zero(a.zz);
    mul<FP, false>(l, a.y, b.zzz); mul<FP, false>(r, b.y, a.zzz);
    out[t] = ok && equal(l, r);
}

static int device_id;
static cudaDeviceProp prop;

/* ---- gathered additions */
enum { BUCKET = 32, GATHER_ENTRIES = 1024, GATHER_THREADS = 256 };
__global__ void fill_points(u32 *pts)
{
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int w = 0; w < 16; w++) pts[(u64)i * 16 + w] = mix32(i * 16 + w + 0x51ed270bu) & (w % 8 == 7 ? 0x0fffffffu : ~0u);
}
__device__ __forceinline__ void load_point(const u32 *pts, u32 i, u32 *x, u32 *y)
{
    load8(x, pts + (u64)i * 16);
    load8(y, pts + (u64)i * 16 + 8);
}
/* One bucket of the gathered additions: thread t's bucket b (BUCKET points) summed by
   add_affine_x<MA> (first) or <MB> (add_affine for 0) and stored, reduced if REDUCE. */
template <unsigned MA, unsigned MB, bool REDUCE = true>
__device__ __forceinline__ void gather_bucket(const u32 *pts, u32 *out, u32 threads, u32 t, u32 b, bool first)
{
    xyzz acc;
    u32 x[8], y[8];
    load_point(pts, point_at<false>(t, b * BUCKET, threads), x, y);
    set_affine(acc, x, y, false);
#pragma unroll 1
    for (u32 j = 1; j < BUCKET; j++) {
        load_point(pts, point_at<false>(t, b * BUCKET + j, threads), x, y);
        if (MA == MB || first) mgpu_fp64::add_affine_x<MA>(acc, x, y, false);
        else mgpu_fp64::add_affine_x<MB>(acc, x, y, false);
    }
    if (REDUCE) {
        reduce_once<FP>(acc.x, acc.x); reduce_once<FP>(acc.y, acc.y);
        reduce_once<FP>(acc.zz, acc.zz); reduce_once<FP>(acc.zzz, acc.zzz);
    }
    store_xyzz(out + ((u64)b * threads + t) * 32, acc);
}
__global__ void __launch_bounds__(GATHER_THREADS, 2) madd_gather(const u32 *pts, u32 *out, u32 threads)
{
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 b = 0; b < GATHER_ENTRIES / BUCKET; b++) gather_bucket<0, 0, false>(pts, out, threads, t, b, true);
}
/* 1 / a = a^(p - 2), 4 bits at a time (lazy in and out) */
__device__ __noinline__ void inv_fermat(u32 *o, const u32 *a)
{
    u32 pow[16][8], r[8];
    copy(pow[0], ONE_P);
    copy(pow[1], a);
    for (int i = 2; i < 16; i++) mul<FP>(pow[i], pow[i - 1], a);
    copy(r, pow[PM2[7] >> 28]);
    for (int n = 62; n >= 0; n--) {
        for (int k = 0; k < 4; k++) sqr<FP>(r, r);
        const u32 d = (PM2[n / 8] >> (n % 8 * 4)) & 15;
        if (d) mul<FP>(r, r, pow[d]);
    }
    copy(o, r);
}
template <bool SEQ> __global__ void __launch_bounds__(GATHER_THREADS, 2)
affine_batch(const u32 *pts, u32 *prefix, u32 *out, u32 threads, u32 pairs)
{
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 acc[8], inv[8];
    copy(acc, ONE_P);
#pragma unroll 1
    for (u32 i = 0; i < pairs; i++) {
        u32 xa[8], xb[8], d[8];
        load8(xa, pts + (u64)point_at<SEQ>(t, 2 * i, threads) * 16);
        load8(xb, pts + (u64)point_at<SEQ>(t, 2 * i + 1, threads) * 16);
        sub<FP>(d, xb, xa);
        store8(prefix + ((u64)i * threads + t) * 8, acc);   /* the product before pair i */
        mul<FP>(acc, acc, d);
    }
    inv_fermat(inv, acc);
#pragma unroll 1
    for (u32 i = pairs; i-- > 0;) {
        u32 xa[8], ya[8], xb[8], yb[8], d[8], l[8], s[8];
        load_point(pts, point_at<SEQ>(t, 2 * i, threads), xa, ya);
        load_point(pts, point_at<SEQ>(t, 2 * i + 1, threads), xb, yb);
        load8(s, prefix + ((u64)i * threads + t) * 8);
        sub<FP>(d, xb, xa);
        mul<FP>(s, inv, s);                            /* 1 / (xb - xa) */
        mul<FP>(inv, inv, d);                          /* 1 / the product before pair i */
        sub<FP>(d, yb, ya);
        mul<FP>(l, d, s);
        sqr<FP>(s, l);
        sub<FP>(s, s, xa);
        sub<FP>(s, s, xb);                             /* x3 */
        sub<FP>(d, xa, s);
        mul<FP>(d, l, d);
        sub<FP>(d, d, ya);                             /* y3 */
        store8(out + ((u64)i * threads + t) * 16, s);
        store8(out + ((u64)i * threads + t) * 16 + 8, d);
    }
}
/* Counts the sampled pairs (every 61st) whose affine sum is not the mixed addition's. */
template <bool SEQ> __global__ void check_affine(const u32 *pts, const u32 *out, u32 threads, u32 pairs, u32 *bad)
{
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 i = t % 61; i < pairs; i += 61) {
        u32 x[8], y[8], l[8], r[8];
        xyzz acc;
        load_point(pts, point_at<SEQ>(t, 2 * i, threads), x, y);
        set_affine(acc, x, y, false);
        load_point(pts, point_at<SEQ>(t, 2 * i + 1, threads), x, y);
        add_affine(acc, x, y, false);
        load8(x, out + ((u64)i * threads + t) * 16);
        load8(y, out + ((u64)i * threads + t) * 16 + 8);
        mul<FP>(l, x, acc.zz); reduce_once<FP>(l, l); reduce_once<FP>(r, acc.x);
        bool ok = equal(l, r);
        mul<FP>(l, y, acc.zzz); reduce_once<FP>(l, l); reduce_once<FP>(r, acc.y);
        if (!(ok && equal(l, r))) atomicAdd(bad, 1u);
    }
}
/* affine_batch<SEQ> timed (median) and checked: its rate in G sums/s; *bad += the wrong sums. */
template <bool SEQ> static double affine_rate(const u32 *pts, u32 *prefix, u32 *out, u32 threads, u32 pairs, u32 *bad_dev,
                                              u32 *bad, float *ms)
{
    const u32 blocks = threads / GATHER_THREADS;
    u32 b;
    *ms = launches_ms([&] { affine_batch<SEQ><<<blocks, GATHER_THREADS>>>(pts, prefix, out, threads, pairs); }, 2);
    CU(cudaMemset(bad_dev, 0, 4));
    check_affine<SEQ><<<blocks, GATHER_THREADS>>>(pts, out, threads, pairs, bad_dev);
    CU(cudaMemcpy(&b, bad_dev, 4, cudaMemcpyDeviceToHost));
    *bad += b;
    return (double)threads * pairs / (*ms * 1e-3) / 1e9;
}
/* The gathered additions; 1 where an affine sum is wrong. */
static int gathered_additions(void)
{
    enum { PAIRS_MAX = 512 };
    const u32 threads = (u32)prop.multiProcessorCount * 2 * GATHER_THREADS, blocks = threads / GATHER_THREADS;
    u32 *pts, *prefix, *out, *bad, nbad = 0;
    const size_t out_bytes = (size_t)threads * PAIRS_MAX * 64;   /* >= madd_gather's sums */
    if (cudaMalloc(&pts, (size_t)64 << NPTS_LOG) != cudaSuccess) { cudaGetLastError(); printf("gathered additions: skipped: no 1 GB for the points\n"); return 0; }
    if (cudaMalloc(&prefix, (size_t)threads * PAIRS_MAX * 32) != cudaSuccess || cudaMalloc(&out, out_bytes) != cudaSuccess) {
        cudaGetLastError(); printf("gathered additions: skipped: too little memory\n"); return 0;
    }
    CU(cudaMalloc(&bad, 4));
    fill_points<<<(1u << NPTS_LOG) / 256, 256>>>(pts);
    float ms = launches_ms([&] { madd_gather<<<blocks, GATHER_THREADS>>>(pts, out, threads); }, 2);
    printf("mgpu_field op=madd_gather G_per_s=%.3f (buckets of %d gathered points; %u threads x %d entries, %.3f ms)\n",
           (double)threads * (GATHER_ENTRIES - GATHER_ENTRIES / BUCKET) / (ms * 1e-3) / 1e9, BUCKET, threads, GATHER_ENTRIES, ms);
    for (int seq = 0; seq < 2; seq++) {
        for (u32 pairs = seq ? PAIRS_MAX : 128; pairs <= PAIRS_MAX; pairs *= 4) {
            const u32 before = nbad;
            const double rate = seq ? affine_rate<true>(pts, prefix, out, threads, pairs, bad, &nbad, &ms)
                                    : affine_rate<false>(pts, prefix, out, threads, pairs, bad, &nbad, &ms);
            printf("mgpu_field op=%s G_per_s=%.3f (K = %u pairs a thread, one inversion; %.3f ms; %u sums checked wrong)\n",
                   seq ? "affine_seq" : "affine_batch", rate, pairs, ms, nbad - before);
        }
    }
    CU(cudaFree(pts));
    CU(cudaFree(prefix));
    CU(cudaFree(out));
    CU(cudaFree(bad));
    if (nbad) printf("WRONG: affine sums: %u differ from the mixed additions\n", nbad);
    return nbad != 0;
}


/* Best of 5 launches in ms; grid and threads of the launch. */
template <typename K> static float best_ms(K kernel, const u32 *b, unsigned iters, u32 *out, unsigned *blocks_out)
{
    int per_sm = 0;
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, 0));
    const unsigned blocks = (unsigned)prop.multiProcessorCount * (per_sm > 0 ? per_sm : 1) * 4;
    *blocks_out = blocks;
    return launches_ms([&] { kernel<<<blocks, THREADS>>>(b, iters, out); }, 0);
}

/* The first CHECK words (or points) of two kernels' outputs over the same inputs must agree. */
template <typename K1, typename K2> static int check(const char *what, K1 k1, K2 k2, const u32 *b, unsigned iters, int points)
{
    const size_t words = points ? 32 : 1;
    u32 *o1, *o2, *same, h1[CHECK], h2[CHECK];
    int bad = 0;
    CU(cudaMalloc(&o1, CHECK * words * 4));
    CU(cudaMalloc(&o2, CHECK * words * 4));
    CU(cudaMalloc(&same, CHECK * 4));
    k1<<<CHECK / THREADS, THREADS>>>(b, iters, o1);
    k2<<<CHECK / THREADS, THREADS>>>(b, iters, o2);
    CU(cudaGetLastError());
    if (points) {
        same_points<<<CHECK / THREADS, THREADS>>>(o1, o2, CHECK, same);
        CU(cudaMemcpy(h1, same, sizeof h1, cudaMemcpyDeviceToHost));
        for (int t = 0; t < CHECK; t++) bad += h1[t] != 1;
    } else {
        CU(cudaMemcpy(h1, o1, sizeof h1, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(h2, o2, sizeof h2, cudaMemcpyDeviceToHost));
        for (int t = 0; t < CHECK; t++) bad += h1[t] != h2[t];
    }
    CU(cudaFree(o1));
    CU(cudaFree(o2));
    CU(cudaFree(same));
    if (bad) printf("WRONG: %s: %d of %d threads differ from the reference\n", what, bad, CHECK);
    return bad != 0;
}

/* ---- the FP64 multiplication (bn_field_fp64.h) and the hybrid additions
   fchains<OP, N>: N chains a thread of a <- a b: OP_IMUL mul<FP> (the integer baseline at
   the same N), OP_FMUL fmul (u32[8] in and out: two conversions in, one out a product),
   OP_FNATIVE fmul_native (the limbs stay doubles: the conversions' cost is the difference).
   additions<OP_MADD, FM>: the additions kernel with add_affine_x<FM> (FM: the FP64 products).
   madd_gather_x<MA, MB, NA>: madd_gather with add_affine_x<MA> in warps w % 4 < NA and
   add_affine_x<MB> in the others (both pipes from one multiprocessor's warps), each thread
   its 32 buckets; madd_gather_dyn<MA, MB, NA> the same with the buckets handed out to
   warps as they finish. The sums are reduced before they are stored, so that every word is
   compared with the integer run's. */
enum { OP_IMUL = 10, OP_FMUL, OP_FNATIVE };
template <int OP, int N> __global__ void __launch_bounds__(THREADS) fchains(const u32 *b_in, unsigned iters, u32 *out)
{
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    u32 a[N][8], b[N][8];
    chains_start<N>(a, b, b_in, tid);
    if (OP == OP_FNATIVE) {
        double xa[N][5], yb[N][5];
#pragma unroll
        for (int k = 0; k < N; k++) { mgpu_fp64::to_limbs<0>(xa[k], a[k]); mgpu_fp64::to_limbs<4>(yb[k], b[k]); }
#pragma unroll 1
        for (unsigned i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < N; k++) mgpu_fp64::fmul_native(xa[k], xa[k], yb[k]);
        }
#pragma unroll
        for (int k = 0; k < N; k++) mgpu_fp64::native_to_u32(a[k], xa[k]);
    } else {
#pragma unroll 1
        for (unsigned i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < N; k++) {
                if (OP == OP_FMUL) mgpu_fp64::fmul(a[k], a[k], b[k]);
                else mul<FP>(a[k], a[k], b[k]);
            }
        }
    }
    out[tid] = chains_fold<N>(a);
}
template <unsigned MA, unsigned MB, int NA, int MINB = 2>
__global__ void __launch_bounds__(GATHER_THREADS, MINB) madd_gather_x(const u32 *pts, u32 *out, u32 threads, u32 *)
{
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    const bool first = (int)(threadIdx.x / 32 % 4) < NA;
    for (u32 b = 0; b < GATHER_ENTRIES / BUCKET; b++) gather_bucket<MA, MB>(pts, out, threads, t, b, first);
}
/* The same buckets handed out to warps 32 at a time from the counter *next (zero at the
   launch), so that warps of the slower kind take fewer: the split between the two kinds
   of warps follows their speeds, as the accumulation's pieces could. */
template <unsigned MA, unsigned MB, int NA>
__global__ void __launch_bounds__(GATHER_THREADS, 2) madd_gather_dyn(const u32 *pts, u32 *out, u32 threads, u32 *next)
{
    const bool first = (int)(threadIdx.x / 32 % 4) < NA;
    const u32 lane = threadIdx.x % 32, tasks = threads * (GATHER_ENTRIES / BUCKET);   /* threads: a multiple of 32 */
    for (;;) {
        u32 base = 0;
        if (lane == 0) base = atomicAdd(next, 32u);
        base = __shfl_sync(0xffffffffu, base, 0);
        if (base >= tasks) break;
        gather_bucket<MA, MB>(pts, out, threads, (base + lane) % threads, (base + lane) / threads, first);
    }
}
/* Runs `launch` (which writes `words` words at out) and, unless it is the reference, compares
   every word with ref; returns the number of words that differ. */
static size_t differing(const u32 *out_dev, const u32 *ref_dev, size_t words)
{
    const size_t chunk = (size_t)1 << 22;
    u32 *h1 = (u32 *)malloc(chunk * 4), *h2 = (u32 *)malloc(chunk * 4);
    size_t bad = 0;
    for (size_t o = 0; o < words; o += chunk) {
        const size_t n = words - o < chunk ? words - o : chunk;
        CU(cudaMemcpy(h1, out_dev + o, n * 4, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(h2, ref_dev + o, n * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) bad += h1[i] != h2[i];
    }
    free(h1);
    free(h2);
    return bad;
}
static bool profile_only;              /* BN_PROFILE=1: the gathered variants once each, for ncu */
/* A product chain kernel: timed (best of 5 at its occupancy grid) and checked (every thread
   of a fixed grid against the integer chains); returns 1 where a word differs. */
template <typename K> static int fchain_run(const char *name, K kernel, K ref, const u32 *b, unsigned iters, int n, double *rate)
{
    const unsigned cblocks = (unsigned)prop.multiProcessorCount * 4;
    u32 *o1, *o2;
    CU(cudaMalloc(&o1, (size_t)cblocks * THREADS * 4));
    CU(cudaMalloc(&o2, (size_t)cblocks * THREADS * 4));
    CU(cudaMemset(o1, 0xa5, (size_t)cblocks * THREADS * 4));
    kernel<<<cblocks, THREADS>>>(b, 64, o1);
    ref<<<cblocks, THREADS>>>(b, 64, o2);
    CU(cudaGetLastError());
    const size_t bad = differing(o1, o2, (size_t)cblocks * THREADS);
    unsigned blocks;
    u32 *out;
    CU(cudaMalloc(&out, (size_t)prop.multiProcessorCount * 2048 * 4 * 4));
    const float ms = best_ms(kernel, b, iters, out, &blocks);
    *rate = (double)blocks * THREADS * n * iters / (ms * 1e-3) / 1e9;
    cudaFuncAttributes fa;
    CU(cudaFuncGetAttributes(&fa, kernel));
    printf("mgpu_field op=%s G_per_s=%.2f (%u blocks x %d, %d chains, %d registers, %.3f ms; %zu of %u threads differ from mul<FP>)\n",
           name, *rate, blocks, THREADS, n, fa.numRegs, ms, bad, cblocks * THREADS);
    CU(cudaFree(o1));
    CU(cudaFree(o2));
    CU(cudaFree(out));
    return bad != 0;
}
template <unsigned FM> static int additions_run(const char *name, const u32 *b, unsigned iters, double *rate)
{
    const unsigned cblocks = (unsigned)prop.multiProcessorCount * 4;
    const size_t words = (size_t)cblocks * THREADS * 32;
    u32 *o1, *o2, *out;
    CU(cudaMalloc(&o1, words * 4));
    CU(cudaMalloc(&o2, words * 4));
    CU(cudaMemset(o1, 0xa5, words * 4));
    additions<OP_MADD, FM><<<cblocks, THREADS>>>(b, 64, o1);
    additions<OP_MADD><<<cblocks, THREADS>>>(b, 64, o2);
    CU(cudaGetLastError());
    const size_t bad = differing(o1, o2, words);
    CU(cudaMalloc(&out, (size_t)prop.multiProcessorCount * 2048 * 4 * 32 * 4));
    unsigned blocks;
    const float ms = best_ms(additions<OP_MADD, FM>, b, iters / 4, out, &blocks);
    *rate = (double)blocks * THREADS * (iters / 4) / (ms * 1e-3) / 1e9;
    cudaFuncAttributes fa;
    CU(cudaFuncGetAttributes(&fa, additions<OP_MADD, FM>));
    printf("mgpu_field op=madd_%s G_per_s=%.3f (FP64 products 0x%03x; %u blocks x %d, %d registers, %.3f ms; %zu of %zu words differ from add_affine)\n",
           name, *rate, FM, blocks, THREADS, fa.numRegs, ms, bad, words);
    CU(cudaFree(o1));
    CU(cudaFree(o2));
    CU(cudaFree(out));
    return bad != 0;
}
struct gvariant { const char *name; void (*k)(const u32 *, u32 *, u32, u32 *); const char *what; };
#define GV(name, ma, mb, na, what) { name, madd_gather_x<ma, mb, na>, what }
#define GV1(name, ma, mb, na, what) { name, madd_gather_x<ma, mb, na, 1>, what }
#define GVD(name, ma, mb, na, what) { name, madd_gather_dyn<ma, mb, na>, what }
/* The gathered additions of each variant, timed (median of 5) and every stored word compared
   with the integer variant's; 1 where one differs. */
static int gathered_fp64(void)
{
    using mgpu_fp64::FM_ALL;
    static const gvariant v[] = {
        GV("int", 0, 0, 4, "all products on the integer pipe (add_affine)"),
        GV("fp64", FM_ALL, FM_ALL, 4, "all products on the FP64 pipe"),
        GV("hyb_063", 0x063, 0x063, 4, "FP64: x ZZ, y ZZZ, ZZ PP, ZZZ PPP"),
        GV("hyb_07b", 0x07b, 0x07b, 4, "FP64: the 6 multiplications; integer: 2 squares, R (Q - X3) - Y1 PPP"),
        GV("hyb_003", 0x003, 0x003, 4, "FP64: x ZZ, y ZZZ"),
        GV("hyb_163", 0x163, 0x163, 4, "FP64: x ZZ, y ZZZ, ZZ PP, ZZZ PPP, the last two products"),
        GV("warps_1of4", FM_ALL, 0, 1, "warp w % 4 = 0 all FP64, the others all integer"),
        GV("warps_2of4", FM_ALL, 0, 2, "warps w % 4 < 2 all FP64, the others all integer"),
        GV1("fp64_r255", FM_ALL, FM_ALL, 4, "all FP64, up to 255 registers (1 block of 256 an SM)"),
        GV1("hyb_063_r255", 0x063, 0x063, 4, "hyb_063, up to 255 registers"),
        GV1("hyb_07b_r255", 0x07b, 0x07b, 4, "hyb_07b, up to 255 registers"),
        GV1("warps_2of4_r255", FM_ALL, 0, 2, "warps_2of4, up to 255 registers"),
        GVD("dyn_int", 0, 0, 4, "int, buckets handed out to warps as they finish"),
        GVD("dyn_fp64", FM_ALL, FM_ALL, 4, "fp64, buckets handed out to warps as they finish"),
        GVD("dyn_warps_1of4", FM_ALL, 0, 1, "warps_1of4, buckets handed out to warps as they finish"),
        GVD("dyn_warps_2of4", FM_ALL, 0, 2, "warps_2of4, buckets handed out to warps as they finish"),
        GVD("dyn_warps_3of4", FM_ALL, 0, 3, "warps w % 4 < 3 all FP64, buckets handed out to warps as they finish"),
    };
    const int nv = (int)(sizeof v / sizeof v[0]);
    const u32 threads = (u32)prop.multiProcessorCount * 2 * GATHER_THREADS, blocks = threads / GATHER_THREADS;
    const size_t words = (size_t)threads * (GATHER_ENTRIES / BUCKET) * 32;
    u32 *pts, *ref, *out, *next;
    int bad = 0;
    if (cudaMalloc(&pts, (size_t)64 << NPTS_LOG) != cudaSuccess || cudaMalloc(&ref, words * 4) != cudaSuccess ||
        cudaMalloc(&out, words * 4) != cudaSuccess) {
        cudaGetLastError(); printf("gathered FP64 additions: skipped: too little memory\n"); return 0;
    }
    CU(cudaMalloc(&next, 4));
    fill_points<<<(1u << NPTS_LOG) / 256, 256>>>(pts);
    double base = 0;
    for (int i = 0; i < nv; i++) {
        cudaFuncAttributes fa;
        CU(cudaFuncGetAttributes(&fa, v[i].k));
        if (profile_only) {
            CU(cudaMemset(next, 0, 4));
            v[i].k<<<blocks, GATHER_THREADS>>>(pts, out, threads, next);
            CU(cudaDeviceSynchronize());
            continue;
        }
        CU(cudaMemset(out, 0xa5, words * 4));
        const float ms = launches_ms([&] {
            CU(cudaMemsetAsync(next, 0, 4));
            v[i].k<<<blocks, GATHER_THREADS>>>(pts, i ? out : ref, threads, next);
        }, 2);
        const size_t nbad = i ? differing(out, ref, words) : 0;
        const double rate = (double)threads * (GATHER_ENTRIES - GATHER_ENTRIES / BUCKET) / (ms * 1e-3) / 1e9;
        if (!i) base = rate;
        printf("mgpu_field op=gather_%s G_per_s=%.3f x%.2f (%s; %d registers, %d bytes local, %.3f ms; %zu of %zu words differ)\n",
               v[i].name, rate, rate / base, v[i].what, fa.numRegs, (int)fa.localSizeBytes, ms, nbad, words);
        if (nbad) { printf("WRONG: gather_%s: %zu words differ from the integer additions\n", v[i].name, nbad); bad = 1; }
    }
    CU(cudaFree(pts));
    CU(cudaFree(ref));
    CU(cudaFree(out));
    CU(cudaFree(next));
    return bad;
}
/* The FP64 section of the run: products, additions, gathered additions. */
static int fp64_part(const u32 *b, unsigned iters)
{
    using mgpu_fp64::FM_ALL;
    double ri, rf, rn, r;
    int bad = 0;
    if (profile_only) return gathered_fp64();
    printf("-- FP64 field multiplication (5 x 52-bit limbs) and hybrid additions\n");
    bad |= fchain_run("imul8", fchains<OP_IMUL, 8>, fchains<OP_IMUL, 8>, b, iters, 8, &ri);
    bad |= fchain_run("fmul8", fchains<OP_FMUL, 8>, fchains<OP_IMUL, 8>, b, iters, 8, &rf);
    bad |= fchain_run("fnative8", fchains<OP_FNATIVE, 8>, fchains<OP_IMUL, 8>, b, iters, 8, &rn);
    bad |= fchain_run("imul4", fchains<OP_IMUL, 4>, fchains<OP_IMUL, 4>, b, iters, 4, &r);
    bad |= fchain_run("fmul4", fchains<OP_FMUL, 4>, fchains<OP_IMUL, 4>, b, iters, 4, &r);
    bad |= fchain_run("fnative4", fchains<OP_FNATIVE, 4>, fchains<OP_IMUL, 4>, b, iters, 4, &r);
    printf("fp64 products: fmul %.2fx, native %.2fx the integer rate (8 chains); conversions %.2f ns a product a SM\n",
           rf / ri, rn / ri, (1 / rf - 1 / rn) * prop.multiProcessorCount);
    bad |= additions_run<0>("int", b, iters, &ri);
    bad |= additions_run<FM_ALL>("fp64", b, iters, &r);
    bad |= additions_run<0x063>("hyb_063", b, iters, &r);
    bad |= additions_run<0x07b>("hyb_07b", b, iters, &r);
    bad |= gathered_fp64();
    return bad;
}

int main(int argc, char **argv)
{
    const unsigned iters = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2048;
    u32 hb[8 * CHAINS], *b, *out;
    unsigned blocks;
    int bad = 0;
    device_id = argc > 2 ? atoi(argv[2]) : 0;
    int ndev = 0;
    if (iters < 2) { fprintf(stderr, "bench_bn_field: ITERS must be >= 2\n"); return 2; }
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev <= device_id) {
        printf("bench_bn_field: skipped: no CUDA device %d\n", device_id);
        return 77;
    }
    CU(cudaSetDevice(device_id));
    CU(cudaGetDeviceProperties(&prop, device_id));
    for (int i = 0; i < 8 * CHAINS; i++) hb[i] = (u32)(0x9e3779b9u * (unsigned)(i + 7)) ^ (u32)(i * 0x85ebca6bu);
    for (int k = 0; k < CHAINS; k++) hb[8 * k + 7] &= 0x0fffffffu;          /* below p (p > 2^253) */
    CU(cudaMalloc(&b, sizeof hb));
    CU(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    profile_only = getenv("BN_PROFILE") != NULL;
    if (profile_only) return fp64_part(b, iters);
    CU(cudaMalloc(&out, (size_t)prop.multiProcessorCount * 2048 * 4 * 32 * 4));   /* >= 4 waves of points */
    bad |= check("mul", chains<OP_MUL>, chains<OP_MUL_COMPACT>, b, 64, 0);
    bad |= check("sqr", chains<OP_SQR>, chains<OP_SQR_COMPACT>, b, 64, 0);
    bad |= check("madd", additions<OP_MADD>, additions<OP_ADD_FULL>, b, 64, 1);
    printf("bench_bn_field on %s (%d SMs): best of 5 launches, %u iterations a chain\n", prop.name,
           prop.multiProcessorCount, iters);
    {
        float ms = best_ms(chains<OP_MUL>, b, iters, out, &blocks);
        printf("mgpu_field op=mul G_per_s=%.2f (%u blocks x %d, %d chains, %.3f ms)\n",
               (double)blocks * THREADS * CHAINS * iters / (ms * 1e-3) / 1e9, blocks, THREADS, CHAINS, ms);
        ms = best_ms(chains<OP_SQR>, b, iters, out, &blocks);
        printf("mgpu_field op=sqr G_per_s=%.2f (%u blocks x %d, %d chains, %.3f ms)\n",
               (double)blocks * THREADS * CHAINS * iters / (ms * 1e-3) / 1e9, blocks, THREADS, CHAINS, ms);
        ms = best_ms(additions<OP_MADD>, b, iters / 4, out, &blocks);
        printf("mgpu_field op=madd G_per_s=%.3f (mixed XYZZ additions; %u blocks x %d, %.3f ms)\n",
               (double)blocks * THREADS * (iters / 4) / (ms * 1e-3) / 1e9, blocks, THREADS, ms);
    }
    {                                                  /* the other groups' fields, beside BN254's mul */
#define CV_RATE(F, D, name)                                                                                            \
        bad |= check(name " mul", cv_chains<F, D, false, true>, cv_chains<F, D, false, false>, b, 64, 0);              \
        bad |= check(name " sqr", cv_chains<F, D, true, true>, cv_chains<F, D, true, false>, b, 64, 0);                \
        for (int sq = 0; sq < 2; sq++) {                                                                               \
            float ms = sq ? best_ms(cv_chains<F, D, true, true>, b, iters / 4, out, &blocks)                          \
                          : best_ms(cv_chains<F, D, false, true>, b, iters / 4, out, &blocks);                        \
            float cms = sq ? best_ms(cv_chains<F, D, true, false>, b, iters / 4, out, &blocks)                        \
                           : best_ms(cv_chains<F, D, false, false>, b, iters / 4, out, &blocks);                      \
            const double ops = (double)blocks * THREADS * CV_CHAINS * (iters / 4);                                    \
            printf("mgpu_field op=%s_%s G_per_s=%.3f (compact: %.3f; %u blocks x %d, %d chains, %.3f ms)\n", name,    \
                   sq ? "sqr" : "mul", ops / (ms * 1e-3) / 1e9, ops / (cms * 1e-3) / 1e9, blocks, THREADS, CV_CHAINS, ms); \
        }
        CV_RATE(mgpu_cv::bn_p, 2, "bn254_fp2")
        CV_RATE(mgpu_cv::bls_p, 1, "bls12_381_fp")
        CV_RATE(mgpu_cv::bls_p, 2, "bls12_381_fp2")
#undef CV_RATE
    }
    CU(cudaFree(out));
    bad |= gathered_additions();
    bad |= fp64_part(b, iters);
    CU(cudaFree(b));
    printf("bench_bn_field summary: %s\n", bad ? "WRONG results" : "results verified");
    return bad;
}
