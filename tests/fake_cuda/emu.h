/* emu.h - the part of CUDA that mgpu's kernels (the reduction, BN254 MSM and Gaussian blur
   sections of mgpu_kernels.cu) use, emulated on the host, and a launcher. Include it, then
   a kernel section compiled as C++ (no __CUDA_ARCH__); emu_blur.h and emu_reduce.h do that
   for the blur and reduction kernels. Used by tests/fake_cuda/fake_cuda.cpp (the stand-in
   libcuda.so) and tests/fake_cuda/blur_kernel_emu.cpp (`make test-blur-emu`). A test aid,
   not part of mgpu.

   The blocks of a grid run one at a time in a shuffled order. In a block whose kernel needs
   it (`together`: every blur kernel, the reduce kernels, the MSM kernels with barriers or
   warp operations), every CUDA thread is a coroutine with its own stack, and the scheduler
   runs the threads round robin (in ascending or descending order, picked at random per
   block), each until it waits or ends; a thread that waits switches straight to the next
   one. Other kernels run thread after thread.
   - __syncthreads waits for all of the block's threads. Warp-wide operations (__shfl_sync,
     __shfl_up_sync, __shfl_down_sync of any type of up to 8 bytes, __match_any_sync)
     exchange values through per-warp buffers at a warp barrier, so every lane of a warp
     must reach it, as the kernels are written to; __shfl_sync from a lane outside
     the warp is an error. A block whose threads all wait at barriers that others never
     reach is reported (deadlock) and aborts.
   - __shared__ variables are thread_local: all coroutines of a launch run on the launching
     thread, one block at a time, so a block's threads share them. The dynamic shared
     memory of the blur kernels (emu_blur.h) is filled with 0xCD at each launch.
   - mma_u8 (the blur's int8 tensor-core product, m16n8k32; mma_u8_k16, m16n8k16) is a warp
     operation like the shuffles: each lane computes its part of D from every lane's A and B
     fragments.
   - cp.async (the blur's cp16z and cp4 / cp_commit / cp_wait<N>) is asynchronous: each thread's
     copies (zero fills where not `on`) are queued in commit groups and performed only
     when cp_wait lets them complete (all but the newest N groups), so a kernel that reads
     a stage before waiting for it reads stale data, and one that refills a stage still to
     be read loses that row: both show up as wrong results. __syncwarp is a barrier of the
     warp, so a lane that reads another lane's copies must come after that lane's wait.
     A thread that ends with copies pending adds to emu_pending_fail (the callers report it);
     a copy to bytes that one of the thread's earlier copies still has to write (a WAW
     hazard, as compute-sanitizer's racecheck reports it) is reported and aborts.
   - Every __ldg, __ldcg, __ldcs, __stcg, cp16z, st4, st8, st16 and shared vector access
     checks the alignment of its address (16 bytes for the vector types uint4, int4, float4,
     double2, longlong2, ulonglong2); a misaligned one is reported and aborts. Where the caller
     lists the launch's memory (emu_spans: the reduction kernels), __ldg, __ldcg, __ldcs
     and __stcg outside it (or a store to a read-only range) are reported and abort.
   - surf2Dread and surf2Dwrite (the blur's image kernels) go through the driver's emu_surface
     (below), checking the word's size, its alignment and the array's bounds.
   - Atomics are plain read-modify-writes and __threadfence does nothing (one thread runs at
     a time; a grid's blocks run one after another, so "last block" tickets work).
   - Float arithmetic (__fadd_rn, __dadd_rn, __fmul_rn, __double2float_rn, and the kernels'
     own + and <) is the host's IEEE arithmetic, one rounding per operation: the build must
     not contract (-ffp-contract=off) nor use -ffast-math (refused below), so results are
     the bits the GPU and mgpu's CPU device give.
   The coroutines switch with a few instructions on x86-64 (emu_switch below; ASan is told
   through its fiber interface) and with ucontext elsewhere (or with -DEMU_UCONTEXT). */
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <type_traits>
#include <vector>
#ifdef _WIN32
#include <windows.h>                   /* fibers (the fake libcuda as a DLL for wine) */
#else
#include <sys/mman.h>
#endif

