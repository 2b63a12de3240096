/* Devices, peer matrix, selection, per-thread binding, worker threads. */
#include "test.h"

#include <pthread.h>

TEST(device_info)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    mgpu_device_info info, info2;
    int n, i, j, ndef;
    TINIT();
    ndef = mgpu_device_count();
    n = t_all_devices(devs);
    CHECK(ndef >= 1);
    if (IS_CUDA()) {
        CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CUDA);
        CHECK_EQ_INT(ndef, t_gpu_count);
        CHECK_EQ_INT(mgpu_cpu_device_count(), tc->cpu_devices);
        for (i = 0; i < tc->cpu_devices; i++) CHECK_EQ_INT(mgpu_cpu_device(i), ndef + i);  /* after the GPUs */
    } else {
        CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CPU);
        CHECK_EQ_INT(ndef, tc->cpu_devices);
        CHECK_EQ_INT(mgpu_cpu_device_count(), tc->cpu_devices);
        for (i = 0; i < tc->cpu_devices; i++) CHECK_EQ_INT(mgpu_cpu_device(i), i);
    }
    CHECK_EQ_INT(mgpu_cpu_device(-1), -1);
    CHECK_EQ_INT(mgpu_cpu_device(mgpu_cpu_device_count()), -1);
    for (i = 0; i < n; i++) {
        mgpu_device d = devs[i];
        int is_cpu = i >= ndef || !IS_CUDA();
        memset(&info, 0xA5, sizeof info);
        REQUIRE_OK(mgpu_device_info_get(d, &info));
        CHECK(memchr(info.name, 0, sizeof info.name) != NULL);
        CHECK(info.name[0] != 0);
        CHECK_EQ_INT(info.backend, is_cpu ? MGPU_BACKEND_CPU : MGPU_BACKEND_CUDA);
        CHECK_EQ_INT(info.ordinal, is_cpu ? (IS_CUDA() ? i - ndef : i) : i);
        CHECK(info.total_memory > 0);
        CHECK(info.free_memory > 0 && info.free_memory <= info.total_memory);
        CHECK(info.multiprocessors >= 1);
        CHECK(info.throughput_weight > 0);
        CHECK(memchr(info.uuid_string, 0, sizeof info.uuid_string) != NULL);
        CHECK(info.uuid_string[0] != 0);
        CHECK(memchr(info.pci_bus_id, 0, sizeof info.pci_bus_id) != NULL);
        if (is_cpu) {
            CHECK_EQ_INT(info.cc_major, 0);
            CHECK_EQ_INT(info.cc_minor, 0);
            CHECK_EQ_INT(info.pci_bus_id[0], 0);
        } else {
            CHECK(info.cc_major >= 5);
            CHECK(info.clock_khz > 0);
            CHECK(info.memory_bus_width_bits > 0);
            CHECK(info.memory_bandwidth_gbs > 0);
            CHECK(info.async_engines >= 1);
            CHECK(info.unified_addressing == 1);
            CHECK(info.pci_bus_id[0] != 0);
            CHECK(!strncmp(info.uuid_string, "GPU-", 4));
            CHECK_EQ_INT(strlen(info.uuid_string), 40);  /* GPU-8-4-4-4-12 */
        }
        /* the same answer twice (free memory may move) */
        REQUIRE_OK(mgpu_device_info_get(d, &info2));
        CHECK(!strcmp(info.name, info2.name));
        CHECK(info.total_memory == info2.total_memory);
        CHECK(!memcmp(info.uuid, info2.uuid, 16));
        /* every device has its own UUID */
        for (j = 0; j < i; j++) {
            mgpu_device_info other;
            REQUIRE_OK(mgpu_device_info_get(devs[j], &other));
            if (!memcmp(other.uuid, info.uuid, 16) || !strcmp(other.uuid_string, info.uuid_string))
                t_fail(__FILE__, __LINE__, "devices %d and %d have the same UUID %s", devs[j], d, info.uuid_string);
        }
    }
    memset(&info, 0x5A, sizeof info);
    memcpy(&info2, &info, sizeof info);
    CHECK_ERR(mgpu_device_info_get(-1, &info), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_device_info_get(9999, &info), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_device_info_get(n, &info), MGPU_ERROR_INVALID_DEVICE);
    CHECK(!memcmp(&info, &info2, sizeof info));        /* untouched */
    CHECK_ERR(mgpu_device_info_get(0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_shutdown());
}

