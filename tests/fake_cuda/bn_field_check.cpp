/* bn_field_check.cpp - the BN254 field arithmetic of mgpu_kernels.cu ("BN254 MSM" section)
   compiled for the host with the kernel emulator's carry flag (tests/fake_cuda/emu.h): the
   unrolled multiplication (lazy: inputs and output in [0, 2m)) against the compact one
   (canonical output), the lazy square (and, for p, a b - c d with one reduction) against
   the compact products, and the lazy add and sub against canonical results, for p and r, on
   random values below 2m and on the edges 2m - 1, 2m - 2, 2m - 3, m, m - 1, m - 2, 0 and 1.
   `make test-bn-field` (argument: pairs per field, default 200000). */
#include "tests/fake_cuda/emu.h"
#include "msm_section.cu"
#include "bench/bn_field_fp64.h"

static std::mt19937_64 rng(12345);

static bool below(const u32 *a, const u32 *b)
{
    for (int j = 7; j >= 0; j--)
        if (a[j] != b[j]) return a[j] < b[j];
    return false;
}
static void random_below(u32 *o, const u32 *m)
{
    do {
        for (int j = 0; j < 8; j++) o[j] = (u32)rng();
        o[7] &= 0x7fffffffu;
    } while (!below(o, m));
}
static void minus(u32 *o, const u32 *m, u32 k)            /* o = m - k */
{
    unsigned long long borrow = k;
    for (int j = 0; j < 8; j++) {
        const unsigned long long t = (unsigned long long)m[j] - borrow;
        o[j] = (u32)t;
        borrow = (t >> 63) & 1;
    }
}