#if !defined(__x86_64__) && !defined(_WIN32) && !defined(EMU_UCONTEXT)
#define EMU_UCONTEXT 1
#endif
#ifdef EMU_UCONTEXT
#include <ucontext.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif
#ifdef EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* ---- the CUDA surface */
struct emu_dim { unsigned x, y, z; };
static emu_dim threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ thread_local
#define __constant__
/* The vector types (aligned to their size, as CUDA's) and their make_* helpers. */
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(16) longlong2 { long long x, y; };
struct alignas(16) ulonglong2 { unsigned long long x, y; };
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { uint4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
static inline uint2 make_uint2(unsigned x, unsigned y) { uint2 v; v.x = x; v.y = y; return v; }
static inline int4 make_int4(int x, int y, int z, int w) { int4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
static inline float4 make_float4(float x, float y, float z, float w) { float4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
static inline double2 make_double2(double x, double y) { double2 v; v.x = x; v.y = y; return v; }
static inline longlong2 make_longlong2(long long x, long long y) { longlong2 v; v.x = x; v.y = y; return v; }
static inline ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { ulonglong2 v; v.x = x; v.y = y; return v; }
static inline int min(int a, int b) { return a < b ? a : b; }

static void emu_misaligned(const char *what, const void *p, size_t align)
{
    fprintf(stderr, "emu: misaligned %s %p (needs %zu-byte alignment)\n", what, p, align);
    abort();
}
/* Optional: the memory a launch may touch through __ldg, __ldcg, __ldcs and __stcg (the caller
   fills emu_spans and sets emu_spans_on before emu_launch, and clears both after; off:
   not checked). */
struct emu_span { uintptr_t lo, hi; bool write; };
static std::vector<emu_span> emu_spans;
static bool emu_spans_on;
static inline void emu_access(const char *what, const void *p, size_t n, bool write)
{
    if (!emu_spans_on) return;
    for (const emu_span &s : emu_spans)
        if ((uintptr_t)p >= s.lo && (uintptr_t)p + n <= s.hi && (s.write || !write)) return;
    fprintf(stderr, "emu: %s of %zu bytes at %p (block %u thread %u) outside the memory the launch was given%s\n", what, n, p,
            blockIdx.x, threadIdx.x, write ? " to write" : "");
    abort();
}
template <typename T> static inline T emu_load(const char *what, const T *p)
{
    if ((uintptr_t)p % sizeof(T)) emu_misaligned(what, (const void *)p, sizeof(T));
    emu_access(what, p, sizeof(T), false);
    return *p;
}
template <typename T> static inline T __ldg(const T *p) { return emu_load("__ldg", p); }
template <typename T> static inline T __ldcg(const T *p) { return emu_load("__ldcg", p); }
template <typename T> static inline T __ldcs(const T *p) { return emu_load("__ldcs", p); }
template <typename T> static inline void __stcg(T *p, T v)
{
    if ((uintptr_t)p % sizeof(T)) emu_misaligned("__stcg", (const void *)p, sizeof(T));
    emu_access("__stcg", p, sizeof(T), true);
    *p = v;
}
/* Surface objects (the blur's image kernels): a handle is an emu_surface the driver made
   (fake_cuda.cpp: its arrays, stored in 8x8-pixel tiles; `at` gives a pixel's bytes). A read
   or write moves one raw word of the array's pixel size at byte x of row y, or (the 8-bit
   one-pass kernels) 16 bytes at a multiple of 16 within the row, which the GPU moves as the
   16 / px pixels there; a word of another size, a misaligned x, and a pixel outside the
   array (the GPU's cudaBoundaryModeTrap) are reported and abort. */
typedef unsigned long long cudaSurfaceObject_t;
struct emu_surface { unsigned char *(*at)(const void *array, int x, int y); const void *array; int w, h, px; };
static void emu_surface_rw(cudaSurfaceObject_t s, int x, int y, unsigned char *v, size_t n, bool write, const char *what)
{
    const emu_surface *f = (const emu_surface *)(uintptr_t)s;
    const bool size_ok = f && ((size_t)f->px == n || (n == 16 && f->px < 16 && x % 16 == 0));
    if (!size_ok || x < 0 || x % f->px || (long long)x + (long long)n > (long long)f->w * f->px || y < 0 || y >= f->h) {
        fprintf(stderr, "emu: %s of %zu bytes at byte %d of row %d of surface %#llx (%s; block %u thread %u)\n", what, n, x, y,
                s, !f ? "no surface" : !size_ok ? "another pixel size, or 16 bytes not at a multiple of 16"
                : "outside the array or not a pixel's start", blockIdx.x, threadIdx.x);
        abort();
    }
    for (size_t o = 0; o < n; o += (size_t)f->px) {
        unsigned char *const p = f->at(f->array, (x + (int)o) / f->px, y);
        if (write) memcpy(p, v + o, (size_t)f->px);
        else memcpy(v + o, p, (size_t)f->px);
    }
}
template <typename T> static inline T surf2Dread(cudaSurfaceObject_t s, int x, int y)
{
    T v;
    emu_surface_rw(s, x, y, (unsigned char *)&v, sizeof v, false, "surf2Dread");
    return v;
}
template <typename T> static inline void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y)
{
    emu_surface_rw(s, x, y, (unsigned char *)&v, sizeof v, true, "surf2Dwrite");
}
static inline void __threadfence() {}          /* one thread runs at a time */
template <typename A, typename B> static inline A emu_bits(B b) { A a; memcpy(&a, &b, sizeof a); return a; }
static inline float __uint_as_float(unsigned u) { return emu_bits<float>(u); }
static inline unsigned __float_as_uint(float f) { return emu_bits<unsigned>(f); }
static inline float __int_as_float(int i) { return emu_bits<float>(i); }
static inline double __longlong_as_double(long long i) { return emu_bits<double>(i); }
static inline long long __double_as_longlong(double d) { return emu_bits<long long>(d); }
/* IEEE operations rounded to nearest, each on its own: build with -ffp-contract=off and
   without -ffast-math (x86-64 and AArch64 evaluate float and double in their own width). */
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline float __double2float_rn(double d) { return (float)d; }
#if defined(__FAST_MATH__) || (defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0)
#error "emu.h: build without -ffast-math, with float evaluated in float (SSE on x86)"
#endif
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const uint64_t v = (uint64_t)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 255) << (8 * i);
    return r;
}
/* dp2a: c + a.h0 * b.byte[n] + a.h1 * b.byte[n+1], n = 0 (lo) or 2 (hi), unsigned */
static inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c)
{ return c + (a & 0xffffu) * (b & 255u) + (a >> 16) * ((b >> 8) & 255u); }
static inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c)
{ return c + (a & 0xffffu) * ((b >> 16) & 255u) + (a >> 16) * (b >> 24); }
static inline int __popc(unsigned v) { return __builtin_popcount(v); }
static inline int __ffs(unsigned v) { return __builtin_ffs((int)v); }
static inline unsigned atomicAdd(unsigned *p, unsigned v) { const unsigned o = *p; *p = o + v; return o; }
static inline unsigned atomicInc(unsigned *p, unsigned v) { const unsigned o = *p; *p = o >= v ? 0u : o + 1u; return o; }
static inline unsigned atomicSub(unsigned *p, unsigned v) { const unsigned o = *p; *p = o - v; return o; }
static inline unsigned atomicMin(unsigned *p, unsigned v) { const unsigned o = *p; if (v < o) *p = v; return o; }
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{ const unsigned long long o = *p; if (v < o) *p = v; return o; }

