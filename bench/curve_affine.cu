/* bench_curve_affine - whether affine bucket sums with a batched inversion would beat the mixed
   XYZZ additions of the MSM's accumulation in BN254 G2, BLS12-381 G1 and BLS12-381 G2
   (mgpu_kernels.cu's MSM section, build/msm_section.cu, compiled into small kernels here with
   the CUDA runtime). bench_bn_field measures the same for BN254 G1 (docs/performance.md:
   there the affine sums are held by memory). Per group, over a table of 2^22 random points
   and one wave of threads:
     madd_gather   buckets of 32 points gathered at random, one mixed XYZZ addition each after
                   the first (the group's add_affine, as msm_accumulate runs it: whole elements
                   a thread, or for BLS12-381 G2 an F_p2 component a thread, two threads a point)
     affine_batch  K pairs of points gathered at random summed in affine coordinates,
                   l = (yb - ya) / (xb - xa), x3 = l^2 - xa - xb, y3 = l (xa - x3) - ya, the K
                   divisions by one inversion (Montgomery's trick: the running product stored
                   before each pair, the whole product inverted by Fermat with 4-bit windows,
                   F_p2 through its norm, then the pairs in reverse): 5 products and a square a
                   sum against the mixed addition's 8 and 2; whole elements a thread
     affine_seq    the same with the pairs read in order (thread t's pair i at 2 (i T + t))
   The affine sums are checked against the mixed additions of the same pairs (as points: x3 ZZ
   = X3, y3 ZZZ = Y3), every 61st pair. The formulas hold for any field elements, so the points
   are random elements below p, not curve points. Timed with CUDA events: the median of 5
   launches after a warm-up. Prints one line a kernel, `curve_affine group=<g> op=<op>
   G_per_s=<x> ...`, and a table of the rates against madd_gather's.

   make build/bench_curve_affine [ARCH=sm_90]; ./build/bench_curve_affine [DEVICE=0]
   Exit: 0, 1 on a CUDA error or a wrong sum, 77 without a GPU. */
#define BENCH_NAME "bench_curve_affine"
enum { THREADS = 256, BUCKET = 32, BUCKETS = 16, NPTS_LOG = 22 };
#include "msm_bench.cuh"

/* Random elements below p: the top word below the modulus's. */
template <class F, int D> __global__ void fill_points(u32 *pts)
{
    enum { PW = 2 * D * F::N };
    u32 m[F::N];
    F::mod(m);
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int w = 0; w < PW; w++) {
        const u32 v = mix32(i * PW + w + 0x51ed270bu);
        pts[(u64)i * PW + w] = w % F::N == F::N - 1 ? v % m[F::N - 1] : v;
    }
}

/* ---- the mixed additions, as the accumulation gathers its points */
template <class G> __device__ __forceinline__ void load_xy(const u32 *pts, u32 i, u32 *x, u32 *y)
{
    mgpu_cv::loadw<G::W>(x, pts + (u64)i * 2 * G::CW + G::lane_off());
    mgpu_cv::loadw<G::W>(y, pts + (u64)i * 2 * G::CW + G::CW + G::lane_off());
}
template <class G> __global__ void __launch_bounds__(THREADS, G::ACC_BLOCKS) madd_gather(const u32 *pts, u32 *out, u32 threads)
{
    const u32 t = (blockIdx.x * blockDim.x + threadIdx.x) / G::LANES;
#pragma unroll 1
    for (u32 b = 0; b < BUCKETS; b++) {
        typename G::pt acc;
        u32 x[G::W], y[G::W];
        load_xy<G>(pts, point_at<false>(t, b * BUCKET, threads), x, y);
        G::set_affine(acc, x, y, false);
#pragma unroll 1
        for (u32 j = 1; j < BUCKET; j++) {
            load_xy<G>(pts, point_at<false>(t, b * BUCKET + j, threads), x, y);
            G::add_affine(acc, x, y, false);
        }
        G::store(out + ((u64)b * threads + t) * G::P, acc);
    }
}

