/* emu_blur.h - the Gaussian blur kernels of mgpu_kernels.cu under the emulator (emu.h):
   the kernels by name (the library's, and bench_blur's tuning variants of the pipelined
   8-bit kernel from bench/blur_variants.cu), their argument block checked against mgpu.h's
   mgpu__blur_args, and a launcher. Include after mgpu.h (with MGPU_IMPLEMENTATION) and
   emu.h, with build/ on the include path for blur_section.cu (the "Gaussian blur" section,
   extracted by the Makefile). Used by fake_cuda.cpp and blur_kernel_emu.cpp. */
#include <cstddef>

#define MGPU_BLUR_EMU 1
#include "blur_section.cu"
namespace mgpu_blr { thread_local unsigned dyn[16384]; }   /* the dynamic shared memory: 64 KiB */
static_assert(sizeof(mgpu_blr::args) == sizeof(mgpu__blur_args), "args layout");
#define EMU_SAME(f) static_assert(offsetof(mgpu_blr::args, f) == offsetof(mgpu__blur_args, f), "args." #f);
EMU_SAME(src) EMU_SAME(dst) EMU_SAME(spitch) EMU_SAME(dpitch) EMU_SAME(width) EMU_SAME(height) EMU_SAME(channels)
EMU_SAME(src_row0) EMU_SAME(y_begin) EMU_SAME(y_end) EMU_SAME(radius) EMU_SAME(border) EMU_SAME(strip)
EMU_SAME(vec_src) EMU_SAME(vec_dst) EMU_SAME(cval_u8) EMU_SAME(cval_f32) EMU_SAME(wi) EMU_SAME(wf) EMU_SAME(wp)
#undef EMU_SAME

typedef void (*emu_blur_fn)(const mgpu_blr::args);
/* c and warps: the variants' channels and warps per block (0 for the library's kernels) */
struct emu_blur_kernel { const char *name; emu_blur_fn fn; int c, warps; };
#define EMU_BK(n) { #n, n, 0, 0 },
#define BLURV(C, PF, W, K, A) { "blurv_c" #C "_pf" #PF "_w" #W "_k" #K "_a" #A,                              \
                                [](const mgpu_blr::args a) { mgpu_blr::pipe<C, PF, W, K, A>(a); }, C, W },
static const emu_blur_kernel emu_blur_kernels[] = {
    EMU_BK(mgpu_blur_u8c1_r2) EMU_BK(mgpu_blur_u8c3_r2) EMU_BK(mgpu_blur_u8c4_r2) EMU_BK(mgpu_blur_f32c1_r2)
    EMU_BK(mgpu_blur_f32c4_r2) EMU_BK(mgpu_blur_u8_any) EMU_BK(mgpu_blur_f32_any) EMU_BK(mgpu_blur_u8c1_r2p)
    EMU_BK(mgpu_blur_u8c3_r2p) EMU_BK(mgpu_blur_u8c4_r2p)
    EMU_BK(mgpu_blur_u8c1_r4) EMU_BK(mgpu_blur_u8c1_r8) EMU_BK(mgpu_blur_u8c3_r4) EMU_BK(mgpu_blur_u8c3_r8)
    EMU_BK(mgpu_blur_u8c4_r4) EMU_BK(mgpu_blur_u8c4_r8)
    EMU_BK(mgpu_blur_u8_wide) EMU_BK(mgpu_blur_f32_wide)
    EMU_BK(mgpu_blur_u8c1_m8) EMU_BK(mgpu_blur_u8c1_m16) EMU_BK(mgpu_blur_u8c3_m8) EMU_BK(mgpu_blur_u8c3_m16)
    EMU_BK(mgpu_blur_u8c4_m8) EMU_BK(mgpu_blur_u8c4_m16) EMU_BK(mgpu_blur_f32_t9) EMU_BK(mgpu_blur_f32_t10)
    EMU_BK(mgpu_blur_f32_t11) EMU_BK(mgpu_blur_f32_t12) EMU_BK(mgpu_blur_f32_t13) EMU_BK(mgpu_blur_f32_t14)
    EMU_BK(mgpu_blur_f32_t15) EMU_BK(mgpu_blur_f32_t16)
    EMU_BK(mgpu_blur_f32c1_ring1) EMU_BK(mgpu_blur_f32c1_ring2) EMU_BK(mgpu_blur_f32c1_ring3)
    EMU_BK(mgpu_blur_f32c1_ring4) EMU_BK(mgpu_blur_f32c1_ring5) EMU_BK(mgpu_blur_f32c1_ring6)
    EMU_BK(mgpu_blur_f32c1_ring7) EMU_BK(mgpu_blur_f32c1_ring8) EMU_BK(mgpu_blur_f32c1_ring9)
    EMU_BK(mgpu_blur_f32c1_ring10) EMU_BK(mgpu_blur_f32c1_ring11) EMU_BK(mgpu_blur_f32c1_ring12)
    EMU_BK(mgpu_blur_f32c1_ring13) EMU_BK(mgpu_blur_f32c1_ring14) EMU_BK(mgpu_blur_f32c1_ring15)
    EMU_BK(mgpu_blur_f32c1_ring16) EMU_BK(mgpu_blur_f32c4_ring1) EMU_BK(mgpu_blur_f32c4_ring2)
    EMU_BK(mgpu_blur_f32c4_ring3) EMU_BK(mgpu_blur_f32c4_ring4) EMU_BK(mgpu_blur_f32c4_ring5)
    EMU_BK(mgpu_blur_f32c4_ring6) EMU_BK(mgpu_blur_f32c4_ring7) EMU_BK(mgpu_blur_f32c4_ring8)
    EMU_BK(mgpu_blur_f32c4_ring9) EMU_BK(mgpu_blur_f32c4_ring10) EMU_BK(mgpu_blur_f32c4_ring11)
    EMU_BK(mgpu_blur_f32c4_ring12) EMU_BK(mgpu_blur_f32c4_ring13) EMU_BK(mgpu_blur_f32c4_ring14)
    EMU_BK(mgpu_blur_f32c4_ring15) EMU_BK(mgpu_blur_f32c4_ring16)
#include "bench/blur_variants.cu"
};
#undef BLURV
#undef EMU_BK
static const int emu_blur_nkernels = (int)(sizeof emu_blur_kernels / sizeof emu_blur_kernels[0]);

