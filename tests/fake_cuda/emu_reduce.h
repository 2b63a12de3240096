/* emu_reduce.h - the reduction kernels of mgpu_kernels.cu under the emulator (emu.h):
   mgpu_reduce_<op>_<dtype>, mgpu_combine_<op>_<dtype> and mgpu_allreduce_<op>_<dtype>
   (op sum min max, dtype f32 f64 i32 u32 i64 u64) by name, each called through its own
   extern "C" signature from one argument record, and the all-reduce's argument block
   checked against mgpu.h's mgpu__ar_args. Include after mgpu.h (with MGPU_IMPLEMENTATION)
   and emu.h, with build/ on the include path for reduce_section.cu (the "reductions"
   section, from its heading to the Gaussian blur section, extracted by the Makefile).
   Used by fake_cuda.cpp. */
#include <cstddef>

#include "reduce_section.cu"

static_assert(MGPU_RED_BLOCK == MGPU__RED_BLOCK && MGPU_RED_MIN_BLOCKS == MGPU__RED_PER_SM &&
              MGPU_RED_UNROLL == MGPU__RED_UNROLL, "mgpu.h's reduce launch constants");
static_assert(MGPU_AR_MAX == MGPU_MAX_DEVICES, "all-reduce: MGPU_AR_MAX");
static_assert(sizeof(mgpu_red::mgpu_ar_args) == sizeof(mgpu__ar_args), "all-reduce args layout");
#define EMU_SAME(f) static_assert(offsetof(mgpu_red::mgpu_ar_args, f) == offsetof(mgpu__ar_args, f), "ar_args." #f);
EMU_SAME(bufs) EMU_SAME(first) EMU_SAME(count) EMU_SAME(ndev) EMU_SAME(self) EMU_SAME(vec)
#undef EMU_SAME

enum { EMU_RED_REDUCE, EMU_RED_COMBINE, EMU_RED_ALLREDUCE };
/* One launch's arguments, copied at cuLaunchKernel: reduce (src, n, partials, counter,
   out), combine (y, x, n), all-reduce (ar). */
struct emu_red_call {
    const void *src, *x;
    void *y, *partials, *out;
    unsigned *counter;
    unsigned long long n;
    mgpu__ar_args ar;
};
typedef void (*emu_red_fn)(const emu_red_call &);
/* kind: EMU_RED_*; size: the element's bytes; acc: the reduce accumulator's bytes */
struct emu_red_kernel { const char *name; emu_red_fn fn; int kind; unsigned size, acc; };

#define EMU_RK(OP, NAME, T, ENUM)                                                                                    \
    { "mgpu_reduce_" #OP "_" #NAME,                                                                                  \
      [](const emu_red_call &c) { mgpu_reduce_##OP##_##NAME((const T *)c.src, c.n, c.partials, c.counter, (T *)c.out); }, \
      EMU_RED_REDUCE, sizeof(T), sizeof(typename mgpu_red::rop<T, mgpu_red::ENUM>::A) },                              \
    { "mgpu_combine_" #OP "_" #NAME, [](const emu_red_call &c) { mgpu_combine_##OP##_##NAME((T *)c.y, (const T *)c.x, c.n); }, \
      EMU_RED_COMBINE, sizeof(T), 0 },                                                                               \
    { "mgpu_allreduce_" #OP "_" #NAME,                                                                               \
      [](const emu_red_call &c) {                                                                                    \
          mgpu_red::mgpu_ar_args a;                                                                                  \
          memcpy(&a, &c.ar, sizeof a);                                                                               \
          mgpu_allreduce_##OP##_##NAME(a);                                                                           \
      },                                                                                                             \
      EMU_RED_ALLREDUCE, sizeof(T), 0 },
#define EMU_RT(NAME, T) EMU_RK(sum, NAME, T, SUM) EMU_RK(min, NAME, T, MIN) EMU_RK(max, NAME, T, MAX)
static const emu_red_kernel emu_red_kernels[] = {
    EMU_RT(f32, float) EMU_RT(f64, double) EMU_RT(i32, int) EMU_RT(u32, unsigned) EMU_RT(i64, long long)
    EMU_RT(u64, unsigned long long)
};
#undef EMU_RT
#undef EMU_RK

/* The kernel of that name, or NULL. */
static const emu_red_kernel *emu_red_find(const char *name) { return emu_named(emu_red_kernels, name); }
