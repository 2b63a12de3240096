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
   1 <= grid <= multiprocessors x MGPU_RED_MIN_BLOCKS (one wave where a multiprocessor
   holds 2048 threads: at most 32 registers a thread), the grid a function of n and the
   device only. With a grid of one block, partials and counter are unused (may be NULL).
   Otherwise partials holds gridDim.x accumulators (8 bytes each suffice) and *counter is
   0 at launch; each block takes a ticket with atomicInc wrapping at gridDim.x, so the
   last block's ticket puts *counter back to 0 (the workspace is ready for the next
   launch on the same stream), and that block combines the partials in index order and
   writes out.

   Each thread accumulates the elements it owns in a fixed order: the scalar head up to
   the first 16-byte boundary (thread i takes element i), then 16-byte vectors in a
   grid-stride loop with MGPU_RED_UNROLL loads in flight, then the scalar tail. The vectors
   are read once, so they are loaded evict-first (__ldcs, ld.global.cs: measured 1-6%
   faster than __ldg for f32 sums of 2^20 to 2^28 on an H200). Vector lanes keep separate
   accumulators. Blocks reduce with warp shuffles in a fixed tree; no floating-point
   atomics anywhere, so a sum is the same bits on every run. */
#define MGPU_RED_BLOCK 256
#define MGPU_RED_MIN_BLOCKS 8
#define MGPU_RED_UNROLL 2

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

/* Orders a block's partial before its ticket (release) and the tickets before the last
   block's reads (acquire): fence.acq_rel, lighter than __threadfence's fence.sc. */
__device__ __forceinline__ void fence_acq_rel()
{
#ifdef __CUDA_ARCH__
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    __threadfence();
#endif
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
            for (int u = 0; u < MGPU_RED_UNROLL; u++) v[u] = __ldcs(vsrc + i + u * nthreads);
#pragma unroll
            for (int u = 0; u < MGPU_RED_UNROLL; u++) {
                vec16<T>::split(v[u], e);
#pragma unroll
                for (int k = 0; k < W; k++) acc[k] = R::join(acc[k], R::lift(e[k]));
            }
        }
    }
    for (; i < nvec; i += nthreads) {
        vec16<T>::split(__ldcs(vsrc + i), e);
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
        fence_acq_rel();                               /* the partial before the ticket */
        last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;   /* the last one wraps it to 0 */
        if (last) fence_acq_rel();                     /* every ticket before the reads below */
        is_last = last;
    }
    __syncthreads();
    if (!is_last) return;
    /* Thread 0's fence after its ticket orders every other block's partial before the
       barrier above, and __ldcg reads them from L2 (not this SM's incoherent L1). */
    A b = R::id();
    for (unsigned j = threadIdx.x; j < gridDim.x; j += MGPU_RED_BLOCK) b = R::join(b, __ldcg(partials + j));
    b = block_reduce<R>(b, smem);
    if (threadIdx.x == 0) *out = R::out(b);
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

/* All-reduce of one device's slice in one pass (mgpu.h's mgpu_allreduce_async when every
   pair of devices has peer access): with b_k = bufs[(self + k) % ndev] + first, each
   element e < count becomes
       v = op(...op(op(b_0[e], b_1[e]), b_2[e])..., b_{ndev-1}[e])
   -- the fold order of the chunked path, so the same bits -- and v is stored into every
   b_k[e]: the slice's reduce-scatter and all-gather at once, peers' memory read and written
   over NVLink by loads and stores, MGPU_AR_UNROLL 16-byte loads in flight per thread and
   peer. Nothing else touches the slice during the call, so no ordering is needed inside.
   vec = 0 (buffers differently aligned mod 16): element by element. */
#define MGPU_AR_MAX 64               /* = MGPU_MAX_DEVICES */
#define MGPU_AR_UNROLL 4
struct mgpu_ar_args {
    void *bufs[MGPU_AR_MAX];
    unsigned long long first, count;  /* the slice, in elements */
    int ndev, self, vec;
};

template <typename T, int OP>
__device__ __forceinline__ void allreduce_one(const mgpu_ar_args &a, unsigned long long e)
{
    T v = static_cast<const T *>(a.bufs[a.self])[a.first + e];
    for (int k = 1; k < a.ndev; k++) v = cop<T, OP>::f(v, static_cast<const T *>(a.bufs[(a.self + k) % a.ndev])[a.first + e]);
    for (int k = 0; k < a.ndev; k++) static_cast<T *>(a.bufs[(a.self + k) % a.ndev])[a.first + e] = v;
}

template <typename T, int OP>
__device__ __forceinline__ void allreduce(const mgpu_ar_args &a)
{
    typedef typename vec16<T>::type V;
    enum { W = 16 / sizeof(T), U = MGPU_AR_UNROLL };
    const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long nthreads = (unsigned long long)gridDim.x * blockDim.x;
    const T *own = static_cast<const T *>(a.bufs[a.self]) + a.first;
    unsigned long long head = a.count, nvec = 0;
    if (a.vec) {
        head = ((16u - ((unsigned)reinterpret_cast<unsigned long long>(own) & 15u)) & 15u) / sizeof(T);
        if (head > a.count) head = a.count;
        nvec = (a.count - head) / W;
    }
    for (unsigned long long e = tid; e < head; e += nthreads) allreduce_one<T, OP>(a, e);
    for (unsigned long long i = tid; i < nvec; i += U * nthreads) {
        V acc[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (i + u * nthreads < nvec) acc[u] = __ldcg(reinterpret_cast<const V *>(own + head) + i + u * nthreads);
        for (int k = 1; k < a.ndev; k++) {
            const V *x = reinterpret_cast<const V *>(static_cast<const T *>(a.bufs[(a.self + k) % a.ndev]) + a.first + head);
            V v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (i + u * nthreads < nvec) v[u] = __ldcg(x + i + u * nthreads);
#pragma unroll
            for (int u = 0; u < U; u++) {
                T p[W], q[W];
                vec16<T>::split(acc[u], p);
                vec16<T>::split(v[u], q);
#pragma unroll
                for (int l = 0; l < W; l++) p[l] = cop<T, OP>::f(p[l], q[l]);
                acc[u] = vec16<T>::join(p);
            }
        }
        for (int k = 0; k < a.ndev; k++) {
            V *y = reinterpret_cast<V *>(static_cast<T *>(a.bufs[(a.self + k) % a.ndev]) + a.first + head);
#pragma unroll
            for (int u = 0; u < U; u++)
                if (i + u * nthreads < nvec) __stcg(y + i + u * nthreads, acc[u]);
        }
    }
    for (unsigned long long e = head + nvec * W + tid; e < a.count; e += nthreads) allreduce_one<T, OP>(a, e);
}

} /* namespace mgpu_red */

/* As many blocks per multiprocessor as its threads allow, up to MGPU_RED_MIN_BLOCKS
   (sm_75: 1024 threads, sm_120: 1536, the others 2048). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MGPU_RED_BOUNDS __launch_bounds__(MGPU_RED_BLOCK, 1024 / MGPU_RED_BLOCK)
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
#define MGPU_RED_BOUNDS __launch_bounds__(MGPU_RED_BLOCK, 1536 / MGPU_RED_BLOCK)
#else
#define MGPU_RED_BOUNDS __launch_bounds__(MGPU_RED_BLOCK, MGPU_RED_MIN_BLOCKS)
#endif
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
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_sum_f32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<float, mgpu_red::SUM>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_min_f32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<float, mgpu_red::MIN>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_max_f32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<float, mgpu_red::MAX>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_sum_f64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<double, mgpu_red::SUM>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_min_f64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<double, mgpu_red::MIN>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_max_f64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<double, mgpu_red::MAX>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_sum_i32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<int, mgpu_red::SUM>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_min_i32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<int, mgpu_red::MIN>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_max_i32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<int, mgpu_red::MAX>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_sum_u32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<unsigned, mgpu_red::SUM>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_min_u32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<unsigned, mgpu_red::MIN>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_max_u32(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<unsigned, mgpu_red::MAX>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_sum_i64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<mgpu_red_i64, mgpu_red::SUM>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_min_i64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<mgpu_red_i64, mgpu_red::MIN>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_max_i64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<mgpu_red_i64, mgpu_red::MAX>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_sum_u64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<mgpu_red_u64, mgpu_red::SUM>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_min_u64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<mgpu_red_u64, mgpu_red::MIN>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_RED_BLOCK) mgpu_allreduce_max_u64(const mgpu_red::mgpu_ar_args a) { mgpu_red::allreduce<mgpu_red_u64, mgpu_red::MAX>(a); }

/* ================================================================ Gaussian blur (BEGIN)
   Kernels of mgpu_blur_async and the multi-device blur calls; the semantics are documented
   there (mgpu.h) and the CPU device implements the same arithmetic in C (mgpu__blur_cpu).
   Everything below is one launch per image (or band): one read and one write of the
   image, plus the halo overlap described below. mgpu.h fills `args` (mgpu__blur_args, the
   same 680 bytes) and picks the kernel and the launch shape.

   Arithmetic, the same on every device:
   - 8-bit: integer weights wi[0..r] with wi[0] + 2*(wi[1] + .. + wi[r]) == 4096 (2^12).
     h = wi[0]*x[0] + sum_k wi[k]*(x[-k*C] + x[+k*C]) is exact (<= 255 * 2^12 < 2^20 at any
     radius: every weight is >= 0, and so is every partial sum); the vertical pass
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

   Pipelined kernels mgpu_blur_u8c<C>_r2p (C = 1, 3, 4; r <= 2): fast<>'s arithmetic for
   8-bit images whose rows allow 16-byte accesses everywhere (aligned src and dst, width
   * C a multiple of 16), every lane of a warp an output lane, the rows reaching the
   lanes through shared-memory stages filled by cp.async several rows ahead (the halo
   bytes read from the stage), and the horizontal pass done with dp2a; see pipe below.
   mgpu.h picks them for such images.

   Ring kernels mgpu_blur_<u8|f32>c<C>_r<RC> (u8 with C = 1, 3, 4; f32 with C = 1, 4;
   radius 3 <= r <= RC, RC = 4 or 8): pipe's staging for rows that allow 16-byte accesses
   everywhere, any radius up to RC, 4 or 8 values per lane, 8-bit horizontal taps in dp2a
   pairs; see ring below. mgpu.h picks them for such images.

   Generic kernels mgpu_blur_<u8|f32>_any (the rest up to radius 16: radius 9..16, C = 2,
   rows that do not allow 16-byte accesses): any C in 1..4, r in 0..MGPU_BLUR_ANY_R; one
   block of NT threads (mgpu.h: 256, halved down to 64 for large radii so a block's shared
   memory stays within 48 KiB) per (tile, strip) item. The tile is NT * W 32-bit words of
   a row (W = MGPU_BLUR_ANY_W8 words of 4 bytes, or MGPU_BLUR_ANY_W32 floats), thread t
   owning words t, t + NT, .. (coalesced): per row a thread loads its words (one 32-bit
   load each where the row is 4-byte aligned, else value by value, border indices worked
   out once per strip) plus at most one halo word, into registers MGPU_BLUR_ANY_PF / W rows
   ahead of the row being computed (MGPU_BLUR_ANY_PF words in flight per thread). A row's words
   go to one of two shared row buffers (one barrier per row); each thread computes the
   horizontal values of its words (8-bit: 4 at a time, the neighbours' bytes by funnel
   shifts) into a shared ring of 2r+1 rows laid out [row][value in word][word] (its own
   columns: no barrier), and the vertical pass reads that ring. Dynamic shared memory:
   4 * (MGPU_BLUR_ANY_SW + (2r+1) * NT*W*EPW + 2 * (NT*W + 2*HW)) bytes, HW = ceil(rC/EPW)
   halo words a side (mgpu__blur_any_block).

   Wide kernels mgpu_blur_<u8|f32>_wide (radius 17..MGPU_BLUR_MAX_R, every layout and C): a
   straightforward tiled path; see wide below. */
#define MGPU_BLUR_MAX_R 64                  /* = MGPU_BLUR_MAX_RADIUS */
#define MGPU_BLUR_ANY_R 16                  /* the generic kernels' largest radius */
#define MGPU_BLUR_PAIR_R 16                 /* args.wp covers the taps |t| <= 16 (the ring kernels') */
#define MGPU_BLUR_FAST_WARPS 4
/* The pipelined 8-bit kernels: warps per block (4 or 8: 16 warps per multiprocessor at
   <= 128 registers), rows in flight per warp, cache hints (see pipe). bench_blur --sweep
   times other choices; the host's strip rule is MGPU__BLUR_PIPE_WAVES in mgpu.h. */
#define MGPU_BLUR_PIPE_WARPS 4              /* the sweep's best on an H200 (2026-11-24) */
#define MGPU_BLUR_PIPE_PF 4                 /* PF + 1 == 2 * 2 + 1: stages known at compile time */
#define MGPU_BLUR_PIPE_CACHE 3
#define MGPU_BLUR_PIPE_ARITH 1
/* The generic kernels (see any; mgpu.h mirrors these as MGPU__BLUR_ANY_*): the largest
   block, tile words per thread and row (8-bit: 4 values a word; f32: 1), words in flight
   per thread (rows loaded ahead x words), and the words of weights before the ring. */
#define MGPU_BLUR_ANY_THREADS 256
#define MGPU_BLUR_ANY_W8 1
#define MGPU_BLUR_ANY_W32 2
#define MGPU_BLUR_ANY_PF 8
#define MGPU_BLUR_ANY_SW 36
/* The ring kernels (see ring): warps per block, rows in flight per warp (8-bit, f32), cache
   hint of their copies (as pipe's CACHE). */
#define MGPU_BLUR_RING_WARPS 4
#define MGPU_BLUR_RING_PF8 8
#define MGPU_BLUR_RING_PF32 4
#define MGPU_BLUR_RING_CACHE 2
#define MGPU_BLUR_RING_VB 4                 /* 8-bit: rows per unrolled block of the row loop */
/* The tensor-core 8-bit kernels (see mma; mgpu.h mirrors these as MGPU__BLUR_MMA_*): warps per
   block, stages of 8 rows per block (NSTG - SB blocks of rows in flight). */
#define MGPU_BLUR_MMA_WARPS 4
#define MGPU_BLUR_MMA_STAGES 4
/* The wide kernels (see wide): threads per block, tile values per row, the words of
   weights before the ring (65, rounded up to 16 bytes). */
#define MGPU_BLUR_WIDE_THREADS 256
#define MGPU_BLUR_WIDE_TILE 64
#define MGPU_BLUR_WIDE_SW 68
/* The tiled f32 kernels (see tiled; mgpu.h: MGPU__BLUR_TILE_*): threads per block (the tile:
   as many values, which is a multiple of 8C for every C), and their radii. */
#define MGPU_BLUR_TILE_THREADS 192
#define MGPU_BLUR_TILE_RMIN 9
#define MGPU_BLUR_TILE_RMAX 16

namespace mgpu_blr {

/* = mgpu__blur_args in mgpu.h: the same members in the same order, 680 bytes (the driver
   takes at most 4 KiB of kernel arguments). */
struct args {
    unsigned long long src, dst, spitch, dpitch;
    int width, height, channels, src_row0;
    int y_begin, y_end, radius, border;
    int strip, vec_src, vec_dst, cval_u8;
    float cval_f32;
    int reserved;
    unsigned wi[MGPU_BLUR_MAX_R + 1];
    float wf[MGPU_BLUR_MAX_R + 1];
    unsigned wp[MGPU_BLUR_PAIR_R + 1];              /* 8-bit pairs (see ring): wi[|t|] | wi[|t + 1|] << 16 at (t + 16) / 2 */
    int reserved2;
};

enum { REPLICATE = 0, REFLECT101 = 1, CONSTANT = 2 };

/* Index p of a row or pixel in [0, n), mapped by the border rule; -1 means the constant.
   Callers keep p within the radius (rows) or the halo (pixels) of [0, n), so the loop is short. */
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
__device__ __forceinline__ int source_of(const args &a, int e, int rowlen, int h, int C)
{
    int p, m;
    if ((unsigned)e < (unsigned)rowlen) return e;
    if (e < -h || e >= rowlen + h) return -2;
    p = e >= 0 ? e / C : -((C - 1 - e) / C);        /* floor(e / C): the pixel */
    m = map(p, a.width, a.border);
    return m < 0 ? -1 : m * C + (e - p * C);
}
template <int C>
__device__ __forceinline__ int source_of(const args &a, int e, int rowlen, int h) { return source_of(a, e, rowlen, h, C); }

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

/* lw[m-1] / rw[m-1]: the words this lane needs of the lane m to its left / right (by shuffle;
   every lane of the warp must call). */
template <int V, int EPW, int H, int HL>
__device__ __forceinline__ void neighbour_words(const unsigned cur[4], unsigned lw[][4], unsigned rw[][4])
{
#pragma unroll
    for (int m = 1; m <= HL; m++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            if (need_left<V, EPW, H>(m, q)) lw[m - 1][q] = __shfl_up_sync(0xffffffffu, cur[q], m);
            if (need_right<V, EPW, H>(m, q)) rw[m - 1][q] = __shfl_down_sync(0xffffffffu, cur[q], m);
        }
}

/* The horizontal pass (radius r <= RC) of this lane's V values, from its words and its
   neighbours', into out[0..V). */
template <typename TR, int V, int EPW, int C, int RC, typename A>
__device__ __forceinline__ void hpass(const args &a, int r, const unsigned cur[4], const unsigned lw[][4],
                                      const unsigned rw[][4], A *out)
{
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
        out[q] = acc;
    }
#undef MGPU_BLUR_X
}

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
                    neighbour_words<V, EPW, H, HL>(cur, lw, rw);
                    hpass<TR, V, EPW, C, RC, A>(a, r, cur, lw, rw, ring[j]);
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
   of 16, and width * C a multiple of 16), on sm_80 and later (cp.async; sm_75 runs fast<>).
   Items: (segment, strip), one per warp; a segment is 32 lanes x 16 bytes of a row, every
   lane an output lane. The rows reach the warp through a ring of NS = PF + 1 shared-memory
   stages filled by cp.async: while it filters row i, rows i+1 .. i+PF are in flight. A
   stage holds the segment's 512 bytes and the 16-byte chunk on each side (copied by lanes
   0 and 31), so a lane reads its own chunk and its neighbours' halo bytes (8 each side)
   from the stage, with no shuffles. One __syncwarp per row orders the lanes' copies
   (cp.async.wait_group: each lane's own) before every lane's reads, and every read of a
   stage before it is refilled (one row later). Then the horizontal pass (dp2a for 1 and 4
   channels), a register ring of the last 2*RC+1 horizontal rows, the vertical pass, and
   one 16-byte store per lane and row, as in fast<>.
   Interior rows are addressed by adding the pitch; the few rows past the image's top or
   bottom edge take the border rule (a constant row's words are stored by the lanes). At
   the row's ends (the first and last segment only), the lane holding the row's first
   (last) chunk makes its 8 halo bytes outside the row from that chunk by PRMT selectors
   worked out once per strip (source_of): under every border rule they come from the
   row's first (last) 3C <= 12 bytes.
   Template: C channels, PF rows in flight per warp, WARPS warps per block, CACHE bits
   (1: streaming stores st.global.cs; 2: cp.async with the L2::128B prefetch hint;
   4: L2::256B instead), ARITH (1: dp2a horizontal pass where C is 1 or 4). */
#ifndef MGPU_BLUR_EMU                   /* (the emulator has its own) */
typedef unsigned sptr;          /* shared memory by its 32-bit shared-window address */
__device__ __forceinline__ sptr to_sptr(void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint4 lds16(sptr s)
{
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(s) : "memory");
    return v;
}
__device__ __forceinline__ uint2 lds8(sptr s)
{
    uint2 v;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(s) : "memory");
    return v;
}
/* 16-byte shared store of one word four times (a constant row's words) */
__device__ __forceinline__ void sts16(sptr s, unsigned w)
{
    asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" :: "r"(s), "r"(w) : "memory");
}
/* cp.async of 16 bytes from global address g to shared s; where !on, no global read, and
   the 16 bytes become zeros (src-size 0: no branch). */
template <int CACHE>
__device__ __forceinline__ void cp16z(sptr s, unsigned long long g, bool on)
{
    const unsigned n = on ? 16u : 0u;
    if (CACHE & 4) asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" :: "r"(s), "l"(g), "r"(n) : "memory");
    else if (CACHE & 2) asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" :: "r"(s), "l"(g), "r"(n) : "memory");
    else asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(s), "l"(g), "r"(n) : "memory");
}
/* cp.async of 4 bytes (.ca: the one cache mode for 4-byte copies) */
__device__ __forceinline__ void cp4(sptr s, unsigned long long g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(s), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }
/* 4-byte global store where on (predicated) */
__device__ __forceinline__ void st4(unsigned long long p, unsigned v, bool on)
{
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0; @p st.global.u32 [%0], %1; }\n"
                 :: "l"(p), "r"(v), "r"((int)on) : "memory");
}
/* 8-byte global store where on (predicated) */
__device__ __forceinline__ void st8(unsigned long long p, uint2 v, bool on)
{
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %3, 0; @p st.global.v2.u32 [%0], {%1, %2}; }\n"
                 :: "l"(p), "r"(v.x), "r"(v.y), "r"((int)on) : "memory");
}
/* 16-byte global store where on (predicated); CACHE bit 1: streaming (st.global.cs) */
template <int CACHE>
__device__ __forceinline__ void st16(unsigned long long p, uint4 v, bool on)
{
    if (CACHE & 1)
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %5, 0; @p st.global.cs.v4.u32 [%0], {%1, %2, %3, %4}; }\n"
                     :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"((int)on) : "memory");
    else
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %5, 0; @p st.global.v4.u32 [%0], {%1, %2, %3, %4}; }\n"
                     :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"((int)on) : "memory");
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

/* The selector triple of one halo word made from a 16-byte chunk (see pipe): byte b of the
   word is value e + b of the row, chunk byte j - base by the border rule (source_of). */
template <int C>
__device__ __forceinline__ void halo_selectors(const args &a, int e, int base, int rowlen, unsigned *s3)
{
    unsigned s = 0u, m = 0u, cm = 0u;
    for (int b = 0; b < 4; b++) {
        const int j = source_of<C>(a, e + b, rowlen, 2 * C);
        const int sel = j >= 0 ? j - base : 0;      /* 0..15 */
        s |= (unsigned)(sel & 7) << (4 * b);
        if (sel & 8) m |= 0xffu << (8 * b);
        if (j < 0) cm |= 0xffu << (8 * b);          /* the constant (or unused: -2) */
    }
    s3[0] = s; s3[1] = m; s3[2] = cm;
}
/* That word from the chunk's words c and the constant word: PRMT from its low and high
   halves, the half picked by mask, then the constant bytes. */
__device__ __forceinline__ unsigned halo_word(const unsigned c[4], const unsigned *s3, unsigned cword)
{
    const unsigned lo4 = __byte_perm(c[0], c[1], s3[0]), hi4 = __byte_perm(c[2], c[3], s3[0]);
    return (((lo4 & ~s3[1]) | (hi4 & s3[1])) & ~s3[2]) | (cword & s3[2]);
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
        P = 2 * RC + 1,                             /* ring rows */
        NS = PF + 1,                                /* stages per warp */
        SB = 34 * 16                                /* stage bytes: chunks -1 .. 32 of the segment */
    };
    static_assert(H <= 8 && PF >= 1 && PF <= 8, "pipe: radius <= 2, 1..4 channels, PF 1..8");
    __shared__ uint4 stage[WARPS][NS][34];
    __shared__ uint4 spare[WARPS][NS][34];          /* the zero fills of lanes 1 .. 30's second copy */
    __shared__ unsigned hsel[WARPS][2][2][3];       /* [left/right][halo word][selector triple] */
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const long long gw = (long long)blockIdx.x * WARPS + wib;
    const int rowlen = a.width * C;
    const int nsegs = (rowlen + 32 * V - 1) / (32 * V);
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    if (gw >= (long long)nsegs * nstrips) return;   /* whole warps only */
    const int seg = (int)(gw % nsegs);
    const int ys = a.y_begin + (int)(gw / nsegs) * a.strip;
    const int ye = min(ys + a.strip, a.y_end);
    const int e0 = seg * 32 * V + lane * V;         /* this lane's chunk: values e0 .. e0 + 15 */
    const bool in_row = e0 < rowlen;                /* rowlen % 16 == 0: the whole chunk */
    /* Every lane issues two copies per row: its chunk, and for lanes 0 and 31 the halo
       chunk beside the segment (zeros outside the row); the other lanes' second copy
       writes zeros to a spare chunk nobody reads (no branch). The spare has a slot per
       stage: two copies in flight to the same bytes would be a write-write hazard. */
    const int hoff = lane == 0 ? -V : V;
    const int halo = (lane == 0 || lane == 31) && (unsigned)(e0 + hoff) < (unsigned)rowlen;
    const bool left = e0 == 0, right = e0 + V == rowlen;    /* the row's first / last chunk */
    const bool edge = seg == 0 || seg == nsegs - 1; /* warp-uniform */
    const int height = a.height, border = a.border;
    const int niter = ye - ys + 2 * RC;             /* input rows ys-RC .. ye+RC-1: row i is ys-RC+i */
    const int ilo = RC - a.radius;                  /* rows i in [ilo, ilo + nneed) are needed */
    const unsigned nneed = (unsigned)(ye - ys + 2 * a.radius);
    const unsigned cword = TR::cword(a);
    enum { DP2A = ARITH == 1 && (C == 1 || C == 4) };
    /* Weights past the radius are 0, so every pass runs at radius RC: rows a smaller
       radius does not need are not loaded (their stale or zero stage data meets only
       zero weights). */
    const unsigned a21 = a.wi[2] | a.wi[1] << 16, a01 = a.wi[0] | a.wi[1] << 16, a20 = a.wi[2];
    /* Source row m of this lane's chunk is at sbase + m * spitch. */
    const unsigned long long sp = a.spitch;
    const unsigned long long sbase = a.src + (unsigned long long)((long long)e0 - (long long)a.src_row0 * (long long)sp);
    unsigned long long iaddr = sbase + (unsigned long long)((long long)(ys - RC) * (long long)sp);
    unsigned long long daddr = a.dst + (unsigned long long)((long long)(ys - a.y_begin) * (long long)a.dpitch + e0);
    const sptr own = to_sptr(&stage[wib][0][lane + 1]);                 /* this lane's chunk, stage 0 */
    const bool hlane = lane == 0 || lane == 31;
    const sptr hdst = to_sptr(hlane ? &stage[wib][0][lane == 0 ? 0 : 33] : &spare[wib][0][lane + 1]);  /* the second copy */
    unsigned su = 0;                                /* NS != P: byte offset of the stage read next */
    unsigned ring[P][V];

    if (left) {
        halo_selectors<C>(a, -8, 0, rowlen, hsel[wib][0][0]);
        halo_selectors<C>(a, -4, 0, rowlen, hsel[wib][0][1]);
    }
    if (right) {
        halo_selectors<C>(a, rowlen, rowlen - V, rowlen, hsel[wib][1][0]);
        halo_selectors<C>(a, rowlen + 4, rowlen - V, rowlen, hsel[wib][1][1]);
    }
    /* Input row i into the stage at byte offset so, then the next row's address. */
#define MGPU_BLUR_ISSUE(i, so)                                                              \
    do {                                                                                    \
        const int i_ = (i), yi_ = ys - RC + i_;                                             \
        const bool need_ = (unsigned)(i_ - ilo) < nneed;                                    \
        if ((unsigned)yi_ < (unsigned)height) {                                             \
            cp16z<CACHE>(own + (so), iaddr, need_ && in_row);                               \
            cp16z<CACHE>(hdst + (so), iaddr + (unsigned long long)(long long)hoff, need_ && halo);      \
            iaddr += sp;                                                                    \
        } else {                                    /* warp-uniform, rare: past an edge */  \
            const int m_ = map(yi_, height, border);                                        \
            if (m_ < 0) {                                                                   \
                sts16(own + (so), cword);                                                   \
                if (halo) sts16(hdst + (so), cword);                                                \
            } else {                                                                        \
                const unsigned long long g_ = sbase + (unsigned long long)((long long)m_ * (long long)sp); \
                cp16z<CACHE>(own + (so), g_, need_ && in_row);                              \
                cp16z<CACHE>(hdst + (so), g_ + (unsigned long long)(long long)hoff, need_ && halo);      \
            }                                                                               \
            iaddr = sbase + (unsigned long long)((long long)(yi_ + 1) * (long long)sp);     \
        }                                                                                   \
        cp_commit();                                                                        \
    } while (0)
#pragma unroll
    for (int p = 0; p < PF; p++) MGPU_BLUR_ISSUE(p, p * SB);
    __syncwarp();                                   /* the selectors */
    for (int base = 0; base < niter; base += P) {
#pragma unroll
        for (int j = 0; j < P; j++) {
            const int i = base + j;
            if (i < niter) {
                /* stages: row i in stage i % NS; row i + PF goes to the one read a row ago.
                   With NS == P they are known at compile time (j). */
                const unsigned sr = NS == P ? j * SB : su;
                const unsigned sw = NS == P ? (j + PF) % P * SB : su == 0 ? (NS - 1) * SB : su - SB;
                if (NS != P) su = su == (NS - 1) * SB ? 0u : su + SB;
                unsigned cur[4], lw[1][4], rw[1][4];    /* own words; the halo words: lw[0][2..3], rw[0][0..1] */
                cp_wait<PF - 1>();                  /* this lane's copies of row i landed */
                __syncwarp();                       /* every lane's */
                {
                    const uint4 v = lds16(own + sr);
                    const uint2 l = lds8(own + sr - 8), r = lds8(own + sr + V);
                    cur[0] = v.x; cur[1] = v.y; cur[2] = v.z; cur[3] = v.w;
                    lw[0][0] = lw[0][1] = 0u; lw[0][2] = l.x; lw[0][3] = l.y;
                    rw[0][0] = r.x; rw[0][1] = r.y; rw[0][2] = rw[0][3] = 0u;
                }
                if (edge) {                         /* the row's first and last chunks (see above) */
                    if (left) { lw[0][2] = halo_word(cur, hsel[wib][0][0], cword); lw[0][3] = halo_word(cur, hsel[wib][0][1], cword); }
                    if (right) { rw[0][0] = halo_word(cur, hsel[wib][1][0], cword); rw[0][1] = halo_word(cur, hsel[wib][1][1], cword); }
                }
                MGPU_BLUR_ISSUE(i + PF, sw);
                if (DP2A) hpass_dp2a<C>(cur, lw[0], rw[0], a21, a01, a20, ring[j]);   /* horizontal pass into ring row j */
                else hpass<TR, V, EPW, C, RC, unsigned>(a, RC, cur, lw, rw, ring[j]);
                if (i >= 2 * RC) {                  /* output row ys - 2RC + i (warp-uniform) */
                    const int c = (j + P - RC) % P;
                    unsigned o[V], u[4];
#pragma unroll
                    for (int q = 0; q < V; q++) {
                        unsigned acc = TR::vfirst(TR::weight(a, 0), ring[c][q]);
#pragma unroll
                        for (int k = 1; k <= RC; k++)
                            acc = TR::pair(acc, TR::weight(a, k), ring[(c + P - k) % P][q], ring[(c + k) % P][q]);
                        o[q] = acc;
                    }
#pragma unroll
                    for (int q = 0; q < 4; q++)     /* byte 3 of each sum, 4 per word */
                        u[q] = __byte_perm(__byte_perm(o[4 * q], o[4 * q + 1], 0x0073),
                                           __byte_perm(o[4 * q + 2], o[4 * q + 3], 0x0073), 0x5410);
                    st16<CACHE>(daddr, make_uint4(u[0], u[1], u[2], u[3]), in_row);
                    daddr += a.dpitch;
                }
            }
        }
    }
    cp_wait<0>();                                   /* the zero fills issued past the strip's rows */
#undef MGPU_BLUR_ISSUE
#endif
}

/* ---- the ring kernels (mgpu_blur_u8c<C>_r<RC>, radius 3 .. RC, RC = 4, 8; mgpu_blur_f32c<C>_ring<R>,
   radius R = 1 .. 16) -----------------------------------------------------------------------
   For rows that allow 16-byte accesses everywhere (as pipe<>: aligned src and dst, a
   multiple of 16 bytes per row). Items: (segment, strip), one per warp; a segment is 32
   lanes x V values of a row (V = 4 or 8: 8-bit, one or two words per lane; f32, 16 bytes),
   every lane an output lane. The rows reach the warp through NS = PF + 1 shared-memory stages filled by
   cp.async PF rows ahead; a stage holds the segment and HB bytes on each side (the halo,
   rounded up to 16-byte chunks). One __syncwarp per row orders the lanes' copies before
   every lane's reads, and every read of a stage before it is refilled (one row later).
   The few warps whose stage reaches past a row's start or end then write the values
   there by the border rule, from the stage itself (the source index of each such value
   is worked out once per strip): under every rule it lies within HB bytes of the row's
   first or last value, which the stage holds.
   Per row a lane reads its values and the halo from the stage, does the horizontal pass
   into a register ring of horizontal rows, then the vertical pass and one store. The ring
   holds the 2 RC rows before a block of VB rows and the block (P = 2 RC + VB rows); the
   loop over rows is unrolled VB times, so ring slots are registers, and after each block
   2 RC register moves per value shift the ring down by VB rows (unrolling the loop P times
   instead, with no moves, made 3x the code: 8400 instructions for f32 at RC = 8 against
   2700, and ran 1.15x slower).
   8-bit: the horizontal pass takes the taps in pairs of neighbours (t, t + 1), t = -RC,
   -RC + 2, .., RC (the last alone), each pair one dp2a with the weight pair a.wp[] (two
   16-bit weights; 0 past the radius) on a PRMT of the two words that hold the bytes, one
   PRMT for two values: exact, as fast<>'s (every product and sum < 2^20); radius r < RC
   runs the kernel of RC with the weights past r zero (rows and words only those weights
   meet are not loaded; their taps are computed, with weight 0: no branches). f32:
   tr<float>'s operations in fast<>'s order, one kernel per radius (RC = r), so the taps
   are known at compile time; 1 channel: a lane's window of values, whole 16-byte loads;
   4 channels, PH > 1: the horizontal pass blocked, PH pixels a lane (below). */
template <int CACHE>
__device__ __forceinline__ void stage_copy(sptr s, unsigned long long g, bool on)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(MGPU_BLUR_EMU)
    uint4 v = make_uint4(0u, 0u, 0u, 0u);           /* sm_75: no cp.async; a plain copy */
    if (on) v = __ldg((const uint4 *)g);
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" :: "r"(s), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#else
    cp16z<CACHE>(s, g, on);
#endif
}
__device__ __forceinline__ void stage_commit()
{
#if !(defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(MGPU_BLUR_EMU))
    cp_commit();
#endif
}
template <int N>
__device__ __forceinline__ void stage_wait()
{
#if !(defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(MGPU_BLUR_EMU))
    cp_wait<N>();
#endif
}

/* The 8-bit horizontal pass of a lane's 4 values from its extended words x[] (word w holds
   values 4 * (w - HW) .. + 3 relative to the lane's first; HW = ceil(RC * C / 4)). */
template <int C, int RC>
__device__ __forceinline__ void ring_hpass_u8(const args &a, const unsigned *x, unsigned h[4])
{
    enum { HW = (RC * C + 3) / 4, XW = 2 * HW + 1 };
    h[0] = h[1] = h[2] = h[3] = 0u;
#pragma unroll
    for (int t = -RC; t <= RC; t += 2) {            /* taps t and t + 1 */
        const unsigned wpair = a.wp[(t + MGPU_BLUR_PAIR_R) / 2];
#pragma unroll
        for (int q0 = 0; q0 < 4; q0 += 2) {         /* values q0 and q0 + 1: one PRMT */
            const int b1 = 4 * HW + q0 + t * C, b2 = t + 1 <= RC ? b1 + C : b1;
            const int wb = b1 / 4, o1 = b1 - 4 * wb, o2 = b2 - 4 * wb;
            const int wb1 = wb + 1 < XW ? wb + 1 : XW - 1;
            const unsigned sel = (unsigned)(o1 | o2 << 4 | (o1 + 1) << 8 | (o2 + 1) << 12);
            const unsigned p = __byte_perm(x[wb], x[wb1], sel);
            h[q0] = __dp2a_lo(wpair, p, h[q0]);
            h[q0 + 1] = __dp2a_hi(wpair, p, h[q0 + 1]);
        }
    }
}

