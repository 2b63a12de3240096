/* emu.h - the part of CUDA that mgpu's BN254 kernels use, emulated on the host, and a
   launcher. The blocks of a grid run one at a time in a shuffled order. In a block whose
   kernel needs it (`together`), every CUDA thread is a coroutine (ucontext) with its own
   stack: __syncthreads waits for all of the block's threads, and warp-wide operations
   exchange values through a per-warp buffer between two warp barriers (so every lane of a
   warp must reach them, as the kernels are written to); the scheduler runs the threads
   round robin, each until it waits or ends. Other kernels run thread after thread.
   Atomics are plain read-modify-writes (one thread runs at a time). __shared__ variables
   become statics: one block at a time shares them. Used by tests/fake_cuda/fake_cuda.cpp. */
#include <ucontext.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

struct emu_dim { unsigned x, y, z; };
static emu_dim threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static
#define __constant__
struct alignas(16) uint4 { unsigned x, y, z, w; };

enum { EMU_MAX_THREADS = 1024, EMU_STACK = 128 << 10 };
static ucontext_t emu_main, emu_ctx[EMU_MAX_THREADS];
static unsigned emu_cur;
static unsigned emu_xchg[EMU_MAX_THREADS / 32][32];
struct emu_barrier { unsigned need, count, gen; };
static unsigned long emu_events;       /* barrier releases and thread ends: progress */
static emu_barrier emu_block_bar, emu_warp_bar[EMU_MAX_THREADS / 32];

static void emu_yield() { swapcontext(&emu_ctx[emu_cur], &emu_main); }
static void emu_wait(emu_barrier &b)
{
    const unsigned g = b.gen;
    if (++b.count == b.need) { b.count = 0; b.gen++; emu_events++; return; }
    while (b.gen == g) emu_yield();
}
static void __syncthreads() { emu_wait(emu_block_bar); }
/* Every lane publishes v; f(values, lane) runs between the two barriers. */
template <typename F> static unsigned emu_warp(unsigned v, F f)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    emu_xchg[warp][lane] = v;
    emu_wait(emu_warp_bar[warp]);
    const unsigned r = f(emu_xchg[warp], lane);
    emu_wait(emu_warp_bar[warp]);
    return r;
}
static unsigned __shfl_sync(unsigned, unsigned v, int src)
{
    return emu_warp(v, [=](const unsigned *x, unsigned) { return x[src & 31]; });
}
static unsigned __shfl_up_sync(unsigned, unsigned v, int d)
{
    return emu_warp(v, [=](const unsigned *x, unsigned lane) { return lane >= (unsigned)d ? x[lane - d] : x[lane]; });
}
static unsigned __match_any_sync(unsigned, unsigned v)
{
    return emu_warp(v, [](const unsigned *x, unsigned lane) {
        unsigned m = 0;
        for (unsigned l = 0; l < 32; l++) m |= (unsigned)(x[l] == x[lane]) << l;
        return m;
    });
}
static int __popc(unsigned v) { return __builtin_popcount(v); }
static int __ffs(unsigned v) { return __builtin_ffs((int)v); }
static unsigned atomicAdd(unsigned *p, unsigned v) { const unsigned o = *p; *p = o + v; return o; }
static unsigned atomicSub(unsigned *p, unsigned v) { const unsigned o = *p; *p = o - v; return o; }
static unsigned atomicMin(unsigned *p, unsigned v) { const unsigned o = *p; if (v < o) *p = v; return o; }

/* Runs body() as every thread of a grid x block launch (1-D). */
static const std::function<void()> *emu_body;
static bool emu_ended;                 /* the coroutine just switched out has returned */
static void emu_entry() { (*emu_body)(); emu_ended = true; emu_events++; }
static void emu_launch(unsigned grid, unsigned block, bool together, const std::function<void()> &body)
{
    static std::mt19937_64 rng(12345);
    static std::vector<char> stacks;
    if (block == 0 || block > EMU_MAX_THREADS || block % 32) { fprintf(stderr, "emu: block of %u threads\n", block); abort(); }
    gridDim = emu_dim{ grid, 1, 1 };
    blockDim = emu_dim{ block, 1, 1 };
    std::vector<unsigned> order(grid);
    for (unsigned i = 0; i < grid; i++) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    if (together && stacks.empty()) stacks.resize((size_t)EMU_MAX_THREADS * EMU_STACK);
    emu_body = &body;
    for (unsigned b : order) {
        blockIdx = emu_dim{ b, 0, 0 };
        if (!together) {
            for (unsigned t = 0; t < block; t++) { threadIdx = emu_dim{ t, 0, 0 }; body(); }
            continue;
        }
        std::vector<char> done(block, 0);
        unsigned left = block;
        emu_block_bar = emu_barrier{ block, 0, 0 };
        for (unsigned w = 0; w < block / 32; w++) emu_warp_bar[w] = emu_barrier{ 32, 0, 0 };
        for (unsigned t = 0; t < block; t++) {
            getcontext(&emu_ctx[t]);
            emu_ctx[t].uc_stack.ss_sp = &stacks[(size_t)t * EMU_STACK];
            emu_ctx[t].uc_stack.ss_size = EMU_STACK;
            emu_ctx[t].uc_link = &emu_main;
            makecontext(&emu_ctx[t], emu_entry, 0);
        }
        while (left) {
            const unsigned long before = emu_events;
            for (unsigned t = 0; t < block; t++) {
                if (done[t]) continue;
                emu_cur = t;
                threadIdx = emu_dim{ t, 0, 0 };
                emu_ended = false;
                swapcontext(&emu_main, &emu_ctx[t]);
                if (emu_ended) { done[t] = 1; left--; }
            }
            if (left && emu_events == before) {
                fprintf(stderr, "emu: block %u deadlocked: %u threads wait at barriers others never reach\n", b, left);
                abort();
            }
        }
    }
}
