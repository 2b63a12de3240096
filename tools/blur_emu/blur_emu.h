/* blur_emu.h - the CUDA surface the Gaussian blur kernels use, emulated on the host, and a
   launcher (used by tools/blur_emu/blur_kernel_emu.cpp and tools/blur_emu/fake_cuda_blur.cpp; a development aid).
   Include after mgpu.h (with MGPU_IMPLEMENTATION), with
   build/blur_section.cu (the "Gaussian blur" section of mgpu_kernels.cu) on the include
   path. Each CUDA thread of a block is a pthread; __syncthreads is a block barrier; warp
   shuffles exchange through a per-warp buffer between two warp barriers; blocks run one at
   a time in a random order; __ldg checks alignment. emu_launch is not reentrant. */
#include <pthread.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <algorithm>

/* ---- the CUDA surface the blur kernels use */
struct emu_dim { unsigned x, y, z; };
static thread_local emu_dim threadIdx, blockIdx;
static emu_dim blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
struct alignas(16) uint4 { unsigned x, y, z, w; };
static inline int min(int a, int b) { return a < b ? a : b; }
template <typename T> static inline T __ldg(const T *p)
{
    if ((uintptr_t)p % sizeof(T)) { fprintf(stderr, "misaligned __ldg %p (%zu bytes)\n", (const void *)p, sizeof(T)); abort(); }
    return *p;
}
template <typename A, typename B> static inline A emu_bits(B b) { A a; memcpy(&a, &b, sizeof a); return a; }
static inline float __uint_as_float(unsigned u) { return emu_bits<float>(u); }
static inline unsigned __float_as_uint(float f) { return emu_bits<unsigned>(f); }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const uint64_t v = (uint64_t)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 255) << (8 * i);
    return r;
}

enum { EMU_MAX_THREADS = 256 };
static pthread_barrier_t emu_block_bar, emu_warp_bar[EMU_MAX_THREADS / 32], emu_start, emu_end;
static unsigned emu_xchg[EMU_MAX_THREADS / 32][32];
static void __syncthreads() { pthread_barrier_wait(&emu_block_bar); }
static unsigned emu_shfl(unsigned v, int from)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned r = v;
    emu_xchg[warp][lane] = v;
    pthread_barrier_wait(&emu_warp_bar[warp]);
    if (from >= 0 && from < 32) r = emu_xchg[warp][from];
    pthread_barrier_wait(&emu_warp_bar[warp]);
    return r;
}
static unsigned __shfl_up_sync(unsigned, unsigned v, int d) { return emu_shfl(v, (int)(threadIdx.x & 31) - d); }
static unsigned __shfl_down_sync(unsigned, unsigned v, int d) { return emu_shfl(v, (int)(threadIdx.x & 31) + d); }
static unsigned __shfl_sync(unsigned, unsigned v, int from)
{
    if (from < 0 || from > 31) { fprintf(stderr, "__shfl_sync from lane %d\n", from); abort(); }
    return emu_shfl(v, from);
}
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { uint4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
/* dp2a: c + a.h0 * b.byte[n] + a.h1 * b.byte[n+1], n = 0 (lo) or 2 (hi), unsigned */
static inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c)
{ return c + (a & 0xffffu) * (b & 255u) + (a >> 16) * ((b >> 8) & 255u); }
static inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c)
{ return c + (a & 0xffffu) * ((b >> 16) & 255u) + (a >> 16) * (b >> 24); }

/* cp.async, emulated asynchronously: each thread's copies are queued in commit groups and
   performed only when cp.async.wait_group lets them complete (all but the newest N
   groups), so a kernel that reads a stage before waiting for it reads stale data, and one
   that refills a stage still to be read loses that row: both show up as wrong results.
   A launch must leave no copy pending. 16-byte copies need 16-byte aligned addresses. */
struct emu_copy { void *dst; const void *src; };
static thread_local std::vector<std::vector<emu_copy> > emu_groups;
static thread_local std::vector<emu_copy> emu_open;
static int emu_pending_fail;
template <int CACHE> static void cp16(void *smem, const void *gmem)
{
    if ((uintptr_t)smem % 16 || (uintptr_t)gmem % 16) { fprintf(stderr, "misaligned cp.async %p <- %p\n", smem, gmem); abort(); }
    emu_open.push_back(emu_copy{smem, gmem});
}
static void cp_commit() { emu_groups.push_back(emu_open); emu_open.clear(); }
template <int N> static void cp_wait()
{
    while (emu_groups.size() > (size_t)N) {
        for (const emu_copy &c : emu_groups.front()) memcpy(c.dst, c.src, 16);
        emu_groups.erase(emu_groups.begin());
    }
}
template <int CACHE> static void st16(void *p, uint4 v)
{
    if ((uintptr_t)p % 16) { fprintf(stderr, "misaligned 16-byte store %p\n", p); abort(); }
    memcpy(p, &v, 16);
}

