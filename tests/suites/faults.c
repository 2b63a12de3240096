/* tests/suites/faults.c - every driver call failed in turn (fault injection through the
   fake libcuda, tests/fake_cuda): for each program below (init; memory and copies; streams
   and events; reductions; collectives; blur batch and split; MSMs: a batch over the GPUs,
   one in max_memory pieces, the G1 + G2 pair over precomputed bases; graphics interop:
   memory, an image and a semaphore imported from the fake's memfds),
   run once to count its driver calls C, then for every k in 1..C again with the k-th call
   failing. Each run must end with a clean status or the correct result; mgpu must then
   still work (a probe: allocate, copy, reduce on every GPU, in the same init cycle); after
   mgpu_shutdown the fake must hold nothing (no allocation, stream, event, module or
   retained context); and the program must pass again afterwards. Needs MGPU_CUDA_PATH =
   build/libfake_cuda.so (make test runs it with and without peer access), or
   build/libcuda_faultshim.so (tests/fault_shim: the same control in front of the real
   driver, or of the fake in make test); skipped otherwise. The programs use the first two
   GPUs, or the one GPU of a machine with one. ASan/UBSan builds (suite_asan_faults) run it
   the same way. */
#define _GNU_SOURCE                     /* memfd_create (the interop program) */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include "tests/suites/suite.h"
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

#define FAULT_ERROR 999                 /* CUDA_ERROR_UNKNOWN */
static void (*fail_call)(long k, int error);
static long (*driver_calls)(void);
static long (*live)(char *text, size_t size);
static const char *(*failed_name)(void);
static char wrong[512];                 /* a run that claimed success with a wrong result */
static long program_calls;              /* the driver calls of the last run's program itself */
static int reached;                     /* the last run made its k-th call (and it failed) */
static int ngpu;                        /* GPUs the programs use: 2, or 1 where there is one */
static const mgpu_device gpus[2] = { 0, 1 };
#define LAST_GPU (ngpu - 1)

#define WRONG(...) do { snprintf(wrong, sizeof wrong, __VA_ARGS__); return MGPU_ERROR_CUDA; } while (0)
#define STEP(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) return r_; } while (0)

static mgpu_result init_gpus(void)
{
    mgpu_desc d;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CUDA;
    d.cpu_devices = 1;
    return mgpu_init(&d);
}

/* ---- the programs: each starts with mgpu_init and stops at its first failure (the
   harness shuts down); on success each result is checked. */
static mgpu_result p_init(void) { return init_gpus(); }

static mgpu_result p_memory(void)
{
    unsigned char host[4096], back[4096];
    void *a = NULL, *b = NULL, *pin = NULL, *pool = NULL;
    mgpu_stream s = NULL;
    size_t i;
    for (i = 0; i < sizeof host; i++) host[i] = (unsigned char)(i * 7 + 1);
    STEP(init_gpus());
    STEP(mgpu_set_device(0));
    STEP(mgpu_malloc(&a, sizeof host));
    STEP(mgpu_set_device(LAST_GPU));
    STEP(mgpu_malloc(&b, sizeof host));
    STEP(mgpu_malloc_host(&pin, sizeof host));
    STEP(mgpu_stream_create(&s));
    STEP(mgpu_malloc_async(&pool, sizeof host, s));
    STEP(mgpu_memcpy(a, host, sizeof host));
    STEP(mgpu_copy_peer(b, a, sizeof host, 0));                     /* GPU 0 -> the last */
    STEP(mgpu_copy_peer_async(pool, b, sizeof host, MGPU_COPY_FORCE_STAGED, s));
    STEP(mgpu_memcpy_async(pin, pool, sizeof host, s));
    STEP(mgpu_free_async(pool, s));
    STEP(mgpu_stream_synchronize(s));
    STEP(mgpu_memset(a, 0, 16));
    STEP(mgpu_memcpy(back, a, 16));
    STEP(mgpu_free(a));
    STEP(mgpu_free(b));
    STEP(mgpu_stream_destroy(s));
    if (memcmp(pin, host, sizeof host)) WRONG("the copies delivered other bytes");
    for (i = 0; i < 16; i++) if (back[i]) WRONG("mgpu_memset left byte %zu at %d", i, back[i]);
    return mgpu_free_host(pin);
}

