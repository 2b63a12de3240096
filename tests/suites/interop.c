/* tests/suites/interop.c - graphics interop (mgpu.h's >>interop): imported memory used as
   buffers and images, imported semaphores, the device that matches a UUID, and every misuse
   with its own status.

   Plain C99 with its own main; it holds the implementation. Built and run by `make
   test-unit` (build/suite_interop: on CPU devices, where the imports are refused and the
   argument checks and device lookups run), `make test-asan`, and on the 2 fake GPUs of
   build/libfake_cuda.so by `make test-fake` (FAKE_RUNS), whose driver takes memfds as the
   "exporter's" memory and semaphores: the test writes and reads that memory through its own
   mapping, as Vulkan would through its own. There:
   - buffers: blur (8-bit RGBA and gray, f32, several radii and borders), reduce, copies
     (host, peer), all-reduce and blur_batch over buffers imported on both GPUs, each
     result bit for bit the CPU device's on the same input;
   - images (CUDA arrays, which the fake stores in 8x8 tiles so that only the 2D copies read
     them right): written, blurred in place and into another image, read back; a batch
     over images on both GPUs;
   - semaphores: timeline (the "exporter" signals from another thread while the stream
     waits; mgpu signals a value the exporter sees) and binary;
   - the rules: the whole allocation's size, the dedicated flag (the fake refuses either
     wrong: MGPU_ERROR_EXTERNAL_HANDLE, the fd still the caller's), a second import of an fd
     the driver holds and an fd that is not open (MGPU_ERROR_EXTERNAL_HANDLE), ranges past
     the allocation (MGPU_ERROR_INVALID_ARGUMENT), a stream of the other GPU
     (MGPU_ERROR_WRONG_DEVICE), destroyed and stale handles (MGPU_ERROR_INVALID_HANDLE),
     mgpu_free of an imported buffer (MGPU_ERROR_INVALID_POINTER);
   - release: destroy takes images and buffers with it; mgpu_shutdown releases what is left,
     and the fake then holds nothing (fake_cuda_live).
   On a real driver (tools/gpu_check.sh) the memfd cases are skipped: examples/vulkan_blur
   is the real exporter. Prints ok / FAIL / skip lines and last `N passed, N failed, N
   skipped`. */
#define _GNU_SOURCE
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#define SUITE_CHECKS
#include "tests/suites/suite.h"
#ifdef __linux__
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#define HAVE_MEMFD 1
#else
#define HAVE_MEMFD 0
#endif

#define CHECK_ERR(call, want) do { mgpu_result r_ = (call); if (r_ != (want) || !*mgpu_last_error()) \
    fail_at(__FILE__, __LINE__, "%s returned %s, want %s with a message [%s]", #call, mgpu_result_string(r_), \
            mgpu_result_string(want), mgpu_last_error()); } while (0)

static int start_test(void) { cur_failed = cur_skipped = 0; cur_msg[0] = cur_skip[0] = 0; return 0; }
static void end_test(const char *name)
{
    if (cur_skipped && !cur_failed) skip("%s: %s", name, cur_skip);
    else report(!cur_failed, "%s%s%s", name, cur_failed ? ": " : "", cur_msg);
}
#define TEST(name, call) do { start_test(); call; end_test(name); } while (0)

static int ngpu;                        /* GPUs of the default backend */
static int fake;                        /* the fake driver, which takes memfds */
static const char *no_exporter;         /* why the memfd cases cannot run, or NULL */

