/* mgpu_kernels.cu - the kernels embedded in mgpu.h as a fatbin.

   This file is the source of truth: `make kernels` compiles it with nvcc for every
   supported architecture and writes kernels_fatbin.h (its sha256 included, so a stale
   header can be detected). Every kernel is extern "C" so its name is stable for
   cuModuleGetFunction. Later issues add reductions, blur and BN254 MSM here. */

/* y[i] = a * x[i] + y[i] for i < n, multiply and add rounded separately (never fused) so
   the CPU device's plain C loop gives the same bits. */
extern "C" __global__ void mgpu_axpy_f32(unsigned long long n, float a, const float *x, float *y)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}

/* out[i] = v + i (mod 2^32) for i < n. */
extern "C" __global__ void mgpu_iota_u32(unsigned long long n, unsigned int v, unsigned int *out)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = v + (unsigned int)i;
}

/* Does nothing: measures launch overhead. */
extern "C" __global__ void mgpu_noop(void)
{
}

/* ================================================================ reductions
   mgpu_reduce_<op>_<dtype>(src, n, partials, counter, out): out[0] = op over src[0..n).
   mgpu_combine_<op>_<dtype>(y, x, n): y[i] = op(y[i], x[i]) for i < n.
   op: sum, min, max; dtype: f32 f64 i32 u32 i64 u64 (float, double, int, unsigned, long
   long, unsigned long long). The semantics are documented at mgpu_reduce_async in mgpu.h,
   and the CPU device implements the same rules in C.

   Reduce launch contract (mgpu.h launches exactly this): blocks of MGPU_RED_BLOCK threads,
   1 <= grid <= multiprocessors x MGPU_RED_MIN_BLOCKS (so the whole grid is resident at
   once), the grid a function of n and the device only. With a grid of one block, partials
   and counter are unused (may be NULL). Otherwise partials holds gridDim.x accumulators
   (8 bytes each suffice) and *counter is 0 at launch; the last block to finish combines
   the partials in index order, writes out and puts *counter back to 0, so a workspace can
   be reused by the next launch on the same stream.

   Each thread accumulates the elements it owns in a fixed order: the scalar head up to
   the first 16-byte boundary (thread i takes element i), then 16-byte vectors in a
   grid-stride loop with MGPU_RED_UNROLL loads in flight, then the scalar tail. Vector lanes
   keep separate accumulators. Blocks reduce with warp shuffles in a fixed tree; no
   floating-point atomics anywhere, so a sum is the same bits on every run. */
#define MGPU_RED_BLOCK 256
#define MGPU_RED_MIN_BLOCKS 4
#define MGPU_RED_UNROLL 4

namespace mgpu_red {

enum { SUM = 1, MIN = 2, MAX = 3 };   /* = mgpu_op */

template <typename T> struct vec16;  /* the 16-byte vector of T and its lanes */
template <> struct vec16<float> {
    typedef float4 type;
    static __device__ __forceinline__ void split(const float4 &v, float *e) { e[0] = v.x; e[1] = v.y; e[2] = v.z; e[3] = v.w; }
    static __device__ __forceinline__ float4 join(const float *e) { return make_float4(e[0], e[1], e[2], e[3]); }
};
template <> struct vec16<double> {
    typedef double2 type;
    static __device__ __forceinline__ void split(const double2 &v, double *e) { e[0] = v.x; e[1] = v.y; }
    static __device__ __forceinline__ double2 join(const double *e) { return make_double2(e[0], e[1]); }
};
template <> struct vec16<int> {
    typedef int4 type;
    static __device__ __forceinline__ void split(const int4 &v, int *e) { e[0] = v.x; e[1] = v.y; e[2] = v.z; e[3] = v.w; }
    static __device__ __forceinline__ int4 join(const int *e) { return make_int4(e[0], e[1], e[2], e[3]); }
};
template <> struct vec16<unsigned> {
    typedef uint4 type;
    static __device__ __forceinline__ void split(const uint4 &v, unsigned *e) { e[0] = v.x; e[1] = v.y; e[2] = v.z; e[3] = v.w; }
    static __device__ __forceinline__ uint4 join(const unsigned *e) { return make_uint4(e[0], e[1], e[2], e[3]); }
};
template <> struct vec16<long long> {
    typedef longlong2 type;
    static __device__ __forceinline__ void split(const longlong2 &v, long long *e) { e[0] = v.x; e[1] = v.y; }
    static __device__ __forceinline__ longlong2 join(const long long *e) { return make_longlong2(e[0], e[1]); }
};
template <> struct vec16<unsigned long long> {
    typedef ulonglong2 type;
    static __device__ __forceinline__ void split(const ulonglong2 &v, unsigned long long *e) { e[0] = v.x; e[1] = v.y; }
    static __device__ __forceinline__ ulonglong2 join(const unsigned long long *e) { return make_ulonglong2(e[0], e[1]); }
};

/* Integer sums wrap: they are done in the unsigned type of the same width. */
template <typename T> struct wrap { typedef T type; };
template <> struct wrap<int> { typedef unsigned type; };
template <> struct wrap<long long> { typedef unsigned long long type; };

/* The type's limits: identities of min and max. */
template <typename T> struct lim;
template <> struct lim<float> {
    static __device__ __forceinline__ float hi() { return __int_as_float(0x7f800000); }
    static __device__ __forceinline__ float lo() { return __int_as_float((int)0xff800000u); }
};
template <> struct lim<double> {
    static __device__ __forceinline__ double hi() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ __forceinline__ double lo() { return __longlong_as_double((long long)0xfff0000000000000ull); }
};
template <> struct lim<int> {
    static __device__ __forceinline__ int hi() { return 0x7fffffff; }
    static __device__ __forceinline__ int lo() { return -0x7fffffff - 1; }
};
template <> struct lim<unsigned> {
    static __device__ __forceinline__ unsigned hi() { return 0xffffffffu; }
    static __device__ __forceinline__ unsigned lo() { return 0u; }
};
template <> struct lim<long long> {
    static __device__ __forceinline__ long long hi() { return 0x7fffffffffffffffll; }
    static __device__ __forceinline__ long long lo() { return -0x7fffffffffffffffll - 1; }
};
template <> struct lim<unsigned long long> {
    static __device__ __forceinline__ unsigned long long hi() { return ~0ull; }
    static __device__ __forceinline__ unsigned long long lo() { return 0ull; }
};

/* min and max. Floats: NaN if either is NaN (a + b is then NaN), and -0 < +0: equal
   operands are merged bitwise (OR keeps the sign of a -0 for min, AND drops it for max),
   which leaves every other equal pair unchanged. So both are commutative and associative
   and the result does not depend on the order of the reduction. */
template <typename T> __device__ __forceinline__ T vmin(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ __forceinline__ T vmax(T a, T b) { return a < b ? b : a; }
template <> __device__ __forceinline__ float vmin<float>(float a, float b)
{
    if (a < b) return a;
    if (b < a) return b;
    return a == b ? __uint_as_float(__float_as_uint(a) | __float_as_uint(b)) : a + b;
}
template <> __device__ __forceinline__ float vmax<float>(float a, float b)
{
    if (a > b) return a;
    if (b > a) return b;
    return a == b ? __uint_as_float(__float_as_uint(a) & __float_as_uint(b)) : a + b;
}
template <> __device__ __forceinline__ double vmin<double>(double a, double b)
{
    if (a < b) return a;
    if (b < a) return b;
    return a == b ? __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b)) : a + b;
}
template <> __device__ __forceinline__ double vmax<double>(double a, double b)
{
    if (a > b) return a;
    if (b > a) return b;
    return a == b ? __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b)) : a + b;
}

/* One reduction: the accumulator type A, its identity, lifting an element, joining two
   accumulators, and the final value. f32 sums accumulate in double; integer sums wrap. */