static mgpu_result p_streams(void)
{
    mgpu_stream s0 = NULL, s1 = NULL;
    mgpu_event e0 = NULL, e1 = NULL;
    uint32_t *x = NULL, out[64];
    float ms = 0;
    int i;
    STEP(init_gpus());
    STEP(mgpu_set_device(0));
    STEP(mgpu_stream_create_flags(&s0, MGPU_STREAM_NON_BLOCKING));
    STEP(mgpu_event_create(&e0));
    STEP(mgpu_malloc((void **)&x, sizeof out));
    STEP(mgpu_memset_async(x, 5, sizeof out, s0));
    STEP(mgpu_event_record(e0, s0));
    STEP(mgpu_set_device(LAST_GPU));
    STEP(mgpu_stream_create(&s1));
    STEP(mgpu_event_create(&e1));
    STEP(mgpu_stream_wait_event(s1, e0));                            /* across devices */
    STEP(mgpu_memcpy_async(out, x, sizeof out, s1));
    STEP(mgpu_event_record(e1, s1));
    STEP(mgpu_event_synchronize(e1));
    STEP(mgpu_stream_query(s1));
    STEP(mgpu_event_query(e0));
    STEP(mgpu_event_elapsed_ms(e0, e0, &ms));
    STEP(mgpu_device_synchronize(0));
    STEP(mgpu_synchronize_all());
    STEP(mgpu_event_destroy(e0));
    STEP(mgpu_event_destroy(e1));
    STEP(mgpu_stream_destroy(s0));
    STEP(mgpu_stream_destroy(s1));
    for (i = 0; i < 64; i++) if (out[i] != 0x05050505u) WRONG("memset + copy: out[%d] = %#x", i, out[i]);
    return mgpu_free(x);
}

static mgpu_result p_reduce(void)
{
    int64_t h[1000], sum = 0, got = 0, y[1000];
    int64_t *d = NULL, *e = NULL;
    int i;
    for (i = 0; i < 1000; i++) { h[i] = i * 3 - 700; sum += h[i]; }
    STEP(init_gpus());
    STEP(mgpu_set_device(LAST_GPU));
    STEP(mgpu_malloc((void **)&d, sizeof h));
    STEP(mgpu_malloc((void **)&e, sizeof h));
    STEP(mgpu_memcpy(d, h, sizeof h));
    STEP(mgpu_memcpy(e, h, sizeof h));
    STEP(mgpu_reduce(d, 1000, MGPU_I64, MGPU_OP_SUM, &got, NULL));
    STEP(mgpu_combine_async(e, d, 1000, MGPU_I64, MGPU_OP_MAX, NULL));
    STEP(mgpu_memcpy(y, e, sizeof y));
    STEP(mgpu_free(d));
    STEP(mgpu_free(e));
    if (got != sum) WRONG("reduce: %lld, expected %lld", (long long)got, (long long)sum);
    for (i = 0; i < 1000; i++) if (y[i] != h[i]) WRONG("combine max: y[%d] = %lld", i, (long long)y[i]);
    return MGPU_SUCCESS;
}