template <typename T, int C, int RC, int V, int PF, int WARPS, int VB, int PH = 1>
__device__ __forceinline__ void ring(const args &a)
{
    typedef tr<T> TR;
    typedef typename TR::acc A;
    enum {
        SZ = (int)sizeof(T),
        SEGV = 32 * V, SEGB = SEGV * SZ,            /* a segment's values and bytes (V values per lane) */
        H = RC * C,                                 /* halo values on each side */
        HB = ((H + C) * SZ + 15) / 16 * 16,         /* a stage's halo bytes on each side */
        HV = HB / SZ,
        SB = SEGB + 2 * HB,                         /* stage bytes */
        NCH = SB / 16,                              /* 16-byte chunks per stage */
        CPL = (NCH + 31) / 32,                      /* chunks per lane */
        NS = PF + 1,                                /* stages per warp */
        P = 2 * RC + VB,                            /* ring rows: the 2 RC before a block of VB rows, and the block */
        NFIX = (2 * H + 31) / 32,                   /* border values per lane (edge warps) */
        HW = (H + 3) / 4, XW = 2 * HW + V / 4,      /* 8-bit: extended words per lane */
        XH = (RC + 3) / 4 * 4,                      /* f32, C = 1: the window's values a side, whole 16 bytes */
        NSB = PH > 1 ? PF : NS,                     /* blocked (PH > 1): stages, each NCHP chunks */
        NCHP = PH > 1 ? NCH | 1 : NCH,              /* an odd number of chunks: the rows of a pass in distinct banks */
        SBP = 16 * NCHP
    };
    static_assert(V % 4 == 0 && (SZ == 4 || 4 * HW <= HB) && (SZ == 1 || C > 1 || XH <= HV), "ring: whole words, the halo lies in the stage");
    static_assert(PH == 1 || (SZ == 4 && C == 4 && V == 4 && VB % PH == 0 && PF % VB == 0 && PF >= VB && 32 % PH == 0),
                  "ring: the blocked horizontal pass is for f32 pixels of 4 channels");
    __shared__ uint4 stage[WARPS][NSB][NCHP];
    __shared__ float4 hbuf[WARPS][PH > 1 ? PH : 1][33];     /* blocked: a pass's horizontal rows, one pixel a lane */
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const long long gw = (long long)blockIdx.x * WARPS + wib;
    const int rowlen = a.width * C, rowbytes = rowlen * SZ;
    const int nsegs = (rowlen + SEGV - 1) / SEGV;
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    if (gw >= (long long)nsegs * nstrips) return;   /* whole warps only */
    const int seg = (int)(gw % nsegs);
    const int ys = a.y_begin + (int)(gw / nsegs) * a.strip;
    const int ye = min(ys + a.strip, a.y_end);
    const int sv = seg * SEGV, sb = sv * SZ;        /* the segment's first value and byte */
    const int e0 = sv + lane * V;                   /* this lane's values e0 .. e0 + V - 1 */
    const bool in_row = e0 < rowlen;                /* rows of whole 16-byte chunks: all V */
    const bool edge = sb - HB < 0 || sb + SEGB + HB > rowbytes;     /* warp-uniform */
    const int r = SZ == 4 ? RC : a.radius, height = a.height, border = a.border;   /* f32: one kernel per radius */
    const int niter = ye - ys + 2 * RC;             /* input rows ys-RC .. ye+RC-1: row i is ys-RC+i */
    const int ilo = RC - r;                         /* rows i in [ilo, ilo + nneed) are needed */
    const unsigned nneed = (unsigned)(ye - ys + 2 * r);
    const unsigned cword = TR::cword(a);
    const unsigned long long sp = a.spitch;
    /* the stage's first byte of source row m is at gbase + m * spitch; this lane's chunk
       (lane < NCH; CPL == 1) or chunks at + 16 * (lane + 32 c) */
    const unsigned long long gbase = a.src + (unsigned long long)((long long)sb - HB - (long long)a.src_row0 * (long long)sp);
    unsigned long long iaddr = gbase + (unsigned long long)((long long)(ys - RC) * (long long)sp);   /* row i's */
    unsigned long long daddr = a.dst + (unsigned long long)((long long)(ys - a.y_begin) * (long long)a.dpitch + (long long)e0 * SZ);
    unsigned char *const mine = (unsigned char *)&stage[wib][0][0];
    bool cok[CPL];                                  /* chunk lane + 32 c: in the row (else zeros) */
    int fdst[NFIX], fsrc[NFIX];                     /* border values: stage offsets (dst -1: none; src -1: constant) */
    A ring[P][V];                                   /* ring[m]: input row base - 2 RC + m (base: the block's first) */
    unsigned su = 0;                                /* byte offset of the stage read next */

#pragma unroll
    for (int j = 0; j < P; j++)                     /* 8-bit: rows not needed meet zero weights */
#pragma unroll
        for (int q = 0; q < V; q++) ring[j][q] = (A)0;
#pragma unroll
    for (int c = 0; c < CPL; c++) {
        const int off = sb - HB + 16 * (lane + 32 * c);
        cok[c] = lane + 32 * c < NCH && off >= 0 && off < rowbytes;
    }
#pragma unroll
    for (int f = 0; f < NFIX; f++) {              /* the H values before the row and the H after it */
        const int k = lane + 32 * f;
        const int e = k < H ? -1 - k : rowlen + (k - H);
        fdst[f] = -1;
        fsrc[f] = -1;
        if (edge && k < 2 * H && e - sv + HV >= 0 && e - sv + HV < SEGV + 2 * HV) {
            const int s = source_of(a, e, rowlen, HV, C);
            fdst[f] = (e - sv + HV) * SZ;
            if (s >= 0) fsrc[f] = (s - sv + HV) * SZ;
        }
    }
    /* Input row i (< niter) into the stage at byte offset so, then the next row's address;
       rows this strip does not need are not read (8-bit: their slots meet zero weights;
       f32: never read). Every lane commits one group per row. A row of the image (the
       common case) takes one copy per chunk and no branch but the last chunk's lanes. */
    const sptr sstage = to_sptr(mine);
    const bool clast = lane + 32 * (CPL - 1) < NCH; /* this lane has a last chunk */
    const auto copy_row = [&](unsigned so, unsigned long long g) {  /* a row of the image from g */
#pragma unroll
        for (int c = 0; c < CPL; c++)
            if (c < CPL - 1 || clast)
                stage_copy<MGPU_BLUR_RING_CACHE>(sstage + so + 16 * (lane + 32 * c), g + 16u * (unsigned)(lane + 32 * c), cok[c]);
    };
#define MGPU_BLUR_RING_ISSUE(i, so)                                                         \
    do {                                                                                    \
        const int i_ = (i), yi_ = ys - RC + i_;                                             \
        if ((unsigned)(i_ - ilo) < nneed) {                                                 \
            const sptr s_ = sstage + (so) + 16 * lane;                                      \
            if ((unsigned)yi_ < (unsigned)height) copy_row((so), iaddr);                    \
            else {                                  /* warp-uniform, rare: past an edge */  \
                const int m_ = map(yi_, height, border);                                    \
                const unsigned long long g_ = gbase + (unsigned long long)((long long)m_ * (long long)sp); \
                for (int c_ = 0; c_ < CPL; c_++)                                            \
                    if (c_ < CPL - 1 || clast) {                                            \
                        if (m_ < 0) sts16(s_ + 512 * c_, cword);                            \
                        else stage_copy<MGPU_BLUR_RING_CACHE>(s_ + 512 * c_, g_ + 16u * (unsigned)(lane + 32 * c_), cok[c_]); \
                    }                                                                       \
            }                                                                               \
        }                                                                                   \
        iaddr += sp;                                                                        \
        stage_commit();                                                                     \
    } while (0)
    /* The values past the row's ends in the stage at st, by the border rule (edge warps). */
    const auto fix_edges = [&](unsigned char *st) {
#pragma unroll
        for (int f = 0; f < NFIX; f++)
            if (fdst[f] >= 0) {
                if constexpr (SZ == 1) st[fdst[f]] = fsrc[f] >= 0 ? st[fsrc[f]] : (unsigned char)cword;
                else *(unsigned *)(st + fdst[f]) = fsrc[f] >= 0 ? *(const unsigned *)(st + fsrc[f]) : cword;
            }
    };
    /* The vertical pass of ring row RC + j (the block's row j: input row base + j, output
       row ys - 2 RC + base + j) and its store; then the ring's shift after a block. */
    const auto vertical = [&](int j) {
        const int c = RC + j;
        A o[V];
#pragma unroll
        for (int q = 0; q < V; q++) {
            A acc = TR::vfirst(TR::weight(a, 0), ring[c][q]);
#pragma unroll
            for (int k = 1; k <= RC; k++)           /* 8-bit: zero weights past r, no branch; f32: RC = r */
                acc = TR::pair(acc, TR::weight(a, k), ring[c - k][q], ring[c + k][q]);
            o[q] = acc;
        }
        if (in_row) {
            if constexpr (SZ == 1) {                /* byte 3 of each sum */
                unsigned u[V / 4];
#pragma unroll
                for (int v = 0; v < V / 4; v++)
                    u[v] = __byte_perm(__byte_perm((unsigned)o[4 * v], (unsigned)o[4 * v + 1], 0x0073),
                                       __byte_perm((unsigned)o[4 * v + 2], (unsigned)o[4 * v + 3], 0x0073), 0x5410);
                if constexpr (V == 8) *(uint2 *)(size_t)daddr = make_uint2(u[0], u[1]);
                else *(unsigned *)(size_t)daddr = u[0];
            } else {
                *(float4 *)(size_t)daddr = make_float4((float)o[0], (float)o[1], (float)o[2], (float)o[3]);
            }
        }
        daddr += a.dpitch;
    };
    const auto shift = [&]() {                      /* the next block's first 2 RC rows: register moves */
#pragma unroll
        for (int m = 0; m < 2 * RC; m++)
#pragma unroll
            for (int q = 0; q < V; q++) ring[m][q] = ring[m + VB][q];
    };
#pragma unroll
    for (int p = 0; p < PF; p++)
        if (p < niter) MGPU_BLUR_RING_ISSUE(p, p * SBP);
        else stage_commit();
    if constexpr (PH > 1) {
        /* Blocked (f32, 4 channels): NSB = PF stages; per block of VB rows, wait for all of
           them; then in passes of PH rows, lane (g, s) = (lane % PH, lane / PH) filters pixels
           PH s .. PH s + PH - 1 of row g of the pass, keeping PH pixels on each side in
           registers as the taps move out (2 shared loads a tap for PH outputs instead of 2 for
           one), and the pass's rows go to the lanes of their pixels through hbuf (rows of 33
           pixels and stages of an odd number of chunks: the 8 lanes of a 16-byte load phase
           meet distinct banks). Then the block's stages are refilled PF rows ahead, and
           `vertical` does the block's vertical passes. */
        unsigned slot0 = 0;                         /* stage offset of row base (PF a multiple of VB: no wrap inside a block) */
        for (int base = 0; base < niter; base += VB) {
            stage_wait<PF - VB>();                  /* this lane's copies of rows base .. base + VB - 1 landed */
            __syncwarp();                           /* every lane's */
            if (edge) {
#pragma unroll
                for (int j = 0; j < VB; j++)
                    if (base + j < niter) fix_edges(mine + slot0 + j * SBP);
                __syncwarp();
            }
#pragma unroll
            for (int h0 = 0; h0 < VB; h0 += PH) {
                const int g = lane % PH, s = lane / PH;
                if (base + h0 + g < niter) {
                    const float4 *const xs = (const float4 *)(mine + slot0 + (h0 + g) * SBP + HB) + PH * s;
                    float4 L[PH], R[PH];            /* before tap k: L[m] = pixel m - k, R[m] = pixel m + k */
                    A acc[PH][4];
#pragma unroll
                    for (int m = 0; m < PH; m++) {
                        L[m] = R[m] = xs[m];
                        const float o4[4] = { L[m].x, L[m].y, L[m].z, L[m].w };
#pragma unroll
                        for (int q = 0; q < 4; q++) acc[m][q] = TR::first(TR::weight(a, 0), o4[q]);
                    }
#pragma unroll
                    for (int k = 1; k <= RC; k++) {
#pragma unroll
                        for (int m = PH - 1; m > 0; m--) L[m] = L[m - 1];
#pragma unroll
                        for (int m = 0; m < PH - 1; m++) R[m] = R[m + 1];
                        L[0] = xs[-k];
                        R[PH - 1] = xs[PH - 1 + k];
#pragma unroll
                        for (int m = 0; m < PH; m++) {
                            const float l4[4] = { L[m].x, L[m].y, L[m].z, L[m].w }, r4[4] = { R[m].x, R[m].y, R[m].z, R[m].w };
#pragma unroll
                            for (int q = 0; q < 4; q++) acc[m][q] = TR::pair(acc[m][q], TR::weight(a, k), l4[q], r4[q]);
                        }
                    }
#pragma unroll
                    for (int m = 0; m < PH; m++) hbuf[wib][g][PH * s + m] = make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]);
                }
                __syncwarp();                       /* the pass's rows (and, the last pass, every read of the block's stages) */
#pragma unroll
                for (int j = 0; j < PH; j++) {     /* (rows past niter: stale values, which no output meets) */
                    const float4 hv = hbuf[wib][j][lane];
                    ring[2 * RC + h0 + j][0] = hv.x; ring[2 * RC + h0 + j][1] = hv.y;
                    ring[2 * RC + h0 + j][2] = hv.z; ring[2 * RC + h0 + j][3] = hv.w;
                }
                if (h0 + PH < VB) __syncwarp();     /* before the next pass writes hbuf */
            }
            /* rows base + PF .. into the block's stages: a block of needed rows of the image
               (the common case) with one test */
            const int i0 = base + PF, y0 = ys - RC + i0;
            if (i0 + VB <= niter && i0 >= ilo && i0 - ilo + VB <= (int)nneed && y0 >= 0 && y0 + VB <= height) {
#pragma unroll
                for (int j = 0; j < VB; j++) {
                    copy_row(slot0 + j * SBP, iaddr);
                    iaddr += sp;
                    stage_commit();
                }
            } else {
#pragma unroll
                for (int j = 0; j < VB; j++)
                    if (i0 + j < niter) MGPU_BLUR_RING_ISSUE(i0 + j, slot0 + j * SBP);
                    else stage_commit();
            }
            slot0 = slot0 + VB * SBP == PF * SBP ? 0u : slot0 + VB * SBP;
#pragma unroll
            for (int j = 0; j < VB; j++)
                if (base + j < niter && base + j >= 2 * RC) vertical(j);
            shift();
        }
    } else {
        for (int base = 0; base < niter; base += VB) {
#pragma unroll
            for (int j = 0; j < VB; j++) {
                const int i = base + j;
                if (i < niter) {
                    const unsigned sr = su, sw = su == 0 ? (NS - 1) * SB : su - SB;
                    su = su == (NS - 1) * SB ? 0u : su + SB;
                    unsigned char *const st = mine + sr;
                    stage_wait<PF - 1>();               /* this lane's copies of row i landed */
                    __syncwarp();                       /* every lane's */
                    const bool need = (unsigned)(i - ilo) < nneed;
                    if (edge && need) {
                        fix_edges(st);
                        __syncwarp();
                    }
                    if constexpr (SZ == 1) {            /* horizontal pass into ring row 2 RC + j (stale rows: weight 0) */
                        const unsigned *const xs = (const unsigned *)(st + HB + V * lane) - HW;
                        unsigned x[XW], h[V];
#pragma unroll
                        for (int w = 0; w < XW; w++) x[w] = xs[w];
#pragma unroll
                        for (int v = 0; v < V / 4; v++) ring_hpass_u8<C, RC>(a, x + v, h + 4 * v);
#pragma unroll
                        for (int q = 0; q < V; q++) ring[2 * RC + j][q] = (A)h[q];
                    } else if (need) {
                        const float *const xs = (const float *)(st + HB) + lane * V;
                        /* C = 4: the lane's pixel and the pixels k to each side, one 16-byte load each;
                           C = 1: the lane's window of values -XH .. 3 + XH, whole 16-byte loads */
                        float xw[C == 1 ? 2 * XH + 4 : 4];
                        if constexpr (C == 1) {
#pragma unroll
                            for (int w = 0; w < XH / 2 + 1; w++) {
                                const float4 f = *(const float4 *)(xs - XH + 4 * w);
                                xw[4 * w] = f.x; xw[4 * w + 1] = f.y; xw[4 * w + 2] = f.z; xw[4 * w + 3] = f.w;
                            }
                        } else {
                            const float4 f = *(const float4 *)xs;
                            xw[0] = f.x; xw[1] = f.y; xw[2] = f.z; xw[3] = f.w;
                        }
                        const float *const own = C == 1 ? xw + XH : xw;
                        A acc[4];
#pragma unroll
                        for (int q = 0; q < 4; q++) acc[q] = TR::first(TR::weight(a, 0), (A)own[q]);
#pragma unroll
                        for (int k = 1; k <= RC; k++) {     /* RC = r */
                            if constexpr (C == 4) {     /* the pixels k to the left and right: one load each */
                                const float4 L = *(const float4 *)(xs - 4 * k), R = *(const float4 *)(xs + 4 * k);
                                const float l4[4] = { L.x, L.y, L.z, L.w }, r4[4] = { R.x, R.y, R.z, R.w };
#pragma unroll
                                for (int q = 0; q < 4; q++) acc[q] = TR::pair(acc[q], TR::weight(a, k), (A)l4[q], (A)r4[q]);
                            } else {
#pragma unroll
                                for (int q = 0; q < 4; q++) acc[q] = TR::pair(acc[q], TR::weight(a, k), xw[XH + q - k], xw[XH + q + k]);
                            }
                        }
#pragma unroll
                        for (int q = 0; q < 4; q++) ring[2 * RC + j][q] = acc[q];
                    }
                    if (i + PF < niter) MGPU_BLUR_RING_ISSUE(i + PF, sw);
                    else stage_commit();
                    if (i >= 2 * RC) vertical(j);   /* output row ys - 2RC + i (warp-uniform) */
                }
            }
            shift();
        }
    }
    stage_wait<0>();                                /* (nothing is pending: every group was waited for) */
#undef MGPU_BLUR_RING_ISSUE
}

extern __shared__ unsigned dyn[];

/* The generic kernels' words of input row yi (see any): per slot s, the 32-bit word at
   value e0[s] of the row, by one load when `whole` allows, else value by value from the
   source indices si (source_of: border rule, constant, 0 where no output reads it). All
   loads independent: one round trip per row. */
template <typename T, int S>
__device__ __forceinline__ void any_load(const args &a, int yi, const int *bw, const int *e0, const bool *whole,
                                         const int (*si)[tr<T>::EPW], unsigned *w)
{
    enum { EPW = tr<T>::EPW };
    const int my = map(yi, a.height, a.border);
    if (my < 0) {
#pragma unroll
        for (int s = 0; s < S; s++) w[s] = tr<T>::cword(a);
        return;
    }
    const unsigned char *const row = (const unsigned char *)a.src + (size_t)(my - a.src_row0) * a.spitch;
#pragma unroll
    for (int s = 0; s < S; s++) {
        if (bw[s] < 0) continue;                    /* halo slot of a thread without one */
        if (whole[s]) {
            w[s] = __ldg((const unsigned *)(row + (size_t)e0[s] * sizeof(T)));
            continue;
        }
        unsigned bits = 0u;
#pragma unroll
        for (int b = 0; b < EPW; b++) {
            const int j = si[s][b];
            unsigned v = 0u;
            if (j >= 0) v = sizeof(T) == 1 ? (unsigned)__ldg(row + j) : __ldg((const unsigned *)row + j);
            else if (j == -1) v = sizeof(T) == 1 ? (unsigned)a.cval_u8 : __float_as_uint(a.cval_f32);
            bits |= v << (8 * b);                   /* EPW == 1: b == 0 */
        }
        w[s] = bits;
    }
}

/* The 8-bit results of 4 sums as one word: byte 3 of each (as tr<unsigned char>::store). */
__device__ __forceinline__ unsigned any_bytes(const unsigned o[4])
{
    return (o[0] >> 24) | (o[1] >> 24) << 8 | (o[2] >> 24) << 16 | (o[3] >> 24) << 24;
}
__device__ __forceinline__ unsigned any_bytes(const float *) { return 0u; }   /* f32: not used */

/* The (tile, strip) item of this block (generic and wide kernels: one item per block):
   false past the last; else the tile's first value x0 and the output rows [ys, ye). */
__device__ __forceinline__ bool tile_item(const args &a, int rowlen, int tile, int &x0, int &ys, int &ye)
{
    const int ntiles = (rowlen + tile - 1) / tile;
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    const long long item = blockIdx.x;
    if (item >= (long long)ntiles * nstrips) return false;
    x0 = (int)(item % ntiles) * tile;
    ys = a.y_begin + (int)(item / ntiles) * a.strip;
    ye = min(ys + a.strip, a.y_end);
    return true;
}

template <typename T>
__device__ __forceinline__ void any(const args &a)
{
    typedef tr<T> TR;
    typedef typename TR::acc A;
    enum {
        EPW = TR::EPW,
        W = sizeof(T) == 1 ? MGPU_BLUR_ANY_W8 : MGPU_BLUR_ANY_W32,    /* tile words per thread */
        S = W + 1,                                  /* load slots: W tile words, one halo word */
        PF = MGPU_BLUR_ANY_PF / W                   /* rows in flight: PF * W words per thread */
    };
    const int NT = blockDim.x, t = threadIdx.x, NTW = NT * W;
    const int C = a.channels, r = a.radius, P = 2 * r + 1, H = r * C;
    const int HW = (H + EPW - 1) / EPW;             /* halo words on each side (2 * HW <= NT: mgpu.h) */
    const int rowlen = a.width * C;
    const int TWE = NTW * EPW;                      /* values per tile */
    int x0, ys, ye;
    if (!tile_item(a, rowlen, TWE, x0, ys, ye)) return;     /* whole blocks only */
    const int niter = ye - ys + 2 * r;
    /* 8-bit rows at 4-byte aligned addresses take whole-word loads and stores */
    const bool wsrc = EPW == 1 || (a.src % 4 == 0 && a.spitch % 4 == 0);
    const bool wdst = EPW == 1 || (a.dst % 4 == 0 && a.dpitch % 4 == 0);
    const int PS = EPW * NTW;                       /* ring words per row */
    const int BW = NTW + 2 * HW;                    /* buffer words per row */
    A *const sw = (A *)dyn;                         /* weights, [MGPU_BLUR_ANY_R + 1] */
    A *const ring = (A *)dyn + MGPU_BLUR_ANY_SW;    /* [P][EPW][NTW]: value b of tile word c at [.][b][c] */
    unsigned *const bufs = dyn + MGPU_BLUR_ANY_SW + P * PS;     /* two rows of BW raw words */
    int bw[S], e0[S], si[S][EPW];                   /* per slot: buffer word (-1: none), first value, sources */
    bool whole[S];
    unsigned pf[PF][S];                             /* the next PF rows' words */
    int slot = 0;

#pragma unroll
    for (int k = 0; k <= MGPU_BLUR_ANY_R; k++)
        if (t == k) sw[k] = TR::weight(a, k);
    /* slots: tile words t, t + NT, .. (lanes on consecutive words: coalesced), and for
       threads t < 2 * HW one halo word (left: t < HW, right: the others); buffer word
       HW + c holds tile word c, i.e. the values x0 + c * EPW .. + EPW - 1 */
#pragma unroll
    for (int s = 0; s < S; s++) {
        int c = s * NT + t;
        bw[s] = HW + c;
        if (s == W) {
            c = t < HW ? t - HW : NTW + t - HW;
            bw[s] = t < 2 * HW ? HW + c : -1;
        }
        e0[s] = x0 + c * EPW;
        whole[s] = wsrc && e0[s] >= 0 && e0[s] + EPW <= rowlen;
#pragma unroll
        for (int b = 0; b < EPW; b++) si[s][b] = source_of(a, e0[s] + b, rowlen, H, C);
#pragma unroll
        for (int j = 0; j < PF; j++) pf[j][s] = 0u;
    }
#pragma unroll
    for (int j = 0; j < PF; j++)
        if (j < niter) any_load<T, S>(a, ys - r + j, bw, e0, whole, si, pf[j]);
    for (int base = 0; base < niter; base += PF) {
#pragma unroll
        for (int j = 0; j < PF; j++) {              /* input row i = base + j: its words are pf[j] */
            const int i = base + j;
            if (i < niter) {                        /* block-uniform: the barrier below */
                /* two row buffers, one barrier per row: a thread writes buffer i & 1 after the
                   barrier of row i - 1, which every thread passes after reading it for row i - 2 */
                unsigned *const buf = bufs + (j & 1) * BW;     /* PF even: (i & 1) == (j & 1) */
#pragma unroll
                for (int s = 0; s < S; s++)
                    if (bw[s] >= 0) buf[bw[s]] = pf[j][s];
                if (i + PF < niter) any_load<T, S>(a, ys - r + i + PF, bw, e0, whole, si, pf[j]);   /* row i + PF */
                __syncthreads();
#pragma unroll
                for (int q = 0; q < W; q++) {       /* horizontal pass of tile word c into ring[slot] */
                    const int c = q * NT + t;
                    const unsigned *const m = buf + HW + c;
                    const unsigned own = m[0];
                    A acc[EPW];
#pragma unroll
                    for (int b = 0; b < EPW; b++) acc[b] = TR::first(sw[0], TR::elem(own, b));
#pragma unroll 4
                    for (int k = 1; k <= r; k++) {  /* (unrolled: several k's loads in flight) */
                        const int d = k * C;        /* values x - d and x + d, EPW at a time */
                        unsigned L, R;
                        if (EPW == 4 && (d & 3) == 0) {     /* whole words (C = 4: always) */
                            L = m[-(d >> 2)];
                            R = m[d >> 2];
                        } else if (EPW == 4) {      /* 4 bytes from a word boundary + shift: two words and a funnel */
                            const int ol = -((d + 3) >> 2), or_ = d >> 2;  /* or_ + 1 <= HW: in the buffer */
                            L = __byte_perm(m[ol], m[ol + 1], 0x3210u + (unsigned)((-d) & 3) * 0x1111u);
                            R = __byte_perm(m[or_], m[or_ + 1], 0x3210u + (unsigned)(d & 3) * 0x1111u);
                        } else {
                            L = m[-d];
                            R = m[d];
                        }
                        const A wk = sw[k];
#pragma unroll
                        for (int b = 0; b < EPW; b++) acc[b] = TR::pair(acc[b], wk, TR::elem(L, b), TR::elem(R, b));
                    }
#pragma unroll
                    for (int b = 0; b < EPW; b++) ring[slot * PS + b * NTW + c] = acc[b];   /* own column: no barrier */
                }
                if (i >= 2 * r) {                   /* output row yi - r from ring slots slot-2r .. slot */
                    int cs = slot - r;
                    if (cs < 0) cs += P;
                    unsigned char *const drow = (unsigned char *)a.dst + (size_t)(ys + i - 2 * r - a.y_begin) * a.dpitch;
#pragma unroll
                    for (int q = 0; q < W; q++) {
                        const int c = q * NT + t, e = x0 + c * EPW;
                        const A *const col = ring + c;
                        A acc[EPW];
#pragma unroll
                        for (int b = 0; b < EPW; b++) acc[b] = TR::vfirst(sw[0], col[cs * PS + b * NTW]);
#pragma unroll 4
                        for (int k = 1; k <= r; k++) {
                            const int s1 = cs - k < 0 ? cs - k + P : cs - k, s2 = cs + k >= P ? cs + k - P : cs + k;
                            const A wk = sw[k];
#pragma unroll
                            for (int b = 0; b < EPW; b++)
                                acc[b] = TR::pair(acc[b], wk, col[s1 * PS + b * NTW], col[s2 * PS + b * NTW]);
                        }
                        if (EPW == 4 && wdst && e + EPW <= rowlen) {   /* byte 3 of each sum, one word */
                            *(unsigned *)(drow + e) = any_bytes(acc);
                        } else {
#pragma unroll
                            for (int b = 0; b < EPW; b++)
                                if (e + b < rowlen) TR::store(drow, e + b, acc[b]);
                        }
                    }
                }
                if (++slot == P) slot = 0;
            }
        }
    }
}

/* ---- the wide kernels (mgpu_blur_<u8|f32>_wide, radius 17 .. MGPU_BLUR_MAX_R) --------
   A straightforward tiled path for the radii the others do not take, any C and layout.
   Items: (tile, strip), one per block of NT = MGPU_BLUR_WIDE_THREADS threads; a tile is
   TX = MGPU_BLUR_WIDE_TILE values of a row. Thread t owns column x = t % TX of the tile and
   row b = t / TX of each batch of B = NT / TX rows; the strip's input rows go by in such
   batches:
   - the batch's B rows, TX + 2rC values each (the halo; the border rule applied), are
     copied value by value into shared memory (coalesced loads, border indices by
     source_of where a value lies past a row end);
   - barrier; each thread does the horizontal pass of its (row, column) into a shared ring
     of R = 2r + B horizontal rows (input row i at slot i % R);
   - barrier; each thread does the vertical pass of output row i - 2r (i its batch row),
     whose 2r + 1 rows are in the ring, and stores it.
   The next batch's copy and barrier order its ring writes after these reads. A warp is 32
   consecutive columns of one row: no bank conflicts. Shared memory: 4 * (SW + R * TX) +
   B * (TX + 2rC) * sizeof(T) bytes (f32, 4 channels, radius 64: 42.3 KiB), so 4 or more
   blocks per multiprocessor. The arithmetic is tr<T>'s, in fast<>'s order: the same bits
   as the CPU device. It does 2r + 1 shared reads per value and pass, so it is bound by
   shared-memory bandwidth, not by DRAM. */
template <typename T>
__device__ __forceinline__ void wide(const args &a)
{
    typedef tr<T> TR;
    typedef typename TR::acc A;
    enum { NT = MGPU_BLUR_WIDE_THREADS, TX = MGPU_BLUR_WIDE_TILE, B = NT / TX };
    const int t = threadIdx.x, x = t % TX, b = t / TX;
    const int C = a.channels, r = a.radius, H = r * C, R = 2 * r + B;
    const int BX = TX + 2 * H;                      /* values per staged row */
    const int rowlen = a.width * C;
    int x0, ys, ye;
    if (!tile_item(a, rowlen, TX, x0, ys, ye)) return;      /* whole blocks only */
    const int niter = ye - ys + 2 * r;              /* input rows ys-r .. ye+r-1: row i is ys-r+i */
    A *const sw = (A *)dyn;                         /* weights, [MGPU_BLUR_MAX_R + 1] */
    A *const ring = (A *)dyn + MGPU_BLUR_WIDE_SW;   /* [R][TX] */
    T *const raw = (T *)(ring + R * TX);            /* [B][BX]: value x0 - H + j of batch row b at [b][j] */

    static_assert(NT % TX == 0 && TX % 32 == 0 && NT > MGPU_BLUR_MAX_R && MGPU_BLUR_WIDE_SW > MGPU_BLUR_MAX_R,
                  "wide: whole warps per row, a thread per weight");
#pragma unroll
    for (int k = 0; k <= MGPU_BLUR_MAX_R; k++)
        if (t == k) sw[k] = TR::weight(a, k);
    for (int i0 = 0; i0 < niter; i0 += B) {
        /* the batch's input rows i0 .. i0 + B - 1 (those < niter) */
        for (int q = t, bb = t / BX, j = t % BX; q < B * BX && i0 + bb < niter; q += NT) {
            const int my = map(ys - r + i0 + bb, a.height, a.border), e = x0 - H + j;
            A v = (A)0;                             /* (-2: no output reads it) */
            if (my < 0) v = TR::cval(a);
            else {
                const unsigned char *const row = (const unsigned char *)a.src + (size_t)(my - a.src_row0) * a.spitch;
                const int s = (unsigned)e < (unsigned)rowlen ? e : source_of(a, e, rowlen, H, C);
                if (s >= 0) v = TR::load(row, s);
                else if (s == -1) v = TR::cval(a);
            }
            raw[q] = (T)v;
            for (j += NT; j >= BX; j -= BX) bb++;
        }
        __syncthreads();
        if (i0 + b < niter) {                       /* horizontal pass: input row i0 + b, column x */
            const T *const m = raw + b * BX + H + x;
            A acc = TR::first(sw[0], (A)m[0]);
            for (int k = 1; k <= r; k++) acc = TR::pair(acc, sw[k], (A)m[-k * C], (A)m[k * C]);
            ring[(i0 + b) % R * TX + x] = acc;
        }
        __syncthreads();
        const int o = i0 + b - 2 * r;               /* vertical pass: output row ys + o */
        if (o >= 0 && o < ye - ys && x0 + x < rowlen) {
            const A *const col = ring + x;
            int s1 = (o + r) % R, s2 = s1;
            A acc = TR::vfirst(sw[0], col[s1 * TX]);
            for (int k = 1; k <= r; k++) {
                s1 = s1 == 0 ? R - 1 : s1 - 1;
                s2 = s2 == R - 1 ? 0 : s2 + 1;
                acc = TR::pair(acc, sw[k], col[s1 * TX], col[s2 * TX]);
            }
            TR::store((unsigned char *)a.dst + (size_t)(ys + o - a.y_begin) * a.dpitch, x0 + x, acc);
        }
    }
}

/* ---- the tiled f32 kernels (mgpu_blur_f32_t<R>, radius R = 9..16, every layout) ----------
   wide<>'s scheme (a block per tile of TX values and strip of rows; rows staged in shared
   memory under the border rule; a shared ring of filtered rows) with every thread computing
   8 outputs per pass from registers, so that 8 outputs take 2R + 8 shared loads instead of
   8 (2R + 1): the horizontal pass takes 8 consecutive pixels of one channel of one row, the
   vertical pass 8 consecutive rows of one column of the ring; the sums in tr<float>'s order
   (as every f32 kernel: the CPU device's bits). R is a template argument: each tap's weight is a
   constant operand, the loads are registers, and no value past the radius is used. The
   batch is B = 8 input rows; input row i is image row ys - R - PAD + i, PAD making 2R +
   PAD a multiple of 8 so that the outputs go in aligned groups of 8 rows; the ring holds
   the last 2R + 8 filtered rows (slot = row mod NR). TX = the largest multiple of 8C up to
   the block's threads (all of them for C = 1..4 at 192). In shared memory every 8C values
   (a thread's 8 pixels) are followed by C unused words, so that the threads of a warp,
   8C values apart, read different banks (without: 6-way conflicts). */
