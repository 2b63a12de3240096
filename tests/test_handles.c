/* test_handles.c - checked handles: a destroyed, zero, junk, foreign (another kind's) or
   pre-reinit stream, event, module, kernel, thread or pipeline handle is
   MGPU_ERROR_INVALID_HANDLE in every call that takes it, and nothing it touched changes. */
#include "test.h"

static mgpu_result handles_fn(mgpu_device dev, int index, void *arg)
{
    (void)dev; (void)index; (void)arg;
    return MGPU_SUCCESS;
}

/* Every stream-taking call with stream s must answer MGPU_ERROR_INVALID_HANDLE and leave
   the buffers as they were. buf: 64 device bytes of device d holding 0x5A. */
static void check_stream_rejected(mgpu_stream s, unsigned char *buf, mgpu_event ev)
{
    unsigned char host[64], want[64];
    void *p = NULL;
    float *f = (float *)(void *)buf;
    uint64_t sum = 0;
    mgpu_device dev = -1;
    void *native = NULL;
    mgpu_image img;
    mgpu_blur_params bp;
    mgpu_bn254_jacobian jac;
    memset(want, 0x5A, sizeof want);
    memset(host, 0x33, sizeof host);
    memset(&img, 0, sizeof img);
    memset(&bp, 0, sizeof bp);
    img.data = buf; img.width = 8; img.height = 2; img.pitch = 8; img.channels = 1; img.format = MGPU_PIXEL_U8;
    CHECK_ERR(mgpu_stream_synchronize(s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_query(s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_device(s, &dev), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_destroy(s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_wait_event(s, ev), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_event_record(ev, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_native_stream(s, &native), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_malloc_async(&p, 64, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK(p == NULL);
    CHECK_ERR(mgpu_memset_async(buf, 0, 64, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_memcpy_async(host, buf, 64, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_copy_peer_async(host, buf, 64, 0, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_axpy_f32(16, 2.0f, f, f, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_iota_u32(16, 1, (uint32_t *)(void *)buf, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_reduce_async(buf, 8, MGPU_U64, MGPU_OP_SUM, &sum, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_combine_async(buf, buf, 8, MGPU_U64, MGPU_OP_SUM, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_blur_async(&img, &img, &bp, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_msm_async(NULL, NULL, 0, NULL, &jac, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_free_async(buf, s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_BYTES(host, 0x33, sizeof host, "host buffer untouched");
    CHECK_OK(mgpu_memcpy(host, buf, 64));
    CHECK_MEM(host, want, sizeof host, "device buffer untouched");
}

TEST(handles_streams)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_stream s = NULL, ds = NULL, junk = (mgpu_stream)(uintptr_t)0x12345678u, on_stack = (mgpu_stream)(void *)&n;
        mgpu_event ev = NULL;
        unsigned char *buf = NULL;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_malloc((void **)&buf, 64));
        REQUIRE_OK(mgpu_memset(buf, 0x5A, 64));
        REQUIRE_OK(mgpu_event_create(&ev));
        REQUIRE_OK(mgpu_stream_create(&s));
        REQUIRE_OK(mgpu_default_stream(devs[i], &ds));
        CHECK(s != NULL && ds != NULL && s != ds);
        CHECK_OK(mgpu_stream_destroy(s));
        check_stream_rejected(s, buf, ev);               /* destroyed */
        check_stream_rejected(junk, buf, ev);            /* never made */
        check_stream_rejected(on_stack, buf, ev);        /* a pointer to something else */
        check_stream_rejected((mgpu_stream)(void *)ev, buf, ev);   /* another kind's handle */
        /* a new stream does not bring the destroyed handle back */
        {
            mgpu_stream s2 = NULL;
            REQUIRE_OK(mgpu_stream_create(&s2));
            CHECK(s2 != s);
            CHECK_ERR(mgpu_stream_synchronize(s), MGPU_ERROR_INVALID_HANDLE);
            CHECK_OK(mgpu_stream_synchronize(s2));
            CHECK_OK(mgpu_stream_destroy(s2));
        }
        CHECK_ERR(mgpu_stream_destroy(ds), MGPU_ERROR_INVALID_ARGUMENT);   /* default streams stay */
        CHECK_OK(mgpu_stream_synchronize(ds));
        CHECK_OK(mgpu_event_destroy(ev));
        CHECK_OK(mgpu_free(buf));
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(handles_events)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_event ev = NULL, ok = NULL, bad[3];
        mgpu_stream s = NULL;
        float ms = -7.0f;
        mgpu_device_info info;
        int k;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        REQUIRE_OK(mgpu_event_create(&ok));
        REQUIRE_OK(mgpu_event_create(&ev));
        CHECK_OK(mgpu_event_destroy(ev));
        bad[0] = ev;                                     /* destroyed */
        bad[1] = (mgpu_event)(uintptr_t)0xdeadbeefu;     /* junk */
        bad[2] = (mgpu_event)(void *)s;                  /* a stream */
        for (k = 0; k < 3; k++) {
            CHECK_ERR(mgpu_event_destroy(bad[k]), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_event_record(bad[k], s), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_event_synchronize(bad[k]), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_event_query(bad[k]), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_stream_wait_event(s, bad[k]), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_event_elapsed_ms(bad[k], ok, &ms), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_event_elapsed_ms(ok, bad[k], &ms), MGPU_ERROR_INVALID_HANDLE);
        }
        CHECK(ms == -7.0f);
        /* never recorded: no time to report (a GPU's driver says so itself) */
        REQUIRE_OK(mgpu_event_create(&ev));
        REQUIRE_OK(mgpu_device_info_get(devs[i], &info));
        if (info.backend == MGPU_BACKEND_CPU) CHECK_ERR(mgpu_event_elapsed_ms(ok, ev, &ms), MGPU_ERROR_INVALID_ARGUMENT);
        CHECK(ms == -7.0f);
        CHECK_OK(mgpu_event_record(ok, s));
        CHECK_OK(mgpu_event_record(ev, s));
        CHECK_OK(mgpu_event_synchronize(ev));
        CHECK_OK(mgpu_event_elapsed_ms(ok, ev, &ms));
        CHECK(ms >= 0.0f);
        CHECK_OK(mgpu_event_destroy(ev));
        CHECK_OK(mgpu_event_destroy(ok));
        CHECK_OK(mgpu_stream_destroy(s));
    }
    CHECK_OK(mgpu_shutdown());
}

static void add_one_cpu(const mgpu_launch_dims *dims, void **args)
{
    (void)dims; (void)args;
}

TEST(handles_modules)
{
    mgpu_module m = NULL;
    mgpu_kernel k = NULL;
    mgpu_launch_dims dims;
    void *args[2] = { NULL, NULL };
    TINIT();
    memset(&dims, 0, sizeof dims);
    dims.grid[0] = dims.grid[1] = dims.grid[2] = dims.block[0] = dims.block[1] = dims.block[2] = 1;
    REQUIRE_OK(mgpu_module_create(t_ptx, strlen(t_ptx), &m));
    REQUIRE_OK(mgpu_module_kernel(m, "add_one", &k));
    CHECK_OK(mgpu_kernel_set_cpu(k, add_one_cpu));
    /* a module is not a kernel, nor the other way round */
    CHECK_ERR(mgpu_kernel_set_cpu((mgpu_kernel)(void *)m, add_one_cpu), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_module_load((mgpu_module)(void *)k, 0), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_launch((mgpu_kernel)(void *)m, &dims, args, NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_module_destroy(m));
    /* the module and its kernels are gone */
    CHECK_ERR(mgpu_module_destroy(m), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_module_load(m, 0), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_module_kernel(m, "add_one", &k), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_kernel_set_cpu(k, add_one_cpu), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_launch(k, &dims, args, NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_module_destroy((mgpu_module)(uintptr_t)1), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_module_create(t_ptx, SIZE_MAX, &m), MGPU_ERROR_SIZE_OVERFLOW);
    {
        mgpu_module b = NULL;
        if (mgpu_builtin_module(&b) == MGPU_SUCCESS) CHECK_ERR(mgpu_module_destroy(b), MGPU_ERROR_INVALID_ARGUMENT);
    }
    CHECK_OK(mgpu_shutdown());
}

TEST(handles_threads)
{
    mgpu_thread t = NULL;
    mgpu_result fr = MGPU_ERROR_CUDA;
    TINIT();
    REQUIRE_OK(mgpu_run_on_device(0, handles_fn, NULL, &t));
    CHECK_OK(mgpu_thread_join(t, &fr));
    CHECK_EQ_INT(fr, MGPU_SUCCESS);
    fr = MGPU_ERROR_CUDA;
    CHECK_ERR(mgpu_thread_join(t, &fr), MGPU_ERROR_INVALID_HANDLE);          /* joined twice */
    CHECK_EQ_INT(fr, MGPU_ERROR_CUDA);
    CHECK_ERR(mgpu_thread_join((mgpu_thread)(uintptr_t)0x777u, &fr), MGPU_ERROR_INVALID_HANDLE);
    /* a thread may be joined after mgpu_shutdown (its handle outlives the cycle) */
    REQUIRE_OK(mgpu_run_on_device(0, handles_fn, NULL, &t));
    CHECK_OK(mgpu_shutdown());
    CHECK_OK(mgpu_thread_join(t, &fr));
    CHECK_ERR(mgpu_thread_join(t, &fr), MGPU_ERROR_INVALID_HANDLE);
}

/* A one-stage pipeline on dev that copies its 16-byte batches. */
static mgpu_result handles_copy_stage(mgpu_stage_batch *b, void *user)
{
    (void)user;
    return mgpu_memcpy_async(b->out, b->in, b->in_bytes, b->stream);
}
static mgpu_result handles_pipeline(mgpu_device dev, mgpu_pipeline *p)
{
    mgpu_pipeline_stage st;
    mgpu_pipeline_desc d;
    memset(&st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    st.device = dev; st.fn = handles_copy_stage; st.out_bytes = 16;
    d.stages = &st; d.nstages = 1; d.in_bytes = 16;
    return mgpu_pipeline_create(&d, p);
}

/* A destroyed (with a batch in flight), zero, junk or another kind's (a stream) pipeline
   handle is MGPU_ERROR_INVALID_HANDLE in push, pull, finish and destroy (destroy of zero:
   nothing to do), and a live pipeline is not a stream; a pipeline left alive (a batch in
   flight) is destroyed by mgpu_shutdown, and its handle means nothing in the next cycle. */
TEST(handles_pipelines)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    mgpu_pipeline p = NULL, p2 = NULL;
    float x[4] = { 1.0f, 2.0f, 3.0f, 4.0f }, y[4] = { 0 };
    size_t bytes;
    int n, i, k;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        mgpu_pipeline gone = NULL, bad[4];
        mgpu_stream s = NULL;
        bytes = 7;
        REQUIRE_OK(mgpu_set_device(devs[i]));
        REQUIRE_OK(mgpu_stream_create(&s));
        REQUIRE_OK(handles_pipeline(devs[i], &p));
        REQUIRE_OK(handles_pipeline(devs[i], &gone));
        CHECK_OK(mgpu_pipeline_push(gone, x, sizeof x, NULL));
        CHECK_OK(mgpu_pipeline_destroy(gone));
        bad[0] = gone;                                       /* destroyed */
        bad[1] = NULL;                                       /* zero */
        bad[2] = (mgpu_pipeline)(uintptr_t)0xdeadbeefu;      /* junk */
        bad[3] = (mgpu_pipeline)(void *)s;                   /* a stream */
        for (k = 0; k < 4; k++) {
            CHECK_ERR(mgpu_pipeline_push(bad[k], x, sizeof x, NULL), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_pipeline_pull(bad[k], y, sizeof y, &bytes, NULL), MGPU_ERROR_INVALID_HANDLE);
            CHECK_ERR(mgpu_pipeline_finish(bad[k]), MGPU_ERROR_INVALID_HANDLE);
            if (bad[k]) CHECK_ERR(mgpu_pipeline_destroy(bad[k]), MGPU_ERROR_INVALID_HANDLE);
        }
        CHECK_OK(mgpu_pipeline_destroy(NULL));
        CHECK_EQ_INT((int)bytes, 7);
        CHECK_ERR(mgpu_stream_synchronize((mgpu_stream)(void *)p), MGPU_ERROR_INVALID_HANDLE);
        /* the live pipeline and the stream still work */
        CHECK_OK(mgpu_stream_synchronize(s));
        CHECK_OK(mgpu_pipeline_push(p, x, sizeof x, NULL));
        CHECK_OK(mgpu_pipeline_pull(p, y, sizeof y, &bytes, NULL));
        CHECK(bytes == sizeof x && !memcmp(x, y, sizeof x));
        CHECK_OK(mgpu_pipeline_destroy(p));
        CHECK_OK(mgpu_stream_destroy(s));
    }
    REQUIRE_OK(handles_pipeline(devs[n - 1], &p));
    CHECK_OK(mgpu_pipeline_push(p, x, sizeof x, NULL));
    CHECK_OK(mgpu_shutdown());                               /* destroys p (ASan: nothing leaks) */
    CHECK_ERR(mgpu_pipeline_push(p, x, sizeof x, NULL), MGPU_ERROR_NOT_INITIALIZED);
    TINIT();
    REQUIRE_OK(handles_pipeline(0, &p2));
    CHECK(p2 != p);
    CHECK_ERR(mgpu_pipeline_push(p, x, sizeof x, NULL), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_pipeline_destroy(p), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_pipeline_destroy(p2));
    CHECK_OK(mgpu_shutdown());
}

/* Handles of one init cycle mean nothing in the next, even where the next makes as many. */
TEST(handles_across_cycles)
{
    mgpu_stream s = NULL, ds = NULL, s2 = NULL, ds2 = NULL;
    mgpu_event ev = NULL, ev2 = NULL;
    mgpu_module m = NULL;
    mgpu_kernel k = NULL;
    TINIT();
    REQUIRE_OK(mgpu_stream_create(&s));
    REQUIRE_OK(mgpu_default_stream(0, &ds));
    REQUIRE_OK(mgpu_event_create(&ev));
    REQUIRE_OK(mgpu_module_create(t_ptx, strlen(t_ptx), &m));
    REQUIRE_OK(mgpu_module_kernel(m, "add_one", &k));
    CHECK_OK(mgpu_shutdown());
    CHECK_ERR(mgpu_stream_synchronize(s), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_event_query(ev), MGPU_ERROR_NOT_INITIALIZED);
    TINIT();
    REQUIRE_OK(mgpu_stream_create(&s2));
    REQUIRE_OK(mgpu_default_stream(0, &ds2));
    REQUIRE_OK(mgpu_event_create(&ev2));
    CHECK(s2 != s && ds2 != ds && ev2 != ev);
    CHECK_ERR(mgpu_stream_synchronize(s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_synchronize(ds), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_stream_destroy(s), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_event_record(ev, s2), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_module_destroy(m), MGPU_ERROR_INVALID_HANDLE);
    CHECK_ERR(mgpu_kernel_set_cpu(k, add_one_cpu), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_stream_synchronize(s2));
    CHECK_OK(mgpu_stream_synchronize(ds2));
    CHECK_OK(mgpu_event_record(ev2, s2));
    CHECK_OK(mgpu_stream_destroy(s2));
    CHECK_OK(mgpu_event_destroy(ev2));
    CHECK_OK(mgpu_shutdown());
}

/* Many threads make, use and destroy handles at once (the handle table and allocation table
   under one lock), and each also tries its neighbours' destroyed handles. Runs in the
   ThreadSanitizer build too (make test: run/core_tsan). */
typedef struct handles_churn { mgpu_stream gone[16]; } handles_churn;
static mgpu_result handles_churn_fn(mgpu_device dev, int index, void *arg)
{
    handles_churn *c = (handles_churn *)arg;
    int round;
    (void)dev;
    for (round = 0; round < 30; round++) {
        mgpu_stream s = NULL, other;
        mgpu_event e = NULL;
        uint32_t *p = NULL, got = 0;
        mgpu_result r;
        if ((r = mgpu_stream_create(&s)) != MGPU_SUCCESS || (r = mgpu_event_create(&e)) != MGPU_SUCCESS) return r;
        if ((r = mgpu_malloc((void **)&p, 64 * sizeof *p)) != MGPU_SUCCESS) return r;
        if ((r = mgpu_memset_async(p, 1, 64 * sizeof *p, s)) != MGPU_SUCCESS) return r;
        if ((r = mgpu_event_record(e, s)) != MGPU_SUCCESS || (r = mgpu_stream_wait_event(NULL, e)) != MGPU_SUCCESS) return r;
        if ((r = mgpu_reduce(p, 64, MGPU_U32, MGPU_OP_MAX, &got, s)) != MGPU_SUCCESS) return r;
        if (got != 0x01010101u) return MGPU_ERROR_CUDA;
        if ((r = mgpu_free(p)) != MGPU_SUCCESS || (r = mgpu_event_destroy(e)) != MGPU_SUCCESS) return r;
        if ((r = mgpu_stream_destroy(s)) != MGPU_SUCCESS) return r;
        __atomic_store_n(&c->gone[index], s, __ATOMIC_RELAXED);
        other = __atomic_load_n(&c->gone[(index + 1) % 16], __ATOMIC_RELAXED);
        if (other && mgpu_stream_synchronize(other) != MGPU_ERROR_INVALID_HANDLE) return MGPU_ERROR_CUDA;
    }
    return MGPU_SUCCESS;
}

TEST(handles_concurrent)
{
    mgpu_device devs[MGPU_MAX_DEVICES], list[16];
    handles_churn c;
    int n, i;
    TINIT();
    memset(&c, 0, sizeof c);
    n = t_all_devices(devs);
    for (i = 0; i < 16; i++) list[i] = devs[i % n];
    CHECK_OK(mgpu_run_on_devices(list, 16, handles_churn_fn, &c));
    CHECK_OK(mgpu_shutdown());
}

/* A random walk over the API (fuzz-style, reproducible from the run's seed): streams and
   events made, used and destroyed in random order, each call given a live, destroyed, junk
   or another kind's handle and random (sometimes too large) sizes. Every call must answer
   as its arguments say: success with live handles and sizes that fit, INVALID_HANDLE for a
   dead or foreign handle, INVALID_ARGUMENT for a size past the buffer. */
TEST(handles_random_walk)
{
    enum { SLOTS = 8, STEPS = 3000, BYTES = 4096 };
    mgpu_stream st[SLOTS];
    mgpu_event ev[SLOTS];
    int st_live[SLOTS], ev_live[SLOTS], step;
    unsigned char *buf = NULL, host[BYTES];
    TINIT();
    memset(st, 0, sizeof st); memset(ev, 0, sizeof ev);
    memset(st_live, 0, sizeof st_live); memset(ev_live, 0, sizeof ev_live);
    REQUIRE_OK(mgpu_malloc((void **)&buf, BYTES));
    REQUIRE_OK(mgpu_memset(buf, 0, BYTES));             /* copied back before any fill: defined bytes */
    for (step = 0; step < STEPS && !t_failed(); step++) {
        unsigned op = t_rand_u32() % 6, i = t_rand_u32() % SLOTS, j = t_rand_u32() % SLOTS, pick = t_rand_u32() % 4;
        size_t bytes = (size_t)(t_rand_u32() % (BYTES + BYTES / 8));
        /* the handle used: a slot's (live or not), junk, or the event slot's as a stream */
        mgpu_stream s = pick == 2 ? (mgpu_stream)(uintptr_t)(t_rand() | 1) : pick == 3 ? (mgpu_stream)(void *)ev[i] : st[i];
        int s_ok = pick < 2 && st_live[i];
        mgpu_result want = s_ok ? MGPU_SUCCESS : MGPU_ERROR_INVALID_HANDLE;
        if (!s) { s_ok = 1; want = MGPU_SUCCESS; }      /* a slot never filled: NULL, the default stream */
        switch (op) {
        case 0:                                          /* make a stream or an event in slot i */
            if (!st_live[i]) { CHECK_OK(mgpu_stream_create(&st[i])); st_live[i] = 1; }
            else if (!ev_live[i]) { CHECK_OK(mgpu_event_create(&ev[i])); ev_live[i] = 1; }
            break;
        case 1:                                          /* destroy (maybe again) */
            if (t_rand_u32() & 1) {
                CHECK_EQ_INT(mgpu_stream_destroy(st[i]), st_live[i] ? MGPU_SUCCESS : MGPU_ERROR_INVALID_HANDLE);
                st_live[i] = 0;
            } else {
                CHECK_EQ_INT(mgpu_event_destroy(ev[i]), ev_live[i] ? MGPU_SUCCESS : MGPU_ERROR_INVALID_HANDLE);
                ev_live[i] = 0;
            }
            break;
        case 2:                                          /* record event j on s */
            CHECK_EQ_INT(mgpu_event_record(ev[j], s), !ev_live[j] ? MGPU_ERROR_INVALID_HANDLE : want);
            break;
        case 3:                                          /* s waits for event j */
            CHECK_EQ_INT(mgpu_stream_wait_event(s, ev[j]), !s_ok ? MGPU_ERROR_INVALID_HANDLE
                         : ev_live[j] ? MGPU_SUCCESS : MGPU_ERROR_INVALID_HANDLE);
            break;
        case 4:                                          /* a fill, maybe past the end */
            CHECK_EQ_INT(mgpu_memset_async(buf, (int)step, bytes, s), !s_ok ? MGPU_ERROR_INVALID_HANDLE
                         : bytes > BYTES ? MGPU_ERROR_INVALID_ARGUMENT : MGPU_SUCCESS);
            break;
        default:                                         /* a copy back, then synchronize */
            CHECK_EQ_INT(mgpu_memcpy_async(host, buf, bytes, s), !s_ok ? MGPU_ERROR_INVALID_HANDLE
                         : bytes > BYTES ? MGPU_ERROR_INVALID_ARGUMENT : MGPU_SUCCESS);
            CHECK_EQ_INT(mgpu_stream_synchronize(s), want);
            break;
        }
    }
    for (step = 0; step < SLOTS; step++) {
        if (st_live[step]) CHECK_OK(mgpu_stream_destroy(st[step]));
        if (ev_live[step]) CHECK_OK(mgpu_event_destroy(ev[step]));
    }
    CHECK_OK(mgpu_free(buf));
    CHECK_OK(mgpu_shutdown());
}