/* ---- the affine sums */
/* 1 / a in F_p = a^(p - 2), 4 bits at a time (Montgomery form, lazy in and out) */
template <class F> __device__ __noinline__ void inv_fp(u32 *o, const u32 *a)
{
    enum { N = F::N };
    u32 pow[16][N], r[N], e[N];
    F::mod(e);
    e[0] -= 2;                                         /* both moduli end in a word >= 2 */
    F::one(pow[0]);
    for (int j = 0; j < N; j++) pow[1][j] = a[j];
    for (int i = 2; i < 16; i++) mgpu_cv::f_mulf<F>(pow[i], pow[i - 1], a);
    for (int j = 0; j < N; j++) r[j] = pow[e[N - 1] >> 28][j];
    for (int n = 8 * N - 2; n >= 0; n--) {
        for (int k = 0; k < 4; k++) mgpu_cv::f_sqrf<F>(r, r);
        const u32 d = (e[n / 8] >> (n % 8 * 4)) & 15;
        if (d) mgpu_cv::f_mulf<F>(r, r, pow[d]);
    }
    for (int j = 0; j < N; j++) o[j] = r[j];
}
/* 1 / a in F_p or F_p2 (conj(a) / (a0^2 + a1^2)) */
template <class F, int D> __device__ __forceinline__ void inv_e(u32 *o, const u32 *a)
{
    enum { N = F::N };
    if constexpr (D == 1) {
        inv_fp<F>(o, a);
    } else {
        u32 t0[N], t1[N], zero[N];
        for (int j = 0; j < N; j++) zero[j] = 0;
        mgpu_cv::f_sqrf<F>(t0, a);
        mgpu_cv::f_sqrf<F>(t1, a + N);
        mgpu_cv::f_add<F>(t0, t0, t1);
        inv_fp<F>(t0, t0);
        mgpu_cv::f_mulf<F>(o, a, t0);
        mgpu_cv::f_mulf<F>(t1, a + N, t0);
        mgpu_cv::f_sub<F>(o + N, zero, t1);
    }
}
template <class F, int D, bool SEQ> __global__ void __launch_bounds__(THREADS, D == 1 ? 2 : 1)
affine_batch(const u32 *pts, u32 *prefix, u32 *out, u32 threads, u32 pairs)
{
    typedef mgpu_cv::ext<F, D, true> E;
    typedef mgpu_cv::gen<F, D> G;
    enum { W = D * F::N };
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 acc[W], inv[W];
    E::one(acc);
#pragma unroll 1
    for (u32 i = 0; i < pairs; i++) {
        u32 xa[W], xb[W], d[W];
        mgpu_cv::loadw<W>(xa, pts + (u64)point_at<SEQ>(t, 2 * i, threads) * 2 * W);
        mgpu_cv::loadw<W>(xb, pts + (u64)point_at<SEQ>(t, 2 * i + 1, threads) * 2 * W);
        E::sub(d, xb, xa);
        mgpu_cv::storew<W>(prefix + ((u64)i * threads + t) * W, acc);   /* the product before pair i */
        E::mul(acc, acc, d);
    }
    inv_e<F, D>(inv, acc);
#pragma unroll 1
    for (u32 i = pairs; i-- > 0;) {
        u32 xa[W], ya[W], xb[W], yb[W], d[W], l[W], s[W];
        load_xy<G>(pts, point_at<SEQ>(t, 2 * i, threads), xa, ya);
        load_xy<G>(pts, point_at<SEQ>(t, 2 * i + 1, threads), xb, yb);
        mgpu_cv::loadw<W>(s, prefix + ((u64)i * threads + t) * W);
        E::sub(d, xb, xa);
        E::mul(s, inv, s);                             /* 1 / (xb - xa) */
        E::mul(inv, inv, d);                           /* 1 / the product before pair i */
        E::sub(d, yb, ya);
        E::mul(l, d, s);
        E::sqr(s, l);
        E::sub(s, s, xa);
        E::sub(s, s, xb);                              /* x3 */
        E::sub(d, xa, s);
        E::mul(d, l, d);
        E::sub(d, d, ya);                              /* y3 */
        mgpu_cv::storew<W>(out + ((u64)i * threads + t) * 2 * W, s);
        mgpu_cv::storew<W>(out + ((u64)i * threads + t) * 2 * W + W, d);
    }
}
/* Counts the sampled pairs (every 61st) whose affine sum is not the mixed addition's. */
template <class F, int D, bool SEQ> __global__ void check_affine(const u32 *pts, const u32 *out, u32 threads, u32 pairs, u32 *bad)
{
    typedef mgpu_cv::ext<F, D> E;
    typedef mgpu_cv::gen<F, D> G;
    enum { W = D * F::N };
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 i = t % 61; i < pairs; i += 61) {
        u32 x[W], y[W], l[W];
        typename G::pt acc;
        load_xy<G>(pts, point_at<SEQ>(t, 2 * i, threads), x, y);
        G::set_affine(acc, x, y, false);
        load_xy<G>(pts, point_at<SEQ>(t, 2 * i + 1, threads), x, y);
        G::add_affine(acc, x, y, false);
        mgpu_cv::loadw<W>(x, out + ((u64)i * threads + t) * 2 * W);
        mgpu_cv::loadw<W>(y, out + ((u64)i * threads + t) * 2 * W + W);
        bool ok = true;
        E::mul(l, x, acc.zz); E::canon(l); E::canon(acc.x);
        for (int j = 0; j < W; j++) ok = ok && l[j] == acc.x[j];
        E::mul(l, y, acc.zzz); E::canon(l); E::canon(acc.y);
        for (int j = 0; j < W; j++) ok = ok && l[j] == acc.y[j];
        if (!ok) atomicAdd(bad, 1u);
    }
}