/* ---- coroutines: one per CUDA thread of a `together` block. A thread that waits switches
   straight to the next thread that may run (emu_next: the block's round-robin order), as
   does one that ends; control goes back to emu_launch only when no thread may run (the
   block is done, or deadlocked). A context is a thread index or EMU_MAIN, emu_launch's. */
enum { EMU_MAX_THREADS = 1024, EMU_STACK = 256 << 10, EMU_MAIN = EMU_MAX_THREADS };
static unsigned emu_cur;                       /* the running thread's index in its block */
static unsigned emu_self = EMU_MAIN, emu_prev; /* the running context, and the one it came from */
static const std::function<void()> *emu_body;
#ifndef _WIN32
static char *emu_stacks;                       /* EMU_MAX_THREADS stacks, reserved once */
#endif
static void emu_thread_begin(unsigned t);
static void emu_thread_end(unsigned t);
static unsigned emu_next();
static void emu_go_ended(unsigned to);
static bool emu_done[EMU_MAX_THREADS];
static unsigned emu_left;
/* Runs thread emu_cur's body, then passes control on. */
static void emu_entry()
{
    emu_thread_begin(emu_cur);
    (*emu_body)();
    emu_thread_end(emu_cur);
    emu_done[emu_cur] = true;
    emu_left--;
    emu_go_ended(emu_next());
}
/* Before a switch to `to`: it becomes the running context. */
static unsigned emu_pass(unsigned to)
{
    const unsigned self = emu_self;
    emu_prev = self;
    emu_self = to;
    if (to != EMU_MAIN) { emu_cur = to; threadIdx = emu_dim{ to, 0, 0 }; }
    return self;
}