static mgpu_result p_collectives(void)
{
    enum { N = 3000 };
    static int32_t h[N], back[N];
    void *bufs[2] = { NULL, NULL };
    mgpu_range ranges[2];
    int64_t total = 0, got = 0;
    int i, d;
    for (i = 0; i < N; i++) { h[i] = (i % 97) - 40; total += h[i]; }
    STEP(init_gpus());
    STEP(mgpu_reduce_multi(h, N, MGPU_I32, MGPU_OP_SUM, &got, gpus, ngpu, NULL));
    for (d = 0; d < ngpu; d++) {
        STEP(mgpu_set_device(d));
        STEP(mgpu_malloc(&bufs[d], sizeof h));
        STEP(mgpu_memcpy(bufs[d], h, sizeof h));
    }
    STEP(mgpu_allreduce(bufs, N, MGPU_I32, MGPU_OP_SUM, gpus, ngpu));
    STEP(mgpu_memcpy(back, bufs[LAST_GPU], sizeof back));
    for (i = 0; i < N; i++)
        if (back[i] != ngpu * h[i]) WRONG("allreduce: [%d] = %d, expected %d", i, back[i], ngpu * h[i]);
    STEP(mgpu_broadcast(bufs, sizeof h, LAST_GPU, gpus, ngpu));
    STEP(mgpu_split(N, gpus, ngpu, MGPU_SPLIT_EVEN, NULL, 0, 0, ranges));
    STEP(mgpu_scatter(h, sizeof h[0], ranges, ngpu, bufs));
    STEP(mgpu_gather(back, sizeof back[0], ranges, ngpu, (const void *const *)bufs));
    for (d = 0; d < ngpu; d++) STEP(mgpu_free(bufs[d]));
    if (got != (int32_t)total) WRONG("reduce_multi: %lld, expected %lld", (long long)got, (long long)total);
    if (memcmp(back, h, sizeof h)) WRONG("scatter + gather changed the data");
    return MGPU_SUCCESS;
}

static mgpu_result p_blur(void)
{
    enum { W = 40, H = 24, COUNT = 3 };
    static unsigned char in[COUNT][W * H], out[COUNT][W * H], ref[W * H], big_out[W * H];
    mgpu_image src[COUNT], dst[COUNT], cpu_src, cpu_dst;
    int i, k;
    for (k = 0; k < COUNT; k++)
        for (i = 0; i < W * H; i++) in[k][i] = (unsigned char)((i * 31 + k * 17) ^ (i >> 3));
    for (k = 0; k < COUNT; k++) {
        memset(&src[k], 0, sizeof src[k]);
        src[k].data = in[k]; src[k].width = W; src[k].height = H; src[k].channels = 1; src[k].format = MGPU_PIXEL_U8;
        dst[k] = src[k];
        dst[k].data = out[k];
    }
    STEP(init_gpus());
    STEP(mgpu_blur_batch(src, dst, COUNT, NULL, gpus, ngpu));
    cpu_src = src[COUNT - 1];
    cpu_dst = dst[0];
    cpu_dst.data = big_out;
    STEP(mgpu_blur_split(&cpu_src, &cpu_dst, NULL, gpus, ngpu));
    /* the reference: the CPU device */
    cpu_dst.data = ref;
    STEP(mgpu_set_device(mgpu_cpu_device(0)));
    STEP(mgpu_blur(&cpu_src, &cpu_dst, NULL, NULL));
    if (memcmp(out[COUNT - 1], ref, sizeof ref)) WRONG("blur_batch differs from the CPU device");
    if (memcmp(big_out, ref, sizeof ref)) WRONG("blur_split differs from the CPU device");
    return MGPU_SUCCESS;
}

/* The MSM programs, three of them: a run with call k failing replays only its own
   program's calls before k (the emulator's MSMs are slow). Their inputs: COUNT sets of N
   points and scalars. */
enum { MSM_N = 12, MSM_COUNT = 5 };
static mgpu_bn254_scalar msm_sc[MSM_COUNT * MSM_N];
static mgpu_bn254_affine msm_pt[MSM_COUNT * MSM_N];
static mgpu_result msm_inputs(void)
{
    STEP(init_gpus());
    STEP(mgpu_bn254_random_scalars(msm_sc, MSM_COUNT * MSM_N, 7));
    return mgpu_bn254_random_points(msm_pt, MSM_COUNT * MSM_N, 8);
}
/* got[k] (k < count) against set k's MSM on the CPU device. */
static mgpu_result msm_same(const mgpu_bn254_jacobian *got, int count, const char *what)
{
    mgpu_bn254_jacobian ref[MSM_COUNT];
    mgpu_bn254_affine a, b;
    int k;
    STEP(mgpu_set_device(mgpu_cpu_device(0)));
    STEP(mgpu_msm_batch(msm_sc, msm_pt, MSM_N, count, NULL, ref, NULL));
    for (k = 0; k < count; k++) {
        STEP(mgpu_bn254_to_affine(&got[k], &a, 0));
        STEP(mgpu_bn254_to_affine(&ref[k], &b, 0));
        if (memcmp(&a, &b, sizeof a)) WRONG("%s %d differs from the CPU device", what, k);
    }
    return MGPU_SUCCESS;
}

