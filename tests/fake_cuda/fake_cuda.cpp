/* fake_cuda.cpp - a stand-in libcuda.so that runs mgpu's CUDA host paths, and the source of
   its reduction, BN254 MSM and Gaussian blur kernels, without a GPU. A test aid, not part
   of mgpu.

   Every driver entry point mgpu resolves is implemented on host memory: "device" memory is
   malloc'ed and registered with its device, streams are FIFO queues that run lazily (only
   when something synchronizes: a stream, event or context sync, or a synchronous driver
   call), so a missing wait in mgpu shows up as a wrong or stale result rather than passing
   by luck. cuStreamWaitEvent orders queues as the real driver does; cuLaunchHostFunc
   queues the function. Copies that involve pageable memory run at the call (as the real
   driver's do, for the host side).

   Kernels, by name: the reduction kernels (mgpu_reduce_, mgpu_combine_ and
   mgpu_allreduce_<op>_<dtype>, every op and dtype), the BN254 MSM kernels and the Gaussian
   blur kernels of mgpu_kernels.cu (and bench_blur's tuning variants,
   bench/blur_variants.cu) run for real under the emulator (tests/fake_cuda/emu.h,
   emu_reduce.h, emu_blur.h): the kernel source itself, compiled for the host, on the
   launch shape mgpu chose, after checking that every pointer argument (for the blur: the
   rows it may read and write; for the reductions: every range, each peer buffer of an
   all-reduce included) lies in memory the launching GPU may use (its own or managed,
   pinned host, or a peer's after cuCtxEnablePeerAccess -- with FAKE_CUDA_P2P=0 never) and
   inside one allocation; a launch that breaks this fails with CUDA_ERROR_ILLEGAL_ADDRESS
   and a message. The reductions' launch contract is checked too (blocks of MGPU_RED_BLOCK
   threads; a reduce grid small enough to be resident on the fake's 8 multiprocessors; its
   counter 0 before and after), and their __ldcs / __ldcg / __stcg may touch only the ranges
   checked at the launch. A blur kernel that leaves cp.async copies pending, or an emulator
   check (alignment, deadlock, an access outside the launch's ranges), aborts with a
   message. mgpu_noop does nothing; any other kernel is reported missing
   (CUDA_ERROR_NOT_FOUND), so a suite that needs it fails loudly.

   IPC (cuIpc*): device memory is an anonymous shared file (memfd), so a handle names the
   exporter's pid, descriptor and inode, and another process maps it through
   /proc/<pid>/fd; an opened handle is registered as memory of the opening context's
   device. Event handles open as events that are already complete: the fake's queues run
   lazily in their own process, so a test synchronizes the exporter before the importer
   reads. Linux only: the Windows build (build/win/fake_cuda.dll) allocates plain memory and
   answers the memory calls with CUDA_ERROR_NOT_SUPPORTED.

   FAKE_CUDA_DEVICES=n (default 2) GPUs of 8 multiprocessors; FAKE_CUDA_P2P=0 makes every
   pair peerless (mgpu then stages copies through pinned memory, and all-reduces by its
   chunked path); FAKE_CUDA_BLUR=cpu runs the blur launches with mgpu's CPU arithmetic
   (mgpu__blur_cpu, on the same arguments and checks) instead of the emulated kernels, for
   speed; FAKE_CUDA_REPORT=1 prints, at exit, how often each kernel was launched
   ("fake libcuda: ran NAME xCOUNT", on stderr).

   Fault injection (tests/suites/faults.c; fault_control.h, shared with tests/fault_shim):
   fake_cuda_fail_call(k, error) makes the k-th driver call from now (any entry point mgpu
   resolves; 0: none) return `error` without doing anything; fake_cuda_calls() counts the
   calls so far, fake_cuda_failed_name() names the entry point failed last ("" if none since
   the last fake_cuda_fail_call with k > 0); fake_cuda_live(text, size) returns how many allocations, streams, events, loaded modules and retained primary
   contexts exist, and describes them in text (after mgpu_shutdown all must be 0).

   Build and use from the repository root (`make test-fake` builds it and runs suite_msm,
   suite_blur, suite_reduce and suite_collectives on it):
     make build/libfake_cuda.so
     MGPU_CUDA_PATH=$PWD/build/libfake_cuda.so ./build/suite_msm */
#define MGPU_STATIC
#define MGPU_NO_EMBEDDED_KERNELS
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include "tests/fake_cuda/emu.h"
#ifdef _WIN32                          /* build/win/fake_cuda.dll: the same, for wine */
#define FAKE_EXPORT __declspec(dllexport)
#else
#define FAKE_EXPORT __attribute__((visibility("default")))
#endif
#include "msm_section.cu"
#include "tests/fake_cuda/emu_blur.h"
#include "tests/fake_cuda/emu_reduce.h"

#ifndef _WIN32                          /* IPC: Linux only (see the note at the top) */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <deque>
#include <functional>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#define FAULT_EXPORT FAKE_EXPORT
#include "tests/fake_cuda/fault_control.h"