#ifdef EMU_UCONTEXT
static ucontext_t emu_ctx[EMU_MAX_THREADS + 1];
static void emu_make(unsigned t)
{
    getcontext(&emu_ctx[t]);
    emu_ctx[t].uc_stack.ss_sp = emu_stacks + (size_t)t * EMU_STACK;
    emu_ctx[t].uc_stack.ss_size = EMU_STACK;
    emu_ctx[t].uc_link = nullptr;
    makecontext(&emu_ctx[t], emu_entry, 0);
}
static void emu_go(unsigned to)
{
    const unsigned self = emu_pass(to);
    swapcontext(&emu_ctx[self], &emu_ctx[to]);
}
static void emu_go_ended(unsigned to)
{
    emu_pass(to);
    setcontext(&emu_ctx[to]);
}
#elif defined(_WIN32)
/* Windows: a fiber per thread index, made once, runs emu_entry each time it is resumed
   after the previous run ended (every thread of a block runs to its end, or emu aborts). */
static void *emu_fiber[EMU_MAX_THREADS + 1];   /* the last: the launching thread as a fiber */
static void CALLBACK emu_fiber_loop(void *)
{
    for (;;) emu_entry();
}
static void emu_make(unsigned t)
{
    if (!emu_fiber[t] && !(emu_fiber[t] = CreateFiberEx(16 << 10, EMU_STACK, 0, emu_fiber_loop, nullptr))) {
        fprintf(stderr, "emu: CreateFiberEx failed (error %lu)\n", (unsigned long)GetLastError());
        abort();
    }
    if (t == 0) {                              /* once a block: the launching thread as a fiber */
        static thread_local void *self;
        if (!self) self = IsThreadAFiber() ? GetCurrentFiber() : ConvertThreadToFiber(nullptr);
        emu_fiber[EMU_MAIN] = self;
    }
}
static void emu_go(unsigned to)
{
    emu_pass(to);
    SwitchToFiber(emu_fiber[to]);
}
static void emu_go_ended(unsigned to) { emu_go(to); }
#else
/* emu_switch(save, to): pushes the callee-saved registers, stores the stack pointer in
   *save, loads `to` and pops that context's registers; `ret` resumes it. A new context's
   stack holds six zero registers and emu_start as the return address. */
extern "C" void emu_switch(void **save, void *to);
asm(".text\n"
    ".p2align 4\n"
    ".type emu_switch, @function\n"
    ".hidden emu_switch\n"
    ".globl emu_switch\n"
    "emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size emu_switch, .-emu_switch\n");
static void *emu_sp[EMU_MAX_THREADS + 1];
#ifdef EMU_ASAN
/* ASan is told of every switch through its fiber interface: the stack switched to, and on
   arrival the one left (emu_launch's, learnt when a coroutine is entered from it). */