/* Five MSMs over the GPUs: the first worker takes a batch of two (guided self-scheduling;
   with one GPU, of three), whose loads run double-buffered on an internal stream. */
static mgpu_result p_msm(void)
{
    mgpu_bn254_jacobian got[MSM_COUNT];
    STEP(msm_inputs());
    STEP(mgpu_msm_multi(msm_sc, msm_pt, MSM_N, MSM_COUNT, NULL, got, gpus, ngpu));
    return msm_same(got, MSM_COUNT, "MSM");
}

/* One MSM from host memory under the smallest power-of-two config.max_memory that takes
   it: in pieces that add into one set of buckets. */
static mgpu_result p_msm_pieces(void)
{
    mgpu_bn254_jacobian got;
    mgpu_msm_config cfg;
    mgpu_result r;
    STEP(msm_inputs());
    memset(&cfg, 0, sizeof cfg);
    STEP(mgpu_set_device(gpus[0]));
    for (cfg.max_memory = 4096; (r = mgpu_msm(msm_sc, msm_pt, MSM_N, &cfg, &got, NULL)) == MGPU_ERROR_OUT_OF_MEMORY &&
                                cfg.max_memory < ((size_t)1 << 26); cfg.max_memory *= 2) {}
    STEP(r);
    return msm_same(&got, 1, "the MSM in pieces");
}

/* BN254 G2's precomputed bases made on the GPU, then mgpu_msm_pair over them and G1's
   (made on the CPU device; host memory), both groups' MSMs from one sort. */
static mgpu_result p_msm_pair(void)
{
    static mgpu_bn254_g2_affine p2[MSM_N];
    static mgpu_bn254_affine b1[2 * MSM_N];
    mgpu_bn254_jacobian got;
    mgpu_bn254_g2_jacobian j2, r2;
    mgpu_bn254_g2_affine a2, c2;
    mgpu_msm_config cfg;
    void *b2 = NULL;
    STEP(msm_inputs());
    STEP(mgpu_curve_random_points(MGPU_MSM_BN254_G2, p2, MSM_N, 9));
    memset(&cfg, 0, sizeof cfg);
    cfg.precompute_factor = 2;
    STEP(mgpu_set_device(mgpu_cpu_device(0)));
    STEP(mgpu_msm_precompute_bases(msm_pt, MSM_N, &cfg, b1, NULL));
    STEP(mgpu_set_device(gpus[0]));
    STEP(mgpu_malloc(&b2, sizeof p2 * 2));
    cfg.group = MGPU_MSM_BN254_G2;
    STEP(mgpu_msm_curve_precompute_bases(p2, MSM_N, &cfg, b2, NULL));
    STEP(mgpu_msm_pair(msm_sc, b1, b2, MSM_N, 1, &cfg, &got, &j2, NULL));
    STEP(mgpu_free(b2));
    cfg.precompute_factor = 0;
    STEP(mgpu_set_device(mgpu_cpu_device(0)));
    STEP(mgpu_msm_curve(msm_sc, p2, MSM_N, 1, &cfg, &r2, NULL));
    STEP(mgpu_curve_to_affine(MGPU_MSM_BN254_G2, &j2, &a2, 0));
    STEP(mgpu_curve_to_affine(MGPU_MSM_BN254_G2, &r2, &c2, 0));
    if (memcmp(&a2, &c2, sizeof a2)) WRONG("mgpu_msm_pair's G2 result differs from the CPU device");
    return msm_same(&got, 1, "mgpu_msm_pair's G1 result");
}


#ifdef __linux__
/* Graphics interop, the fake's way (tests/suites/interop.c): memory and semaphores are
   memfds the "exporter" made. A failed import leaves the fd the caller's: closed here. */
