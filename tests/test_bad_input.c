/* test_bad_input.c - bad input across the API: each call below must fail with exactly the
   status given (CHECK_ERR also wants mgpu_last_error() to name the function), write none of
   its outputs, and leave mgpu usable. Handles have their own table in test_handles.c. */
#include <float.h>
#include "test.h"

static mgpu_result bad_fn(mgpu_device dev, int index, void *arg)
{
    (void)dev; (void)index; (void)arg;
    return MGPU_SUCCESS;
}

/* Every call before mgpu_init (and after mgpu_shutdown) is NOT_INITIALIZED, with valid
   arguments otherwise. */
static void check_not_initialized(void)
{
    void *p = (void *)&p, *bufs[1];
    unsigned char host[64];
    mgpu_stream s = NULL;
    mgpu_event e = NULL;
    mgpu_module m = NULL;
    mgpu_device d = 0;
    mgpu_range range[1];
    uint64_t out = 0;
    mgpu_image img;
    mgpu_bn254_jacobian jac;
    mgpu_thread t = NULL;
    const char *msg = NULL;
    bufs[0] = host;
    memset(&img, 0, sizeof img);
    img.data = host; img.width = 4; img.height = 2; img.channels = 1; img.format = MGPU_PIXEL_U8;
    CHECK_ERR(mgpu_malloc(&p, 64), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(p == (void *)&p);
    CHECK_ERR(mgpu_malloc_host(&p, 64), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_free(host), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_memset(host, 0, 64), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_memcpy(host, host + 32, 32), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_stream_create(&s), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_event_create(&e), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_module_create(t_ptx, strlen(t_ptx), &m), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(s == NULL && e == NULL && m == NULL);
    CHECK_ERR(mgpu_set_device(0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_get_device(&d), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_synchronize_all(), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_device_synchronize(0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_reduce(host, 8, MGPU_U64, MGPU_OP_SUM, &out, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_split(8, NULL, 1, MGPU_SPLIT_EVEN, NULL, 0, 0, range), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_allreduce(bufs, 8, MGPU_U64, MGPU_OP_SUM, NULL, 1), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_blur(&img, &img, NULL, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_msm(NULL, NULL, 0, NULL, &jac, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_run_on_device(0, bad_fn, NULL, &t), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_shutdown(), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_cuda_status(&msg), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(out == 0 && t == NULL);
}

TEST(bad_input_lifetime)
{
    check_not_initialized();
    TINIT();
    CHECK_OK(mgpu_shutdown());
    check_not_initialized();
}

TEST(bad_input_table)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        const mgpu_device d = devs[i];
        unsigned char *buf = NULL, host[256], sentinel[256];
        void *p = (void *)&p, *bufs[2];
        mgpu_stream s = NULL;
        mgpu_range range[2];
        uint64_t out = 77;
        float ms = -1.0f;
        mgpu_peer_path path = MGPU_PEER_HOST;
        mgpu_image src, dst, srcs[2], dsts[2];
        mgpu_blur_params bp;
        mgpu_bn254_scalar sc[2];
        mgpu_bn254_jacobian jac;
        double inf_weights[2] = { DBL_MAX, DBL_MAX }, bad_weights[2] = { 1.0, -1.0 };
        mgpu_device two[2];
        REQUIRE_OK(mgpu_set_device(d));
        REQUIRE_OK(mgpu_malloc((void **)&buf, 1024));
        REQUIRE_OK(mgpu_memset(buf, 0x11, 1024));
        REQUIRE_OK(mgpu_stream_create(&s));
        memset(host, 0x22, sizeof host);
        memcpy(sentinel, host, sizeof host);
        memset(range, 0, sizeof range);
        memset(&bp, 0, sizeof bp);
        memset(&jac, 0x5C, sizeof jac);
        bufs[0] = buf; bufs[1] = buf + 512;

        /* memory: null, zero, overflowing sizes */
        CHECK_ERR(mgpu_malloc(NULL, 64), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_malloc(&p, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(p == (void *)&p);
        CHECK_ERR(mgpu_malloc_host(&p, SIZE_MAX), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK(p == (void *)&p);
        CHECK_ERR(mgpu_free(buf + 1), MGPU_ERROR_INVALID_POINTER);        /* inside, not the start */
        CHECK_ERR(mgpu_free(host), MGPU_ERROR_INVALID_POINTER);           /* not mgpu's */
        CHECK_ERR(mgpu_memset(NULL, 0, 1), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memset(buf, 0, 1025), MGPU_ERROR_INVALID_ARGUMENT); /* past the end */
        CHECK_ERR(mgpu_memset(host, 0, SIZE_MAX), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_memcpy(host, host + 128, SIZE_MAX), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_memcpy(host, host + 128, (size_t)PTRDIFF_MAX + 1), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_memcpy_async(host, host + 128, SIZE_MAX - 8, s), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_copy_peer(host, host + 128, SIZE_MAX, 0), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_memcpy(host, buf, 2048), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy(NULL, buf, 8), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_copy_peer(host, buf, 8, 0x80), MGPU_ERROR_INVALID_ARGUMENT);   /* unknown flag */
        CHECK_MEM(host, sentinel, sizeof host, "host after the failed copies");

        /* devices and enums */
        CHECK_ERR(mgpu_set_device(-1), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_set_device(MGPU_MAX_DEVICES), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_device_synchronize(9999), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_peer_path_get(d, -5, &path), MGPU_ERROR_INVALID_DEVICE);
        CHECK_EQ_INT(path, MGPU_PEER_HOST);
        CHECK_ERR(mgpu_stream_create_flags(&s, 0x100), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_reduce(buf, 8, (mgpu_dtype)99, MGPU_OP_SUM, &out, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_reduce(buf, 8, MGPU_U64, (mgpu_op)0, &out, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_reduce(buf + 4, 8, MGPU_U64, MGPU_OP_SUM, &out, NULL), MGPU_ERROR_INVALID_ARGUMENT);  /* misaligned */
        CHECK_ERR(mgpu_reduce(buf, SIZE_MAX / 4, MGPU_U64, MGPU_OP_SUM, &out, NULL), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_EQ_INT(out, 77);
        CHECK_ERR(mgpu_split(10, NULL, 1, (mgpu_split_strategy)42, NULL, 0, 0, range), MGPU_ERROR_INVALID_ARGUMENT);

        /* built-in kernels: misaligned and overflowing */
        CHECK_ERR(mgpu_axpy_f32(4, 1.0f, (const float *)(const void *)(buf + 1), (float *)(void *)buf, s),
                  MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_axpy_f32(4, 1.0f, (const float *)(const void *)buf, (float *)(void *)(buf + 2), s),
                  MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_iota_u32(4, 0, (uint32_t *)(void *)(buf + 3), s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_iota_u32(SIZE_MAX / 2, 0, (uint32_t *)(void *)buf, s), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_OK(mgpu_memcpy(host, buf, 64));
        CHECK_BYTES(host, 0x11, 64, "device buffer after the failed kernels");
        memcpy(host, sentinel, sizeof host);

        /* mgpu_split: weights whose sum overflows to infinity are fine (no hang) */
        two[0] = d; two[1] = d;
        CHECK_ERR(mgpu_split(10, two, 2, MGPU_SPLIT_WEIGHTED, bad_weights, 0, 0, range), MGPU_ERROR_INVALID_ARGUMENT);
        two[1] = devs[(i + 1) % n];
        if (two[1] != d) {
            CHECK_OK(mgpu_split((size_t)1 << 40, two, 2, MGPU_SPLIT_WEIGHTED, inf_weights, 0, 0, range));
            CHECK(range[0].count + range[1].count == (size_t)1 << 40);
            CHECK(range[0].count == (size_t)1 << 39);
        }

        /* events: never recorded on a CPU device has no time */
        {
            mgpu_event a = NULL, b = NULL;
            mgpu_device_info info;
            REQUIRE_OK(mgpu_device_info_get(d, &info));
            REQUIRE_OK(mgpu_event_create(&a));
            REQUIRE_OK(mgpu_event_create(&b));
            if (info.backend == MGPU_BACKEND_CPU) CHECK_ERR(mgpu_event_elapsed_ms(a, b, &ms), MGPU_ERROR_INVALID_ARGUMENT);
            CHECK(ms == -1.0f);
            CHECK_OK(mgpu_event_destroy(a));
            CHECK_OK(mgpu_event_destroy(b));
        }

        /* blur: in place, and one image's dst overlapping another's src or dst in a batch */
        memset(&src, 0, sizeof src);
        src.width = 16; src.height = 4; src.channels = 1; src.format = MGPU_PIXEL_U8;
        dst = src;
        src.data = buf; dst.data = buf;
        CHECK_ERR(mgpu_blur(&src, &dst, &bp, s), MGPU_ERROR_INVALID_ARGUMENT);
        srcs[0] = src; srcs[1] = src; dsts[0] = dst; dsts[1] = dst;
        srcs[0].data = buf;        dsts[0].data = buf + 256;
        srcs[1].data = buf + 512;  dsts[1].data = buf + 256 + 32;     /* dst[1] inside dst[0] */
        CHECK_ERR(mgpu_blur_batch(srcs, dsts, 2, &bp, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);
        dsts[1].data = buf + 16;                                       /* dst[1] inside src[0] */
        CHECK_ERR(mgpu_blur_batch(srcs, dsts, 2, &bp, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);
        dsts[1].data = buf + 768;                                      /* disjoint; sources shared */
        srcs[1].data = buf;
        CHECK_OK(mgpu_blur_batch(srcs, dsts, 2, &bp, &d, 1));
        CHECK_ERR(mgpu_blur_batch(srcs, dsts, -1, &bp, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);

        /* BN254: counts whose bytes overflow */
        CHECK_ERR(mgpu_bn254_random_scalars(sc, SIZE_MAX / 16, 1), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_bn254_random_points((mgpu_bn254_affine *)(void *)host, SIZE_MAX / 32, 1), MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_msm(sc, (const mgpu_bn254_affine *)(const void *)host, SIZE_MAX / 8, NULL, &jac, s),
                  MGPU_ERROR_SIZE_OVERFLOW);
        CHECK_ERR(mgpu_msm(NULL, NULL, 1, NULL, &jac, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_BYTES(&jac, 0x5C, sizeof jac, "MSM result after the failed calls");
        CHECK_MEM(host, sentinel, sizeof host, "host after the BN254 calls");

        /* modules */
        CHECK_ERR(mgpu_module_create(t_ptx, SIZE_MAX, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_module_create("junk", 4, (mgpu_module *)&p), MGPU_ERROR_INVALID_IMAGE);
        CHECK(p == (void *)&p);

        /* collectives: null arrays, bad roots */
        CHECK_ERR(mgpu_allreduce(NULL, 8, MGPU_U64, MGPU_OP_SUM, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_broadcast(bufs, 8, 5, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_reduce_multi(NULL, 8, MGPU_U64, MGPU_OP_SUM, &out, &d, 1, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_EQ_INT(out, 77);

        /* still usable */
        CHECK_OK(mgpu_memset(buf, 1, 8));
        CHECK_OK(mgpu_reduce(buf, 1, MGPU_U64, MGPU_OP_SUM, &out, NULL));
        CHECK(out == 0x0101010101010101ull);
        CHECK_OK(mgpu_stream_destroy(s));
        CHECK_OK(mgpu_free(buf));
    }
    CHECK_OK(mgpu_shutdown());
}

/* Device pointers checked against mgpu's allocation table: in every operation that takes
   (pointer, size) pairs, a range that starts inside an mgpu allocation and runs past its
   end is MGPU_ERROR_INVALID_ARGUMENT (with a message naming the argument), never a copy or
   a kernel past the end; the buffer is untouched. */
TEST(bad_input_ranges)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        const mgpu_device d = devs[i];
        enum { BYTES = 1024 };
        unsigned char *buf = NULL, host[2 * BYTES], *tail;
        void *bufs[1];
        mgpu_stream s = NULL;
        mgpu_range range;
        mgpu_image img, ok_img;
        mgpu_bn254_jacobian jac;
        mgpu_msm_config cfg;
        uint64_t out = 77;
        REQUIRE_OK(mgpu_set_device(d));
        REQUIRE_OK(mgpu_malloc((void **)&buf, BYTES));
        REQUIRE_OK(mgpu_memset(buf, 0x11, BYTES));
        REQUIRE_OK(mgpu_stream_create(&s));
        memset(host, 0x22, sizeof host);
        tail = buf + BYTES - 64;                         /* the last 64 bytes */
        bufs[0] = tail;

        /* copies and fills */
        CHECK_ERR(mgpu_memcpy(tail, host, 65), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy(host, tail, 65), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy_async(tail, host, 65, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy_async(host, tail, 65, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memset_async(tail, 0, 65, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_copy_peer(tail, host, 65, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_copy_peer_async(host, tail, 65, 0, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_memcpy(buf, tail, BYTES), MGPU_ERROR_INVALID_ARGUMENT);      /* device to device */

        /* reductions and built-in kernels: n elements from the last 64 bytes */
        CHECK_ERR(mgpu_reduce(tail, 9, MGPU_U64, MGPU_OP_SUM, &out, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_reduce_async(tail, 9, MGPU_U64, MGPU_OP_SUM, &out, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_combine_async(tail, buf, 9, MGPU_U64, MGPU_OP_SUM, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_combine_async(buf, tail, 9, MGPU_U64, MGPU_OP_SUM, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_axpy_f32(17, 1.0f, (const float *)(const void *)buf, (float *)(void *)tail, s),
                  MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_iota_u32(17, 0, (uint32_t *)(void *)tail, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_EQ_INT(out, 77);

        /* collectives on one device */
        CHECK_ERR(mgpu_allreduce(bufs, 9, MGPU_U64, MGPU_OP_SUM, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_broadcast(bufs, 65, 0, &d, 1), MGPU_ERROR_INVALID_ARGUMENT);
        range.device = d; range.offset = 0; range.count = 65;
        CHECK_ERR(mgpu_scatter(host, 1, &range, 1, bufs), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_gather(host, 1, &range, 1, (const void *const *)bufs), MGPU_ERROR_INVALID_ARGUMENT);

        /* blur: an image larger than the allocation it starts in, as source or destination */
        memset(&img, 0, sizeof img);
        img.width = 16; img.height = 5; img.channels = 1; img.format = MGPU_PIXEL_U8;   /* 80 bytes */
        img.data = tail;
        ok_img = img;
        ok_img.data = buf;
        CHECK_ERR(mgpu_blur(&img, &ok_img, NULL, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_blur(&ok_img, &img, NULL, s), MGPU_ERROR_INVALID_ARGUMENT);
        img.height = 4; img.pitch = 32;                                                  /* 3 * 32 + 16 = 112 */
        CHECK_ERR(mgpu_blur(&ok_img, &img, NULL, s), MGPU_ERROR_INVALID_ARGUMENT);

        /* MSM inputs on the device: two scalars (64 bytes) fit, three do not; one point
           (64 bytes) fits, two do not */
        memset(&jac, 0x5C, sizeof jac);
        memset(&cfg, 0, sizeof cfg);
        CHECK_ERR(mgpu_msm((const mgpu_bn254_scalar *)(const void *)tail, (const mgpu_bn254_affine *)(const void *)host,
                           3, &cfg, &jac, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_msm((const mgpu_bn254_scalar *)(const void *)host, (const mgpu_bn254_affine *)(const void *)tail,
                           2, &cfg, &jac, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_BYTES(&jac, 0x5C, sizeof jac, "MSM result after the failed calls");
        CHECK_ERR(mgpu_bn254_convert_points((mgpu_bn254_affine *)(void *)tail, 2, 1, s), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_bn254_convert_scalars((mgpu_bn254_scalar *)(void *)tail, 3, 1, s), MGPU_ERROR_INVALID_ARGUMENT);

        /* nothing was written */
        CHECK_OK(mgpu_stream_synchronize(s));
        memset(host, 0, sizeof host);
        CHECK_OK(mgpu_memcpy(host, buf, BYTES));
        CHECK_BYTES(host, 0x11, BYTES, "the buffer after the failed calls");
        CHECK_OK(mgpu_stream_destroy(s));
        CHECK_OK(mgpu_free(buf));
    }
    CHECK_OK(mgpu_shutdown());
}