static const void *emu_main_bottom;
static size_t emu_main_size;
static void emu_asan_leave(void **fake, unsigned to)
{
    if (to == EMU_MAIN) __sanitizer_start_switch_fiber(fake, emu_main_bottom, emu_main_size);
    else __sanitizer_start_switch_fiber(fake, emu_stacks + (size_t)to * EMU_STACK, EMU_STACK);
}
static void emu_asan_arrive(void *fake)
{
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake, &bottom, &size);
    if (emu_prev == EMU_MAIN) { emu_main_bottom = bottom; emu_main_size = size; }
}
#endif
static void emu_start()
{
#ifdef EMU_ASAN
    emu_asan_arrive(nullptr);
#endif
    emu_entry();
    abort();                                   /* emu_entry never returns */
}
static void emu_make(unsigned t)
{
    void **sp = (void **)(emu_stacks + (size_t)(t + 1) * EMU_STACK) - 8;   /* 16-byte aligned */
#ifdef EMU_ASAN
    ASAN_UNPOISON_MEMORY_REGION(emu_stacks + (size_t)t * EMU_STACK, EMU_STACK);  /* frames that never returned */
#endif
    for (int i = 0; i < 6; i++) sp[i] = nullptr;
    sp[6] = (void *)&emu_start;
    sp[7] = nullptr;
    emu_sp[t] = sp;
}
static void emu_go(unsigned to)
{
#ifdef EMU_ASAN
    void *fake = nullptr;
    emu_asan_leave(&fake, to);
#endif
    const unsigned self = emu_pass(to);
    emu_switch(&emu_sp[self], emu_sp[to]);
#ifdef EMU_ASAN
    emu_asan_arrive(fake);
#endif
}
static void emu_go_ended(unsigned to)
{
    void *dead;
#ifdef EMU_ASAN
    emu_asan_leave(nullptr, to);               /* this fiber ends */
#endif
    emu_pass(to);
    emu_switch(&dead, emu_sp[to]);
}
#endif

/* ---- barriers and warp operations */
struct emu_barrier { unsigned need, count, gen; };
static emu_barrier emu_block_bar, emu_warp_bar[EMU_MAX_THREADS / 32];
/* The barrier a waiting thread waits at and its generation then: it may run again only
   once that generation has passed. */
static struct emu_waiting { const emu_barrier *bar; unsigned gen; } emu_waits[EMU_MAX_THREADS];
/* The running block's threads in round-robin order, and where each one is in it (which
   have ended, and how many have not: emu_done, emu_left). */
static unsigned emu_order[EMU_MAX_THREADS], emu_place[EMU_MAX_THREADS], emu_threads;
static bool emu_may_run(unsigned t)
{
    return !emu_done[t] && !(emu_waits[t].bar && emu_waits[t].bar->gen == emu_waits[t].gen);
}
/* The thread after emu_cur in the order (round robin; emu_cur itself last) that may run, or
   EMU_MAIN when none may. */
static unsigned emu_next()
{
    for (unsigned i = 1, p = emu_place[emu_cur]; i <= emu_threads; i++) {
        const unsigned t = emu_order[(p + i) % emu_threads];
        if (emu_may_run(t)) return t;
    }
    return EMU_MAIN;
}
static void emu_wait(emu_barrier &b)
{
    const unsigned g = b.gen;
    if (++b.count == b.need) { b.count = 0; b.gen++; return; }
    emu_waits[emu_cur] = emu_waiting{ &b, g };
    while (b.gen == g) emu_go(emu_next());
    emu_waits[emu_cur].bar = nullptr;
}
static inline void __syncthreads() { emu_wait(emu_block_bar); }
static inline void __syncwarp() { emu_wait(emu_warp_bar[threadIdx.x >> 5]); }
/* Every lane publishes v (any type of up to 8 bytes, as its bits); f(values, lane), which
   gives the bits of the result, runs after the warp's barrier. The exchanges of a warp take
   turns between two buffers, so one barrier each is enough: a lane writes a buffer again
   only after the next exchange's barrier, which every lane reaches after reading it. */