enum { XW = 40, XH = 24, XHALF = 32768 };
static struct { unsigned char *map; size_t size; } xmaps[4];
static int xnmaps;
static mgpu_result x_import(mgpu_device dev, size_t size, int semaphore, void **handle)
{
    static const unsigned long long magic = 0x316d6573757067ull;
    int fd = memfd_create("vk_memory", MFD_CLOEXEC);
    mgpu_result r;
    void *map = MAP_FAILED;
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0 ||
        (map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        if (fd >= 0) close(fd);
        WRONG("memfd: %s", strerror(errno));
    }
    xmaps[xnmaps].map = (unsigned char *)map;
    xmaps[xnmaps++].size = size;
    if (semaphore) {
        mgpu_external_semaphore_desc d;
        memcpy(map, &magic, 8);
        memset(&d, 0, sizeof d);
        d.type = MGPU_EXTERNAL_SEMAPHORE_TIMELINE_FD;
        d.fd = fd;
        r = mgpu_external_semaphore_import(dev, &d, (mgpu_external_semaphore *)handle);
    } else {
        mgpu_external_memory_desc d;
        memset(&d, 0, sizeof d);
        d.type = MGPU_EXTERNAL_MEMORY_OPAQUE_FD;
        d.fd = fd;
        d.size = size;
        r = mgpu_external_memory_import(dev, &d, (mgpu_external_memory *)handle);
    }
    if (r != MGPU_SUCCESS) close(fd);
    return r;
}
/* Buffers on each GPU blurred by blur_batch; an image on the first GPU (a surface) written,
   blurred by the image kernels into an image of a second import there, then in place
   (through pitch-linear scratch), both read; a timeline semaphore on the last signalled and waited for; all released. */
static mgpu_result x_body(void)
{
    static unsigned char in[XW * XH * 4], ref[XW * XH * 4], out[XW * XH * 4], out2[XW * XH * 4];
    mgpu_external_memory m[2] = { NULL, NULL }, m2 = NULL;
    mgpu_external_semaphore sem = NULL;
    mgpu_external_image img = NULL, img2 = NULL;
    mgpu_external_image_desc id;
    mgpu_image src[2], dst[2], h, o, o2, r;
    mgpu_stream s = NULL;
    int g, i;
    for (i = 0; i < XW * XH * 4; i++) in[i] = (unsigned char)((i * 29 + 3) ^ (i >> 4));
    memset(&h, 0, sizeof h);
    h.data = in; h.width = XW; h.height = XH; h.channels = 4; h.format = MGPU_PIXEL_U8;
    r = o = o2 = h;
    r.data = ref;
    o.data = out;
    o2.data = out2;
    STEP(init_gpus());
    for (g = 0; g < ngpu; g++) {
        unsigned char *p;
        STEP(x_import(g, 3 * XHALF, 0, (void **)&m[g]));
        STEP(mgpu_external_memory_buffer(m[g], 0, 2 * XHALF, (void **)&p));
        memcpy(xmaps[g].map, in, sizeof in);
        src[g] = dst[g] = h;
        src[g].data = p;
        dst[g].data = p + XHALF;
    }
    STEP(mgpu_blur_batch(src, dst, ngpu, NULL, gpus, ngpu));
    memset(&id, 0, sizeof id);
    id.offset = 2 * XHALF; id.width = XW; id.height = XH; id.channels = 4; id.format = MGPU_PIXEL_U8;
    id.flags = MGPU_EXTERNAL_IMAGE_STORAGE;            /* a surface: the image kernels, in place */
    STEP(mgpu_external_memory_image(m[0], &id, &img));
    STEP(x_import(gpus[0], XHALF, 0, (void **)&m2));
    id.offset = 0;
    STEP(mgpu_external_memory_image(m2, &id, &img2));
    STEP(mgpu_default_stream(gpus[0], &s));
    STEP(mgpu_external_image_write_async(img, &h, s));
    STEP(mgpu_external_image_blur_async(img, img2, NULL, s));
    STEP(mgpu_external_image_read_async(img2, &o2, s));
    STEP(mgpu_external_image_blur_async(img, img, NULL, s));
    STEP(mgpu_external_image_read_async(img, &o, s));
    STEP(mgpu_stream_synchronize(s));
    STEP(x_import(LAST_GPU, 16, 1, (void **)&sem));
    STEP(mgpu_default_stream(gpus[LAST_GPU], &s));
    STEP(mgpu_external_semaphore_signal_async(sem, 7, s));
    STEP(mgpu_external_semaphore_wait_async(sem, 7, s));
    STEP(mgpu_stream_synchronize(s));
    STEP(mgpu_set_device(mgpu_cpu_device(0)));
    STEP(mgpu_blur(&h, &r, NULL, NULL));
    for (g = 0; g < ngpu; g++)
        if (memcmp(xmaps[g].map + XHALF, ref, sizeof ref)) WRONG("the blur of GPU %d's imported buffer differs from the CPU device", g);
    if (memcmp(out, ref, sizeof ref)) WRONG("the image blur in place differs from the CPU device");
    if (memcmp(out2, ref, sizeof ref)) WRONG("the image blur into another image differs from the CPU device");
    if (*(unsigned long long *)(void *)(xmaps[xnmaps - 1].map + 8) != 7) WRONG("the semaphore was not signalled");
    STEP(mgpu_external_semaphore_destroy(sem));
    for (g = 0; g < ngpu; g++) STEP(mgpu_external_memory_destroy(m[g]));
    STEP(mgpu_external_memory_destroy(m2));
    return MGPU_SUCCESS;
}
static mgpu_result p_interop(void)
{
    mgpu_result r;
    xnmaps = 0;
    r = x_body();
    while (xnmaps) { xnmaps--; munmap(xmaps[xnmaps].map, xmaps[xnmaps].size); }
    return r;
}
#endif