template <typename T, int OP> struct rop;
template <typename T> struct rop<T, SUM> {
    typedef typename wrap<T>::type A;
    static __device__ __forceinline__ A id() { return (A)0; }
    static __device__ __forceinline__ A lift(T x) { return (A)x; }
    static __device__ __forceinline__ A join(A a, A b) { return a + b; }
    static __device__ __forceinline__ T out(A a) { return (T)a; }
};
template <> struct rop<float, SUM> {
    typedef double A;
    static __device__ __forceinline__ A id() { return 0.0; }
    static __device__ __forceinline__ A lift(float x) { return (double)x; }
    static __device__ __forceinline__ A join(A a, A b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ float out(A a) { return __double2float_rn(a); }
};
template <> struct rop<double, SUM> {
    typedef double A;
    static __device__ __forceinline__ A id() { return 0.0; }
    static __device__ __forceinline__ A lift(double x) { return x; }
    static __device__ __forceinline__ A join(A a, A b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double out(A a) { return a; }
};
template <typename T> struct rop<T, MIN> {
    typedef T A;
    static __device__ __forceinline__ A id() { return lim<T>::hi(); }
    static __device__ __forceinline__ A lift(T x) { return x; }
    static __device__ __forceinline__ A join(A a, A b) { return vmin<T>(a, b); }
    static __device__ __forceinline__ T out(A a) { return a; }
};
template <typename T> struct rop<T, MAX> {
    typedef T A;
    static __device__ __forceinline__ A id() { return lim<T>::lo(); }
    static __device__ __forceinline__ A lift(T x) { return x; }
    static __device__ __forceinline__ A join(A a, A b) { return vmax<T>(a, b); }
    static __device__ __forceinline__ T out(A a) { return a; }
};

/* One elementwise combine: y op x with one rounding for float sums, wrapping for integers. */
template <typename T, int OP> struct cop { static __device__ __forceinline__ T f(T y, T x) { return rop<T, OP>::join(y, x); } };
template <typename T> struct cop<T, SUM> {
    static __device__ __forceinline__ T f(T y, T x)
    {
        typedef typename wrap<T>::type U;
        return (T)((U)y + (U)x);
    }
};
template <> struct cop<float, SUM> { static __device__ __forceinline__ float f(float y, float x) { return __fadd_rn(y, x); } };
template <> struct cop<double, SUM> { static __device__ __forceinline__ double f(double y, double x) { return __dadd_rn(y, x); } };

/* Reduces v over the block; the result is valid in thread 0. smem: MGPU_RED_BLOCK / 32
   slots, free for reuse once every thread has passed a barrier after this returns. */
template <typename R>
__device__ __forceinline__ typename R::A block_reduce(typename R::A v, typename R::A *smem)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = R::join(v, __shfl_down_sync(0xffffffffu, v, d));
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < MGPU_RED_BLOCK / 32 ? smem[lane] : R::id();
#pragma unroll
        for (int d = MGPU_RED_BLOCK / 64; d > 0; d >>= 1) v = R::join(v, __shfl_down_sync(0xffffffffu, v, d));
    }
    return v;
}

template <typename T, int OP>
__device__ __forceinline__ void reduce(const T *__restrict__ src, unsigned long long n, void *partials_,
                                       unsigned *counter, T *out)
{
    typedef rop<T, OP> R;
    typedef typename R::A A;
    typedef typename vec16<T>::type V;
    enum { W = 16 / sizeof(T) };
    __shared__ A smem[MGPU_RED_BLOCK / 32];
    __shared__ unsigned is_last;
    const unsigned long long tid = (unsigned long long)blockIdx.x * MGPU_RED_BLOCK + threadIdx.x;
    const unsigned long long nthreads = (unsigned long long)gridDim.x * MGPU_RED_BLOCK;
    A acc[W];
    T e[W];
#pragma unroll
    for (int k = 0; k < W; k++) acc[k] = R::id();

    /* scalar head: the elements before the first 16-byte boundary */
    unsigned long long head = ((16u - ((unsigned)reinterpret_cast<unsigned long long>(src) & 15u)) & 15u) / sizeof(T);
    if (head > n) head = n;
    if (tid < head) acc[0] = R::join(acc[0], R::lift(src[tid]));

    /* 16-byte vectors, MGPU_RED_UNROLL loads in flight per thread */
    const unsigned long long nvec = (n - head) / W;
    const V *vsrc = reinterpret_cast<const V *>(src + head);
    unsigned long long i = tid;
    if (nvec > (MGPU_RED_UNROLL - 1) * nthreads) {
        const unsigned long long end = nvec - (MGPU_RED_UNROLL - 1) * nthreads;
        for (; i < end; i += MGPU_RED_UNROLL * nthreads) {
            V v[MGPU_RED_UNROLL];
#pragma unroll
            for (int u = 0; u < MGPU_RED_UNROLL; u++) v[u] = __ldg(vsrc + i + u * nthreads);
#pragma unroll
            for (int u = 0; u < MGPU_RED_UNROLL; u++) {
                vec16<T>::split(v[u], e);
#pragma unroll
                for (int k = 0; k < W; k++) acc[k] = R::join(acc[k], R::lift(e[k]));
            }
        }
    }
    for (; i < nvec; i += nthreads) {
        vec16<T>::split(__ldg(vsrc + i), e);
#pragma unroll
        for (int k = 0; k < W; k++) acc[k] = R::join(acc[k], R::lift(e[k]));
    }

    /* scalar tail: fewer than W elements */
    const unsigned long long tail = head + nvec * W;
    if (tid < n - tail) acc[0] = R::join(acc[0], R::lift(src[tail + tid]));

    A a = W == 4 ? R::join(R::join(acc[0], acc[1]), R::join(acc[2 % W], acc[3 % W])) : R::join(acc[0], acc[1]);
    a = block_reduce<R>(a, smem);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = R::out(a);
        return;
    }

    /* Publish this block's partial; the last block to arrive combines them in index order. */
    A *partials = static_cast<A *>(partials_);
    if (threadIdx.x == 0) {
        unsigned last;
        partials[blockIdx.x] = a;
        __threadfence();                               /* the partial before the ticket */
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
        if (last) __threadfence();                     /* every ticket before the reads below */
        is_last = last;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    A b = R::id();
    for (unsigned j = threadIdx.x; j < gridDim.x; j += MGPU_RED_BLOCK) b = R::join(b, __ldcg(partials + j));
    b = block_reduce<R>(b, smem);
    if (threadIdx.x == 0) {
        *out = R::out(b);
        atomicExch(counter, 0u);     /* ready for the next launch on the stream */
    }
}

/* y[i] = op(y[i], x[i]): 16-byte vectors when x and y share their alignment, else scalars. */
template <typename T, int OP>
__device__ __forceinline__ void combine(T *y, const T *x, unsigned long long n)
{
    typedef typename vec16<T>::type V;
    enum { W = 16 / sizeof(T) };
    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long nthreads = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long head = ((16u - ((unsigned)reinterpret_cast<unsigned long long>(y) & 15u)) & 15u) / sizeof(T);
    if (head > n) head = n;
    if ((reinterpret_cast<unsigned long long>(x + head) & 15u) != 0) {
        for (unsigned long long i = tid; i < n; i += nthreads) y[i] = cop<T, OP>::f(y[i], x[i]);
        return;
    }
    if (tid < head) y[tid] = cop<T, OP>::f(y[tid], x[tid]);
    const unsigned long long nvec = (n - head) / W;
    V *vy = reinterpret_cast<V *>(y + head);
    const V *vx = reinterpret_cast<const V *>(x + head);
    for (unsigned long long i = tid; i < nvec; i += nthreads) {
        T a[W], b[W];
        vec16<T>::split(vy[i], a);
        vec16<T>::split(vx[i], b);
#pragma unroll
        for (int k = 0; k < W; k++) a[k] = cop<T, OP>::f(a[k], b[k]);
        vy[i] = vec16<T>::join(a);
    }
    const unsigned long long tail = head + nvec * W;
    if (tid < n - tail) y[tail + tid] = cop<T, OP>::f(y[tail + tid], x[tail + tid]);
}

} /* namespace mgpu_red */