/* The image kernel (surface objects; mgpu_external_image_blur_async), with its second
   argument checked against mgpu.h's mgpu__blur_img. */
static_assert(sizeof(mgpu_blr::img) == sizeof(mgpu__blur_img), "img layout");
static_assert(offsetof(mgpu_blr::img, dst) == offsetof(mgpu__blur_img, dst) &&
              offsetof(mgpu_blr::img, rows) == offsetof(mgpu__blur_img, rows), "img members");
static_assert(MGPU_BLUR_IMG_TX * MGPU_BLUR_IMG_B == MGPU__BLUR_IMG_THREADS && MGPU_BLUR_IMG_TX == MGPU__BLUR_IMG_TX &&
              MGPU_BLUR_IMG_R == MGPU__BLUR_IMG_R && MGPU_BLUR_IMG_SW == MGPU__BLUR_IMG_SW, "image kernel constants");
typedef void (*emu_blur_img_fn)(const mgpu_blr::args, const mgpu_blr::img);
struct emu_blur_img_kernel { const char *name; emu_blur_img_fn fn; int esize, c; };
static const emu_blur_img_kernel emu_blur_img_kernels[] = {
    { "mgpu_blur_img_f32c4", mgpu_blur_img_f32c4, 4, 4 },
};
static inline const emu_blur_img_kernel *emu_blur_img_find(const char *name) { return emu_named(emu_blur_img_kernels, name); }
static inline void emu_blur_img_launch(emu_blur_img_fn fn, unsigned grid, unsigned block, size_t shared_bytes, const mgpu__blur_args &a,
                                       const mgpu__blur_img &g)
{
    mgpu_blr::args args;
    mgpu_blr::img im;
    if (shared_bytes > sizeof mgpu_blr::dyn) { fprintf(stderr, "emu: shared_bytes %zu too large\n", shared_bytes); abort(); }
    memset(mgpu_blr::dyn, 0xCD, sizeof mgpu_blr::dyn);
    memcpy(&args, &a, sizeof args);
    memcpy(&im, &g, sizeof im);
    emu_launch(grid, block, true, [&]() { fn(args, im); });
}

/* The image copies (a surface object <-> pitch-linear memory), their argument checked
   against mgpu.h's mgpu__img_copy. */
static_assert(sizeof(mgpu_blr::imgcopy) == sizeof(mgpu__img_copy), "imgcopy layout");
static_assert(offsetof(mgpu_blr::imgcopy, pitch) == offsetof(mgpu__img_copy, pitch) &&
              offsetof(mgpu_blr::imgcopy, px) == offsetof(mgpu__img_copy, px) &&
              offsetof(mgpu_blr::imgcopy, tiles) == offsetof(mgpu__img_copy, tiles), "imgcopy members");