TEST(peer_matrix)
{
    int n, a, b, *m, yes;
    mgpu_device_info info;
    TINIT();
    n = mgpu_device_count();
    m = (int *)tmalloc(sizeof(int) * (size_t)(n * n + 1));
    m[n * n] = 777;
    REQUIRE_OK(mgpu_peer_matrix(m, n));
    CHECK_EQ_INT(m[n * n], 777);                       /* writes n*n entries, no more */
    for (a = 0; a < n; a++) {
        int any = 0;
        for (b = 0; b < n; b++) {
            int v = m[a * n + b];
            CHECK(v == 0 || v == 1);
            if (a == b) CHECK_EQ_INT(v, 0);
            else if (!IS_CUDA()) CHECK_EQ_INT(v, 1);   /* CPU devices share host memory */
            yes = -1;
            CHECK_OK(mgpu_can_access_peer(a, b, &yes));
            if (a != b) CHECK_EQ_INT(yes, v);
            any |= (a != b) && v;
        }
        REQUIRE_OK(mgpu_device_info_get(a, &info));
        CHECK_EQ_INT(info.p2p_supported, any);
    }
    CHECK_ERR(mgpu_peer_matrix(NULL, n), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_peer_matrix(m, n + 1), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_peer_matrix(m, 0), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_can_access_peer(-1, 0, &yes), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_can_access_peer(0, 9999, &yes), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_can_access_peer(0, 0, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_shutdown());
}

TEST(device_select)
{
    mgpu_device_criteria c;
    mgpu_device out[MGPU_MAX_DEVICES + 1];
    int count = -1, n, i, j, *m;
    double prev = 1e300;
    TINIT();
    n = mgpu_device_count();
    memset(&c, 0, sizeof c);
    REQUIRE_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK_EQ_INT(count, n);                            /* every default device, once */
    for (i = 0; i < count && i < MGPU_MAX_DEVICES; i++) {
        mgpu_device_info info;
        CHECK(out[i] >= 0 && out[i] < n);
        for (j = 0; j < i; j++) CHECK(out[i] != out[j]);
        REQUIRE_OK(mgpu_device_info_get(out[i], &info));
        CHECK(info.throughput_weight <= prev);         /* fastest first */
        prev = info.throughput_weight;
    }
    /* capacity smaller than the match: count says how many matched, only capacity written */
    out[0] = out[1] = 4242;
    CHECK_OK(mgpu_device_select(&c, out, 1, &count));
    CHECK_EQ_INT(count, n);
    CHECK(out[0] >= 0 && out[0] < n);
    CHECK_EQ_INT(out[1], 4242);
    CHECK_OK(mgpu_device_select(&c, NULL, 0, &count));
    CHECK_EQ_INT(count, n);
    /* impossible criteria */
    c.min_memory = SIZE_MAX;
    CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK_EQ_INT(count, 0);
    memset(&c, 0, sizeof c);
    c.min_multiprocessors = 1 << 30;
    CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK_EQ_INT(count, 0);
    memset(&c, 0, sizeof c);
    c.min_cc_major = 100;
    CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK_EQ_INT(count, 0);
    /* the criteria that every device meets */
    memset(&c, 0, sizeof c);
    c.min_memory = 1;
    c.min_multiprocessors = 1;
    CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK_EQ_INT(count, n);
    /* needs_p2p: a set in which every pair can access each other */
    memset(&c, 0, sizeof c);
    c.needs_p2p = 1;
    m = (int *)tmalloc(sizeof(int) * (size_t)(n * n));
    REQUIRE_OK(mgpu_peer_matrix(m, n));
    CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK(count >= 1 && count <= n);
    if (!IS_CUDA()) CHECK_EQ_INT(count, n);
    for (i = 0; i < count; i++)
        for (j = 0; j < count; j++)
            if (i != j && !(out[i] >= 0 && out[i] < n && out[j] >= 0 && out[j] < n && m[out[i] * n + out[j]]))
                t_fail(__FILE__, __LINE__, "needs_p2p selected devices %d and %d, which are not peers", out[i], out[j]);
    /* the other backend by name */
    memset(&c, 0, sizeof c);
    c.backend = MGPU_BACKEND_CPU;
    CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
    CHECK_EQ_INT(count, mgpu_cpu_device_count());
    for (i = 0; i < count; i++) {
        mgpu_device_info info;
        REQUIRE_OK(mgpu_device_info_get(out[i], &info));
        CHECK_EQ_INT(info.backend, MGPU_BACKEND_CPU);
    }
    if (!IS_CUDA()) {
        c.backend = MGPU_BACKEND_CUDA;
        CHECK_OK(mgpu_device_select(&c, out, MGPU_MAX_DEVICES, &count));
        CHECK_EQ_INT(count, 0);
    }
    /* bad arguments */
    memset(&c, 0, sizeof c);
    count = -5;
    CHECK_ERR(mgpu_device_select(NULL, out, 4, &count), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_device_select(&c, out, 4, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_device_select(&c, NULL, 4, &count), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_device_select(&c, out, -1, &count), MGPU_ERROR_INVALID_ARGUMENT);
    c.backend = (mgpu_backend)9;
    CHECK_ERR(mgpu_device_select(&c, out, 4, &count), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(count, -5);
    CHECK_OK(mgpu_shutdown());
}

TEST(binding)
{
    mgpu_device devs[MGPU_MAX_DEVICES], d = -1;
    int n, i;
    void *p = (void *)&d;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        REQUIRE_OK(mgpu_set_device(devs[i]));
        CHECK_OK(mgpu_get_device(&d));
        CHECK_EQ_INT(d, devs[i]);
        CHECK_OK(mgpu_check_device(devs[i]));
        if (n > 1) CHECK_ERR(mgpu_check_device(devs[(i + 1) % n]), MGPU_ERROR_WRONG_DEVICE);
    }
    CHECK_ERR(mgpu_set_device(-1), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_set_device(9999), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_set_device(n), MGPU_ERROR_INVALID_DEVICE);
    CHECK_OK(mgpu_get_device(&d));                     /* a refused set_device keeps the binding */
    CHECK_EQ_INT(d, devs[n - 1]);
    CHECK_ERR(mgpu_check_device(-1), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_check_device(9999), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_get_device(NULL), MGPU_ERROR_INVALID_ARGUMENT);
    /* unbind */
    CHECK_OK(mgpu_unbind());
    d = 777;
    CHECK_ERR(mgpu_get_device(&d), MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(d, 777);
    CHECK_ERR(mgpu_check_device(0), MGPU_ERROR_NOT_BOUND);
    CHECK_ERR(mgpu_malloc(&p, 64), MGPU_ERROR_NOT_BOUND);
    CHECK(p == (void *)&d);
    CHECK_OK(mgpu_unbind());                           /* unbinding twice is fine */
    CHECK_OK(mgpu_set_device(0));
    CHECK_OK(mgpu_malloc(&p, 64));
    CHECK_OK(mgpu_free(p));
    CHECK_OK(mgpu_shutdown());
}

/* ---------------------------------------------------------------- a new pthread */
typedef struct unbound_result {
    mgpu_result get, check, malloc_r, managed, stream, event, sync, query, stream_dev, memset_async, axpy;
    mgpu_device got;
    void *p;
    char first_error[1024];
    int error_empty_at_start;
    mgpu_result set, after_set_malloc, after_set_free, after_set_get;
    mgpu_device after_set_dev;
} unbound_result;

static void *unbound_thread(void *arg)
{
    unbound_result *r = (unbound_result *)arg;
    mgpu_stream s = NULL;
    mgpu_event e = NULL;
    mgpu_device dsd = -1;
    float x[1] = { 0 }, y[1] = { 0 };
    r->error_empty_at_start = mgpu_last_error() != NULL && mgpu_last_error()[0] == 0;
    r->got = 4321;
    r->get = mgpu_get_device(&r->got);
    snprintf(r->first_error, sizeof r->first_error, "%s", mgpu_last_error());
    r->check = mgpu_check_device(0);
    r->p = (void *)r;
    r->malloc_r = mgpu_malloc(&r->p, 128);
    r->managed = mgpu_malloc_managed(&r->p, 128);
    r->stream = mgpu_stream_create(&s);
    r->event = mgpu_event_create(&e);
    r->sync = mgpu_stream_synchronize(NULL);
    r->query = mgpu_stream_query(NULL);
    r->stream_dev = mgpu_stream_device(NULL, &dsd);
    r->memset_async = mgpu_memset_async(x, 0, sizeof x, NULL);
    r->axpy = mgpu_axpy_f32(1, 1.0f, x, y, NULL);
    /* binding it makes it work */
    r->set = mgpu_set_device(0);
    r->after_set_get = mgpu_get_device(&r->after_set_dev);
    r->after_set_malloc = mgpu_malloc(&r->p, 128);
    r->after_set_free = r->after_set_malloc == MGPU_SUCCESS ? mgpu_free(r->p) : MGPU_SUCCESS;
    return NULL;
}

TEST(thread_starts_unbound)
{
    pthread_t th;
    unbound_result r;
    mgpu_device d = -1;
    char mine[1024];
    TINIT();
    /* a failure here; the other thread's failures must not replace this text */
    CHECK(mgpu_malloc(NULL, 1) == MGPU_ERROR_INVALID_ARGUMENT);
    snprintf(mine, sizeof mine, "%s", mgpu_last_error());
    memset(&r, 0, sizeof r);
    REQUIRE(pthread_create(&th, NULL, unbound_thread, &r) == 0);
    REQUIRE(pthread_join(th, NULL) == 0);
    CHECK(r.error_empty_at_start);                     /* "" in a thread that made no call */
    CHECK_EQ_INT(r.get, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.got, 4321);
    CHECK_CONTAINS(r.first_error, "mgpu_get_device");
    CHECK_EQ_INT(r.check, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.malloc_r, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.managed, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.stream, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.event, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.sync, MGPU_ERROR_NOT_BOUND);        /* NULL stream: the current device's */
    CHECK_EQ_INT(r.query, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.stream_dev, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.memset_async, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.axpy, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(r.set, MGPU_SUCCESS);
    CHECK_EQ_INT(r.after_set_get, MGPU_SUCCESS);
    CHECK_EQ_INT(r.after_set_dev, 0);
    CHECK_EQ_INT(r.after_set_malloc, MGPU_SUCCESS);
    CHECK_EQ_INT(r.after_set_free, MGPU_SUCCESS);
    CHECK(!strcmp(mine, mgpu_last_error()));           /* thread-local */
    CHECK_OK(mgpu_get_device(&d));                     /* this thread's binding unchanged */
    CHECK_EQ_INT(d, 0);
    CHECK_OK(mgpu_shutdown());
}

/* A thread bound during one init cycle is unbound in the next, even if it never called
   mgpu again in between. */
typedef struct stale_bind {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int step;                       /* 1: thread bound; 2: main re-initialized */
    mgpu_result set, get_before, get_after, malloc_after;
    mgpu_device dev_before, dev_after;
} stale_bind;

static void *stale_thread(void *arg)
{
    stale_bind *b = (stale_bind *)arg;
    void *p = NULL;
    b->set = mgpu_set_device(mgpu_device_count() - 1);
    b->get_before = mgpu_get_device(&b->dev_before);
    pthread_mutex_lock(&b->lock);
    b->step = 1;
    pthread_cond_broadcast(&b->cond);
    while (b->step != 2) pthread_cond_wait(&b->cond, &b->lock);
    pthread_mutex_unlock(&b->lock);
    b->dev_after = 4321;
    b->get_after = mgpu_get_device(&b->dev_after);
    b->malloc_after = mgpu_malloc(&p, 16);
    if (b->malloc_after == MGPU_SUCCESS) mgpu_free(p);
    return NULL;
}

TEST(binding_across_cycles)
{
    pthread_t th;
    stale_bind b;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    memset(&b, 0, sizeof b);
    b.lock = lock;
    b.cond = cond;
    TINIT();
    REQUIRE(pthread_create(&th, NULL, stale_thread, &b) == 0);
    pthread_mutex_lock(&b.lock);
    while (b.step != 1) pthread_cond_wait(&b.cond, &b.lock);
    pthread_mutex_unlock(&b.lock);
    CHECK_OK(mgpu_shutdown());
    if (!t_init(__FILE__, __LINE__)) {
        pthread_mutex_lock(&b.lock); b.step = 2; pthread_cond_broadcast(&b.cond); pthread_mutex_unlock(&b.lock);
        pthread_join(th, NULL);
        return;
    }
    pthread_mutex_lock(&b.lock);
    b.step = 2;
    pthread_cond_broadcast(&b.cond);
    pthread_mutex_unlock(&b.lock);
    REQUIRE(pthread_join(th, NULL) == 0);
    CHECK_EQ_INT(b.set, MGPU_SUCCESS);
    CHECK_EQ_INT(b.get_before, MGPU_SUCCESS);
    CHECK_EQ_INT(b.dev_before, mgpu_device_count() - 1);
    CHECK_EQ_INT(b.get_after, MGPU_ERROR_NOT_BOUND);
    CHECK_EQ_INT(b.dev_after, 4321);
    CHECK_EQ_INT(b.malloc_after, MGPU_ERROR_NOT_BOUND);
    CHECK_OK(mgpu_shutdown());
}

/* ---------------------------------------------------------------- run_on_device(s) */
typedef struct run_rec {
    pthread_mutex_t lock;
    int calls[MGPU_MAX_DEVICES * 2];
    mgpu_device seen_dev[MGPU_MAX_DEVICES * 2];
    mgpu_device bound[MGPU_MAX_DEVICES * 2];
    mgpu_device ptr_dev[MGPU_MAX_DEVICES * 2];
    mgpu_result fail_with[MGPU_MAX_DEVICES * 2];
    int sleep_ms[MGPU_MAX_DEVICES * 2];
} run_rec;

static mgpu_result run_fn(mgpu_device dev, int index, void *arg)
{
    run_rec *r = (run_rec *)arg;
    mgpu_device b = -1, pd = -1;
    void *p = NULL;
    mgpu_result res;
    if (r->sleep_ms[index]) t_sleep_ms(r->sleep_ms[index]);
    res = mgpu_get_device(&b);
    if (res == MGPU_SUCCESS && mgpu_malloc(&p, 1000) == MGPU_SUCCESS) {
        mgpu_pointer_device(p, &pd);
        mgpu_free(p);
    }
    pthread_mutex_lock(&r->lock);
    r->calls[index]++;
    r->seen_dev[index] = dev;
    r->bound[index] = b;
    r->ptr_dev[index] = pd;
    pthread_mutex_unlock(&r->lock);
    return r->fail_with[index];
}

static run_rec run_state;

static void run_reset(void)
{
    pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
    memset(&run_state, 0, sizeof run_state);
    run_state.lock = init;
}

TEST(run_on_device)
{
    mgpu_device devs[MGPU_MAX_DEVICES], me = -1;
    mgpu_thread th = NULL;
    mgpu_result fr;
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < n; i++) {
        run_reset();
        fr = MGPU_ERROR_CUDA;
        REQUIRE_OK(mgpu_run_on_device(devs[i], run_fn, &run_state, &th));
        REQUIRE(th != NULL);
        CHECK_OK(mgpu_thread_join(th, &fr));
        CHECK_EQ_INT(fr, MGPU_SUCCESS);
        CHECK_EQ_INT(run_state.calls[0], 1);
        CHECK_EQ_INT(run_state.seen_dev[0], devs[i]);
        CHECK_EQ_INT(run_state.bound[0], devs[i]);     /* the function sees itself bound */
        CHECK_EQ_INT(run_state.ptr_dev[0], devs[i]);   /* and allocates there */
        /* the function's status comes back through join */
        run_reset();
        run_state.fail_with[0] = MGPU_ERROR_NOT_FOUND;
        REQUIRE_OK(mgpu_run_on_device(devs[i], run_fn, &run_state, &th));
        CHECK_OK(mgpu_thread_join(th, &fr));
        CHECK_EQ_INT(fr, MGPU_ERROR_NOT_FOUND);
        /* join without asking for the status */
        run_reset();
        REQUIRE_OK(mgpu_run_on_device(devs[i], run_fn, &run_state, &th));
        CHECK_OK(mgpu_thread_join(th, NULL));
        CHECK_EQ_INT(run_state.calls[0], 1);
    }
    CHECK_OK(mgpu_get_device(&me));                    /* the caller's binding is its own */
    CHECK_EQ_INT(me, 0);
    th = NULL;
    CHECK_ERR(mgpu_run_on_device(-1, run_fn, &run_state, &th), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_run_on_device(9999, run_fn, &run_state, &th), MGPU_ERROR_INVALID_DEVICE);
    CHECK_ERR(mgpu_run_on_device(0, NULL, &run_state, &th), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_run_on_device(0, run_fn, &run_state, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(th == NULL);
    CHECK_ERR(mgpu_thread_join(NULL, &fr), MGPU_ERROR_INVALID_HANDLE);
    CHECK_OK(mgpu_shutdown());
}

TEST(run_on_devices)
{
    mgpu_device devs[MGPU_MAX_DEVICES], list[6];
    int n, i, ndef;
    TINIT();
    n = t_all_devices(devs);
    ndef = mgpu_device_count();
    /* devs NULL: devices 0..count-1 */
    run_reset();
    CHECK_OK(mgpu_run_on_devices(NULL, ndef, run_fn, &run_state));
    for (i = 0; i < ndef; i++) {
        CHECK_EQ_INT(run_state.calls[i], 1);
        CHECK_EQ_INT(run_state.seen_dev[i], i);
        CHECK_EQ_INT(run_state.bound[i], i);
        CHECK_EQ_INT(run_state.ptr_dev[i], i);
    }
    /* an explicit list: every device of the table, in reverse */
    run_reset();
    for (i = 0; i < n; i++) devs[MGPU_MAX_DEVICES - 1 - i] = devs[i];
    CHECK_OK(mgpu_run_on_devices(devs + MGPU_MAX_DEVICES - n, n, run_fn, &run_state));
    for (i = 0; i < n; i++) {
        CHECK_EQ_INT(run_state.calls[i], 1);
        CHECK_EQ_INT(run_state.seen_dev[i], devs[MGPU_MAX_DEVICES - n + i]);
        CHECK_EQ_INT(run_state.bound[i], devs[MGPU_MAX_DEVICES - n + i]);
    }
    /* failures: the first by index wins, even when a later index fails sooner */
    for (i = 0; i < 6; i++) list[i] = i % ndef;
    run_reset();
    run_state.fail_with[1] = MGPU_ERROR_NOT_FOUND;
    run_state.sleep_ms[1] = 50;
    run_state.fail_with[3] = MGPU_ERROR_OUT_OF_MEMORY;
    run_state.fail_with[5] = MGPU_ERROR_INVALID_IMAGE;
    CHECK_ERR(mgpu_run_on_devices(list, 6, run_fn, &run_state), MGPU_ERROR_NOT_FOUND);
    for (i = 0; i < 6; i++) CHECK_EQ_INT(run_state.calls[i], 1);   /* all ran and were joined */
    run_reset();
    run_state.fail_with[5] = MGPU_ERROR_INVALID_IMAGE;
    CHECK_ERR(mgpu_run_on_devices(list, 6, run_fn, &run_state), MGPU_ERROR_INVALID_IMAGE);
    /* bad arguments: nothing runs */
    run_reset();
    list[2] = -1;
    CHECK_ERR(mgpu_run_on_devices(list, 6, run_fn, &run_state), MGPU_ERROR_INVALID_DEVICE);
    list[2] = 9999;
    CHECK_ERR(mgpu_run_on_devices(list, 6, run_fn, &run_state), MGPU_ERROR_INVALID_DEVICE);
    for (i = 0; i < 6; i++) CHECK_EQ_INT(run_state.calls[i], 0);
    CHECK_ERR(mgpu_run_on_devices(NULL, 0, run_fn, &run_state), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_run_on_devices(NULL, -3, run_fn, &run_state), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_run_on_devices(NULL, MGPU_MAX_DEVICES + 1, run_fn, &run_state), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_run_on_devices(NULL, 1, NULL, &run_state), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(mgpu_run_on_devices(NULL, n + 1, run_fn, &run_state), MGPU_ERROR_INVALID_DEVICE);
    for (i = 0; i < 6; i++) CHECK_EQ_INT(run_state.calls[i], 0);
    CHECK_OK(mgpu_shutdown());
}

/* Many threads allocating, freeing and looking pointers up at once. */
typedef struct churn_arg { int rounds; } churn_arg;
static mgpu_result churn_fn(mgpu_device dev, int index, void *arg)
{
    const churn_arg *a = (const churn_arg *)arg;
    void *p[16];
    uint64_t s = 0x1234567ull + (uint64_t)index;
    int r, k;
    for (r = 0; r < a->rounds; r++) {
        for (k = 0; k < 16; k++) {
            size_t bytes;
            mgpu_device pd = -1;
            mgpu_result res;
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            bytes = 1 + (size_t)(s >> 40) % 5000;
            res = mgpu_malloc(&p[k], bytes);
            if (res) return res;
            if ((res = mgpu_memset(p[k], index & 0xFF, bytes)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_pointer_device((char *)p[k] + bytes - 1, &pd)) != MGPU_SUCCESS) return res;
            if (pd != dev) return MGPU_ERROR_WRONG_DEVICE;
        }
        {   /* streams and events made and dropped by many threads at once */
            mgpu_stream st = NULL;
            mgpu_event ev = NULL;
            mgpu_result res = mgpu_stream_create(&st);
            if (res) return res;
            if ((res = mgpu_event_create(&ev)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_memset_async(p[0], 0, 1, st)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_memset_async(p[0], index & 0xFF, 1, st)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_event_record(ev, st)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_event_synchronize(ev)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_event_destroy(ev)) != MGPU_SUCCESS) return res;
            if ((res = mgpu_stream_destroy(st)) != MGPU_SUCCESS) return res;
        }
        for (k = 0; k < 16; k++) {
            unsigned char last = 0;
            mgpu_result res = mgpu_memcpy(&last, p[k], 1);
            if (res) return res;
            if (last != (unsigned char)(index & 0xFF)) return MGPU_ERROR_INVALID_POINTER;
            if ((res = mgpu_free(p[k])) != MGPU_SUCCESS) return res;
        }
    }
    return MGPU_SUCCESS;
}

TEST(concurrent_alloc)
{
    mgpu_device devs[MGPU_MAX_DEVICES], list[16];
    churn_arg a;
    int n, i;
    TINIT();
    n = t_all_devices(devs);
    for (i = 0; i < 16; i++) list[i] = devs[i % n];
    a.rounds = 20;
    CHECK_OK(mgpu_run_on_devices(list, 16, churn_fn, &a));
    CHECK_OK(mgpu_shutdown());
}

/* mgpu_shutdown releases what the program left behind: memory of every kind, streams,
   events, modules and their kernels. This test frees nothing itself; in the ASan build
   (make test-asan) LeakSanitizer fails the run if shutdown leaked any of it. Afterwards a
   new cycle starts clean. */
TEST(shutdown_releases_everything)
{
    mgpu_device devs[MGPU_MAX_DEVICES];
    int n, i, cycle;
    for (cycle = 0; cycle < 2; cycle++) {
        TINIT();
        n = t_all_devices(devs);
        for (i = 0; i < n; i++) {
            void *p = NULL;
            mgpu_stream s = NULL;
            mgpu_event e = NULL;
            mgpu_module m = NULL;
            mgpu_kernel k = NULL;
            REQUIRE_OK(mgpu_set_device(devs[i]));
            CHECK_OK(mgpu_malloc(&p, 1000));
            CHECK_OK(mgpu_malloc_managed(&p, 1000));
            CHECK_OK(mgpu_malloc_host(&p, 1000));
            CHECK_OK(mgpu_stream_create(&s));
            CHECK_OK(mgpu_malloc_async(&p, 1000, s));
            CHECK_OK(mgpu_event_create(&e));
            CHECK_OK(mgpu_event_record(e, s));
            CHECK_OK(mgpu_module_create(t_ptx, strlen(t_ptx), &m));
            CHECK_OK(mgpu_module_kernel(m, "add_one", &k));
            CHECK_OK(mgpu_module_load(m, devs[i]));
        }
        CHECK_OK(mgpu_shutdown());
    }
}