/* mgpu works after a failure, in the same init cycle: every GPU allocates, copies and reduces. */
static mgpu_result probe(void)
{
    uint32_t h[256], sum = 0, got = 0;
    int d, i;
    for (i = 0; i < 256; i++) { h[i] = (uint32_t)i; sum += (uint32_t)i; }
    for (d = 0; d < mgpu_device_count(); d++) {
        void *p = NULL;
        STEP(mgpu_set_device(d));
        STEP(mgpu_malloc(&p, sizeof h));
        STEP(mgpu_memcpy(p, h, sizeof h));
        STEP(mgpu_reduce(p, 256, MGPU_U32, MGPU_OP_SUM, &got, NULL));
        STEP(mgpu_free(p));
        if (got != sum) WRONG("probe on GPU %d: sum %u, expected %u", d, got, sum);
    }
    return MGPU_SUCCESS;
}

static int initialized(void) { return mgpu_device_count() > 0; }

/* One run of program p; k > 0 fails its k-th driver call. Returns 0, or 1 with why[]. A run
   may make fewer calls than the first (threads take the work in another order): then its
   k-th call is not reached, and `reached` says so. */
static int run(mgpu_result (*p)(void), long k, char *why, size_t n)
{
    char text[256];
    mgpu_result r, q;
    wrong[0] = why[0] = 0;
    program_calls = driver_calls();
    fail_call(k, FAULT_ERROR);
    r = p();
    program_calls = driver_calls() - program_calls;
    reached = k == 0 || failed_name()[0];
    fail_call(0, 0);
    if (!reached && program_calls >= k) snprintf(why, n, "call %ld was made but did not fail", k);
    if (wrong[0]) { snprintf(why, n, "claimed success: %.400s", wrong); return 1; }
    if (k == 0 && r != MGPU_SUCCESS) { snprintf(why, n, "without a fault: %s: %.400s", mgpu_result_string(r), mgpu_last_error()); return 1; }
    if (r != MGPU_SUCCESS && !mgpu_last_error()[0]) { snprintf(why, n, "%s without a message", mgpu_result_string(r)); return 1; }
    if (initialized() && (q = probe()) != MGPU_SUCCESS) {
        snprintf(why, n, "unusable after %s: %s: %.400s", mgpu_result_string(r), mgpu_result_string(q), wrong[0] ? wrong : mgpu_last_error());
        mgpu_shutdown();
        return 1;
    }
    if (initialized() && mgpu_shutdown() != MGPU_SUCCESS) { snprintf(why, n, "mgpu_shutdown: %.400s", mgpu_last_error()); return 1; }
    if (live(text, sizeof text)) { snprintf(why, n, "after %s and mgpu_shutdown the driver still holds %s", mgpu_result_string(r), text); return 1; }
    return why[0] != 0;
}