template <int R>
__device__ __forceinline__ void tiled(const args &a)
{
    typedef tr<float> TR;
    enum { NT = MGPU_BLUR_TILE_THREADS, B = 8, PAD = (8 - 2 * R % 8) % 8, NR = 2 * R + B };
    const int t = threadIdx.x, C = a.channels, H = R * C;
    const int TX = NT / (8 * C) * 8 * C, BX = TX + 2 * H, G = TX / 8;
    const int dm = (65536 + 8 * C - 1) / (8 * C);   /* j / (8C) = (j dm) >> 16 for j < 2048 */
    const int TXP = TX + TX / 8, BXP = BX + C * ((BX * dm) >> 16) + C;
    const int rowlen = a.width * C;
    int x0, ys, ye;
    if (!tile_item(a, rowlen, TX, x0, ys, ye)) return;      /* whole blocks only */
    const int niter = ye - ys + 2 * R + PAD;
    float *const ring = (float *)dyn;               /* [NR][TXP] */
    float *const raw = ring + NR * TXP;             /* [B][BXP]: value x0 - H + j of batch row b at [b][j'] */
    const bool inner = x0 - H >= 0 && x0 + TX + H <= rowlen;     /* block-uniform: no border values */
    /* Batch rows i0 .. i0 + 7 (< niter) into raw by cp.async, 4 bytes a value, or 16 (a
       pixel) for 4 channels on 16-byte rows away from the row's ends (sm_75: plain loads);
       constants by stores; the PAD rows and values past the halo are never read. */
    const auto issue = [&](int i0) {
        if (C == 4 && inner && a.vec_src) {         /* 16-byte rows, no border values: a pixel a copy */
            const int BX4 = BX / 4;
            for (int q = t, bb = t / BX4, j4 = t % BX4; q < B * BX4 && i0 + bb < niter; q += NT) {
                if (i0 + bb >= PAD) {
                    const int my = map(ys - R - PAD + i0 + bb, a.height, a.border);
                    const sptr d = to_sptr(raw + bb * BXP + 4 * (j4 + j4 / 8));
                    if (my < 0) sts16(d, TR::cword(a));
                    else stage_copy<0>(d, a.src + (unsigned long long)((long long)(my - a.src_row0) * (long long)a.spitch)
                                              + 4u * (unsigned)(x0 - H) + 16u * (unsigned)j4, true);
                }
                for (j4 += NT; j4 >= BX4; j4 -= BX4) bb++;
            }
            stage_commit();
            return;
        }
        for (int q = t, bb = t / BX, j = t % BX; q < B * BX && i0 + bb < niter; q += NT) {
            if (i0 + bb >= PAD) {
                const int my = map(ys - R - PAD + i0 + bb, a.height, a.border), e = x0 - H + j;
                float *const d = raw + bb * BXP + j + C * ((j * dm) >> 16);
                const int s = my < 0 ? -1 : inner || (unsigned)e < (unsigned)rowlen ? e : source_of(a, e, rowlen, H, C);
                if (s >= 0) {
                    const unsigned long long g = a.src + (unsigned long long)((long long)(my - a.src_row0) * (long long)a.spitch) + 4u * (unsigned)s;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(MGPU_BLUR_EMU)
                    *d = __ldg((const float *)g);
#else
                    cp4(to_sptr(d), g);
#endif
                } else if (s == -1) {
                    *d = a.cval_f32;
                }
            }
            for (j += NT; j >= BX; j -= BX) bb++;
        }
        stage_commit();
    };
    issue(0);
    for (int i0 = 0; i0 < niter; i0 += B) {
        stage_wait<0>();                            /* this thread's copies of batch i0 */
        __syncthreads();                            /* everyone's; and the last vertical pass's reads of the ring */
        if (t < TX) {                               /* horizontal pass: batch row b, pixels 8p .. 8p + 7 of channel ch */
            const int b = t / G, g = t - b * G, ch = g % C, p = g / C;
            if (i0 + b < niter) {
                const float *const m = raw + b * BXP + 9 * p * C + ch;      /* pixel 8p - R */
                float x[2 * R + 8];
#pragma unroll
                for (int j = 0; j < 2 * R + 8; j++) x[j] = m[(j + j / 8) * C];
                float *const h = ring + (i0 + b) % NR * TXP + 9 * p * C + ch;
#pragma unroll
                for (int o = 0; o < 8; o++) {
                    float acc = TR::first(TR::weight(a, 0), x[R + o]);
#pragma unroll
                    for (int k = 1; k <= R; k++) acc = TR::pair(acc, TR::weight(a, k), x[R + o - k], x[R + o + k]);
                    h[o * C] = acc;
                }
            }
        }
        __syncthreads();                            /* the ring's new rows; every read of raw */
        if (i0 + B < niter) issue(i0 + B);          /* (in flight during the vertical pass) */
        const int o0 = i0 - 2 * R - PAD;            /* vertical pass: output rows ys + o0 .. + 7 */
        if (o0 >= 0 && t < TX && x0 + t < rowlen) { /* from input rows i0 - 2R + j, j < NR */
            const float *col = ring + (i0 - 2 * R) % NR * TXP + t + C * ((t * dm) >> 16);
            const float *const end = ring + NR * TXP;
            float hv[NR];
#pragma unroll
            for (int j = 0; j < NR; j++) {
                hv[j] = *col;
                col += TXP;
                if (col >= end) col -= NR * TXP;
            }
#pragma unroll
            for (int o = 0; o < 8; o++) {           /* output o: rows j = o .. o + 2R, centre o + R */
                float acc = TR::vfirst(TR::weight(a, 0), hv[R + o]);
#pragma unroll
                for (int k = 1; k <= R; k++) acc = TR::pair(acc, TR::weight(a, k), hv[R + o - k], hv[R + o + k]);
                if (o0 + o < ye - ys)
                    TR::store((unsigned char *)a.dst + (size_t)(ys + o0 + o - a.y_begin) * a.dpitch, x0 + t, acc);
            }
        }
    }
}

/* ---- the tensor-core 8-bit kernels (mgpu_blur_u8c<C>_m8, _m16: radius <= 8, <= 16) -----
   For rows that allow 16-byte accesses everywhere (as ring<>), on sm_80 and later. The
   arithmetic is the exact integer arithmetic above, done by int8 tensor-core products
   (mma_u8: m16n8k32, unsigned bytes, exact 32-bit sums), so the results are the CPU
   device's bits:
   - weights split into bytes, w = wl + 256 wh (wl <= 255, wh <= 16): h = P(wl) + 256 P(wh),
     P a product with a banded (Toeplitz) matrix of byte weights;
   - h < 2^20 split into bytes h0, h1, h2: v = 2^23 + E0 + 2^8 E1 + 2^16 E2 + 2^24 E3 (mod
     2^32, which is exact: v < 2^32) with E0 = wl.h0, E1 = wh.h0 + wl.h1, E2 = wh.h1 + wl.h2,
     E3 = wh.h2 (the products of one scale accumulate into one fragment; 2^23 starts E0).
   - wh != 0 only within 7 of the centre (mgpu.h checks it: mgpu__blur_mma_weights_ok), so
     the wh products take only the values that reach: horizontally NKH chunks (gray at
     radius 9..16 one of 2, RGB 2 of 4, RGBA 2 of 3), vertically the two ring pairs that hold
     the blocks of rows s - 1 .. s + 1 (wh_pair; radius 9..16: one product of 32 rows for
     each of E1, E2, E3 instead of one of 32 and one of 16). On an H200, 8K at radius 9..16:
     1.05-1.08x; the pairs' registers then move into one operand (8 moves a tile and step)
     in 4 of the 6 phases, which costs no more than two products of 16 rows there (0.98-1.01x).
   Items: (segment, strip), one per block of WARPS warps; a segment is SEG = WARPS * NT * 16
   bytes of a row, each warp NT tiles of 16 columns. The strip goes by in steps of 8 output
   rows; a step's 8 input rows ("block" of rows) reach the block through NSTG shared stages
   filled by cp.async SB blocks at a time, after one block barrier every SB steps, NSTG - SB
   to NSTG - 1 steps ahead (each row with HB halo bytes a side; the border rule at the row's
   ends applied in the stage by the edge blocks, as ring<> does).
   Horizontal pass, per tile and block of rows: D (16 columns x 8 rows) = T (16 columns x K
   bytes of the row window, NKC chunks of 32) . X (K bytes x 8 rows). A product sums over K
   in any order: K slot 4t + b + 16q' is taken to be window byte 8t + 4q' + b, so a lane's
   X fragment (b[0], b[1]) is 8 consecutive bytes of row g, one 64-bit shared load, with no
   moves between registers. T's row m is the output column 2m (m < 8) or 2(m - 8) + 1, so a
   lane's D holds columns 2g and 2g + 1 (g = lane / 4) of rows 2t and 2t + 1 (t = lane % 4).
   Vertical pass: out (16 columns x 8 rows) = H (16 columns x K rows) . V (K rows x 8 rows),
   K slot 4t + b + 16q' (+ 32c) taken to be row 2t + (b & 1) of the ring slot 2q' + (b >> 1)
   (+ 4c): exactly the rows a lane's horizontal D holds, so the byte planes of the lane's
   own h values are its H fragment (PRMTs, no shuffles). The ring has NB = 2 BA + 2 slots of
   8 h rows (the 2 BA + 1 blocks a step reads, and one so that slots pair): 4 (K = 32) up to
   radius 8, 6 above (K = 48: a chunk of 32 and one of 16, m16n8k16; with 8 slots a quarter
   of the vertical products met zero weights). The block of rows computed at step s goes
   into slot (s + BA) mod NB, and V (the vertical weights with its K rows in slot order) has
   one version per step phase s mod NB, in shared memory like T. The output bytes (2 adjacent per row and
   tile) go through a shared tile to 16-byte stores. Rows the strip does not need are not
   loaded (their stale bytes meet zero weights), as are weights past the radius: one kernel
   serves every radius up to RMAX. A slot's rows fill half of the byte-plane registers they
   share with the other slot of their pair (slots 2q', 2q' + 1): the odd slot merges into
   them (PRMT), the even slot overwrites them whole, as its partner holds the oldest block
   of the ring, which every step meets with zero weights until the next step refills it.
   RGBA up to radius 8 (PL, "planar"): a warp's 4 tiles are the 4 channels of its 16 pixels,
   so a tile's window is 32 pixels of one channel (one chunk: 2 horizontal products a tile,
   not 6, of which three quarters of each were zero weights). A lane loads pixels 8t .. + 7
   of row g (two 16-byte loads; stage rows an odd number of 16-byte units apart, so no bank
   conflicts) and transposes their bytes into the 4 channels' X fragments (16 PRMT); the
   outputs, 2 pixels of 4 channels in a lane for each of 2 rows, go straight to 8-byte
   stores. (8K RGBA at radius 3..8 on an H200: 1.32x, 12.7 -> 8.4 M products.)
   RGBA at radius 9..16 (P2; a planar ring of 4 tiles would not fit the registers): a warp's
   2 tiles are its 8 pixels' channels 0, 1 and 2, 3, so a tile's window is 40 pixels of 2
   channels (3 chunks of 16 pixels: 6 horizontal products a tile, not 10). A lane loads
   pixels 16j + 4t .. + 3 of row g for chunk j (one 16-byte load; stage rows an odd number
   of 64-byte units apart) and puts 2 pixels' channels 0, 1 (2, 3) in a word: K slot 4t + b
   + 16q' is pixel 4t + 2q' + (b & 1), channel b >> 1 of the tile (4 PRMT a chunk for both
   tiles; T's zeros where the channels differ). A lane's D holds pixel g's 2 channels, so
   its outputs, pixel g of rows 2t and 2t + 1, go straight to 4-byte stores. (8K RGBA at
   radius 9..16 on an H200, with the 6-slot ring: 1.23x.) */
#ifndef MGPU_BLUR_EMU
/* d = a.b + c for one m16n8k32 tile of unsigned bytes, exact 32-bit sums (a warp collective;
   sm_80 and later). Fragments as the PTX ISA lays them out, g = lane / 4, t = lane % 4:
   byte j of a[q]: A row g + 8 (q & 1), column 4t + 16 (q >> 1) + j; byte j of b[q]: B row
   4t + 16q + j, column g; c[q], d[q]: row g + 8 (q >> 1), column 2t + (q & 1). */
__device__ __forceinline__ void mma_u8(unsigned d[4], const unsigned a[4], const unsigned b[2], const unsigned c[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
#else
    d[0] = c[0]; d[1] = c[1]; d[2] = c[2]; d[3] = c[3];     /* (not used: mgpu.h picks these kernels on sm_80+) */
#endif
}
/* The same for m16n8k16 (half the K, half the tensor pipe's time): a[0], a[1] and b[0] as
   the first registers of mma_u8's fragments (A columns and B rows 4t .. 4t + 3). */
__device__ __forceinline__ void mma_u8_k16(unsigned d[4], const unsigned a[2], unsigned b, const unsigned c[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
#else
    d[0] = c[0]; d[1] = c[1]; d[2] = c[2]; d[3] = c[3];
#endif
}
#endif

/* The two ring slot pairs that hold the blocks of rows s - 1, s, s + 1 when block s is in slot
   ph of a ring of nb slots: the rows within 7 of step s's outputs, all that the high weight
   bytes reach (the vertical wh product takes these 32 rows alone). */
__host__ __device__ constexpr int wh_pair(int ph, int q, int nb)
{
    return nb == 4 ? q : q ? (ph + 1) % nb / 2 : (ph + nb - 1) % nb / 2;     /* (4: every pair, in order) */
}

template <int C, int RMAX, int NT, int WARPS, int NSTG, int SB>
__device__ __forceinline__ void mma(const args &a)
{
    enum {
        NTH = WARPS * 32,
        BA = RMAX <= 8 ? 1 : 2,                     /* blocks of 8 rows a step's outputs reach on each side */
        NB = 2 * BA + 2,                            /* ring slots (8 rows each; 2 BA + 1 read a step): K = 8 NB rows */
        NP = NB / 2,                                /* slot pairs */
        KC = (NB + 3) / 4,                          /* vertical K chunks of 32 rows (the last of 16 if NB % 4) */
        PL = C == 4 && NT == 4,                     /* RGBA, radius <= 8: a tile is 16 pixels of one channel (planar) */
        P2 = C == 4 && NT == 2,                     /* RGBA, radius <= 16: a tile is 8 pixels of two channels */
        TRN = PL || P2,                             /* a lane transposes its pixels' bytes into channel words */
        WC = TRN ? 1 : C,                           /* the window's step between values of a channel */
        HW = PL ? 2 : P2 ? 4 : (RMAX * C + 7) / 8 * 2,  /* a tile's window: 4 HW bytes a side (TRN: pixels) ... */
        NKC = P2 ? (8 + 8 * HW + 15) / 16           /* ... in NKC chunks of 32 K slots: P2 16 pixels of 2 channels, */
                 : (16 + 8 * HW + 31) / 32,         /* else 32 bytes (PL: pixels) */
        NM = NT + 2 * NKC - 2,                      /* 8-byte words a lane loads per step (16 bytes apart) */
        /* The high weight bytes wh reach 7 values a side (TRN: pixels): NKH chunks of K slots
           from window value HOFF, where fewer than NKC (a chunk of 32 bytes from byte HOFF,
           a multiple of 8, or P2's chunks from HOFF / 16), else the NKC chunks as wl */
        CU = P2 ? 16 : 32,                          /* window values a chunk */
        HLO = 4 * HW - 7 * (TRN ? 1 : C) > 0 ? 4 * HW - 7 * (TRN ? 1 : C) : 0,
        HHI = 4 * HW + (P2 ? 8 : 16) + 7 * (TRN ? 1 : C),
        HOFF0 = TRN ? HLO / CU * CU : HLO / 8 * 8,
        NKH0 = (HHI - HOFF0 + CU - 1) / CU,
        NKH = NKH0 < NKC ? NKH0 : NKC,
        HOFF = NKH0 < NKC ? HOFF0 : 0,
        HB = (RMAX * C + 15) / 16 * 16,             /* halo bytes a side the stage rows hold */
        SEG = WARPS * NT * 16,                      /* a block's bytes of a row */
        WLB = TRN ? 16 * HW : 4 * HW,               /* bytes of a window left of its outputs, */
        WB = PL ? 128 : P2 ? 64 * NKC : 32 * NKC,   /* a window's bytes, */
        TB = TRN ? 16 * NT : 16,                    /* the outputs' bytes */
        HBR0 = WB - WLB - TB > HB ? WB - WLB - TB : HB,
        HBR = (HBR0 + 15) / 16 * 16,                /* the row's bytes right of the segment the windows reach */
        RP0 = HB + SEG + HBR,
        RU = PL ? 16 : P2 ? 64 : 32,                /* stage row pitch: an odd number of RU-byte units (a quarter */
        RP = (RP0 + RU - 1) / (2 * RU) * (2 * RU) + RU,     /* warp's 16-byte loads span 2 RU: no bank conflicts) */
        NCH = (SEG + 2 * HB) / 16,                  /* chunks copied per row */
        CPT = (8 * NCH + NTH - 1) / NTH,            /* copies per thread and step */
        OS = NT * 16 + 16,                          /* output tile row pitch (banks) */
        NFIX = (2 * RMAX * C + NTH - 1) / NTH       /* border values per thread (edge blocks) */
    };
    static_assert(8 * NT <= 32 && RMAX <= 8 * BA, "mma: a lane per output chunk");
    static_assert(NB % SB == 0 && NSTG % SB == 0 && NSTG >= 2 * SB, "mma: blocks per barrier");
    static_assert(TRN || (HOFF / 8 + 4 * NKH - 3) / 2 + NT <= NM, "mma: the wh chunks' words are loaded");
    __shared__ uint4 stage[NSTG][8 * RP / 16];
    __shared__ uint4 hwt[NKC + NKH][32];            /* T fragments: [wl chunk j | NKC + wh chunk k][lane] */
    __shared__ uint2 vwt[NB][KC + 1][32];           /* V fragments: [phase][wl chunk c | KC: wh][lane] */
    __shared__ uint4 otile[WARPS][TRN ? 1 : 8 * OS / 16];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(MGPU_BLUR_EMU)
    return;                                         /* no int8 m16n8k32: mgpu.h picks these kernels on sm_80+ */
#endif
    const int tid = threadIdx.x, lane = tid & 31, wib = tid >> 5, g = lane >> 2, t = lane & 3;
    const int rowlen = a.width * C, r = a.radius, height = a.height, border = a.border;
    const int nsegs = (rowlen + SEG - 1) / SEG;
    const int nstrips = (a.y_end - a.y_begin + a.strip - 1) / a.strip;
    if ((long long)blockIdx.x >= (long long)nsegs * nstrips) return;    /* whole blocks only */
    const int sb = (int)(blockIdx.x % nsegs) * SEG;
    const int ys = a.y_begin + (int)(blockIdx.x / nsegs) * a.strip;
    const int ye = min(ys + a.strip, a.y_end);
    const int nsteps = (ye - ys + 7) / 8, niter = nsteps + 2 * BA;   /* step s = i - 2 BA outputs rows ys + 8s .. + 7 */
    const bool edge = sb - HB < 0 || sb + SEG + HB > rowlen;         /* block-uniform */
    const unsigned cword = tr<unsigned char>::cword(a);
    const unsigned long long sp = a.spitch;
    const unsigned long long gbase = a.src + (unsigned long long)((long long)sb - HB - (long long)a.src_row0 * (long long)sp);
    unsigned char *const st0 = (unsigned char *)&stage[0][0];
    int crow[CPT], coff[CPT];                       /* this thread's copies: row of the block, byte in the row */
    bool cok[CPT];
    int fdst[NFIX], fsrc[NFIX];                     /* its border values: offsets in a stage row (-1: none), sources (-1: the constant) */

    /* the weight fragments */
    for (int e = tid; e < (NKC + NKH) * 32; e += NTH) {
        const int part = e / 32 >= NKC, j = part ? e / 32 - NKC : e / 32, l = e % 32, lg = l >> 2, lt = l & 3;
        const int u0 = (part ? HOFF / 8 : 0) + 4 * j;   /* not P2: lane lt takes the word u0 + (lt ^ (u0 & 1)) (wl: u0 even) */
        unsigned w4[4];
        for (int q = 0; q < 4; q++) {
            w4[q] = 0u;
            for (int b = 0; b < 4; b++) {       /* T row lg + 8 (q & 1), K slot 4 lt + 16 (q >> 1) + b: */
                int d = 0;                      /* the distance from the output to the window's value */
                bool on = true;
                if (P2) {                       /* output pixel lg, channel q & 1; pixel 4 lt + 2 (q >> 1) + (b & 1), channel b >> 1 */
                    d = (part ? HOFF : 0) + 16 * j + 4 * lt + 2 * (q >> 1) + (b & 1) - 4 * HW - lg;
                    on = (b >> 1) == (q & 1);
                } else {                        /* output 2 lg + (q & 1); window value 8 word + 4 (q >> 1) + b (PL: pixels) */
                    d = -4 * HW + 8 * (u0 + (lt ^ (u0 & 1))) + 4 * (q >> 1) + b - 2 * lg - (q & 1);
                    on = d % WC == 0;
                }
                const int ad = d < 0 ? -d : d;
                const unsigned w = on && ad / WC <= r ? a.wi[ad / WC] : 0u;
                w4[q] |= (part ? w >> 8 : w & 255u) << (8 * b);
            }
        }
        hwt[part ? NKC + j : j][l] = make_uint4(w4[0], w4[1], w4[2], w4[3]);
    }
    for (int e = tid; e < NB * (KC + 1) * 32; e += NTH) {
        const int ph = e / ((KC + 1) * 32), c = e / 32 % (KC + 1), part = c == KC, l = e % 32, lg = l >> 2, lt = l & 3;
        unsigned w2[2];
        for (int q = 0; q < 2; q++) {
            w2[q] = 0u;
            for (int b = 0; b < 4; b++) {           /* wh: K slots 16 q .. + 15 are the pair wh_pair(ph, q) */
                const int slot = part ? 2 * wh_pair(ph, q, NB) + (b >> 1) : 4 * c + 2 * q + (b >> 1), rin = 2 * lt + (b & 1);
                const int jr = BA - (ph + BA - slot + 2 * NB) % NB;     /* the slot's block of rows, relative to the step */
                const int d = 8 * jr + rin - lg, ad = d < 0 ? -d : d;
                const unsigned w = slot < NB && ad <= r ? a.wi[ad] : 0u;
                w2[q] |= (part ? w >> 8 : w & 255u) << (8 * b);
            }
        }
        vwt[ph][c][l] = make_uint2(w2[0], w2[1]);
    }
#pragma unroll
    for (int c = 0; c < CPT; c++) {
        const int k = tid + NTH * c, off = sb - HB + 16 * (k % NCH);
        crow[c] = k < 8 * NCH ? k / NCH : -1;
        coff[c] = 16 * (k % NCH);
        cok[c] = off >= 0 && off < rowlen;
    }
#pragma unroll
    for (int f = 0; f < NFIX; f++) {                /* the r C values before the row and the r C after it */
        const int k = tid + NTH * f, e = k < r * C ? -1 - k : rowlen + (k - r * C);
        fdst[f] = fsrc[f] = -1;
        if (edge && k < 2 * r * C && e - sb + HB >= 0 && e - sb + HB < SEG + 2 * HB) {
            const int s = source_of(a, e, rowlen, r * C, C);
            fdst[f] = e - sb + HB;
            if (s >= 0) fsrc[f] = s - sb + HB;
        }
    }
    /* The block of rows j (rows ys + 8j .. + 7) into its stage ((j + BA) % NSTG); rows the
       strip does not need are not read. Every thread commits one group per block. */
    unsigned long long caddr[CPT];                  /* copy c of the next block's rows: its source (rows inside the image) */
#pragma unroll
    for (int c = 0; c < CPT; c++)
        caddr[c] = gbase + (unsigned long long)((long long)(ys - 8 * BA + crow[c]) * (long long)sp) + (unsigned)coff[c];
    const auto issue = [&](int j) {                 /* j: -BA, -BA + 1, .. in turn */
        const int y0 = ys + 8 * j;
        unsigned char *const st = st0 + (j + BA) % NSTG * (8 * RP);
        /* the common case, 8 needed rows of the image: one test for the block (gray 1.07x, planar
           RGBA 1.03x on an H200; not for RGBA at radius > 8: 0.95x with interleaved tiles, where
           ptxas then spilled more, 0.99-1.00x with P2) */
        if ((C != 4 || PL) && j < nsteps + BA && y0 >= ys - r && y0 + 8 <= ye + r && y0 >= 0 && y0 + 8 <= height) {
#pragma unroll
            for (int c = 0; c < CPT; c++)
                if (c < CPT - 1 || crow[c] >= 0) cp16z<MGPU_BLUR_RING_CACHE>(to_sptr(st + crow[c] * RP + coff[c]), caddr[c], cok[c]);
        } else if (j < nsteps + BA) {
#pragma unroll
            for (int c = 0; c < CPT; c++) {
                const int yi = y0 + crow[c];
                if (crow[c] < 0 || yi < ys - r || yi >= ye + r) continue;
                const sptr s = to_sptr(st + crow[c] * RP + coff[c]);
                if ((unsigned)yi < (unsigned)height) {
                    cp16z<MGPU_BLUR_RING_CACHE>(s, caddr[c], cok[c]);
                    continue;
                }
                const int m = map(yi, height, border);      /* rare: past the image's top or bottom */
                if (m < 0) sts16(s, cword);
                else cp16z<MGPU_BLUR_RING_CACHE>(s, gbase + (unsigned long long)((long long)m * (long long)sp) + (unsigned)coff[c], cok[c]);
            }
        }
#pragma unroll
        for (int c = 0; c < CPT; c++) caddr[c] += 8 * sp;
        cp_commit();
    };
    for (int j = -BA; j < NSTG - SB - BA; j++) issue(j);

    unsigned ring[NT][NP][2][3];                    /* [tile][slot pair][D row half ch][byte plane]: H fragments */
#pragma unroll
    for (int i = 0; i < NT; i++)
#pragma unroll
        for (int q = 0; q < NP; q++)
#pragma unroll
            for (int ch = 0; ch < 2; ch++)
#pragma unroll
                for (int p = 0; p < 3; p++) ring[i][q][ch][p] = 0u;
    const int wcol = sb + wib * NT * 16;            /* this warp's first column */
    unsigned char *const ot = (unsigned char *)&otile[wib][0];
    const int orow = TRN ? 2 * t : lane / NT, ocb = PL ? 8 * g : P2 ? 4 * g : 16 * (lane % NT);  /* this lane's output row and byte */
    unsigned long long daddr = a.dst + (unsigned long long)((long long)(ys - a.y_begin + orow) * (long long)a.dpitch + wcol + ocb);
    const bool ocol = (TRN || lane < 8 * NT) && wcol + ocb < rowlen;

    for (int base = 0; base < niter; base += NB) {
#pragma unroll
        for (int jj = 0; jj < NB; jj++) {
            const int i = base + jj, s = i - 2 * BA;   /* step s: computes the block of rows s + BA */
            if (i < niter) {
                const int slot = (jj + NB - BA) % NB, ph = (jj + 2 * NB - 2 * BA) % NB;   /* (base % NB == 0) */
                const unsigned char *const st = st0 + (unsigned)i % NSTG * (8 * RP);
                if (jj % SB == 0) {
                    cp_wait<NSTG - 2 * SB>();       /* this thread's copies of blocks s + BA .. + SB - 1 landed */
                    __syncthreads();                /* everyone's; and every read of the stages refilled next */
                    if (edge) {                     /* the SB stages' 8 SB rows, adjacent: i % SB == 0, NSTG % SB == 0 */
                        unsigned char *const sw = (unsigned char *)st;
#pragma unroll
                        for (int f = 0; f < NFIX; f++)
                            if (fdst[f] >= 0) {
#pragma unroll
                                for (int rr = 0; rr < 8 * SB; rr++)
                                    sw[rr * RP + fdst[f]] = fsrc[f] >= 0 ? sw[rr * RP + fsrc[f]] : (unsigned char)cword;
                            }
                    }
                    if (edge) __syncthreads();
#pragma unroll
                    for (int u = 0; u < SB; u++) issue(s + BA + NSTG - SB + u);
                }
                /* horizontal pass of rows 8(s + BA) .. + 7 into ring slot `slot` */
                uint2 x[NM];                        /* X fragments: bytes 16m + 8t .. + 7 of the windows' row g; */
                unsigned xc[4][2];                  /* PL: channel c of the window's pixels 8t .. + 3, 8t + 4 .. + 7; */
                unsigned xp[NKC][4];                /* P2: chunk j's pixels 16j + 4t .. + 3, bytes 0, 1 | 2, 3 (2 words each) */
                if constexpr (P2) {
                    const uint4 *const xr = (const uint4 *)(st + g * RP + HB + (wcol - sb) - 16 * HW) + t;
#pragma unroll
                    for (int j = 0; j < NKC; j++) { /* 2 pixels' bytes 0, 1 (or 2, 3) in a word: 4 permutes, not 8 */
                        const uint4 w = xr[4 * j];
                        xp[j][0] = __byte_perm(w.x, w.y, 0x5140);
                        xp[j][1] = __byte_perm(w.z, w.w, 0x5140);
                        xp[j][2] = __byte_perm(w.x, w.y, 0x7362);
                        xp[j][3] = __byte_perm(w.z, w.w, 0x7362);
                    }
                } else if constexpr (PL) {
                    const uint4 *const xr = (const uint4 *)(st + g * RP + HB + (wcol - sb) - 16 * HW) + 2 * t;
#pragma unroll
                    for (int u = 0; u < 2; u++) {   /* 4 pixels (words) to 4 channels (words): a byte transpose */
                        const uint4 w = xr[u];
                        const unsigned lo = __byte_perm(w.x, w.y, 0x5140), hi = __byte_perm(w.x, w.y, 0x7362);
                        const unsigned lo2 = __byte_perm(w.z, w.w, 0x5140), hi2 = __byte_perm(w.z, w.w, 0x7362);
                        xc[0][u] = __byte_perm(lo, lo2, 0x5410);
                        xc[1][u] = __byte_perm(lo, lo2, 0x7632);
                        xc[2][u] = __byte_perm(hi, hi2, 0x5410);
                        xc[3][u] = __byte_perm(hi, hi2, 0x7632);
                    }
                } else {
                    const uint2 *const xr = (const uint2 *)(st + g * RP + HB + (wcol - sb) - 4 * HW) + t;
#pragma unroll
                    for (int m = 0; m < NM; m++) x[m] = xr[2 * m];
                }
#pragma unroll
                for (int ti = 0; ti < NT; ti++) {
                    unsigned dl[4] = { 0u, 0u, 0u, 0u }, dh[4] = { 0u, 0u, 0u, 0u }, h[4];
#pragma unroll
                    for (int j = 0; j < NKC; j++) {
                        const uint4 al = hwt[j][lane];
                        const unsigned fl[4] = { al.x, al.y, al.z, al.w };
                        const unsigned xb[2] = { P2 ? xp[j][2 * ti] : PL ? xc[ti][0] : x[ti + 2 * j].x,
                                                 P2 ? xp[j][2 * ti + 1] : PL ? xc[ti][1] : x[ti + 2 * j].y };
                        mma_u8(dl, fl, xb, dl);
                    }
#pragma unroll
                    for (int k = 0; k < NKH; k++) {
                        const uint4 ah = hwt[NKC + k][lane];
                        const unsigned fh[4] = { ah.x, ah.y, ah.z, ah.w };
                        const int U0 = HOFF / 8 + 4 * k, JH = HOFF / CU + k;
                        /* not TRN: the words U0 .. U0 + 3 of the window, lane t's U0 + (t ^ (U0 & 1)) */
                        const uint2 xw = U0 % 2 && t % 2 == 0 ? x[ti + (U0 + 1) / 2] : x[ti + U0 / 2];
                        const unsigned xb[2] = { P2 ? xp[JH][2 * ti] : PL ? xc[ti][0] : xw.x,
                                                 P2 ? xp[JH][2 * ti + 1] : PL ? xc[ti][1] : xw.y };
                        mma_u8(dh, fh, xb, dh);
                    }
#pragma unroll
                    for (int q = 0; q < 4; q++) h[q] = dl[q] + (dh[q] << 8);
#pragma unroll
                    for (int ch = 0; ch < 2; ch++) {    /* column 2g + ch: rows 2t, 2t + 1 in h[2ch], h[2ch + 1] */
                        const unsigned x01 = __byte_perm(h[2 * ch], h[2 * ch + 1], 0x5140);   /* planes 0 and 1 */
                        const unsigned x2 = __byte_perm(h[2 * ch], h[2 * ch + 1], 0x5162);    /* plane 2 */
                        unsigned *const f = ring[ti][slot / 2][ch];
                        if (slot % 2) {             /* an odd slot: the pair's even slot holds rows still needed, merge */
                            f[0] = __byte_perm(f[0], x01, 0x5410);
                            f[1] = __byte_perm(f[1], x01, 0x7610);
                            f[2] = __byte_perm(f[2], x2, 0x5410);
                        } else {                    /* an even slot: the odd one holds block s + BA + 1 - NB, which the
                                                       steps meet with zero weights until the next step refills it */
                            f[0] = x01;
                            f[1] = __byte_perm(h[2 * ch], h[2 * ch + 1], 0x5151);
                            f[2] = x2;
                        }
                    }
                }
                if (s >= 0) {                       /* vertical pass: output rows ys + 8s .. + 7 */
                    unsigned vb[NT][4];
#pragma unroll
                    for (int ti = 0; ti < NT; ti++) {
                        /* E_p: wl . plane p over every slot, then E_(p+1): wh . plane p over the pairs
                           wh_pair(ph, 0) and (ph, 1) (the order up to radius 8, where those are all) */
                        unsigned e[4][4] = { { 1u << 23, 1u << 23, 1u << 23, 1u << 23 } };
                        uint2 bw[KC + 1];
#pragma unroll
                        for (int c = 0; c <= KC; c++) bw[c] = vwt[ph][c][lane];
#pragma unroll
                        for (int p = 0; p < 3; p++) {
#pragma unroll
                            for (int c = 0; c < KC; c++) {
                                unsigned hp[4];     /* plane p of H: fragment register q = (pair 2c + (q >> 1), row half q & 1) */
#pragma unroll
                                for (int q = 0; q < 4; q++) hp[q] = 2 * c + (q >> 1) < NP ? ring[ti][2 * c + (q >> 1)][q & 1][p] : 0u;
                                const unsigned bl[2] = { bw[c].x, bw[c].y };
                                if (4 * c + 4 <= NB) mma_u8(e[p], hp, bl, e[p]);
                                else mma_u8_k16(e[p], hp, bl[0], e[p]);     /* the last pair alone: K = 16 */
                            }
                            unsigned hq[4];
#pragma unroll
                            for (int q = 0; q < 4; q++) hq[q] = ring[ti][wh_pair(ph, q >> 1, NB)][q & 1][p];
                            const unsigned bh[2] = { bw[KC].x, bw[KC].y };
                            mma_u8(e[p + 1], hq, bh, e[p + 1]);
                        }
                        unsigned *const v = vb[ti];
#pragma unroll
                        for (int q = 0; q < 4; q++) v[q] = (((((e[3][q] << 8) + e[2][q]) << 8) + e[1][q]) << 8) + e[0][q];
                        /* bytes 3: columns 2g, 2g + 1 of rows 2t (v[0], v[2]) and 2t + 1 (v[1], v[3]) */
                        if constexpr (!TRN) {
                            *(unsigned short *)(ot + 2 * t * OS + 16 * ti + 2 * g) = (unsigned short)__byte_perm(v[0], v[2], 0x0073);
                            *(unsigned short *)(ot + (2 * t + 1) * OS + 16 * ti + 2 * g) = (unsigned short)__byte_perm(v[1], v[3], 0x0073);
                        }
                    }
                    if constexpr (PL) {             /* pixels 2g, 2g + 1 of rows 2t, 2t + 1: bytes 3 of the 4 channels' v */
                        unsigned o[4];
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            o[q] = __byte_perm(__byte_perm(vb[0][q], vb[1][q], 0x0073), __byte_perm(vb[2][q], vb[3][q], 0x0073), 0x5410);
                        const int y = ys + 8 * s + 2 * t;
                        st8(daddr, make_uint2(o[0], o[2]), ocol && y < ye);
                        st8(daddr + a.dpitch, make_uint2(o[1], o[3]), ocol && y + 1 < ye);
                    } else if constexpr (P2) {      /* pixel g of rows 2t, 2t + 1: bytes 3 of channels 0, 1 (v[0 | 1], v[2 | 3]) and 2, 3 */
                        const int y = ys + 8 * s + 2 * t;
#pragma unroll
                        for (int q = 0; q < 2; q++)
                            st4(daddr + q * a.dpitch, __byte_perm(__byte_perm(vb[0][q], vb[0][q + 2], 0x0073),
                                                                  __byte_perm(vb[1][q], vb[1][q + 2], 0x0073), 0x5410), ocol && y + q < ye);
                    } else {
                        __syncwarp();
                        if (ocol && ys + 8 * s + lane / NT < ye) {
                            const uint4 o = *(const uint4 *)(ot + lane / NT * OS + 16 * (lane % NT));
                            st16<0>(daddr, o, true);
                        }
                        __syncwarp();
                    }
                    daddr += 8ull * a.dpitch;
                }
            }
        }
    }
    cp_wait<0>();                                   /* (the empty groups past the strip) */
}


/* ---- images: CUDA arrays through surface objects (mgpu_blur_img_f32c4) -------------------
   mgpu_external_image_blur_async's one-pass kernel for optimal-tiled images (CUDA arrays
   mapped from graphics memory, created with surface load/store), written for 8-bit and f32
   values with C = 1, 2, 4 channels, radius 0..16, built only for f32 RGBA (below):
   wide<>'s scheme over pixels. A block owns a tile of IMG_TX pixels of a strip of rows
   (tile_item over pixels); its IMG_TX x IMG_B threads stage g.rows = B input rows at a time
   (IMG_TX + 2r pixels each, read by surf2Dread as one raw word of C values, under the border
   rule; at most K per thread, all loaded into registers while the previous batch is
   filtered, then stored to shared memory), barrier, filter them horizontally (one pixel column a thread, B / IMG_B rows) into a
   shared ring of 2r + B rows, barrier, and filter the outputs vertically and write them with
   surf2Dwrite. Shared memory, planar per channel (a warp reads 32 consecutive words: no bank
   conflicts): 4 * (IMG_SW + C * (B * (IMG_TX + 2r) + (2r + B) * IMG_TX)) bytes; mgpu.h picks
   the largest B of 32, 16, 8, 4 within 48 KiB and with B (IMG_TX + 2r) <= K * IMG_TX * IMG_B
   (4 fits both for every C at radius 16).
   The arithmetic is tr<T>'s in fast<>'s order: the CPU device's bits. src and dst are two
   arrays (a block reads its neighbours' pixels, which in place they may have written).
   On an H200 (8K RGBA, radius 2) it took 0.69 ms for 8-bit pixels and 0.74 for f32 (bound by
   its instructions), the copy path (mgpu_img_read, a buffer blur, mgpu_img_write) 0.29 and
   0.83; at radius 8 0.33 and 0.91 against its 1.40 and 1.46: mgpu.h takes it only for f32
   RGBA at radius <= 2 (8-bit images at radius <= 2 take imgpipe below), the rest (in place
   too) through the copy path. */
#define MGPU_BLUR_IMG_TX 64                 /* pixels per tile row */
#define MGPU_BLUR_IMG_B 4                   /* rows per batch: IMG_TX * IMG_B threads */
#define MGPU_BLUR_IMG_SW 20                 /* shared words of weights before the buffers */
#define MGPU_BLUR_IMG_R 16                  /* the largest radius */

struct img {                                /* = mgpu__blur_img in mgpu.h (the second argument) */
    unsigned long long src, dst;            /* surface objects of two arrays */
    int rows;                               /* rows per batch: a multiple of IMG_B */
    int reserved[3];
};
template <int B> struct rawpx;              /* a pixel of B bytes as one surface word */
template <> struct rawpx<1> { typedef unsigned char t; };
template <> struct rawpx<2> { typedef unsigned short t; };
template <> struct rawpx<4> { typedef unsigned t; };
template <> struct rawpx<8> { typedef uint2 t; };
template <> struct rawpx<16> { typedef uint4 t; };

template <typename T, int C>
__device__ __forceinline__ void img_unpack(const typename rawpx<C * sizeof(T)>::t &v, unsigned w[C])
{
    unsigned u[C > 1 && sizeof(T) == 4 ? C : 1];
    if (sizeof(T) == 1) {
        unsigned b = 0u;
        memcpy(&b, &v, C);
#pragma unroll
        for (int c = 0; c < C; c++) w[c] = (b >> (8 * c)) & 255u;
    } else {
        memcpy(u, &v, sizeof v);
#pragma unroll
        for (int c = 0; c < C; c++) w[c] = u[sizeof(T) == 4 ? c : 0];
    }
}
template <typename T, int C>
__device__ __forceinline__ typename rawpx<C * sizeof(T)>::t img_pack(const typename tr<T>::acc o[C])
{
    typename rawpx<C * sizeof(T)>::t v;
    if (sizeof(T) == 1) {
        unsigned b = 0u;
#pragma unroll
        for (int c = 0; c < C; c++) b |= ((unsigned)o[c] >> 24) << (8 * c);
        memcpy(&v, &b, sizeof v);
    } else memcpy(&v, o, sizeof v);
    return v;
}

template <typename T, int C>
__device__ __forceinline__ void image(const args &a, const img &g)
{
    typedef tr<T> TR;
    typedef typename TR::acc A;
    typedef typename rawpx<C * sizeof(T)>::t P;
    enum { TX = MGPU_BLUR_IMG_TX, NT = TX * MGPU_BLUR_IMG_B, RB = NT / TX, PB = C * (int)sizeof(T),
           K = PB >= 8 ? 4 : 8 };                   /* pixels a thread loads per batch (= mgpu.h's rule) */
    const int t = threadIdx.x, x = t % TX, b = t / TX;
    const int r = a.radius, B = g.rows, R = 2 * r + B, IW = TX + 2 * r, W = a.width;
    int x0, ys, ye;
    if (!tile_item(a, W, TX, x0, ys, ye)) return;
    const int w = min(x0 + TX, W) - x0, S = ye - ys;
    A *const sw = (A *)dyn;                         /* weights [r + 1] */
    unsigned *const raw = dyn + MGPU_BLUR_IMG_SW;   /* [C][B][IW]: pixel x0 - r + j of batch row b at [.][b][j] */
    A *const ring = (A *)(raw + C * B * IW);        /* [C][R][TX] */
    const int niter = S + 2 * r;                    /* input rows ys - r .. ye + r - 1: row i is ys - r + i */
    P v[K];                                         /* the next batch's pixels, loaded ahead */
    unsigned from = 0u;                             /* bit k: pixel k is the array's (else the constant) */
    if (t <= r) sw[t] = TR::weight(a, t);
    /* issue: the loads of the batch at i0 into v (B * IW <= K * NT: mgpu.h), not waited for */
#define MGPU_BLUR_IMG_ISSUE(i0) do { \
        const int nq_ = min(B, niter - (i0)) * IW; \
        from = 0u; \
        _Pragma("unroll") \
        for (int k = 0; k < K; k++) { \
            const int q = k * NT + t; \
            if (q < nq_) { \
                const int my = map(ys - r + (i0) + q / IW, a.height, a.border), mx = map(x0 - r + q % IW, W, a.border); \
                if (my >= 0 && mx >= 0) { \
                    v[k] = surf2Dread<P>(g.src, mx * PB, my); \
                    from |= 1u << k; \
                } \
            } \
        } \
    } while (0)
    MGPU_BLUR_IMG_ISSUE(0);
    for (int i0 = 0; i0 < niter; i0 += B) {
        const int nq = min(B, niter - i0) * IW;
#pragma unroll
        for (int k = 0; k < K; k++) {               /* the batch's pixels into shared memory */
            const int q = k * NT + t;
            unsigned wd[C];
            if (q >= nq) continue;
            if ((from >> k) & 1u) img_unpack<T, C>(v[k], wd);
            else {
#pragma unroll
                for (int c = 0; c < C; c++) wd[c] = sizeof(T) == 1 ? (unsigned)a.cval_u8 : __float_as_uint(a.cval_f32);
            }
#pragma unroll
            for (int c = 0; c < C; c++) raw[(c * B + q / IW) * IW + q % IW] = wd[c];
        }
        __syncthreads();
        if (i0 + B < niter) MGPU_BLUR_IMG_ISSUE(i0 + B);   /* in flight during this batch's passes */
        for (int bb = b; bb < B && i0 + bb < niter; bb += RB) {   /* horizontal pass: input row i0 + bb, pixel x */
            const int slot = (i0 + bb) % R;
#pragma unroll
            for (int c = 0; c < C; c++) {
                const unsigned *const m = raw + (c * B + bb) * IW + r + x;
                A acc = TR::first(sw[0], (A)TR::elem(m[0], 0));
                for (int k = 1; k <= r; k++) acc = TR::pair(acc, sw[k], (A)TR::elem(m[-k], 0), (A)TR::elem(m[k], 0));
                ring[(c * R + slot) * TX + x] = acc;
            }
        }
        __syncthreads();
        for (int bb = b; bb < B; bb += RB) {        /* vertical pass: output row ys + o */
            const int o = i0 + bb - 2 * r;
            if (o < 0 || o >= S || x >= w) continue;
            A out[C];
#pragma unroll
            for (int c = 0; c < C; c++) {
                const A *const col = ring + c * R * TX + x;
                int s1 = (o + r) % R, s2 = s1;
                A acc = TR::vfirst(sw[0], col[s1 * TX]);
                for (int k = 1; k <= r; k++) {
                    s1 = s1 == 0 ? R - 1 : s1 - 1;
                    s2 = s2 == R - 1 ? 0 : s2 + 1;
                    acc = TR::pair(acc, sw[k], col[s1 * TX], col[s2 * TX]);
                }
                out[c] = acc;
            }
            surf2Dwrite<P>(img_pack<T, C>(out), g.dst, (x0 + x) * PB, ys + o);
        }
    }
#undef MGPU_BLUR_IMG_ISSUE
}

/* ---- image copies: a CUDA array <-> pitch-linear memory (mgpu_img_read, mgpu_img_write) ----
   The copy path of mgpu_external_image_blur_async (and mgpu_external_image_read_async /
   _write_async) for an image with a surface object, in place of cuMemcpy2DAsync, which moves
   an array at about a third of the device's bandwidth (827 GB/s on an H200, 8K RGBA). Any
   pixel size PB of 1, 2, 4, 8, 16 bytes: a thread moves 16 bytes (16 / PB pixels, read or
   written by surf2Dread / surf2Dwrite one pixel at a time, the surface's element) of each of
   IMG_CY rows, its 16 bytes of linear memory by one vector load or store (lin and pitch are
   16-byte aligned: mgpu.h checks), all its loads issued before its stores. A block's 256
   threads are IMG_WX(PB) across and 256 / IMG_WX down: for pixels below 16 bytes 4 across,
   so that a warp covers 64 bytes of 8 rows, one of the array's 64 x 8 byte blocks (GOBs);
   a warp over 512 bytes of one row wrote at 718 GB/s against 2971 (read 1943 against 3326;
   bench: 8K RGBA8 on an H200); for 16-byte pixels 8 across (4025 GB/s written, 4 across
   3865). Row group g of a block: rows g * IMG_CY * (256 / IMG_WX) ..; blockIdx.x = tile +
   tiles * group. */
#define MGPU_IMG_COPY_THREADS 256
#define MGPU_IMG_CY 2                       /* rows a thread moves: 256 / IMG_WX apart */
#define MGPU_IMG_WX(pb) ((pb) == 16 ? 8 : 4)    /* threads across a block: 16 bytes each */

struct imgcopy {                            /* = mgpu__img_copy in mgpu.h (the argument) */
    unsigned long long surf;                /* the array's surface object */
    unsigned long long lin;                 /* pitch-linear memory, 16-byte aligned */
    unsigned long long pitch;               /* its row pitch, a multiple of 16 */
    int width, height, px;                  /* pixels, rows, bytes a pixel (1, 2, 4, 8, 16) */
    int tiles;                              /* blocks across a row: ceil(width * px / (16 * IMG_WX(px))) */
};

template <int PB, bool TO_IMAGE>
__device__ __forceinline__ void imgcopy_px(const imgcopy &g)
{
    typedef typename rawpx<PB>::t P;
    enum { V = 16 / PB, CY = MGPU_IMG_CY, WX = MGPU_IMG_WX(PB), WY = MGPU_IMG_COPY_THREADS / WX };
    const int t = (int)threadIdx.x, tile = (int)(blockIdx.x % (unsigned)g.tiles), grp = (int)(blockIdx.x / (unsigned)g.tiles);
    const int x = (tile * WX + t % WX) * V, y0 = grp * WY * CY + t / WX;
    if (x >= g.width) return;
    const int n = min(V, g.width - x);              /* pixels of this thread's 16 bytes in the row */
    unsigned char *const base = (unsigned char *)g.lin + (size_t)x * PB;
    P v[CY][V];
    if (TO_IMAGE) {
#pragma unroll
        for (int j = 0; j < CY; j++) {
            const int y = y0 + WY * j;
            const unsigned char *const p = base + (size_t)y * g.pitch;
            if (y >= g.height) continue;
            if (n == V) {
                const uint4 q = *(const uint4 *)p;
                memcpy(v[j], &q, 16);
            } else {
#pragma unroll
                for (int k = 0; k < V; k++)
                    if (k < n) memcpy(&v[j][k], p + k * PB, PB);
            }
        }
#pragma unroll
        for (int j = 0; j < CY; j++) {
            const int y = y0 + WY * j;
            if (y >= g.height) continue;
#pragma unroll
            for (int k = 0; k < V; k++)
                if (k < n) surf2Dwrite<P>(v[j][k], g.surf, (x + k) * PB, y);
        }
    } else {
#pragma unroll
        for (int j = 0; j < CY; j++) {
            const int y = y0 + WY * j;
            if (y >= g.height) continue;
#pragma unroll
            for (int k = 0; k < V; k++)
                if (k < n) v[j][k] = surf2Dread<P>(g.surf, (x + k) * PB, y);
        }
#pragma unroll
        for (int j = 0; j < CY; j++) {
            const int y = y0 + WY * j;
            unsigned char *const p = base + (size_t)y * g.pitch;
            if (y >= g.height) continue;
            if (n == V) {
                uint4 q;
                memcpy(&q, v[j], 16);
                *(uint4 *)p = q;
            } else {
#pragma unroll
                for (int k = 0; k < V; k++)
                    if (k < n) memcpy(p + k * PB, &v[j][k], PB);
            }
        }
    }
}
template <bool TO_IMAGE>
__device__ __forceinline__ void imgcopy_run(const imgcopy &g)
{
    switch (g.px) {
    case 1: imgcopy_px<1, TO_IMAGE>(g); break;
    case 2: imgcopy_px<2, TO_IMAGE>(g); break;
    case 4: imgcopy_px<4, TO_IMAGE>(g); break;
    case 8: imgcopy_px<8, TO_IMAGE>(g); break;
    default: imgcopy_px<16, TO_IMAGE>(g); break;
    }
}

/* ---- 8-bit images in one pass (mgpu_blur_imgp_u8c<C>, C = 1, 2, 4; radius <= 2; mgpu_img_frame) ----
   mgpu_external_image_blur_async's kernel for 8-bit optimal-tiled images (CUDA arrays with a
   surface object) whose rows are whole 16-byte chunks: pipe<>'s arithmetic (the register
   ring of horizontal rows, dp2a for 1 and 4 channels) over a warp's (segment, strip) item,
   the rows reaching the warp through the surface in the array's own order. The array is
   block-linear (64-byte x 8-row blocks, 32-byte sectors of 16 bytes x 2 rows): a surface
   access of a warp along one row fills half-sectors and runs at a quarter of the speed, so
   every surface load and store here is 16 bytes of one lane (SOP = 16: one surf2Dread of a
   uint4; SOP = the pixel size: 16 / SOP surface words) with the warp's lanes on 16 chunks x
   2 rows, whole sectors. A unit = one such load: chunks k*16 .. k*16+15 of the segment's
   32, rows 2q and 2q+1 of the strip's input rows (unit 2q + k); the warp keeps NR = 5
   units in flight in registers, moves each into a shared stage of two row pairs (a lane
   then reads its own chunk and the 8 halo bytes each side, as in pipe<>), and the output
   rows go out by pairs through a shared stage too, as whole sectors. A segment is 32
   chunks of which the first and last are only read (its halo): 30 output chunks, 480 bytes.
   Strips start at even rows (a->strip is even) so that pairs are sectors.
   In place (g.frame != 0, src == dst), a warp must not read what another warp has already
   written: mgpu_img_frame first saves every item's out-of-item input, the 4 rows around each
   strip (rows ys-2, ys-1, ye, ye+1 under the border rule; frame row 4 * strip + j) and the
   two halo chunks of each segment over every row (g.cols: chunk 30s-1 and 30s+30 of row y at
   ((2s + side) * height + y) * 16), and the kernel reads those from there; its own rows it
   reads before it writes them. */
#define MGPU_BLUR_IMGP_WARPS 4
#define MGPU_BLUR_IMGP_SEG 30               /* output chunks of a segment */
#define MGPU_IMG_FRAME_THREADS 256

struct imgp {                               /* = mgpu__blur_imgp in mgpu.h (the second argument) */
    unsigned long long src, dst;            /* surface objects (equal in place) */
    unsigned long long frame;               /* in place: the saved rows (else 0) */
    unsigned long long fpitch;              /* their pitch, a multiple of 16 */
    unsigned long long cols;                /* in place: the saved halo chunks */
    int nsegs, nstrips;                     /* segments per row, strips */
};

/* 16 bytes at byte x of row y of a surface: one uint4, or 16 / SOP words of SOP bytes */
template <int SOP>
__device__ __forceinline__ uint4 surf_ld16(unsigned long long s, int x, int y)
{
    uint4 v;
    if (SOP == 16) v = surf2Dread<uint4>(s, x, y);
    else {
        typedef typename rawpx<SOP>::t W;
        W w[16 / SOP];
#pragma unroll
        for (int k = 0; k < 16 / SOP; k++) w[k] = surf2Dread<W>(s, x + k * SOP, y);
        memcpy(&v, w, 16);
    }
    return v;
}
template <int SOP>
__device__ __forceinline__ void surf_st16(uint4 v, unsigned long long s, int x, int y)
{
    if (SOP == 16) surf2Dwrite<uint4>(v, s, x, y);
    else {
        typedef typename rawpx<SOP>::t W;
        W w[16 / SOP];
        memcpy(w, &v, 16);
#pragma unroll
        for (int k = 0; k < 16 / SOP; k++) surf2Dwrite<W>(w[k], s, x + k * SOP, y);
    }
}

template <int C, int SOP, int WARPS>
__device__ __forceinline__ void imgpipe(const args &a, const imgp &g)
{
    typedef tr<unsigned char> TR;
    enum { V = 16, EPW = 4, RC = 2, P = 2 * RC + 1, NR = 5, SEG = MGPU_BLUR_IMGP_SEG };
    static_assert(C == 1 || C == 2 || C == 4, "imgpipe: 1, 2 or 4 channels");
    __shared__ uint4 stage[WARPS][2][2][34];    /* [pair % 2][row of the pair][chunk + 1] */
    __shared__ uint4 ostage[WARPS][2][2][32];   /* [output pair % 2][row of the pair][chunk] */
    __shared__ unsigned hsel[WARPS][2][2][3];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const long long gw = (long long)blockIdx.x * WARPS + wib;
    const int rowlen = a.width * C, nch = rowlen / V, height = a.height, border = a.border;
    const int nsegs = g.nsegs;
    if (gw >= (long long)nsegs * g.nstrips) return; /* whole warps only */
    const int seg = (int)(gw % nsegs), sk = (int)(gw / nsegs);
    const int ys = sk * a.strip, ye = min(ys + a.strip, height);
    const int c0 = seg * SEG - 1;                   /* the segment's chunk 0 (the left halo) */
    /* compute layout: lane = chunk of one row */
    const int gc = c0 + lane;
    const bool out_lane = lane >= 1 && lane <= SEG && gc < nch;
    const bool left = out_lane && gc == 0, right = out_lane && gc == nch - 1;
    const bool edge = seg == 0 || seg == nsegs - 1;     /* warp-uniform */
    /* load layout: lane = (chunk lc + 16k, row lp of a pair) */
    const int lp = lane & 1, lc = lane >> 1;
    const int niter = ye - ys + 2 * RC;             /* input rows ys-2 .. ye+1: row i is ys-2+i */
    const int nunits = 2 * ((niter + 1) >> 1);
    const unsigned cword = TR::cword(a);
    const bool inplace = g.frame != 0ull;
    enum { DP2A = C == 1 || C == 4 };
    const unsigned a21 = a.wi[2] | a.wi[1] << 16, a01 = a.wi[0] | a.wi[1] << 16, a20 = a.wi[2];
    uint4 pre[NR];
    unsigned ring[P][V];

    if (left) {
        halo_selectors<C>(a, -8, 0, rowlen, hsel[wib][0][0]);
        halo_selectors<C>(a, -4, 0, rowlen, hsel[wib][0][1]);
    }
    if (right) {
        halo_selectors<C>(a, rowlen, rowlen - V, rowlen, hsel[wib][1][0]);
        halo_selectors<C>(a, rowlen + 4, rowlen - V, rowlen, hsel[wib][1][1]);
    }
    /* unit n: 16 bytes of chunk lc + 16 (n & 1), input row 2 (n >> 1) + lp */
#define MGPU_BLUR_IMGP_LOAD(n, dstv) do {                                                       \
        const int n_ = (n), ck_ = lc + 16 * (n_ & 1), ri_ = 2 * (n_ >> 1) + lp;                 \
        const int c_ = c0 + ck_, yi_ = ys - RC + ri_;                                           \
        uint4 v_ = make_uint4(0u, 0u, 0u, 0u);                                                  \
        if (ri_ < niter && (unsigned)c_ < (unsigned)nch) {                                      \
            if (inplace && (yi_ < ys || yi_ >= ye)) {                                           \
                const int j_ = yi_ < ys ? yi_ - (ys - RC) : RC + yi_ - ye;                      \
                v_ = __ldg((const uint4 *)(g.frame + (unsigned long long)(4 * sk + j_) * g.fpitch) + c_); \
            } else if (inplace && (ck_ == 0 || ck_ == 31)) {                                    \
                v_ = __ldg((const uint4 *)g.cols + ((long long)(2 * seg + (ck_ == 31)) * height + yi_)); \
            } else {                                                                            \
                const int m_ = map(yi_, height, border);                                        \
                if (m_ < 0) v_ = make_uint4(cword, cword, cword, cword);                        \
                else v_ = surf_ld16<SOP>(g.src, c_ * V, m_);                                    \
            }                                                                                   \
        }                                                                                       \
        dstv = v_;                                                                              \
    } while (0)
#define MGPU_BLUR_IMGP_STAGE(n, v) do {                                                         \
        const int n_ = (n);                                                                     \
        stage[wib][(n_ >> 1) & 1][lp][lc + 16 * (n_ & 1) + 1] = (v);                            \
    } while (0)
    /* output pair p: rows ys + 2p + lp, from ostage[p % 2], whole sectors */
