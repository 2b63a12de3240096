/* blur_variants.cu - the pipelined 8-bit blur kernel of mgpu_kernels.cu (mgpu_blr::pipe),
   instantiated with other tuning choices for `bench_blur --sweep`. `make bench` compiles it
   with nvcc into build/blur_variants.fatbin (for ARCH, default sm_90); bench_blur loads it
   with mgpu_module_create and launches each kernel with the argument block mgpu.h gives the
   library's kernels (mgpu__blur_args), after checking its output against the CPU device.
   Kernel names: blurv_c<C>_pf<PF>_w<WARPS>_k<CACHE>_a<ARITH>, where PF is the rows in
   flight per warp, WARPS the warps per block (16 per multiprocessor either way), CACHE bit
   1 streaming stores, bit 2 cp.async with the L2::128B prefetch hint, bit 4 L2::256B, and
   ARITH 0 the plain integer horizontal pass, 1 dp2a (see pipe in mgpu_kernels.cu).
   To adopt one: set MGPU_BLUR_PIPE_PF / _WARPS / _CACHE / _ARITH in mgpu_kernels.cu (and
   MGPU__BLUR_PIPE_WARPS in mgpu.h), then `make kernels`.
   tests/fake_cuda/emu_blur.h includes this file with its own BLURV(C, PF, W, K, A)
   defined, to run the same list under the kernel emulator (bit-for-bit checks of every
   variant without a GPU, and bench_blur --sweep on the fake libcuda). */
#ifndef BLURV
#include "../mgpu_kernels.cu"

#define BLURV(C, PF, W, K, A)                                                                       \
    extern "C" __global__ void __launch_bounds__((W) * 32, 16 / (W)) blurv_c##C##_pf##PF##_w##W##_k##K##_a##A( \
        const mgpu_blr::args a) { mgpu_blr::pipe<C, PF, W, K, A>(a); }
#endif

/* every channel count the benchmark times (4: RGBA, 1: gray). A block's stages and spare
   slots take 2 * WARPS * (PF + 1) * 544 bytes of static shared memory (at most 48 KB):
   8-warp blocks go up to PF 4. */
#define BLURV_C(C)                                                                                  \
    BLURV(C, 2, 4, 0, 0) BLURV(C, 4, 4, 0, 0) BLURV(C, 6, 4, 0, 0) BLURV(C, 8, 4, 0, 0)            \
    BLURV(C, 2, 4, 0, 1) BLURV(C, 4, 4, 0, 1) BLURV(C, 6, 4, 0, 1) BLURV(C, 8, 4, 0, 1)            \
    BLURV(C, 4, 4, 1, 0) BLURV(C, 6, 4, 1, 0) BLURV(C, 8, 4, 1, 0)                                  \
    BLURV(C, 4, 4, 1, 1) BLURV(C, 6, 4, 1, 1) BLURV(C, 8, 4, 1, 1)                                  \
    BLURV(C, 4, 4, 3, 1) BLURV(C, 6, 4, 3, 1) BLURV(C, 8, 4, 3, 1)                                  \
    BLURV(C, 6, 4, 5, 1) BLURV(C, 8, 4, 5, 1)                                                       \
    BLURV(C, 4, 8, 1, 1) BLURV(C, 4, 8, 3, 1)
BLURV_C(4)
BLURV_C(1)
/* RGB: checked for correctness, timed in the info case only */
BLURV(3, 6, 4, 1, 1) BLURV(3, 6, 4, 1, 0)
