/* Modules, kernels, launches, built-in kernels, the embedded kernels' sha256. */
#include "test.h"

#include <pthread.h>
#include "tools/sha256.h"

/* nvcc -ptx -arch=compute_75 (CUDA 13.0) of

       extern "C" __global__ void add_one(unsigned int *p, unsigned long long n)
       {
           unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
           unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
           for (; i < n; i += stride) p[i] += 1u;
       }
       extern "C" __global__ void spin(unsigned long long ns)
       {
           unsigned long long t0, t;
           asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
           do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
       }

   with .version lowered from 9.0 to 7.0 (nothing newer is used; ptxas accepts it), so that
   every driver mgpu supports (CUDA 12.0+) can JIT it. */
const char t_ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry add_one(\n"
    "\t.param .u64 add_one_param_0,\n"
    "\t.param .u64 add_one_param_1\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<3>;\n"
    "\t.reg .b32 \t%r<7>;\n"
    "\t.reg .b64 \t%rd<15>;\n"
    "\n"
    "\tld.param.u64 \t%rd7, [add_one_param_0];\n"
    "\tld.param.u64 \t%rd8, [add_one_param_1];\n"
    "\tmov.u32 \t%r1, %ctaid.x;\n"
    "\tmov.u32 \t%r2, %ntid.x;\n"
    "\tcvt.u64.u32 \t%rd1, %r2;\n"
    "\tmul.wide.u32 \t%rd9, %r1, %r2;\n"
    "\tmov.u32 \t%r3, %tid.x;\n"
    "\tcvt.u64.u32 \t%rd10, %r3;\n"
    "\tadd.s64 \t%rd14, %rd9, %rd10;\n"
    "\tsetp.ge.u64 \t%p1, %rd14, %rd8;\n"
    "\t@%p1 bra \t$L__BB0_3;\n"
    "\n"
    "\tmov.u32 \t%r4, %nctaid.x;\n"
    "\tcvt.u64.u32 \t%rd11, %r4;\n"
    "\tmul.lo.s64 \t%rd3, %rd11, %rd1;\n"
    "\tcvta.to.global.u64 \t%rd4, %rd7;\n"
    "\n"
    "$L__BB0_2:\n"
    "\tshl.b64 \t%rd12, %rd14, 2;\n"
    "\tadd.s64 \t%rd13, %rd4, %rd12;\n"
    "\tld.global.u32 \t%r5, [%rd13];\n"
    "\tadd.s32 \t%r6, %r5, 1;\n"
    "\tst.global.u32 \t[%rd13], %r6;\n"
    "\tadd.s64 \t%rd14, %rd14, %rd3;\n"
    "\tsetp.lt.u64 \t%p2, %rd14, %rd8;\n"
    "\t@%p2 bra \t$L__BB0_2;\n"
    "\n"
    "$L__BB0_3:\n"
    "\tret;\n"
    "\n"
    "}\n"
    "\n"
    ".visible .entry spin(\n"
    "\t.param .u64 spin_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<2>;\n"
    "\t.reg .b64 \t%rd<6>;\n"
    "\n"
    "\tld.param.u64 \t%rd2, [spin_param_0];\n"
    "\tmov.u64 %rd3, %globaltimer;\n"
    "\n"
    "$L__BB1_1:\n"
    "\tmov.u64 %rd4, %globaltimer;\n"
    "\tsub.s64 \t%rd5, %rd4, %rd3;\n"
    "\tsetp.lt.u64 \t%p1, %rd5, %rd2;\n"
    "\t@%p1 bra \t$L__BB1_1;\n"
    "\n"
    "\tret;\n"
    "\n"
    "}\n";

/* add_one for CPU devices: called once per launch. */
static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static int mod_cpu_calls;
static void add_one_cpu(const mgpu_launch_dims *dims, void **args)
{
    unsigned int *p = *(unsigned int **)args[0];
    unsigned long long n = *(unsigned long long *)args[1], i;
    (void)dims;
    for (i = 0; i < n; i++) p[i] += 1u;
    pthread_mutex_lock(&mod_lock);
    mod_cpu_calls++;
    pthread_mutex_unlock(&mod_lock);
}

static int mod_is_cpu(mgpu_device d)
{
    mgpu_device_info info;
    if (mgpu_device_info_get(d, &info) != MGPU_SUCCESS) return -1;
    return info.backend == MGPU_BACKEND_CPU;
}

static mgpu_launch_dims mod_dims(unsigned grid, unsigned block)
{
    mgpu_launch_dims d;
    memset(&d, 0, sizeof d);
    d.grid[0] = grid; d.grid[1] = d.grid[2] = 1;
    d.block[0] = block; d.block[1] = d.block[2] = 1;
    return d;
}

/* Launches k (add_one) on `stream` over n random words on device d and checks p[i] + 1. */
static void mod_add_one_on(mgpu_kernel k, mgpu_device d, mgpu_stream stream, size_t n)
{
    unsigned int *h = (unsigned int *)tmalloc(n * 4), *back = (unsigned int *)tmalloc(n * 4 + 64);
    unsigned int *p = NULL;
    unsigned long long nn = n;
    void *args[2];
    mgpu_launch_dims dims = mod_dims(7, 128);          /* fewer threads than words: grid-stride */
    size_t i;
    REQUIRE_OK(mgpu_set_device(d));
    t_fill(h, n * 4);
    REQUIRE_OK(mgpu_malloc((void **)&p, n * 4 + 64));
    CHECK_OK(mgpu_memset(p, 0xEE, n * 4 + 64));
    CHECK_OK(mgpu_memcpy(p, h, n * 4));
    args[0] = &p;
    args[1] = &nn;
    CHECK_OK(mgpu_launch(k, &dims, args, stream));
    if (stream) CHECK_OK(mgpu_stream_synchronize(stream));
    else CHECK_OK(mgpu_stream_synchronize(NULL));
    CHECK_OK(mgpu_memcpy(back, p, n * 4 + 64));
    for (i = 0; i < n; i++)
        if (back[i] != h[i] + 1u) {
            t_fail(__FILE__, __LINE__, "add_one on device %d: p[%zu] = %u, expected %u", d, i, back[i], h[i] + 1u);
            break;
        }
    CHECK_BYTES(back + n, 0xEE, 64, "words after add_one's range");
    CHECK_OK(mgpu_free(p));
}

TEST(modules)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    mgpu_module m = NULL, m2 = NULL;
    mgpu_kernel k = NULL, nocpu = NULL;
    unsigned char garbage[1000];
    int n, i, calls;
    TINIT();
    n = t_all_devices(devs);
    /* images that are not modules */
    t_fill(garbage, sizeof garbage);
    garbage[0] = 0;
    CHECK_ERR(mgpu_module_create(garbage, sizeof garbage, &m), MGPU_ERROR_INVALID_IMAGE);
    CHECK(m == NULL);
    CHECK_ERR(mgpu_module_create("hello", 5, &m), MGPU_ERROR_INVALID_IMAGE);
    CHECK_ERR(mgpu_module_create(NULL, 100, &m), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_module_create(t_ptx, 0, &m), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_module_create(t_ptx, strlen(t_ptx), NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(m == NULL);
    /* the PTX module, given without its NUL */
    REQUIRE_OK(mgpu_module_create(t_ptx, strlen(t_ptx), &m));
    REQUIRE(m != NULL);
    REQUIRE_OK(mgpu_module_kernel(m, "add_one", &k));
    REQUIRE_OK(mgpu_module_kernel(m, "add_one", &nocpu));  /* a second handle, never given a CPU function */
    CHECK_OK(mgpu_kernel_set_cpu(k, add_one_cpu));
    for (i = 0; i < n; i++) {
        mgpu_device d = devs[i];
        int cpu = mod_is_cpu(d);
        mgpu_stream own = NULL;
        unsigned int word = 0;
        void *args[2];
        unsigned long long one = 1;
        mgpu_launch_dims dims = mod_dims(1, 1);
        CHECK_OK(mgpu_module_load(m, d));
        calls = mod_cpu_calls;
        mod_add_one_on(k, d, NULL, 1);
        mod_add_one_on(k, d, NULL, 100003);
        REQUIRE_OK(mgpu_stream_create(&own));
        mod_add_one_on(k, d, own, 4097);
        CHECK_OK(mgpu_stream_destroy(own));
        /* the C function runs on CPU devices, and only there */
        CHECK_EQ_INT(mod_cpu_calls - calls, cpu ? 3 : 0);
        if (cpu) {
            unsigned int *p = NULL;
            REQUIRE_OK(mgpu_malloc((void **)&p, 4));
            args[0] = &p;
            args[1] = &one;
            CHECK_ERR(mgpu_launch(nocpu, &dims, args, NULL), MGPU_ERROR_NOT_SUPPORTED);
            CHECK_OK(mgpu_memcpy(&word, p, 4));
            CHECK_OK(mgpu_free(p));
        } else {
            /* loaded on the current device: an unknown name is reported at once */
            mgpu_kernel bad = (mgpu_kernel)&word;
            CHECK_ERR(mgpu_module_kernel(m, "no_such_kernel", &bad), MGPU_ERROR_NOT_FOUND);
            CHECK(bad == (mgpu_kernel)&word);
        }
    }
    /* the stream decides the device: launch on each device's default stream from one binding */
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL;
        REQUIRE_OK(mgpu_default_stream(devs[i], &s));
        REQUIRE_OK(mgpu_set_device(devs[(i + 1) % n]));
        {
            unsigned int *p = NULL, h[300], back[300];
            unsigned long long cnt = 300;
            void *args[2];
            mgpu_launch_dims dims = mod_dims(2, 64);
            size_t j;
            REQUIRE_OK(mgpu_set_device(devs[i]));
            REQUIRE_OK(mgpu_malloc((void **)&p, sizeof h));
            REQUIRE_OK(mgpu_set_device(devs[(i + 1) % n]));
            t_fill(h, sizeof h);
            CHECK_OK(mgpu_memcpy(p, h, sizeof h));
            args[0] = &p; args[1] = &cnt;
            CHECK_OK(mgpu_launch(k, &dims, args, s));
            CHECK_OK(mgpu_stream_synchronize(s));
            CHECK_OK(mgpu_memcpy(back, p, sizeof back));
            for (j = 0; j < 300; j++) if (back[j] != h[j] + 1u) break;
            if (j < 300) t_fail(__FILE__, __LINE__, "add_one on device %d's stream, bound to device %d: word %zu wrong",
                                devs[i], devs[(i + 1) % n], j);
            CHECK_OK(mgpu_free(p));
        }
    }
    /* an unknown kernel in a module not loaded anywhere yet: found out at its first launch */
    REQUIRE_OK(mgpu_module_create(t_ptx, strlen(t_ptx) + 1, &m2));
    {
        mgpu_kernel bad = NULL;
        unsigned int *p = NULL;
        unsigned long long one = 1;
        void *args[2];
        mgpu_launch_dims dims = mod_dims(1, 1);
        REQUIRE_OK(mgpu_set_device(0));
        REQUIRE_OK(mgpu_module_kernel(m2, "no_such_kernel", &bad));
        REQUIRE_OK(mgpu_malloc((void **)&p, 4));
        args[0] = &p; args[1] = &one;
        if (IS_CUDA()) {
            CHECK_ERR(mgpu_launch(bad, &dims, args, NULL), MGPU_ERROR_NOT_FOUND);
            CHECK_ERR(mgpu_launch(bad, &dims, args, NULL), MGPU_ERROR_NOT_FOUND);   /* and again */
        } else {
            CHECK_ERR(mgpu_launch(bad, &dims, args, NULL), MGPU_ERROR_NOT_SUPPORTED);
        }
        CHECK_OK(mgpu_free(p));
    }
    /* bad arguments */
    {
        mgpu_kernel kk = NULL;
        mgpu_launch_dims dims = mod_dims(1, 1);
        unsigned int *p = NULL;
        unsigned long long one = 1;
        void *args[2];
        REQUIRE_OK(mgpu_malloc((void **)&p, 4));
        args[0] = &p; args[1] = &one;
        CHECK_ERR(mgpu_module_kernel(NULL, "add_one", &kk), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_module_kernel(m, NULL, &kk), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_module_kernel(m, "", &kk), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_module_kernel(m, "add_one", NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(kk == NULL);
        CHECK_ERR(mgpu_kernel_set_cpu(NULL, add_one_cpu), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_module_load(NULL, 0), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_module_load(m, -1), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_module_load(m, 9999), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_launch(NULL, &dims, args, NULL), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_launch(k, NULL, args, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        dims.grid[0] = 0;
        CHECK_ERR(mgpu_launch(k, &dims, args, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        dims = mod_dims(1, 1);
        dims.block[2] = 0;
        CHECK_ERR(mgpu_launch(k, &dims, args, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_module_destroy(NULL), MGPU_ERROR_INVALID_HANDLE);
        CHECK_OK(mgpu_free(p));
    }
    CHECK_OK(mgpu_module_destroy(m2));
    CHECK_OK(mgpu_module_destroy(m));
    CHECK_OK(mgpu_shutdown());
}

/* Text that looks like PTX but is not: accepted or refused at create, never loadable on a GPU. */
TEST(module_bad_ptx)
{
    static const char bad[] = ".version 7.0\n.target sm_75\n.address_size 64\nthis is not ptx;\n";
    mgpu_device devs[MGPU_MAX_DEVICES];
    mgpu_module m = NULL;
    mgpu_result r;
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    r = mgpu_module_create(bad, sizeof bad - 1, &m);
    CHECK(r == MGPU_SUCCESS || r == MGPU_ERROR_INVALID_IMAGE);
    if (r == MGPU_SUCCESS) {
        for (i = 0; i < n; i++) {
            if (mod_is_cpu(devs[i])) CHECK_OK(mgpu_module_load(m, devs[i]));   /* nothing to load */
            else CHECK_ERR(mgpu_module_load(m, devs[i]), MGPU_ERROR_INVALID_IMAGE);
        }
        CHECK_OK(mgpu_module_destroy(m));
    }
    CHECK_OK(mgpu_shutdown());
}

/* Fatbins and ELF images whose headers declare more bytes than given are refused at
   create: the driver takes no size and would read past mgpu's copy (found by
   tests/fuzz/fuzz_module.c against the fake driver). The same headers with the bytes they
   declare are accepted. */
static void put_le(unsigned char *b, uint64_t v, int bytes) { int i; for (i = 0; i < bytes; i++) b[i] = (unsigned char)(v >> 8 * i); }
TEST(module_image_sizes)
{
    unsigned char img[256];
    mgpu_module m = NULL;
    TINIT();
    /* fatbin: magic, version 1, 16-byte header, then fat_size bytes */
    memset(img, 0, sizeof img);
    put_le(img, 0xBA55ED50u, 4); put_le(img + 4, 1, 2); put_le(img + 6, 16, 2); put_le(img + 8, 240, 8);
    CHECK_ERR(mgpu_module_create(img, 12, &m), MGPU_ERROR_INVALID_IMAGE);            /* header cut */
    CHECK_ERR(mgpu_module_create(img, 255, &m), MGPU_ERROR_INVALID_IMAGE);           /* one byte short */
    put_le(img + 8, UINT64_MAX - 8, 8);
    CHECK_ERR(mgpu_module_create(img, sizeof img, &m), MGPU_ERROR_INVALID_IMAGE);    /* wraps */
    put_le(img + 6, 8, 2); put_le(img + 8, 0, 8);
    CHECK_ERR(mgpu_module_create(img, sizeof img, &m), MGPU_ERROR_INVALID_IMAGE);    /* header < 16 */
    put_le(img + 6, 16, 2); put_le(img + 8, 240, 8);
    REQUIRE_OK(mgpu_module_create(img, sizeof img, &m));
    CHECK_OK(mgpu_module_destroy(m));
    /* 64-bit ELF: 64-byte header; one 16-byte section at 64; section headers at 80 */
    memset(img, 0, sizeof img);
    memcpy(img, "\x7F" "ELF", 4); img[4] = 2; img[5] = 1;
    put_le(img + 0x28, 80, 8); put_le(img + 0x3A, 64, 2); put_le(img + 0x3C, 2, 2);
    put_le(img + 144 + 4, 1, 4); put_le(img + 144 + 0x18, 64, 8); put_le(img + 144 + 0x20, 16, 8);
    CHECK_ERR(mgpu_module_create(img, 63, &m), MGPU_ERROR_INVALID_IMAGE);            /* header cut */
    CHECK_ERR(mgpu_module_create(img, 207, &m), MGPU_ERROR_INVALID_IMAGE);           /* section table cut */
    put_le(img + 144 + 0x20, 200, 8);
    CHECK_ERR(mgpu_module_create(img, 208, &m), MGPU_ERROR_INVALID_IMAGE);           /* section past the end */
    put_le(img + 144 + 4, 8, 4);                                                     /* SHT_NOBITS: no bytes */
    REQUIRE_OK(mgpu_module_create(img, 208, &m));
    CHECK_OK(mgpu_module_destroy(m));
    put_le(img + 144 + 4, 1, 4); put_le(img + 144 + 0x20, 16, 8);
    put_le(img + 0x28, UINT64_MAX - 16, 8);
    CHECK_ERR(mgpu_module_create(img, 208, &m), MGPU_ERROR_INVALID_IMAGE);           /* table offset wraps */
    put_le(img + 0x28, 80, 8);
    img[4] = 1;
    CHECK_ERR(mgpu_module_create(img, 208, &m), MGPU_ERROR_INVALID_IMAGE);           /* 32-bit ELF */
    img[4] = 2;
    REQUIRE_OK(mgpu_module_create(img, 208, &m));
    CHECK_OK(mgpu_module_destroy(m));
    CHECK_OK(mgpu_shutdown());
}

/* Many threads launch a fresh module's kernel at once: it loads once per device. */
static mgpu_result mod_thread(mgpu_device dev, int index, void *arg)
{
    mgpu_kernel k = (mgpu_kernel)arg;
    unsigned int h[1000], back[1000], *p = NULL;
    unsigned long long cnt = 1000;
    void *args[2];
    mgpu_launch_dims dims = mod_dims(4, 128);
    mgpu_result r;
    int i;
    (void)dev;
    for (i = 0; i < 1000; i++) h[i] = (unsigned)(i * 7 + index);
    if ((r = mgpu_malloc((void **)&p, sizeof h)) != MGPU_SUCCESS) return r;
    if ((r = mgpu_memcpy(p, h, sizeof h)) == MGPU_SUCCESS) {
        args[0] = &p; args[1] = &cnt;
        r = mgpu_launch(k, &dims, args, NULL);
        if (r == MGPU_SUCCESS) r = mgpu_stream_synchronize(NULL);
        if (r == MGPU_SUCCESS) r = mgpu_memcpy(back, p, sizeof back);
        for (i = 0; r == MGPU_SUCCESS && i < 1000; i++)
            if (back[i] != h[i] + 1u) r = MGPU_ERROR_CUDA;
    }
    mgpu_free(p);
    return r;
}

TEST(module_concurrent_launch)
{
    mgpu_device devs[MGPU_MAX_DEVICES], list[12];
    mgpu_module m = NULL;
    mgpu_kernel k = NULL;
    int n, i, round;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < 12; i++) list[i] = devs[i % n];
    for (round = 0; round < 3; round++) {
        REQUIRE_OK(mgpu_module_create(t_ptx, strlen(t_ptx), &m));
        REQUIRE_OK(mgpu_module_kernel(m, "add_one", &k));
        CHECK_OK(mgpu_kernel_set_cpu(k, add_one_cpu));
        CHECK_OK(mgpu_run_on_devices(list, 12, mod_thread, k));
        CHECK_OK(mgpu_module_destroy(m));
    }
    CHECK_OK(mgpu_shutdown());
}

/* ---------------------------------------------------------------- built-in kernels */
static const size_t mod_builtin_n[] = { 0, 1, 1023, ((size_t)1 << 20) + 7 };
#define BGUARD 16                   /* elements past n that must stay untouched */

TEST(builtin_axpy)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    size_t k, j;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        for (k = 0; k < sizeof mod_builtin_n / sizeof mod_builtin_n[0]; k++) {
            size_t cnt = mod_builtin_n[k], alloc = (cnt + BGUARD) * sizeof(float);
            float *x = (float *)tmalloc(alloc), *y = (float *)tmalloc(alloc), *want = (float *)tmalloc(alloc);
            float *back = (float *)tmalloc(alloc), *dx = NULL, *dy = NULL;
            float a = t_rand_float() * 4.0f;
            int use_own = (int)(k & 1);
            for (j = 0; j < cnt + BGUARD; j++) { x[j] = t_rand_float() * 100.0f; y[j] = t_rand_float() * 100.0f; }
            for (j = 0; j < cnt + BGUARD; j++) {
                float prod = a * x[j];                 /* two statements: never contracted to an fma */
                want[j] = j < cnt ? prod + y[j] : y[j];
            }
            REQUIRE_OK(mgpu_malloc((void **)&dx, alloc));
            REQUIRE_OK(mgpu_malloc((void **)&dy, alloc));
            CHECK_OK(mgpu_memcpy(dx, x, alloc));
            CHECK_OK(mgpu_memcpy(dy, y, alloc));
            CHECK_OK(mgpu_axpy_f32(cnt, a, dx, dy, use_own ? s : NULL));
            CHECK_OK(mgpu_stream_synchronize(use_own ? s : NULL));
            CHECK_OK(mgpu_memcpy(back, dy, alloc));
            for (j = 0; j < cnt + BGUARD; j++) {
                /* mgpu.h: product and sum rounded separately on every device: bit-identical */
                if (memcmp(&back[j], &want[j], sizeof(float))) {
                    t_fail(__FILE__, __LINE__, "mgpu_axpy_f32 n=%zu on device %d: y[%zu] = %.9g, expected %.9g (a=%.9g x=%.9g y=%.9g)",
                           cnt, devs[i], j, back[j], want[j], a, x[j], y[j]);
                    break;
                }
            }
            CHECK_OK(mgpu_free(dx));
            CHECK_OK(mgpu_free(dy));
        }
        CHECK_OK(mgpu_stream_destroy(s));
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(builtin_iota)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    size_t k, j;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        for (k = 0; k < sizeof mod_builtin_n / sizeof mod_builtin_n[0]; k++) {
            size_t cnt = mod_builtin_n[k], alloc = (cnt + BGUARD) * sizeof(uint32_t);
            uint32_t *back = (uint32_t *)tmalloc(alloc), *out = NULL;
            /* near the top so that large n wraps around 2^32 */
            uint32_t v = (k & 1) ? t_rand_u32() : 0xFFFFFFFFu - (t_rand_u32() % 1000u);
            REQUIRE_OK(mgpu_malloc((void **)&out, alloc));
            CHECK_OK(mgpu_memset(out, 0xEE, alloc));
            CHECK_OK(mgpu_iota_u32(cnt, v, out, (k & 2) ? s : NULL));
            CHECK_OK(mgpu_stream_synchronize((k & 2) ? s : NULL));
            CHECK_OK(mgpu_memcpy(back, out, alloc));
            for (j = 0; j < cnt; j++)
                if (back[j] != (uint32_t)(v + (uint32_t)j)) {
                    t_fail(__FILE__, __LINE__, "mgpu_iota_u32 n=%zu v=%u on device %d: out[%zu] = %u, expected %u",
                           cnt, (unsigned)v, devs[i], j, (unsigned)back[j], (unsigned)(v + (uint32_t)j));
                    break;
                }
            CHECK_BYTES(back + cnt, 0xEE, BGUARD * sizeof(uint32_t), "words after mgpu_iota_u32's range");
            CHECK_OK(mgpu_free(out));
        }
        CHECK_OK(mgpu_stream_destroy(s));
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(builtin_args)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        float *x = NULL, *y = NULL, host[16];
        uint32_t *u = NULL, uh[16];
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_malloc((void **)&x, 64 * sizeof(float)));
        REQUIRE_OK(mgpu_malloc((void **)&y, 64 * sizeof(float)));
        REQUIRE_OK(mgpu_malloc((void **)&u, 64 * sizeof(uint32_t)));
        CHECK_ERR(mgpu_axpy_f32(16, 1.0f, NULL, y, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_axpy_f32(16, 1.0f, x, NULL, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_iota_u32(16, 0, NULL, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_axpy_f32(65, 1.0f, x, y, NULL), MGPU_ERROR_INVALID_ARGUMENT);    /* past the end */
        CHECK_ERR(mgpu_axpy_f32(40, 1.0f, x + 30, y, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_iota_u32(65, 0, u, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_axpy_f32(SIZE_MAX, 1.0f, x, y, NULL), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_iota_u32(SIZE_MAX / 2, 0, u, NULL), MGPU_ERROR_SIZE_OVERFLOW);
        if (!mod_is_cpu(devs[i])) {                    /* a GPU cannot reach plain host memory */
            CHECK_ERR(mgpu_axpy_f32(16, 1.0f, host, y, NULL), MGPU_ERROR_INVALID_POINTER);
            CHECK_ERR(mgpu_iota_u32(16, 0, uh, NULL), MGPU_ERROR_INVALID_POINTER);
        }
        CHECK_OK(mgpu_axpy_f32(0, 1.0f, x, y, NULL));
        CHECK_OK(mgpu_iota_u32(0, 0, u, NULL));
        CHECK_OK(mgpu_free(x));
        CHECK_OK(mgpu_free(y));
        CHECK_OK(mgpu_free(u));
    }
    CHECK_OK(mgpu_shutdown());
}

/* Buffers of device b used by a built-in on device a's stream: CPU devices share host memory
   (peer matrix 1); a GPU needs peer access enabled first (MGPU_ERROR_WRONG_DEVICE before). */
TEST(builtin_other_device)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j;
    TINIT();
    n = t_all_devices(devs);
    if (n < 2) SKIP("one device: no other device");
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            mgpu_device a = devs[i], b = devs[j];
            int cpu_a = mod_is_cpu(a), cpu_b = mod_is_cpu(b), can = 0;
            uint32_t *out = NULL, back[100];
            mgpu_stream sa = NULL;
            size_t k;
            if (a == b) continue;
            REQUIRE_OK(mgpu_default_stream(a, &sa));
            REQUIRE_OK(mgpu_set_device(b));
            REQUIRE_OK(mgpu_malloc((void **)&out, sizeof back));
            REQUIRE_OK(mgpu_can_access_peer(a, b, &can));
            if (cpu_a && cpu_b) {
                CHECK_OK(mgpu_iota_u32(100, 5, out, sa));
            } else if (cpu_a) {                        /* GPU memory on a CPU device's stream */
                CHECK_ERR(mgpu_iota_u32(100, 5, out, sa), MGPU_ERROR_WRONG_DEVICE);
                CHECK_OK(mgpu_iota_u32(100, 5, out, NULL));
            } else if (cpu_b) {                        /* host memory of a CPU device on a GPU */
                CHECK_ERR(mgpu_iota_u32(100, 5, out, sa), MGPU_ERROR_INVALID_POINTER);
                CHECK_OK(mgpu_iota_u32(100, 5, out, NULL));
            } else {
                CHECK_ERR(mgpu_iota_u32(100, 5, out, sa), MGPU_ERROR_WRONG_DEVICE);
                if (can) {
                    CHECK_OK(mgpu_enable_peer_access(a, b));
                    CHECK_OK(mgpu_iota_u32(100, 5, out, sa));
                } else {
                    CHECK_OK(mgpu_iota_u32(100, 5, out, NULL));
                }
            }
            CHECK_OK(mgpu_stream_synchronize(sa));
            CHECK_OK(mgpu_stream_synchronize(NULL));
            CHECK_OK(mgpu_memcpy(back, out, sizeof back));
            for (k = 0; k < 100; k++)
                if (back[k] != 5u + (uint32_t)k) {
                    t_fail(__FILE__, __LINE__, "iota of device %d's buffer (stream of device %d): out[%zu] = %u",
                           b, a, k, (unsigned)back[k]);
                    break;
                }
            CHECK_OK(mgpu_free(out));
        }
    CHECK_OK(mgpu_shutdown());
}

/* kernels_fatbin.h records the sha256 of the mgpu_kernels.cu it was built from. */
TEST(kernels_sha256)
{
    FILE *f = fopen("mgpu_kernels.cu", "rb");
    char hex[65];
    const char *embedded = mgpu_kernels_source_sha256();   /* needs no mgpu_init */
    unsigned char *buf;
    long size;
    size_t i;
    REQUIRE(embedded != NULL);
    CHECK_EQ_INT(strlen(embedded), 64);
    for (i = 0; embedded[i]; i++) CHECK((embedded[i] >= '0' && embedded[i] <= '9') || (embedded[i] >= 'a' && embedded[i] <= 'f'));
    if (!f) {
        t_fail(__FILE__, __LINE__, "cannot open mgpu_kernels.cu: run the tests from the repository root");
        return;
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)tmalloc(size > 0 ? (size_t)size : 1);
    if (size < 0 || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        t_fail(__FILE__, __LINE__, "cannot read mgpu_kernels.cu");
        return;
    }
    fclose(f);
    mgpu_sha256_hex(buf, (size_t)size, hex);
    if (strcmp(hex, embedded))
        t_fail(__FILE__, __LINE__, "mgpu_kernels_source_sha256() is %s but mgpu_kernels.cu hashes to %s: "
               "kernels_fatbin.h is stale, run make kernels", embedded, hex);
    /* and the hash function itself, on FIPS 180-4's "abc" */
    mgpu_sha256_hex("abc", 3, hex);
    CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

/* ---------------------------------------------------------------- GPU-only ordering tests */
/* spin on one stream of each GPU; returns the kernel or NULL (failure recorded). */
static mgpu_kernel mod_spin_kernel(mgpu_module *m)
{
    mgpu_kernel k = NULL;
    if (mgpu_module_create(t_ptx, strlen(t_ptx), m) != MGPU_SUCCESS) { t_fail(__FILE__, __LINE__, "module"); return NULL; }
    if (mgpu_module_kernel(*m, "spin", &k) != MGPU_SUCCESS) { t_fail(__FILE__, __LINE__, "kernel spin"); return NULL; }
    return k;
}
static mgpu_result mod_spin(mgpu_kernel k, unsigned long long ns, mgpu_stream s)
{
    mgpu_launch_dims dims = mod_dims(1, 1);
    void *args[1];
    args[0] = &ns;
    return mgpu_launch(k, &dims, args, s);
}

/* mgpu.h: the default stream (NULL) is the legacy stream, which waits for and is waited on
   by every stream made with mgpu_stream_create; a MGPU_STREAM_NON_BLOCKING stream does
   neither. A kernel spins on one stream while the other is synchronized. */
static void mod_expect_query(int g, const char *what, mgpu_stream s, mgpu_result want)
{
    mgpu_result q = mgpu_stream_query(s);
    if (q != want)
        t_fail(__FILE__, __LINE__, "GPU %d, %s: the spinning stream's query gave %s, expected %s", g, what,
               mgpu_result_string(q), mgpu_result_string(want));
}

TEST(default_stream_semantics)
{
    int g, ngpu;
    mgpu_module m = NULL;
    mgpu_kernel spin;
    const unsigned long long ms = 1000ull * 1000;
    TINIT();
    ngpu = mgpu_device_count();
    spin = mod_spin_kernel(&m);
    REQUIRE(spin != NULL);
    for (g = 0; g < ngpu; g++) {
        mgpu_stream blk = NULL, nb = NULL;
        void *p = NULL;
        REQUIRE_OK(mgpu_set_device(g));
        REQUIRE_OK(mgpu_stream_create(&blk));
        REQUIRE_OK(mgpu_stream_create_flags(&nb, MGPU_STREAM_NON_BLOCKING));
        REQUIRE_OK(mgpu_malloc(&p, 4096));
        /* work on the default stream waits for a blocking stream ... */
        CHECK_OK(mod_spin(spin, 300 * ms, blk));
        CHECK_OK(mgpu_memset_async(p, 1, 4096, NULL));
        CHECK_OK(mgpu_stream_synchronize(NULL));
        mod_expect_query(g, "default stream synchronized after a blocking stream's kernel", blk, MGPU_SUCCESS);
        /* ... and a blocking stream waits for the default stream */
        CHECK_OK(mod_spin(spin, 300 * ms, NULL));
        CHECK_OK(mgpu_memset_async(p, 2, 4096, blk));
        CHECK_OK(mgpu_stream_synchronize(blk));
        mod_expect_query(g, "blocking stream synchronized after a default-stream kernel", NULL, MGPU_SUCCESS);
        /* a non-blocking stream does neither */
        CHECK_OK(mod_spin(spin, 1000 * ms, nb));
        CHECK_OK(mgpu_memset_async(p, 3, 4096, NULL));
        CHECK_OK(mgpu_stream_synchronize(NULL));
        mod_expect_query(g, "default stream synchronized while a non-blocking stream spins", nb, MGPU_NOT_READY);
        CHECK_OK(mgpu_stream_synchronize(nb));
        CHECK_OK(mod_spin(spin, 1000 * ms, NULL));
        CHECK_OK(mgpu_memset_async(p, 4, 4096, nb));
        CHECK_OK(mgpu_stream_synchronize(nb));
        mod_expect_query(g, "non-blocking stream synchronized while the default stream spins", NULL, MGPU_NOT_READY);
        CHECK_OK(mgpu_stream_synchronize(NULL));
        CHECK_OK(mgpu_free(p));
        CHECK_OK(mgpu_stream_destroy(blk));
        CHECK_OK(mgpu_stream_destroy(nb));
    }
    CHECK_OK(mgpu_module_destroy(m));
    CHECK_OK(mgpu_shutdown());
}

/* mgpu_builtin_module: the embedded kernels with a launch shape of one's own. */
TEST(builtin_module)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    mgpu_module b = NULL, b2 = NULL;
    mgpu_kernel noop = NULL, iota = NULL;
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    if (!IS_CUDA()) {
        CHECK_ERR(mgpu_builtin_module(&b), MGPU_ERROR_NOT_SUPPORTED);   /* no CUDA device */
        CHECK(b == NULL);
        CHECK_OK(mgpu_shutdown());
        return;
    }
    REQUIRE_OK(mgpu_builtin_module(&b));
    REQUIRE(b != NULL);
    CHECK_OK(mgpu_builtin_module(&b2));
    CHECK(b == b2);
    CHECK_ERR(mgpu_builtin_module(NULL), MGPU_ERROR_INVALID_ARGUMENT);
    REQUIRE_OK(mgpu_module_kernel(b, "mgpu_noop", &noop));
    REQUIRE_OK(mgpu_module_kernel(b, "mgpu_iota_u32", &iota));
    for (i = 0; i < n; i++) {
        mgpu_launch_dims dims = mod_dims(3, 32);
        uint32_t *out = NULL, back[200];
        unsigned long long cnt = 200;
        unsigned v = 1000;
        void *args[3];
        size_t j;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        if (mod_is_cpu(devs[i])) {                     /* no C implementation given */
            CHECK_ERR(mgpu_launch(noop, &dims, NULL, NULL), MGPU_ERROR_NOT_SUPPORTED);
            continue;
        }
        CHECK_OK(mgpu_launch(noop, &dims, NULL, NULL)); /* a kernel without parameters: args NULL */
        REQUIRE_OK(mgpu_malloc((void **)&out, sizeof back));
        args[0] = &cnt; args[1] = &v; args[2] = &out;
        CHECK_OK(mgpu_launch(iota, &dims, args, NULL)); /* 96 threads for 200 words: grid-stride */
        CHECK_OK(mgpu_stream_synchronize(NULL));
        CHECK_OK(mgpu_memcpy(back, out, sizeof back));
        for (j = 0; j < 200; j++)
            if (back[j] != 1000u + (uint32_t)j) {
                t_fail(__FILE__, __LINE__, "mgpu_iota_u32 from mgpu_builtin_module on GPU %d: out[%zu] = %u", devs[i], j, (unsigned)back[j]);
                break;
            }
        CHECK_OK(mgpu_free(out));
    }
    CHECK_ERR(mgpu_module_destroy(b), MGPU_ERROR_INVALID_ARGUMENT);   /* "do not destroy it": refused */
    {
        uint32_t *out = NULL, w = 0;
        REQUIRE_OK(mgpu_set_device(0));
        REQUIRE_OK(mgpu_malloc((void **)&out, 4));
        CHECK_OK(mgpu_iota_u32(1, 77, out, NULL));     /* the built-ins still work */
        CHECK_OK(mgpu_memcpy(&w, out, 4));
        CHECK_EQ_INT(w, 77);
        CHECK_OK(mgpu_free(out));
    }
    CHECK_OK(mgpu_shutdown());
}

/* Event recorded on GPU a after a long kernel and a fill; device b's stream waits for it and
   copies: it must see the fill, not the old contents. Every GPU a, every device b. */
TEST(wait_event_orders)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j, ngpu;
    mgpu_module m = NULL;
    mgpu_kernel spin;
    size_t bytes = (size_t)4 << 20;
    unsigned char *h;
    TINIT();
    n = t_all_devices(devs);
    ngpu = mgpu_device_count();
    spin = mod_spin_kernel(&m);
    REQUIRE(spin != NULL);
    h = (unsigned char *)tmalloc(bytes);
    for (i = 0; i < ngpu; i++)
        for (j = 0; j < n; j++) {
            mgpu_device a = devs[i], b = devs[j];
            mgpu_stream sa = NULL, sb = NULL;
            mgpu_event ev = NULL;
            unsigned char *pa = NULL, *pb = NULL;
            REQUIRE_OK(mgpu_set_device(a));
            REQUIRE_OK(mgpu_stream_create(&sa));
            REQUIRE_OK(mgpu_event_create(&ev));
            REQUIRE_OK(mgpu_malloc((void **)&pa, bytes));
            CHECK_OK(mgpu_memset(pa, 0, bytes));
            REQUIRE_OK(mgpu_set_device(b));
            REQUIRE_OK(mgpu_stream_create(&sb));
            REQUIRE_OK(mgpu_malloc((void **)&pb, bytes));
            CHECK_OK(mgpu_memset(pb, 0, bytes));
            CHECK_OK(mgpu_device_synchronize(a));
            CHECK_OK(mod_spin(spin, 200ull * 1000 * 1000, sa));     /* 200 ms */
            CHECK_OK(mgpu_memset_async(pa, 0x5A, bytes, sa));
            CHECK_OK(mgpu_event_record(ev, sa));
            CHECK_OK(mgpu_stream_wait_event(sb, ev));
            CHECK_OK(mgpu_copy_peer_async(pb, pa, bytes, 0, sb));
            CHECK_OK(mgpu_stream_synchronize(sb));
            CHECK_OK(mgpu_memcpy(h, pb, bytes));
            if (h[0] != 0x5A || h[bytes - 1] != 0x5A)
                t_fail(__FILE__, __LINE__, "device %d's stream did not wait for GPU %d's event: saw 0x%02x", b, a, h[0]);
            CHECK_OK(mgpu_stream_synchronize(sa));
            CHECK_OK(mgpu_free(pa));
            CHECK_OK(mgpu_free(pb));
            CHECK_OK(mgpu_event_destroy(ev));
            CHECK_OK(mgpu_stream_destroy(sa));
            CHECK_OK(mgpu_stream_destroy(sb));
        }
    CHECK_OK(mgpu_module_destroy(m));
    CHECK_OK(mgpu_shutdown());
}
