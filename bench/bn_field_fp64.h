/* bn_field_fp64.h - BN254 base-field Montgomery multiplication on the FP64 pipe, for
   bench_bn_field (measured beside the integer code of mgpu_kernels.cu's MSM section) and
   for the host check tests/fake_cuda/bn_field_check.cpp. Include after msm_section.cu.

   Representation: 5 limbs of 52 bits, each an integer held exactly in a double. A limb
   product x y < 2^104 is split on the FP64 pipe (after Emmart, Zheng and Weems, ARITH 2018):
     h = fma_rz(x, y, 2^104)             2^104 + H 2^52, H = floor(x y / 2^52): the ulp of
                                         [2^104, 2^105) is 2^52, rounding toward zero
     l = fma(x, y, (2^104 + 2^52) - h)   2^52 + L, L = x y - H 2^52 in [0, 2^52): exact
   so the bit patterns of h and l are those of 2^104 and 2^52 plus H and L. Column sums add
   those patterns as 64-bit integers (the constant offsets fold into one per column), and
   the carries are resolved once per column, in integers. Montgomery's reduction runs in the
   same representation, one 52-bit quotient digit per column, q_k = t_k (-p^-1) mod 2^52.

   The interface is mgpu's: u32[8] in Montgomery form with R = 2^256, lazy values in
   [0, 2p). R = 2^260 for five 52-bit digits, so b enters shifted left by 4 bits (b 2^4 <
   2^259 fits five limbs): (a b 2^4 + q p) / 2^260 = a b / 2^256 mod p, and it is below
   a b / 2^256 + p < 4p^2 / 2^256 + p < 2p. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
namespace mgpu_fp64 {
using mgpu_bn::u32;
using mgpu_bn::u64;

#ifdef __CUDA_ARCH__
__device__ __forceinline__ double fma_rz(double a, double b, double c) { return __fma_rz(a, b, c); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ double dsub(double a, double b) { return __dsub_rn(a, b); }
#else
/* The host: fma with rounding toward zero, for the operands used here (nonnegative
   integers, x y + c < 2^128), from the exact 128-bit value cut to 53 significant bits. */
static inline double fma_rz(double a, double b, double c)
{
    if (!(a >= 0 && b >= 0 && c >= 0 && a < 0x1p53 && b < 0x1p53 && c < 0x1p127) || a != floor(a) || b != floor(b) ||
        c != floor(c)) {
        fprintf(stderr, "fma_rz: operands out of range: %a %a %a\n", a, b, c);
        abort();
    }
    unsigned __int128 v = (unsigned __int128)(u64)a * (u64)b + (unsigned __int128)c;
    int top = 127;
    while (top > 0 && !((v >> top) & 1)) top--;
    if (top > 52) v &= ~(((unsigned __int128)1 << (top - 52)) - 1);
    return (double)v;                                  /* 53 significant bits: exact */
}
static inline double fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline double dsub(double a, double b) { return a - b; }
#endif
__device__ __forceinline__ u64 bits(double d) { return (u64)__double_as_longlong(d); }
__device__ __forceinline__ double from_bits(u64 b) { return __longlong_as_double((long long)b); }

enum : u64 { MASK52 = (1ull << 52) - 1, B104 = 0x4670000000000000ull, B52 = 0x4330000000000000ull,
             MINV52 = 0x20782e4866389ull };     /* -p^-1 mod 2^52 */
/* p in 52-bit limbs */
#define MGPU_FP64_P { 0x8c16d87cfd47.0p0, 0x916871ca8d3c2.0p0, 0x181585d97816a.0p0, 0xa029b85045b68.0p0, 0x30644e72e131.0p0 }

/* an integer below 2^52 as a double: its bits under 2^52's exponent, less 2^52 */
__device__ __forceinline__ double limb_double(u64 v) { return dsub(from_bits(v | B52), 0x1p52); }
/* lo += L, hi += H for x y = H 2^52 + L (x, y integers below 2^52) */
__device__ __forceinline__ void prod(u64 &lo, u64 &hi, double x, double y)
{
    const double h = fma_rz(x, y, 0x1p104);
    const double l = fma_rn(x, y, dsub(0x1p104 + 0x1p52, h));
    hi += bits(h) - B104;
    lo += bits(l) - B52;
}
/* r = (a b + q p) / 2^260 in 52-bit limbs (integers), for limbs a, b below 2^52 and a b <
   2^260 p: the 10 columns in order, each column's products and its quotient digit's, then
   its carry into the next; columns 5..9 are the result. */