namespace fake {

typedef mgpu__CUresult R;
enum { OK = 0, INVALID_VALUE = 1, NOT_FOUND = 500, ILLEGAL_ADDRESS = 700, ALREADY = 704, MAXD = 16 };
enum { K_DEVICE, K_HOST, K_MANAGED };

struct Ctx { int dev; std::set<int> peers; };
struct Op { std::function<void()> run; };
struct Stream { int dev; std::deque<Op> q; unsigned long long next = 0, done = 0; };
struct Event { Stream *s = nullptr; unsigned long long seq = 0; std::shared_ptr<double> ms; };   /* ms: host time the
                                                        record ran (its stream got there), for cuEventElapsedTime */
struct ExtMem;
struct Alloc { uintptr_t base; size_t size; int kind, dev; void *raw; int fd = -1; size_t mapped = 0; const void *pool = nullptr;
               void *map = nullptr; size_t map_len = 0; ExtMem *ext = nullptr; };   /* map, ext: a buffer of imported memory */
/* Graphics interop (cuImportExternalMemory...): an imported fd is a memfd the test made (the
   "exporter"); its buffers and arrays are mappings of it, an array stored in 8x8-pixel tiles
   so that only cuMemcpy2D reads it right. A semaphore's fd is a 16-byte memfd: a magic
   word, then the value. Linux only (the Windows build answers CUDA_ERROR_NOT_SUPPORTED). */
struct ExtMem { int fd; size_t size; int dev; int buffers = 0, arrays = 0; };
struct Array { ExtMem *mem; unsigned char *base; void *map; size_t map_len; int w, h, px; unsigned flags; };
/* A surface object (cuSurfObjectCreate) of an array made with CUDA_ARRAY3D_SURFACE_LDST: the
   emulator's emu_surface (surf2Dread, surf2Dwrite), which reads the tiles through texel. */
struct Surf : emu_surface { Array *arr; int dev; };
struct ExtSem { int fd; unsigned long long *v; bool timeline; };
/* A pool made by cuMemPoolCreate (the default pools are the Ctx objects). With POSIX fd
   handles it owns a small memfd that says "fake_cuda pool": what it exports. */
struct Pool { int dev; int fd = -1; unsigned long long ino = 0; bool imported = false, exported = false; };

static std::recursive_mutex lock;
static int ndev = 2, p2p = 1, blur_cpu = 0;
static Ctx ctx[MAXD];
static Stream legacy[MAXD];
static std::set<Stream *> streams;
static std::map<uintptr_t, Alloc> allocs;             /* by base */
static std::set<Pool *> pools;
static std::set<ExtMem *> extmems;
static std::set<Array *> arrays;
static std::set<ExtSem *> extsems;
static std::set<Surf *> surfs;
static thread_local Ctx *cur = nullptr;
static std::set<std::string> names;
static long live_events, live_modules, live_contexts;  /* for fake_cuda_live */
static std::map<std::string, unsigned long> &launches = *new std::map<std::string, unsigned long>;   /* by kernel, for
                                                        FAKE_CUDA_REPORT; never destroyed: read at exit */

static Stream *stream_of(mgpu__CUstream s) { return s ? (Stream *)(void *)s : &legacy[cur ? cur->dev : 0]; }
static void flush_upto(Stream *s, unsigned long long seq)
{
    while (s->done < seq && !s->q.empty()) {
        Op op = s->q.front();
        s->q.pop_front();
        op.run();                                      /* may flush other streams (waits) */
        s->done++;
    }
}
static void flush(Stream *s) { flush_upto(s, s->next); }
static void flush_all()
{
    for (int d = 0; d < ndev; d++) flush(&legacy[d]);
    for (Stream *s : streams) flush(s);
}
static void push(Stream *s, std::function<void()> f) { s->q.push_back(Op{f}); s->next++; }

static const Alloc *find(uintptr_t p)
{
    auto it = allocs.upper_bound(p);
    if (it == allocs.begin()) return nullptr;
    --it;
    return p - it->second.base < it->second.size ? &it->second : nullptr;
}
static R alloc(mgpu__CUdeviceptr *p, size_t n, int kind)
{
    if (!cur) return 201;                              /* CUDA_ERROR_INVALID_CONTEXT */
#ifndef _WIN32
    if (kind == K_DEVICE) {                            /* shared, for cuIpcGetMemHandle */
        size_t len = (n + 4095) & ~(size_t)4095;
        int fd = memfd_create("fake_cuda", MFD_CLOEXEC);
        void *m = fd >= 0 && ftruncate(fd, (off_t)len) == 0 ? mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                                                            : MAP_FAILED;
        if (m == MAP_FAILED) { if (fd >= 0) close(fd); return 2; }
        Alloc a{(uintptr_t)m, n, kind, cur->dev, nullptr};
        a.fd = fd;
        a.mapped = len;
        allocs[a.base] = a;
        *p = a.base;
        return OK;
    }
#endif
    void *raw = malloc(n + 512);
    if (!raw) return 2;
    uintptr_t b = ((uintptr_t)raw + 255) & ~(uintptr_t)255;
    allocs[b] = Alloc{b, n, kind, cur->dev, raw};
    *p = b;
    return OK;
}
static R release(uintptr_t p)
{
    auto it = allocs.find(p);
    if (it == allocs.end()) return INVALID_VALUE;
#ifndef _WIN32
    if (it->second.mapped) munmap((void *)it->second.base, it->second.mapped);
    if (it->second.fd >= 0) close(it->second.fd);
    if (it->second.map) munmap(it->second.map, it->second.map_len);
    if (it->second.ext) it->second.ext->buffers--;
#endif
    free(it->second.raw);                              /* NULL when mapped */
    allocs.erase(it);
    return OK;
}
static bool pageable(const void *p) { return !find((uintptr_t)p); }

/* ---- kernels */
static bool usable(int dev, uintptr_t p, size_t n, const char *what)
{
    const Alloc *a = find(p);
    const char *why = nullptr;
    if (!a) why = "not device, managed or pinned memory";
    else if (p + n > a->base + a->size) why = "runs past its allocation";
    else if (a->kind == K_DEVICE && a->dev != dev && !ctx[dev].peers.count(a->dev)) why = "another GPU's memory without peer access";
    if (why) fprintf(stderr, "fake libcuda: kernel on GPU %d: %s %#lx (+%zu bytes) is %s\n", dev, what,
                     (unsigned long)p, n, why);
    return !why;
}
/* Gaussian blur kernels (and bench_blur's variants): the rows the kernel may read and
   write must lie in memory this device can use; then the emulated kernel (or, with
   FAKE_CUDA_BLUR=cpu, mgpu's CPU arithmetic). */
static R launch_blur(const std::string &name, unsigned grid, unsigned block, unsigned shared, const mgpu__blur_args &a,
                     Stream *s)
{
    const emu_blur_kernel *k = emu_blur_find(name.c_str());
    if (!k) return NOT_FOUND;
    const mgpu_pixel_format f = name.find("_f32") != std::string::npos ? MGPU_PIXEL_F32 : MGPU_PIXEL_U8;
    const size_t rowbytes = (size_t)a.width * a.channels * (f == MGPU_PIXEL_U8 ? 1 : 4);
    const int lo = a.y_begin - a.radius < 0 ? 0 : a.y_begin - a.radius;
    const int hi = a.y_end + a.radius > a.height ? a.height : a.y_end + a.radius;
    const int dev = s->dev;
    if (!usable(dev, (uintptr_t)a.src + (size_t)(lo - a.src_row0) * a.spitch, (size_t)(hi - lo - 1) * a.spitch + rowbytes, "src") ||
        !usable(dev, (uintptr_t)a.dst, (size_t)(a.y_end - a.y_begin - 1) * a.dpitch + rowbytes, "dst"))
        return ILLEGAL_ADDRESS;
    if (lo < a.src_row0) { fprintf(stderr, "fake libcuda: source rows start at %d, kernel needs %d\n", a.src_row0, lo); return ILLEGAL_ADDRESS; }
    if (shared > sizeof mgpu_blr::dyn) return INVALID_VALUE;
    const emu_blur_fn fn = k->fn;
    push(s, [=]() {
        if (blur_cpu) { mgpu__blur_cpu(&a, f); return; }
        emu_pending_fail = 0;
        emu_blur_launch(fn, grid, block, shared, a);
        if (emu_pending_fail) {
            fprintf(stderr, "fake libcuda: %s on GPU %d: %ld threads ended with cp.async copies pending\n", name.c_str(), dev,
                    emu_pending_fail);
            abort();
        }
    });
    return OK;
}

/* The image kernels: both surfaces live, of this GPU, of the image's shape and pixel size,
   of two arrays (a block reads its neighbours' pixels: in place they may be written
   already); the batch within the kernel's loads and shared memory; and at the run, the
   surfaces still live (destroyed with work queued on them is a use after free). */
static bool surface_ok(int dev, unsigned long long h, const mgpu__blur_args &a, int px, const char *what)
{
    Surf *f = (Surf *)(uintptr_t)h;
    const char *why = !surfs.count(f) ? "not a live surface object" : f->dev != dev ? "of another GPU"
                    : f->w != a.width || f->h != a.height || f->px != px ? "not of the image's shape and pixel size" : nullptr;
    if (why) fprintf(stderr, "fake libcuda: image kernel on GPU %d: %s surface %#llx is %s\n", dev, what, h, why);
    return !why;
}
static R launch_blur_img(const emu_blur_img_kernel *k, unsigned grid, unsigned block, unsigned shared, const mgpu__blur_args &a,
                         const mgpu__blur_img &g, Stream *s)
{
    const int dev = s->dev, px = k->esize * k->c;
    if (a.channels != k->c || !surface_ok(dev, g.src, a, px, "src") || !surface_ok(dev, g.dst, a, px, "dst") ||
        ((Surf *)(uintptr_t)g.src)->arr == ((Surf *)(uintptr_t)g.dst)->arr || g.rows < MGPU__BLUR_IMG_B || g.rows % MGPU__BLUR_IMG_B ||
        (size_t)g.rows * (MGPU__BLUR_IMG_TX + 2 * a.radius) > (px >= 8 ? 4u : 8u) * MGPU__BLUR_IMG_THREADS ||
        shared < mgpu__blur_img_shared(a.channels, a.radius, g.rows))
        return ILLEGAL_ADDRESS;
    if (shared > sizeof mgpu_blr::dyn) return INVALID_VALUE;
    const emu_blur_img_fn fn = k->fn;
    const std::string name = k->name;
    push(s, [=]() {
        if (!surfs.count((Surf *)(uintptr_t)g.src) || !surfs.count((Surf *)(uintptr_t)g.dst)) {
            fprintf(stderr, "fake libcuda: %s on GPU %d ran after its surface was destroyed\n", name.c_str(), dev);
            abort();
        }
        emu_blur_img_launch(fn, grid, block, shared, a, g);
    });
    return OK;
}

/* The image copies (mgpu_img_read, mgpu_img_write): the surface live, of this GPU, of the
   argument's shape and pixel size; the linear rows in memory this GPU can use, 16-byte
   aligned; the grid one block per MGPU__IMG_WX * 16 bytes of MGPU__IMG_CY * 256 / WX rows; at the run, the
   surface still live. */
static R launch_img_copy(bool to_image, unsigned grid, unsigned block, unsigned shared, const mgpu__img_copy &g, Stream *s)
{
    const int dev = s->dev;
    Surf *f = (Surf *)(uintptr_t)g.surf;
    const char *why = !surfs.count(f) ? "not a live surface object" : f->dev != dev ? "of another GPU"
                    : f->w != g.width || f->h != g.height || f->px != g.px ? "not of the copy's shape and pixel size" : nullptr;
    if (why) {
        fprintf(stderr, "fake libcuda: image copy on GPU %d: surface %#llx is %s\n", dev, g.surf, why);
        return ILLEGAL_ADDRESS;
    }
    const size_t row = (size_t)g.width * g.px, across = 16 * (size_t)MGPU__IMG_WX(g.px),
                 rows = (size_t)MGPU__IMG_CY * MGPU__IMG_COPY_THREADS / MGPU__IMG_WX(g.px), groups = ((size_t)g.height + rows - 1) / rows;
    if (block != MGPU__IMG_COPY_THREADS || shared || g.tiles != (int)((row + across - 1) / across) || grid != (size_t)g.tiles * groups)
        return INVALID_VALUE;
    if (g.lin % 16 || g.pitch % 16 || g.pitch < row || !usable(dev, (uintptr_t)g.lin, (size_t)(g.height - 1) * g.pitch + row,
                                                              to_image ? "src" : "dst"))
        return ILLEGAL_ADDRESS;
    push(s, [=]() {
        if (!surfs.count((Surf *)(uintptr_t)g.surf)) {
            fprintf(stderr, "fake libcuda: %s on GPU %d ran after its surface was destroyed\n",
                    to_image ? "mgpu_img_write" : "mgpu_img_read", dev);
            abort();
        }
        emu_img_copy_launch(to_image, grid, g);
    });
    return OK;
}

/* The 8-bit one-pass image kernels and the in-place frame (mgpu_blur_imgp_u8c<C>, mgpu_img_frame):
   the surfaces live, of this GPU, of the image's shape and 8-bit pixels of C channels, rows of
   whole 16-byte chunks, an even strip, the items' grid (the frame's: one thread per 16 bytes
   saved); in place the one surface, the frame in memory this GPU can use (its rows and halo
   chunks), otherwise two arrays; at the run, the surfaces still live. */
static R launch_blur_imgp(const emu_blur_imgp_kernel *k, unsigned grid, unsigned block, unsigned shared, const mgpu__blur_args &a,
                          const mgpu__blur_imgp &g, Stream *s)
{
    const int dev = s->dev, C = a.channels;
    const size_t rowlen = (size_t)a.width * (size_t)C;
    if ((k->c && C != k->c) || (C != 1 && C != 2 && C != 4) || !surface_ok(dev, g.src, a, C, "src") || !surface_ok(dev, g.dst, a, C, "dst") ||
        rowlen % 16 || a.strip <= 0 || a.strip % 2 || a.y_begin != 0 || a.y_end != a.height || a.radius > 2 ||
        g.nstrips != (a.height + a.strip - 1) / a.strip ||
        g.nsegs != (int)((rowlen / 16 + MGPU__BLUR_IMGP_SEG - 1) / MGPU__BLUR_IMGP_SEG))
        return ILLEGAL_ADDRESS;
    const bool inplace = g.frame != 0;
    const bool same = ((Surf *)(uintptr_t)g.src)->arr == ((Surf *)(uintptr_t)g.dst)->arr;
    if (inplace != same) return ILLEGAL_ADDRESS;      /* one array needs the frame; two must not overlap */
    if (inplace && (g.fpitch < rowlen || g.fpitch % 16 || g.frame % 16 || g.cols % 16 ||
                    !usable(dev, (uintptr_t)g.frame, (size_t)(4 * (size_t)g.nstrips - 1) * g.fpitch + rowlen, "frame") ||
                    !usable(dev, (uintptr_t)g.cols, (size_t)g.nsegs * 2 * (size_t)a.height * 16, "frame columns") ||
                    (g.cols < g.frame + 4 * (size_t)g.nstrips * g.fpitch && g.frame < g.cols + (size_t)g.nsegs * 2 * a.height * 16)))
        return ILLEGAL_ADDRESS;
    if (!k->c && !inplace) return ILLEGAL_ADDRESS;
    const long long items = (long long)g.nsegs * g.nstrips,
                    saved = (long long)g.nstrips * 4 * (long long)(rowlen / 16) + (long long)g.nsegs * 2 * a.height;
    if (shared || (k->c ? block != 32 * MGPU__BLUR_IMGP_WARPS || grid != (items + MGPU__BLUR_IMGP_WARPS - 1) / MGPU__BLUR_IMGP_WARPS
                        : block != MGPU__IMG_FRAME_THREADS || grid != (saved + MGPU__IMG_FRAME_THREADS - 1) / MGPU__IMG_FRAME_THREADS))
        return INVALID_VALUE;
    const emu_blur_imgp_fn fn = k->fn;
    const std::string name = k->name;
    const bool together = k->c != 0;
    push(s, [=]() {
        if (!surfs.count((Surf *)(uintptr_t)g.src) || !surfs.count((Surf *)(uintptr_t)g.dst)) {
            fprintf(stderr, "fake libcuda: %s on GPU %d ran after its surface was destroyed\n", name.c_str(), dev);
            abort();
        }
        emu_blur_imgp_launch(fn, together, grid, block, a, g);
    });
    return OK;
}

/* BN254 kernels: the emulated kernel source, after checking every pointer it is given. */
typedef void (*msm_kernel)(const mgpu_bn::args);
static const struct { const char *name; msm_kernel fn; bool together; } msm_kernels[] = {
    { "mgpu_msm_convert_points", mgpu_msm_convert_points, false },
    { "mgpu_msm_convert_scalars", mgpu_msm_convert_scalars, false },
    { "mgpu_msm_check_points", mgpu_msm_check_points, false },
    { "mgpu_msm_digits", mgpu_msm_digits, false },
    { "mgpu_msm_bin_count", mgpu_msm_bin_count, true },
    { "mgpu_msm_scan_tiles", mgpu_msm_scan_tiles, true },
    { "mgpu_msm_scan_partials", mgpu_msm_scan_partials, true },
    { "mgpu_msm_scan_add", mgpu_msm_scan_add, false },
    { "mgpu_msm_bin_scatter", mgpu_msm_bin_scatter, true },
    { "mgpu_msm_place_count", mgpu_msm_place_count, true },
    { "mgpu_msm_place_write", mgpu_msm_place_write, true },
    { "mgpu_msm_accumulate", mgpu_msm_accumulate, false },
    { "mgpu_msm_fixup", mgpu_msm_fixup, false },
    { "mgpu_msm_fixup_long", mgpu_msm_fixup_long, true },
    { "mgpu_msm_segments", mgpu_msm_segments, false },
    { "mgpu_msm_sums", mgpu_msm_sums, true },
    { "mgpu_msm_windows", mgpu_msm_windows, true },
    { "mgpu_msm_precompute", mgpu_msm_precompute, false },
    { "mgpu_msm_digits_bls12_381", mgpu_msm_digits_bls12_381, false },
#define FAKE_MSM_GROUP(sfx, lanes)                                                            \
    { "mgpu_msm_convert_points_" #sfx, mgpu_msm_convert_points_##sfx, false },              \
    { "mgpu_msm_check_points_" #sfx, mgpu_msm_check_points_##sfx, false },                  \
    { "mgpu_msm_accumulate_" #sfx, mgpu_msm_accumulate_##sfx, lanes },                      \
    { "mgpu_msm_finish_" #sfx, mgpu_msm_finish_##sfx, true },                               \
    { "mgpu_msm_precompute_" #sfx, mgpu_msm_precompute_##sfx, false },
    FAKE_MSM_GROUP(bn254_g2, false)
    FAKE_MSM_GROUP(bls12_381_g1, false)
    FAKE_MSM_GROUP(bls12_381_g2, true)                 /* lane2: the pair's lanes swap words */
#undef FAKE_MSM_GROUP
    { "mgpu_msm_lanes_bn254_g2", mgpu_msm_lanes_bn254_g2, true },   /* lane2 too */
    { "mgpu_msm_lanes_bls12_381_g2", mgpu_msm_lanes_bls12_381_g2, true },
};
static_assert(sizeof(mgpu_bn::args) == sizeof(mgpu__msm_args), "msm args layout");
static bool msm_known(const std::string &name)
{
    for (const auto &k : msm_kernels) if (name == k.name) return true;
    return false;
}
static R launch_msm(const std::string &name, unsigned grid, unsigned block, const mgpu_bn::args &a, Stream *s)
{
    const void *ptrs[] = { a.scalars, a.points, a.out, a.keys, a.counts, a.offsets, a.partials, a.entries, a.binned,
                           a.bin_offsets, a.buckets,
                           a.slot_keys, a.slot_sums, a.seg, a.sums, a.status };
    for (const void *q : ptrs)
        if (q && !usable(s->dev, (uintptr_t)q, 1, name.c_str())) return ILLEGAL_ADDRESS;
    for (const auto &k : msm_kernels)
        if (name == k.name) {
            const msm_kernel fn = k.fn;
            const bool together = k.together;
            push(s, [=]() { emu_launch(grid, block, together, [&]() { fn(a); }); });
            return OK;
        }
    return NOT_FOUND;
}

/* Reduction kernels: the launch contract (blocks of MGPU_RED_BLOCK threads; a reduce grid
   no larger than multiprocessors x MGPU_RED_MIN_BLOCKS), then
   every range the kernel is given must lie in memory this device can use: reduce: src's n
   elements, out, and with more than one block gridDim.x 8-byte partials and the counter;
   combine: y's and x's n elements; all-reduce: the slice [first, first + count) of every
   buffer, each a peer's unless it is this device's own. At run time the reduce's counter
   must be 0 at the start (and is again at the end), and __ldcs / __ldcg / __stcg may touch
   only those ranges (emu_spans). */
enum { SMS = 8 };                                      /* multiprocessors (cuDeviceGetAttribute 16) */
static R launch_red(const emu_red_kernel *k, unsigned grid, unsigned block, void **params, Stream *s)
{
    const int dev = s->dev;
    const char *name = k->name;
    emu_red_call c;
    std::vector<emu_span> spans;
    memset(&c, 0, sizeof c);
    if (block != MGPU_RED_BLOCK) { fprintf(stderr, "fake libcuda: %s: blocks of %u threads\n", name, block); return INVALID_VALUE; }
    auto need = [&](const void *p, size_t n, bool write, const char *what) {
        if (!usable(dev, (uintptr_t)p, n, what)) return false;
        spans.push_back(emu_span{ (uintptr_t)p, (uintptr_t)p + n, write });
        return true;
    };
    if (k->kind == EMU_RED_REDUCE) {
        c.src = *(const void *const *)params[0];
        c.n = *(const unsigned long long *)params[1];
        c.partials = *(void *const *)params[2];
        c.counter = *(unsigned *const *)params[3];
        c.out = *(void *const *)params[4];
        if (grid > SMS * MGPU_RED_MIN_BLOCKS) {
            fprintf(stderr, "fake libcuda: %s: a grid of %u blocks cannot be resident at once (%u at most)\n", name, grid,
                    SMS * MGPU_RED_MIN_BLOCKS);
            return INVALID_VALUE;
        }
        if ((c.n && !need(c.src, c.n * k->size, false, "src")) || !need(c.out, k->size, true, "out") ||
            (grid > 1 && (!need(c.partials, (size_t)grid * 8, true, "partials") || !need(c.counter, 4, true, "counter"))))
            return ILLEGAL_ADDRESS;
    } else if (k->kind == EMU_RED_COMBINE) {
        c.y = *(void *const *)params[0];
        c.x = *(const void *const *)params[1];
        c.n = *(const unsigned long long *)params[2];
        if (c.n && (!need(c.y, c.n * k->size, true, "y") || !need(c.x, c.n * k->size, false, "x"))) return ILLEGAL_ADDRESS;
    } else {
        memcpy(&c.ar, params[0], sizeof c.ar);
        const mgpu__ar_args &a = c.ar;
        if (a.ndev < 1 || a.ndev > MGPU_AR_MAX || a.self < 0 || a.self >= a.ndev) {
            fprintf(stderr, "fake libcuda: %s: ndev %d, self %d\n", name, a.ndev, a.self);
            return INVALID_VALUE;
        }
        for (int r = 0; r < a.ndev && a.count; r++) {
            char what[32];
            snprintf(what, sizeof what, "bufs[%d] slice", r);
            if (!need((const char *)a.bufs[r] + a.first * k->size, a.count * k->size, true, what)) return ILLEGAL_ADDRESS;
        }
    }
    const emu_red_fn fn = k->fn;
    const bool together = k->kind == EMU_RED_REDUCE;   /* barriers and warp shuffles */
    push(s, [=]() {
        if (k->kind == EMU_RED_REDUCE && grid > 1 && *c.counter) {
            fprintf(stderr, "fake libcuda: %s on GPU %d: the counter is %u at launch (must be 0)\n", name, dev, *c.counter);
            abort();
        }
        emu_spans = spans;
        emu_spans_on = true;
        emu_launch(grid, block, together, [&]() { fn(c); });
        emu_spans_on = false;
        emu_spans.clear();
        if (k->kind == EMU_RED_REDUCE && grid > 1 && *c.counter) {
            fprintf(stderr, "fake libcuda: %s on GPU %d: the counter is %u after the launch (must be 0)\n", name, dev, *c.counter);
            abort();
        }
    });
    return OK;
}

/* ---- the entry points, with mgpu's signatures */
#define G std::lock_guard<std::recursive_mutex> g_(lock)
static R cuGetErrorName(R e, const char **n)
{
    static const char *const known[] = { "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_OUT_OF_MEMORY" };
    *n = e >= 0 && e <= 2 ? known[e] : e == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : e == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_FAKE";
    return OK;
}
static R cuDeviceGetCount(int *n) { *n = ndev; return OK; }
static R cuDeviceGet(mgpu__CUdevice *d, int o) { if (o < 0 || o >= ndev) return 101; *d = o; return OK; }
static R cuDeviceGetName(char *s, int len, mgpu__CUdevice d) { snprintf(s, (size_t)len, "Fake GPU %d (mgpu fake libcuda)", d); return OK; }
static R cuDeviceGetAttribute(int *v, mgpu__CUdevattr attr, mgpu__CUdevice)
{
    switch ((int)attr) {
    case 13: *v = 1980000; break;                      /* clock kHz */
    case 16: *v = SMS; break;                          /* multiprocessors: small grids, many strips */
    case 36: *v = 2619000; break;
    case 37: *v = 6144; break;
    case 40: *v = 2; break;
    case 41: case 83: case 115: *v = 1; break;
#ifndef _WIN32
    case 119: *v = 1; break;                           /* pools with POSIX fd handles (memfd) */
#endif
    case 75: *v = 9; break;
    default: *v = 0;
    }
    return OK;
}
static R cuDeviceTotalMem(size_t *b, mgpu__CUdevice) { *b = (size_t)16 << 30; return OK; }
static R cuDeviceGetUuid(mgpu__CUuuid *u, mgpu__CUdevice d) { memset(u, 0, sizeof *u); u->bytes[0] = (char)(d + 1); return OK; }
static R cuDeviceGetPCIBusId(char *s, int len, mgpu__CUdevice d) { snprintf(s, (size_t)len, "0000:%02x:00.0", d + 1); return OK; }
static R cuDeviceCanAccessPeer(int *can, mgpu__CUdevice a, mgpu__CUdevice b) { *can = p2p && a != b; return OK; }
static R cuDeviceGetDefaultMemPool(mgpu__CUmemoryPool *p, mgpu__CUdevice d) { *p = (mgpu__CUmemoryPool)(void *)&ctx[d]; return OK; }
static R cuDevicePrimaryCtxRetain(mgpu__CUcontext *c, mgpu__CUdevice d) { G; ctx[d].dev = d; *c = (mgpu__CUcontext)(void *)&ctx[d]; live_contexts++; return OK; }
static R cuDevicePrimaryCtxRelease(mgpu__CUdevice) { G; live_contexts--; return OK; }
static R cuCtxSetCurrent(mgpu__CUcontext c) { cur = (Ctx *)(void *)c; return OK; }
static R cuCtxGetCurrent(mgpu__CUcontext *c) { *c = (mgpu__CUcontext)(void *)cur; return OK; }
static R cuCtxSynchronize(void) { G; flush_all(); return OK; }
static R cuCtxEnablePeerAccess(mgpu__CUcontext peer, unsigned)
{
    G;
    Ctx *p = (Ctx *)(void *)peer;
    if (!p2p) return 217;
    if (cur->peers.count(p->dev)) return ALREADY;
    cur->peers.insert(p->dev);
    return OK;
}
static R cuMemGetInfo(size_t *f, size_t *t) { *f = (size_t)15 << 30; *t = (size_t)16 << 30; return OK; }
static R cuMemAlloc(mgpu__CUdeviceptr *p, size_t n) { G; return alloc(p, n, K_DEVICE); }
static R cuMemFree(mgpu__CUdeviceptr p) { G; flush_all(); return release((uintptr_t)p); }
static R cuMemAllocAsync(mgpu__CUdeviceptr *p, size_t n, mgpu__CUstream) { G; return alloc(p, n, K_DEVICE); }
static R cuMemFreeAsync(mgpu__CUdeviceptr p, mgpu__CUstream s) { G; flush(stream_of(s)); return release((uintptr_t)p); }
static R cuMemAllocManaged(mgpu__CUdeviceptr *p, size_t n, unsigned) { G; return alloc(p, n, K_MANAGED); }
static R cuMemHostAlloc(void **p, size_t n, unsigned)
{
    G;
    mgpu__CUdeviceptr d;
    R e = alloc(&d, n, K_HOST);
    *p = (void *)(uintptr_t)d;
    return e;
}
static R cuMemFreeHost(void *p) { G; flush_all(); return release((uintptr_t)p); }
static R cuMemPoolSetAttribute(mgpu__CUmemoryPool, mgpu__CUpoolattr, void *) { return OK; }
static R cuMemPoolSetAccess(mgpu__CUmemoryPool, const mgpu__CUmemAccessDesc *, size_t) { return OK; }
static R cuPointerGetAttributes(unsigned n, mgpu__CUptrattr *attrs, void **data, mgpu__CUdeviceptr p)
{
    G;
    const Alloc *a = find((uintptr_t)p);
    for (unsigned i = 0; i < n; i++) {
        if ((int)attrs[i] == 2) *(unsigned *)data[i] = !a ? 0u : a->kind == K_HOST ? 1u : a->kind == K_DEVICE ? 2u : 4u;
        if ((int)attrs[i] == 9) *(int *)data[i] = a ? a->dev : -1;
        if ((int)attrs[i] == 11) *(mgpu__CUdeviceptr *)data[i] = a ? (mgpu__CUdeviceptr)a->base : 0;   /* range start */
        if ((int)attrs[i] == 12) *(size_t *)data[i] = a ? a->size : 0;                                /* range size */
    }
    return OK;
}
/* As the real driver: cuMemsetD8 into device memory, and cuMemcpy from device to device
   memory, run on the legacy stream after the work queued so far and may return before
   they are done; streams the caller made non-blocking do not wait for them. */
static bool device_mem(uintptr_t p) { const Alloc *a = find(p); return a && a->kind == K_DEVICE; }
static R cuMemsetD8(mgpu__CUdeviceptr p, unsigned char v, size_t n)
{
    G;
    flush_all();
    if (device_mem((uintptr_t)p)) push(stream_of(nullptr), [=]() { memset((void *)(uintptr_t)p, v, n); });
    else memset((void *)(uintptr_t)p, v, n);
    return OK;
}
static R cuMemsetD8Async(mgpu__CUdeviceptr p, unsigned char v, size_t n, mgpu__CUstream s)
{
    G;
    push(stream_of(s), [=]() { memset((void *)(uintptr_t)p, v, n); });
    return OK;
}
static R cuMemcpy(mgpu__CUdeviceptr d, mgpu__CUdeviceptr s, size_t n)
{
    G;
    flush_all();
    if (device_mem((uintptr_t)d) && device_mem((uintptr_t)s)) push(stream_of(nullptr), [=]() { memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); });
    else memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
    return OK;
}
static R cuMemcpyAsync(mgpu__CUdeviceptr d, mgpu__CUdeviceptr s, size_t n, mgpu__CUstream st)
{
    G;
    Stream *q = stream_of(st);
    if (pageable((void *)(uintptr_t)d) || pageable((void *)(uintptr_t)s)) {   /* host side at the call */
        flush(q);
        memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
        return OK;
    }
    push(q, [=]() { memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); });
    return OK;
}
static R cuMemcpyPeerAsync(mgpu__CUdeviceptr d, mgpu__CUcontext, mgpu__CUdeviceptr s, mgpu__CUcontext, size_t n, mgpu__CUstream st)
{
    G;
    push(stream_of(st), [=]() { memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); });
    return OK;
}
static R cuStreamCreate(mgpu__CUstream *s, unsigned)
{
    G;
    Stream *q = new Stream();
    q->dev = cur->dev;
    streams.insert(q);
    *s = (mgpu__CUstream)(void *)q;
    return OK;
}
static R cuStreamDestroy(mgpu__CUstream s) { G; Stream *q = stream_of(s); flush(q); streams.erase(q); delete q; return OK; }
static R cuStreamSynchronize(mgpu__CUstream s) { G; flush(stream_of(s)); return OK; }
static R cuStreamQuery(mgpu__CUstream s) { G; flush(stream_of(s)); return OK; }
static R cuStreamWaitEvent(mgpu__CUstream s, mgpu__CUevent e, unsigned)
{
    G;
    Event ev = *(Event *)(void *)e;                   /* the record as of now */
    if (ev.s) push(stream_of(s), [=]() { flush_upto(ev.s, ev.seq); });
    return OK;
}
static R cuEventCreate(mgpu__CUevent *e, unsigned) { G; *e = (mgpu__CUevent)(void *)new Event(); live_events++; return OK; }
static R cuEventDestroy(mgpu__CUevent e) { G; delete (Event *)(void *)e; live_events--; return OK; }
static double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static R cuEventRecord(mgpu__CUevent e, mgpu__CUstream s)
{
    G;
    Event *ev = (Event *)(void *)e;
    std::shared_ptr<double> ms = std::make_shared<double>(-1.0);
    ev->s = stream_of(s);
    push(ev->s, [ms]() { *ms = now_ms(); });
    ev->seq = ev->s->next;
    ev->ms = ms;
    return OK;
}
static R cuEventSynchronize(mgpu__CUevent e) { G; Event *ev = (Event *)(void *)e; if (ev->s) flush_upto(ev->s, ev->seq); return OK; }
static R cuEventQuery(mgpu__CUevent e) { return cuEventSynchronize(e); }
/* Both must have been recorded; like the real driver, waits for neither. */
static R cuEventElapsedTime(float *ms, mgpu__CUevent a, mgpu__CUevent b)
{
    G;
    const Event *x = (const Event *)(void *)a, *y = (const Event *)(void *)b;
    if (!x->ms || !y->ms) return 400;                  /* CUDA_ERROR_INVALID_HANDLE */
    if (*x->ms < 0 || *y->ms < 0) return 600;          /* CUDA_ERROR_NOT_READY */
    *ms = (float)(*y->ms - *x->ms);
    return OK;
}
/* The driver takes an image without its size and reads as far as its headers say: the
   fake reads the same bytes, with memcpy of the declared sizes, so that a test under ASan
   (whose interceptor checks memcpy from any library) catches an image that mgpu passed
   shorter than its headers declare. CUDA_ERROR_INVALID_IMAGE for what is none of fatbin,
   64-bit ELF or PTX (".version" in the text). */
static uint64_t le(const unsigned char *b, int n) { uint64_t v = 0; while (n--) v = v << 8 | b[n]; return v; }
static bool read_image(const unsigned char *b)
{
    std::vector<unsigned char> copy;
    auto read = [&](const unsigned char *from, uint64_t n) { copy.resize(n); if (n) memcpy(copy.data(), from, n); };
    read(b, 4);
    if (le(copy.data(), 4) == 0xBA55ED50u) {                       /* fatbin: header, then its contents */
        read(b, 16);
        read(b, le(copy.data() + 6, 2) + le(copy.data() + 8, 8));
        return true;
    }
    if (!memcmp(copy.data(), "\x7F" "ELF", 4)) {                   /* ELF: header, header tables, sections */
        read(b, 64);
        const unsigned char *h = b;
        uint64_t shoff = le(h + 0x28, 8), shent = le(h + 0x3A, 2), shnum = le(h + 0x3C, 2);
        read(b + le(h + 0x20, 8), le(h + 0x36, 2) * le(h + 0x38, 2));
        read(b + shoff, shent * shnum);
        for (uint64_t i = 0; i < shnum; i++) {
            const unsigned char *sh = b + shoff + i * shent;
            if (le(sh + 4, 4) != 8) read(b + le(sh + 0x18, 8), le(sh + 0x20, 8));
        }
        return true;
    }
    return strstr((const char *)b, ".version") != nullptr;      /* PTX: text up to its NUL */
}
static R cuModuleLoadData(mgpu__CUmodule *m, const void *image)
{
    G;
    static int token;
    if (!image || !read_image((const unsigned char *)image)) return (R)200;   /* CUDA_ERROR_INVALID_IMAGE */
    *m = (mgpu__CUmodule)(void *)&token;
    live_modules++;
    return OK;
}
static R cuModuleUnload(mgpu__CUmodule) { G; live_modules--; return OK; }
static R cuModuleGetFunction(mgpu__CUfunction *f, mgpu__CUmodule, const char *name)
{
    G;
    const std::string nm(name);
    if (nm != "mgpu_noop" && nm != "mgpu_img_read" && nm != "mgpu_img_write" && !emu_blur_find(name) && !emu_blur_img_find(name) &&
        !emu_blur_imgp_find(name) &&
        !msm_known(nm) && !emu_red_find(name))
        return NOT_FOUND;
    *f = (mgpu__CUfunction)(void *)&*names.insert(nm).first;   /* set nodes are stable */
    return OK;
}
static R cuLaunchKernel(mgpu__CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, mgpu__CUstream s, void **params, void **)
{
    G;
    const std::string &name = *(const std::string *)(void *)f;
    launches[name]++;
    if (name == "mgpu_noop") return OK;
    if (msm_known(name)) {
        if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0 || shared) return INVALID_VALUE;
        return launch_msm(name, gx, bx, *(const mgpu_bn::args *)params[0], stream_of(s));
    }
    if (const emu_red_kernel *k = emu_red_find(name.c_str())) {
        if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0 || shared) return INVALID_VALUE;
        return launch_red(k, gx, bx, params, stream_of(s));
    }
    if (name == "mgpu_img_read" || name == "mgpu_img_write") {
        if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0) return INVALID_VALUE;
        return launch_img_copy(name == "mgpu_img_write", gx, bx, shared, *(const mgpu__img_copy *)params[0], stream_of(s));
    }
    if (const emu_blur_imgp_kernel *k = emu_blur_imgp_find(name.c_str())) {
        if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0) return INVALID_VALUE;
        return launch_blur_imgp(k, gx, bx, shared, *(const mgpu__blur_args *)params[0], *(const mgpu__blur_imgp *)params[1],
                                stream_of(s));
    }
    if (const emu_blur_img_kernel *k = emu_blur_img_find(name.c_str())) {
        if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0 || bx != MGPU__BLUR_IMG_THREADS) return INVALID_VALUE;
        return launch_blur_img(k, gx, bx, shared, *(const mgpu__blur_args *)params[0], *(const mgpu__blur_img *)params[1],
                               stream_of(s));
    }
    /* blur: 128 (fast, pipelined, ring) or 64..256 threads (generic, by radius; wide: 256; tiled: 192) */
    if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0 || (bx != 64 && bx != 128 && bx != 192 && bx != 256))
        return INVALID_VALUE;
    return launch_blur(name, gx, bx, shared, *(const mgpu__blur_args *)params[0], stream_of(s));
}
static R cuLaunchHostFunc(mgpu__CUstream s, void (*fn)(void *), void *data)
{
    G;
    push(stream_of(s), [=]() { fn(data); });
    return OK;
}
#ifndef _WIN32
/* IPC: the handle holds {pid, fd, device, inode, bytes} of the exporter's memfd. */
struct IpcMem { long pid; int fd; unsigned long long dev, ino, size; };
static_assert(sizeof(IpcMem) <= sizeof(mgpu__CUipcMemHandle), "IPC handle layout");
static R cuIpcGetMemHandle(mgpu__CUipcMemHandle *h, mgpu__CUdeviceptr p)
{
    G;
    auto it = allocs.find((uintptr_t)p);
    struct stat st;
    if (it == allocs.end() || it->second.fd < 0 || fstat(it->second.fd, &st) != 0) return INVALID_VALUE;
    IpcMem m{(long)getpid(), it->second.fd, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, it->second.size};
    memset(h, 0, sizeof *h);
    memcpy(h, &m, sizeof m);
    return OK;
}
/* Maps another process's memfd (m) as memory of the current context's device. */
static R map_shared(mgpu__CUdeviceptr *p, const IpcMem &m)
{
    struct stat st;
    char path[64];
    if (!cur) return 201;
    if (m.pid == (long)getpid()) return 201;          /* the real driver refuses its own handles */
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", m.pid, m.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return INVALID_VALUE;
    if (fstat(fd, &st) != 0 || (unsigned long long)st.st_dev != m.dev || (unsigned long long)st.st_ino != m.ino ||
        (unsigned long long)st.st_size < m.size) { close(fd); return INVALID_VALUE; }
    void *a = mmap(nullptr, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (a == MAP_FAILED) return 2;
    Alloc r{(uintptr_t)a, (size_t)m.size, K_DEVICE, cur->dev, nullptr};
    r.mapped = (size_t)st.st_size;
    allocs[r.base] = r;
    *p = r.base;
    return OK;
}
static R cuIpcOpenMemHandle(mgpu__CUdeviceptr *p, mgpu__CUipcMemHandle h, unsigned)
{
    G;
    IpcMem m;
    memcpy(&m, &h, sizeof m);
    return map_shared(p, m);
}
/* Pools with POSIX fd handles: the exported descriptor is the pool's own memfd (a process
   that did not receive it cannot import the pool); a pointer's export data is the
   allocation's IpcMem and the pool's inode, and imports only into that pool. As with the
   real driver, a pool's pointers export only after the pool was exported. */
struct PoolPtr { IpcMem mem; unsigned long long pool_ino; };
static_assert(sizeof(PoolPtr) <= sizeof(mgpu__CUmemPoolPtrExportData), "pool export data layout");
static const char pool_magic[] = "fake_cuda pool";
static R cuMemPoolCreate(mgpu__CUmemoryPool *pool, const mgpu__CUmemPoolProps *props)
{
    G;
    struct stat st;
    if (props->allocType != 1 || props->location.type != 1 || props->location.id < 0 || props->location.id >= ndev ||
        (props->handleTypes & ~1)) return INVALID_VALUE;
    Pool *o = new Pool{props->location.id};
    if (props->handleTypes & 1) {
        o->fd = memfd_create("fake_cuda_pool", MFD_CLOEXEC);
        if (o->fd < 0 || write(o->fd, pool_magic, sizeof pool_magic) != (ssize_t)sizeof pool_magic || fstat(o->fd, &st) != 0) {
            if (o->fd >= 0) close(o->fd);
            delete o;
            return 2;
        }
        o->ino = (unsigned long long)st.st_ino;
    }
    pools.insert(o);
    *pool = (mgpu__CUmemoryPool)(void *)o;
    return OK;
}
static R cuMemPoolExportToShareableHandle(void *handle, mgpu__CUmemoryPool pool, mgpu__CUmemHandleType type, unsigned long long)
{
    G;
    Pool *o = (Pool *)(void *)pool;
    if (!pools.count(o) || o->imported || o->fd < 0 || type != 1) return INVALID_VALUE;
    int fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return 2;
    memcpy(handle, &fd, sizeof fd);
    o->exported = true;
    return OK;
}
static R cuMemPoolImportFromShareableHandle(mgpu__CUmemoryPool *pool, void *handle, mgpu__CUmemHandleType type,
                                            unsigned long long)
{
    G;
    char magic[sizeof pool_magic] = "";
    struct stat st;
    int fd = (int)(intptr_t)handle;
    if (type != 1 || pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic || memcmp(magic, pool_magic, sizeof magic) ||
        fstat(fd, &st) != 0) return INVALID_VALUE;    /* not a pool's descriptor */
    Pool *o = new Pool{cur ? cur->dev : 0};
    o->ino = (unsigned long long)st.st_ino;
    o->imported = true;
    pools.insert(o);
    *pool = (mgpu__CUmemoryPool)(void *)o;
    return OK;
}
static R cuMemPoolExportPointer(mgpu__CUmemPoolPtrExportData *data, mgpu__CUdeviceptr p)
{
    G;
    auto it = allocs.find((uintptr_t)p);
    struct stat st;
    if (it == allocs.end() || !pools.count((Pool *)it->second.pool) || !((const Pool *)it->second.pool)->exported ||
        it->second.fd < 0 || fstat(it->second.fd, &st) != 0) return INVALID_VALUE;
    PoolPtr e{{(long)getpid(), it->second.fd, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, it->second.size},
              ((const Pool *)it->second.pool)->ino};
    memset(data, 0, sizeof *data);
    memcpy(data, &e, sizeof e);
    return OK;
}
static R cuMemPoolImportPointer(mgpu__CUdeviceptr *p, mgpu__CUmemoryPool pool, mgpu__CUmemPoolPtrExportData *data)
{
    G;
    PoolPtr e;
    Pool *o = (Pool *)(void *)pool;
    memcpy(&e, data, sizeof e);
    if (!pools.count(o) || !o->imported || o->ino != e.pool_ino) return INVALID_VALUE;
    return map_shared(p, e.mem);
}
#else                                  /* 801: CUDA_ERROR_NOT_SUPPORTED (no memfd; see the top) */
static R cuIpcGetMemHandle(mgpu__CUipcMemHandle *, mgpu__CUdeviceptr) { return 801; }
static R cuIpcOpenMemHandle(mgpu__CUdeviceptr *, mgpu__CUipcMemHandle, unsigned) { return 801; }
static R cuMemPoolCreate(mgpu__CUmemoryPool *, const mgpu__CUmemPoolProps *) { return 801; }
static R cuMemPoolExportToShareableHandle(void *, mgpu__CUmemoryPool, mgpu__CUmemHandleType, unsigned long long) { return 801; }
static R cuMemPoolImportFromShareableHandle(mgpu__CUmemoryPool *, void *, mgpu__CUmemHandleType, unsigned long long) { return 801; }
static R cuMemPoolExportPointer(mgpu__CUmemPoolPtrExportData *, mgpu__CUdeviceptr) { return 801; }
static R cuMemPoolImportPointer(mgpu__CUdeviceptr *, mgpu__CUmemoryPool, mgpu__CUmemPoolPtrExportData *) { return 801; }
#endif
static R cuMemPoolDestroy(mgpu__CUmemoryPool pool)
{
    G;
    Pool *o = (Pool *)(void *)pool;
    if (!pools.erase(o)) return INVALID_VALUE;
#ifndef _WIN32
    if (o->fd >= 0) close(o->fd);
#endif
    delete o;
    return OK;
}
/* Made pools only (the default pools go through cuMemAllocAsync); an imported one refuses. */
static R cuMemAllocFromPoolAsync(mgpu__CUdeviceptr *p, size_t n, mgpu__CUmemoryPool pool, mgpu__CUstream)
{
    G;
    Pool *o = (Pool *)(void *)pool;
    if (!pools.count(o) || o->imported || !cur || o->dev != cur->dev) return INVALID_VALUE;
    R e = alloc(p, n, K_DEVICE);
    if (e == OK) allocs[(uintptr_t)*p].pool = o;
    return e;
}
static R cuIpcCloseMemHandle(mgpu__CUdeviceptr p) { G; flush_all(); return release((uintptr_t)p); }
static R cuIpcGetEventHandle(mgpu__CUipcEventHandle *h, mgpu__CUevent) { long pid = (long)getpid(); memset(h, 0, sizeof *h); memcpy(h, &pid, sizeof pid); return OK; }
static R cuIpcOpenEventHandle(mgpu__CUevent *e, mgpu__CUipcEventHandle h)
{
    long pid;
    memcpy(&pid, &h, sizeof pid);
    if (pid == (long)getpid()) return 201;
    *e = (mgpu__CUevent)(void *)new Event();           /* complete: see the IPC note at the top */
    return OK;
}

/* ---- graphics interop (see ExtMem above) */
#ifndef _WIN32
static const unsigned long long sem_magic = 0x316d6573757067ull;   /* "gpusem1" */
/* Its memfd's name says whether the test made the allocation dedicated ("dedicated" in it). */
static bool fd_dedicated(int fd)
{
    char path[64], name[256] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, name, sizeof name - 1);
    if (n > 0) name[n] = 0;
    return strstr(name, "dedicated") != nullptr;
}
/* The driver takes the fd (closes it at cuDestroyExternalMemory). size must be the file's, the
   dedicated flag as the "allocation" was made. */