#define MGPU_BLUR_IMGP_FLUSH(p) do {                                                            \
        const int p_ = (p), o_ = ys + 2 * p_ + lp;                                              \
        _Pragma("unroll")                                                                       \
        for (int k_ = 0; k_ < 2; k_++) {                                                        \
            const int ck_ = lc + 16 * k_, c_ = c0 + ck_;                                        \
            if (ck_ >= 1 && ck_ <= SEG && c_ < nch && o_ < ye)                                  \
                surf_st16<SOP>(ostage[wib][p_ & 1][lp][ck_], g.dst, c_ * V, o_);                \
        }                                                                                       \
    } while (0)
#pragma unroll
    for (int u = 0; u < NR; u++) MGPU_BLUR_IMGP_LOAD(u, pre[u]);
    MGPU_BLUR_IMGP_STAGE(0, pre[0]);
    MGPU_BLUR_IMGP_LOAD(NR, pre[0]);
    for (int base = 0; base < niter; base += P) {
#pragma unroll
        for (int j = 0; j < P; j++) {
            const int i = base + j;
            if (i < niter) {                        /* warp-uniform */
                /* unit i + 1 into the stage (units 0 .. i + 1 are there), unit i + 6 issued */
                if (i + 1 < nunits) MGPU_BLUR_IMGP_STAGE(i + 1, pre[(j + 1) % NR]);
                __syncwarp();
                MGPU_BLUR_IMGP_LOAD(i + 1 + NR, pre[(j + 1) % NR]);
                if ((i & 1) == 0 && i >= 6) MGPU_BLUR_IMGP_FLUSH((i >> 1) - 3);
                unsigned cur[4], lw[1][4], rw[1][4];
                {
                    const uint4 *const s = &stage[wib][(i >> 1) & 1][i & 1][lane + 1];
                    const uint4 v = *s;
                    const uint2 l = *((const uint2 *)s - 1), r = *(const uint2 *)(s + 1);
                    cur[0] = v.x; cur[1] = v.y; cur[2] = v.z; cur[3] = v.w;
                    lw[0][0] = lw[0][1] = 0u; lw[0][2] = l.x; lw[0][3] = l.y;
                    rw[0][0] = r.x; rw[0][1] = r.y; rw[0][2] = rw[0][3] = 0u;
                }
                if (edge) {
                    if (left) { lw[0][2] = halo_word(cur, hsel[wib][0][0], cword); lw[0][3] = halo_word(cur, hsel[wib][0][1], cword); }
                    if (right) { rw[0][0] = halo_word(cur, hsel[wib][1][0], cword); rw[0][1] = halo_word(cur, hsel[wib][1][1], cword); }
                }
                if (DP2A) hpass_dp2a<C>(cur, lw[0], rw[0], a21, a01, a20, ring[j]);
                else hpass<TR, V, EPW, C, RC, unsigned>(a, RC, cur, lw, rw, ring[j]);
                if (i >= 2 * RC) {                  /* output row ys + i - 2RC */
                    const int c = (j + P - RC) % P, o = i - 2 * RC;
                    unsigned u[4];
#pragma unroll
                    for (int q4 = 0; q4 < 4; q4++) {
                        unsigned ov[4];
#pragma unroll
                        for (int b = 0; b < 4; b++) {
                            const int q = 4 * q4 + b;
                            unsigned acc = TR::vfirst(TR::weight(a, 0), ring[c][q]);
#pragma unroll
                            for (int k = 1; k <= RC; k++)
                                acc = TR::pair(acc, TR::weight(a, k), ring[(c + P - k) % P][q], ring[(c + k) % P][q]);
                            ov[b] = acc;
                        }
                        u[q4] = __byte_perm(__byte_perm(ov[0], ov[1], 0x0073), __byte_perm(ov[2], ov[3], 0x0073), 0x5410);
                    }
                    ostage[wib][(o >> 1) & 1][o & 1][lane] = make_uint4(u[0], u[1], u[2], u[3]);
                }
            }
        }
    }
    __syncwarp();
    MGPU_BLUR_IMGP_FLUSH((niter - 2 * RC - 1) >> 1);
#undef MGPU_BLUR_IMGP_LOAD
#undef MGPU_BLUR_IMGP_STAGE
#undef MGPU_BLUR_IMGP_FLUSH
}

/* The in-place frame (see imgpipe): thread t saves 16 bytes; the rows first (strip, row pair
   of j, chunk, row: a warp over 16 chunks x 2 rows), then the halo chunks (segment, side,
   row: a warp down 32 rows of one chunk). */
template <int SOP>
__device__ __forceinline__ void imgframe(const args &a, const imgp &g)
{
    enum { V = 16, SEG = MGPU_BLUR_IMGP_SEG };
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int rowlen = a.width * a.channels, nch = rowlen / V, height = a.height;
    const long long nrow = (long long)g.nstrips * 4 * nch, ncol = (long long)g.nsegs * 2 * height;
    if (t < nrow) {
        const int p = (int)(t & 1), c = (int)((t >> 1) % nch);
        const long long rest = (t >> 1) / nch;
        const int jp = (int)(rest & 1), sk = (int)(rest >> 1), j = 2 * jp + p;
        const int ys = sk * a.strip, ye = min(ys + a.strip, height);
        const int yi = j < 2 ? ys - 2 + j : ye + j - 2, m = map(yi, height, a.border);
        const unsigned cw = tr<unsigned char>::cword(a);
        const uint4 v = m < 0 ? make_uint4(cw, cw, cw, cw) : surf_ld16<SOP>(g.src, c * V, m);
        *((uint4 *)(g.frame + (unsigned long long)(4 * sk + j) * g.fpitch) + c) = v;
    } else if (t < nrow + ncol) {
        const long long u = t - nrow;
        const int y = (int)(u % height), side = (int)((u / height) & 1), seg = (int)((u / height) >> 1);
        const int c = side ? seg * SEG + SEG : seg * SEG - 1;
        if ((unsigned)c < (unsigned)nch) *((uint4 *)g.cols + u) = surf_ld16<SOP>(g.src, c * V, y);
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
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_ANY_THREADS, 4) mgpu_blur_u8_any(const mgpu_blr::args a)
{ mgpu_blr::any<unsigned char>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_ANY_THREADS, 4) mgpu_blur_f32_any(const mgpu_blr::args a)
{ mgpu_blr::any<float>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_WIDE_THREADS) mgpu_blur_u8_wide(const mgpu_blr::args a)
{ mgpu_blr::wide<unsigned char>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_WIDE_THREADS) mgpu_blur_f32_wide(const mgpu_blr::args a)
{ mgpu_blr::wide<float>(a); }
#define MGPU_BLUR_TILED(R) \
    extern "C" __global__ void __launch_bounds__(MGPU_BLUR_TILE_THREADS, 4) mgpu_blur_f32_t##R(const mgpu_blr::args a) \
    { mgpu_blr::tiled<R>(a); }
MGPU_BLUR_TILED(9) MGPU_BLUR_TILED(10) MGPU_BLUR_TILED(11) MGPU_BLUR_TILED(12)
MGPU_BLUR_TILED(13) MGPU_BLUR_TILED(14) MGPU_BLUR_TILED(15) MGPU_BLUR_TILED(16)
#undef MGPU_BLUR_TILED
/* The ring kernels: 16 warps per multiprocessor (<= 128 registers); 8-bit at RC = 4 with 8
   values per lane (16 bytes: twice the bytes per row's fixed work), else 4. */
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, 4) mgpu_blur_u8c1_r4(const mgpu_blr::args a)
{ mgpu_blr::ring<unsigned char, 1, 4, 8, MGPU_BLUR_RING_PF8, MGPU_BLUR_RING_WARPS, MGPU_BLUR_RING_VB>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, 4) mgpu_blur_u8c1_r8(const mgpu_blr::args a)
{ mgpu_blr::ring<unsigned char, 1, 8, 4, MGPU_BLUR_RING_PF8, MGPU_BLUR_RING_WARPS, MGPU_BLUR_RING_VB>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, 4) mgpu_blur_u8c3_r4(const mgpu_blr::args a)
{ mgpu_blr::ring<unsigned char, 3, 4, 8, MGPU_BLUR_RING_PF8, MGPU_BLUR_RING_WARPS, MGPU_BLUR_RING_VB>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, 4) mgpu_blur_u8c3_r8(const mgpu_blr::args a)
{ mgpu_blr::ring<unsigned char, 3, 8, 4, MGPU_BLUR_RING_PF8, MGPU_BLUR_RING_WARPS, MGPU_BLUR_RING_VB>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, 4) mgpu_blur_u8c4_r4(const mgpu_blr::args a)
{ mgpu_blr::ring<unsigned char, 4, 4, 8, MGPU_BLUR_RING_PF8, MGPU_BLUR_RING_WARPS, MGPU_BLUR_RING_VB>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, 4) mgpu_blur_u8c4_r8(const mgpu_blr::args a)
{ mgpu_blr::ring<unsigned char, 4, 8, 4, MGPU_BLUR_RING_PF8, MGPU_BLUR_RING_WARPS, MGPU_BLUR_RING_VB>(a); }
/* f32: one ring kernel per radius R = 1..16 and channel count 1 or 4 (compile-time taps: no
   branches on the radius; on an H200, 4K RGBA, 1.3x and 1.08x the speed of one kernel for
   radius 5..8 at radius 5 and 8). Their shapes as measured on an H200 (3840x2160,
   2026-11-27 and -28; blocks per multiprocessor mirrored by mgpu.h's
   mgpu__blur_f32ring_blocks):
   - 1 channel: 4 rows per block (VB); up to radius 8, 4 blocks (<= 128 registers); 9..11,
     3; 12..16, 2.
   - 4 channels: the blocked horizontal pass of 2 pixels a lane (PH = 2, 8 rows in flight),
     VB = 4 and 4 blocks up to radius 8, 3 blocks at 9..13 (VB = 2 at 13: fewer registers
     for the ring, a few words spilled): 1.05-1.19x the row-at-a-time pass at radius 4..13,
     1.01-1.03x at 2; but not at radius 1 and 3 (0.93x and 0.94x in the first trial), which
     keep the row-at-a-time pass (4 blocks). At radius 14..16, 2 blocks with PH = 4 and VB =
     4 (up to 255 registers: the ring of 36 rows without spills; 2026-11-28, against 3
     blocks and VB = 2, which spilled: 1.04x, 1.06x, 1.22x at 14, 15, 16; but 0.93x at 13,
     as PH = 2 with VB = 4; VB = 8: 0.79-0.96x). */
#define MGPU_BLUR_F32RING(C, R, PF, VB, PH, BLOCKS) \
    extern "C" __global__ void __launch_bounds__(MGPU_BLUR_RING_WARPS * 32, BLOCKS) mgpu_blur_f32c##C##_ring##R(const mgpu_blr::args a) \
    { mgpu_blr::ring<float, C, R, 4, PF, MGPU_BLUR_RING_WARPS, VB, PH>(a); }
#define MGPU_BLUR_F32RINGS(R, BLOCKS1, PH4, VB4, BLOCKS4) \
    MGPU_BLUR_F32RING(1, R, MGPU_BLUR_RING_PF32, 4, 1, BLOCKS1) \
    MGPU_BLUR_F32RING(4, R, ((PH4) > 1 ? 2 * MGPU_BLUR_RING_PF32 : MGPU_BLUR_RING_PF32), VB4, PH4, BLOCKS4)
MGPU_BLUR_F32RINGS(1, 4, 1, 4, 4) MGPU_BLUR_F32RINGS(2, 4, 2, 4, 4) MGPU_BLUR_F32RINGS(3, 4, 1, 4, 4)
MGPU_BLUR_F32RINGS(4, 4, 2, 4, 4) MGPU_BLUR_F32RINGS(5, 4, 2, 4, 4) MGPU_BLUR_F32RINGS(6, 4, 2, 4, 4)
MGPU_BLUR_F32RINGS(7, 4, 2, 4, 4) MGPU_BLUR_F32RINGS(8, 4, 2, 4, 4) MGPU_BLUR_F32RINGS(9, 3, 2, 4, 3)
MGPU_BLUR_F32RINGS(10, 3, 2, 4, 3) MGPU_BLUR_F32RINGS(11, 3, 2, 4, 3) MGPU_BLUR_F32RINGS(12, 2, 2, 4, 3)
MGPU_BLUR_F32RINGS(13, 2, 2, 2, 3) MGPU_BLUR_F32RINGS(14, 2, 4, 4, 2) MGPU_BLUR_F32RINGS(15, 2, 4, 4, 2)
MGPU_BLUR_F32RINGS(16, 2, 4, 4, 2)
#undef MGPU_BLUR_F32RINGS
#undef MGPU_BLUR_F32RING
/* The tensor-core kernels: radius <= 8 with 4 tiles of 16 bytes per warp; <= 16 with 3 (gray,
   RGB: 1.13-1.15x 2 tiles on an H200, 8K at radius 9..16; 4 spilled 48 bytes, 1.07x) or 2
   (RGBA: its two-channel tiles). SB, the blocks of 8 rows a barrier: 2, but 1 for gray up
   to radius 8 (H200, 8K, against 1 with the same 4 stages: RGB radius 3..8 1.15x, RGBA 9..16
   1.02x, the others 1.00-1.01x; gray radius 3..8 0.97x, where ptxas spilled 144 bytes; 8
   stages with 2: RGB 1.11x but gray 0.95x, RGBA radius 3..8 0.96x; 4 blocks a barrier at 3..8
   and 3 at 9..16: no better). */
#define MGPU_BLUR_MMA(C, R, NT, SB) \
    extern "C" __global__ void __launch_bounds__(MGPU_BLUR_MMA_WARPS * 32, 16 / MGPU_BLUR_MMA_WARPS) mgpu_blur_u8c##C##_m##R(const mgpu_blr::args a) \
    { mgpu_blr::mma<C, R, NT, MGPU_BLUR_MMA_WARPS, MGPU_BLUR_MMA_STAGES, SB>(a); }
MGPU_BLUR_MMA(1, 8, 4, 1) MGPU_BLUR_MMA(1, 16, 3, 2)
MGPU_BLUR_MMA(3, 8, 4, 2) MGPU_BLUR_MMA(3, 16, 3, 2)
MGPU_BLUR_MMA(4, 8, 4, 2) MGPU_BLUR_MMA(4, 16, 2, 2)
#undef MGPU_BLUR_MMA
/* The image kernel (see image): one block of MGPU_BLUR_IMG_TX * MGPU_BLUR_IMG_B threads per (tile, strip);
   f32 RGBA only (the other formats were slower than the copy path at every radius). */
#define MGPU_BLUR_IMG(F, T, C) \
    extern "C" __global__ void __launch_bounds__(MGPU_BLUR_IMG_TX * MGPU_BLUR_IMG_B, 4) \
    mgpu_blur_img_##F##c##C(const mgpu_blr::args a, const mgpu_blr::img g) { mgpu_blr::image<T, C>(a, g); }
MGPU_BLUR_IMG(f32, float, 4)
#undef MGPU_BLUR_IMG
/* The image copies (see imgcopy): blocks of MGPU_IMG_COPY_THREADS, one per 16 * IMG_WX bytes of IMG_CY * 256 / IMG_WX rows. */
extern "C" __global__ void __launch_bounds__(MGPU_IMG_COPY_THREADS) mgpu_img_read(const mgpu_blr::imgcopy g) { mgpu_blr::imgcopy_run<false>(g); }
extern "C" __global__ void __launch_bounds__(MGPU_IMG_COPY_THREADS) mgpu_img_write(const mgpu_blr::imgcopy g) { mgpu_blr::imgcopy_run<true>(g); }
/* The 8-bit one-pass image kernels (see imgpipe): 16-byte surface accesses; blocks of
   MGPU_BLUR_IMGP_WARPS warps, a warp per (segment, strip); the in-place frame before them. */
#define MGPU_BLUR_IMGP(C) \
    extern "C" __global__ void __launch_bounds__(MGPU_BLUR_IMGP_WARPS * 32, 4) \
    mgpu_blur_imgp_u8c##C(const mgpu_blr::args a, const mgpu_blr::imgp g) { mgpu_blr::imgpipe<C, 16, MGPU_BLUR_IMGP_WARPS>(a, g); }
MGPU_BLUR_IMGP(1)
MGPU_BLUR_IMGP(2)
MGPU_BLUR_IMGP(4)
#undef MGPU_BLUR_IMGP
extern "C" __global__ void __launch_bounds__(MGPU_IMG_FRAME_THREADS) mgpu_img_frame(const mgpu_blr::args a, const mgpu_blr::imgp g) { mgpu_blr::imgframe<16>(a, g); }
/* ================================================================ Gaussian blur (END) */