static int sms;
/* One wave of kernel k's blocks, in threads. */
template <typename K> static u32 wave(K k)
{
    int per_sm = 0;
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, THREADS, 0));
    return (u32)(sms * per_sm * THREADS);
}
static int regs(const void *k)
{
    cudaFuncAttributes a;
    CU(cudaFuncGetAttributes(&a, k));
    return a.numRegs;
}
template <class F, int D, bool SEQ> static double affine_rate(const char *group, const u32 *pts, u32 *prefix, u32 *out,
                                                              u32 pairs, u32 *bad_dev, u32 *nbad)
{
    const u32 threads = wave(affine_batch<F, D, SEQ>), blocks = threads / THREADS;
    const float ms = launches_ms([&] { affine_batch<F, D, SEQ><<<blocks, THREADS>>>(pts, prefix, out, threads, pairs); }, 2);
    u32 b;
    CU(cudaMemset(bad_dev, 0, 4));
    check_affine<F, D, SEQ><<<blocks, THREADS>>>(pts, out, threads, pairs, bad_dev);
    CU(cudaMemcpy(&b, bad_dev, 4, cudaMemcpyDeviceToHost));
    *nbad += b;
    const double rate = (double)threads * pairs / (ms * 1e-3) / 1e9;
    printf("curve_affine group=%s op=%s G_per_s=%.3f (K = %u pairs a thread, %u threads, %d registers, %.3f ms; %u sampled sums wrong)\n",
           group, SEQ ? "affine_seq" : "affine_batch", rate, pairs, threads, regs((const void *)affine_batch<F, D, SEQ>), ms, b);
    return rate;
}
/* One group: G the accumulation's (whole elements or lanes), F and D its field. 1 if a sum is wrong. */
template <class G, class F, int D> static int group_run(const char *name, double *rates)
{
    enum { PW = 2 * D * F::N, PAIRS_MAX = 512 };
    u32 *pts, *prefix, *out, *bad, nbad = 0;
    const u32 wave_max = (u32)sms * 2 * THREADS;
    const size_t out_words = (size_t)wave_max * PAIRS_MAX * PW;   /* >= madd_gather's sums too */
    CU(cudaMalloc(&pts, ((size_t)PW * 4) << NPTS_LOG));
    CU(cudaMalloc(&prefix, out_words * 2));
    CU(cudaMalloc(&out, out_words * 4));
    CU(cudaMalloc(&bad, 4));
    fill_points<F, D><<<(1u << NPTS_LOG) / 256, 256>>>(pts);
    CU(cudaGetLastError());
    const u32 mthreads = wave(madd_gather<G>) / G::LANES, mblocks = mthreads * G::LANES / THREADS;
    const float ms = launches_ms([&] { madd_gather<G><<<mblocks, THREADS>>>(pts, out, mthreads); }, 2);
    rates[0] = (double)mthreads * BUCKETS * (BUCKET - 1) / (ms * 1e-3) / 1e9;
    printf("curve_affine group=%s op=madd_gather G_per_s=%.3f (buckets of %d gathered points, %u points at once, %d lanes a point, %d registers, %.3f ms)\n",
           name, rates[0], BUCKET, mthreads, G::LANES, regs((const void *)madd_gather<G>), ms);
    rates[1] = affine_rate<F, D, false>(name, pts, prefix, out, 128, bad, &nbad);
    rates[2] = affine_rate<F, D, false>(name, pts, prefix, out, 512, bad, &nbad);
    rates[3] = affine_rate<F, D, true>(name, pts, prefix, out, 512, bad, &nbad);
    CU(cudaFree(pts));
    CU(cudaFree(prefix));
    CU(cudaFree(out));
    CU(cudaFree(bad));
    if (nbad) printf("WRONG: %s: %u affine sums differ from the mixed additions\n", name, nbad);
    return nbad != 0;
}

int main(void)
{
    int dev = getenv("DEVICE") ? atoi(getenv("DEVICE")) : 0, count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= dev) {
        printf("bench_curve_affine: skipped: no CUDA device %d\n", dev);
        return 77;
    }
    CU(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, dev));
    sms = prop.multiProcessorCount;
    printf("bench_curve_affine: %s, %d SMs\n", prop.name, sms);
    double r[3][4];
    int bad = 0;
    bad |= group_run<mgpu_cv::bn254_g2, mgpu_cv::bn_p, 2>("bn254_g2", r[0]);
    bad |= group_run<mgpu_cv::bls12_381_g1, mgpu_cv::bls_p, 1>("bls12_381_g1", r[1]);
    bad |= group_run<mgpu_cv::bls12_381_g2_lanes, mgpu_cv::bls_p, 2>("bls12_381_g2", r[2]);
    const char *names[3] = { "BN254 G2", "BLS12-381 G1", "BLS12-381 G2" };
    printf("\n| group | mixed XYZZ, gathered (G/s) | affine K = 128 | affine K = 512 | affine K = 512, in order |\n");
    printf("| --- | --- | --- | --- | --- |\n");
    for (int g = 0; g < 3; g++)
        printf("| %s | %.3f | %.3f (%.2fx) | %.3f (%.2fx) | %.3f (%.2fx) |\n", names[g], r[g][0], r[g][1], r[g][1] / r[g][0],
               r[g][2], r[g][2] / r[g][0], r[g][3], r[g][3] / r[g][0]);
    return bad;
}