static R cuImportExternalMemory(mgpu__CUexternalMemory *m, const mgpu__CUextMemDesc *d)
{
    G;
    struct stat st;
    if (!cur) return 201;
    if (d->type >= 2 && d->type <= 8) return 801;
    if (d->type != 1 || (d->flags & ~1u)) return INVALID_VALUE;
    if (fstat(d->handle.fd, &st) != 0 || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size != d->size ||
        fd_dedicated(d->handle.fd) != (d->flags == 1)) return INVALID_VALUE;
    ExtMem *e = new ExtMem{d->handle.fd, (size_t)d->size, cur->dev};
    extmems.insert(e);
    *m = (mgpu__CUexternalMemory)(void *)e;
    return OK;
}
static void *map_ext(const ExtMem *e) { void *p = mmap(nullptr, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0); return p == MAP_FAILED ? nullptr : p; }
static R cuExternalMemoryGetMappedBuffer(mgpu__CUdeviceptr *p, mgpu__CUexternalMemory m, const mgpu__CUextBufferDesc *d)
{
    G;
    ExtMem *e = (ExtMem *)(void *)m;
    if (!extmems.count(e) || !cur || cur->dev != e->dev || d->flags || !d->size || d->offset > e->size ||
        d->size > e->size - d->offset) return INVALID_VALUE;
    void *map = map_ext(e);
    if (!map) return 2;
    Alloc a{(uintptr_t)map + (uintptr_t)d->offset, (size_t)d->size, K_DEVICE, e->dev, nullptr};
    a.map = map;
    a.map_len = e->size;
    a.ext = e;
    allocs[a.base] = a;
    e->buffers++;
    *p = a.base;
    return OK;
}
static size_t tiled_bytes(int w, int h, int px) { return (size_t)((w + 7) / 8) * (size_t)((h + 7) / 8) * 64 * (size_t)px; }
static unsigned char *texel(const Array *a, int x, int y)
{
    return a->base + ((size_t)(y / 8) * (size_t)((a->w + 7) / 8) + (size_t)(x / 8)) * 64 * (size_t)a->px +
           (size_t)((y % 8) * 8 + x % 8) * (size_t)a->px;
}
static R cuExternalMemoryGetMappedMipmappedArray(mgpu__CUmipmappedArray *mip, mgpu__CUexternalMemory m,
                                                 const mgpu__CUextArrayDesc *d)
{
    G;
    ExtMem *e = (ExtMem *)(void *)m;
    const int es = d->arrayDesc.Format == 0x01 ? 1 : d->arrayDesc.Format == 0x20 ? 4 : 0, ch = (int)d->arrayDesc.NumChannels;
    if (!extmems.count(e) || !cur || cur->dev != e->dev || !es || (ch != 1 && ch != 2 && ch != 4) || d->arrayDesc.Depth ||
        !d->arrayDesc.Width || !d->arrayDesc.Height || d->arrayDesc.Width > 131072 || d->arrayDesc.Height > 65536 ||
        !d->numLevels || (d->arrayDesc.Flags & ~0x22u)) return INVALID_VALUE;
    const int w = (int)d->arrayDesc.Width, h = (int)d->arrayDesc.Height;
    if (d->offset > e->size || tiled_bytes(w, h, es * ch) > e->size - d->offset) return INVALID_VALUE;
    void *map = map_ext(e);
    if (!map) return 2;
    Array *a = new Array{e, (unsigned char *)map + d->offset, map, e->size, w, h, es * ch, d->arrayDesc.Flags};
    arrays.insert(a);
    e->arrays++;
    *mip = (mgpu__CUmipmappedArray)(void *)a;
    return OK;
}
/* Level 0 is the array itself. */
static R cuMipmappedArrayGetLevel(mgpu__CUarray *level, mgpu__CUmipmappedArray mip, unsigned index)
{
    G;
    if (!arrays.count((Array *)(void *)mip) || index) return INVALID_VALUE;
    *level = (mgpu__CUarray)(void *)mip;
    return OK;
}
static R cuMipmappedArrayDestroy(mgpu__CUmipmappedArray mip)
{
    G;
    Array *a = (Array *)(void *)mip;
    if (!arrays.count(a)) return INVALID_VALUE;
    for (Surf *f : surfs)
        if (f->arr == a) {
            fprintf(stderr, "fake libcuda: cuMipmappedArrayDestroy of an array with a live surface object\n");
            return INVALID_VALUE;
        }
    flush_all();
    munmap(a->map, a->map_len);
    a->mem->arrays--;
    arrays.erase(a);
    delete a;
    return OK;
}
/* As the real driver asks: every buffer and array released first. */
static R cuDestroyExternalMemory(mgpu__CUexternalMemory m)
{
    G;
    ExtMem *e = (ExtMem *)(void *)m;
    if (!extmems.count(e)) return INVALID_VALUE;
    if (e->buffers || e->arrays) {
        fprintf(stderr, "fake libcuda: cuDestroyExternalMemory with %d buffer(s) and %d array(s) still mapped\n", e->buffers, e->arrays);
        return INVALID_VALUE;
    }
    close(e->fd);
    extmems.erase(e);
    delete e;
    return OK;
}
/* One side of a 2D copy: its address of byte x of row y, after checking the rectangle. */
struct Side { int type; unsigned char *p; size_t pitch; const Array *a; };
static bool side(Side &s, int type, const void *host, mgpu__CUdeviceptr dev, mgpu__CUarray arr, size_t pitch, size_t x, size_t y,
                 size_t wb, size_t h)
{
    s.type = type;
    s.pitch = pitch;
    s.a = nullptr;
    if (type == 3) {
        s.a = (const Array *)(void *)arr;
        if (!arrays.count((Array *)(void *)arr) || x % (size_t)s.a->px || wb % (size_t)s.a->px ||
            x + wb > (size_t)s.a->w * (size_t)s.a->px || y + h > (size_t)s.a->h) return false;
        s.p = nullptr;
        return true;
    }
    if (type != 1 && type != 2 && type != 4) return false;
    s.p = (unsigned char *)(type == 1 ? (uintptr_t)host : (uintptr_t)dev) + y * pitch + x;
    return pitch >= wb;
}
static unsigned char *at(const Side &s, size_t x0, size_t xb, size_t y)
{
    if (s.a) return texel(s.a, (int)((x0 + xb) / (size_t)s.a->px), (int)y);
    return s.p + y * s.pitch + xb;
}
static R cuMemcpy2DAsync(const mgpu__CUmemcpy2D *c, mgpu__CUstream st)
{
    G;
    Side a, b;
    if (!side(a, c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch, c->srcXInBytes, c->srcY, c->WidthInBytes, c->Height) ||
        !side(b, c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch, c->dstXInBytes, c->dstY, c->WidthInBytes, c->Height))
        return INVALID_VALUE;
    const size_t wb = c->WidthInBytes, h = c->Height, sx = c->srcXInBytes, sy = c->srcY, dx = c->dstXInBytes, dy = c->dstY;
    const size_t px = a.a ? (size_t)a.a->px : b.a ? (size_t)b.a->px : wb;
    auto run = [=]() {
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < wb; x += px) memmove(at(b, dx, x, dy + y), at(a, sx, x, sy + y), px < wb - x ? px : wb - x);
    };
    Stream *q = stream_of(st);
    if ((a.type == 1 && pageable(a.p)) || (b.type == 1 && pageable(b.p))) { flush(q); run(); return OK; }
    push(q, run);
    return OK;
}
static unsigned char *surf_texel(const void *arr, int x, int y) { return texel((const Array *)arr, x, y); }
/* A surface of an array made with CUDA_ARRAY3D_SURFACE_LDST (0x02), on the current GPU. */
static R cuSurfObjectCreate(mgpu__CUsurfObject *surf, const mgpu__CUresDesc *d)
{
    G;
    Array *a = d ? (Array *)(void *)d->res.array.hArray : nullptr;
    if (!surf || !d || d->resType != 0 || d->flags || !arrays.count(a) || !(a->flags & 0x02u) || !cur || cur->dev != a->mem->dev)
        return INVALID_VALUE;
    Surf *f = new Surf;
    f->at = surf_texel;
    f->array = a;
    f->w = a->w;
    f->h = a->h;
    f->px = a->px;
    f->arr = a;
    f->dev = a->mem->dev;
    surfs.insert(f);
    *surf = (mgpu__CUsurfObject)(uintptr_t)f;
    return OK;
}
static R cuSurfObjectDestroy(mgpu__CUsurfObject surf)
{
    G;
    Surf *f = (Surf *)(uintptr_t)surf;
    if (!surfs.erase(f)) return INVALID_VALUE;
    delete f;
    return OK;
}
static R cuImportExternalSemaphore(mgpu__CUexternalSemaphore *sem, const mgpu__CUextSemDesc *d)
{
    G;
    struct stat st;
    unsigned long long magic = 0;
    if (d->type == 2 || d->type == 3 || d->type == 4 || d->type == 10) return 801;
    if ((d->type != 1 && d->type != 9) || d->flags) return INVALID_VALUE;
    if (fstat(d->handle.fd, &st) != 0 || st.st_size != 16 || pread(d->handle.fd, &magic, 8, 0) != 8 || magic != sem_magic)
        return INVALID_VALUE;
    void *m = mmap(nullptr, 16, PROT_READ | PROT_WRITE, MAP_SHARED, d->handle.fd, 0);
    if (m == MAP_FAILED) return 2;
    ExtSem *e = new ExtSem{d->handle.fd, (unsigned long long *)m + 1, d->type == 9};
    extsems.insert(e);
    *sem = (mgpu__CUexternalSemaphore)(void *)e;
    return OK;
}
/* Signal: a timeline takes the value, a binary one becomes 1. Wait: until the value is
   reached (a binary one: 1, taken back to 0); 20 s without is a test that hangs: abort. */