/* ================================================================ BN254 MSM (BEGIN)
   Kernels of mgpu_msm_async and the BN254 helpers; the semantics are documented there
   (mgpu.h), and the CPU device computes the same sums in C by a different decomposition
   (unsigned digits), so the two check each other. mgpu.h fills `args` (mgpu__msm_args,
   the same layout) and launches, per MSM of n points with c-bit windows:

     msm_digits      one thread per scalar: reduce it modulo r (from Montgomery form if
                     asked), recode it into W = ceil(255 / c) signed digits d_t in
                     [-2^(c-1), 2^(c-1)] (sum_t d_t 2^(ct) = k) and store each digit's key:
                     window t goes to precomputed copy t / wf, window t % wf; bucket
                     g = (t % wf) * B + |d_t| - 1 (B = 2^(c-1)), or none for d_t = 0.
   Then a counting sort of the keys by bucket in two levels, so that no step scatters
   single words over more memory than L2 holds: the G = wf * B buckets are grouped in bins
   of 2^bin_shift consecutive buckets (up to 1024 bins a window, of about 16 K entries).
     msm_bin_count   per tile of one window's keys: a histogram of their bins in shared
                     memory, added to the bin counters (one atomic per bin and tile).
     msm_scan_*      exclusive prefix sum of the bin counts: bin starts bin_offsets[],
                     the last one = M, the number of (digit, point) entries; the counts
                     become cursors.
     msm_bin_scatter per tile: the tile's keys sorted by bin in shared memory, each bin's
                     run given its place by one atomic on the bin's cursor and written out
                     whole: the keys and entries (point index + copy * n, bit 31 =
                     negative digit) grouped by bin, in pairs in `binned`.
     msm_place_count per tile of `binned` (whatever its bins): a histogram of its buckets
                     in shared memory, added to the G bucket counters.
     msm_scan_*      the bucket starts offsets[0..G] (offsets[G] = M); counts become cursors
                     (one scan_tiles block where the counts fit one tile).
     msm_place_write per tile: its run of each bucket placed by one atomic on the bucket's
                     cursor, the tile sorted by bucket in shared memory and written out
                     run by run (a tile's buckets lie in one or two neighbouring bins,
                     whose slices L2 holds until they are whole).
     msm_accumulate  the M sorted entries cut into `chunks` pieces of `chunk_len`, one per
                     thread: the thread adds its entries' points into an XYZZ accumulator,
                     one run per bucket. A run wholly inside the piece is stored as the
                     bucket's sum; the first run of a piece that began in an earlier piece
                     goes to the piece's head slot, and a last run that goes on into the
                     next piece to its tail slot.
     msm_fixup       one thread per piece with a tail slot: tail + the head slots of the
                     following pieces of the same bucket -> the bucket's sum. So a bucket
                     holding many points is summed by many threads. A bucket with more
                     head slots than fixup_serial is queued instead:
     msm_fixup_long  a group of threads per queued bucket adds its slots in strides, then
                     by a tree (whole blocks for long buckets; small groups at small n,
                     where fixup_serial is 0 and nearly every bucket spans a few pieces).
     msm_segments    per window, the B buckets in segments of m: a thread walks its segment
                     from the top, run += bucket, tot += run, giving tot_s = sum_j (j+1)
                     bucket[s*m + j] and run_s = sum_j bucket[s*m + j].
     msm_sums        per window, block sums: out_0 = sum_s tot_s (in two halves) and, for
                     each bit k of the segment index, out_{k+1} = sum of run_s over the s with
                     bit k set.
     msm_windows     per window, sum_b b * bucket_b = out_0 + m * sum_k 2^k out_{k+1}.
   The host then combines the windows (sum_w 2^(cw) window_w) in C. An MSM taken in
   several pieces of its points (host inputs, memory) runs digits .. fixup per piece into
   one set of buckets (args.resume: a run that starts a bucket starts from its sum so
   far), and the bucket sums once, after the last piece.

   Field arithmetic: 8 x 32-bit words, little-endian, Montgomery form with R = 2^256;
   multiplication with PTX carry chains (mad.lo.cc / madc.hi.cc, which ptxas fuses into one
   64-bit multiply-add with carries per product), lazy reduction (values in [0, 2p), see
   below) since p < 2^254. Points: affine (x, y) with (0, 0) = infinity; XYZZ (x = X/ZZ,
   y = Y/ZZZ, ZZ = 0 = infinity) for sums, with EFD's madd-2008-s, add-2008-s and
   dbl-2008-s-1 formulas for a = 0 and explicit checks for the exceptional cases.

   Without __CUDA_ARCH__ (the kernel emulator of the tests) the carry chains run in C++
   with an explicit carry flag: the same arithmetic, step for step. */
namespace mgpu_bn {

typedef unsigned int u32;
typedef unsigned long long u64;

#ifdef __CUDA_ARCH__
#define MGPU_BN_OP2(name, ins) \
    __device__ __forceinline__ u32 name(u32 a, u32 b) \
    { u32 r; asm volatile(ins " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
#define MGPU_BN_OP3(name, ins) \
    __device__ __forceinline__ u32 name(u32 a, u32 b, u32 c) \
    { u32 r; asm volatile(ins " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
MGPU_BN_OP2(add_cc, "add.cc.u32")
MGPU_BN_OP2(addc_cc, "addc.cc.u32")
MGPU_BN_OP2(addc, "addc.u32")
MGPU_BN_OP2(sub_cc, "sub.cc.u32")
MGPU_BN_OP2(subc_cc, "subc.cc.u32")
MGPU_BN_OP2(subc, "subc.u32")
MGPU_BN_OP2(mul_lo, "mul.lo.u32")
MGPU_BN_OP2(mul_hi, "mul.hi.u32")
MGPU_BN_OP3(mad_lo_cc, "mad.lo.cc.u32")
MGPU_BN_OP3(madc_lo_cc, "madc.lo.cc.u32")
MGPU_BN_OP3(mad_hi_cc, "mad.hi.cc.u32")
MGPU_BN_OP3(madc_hi_cc, "madc.hi.cc.u32")
MGPU_BN_OP3(madc_hi, "madc.hi.u32")
#undef MGPU_BN_OP2
#undef MGPU_BN_OP3
#else
static thread_local u32 cf;            /* the carry (or borrow) flag */
static inline u32 add_cc(u32 a, u32 b) { u64 t = (u64)a + b; cf = (u32)(t >> 32); return (u32)t; }
static inline u32 addc_cc(u32 a, u32 b) { u64 t = (u64)a + b + cf; cf = (u32)(t >> 32); return (u32)t; }
static inline u32 addc(u32 a, u32 b) { return a + b + cf; }
static inline u32 sub_cc(u32 a, u32 b) { cf = a < b; return a - b; }
static inline u32 subc_cc(u32 a, u32 b) { u64 s = (u64)b + cf; cf = (u64)a < s; return (u32)((u64)a - s); }
static inline u32 subc(u32 a, u32 b) { return a - b - cf; }
static inline u32 mul_lo(u32 a, u32 b) { return a * b; }
static inline u32 mul_hi(u32 a, u32 b) { return (u32)(((u64)a * b) >> 32); }
static inline u32 mad_lo_cc(u32 a, u32 b, u32 c) { u64 t = (u64)(u32)(a * b) + c; cf = (u32)(t >> 32); return (u32)t; }
static inline u32 madc_lo_cc(u32 a, u32 b, u32 c) { u64 t = (u64)(u32)(a * b) + c + cf; cf = (u32)(t >> 32); return (u32)t; }
static inline u32 mad_hi_cc(u32 a, u32 b, u32 c) { u64 t = (((u64)a * b) >> 32) + c; cf = (u32)(t >> 32); return (u32)t; }
static inline u32 madc_hi_cc(u32 a, u32 b, u32 c) { u64 t = (((u64)a * b) >> 32) + c + cf; cf = (u32)(t >> 32); return (u32)t; }
static inline u32 madc_hi(u32 a, u32 b, u32 c) { return (u32)(((u64)a * b) >> 32) + c + cf; }
#endif

/* ---- constants: [0] the base field F_p, [1] the scalar field F_r */
enum { FP = 0, FR = 1 };
#define MGPU_BN_MOD \
    { { 0xd87cfd47u, 0x3c208c16u, 0x6871ca8du, 0x97816a91u, 0x8181585du, 0xb85045b6u, 0xe131a029u, 0x30644e72u }, \
      { 0xf0000001u, 0x43e1f593u, 0x79b97091u, 0x2833e848u, 0x8181585du, 0xb85045b6u, 0xe131a029u, 0x30644e72u } }
#define MGPU_BN_MOD2                                                /* 2m: the bound of lazy values */ \
    { { 0xb0f9fa8eu, 0x7841182du, 0xd0e3951au, 0x2f02d522u, 0x0302b0bbu, 0x70a08b6du, 0xc2634053u, 0x60c89ce5u }, \
      { 0xe0000002u, 0x87c3eb27u, 0xf372e122u, 0x5067d090u, 0x0302b0bau, 0x70a08b6du, 0xc2634053u, 0x60c89ce5u } }
__constant__ u32 MOD[2][8] = MGPU_BN_MOD;
__constant__ u32 MOD2[2][8] = MGPU_BN_MOD2;
/* The same words as literals for the unrolled arithmetic: ptxas then writes them into the
   instructions (immediates) instead of loading them into registers, which the accumulation
   needs for its values (H200, 2^24: 36.9 -> 35.3 ms). */
template <int F> __device__ __forceinline__ void mod_lit(u32 *m)
{
    const u32 w[2][8] = MGPU_BN_MOD;
#pragma unroll
    for (int j = 0; j < 8; j++) m[j] = w[F][j];
}
template <int F> __device__ __forceinline__ void mod2_lit(u32 *m)
{
    const u32 w[2][8] = MGPU_BN_MOD2;
#pragma unroll
    for (int j = 0; j < 8; j++) m[j] = w[F][j];
}
__constant__ u32 MOD4[2][8] = {                                     /* 4m: 2^256 < 8m */
    { 0x61f3f51cu, 0xf082305bu, 0xa1c72a34u, 0x5e05aa45u, 0x06056176u, 0xe14116dau, 0x84c680a6u, 0xc19139cbu },
    { 0xc0000004u, 0x0f87d64fu, 0xe6e5c245u, 0xa0cfa121u, 0x06056174u, 0xe14116dau, 0x84c680a6u, 0xc19139cbu } };
__constant__ u32 INV[2] = { 0xe4866389u, 0xefffffffu };          /* -m^-1 mod 2^32 */
template <int F> __device__ __forceinline__ u32 inv_lit() { return F == FP ? 0xe4866389u : 0xefffffffu; }
__constant__ u32 R2[2][8] = {                                       /* R^2 mod m */
    { 0x538afa89u, 0xf32cfc5bu, 0xd44501fbu, 0xb5e71911u, 0x0a417ff6u, 0x47ab1effu, 0xcab8351fu, 0x06d89f71u },
    { 0xae216da7u, 0x1bb8e645u, 0xe35c59e3u, 0x53fe3ab1u, 0x53bb8085u, 0x8c49833du, 0x7f4e44a5u, 0x0216d0b1u } };
__constant__ u32 ONE_P[8] =                                         /* R mod p: 1 in Montgomery form */
    { 0xc58f0d9du, 0xd35d438du, 0xf5c70b3du, 0x0a78eb28u, 0x7879462cu, 0x666ea36fu, 0x9a07df2fu, 0x0e0a77c1u };
__constant__ u32 B3_P[8] =                                          /* 3R mod p: the curve's b */
    { 0x50ad28d7u, 0x7a17caa9u, 0xe15521b9u, 0x1f6ac17au, 0x696bd284u, 0x334bea4eu, 0xce179d8eu, 0x2a1f6744u };
__constant__ u32 PM2[8] =                                           /* p - 2: Fermat's inverse */
    { 0xd87cfd45u, 0x3c208c16u, 0x6871ca8du, 0x97816a91u, 0x8181585du, 0xb85045b6u, 0xe131a029u, 0x30644e72u };

/* ---- field arithmetic on u32[8] (outputs may alias inputs)
   Values are "lazy": anywhere in [0, 2m), not only [0, m). The unrolled multiplication
   returns a * b / R + q m / R < 4m^2 / R + m < 2m without a final subtraction (4m < R: m <
   2^254), add and sub keep their results in [0, 2m), a zero test accepts 0 and m
   (is_zero_mod), and what leaves the GPU is reduced to [0, m) first (canonical). The
   compact multiplication (conversions, checks) still returns canonical values. */
__device__ __forceinline__ void copy(u32 *o, const u32 *a)
{
#pragma unroll
    for (int j = 0; j < 8; j++) o[j] = a[j];
}
__device__ __forceinline__ bool is_zero(const u32 *a)
{
    u32 t = a[0];
#pragma unroll
    for (int j = 1; j < 8; j++) t |= a[j];
    return t == 0;
}
__device__ __forceinline__ bool equal(const u32 *a, const u32 *b)
{
    u32 t = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) t |= a[j] ^ b[j];
    return t == 0;
}
/* o = t >= b ? t - b : t */
__device__ __forceinline__ void sub_if_ge(u32 *o, const u32 *t, const u32 *b)
{
    u32 s[8];
    s[0] = sub_cc(t[0], b[0]);
#pragma unroll
    for (int j = 1; j < 8; j++) s[j] = subc_cc(t[j], b[j]);
    const u32 borrow = subc(0, 0);                     /* all ones when t < b */
#pragma unroll
    for (int j = 0; j < 8; j++) o[j] = (t[j] & borrow) | (s[j] & ~borrow);
}
/* o = t mod m for t < 2m: lazy to canonical */
template <int F> __device__ __forceinline__ void reduce_once(u32 *o, const u32 *t) { sub_if_ge(o, t, MOD[F]); }
/* o = t mod m for any t < 2^256 < 8m: three conditional subtractions */
template <int F> __device__ __forceinline__ void reduce_any(u32 *o, const u32 *t)
{
    sub_if_ge(o, t, MOD4[F]);
    sub_if_ge(o, o, MOD2[F]);
    reduce_once<F>(o, o);
}
/* True when a < m (a canonical element). */
template <int F> __device__ __forceinline__ bool below_mod(const u32 *a)
{
    (void)sub_cc(a[0], MOD[F][0]);
#pragma unroll
    for (int j = 1; j < 8; j++) (void)subc_cc(a[j], MOD[F][j]);
    return subc(0, 0) != 0;
}
/* a == 0 mod m, for a lazy a */
template <int F> __device__ __forceinline__ bool is_zero_mod(const u32 *a)
{
    u32 m[8];
    mod_lit<F>(m);
    return is_zero(a) || equal(a, m);
}
template <int F> __device__ __forceinline__ void add(u32 *o, const u32 *a, const u32 *b)
{
    u32 t[8];
    t[0] = add_cc(a[0], b[0]);
#pragma unroll
    for (int j = 1; j < 7; j++) t[j] = addc_cc(a[j], b[j]);
    t[7] = addc(a[7], b[7]);                           /* a + b < 4m < 2^256: no carry out */
    u32 m2[8];
    mod2_lit<F>(m2);
    sub_if_ge(o, t, m2);
}
template <int F> __device__ __forceinline__ void sub(u32 *o, const u32 *a, const u32 *b)
{
    u32 t[8];
    t[0] = sub_cc(a[0], b[0]);
#pragma unroll
    for (int j = 1; j < 8; j++) t[j] = subc_cc(a[j], b[j]);
    if (subc(0, 0)) {                                  /* a < b: add 2m back (a branch, not a
                                                          mask: 8 fewer instructions a subtraction) */
        u32 m2[8];
        mod2_lit<F>(m2);
        t[0] = add_cc(t[0], m2[0]);
#pragma unroll
        for (int j = 1; j < 7; j++) t[j] = addc_cc(t[j], m2[j]);
        t[7] = addc(t[7], m2[7]);
    }
    copy(o, t);
}
/* o = a * b / R mod m for lazy a, b (CIOS): the running value t stays below a + m < 3m <
   2^256 between steps and below 2^288 within one, so 9 words hold it. One step per word of
   b. mul<F, true> (FAST) is the unrolled form below, for the accumulation's inner loop;
   mul<F, false> loops over this step (an eighth of the code) for the kernels where size
   matters more than speed. */
template <int F> __device__ __forceinline__ void mul_step(u32 *t, const u32 *a, u32 bi)
{
    t[0] = mad_lo_cc(a[0], bi, t[0]);                  /* t += a * b_i: low halves ... */
#pragma unroll
    for (int j = 1; j < 8; j++) t[j] = madc_lo_cc(a[j], bi, t[j]);
    t[8] = addc(t[8], 0);
    t[1] = mad_hi_cc(a[0], bi, t[1]);                  /* ... then high halves, one word up */
#pragma unroll
    for (int j = 1; j < 7; j++) t[j + 1] = madc_hi_cc(a[j], bi, t[j + 1]);
    t[8] = madc_hi(a[7], bi, t[8]);
    const u32 q = t[0] * INV[F];                       /* t += q * m makes word 0 zero */
    t[0] = mad_lo_cc(q, MOD[F][0], t[0]);
#pragma unroll
    for (int j = 1; j < 8; j++) t[j] = madc_lo_cc(q, MOD[F][j], t[j]);
    t[8] = addc(t[8], 0);
    t[1] = mad_hi_cc(q, MOD[F][0], t[1]);
#pragma unroll
    for (int j = 1; j < 7; j++) t[j + 1] = madc_hi_cc(q, MOD[F][j], t[j + 1]);
    t[8] = madc_hi(q, MOD[F][7], t[8]);
#pragma unroll
    for (int j = 0; j < 8; j++) t[j] = t[j + 1];       /* divide by 2^32 */
    t[8] = 0;
}
/* The unrolled multiplication keeps two accumulators (as sppark's mont_t does): `even`
   gathers the products a[j] b_i of even j at words j, j+1 and `odd` those of odd j, one word
   up, so each product's low and high halves go into one carry chain (mad.lo.cc, madc.hi.cc)
   with no second pass for the high halves; the reduction by q m is split the same way, and
   each step's division by 2^32 is a shift of the roles of the two arrays. The carry out of
   the top word is always 0 because p < 2^254. 256 multiply-adds in all. */
/* M products a[0] bi, a[2] bi, .. (every other word of a) as word pairs of acc: written
   (mul_m), or added with the carry out left in the flag (cmad_m). */
template <int M> __device__ __forceinline__ void mul_m(u32 *acc, const u32 *a, u32 bi)
{
#pragma unroll
    for (int k = 0; k < M; k++) { acc[2 * k] = mul_lo(a[2 * k], bi); acc[2 * k + 1] = mul_hi(a[2 * k], bi); }
}
template <int M> __device__ __forceinline__ void cmad_m(u32 *acc, const u32 *a, u32 bi)
{
    acc[0] = mad_lo_cc(a[0], bi, acc[0]);
    acc[1] = madc_hi_cc(a[0], bi, acc[1]);
#pragma unroll
    for (int k = 1; k < M; k++) { acc[2 * k] = madc_lo_cc(a[2 * k], bi, acc[2 * k]); acc[2 * k + 1] = madc_hi_cc(a[2 * k], bi, acc[2 * k + 1]); }
}
__device__ __forceinline__ void madc_n_rshift(u32 *odd, const u32 *a, u32 bi)
{
#pragma unroll
    for (int j = 0; j < 6; j += 2) { odd[j] = madc_lo_cc(a[j], bi, odd[j + 2]); odd[j + 1] = madc_hi_cc(a[j], bi, odd[j + 3]); }
    odd[6] = madc_lo_cc(a[6], bi, 0);
    odd[7] = madc_hi(a[6], bi, 0);
}
template <int F> __device__ __forceinline__ void mad_n_redc(u32 *even, u32 *odd, const u32 *a, u32 bi, bool first)
{
    if (first) {
        mul_m<4>(odd, a + 1, bi);
        mul_m<4>(even, a, bi);
    } else {
        even[0] = add_cc(even[0], odd[1]);
        madc_n_rshift(odd, a + 1, bi);
        cmad_m<4>(even, a, bi);
        odd[7] = addc(odd[7], 0);
    }
    u32 m[8];
    mod_lit<F>(m);
    const u32 q = even[0] * inv_lit<F>();
    cmad_m<4>(odd, m + 1, q);
    cmad_m<4>(even, m, q);
    odd[7] = addc(odd[7], 0);
}
template <int F, bool FAST = true> __device__ __forceinline__ void mul(u32 *o, const u32 *a, const u32 *b)
{
    if (FAST) {                                        /* lazy: o < 2m */
        u32 even[8], odd[8];
#pragma unroll
        for (int i = 0; i < 8; i += 2) {
            mad_n_redc<F>(even, odd, a, b[i], i == 0);
            mad_n_redc<F>(odd, even, a, b[i + 1], false);
        }
        o[0] = add_cc(even[0], odd[1]);                /* even + odd / 2^32 */
#pragma unroll
        for (int j = 1; j < 7; j++) o[j] = addc_cc(even[j], odd[j + 1]);
        o[7] = addc(even[7], 0);
    } else {                                           /* canonical: o < m */
        u32 t[9], bb[8];
#pragma unroll
        for (int j = 0; j < 9; j++) t[j] = 0;
        copy(bb, b);
#pragma unroll 1
        for (int i = 0; i < 8; i++) {
            mul_step<F>(t, a, bb[0]);
#pragma unroll
            for (int j = 0; j < 7; j++) bb[j] = bb[j + 1];
        }
        reduce_once<F>(o, t);
    }
}

/* ---- products kept at 512 bits, reduced once: squares (28 of the 64 word products are
   pairs a_i a_j = a_j a_i, computed once and doubled) and a b - c d (one reduction for two
   products). Both shave multiply-adds off the accumulation, whose integer multiply pipe is
   what bounds it (ncu on an H200: 84% busy). Wide values are u32[16], least word first. */

/* Wide products use the multiplication's layout: a product's two halves are an aligned
   pair of one array (the pair a 64-bit multiply-add writes), `even` indexed by word and
   `odd` one word down (odd[k] is word k + 1). A product a_j b_i at word i + j goes to even
   when i + j is even, else to odd, so every row of each array is one carry chain on
   aligned pairs (with mul_m and cmad_m, and the two helpers below). */
/* acc += the products where the top pair acc[2M-2], acc[2M-1] is new (no carry leaves it) */
template <int M> __device__ __forceinline__ void cmad_m_top(u32 *acc, const u32 *a, u32 bi)
{
    if (M > 1) {
        cmad_m<M - 1>(acc, a, bi);
        acc[2 * M - 2] = madc_lo_cc(a[2 * M - 2], bi, 0);
    } else {
        acc[0] = mad_lo_cc(a[0], bi, 0);
    }
    acc[2 * M - 1] = madc_hi(a[2 * M - 2], bi, 0);
}
/* One row: x[0..N-1] times bi added at hi (x[k] for odd k, N words from one word above lo)
   and lo (x[k] for even k); the array whose top pair is new takes the other's carry. */
template <int N> __device__ __forceinline__ void row(u32 *hi, u32 *lo, const u32 *x, u32 bi)
{
    if (N % 2 == 0) {                                  /* hi holds the top product */
        cmad_m_top<N / 2>(hi, x + 1, bi);
        cmad_m<N / 2>(lo, x, bi);
        hi[N - 1] = addc(hi[N - 1], 0);
    } else {                                           /* lo holds it */
        cmad_m_top<(N + 1) / 2>(lo, x, bi);
        if (N > 1) {
            cmad_m<(N - 1) / 2>(hi, x + 1, bi);
            lo[N] = addc(lo[N], 0);
        }
    }
}
/* w = a * b. Row i adds a b_i at word i; rows alternate which array holds a's odd words. */
__device__ __forceinline__ void mul_wide(u32 *w, const u32 *a, const u32 *b)
{
    u32 odd[14];
    mul_m<4>(w, a, b[0]);                              /* words 0..7 */
    mul_m<4>(odd, a + 1, b[0]);                        /* words 1..8 */
    row<8>(w + 2, odd, a, b[1]);                       /* a[odd j] b_1: words 2..9 */
#pragma unroll
    for (int i = 2; i < 8; i += 2) {
        row<8>(odd + i, w + i, a, b[i]);
        row<8>(w + i + 2, odd + i, a, b[i + 1]);
    }
    w[1] = add_cc(w[1], odd[0]);                       /* w: words 0..15, odd: words 1..14 */
#pragma unroll
    for (int k = 2; k < 15; k++) w[k] = addc_cc(w[k], odd[k - 1]);
    w[15] = addc(w[15], 0);
}
/* w = a^2: the 28 products a_j a_i (j > i, row i at word 2i + 1 + (j - i - 1)) once, then
   doubled, plus the 8 squares a_i^2. */
__device__ __forceinline__ void sqr_wide(u32 *w, const u32 *a)
{
    u32 odd[14];
    mul_m<4>(odd, a + 1, a[0]);                        /* row 0: words 1..8 */
    mul_m<3>(w + 2, a + 2, a[0]);                      /* words 2..7 */
    row<6>(w + 4, odd + 2, a + 2, a[1]);
    row<5>(w + 6, odd + 4, a + 3, a[2]);
    row<4>(w + 8, odd + 6, a + 4, a[3]);
    row<3>(w + 10, odd + 8, a + 5, a[4]);
    row<2>(w + 12, odd + 10, a + 6, a[5]);
    row<1>(w + 14, odd + 12, a + 7, a[6]);             /* odd[12..13]: words 13..14 */
    w[2] = add_cc(w[2], odd[1]);                       /* w: words 2..13, odd: 1..14; the sum < 2^511 */
#pragma unroll
    for (int k = 3; k < 14; k++) w[k] = addc_cc(w[k], odd[k - 1]);
    w[14] = addc(odd[13], 0);
    w[1] = add_cc(odd[0], odd[0]);                     /* doubled */
#pragma unroll
    for (int k = 2; k < 15; k++) w[k] = addc_cc(w[k], w[k]);
    w[15] = addc(0, 0);
    w[0] = mad_lo_cc(a[0], a[0], 0);                   /* plus the squares */
    w[1] = madc_hi_cc(a[0], a[0], w[1]);
#pragma unroll
    for (int i = 1; i < 7; i++) { w[2 * i] = madc_lo_cc(a[i], a[i], w[2 * i]); w[2 * i + 1] = madc_hi_cc(a[i], a[i], w[2 * i + 1]); }
    w[14] = madc_lo_cc(a[7], a[7], w[14]);
    w[15] = madc_hi(a[7], a[7], w[15]);
}
/* One step of the reduction alone: mad_n_redc without the product, the division by 2^32
   folded into the odd products of q m. */
template <int F> __device__ __forceinline__ void redc_row(u32 *even, u32 *odd, bool first)
{
    u32 q, m[8];
    mod_lit<F>(m);
    if (first) {
        q = even[0] * inv_lit<F>();
        mul_m<4>(odd, m + 1, q);
    } else {
        even[0] = add_cc(even[0], odd[1]);
        q = even[0] * inv_lit<F>();
        madc_n_rshift(odd, m + 1, q);
    }
    cmad_m<4>(even, m, q);
    odd[7] = addc(odd[7], 0);
}
/* o = w / R mod m for w < m R, lazy (o < 2m): the low half is reduced on its own, its
   quotients depending on it alone, giving (lo + q m) / R <= m; then the high half (< m) is
   added. */
template <int F> __device__ __forceinline__ void redc(u32 *o, const u32 *w)
{
    u32 even[8], odd[8];
    copy(even, w);
#pragma unroll
    for (int i = 0; i < 8; i += 2) {
        redc_row<F>(even, odd, i == 0);
        redc_row<F>(odd, even, false);
    }
    even[0] = add_cc(even[0], odd[1]);
#pragma unroll
    for (int j = 1; j < 7; j++) even[j] = addc_cc(even[j], odd[j + 1]);
    even[7] = addc(even[7], 0);
    o[0] = add_cc(even[0], w[8]);
#pragma unroll
    for (int j = 1; j < 7; j++) o[j] = addc_cc(even[j], w[8 + j]);
    o[7] = addc(even[7], w[15]);
}
/* o = a^2 / R, lazy in and out: a^2 < 4m^2 < m R. */
template <int F> __device__ __forceinline__ void sqr(u32 *o, const u32 *a)
{
    u32 w[16];
    sqr_wide(w, a);
    redc<F>(o, w);
}
/* o = (a b - c d) / R mod p, lazy in and out: the difference of two products below 4p^2,
   plus 4p^2 where it is negative, is below p R. */
__device__ __forceinline__ void mul_sub(u32 *o, const u32 *a, const u32 *b, const u32 *c, const u32 *d)
{
    const u32 m2x4[16] = {                             /* 4p^2 */
        0x9d75a6c4u, 0xed516288u, 0x27ab0404u, 0x98081cb4u, 0xb65b2b72u, 0x29406271u, 0xe8490b21u, 0x11a27a55u,
        0xd31ace34u, 0x9bb7e970u, 0x58dd5818u, 0xc02e1544u, 0x0d234872u, 0x6669bdf0u, 0xd8f2fe71u, 0x249712e1u };
    u32 x[16], y[16];
    mul_wide(x, a, b);
    mul_wide(y, c, d);
    x[0] = sub_cc(x[0], y[0]);
#pragma unroll
    for (int k = 1; k < 16; k++) x[k] = subc_cc(x[k], y[k]);
    if (subc(0, 0)) {
        x[0] = add_cc(x[0], m2x4[0]);
#pragma unroll
        for (int k = 1; k < 15; k++) x[k] = addc_cc(x[k], m2x4[k]);
        x[15] = addc(x[15], m2x4[15]);
    }
    redc<FP>(o, x);
}

/* Conversions. To Montgomery form with the unrolled multiplication: an MSM's points in
   standard form all pass here, beside its sort (an H200 at 2^24: 1.08 -> 0.65 ms against
   the compact one). */
template <int F> __device__ __forceinline__ void to_mont(u32 *o, const u32 *a)
{
    u32 t[8];
    reduce_any<F>(t, a);                               /* any 256-bit input: below m */
    mul<F>(o, t, R2[F]);
    reduce_once<F>(o, o);
}
template <int F> __device__ __forceinline__ void from_mont(u32 *o, const u32 *a)
{
    u32 one[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
    mul<F, false>(o, one, a);
}
/* o = a^(p-2) = 1/a in F_p (Montgomery in and out; 0 -> 0). */
__device__ __forceinline__ void inv_p(u32 *o, const u32 *a)
{
    u32 r[8];
    copy(r, ONE_P);
    for (int i = 253; i >= 0; i--) {
        mul<FP, false>(r, r, r);
        if ((PM2[i >> 5] >> (i & 31)) & 1) mul<FP, false>(r, r, a);
    }
    copy(o, r);
}

/* ---- G1 points: sums with the unrolled multiplication; doublings (rare here: equal points,
   and the precomputation) with the compact one */
struct xyzz { u32 x[8], y[8], zz[8], zzz[8]; };

__device__ __forceinline__ void set_inf(xyzz &p)
{
#pragma unroll
    for (int j = 0; j < 8; j++) p.zz[j] = p.zzz[j] = 0;
}
/* p = 2 * (x, y), (x, y) affine and not infinity */
__device__ __forceinline__ void dbl_affine(xyzz &p, const u32 *x, const u32 *y)
{
    u32 u[8], v[8], w[8], s[8], m[8];
    add<FP>(u, y, y);
    mul<FP, false>(v, u, u);
    mul<FP, false>(w, u, v);
    mul<FP, false>(s, x, v);
    mul<FP, false>(m, x, x);
    add<FP>(u, m, m);
    add<FP>(m, u, m);                                  /* 3x^2 */
    mul<FP, false>(p.x, m, m);
    sub<FP>(p.x, p.x, s);
    sub<FP>(p.x, p.x, s);
    sub<FP>(s, s, p.x);
    mul<FP, false>(s, m, s);
    mul<FP, false>(u, w, y);
    sub<FP>(p.y, s, u);
    copy(p.zz, v);
    copy(p.zzz, w);
}
template <bool FAST = false> __device__ __forceinline__ void dbl(xyzz &p)
{
    u32 u[8], v[8], w[8], s[8], m[8];
    if (is_zero(p.zz)) return;
    add<FP>(u, p.y, p.y);
    mul<FP, FAST>(v, u, u);
    mul<FP, FAST>(w, u, v);
    mul<FP, FAST>(s, p.x, v);
    mul<FP, FAST>(m, p.x, p.x);
    add<FP>(u, m, m);
    add<FP>(m, u, m);
    mul<FP, FAST>(p.x, m, m);
    sub<FP>(p.x, p.x, s);
    sub<FP>(p.x, p.x, s);
    sub<FP>(s, s, p.x);
    mul<FP, FAST>(s, m, s);
    mul<FP, FAST>(u, w, p.y);
    sub<FP>(p.y, s, u);
    mul<FP, FAST>(p.zz, p.zz, v);
    mul<FP, FAST>(p.zzz, p.zzz, w);
}
/* p = (x, y) (infinity for none) */
__device__ __forceinline__ void set_affine(xyzz &p, const u32 *x, const u32 *y, bool none)
{
    copy(p.x, x); copy(p.y, y); copy(p.zz, ONE_P); copy(p.zzz, ONE_P);
    if (none) set_inf(p);
}
/* p += (x, y), affine; nothing for none (the point at infinity) (madd-2008-s) */
__device__ __forceinline__ void add_affine(xyzz &p, const u32 *x, const u32 *y, bool none)
{
    u32 u2[8], s2[8], pp[8], ppp[8], q[8];
    mul<FP>(u2, x, p.zz);
    mul<FP>(s2, y, p.zzz);
    sub<FP>(u2, u2, p.x);                              /* P = U2 - X1 */
    sub<FP>(s2, s2, p.y);                              /* R = S2 - Y1 */
    /* The rare cases in one branch, after the first two products (wasted when p is
       infinity, at the start of a thread's piece): tested first, p = infinity had its copy (36 moves) hoisted by ptxas
       onto every addition's path (sm_90 SASS; an H200's accumulation at 2^22 10.66 ->
       10.61 ms, at 2^24 37.01 -> 36.96). */
    const bool inf = is_zero(p.zz);
    if ((int)inf | (int)none | (int)is_zero_mod<FP>(u2)) {
        if (none) return;
        if (inf) set_affine(p, x, y, false);
        else if (is_zero_mod<FP>(s2)) dbl_affine(p, x, y);
        else set_inf(p);
        return;
    }
    sqr<FP>(pp, u2);
    mul<FP>(ppp, u2, pp);
    mul<FP>(q, p.x, pp);
    mul<FP>(p.zz, p.zz, pp);                           /* ZZ3, ZZZ3 first: fewer values live */
    mul<FP>(p.zzz, p.zzz, ppp);                        /* in mul_sub's 512-bit products */
    sqr<FP>(u2, s2);                                   /* X3 = R^2 - PPP - 2Q */
    sub<FP>(u2, u2, ppp);
    sub<FP>(u2, u2, q);
    sub<FP>(p.x, u2, q);
    sub<FP>(q, q, p.x);                                /* Y3 = R (Q - X3) - Y1 PPP */
    mul_sub(p.y, s2, q, p.y, ppp);
}
/* p += q (add-2008-s) */
__device__ __forceinline__ void add_xyzz(xyzz &p, const xyzz &q)
{
    u32 u1[8], u2[8], s1[8], s2[8], t[8];
    if (is_zero(q.zz)) return;
    if (is_zero(p.zz)) { p = q; return; }
    mul<FP>(u1, p.x, q.zz);
    mul<FP>(u2, q.x, p.zz);
    mul<FP>(s1, p.y, q.zzz);
    mul<FP>(s2, q.y, p.zzz);
    sub<FP>(u2, u2, u1);                               /* P */
    sub<FP>(s2, s2, s1);                               /* R */
    if (is_zero_mod<FP>(u2)) {
        if (is_zero_mod<FP>(s2)) dbl(p); else set_inf(p);   /* rare: compact */
        return;
    }
    sqr<FP>(t, u2);                                    /* PP */
    mul<FP>(p.zz, p.zz, q.zz);
    mul<FP>(p.zz, p.zz, t);
    mul<FP>(u1, u1, t);                                /* Q = U1 PP */
    mul<FP>(t, u2, t);                                 /* PPP */
    mul<FP>(p.zzz, p.zzz, q.zzz);
    mul<FP>(p.zzz, p.zzz, t);
    sqr<FP>(u2, s2);                                   /* X3 = R^2 - PPP - 2Q */
    sub<FP>(u2, u2, t);
    sub<FP>(u2, u2, u1);
    sub<FP>(p.x, u2, u1);
    sub<FP>(u1, u1, p.x);                              /* Y3 = R (Q - X3) - S1 PPP */
    mul_sub(p.y, s2, u1, s1, t);
}

/* ---- memory: points and XYZZ sums as 16-byte vectors */
__device__ __forceinline__ void load8(u32 *o, const u32 *p)
{
    const uint4 a = ((const uint4 *)p)[0], b = ((const uint4 *)p)[1];
    o[0] = a.x; o[1] = a.y; o[2] = a.z; o[3] = a.w; o[4] = b.x; o[5] = b.y; o[6] = b.z; o[7] = b.w;
}
__device__ __forceinline__ void store8(u32 *p, const u32 *v)
{
    uint4 a, b;
    a.x = v[0]; a.y = v[1]; a.z = v[2]; a.w = v[3]; b.x = v[4]; b.y = v[5]; b.z = v[6]; b.w = v[7];
    ((uint4 *)p)[0] = a;
    ((uint4 *)p)[1] = b;
}
__device__ __forceinline__ void load_xyzz(xyzz &p, const u32 *m)
{
    load8(p.x, m); load8(p.y, m + 8); load8(p.zz, m + 16); load8(p.zzz, m + 24);
}
__device__ __forceinline__ void store_xyzz(u32 *m, const xyzz &p)
{
    store8(m, p.x); store8(m + 8, p.y); store8(m + 16, p.zz); store8(m + 24, p.zzz);
}

/* The launch arguments: mgpu__msm_args in mgpu.h, field for field. */
struct args {
    const u32 *scalars;                /* n scalars, 8 words each, as the caller gave them */
    const u32 *points;                 /* affine points, 16 words each, Montgomery form */
    u32 *out;                          /* convert / precompute: output points or scalars */
    u32 *keys;                         /* windows x n digit keys: bucket | negative << 31, or NONE */
    u32 *counts;                       /* bin counters, then bucket counters (zero before each count); then cursors */
    u32 *offsets;                      /* G + 1 bucket starts */
    u32 *partials;                     /* scan: one total per tile, then the grand total */
    u32 *entries;                      /* M entries sorted by bucket */
    uint2 *binned;                     /* M (key, entry) pairs grouped by bin */
    u32 *bin_offsets;                  /* bins + 1 bin starts */
    u32 *buckets;                      /* XYZZ bucket sums (32 words each), at bucket_slot() */
    u32 *slot_keys;                    /* per piece: head and tail bucket (NONE: unused) */
    u32 *slot_sums;                    /* per piece: head and tail XYZZ sums */
    u32 *seg;                          /* wf * S segments: (tot, run) XYZZ pairs */
    u32 *sums;                         /* wf * (1 + seg_bits) XYZZ window parts */
    u32 *status;                       /* check: the lowest bad point index (NONE: all good);
                                          fixup: [0] the number of long buckets, then their ids */
    u64 n;                             /* scalars (or points) of this launch */
    u64 copy_stride;                   /* points between precomputed copies */
    u32 flags;                         /* MGPU_MSM_* as given (1: scalars Montgomery, 2: points) */
    u32 c, windows, factor, wf;        /* window bits, W, precompute factor, windows per copy */
    u32 nbuckets, G;                   /* B = 2^(c-1) per window; G = wf * B */
    u32 chunk_len, chunks;             /* msm_accumulate: entries per thread, threads */
    u32 seg_len, seg_count, seg_bits;  /* m, S = B / m, log2 S */
    u32 to_mont;                       /* convert: 1 to Montgomery form, 0 from it */
    u32 sparse;                        /* buckets outnumber entries: a bucket's sum is kept at
                                          its first entry's index instead of its own */
    u32 bin_shift;                     /* a bin is 2^bin_shift buckets */
    u32 bins;                          /* bins of a window: B >> bin_shift (<= MAX_BINS) */
    u32 resume;                        /* pieces after the first of one MSM: `buckets` holds the sums
                                          of the pieces before (dense, infinity where none), and
                                          this piece's entries are added to them */
    u32 fixup_serial;                  /* msm_fixup adds up to this many head slots; longer buckets are queued */
    u32 long_lanes;                    /* msm_fixup_long: threads per queued bucket (a power of two <= 64) */
    u32 group_max;                     /* ... up to this many head slots; more: a whole block */
    u32 group;                         /* (the host's: which group's kernels it launched) */
    u32 op;                            /* msm_finish_*: which sums (OP_*) */
};
enum { NONE = 0xffffffffu, SCAN_THREADS = 256, SCAN_ITEMS = 16, SCAN_TILE = SCAN_THREADS * SCAN_ITEMS,
       SCALARS_MONT = 1, POINTS_MONT = 2 };

__device__ __forceinline__ u64 bucket_slot(const args &a, u32 g) { return (u64)(a.sparse ? a.offsets[g] : g) * 32; }
/* The same for a nonempty bucket g whose first entry is `start` (a.offsets[g], not loaded) */
__device__ __forceinline__ u64 bucket_slot_at(const args &a, u32 g, u32 start) { return (u64)(a.sparse ? start : g) * 32; }
__device__ __forceinline__ u64 global_id() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u32 lane_id() { return threadIdx.x & 31; }

/* The scalar in standard form, reduced modulo r (any 256-bit input). */
__device__ __forceinline__ void normalize(u32 *k, const u32 *raw, bool montgomery)
{
    reduce_any<FR>(k, raw);
    if (montgomery) {                                  /* k / R: a multiplication by 1 */
        const u32 one[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
        mul<FR, true>(k, one, k);
        reduce_once<FR>(k, k);
    }
}
/* Window t's signed digit of k, given the carry out of window t-1: returns the bucket
   (|d| - 1, or NONE for d = 0) and sets *neg for d < 0. */
__device__ __forceinline__ u32 digit(const u32 *k, u32 t, u32 c, u32 &carry, u32 &neg)
{
    const u32 bit = t * c, w = bit >> 5, sh = bit & 31, half = 1u << (c - 1);
    u32 v = w < 8 ? k[w] >> sh : 0;
    if (sh + c > 32 && w + 1 < 8) v |= k[w + 1] << (32 - sh);
    v = (v & ((half << 1) - 1)) + carry;
    neg = v > half;
    carry = neg;
    v = neg ? (half << 1) - v : v;
    return v ? v - 1 : NONE;
}
/* Bucket index of window t (NONE stays NONE) and the copy it belongs to. */
__device__ __forceinline__ u32 bucket_of(const args &a, u32 t, u32 b, u32 &copy_index)
{
    copy_index = t / a.wf;
    return b == NONE ? NONE : (t - copy_index * a.wf) * a.nbuckets + b;
}

} /* namespace mgpu_bn */

using namespace mgpu_bn;

/* In place (or in -> out) conversion of n points (16 words) or scalars (8 words) to or from
   Montgomery form: a.points / a.scalars -> a.out. */
extern "C" __global__ void mgpu_msm_convert_points(const mgpu_bn::args a)
{
    for (u64 i = global_id(); i < a.n; i += (u64)gridDim.x * blockDim.x) {
        u32 v[8];
        for (int h = 0; h < 2; h++) {
            load8(v, a.points + i * 16 + h * 8);
            if (a.to_mont) to_mont<FP>(v, v); else from_mont<FP>(v, v);
            store8(a.out + i * 16 + h * 8, v);
        }
    }
}
extern "C" __global__ void mgpu_msm_convert_scalars(const mgpu_bn::args a)
{
    for (u64 i = global_id(); i < a.n; i += (u64)gridDim.x * blockDim.x) {
        u32 v[8];
        load8(v, a.scalars + i * 8);
        if (a.to_mont) to_mont<FR>(v, v); else from_mont<FR>(v, v);
        store8(a.out + i * 8, v);
    }
}

/* *(u64 *)status = the lowest index * 4 + 1 of a point with a coordinate >= p, or + 2 off
   y^2 = x^3 + 3 ((0, 0) is infinity and fine). Points in the form a.flags says. */
extern "C" __global__ void mgpu_msm_check_points(const mgpu_bn::args a)
{
    for (u64 i = global_id(); i < a.n; i += (u64)gridDim.x * blockDim.x) {
        u32 x[8], y[8], l[8], r[8];
        load8(x, a.points + i * 16);
        load8(y, a.points + i * 16 + 8);
        const bool field = below_mod<FP>(x) && below_mod<FP>(y);
        bool good = field;
        if (good && !(is_zero(x) && is_zero(y))) {
            if (!(a.flags & POINTS_MONT)) { to_mont<FP>(x, x); to_mont<FP>(y, y); }
            mul<FP, false>(l, y, y);
            mul<FP, false>(r, x, x);
            mul<FP, false>(r, r, x);
            add<FP>(r, r, B3_P);
            reduce_once<FP>(r, r);
            good = equal(l, r);
        }
        if (!good) atomicMin((unsigned long long *)a.status, (unsigned long long)(i * 4 + (field ? 2 : 1)));
    }
}

/* One thread per scalar: its W digit keys, window-major so that the sort reads them in order. */
extern "C" __global__ void __launch_bounds__(256) mgpu_msm_digits(const mgpu_bn::args a)
{
    const u64 i = global_id();
    if (i >= a.n) return;
    u32 raw[8], k[8], carry = 0, neg, cp;
    load8(raw, a.scalars + i * 8);
    normalize(k, raw, (a.flags & SCALARS_MONT) != 0);
    for (u32 t = 0; t < a.windows; t++) {
        const u32 key = bucket_of(a, t, digit(k, t, a.c, carry, neg), cp);
        a.keys[(u64)t * a.n + i] = key == NONE ? NONE : key | (neg << 31);
    }
}

/* Exclusive scan over the block of one value per thread; *total = the block's sum. */
template <u32 THREADS> __device__ __forceinline__ u32 block_exclusive_scan(u32 v, u32 *total)
{
    __shared__ u32 warp_sums[THREADS / 32];
    const u32 lane = lane_id(), warp = threadIdx.x >> 5;
    u32 x = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const u32 y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= (u32)d) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    u32 before = 0, all = 0;
    for (u32 w = 0; w < THREADS / 32; w++) {
        if (w < warp) before += warp_sums[w];
        all += warp_sums[w];
    }
    __syncthreads();                                   /* warp_sums is reused by the next call */
    *total = all;
    return before + x - v;
}
/* Exclusive scan of counts[0..G) in tiles of SCAN_TILE: offsets (within the tile) and
   partials[tile] = the tile's total. Launched for the bin counts (G = the bins, offsets =
   bin_offsets) and then for the bucket counts. A single tile (small n) finishes the scan
   here, as msm_scan_add would: offsets[G] = the total, and the counts become cursors. */
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) mgpu_msm_scan_tiles(const mgpu_bn::args a)
{
    const u64 base = (u64)blockIdx.x * SCAN_TILE + (u64)threadIdx.x * SCAN_ITEMS;
    const bool whole = gridDim.x == 1;
    u32 v[SCAN_ITEMS], sum = 0, total;
#pragma unroll
    for (u32 q = 0; q < (u32)SCAN_ITEMS; q++) {
        v[q] = base + q < a.G ? a.counts[base + q] : 0;
        sum += v[q];
    }
    u32 run = block_exclusive_scan<SCAN_THREADS>(sum, &total);
#pragma unroll
    for (u32 q = 0; q < (u32)SCAN_ITEMS; q++) {
        if (base + q < a.G) {
            a.offsets[base + q] = run;
            if (whole) a.counts[base + q] = run;       /* (this thread's own counts, read above) */
        }
        run += v[q];
    }
    if (threadIdx.x == 0) {
        if (whole) a.offsets[a.G] = total;
        else a.partials[blockIdx.x] = total;
    }
}
/* One block: partials[0..tiles) -> their exclusive scan; partials[tiles] = the total. */
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) mgpu_msm_scan_partials(const mgpu_bn::args a)
{
    const u32 tiles = (a.G + SCAN_TILE - 1) / SCAN_TILE;
    u32 carry = 0;
    for (u32 base = 0; base < tiles; base += SCAN_THREADS) {
        const u32 i = base + threadIdx.x;
        const u32 v = i < tiles ? a.partials[i] : 0;
        u32 total;
        const u32 x = block_exclusive_scan<SCAN_THREADS>(v, &total);
        if (i < tiles) a.partials[i] = carry + x;
        carry += total;
    }
    if (threadIdx.x == 0) a.partials[tiles] = carry;
}
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) mgpu_msm_scan_add(const mgpu_bn::args a)
{
    const u32 tiles = (a.G + SCAN_TILE - 1) / SCAN_TILE, add = a.partials[blockIdx.x];
    const u64 base = (u64)blockIdx.x * SCAN_TILE;
    for (u32 q = threadIdx.x; q < SCAN_TILE; q += SCAN_THREADS)
        if (base + q < a.G) a.counts[base + q] = a.offsets[base + q] += add;   /* counts: the cursors */
    if (blockIdx.x == 0 && threadIdx.x == 0) a.offsets[a.G] = a.partials[tiles];
}

/* ---- the two-level sort (see the top of this section). Tiles of one window's keys:
   blockIdx.x = tile * windows + window (the windows interleaved: blocks running at one time
   spread their atomics over every window's bin counters). Ranks and counts come from
   shared-memory atomics, global atomics are per tile and bin: the single-level sort's
   msm_digits, which counted every key with a global atomic (a warp's equal keys at once,
   by __match_any_sync), took 2.40 ms at 2^24 on an H200, the digits alone 0.67. */
enum { BIN_THREADS = 256, BIN_ITEMS = 24, BIN_TILE = BIN_THREADS * BIN_ITEMS, BIN_COUNT_ITEMS = 32, MAX_BINS = 1024 };
/* counter[slot] += 1 unless slot is NONE; the count before. */
__device__ __forceinline__ u32 count_one(u32 *counter, u32 slot)
{
    return slot == NONE ? 0 : atomicAdd(&counter[slot], 1u);
}
/* The bin of a key within its window's bins (NONE for NONE). */
__device__ __forceinline__ u32 window_bin(const args &a, u32 key, u32 bin0)
{
    return key == NONE ? NONE : ((key & 0x7fffffffu) >> a.bin_shift) - bin0;
}
extern "C" __global__ void __launch_bounds__(BIN_THREADS) mgpu_msm_bin_count(const mgpu_bn::args a)
{
    __shared__ u32 hist[MAX_BINS];
    const u32 n = (u32)a.n;
    const u32 tile = blockIdx.x / a.windows, t = blockIdx.x - tile * a.windows, bin0 = (t % a.wf) * a.bins;
    for (u32 b = threadIdx.x; b < a.bins; b += BIN_THREADS) hist[b] = 0;
    __syncthreads();
#pragma unroll 8
    for (u32 q = 0; q < BIN_COUNT_ITEMS; q++) {
        const u32 i = (tile * BIN_COUNT_ITEMS + q) * BIN_THREADS + threadIdx.x;
        (void)count_one(hist, window_bin(a, i < n ? a.keys[(u64)t * n + i] : NONE, bin0));
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < a.bins; b += BIN_THREADS)
        if (hist[b]) atomicAdd(&a.counts[bin0 + b], hist[b]);
}
extern "C" __global__ void __launch_bounds__(BIN_THREADS) mgpu_msm_bin_scatter(const mgpu_bn::args a)
{
    /* The tile sorted by bin: each key and its index in the tile, 16 bits (44 KB in all for
       tiles of 6144: an H200 at 2^24, bin scatter 2.38 -> 2.16 ms against tiles of 4096
       with the entries' 32 bits) */
    __shared__ u32 start[MAX_BINS], place[MAX_BINS], skey[BIN_TILE];
    __shared__ unsigned short slocal[BIN_TILE];
    const u32 n = (u32)a.n;
    const u32 tile = blockIdx.x / a.windows, t = blockIdx.x - tile * a.windows, cp = t / a.wf, bin0 = (t - cp * a.wf) * a.bins;
    for (u32 b = threadIdx.x; b < a.bins; b += BIN_THREADS) start[b] = 0;
    __syncthreads();
    u32 key[BIN_ITEMS], rank[BIN_ITEMS];
#pragma unroll
    for (u32 q = 0; q < BIN_ITEMS; q++) {              /* the tile's count of each bin, each key's rank */
        const u32 i = tile * BIN_TILE + q * BIN_THREADS + threadIdx.x;
        key[q] = i < n ? a.keys[(u64)t * n + i] : NONE;
        rank[q] = count_one(start, window_bin(a, key[q], bin0));
    }
    __syncthreads();
    enum { PER = MAX_BINS / BIN_THREADS };             /* bins first .. first + PER of this thread */
    const u32 first = threadIdx.x * PER;
    u32 count[PER], sum = 0, total;
#pragma unroll
    for (u32 j = 0; j < PER; j++) { count[j] = first + j < a.bins ? start[first + j] : 0; sum += count[j]; }
    u32 run = block_exclusive_scan<BIN_THREADS>(sum, &total);
#pragma unroll
    for (u32 j = 0; j < PER; j++) {                    /* each bin's run: its start in the tile and in bin_* */
        if (count[j]) { start[first + j] = run; place[first + j] = atomicAdd(&a.counts[bin0 + first + j], count[j]); }
        run += count[j];
    }
    __syncthreads();
#pragma unroll
    for (u32 q = 0; q < BIN_ITEMS; q++) {              /* the tile sorted by bin */
        if (key[q] == NONE) continue;
        const u32 i = tile * BIN_TILE + q * BIN_THREADS + threadIdx.x, at = start[window_bin(a, key[q], bin0)] + rank[q];
        skey[at] = key[q];
        slocal[at] = (unsigned short)(i - tile * BIN_TILE);
    }
    __syncthreads();
    for (u32 j = threadIdx.x; j < total; j += BIN_THREADS) {   /* neighbours of one bin: neighbouring words */
        const u32 b = window_bin(a, skey[j], bin0), to = place[b] + j - start[b];
        a.binned[to] = make_uint2(skey[j], (cp * n + tile * BIN_TILE + slocal[j]) | (skey[j] & 0x80000000u));
    }
}
/* ---- the second level: the entries of `binned` into their buckets' slices of `entries`,
   in tiles of PLACE_TILE entries (so a bin of one popular bucket is spread over many
   blocks). A tile's entries come from the bins of its first to its last entry, a range of
   buckets that a shared-memory histogram holds (span <= MAX_TILE_BUCKETS, nearly always:
   the bins hold about MGPU__MSM_BIN_ENTRIES entries each); the histogram's buckets take
   their counts and places with one global atomic each, the entries their ranks with
   shared-memory atomics. Tiles of more buckets (few entries over many small bins) count and
   place each entry with a global atomic. Blocks running at one time take neighbouring
   tiles, whose bucket slices L2 holds until they are whole. */
enum { PLACE_THREADS = 512, PLACE_ITEMS = 8, PLACE_TILE = PLACE_THREADS * PLACE_ITEMS, MAX_TILE_BUCKETS = 4096 };
/* Tile blockIdx.x: its entries (key NONE past the last) and its buckets [g0, g0 + span);
   false (for the whole block) past the entries. */
__device__ __forceinline__ bool place_tile(const args &a, uint2 *e, u32 &g0, u32 &span)
{
    const u32 M = a.bin_offsets[a.wf * a.bins], lo = blockIdx.x * PLACE_TILE;
    if (lo >= M) return false;
    const u32 hi = M - lo < PLACE_TILE ? M : lo + PLACE_TILE;
    const u32 b0 = (a.binned[lo].x & 0x7fffffffu) >> a.bin_shift, b1 = (a.binned[hi - 1].x & 0x7fffffffu) >> a.bin_shift;
    g0 = b0 << a.bin_shift;
    span = (b1 - b0 + 1) << a.bin_shift;
#pragma unroll
    for (u32 q = 0; q < PLACE_ITEMS; q++) {
        const u32 j = lo + q * PLACE_THREADS + threadIdx.x;
        e[q] = j < hi ? a.binned[j] : make_uint2(NONE, 0);
    }
    return true;
}
/* The bucket of a tile's entry, counted from g0 (NONE for none). */
__device__ __forceinline__ u32 tile_bucket(uint2 e, u32 g0) { return e.x == NONE ? NONE : (e.x & 0x7fffffffu) - g0; }
/* hist[0..span) = the tile's count of each bucket (span <= MAX_TILE_BUCKETS); each entry's
   .x becomes its bucket | its rank in the bucket << 16 (both < 2^16; NONE stays NONE). */
__device__ __forceinline__ void tile_histogram(u32 *hist, uint2 *e, u32 g0, u32 span)
{
    for (u32 k = threadIdx.x; k < span; k += PLACE_THREADS) hist[k] = 0;
    __syncthreads();
#pragma unroll
    for (u32 q = 0; q < PLACE_ITEMS; q++) {
        const u32 b = tile_bucket(e[q], g0);
        e[q].x = b == NONE ? NONE : b | count_one(hist, b) << 16;
    }
    __syncthreads();
}
/* Each tile's count of each bucket, added to counts[0..G) (zero before). */
extern "C" __global__ void __launch_bounds__(PLACE_THREADS) mgpu_msm_place_count(const mgpu_bn::args a)
{
    __shared__ u32 hist[MAX_TILE_BUCKETS];
    uint2 e[PLACE_ITEMS];
    u32 g0, span;
    if (!place_tile(a, e, g0, span)) return;
    if (span > MAX_TILE_BUCKETS) {
#pragma unroll
        for (u32 q = 0; q < PLACE_ITEMS; q++) (void)count_one(a.counts, tile_bucket(e[q], 0));
        return;
    }
    tile_histogram(hist, e, g0, span);
    for (u32 k = threadIdx.x; k < span; k += PLACE_THREADS)
        if (hist[k]) atomicAdd(&a.counts[g0 + k], hist[k]);
}
/* After the scan of the bucket counts (counts[g] = bucket g's cursor): each tile's entries
   into their buckets' slices. The tile is first sorted by bucket in shared memory, so that
   neighbouring threads write neighbouring words of a slice (written in tile order, every
   4-byte store of a warp had its own sector: an H200 at 2^24 moved 13.8 GB through L2 for
   0.9 GB of entries, 3.0 ms). Each thread keeps its PER buckets' places in registers, and
   `start` ends as each bucket's place less its start in the sorted tile (40 KB of shared
   memory: two blocks of 512 a multiprocessor). */
extern "C" __global__ void __launch_bounds__(PLACE_THREADS, 2) mgpu_msm_place_write(const mgpu_bn::args a)
{
    enum { PER = MAX_TILE_BUCKETS / PLACE_THREADS };   /* buckets first .. first + PER of this thread */
    __shared__ u32 start[MAX_TILE_BUCKETS], sval[PLACE_TILE];
    __shared__ unsigned short sbucket[PLACE_TILE];
    uint2 e[PLACE_ITEMS];
    u32 g0, span;
    if (!place_tile(a, e, g0, span)) return;
    if (span > MAX_TILE_BUCKETS) {
#pragma unroll
        for (u32 q = 0; q < PLACE_ITEMS; q++)
            if (e[q].x != NONE) a.entries[count_one(a.counts, tile_bucket(e[q], 0))] = e[q].y;
        return;
    }
    tile_histogram(start, e, g0, span);
    const u32 first = threadIdx.x * PER;
    u32 count[PER], place[PER], sum = 0, total;
#pragma unroll
    for (u32 j = 0; j < PER; j++) { count[j] = first + j < span ? start[first + j] : 0; sum += count[j]; }
    u32 run = block_exclusive_scan<PLACE_THREADS>(sum, &total);
#pragma unroll
    for (u32 j = 0; j < PER; j++) {                    /* each bucket's run: in the tile and in entries */
        if (count[j]) { place[j] = atomicAdd(&a.counts[g0 + first + j], count[j]); start[first + j] = run; }
        run += count[j];
    }
    __syncthreads();
#pragma unroll
    for (u32 q = 0; q < PLACE_ITEMS; q++) {            /* the tile sorted by bucket */
        if (e[q].x == NONE) continue;
        const u32 b = e[q].x & 0xffffu, at = start[b] + (e[q].x >> 16);
        sval[at] = e[q].y;
        sbucket[at] = (unsigned short)b;
    }
    __syncthreads();
#pragma unroll
    for (u32 j = 0; j < PER; j++)
        if (count[j]) start[first + j] = place[j] - start[first + j];
    __syncthreads();
    for (u32 j = threadIdx.x; j < total; j += PLACE_THREADS) a.entries[start[sbucket[j]] + j] = sval[j];
}

/* The point of an entry: copy (index / n) of point (index % n). */
__device__ __forceinline__ void entry_load(const args &a, u32 e, u32 *x, u32 *y)
{
    u64 idx = e & 0x7fffffffu;
    if (a.factor > 1) {
        const u64 cp = idx / a.n;
        idx = cp * a.copy_stride + (idx - cp * a.n);
    }
    load8(x, a.points + idx * 16);
    load8(y, a.points + idx * 16 + 8);
}
/* The point to add, negated for bit 31 of the entry (2p - y, lazy, as y < p). */
__device__ __forceinline__ void entry_sign(u32 e, u32 *y)
{
    if (e >> 31) {
        u32 m2[8];
        mod2_lit<FP>(m2);
        y[0] = sub_cc(m2[0], y[0]);
#pragma unroll
        for (int j = 1; j < 7; j++) y[j] = subc_cc(m2[j], y[j]);
        y[7] = subc(m2[7], y[7]);
    }
}
/* (0, 0): the point at infinity, which adds nothing */
__device__ __forceinline__ bool affine_inf(const u32 *x, const u32 *y)
{
    u32 t = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) t |= x[j] | y[j];
    return t == 0;
}