#define MGPU_BLUR_EMU 1
#include "blur_section.cu"
namespace mgpu_blr { unsigned dyn[16384]; }
static_assert(sizeof(mgpu_blr::args) == sizeof(mgpu__blur_args), "args layout");
#define EMU_SAME(f) static_assert(offsetof(mgpu_blr::args, f) == offsetof(mgpu__blur_args, f), "args." #f);
EMU_SAME(src) EMU_SAME(dst) EMU_SAME(spitch) EMU_SAME(dpitch) EMU_SAME(width) EMU_SAME(height) EMU_SAME(channels)
EMU_SAME(src_row0) EMU_SAME(y_begin) EMU_SAME(y_end) EMU_SAME(radius) EMU_SAME(border) EMU_SAME(strip)
EMU_SAME(vec_src) EMU_SAME(vec_dst) EMU_SAME(cval_u8) EMU_SAME(cval_f32) EMU_SAME(wi) EMU_SAME(wf)

/* ---- the launcher: a pool of threads runs one block at a time */
typedef void (*kernel_fn)(const mgpu_blr::args);
static const kernel_fn kernels[MGPU__BK_COUNT] = {
    mgpu_blur_u8c1_r2, mgpu_blur_u8c3_r2, mgpu_blur_u8c4_r2, mgpu_blur_f32c1_r2, mgpu_blur_f32c4_r2,
    mgpu_blur_u8_any, mgpu_blur_f32_any, mgpu_blur_u8c1_r2p, mgpu_blur_u8c3_r2p, mgpu_blur_u8c4_r2p };
/* The tuning variants of the pipelined 8-bit kernel (bench/blur_variants.cu), by name. */
struct emu_variant { const char *name; int c, warps; kernel_fn fn; };
#define BLURV(C, PF, W, K, A) { "blurv_c" #C "_pf" #PF "_w" #W "_k" #K "_a" #A, C, W,                  \
                                [](const mgpu_blr::args a) { mgpu_blr::pipe<C, PF, W, K, A>(a); } },
static const emu_variant emu_variants[] = {
#include "bench/blur_variants.cu"
};
#undef BLURV
static const int emu_nvariants = (int)(sizeof emu_variants / sizeof emu_variants[0]);
static kernel_fn emu_kernel;
static mgpu_blr::args emu_args;
static int emu_quit;
static unsigned emu_cur_block;
static std::mt19937_64 rng;
static pthread_t pool[EMU_MAX_THREADS];
static unsigned pool_block = 0;

static void *emu_thread(void *arg);
static void pool_start(unsigned threads)
{
    pool_block = threads;
    pthread_barrier_init(&emu_block_bar, NULL, threads);
    for (unsigned w = 0; w < threads / 32; w++) pthread_barrier_init(&emu_warp_bar[w], NULL, 32);
    pthread_barrier_init(&emu_start, NULL, threads + 1);
    pthread_barrier_init(&emu_end, NULL, threads + 1);
    emu_quit = 0;
    for (unsigned i = 0; i < threads; i++) pthread_create(&pool[i], NULL, emu_thread, (void *)(uintptr_t)i);
}
static void pool_stop(void)
{
    emu_quit = 1;
    pthread_barrier_wait(&emu_start);
    for (unsigned i = 0; i < pool_block; i++) pthread_join(pool[i], NULL);
    pthread_barrier_destroy(&emu_block_bar);
    for (unsigned w = 0; w < pool_block / 32; w++) pthread_barrier_destroy(&emu_warp_bar[w]);
    pthread_barrier_destroy(&emu_start);
    pthread_barrier_destroy(&emu_end);
}
static void *emu_thread(void *arg)
{
    const unsigned id = (unsigned)(uintptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&emu_start);
        if (emu_quit) return NULL;
        threadIdx = emu_dim{id, 0, 0};
        blockIdx = emu_dim{emu_cur_block, 0, 0};
        emu_groups.clear();
        emu_open.clear();
        emu_kernel(emu_args);
        for (const std::vector<emu_copy> &g : emu_groups)
            if (!g.empty()) emu_pending_fail = 1;             /* a copy nobody waited for */
        if (!emu_open.empty()) emu_pending_fail = 1;
        pthread_barrier_wait(&emu_end);
    }
}
static void emu_launch(kernel_fn k, const mgpu_launch_dims &dims, const mgpu__blur_args &a)
{
    if (dims.block[0] != pool_block) {
        if (pool_block) pool_stop();
        pool_start(dims.block[0]);
    }
    std::vector<unsigned> order(dims.grid[0]);
    for (unsigned i = 0; i < dims.grid[0]; i++) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    gridDim = emu_dim{dims.grid[0], 1, 1};
    blockDim = emu_dim{dims.block[0], 1, 1};
    if (dims.shared_bytes > sizeof mgpu_blr::dyn) { fprintf(stderr, "shared_bytes %zu too large\n", dims.shared_bytes); abort(); }
    memset(mgpu_blr::dyn, 0xCD, sizeof mgpu_blr::dyn);     /* stale smem must not matter */
    emu_kernel = k;
    memcpy(&emu_args, &a, sizeof a);
    for (unsigned b : order) {
        emu_cur_block = b;
        pthread_barrier_wait(&emu_start);
        pthread_barrier_wait(&emu_end);
    }
}