static R cuSignalExternalSemaphoresAsync(const mgpu__CUexternalSemaphore *sems, const mgpu__CUextSemSignal *p, unsigned n,
                                         mgpu__CUstream st)
{
    G;
    for (unsigned i = 0; i < n; i++) if (!extsems.count((ExtSem *)(void *)sems[i])) return INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        ExtSem *e = (ExtSem *)(void *)sems[i];
        const unsigned long long v = e->timeline ? p[i].params.fence.value : 1;
        push(stream_of(st), [=]() { __atomic_store_n(e->v, v, __ATOMIC_SEQ_CST); });
    }
    return OK;
}
static R cuWaitExternalSemaphoresAsync(const mgpu__CUexternalSemaphore *sems, const mgpu__CUextSemWait *p, unsigned n,
                                       mgpu__CUstream st)
{
    G;
    for (unsigned i = 0; i < n; i++) if (!extsems.count((ExtSem *)(void *)sems[i])) return INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        ExtSem *e = (ExtSem *)(void *)sems[i];
        const unsigned long long v = p[i].params.fence.value;
        push(stream_of(st), [=]() {
            const double until = now_ms() + 20000;
            for (;;) {
                unsigned long long one = 1;
                if (e->timeline ? __atomic_load_n(e->v, __ATOMIC_SEQ_CST) >= v
                                : __atomic_compare_exchange_n(e->v, &one, 0ull, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) break;
                if (now_ms() > until) { fprintf(stderr, "fake libcuda: a semaphore wait was not signalled in 20 s\n"); abort(); }
                usleep(100);
            }
        });
    }
    return OK;
}
static R cuDestroyExternalSemaphore(mgpu__CUexternalSemaphore sem)
{
    G;
    ExtSem *e = (ExtSem *)(void *)sem;
    if (!extsems.erase(e)) return INVALID_VALUE;
    munmap(e->v - 1, 16);
    close(e->fd);
    delete e;
    return OK;
}
static R cuDeviceGetLuid(char *, unsigned *, mgpu__CUdevice) { return 801; }   /* Windows only */
#else
static R cuImportExternalMemory(mgpu__CUexternalMemory *, const mgpu__CUextMemDesc *) { return 801; }
static R cuExternalMemoryGetMappedBuffer(mgpu__CUdeviceptr *, mgpu__CUexternalMemory, const mgpu__CUextBufferDesc *) { return 801; }
static R cuExternalMemoryGetMappedMipmappedArray(mgpu__CUmipmappedArray *, mgpu__CUexternalMemory, const mgpu__CUextArrayDesc *) { return 801; }
static R cuMipmappedArrayGetLevel(mgpu__CUarray *, mgpu__CUmipmappedArray, unsigned) { return 801; }
static R cuMipmappedArrayDestroy(mgpu__CUmipmappedArray) { return 801; }
static R cuDestroyExternalMemory(mgpu__CUexternalMemory) { return 801; }
static R cuMemcpy2DAsync(const mgpu__CUmemcpy2D *, mgpu__CUstream) { return 801; }
static R cuImportExternalSemaphore(mgpu__CUexternalSemaphore *, const mgpu__CUextSemDesc *) { return 801; }
static R cuSignalExternalSemaphoresAsync(const mgpu__CUexternalSemaphore *, const mgpu__CUextSemSignal *, unsigned, mgpu__CUstream) { return 801; }
static R cuWaitExternalSemaphoresAsync(const mgpu__CUexternalSemaphore *, const mgpu__CUextSemWait *, unsigned, mgpu__CUstream) { return 801; }
static R cuDestroyExternalSemaphore(mgpu__CUexternalSemaphore) { return 801; }
static R cuSurfObjectCreate(mgpu__CUsurfObject *, const mgpu__CUresDesc *) { return 801; }
static R cuSurfObjectDestroy(mgpu__CUsurfObject) { return 801; }
/* A LUID per GPU: "LUIDfk" and the ordinal. */
static R cuDeviceGetLuid(char *luid, unsigned *mask, mgpu__CUdevice d) { memcpy(luid, "LUIDfk", 6); luid[6] = 0; luid[7] = (char)d; *mask = 1; return OK; }
#endif
#undef G