/* ---- the other groups: BN254 G2, BLS12-381 G1 and G2 (mgpu_msm_curve)
   The kernels from msm_accumulate on are written once as templates over a group G, which
   gives the words of a coordinate (W), of an XYZZ point (P = 4 W) and the point operations;
   g1 is BN254 G1's specialized code above, unchanged, and gen<F, D> the same formulas over
   any field F of N words (F_p, D = 1) or F_p2 = F_p[u] / (u^2 + 1) (D = 2), lazy values in
   [0, 2m) (4m < 2^(32 N) for both moduli: BLS12-381's p < 2^381 leaves 3 bits). The point
   sums use the tuned products (f_mulf, f_sqrf, f2_mulf: BN254 G1's even/odd code over N,
   inlined; an H200 at 2^24 against the compact call: BN254 G2 270 -> 153 ms, BLS12-381 G1
   162 -> 104, G2 549 -> 444); conversions and the rare doublings of the mixed addition
   the compact one (mul_step's loop, called). An element is c0's N words, then c1's. */
namespace mgpu_cv {

#define MGPU_CV_BLS_P { 0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u, \
                        0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau }
#define MGPU_CV_BLS_P2 { 0xffff5556u, 0x73fdffffu, 0x62a7ffffu, 0x3d57fffdu, 0xed61ec48u, 0xce61a541u, \
                         0xe70a257eu, 0xc8ee9709u, 0x869759aeu, 0x96374f6cu, 0x72ffcd34u, 0x340223d4u }
#define MGPU_CV_BLS_R2 { 0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u, 0x4c95b6d5u, 0x8de5476cu, \
                         0x939d83c0u, 0x67eb88a9u, 0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u }
#define MGPU_CV_BLS_ONE { 0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u, \
                          0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u }
#define MGPU_CV_BLS_R { 0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u, 0x09a1d805u, 0x3339d808u, \
                        0x299d7d48u, 0x73eda753u }
#define MGPU_CV_BLS_R2X { 0x00000002u, 0xfffffffeu, 0xfffcb7fdu, 0xa77b4805u, 0x1343b00au, 0x6673b010u, \
                          0x533afa90u, 0xe7db4ea6u }
/* A field's constants as literals (immediates in the unrolled code). */
#define MGPU_CV_FIELD(name, n, MODW, MOD2W, R2W, ONEW, INVW, M4SQW)                                      \
    struct name {                                                                                   \
        enum { N = n };                                                                             \
        static __device__ __forceinline__ void mod(u32 *m) { const u32 w[n] = MODW; _Pragma("unroll") for (int j = 0; j < n; j++) m[j] = w[j]; } \
        static __device__ __forceinline__ void mod2(u32 *m) { const u32 w[n] = MOD2W; _Pragma("unroll") for (int j = 0; j < n; j++) m[j] = w[j]; } \
        static __device__ __forceinline__ void r2(u32 *m) { const u32 w[n] = R2W; _Pragma("unroll") for (int j = 0; j < n; j++) m[j] = w[j]; } \
        static __device__ __forceinline__ void one(u32 *m) { const u32 w[n] = ONEW; _Pragma("unroll") for (int j = 0; j < n; j++) m[j] = w[j]; } \
        static __device__ __forceinline__ u32 inv() { return INVW; }                                \
        static __device__ __forceinline__ void m4sq(u32 *m) { const u32 w[2 * n] = M4SQW; _Pragma("unroll") for (int j = 0; j < 2 * n; j++) m[j] = w[j]; } \
    };
#define MGPU_CV_W8(i, a) { a[i][0], a[i][1], a[i][2], a[i][3], a[i][4], a[i][5], a[i][6], a[i][7] }
#define MGPU_CV_BN_P { 0xd87cfd47u, 0x3c208c16u, 0x6871ca8du, 0x97816a91u, 0x8181585du, 0xb85045b6u, 0xe131a029u, 0x30644e72u }
#define MGPU_CV_BN_P2 { 0xb0f9fa8eu, 0x7841182du, 0xd0e3951au, 0x2f02d522u, 0x0302b0bbu, 0x70a08b6du, 0xc2634053u, 0x60c89ce5u }
#define MGPU_CV_BN_R2 { 0x538afa89u, 0xf32cfc5bu, 0xd44501fbu, 0xb5e71911u, 0x0a417ff6u, 0x47ab1effu, 0xcab8351fu, 0x06d89f71u }
#define MGPU_CV_BN_ONE { 0xc58f0d9du, 0xd35d438du, 0xf5c70b3du, 0x0a78eb28u, 0x7879462cu, 0x666ea36fu, 0x9a07df2fu, 0x0e0a77c1u }
#define MGPU_CV_BN_P4SQ { 0x9d75a6c4u, 0xed516288u, 0x27ab0404u, 0x98081cb4u, 0xb65b2b72u, 0x29406271u, 0xe8490b21u, 0x11a27a55u, \
                        0xd31ace34u, 0x9bb7e970u, 0x58dd5818u, 0xc02e1544u, 0x0d234872u, 0x6669bdf0u, 0xd8f2fe71u, 0x249712e1u }
#define MGPU_CV_BLS_P4SQ { 0x71c638e4u, 0x9aa80000u, 0xd8e0baacu, 0xf3b5ac75u, 0x8844f3f5u, 0x58b0ce0du, 0xf9c6dd0cu, 0x9afe47b4u, \
                         0xc2468125u, 0xa4ba16a1u, 0x186171ecu, 0x75a18672u, 0x25e3bc04u, 0xd4c524ccu, 0x5b7729bbu, 0x4298b3f4u, \
                         0xd27a2f41u, 0x9b967924u, 0x39c11ad1u, 0x8b724394u, 0x88bc97a7u, 0x2f49e3aau, 0xe30d7f1du, 0x0a90de92u }
MGPU_CV_FIELD(bn_p, 8, MGPU_CV_BN_P, MGPU_CV_BN_P2, MGPU_CV_BN_R2, MGPU_CV_BN_ONE, 0xe4866389u, MGPU_CV_BN_P4SQ)
MGPU_CV_FIELD(bls_p, 12, MGPU_CV_BLS_P, MGPU_CV_BLS_P2, MGPU_CV_BLS_R2, MGPU_CV_BLS_ONE, 0xfffcfffdu, MGPU_CV_BLS_P4SQ)
MGPU_CV_FIELD(bls_r, 8, MGPU_CV_BLS_R, MGPU_CV_BLS_R2X, MGPU_CV_BLS_R, MGPU_CV_BLS_R, 0xffffffffu, { 0 })   /* (r2, one, m4sq unused) */

