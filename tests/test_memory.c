/* Allocation, pointer lookup, memset, memcpy. */
#include "test.h"

#define GUARD 64                    /* bytes on each side of a copied range */

TEST(malloc_free)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, k, j;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        void *p[T_NSIZES], *q = NULL, *pinned = NULL;
        char stack[32];
        mgpu_device pd;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        for (k = 0; k < T_NSIZES; k++) {
            p[k] = NULL;
            REQUIRE_OK(mgpu_malloc(&p[k], t_sizes[k]));
            REQUIRE(p[k] != NULL);
            CHECK(((uintptr_t)p[k] & 255) == 0);     /* aligned like cuMemAlloc */
            pd = -1;
            CHECK_OK(mgpu_pointer_device(p[k], &pd));
            CHECK_EQ_INT(pd, devs[i]);
            for (j = 0; j < k; j++) CHECK(p[j] != p[k]);
            CHECK_OK(mgpu_memset(p[k], k, t_sizes[k]));
        }
        for (k = 0; k < T_NSIZES; k++) CHECK_OK(mgpu_free(p[k]));
        CHECK_OK(mgpu_free(NULL));
        /* frees that must be refused */
        REQUIRE_OK(mgpu_malloc(&q, 4096));
        CHECK_ERR(mgpu_free((char *)q + 1), MGPU_ERROR_INVALID_POINTER);      /* not the start */
        CHECK_ERR(mgpu_free(stack), MGPU_ERROR_INVALID_POINTER);
        CHECK_ERR(mgpu_free_host(q), MGPU_ERROR_INVALID_POINTER);             /* wrong free */
        REQUIRE_OK(mgpu_malloc_host(&pinned, 4096));
        CHECK_ERR(mgpu_free(pinned), MGPU_ERROR_INVALID_POINTER);
        CHECK_OK(mgpu_free_host(pinned));
        CHECK_OK(mgpu_free(q));                                               /* still live */
        CHECK_ERR(mgpu_free(q), MGPU_ERROR_INVALID_POINTER);                  /* double free */
        /* bad sizes and outputs leave the output alone */
        q = (void *)stack;
        CHECK_ERR(mgpu_malloc(&q, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(q == (void *)stack);
        CHECK_ERR(mgpu_malloc(NULL, 16), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc_managed(&q, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc_managed(NULL, 16), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc_host(&q, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc_host(NULL, 16), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc_async(&q, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc_async(NULL, 16, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(q == (void *)stack);
    }
    CHECK_OK(mgpu_shutdown());
}

/* SIZE_MAX bytes: a clean OUT_OF_MEMORY or SIZE_OVERFLOW, never a crash (MGPU_TEST_VERBOSE=1
   prints which; seen: OUT_OF_MEMORY from every call, on CPU devices and on H200s). Managed memory is asked for SIZE_MAX only on CPU
   devices: oversubscribing managed memory on a GPU can hang it. Sizes between SIZE_MAX/2
   and SIZE_MAX - 256 are not tried on CPU devices: they reach malloc, which an ASan build
   turns into a fatal allocation-size-too-big report. */
TEST(malloc_huge)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_device_info info;
        mgpu_result r;
        char stack[8];
        void *q = (void *)stack, *ok = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_device_info_get(devs[i], &info));
        r = mgpu_malloc(&q, SIZE_MAX);
        t_note("mgpu_malloc(SIZE_MAX) on device %d (%s): %s: %s", devs[i], info.name, mgpu_result_string(r), mgpu_last_error());
        if (r != MGPU_ERROR_OUT_OF_MEMORY && r != MGPU_ERROR_SIZE_OVERFLOW)
            t_fail(__FILE__, __LINE__, "mgpu_malloc(SIZE_MAX) on device %d returned %s", devs[i], mgpu_result_string(r));
        else CHECK_CONTAINS(mgpu_last_error(), "mgpu_malloc");
        r = mgpu_malloc_async(&q, SIZE_MAX, NULL);
        t_note("mgpu_malloc_async(SIZE_MAX) on device %d: %s: %s", devs[i], mgpu_result_string(r), mgpu_last_error());
        if (r != MGPU_ERROR_OUT_OF_MEMORY && r != MGPU_ERROR_SIZE_OVERFLOW)
            t_fail(__FILE__, __LINE__, "mgpu_malloc_async(SIZE_MAX) on device %d returned %s", devs[i], mgpu_result_string(r));
        r = mgpu_malloc_host(&q, SIZE_MAX);
        t_note("mgpu_malloc_host(SIZE_MAX): %s: %s", mgpu_result_string(r), mgpu_last_error());
        if (r != MGPU_ERROR_OUT_OF_MEMORY && r != MGPU_ERROR_SIZE_OVERFLOW)
            t_fail(__FILE__, __LINE__, "mgpu_malloc_host(SIZE_MAX) returned %s", mgpu_result_string(r));
        if (info.backend == MGPU_BACKEND_CPU) {
            r = mgpu_malloc_managed(&q, SIZE_MAX);
            if (r != MGPU_ERROR_OUT_OF_MEMORY && r != MGPU_ERROR_SIZE_OVERFLOW)
                t_fail(__FILE__, __LINE__, "mgpu_malloc_managed(SIZE_MAX) returned %s", mgpu_result_string(r));
        } else {
            /* more than the device has, but an address range the driver can consider */
            r = mgpu_malloc(&q, info.total_memory * 2);
            CHECK_EQ_INT(r, MGPU_ERROR_OUT_OF_MEMORY);
            CHECK_CONTAINS(mgpu_last_error(), "mgpu_malloc");
        }
        CHECK(q == (void *)stack);
        CHECK_OK(mgpu_malloc(&ok, 1000));              /* nothing broke */
        CHECK_OK(mgpu_free(ok));
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(malloc_host)
{
    size_t k;
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n;
    TINIT();
    n = t_all_devices(devs);
    for (k = 0; k < T_NSIZES; k++) {
        size_t bytes = t_sizes[k];
        unsigned char *p = NULL, *want = (unsigned char *)tmalloc(bytes), *back = (unsigned char *)tmalloc(bytes);
        void *dev = NULL;
        int i;
        REQUIRE_OK(mgpu_malloc_host((void **)&p, bytes));
        REQUIRE(p != NULL);
        t_fill(want, bytes);
        memcpy(p, want, bytes);                        /* plain host memory to the CPU */
        CHECK_MEM(p, want, bytes, "pinned memory written by the host");
        for (i = 0; i < n; i++) {                      /* and a copy source/target for every device */
            REQUIRE_OK(mgpu_set_device(devs[i]));
            REQUIRE_OK(mgpu_malloc(&dev, bytes));
            CHECK_OK(mgpu_memcpy(dev, p, bytes));
            memset(p, 0, bytes);
            CHECK_OK(mgpu_memcpy(p, dev, bytes));
            CHECK_MEM(p, want, bytes, "pinned -> device -> pinned");
            memset(back, 0, bytes);
            CHECK_OK(mgpu_memcpy_async(p, dev, bytes, NULL));
            CHECK_OK(mgpu_stream_synchronize(NULL));
            CHECK_MEM(p, want, bytes, "device -> pinned, async");
            CHECK_OK(mgpu_free(dev));
        }
        CHECK_OK(mgpu_free_host(p));
    }
    /* usable without a bound device: it belongs to none */
    {
        void *p = NULL;
        CHECK_OK(mgpu_unbind());
        CHECK_OK(mgpu_malloc_host(&p, 100));
        CHECK_OK(mgpu_free_host(p));
        CHECK_OK(mgpu_free_host(NULL));
        CHECK_ERR(mgpu_free_host(p), MGPU_ERROR_INVALID_POINTER);
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(malloc_managed)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    size_t k;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        REQUIRE_OK(mgpu_set_device(devs[i]));
        for (k = 0; k < T_NSIZES; k++) {
            size_t bytes = t_sizes[k];
            unsigned char *p = NULL, *want = (unsigned char *)tmalloc(bytes), *back = (unsigned char *)tmalloc(bytes);
            mgpu_device pd = -1;
            REQUIRE_OK(mgpu_malloc_managed((void **)&p, bytes));
            REQUIRE(p != NULL);
            CHECK_OK(mgpu_pointer_device(p, &pd));
            CHECK_EQ_INT(pd, devs[i]);
            t_fill(want, bytes);
            memcpy(p, want, bytes);                    /* the host writes it directly */
            memset(back, 0, bytes);
            CHECK_OK(mgpu_memcpy(back, p, bytes));
            CHECK_MEM(back, want, bytes, "managed memory written by the host, read by mgpu_memcpy");
            CHECK_OK(mgpu_memset(p, 0x77, bytes));     /* the device writes it, the host reads it */
            CHECK_OK(mgpu_device_synchronize(devs[i]));
            CHECK_BYTES(p, 0x77, bytes, "managed memory after mgpu_memset");
            CHECK_OK(mgpu_free(p));
        }
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(malloc_async)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    size_t k;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        for (k = 0; k < T_NSIZES; k++) {
            size_t bytes = t_sizes[k];
            unsigned char *p = NULL, *q = NULL, *want = (unsigned char *)tmalloc(bytes), *back = (unsigned char *)tmalloc(bytes);
            mgpu_device pd = -1;
            REQUIRE_OK(mgpu_malloc_async((void **)&p, bytes, s));
            REQUIRE(p != NULL);
            CHECK_OK(mgpu_pointer_device(p, &pd));
            CHECK_EQ_INT(pd, devs[i]);
            t_fill(want, bytes);
            memset(back, 0, bytes);
            CHECK_OK(mgpu_memcpy_async(p, want, bytes, s));
            CHECK_OK(mgpu_memcpy_async(back, p, bytes, s));
            CHECK_OK(mgpu_stream_synchronize(s));
            CHECK_MEM(back, want, bytes, "pool memory round trip on one stream");
            CHECK_OK(mgpu_free_async(p, s));
            /* NULL stream: the current device's default stream */
            REQUIRE_OK(mgpu_malloc_async((void **)&q, bytes, NULL));
            pd = -1;
            CHECK_OK(mgpu_pointer_device(q, &pd));
            CHECK_EQ_INT(pd, devs[i]);
            CHECK_OK(mgpu_memset_async(q, 0x42, bytes, NULL));
            CHECK_OK(mgpu_memcpy_async(back, q, bytes, NULL));
            CHECK_OK(mgpu_stream_synchronize(NULL));
            CHECK_BYTES(back, 0x42, bytes, "pool memory on the default stream");
            CHECK_OK(mgpu_free_async(q, NULL));
        }
        CHECK_OK(mgpu_free_async(NULL, s));
        CHECK_OK(mgpu_stream_synchronize(s));
        CHECK_OK(mgpu_stream_destroy(s));
    }
    /* GPU pool memory cannot be freed on a CPU device's stream */
    if (IS_CUDA()) {
        void *p = NULL;
        mgpu_stream cpu = NULL, gpu = NULL;
        REQUIRE_OK(mgpu_set_device(0));
        REQUIRE_OK(mgpu_default_stream(0, &gpu));
        REQUIRE_OK(mgpu_default_stream(mgpu_cpu_device(0), &cpu));
        REQUIRE_OK(mgpu_malloc_async(&p, 1000, gpu));
        CHECK_ERR(mgpu_free_async(p, cpu), MGPU_ERROR_WRONG_DEVICE);
        CHECK_OK(mgpu_free_async(p, gpu));
        CHECK_OK(mgpu_stream_synchronize(gpu));
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(pointer_device)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, local = 5;
    void *heap;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        void *p = NULL, *m = NULL, *a = NULL;
        mgpu_device pd;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_malloc(&p, 5000));
        REQUIRE_OK(mgpu_malloc_managed(&m, 5000));
        REQUIRE_OK(mgpu_malloc_async(&a, 5000, NULL));
        pd = -1; CHECK_OK(mgpu_pointer_device(p, &pd)); CHECK_EQ_INT(pd, devs[i]);
        pd = -1; CHECK_OK(mgpu_pointer_device((char *)p + 4999, &pd)); CHECK_EQ_INT(pd, devs[i]);
        pd = -1; CHECK_OK(mgpu_pointer_device((char *)p + 1234, &pd)); CHECK_EQ_INT(pd, devs[i]);
        pd = -1; CHECK_OK(mgpu_pointer_device(m, &pd)); CHECK_EQ_INT(pd, devs[i]);
        pd = -1; CHECK_OK(mgpu_pointer_device((char *)m + 4999, &pd)); CHECK_EQ_INT(pd, devs[i]);
        pd = -1; CHECK_OK(mgpu_pointer_device(a, &pd)); CHECK_EQ_INT(pd, devs[i]);
        /* works from any device binding: the device comes from the pointer */
        if (n > 1) {
            REQUIRE_OK(mgpu_set_device(devs[(i + 1) % n]));
            pd = -1; CHECK_OK(mgpu_pointer_device(p, &pd)); CHECK_EQ_INT(pd, devs[i]);
        }
        CHECK_OK(mgpu_unbind());
        pd = -1; CHECK_OK(mgpu_pointer_device(p, &pd)); CHECK_EQ_INT(pd, devs[i]);
        CHECK_OK(mgpu_set_device(devs[i]));
        CHECK_OK(mgpu_free(p));
        CHECK_OK(mgpu_free(m));
        CHECK_OK(mgpu_free_async(a, NULL));
        CHECK_OK(mgpu_stream_synchronize(NULL));
        pd = 4321;
        CHECK_ERR(mgpu_pointer_device(p, &pd), MGPU_ERROR_INVALID_POINTER);   /* freed */
        CHECK_EQ_INT(pd, 4321);
    }
    heap = tmalloc(100);
    {
        mgpu_device pd = 4321;
        CHECK_ERR(mgpu_pointer_device(&local, &pd), MGPU_ERROR_INVALID_POINTER);
        CHECK_ERR(mgpu_pointer_device(heap, &pd), MGPU_ERROR_INVALID_POINTER);
        CHECK_EQ_INT(pd, 4321);
        CHECK_ERR(mgpu_pointer_device(NULL, &pd), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_pointer_device(heap, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    }
    CHECK_OK(mgpu_shutdown());
}

/* ---------------------------------------------------------------- memset */
TEST(memset)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    size_t k;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        for (k = 0; k < T_NSIZES; k++) {
            size_t bytes = t_sizes[k], total = bytes + 2 * GUARD;
            unsigned char *p = NULL, *back = (unsigned char *)tmalloc(total);
            int v = (int)(t_rand() & 0xFF), w = (int)(t_rand() & 0xFF);
            REQUIRE_OK(mgpu_malloc((void **)&p, total));
            CHECK_OK(mgpu_memset(p, 0xEE, total));
            CHECK_OK(mgpu_memset(p + GUARD, v, bytes));
            CHECK_OK(mgpu_memcpy(back, p, total));
            CHECK_BYTES(back, 0xEE, GUARD, "bytes before a memset range");
            CHECK_BYTES(back + GUARD, v, bytes, "mgpu_memset");
            CHECK_BYTES(back + GUARD + bytes, 0xEE, GUARD, "bytes after a memset range");
            /* asynchronous, at an odd offset */
            CHECK_OK(mgpu_memset_async(p + GUARD + 1, w, bytes - 1, s));
            CHECK_OK(mgpu_memcpy_async(back, p, total, s));
            CHECK_OK(mgpu_stream_synchronize(s));
            CHECK_BYTES(back + GUARD, v, 1, "byte before an async memset range");
            CHECK_BYTES(back + GUARD + 1, w, bytes - 1, "mgpu_memset_async");
            CHECK_BYTES(back + GUARD + bytes, 0xEE, GUARD, "bytes after an async memset range");
            /* only the low byte of value counts, as for memset */
            CHECK_OK(mgpu_memset(p + GUARD, 0x1AB, bytes));
            CHECK_OK(mgpu_memcpy(back, p, total));
            CHECK_BYTES(back + GUARD, 0xAB, bytes, "mgpu_memset(0x1AB)");
            /* zero bytes: nothing */
            CHECK_OK(mgpu_memset(p, 0, 0));
            CHECK_OK(mgpu_memset_async(p, 0, 0, s));
            CHECK_OK(mgpu_memcpy(back, p, total));
            CHECK_BYTES(back, 0xEE, GUARD, "bytes after a zero-byte memset");
            /* past the end of the allocation: refused, nothing written */
            CHECK_ERR(mgpu_memset(p + GUARD, 0, bytes + GUARD + 1), MGPU_ERROR_INVALID_ARGUMENT);
            CHECK_ERR(mgpu_memset_async(p + GUARD, 0, bytes + GUARD + 1, s), MGPU_ERROR_INVALID_ARGUMENT);
            CHECK_OK(mgpu_stream_synchronize(s));
            CHECK_OK(mgpu_memcpy(back, p, total));
            CHECK_BYTES(back + GUARD, 0xAB, bytes, "a refused memset");
            CHECK_OK(mgpu_free(p));
        }
        CHECK_ERR(mgpu_memset(NULL, 0, 16), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memset_async(NULL, 0, 16, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_OK(mgpu_stream_destroy(s));
    }
    CHECK_OK(mgpu_shutdown());
}

/* ---------------------------------------------------------------- memcpy */
/* host -> device -> host on one device, with guards around the device range. */
static void memcpy_one_device(mgpu_device d, size_t bytes, mgpu_stream s)
{
    size_t total = bytes + 2 * GUARD;
    unsigned char *want = (unsigned char *)tmalloc(bytes), *back = (unsigned char *)tmalloc(total);
    unsigned char *p = NULL, *q = NULL;
    mgpu_device_info info;
    const char *how = s ? "async" : "sync";
    char what[128];
    REQUIRE_OK(mgpu_device_info_get(d, &info));
    t_fill(want, bytes);
    REQUIRE_OK(mgpu_malloc((void **)&p, total));
    REQUIRE_OK(mgpu_malloc((void **)&q, total));
    CHECK_OK(mgpu_memset(p, 0xEE, total));
    CHECK_OK(mgpu_memset(q, 0xEE, total));
    /* host -> device */
    if (s) CHECK_OK(mgpu_memcpy_async(p + GUARD, want, bytes, s));
    else CHECK_OK(mgpu_memcpy(p + GUARD, want, bytes));
    if (s) CHECK_OK(mgpu_stream_synchronize(s));
    if (info.backend == MGPU_BACKEND_CPU) {            /* a CPU device's memory can be read directly */
        snprintf(what, sizeof what, "host -> CPU device %d (%s), read directly", d, how);
        CHECK_MEM(p + GUARD, want, bytes, what);
    }
    /* device -> device, same device */
    if (s) CHECK_OK(mgpu_memcpy_async(q + GUARD, p + GUARD, bytes, s));
    else CHECK_OK(mgpu_memcpy(q + GUARD, p + GUARD, bytes));
    /* device -> host */
    memset(back, 0, total);
    if (s) CHECK_OK(mgpu_memcpy_async(back, q, total, s));
    else CHECK_OK(mgpu_memcpy(back, q, total));
    if (s) CHECK_OK(mgpu_stream_synchronize(s));
    snprintf(what, sizeof what, "host -> device %d -> device %d -> host, %zu bytes (%s)", d, d, bytes, how);
    CHECK_MEM(back + GUARD, want, bytes, what);
    CHECK_BYTES(back, 0xEE, GUARD, "bytes before a copied range");
    CHECK_BYTES(back + GUARD + bytes, 0xEE, GUARD, "bytes after a copied range");
    CHECK_OK(mgpu_free(p));
    CHECK_OK(mgpu_free(q));
}

TEST(memcpy)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    size_t k;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        for (k = 0; k < T_NSIZES; k++) {
            memcpy_one_device(devs[i], t_sizes[k], NULL);
            memcpy_one_device(devs[i], t_sizes[k], s);
            if (t_failed()) break;
        }
        CHECK_OK(mgpu_stream_destroy(s));
    }
    /* host -> host through mgpu_memcpy, and zero bytes */
    {
        unsigned char a[100], b[100];
        t_fill(a, sizeof a);
        memset(b, 0, sizeof b);
        CHECK_OK(mgpu_memcpy(b, a, sizeof a));
        CHECK_MEM(b, a, sizeof a, "host -> host");
        CHECK_OK(mgpu_memcpy(b, a, 0));
        CHECK_OK(mgpu_memcpy_async(b, a, 0, NULL));
        CHECK_ERR(mgpu_memcpy(NULL, a, 4), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy(b, NULL, 4), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy_async(NULL, a, 4, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    }
    CHECK_OK(mgpu_shutdown());
}

/* device a -> device b for every ordered pair a != b, through mgpu_memcpy(_async). */
TEST(memcpy_between_devices)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j;
    size_t k;
    TINIT();
    n = t_all_devices(devs);
    if (n < 2) SKIP("one device: no pair to copy between");
    for (k = 0; k < T_NSIZES; k++) {
        size_t bytes = t_sizes[k], total = bytes + 2 * GUARD;
        unsigned char *want = (unsigned char *)tmalloc(bytes), *back = (unsigned char *)tmalloc(total);
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) {
                unsigned char *src = NULL, *dst = NULL;
                mgpu_stream ss = NULL;
                char what[160];
                int async;
                if (i == j) continue;
                for (async = 0; async < 2; async++) {
                    t_fill(want, bytes);
                    REQUIRE_OK(mgpu_set_device(devs[i]));
                    REQUIRE_OK(mgpu_malloc((void **)&src, bytes));
                    REQUIRE_OK(mgpu_default_stream(devs[i], &ss));
                    CHECK_OK(mgpu_memcpy(src, want, bytes));
                    REQUIRE_OK(mgpu_set_device(devs[j]));
                    REQUIRE_OK(mgpu_malloc((void **)&dst, total));
                    CHECK_OK(mgpu_memset(dst, 0xEE, total));
                    if (async) {                       /* on the source device's stream */
                        CHECK_OK(mgpu_memcpy_async(dst + GUARD, src, bytes, ss));
                        CHECK_OK(mgpu_stream_synchronize(ss));
                    } else {
                        CHECK_OK(mgpu_memcpy(dst + GUARD, src, bytes));
                    }
                    memset(back, 0, total);
                    CHECK_OK(mgpu_memcpy(back, dst, total));
                    snprintf(what, sizeof what, "device %d -> device %d, %zu bytes (%s)", devs[i], devs[j], bytes,
                             async ? "async" : "sync");
                    CHECK_MEM(back + GUARD, want, bytes, what);
                    CHECK_BYTES(back, 0xEE, GUARD, what);
                    CHECK_BYTES(back + GUARD + bytes, 0xEE, GUARD, what);
                    CHECK_OK(mgpu_free(src));
                    CHECK_OK(mgpu_free(dst));
                }
            }
    }
    CHECK_OK(mgpu_shutdown());
}

/* Copies that run past the end of an mgpu allocation are refused and write nothing. */
TEST(memcpy_bounds)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        unsigned char *p = NULL, *q = NULL, host[200], back[64];
        memset(host, 0x11, sizeof host);
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_malloc((void **)&p, 64));
        REQUIRE_OK(mgpu_malloc((void **)&q, 64));
        CHECK_OK(mgpu_memset(p, 0xEE, 64));
        CHECK_OK(mgpu_memset(q, 0xEE, 64));
        CHECK_ERR(mgpu_memcpy(p, host, 65), MGPU_ERROR_INVALID_ARGUMENT);          /* dst too small */
        CHECK_ERR(mgpu_memcpy(p + 60, host, 5), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy(host, p, 65), MGPU_ERROR_INVALID_ARGUMENT);          /* src too small */
        CHECK_ERR(mgpu_memcpy(q, p + 1, 64), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy_async(p, host, 65, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy_async(host, p + 32, 33, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_copy_peer(p, host, 65, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_copy_peer_async(q, p, 65, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_OK(mgpu_stream_synchronize(NULL));
        CHECK_OK(mgpu_memcpy(back, p, 64));
        CHECK_BYTES(back, 0xEE, 64, "destination of refused copies");
        CHECK_OK(mgpu_memcpy(back, q, 64));
        CHECK_BYTES(back, 0xEE, 64, "destination of refused copies");
        CHECK_OK(mgpu_memcpy(p, host, 64));            /* exactly to the end is fine */
        CHECK_OK(mgpu_memcpy(p + 63, host, 1));
        CHECK_OK(mgpu_free(p));
        CHECK_OK(mgpu_free(q));
    }
    CHECK_OK(mgpu_shutdown());
}