template <int F> static int check(long pairs)
{
    int bad = 0;
    for (long it = 0; it < pairs; it++) {
        u32 a[8], b[8], ca[8], cb[8], r1[8], r2[8];
        random_below(a, MOD2[F]);
        random_below(b, MOD2[F]);
        if (it % 7 == 1) minus(a, MOD2[F], 1 + (u32)(it / 7 % 3));
        if (it % 11 == 2) minus(b, MOD[F], (u32)(it / 11 % 3));
        if (it % 13 == 3) { memset(b, 0, sizeof b); b[0] = (u32)(it & 1); }
        memcpy(ca, a, sizeof a);
        memcpy(cb, b, sizeof b);
        reduce_once<F>(ca, ca);
        reduce_once<F>(cb, cb);
        mul<F, false>(r2, ca, cb);                     /* the reference: canonical */
        mul<F, true>(r1, a, b);
        if (!below(r1, MOD2[F])) bad++, printf("FAIL field %d pair %ld: unrolled product >= 2m\n", F, it);
        reduce_once<F>(r1, r1);
        if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL field %d pair %ld: unrolled != compact product\n", F, it);
        mul<F, false>(r1, a, b);
        if (!below(r1, MOD[F]) || memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL field %d pair %ld: compact product of lazy inputs\n", F, it);
        const struct { void (*op)(u32 *, const u32 *, const u32 *); const char *what; } ops[] = {
            { add<F>, "sum" }, { sub<F>, "difference" } };
        for (const auto &o : ops) {                    /* lazy in and out, the same value mod m */
            o.op(r1, a, b);
            o.op(r2, ca, cb);
            if (!below(r1, MOD2[F])) bad++, printf("FAIL field %d pair %ld: %s >= 2m\n", F, it, o.what);
            reduce_once<F>(r1, r1);
            reduce_once<F>(r2, r2);
            if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL field %d pair %ld: lazy %s differs\n", F, it, o.what);
        }
        sqr<F>(r1, a);                                 /* the square: lazy, = the compact a * a */
        mul<F, false>(r2, ca, ca);
        if (!below(r1, MOD2[F])) bad++, printf("FAIL field %d pair %ld: square >= 2m\n", F, it);
        reduce_once<F>(r1, r1);
        if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL field %d pair %ld: square differs\n", F, it);
        if (F == FP) {                                 /* a b - c d, one reduction (p only) */
            u32 c[8], d[8], cc[8], cd[8], t[8];
            random_below(c, MOD2[F]);
            random_below(d, MOD2[F]);
            if (it % 5 == 4) { memcpy(c, a, sizeof c); memcpy(d, b, sizeof d); }   /* zero */
            if (it % 17 == 5) minus(d, MOD2[F], 1);
            memcpy(cc, c, sizeof c);
            memcpy(cd, d, sizeof d);
            reduce_once<F>(cc, cc);
            reduce_once<F>(cd, cd);
            mul_sub(r1, a, b, c, d);
            mul<F, false>(r2, ca, cb);
            mul<F, false>(t, cc, cd);
            sub<F>(r2, r2, t);
            reduce_once<F>(r2, r2);
            if (!below(r1, MOD2[F])) bad++, printf("FAIL field %d pair %ld: a b - c d >= 2m\n", F, it);
            reduce_once<F>(r1, r1);
            if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL field %d pair %ld: a b - c d differs\n", F, it);
        }
        if (bad > 10) break;
    }
    return bad;
}

/* bench_bn_field's FP64 multiplication (bench/bn_field_fp64.h) against the integer one:
   lazy in [0, 2p) in and out, the same residue; the native form's chain; and the mixed
   addition with all and with some of its products on the FP64 pipe against add_affine. */
static int check_fp64(long pairs)
{
    int bad = 0;
    for (long it = 0; it < pairs && bad <= 10; it++) {
        u32 a[8], b[8], ca[8], cb[8], r1[8], r2[8];
        random_below(a, MOD2[FP]);
        random_below(b, MOD2[FP]);
        if (it % 7 == 1) minus(a, MOD2[FP], 1 + (u32)(it / 7 % 3));
        if (it % 11 == 2) minus(b, MOD2[FP], 1 + (u32)(it / 11 % 3));
        if (it % 13 == 3) { memset(b, 0, sizeof b); b[0] = (u32)(it & 1); }
        if (it % 17 == 4) minus(b, MOD[FP], (u32)(it / 17 % 2));
        memcpy(ca, a, sizeof a);
        memcpy(cb, b, sizeof b);
        reduce_once<FP>(ca, ca);
        reduce_once<FP>(cb, cb);
        mul<FP, false>(r2, ca, cb);
        mgpu_fp64::fmul(r1, a, b);
        if (!below(r1, MOD2[FP])) bad++, printf("FAIL fp64 pair %ld: product >= 2p\n", it);
        reduce_once<FP>(r1, r1);
        if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL fp64 pair %ld: FP64 product != integer product\n", it);
        if (it % 64 == 0) {                            /* a chain a <- a b in the native form */
            double x[5], y16[5];
            u32 c1[8], c2[8];
            mgpu_fp64::to_limbs<0>(x, a);
            mgpu_fp64::to_limbs<4>(y16, b);
            memcpy(c2, a, sizeof a);
            for (int i = 0; i < 50; i++) {
                mgpu_fp64::fmul_native(x, x, y16);
                mul<FP>(c2, c2, b);
            }
            mgpu_fp64::native_to_u32(c1, x);
            if (!below(c1, MOD2[FP])) bad++, printf("FAIL fp64 chain %ld: >= 2p\n", it);
            reduce_once<FP>(c1, c1);
            reduce_once<FP>(c2, c2);
            if (memcmp(c1, c2, sizeof c1)) bad++, printf("FAIL fp64 chain %ld: native chain != integer chain\n", it);
        }
        if (it % 16 == 0) {                            /* mixed additions, as residues */
            xyzz p0, p1, p2, p3, p4, p5;
            random_below(p0.x, MOD2[FP]); random_below(p0.y, MOD2[FP]);
            random_below(p0.zz, MOD2[FP]); random_below(p0.zzz, MOD2[FP]);
            p1 = p0, p2 = p0, p3 = p0, p4 = p0, p5 = p0;
            for (int i = 0; i < 4; i++) {
                random_below(a, MOD2[FP]);
                random_below(b, MOD2[FP]);
                add_affine(p0, a, b, false);
                mgpu_fp64::add_affine_x<mgpu_fp64::FM_ALL>(p1, a, b, false);
                mgpu_fp64::add_affine_x<0x063>(p2, a, b, false);   /* bench_bn_field's hybrids */
                mgpu_fp64::add_affine_x<0x07b>(p3, a, b, false);
                mgpu_fp64::add_affine_x<0x003>(p4, a, b, false);
                mgpu_fp64::add_affine_x<0x163>(p5, a, b, false);
            }
            for (xyzz *p : { &p0, &p1, &p2, &p3, &p4, &p5 })
                for (u32 *v : { p->x, p->y, p->zz, p->zzz }) {
                    if (!below(v, MOD2[FP])) bad++, printf("FAIL fp64 addition %ld: a coordinate >= 2p\n", it);
                    reduce_once<FP>(v, v);
                }
            if (memcmp(&p0, &p1, sizeof p0) || memcmp(&p0, &p2, sizeof p0) || memcmp(&p0, &p3, sizeof p0) ||
                memcmp(&p0, &p4, sizeof p0) || memcmp(&p0, &p5, sizeof p0))
                bad++, printf("FAIL fp64 addition %ld: FP64 or hybrid mixed addition != add_affine\n", it);
        }
    }
    return bad;
}

/* The other groups' tuned products (mgpu_cv: F_p of N words, F_p2) against their compact
   ones (ext<F, D, false>: the CIOS loop, Karatsuba over it), lazy in and out, the same
   residue: random elements below 2m and the edges 2m - 1, m, m - 1, 0, 1 in each component. */
template <int N> static bool below_n(const u32 *a, const u32 *b)
{
    for (int j = N - 1; j >= 0; j--)
        if (a[j] != b[j]) return a[j] < b[j];
    return false;
}
template <class F> static void elem_lazy(u32 *o, long it, int which)
{
    enum { N = F::N };
    u32 m[N], m2[N];
    F::mod(m);
    F::mod2(m2);
    const int edge = (int)((it / 3 + which * 7) % 23);
    if (edge < 5) {
        unsigned long long borrow = edge == 0 ? 1 : edge == 2 ? 1 : 0;
        const u32 *base = edge == 0 ? m2 : m;
        for (int j = 0; j < N; j++) {
            const unsigned long long t = (unsigned long long)(edge >= 3 ? 0 : base[j]) - borrow;
            o[j] = (u32)t;
            borrow = (t >> 63) & 1;
        }
        if (edge >= 3) o[0] = edge - 3;                /* 0, 1 */
        return;
    }
    do {
        for (int j = 0; j < N; j++) o[j] = (u32)rng();
        o[N - 1] &= m2[N - 1] | (m2[N - 1] >> 1) | (m2[N - 1] >> 2) | (m2[N - 1] >> 4) | (m2[N - 1] >> 8) | (m2[N - 1] >> 16);
    } while (!below_n<N>(o, m2));
}
template <class F, int D> static int check_curve(long pairs, const char *name)
{
    typedef mgpu_cv::ext<F, D, true> EF;
    typedef mgpu_cv::ext<F, D, false> EC;
    enum { N = F::N, W = D * N };
    int bad = 0;
    u32 m2[N];
    F::mod2(m2);
    for (long it = 0; it < pairs && bad <= 10; it++) {
        u32 a[W], b[W], r1[W], r2[W];
        for (int c = 0; c < D; c++) { elem_lazy<F>(a + c * N, it, 2 * c); elem_lazy<F>(b + c * N, it * 5 + 1, 2 * c + 1); }
        const bool sq = it & 1;
        if (sq) { EF::sqr(r1, a); EC::sqr(r2, a); } else { EF::mul(r1, a, b); EC::mul(r2, a, b); }
        for (int c = 0; c < D; c++)
            if (!below_n<N>(r1 + c * N, m2)) bad++, printf("FAIL %s pair %ld: tuned %s >= 2m\n", name, it, sq ? "square" : "product");
        EF::canon(r1);
        EC::canon(r2);
        if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL %s pair %ld: tuned %s != compact\n", name, it, sq ? "square" : "product");
        if (it % 3 == 1) {                             /* a b - c d, one reduction a component */
            u32 c[W], d[W];
            for (int k = 0; k < D; k++) { elem_lazy<F>(c + k * N, it * 7 + 2, 2 * k + 5); elem_lazy<F>(d + k * N, it * 11 + 3, 2 * k + 6); }
            if (it % 9 == 4) { memcpy(c, a, sizeof c); memcpy(d, b, sizeof d); }   /* zero */
            if (it % 9 == 7) { memcpy(c, b, sizeof c); memcpy(d, a, sizeof d); }
            EF::mul_sub(r1, a, b, c, d);
            EC::mul_sub(r2, a, b, c, d);
            for (int k = 0; k < D; k++)
                if (!below_n<N>(r1 + k * N, m2)) bad++, printf("FAIL %s pair %ld: tuned a b - c d >= 2m\n", name, it);
            EF::canon(r1);
            EC::canon(r2);
            if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL %s pair %ld: tuned a b - c d != compact\n", name, it);
        }
        if (it % 3 == 0) {                             /* aliased output */
            memcpy(r1, a, sizeof a);
            EF::mul(r1, r1, b);
            EC::mul(r2, a, b);
            EF::canon(r1);
            EC::canon(r2);
            if (memcmp(r1, r2, sizeof r1)) bad++, printf("FAIL %s pair %ld: tuned product in place != compact\n", name, it);
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    const long pairs = argc > 1 ? atol(argv[1]) : 200000;
    const int bad = check<FP>(pairs) + check<FR>(pairs) + check_fp64(pairs) +
                    check_curve<mgpu_cv::bn_p, 2>(pairs, "BN254 F_p2") + check_curve<mgpu_cv::bls_p, 1>(pairs, "BLS12-381 F_p") +
                    check_curve<mgpu_cv::bls_p, 2>(pairs, "BLS12-381 F_p2") + check_curve<mgpu_cv::bn_p, 1>(pairs, "BN254 F_p (generic)");
    printf("%s BN254 field arithmetic: %ld pairs each for p and r (multiplication, square, a b - c d, addition, subtraction; FP64 products, chains, mixed additions);"
           " the tuned F_p and F_p2 products, squares and a b - c d of BN254 and BLS12-381 (mgpu_cv)\n",
           bad ? "FAIL" : "ok  ", pairs);
    printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad != 0;
}