/* Every entry point goes through Faulty<f>::call, which counts the call and fails the
   chosen one (before the fake does anything, so a failed call changes nothing). */
static const char *entry_name(void *fn);
template <typename T, T f> struct Faulty;
template <typename... A, R (*f)(A...)> struct Faulty<R (*)(A...), f> {
    static R call(A... a) { R e; return fault::now(&e, [] { return entry_name((void *)&call); }) ? e : f(a...); }
};

struct Entry { const char *name; void *fn; };
#define E(n) { #n, (void *)&Faulty<decltype(&n), &n>::call }
static const Entry table[] = {
    E(cuGetErrorName), E(cuDeviceGetCount), E(cuDeviceGet), E(cuDeviceGetName), E(cuDeviceGetAttribute),
    E(cuDeviceTotalMem), E(cuDeviceGetUuid), E(cuDeviceGetPCIBusId), E(cuDeviceCanAccessPeer),
    E(cuDeviceGetDefaultMemPool), E(cuDevicePrimaryCtxRetain), E(cuDevicePrimaryCtxRelease), E(cuCtxSetCurrent),
    E(cuCtxGetCurrent), E(cuCtxSynchronize), E(cuCtxEnablePeerAccess), E(cuMemGetInfo), E(cuMemAlloc), E(cuMemFree),
    E(cuMemAllocAsync), E(cuMemFreeAsync), E(cuMemAllocManaged), E(cuMemHostAlloc), E(cuMemFreeHost),
    E(cuMemPoolSetAttribute), E(cuMemPoolSetAccess), E(cuPointerGetAttributes), E(cuMemsetD8), E(cuMemsetD8Async),
    E(cuMemcpy), E(cuMemcpyAsync), E(cuMemcpyPeerAsync), E(cuStreamCreate), E(cuStreamDestroy), E(cuStreamSynchronize),
    E(cuStreamQuery), E(cuStreamWaitEvent), E(cuEventCreate), E(cuEventDestroy), E(cuEventRecord), E(cuEventSynchronize),
    E(cuEventQuery), E(cuEventElapsedTime), E(cuModuleLoadData), E(cuModuleUnload), E(cuModuleGetFunction),
    E(cuLaunchKernel), E(cuLaunchHostFunc), E(cuIpcGetMemHandle), E(cuIpcOpenMemHandle), E(cuIpcCloseMemHandle),
    E(cuIpcGetEventHandle), E(cuIpcOpenEventHandle), E(cuMemPoolCreate), E(cuMemPoolDestroy), E(cuMemAllocFromPoolAsync),
    E(cuMemPoolExportToShareableHandle), E(cuMemPoolImportFromShareableHandle), E(cuMemPoolExportPointer),
    E(cuMemPoolImportPointer), E(cuDeviceGetLuid), E(cuImportExternalMemory), E(cuExternalMemoryGetMappedBuffer),
    E(cuExternalMemoryGetMappedMipmappedArray), E(cuDestroyExternalMemory), E(cuMipmappedArrayGetLevel),
    E(cuMipmappedArrayDestroy), E(cuMemcpy2DAsync), E(cuImportExternalSemaphore), E(cuSignalExternalSemaphoresAsync),
    E(cuWaitExternalSemaphoresAsync), E(cuDestroyExternalSemaphore), E(cuSurfObjectCreate), E(cuSurfObjectDestroy),
};
#undef E
static const char *entry_name(void *fn)
{
    for (const Entry &e : table) if (e.fn == fn) return e.name;
    return "?";
}