static uint64_t emu_xchg[2][EMU_MAX_THREADS / 32][32];
static unsigned char emu_xchg_turn[EMU_MAX_THREADS];
template <typename T, typename F> static T emu_warp(T v, F f)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp exchange of up to 8 bytes");
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, turn = emu_xchg_turn[threadIdx.x] ^= 1;
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    emu_xchg[turn][warp][lane] = b;
    emu_wait(emu_warp_bar[warp]);
    const uint64_t r = f(emu_xchg[turn][warp], lane);
    T out;
    memcpy(&out, &r, sizeof out);
    return out;
}
template <typename T> static inline T __shfl_sync(unsigned, T v, int src)
{
    if (src < 0 || src > 31) { fprintf(stderr, "emu: __shfl_sync from lane %d\n", src); abort(); }
    return emu_warp(v, [=](const uint64_t *x, unsigned) { return x[src]; });
}
template <typename T> static inline T __shfl_up_sync(unsigned, T v, int d)
{
    return emu_warp(v, [=](const uint64_t *x, unsigned lane) { return lane >= (unsigned)d ? x[lane - d] : x[lane]; });
}
template <typename T> static inline T __shfl_down_sync(unsigned, T v, int d)
{
    return emu_warp(v, [=](const uint64_t *x, unsigned lane) { return lane + (unsigned)d < 32 ? x[lane + d] : x[lane]; });
}
/* The entry named `name` of a table of kernels (structs whose first member is `name`), or NULL. */
template <class K, size_t N> static const K *emu_named(const K (&table)[N], const char *name)
{
    for (const K &k : table)
        if (!strcmp(k.name, name)) return &k;
    return nullptr;
}

/* Lanes 2i and 2i + 1 swap m words (the MSM's lane2 elements; out may be v): a barrier of
   the pair, so only the two lanes must reach it; two buffers in turn, as emu_warp's. */
enum { EMU_PAIR_WORDS = 32 };
static emu_barrier emu_pair_bar[EMU_MAX_THREADS / 2];
static uint32_t emu_pair_val[2][EMU_MAX_THREADS][EMU_PAIR_WORDS];
static unsigned char emu_pair_turn[EMU_MAX_THREADS];
static inline void emu_pair_swap(uint32_t *out, const uint32_t *v, int m)
{
    const unsigned t = threadIdx.x, turn = emu_pair_turn[t] ^= 1;
    if (m > EMU_PAIR_WORDS) { fprintf(stderr, "emu: a pair swap of %d words\n", m); abort(); }
    memcpy(emu_pair_val[turn][t], v, (size_t)m * sizeof *v);
    emu_wait(emu_pair_bar[t >> 1]);
    memcpy(out, emu_pair_val[turn][t ^ 1u], (size_t)m * sizeof *v);
}
static inline unsigned __match_any_sync(unsigned, unsigned v)
{
    return emu_warp(v, [](const uint64_t *x, unsigned lane) {
        uint64_t m = 0;
        for (unsigned l = 0; l < 32; l++) m |= (uint64_t)(x[l] == x[lane]) << l;
        return m;
    });
}

/* mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 (the blur's mma_u8): every lane publishes
   its fragments between two warp barriers and computes its own d from everyone's, by the PTX
   ISA's layouts (g = lane / 4, t = lane % 4): byte j of a[q] is A[g + 8 (q & 1)][4t + 16 (q >> 1)
   + j], byte j of b[q] is B[4t + 16q + j][g], and c[q], d[q] are C, D[g + 8 (q >> 1)][2t + (q & 1)];
   the sums wrap modulo 2^32 as the s32 accumulation does. */