/* ---- F of N words: lazy values in [0, 2m) */
template <int N> __device__ __forceinline__ bool nz(const u32 *a)
{
    u32 t = 0;
#pragma unroll
    for (int j = 0; j < N; j++) t |= a[j];
    return t != 0;
}
template <int N> __device__ __forceinline__ bool eq(const u32 *a, const u32 *b)
{
    u32 t = 0;
#pragma unroll
    for (int j = 0; j < N; j++) t |= a[j] ^ b[j];
    return t == 0;
}
template <int N> __device__ __forceinline__ void sub_ge(u32 *o, const u32 *t, const u32 *b)   /* t >= b ? t - b : t */
{
    u32 s[N];
    s[0] = sub_cc(t[0], b[0]);
#pragma unroll
    for (int j = 1; j < N; j++) s[j] = subc_cc(t[j], b[j]);
    const u32 borrow = subc(0, 0);
#pragma unroll
    for (int j = 0; j < N; j++) o[j] = (t[j] & borrow) | (s[j] & ~borrow);
}
template <class F> __device__ __forceinline__ void f_add(u32 *o, const u32 *a, const u32 *b)
{
    enum { N = F::N };
    u32 t[N], m2[N];
    t[0] = add_cc(a[0], b[0]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) t[j] = addc_cc(a[j], b[j]);
    t[N - 1] = addc(a[N - 1], b[N - 1]);               /* < 4m: no carry out */
    F::mod2(m2);
    sub_ge<N>(o, t, m2);
}
template <class F> __device__ __forceinline__ void f_sub(u32 *o, const u32 *a, const u32 *b)
{
    enum { N = F::N };
    u32 t[N];
    t[0] = sub_cc(a[0], b[0]);
#pragma unroll
    for (int j = 1; j < N; j++) t[j] = subc_cc(a[j], b[j]);
    if (subc(0, 0)) {
        u32 m2[N];
        F::mod2(m2);
        t[0] = add_cc(t[0], m2[0]);
#pragma unroll
        for (int j = 1; j < N - 1; j++) t[j] = addc_cc(t[j], m2[j]);
        t[N - 1] = addc(t[N - 1], m2[N - 1]);
    }
#pragma unroll
    for (int j = 0; j < N; j++) o[j] = t[j];
}
/* o = a b / R (CIOS, mul_step for N words): below (2m)^2 / R + m < 2m for lazy a, b. */
template <class F> __device__ __forceinline__ void f_mul(u32 *o, const u32 *a, const u32 *b)
{
    enum { N = F::N };
    u32 t[N + 1], m[N];
    F::mod(m);
#pragma unroll
    for (int j = 0; j <= N; j++) t[j] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const u32 bi = b[i];
        t[0] = mad_lo_cc(a[0], bi, t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = madc_lo_cc(a[j], bi, t[j]);
        t[N] = addc(t[N], 0);
        t[1] = mad_hi_cc(a[0], bi, t[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++) t[j + 1] = madc_hi_cc(a[j], bi, t[j + 1]);
        t[N] = madc_hi(a[N - 1], bi, t[N]);
        const u32 q = t[0] * F::inv();
        t[0] = mad_lo_cc(q, m[0], t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = madc_lo_cc(q, m[j], t[j]);
        t[N] = addc(t[N], 0);
        t[1] = mad_hi_cc(q, m[0], t[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++) t[j + 1] = madc_hi_cc(q, m[j], t[j + 1]);
        t[N] = madc_hi(q, m[N - 1], t[N]);
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = t[j + 1];
        t[N] = 0;
    }
#pragma unroll
    for (int j = 0; j < N; j++) o[j] = t[j];
}
/* The product as a call: one copy a kernel. Inlined, the points' formulas held hundreds
   of them (a BLS12-381 G2 sum: 42 products of 12 words), too much code to compile and to
   ship; the call passes its operands through local memory. */
template <class F> __device__ __noinline__ void f_mul_call(u32 *o, const u32 *a, const u32 *b) { f_mul<F>(o, a, b); }

/* ---- the tuned products for N words: mgpu_bn's even/odd accumulators (mad_n_redc,
   mul_wide, sqr_wide, redc) written over N (8 or 12; the carry out of the top word stays 0
   because 4m < 2^(32 N)), the moduli literals, inlined in the point sums (ext<F, D, true>). */
template <int N> __device__ __forceinline__ void madc_rshift_n(u32 *odd, const u32 *a, u32 bi)
{
#pragma unroll
    for (int j = 0; j < N - 2; j += 2) { odd[j] = madc_lo_cc(a[j], bi, odd[j + 2]); odd[j + 1] = madc_hi_cc(a[j], bi, odd[j + 3]); }
    odd[N - 2] = madc_lo_cc(a[N - 2], bi, 0);
    odd[N - 1] = madc_hi(a[N - 2], bi, 0);
}
template <class F> __device__ __forceinline__ void mad_n_redc_f(u32 *even, u32 *odd, const u32 *a, u32 bi, bool first)
{
    enum { N = F::N };
    if (first) {
        mul_m<N / 2>(odd, a + 1, bi);
        mul_m<N / 2>(even, a, bi);
    } else {
        even[0] = add_cc(even[0], odd[1]);
        madc_rshift_n<N>(odd, a + 1, bi);
        cmad_m<N / 2>(even, a, bi);
        odd[N - 1] = addc(odd[N - 1], 0);
    }
    u32 m[N];
    F::mod(m);
    const u32 q = even[0] * F::inv();
    cmad_m<N / 2>(odd, m + 1, q);
    cmad_m<N / 2>(even, m, q);
    odd[N - 1] = addc(odd[N - 1], 0);
}
/* o = a b / R, lazy in and out (below (2m)^2 / R + m < 2m) */
template <class F> __device__ __forceinline__ void f_mulf(u32 *o, const u32 *a, const u32 *b)
{
    enum { N = F::N };
    u32 even[N], odd[N];
#pragma unroll
    for (int i = 0; i < N; i += 2) {
        mad_n_redc_f<F>(even, odd, a, b[i], i == 0);
        mad_n_redc_f<F>(odd, even, a, b[i + 1], false);
    }
    o[0] = add_cc(even[0], odd[1]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) o[j] = addc_cc(even[j], odd[j + 1]);
    o[N - 1] = addc(even[N - 1], 0);
}
/* w = a b for a of N words and b of M (even): N + M words */
template <int N, int M> __device__ __forceinline__ void mul_wide_nm(u32 *w, const u32 *a, const u32 *b)
{
    u32 odd[N + M - 2];
    mul_m<N / 2>(w, a, b[0]);
    mul_m<N / 2>(odd, a + 1, b[0]);
    row<N>(w + 2, odd, a, b[1]);
#pragma unroll
    for (int i = 2; i < M; i += 2) {
        row<N>(odd + i, w + i, a, b[i]);
        row<N>(w + i + 2, odd + i, a, b[i + 1]);
    }
    w[1] = add_cc(w[1], odd[0]);
#pragma unroll
    for (int k = 2; k < N + M - 1; k++) w[k] = addc_cc(w[k], odd[k - 1]);
    w[N + M - 1] = addc(w[N + M - 1], 0);
}
template <int N> __device__ __forceinline__ void mul_wide_n(u32 *w, const u32 *a, const u32 *b) { mul_wide_nm<N, N>(w, a, b); }
/* rows I .. N - 2 of sqr_wide_n: a_j a_I for j > I, at word 2I + 1 on */
template <int N, int I> __device__ __forceinline__ void sqr_rows(u32 *w, u32 *odd, const u32 *a)
{
    if constexpr (I < N - 1) {
        row<N - 1 - I>(w + 2 * I + 2, odd + 2 * I, a + I + 1, a[I]);
        sqr_rows<N, I + 1>(w, odd, a);
    }
}
/* w = a^2: the N (N - 1) / 2 products a_j a_i (j > i) once, doubled, plus the squares */
template <int N> __device__ __forceinline__ void sqr_wide_n(u32 *w, const u32 *a)
{
    u32 odd[2 * N - 2];
    mul_m<N / 2>(odd, a + 1, a[0]);
    mul_m<N / 2 - 1>(w + 2, a + 2, a[0]);
    sqr_rows<N, 1>(w, odd, a);
    w[2] = add_cc(w[2], odd[1]);
#pragma unroll
    for (int k = 3; k < 2 * N - 2; k++) w[k] = addc_cc(w[k], odd[k - 1]);
    w[2 * N - 2] = addc(odd[2 * N - 3], 0);
    w[1] = add_cc(odd[0], odd[0]);
#pragma unroll
    for (int k = 2; k < 2 * N - 1; k++) w[k] = addc_cc(w[k], w[k]);
    w[2 * N - 1] = addc(0, 0);
    w[0] = mad_lo_cc(a[0], a[0], 0);
    w[1] = madc_hi_cc(a[0], a[0], w[1]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) { w[2 * i] = madc_lo_cc(a[i], a[i], w[2 * i]); w[2 * i + 1] = madc_hi_cc(a[i], a[i], w[2 * i + 1]); }
    w[2 * N - 2] = madc_lo_cc(a[N - 1], a[N - 1], w[2 * N - 2]);
    w[2 * N - 1] = madc_hi(a[N - 1], a[N - 1], w[2 * N - 1]);
}
template <class F> __device__ __forceinline__ void redc_row_f(u32 *even, u32 *odd, bool first)
{
    enum { N = F::N };
    u32 q, m[N];
    F::mod(m);
    if (first) {
        q = even[0] * F::inv();
        mul_m<N / 2>(odd, m + 1, q);
    } else {
        even[0] = add_cc(even[0], odd[1]);
        q = even[0] * F::inv();
        madc_rshift_n<N>(odd, m + 1, q);
    }
    cmad_m<N / 2>(even, m, q);
    odd[N - 1] = addc(odd[N - 1], 0);
}
/* o = w / R mod m: the low half reduced on its own ((lo + q m) / R <= m), plus the high half;
   below m + w / R (< 2m for w < m R) */
template <class F> __device__ __forceinline__ void redc_f(u32 *o, const u32 *w)
{
    enum { N = F::N };
    u32 even[N], odd[N];
#pragma unroll
    for (int j = 0; j < N; j++) even[j] = w[j];
#pragma unroll
    for (int i = 0; i < N; i += 2) {
        redc_row_f<F>(even, odd, i == 0);
        redc_row_f<F>(odd, even, false);
    }
    even[0] = add_cc(even[0], odd[1]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) even[j] = addc_cc(even[j], odd[j + 1]);
    even[N - 1] = addc(even[N - 1], 0);
    o[0] = add_cc(even[0], w[N]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) o[j] = addc_cc(even[j], w[N + j]);
    o[N - 1] = addc(even[N - 1], w[2 * N - 1]);
}
/* o = a^2 / R, lazy: a^2 < 4m^2 < m R */
template <class F> __device__ __forceinline__ void f_sqrf(u32 *o, const u32 *a)
{
    u32 w[2 * F::N];
    sqr_wide_n<F::N>(w, a);
    redc_f<F>(o, w);
}
/* x -= y (2N words); where it borrows, 4m^2 is added back (a multiple of m) */
template <class F> __device__ __forceinline__ void wide_sub_mod(u32 *x, const u32 *y)
{
    enum { K = 2 * F::N };
    x[0] = sub_cc(x[0], y[0]);
#pragma unroll
    for (int k = 1; k < K; k++) x[k] = subc_cc(x[k], y[k]);
    if (subc(0, 0)) {
        u32 m[K];
        F::m4sq(m);
        x[0] = add_cc(x[0], m[0]);
#pragma unroll
        for (int k = 1; k < K - 1; k++) x[k] = addc_cc(x[k], m[k]);
        x[K - 1] = addc(x[K - 1], m[K - 1]);
    }
}
template <int K> __device__ __forceinline__ void wide_sub(u32 *x, const u32 *y)   /* no borrow */
{
    x[0] = sub_cc(x[0], y[0]);
#pragma unroll
    for (int k = 1; k < K - 1; k++) x[k] = subc_cc(x[k], y[k]);
    x[K - 1] = subc(x[K - 1], y[K - 1]);
}
template <int N> __device__ __forceinline__ void add_nc(u32 *o, const u32 *a, const u32 *b)   /* no carry out */
{
    o[0] = add_cc(a[0], b[0]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) o[j] = addc_cc(a[j], b[j]);
    o[N - 1] = addc(a[N - 1], b[N - 1]);
}
/* F_p2, lazy Karatsuba with one reduction a component: c0 = a0 b0 - a1 b1 (+ 4p^2 where
   negative: below 4p^2 < p R), c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0, the
   sums unreduced (< 4p < R), exact and below 8p^2; its reduction is below p + 8p^2 / R: < 2p
   for BLS12-381 (8p < R), < 2.6p for BN254, which one conditional subtraction of 2p fixes. */
template <class F> __device__ __forceinline__ void f2_mulf(u32 *o, const u32 *a, const u32 *b)
{
    enum { N = F::N };
    u32 s[N], t[N], w0[2 * N], w1[2 * N];
    add_nc<N>(s, a, a + N);
    add_nc<N>(t, b, b + N);
    mul_wide_n<N>(w0, a, b);
    mul_wide_n<N>(w1, a + N, b + N);
    {
        u32 w2[2 * N];
        mul_wide_n<N>(w2, s, t);
        wide_sub<2 * N>(w2, w0);
        wide_sub<2 * N>(w2, w1);
        wide_sub_mod<F>(w0, w1);
        redc_f<F>(o, w0);
        redc_f<F>(o + N, w2);
    }
    if (N == 8) {                                      /* BN254: 8p > R */
        u32 m2[N];
        F::mod2(m2);
        sub_ge<N>(o + N, o + N, m2);
    }
}
/* o = (a b - c d) / R, lazy: one reduction for two products. F_p: the difference of two
   products below 4p^2, plus 4p^2 where negative. F_p2 (Karatsuba, X = a0 b0, Y = a1 b1,
   U = c0 d0, V = c1 d1): c0 = (X - Y) - (U - V), c1 = (a0 + a1)(b0 + b1) - (c0 + c1)(d0 + d1)
   - (X + Y) + (U + V), both in (-8p^2, 8p^2), computed modulo 2^(64 N) (8p^2 < 2^(64 N - 1)),
   plus 8p^2 where negative; reduced, below p + 8p^2 / R (BN254: one conditional subtraction
   of 2p more, as in f2_mulf). */
template <class F> __device__ __forceinline__ void wide_add_if_neg(u32 *x)   /* x += 8p^2 where x < 0 */
{
    enum { K = 2 * F::N };
    if ((int)x[K - 1] < 0) {
        u32 m[K];
        F::m4sq(m);
        x[0] = add_cc(x[0], m[0]);
#pragma unroll
        for (int k = 1; k < K - 1; k++) x[k] = addc_cc(x[k], m[k]);
        x[K - 1] = addc(x[K - 1], m[K - 1]);
        x[0] = add_cc(x[0], m[0]);
#pragma unroll
        for (int k = 1; k < K - 1; k++) x[k] = addc_cc(x[k], m[k]);
        x[K - 1] = addc(x[K - 1], m[K - 1]);
    }
}
template <class F> __device__ __forceinline__ void lazy_fix(u32 *o)   /* BN254: below 2.6p -> below 2p */
{
    if (F::N == 8) {
        u32 m2[F::N];
        F::mod2(m2);
        sub_ge<F::N>(o, o, m2);
    }
}
template <class F> __device__ __forceinline__ void f_mul_subf(u32 *o, const u32 *a, const u32 *b, const u32 *c, const u32 *d)
{
    u32 x[2 * F::N], y[2 * F::N];
    mul_wide_n<F::N>(x, a, b);
    mul_wide_n<F::N>(y, c, d);
    wide_sub_mod<F>(x, y);
    redc_f<F>(o, x);
}
template <class F> __device__ __forceinline__ void f2_mul_subf(u32 *o, const u32 *a, const u32 *b, const u32 *c, const u32 *d)
{
    enum { N = F::N, K = 2 * N };
    u32 sa[N], sb[N], sc[N], sd[N], c0[K], c1[K];
    add_nc<N>(sa, a, a + N);
    add_nc<N>(sb, b, b + N);
    add_nc<N>(sc, c, c + N);
    add_nc<N>(sd, d, d + N);
    {
        u32 x[K], y[K];
        mul_wide_n<N>(x, a, b);
        mul_wide_n<N>(y, a + N, b + N);
        add_nc<K>(c1, x, y);                           /* X + Y */
        wide_sub<K>(x, y);                             /* X - Y (mod 2^(64 N)) */
        mul_wide_n<N>(y, sa, sb);
        wide_sub<K>(y, c1);                            /* a0 b1 + a1 b0 */
#pragma unroll
        for (int k = 0; k < K; k++) c1[k] = y[k];
#pragma unroll
        for (int k = 0; k < K; k++) c0[k] = x[k];
    }
    {
        u32 u[K], v[K];
        mul_wide_n<N>(u, c, d);
        mul_wide_n<N>(v, c + N, d + N);
        wide_sub<K>(c0, u);
        add_nc<K>(c0, c0, v);                          /* X - Y - U + V */
        add_nc<K>(u, u, v);                            /* U + V */
        mul_wide_n<N>(v, sc, sd);
        wide_sub<K>(v, u);                             /* c0 d1 + c1 d0 */
        wide_sub<K>(c1, v);
    }
    wide_add_if_neg<F>(c0);
    wide_add_if_neg<F>(c1);
    redc_f<F>(o, c0);
    redc_f<F>(o + N, c1);
    lazy_fix<F>(o);
    lazy_fix<F>(o + N);
}
/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two products */
template <class F> __device__ __forceinline__ void f2_sqrf(u32 *o, const u32 *a)
{
    enum { N = F::N };
    u32 s[N], d[N], t[N];
    f_add<F>(s, a, a + N);
    f_sub<F>(d, a, a + N);
    f_add<F>(t, a, a);
    f_mulf<F>(o + N, t, a + N);
    f_mulf<F>(o, s, d);
}
template <class F> __device__ __forceinline__ void f_canon(u32 *o, const u32 *a)   /* lazy -> [0, m) */
{
    u32 m[F::N];
    F::mod(m);
    sub_ge<F::N>(o, a, m);
}
template <class F> __device__ __forceinline__ bool f_zero_mod(const u32 *a)
{
    u32 m[F::N];
    F::mod(m);
    return !nz<F::N>(a) || eq<F::N>(a, m);
}

/* ---- elements: D components of F */
template <class F, int D, bool FAST = false> struct ext {
    enum { N = F::N, W = D * F::N };
    static __device__ __forceinline__ void add(u32 *o, const u32 *a, const u32 *b)
    {
#pragma unroll
        for (int c = 0; c < D; c++) f_add<F>(o + c * N, a + c * N, b + c * N);
    }
    static __device__ __forceinline__ void sub(u32 *o, const u32 *a, const u32 *b)
    {
#pragma unroll
        for (int c = 0; c < D; c++) f_sub<F>(o + c * N, a + c * N, b + c * N);
    }
    /* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
    static __device__ __forceinline__ void mul(u32 *o, const u32 *a, const u32 *b)
    {
        if constexpr (FAST) {
            if constexpr (D == 1) f_mulf<F>(o, a, b); else f2_mulf<F>(o, a, b);
            return;
        }
        if constexpr (D == 1) { f_mul_call<F>(o, a, b); return; }
        u32 t0[N], t1[N], s[N], t[N];
        f_mul_call<F>(t0, a, b);
        f_mul_call<F>(t1, a + N, b + N);
        f_add<F>(s, a, a + N);
        f_add<F>(t, b, b + N);
        f_mul_call<F>(s, s, t);
        f_sub<F>(o, t0, t1);
        f_sub<F>(s, s, t0);
        f_sub<F>(o + N, s, t1);
    }
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    static __device__ __forceinline__ void sqr(u32 *o, const u32 *a)
    {
        if constexpr (FAST) {
            if constexpr (D == 1) f_sqrf<F>(o, a); else f2_sqrf<F>(o, a);
            return;
        }
        if constexpr (D == 1) { f_mul_call<F>(o, a, a); return; }
        u32 s[N], d[N], t[N];
        f_add<F>(s, a, a + N);
        f_sub<F>(d, a, a + N);
        f_mul_call<F>(t, a, a + N);
        f_mul_call<F>(o, s, d);
        f_add<F>(o + N, t, t);
    }
    /* o = a b - c d */
    static __device__ __forceinline__ void mul_sub(u32 *o, const u32 *a, const u32 *b, const u32 *c, const u32 *d)
    {
        if constexpr (FAST) {
            if constexpr (D == 1) f_mul_subf<F>(o, a, b, c, d); else f2_mul_subf<F>(o, a, b, c, d);
            return;
        }
        u32 s[W], t[W];
        mul(s, a, b);
        mul(t, c, d);
        sub(o, s, t);
    }
    static __device__ __forceinline__ bool zero_mod(const u32 *a)
    {
        bool z = true;
#pragma unroll
        for (int c = 0; c < D; c++) z = z && f_zero_mod<F>(a + c * N);
        return z;
    }
    static __device__ __forceinline__ void canon(u32 *a)
    {
#pragma unroll
        for (int c = 0; c < D; c++) f_canon<F>(a + c * N, a + c * N);
    }
    static __device__ __forceinline__ void one(u32 *a)   /* Montgomery 1 */
    {
        F::one(a);
#pragma unroll
        for (int j = N; j < W; j++) a[j] = 0;
    }
};

/* ---- F_p2 a component a lane: lanes 2i and 2i + 1 hold one element, lane k its c_k. With
   whole elements BLS12-381 G2's mixed addition holds 255 registers a thread (one block of
   256 an SM, spilling); with half an element a lane, 128 (a little spilled), and twice the
   warps an SM hide the carry chains' latency. A product is Karatsuba's, split over the pair
   (`prod`): the wide products and reductions of whole elements, 1.5 and 1 a lane, plus one
   exchange of the 2N-word result. An H200 at 2^24, BLS12-381 G2's whole MSM: whole elements
   -> lanes with two wide products a lane (a fifth more work) 475.0 -> 390.9 ms, that -> the
   split 414.9 -> 364.0 (another run). The pair's operands cross by shuffles (a product: 48,
   a square: 12); tests on the whole element (zero, infinity) are the two lanes' together, so
   both take every branch alike. */
#ifdef __CUDA_ARCH__
__device__ __forceinline__ u32 lane_swap(u32 v) { return __shfl_xor_sync(3u << (threadIdx.x & 30u), v, 1); }
#else
static inline u32 lane_swap(u32 v) { u32 o; emu_pair_swap(&o, &v, 1); return o; }
#endif
/* o[j] = the other lane's v[j], j < M (o may be v): M shuffles (the emulator meets the pair
   once for all M) */
template <int M> __device__ __forceinline__ void lane_swap_n(u32 *o, const u32 *v)
{
#ifdef __CUDA_ARCH__
#pragma unroll
    for (int j = 0; j < M; j++) o[j] = lane_swap(v[j]);
#else
    emu_pair_swap(o, v, M);
#endif
}
template <class F> struct lane2 {
    enum { N = F::N, W = F::N };
    static __device__ __forceinline__ bool odd() { return threadIdx.x & 1u; }
    static __device__ __forceinline__ bool both(bool z) { return (z & lane_swap(z)) != 0; }   /* both lanes swap */
    static __device__ __forceinline__ void add(u32 *o, const u32 *a, const u32 *b) { f_add<F>(o, a, b); }
    static __device__ __forceinline__ void sub(u32 *o, const u32 *a, const u32 *b) { f_sub<F>(o, a, b); }
    /* Karatsuba over the pair: lane k forms a_k b_k and M times b's low (k = 0) or high
       half of M = (a0 + a1)(b0 + b1) (the sums unreduced, below 4p < R); one exchange of 2N
       words then leaves lane 0 c0 = a0 b0 - a1 b1 in (-4p^2, 4p^2) and lane 1 c1 = M - a0 b0
       - a1 b1 = a0 b1 + a1 b0 in [0, 8p^2), modulo 2^(64 N): 1.5 wide products a lane, as
       with whole elements, and one reduction (`mul`; `mul_sub`: one for two products). */
    static __device__ __forceinline__ void prod(u32 *q, const u32 *a, const u32 *b)
    {
        enum { H = N / 2, K = 2 * N };
        u32 s[K], d[K], *sa = s, *sb = s + N;
        const bool k = odd();
#pragma unroll
        for (int j = 0; j < N; j++) { sa[j] = a[j]; sb[j] = b[j]; }
        lane_swap_n<K>(s, s);
        add_nc<N>(sa, a, sa);
        add_nc<N>(sb, b, sb);
        {
            u32 bh[H], h[N + H];
#pragma unroll
            for (int j = 0; j < H; j++) bh[j] = k ? sb[H + j] : sb[j];
            mul_wide_nm<N, H>(h, sa, bh);
            mul_wide_n<N>(q, a, b);
            /* u: h at word 0 (lane 0) or H (lane 1); d = q - u = a0 b0 - M_lo (lane 0), u - q =
               M_hi 2^(32 H) - a1 b1 (lane 1) */
            u32 x[K], y[K];
#pragma unroll
            for (int j = 0; j < K; j++) {
                const u32 u = k ? (j >= H ? h[j - H] : 0u) : (j < N + H ? h[j] : 0u);
                x[j] = k ? u : q[j];
                y[j] = k ? q[j] : u;
            }
            wide_sub<K>(x, y);
#pragma unroll
            for (int j = 0; j < K; j++) d[j] = x[j];
        }
        /* lane 0 sends d and keeps q: c0 = q - a1 b1; lane 1 sends q = a1 b1 and keeps d:
           c1 = d - (a0 b0 - M_lo) */
#pragma unroll
        for (int j = 0; j < K; j++) s[j] = k ? q[j] : d[j];
        lane_swap_n<K>(s, s);
#pragma unroll
        for (int j = 0; j < K; j++) {
            q[j] = k ? d[j] : q[j];
            d[j] = s[j];
        }
        wide_sub<K>(q, d);
    }
    /* (0, 8p^2) after 4p^2 where negative: the reduction below p + 8p^2 / R (< 2p for
       BLS12-381, 8p < R; BN254 below 2.6p: lazy_fix) */
    static __device__ __forceinline__ void mul(u32 *o, const u32 *a, const u32 *b)
    {
        enum { K = 2 * N };
        u32 q[K];
        prod(q, a, b);
        if ((int)q[K - 1] < 0) {
            u32 m[K];
            F::m4sq(m);
            add_nc<K>(q, q, m);
        }
        redc_f<F>(o, q);
        lazy_fix<F>(o);
    }
    /* lane 0: (a0 + a1)(a0 - a1), lane 1: (a1 + a1) a0 */
    static __device__ __forceinline__ void sqr(u32 *o, const u32 *a)
    {
        u32 a2[N], s[N], d[N];
        const bool k = odd();
        lane_swap_n<N>(a2, a);
#pragma unroll
        for (int j = 0; j < N; j++) s[j] = k ? a[j] : a2[j];
        f_add<F>(s, a, s);
        f_sub<F>(d, a, a2);
#pragma unroll
        for (int j = 0; j < N; j++) d[j] = k ? a2[j] : d[j];
        f_mulf<F>(o, s, d);
    }
    /* o = a b - c d: the difference in (-8p^2, 8p^2), 8p^2 added where negative, one
       reduction (below p + 8p^2 / R, as in `mul`) */
    static __device__ __forceinline__ void mul_sub(u32 *o, const u32 *a, const u32 *b, const u32 *c, const u32 *d)
    {
        enum { K = 2 * N };
        u32 x[K];
        {
            u32 y[K];
            prod(x, a, b);
            prod(y, c, d);
            wide_sub<K>(x, y);
        }
        wide_add_if_neg<F>(x);
        redc_f<F>(o, x);
        lazy_fix<F>(o);
    }
    static __device__ __forceinline__ bool zero_mod(const u32 *a) { return both(f_zero_mod<F>(a)); }
    static __device__ __forceinline__ void canon(u32 *a) { f_canon<F>(a, a); }
    static __device__ __forceinline__ void one(u32 *a)
    {
        F::one(a);
        if (odd()) {
#pragma unroll
            for (int j = 0; j < N; j++) a[j] = 0;
        }
    }
};

/* Memory: W words as 16-byte vectors (W is a multiple of 4). */
template <int W> __device__ __forceinline__ void loadw(u32 *o, const u32 *p)
{
#pragma unroll
    for (int j = 0; j < W / 4; j++) {
        const uint4 v = ((const uint4 *)p)[j];
        o[4 * j] = v.x; o[4 * j + 1] = v.y; o[4 * j + 2] = v.z; o[4 * j + 3] = v.w;
    }
}
template <int W> __device__ __forceinline__ void storew(u32 *p, const u32 *v)
{
#pragma unroll
    for (int j = 0; j < W / 4; j++) {
        uint4 q;
        q.x = v[4 * j]; q.y = v[4 * j + 1]; q.z = v[4 * j + 2]; q.w = v[4 * j + 3];
        ((uint4 *)p)[j] = q;
    }
}

/* ---- a group over elements E = ext<F, D>: XYZZ with mgpu_bn's formulas (a = 0) */
template <bool C, class A, class B> struct pick { typedef A type; };
template <class A, class B> struct pick<false, A, B> { typedef B type; };
template <class F, int D, int L = 1> struct gen {
    typedef typename pick<L == 1, ext<F, D>, lane2<F>>::type E;
    typedef typename pick<L == 1, ext<F, D, true>, lane2<F>>::type EF;   /* the tuned products */
    typedef F field;
    /* ACC_BLOCKS: msm_accumulate's and msm_finish's blocks an SM (F_p: 2, at most 128 registers; F_p2 needs
       255). FUSED_Y: the new Y as one a b - c d (mul_sub) in BN254 G2 (an H200 at 2^24,
       162.2 -> 152.6 ms: no spills left); in BLS12-381 the 24-word products it holds at once
       made the accumulation spill more (G1 104.2 -> 107.8 ms, G2 443.9 -> 448.5). */
    /* W: a thread's words of a coordinate, CW a coordinate's, P a point's in memory; L lanes
       a point (2: lane2, its component's words from `lane_off` on). */
    enum { W = E::W, CW = D * F::N, P = 4 * CW, LANES = L, ACC_BLOCKS = D == 1 || L == 2 ? 2 : 1,
           FUSED_Y = F::N == 8 };
    struct pt { u32 x[W], y[W], zz[W], zzz[W]; };
    static __device__ __forceinline__ u32 lane_off() { return L == 1 ? 0 : (threadIdx.x & 1u) * F::N; }
    static __device__ __forceinline__ bool all(bool z)
    {
        if constexpr (L == 1) return z; else return E::both(z);
    }
    static __device__ __forceinline__ void set_inf(pt &p)
    {
#pragma unroll
        for (int j = 0; j < W; j++) p.zz[j] = p.zzz[j] = 0;
    }
    static __device__ __forceinline__ bool is_inf(const pt &p) { return all(!nz<W>(p.zz)); }
    static __device__ __forceinline__ void load(pt &p, const u32 *m)
    {
        m += lane_off();
        loadw<W>(p.x, m); loadw<W>(p.y, m + CW); loadw<W>(p.zz, m + 2 * CW); loadw<W>(p.zzz, m + 3 * CW);
    }
    static __device__ __forceinline__ void store(u32 *m, const pt &p)
    {
        m += lane_off();
        storew<W>(m, p.x); storew<W>(m + CW, p.y); storew<W>(m + 2 * CW, p.zz); storew<W>(m + 3 * CW, p.zzz);
    }
    /* dbl and add: calls, one copy a kernel (the sums' kernels call add two or three times,
       and dbl is on the rare paths of both sums); add_affine, the accumulation's, inline. */
    static __device__ __noinline__ void dbl(pt &p)
    {
        u32 u[W], v[W], w[W], s[W], m[W];
        if (is_inf(p)) return;
        E::add(u, p.y, p.y);
        E::sqr(v, u);
        E::mul(w, u, v);
        E::mul(s, p.x, v);
        E::sqr(m, p.x);
        E::add(u, m, m);
        E::add(m, u, m);
        E::sqr(p.x, m);
        E::sub(p.x, p.x, s);
        E::sub(p.x, p.x, s);
        E::sub(s, s, p.x);
        E::mul(s, m, s);
        E::mul(u, w, p.y);
        E::sub(p.y, s, u);
        E::mul(p.zz, p.zz, v);
        E::mul(p.zzz, p.zzz, w);
    }
    static __device__ __forceinline__ void set_affine(pt &p, const u32 *x, const u32 *y, bool none)
    {
#pragma unroll
        for (int j = 0; j < W; j++) { p.x[j] = x[j]; p.y[j] = y[j]; }
        E::one(p.zz);
        E::one(p.zzz);
        if (none) set_inf(p);
    }
    static __device__ __forceinline__ void add_affine(pt &p, const u32 *x, const u32 *y, bool none)
    {
        typedef EF E;                                  /* the tuned products, inline */
        u32 u2[W], s2[W], pp[W], ppp[W], q[W];
        if (none) return;
        if (is_inf(p)) { set_affine(p, x, y, false); return; }
        E::mul(u2, x, p.zz);
        E::mul(s2, y, p.zzz);
        E::sub(u2, u2, p.x);                           /* P = U2 - X1 */
        E::sub(s2, s2, p.y);                           /* R = S2 - Y1 */
        if (E::zero_mod(u2)) {
            if (E::zero_mod(s2)) { set_affine(p, x, y, false); dbl(p); }
            else set_inf(p);
            return;
        }
        E::sqr(pp, u2);
        E::mul(ppp, u2, pp);
        E::mul(q, p.x, pp);
        E::mul(p.zz, p.zz, pp);
        E::mul(p.zzz, p.zzz, ppp);
        E::sqr(u2, s2);                                /* X3 = R^2 - PPP - 2Q */
        E::sub(u2, u2, ppp);
        E::sub(u2, u2, q);
        E::sub(p.x, u2, q);
        E::sub(q, q, p.x);                             /* Y3 = R (Q - X3) - Y1 PPP */
        if constexpr (FUSED_Y) E::mul_sub(p.y, s2, q, p.y, ppp);
        else {
            E::mul(q, s2, q);
            E::mul(ppp, p.y, ppp);
            E::sub(p.y, q, ppp);
        }
    }
    static __device__ __noinline__ void add(pt &p, const pt &q)
    {
        typedef EF E;
        u32 u1[W], u2[W], s1[W], s2[W], t[W];
        if (is_inf(q)) return;
        if (is_inf(p)) { p = q; return; }
        E::mul(u1, p.x, q.zz);
        E::mul(u2, q.x, p.zz);
        E::mul(s1, p.y, q.zzz);
        E::mul(s2, q.y, p.zzz);
        E::sub(u2, u2, u1);
        E::sub(s2, s2, s1);
        if (E::zero_mod(u2)) {
            if (E::zero_mod(s2)) dbl(p); else set_inf(p);
            return;
        }
        E::sqr(t, u2);                                 /* PP */
        E::mul(p.zz, p.zz, q.zz);
        E::mul(p.zz, p.zz, t);
        E::mul(u1, u1, t);                             /* Q = U1 PP */
        E::mul(t, u2, t);                              /* PPP */
        E::mul(p.zzz, p.zzz, q.zzz);
        E::mul(p.zzz, p.zzz, t);
        E::sqr(u2, s2);
        E::sub(u2, u2, t);
        E::sub(u2, u2, u1);
        E::sub(p.x, u2, u1);
        E::sub(u1, u1, p.x);
        if constexpr (FUSED_Y) E::mul_sub(p.y, s2, u1, s1, t);
        else {
            E::mul(u1, s2, u1);
            E::mul(t, s1, t);
            E::sub(p.y, u1, t);
        }
    }
    static __device__ __forceinline__ void canon(pt &p) { E::canon(p.x); E::canon(p.y); E::canon(p.zz); E::canon(p.zzz); }
    /* The point of an entry (copy index / n of point index % n): x, y. */
    static __device__ __forceinline__ void entry_load(const args &a, u32 e, u32 *x, u32 *y)
    {
        u64 idx = e & 0x7fffffffu;
        if (a.factor > 1) {
            const u64 cp = idx / a.n;
            idx = cp * a.copy_stride + (idx - cp * a.n);
        }
        loadw<W>(x, a.points + idx * 2 * CW + lane_off());
        loadw<W>(y, a.points + idx * 2 * CW + CW + lane_off());
    }
    /* -y for bit 31: m - c per component (c < m; 0 gives m, which is lazy 0) */
    static __device__ __forceinline__ void entry_sign(u32 e, u32 *y)
    {
        if (e >> 31) {
            u32 m[F::N];
            F::mod(m);
#pragma unroll
            for (int c = 0; c < W / F::N; c++) {
                u32 *v = y + c * F::N;
                v[0] = sub_cc(m[0], v[0]);
#pragma unroll
                for (int j = 1; j < F::N - 1; j++) v[j] = subc_cc(m[j], v[j]);
                v[F::N - 1] = subc(m[F::N - 1], v[F::N - 1]);
            }
        }
    }
    static __device__ __forceinline__ bool affine_inf(const u32 *x, const u32 *y) { return all(!nz<W>(x) && !nz<W>(y)); }
    /* A coordinate array (W words) to or from Montgomery form; input below m. The tuned
       product, inline: msm_convert_points is bound by it (an H200, 2^24 points: BLS12-381 G1
       3.1 ms with the compact one, the memory traffic alone 0.8). */
    static __device__ __forceinline__ void convert(u32 *v, bool to_mont)
    {
#pragma unroll
        for (int c = 0; c < D; c++) {
            u32 k[F::N], r[F::N];
            if (to_mont) F::r2(r);
            else {
#pragma unroll
                for (int j = 0; j < F::N; j++) r[j] = j == 0;
            }
            f_mulf<F>(k, v + c * F::N, r);
            f_canon<F>(v + c * F::N, k);
        }
    }
};
typedef gen<bn_p, 2> bn254_g2;
typedef gen<bn_p, 2, 2> bn254_g2_lanes;                /* its segments */
typedef gen<bls_p, 1> bls12_381_g1;
typedef gen<bls_p, 2> bls12_381_g2;
typedef gen<bls_p, 2, 2> bls12_381_g2_lanes;          /* its accumulation and segments */

} /* namespace mgpu_cv */

/* BN254 G1 as a group for the templates: the code above. */
struct g1 {
    enum { W = 8, P = 32, LANES = 1 };
    typedef xyzz pt;
    static __device__ __forceinline__ void set_inf(pt &p) { mgpu_bn::set_inf(p); }
    static __device__ __forceinline__ void load(pt &p, const u32 *m) { load_xyzz(p, m); }
    static __device__ __forceinline__ void store(u32 *m, const pt &p) { store_xyzz(m, p); }
    static __device__ __forceinline__ void set_affine(pt &p, const u32 *x, const u32 *y, bool none) { mgpu_bn::set_affine(p, x, y, none); }
    static __device__ __forceinline__ void add_affine(pt &p, const u32 *x, const u32 *y, bool none) { mgpu_bn::add_affine(p, x, y, none); }
    static __device__ __forceinline__ void add(pt &p, const pt &q) { add_xyzz(p, q); }
    static __device__ __forceinline__ void dbl(pt &p) { mgpu_bn::dbl<true>(p); }
    static __device__ __forceinline__ void canon(pt &p)
    {
        reduce_once<FP>(p.x, p.x); reduce_once<FP>(p.y, p.y); reduce_once<FP>(p.zz, p.zz); reduce_once<FP>(p.zzz, p.zzz);
    }
    static __device__ __forceinline__ void entry_load(const args &a, u32 e, u32 *x, u32 *y) { ::entry_load(a, e, x, y); }
    static __device__ __forceinline__ void entry_sign(u32 e, u32 *y) { ::entry_sign(e, y); }
    static __device__ __forceinline__ bool affine_inf(const u32 *x, const u32 *y) { return ::affine_inf(x, y); }
};

/* Bucket g's sum (bucket_slot, bucket_slot_at for P words a point). */
template <class G> __device__ __forceinline__ u64 slot(const args &a, u32 g) { return (u64)(a.sparse ? a.offsets[g] : g) * G::P; }
template <class G> __device__ __forceinline__ u64 slot_at(const args &a, u32 g, u32 start) { return (u64)(a.sparse ? start : g) * G::P; }

#define MGPU_MSM_ACC_BLOCK 256          /* msm_accumulate's block (mgpu.h: MGPU__MSM_ACC_BLOCK) */
template <class G> __device__ __forceinline__ void accumulate(const args &a)
{
    const u64 tid = global_id() / G::LANES;            /* a piece a point's lanes */
    if (tid >= a.chunks) return;
    const u32 M = a.offsets[a.G];
    const u64 s64 = tid * a.chunk_len;
    a.slot_keys[2 * tid] = a.slot_keys[2 * tid + 1] = NONE;
    if (s64 >= M) return;
    const u32 s = (u32)s64, e = (u32)(s64 + a.chunk_len < M ? s64 + a.chunk_len : M);
    u32 lo = 0, hi = a.G;                              /* the bucket holding entry s */
    while (hi - lo > 1) {
        const u32 mid = lo + (hi - lo) / 2;
        if (a.offsets[mid] <= s) lo = mid; else hi = mid;
    }
    u32 g = lo, g_start = a.offsets[g], g_end = a.offsets[g + 1];
    u32 next_end = g + 2 <= a.G ? a.offsets[g + 2] : M;   /* loaded a bucket ahead */
    typename G::pt acc;
    if (a.resume && g_start >= s) G::load(acc, a.buckets + slot_at<G>(a, g, g_start));   /* bucket g starts here */
    else G::set_inf(acc);
    for (u32 j = s; j < e; j++) {
        u32 x[G::W], y[G::W];
        const u32 entry = a.entries[j];
        G::entry_load(a, entry, x, y);
        const bool none = G::affine_inf(x, y);
        G::entry_sign(entry, y);
        if (j == g_end) {                              /* bucket g ends inside the piece */
            const bool head = g_start < s;             /* begun by the piece before */
            if (head) a.slot_keys[2 * tid] = g;
            G::store(head ? a.slot_sums + 2 * G::P * tid : a.buckets + slot_at<G>(a, g, g_start), acc);
            g++;
            g_end = next_end;
            while (g_end <= j) g_end = a.offsets[++g + 1];   /* skip empty buckets */
            next_end = g + 2 <= a.G ? a.offsets[g + 2] : M;
            g_start = j;
            if (!a.resume) {                           /* the bucket's first point is its sum */
                G::set_affine(acc, x, y, none);
                continue;
            }
            G::load(acc, a.buckets + slot_at<G>(a, g, j));
        }
        G::add_affine(acc, x, y, none);
    }
    if (g_start < s) { a.slot_keys[2 * tid] = g; G::store(a.slot_sums + 2 * G::P * tid, acc); }
    else if (g_end > e) { a.slot_keys[2 * tid + 1] = g; G::store(a.slot_sums + 2 * G::P * tid + G::P, acc); }
    else G::store(a.buckets + slot_at<G>(a, g, g_start), acc);
}

/* One thread per piece with a tail slot: the bucket's partial sums are that tail and the head
   slots of the k following pieces its entries reach into. Up to a.fixup_serial of them are
   added here; longer buckets go to msm_fixup_long's queues: up to a.group_max (at small n,
   where a bucket spans a few short pieces, nearly every bucket) to the queue it sums with
   a.long_lanes threads a bucket, longer ones (a popular digit, the top window's few
   buckets) to the one it sums with whole blocks. status: [0], [1] the two queues' lengths;
   the long queue from [2] up, the short one from [2 + chunks - 1] down. */
enum { FIXUP_LONG_THREADS = 64 };
template <class G> __device__ __forceinline__ void fixup(const args &a)
{
    const u64 tid = global_id();
    if (tid >= a.chunks) return;
    const u32 g = a.slot_keys[2 * tid + 1];
    if (g == NONE) return;
    const u64 last = (a.offsets[g + 1] - 1) / a.chunk_len;  /* the last piece holding bucket g */
    if (last - tid > a.fixup_serial) {
        if (last - tid > a.group_max) a.status[2 + atomicAdd(&a.status[0], 1u)] = (u32)tid;
        else a.status[2 + a.chunks - 1 - atomicAdd(&a.status[1], 1u)] = (u32)tid;
        return;
    }
    typename G::pt acc, part;
    G::load(acc, a.slot_sums + 2 * G::P * tid + G::P);
    for (u64 t = tid + 1; t <= last; t++) {
        G::load(part, a.slot_sums + 2 * G::P * t);
        G::add(acc, part);
    }
    G::store(a.buckets + slot<G>(a, g), acc);
}

/* The sum of a group's XYZZ points, one a thread, left in its first thread's acc: group
   `grp` is threads grp L .. grp L + L - 1 of the block (L a power of two), and the whole
   block calls this together with the same L and count. Threads from `count` on in each
   group hold infinity, so the tree starts at the power of two that covers count: fewer
   dependent sums when few threads hold one. sh: L / 2 points a group. */
template <class G> __device__ __forceinline__ void group_tree(typename G::pt &acc, u32 L, u32 grp, u32 count, u32 *sh)
{
    const u32 lane = (threadIdx.x / G::LANES) & (L - 1);   /* (a point's lanes: one thread here) */
    u32 half = 1;
    typename G::pt part;
    while (2 * half < count) half <<= 1;
    for (half = count > 1 ? half : 0; half > 0; half >>= 1) {
        if (lane >= half && lane < 2 * half) G::store(sh + (grp * (L / 2) + lane - half) * G::P, acc);
        __syncthreads();
        if (lane < half) { G::load(part, sh + (grp * (L / 2) + lane) * G::P); G::add(acc, part); }
        __syncthreads();
    }
}

/* Group `grp` of L threads of the block (L a power of two, the same for the whole block, which
   calls this together): the bucket whose tail slot is piece `first` (NONE: none) is summed
   from its tail and the head slots after it, the group's threads taking them in strides, then
   by group_tree; the group's first thread stores it. A group that is the whole block (one
   bucket) starts its tree at the power of two that covers the threads holding a sum;
   smaller groups at L / 2. */
template <class G> __device__ __forceinline__ void fixup_group(const args &a, u32 first, u32 L, u32 grp, u32 *sh)
{
    const u32 lane = threadIdx.x & (L - 1);
    u32 g = NONE, count = L;
    typename G::pt acc, part;
    G::set_inf(acc);
    if (first != NONE) {
        const u64 last = (a.offsets[(g = a.slot_keys[2 * first + 1]) + 1] - 1) / a.chunk_len;
        if (lane == 0) G::load(acc, a.slot_sums + 2 * G::P * first + G::P);   /* the tail */
        for (u64 t = first + 1 + lane; t <= last; t += L) {
            G::load(part, a.slot_sums + 2 * G::P * t);
            G::add(acc, part);
        }
        if (L == blockDim.x && last - first < L) count = (u32)(last - first);
    }
    group_tree<G>(acc, L, grp, count, sh);
    if (g != NONE && lane == 0) G::store(a.buckets + slot<G>(a, g), acc);
}

/* msm_fixup's queues, the grid looping over their items: first the long queue, a block a
   bucket, then the short one, a group of a.long_lanes threads a bucket. One call of
   fixup_group (two made the kernel twice the code, 240 KB, and 0.012 ms slower). */
template <class G> __device__ __forceinline__ void fixup_long(const args &a, u32 *sh)   /* sh: FIXUP_LONG_THREADS / 2 points */
{
    const u32 nlong = a.status[0], nshort = a.status[1], L = a.long_lanes, per = blockDim.x / L;
    const u32 items = nlong + (nshort + per - 1) / per;
    for (u32 it = blockIdx.x; it < items; it += gridDim.x) {   /* (the same for the whole block) */
        const bool whole = it < nlong;
        const u32 k = whole ? it : (it - nlong) * per + threadIdx.x / L;
        const u32 first = whole ? a.status[2 + k] : k < nshort ? a.status[2 + a.chunks - 1 - k] : NONE;
        fixup_group<G>(a, first, whole ? blockDim.x : L, whole ? 0 : threadIdx.x / L, sh);
    }
}
template <class G> __device__ __forceinline__ void fixup_long(const args &a)
{
    __shared__ u32 sh[FIXUP_LONG_THREADS / 2 * G::P];
    fixup_long<G>(a, sh);
}

/* One thread per (window, segment of seg_len buckets). */
template <class G> __device__ __forceinline__ void segments(const args &a)
{
    const u64 idx = global_id() / G::LANES;
    if (idx >= (u64)a.wf * a.seg_count) return;
    const u32 w = (u32)(idx / a.seg_count), s = (u32)(idx - (u64)w * a.seg_count);
    const u32 base = w * a.nbuckets + s * a.seg_len;
    typename G::pt run, tot, b;
    G::set_inf(run);
    G::set_inf(tot);
    for (u32 j = a.seg_len; j-- > 0;) {
        const u32 g = base + j;
        if (a.resume || a.offsets[g] != a.offsets[g + 1]) {   /* (resume: earlier pieces' sums too) */
            G::load(b, a.buckets + slot<G>(a, g));
            G::add(run, b);
        }
        G::add(tot, run);
    }
    G::store(a.seg + idx * 2 * G::P, tot);
    G::store(a.seg + idx * 2 * G::P + G::P, run);
}

/* One block of SUMS_THREADS per (window w, part k), parts k = 0, 1: tot_s summed over the
   first and the second half of the segments; k > 1: run_s summed over the segments s with
   bit k-2 set (the i-th such s is i with a 1 put in at bit k-2). Every part has S / 2
   terms, so the blocks take equally long, and at two blocks a multiprocessor the grid of
   wf (2 + seg_bits) blocks is one wave on an H200 (at 2^20: 224 blocks, 264 places; one
   block of 512 per part, the first twice as long, took two waves and 0.29 ms). */
enum { SUMS_THREADS = 256 };
template <class G> __device__ __forceinline__ void sums(const args &a, u32 *sh)   /* sh: SUMS_THREADS / 2 points */
{
    const u32 parts = 2 + a.seg_bits, w = blockIdx.x / parts, k = blockIdx.x - w * parts;
    const u32 half = a.seg_count / 2, low = k > 1 ? (1u << (k - 2)) - 1 : 0;
    const u32 first = k == 1 ? half : 0, end = k == 0 ? half : k == 1 ? a.seg_count : half;
    const u32 t = threadIdx.x / G::LANES, nt = blockDim.x / G::LANES;   /* a point's thread */
    typename G::pt acc, b;
    G::set_inf(acc);
    for (u32 i = first + t; i < end; i += nt) {
        const u32 s = k > 1 ? ((i & ~low) << 1) | (low + 1) | (i & low) : i;
        G::load(b, a.seg + ((u64)w * a.seg_count + s) * 2 * G::P + (k > 1 ? G::P : 0));
        G::add(acc, b);                                /* a chain of dependent sums: latency */
    }
    group_tree<G>(acc, SUMS_THREADS / G::LANES, 0, end - first < nt ? end - first : nt, sh);
    if (t == 0) G::store(a.sums + (u64)blockIdx.x * G::P, acc);
}
template <class G> __device__ __forceinline__ void sums(const args &a)
{
    __shared__ u32 sh[SUMS_THREADS / 2 * G::P];
    sums<G>(a, sh);
}

/* One block of 32 per window w: its sum_b b * bucket_b = out_0 + 2^L sum_k 2^k out_{k+1}
   (m = seg_len = 2^L, out_0 = sum_s tot_s, out_{k+1} = sum of run_s over the s with bit k
   set) from msm_sums' parts: thread k < seg_bits doubles its part (2 + k) k + L times,
   threads seg_bits and seg_bits + 1 take the two halves of out_0, and the block adds them
   up; out[w], canonical, goes to the host (which combines the windows). In parallel here:
   one doubling after another on the host cost more. */
template <class G> __device__ __forceinline__ void windows(const args &a, u32 *sh)   /* sh: 16 points */
{
    const u32 k = threadIdx.x, parts = 2 + a.seg_bits;
    const u32 *part = a.sums + (u64)blockIdx.x * parts * G::P;
    u32 L = 0;
    typename G::pt acc;
    while ((1u << L) < a.seg_len) L++;
    if (k < a.seg_bits) {
        G::load(acc, part + (k + 2) * G::P);
        for (u32 d = 0; d < k + L; d++) G::dbl(acc);
    } else if (k < parts) {
        G::load(acc, part + (k - a.seg_bits) * G::P);
    } else {
        G::set_inf(acc);
    }
    group_tree<G>(acc, 32, 0, parts, sh);
    if (k == 0) {
        G::canon(acc);
        G::store(a.out + (u64)blockIdx.x * G::P, acc);
    }
}
template <class G> __device__ __forceinline__ void windows(const args &a)
{
    __shared__ u32 sh[32 / 2 * G::P];
    windows<G>(a, sh);
}

/* The other groups' sums after the accumulation as one kernel, msm_finish_<group>: a.op
   (mgpu.h's MGPU__MK_* number of the kernel it stands for) picks msm_fixup, msm_fixup_long,
   msm_segments, msm_sums or msm_windows, launched as those are. Their points' add and dbl
   are calls, and a kernel holds its own copy of every function it calls: one kernel holds
   one copy where five held five (BLS12-381 G2: 0.43 MB of sm_90 code each). The shared
   memory is the largest of theirs (msm_sums'). */
enum { OP_FIXUP = 12, OP_FIXUP_LONG = 13, OP_SEGMENTS = 14, OP_SUMS = 15, OP_WINDOWS = 16 };
template <class G> __device__ __forceinline__ void finish(const args &a)
{
    __shared__ u32 sh[SUMS_THREADS / 2 * G::P];
    switch (a.op) {
    case OP_FIXUP: fixup<G>(a); break;
    case OP_FIXUP_LONG: fixup_long<G>(a, sh); break;
    case OP_SEGMENTS: segments<G>(a); break;
    case OP_SUMS: sums<G>(a, sh); break;
    case OP_WINDOWS: windows<G>(a, sh); break;
    }
}

/* The kernels, per group: BN254 G1's names as before; the others with the group's suffix.
   Their accumulation and finish take ACC_BLOCKS blocks an SM as the minimum (F_p2 points in
   one thread: 1, for their registers). BLS12-381 G1's finish at 128 registers (2 blocks of
   256, its segments' 4 of 128) against 142 (3 of 128), an H200: 2^20 2.14 -> 1.88 ms, 2^24
   13.1 -> 13.0 (a few spills); BN254 G1's msm_segments at 128 (4 of 128) against 168 was
   slower, 3.50 -> 3.72 ms at 2^24. */
extern "C" __global__ void __launch_bounds__(MGPU_MSM_ACC_BLOCK, 512 / MGPU_MSM_ACC_BLOCK) mgpu_msm_accumulate(const mgpu_bn::args a) { accumulate<g1>(a); }
extern "C" __global__ void __launch_bounds__(256) mgpu_msm_fixup(const mgpu_bn::args a) { fixup<g1>(a); }
extern "C" __global__ void __launch_bounds__(FIXUP_LONG_THREADS) mgpu_msm_fixup_long(const mgpu_bn::args a) { fixup_long<g1>(a); }
extern "C" __global__ void __launch_bounds__(128, 3) mgpu_msm_segments(const mgpu_bn::args a) { segments<g1>(a); }
extern "C" __global__ void __launch_bounds__(SUMS_THREADS, 2) mgpu_msm_sums(const mgpu_bn::args a) { sums<g1>(a); }
extern "C" __global__ void __launch_bounds__(32) mgpu_msm_windows(const mgpu_bn::args a) { windows<g1>(a); }
#define MGPU_CV_KERNELS(G, GA, suffix)                                                                                  \
    extern "C" __global__ void mgpu_msm_convert_points_##suffix(const mgpu_bn::args a)                            \
    {                                                                                                               \
        for (u64 i = global_id(); i < a.n; i += (u64)gridDim.x * blockDim.x) {                                     \
            u32 v[G::W];                                                                                            \
            for (int h = 0; h < 2; h++) {                                                                           \
                mgpu_cv::loadw<G::W>(v, a.points + (i * 2 + h) * G::W);                                             \
                G::convert(v, a.to_mont != 0);                                                                      \
                mgpu_cv::storew<G::W>(a.out + (i * 2 + h) * G::W, v);                                               \
            }                                                                                                       \
        }                                                                                                           \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(MGPU_MSM_ACC_BLOCK, GA::ACC_BLOCKS) mgpu_msm_accumulate_##suffix(const mgpu_bn::args a) { accumulate<GA>(a); } \
    extern "C" __global__ void __launch_bounds__(256, G::ACC_BLOCKS) mgpu_msm_finish_##suffix(const mgpu_bn::args a) { finish<G>(a); }
MGPU_CV_KERNELS(mgpu_cv::bn254_g2, mgpu_cv::bn254_g2, bn254_g2)
MGPU_CV_KERNELS(mgpu_cv::bls12_381_g1, mgpu_cv::bls12_381_g1, bls12_381_g1)
MGPU_CV_KERNELS(mgpu_cv::bls12_381_g2, mgpu_cv::bls12_381_g2_lanes, bls12_381_g2)
#undef MGPU_CV_KERNELS
/* The G2 groups' msm_segments and msm_sums (a.op) with a point in two lanes, one kernel a
   group (one copy of add). An H200: BLS12-381's segments with the other finishing parts at
   2^16 3.87 -> 3.85 ms, 2^20 7.30 -> 6.82, 2^24 57.1 -> 54.1; BN254's segments alone at 2^24
   20.0 -> 14.0; msm_sums at 2^20, a block of SUMS_THREADS half as many points at twice the
   blocks a multiprocessor, BLS12-381 2.80 -> 1.40 ms (whole elements: two waves), BN254 0.82
   -> 0.41. BN254 G2 accumulates in whole elements: in lanes its accumulation took 135.2 ms
   at 2^24 against 119 (whole: 250 registers, unspilled). */
template <class G> __device__ __forceinline__ void lanes(const args &a)
{
    if (a.op == OP_SEGMENTS) segments<G>(a); else sums<G>(a);
}
extern "C" __global__ void __launch_bounds__(MGPU_MSM_ACC_BLOCK, 2) mgpu_msm_lanes_bn254_g2(const mgpu_bn::args a) { lanes<mgpu_cv::bn254_g2_lanes>(a); }
extern "C" __global__ void __launch_bounds__(MGPU_MSM_ACC_BLOCK, 2) mgpu_msm_lanes_bls12_381_g2(const mgpu_bn::args a) { lanes<mgpu_cv::bls12_381_g2_lanes>(a); }
static_assert(MGPU_MSM_ACC_BLOCK == SUMS_THREADS, "one block size for both");

/* ---- MGPU_MSM_CHECK_POINTS for the groups with a cofactor: mgpu.h's mgpu__cv_affine_check
   and mgpu__cv_in_subgroup on the device, the same tests with the same constants (standard
   form here, made Montgomery by each thread): coordinates below p, y^2 = x^3 + b, and the
   endomorphism test of the subgroup of order r,
     kind 1 (BLS12-381 G1, G2)  map(P) = -k P      map: (beta x, y) in G1, psi in G2
     kind 2 (BN254 G2)          (k + 1) P + psi(k P) + psi^2(k P) = psi^3(2 k P)
   k P by double-and-add from the top bit of the short k (63, 128 or 64 bits); the doubling,
   the sum and the products are calls (one copy a kernel: 51 to 87 KB of sm_90 code a
   kernel; with the sums' add, whose tuned products are inline, 182 to 508 KB). */
namespace mgpu_cv {
#define MGPU_CV_CONST(fn, n, ...)                                                                    \
    static __device__ __forceinline__ void fn(u32 *o)                                               \
    { const u32 w[n] = __VA_ARGS__; _Pragma("unroll") for (int j = 0; j < n; j++) o[j] = w[j]; }
template <class G> struct endo;
template <> struct endo<bn254_g2> {
    enum { KIND = 2, KBITS = 63 };
    static __device__ __forceinline__ u64 k_lo() { return 0x44e992b44a6909f1ull; }
    static __device__ __forceinline__ u64 k_hi() { return 0; }
    MGPU_CV_CONST(b, 16, { 0x24a138e5u, 0x3267e6dcu, 0x59dbefa3u, 0xb5b4c5e5u, 0x1be06ac3u, 0x81be1899u, 0xceb8aaaeu, 0x2b149d40u,
                           0x85c315d2u, 0xe4a2bd06u, 0xe52d1852u, 0xa74fa084u, 0xeed8fdf4u, 0xcd2cafadu, 0x3af0fed4u, 0x009713b0u })
    MGPU_CV_CONST(cx, 16, { 0x176f553du, 0x99e39557u, 0xc2c3330cu, 0xb78cc310u, 0xf559b143u, 0x4c0bec3cu, 0x4f7911f7u, 0x2fb34798u,
                            0x640fcba2u, 0x1665d51cu, 0x0b7c9dceu, 0x32ae2a1du, 0xd75a0794u, 0x4ba4cc8bu, 0x61ebae20u, 0x16c9e550u })
    MGPU_CV_CONST(cy, 16, { 0x71a0135au, 0xdc540146u, 0xa9c95998u, 0xdbaae0edu, 0xb6e2f9b9u, 0xdc5ec698u, 0x489af5dcu, 0x063cf305u,
                            0x2623b0e3u, 0x82d37f63u, 0x8fa25bd2u, 0x21807dc9u, 0xec796f2bu, 0x0704b5a7u, 0xac41049au, 0x07c03cbcu })
};
template <> struct endo<bls12_381_g1> {
    enum { KIND = 1, KBITS = 128 };
    static __device__ __forceinline__ u64 k_lo() { return 0x0000000100000000ull; }
    static __device__ __forceinline__ u64 k_hi() { return 0xac45a4010001a402ull; }
    MGPU_CV_CONST(b, 12, { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 })
    MGPU_CV_CONST(cx, 12, { 0xfffefffeu, 0x2e01ffffu, 0x620a0002u, 0xde17d813u, 0xe6f89688u, 0xddb3a93bu, 0x6a0f77eau, 0xba69c607u,
                            0xdf76ce51u, 0x5f19672fu, 0, 0 })    /* beta */
    MGPU_CV_CONST(cy, 12, { 0 })                                 /* (unused) */
};
template <> struct endo<bls12_381_g2> {
    enum { KIND = 1, KBITS = 64 };
    static __device__ __forceinline__ u64 k_lo() { return 0xd201000000010000ull; }
    static __device__ __forceinline__ u64 k_hi() { return 0; }
    MGPU_CV_CONST(b, 24, { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 })
    MGPU_CV_CONST(cx, 24, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0000aaadu, 0x8bfd0000u, 0x4f49fffdu, 0x409427ebu, 0x0fb85f9bu, 0x897d2965u,
                            0x89759ad4u, 0xaa0d857du, 0x63d4de85u, 0xec024086u, 0x397fe699u, 0x1a0111eau })
    MGPU_CV_CONST(cy, 24, { 0x121bdea2u, 0xf1ee7b04u, 0x3e67fa0au, 0x304466cfu, 0xf61eb45eu, 0xef396489u, 0x30b1cf60u, 0x1c3dedd9u,
                            0xd77a2cd9u, 0xe2e9c448u, 0x0180a68eu, 0x135203e6u, 0xede3cc09u, 0xc81084fbu, 0x72ec05f4u, 0xee67992fu,
                            0x009241c5u, 0x77f76e17u, 0xc2d3435eu, 0x48395dabu, 0x6bd17ffeu, 0x6831e36du, 0x37ff400bu, 0x06af0e04u })
};
#undef MGPU_CV_CONST
/* a < m, a canonical component */
template <class F> __device__ __forceinline__ bool f_below(const u32 *a)
{
    u32 m[F::N];
    F::mod(m);
    (void)sub_cc(a[0], m[0]);
#pragma unroll
    for (int j = 1; j < F::N; j++) (void)subc_cc(a[j], m[j]);
    return subc(0, 0) != 0;
}
/* o = a b in the group's elements as a call: the F_p2 product's Karatsuba around its three
   F_p products, inlined at each of the forty-odd products here, was most of the code */
template <class G> __device__ __noinline__ void mul_call(u32 *o, const u32 *a, const u32 *b) { G::E::mul(o, a, b); }
/* a -> conj(a) (F_p2: the second component negated; F_p: a) */
template <class G> __device__ __forceinline__ void conj(u32 *a)
{
    enum { N = G::field::N };
    if (G::W == 2 * N) {
        u32 z[N];
#pragma unroll
        for (int j = 0; j < N; j++) z[j] = 0;
        f_sub<typename G::field>(a + N, z, a + N);
    }
}
/* psi of an XYZZ point (cx, cy Montgomery): X -> conj(X) cx, ZZ -> conj(ZZ), Y, ZZZ alike */
template <class G> __device__ __forceinline__ void psi(typename G::pt &p, const u32 *cx, const u32 *cy)
{
    conj<G>(p.x); mul_call<G>(p.x, p.x, cx);
    conj<G>(p.y); mul_call<G>(p.y, p.y, cy);
    conj<G>(p.zz);
    conj<G>(p.zzz);
}
/* 2p: gen::dbl with the products as calls */
template <class G> __device__ __noinline__ void dbl_small(typename G::pt &p)
{
    typedef typename G::E E;
    u32 u[G::W], v[G::W], w[G::W], s[G::W], m[G::W];
    if (G::is_inf(p)) return;
    E::add(u, p.y, p.y);
    mul_call<G>(v, u, u);
    mul_call<G>(w, u, v);
    mul_call<G>(s, p.x, v);
    mul_call<G>(m, p.x, p.x);
    E::add(u, m, m);
    E::add(m, u, m);
    mul_call<G>(p.x, m, m);
    E::sub(p.x, p.x, s);
    E::sub(p.x, p.x, s);
    E::sub(s, s, p.x);
    mul_call<G>(s, m, s);
    mul_call<G>(u, w, p.y);
    E::sub(p.y, s, u);
    mul_call<G>(p.zz, p.zz, v);
    mul_call<G>(p.zzz, p.zzz, w);
}
/* p += q: gen::add with the products as calls (its inlined tuned products would multiply
   the kernel's code several times over) */
template <class G> __device__ __noinline__ void add_small(typename G::pt &p, const typename G::pt &q)
{
    typedef typename G::E E;
    u32 u1[G::W], u2[G::W], s1[G::W], s2[G::W], t[G::W];
    if (G::is_inf(q)) return;
    if (G::is_inf(p)) { p = q; return; }
    mul_call<G>(u1, p.x, q.zz);
    mul_call<G>(u2, q.x, p.zz);
    mul_call<G>(s1, p.y, q.zzz);
    mul_call<G>(s2, q.y, p.zzz);
    E::sub(u2, u2, u1);
    E::sub(s2, s2, s1);
    if (E::zero_mod(u2)) {
        if (E::zero_mod(s2)) dbl_small<G>(p); else G::set_inf(p);
        return;
    }
    mul_call<G>(t, u2, u2);                            /* PP */
    mul_call<G>(p.zz, p.zz, q.zz);
    mul_call<G>(p.zz, p.zz, t);
    mul_call<G>(u1, u1, t);                            /* Q = U1 PP */
    mul_call<G>(t, u2, t);                             /* PPP */
    mul_call<G>(p.zzz, p.zzz, q.zzz);
    mul_call<G>(p.zzz, p.zzz, t);
    mul_call<G>(u2, s2, s2);
    E::sub(u2, u2, t);
    E::sub(u2, u2, u1);
    E::sub(p.x, u2, u1);
    E::sub(u1, u1, p.x);
    mul_call<G>(u1, s2, u1);
    mul_call<G>(t, s1, t);
    E::sub(p.y, u1, t);
}
template <class G> __device__ __forceinline__ bool same(const typename G::pt &p, const typename G::pt &q)
{
    u32 a[G::W], b[G::W];
    const bool pi = G::is_inf(p), qi = G::is_inf(q);
    if (pi || qi) return pi && qi;
    mul_call<G>(a, p.x, q.zz);
    mul_call<G>(b, q.x, p.zz);
    G::E::sub(a, a, b);
    if (!G::E::zero_mod(a)) return false;
    mul_call<G>(a, p.y, q.zzz);
    mul_call<G>(b, q.y, p.zzz);
    G::E::sub(a, a, b);
    return G::E::zero_mod(a);
}
/* 0: fine (or infinity); 1: a coordinate >= p; 2: off the curve; 3: outside the subgroup */
template <class G> __device__ __forceinline__ u32 check_point(u32 *x, u32 *y, bool montgomery)
{
    typedef typename G::field F;
    typedef typename G::E E;
    typedef endo<G> C;
    enum { W = G::W, N = F::N };
    u32 l[W], r[W];
#pragma unroll
    for (int c = 0; c < W; c += N)
        if (!f_below<F>(x + c) || !f_below<F>(y + c)) return 1;
    if (G::affine_inf(x, y)) return 0;
    if (!montgomery) { G::convert(x, true); G::convert(y, true); }
    C::b(l);
    G::convert(l, true);
    mul_call<G>(r, x, x);
    mul_call<G>(r, r, x);
    E::add(r, r, l);
    mul_call<G>(l, y, y);
    E::sub(l, l, r);
    if (!E::zero_mod(l)) return 2;
    typename G::pt q, k, m;
    u32 cx[W], cy[W];
    C::cx(cx);
    G::convert(cx, true);
    C::cy(cy);
    G::convert(cy, true);
    G::set_affine(q, x, y, false);
    k = q;
#pragma unroll 1
    for (int j = C::KBITS - 2; j >= 0; j--) {           /* k = |k| P */
        dbl_small<G>(k);
        if ((j >= 64 ? C::k_hi() >> (j - 64) : C::k_lo() >> j) & 1) add_small<G>(k, q);
    }
    if constexpr (C::KIND == 2) {                        /* (k + 1) P + psi(k P) + psi^2(k P) */
        typename G::pt t = k;
        m = k;
        add_small<G>(m, q);
#pragma unroll 1
        for (int i = 0; i < 2; i++) {
            psi<G>(t, cx, cy);
            add_small<G>(m, t);
        }
        dbl_small<G>(k);                                 /* psi^3(2 k P) */
#pragma unroll 1
        for (int i = 0; i < 3; i++) psi<G>(k, cx, cy);
        return same<G>(m, k) ? 0 : 3;
    } else {                                             /* kind 1: map(P) against -k P */
        u32 z[W];
        m = q;
        if constexpr (W == 2 * N) psi<G>(m, cx, cy);
        else mul_call<G>(m.x, m.x, cx);
#pragma unroll
        for (int j = 0; j < W; j++) z[j] = 0;
        E::sub(m.y, z, m.y);
        return same<G>(m, k) ? 0 : 3;
    }
}
} /* namespace mgpu_cv */
/* *(u64 *)status = min over the bad points of index * 4 + kind (check_point's). */
template <class G> __device__ __forceinline__ void check_points(const args &a)
{
    for (u64 i = global_id(); i < a.n; i += (u64)gridDim.x * blockDim.x) {
        u32 x[G::W], y[G::W];
        mgpu_cv::loadw<G::W>(x, a.points + i * 2 * G::W);
        mgpu_cv::loadw<G::W>(y, a.points + i * 2 * G::W + G::W);
        const u32 why = mgpu_cv::check_point<G>(x, y, (a.flags & POINTS_MONT) != 0);
        if (why) atomicMin((unsigned long long *)a.status, (unsigned long long)(i * 4 + why));
    }
}
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_check_points_bn254_g2(const mgpu_bn::args a) { check_points<mgpu_cv::bn254_g2>(a); }
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_check_points_bls12_381_g1(const mgpu_bn::args a) { check_points<mgpu_cv::bls12_381_g1>(a); }
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_check_points_bls12_381_g2(const mgpu_bn::args a) { check_points<mgpu_cv::bls12_381_g2>(a); }

/* BLS12-381's digits: msm_digits with its r (k < 2^256 < 3r: two conditional subtractions;
   a Montgomery k is multiplied by 1), 256 bits of signed digits. */
extern "C" __global__ void __launch_bounds__(256) mgpu_msm_digits_bls12_381(const mgpu_bn::args a)
{
    const u64 i = global_id();
    if (i >= a.n) return;
    u32 raw[8], k[8], m[8], carry = 0, neg, cp;
    load8(raw, a.scalars + i * 8);
    mgpu_cv::bls_r::mod2(m);
    mgpu_cv::sub_ge<8>(k, raw, m);
    mgpu_cv::f_canon<mgpu_cv::bls_r>(k, k);
    if (a.flags & SCALARS_MONT) {
        const u32 one[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
        mgpu_cv::f_mul<mgpu_cv::bls_r>(k, one, k);
        mgpu_cv::f_canon<mgpu_cv::bls_r>(k, k);
    }
    for (u32 t = 0; t < a.windows; t++) {
        const u32 key = bucket_of(a, t, digit(k, t, a.c, carry, neg), cp);
        a.keys[(u64)t * a.n + i] = key == NONE ? NONE : key | (neg << 31);
    }
}

/* ---- precomputed bases, every group: out[j * copy_stride + i] = 2^(j * wf * c) * points[i],
   affine, in the form the input has (a.flags & POINTS_MONT); one thread per point. The
   doublings are the group's own (G::dbl); the affine step needs a product, an inversion
   and the conversions of the group's elements, which pre<G> gives: BN254 G1's code above,
   or the generic elements' (F_p: Fermat, a^(m - 2); F_p2: conj(a) / (a0^2 + a1^2)). */
template <class G> struct pre;
template <> struct pre<g1> {
    static __device__ __forceinline__ void mul(u32 *o, const u32 *a, const u32 *b) { mgpu_bn::mul<FP, false>(o, a, b); }
    static __device__ __forceinline__ void inv(u32 *o, const u32 *a) { inv_p(o, a); }
    static __device__ __forceinline__ void canon(u32 *v) { reduce_once<FP>(v, v); }
    static __device__ __forceinline__ void convert(u32 *v, bool to) { if (to) to_mont<FP>(v, v); else from_mont<FP>(v, v); }
    static __device__ __forceinline__ bool is_inf(const g1::pt &p) { return is_zero(p.zz); }
};
template <class F, int D> struct pre<mgpu_cv::gen<F, D> > {
    typedef mgpu_cv::gen<F, D> G;
    typedef mgpu_cv::ext<F, D> E;
    enum { N = F::N };
    static __device__ __forceinline__ void mul(u32 *o, const u32 *a, const u32 *b) { E::mul(o, a, b); }
    static __device__ __noinline__ void inv_f(u32 *o, const u32 *a)   /* F_p, Montgomery, lazy in and out */
    {
        u32 e[N], r[N], x[N];
        F::mod(e);
        e[0] -= 2;                                     /* m - 2 (both moduli end in a word >= 2) */
        F::one(r);
#pragma unroll
        for (int j = 0; j < N; j++) x[j] = a[j];
        for (int i = 32 * N - 1; i >= 0; i--) {
            mgpu_cv::f_mul_call<F>(r, r, r);
            if ((e[i >> 5] >> (i & 31)) & 1) mgpu_cv::f_mul_call<F>(r, r, x);
        }
#pragma unroll
        for (int j = 0; j < N; j++) o[j] = r[j];
    }
    static __device__ __forceinline__ void inv(u32 *o, const u32 *a)
    {
        if constexpr (D == 1) {
            inv_f(o, a);
        } else {
            u32 t0[N], t1[N], zero[N];
#pragma unroll
            for (int j = 0; j < N; j++) zero[j] = 0;
            mgpu_cv::f_mul_call<F>(t0, a, a);
            mgpu_cv::f_mul_call<F>(t1, a + N, a + N);
            mgpu_cv::f_add<F>(t0, t0, t1);
            inv_f(t0, t0);
            mgpu_cv::f_mul_call<F>(o, a, t0);
            mgpu_cv::f_mul_call<F>(t1, a + N, t0);
            mgpu_cv::f_sub<F>(o + N, zero, t1);
        }
    }
    static __device__ __forceinline__ void canon(u32 *v) { E::canon(v); }
    static __device__ __forceinline__ void convert(u32 *v, bool to) { G::convert(v, to); }
    static __device__ __forceinline__ bool is_inf(const typename G::pt &p) { return G::is_inf(p); }
};
template <class G> __device__ __forceinline__ void precompute(const args &a)
{
    typedef pre<G> A;
    enum { W = G::W };
    const u64 i = global_id();
    if (i >= a.n) return;
    const bool mont = (a.flags & POINTS_MONT) != 0;
    u32 x[W], y[W], zinv[W], t[W];
    typename G::pt q;
    mgpu_cv::loadw<W>(x, a.points + i * 2 * W);
    mgpu_cv::loadw<W>(y, a.points + i * 2 * W + W);
    mgpu_cv::storew<W>(a.out + i * 2 * W, x);
    mgpu_cv::storew<W>(a.out + i * 2 * W + W, y);
    const bool inf = G::affine_inf(x, y);
    if (!mont && !inf) { A::convert(x, true); A::convert(y, true); }
    G::set_affine(q, x, y, inf);
    for (u32 j = 1; j < a.factor; j++) {
        u32 *o = a.out + ((u64)j * a.copy_stride + i) * 2 * W;
        for (u32 d = 0; d < a.wf * a.c; d++) G::dbl(q);
        if (A::is_inf(q)) {                            /* infinity (or a point of small order) */
#pragma unroll
            for (int k = 0; k < W; k++) x[k] = y[k] = 0;
        } else {
            A::mul(zinv, q.zz, q.zzz);                 /* one inversion: 1/(ZZ ZZZ) */
            A::inv(zinv, zinv);
            A::mul(t, zinv, q.zzz);                    /* 1/ZZ */
            A::mul(x, q.x, t);
            A::mul(t, zinv, q.zz);                     /* 1/ZZZ */
            A::mul(y, q.y, t);
            A::canon(x);
            A::canon(y);
            if (!mont) { A::convert(x, false); A::convert(y, false); }
        }
        mgpu_cv::storew<W>(o, x);
        mgpu_cv::storew<W>(o + W, y);
    }
}
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_precompute(const mgpu_bn::args a) { precompute<g1>(a); }
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_precompute_bn254_g2(const mgpu_bn::args a) { precompute<mgpu_cv::bn254_g2>(a); }
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_precompute_bls12_381_g1(const mgpu_bn::args a) { precompute<mgpu_cv::bls12_381_g1>(a); }
extern "C" __global__ void __launch_bounds__(128) mgpu_msm_precompute_bls12_381_g2(const mgpu_bn::args a) { precompute<mgpu_cv::bls12_381_g2>(a); }
/* ================================================================ BN254 MSM (END) */