__device__ __forceinline__ void mont_core(u64 *r, const double *a, const double *b)
{
    const double P[5] = MGPU_FP64_P;
    double q[5];
    u64 col[11], carry = 0;
#pragma unroll
    for (int k = 0; k < 11; k++) col[k] = 0;
#pragma unroll
    for (int k = 0; k < 10; k++) {
#pragma unroll
        for (int i = 0; i < 5; i++)
            if (k - i >= 0 && k - i < 5) prod(col[k], col[k + 1], a[i], b[k - i]);
#pragma unroll
        for (int i = 0; i < 5; i++)
            if (i < k && k - i < 5) prod(col[k], col[k + 1], q[i], P[k - i]);
        col[k] += carry;
        if (k < 5) {
            q[k] = limb_double((col[k] & MASK52) * MINV52 & MASK52);
            prod(col[k], col[k + 1], q[k], P[0]);     /* column k becomes 0 mod 2^52 */
        } else {
            r[k - 5] = col[k] & MASK52;
        }
        carry = col[k] >> 52;
    }
}
/* a (u32[8]) times 2^S as 5 limbs of 52 bits, as doubles (a 2^S < 2^260) */
template <int S> __device__ __forceinline__ void to_limbs(double *d, const u32 *a)
{
    u64 w[5];
#pragma unroll
    for (int j = 0; j < 4; j++) w[j] = (u64)a[2 * j] | (u64)a[2 * j + 1] << 32;
    w[4] = 0;
#pragma unroll
    for (int k = 0; k < 5; k++) {
        const int o = 52 * k - S;                      /* the limb's lowest bit in a */
        u64 v;
        if (o < 0) v = w[0] << -o;
        else if (o % 64 == 0) v = w[o / 64];
        else v = w[o / 64] >> (o % 64) | w[o / 64 + 1] << (64 - o % 64);
        d[k] = limb_double(v & MASK52);
    }
}
/* 5 limbs below 2^52 (a value below 2^256) to u32[8] */
__device__ __forceinline__ void from_limbs(u32 *o, const u64 *r)
{
    const u64 w[4] = { r[0] | r[1] << 52, r[1] >> 12 | r[2] << 40, r[2] >> 24 | r[3] << 28, r[3] >> 36 | r[4] << 16 };
#pragma unroll
    for (int j = 0; j < 4; j++) { o[2 * j] = (u32)w[j]; o[2 * j + 1] = (u32)(w[j] >> 32); }
}
/* o = a b / 2^256 mod p, lazy in and out (as mul<FP>), the products on the FP64 pipe */
__device__ __forceinline__ void fmul(u32 *o, const u32 *a, const u32 *b)
{
    double x[5], y[5];
    u64 r[5];
    to_limbs<0>(x, a);
    to_limbs<4>(y, b);
    mont_core(r, x, y);
    from_limbs(o, r);
}
/* The native form, for chains that stay in it: limbs as doubles, b given as b 2^4. */
__device__ __forceinline__ void fmul_native(double *o, const double *a, const double *b16)
{
    u64 r[5];
    mont_core(r, a, b16);
#pragma unroll
    for (int k = 0; k < 5; k++) o[k] = limb_double(r[k]);
}
__device__ __forceinline__ void native_to_u32(u32 *o, const double *a)
{
    u64 r[5];
#pragma unroll
    for (int k = 0; k < 5; k++) r[k] = (u64)a[k];
    from_limbs(o, r);
}

/* The mixed XYZZ addition of mgpu's add_affine (madd-2008-s) with each multiplication on
   the integer pipe (mul<FP>, sqr<FP>, mul_sub) or the FP64 one (fmul), by bit k of FM:
     0 U2 = x ZZ1    1 S2 = y ZZZ1    2 PP = P^2    3 PPP = P PP    4 Q = X1 PP
     5 ZZ1 PP        6 ZZZ1 PPP       7 R^2         8 R (Q - X3) - Y1 PPP (two products)
   The rare cases (infinity, P = 0) as add_affine: they are not timed. */
enum : unsigned { FM_ALL = 0x1ff };
template <unsigned FM, int K> __device__ __forceinline__ void mulx(u32 *o, const u32 *a, const u32 *b)
{
    if ((FM >> K) & 1) fmul(o, a, b);
    else mgpu_bn::mul<mgpu_bn::FP>(o, a, b);
}
template <unsigned FM, int K> __device__ __forceinline__ void sqrx(u32 *o, const u32 *a)
{
    if ((FM >> K) & 1) fmul(o, a, a);
    else mgpu_bn::sqr<mgpu_bn::FP>(o, a);
}
template <unsigned FM> __device__ __forceinline__ void add_affine_x(mgpu_bn::xyzz &p, const u32 *x, const u32 *y, bool none)
{
    using namespace mgpu_bn;
    if (FM == 0) { add_affine(p, x, y, none); return; }
    u32 u2[8], s2[8], pp[8], ppp[8], q[8];
    mulx<FM, 0>(u2, x, p.zz);
    mulx<FM, 1>(s2, y, p.zzz);
    sub<FP>(u2, u2, p.x);
    sub<FP>(s2, s2, p.y);
    const bool inf = is_zero(p.zz);
    if ((int)inf | (int)none | (int)is_zero_mod<FP>(u2)) {
        if (none) return;
        if (inf) set_affine(p, x, y, false);
        else if (is_zero_mod<FP>(s2)) dbl_affine(p, x, y);
        else set_inf(p);
        return;
    }
    sqrx<FM, 2>(pp, u2);
    mulx<FM, 3>(ppp, u2, pp);
    mulx<FM, 4>(q, p.x, pp);
    mulx<FM, 5>(p.zz, p.zz, pp);
    mulx<FM, 6>(p.zzz, p.zzz, ppp);
    sqrx<FM, 7>(u2, s2);
    sub<FP>(u2, u2, ppp);
    sub<FP>(u2, u2, q);
    sub<FP>(p.x, u2, q);
    sub<FP>(q, q, p.x);
    if ((FM >> 8) & 1) {
        fmul(s2, s2, q);
        fmul(q, p.y, ppp);
        sub<FP>(p.y, s2, q);
    } else {
        mul_sub(p.y, s2, q, p.y, ppp);
    }
}

} /* namespace mgpu_fp64 */