static uint32_t emu_mma_frag[EMU_MAX_THREADS / 32][32][6];
static inline void mma_u8(unsigned d[4], const unsigned a[4], const unsigned b[2], const unsigned c[4])
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const uint32_t(*f)[6] = emu_mma_frag[warp];
    unsigned out[4];
    for (int q = 0; q < 4; q++) emu_mma_frag[warp][lane][q] = a[q];
    emu_mma_frag[warp][lane][4] = b[0];
    emu_mma_frag[warp][lane][5] = b[1];
    emu_wait(emu_warp_bar[warp]);
    for (unsigned q = 0; q < 4; q++) {
        const unsigned row = g + 8 * (q >> 1), col = 2 * t + (q & 1);
        uint32_t acc = c[q];
        for (unsigned k = 0; k < 32; k++) {
            const uint32_t x = f[(row % 8) * 4 + k % 16 / 4][(row >= 8) + 2 * (k >= 16)] >> (8 * (k % 4)) & 255u;
            const uint32_t y = f[col * 4 + k % 16 / 4][4 + (k >= 16)] >> (8 * (k % 4)) & 255u;
            acc += x * y;
        }
        out[q] = acc;
    }
    emu_wait(emu_warp_bar[warp]);
    for (int q = 0; q < 4; q++) d[q] = out[q];
}
/* m16n8k16 (mma_u8_k16): its fragments are the first registers of m16n8k32's (A columns and
   B rows 0..15), so it is m16n8k32 with the other half of K zero. */
static inline void mma_u8_k16(unsigned d[4], const unsigned a[2], unsigned b, const unsigned c[4])
{
    const unsigned a4[4] = { a[0], a[1], 0u, 0u }, b2[2] = { b, 0u };
    mma_u8(d, a4, b2, c);
}

/* ---- cp.async, per thread (see the top) */
struct emu_copy { void *dst; const void *src; size_t n; };
struct emu_copies { std::vector<std::vector<emu_copy> > groups; std::vector<emu_copy> open; };
static emu_copies emu_cp[EMU_MAX_THREADS];
static long emu_pending_fail;                  /* threads that ended with copies pending */
/* Shared memory by address: on the GPU a 32-bit shared-window address, here a pointer. */
typedef unsigned char *sptr;
static inline sptr to_sptr(void *p) { return (sptr)p; }
/* Queues a copy of n bytes (src NULL: zeros). Two copies in flight to overlapping bytes are
   unordered (compute-sanitizer's racecheck: "WAW hazard, invalid memcpy_async
   synchronization"), even when both write zeros. */
static void emu_cp_queue(sptr smem, const void *src, size_t n)
{
    emu_copies &c = emu_cp[emu_cur];
    for (size_t g = 0; g <= c.groups.size(); g++)
        for (const emu_copy &k : g < c.groups.size() ? c.groups[g] : c.open)
            if ((unsigned char *)k.dst < smem + n && smem < (unsigned char *)k.dst + k.n) {
                fprintf(stderr, "emu: cp.async to shared %p while an earlier copy there is in flight (thread %d)\n",
                        (void *)smem, emu_cur);
                abort();
            }
    c.open.push_back(emu_copy{smem, src, n});
}
template <int CACHE> static void cp16z(sptr smem, unsigned long long gmem, bool on)
{
    if ((uintptr_t)smem % 16) emu_misaligned("cp.async destination", smem, 16);
    if (on && gmem % 16) emu_misaligned("cp.async source", (const void *)(uintptr_t)gmem, 16);
    emu_cp_queue(smem, on ? (const void *)(uintptr_t)gmem : nullptr, 16);
}
/* cp.async of 4 bytes (the tiled f32 blur kernels) */
static void cp4(sptr smem, unsigned long long gmem)
{
    if ((uintptr_t)smem % 4) emu_misaligned("cp.async destination", smem, 4);
    if (gmem % 4) emu_misaligned("cp.async source", (const void *)(uintptr_t)gmem, 4);
    emu_cp_queue(smem, (const void *)(uintptr_t)gmem, 4);
}
static void cp_commit()
{
    emu_copies &c = emu_cp[emu_cur];
    c.groups.push_back(c.open);
    c.open.clear();
}
template <int N> static void cp_wait()
{
    static const unsigned char zeros[16] = {0};
    emu_copies &c = emu_cp[emu_cur];
    while (c.groups.size() > (size_t)N) {
        for (const emu_copy &k : c.groups.front()) memcpy(k.dst, k.src ? k.src : zeros, k.n);
        c.groups.erase(c.groups.begin());
    }
}
static inline uint4 lds16(sptr s)
{
    uint4 v;
    if ((uintptr_t)s % 16) emu_misaligned("16-byte shared load", s, 16);
    memcpy(&v, s, 16);
    return v;
}
static inline uint2 lds8(sptr s)
{
    uint2 v;
    if ((uintptr_t)s % 8) emu_misaligned("8-byte shared load", s, 8);
    memcpy(&v, s, 8);
    return v;
}
static inline void sts16(sptr s, unsigned w)
{
    const unsigned v[4] = { w, w, w, w };
    if ((uintptr_t)s % 16) emu_misaligned("16-byte shared store", s, 16);
    memcpy(s, v, 16);
}
static void st4(unsigned long long p, unsigned v, bool on)
{
    if (!on) return;
    if (p % 4) emu_misaligned("4-byte store", (const void *)(uintptr_t)p, 4);
    memcpy((void *)(uintptr_t)p, &v, 4);
}
static void st8(unsigned long long p, uint2 v, bool on)
{
    if (!on) return;
    if (p % 8) emu_misaligned("8-byte store", (const void *)(uintptr_t)p, 8);
    memcpy((void *)(uintptr_t)p, &v, 8);
}
template <int CACHE> static void st16(unsigned long long p, uint4 v, bool on)
{
    if (!on) return;
    if (p % 16) emu_misaligned("16-byte store", (const void *)(uintptr_t)p, 16);
    memcpy((void *)(uintptr_t)p, &v, 16);
}
static void emu_thread_begin(unsigned t)
{
    emu_cp[t].groups.clear();
    emu_cp[t].open.clear();
}
static void emu_thread_end(unsigned t)
{
    bool pending = !emu_cp[t].open.empty();
    for (const std::vector<emu_copy> &g : emu_cp[t].groups) pending |= !g.empty();
    emu_pending_fail += pending;
}