#define MGPU_RED_BOUNDS __launch_bounds__(MGPU_RED_BLOCK, MGPU_RED_MIN_BLOCKS)
typedef unsigned long long mgpu_red_u64;
typedef long long mgpu_red_i64;

extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_sum_f32(const float *s, mgpu_red_u64 n, void *p, unsigned *c, float *o) { mgpu_red::reduce<float, mgpu_red::SUM>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_min_f32(const float *s, mgpu_red_u64 n, void *p, unsigned *c, float *o) { mgpu_red::reduce<float, mgpu_red::MIN>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_max_f32(const float *s, mgpu_red_u64 n, void *p, unsigned *c, float *o) { mgpu_red::reduce<float, mgpu_red::MAX>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_sum_f64(const double *s, mgpu_red_u64 n, void *p, unsigned *c, double *o) { mgpu_red::reduce<double, mgpu_red::SUM>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_min_f64(const double *s, mgpu_red_u64 n, void *p, unsigned *c, double *o) { mgpu_red::reduce<double, mgpu_red::MIN>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_max_f64(const double *s, mgpu_red_u64 n, void *p, unsigned *c, double *o) { mgpu_red::reduce<double, mgpu_red::MAX>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_sum_i32(const int *s, mgpu_red_u64 n, void *p, unsigned *c, int *o) { mgpu_red::reduce<int, mgpu_red::SUM>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_min_i32(const int *s, mgpu_red_u64 n, void *p, unsigned *c, int *o) { mgpu_red::reduce<int, mgpu_red::MIN>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_max_i32(const int *s, mgpu_red_u64 n, void *p, unsigned *c, int *o) { mgpu_red::reduce<int, mgpu_red::MAX>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_sum_u32(const unsigned *s, mgpu_red_u64 n, void *p, unsigned *c, unsigned *o) { mgpu_red::reduce<unsigned, mgpu_red::SUM>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_min_u32(const unsigned *s, mgpu_red_u64 n, void *p, unsigned *c, unsigned *o) { mgpu_red::reduce<unsigned, mgpu_red::MIN>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_max_u32(const unsigned *s, mgpu_red_u64 n, void *p, unsigned *c, unsigned *o) { mgpu_red::reduce<unsigned, mgpu_red::MAX>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_sum_i64(const mgpu_red_i64 *s, mgpu_red_u64 n, void *p, unsigned *c, mgpu_red_i64 *o) { mgpu_red::reduce<mgpu_red_i64, mgpu_red::SUM>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_min_i64(const mgpu_red_i64 *s, mgpu_red_u64 n, void *p, unsigned *c, mgpu_red_i64 *o) { mgpu_red::reduce<mgpu_red_i64, mgpu_red::MIN>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_max_i64(const mgpu_red_i64 *s, mgpu_red_u64 n, void *p, unsigned *c, mgpu_red_i64 *o) { mgpu_red::reduce<mgpu_red_i64, mgpu_red::MAX>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_sum_u64(const mgpu_red_u64 *s, mgpu_red_u64 n, void *p, unsigned *c, mgpu_red_u64 *o) { mgpu_red::reduce<mgpu_red_u64, mgpu_red::SUM>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_min_u64(const mgpu_red_u64 *s, mgpu_red_u64 n, void *p, unsigned *c, mgpu_red_u64 *o) { mgpu_red::reduce<mgpu_red_u64, mgpu_red::MIN>(s, n, p, c, o); }
extern "C" __global__ void MGPU_RED_BOUNDS mgpu_reduce_max_u64(const mgpu_red_u64 *s, mgpu_red_u64 n, void *p, unsigned *c, mgpu_red_u64 *o) { mgpu_red::reduce<mgpu_red_u64, mgpu_red::MAX>(s, n, p, c, o); }

extern "C" __global__ void mgpu_combine_sum_f32(float *y, const float *x, mgpu_red_u64 n) { mgpu_red::combine<float, mgpu_red::SUM>(y, x, n); }
extern "C" __global__ void mgpu_combine_min_f32(float *y, const float *x, mgpu_red_u64 n) { mgpu_red::combine<float, mgpu_red::MIN>(y, x, n); }
extern "C" __global__ void mgpu_combine_max_f32(float *y, const float *x, mgpu_red_u64 n) { mgpu_red::combine<float, mgpu_red::MAX>(y, x, n); }
extern "C" __global__ void mgpu_combine_sum_f64(double *y, const double *x, mgpu_red_u64 n) { mgpu_red::combine<double, mgpu_red::SUM>(y, x, n); }
extern "C" __global__ void mgpu_combine_min_f64(double *y, const double *x, mgpu_red_u64 n) { mgpu_red::combine<double, mgpu_red::MIN>(y, x, n); }
extern "C" __global__ void mgpu_combine_max_f64(double *y, const double *x, mgpu_red_u64 n) { mgpu_red::combine<double, mgpu_red::MAX>(y, x, n); }
extern "C" __global__ void mgpu_combine_sum_i32(int *y, const int *x, mgpu_red_u64 n) { mgpu_red::combine<int, mgpu_red::SUM>(y, x, n); }
extern "C" __global__ void mgpu_combine_min_i32(int *y, const int *x, mgpu_red_u64 n) { mgpu_red::combine<int, mgpu_red::MIN>(y, x, n); }
extern "C" __global__ void mgpu_combine_max_i32(int *y, const int *x, mgpu_red_u64 n) { mgpu_red::combine<int, mgpu_red::MAX>(y, x, n); }
extern "C" __global__ void mgpu_combine_sum_u32(unsigned *y, const unsigned *x, mgpu_red_u64 n) { mgpu_red::combine<unsigned, mgpu_red::SUM>(y, x, n); }
extern "C" __global__ void mgpu_combine_min_u32(unsigned *y, const unsigned *x, mgpu_red_u64 n) { mgpu_red::combine<unsigned, mgpu_red::MIN>(y, x, n); }
extern "C" __global__ void mgpu_combine_max_u32(unsigned *y, const unsigned *x, mgpu_red_u64 n) { mgpu_red::combine<unsigned, mgpu_red::MAX>(y, x, n); }
extern "C" __global__ void mgpu_combine_sum_i64(mgpu_red_i64 *y, const mgpu_red_i64 *x, mgpu_red_u64 n) { mgpu_red::combine<mgpu_red_i64, mgpu_red::SUM>(y, x, n); }
extern "C" __global__ void mgpu_combine_min_i64(mgpu_red_i64 *y, const mgpu_red_i64 *x, mgpu_red_u64 n) { mgpu_red::combine<mgpu_red_i64, mgpu_red::MIN>(y, x, n); }
extern "C" __global__ void mgpu_combine_max_i64(mgpu_red_i64 *y, const mgpu_red_i64 *x, mgpu_red_u64 n) { mgpu_red::combine<mgpu_red_i64, mgpu_red::MAX>(y, x, n); }
extern "C" __global__ void mgpu_combine_sum_u64(mgpu_red_u64 *y, const mgpu_red_u64 *x, mgpu_red_u64 n) { mgpu_red::combine<mgpu_red_u64, mgpu_red::SUM>(y, x, n); }
extern "C" __global__ void mgpu_combine_min_u64(mgpu_red_u64 *y, const mgpu_red_u64 *x, mgpu_red_u64 n) { mgpu_red::combine<mgpu_red_u64, mgpu_red::MIN>(y, x, n); }
extern "C" __global__ void mgpu_combine_max_u64(mgpu_red_u64 *y, const mgpu_red_u64 *x, mgpu_red_u64 n) { mgpu_red::combine<mgpu_red_u64, mgpu_red::MAX>(y, x, n); }

/* ================================================================ Gaussian blur (BEGIN)
   Kernels of mgpu_blur_async and the multi-device blur calls; the semantics are documented
   there (mgpu.h) and the CPU device implements the same arithmetic in C (mgpu__blur_cpu).
   Everything below is one launch per image (or band): one read and one write of the
   image, plus the halo overlap described below. mgpu.h fills `args` (mgpu__blur_args, the
   same 224 bytes) and picks the kernel and the launch shape.

   Arithmetic, the same on every device:
   - 8-bit: integer weights wi[0..r] with wi[0] + 2*(wi[1] + .. + wi[r]) == 4096 (2^12).
     h = wi[0]*x[0] + sum_k wi[k]*(x[-k*C] + x[+k*C]) is exact (< 2^20); the vertical pass
     o = 2^23 + wi[0]*h[0] + sum_k wi[k]*(h[-k] + h[+k]) is exact in 32 bits (< 2^32), and
     the result is o >> 24 (byte 3): one rounding, half up.
   - f32: acc = wf[0]*x[0], then acc = acc + wf[k]*(x[-k*C] + x[+k*C]) for k = 1..r, each
     operation rounded to nearest (never fused), horizontal first, then the same vertically.
   - Borders map an index outside [0, n) to replicate (clamp), reflect-101 (mirror about
     the edge pixel, repeatedly) or the constant (cval_*). Rows outside the image are whole
     rows of that rule; the horizontal pass then runs on them as on any row.
   - Rows: the output row y (global index, y_begin <= y < y_end) is written at
     dst + (y - y_begin) * dpitch; a source row m (global) is read at
     src + (m - src_row0) * spitch. A band of a larger image is thus the same launch with
     y_begin/y_end/src_row0 set: only the real image edges (0 and height) get border rules.

   Fast kernels mgpu_blur_<u8|f32>c<C>_r2 (u8 with C = 1, 3, 4; f32 with C = 1, 4; radius
   r <= RC = 2): blocks of MGPU_BLUR_FAST_WARPS warps; each warp owns one (segment, strip)
   item: a segment of 32 lanes x 16 bytes of a row, of which the HL lanes at each end only
   load the halo columns (HL = ceil(RC*C / values per lane)), and a strip of `strip` output
   rows. The warp walks down the strip one input row at a time: a 16-byte load per lane
   (two rows prefetched), the neighbours' words by warp shuffles, the horizontal pass in
   registers, the last 2*RC+1 horizontal rows kept in a register ring for the vertical
   pass, and one 16-byte store per output lane and row. No block barrier. A lane whose 16
   bytes cross a row end (or every lane, when rows are not 16-byte aligned) loads value by
   value instead: the source index of each of its values under the border rule is the same
   for every row, so it is worked out once per strip into shared memory (4 bytes per value
   per thread), and each row then issues its 16 independent loads at once; stores fall
   back to value by value likewise. Rows a strip does not need (radius < RC) are neither
   read nor filtered.

   Pipelined kernels mgpu_blur_u8c<C>_r2p (C = 1, 3, 4; r <= 2): fast<>'s items and
   arithmetic for 8-bit images whose rows allow 16-byte accesses everywhere (aligned src
   and dst, width * C a multiple of 16), with the rows reaching the lanes through shared-
   memory stages filled by cp.async, several rows ahead, and the horizontal pass done with
   dp2a; see pipe below. mgpu.h picks them for such images.

   Generic kernels mgpu_blur_<u8|f32>_any: any C in 1..4, r in 0..MGPU_BLUR_MAX_R; one
   block of MGPU_BLUR_ANY_TILE threads per (tile of MGPU_BLUR_ANY_TILE elements, strip):
   each input row of the tile plus its halo is staged in shared memory, each thread
   computes its column's horizontal value into a shared ring of 2r+1 rows (the thread's
   own column), and the vertical pass reads that ring. Dynamic shared memory:
   4 * (2*(MGPU_BLUR_MAX_R+1) + (2r+1)*TILE + 2*(TILE + 2*r*C)) bytes. */
#define MGPU_BLUR_MAX_R 16
#define MGPU_BLUR_FAST_WARPS 4
/* The pipelined 8-bit kernels: warps per block (4 or 8: 16 warps per multiprocessor at
   <= 128 registers), rows in flight per warp, cache hints (see pipe). bench_blur --sweep
   times other choices; the host's strip rule is MGPU__BLUR_PIPE_WAVES in mgpu.h. */
#define MGPU_BLUR_PIPE_WARPS 4
#define MGPU_BLUR_PIPE_PF 6
#define MGPU_BLUR_PIPE_CACHE 1
#define MGPU_BLUR_PIPE_ARITH 1
#define MGPU_BLUR_ANY_TILE 256

namespace mgpu_blr {

/* = mgpu__blur_args in mgpu.h: the same members in the same order, 224 bytes. */
struct args {
    unsigned long long src, dst, spitch, dpitch;
    int width, height, channels, src_row0;
    int y_begin, y_end, radius, border;
    int strip, vec_src, vec_dst, cval_u8;
    float cval_f32;
    int reserved;
    unsigned wi[MGPU_BLUR_MAX_R + 1];
    float wf[MGPU_BLUR_MAX_R + 1];
};

enum { REPLICATE = 0, REFLECT101 = 1, CONSTANT = 2 };

/* Index p of a row or pixel in [0, n), mapped by the border rule; -1 means the constant.
   Callers keep p within 16 (rows) or the halo (pixels) of [0, n), so the loop is short. */
__device__ __forceinline__ int map(int p, int n, int border)
{
    if ((unsigned)p < (unsigned)n) return p;
    if (border == REPLICATE) return p < 0 ? 0 : n - 1;
    if (border != REFLECT101) return -1;
    if (n == 1) return 0;
    for (;;) {
        if (p < 0) p = -p;
        else if (p >= n) p = (n - 1) - (p - (n - 1));
        else return p;
    }
}

/* Per-format arithmetic. Raw data moves as 32-bit words: 4 bytes, or one float's bits. */
template <typename T> struct tr;
template <> struct tr<unsigned char> {
    typedef unsigned acc;
    enum { EPW = 4 };                               /* elements per 32-bit word */
    static __device__ __forceinline__ unsigned elem(unsigned w, int b) { return (w >> (8 * b)) & 255u; }
    static __device__ __forceinline__ unsigned first(unsigned w, unsigned x) { return w * x; }
    static __device__ __forceinline__ unsigned pair(unsigned acc, unsigned w, unsigned x, unsigned y) { return acc + w * (x + y); }
    static __device__ __forceinline__ unsigned vfirst(unsigned w, unsigned h) { return (1u << 23) + w * h; }
    static __device__ __forceinline__ unsigned weight(const args &a, int k) { return a.wi[k]; }
    static __device__ __forceinline__ unsigned cval(const args &a) { return (unsigned)a.cval_u8; }
    static __device__ __forceinline__ unsigned cword(const args &a) { return (unsigned)a.cval_u8 * 0x01010101u; }
    static __device__ __forceinline__ unsigned load(const unsigned char *row, int e) { return __ldg(row + e); }
    static __device__ __forceinline__ void store(unsigned char *row, int e, unsigned o) { row[e] = (unsigned char)(o >> 24); }
};
template <> struct tr<float> {
    typedef float acc;
    enum { EPW = 1 };
    static __device__ __forceinline__ float elem(unsigned w, int) { return __uint_as_float(w); }
    static __device__ __forceinline__ float first(float w, float x) { return __fmul_rn(w, x); }
    static __device__ __forceinline__ float pair(float acc, float w, float x, float y) { return __fadd_rn(acc, __fmul_rn(w, __fadd_rn(x, y))); }
    static __device__ __forceinline__ float vfirst(float w, float h) { return __fmul_rn(w, h); }
    static __device__ __forceinline__ float weight(const args &a, int k) { return a.wf[k]; }
    static __device__ __forceinline__ float cval(const args &a) { return a.cval_f32; }
    static __device__ __forceinline__ unsigned cword(const args &a) { return __float_as_uint(a.cval_f32); }
    static __device__ __forceinline__ float load(const unsigned char *row, int e) { return __ldg((const float *)row + e); }
    static __device__ __forceinline__ void store(unsigned char *row, int e, float o) { ((float *)row)[e] = o; }
};

/* Where value e of a row (e may lie outside [0, rowlen)) comes from under the border rule:
   an index >= 0 into the row, -1 for the constant, -2 when no output reads it (beyond the
   halo). The same for every row, so the fast kernels work it out once per strip. */
template <int C>
__device__ __forceinline__ int source_of(const args &a, int e, int rowlen, int h)
{
    int p, m;
    if ((unsigned)e < (unsigned)rowlen) return e;
    if (e < -h || e >= rowlen + h) return -2;
    p = e >= 0 ? e / C : -((C - 1 - e) / C);        /* floor(e / C): the pixel */
    m = map(p, a.width, a.border);
    return m < 0 ? -1 : m * C + (e - p * C);
}

/* The 4 raw words (16 bytes) of input row yi for this lane (first value e0): one 16-byte
   load, or (lanes at a row end, unaligned rows) one load per value from the indices at
   src[q * NT] (source_of). Rows outside [lo, hi) are not needed by this strip: zeros. */
template <typename T, int NT>
__device__ __forceinline__ void fast_load(const args &a, int yi, int lo, int hi, int e0, bool vec, const int *src,
                                          unsigned w[4])
{
    enum { V = 16 / (int)sizeof(T), EPW = tr<T>::EPW };
    int my;
    const unsigned char *row;
    w[0] = w[1] = w[2] = w[3] = 0u;
    if (yi < lo || yi >= hi) return;
    my = map(yi, a.height, a.border);
    if (my < 0) {
        w[0] = w[1] = w[2] = w[3] = tr<T>::cword(a);
        return;
    }
    row = (const unsigned char *)a.src + (size_t)(my - a.src_row0) * a.spitch;
    if (vec) {
        const uint4 v = __ldg((const uint4 *)(row + (size_t)e0 * sizeof(T)));
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
        return;
    }
#pragma unroll
    for (int q = 0; q < V; q++) {                   /* independent loads: one round trip */
        const int j = src[q * NT];
        unsigned bits = 0u;
        if (j >= 0) bits = sizeof(T) == 1 ? (unsigned)__ldg(row + j) : __float_as_uint(__ldg((const float *)row + j));
        else if (j == -1) bits = sizeof(T) == 1 ? (unsigned)a.cval_u8 : __float_as_uint(a.cval_f32);
        if (EPW == 4) w[q / 4] |= bits << (8 * (q % 4));
        else w[q] = bits;
    }
}

/* Compile-time tables: which words a lane needs from the lane m to its left / right. */
template <int V, int EPW, int H>
__device__ __forceinline__ constexpr bool need_left(int m, int q) { return (q + 1) * EPW > m * V - H; }
template <int V, int EPW, int H>
__device__ __forceinline__ constexpr bool need_right(int m, int q) { return q * EPW < H - (m - 1) * V; }

template <typename T, int C, int RC, int WARPS = MGPU_BLUR_FAST_WARPS>
__device__ __forceinline__ void fast(const args &a)
{
    typedef tr<T> TR;
    typedef typename TR::acc A;
    enum {
        V = 16 / (int)sizeof(T),                    /* elements per lane */
        EPW = TR::EPW,
        H = RC * C,                                 /* halo elements on each side */
        HL = (H + V - 1) / V,                       /* halo lanes on each side */
        OL = 32 - 2 * HL,                           /* output lanes */
        P = 2 * RC + 1,                             /* ring rows */
        NT = WARPS * 32                             /* threads per block */
    };
    const int lane = threadIdx.x & 31;
    const long long gw = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5);
    const int rowlen = a.width * C;
    const int segw = OL * V;
    const int nsegs = (rowlen + segw - 1) / segw;
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    if (gw >= (long long)nsegs * nstrips) return;   /* whole warps only */
    const int seg = (int)(gw % nsegs);
    const int ys = a.y_begin + (int)(gw / nsegs) * a.strip;
    const int ye = min(ys + a.strip, a.y_end);
    const int sbase = seg * segw;
    const int e0 = sbase + (lane - HL) * V;
    const bool vec = a.vec_src && e0 >= 0 && e0 + V <= rowlen;       /* this lane: one 16-byte load */
    const bool out_lane = lane >= HL && lane < 32 - HL && e0 < rowlen;
    const int r = a.radius;
    const int lo = ys - r, hi = ye + r;             /* input rows this strip needs */
    const int niter = ye - ys + 2 * RC;             /* input rows ys-RC .. ye+RC-1 */
    unsigned char *const dst = (unsigned char *)a.dst;
    unsigned cur[4], n1[4], n2[4];
    A ring[P][V];
    __shared__ int srcidx[V * NT];                  /* [q][thread]: see source_of */

    if (!vec) {
#pragma unroll 1
        for (int q = 0; q < V; q++) srcidx[q * NT + threadIdx.x] = source_of<C>(a, e0 + q, rowlen, H);
    }
    fast_load<T, NT>(a, ys - RC, lo, hi, e0, vec, srcidx + threadIdx.x, cur);
    fast_load<T, NT>(a, ys - RC + 1, lo, hi, e0, vec, srcidx + threadIdx.x, n1);
    for (int base = 0; base < niter; base += P) {
#pragma unroll
        for (int j = 0; j < P; j++) {
            const int i = base + j;
            if (i < niter) {
                const int yi = ys - RC + i;
                fast_load<T, NT>(a, yi + 2, lo, hi, e0, vec, srcidx + threadIdx.x, n2);
                if (yi >= lo && yi < hi) {          /* warp-uniform: the shuffles run on all lanes */
                    unsigned lw[HL][4], rw[HL][4];
#pragma unroll
                    for (int m = 1; m <= HL; m++)
#pragma unroll
                        for (int q = 0; q < 4; q++) {
                            if (need_left<V, EPW, H>(m, q)) lw[m - 1][q] = __shfl_up_sync(0xffffffffu, cur[q], m);
                            if (need_right<V, EPW, H>(m, q)) rw[m - 1][q] = __shfl_down_sync(0xffffffffu, cur[q], m);
                        }
                    /* element x of the extended row, x in [-H, V + H) (a constant after unrolling) */
#define MGPU_BLUR_X(x) ((x) < 0 ? TR::elem(lw[(-(x) - 1) / V][(((x) % V + V) % V) / EPW], (((x) % V + V) % V) % EPW) \
                        : (x) < V ? TR::elem(cur[(x) / EPW], (x) % EPW) \
                        : TR::elem(rw[(x) / V - 1][((x) % V) / EPW], ((x) % V) % EPW))
#pragma unroll
                    for (int q = 0; q < V; q++) {
                        A acc = TR::first(TR::weight(a, 0), MGPU_BLUR_X(q));
#pragma unroll
                        for (int k = 1; k <= RC; k++)
                            if (k <= r) acc = TR::pair(acc, TR::weight(a, k), MGPU_BLUR_X(q - k * C), MGPU_BLUR_X(q + k * C));
                        ring[j][q] = acc;
                    }
#undef MGPU_BLUR_X
                }
                if (i >= 2 * RC && out_lane) {      /* output row yi - RC from ring rows i-2RC .. i */
                    const int c = (j + P - RC) % P;
                    const int yo = yi - RC;
                    unsigned char *row = dst + (size_t)(yo - a.y_begin) * a.dpitch;
                    A o[V];
#pragma unroll
                    for (int q = 0; q < V; q++) {
                        A acc = TR::vfirst(TR::weight(a, 0), ring[c][q]);
#pragma unroll
                        for (int k = 1; k <= RC; k++)
                            if (k <= r) acc = TR::pair(acc, TR::weight(a, k), ring[(c + P - k) % P][q], ring[(c + k) % P][q]);
                        o[q] = acc;
                    }
                    if (a.vec_dst && e0 + V <= rowlen) {
                        uint4 v;
                        if (EPW == 4) {             /* byte 3 of each sum, 4 per word */
                            unsigned u[4];
#pragma unroll
                            for (int q = 0; q < 4; q++)
                                u[q] = __byte_perm(__byte_perm((unsigned)o[4 * q], (unsigned)o[4 * q + 1], 0x0073),
                                                   __byte_perm((unsigned)o[4 * q + 2], (unsigned)o[4 * q + 3], 0x0073), 0x5410);
                            v.x = u[0]; v.y = u[1]; v.z = u[2]; v.w = u[3];
                        } else {
                            v.x = __float_as_uint((float)o[0]); v.y = __float_as_uint((float)o[1]);
                            v.z = __float_as_uint((float)o[2]); v.w = __float_as_uint((float)o[3]);
                        }
                        *(uint4 *)(row + (size_t)e0 * sizeof(T)) = v;
                    } else {                        /* row end or unaligned rows: value by value */
#pragma unroll
                        for (int q = 0; q < V; q++)
                            if (e0 + q < rowlen) TR::store(row, e0 + q, o[q]);
                    }
                }
#pragma unroll
                for (int q = 0; q < 4; q++) { cur[q] = n1[q]; n1[q] = n2[q]; }
            }
        }
    }
}

/* ---- the pipelined 8-bit kernels (mgpu_blur_u8c<C>_r2p) ----------------------------
   For rows that allow 16-byte accesses everywhere (data and pitch of src and dst multiples
   of 16, and width * C a multiple of 16): the same (segment, strip) items, lanes, shuffles,
   register ring and arithmetic as fast<>, but the rows reach the lanes through a ring of
   NS = PF + 1 shared-memory stages per warp filled by cp.async (sm_80 and later): while
   the warp filters row i, rows i+1 .. i+PF are in flight (PF * 512 bytes per warp), which
   costs shared memory rather than registers. Each lane copies and reads back only its own
   16 bytes of a stage, so no barrier is needed: cp.async.wait_group makes a thread's own
   copies visible to it, and a stage is refilled only one iteration after it was read.
   Halo lanes outside the row (the first lane of the first segment, the lane just past the
   row end in the last one) load nothing: under every border rule, the values they hold
   (up to 2C <= 8 bytes next to the row) come from the row's first or last 3C <= 12
   bytes, i.e. from the first or last 16-byte chunk, which the neighbouring lane has; they
   take its 16 bytes with one shuffle per word and pick their bytes with PRMT selectors
   worked out once per strip (source_of). Only the two edge segments of a row do that.
   Template: C channels, PF rows in flight per warp, WARPS warps per block, CACHE bits
   (1: streaming stores st.global.cs; 2: cp.async with the L2::128B prefetch hint;
   4: L2::256B instead). On sm_75 (no cp.async) the kernels run fast<> instead. */
#if defined(__CUDA_ARCH__) && !defined(MGPU_BLUR_EMU)
template <int CACHE>
__device__ __forceinline__ void cp16(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    if (CACHE & 4) asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" :: "r"(s), "l"(gmem) : "memory");
    else if (CACHE & 2) asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" :: "r"(s), "l"(gmem) : "memory");
    else asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }
template <int CACHE>
__device__ __forceinline__ void st16(void *p, uint4 v)
{
    if (CACHE & 1) __stcs((uint4 *)p, v);
    else *(uint4 *)p = v;
}
#endif

/* The 8-bit horizontal pass of a lane's 16 values with dp2a (two 16-bit weights times two
   bytes, plus an accumulator, in one instruction; exact like the plain form, since every
   product and sum is a non-negative integer < 2^20): h = A21 . (x[-2C], x[-C])
   + A01 . (x[0], x[+C]) + A20 . (x[+2C], x[+3C]) with A21 = (W2, W1), A01 = (W0, W1),
   A20 = (W2, 0) (weights past the radius are 0). C = 4: the pairs are the byte-interleaved
   words (w[u], w[u+1]) of the extended row, two PRMT per word; C = 1: the pairs are the
   16-bit halves of the words themselves (even values) or of the byte-shifted words (odd
   values), one PRMT per word. lw/rw: the words of the left/right lane (need_left/right). */
template <int C>
__device__ __forceinline__ void hpass_dp2a(const unsigned cur[4], const unsigned lw[4], const unsigned rw[4],
                                           unsigned a21, unsigned a01, unsigned a20, unsigned h[16])
{
    if (C == 4) {
        unsigned w[9], pl[8], ph[8];                /* w[u + 2]: word u of the extended row, u = -2..6 */
        w[0] = lw[2]; w[1] = lw[3]; w[2] = cur[0]; w[3] = cur[1]; w[4] = cur[2]; w[5] = cur[3];
        w[6] = rw[0]; w[7] = rw[1]; w[8] = 0u;     /* word 6 only meets the zero weight of A20 */
#pragma unroll
        for (int u = 0; u < 8; u++) {
            pl[u] = __byte_perm(w[u], w[u + 1], 0x5140);   /* bytes 0 and 1 of both words */
            ph[u] = __byte_perm(w[u], w[u + 1], 0x7362);   /* bytes 2 and 3 */
        }
#pragma unroll
        for (int t = 0; t < 4; t++) {               /* pairs (t-2, t-1), (t, t+1), (t+2, t+3) */
            h[4 * t + 0] = __dp2a_lo(a20, pl[t + 4], __dp2a_lo(a01, pl[t + 2], __dp2a_lo(a21, pl[t], 0u)));
            h[4 * t + 1] = __dp2a_hi(a20, pl[t + 4], __dp2a_hi(a01, pl[t + 2], __dp2a_hi(a21, pl[t], 0u)));
            h[4 * t + 2] = __dp2a_lo(a20, ph[t + 4], __dp2a_lo(a01, ph[t + 2], __dp2a_lo(a21, ph[t], 0u)));
            h[4 * t + 3] = __dp2a_hi(a20, ph[t + 4], __dp2a_hi(a01, ph[t + 2], __dp2a_hi(a21, ph[t], 0u)));
        }
    } else {
        unsigned w[7], sh[6];                       /* w[u + 1]: word u, u = -1..5; sh[u + 1]: bytes 4u+1 .. 4u+4 */
        w[0] = lw[3]; w[1] = cur[0]; w[2] = cur[1]; w[3] = cur[2]; w[4] = cur[3]; w[5] = rw[0]; w[6] = 0u;
#pragma unroll
        for (int u = 0; u < 6; u++) sh[u] = __byte_perm(w[u], w[u + 1], 0x4321);
        /* the pair of bytes (p, p+1): p even: half (p & 3) / 2 of word p >> 2; p odd: of sh[(p-1) >> 2] */
#define MGPU_BLUR_PAIR(A, p, acc) (((p) & 1) == 0                                                       \
        ? ((((p) & 3) == 0) ? __dp2a_lo(A, w[((p) >> 2) + 1], acc) : __dp2a_hi(A, w[((p) >> 2) + 1], acc)) \
        : (((((p) - 1) & 3) == 0) ? __dp2a_lo(A, sh[(((p) - 1) >> 2) + 1], acc) : __dp2a_hi(A, sh[(((p) - 1) >> 2) + 1], acc)))
#pragma unroll
        for (int q = 0; q < 16; q++) h[q] = MGPU_BLUR_PAIR(a20, q + 2, MGPU_BLUR_PAIR(a01, q, MGPU_BLUR_PAIR(a21, q - 2, 0u)));
#undef MGPU_BLUR_PAIR
    }
}

template <int C, int PF, int WARPS, int CACHE, int ARITH>
__device__ __forceinline__ void pipe(const args &a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(MGPU_BLUR_EMU)
    fast<unsigned char, C, 2, WARPS>(a);            /* no cp.async */
#else
    typedef tr<unsigned char> TR;
    enum {
        V = 16, EPW = 4, RC = 2,
        H = RC * C,                                 /* halo values on each side (<= 8) */
        HL = 1,                                     /* halo lanes on each side */
        OL = 32 - 2 * HL,
        P = 2 * RC + 1,
        NS = PF + 1                                 /* stages per warp */
    };
    static_assert(H <= V && PF >= 1 && PF <= 8, "pipe: radius <= 2, 1..4 channels, PF 1..8");
    __shared__ uint4 stage[WARPS][NS][32];
    __shared__ unsigned gsel[WARPS][2][12];         /* the gather lanes' selectors */
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const long long gw = (long long)blockIdx.x * WARPS + wib;
    const int rowlen = a.width * C;
    const int segw = OL * V;
    const int nsegs = (rowlen + segw - 1) / segw;
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    if (gw >= (long long)nsegs * nstrips) return;   /* whole warps only */
    const int seg = (int)(gw % nsegs);
    const int ys = a.y_begin + (int)(gw / nsegs) * a.strip;
    const int ye = min(ys + a.strip, a.y_end);
    const int e0 = seg * segw + (lane - HL) * V;
    const bool vec = e0 >= 0 && e0 < rowlen;        /* rowlen % 16 == 0: the whole chunk is in the row */
    const bool out_lane = lane >= HL && lane < 32 - HL && e0 < rowlen;
    const int side = e0 == -V ? 0 : e0 == rowlen ? 1 : -1;    /* gather lanes */
    const int gsrc = side == 0 ? lane + 1 : side == 1 ? lane - 1 : lane;
    const bool edge = seg == 0 || seg == nsegs - 1; /* warp-uniform */
    const int r = a.radius;
    const int lo = ys - r, hi = ye + r;             /* input rows this strip needs */
    const int niter = ye - ys + 2 * RC;             /* input rows ys-RC .. ye+RC-1 */
    const unsigned char *const src = (const unsigned char *)a.src;
    unsigned char *const dst = (unsigned char *)a.dst;
    const unsigned cword = TR::cword(a);
    enum { DP2A = ARITH == 1 && (C == 1 || C == 4) };
    const unsigned a21 = a.wi[2] | a.wi[1] << 16, a01 = a.wi[0] | a.wi[1] << 16, a20 = a.wi[2];
    unsigned cur[4];
    unsigned ring[P][V];
    int s_use = 0, s_iss = PF;

    if (side >= 0) {                                /* selectors: byte q <- byte sel of the source chunk */
        const int base = side == 0 ? 0 : rowlen - V;
#pragma unroll 1
        for (int t = 0; t < 4; t++) {
            unsigned s = 0u, m = 0u, cm = 0u;
            for (int b = 0; b < 4; b++) {
                const int j = source_of<C>(a, e0 + 4 * t + b, rowlen, H);
                const int sel = j >= 0 ? j - base : 0;   /* 0..15 (see above) */
                s |= (unsigned)(sel & 7) << (4 * b);
                if (sel & 8) m |= 0xffu << (8 * b);
                if (j < 0) cm |= 0xffu << (8 * b);      /* the constant (or unused: -2) */
            }
            gsel[wib][side][t] = s;
            gsel[wib][side][4 + t] = m;
            gsel[wib][side][8 + t] = cm;
        }
    }
    /* cp.async of input row yi (rows ys-RC+i) into stage s: vector lanes, rows in [lo, hi)
       that are image rows (a constant row needs no data) */
#define MGPU_BLUR_ISSUE(yi, s)                                                              \
    do {                                                                                    \
        const int yi_ = (yi);                                                               \
        if (vec && yi_ >= lo && yi_ < hi) {                                                 \
            const int my_ = map(yi_, a.height, a.border);                                   \
            if (my_ >= 0)                                                                   \
                cp16<CACHE>(&stage[wib][s][lane], src + (size_t)(my_ - a.src_row0) * a.spitch + e0); \
        }                                                                                   \
        cp_commit();                                                                        \
    } while (0)
#pragma unroll
    for (int p = 0; p < PF; p++) MGPU_BLUR_ISSUE(ys - RC + p, p);
    for (int base = 0; base < niter; base += P) {
#pragma unroll
        for (int j = 0; j < P; j++) {
            const int i = base + j;
            if (i < niter) {
                const int yi = ys - RC + i;
                const bool need = yi >= lo && yi < hi;      /* warp-uniform */
                cp_wait<PF - 1>();                          /* this thread's copy of row yi landed */
                if (need) {
                    const int my = map(yi, a.height, a.border);
                    if (my < 0) {
                        cur[0] = cur[1] = cur[2] = cur[3] = cword;
                    } else {
                        if (vec) {
                            const uint4 v = stage[wib][s_use][lane];
                            cur[0] = v.x; cur[1] = v.y; cur[2] = v.z; cur[3] = v.w;
                        } else {
                            cur[0] = cur[1] = cur[2] = cur[3] = 0u;
                        }
                        if (edge) {
                            unsigned g[4];
#pragma unroll
                            for (int q = 0; q < 4; q++) g[q] = __shfl_sync(0xffffffffu, cur[q], gsrc);
                            if (side >= 0) {
#pragma unroll
                                for (int t = 0; t < 4; t++) {
                                    const unsigned s = gsel[wib][side][t], m = gsel[wib][side][4 + t];
                                    const unsigned cm = gsel[wib][side][8 + t];
                                    const unsigned lo4 = __byte_perm(g[0], g[1], s), hi4 = __byte_perm(g[2], g[3], s);
                                    const unsigned w = (lo4 & ~m) | (hi4 & m);
                                    cur[t] = (w & ~cm) | (cword & cm);
                                }
                            }
                        }
                    }
                }
                MGPU_BLUR_ISSUE(yi + PF, s_iss);
                s_use = s_use + 1 == NS ? 0 : s_use + 1;
                s_iss = s_iss + 1 == NS ? 0 : s_iss + 1;
                if (need) {                                 /* horizontal pass into ring row j */
                    unsigned lw[HL][4], rw[HL][4];
#pragma unroll
                    for (int m = 1; m <= HL; m++)
#pragma unroll
                        for (int q = 0; q < 4; q++) {
                            if (need_left<V, EPW, H>(m, q)) lw[m - 1][q] = __shfl_up_sync(0xffffffffu, cur[q], m);
                            if (need_right<V, EPW, H>(m, q)) rw[m - 1][q] = __shfl_down_sync(0xffffffffu, cur[q], m);
                        }
                    if (DP2A) hpass_dp2a<C>(cur, lw[0], rw[0], a21, a01, a20, ring[j]);
                    else {
#define MGPU_BLUR_X(x) ((x) < 0 ? TR::elem(lw[(-(x) - 1) / V][(((x) % V + V) % V) / EPW], (((x) % V + V) % V) % EPW) \
                        : (x) < V ? TR::elem(cur[(x) / EPW], (x) % EPW) \
                        : TR::elem(rw[(x) / V - 1][((x) % V) / EPW], ((x) % V) % EPW))
#pragma unroll
                    for (int q = 0; q < V; q++) {
                        unsigned acc = TR::first(TR::weight(a, 0), MGPU_BLUR_X(q));
#pragma unroll
                        for (int k = 1; k <= RC; k++)
                            if (k <= r) acc = TR::pair(acc, TR::weight(a, k), MGPU_BLUR_X(q - k * C), MGPU_BLUR_X(q + k * C));
                        ring[j][q] = acc;
                    }
#undef MGPU_BLUR_X
                    }
                }
                if (i >= 2 * RC && out_lane) {              /* output row yi - RC */
                    const int c = (j + P - RC) % P;
                    unsigned o[V], u[4];
#pragma unroll
                    for (int q = 0; q < V; q++) {
                        unsigned acc = TR::vfirst(TR::weight(a, 0), ring[c][q]);
#pragma unroll
                        for (int k = 1; k <= RC; k++)
                            if (k <= r) acc = TR::pair(acc, TR::weight(a, k), ring[(c + P - k) % P][q], ring[(c + k) % P][q]);
                        o[q] = acc;
                    }
#pragma unroll
                    for (int q = 0; q < 4; q++)             /* byte 3 of each sum, 4 per word */
                        u[q] = __byte_perm(__byte_perm(o[4 * q], o[4 * q + 1], 0x0073),
                                           __byte_perm(o[4 * q + 2], o[4 * q + 3], 0x0073), 0x5410);
                    st16<CACHE>(dst + (size_t)(yi - RC - a.y_begin) * a.dpitch + e0, make_uint4(u[0], u[1], u[2], u[3]));
                }
            }
        }
    }
#undef MGPU_BLUR_ISSUE
#endif
}

extern __shared__ unsigned dyn[];

template <typename T>
__device__ __forceinline__ void any(const args &a)
{
    typedef tr<T> TR;
    typedef typename TR::acc A;
    const int TW = MGPU_BLUR_ANY_TILE;
    const int t = threadIdx.x;
    const int C = a.channels, r = a.radius, P = 2 * r + 1, H = r * C;
    const int rowlen = a.width * C;
    const int ntiles = (rowlen + TW - 1) / TW;
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    const long long item = blockIdx.x;
    if (item >= (long long)ntiles * nstrips) return;        /* whole blocks only */
    const int x0 = (int)(item % ntiles) * TW;
    const int ys = a.y_begin + (int)(item / ntiles) * a.strip;
    const int ye = min(ys + a.strip, a.y_end);
    const int niter = ye - ys + 2 * r;
    const int x = x0 + t;
    A *const sw = (A *)dyn;                                 /* weights, [MGPU_BLUR_MAX_R + 1] */
    A *const ring = (A *)dyn + 2 * (MGPU_BLUR_MAX_R + 1);  /* [P][TW] */
    A *const buf0 = ring + P * TW;                          /* two rows of TW + 2H */
    A *const buf1 = buf0 + TW + 2 * H;
    int slot = 0;
#pragma unroll
    for (int k = 0; k <= MGPU_BLUR_MAX_R; k++)
        if (t == k) sw[k] = TR::weight(a, k);
    for (int i = 0; i < niter; i++) {
        const int yi = ys - r + i;
        const int my = map(yi, a.height, a.border);
        const unsigned char *row = (const unsigned char *)a.src + (size_t)(my - a.src_row0) * a.spitch;
        A *const buf = (i & 1) ? buf1 : buf0;
        for (int j = t; j < TW + 2 * H; j += TW) {
            int e = x0 - H + j;
            A v = (A)0;
            if (my < 0) {
                v = TR::cval(a);
            } else if ((unsigned)e < (unsigned)rowlen) {
                v = TR::load(row, e);
            } else if (e < rowlen + H) {                    /* the halo; further out reaches no output */
                const int p = e >= 0 ? e / C : -((C - 1 - e) / C);
                const int m = map(p, a.width, a.border);
                v = m < 0 ? TR::cval(a) : TR::load(row, m * C + (e - p * C));
            }
            buf[j] = v;
        }
        __syncthreads();
        {
            A acc = TR::first(sw[0], buf[t + H]);
            for (int k = 1; k <= r; k++) acc = TR::pair(acc, sw[k], buf[t + H - k * C], buf[t + H + k * C]);
            ring[slot * TW + t] = acc;                      /* this thread's column: no barrier */
        }
        if (i >= 2 * r) {
            int c = slot - r;
            if (c < 0) c += P;
            A acc = TR::vfirst(sw[0], ring[c * TW + t]);
            for (int k = 1; k <= r; k++) {
                const int s1 = c - k < 0 ? c - k + P : c - k, s2 = c + k >= P ? c + k - P : c + k;
                acc = TR::pair(acc, sw[k], ring[s1 * TW + t], ring[s2 * TW + t]);
            }
            if (x < rowlen) TR::store((unsigned char *)a.dst + (size_t)(yi - r - a.y_begin) * a.dpitch, x, acc);
        }
        if (++slot == P) slot = 0;
    }
}

} /* namespace mgpu_blr */

/* The second launch bound is the blocks per multiprocessor the register allocation must
   allow: 4 (16 warps, <= 128 registers) for u8, 8 and 6 for f32; no spills on sm_75..sm_120
   (without it ptxas settled for fewer registers with a few spilled words). */
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_FAST_WARPS * 32, 4) mgpu_blur_u8c1_r2(const mgpu_blr::args a)
{ mgpu_blr::fast<unsigned char, 1, 2>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_FAST_WARPS * 32, 4) mgpu_blur_u8c3_r2(const mgpu_blr::args a)
{ mgpu_blr::fast<unsigned char, 3, 2>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_FAST_WARPS * 32, 4) mgpu_blur_u8c4_r2(const mgpu_blr::args a)
{ mgpu_blr::fast<unsigned char, 4, 2>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_PIPE_WARPS * 32, 16 / MGPU_BLUR_PIPE_WARPS) mgpu_blur_u8c1_r2p(const mgpu_blr::args a)
{ mgpu_blr::pipe<1, MGPU_BLUR_PIPE_PF, MGPU_BLUR_PIPE_WARPS, MGPU_BLUR_PIPE_CACHE, MGPU_BLUR_PIPE_ARITH>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_PIPE_WARPS * 32, 16 / MGPU_BLUR_PIPE_WARPS) mgpu_blur_u8c3_r2p(const mgpu_blr::args a)
{ mgpu_blr::pipe<3, MGPU_BLUR_PIPE_PF, MGPU_BLUR_PIPE_WARPS, MGPU_BLUR_PIPE_CACHE, MGPU_BLUR_PIPE_ARITH>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_PIPE_WARPS * 32, 16 / MGPU_BLUR_PIPE_WARPS) mgpu_blur_u8c4_r2p(const mgpu_blr::args a)
{ mgpu_blr::pipe<4, MGPU_BLUR_PIPE_PF, MGPU_BLUR_PIPE_WARPS, MGPU_BLUR_PIPE_CACHE, MGPU_BLUR_PIPE_ARITH>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_FAST_WARPS * 32, 8) mgpu_blur_f32c1_r2(const mgpu_blr::args a)
{ mgpu_blr::fast<float, 1, 2>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_FAST_WARPS * 32, 6) mgpu_blur_f32c4_r2(const mgpu_blr::args a)
{ mgpu_blr::fast<float, 4, 2>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_ANY_TILE, 4) mgpu_blur_u8_any(const mgpu_blr::args a)
{ mgpu_blr::any<unsigned char>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_ANY_TILE, 4) mgpu_blur_f32_any(const mgpu_blr::args a)
{ mgpu_blr::any<float>(a); }
/* ================================================================ Gaussian blur (END) */