/* ---- the "exporter": memory and semaphores as the fake driver takes them */
#if HAVE_MEMFD
typedef struct exported { int fd; unsigned char *map; size_t size; } exported;
static int export_memory(size_t size, int dedicated, exported *e)
{
    e->size = size;
    e->fd = memfd_create(dedicated ? "vk_dedicated" : "vk_memory", MFD_CLOEXEC);
    if (e->fd < 0 || ftruncate(e->fd, (off_t)size) != 0) return 0;
    e->map = (unsigned char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
    return e->map != MAP_FAILED;
}
static void unmap(exported *e) { munmap(e->map, e->size); }
/* A semaphore: 16 bytes, a magic word, then the value. */
static int export_semaphore(exported *e)
{
    static const unsigned long long magic = 0x316d6573757067ull;
    if (!export_memory(16, 0, e)) return 0;
    memcpy(e->map, &magic, 8);
    return 1;
}
static unsigned long long *sem_value(const exported *e) { return (unsigned long long *)(void *)(e->map + 8); }
static int fd_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

static mgpu_result import_fd(mgpu_device dev, int fd, size_t size, unsigned flags, mgpu_external_memory *m)
{
    mgpu_external_memory_desc d;
    memset(&d, 0, sizeof d);
    d.type = MGPU_EXTERNAL_MEMORY_OPAQUE_FD;
    d.fd = fd;
    d.size = size;
    d.flags = flags;
    return mgpu_external_memory_import(dev, &d, m);
}
static mgpu_result import_sem(mgpu_device dev, int fd, int timeline, mgpu_external_semaphore *s)
{
    mgpu_external_semaphore_desc d;
    memset(&d, 0, sizeof d);
    d.type = timeline ? MGPU_EXTERNAL_SEMAPHORE_TIMELINE_FD : MGPU_EXTERNAL_SEMAPHORE_OPAQUE_FD;
    d.fd = fd;
    return mgpu_external_semaphore_import(dev, &d, s);
}

static void fill(void *p, size_t n)
{
    unsigned char *b = (unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++) b[i] = (unsigned char)(rnd() >> 56);
}
static void fill_f32(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (float)(rnd() >> 40) / 65536.0f - 128.0f;
}
static mgpu_image image(void *data, int w, int h, int ch, mgpu_pixel_format f)
{
    mgpu_image im;
    memset(&im, 0, sizeof im);
    im.data = data;
    im.width = w;
    im.height = h;
    im.channels = ch;
    im.format = f;
    return im;
}
/* The CPU device's blur of src (host memory) into dst. */
static mgpu_result cpu_blur(const mgpu_image *src, const mgpu_image *dst, const mgpu_blur_params *p)
{
    mgpu_stream s = NULL;
    mgpu_result r = mgpu_default_stream(mgpu_cpu_device(0), &s);
    return r ? r : mgpu_blur(src, dst, p, s);
}
static mgpu_stream gpu_stream(int d)
{
    mgpu_stream s = NULL;
    mgpu_default_stream(d, &s);
    return s;
}
#endif

/* ---- on every device kind */
static void test_uuid(void)
{
    mgpu_device_info info;
    uint8_t none[16], luid[8];
    mgpu_device d, got;
    int n = mgpu_device_count() + (mgpu_default_backend() == MGPU_BACKEND_CUDA ? mgpu_cpu_device_count() : 0);
    for (d = 0; d < n; d++) {
        REQUIRE_OK(mgpu_device_info_get(d, &info));
        got = -1;
        CHECK_OK(mgpu_device_from_uuid(info.uuid, &got));
        if (got != d) fail_at(__FILE__, __LINE__, "device %d's UUID gave device %d", d, got);
    }
    memset(none, 0xee, sizeof none);
    CHECK_ERR(mgpu_device_from_uuid(none, &got), MGPU_ERROR_NOT_FOUND);
    CHECK_ERR(mgpu_device_from_uuid(NULL, &got), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_device_from_uuid(none, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    memset(luid, 0xee, sizeof luid);
    CHECK_ERR(mgpu_device_from_luid(luid, &got), MGPU_ERROR_NOT_FOUND);
}

/* The checks before any driver call, and CPU devices (external memory is a GPU's). */
static void test_refused(void)
{
    mgpu_external_memory_desc d;
    mgpu_external_semaphore_desc sd;
    mgpu_external_memory m = NULL;
    mgpu_external_semaphore s = NULL;
    mgpu_external_image img = NULL;
    mgpu_external_image_desc id;
    mgpu_stream stream;
    mgpu_device cpu = mgpu_cpu_device(0);
    int x = 0;
    void *p = NULL;
    memset(&d, 0, sizeof d);
    d.type = MGPU_EXTERNAL_MEMORY_OPAQUE_FD;
    d.fd = 0;                            /* stdin: open, never taken (every call below fails first) */
    d.size = 4096;
    CHECK_ERR(mgpu_external_memory_import(cpu, &d, &m), MGPU_ERROR_NOT_SUPPORTED);
    CHECK_ERR(mgpu_external_memory_import(cpu, NULL, &m), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_memory_import(cpu, &d, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_memory_import(-1, &d, &m), MGPU_ERROR_INVALID_DEVICE);
    d.size = 0;
    CHECK_ERR(mgpu_external_memory_import(cpu, &d, &m), MGPU_ERROR_INVALID_ARGUMENT);
    d.size = 4096;
    d.flags = 4;
    CHECK_ERR(mgpu_external_memory_import(cpu, &d, &m), MGPU_ERROR_INVALID_ARGUMENT);
    d.flags = 0;
    d.type = (mgpu_external_memory_type)9;
    CHECK_ERR(mgpu_external_memory_import(cpu, &d, &m), MGPU_ERROR_INVALID_ARGUMENT);
    d.type = MGPU_EXTERNAL_MEMORY_D3D12_RESOURCE;
    d.handle = &x;
    CHECK_ERR(mgpu_external_memory_import(cpu, &d, &m), MGPU_ERROR_INVALID_ARGUMENT);   /* not dedicated */
    memset(&sd, 0, sizeof sd);
    sd.type = MGPU_EXTERNAL_SEMAPHORE_TIMELINE_FD;
    CHECK_ERR(mgpu_external_semaphore_import(cpu, &sd, &s), MGPU_ERROR_NOT_SUPPORTED);
    sd.type = (mgpu_external_semaphore_type)7;
    CHECK_ERR(mgpu_external_semaphore_import(cpu, &sd, &s), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(m == NULL && s == NULL);
    /* handles: zero, junk, another kind */
    REQUIRE_OK(mgpu_default_stream(cpu, &stream));
    memset(&id, 0, sizeof id);
    id.width = id.height = 8;
    id.channels = 4;
    id.format = MGPU_PIXEL_U8;
    CHECK_ERR(mgpu_external_memory_buffer(NULL, 0, 16, &p), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_memory_buffer((mgpu_external_memory)(uintptr_t)0x12345678, 0, 16, &p), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_memory_buffer((mgpu_external_memory)(void *)stream, 0, 16, &p), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_memory_image((mgpu_external_memory)(void *)stream, &id, &img), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_memory_destroy(NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_semaphore_signal_async((mgpu_external_semaphore)(void *)stream, 0, stream), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_semaphore_destroy(NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_image_blur_async(NULL, NULL, NULL, stream), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_image_read_async(NULL, NULL, stream), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_external_image_blur_batch(NULL, NULL, 0, NULL));
    CHECK_ERR(mgpu_external_image_blur_batch(NULL, NULL, -1, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_image_blur_batch(&img, &img, 1, NULL), MGPU_ERROR_INVALID_HANDLE);
}

#if HAVE_MEMFD
/* ---- buffers on GPU d: blur, reduce, copies, ranges, the fd rules */
static void test_buffers(int d)
{
    enum { W = 67, H = 45 };
    const size_t rgba = (size_t)W * H * 4, gray = (size_t)W * H, f32 = (size_t)W * H * 4;
    const size_t off_dst = 40960, off_gray = 2 * 40960, off_f32 = 3 * 40960, size = 5 * 40960;
    static unsigned char ref[5 * 40960], host[5 * 40960];
    exported e;
    mgpu_external_memory m = NULL, m2 = NULL;
    unsigned char *src, *dst, *gsrc, *gdst;
    float *fsrc, *fdst;
    mgpu_image s, t, cs, ct;
    mgpu_blur_params bp;
    mgpu_device owner = -1;
    uint64_t sum = 0, want = 0;
    size_t i;
    int k;
    if (no_exporter) SKIP("%s", no_exporter);
    REQUIRE(export_memory(size, 0, &e));
    REQUIRE_OK(import_fd(d, e.fd, size, 0, &m));
    /* the driver holds the fd now: importing it again is refused, the fd untouched */
    CHECK_ERR(import_fd(d, e.fd, size, 0, &m2), MGPU_ERROR_EXTERNAL_HANDLE);
    REQUIRE_OK(mgpu_external_memory_buffer(m, 0, rgba, (void **)&src));
    REQUIRE_OK(mgpu_external_memory_buffer(m, off_dst, rgba, (void **)&dst));
    REQUIRE_OK(mgpu_external_memory_buffer(m, off_gray, 2 * gray, (void **)&gsrc));
    gdst = gsrc + gray;
    REQUIRE_OK(mgpu_external_memory_buffer(m, off_f32, 2 * f32, (void **)&fsrc));
    fdst = fsrc + W * H;
    CHECK_OK(mgpu_pointer_device(dst + 5, &owner));
    CHECK(owner == d);
    /* "Vulkan" writes the inputs through its own mapping */
    fill(e.map, rgba);
    fill(e.map + off_gray, gray);
    fill_f32((float *)(void *)(e.map + off_f32), (size_t)W * H);
    memcpy(host, e.map, size);
    for (k = 0; k < 3; k++) {
        memset(&bp, 0, sizeof bp);
        bp.radius = k == 0 ? 0 : k == 1 ? 5 : 17;
        bp.sigma = k == 2 ? 6.0f : 0.0f;
        bp.border = k == 1 ? MGPU_BORDER_REFLECT_101 : k == 2 ? MGPU_BORDER_CONSTANT : MGPU_BORDER_REPLICATE;
        bp.border_value = 9;
        s = image(src, W, H, 4, MGPU_PIXEL_U8); t = image(dst, W, H, 4, MGPU_PIXEL_U8);
        cs = image(host, W, H, 4, MGPU_PIXEL_U8); ct = image(ref + off_dst, W, H, 4, MGPU_PIXEL_U8);
        REQUIRE_OK(mgpu_blur(&s, &t, &bp, gpu_stream(d)));
        REQUIRE_OK(cpu_blur(&cs, &ct, &bp));
        if (memcmp(e.map + off_dst, ref + off_dst, rgba)) fail_at(__FILE__, __LINE__, "RGBA blur %d differs from the CPU device's", k);
        s = image(gsrc, W, H, 1, MGPU_PIXEL_U8); t = image(gdst, W, H, 1, MGPU_PIXEL_U8);
        cs = image(host + off_gray, W, H, 1, MGPU_PIXEL_U8); ct = image(ref + off_gray + gray, W, H, 1, MGPU_PIXEL_U8);
        REQUIRE_OK(mgpu_blur(&s, &t, &bp, gpu_stream(d)));
        REQUIRE_OK(cpu_blur(&cs, &ct, &bp));
        if (memcmp(e.map + off_gray + gray, ref + off_gray + gray, gray)) fail_at(__FILE__, __LINE__, "gray blur %d differs", k);
        s = image(fsrc, W, H, 1, MGPU_PIXEL_F32); t = image(fdst, W, H, 1, MGPU_PIXEL_F32);
        cs = image(host + off_f32, W, H, 1, MGPU_PIXEL_F32); ct = image(ref + off_f32 + f32, W, H, 1, MGPU_PIXEL_F32);
        REQUIRE_OK(mgpu_blur(&s, &t, &bp, gpu_stream(d)));
        REQUIRE_OK(cpu_blur(&cs, &ct, &bp));
        if (memcmp(e.map + off_f32 + f32, ref + off_f32 + f32, f32)) fail_at(__FILE__, __LINE__, "f32 blur %d differs", k);
    }
    /* reduce and copies */
    for (i = 0; i < rgba / 4; i++) { uint32_t v; memcpy(&v, host + 4 * i, 4); want += v; }
    CHECK_OK(mgpu_reduce(src, rgba / 4, MGPU_U32, MGPU_OP_SUM, &sum, gpu_stream(d)));
    if ((uint32_t)sum != (uint32_t)want) fail_at(__FILE__, __LINE__, "reduce: %llu, want %llu", (unsigned long long)sum, (unsigned long long)want);
    CHECK_OK(mgpu_memcpy(ref, src, rgba));
    CHECK(!memcmp(ref, host, rgba));
    CHECK_OK(mgpu_memcpy(dst, ref, rgba));           /* host -> imported */
    CHECK(!memcmp(e.map + off_dst, host, rgba));
    /* ranges past the buffer and the allocation; the buffer is not mgpu_free's */
    CHECK_ERR(mgpu_memcpy(ref, src, rgba + 1), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_memset(dst + 1, 0, rgba), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_reduce(src, rgba / 4 + 1, MGPU_U32, MGPU_OP_SUM, &sum, gpu_stream(d)), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_memory_buffer(m, size - 10, 11, (void **)&src), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_memory_buffer(m, size + 1, 1, (void **)&src), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_memory_buffer(m, 0, 0, (void **)&src), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_free(dst), MGPU_ERROR_INVALID_POINTER);
    CHECK_OK(mgpu_external_memory_destroy(m));
    CHECK_ERR(mgpu_external_memory_destroy(m), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_memory_buffer(m, 0, 16, (void **)&src), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_pointer_device(dst, &owner), MGPU_ERROR_INVALID_POINTER);
    /* the driver closed the fd at the release: it is not open any more */
    CHECK(!fd_open(e.fd));
    CHECK_ERR(import_fd(d, e.fd, size, 0, &m2), MGPU_ERROR_EXTERNAL_HANDLE);
    unmap(&e);
}

/* The import rules the driver checks: the whole allocation's size, the dedicated flag. A
   refused fd stays the caller's. */
static void test_import_rules(int d)
{
    exported e, s;
    mgpu_external_memory m = NULL;
    mgpu_external_semaphore sem = NULL;
    mgpu_external_memory_desc desc;
    int x = 0;
    if (no_exporter) SKIP("%s", no_exporter);
    REQUIRE(export_memory(65536, 0, &e));
    CHECK_ERR(import_fd(d, e.fd, 65536 - 4096, 0, &m), MGPU_ERROR_EXTERNAL_HANDLE);   /* a buffer's size, not the allocation's */
    CHECK(fd_open(e.fd));
    CHECK_ERR(import_fd(d, e.fd, 65536, MGPU_EXTERNAL_DEDICATED, &m), MGPU_ERROR_EXTERNAL_HANDLE);   /* not dedicated */
    CHECK(fd_open(e.fd));
    CHECK_ERR(import_sem(d, e.fd, 1, &sem), MGPU_ERROR_EXTERNAL_HANDLE);                /* memory, not a semaphore */
    CHECK(fd_open(e.fd) && m == NULL && sem == NULL);
    close(e.fd);
    unmap(&e);
    REQUIRE(export_memory(65536, 1, &e));
    CHECK_ERR(import_fd(d, e.fd, 65536, 0, &m), MGPU_ERROR_EXTERNAL_HANDLE);            /* dedicated: the flag is missing */
    CHECK_OK(import_fd(d, e.fd, 65536, MGPU_EXTERNAL_DEDICATED, &m));
    REQUIRE(export_semaphore(&s));
    CHECK_ERR(import_sem(d, e.fd, 1, &sem), MGPU_ERROR_EXTERNAL_HANDLE);                /* the driver holds that fd */
    CHECK_OK(import_sem(d, s.fd, 1, &sem));
    CHECK_ERR(import_fd(d, s.fd, 16, 0, &m), MGPU_ERROR_EXTERNAL_HANDLE);               /* so it does this one */
    CHECK_ERR(import_fd(d, -1, 65536, 0, &m), MGPU_ERROR_EXTERNAL_HANDLE);
    memset(&desc, 0, sizeof desc);                                                       /* the other OS's handles */
    desc.type = MGPU_EXTERNAL_MEMORY_OPAQUE_WIN32;
    desc.handle = &x;
    desc.size = 4096;
    CHECK_ERR(mgpu_external_memory_import(d, &desc, &m), MGPU_ERROR_NOT_SUPPORTED);
    CHECK_OK(mgpu_external_semaphore_destroy(sem));
    CHECK_ERR(mgpu_external_semaphore_destroy(sem), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_external_memory_destroy(m));
    unmap(&e);
    unmap(&s);
}

/* ---- images (CUDA arrays) on GPU d */
static size_t tiled(int w, int h, int px) { return (size_t)((w + 7) / 8) * (size_t)((h + 7) / 8) * 64 * (size_t)px + 4096; }
static void test_images(int d)
{
    enum { W = 37, H = 29 };
    static unsigned char in[W * H * 4], out[W * H * 4], ref[W * H * 4], lin[W * H * 4];
    static float fin[W * H], fout[W * H], fref[W * H];
    const size_t one = tiled(W, H, 4), size = 3 * one;
    exported e;
    mgpu_external_memory m = NULL;
    mgpu_external_image a = NULL, b = NULL, f = NULL, bad = NULL;
    mgpu_external_image_desc id;
    mgpu_image h, c, r;
    mgpu_blur_params bp;
    void *dev_lin = NULL;
    if (no_exporter) SKIP("%s", no_exporter);
    REQUIRE(export_memory(size, 0, &e));
    REQUIRE_OK(import_fd(d, e.fd, size, 0, &m));
    memset(&id, 0, sizeof id);
    id.width = W; id.height = H; id.channels = 4; id.format = MGPU_PIXEL_U8;
    id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
    REQUIRE_OK(mgpu_external_memory_image(m, &id, &a));
    id.offset = one;
    REQUIRE_OK(mgpu_external_memory_image(m, &id, &b));
    id.offset = 2 * one; id.channels = 1; id.format = MGPU_PIXEL_F32;
    REQUIRE_OK(mgpu_external_memory_image(m, &id, &f));
    id.channels = 3;
    CHECK_ERR(mgpu_external_memory_image(m, &id, &bad), MGPU_ERROR_NOT_SUPPORTED);
    id.channels = 4; id.offset = size - 100;
    CHECK_ERR(mgpu_external_memory_image(m, &id, &bad), MGPU_ERROR_INVALID_ARGUMENT);
    id.offset = 0; id.flags = 1;
    CHECK_ERR(mgpu_external_memory_image(m, &id, &bad), MGPU_ERROR_INVALID_ARGUMENT);
    fill(in, sizeof in);
    fill_f32(fin, W * H);
    h = image(in, W, H, 4, MGPU_PIXEL_U8);
    r = image(ref, W, H, 4, MGPU_PIXEL_U8);
    /* write, blur in place, read back: the CPU device's bits */
    memset(&bp, 0, sizeof bp);
    bp.radius = 3;
    CHECK_OK(mgpu_external_image_write_async(a, &h, gpu_stream(d)));
    CHECK_OK(mgpu_external_image_blur_async(a, a, &bp, gpu_stream(d)));
    c = image(out, W, H, 4, MGPU_PIXEL_U8);
    CHECK_OK(mgpu_external_image_read_async(a, &c, gpu_stream(d)));
    CHECK_OK(mgpu_stream_synchronize(gpu_stream(d)));
    REQUIRE_OK(cpu_blur(&h, &r, &bp));
    if (memcmp(out, ref, sizeof out)) fail_at(__FILE__, __LINE__, "in-place image blur differs from the CPU device's");
    /* the tiled storage is not the linear image (so the 2D copies did the work) */
    CHECK(memcmp(e.map, ref, (size_t)W * 4 * 8) != 0);
    /* a into b, through device memory as the linear side, with the default parameters */
    CHECK_OK(mgpu_set_device(d));
    REQUIRE_OK(mgpu_malloc(&dev_lin, sizeof lin));
    c = image(dev_lin, W, H, 4, MGPU_PIXEL_U8);
    CHECK_OK(mgpu_external_image_write_async(a, &h, gpu_stream(d)));
    CHECK_OK(mgpu_external_image_blur_async(a, b, NULL, gpu_stream(d)));
    CHECK_OK(mgpu_external_image_read_async(b, &c, gpu_stream(d)));
    CHECK_OK(mgpu_memcpy(lin, dev_lin, sizeof lin));
    REQUIRE_OK(cpu_blur(&h, &r, NULL));
    if (memcmp(lin, ref, sizeof lin)) fail_at(__FILE__, __LINE__, "image blur a -> b differs from the CPU device's");
    /* read and write through device memory of a 16-byte multiple pitch (the copy kernels) and
       4 bytes off that alignment (cuMemcpy2DAsync): the same rows */
    {
        enum { P = 160 };
        static unsigned char rows[P * H + 16];
        unsigned char *pd = NULL;
        int off, y;
        REQUIRE_OK(mgpu_malloc((void **)&pd, sizeof rows));
        for (off = 0; off <= 4; off += 4) {
            c = image(pd + off, W, H, 4, MGPU_PIXEL_U8);
            c.pitch = P;
            CHECK_OK(mgpu_memset(pd, 0, sizeof rows));
            CHECK_OK(mgpu_external_image_write_async(a, &h, gpu_stream(d)));
            CHECK_OK(mgpu_external_image_read_async(a, &c, gpu_stream(d)));     /* a -> device rows */
            CHECK_OK(mgpu_external_image_write_async(b, &c, gpu_stream(d)));    /* device rows -> b */
            CHECK_OK(mgpu_external_image_read_async(b, &r, gpu_stream(d)));     /* b -> host */
            CHECK_OK(mgpu_stream_synchronize(gpu_stream(d)));
            CHECK_OK(mgpu_memcpy(rows, pd, sizeof rows));
            for (y = 0; y < H; y++)
                if (memcmp(rows + off + (size_t)y * P, in + (size_t)y * W * 4, (size_t)W * 4)) {
                    fail_at(__FILE__, __LINE__, "image -> device rows (offset %d, pitch %d): row %d differs", off, P, y);
                    break;
                }
            if (memcmp(ref, in, sizeof in)) fail_at(__FILE__, __LINE__, "device rows (offset %d) -> image differ", off);
        }
        CHECK_OK(mgpu_free(pd));
    }
    /* f32 */
    h = image(fin, W, H, 1, MGPU_PIXEL_F32);
    CHECK_OK(mgpu_external_image_write_async(f, &h, gpu_stream(d)));
    bp.radius = 7; bp.border = MGPU_BORDER_REFLECT_101;
    CHECK_OK(mgpu_external_image_blur_async(f, f, &bp, gpu_stream(d)));
    c = image(fout, W, H, 1, MGPU_PIXEL_F32);
    CHECK_OK(mgpu_external_image_read_async(f, &c, gpu_stream(d)));
    CHECK_OK(mgpu_stream_synchronize(gpu_stream(d)));
    r = image(fref, W, H, 1, MGPU_PIXEL_F32);
    REQUIRE_OK(cpu_blur(&h, &r, &bp));
    if (memcmp(fout, fref, sizeof fout)) fail_at(__FILE__, __LINE__, "f32 image blur differs from the CPU device's");
    /* misuse: another shape, a stream of the other GPU, an image pair of two formats, a linear image past its end */
    c = image(out, W - 1, H, 4, MGPU_PIXEL_U8);
    CHECK_ERR(mgpu_external_image_read_async(a, &c, gpu_stream(d)), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_external_image_blur_async(a, f, NULL, gpu_stream(d)), MGPU_ERROR_INVALID_ARGUMENT);
    c = image((unsigned char *)dev_lin + 1, W, H, 4, MGPU_PIXEL_U8);
    CHECK_ERR(mgpu_external_image_read_async(a, &c, gpu_stream(d)), MGPU_ERROR_INVALID_ARGUMENT);
    if (ngpu > 1) {
        c = image(out, W, H, 4, MGPU_PIXEL_U8);
        CHECK_ERR(mgpu_external_image_read_async(a, &c, gpu_stream(1 - d)), MGPU_ERROR_WRONG_DEVICE);
        CHECK_ERR(mgpu_external_image_blur_async(a, a, NULL, gpu_stream(1 - d)), MGPU_ERROR_WRONG_DEVICE);
    }
    CHECK_OK(mgpu_free(dev_lin));
    /* destroy takes the images with it */
    CHECK_OK(mgpu_external_memory_destroy(m));
    c = image(out, W, H, 4, MGPU_PIXEL_U8);
    CHECK_ERR(mgpu_external_image_read_async(a, &c, gpu_stream(d)), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_external_image_blur_async(b, b, NULL, gpu_stream(d)), MGPU_ERROR_INVALID_HANDLE);
    unmap(&e);
}

/* ---- the tiled paths (surface objects) on GPU d: every format the images take, radius 0..16
   and 17, every border, into an image of another import (f32 RGBA at radius <= 2: the image
   kernel; 8-bit at radius <= 2 with rows of whole 16 bytes (128 x 61, 32 x 3): the one-pass
   kernel; the rest the copy path, by the copy kernels) and in place (the same, the one-pass
   kernel after its frame; f32 the copy path), on shapes whose last tile (64 pixels) or
   strip is narrower than the radius; an image without
   MGPU_EXTERNAL_IMAGE_STORAGE (no surface: the copy path by cuMemcpy2DAsync). Each result is the CPU device's bit for bit; FAKE_CUDA_REPORT shows the
   kernels ran (tests/fake_run.sh). */
static void test_image_kernels(int d)
{
    static const int shapes[][2] = { { 131, 83 }, { 1, 37 }, { 70, 1 }, { 67, 170 }, { 128, 61 }, { 32, 3 } };
    static const int radii[] = { 0, 1, 2, 5, 16, 17 };
    static const struct { mgpu_pixel_format f; int c; } fmts[] = {
        { MGPU_PIXEL_U8, 1 }, { MGPU_PIXEL_U8, 2 }, { MGPU_PIXEL_U8, 4 }, { MGPU_PIXEL_F32, 1 }, { MGPU_PIXEL_F32, 2 },
        { MGPU_PIXEL_F32, 4 } };
    enum { MAXW = 131, MAXH = 170 };
    static unsigned char in[MAXW * MAXH * 16], out[MAXW * MAXH * 16], ref[MAXW * MAXH * 16];
    size_t sh, fi, ri;
    int cases = 0;
    if (no_exporter) SKIP("%s", no_exporter);
    for (sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        const int W = shapes[sh][0], H = shapes[sh][1];
        const size_t one = tiled(W, H, 16), size = one * (sizeof fmts / sizeof fmts[0] + 1);
        exported es, ed;
        mgpu_external_memory ms = NULL, md = NULL;
        REQUIRE(export_memory(size, 0, &es));
        REQUIRE(export_memory(size, 0, &ed));
        REQUIRE_OK(import_fd(d, es.fd, size, 0, &ms));
        REQUIRE_OK(import_fd(d, ed.fd, size, 0, &md));
        for (fi = 0; fi <= sizeof fmts / sizeof fmts[0]; fi++) {
            const int plain = fi == sizeof fmts / sizeof fmts[0];     /* last: RGBA without a surface */
            const mgpu_pixel_format f = plain ? MGPU_PIXEL_U8 : fmts[fi].f;
            const int C = plain ? 4 : fmts[fi].c;
            const size_t bytes = (size_t)W * H * C * (f == MGPU_PIXEL_F32 ? 4 : 1);
            mgpu_external_image a = NULL, b = NULL;
            mgpu_external_image_desc id;
            mgpu_image h, c, r;
            memset(&id, 0, sizeof id);
            id.width = W; id.height = H; id.channels = C; id.format = f; id.offset = fi * one;
            id.flags = plain ? 0 : MGPU_EXTERNAL_IMAGE_STORAGE;
            REQUIRE_OK(mgpu_external_memory_image(ms, &id, &a));
            REQUIRE_OK(mgpu_external_memory_image(md, &id, &b));
            h = image(in, W, H, C, f);
            c = image(out, W, H, C, f);
            r = image(ref, W, H, C, f);
            for (ri = 0; ri < sizeof radii / sizeof radii[0]; ri++) {
                mgpu_blur_params bp;
                int inplace;
                memset(&bp, 0, sizeof bp);
                bp.radius = radii[ri] ? radii[ri] : MGPU_BLUR_RADIUS_ZERO;
                bp.sigma = 0.5f + (float)ri * 1.3f;
                bp.border = (mgpu_border)((fi + ri + sh) % 3);
                bp.border_value = f == MGPU_PIXEL_U8 ? 200.0f : -7.25f;
                if (f == MGPU_PIXEL_U8) fill(in, bytes);
                else fill_f32((float *)(void *)in, bytes / 4);
                REQUIRE_OK(cpu_blur(&h, &r, &bp));
                for (inplace = 0; inplace < 2; inplace++) {
                    memset(out, 0x5a, bytes);
                    CHECK_OK(mgpu_external_image_write_async(a, &h, gpu_stream(d)));
                    CHECK_OK(mgpu_external_image_blur_async(a, inplace ? a : b, &bp, gpu_stream(d)));
                    CHECK_OK(mgpu_external_image_read_async(inplace ? a : b, &c, gpu_stream(d)));
                    CHECK_OK(mgpu_stream_synchronize(gpu_stream(d)));
                    if (memcmp(out, ref, bytes))
                        fail_at(__FILE__, __LINE__, "%dx%d %s C=%d radius %d border %d %s differs from the CPU device's",
                                W, H, f == MGPU_PIXEL_U8 ? "u8" : "f32", C, radii[ri], (int)bp.border,
                                inplace ? "in place" : "into another image");
                    cases++;
                }
            }
        }
        CHECK_OK(mgpu_external_memory_destroy(ms));
        CHECK_OK(mgpu_external_memory_destroy(md));
        unmap(&es);
        unmap(&ed);
    }
    CHECK(cases == 6 * 7 * 6 * 2);
}

/* ---- threads: each imports its own memory (GPU id % ngpu) and a semaphore, maps an image with
   a surface, writes, blurs in place on a stream of its own, signals and waits, reads back,
   destroys, a few rounds, all threads at once (the handle table, the fd checks, the
   kernels' module and the pools shared; `make run/interop_tsan` runs this under TSan). The
   references are the CPU device's, made before the threads start. */
enum { CW = 45, CH = 23, CTHREADS = 6, CROUNDS = 3 };
typedef struct conc_arg {
    int id, fails;
    char why[1200];
    unsigned char in[CW * CH * 4], ref[CW * CH * 4], out[CW * CH * 4];
    mgpu_blur_params bp;
} conc_arg;
#define CONC(call) do { \
        if ((call) != MGPU_SUCCESS) { \
            if (!c->fails++) snprintf(c->why, sizeof c->why, "%s: %.1000s", #call, mgpu_last_error()); \
            goto out; \
        } \
    } while (0)
static void *conc_worker(void *p)
{
    conc_arg *c = (conc_arg *)p;
    const int d = c->id % ngpu;
    const size_t size = tiled(CW, CH, 4);
    mgpu_stream st = NULL;
    int round;
    CONC(mgpu_set_device(d));
    CONC(mgpu_stream_create(&st));
    for (round = 0; round < CROUNDS; round++) {
        exported e, es;
        mgpu_external_memory m = NULL;
        mgpu_external_semaphore sem = NULL;
        mgpu_external_image img = NULL;
        mgpu_external_image_desc id;
        mgpu_image h = image(c->in, CW, CH, 4, MGPU_PIXEL_U8), o = image(c->out, CW, CH, 4, MGPU_PIXEL_U8);
        if (!export_memory(size, 0, &e) || !export_semaphore(&es)) { c->fails++; snprintf(c->why, sizeof c->why, "memfd"); break; }
        memset(c->out, 0, sizeof c->out);
        memset(&id, 0, sizeof id);
        id.width = CW; id.height = CH; id.channels = 4; id.format = MGPU_PIXEL_U8; id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;
        if (import_fd(d, e.fd, size, 0, &m) != MGPU_SUCCESS || import_sem(d, es.fd, 1, &sem) != MGPU_SUCCESS) {
            if (!c->fails++) snprintf(c->why, sizeof c->why, "import: %.1000s", mgpu_last_error());
        } else if (mgpu_external_memory_image(m, &id, &img) != MGPU_SUCCESS ||
                   mgpu_external_image_write_async(img, &h, st) != MGPU_SUCCESS ||
                   mgpu_external_image_blur_async(img, img, &c->bp, st) != MGPU_SUCCESS ||
                   mgpu_external_semaphore_signal_async(sem, (uint64_t)round + 1, st) != MGPU_SUCCESS ||
                   mgpu_external_semaphore_wait_async(sem, (uint64_t)round + 1, st) != MGPU_SUCCESS ||
                   mgpu_external_image_read_async(img, &o, st) != MGPU_SUCCESS || mgpu_stream_synchronize(st) != MGPU_SUCCESS) {
            if (!c->fails++) snprintf(c->why, sizeof c->why, "round %d: %.1000s", round, mgpu_last_error());
        } else if (memcmp(c->out, c->ref, sizeof c->ref)) {
            if (!c->fails++) snprintf(c->why, sizeof c->why, "round %d: the blur differs from the CPU device's", round);
        }
        if (sem && mgpu_external_semaphore_destroy(sem) != MGPU_SUCCESS && !c->fails++) snprintf(c->why, sizeof c->why, "destroy");
        if (m && mgpu_external_memory_destroy(m) != MGPU_SUCCESS && !c->fails++) snprintf(c->why, sizeof c->why, "destroy");
        unmap(&e);
        unmap(&es);
    }
out:
    if (st) mgpu_stream_destroy(st);
    return NULL;
}
static void test_concurrent(void)
{
    static conc_arg args[CTHREADS];
    pthread_t th[CTHREADS];
    int i, k;
    if (no_exporter) SKIP("%s", no_exporter);
    for (i = 0; i < CTHREADS; i++) {
        mgpu_image h = image(args[i].in, CW, CH, 4, MGPU_PIXEL_U8), r = image(args[i].ref, CW, CH, 4, MGPU_PIXEL_U8);
        memset(&args[i].bp, 0, sizeof args[i].bp);
        args[i].id = i;
        args[i].fails = 0;
        args[i].bp.radius = 1 + i % 5;
        args[i].bp.border = (mgpu_border)(i % 3);
        fill(args[i].in, sizeof args[i].in);
        REQUIRE_OK(cpu_blur(&h, &r, &args[i].bp));
    }
    for (i = 0; i < CTHREADS; i++) REQUIRE(pthread_create(&th[i], NULL, conc_worker, &args[i]) == 0);
    for (k = 0; k < CTHREADS; k++) pthread_join(th[k], NULL);
    for (i = 0; i < CTHREADS; i++)
        if (args[i].fails) fail_at(__FILE__, __LINE__, "thread %d: %d failures, the first: %s", i, args[i].fails, args[i].why);
}

/* ---- several GPUs: blur_batch, all-reduce and peer copies over imported buffers; the
   image batch over images on every GPU (two on the first) */
static void test_multi(void)
{
    enum { W = 45, H = 31, N = 1000 };
    const size_t bytes = (size_t)W * H * 4, half = 32768, size = 3 * half;
    static unsigned char ref[2][W * H * 4], out[3][W * H * 4];
    static unsigned char in[3][W * H * 4];
    exported e[2], ie[2];
    mgpu_external_memory m[2] = { NULL, NULL }, im[2] = { NULL, NULL };
    mgpu_external_image src[3], dst[3];
    mgpu_external_image_desc id;
    mgpu_image s[2], t[2], c, h;
    void *bufs[2];
    uint32_t sums[N];
    int g, i, k;
    if (no_exporter) SKIP("%s", no_exporter);
    if (ngpu < 2) SKIP("needs 2 GPUs");
    for (g = 0; g < 2; g++) {
        unsigned char *p;
        REQUIRE(export_memory(size, 0, &e[g]));
        REQUIRE_OK(import_fd(g, e[g].fd, size, 0, &m[g]));
        REQUIRE_OK(mgpu_external_memory_buffer(m[g], 0, size, (void **)&p));
        fill(e[g].map, bytes);
        s[g] = image(p, W, H, 4, MGPU_PIXEL_U8);
        t[g] = image(p + half, W, H, 4, MGPU_PIXEL_U8);
        bufs[g] = p + 2 * half;
        for (i = 0; i < N; i++) { uint32_t v = (uint32_t)(rnd() >> 40); memcpy(e[g].map + 2 * half + 4 * i, &v, 4); }
        memcpy(in[g], e[g].map, bytes);              /* the CPU device's reference from a copy */
        h = image(in[g], W, H, 4, MGPU_PIXEL_U8);
        c = image(ref[g], W, H, 4, MGPU_PIXEL_U8);
        REQUIRE_OK(cpu_blur(&h, &c, NULL));
    }
    for (i = 0; i < N; i++) {
        uint32_t a, b;
        memcpy(&a, e[0].map + 2 * half + 4 * i, 4);
        memcpy(&b, e[1].map + 2 * half + 4 * i, 4);
        sums[i] = a + b;
    }
    CHECK_OK(mgpu_blur_batch(s, t, 2, NULL, NULL, 0));
    for (g = 0; g < 2; g++)
        if (memcmp(e[g].map + half, ref[g], bytes)) fail_at(__FILE__, __LINE__, "blur_batch on GPU %d differs from the CPU device's", g);
    CHECK_OK(mgpu_allreduce(bufs, N, MGPU_U32, MGPU_OP_SUM, NULL, 0));
    for (g = 0; g < 2; g++)
        if (memcmp(e[g].map + 2 * half, sums, sizeof sums)) fail_at(__FILE__, __LINE__, "allreduce: GPU %d's buffer is wrong", g);
    CHECK_OK(mgpu_copy_peer(t[1].data, s[0].data, bytes, 0));
    CHECK(!memcmp(e[1].map + half, e[0].map, bytes));
    CHECK_OK(mgpu_copy_peer(t[0].data, s[1].data, bytes, MGPU_COPY_FORCE_STAGED));
    CHECK(!memcmp(e[0].map + half, e[1].map, bytes));
    /* images: two on GPU 0, one on GPU 1, each blurred in place */
    memset(&id, 0, sizeof id);
    id.width = W; id.height = H; id.channels = 4; id.format = MGPU_PIXEL_U8;
    for (g = 0; g < 2; g++) {
        REQUIRE(export_memory(2 * tiled(W, H, 4), 0, &ie[g]));
        REQUIRE_OK(import_fd(g, ie[g].fd, 2 * tiled(W, H, 4), 0, &im[g]));
    }
    for (k = 0; k < 3; k++) {
        mgpu_image h = image(in[k], W, H, 4, MGPU_PIXEL_U8);
        id.offset = k == 1 ? tiled(W, H, 4) : 0;
        REQUIRE_OK(mgpu_external_memory_image(im[k == 2], &id, &src[k]));
        dst[k] = src[k];
        fill(in[k], bytes);
        REQUIRE_OK(mgpu_external_image_write_async(src[k], &h, gpu_stream(k == 2)));
    }
    CHECK_OK(mgpu_external_image_blur_batch(src, dst, 3, NULL));
    for (k = 0; k < 3; k++) {
        mgpu_image h = image(in[k], W, H, 4, MGPU_PIXEL_U8), o = image(out[k], W, H, 4, MGPU_PIXEL_U8);
        mgpu_image r = image(ref[0], W, H, 4, MGPU_PIXEL_U8);
        CHECK_OK(mgpu_external_image_read_async(dst[k], &o, gpu_stream(k == 2)));
        CHECK_OK(mgpu_stream_synchronize(gpu_stream(k == 2)));
        REQUIRE_OK(cpu_blur(&h, &r, NULL));
        if (memcmp(out[k], ref[0], bytes)) fail_at(__FILE__, __LINE__, "image batch: image %d differs from the CPU device's", k);
    }
    /* a pair of images on two GPUs */
    CHECK_ERR(mgpu_external_image_blur_batch(src, &src[2], 1, NULL), MGPU_ERROR_WRONG_DEVICE);
    for (g = 0; g < 2; g++) {
        CHECK_OK(mgpu_external_memory_destroy(m[g]));
        CHECK_OK(mgpu_external_memory_destroy(im[g]));
        unmap(&e[g]);
        unmap(&ie[g]);
    }
}

/* ---- semaphores on GPU d */
typedef struct signaller { exported *sem, *mem; size_t bytes; unsigned long long value; } signaller;
static void *signal_later(void *arg)
{
    const signaller *s = (const signaller *)arg;
    usleep(50000);
    memset(s->mem->map, 0x5a, s->bytes / 2);      /* "Vulkan" writes the frame, then signals */
    __atomic_store_n(sem_value(s->sem), s->value, __ATOMIC_SEQ_CST);
    return NULL;
}
static void test_semaphores(int d)
{
    enum { W = 32, H = 24 };
    const size_t bytes = (size_t)W * H * 4, size = 65536;
    static unsigned char frame[W * H * 4], ref[W * H * 4];
    exported e, ts, bs;
    mgpu_external_memory m = NULL;
    mgpu_external_semaphore tl = NULL, bin = NULL;
    unsigned char *p;
    mgpu_image s, t, h, r;
    mgpu_stream st;
    pthread_t th;
    signaller sig;
    if (no_exporter) SKIP("%s", no_exporter);
    REQUIRE(export_memory(size, 0, &e));
    REQUIRE(export_semaphore(&ts));
    REQUIRE(export_semaphore(&bs));
    REQUIRE_OK(import_fd(d, e.fd, size, 0, &m));
    REQUIRE_OK(mgpu_external_memory_buffer(m, 0, size, (void **)&p));
    REQUIRE_OK(import_sem(d, ts.fd, 1, &tl));
    REQUIRE_OK(import_sem(d, bs.fd, 0, &bin));
    CHECK_OK(mgpu_set_device(d));
    REQUIRE_OK(mgpu_stream_create(&st));
    s = image(p, W, H, 4, MGPU_PIXEL_U8);
    t = image(p + 32768, W, H, 4, MGPU_PIXEL_U8);
    /* the frame loop's hand-over: Vulkan writes and signals 1; mgpu waits for 1, blurs, signals 2 */
    fill(e.map, bytes);
    memcpy(frame, e.map, bytes);
    __atomic_store_n(sem_value(&ts), 1ull, __ATOMIC_SEQ_CST);
    CHECK_OK(mgpu_external_semaphore_wait_async(tl, 1, st));
    CHECK_OK(mgpu_blur_async(&s, &t, NULL, st));
    CHECK_OK(mgpu_external_semaphore_signal_async(tl, 2, st));
    CHECK_OK(mgpu_stream_synchronize(st));
    CHECK(__atomic_load_n(sem_value(&ts), __ATOMIC_SEQ_CST) == 2);
    h = image(frame, W, H, 4, MGPU_PIXEL_U8);
    r = image(ref, W, H, 4, MGPU_PIXEL_U8);
    REQUIRE_OK(cpu_blur(&h, &r, NULL));
    if (memcmp(e.map + 32768, ref, bytes)) fail_at(__FILE__, __LINE__, "blur after the wait differs from the CPU device's");
    /* the stream really waits: the exporter writes the next frame and signals 3 from another
       thread 50 ms later; the blur must see that frame */
    sig.sem = &ts; sig.mem = &e; sig.bytes = 2 * bytes; sig.value = 3;
    CHECK_OK(mgpu_external_semaphore_wait_async(tl, 3, st));
    CHECK_OK(mgpu_blur_async(&s, &t, NULL, st));
    CHECK_OK(mgpu_external_semaphore_signal_async(tl, 4, st));
    REQUIRE(pthread_create(&th, NULL, signal_later, &sig) == 0);
    CHECK_OK(mgpu_stream_synchronize(st));
    pthread_join(th, NULL);
    CHECK(__atomic_load_n(sem_value(&ts), __ATOMIC_SEQ_CST) == 4);
    memset(frame, 0x5a, bytes);
    REQUIRE_OK(cpu_blur(&h, &r, NULL));
    if (memcmp(e.map + 32768, ref, bytes)) fail_at(__FILE__, __LINE__, "the blur did not wait for the signalled frame");
    /* binary: signalled and waited for with value 0 */
    CHECK_OK(mgpu_external_semaphore_signal_async(bin, 0, st));
    CHECK_OK(mgpu_external_semaphore_wait_async(bin, 0, st));
    CHECK_OK(mgpu_stream_synchronize(st));
    CHECK(__atomic_load_n(sem_value(&bs), __ATOMIC_SEQ_CST) == 0);
    CHECK_ERR(mgpu_external_semaphore_signal_async(bin, 5, st), MGPU_ERROR_INVALID_ARGUMENT);
    if (ngpu > 1) CHECK_ERR(mgpu_external_semaphore_wait_async(tl, 5, gpu_stream(1 - d)), MGPU_ERROR_WRONG_DEVICE);
    CHECK_OK(mgpu_stream_destroy(st));
    CHECK_OK(mgpu_external_semaphore_destroy(bin));
    CHECK_ERR(mgpu_external_semaphore_wait_async(bin, 0, NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_external_semaphore_destroy(tl));
    CHECK_OK(mgpu_external_memory_destroy(m));
    unmap(&e);
    unmap(&ts);
    unmap(&bs);
}

/* ---- mgpu_shutdown releases what the user left: the fake then holds nothing */
static void test_shutdown(void)
{
    const char *path = getenv("MGPU_CUDA_PATH");
    char errors[256] = "", text[512] = "";
    long (*live)(char *, size_t) = NULL;
    void *lib;
    exported e, s;
    mgpu_external_memory m = NULL;
    mgpu_external_semaphore sem = NULL;
    mgpu_external_image img = NULL;
    mgpu_external_image_desc id;
    void *p = NULL;
    if (no_exporter) SKIP("%s", no_exporter);
    lib = path ? mgpu__lib_open(path, errors, sizeof errors) : NULL;
    if (lib) *(void **)&live = mgpu__lib_sym(lib, "fake_cuda_live");
    if (!live) SKIP("needs the fake driver's fake_cuda_live");
    REQUIRE(export_memory(65536, 0, &e));
    REQUIRE(export_semaphore(&s));
    REQUIRE_OK(import_fd(0, e.fd, 65536, 0, &m));
    REQUIRE_OK(mgpu_external_memory_buffer(m, 4096, 1000, &p));
    memset(&id, 0, sizeof id);
    id.width = 16; id.height = 16; id.channels = 4; id.format = MGPU_PIXEL_U8; id.offset = 8192;
    REQUIRE_OK(mgpu_external_memory_image(m, &id, &img));
    REQUIRE_OK(import_sem(0, s.fd, 1, &sem));
    CHECK_OK(mgpu_shutdown());
    if (live(text, sizeof text)) fail_at(__FILE__, __LINE__, "after mgpu_shutdown the driver still holds %s", text);
    CHECK_ERR(mgpu_external_memory_destroy(m), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(mgpu_init(NULL) == MGPU_SUCCESS);
    CHECK_ERR(mgpu_external_memory_destroy(m), MGPU_ERROR_INVALID_HANDLE);      /* from before mgpu_shutdown */
    CHECK_ERR(mgpu_external_semaphore_destroy(sem), MGPU_ERROR_INVALID_HANDLE);
    unmap(&e);
    unmap(&s);
    mgpu__lib_close(lib);
}
#endif

int main(void)
{
    mgpu_desc desc;
    mgpu_device_info info;
    int d;
    rng_state = suite_seed() | 1;
    memset(&desc, 0, sizeof desc);
    desc.cpu_devices = 1;
    if (mgpu_init(&desc) != MGPU_SUCCESS) { printf("mgpu_init: %s\n", mgpu_last_error()); return 1; }
    ngpu = mgpu_default_backend() == MGPU_BACKEND_CUDA ? mgpu_device_count() : 0;
    printf("-- %d CPU device(s), %d GPU(s)\n", mgpu_cpu_device_count(), ngpu);
    fake = ngpu > 0 && mgpu_device_info_get(0, &info) == MGPU_SUCCESS && strstr(info.name, "mgpu fake libcuda") != NULL;
    no_exporter = !HAVE_MEMFD ? "the memfd exporter: Linux only"
                : !ngpu ? "needs a GPU (the fake driver: make test-fake)"
                : !fake ? "the memfd exporter works with the fake driver only (examples/vulkan_blur is the real one)" : NULL;
    TEST("uuid and luid", test_uuid());
    TEST("refused before the driver", test_refused());
#if HAVE_MEMFD
    for (d = 0; d < (ngpu ? ngpu : 1); d++) {
        char name[64];
        snprintf(name, sizeof name, "buffers[gpu %d]", d);
        TEST(name, test_buffers(d));
        snprintf(name, sizeof name, "import rules[gpu %d]", d);
        TEST(name, test_import_rules(d));
        snprintf(name, sizeof name, "images[gpu %d]", d);
        TEST(name, test_images(d));
        snprintf(name, sizeof name, "image kernels[gpu %d]", d);
        TEST(name, test_image_kernels(d));
        snprintf(name, sizeof name, "semaphores[gpu %d]", d);
        TEST(name, test_semaphores(d));
    }
    TEST("several GPUs", test_multi());
    TEST("threads", test_concurrent());
    TEST("shutdown releases", test_shutdown());
#else
    (void)d;
    skip("imports: the memfd exporter: Linux only");
#endif
    mgpu_shutdown();
    return summary();
}