/* ---- the launcher: runs body() as every thread of a grid x block launch (1-D). Not
   reentrant: callers serialize launches. emu_rng orders the blocks (and the threads). */
static std::mt19937_64 emu_rng(12345);
static void emu_launch(unsigned grid, unsigned block, bool together, const std::function<void()> &body)
{
    if (block == 0 || block > EMU_MAX_THREADS || block % 32) { fprintf(stderr, "emu: block of %u threads\n", block); abort(); }
    gridDim = emu_dim{ grid, 1, 1 };
    blockDim = emu_dim{ block, 1, 1 };
    std::vector<unsigned> order(grid);
    for (unsigned i = 0; i < grid; i++) order[i] = i;
    std::shuffle(order.begin(), order.end(), emu_rng);
#ifndef _WIN32
    if (together && !emu_stacks) {
        void *m = mmap(nullptr, (size_t)EMU_MAX_THREADS * EMU_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) { perror("emu: stacks"); abort(); }
        emu_stacks = (char *)m;
    }
#endif
    emu_body = &body;
    for (unsigned b : order) {
        blockIdx = emu_dim{ b, 0, 0 };
        if (!together) {
            for (unsigned t = 0; t < block; t++) {
                threadIdx = emu_dim{ t, 0, 0 };
                emu_cur = t;
                emu_thread_begin(t);
                body();
                emu_thread_end(t);
            }
            continue;
        }
        const bool down = emu_rng() & 1;
        emu_threads = emu_left = block;
        for (unsigned i = 0; i < block; i++) {
            const unsigned t = down ? block - 1 - i : i;
            emu_order[i] = t;
            emu_place[t] = i;
            emu_done[t] = false;
            emu_waits[t].bar = nullptr;
            emu_xchg_turn[t] = emu_pair_turn[t] = 0;
            emu_make(t);
        }
        emu_block_bar = emu_barrier{ block, 0, 0 };
        for (unsigned w = 0; w < block / 32; w++) emu_warp_bar[w] = emu_barrier{ 32, 0, 0 };
        for (unsigned q = 0; q < block / 2; q++) emu_pair_bar[q] = emu_barrier{ 2, 0, 0 };
        emu_go(emu_order[0]);                  /* back when no thread may run */
        if (emu_left) {
            fprintf(stderr, "emu: block %u deadlocked: %u threads wait at barriers others never reach\n", b, emu_left);
            abort();
        }
    }
}