int main(int argc, char **argv)
{
    static const struct { const char *name; mgpu_result (*fn)(void); } programs[] = {
        { "init", p_init }, { "memory", p_memory }, { "streams", p_streams }, { "reduce", p_reduce },
        { "collectives", p_collectives }, { "blur", p_blur }, { "msm", p_msm }, { "msm_pieces", p_msm_pieces },
        { "msm_pair", p_msm_pair },
#ifdef __linux__
        { "interop", p_interop },
#endif
    };
    mgpu_device_info info;
    int fake;
    const char *path = getenv("MGPU_CUDA_PATH");
    char errors[512] = "";
    void *lib = path ? mgpu__lib_open(path, errors, sizeof errors) : NULL;   /* mgpu's platform calls */
    unsigned i;
    if (lib) {
        *(void **)&fail_call = mgpu__lib_sym(lib, "fake_cuda_fail_call");
        *(void **)&driver_calls = mgpu__lib_sym(lib, "fake_cuda_calls");
        *(void **)&live = mgpu__lib_sym(lib, "fake_cuda_live");
        *(void **)&failed_name = mgpu__lib_sym(lib, "fake_cuda_failed_name");
    }
    if (!fail_call || !driver_calls || !live || !failed_name || init_gpus() != MGPU_SUCCESS) {
        skip("fault injection: needs a GPU behind a driver that fails a chosen call: MGPU_CUDA_PATH = "
             "build/libfake_cuda.so, or build/libcuda_faultshim.so in front of the real driver");
        return summary();
    }
    ngpu = mgpu_device_count() < 2 ? mgpu_device_count() : 2;
    fake = mgpu_device_info_get(0, &info) == MGPU_SUCCESS && strstr(info.name, "mgpu fake libcuda") != NULL;
    printf("-- %d CPU device(s), %d GPU(s)\n", mgpu_cpu_device_count(), mgpu_device_count());
    mgpu_shutdown();
    for (i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        char why[1024] = "", first[1024] = "", missed[64] = "";
        long calls, k, bad = 0, unreached = 0;
        int j, chosen = argc < 2;
        for (j = 1; j < argc; j++) chosen |= !strcmp(argv[j], programs[i].name);
        if (!chosen) continue;
        if (!strcmp(programs[i].name, "interop") && !fake) {
            skip("faults interop: its exporter (memfds) works with the fake driver only");
            continue;
        }
        if (run(programs[i].fn, 0, why, sizeof why)) { report(0, "faults %s: %s", programs[i].name, why); continue; }
        calls = program_calls;                  /* (the probe's and mgpu_shutdown's calls are not failed) */
        for (k = 1; k <= calls; k++) {
            if (!run(programs[i].fn, k, why, sizeof why)) unreached += !reached;
            else if (!bad++) snprintf(first, sizeof first, "call %ld of %ld (%s): %.700s", k, calls, failed_name(), why);
        }
        if (run(programs[i].fn, 0, why, sizeof why) && !bad++)   /* and once more without a fault */
            snprintf(first, sizeof first, "the run after the faults: %.700s", why);
        if (unreached) snprintf(missed, sizeof missed, ", %ld not reached (fewer calls that run)", unreached);
        report(!bad, "faults %s: each of its %ld driver calls failed in turn: %ld clean%s%s%s", programs[i].name, calls,
               calls - bad - unreached, missed, bad ? "; first problem: " : "", first);
    }
    mgpu__lib_close(lib);
    return summary();
}