static_assert(MGPU_IMG_COPY_THREADS == MGPU__IMG_COPY_THREADS && MGPU_IMG_CY == MGPU__IMG_CY && MGPU_IMG_WX(1) == MGPU__IMG_WX(1) &&
              MGPU_IMG_WX(2) == MGPU__IMG_WX(2) && MGPU_IMG_WX(4) == MGPU__IMG_WX(4) && MGPU_IMG_WX(8) == MGPU__IMG_WX(8) &&
              MGPU_IMG_WX(16) == MGPU__IMG_WX(16), "image copy constants");
static inline void emu_img_copy_launch(bool to_image, unsigned grid, const mgpu__img_copy &g)
{
    mgpu_blr::imgcopy c;
    memcpy(&c, &g, sizeof c);
    emu_launch(grid, MGPU_IMG_COPY_THREADS, false, [&]() { if (to_image) mgpu_img_write(c); else mgpu_img_read(c); });
}

/* The 8-bit one-pass image kernels and their in-place frame (surface objects; 16-byte surface
   words), their second argument checked against mgpu.h's mgpu__blur_imgp. */
static_assert(sizeof(mgpu_blr::imgp) == sizeof(mgpu__blur_imgp), "imgp layout");
static_assert(offsetof(mgpu_blr::imgp, frame) == offsetof(mgpu__blur_imgp, frame) &&
              offsetof(mgpu_blr::imgp, cols) == offsetof(mgpu__blur_imgp, cols) &&
              offsetof(mgpu_blr::imgp, nsegs) == offsetof(mgpu__blur_imgp, nsegs) &&
              offsetof(mgpu_blr::imgp, nstrips) == offsetof(mgpu__blur_imgp, nstrips), "imgp members");
static_assert(MGPU_BLUR_IMGP_WARPS == MGPU__BLUR_IMGP_WARPS && MGPU_BLUR_IMGP_SEG == MGPU__BLUR_IMGP_SEG &&
              MGPU_IMG_FRAME_THREADS == MGPU__IMG_FRAME_THREADS, "one-pass image kernel constants");
typedef void (*emu_blur_imgp_fn)(const mgpu_blr::args, const mgpu_blr::imgp);
struct emu_blur_imgp_kernel { const char *name; emu_blur_imgp_fn fn; int c; };    /* c 0: the frame */
static const emu_blur_imgp_kernel emu_blur_imgp_kernels[] = {
    { "mgpu_blur_imgp_u8c1", mgpu_blur_imgp_u8c1, 1 }, { "mgpu_blur_imgp_u8c2", mgpu_blur_imgp_u8c2, 2 },
    { "mgpu_blur_imgp_u8c4", mgpu_blur_imgp_u8c4, 4 }, { "mgpu_img_frame", mgpu_img_frame, 0 },
};
static inline const emu_blur_imgp_kernel *emu_blur_imgp_find(const char *name) { return emu_named(emu_blur_imgp_kernels, name); }
static inline void emu_blur_imgp_launch(emu_blur_imgp_fn fn, bool together, unsigned grid, unsigned block, const mgpu__blur_args &a,
                                        const mgpu__blur_imgp &g)
{
    mgpu_blr::args args;
    mgpu_blr::imgp im;
    memcpy(&args, &a, sizeof args);
    memcpy(&im, &g, sizeof im);
    emu_launch(grid, block, together, [&]() { fn(args, im); });
}

/* The kernel of that name (a library kernel or a variant), or NULL. */
static const emu_blur_kernel *emu_blur_find(const char *name)
{
    for (int k = 0; k < emu_blur_nkernels; k++)
        if (!strcmp(emu_blur_kernels[k].name, name)) return &emu_blur_kernels[k];
    return nullptr;
}

/* One launch of fn with mgpu's argument block, on the launch shape given. */
static void emu_blur_launch(emu_blur_fn fn, unsigned grid, unsigned block, size_t shared_bytes, const mgpu__blur_args &a)
{
    mgpu_blr::args args;
    if (shared_bytes > sizeof mgpu_blr::dyn) { fprintf(stderr, "emu: shared_bytes %zu too large\n", shared_bytes); abort(); }
    memset(mgpu_blr::dyn, 0xCD, sizeof mgpu_blr::dyn);     /* stale shared memory must not matter */
    memcpy(&args, &a, sizeof args);
    emu_launch(grid, block, true, [&]() { fn(args); });
}
