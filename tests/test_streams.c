/* Streams, events, cross-device waits, synchronization. */
#include "test.h"

/* Waits for a stream or event query to report SUCCESS; MGPU_NOT_READY in between is fine. */
static int streams_poll_stream(mgpu_stream s)
{
    int i;
    for (i = 0; i < 20000; i++) {
        mgpu_result r = mgpu_stream_query(s);
        if (r == MGPU_SUCCESS) return 1;
        if (r != MGPU_NOT_READY) return 0;
        t_sleep_ms(1);
    }
    return 0;
}

TEST(streams)
{
    mgpu_device devs[MGPU_MAX_DEVICES], sd = -1;
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_device d = devs[i];
        mgpu_stream s = NULL, s2 = NULL, ds = NULL, ds2 = NULL;
        size_t bytes = (size_t)16 << 20;
        unsigned char *p = NULL, *h = (unsigned char *)tmalloc(bytes);
        mgpu_result q;
        REQUIRE_OK(mgpu_set_device(d));
        REQUIRE_OK(mgpu_stream_create(&s));
        REQUIRE(s != NULL);
        REQUIRE_OK(mgpu_stream_create(&s2));
        CHECK(s != s2);
        CHECK_OK(mgpu_stream_device(s, &sd));
        CHECK_EQ_INT(sd, d);
        q = mgpu_stream_query(s);                      /* nothing queued yet */
        CHECK(q == MGPU_SUCCESS);
        CHECK_OK(mgpu_stream_synchronize(s));
        /* the default stream: by device, and NULL = the current device's */
        REQUIRE_OK(mgpu_default_stream(d, &ds));
        REQUIRE(ds != NULL);
        CHECK(ds != s);
        CHECK_OK(mgpu_default_stream(d, &ds2));
        CHECK(ds == ds2);
        CHECK_OK(mgpu_stream_device(ds, &sd));
        CHECK_EQ_INT(sd, d);
        sd = -1;
        CHECK_OK(mgpu_stream_device(NULL, &sd));
        CHECK_EQ_INT(sd, d);
        CHECK_OK(mgpu_stream_synchronize(NULL));
        q = mgpu_stream_query(NULL);
        CHECK(q == MGPU_SUCCESS || q == MGPU_NOT_READY);
        /* work on a stream: query settles to SUCCESS, and destroy waits for the work */
        REQUIRE_OK(mgpu_malloc((void **)&p, bytes));
        CHECK_OK(mgpu_memset_async(p, 0x3C, bytes, s));
        q = mgpu_stream_query(s);
        CHECK(q == MGPU_SUCCESS || q == MGPU_NOT_READY);
        CHECK(streams_poll_stream(s));
        CHECK_OK(mgpu_memset_async(p, 0x5D, bytes, s2));
        CHECK_OK(mgpu_stream_destroy(s2));
        CHECK_OK(mgpu_memcpy(h, p, bytes));
        CHECK(h[0] == 0x5D && h[bytes / 2] == 0x5D && h[bytes - 1] == 0x5D);
        CHECK_OK(mgpu_free(p));
        /* the default stream cannot be destroyed */
        CHECK_ERR(mgpu_stream_destroy(ds), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_OK(mgpu_stream_synchronize(ds));         /* still usable */
        CHECK_OK(mgpu_stream_destroy(s));
        /* streams of other devices work from this thread: the device comes from the stream */
        if (n > 1) {
            mgpu_stream other = NULL;
            REQUIRE_OK(mgpu_default_stream(devs[(i + 1) % n], &other));
            CHECK_OK(mgpu_stream_synchronize(other));
            CHECK_OK(mgpu_stream_device(other, &sd));
            CHECK_EQ_INT(sd, devs[(i + 1) % n]);
        }
    }
    CHECK_ERR(mgpu_stream_create(NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_stream_destroy(NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_device(NULL, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    {
        mgpu_stream s = (mgpu_stream)&sd;              /* sentinel */
        CHECK_ERR(mgpu_default_stream(-1, &s), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_default_stream(9999, &s), MGPU_ERROR_INVALID_DEVICE);
        CHECK(s == (mgpu_stream)&sd);
        CHECK_ERR(mgpu_default_stream(0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(events)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_device d = devs[i];
        mgpu_stream s = NULL;
        mgpu_event a = NULL, b = NULL;
        size_t bytes = (size_t)32 << 20;
        void *p = NULL;
        float ms = -1.0f;
        mgpu_result q;
        REQUIRE_OK(mgpu_set_device(d));
        REQUIRE_OK(mgpu_stream_create(&s));
        REQUIRE_OK(mgpu_event_create(&a));
        REQUIRE_OK(mgpu_event_create(&b));
        CHECK(a != NULL && b != NULL && a != b);
        CHECK_OK(mgpu_event_query(a));                 /* never recorded: complete */
        REQUIRE_OK(mgpu_malloc(&p, bytes));
        CHECK_OK(mgpu_event_record(a, s));
        CHECK_OK(mgpu_memset_async(p, 1, bytes, s));
        CHECK_OK(mgpu_memset_async(p, 2, bytes, s));
        CHECK_OK(mgpu_event_record(b, s));
        q = mgpu_event_query(b);
        CHECK(q == MGPU_SUCCESS || q == MGPU_NOT_READY);
        CHECK_OK(mgpu_event_synchronize(b));
        CHECK_OK(mgpu_event_query(b));
        CHECK_OK(mgpu_event_query(a));
        CHECK_OK(mgpu_event_elapsed_ms(a, b, &ms));
        CHECK(ms >= 0.0f && ms < 60000.0f);
        /* on the default stream (NULL) too */
        CHECK_OK(mgpu_event_record(a, NULL));
        CHECK_OK(mgpu_memset_async(p, 3, bytes, NULL));
        CHECK_OK(mgpu_event_record(b, NULL));
        CHECK_OK(mgpu_event_synchronize(b));
        ms = -1.0f;
        CHECK_OK(mgpu_event_elapsed_ms(a, b, &ms));
        CHECK(ms >= 0.0f);
        CHECK_ERR(mgpu_event_elapsed_ms(a, b, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_event_elapsed_ms(NULL, b, &ms), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_event_record(NULL, s), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_event_synchronize(NULL), MGPU_ERROR_INVALID_HANDLE);
        CHECK_ERR(mgpu_event_query(NULL), MGPU_ERROR_INVALID_HANDLE);
        /* a CUDA event belongs to its device: recording it on another GPU's stream is refused */
        if (IS_CUDA() && i < mgpu_device_count() && mgpu_device_count() > 1) {
            mgpu_stream other = NULL;
            REQUIRE_OK(mgpu_default_stream((d + 1) % mgpu_device_count(), &other));
            CHECK_ERR(mgpu_event_record(a, other), MGPU_ERROR_WRONG_DEVICE);
        }
        CHECK_OK(mgpu_free(p));
        CHECK_OK(mgpu_event_destroy(a));
        CHECK_OK(mgpu_event_destroy(b));
        CHECK_OK(mgpu_stream_destroy(s));
    }
    CHECK_ERR(mgpu_event_create(NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_event_destroy(NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_shutdown());
}

/* A stream of device b waits for an event recorded on device a, then copies a's data.
   Every ordered pair, the same device included. */
TEST(stream_wait_event)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, j;
    size_t bytes = (size_t)8 << 20;
    unsigned char *h;
    TINIT();
    n = t_all_devices(devs);
    h = (unsigned char *)tmalloc(bytes);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            mgpu_device a = devs[i], b = devs[j];
            mgpu_stream sa = NULL, sb = NULL;
            mgpu_event ev = NULL;
            unsigned char *pa = NULL, *pb = NULL;
            int v = (int)(t_rand() & 0xFF);
            REQUIRE_OK(mgpu_set_device(a));
            REQUIRE_OK(mgpu_stream_create(&sa));
            REQUIRE_OK(mgpu_event_create(&ev));
            REQUIRE_OK(mgpu_malloc((void **)&pa, bytes));
            REQUIRE_OK(mgpu_set_device(b));
            REQUIRE_OK(mgpu_stream_create(&sb));
            REQUIRE_OK(mgpu_malloc((void **)&pb, bytes));
            CHECK_OK(mgpu_memset(pb, 0, bytes));
            /* a: fill, record; b: wait, copy a -> b, all asynchronous */
            CHECK_OK(mgpu_memset_async(pa, v ^ 0xFF, bytes, sa));
            CHECK_OK(mgpu_memset_async(pa, v, bytes, sa));
            CHECK_OK(mgpu_event_record(ev, sa));
            CHECK_OK(mgpu_stream_wait_event(sb, ev));
            CHECK_OK(mgpu_copy_peer_async(pb, pa, bytes, 0, sb));
            CHECK_OK(mgpu_stream_synchronize(sb));
            CHECK_OK(mgpu_memcpy(h, pb, bytes));
            if (h[0] != v || h[bytes / 3] != v || h[bytes - 1] != v)
                t_fail(__FILE__, __LINE__, "device %d waiting on device %d's event: saw %d %d %d, expected %d",
                       b, a, h[0], h[bytes / 3], h[bytes - 1], v);
            CHECK_OK(mgpu_stream_wait_event(NULL, ev));  /* the current device's default stream */
            CHECK_ERR(mgpu_stream_wait_event(sb, NULL), MGPU_ERROR_INVALID_HANDLE);
            CHECK_OK(mgpu_free(pa));
            CHECK_OK(mgpu_free(pb));
            CHECK_OK(mgpu_event_destroy(ev));
            CHECK_OK(mgpu_stream_destroy(sa));
            CHECK_OK(mgpu_stream_destroy(sb));
        }
    CHECK_OK(mgpu_shutdown());
}

TEST(synchronize)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    void *p[MGPU_MAX_DEVICES];
    size_t bytes = (size_t)4 << 20;
    unsigned char *h;
    TINIT();
    n = t_all_devices(devs);
    h = (unsigned char *)tmalloc(bytes);
    for (i = 0; i < n; i++) {
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_malloc(&p[i], bytes));
        CHECK_OK(mgpu_memset_async(p[i], i + 1, bytes, NULL));
        CHECK_OK(mgpu_device_synchronize(devs[i]));
        CHECK_OK(mgpu_memset_async(p[i], i + 2, bytes, NULL));
    }
    CHECK_OK(mgpu_synchronize_all());
    for (i = 0; i < n; i++) {
        CHECK_OK(mgpu_memcpy(h, p[i], bytes));
        CHECK(h[0] == (unsigned char)(i + 2) && h[bytes - 1] == (unsigned char)(i + 2));
        CHECK_OK(mgpu_free(p[i]));
    }
    CHECK_OK(mgpu_unbind());                           /* works from an unbound thread */
    CHECK_OK(mgpu_device_synchronize(0));
    CHECK_OK(mgpu_synchronize_all());
    CHECK_ERR(mgpu_device_synchronize(-1), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_device_synchronize(9999), MGPU_ERROR_INVALID_DEVICE);
    CHECK_OK(mgpu_shutdown());
}

TEST(stream_event_flags)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL, bad = (mgpu_stream)&n;
        mgpu_event e = NULL, badev = (mgpu_event)&n;
        mgpu_device sd = -1;
        unsigned char *p = NULL, back[4096];
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create_flags(&s, MGPU_STREAM_NON_BLOCKING));
        REQUIRE_OK(mgpu_event_create_flags(&e, MGPU_EVENT_DISABLE_TIMING));
        CHECK_OK(mgpu_stream_device(s, &sd));
        CHECK_EQ_INT(sd, devs[i]);
        REQUIRE_OK(mgpu_malloc((void **)&p, sizeof back));
        CHECK_OK(mgpu_memset_async(p, 0x21, sizeof back, s));
        CHECK_OK(mgpu_event_record(e, s));
        CHECK_OK(mgpu_stream_wait_event(NULL, e));     /* ordering only */
        CHECK_OK(mgpu_event_synchronize(e));
        CHECK_OK(mgpu_event_query(e));
        CHECK_OK(mgpu_memcpy_async(back, p, sizeof back, s));
        CHECK_OK(mgpu_stream_synchronize(s));
        CHECK_BYTES(back, 0x21, sizeof back, "work on a non-blocking stream");
        CHECK_OK(mgpu_event_destroy(e));
        CHECK_OK(mgpu_stream_destroy(s));
        CHECK_OK(mgpu_stream_create_flags(&s, 0));     /* 0 = mgpu_stream_create */
        CHECK_OK(mgpu_stream_destroy(s));
        CHECK_OK(mgpu_event_create_flags(&e, 0));
        CHECK_OK(mgpu_event_destroy(e));
        CHECK_OK(mgpu_free(p));
        CHECK_ERR(mgpu_stream_create_flags(&bad, 2u), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_stream_create_flags(&bad, ~0u), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(bad == (mgpu_stream)&n);
        CHECK_ERR(mgpu_stream_create_flags(NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_event_create_flags(&badev, 1u), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_event_create_flags(&badev, ~0u), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(badev == (mgpu_event)&n);
        CHECK_ERR(mgpu_event_create_flags(NULL, 0), MGPU_ERROR_INVALID_ARGUMENT);
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(native_handles)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, ndef;
    void *ctx[MGPU_MAX_DEVICES];
    TINIT();
    n = t_all_devices(devs);
    ndef = mgpu_device_count();
    for (i = 0; i < n; i++) {
        void *h = (void *)&n, *h2 = NULL;
        mgpu_stream s = NULL, ds = NULL;
        int cpu = !IS_CUDA() || i >= ndef;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        REQUIRE_OK(mgpu_default_stream(devs[i], &ds));
        if (cpu) {
            CHECK_ERR(mgpu_native_context(devs[i], &h), MGPU_ERROR_NOT_SUPPORTED);
            CHECK_ERR(mgpu_native_stream(s, &h), MGPU_ERROR_NOT_SUPPORTED);
            CHECK_ERR(mgpu_native_stream(NULL, &h), MGPU_ERROR_NOT_SUPPORTED);
            CHECK(h == (void *)&n);
        } else {
            int j;
            CHECK_OK(mgpu_native_context(devs[i], &ctx[i]));
            CHECK(ctx[i] != NULL);
            CHECK_OK(mgpu_native_context(devs[i], &h2));
            CHECK(h2 == ctx[i]);                       /* the primary context, retained once */
            for (j = 0; j < i; j++) CHECK(ctx[j] != ctx[i]);
            h = (void *)&n;
            CHECK_OK(mgpu_native_stream(s, &h));
            CHECK(h != NULL && h != (void *)&n);
            h = (void *)&n;
            CHECK_OK(mgpu_native_stream(ds, &h));
            CHECK(h == NULL);                          /* the legacy default stream */
            h = (void *)&n;
            CHECK_OK(mgpu_native_stream(NULL, &h));
            CHECK(h == NULL);
        }
        CHECK_ERR(mgpu_native_stream(s, NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(mgpu_native_context(devs[i], NULL), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK_OK(mgpu_stream_destroy(s));
    }
    {
        void *h = NULL;
        CHECK_ERR(mgpu_native_context(-1, &h), MGPU_ERROR_INVALID_DEVICE);
        CHECK_ERR(mgpu_native_context(9999, &h), MGPU_ERROR_INVALID_DEVICE);
    }
    CHECK_OK(mgpu_shutdown());
}