/* FAKE_CUDA_REPORT=1: at exit, one line per kernel launched ("fake libcuda: ran NAME
   xCOUNT"), so a test can tell which kernels a suite ran on the fake GPUs. */
static void report_launches()
{
    const char *e = getenv("FAKE_CUDA_REPORT");
    if (!e || !*e || !strcmp(e, "0")) return;
    for (const auto &l : launches) fprintf(stderr, "fake libcuda: ran %s x%lu\n", l.first.c_str(), l.second);
}
__attribute__((destructor)) static void at_exit() { report_launches(); }

} /* namespace fake */

extern "C" {
FAKE_EXPORT long fake_cuda_live(char *text, size_t size)
{
    std::lock_guard<std::recursive_mutex> g(fake::lock);
    long n = (long)fake::allocs.size() + (long)fake::streams.size() + fake::live_events + fake::live_modules +
             fake::live_contexts + (long)fake::pools.size() + (long)fake::extmems.size() + (long)fake::arrays.size() +
             (long)fake::extsems.size() + (long)fake::surfs.size();
    snprintf(text, size, "%zu allocation(s), %zu stream(s), %ld event(s), %ld module(s), %ld primary context(s), %zu pool(s), "
             "%zu external memory(s), %zu array(s), %zu external semaphore(s), %zu surface(s)",
             fake::allocs.size(), fake::streams.size(), fake::live_events, fake::live_modules, fake::live_contexts,
             fake::pools.size(), fake::extmems.size(), fake::arrays.size(), fake::extsems.size(), fake::surfs.size());
    return n;
}
FAKE_EXPORT int cuDriverGetVersion(int *v) { *v = 12080; return 0; }
FAKE_EXPORT int cuInit(unsigned)
{
    const char *n = getenv("FAKE_CUDA_DEVICES"), *p = getenv("FAKE_CUDA_P2P"), *b = getenv("FAKE_CUDA_BLUR");
    if (n && *n) fake::ndev = atoi(n) < 1 ? 1 : atoi(n) > fake::MAXD ? (int)fake::MAXD : atoi(n);
    if (p && *p) fake::p2p = atoi(p) != 0;
    fake::blur_cpu = b && !strcmp(b, "cpu");
    for (int d = 0; d < fake::MAXD; d++) { fake::ctx[d].dev = d; fake::legacy[d].dev = d; }
    return 0;
}
FAKE_EXPORT int cuGetProcAddress_v2(const char *symbol, void **pfn, int, unsigned long long, int *status)
{
    if (!strcmp(symbol, "cuInit")) { *pfn = (void *)&cuInit; if (status) *status = 0; return 0; }
    for (const fake::Entry &e : fake::table)
        if (!strcmp(e.name, symbol)) { *pfn = e.fn; if (status) *status = 0; return 0; }
    *pfn = nullptr;
    if (status) *status = 1;
    return 500;
}
}
