/* Lifetime, errors, version, driver loading, logging. */
#include "test.h"

#include <pthread.h>

TEST(version)
{
    char want[64];
    const char *v = mgpu_version();
    REQUIRE(v != NULL);
    CHECK(!strcmp(v, MGPU_VERSION_STRING));
    snprintf(want, sizeof want, "%d.%d.%d", MGPU_VERSION_MAJOR, MGPU_VERSION_MINOR, MGPU_VERSION_PATCH);
    CHECK(!strcmp(v, want));
}

TEST(result_strings)
{
    static const struct { mgpu_result r; const char *name; } all[] = {
#define R(x) { x, #x }
        R(MGPU_SUCCESS), R(MGPU_NOT_READY), R(MGPU_ERROR_INVALID_ARGUMENT), R(MGPU_ERROR_SIZE_OVERFLOW),
        R(MGPU_ERROR_NOT_INITIALIZED), R(MGPU_ERROR_ALREADY_INITIALIZED), R(MGPU_ERROR_NO_DRIVER),
        R(MGPU_ERROR_DRIVER_TOO_OLD), R(MGPU_ERROR_NO_DEVICE), R(MGPU_ERROR_INVALID_DEVICE),
        R(MGPU_ERROR_NOT_BOUND), R(MGPU_ERROR_WRONG_DEVICE), R(MGPU_ERROR_OUT_OF_MEMORY),
        R(MGPU_ERROR_INVALID_POINTER), R(MGPU_ERROR_INVALID_IMAGE), R(MGPU_ERROR_NOT_FOUND),
        R(MGPU_ERROR_NOT_SUPPORTED), R(MGPU_ERROR_STALE_KERNELS), R(MGPU_ERROR_THREAD), R(MGPU_ERROR_CUDA),
        R(MGPU_ERROR_NOT_ON_CURVE), R(MGPU_ERROR_NOT_IN_SUBGROUP), R(MGPU_ERROR_NOT_IN_FIELD),
        R(MGPU_ERROR_BAD_PADDING), R(MGPU_ERROR_BAD_LENGTH), R(MGPU_ERROR_IPC_INVALID_HANDLE), R(MGPU_ERROR_IPC_SAME_PROCESS),
        R(MGPU_ERROR_IPC_EXPORTER_GONE), R(MGPU_ERROR_IPC_NO_ANSWER)
#undef R
    };
    size_t i, j, n = sizeof all / sizeof all[0];
    const char *unknown;
    for (i = 0; i < n; i++) {
        const char *s = mgpu_result_string(all[i].r);
        if (!s || strcmp(s, all[i].name)) t_fail(__FILE__, __LINE__, "mgpu_result_string(%d) is \"%s\", expected \"%s\"",
                                                 (int)all[i].r, s ? s : "(null)", all[i].name);
        for (j = 0; j < i; j++) CHECK(all[i].r != all[j].r);   /* distinct codes */
    }
    CHECK(MGPU_SUCCESS == 0);
    for (i = 2; i < n; i++) CHECK(all[i].r < 0);                 /* errors are negative */
    unknown = mgpu_result_string((mgpu_result)12345);
    CHECK(unknown != NULL && *unknown);
    for (i = 0; i < n && unknown; i++) CHECK(strcmp(unknown, all[i].name) != 0);
    CHECK(mgpu_last_error() != NULL);
}

static mgpu_result core_noop(mgpu_device dev, int index, void *arg)
{
    (void)dev; (void)index; (void)arg;
    return MGPU_SUCCESS;
}

/* Every call that needs mgpu_init, called with otherwise valid arguments. */
static void check_not_initialized(void)
{
    static const char ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n";
    char host[64], host2[64];
    void *p = (void *)host;          /* sentinel: must stay untouched */
    void *native = (void *)host;
    mgpu_device d = 12345;
    mgpu_stream s = NULL;
    mgpu_event e = NULL;
    mgpu_thread th = NULL;
    mgpu_module m = NULL;
    mgpu_device_info info;
    mgpu_device_criteria crit;
    mgpu_peer_path path;
    int matrix[4], yes, count = -7;
    mgpu_device out[4];
    const char *msg = NULL;
    float x[4] = { 0 }, y[4] = { 0 };
    uint32_t u[4];

    memset(&crit, 0, sizeof crit);
    CHECK_EQ_INT(mgpu_device_count(), 0);
    CHECK_EQ_INT(mgpu_cpu_device_count(), 0);
    CHECK_EQ_INT(mgpu_cpu_device(0), -1);
    CHECK_EQ_INT(mgpu_cuda_status(&msg), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(msg != NULL && *msg);
    CHECK_EQ_INT(mgpu_cuda_status(NULL), MGPU_ERROR_NOT_INITIALIZED);

    CHECK_ERR(mgpu_shutdown(), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_set_device(0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_get_device(&d), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_EQ_INT(d, 12345);
    CHECK_ERR(mgpu_check_device(0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_unbind(), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_pointer_device(host, &d), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_device_info_get(0, &info), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_peer_matrix(matrix, 1), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_can_access_peer(0, 0, &yes), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_device_select(&crit, out, 4, &count), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_EQ_INT(count, -7);
    CHECK_ERR(mgpu_run_on_device(0, core_noop, NULL, &th), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(th == NULL);
    CHECK_ERR(mgpu_run_on_devices(NULL, 1, core_noop, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_stream_create(&s), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(s == NULL);
    CHECK_ERR(mgpu_stream_synchronize(NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_stream_query(NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_stream_device(NULL, &d), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_default_stream(0, &s), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_stream_create_flags(&s, 0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(s == NULL);
    CHECK_ERR(mgpu_event_create(&e), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_event_create_flags(&e, 0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(e == NULL);
    CHECK_ERR(mgpu_native_context(0, &native), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_native_stream(NULL, &native), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(native == (void *)host);
    CHECK_ERR(mgpu_device_synchronize(0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_synchronize_all(), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_malloc(&p, 16), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_malloc_async(&p, 16, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_malloc_host(&p, 16), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_malloc_managed(&p, 16), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(p == (void *)host);
    CHECK_ERR(mgpu_free(host), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_free_host(host), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_free_async(host, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_memset(host, 0, 4), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_memset_async(host, 0, 4, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_memcpy(host, host2, 4), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_memcpy_async(host, host2, 4, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_enable_peer_access(0, 0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_peer_path_get(0, 0, &path), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_copy_peer(host, host2, 4, 0), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_copy_peer_async(host, host2, 4, 0, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_module_create(ptx, sizeof ptx - 1, &m), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_builtin_module(&m), MGPU_ERROR_NOT_INITIALIZED);
    CHECK(m == NULL);
    CHECK_ERR(mgpu_axpy_f32(4, 1.0f, x, y, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_ERR(mgpu_iota_u32(4, 0, u, NULL), MGPU_ERROR_NOT_INITIALIZED);
    CHECK_OK(mgpu_free(NULL));      /* documented no-op */
}

TEST(not_initialized)
{
    mgpu_desc d;
    check_not_initialized();
    /* ... and the same after a full init/shutdown cycle */
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CPU;
    d.cpu_devices = 2;
    REQUIRE_OK(mgpu_init(&d));
    CHECK_OK(mgpu_shutdown());
    check_not_initialized();
}

TEST(init_shutdown)
{
    mgpu_desc d;
    mgpu_device dev = -1;
    void *p = NULL;
    int cycle;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CPU;
    d.cpu_devices = 3;
    for (cycle = 0; cycle < 3; cycle++) {
        REQUIRE_OK(mgpu_init(&d));
        CHECK_EQ_INT(mgpu_device_count(), 3);
        CHECK_EQ_INT(mgpu_cpu_device_count(), 3);
        CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CPU);
        CHECK_OK(mgpu_get_device(&dev));            /* mgpu_init binds the caller to device 0 */
        CHECK_EQ_INT(dev, 0);
        CHECK_OK(mgpu_set_device(2));
        CHECK_OK(mgpu_malloc(&p, 100));
        CHECK_OK(mgpu_free(p));
        /* double init: refused, and the first stays usable */
        CHECK_ERR(mgpu_init(&d), MGPU_ERROR_ALREADY_INITIALIZED);
        CHECK_ERR(mgpu_init(NULL), MGPU_ERROR_ALREADY_INITIALIZED);
        CHECK_EQ_INT(mgpu_device_count(), 3);
        CHECK_OK(mgpu_get_device(&dev));
        CHECK_EQ_INT(dev, 2);
        CHECK_OK(mgpu_shutdown());
        CHECK_ERR(mgpu_shutdown(), MGPU_ERROR_NOT_INITIALIZED);
    }
    /* A binding does not survive into the next cycle: device 2 no longer exists. */
    d.cpu_devices = 1;
    REQUIRE_OK(mgpu_init(&d));
    CHECK_EQ_INT(mgpu_device_count(), 1);
    dev = -1;
    CHECK_OK(mgpu_get_device(&dev));
    CHECK_EQ_INT(dev, 0);
    CHECK_OK(mgpu_shutdown());

    /* NULL desc and a zero desc: automatic backend */
    REQUIRE_OK(mgpu_init(NULL));
    CHECK(mgpu_device_count() >= 1);
    CHECK_EQ_INT(mgpu_default_backend(), t_cuda_status == MGPU_SUCCESS ? MGPU_BACKEND_CUDA : MGPU_BACKEND_CPU);
    CHECK_EQ_INT(mgpu_cpu_device_count(), 1);
    CHECK_OK(mgpu_shutdown());
    memset(&d, 0, sizeof d);
    REQUIRE_OK(mgpu_init(&d));
    CHECK_EQ_INT(mgpu_cuda_status(NULL), t_cuda_status);
    CHECK_OK(mgpu_shutdown());
}

TEST(init_bad_desc)
{
    mgpu_desc d;
    memset(&d, 0, sizeof d);
    d.backend = (mgpu_backend)7;
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(mgpu_device_count(), 0);
    d.backend = MGPU_BACKEND_CPU;
    d.cpu_devices = -1;
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_INVALID_ARGUMENT);
    d.cpu_devices = MGPU_MAX_DEVICES + 1;
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(mgpu_device_count(), 0);
    /* a good desc still works after the refusals */
    d.cpu_devices = MGPU_MAX_DEVICES;
    REQUIRE_OK(mgpu_init(&d));
    CHECK_EQ_INT(mgpu_device_count(), MGPU_MAX_DEVICES);
    CHECK_EQ_INT(mgpu_cpu_device(MGPU_MAX_DEVICES - 1), MGPU_MAX_DEVICES - 1);
    CHECK_EQ_INT(mgpu_cpu_device(MGPU_MAX_DEVICES), -1);
    CHECK_OK(mgpu_shutdown());
}

/* MGPU_CPU_DEVICES and MGPU_DEVICE fill zero fields of mgpu_desc. */
TEST(init_environment)
{
    mgpu_desc d;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CPU;
    setenv("MGPU_CPU_DEVICES", "3", 1);
    if (mgpu_init(&d) == MGPU_SUCCESS) {
        CHECK_EQ_INT(mgpu_device_count(), 3);
        CHECK_OK(mgpu_shutdown());
    } else {
        t_fail(__FILE__, __LINE__, "mgpu_init with MGPU_CPU_DEVICES=3 failed");
    }
    d.cpu_devices = 2;               /* the desc wins over the environment */
    if (mgpu_init(&d) == MGPU_SUCCESS) {
        CHECK_EQ_INT(mgpu_device_count(), 2);
        CHECK_OK(mgpu_shutdown());
    } else {
        t_fail(__FILE__, __LINE__, "mgpu_init with cpu_devices = 2 failed");
    }
    d.cpu_devices = 0;
    setenv("MGPU_CPU_DEVICES", "0", 1);
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_INVALID_ARGUMENT);
    setenv("MGPU_CPU_DEVICES", "many", 1);
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_INVALID_ARGUMENT);
    unsetenv("MGPU_CPU_DEVICES");

    d.backend = MGPU_BACKEND_AUTO;
    setenv("MGPU_DEVICE", "cpu", 1);
    if (mgpu_init(&d) == MGPU_SUCCESS) {
        CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CPU);
        CHECK_EQ_INT(mgpu_device_count(), 1);
        CHECK(mgpu_cuda_status(NULL) != MGPU_SUCCESS);   /* CUDA not in use */
        CHECK_OK(mgpu_shutdown());
    } else {
        t_fail(__FILE__, __LINE__, "mgpu_init with MGPU_DEVICE=cpu failed");
    }
    setenv("MGPU_DEVICE", "tpu", 1);
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(mgpu_device_count(), 0);
    unsetenv("MGPU_DEVICE");
}

TEST(no_driver)
{
    static const char *path = "/nonexistent/libcuda.so.1";
    mgpu_desc d = {0};
    const char *msg = NULL, *old;
    char saved[512] = "";
    void *p = NULL;
    mgpu_result r;

    d.backend = MGPU_BACKEND_CUDA;
    d.driver_path = path;
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_NO_DRIVER);
    CHECK_CONTAINS(mgpu_last_error(), path);
    CHECK_EQ_INT(mgpu_device_count(), 0);
    CHECK_ERR(mgpu_malloc(&p, 16), MGPU_ERROR_NOT_INITIALIZED);  /* a failed init leaves nothing initialized */

    /* AUTO falls back to the CPU devices and says why */
    d.backend = MGPU_BACKEND_AUTO;
    d.cpu_devices = 2;
    REQUIRE_OK(mgpu_init(&d));
    CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CPU);
    CHECK_EQ_INT(mgpu_device_count(), 2);
    CHECK_EQ_INT(mgpu_cpu_device_count(), 2);
    r = mgpu_cuda_status(&msg);
    CHECK_EQ_INT(r, MGPU_ERROR_NO_DRIVER);
    REQUIRE(msg != NULL);
    CHECK_CONTAINS(msg, path);
    CHECK(strlen(msg) > 40 && strchr(msg, ' '));       /* a sentence, not a code */
    CHECK_EQ_INT(mgpu_driver_version(), 0);
    CHECK_OK(mgpu_malloc(&p, 16));                      /* CPU devices work */
    CHECK_OK(mgpu_memset(p, 1, 16));
    CHECK_OK(mgpu_free(p));
    CHECK_OK(mgpu_shutdown());

    /* A library that exists but is no CUDA driver */
    d.backend = MGPU_BACKEND_CUDA;
    d.driver_path = "libm.so.6";
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_NO_DRIVER);
    CHECK_CONTAINS(mgpu_last_error(), "libm.so.6");

    /* MGPU_CUDA_PATH is used when driver_path is NULL */
    old = getenv("MGPU_CUDA_PATH");
    if (old) snprintf(saved, sizeof saved, "%s", old);
    setenv("MGPU_CUDA_PATH", "/nonexistent/from-env/libcuda.so.1", 1);
    d.driver_path = NULL;
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_NO_DRIVER);
    CHECK_CONTAINS(mgpu_last_error(), "/nonexistent/from-env/libcuda.so.1");
    if (old) setenv("MGPU_CUDA_PATH", saved, 1); else unsetenv("MGPU_CUDA_PATH");
}

/* build/libfake_old_cuda.so (tests/fixtures/fake_old_cuda.c) reports CUDA 11.4. */
TEST(driver_too_old)
{
    const char *lib = getenv("MGPU_FAKE_OLD_DRIVER");
    const char *msg = NULL;
    mgpu_desc d = {0};
    if (!lib || !*lib) SKIP("MGPU_FAKE_OLD_DRIVER is not set (make test-unit sets it to build/libfake_old_cuda.so)");
    d.backend = MGPU_BACKEND_CUDA;
    d.driver_path = lib;
    CHECK_ERR(mgpu_init(&d), MGPU_ERROR_DRIVER_TOO_OLD);
    CHECK_CONTAINS(mgpu_last_error(), "11.4");          /* found */
    CHECK_CONTAINS(mgpu_last_error(), "12.0");          /* needed */
    CHECK_EQ_INT(mgpu_device_count(), 0);
    d.backend = MGPU_BACKEND_AUTO;
    REQUIRE_OK(mgpu_init(&d));
    CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CPU);
    CHECK_EQ_INT(mgpu_cuda_status(&msg), MGPU_ERROR_DRIVER_TOO_OLD);
    CHECK_CONTAINS(msg, "11.4");
    CHECK_CONTAINS(msg, "12.0");
    CHECK_EQ_INT(mgpu_driver_version(), 0);
    CHECK_OK(mgpu_shutdown());
}

TEST(cuda_status)
{
    const char *msg = NULL;
    mgpu_result r;
    TINIT();
    r = mgpu_cuda_status(&msg);
    CHECK_EQ_INT(mgpu_cuda_status(NULL), r);
    REQUIRE(msg != NULL);
    CHECK(strlen(msg) > 10);
    if (IS_CUDA()) {
        CHECK_EQ_INT(r, MGPU_SUCCESS);
        CHECK(mgpu_driver_version() >= MGPU_MIN_DRIVER_VERSION);
        CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CUDA);
        CHECK_EQ_INT(mgpu_device_count(), t_gpu_count);
    } else {
        /* CPU chosen: CUDA is not in use, and says why */
        CHECK(r == MGPU_ERROR_NO_DRIVER || r == MGPU_ERROR_DRIVER_TOO_OLD || r == MGPU_ERROR_NO_DEVICE);
        CHECK_EQ_INT(mgpu_default_backend(), MGPU_BACKEND_CPU);
    }
    CHECK_OK(mgpu_shutdown());
}

/* ---------------------------------------------------------------- logging */
typedef struct logcap {
    pthread_mutex_t lock;
    int calls, errors;
    void *user;
    mgpu_log_level level;
    char last[1024];
    int saw_thread_error;
} logcap;
/* Static, not on the stack: a callback the library keeps calling later must not scribble
   on a dead frame. */
static logcap core_log = { PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, MGPU_LOG_INFO, "", 0 };

static void core_log_fn(mgpu_log_level level, const char *message, void *user_data)
{
    logcap *c = &core_log;
    pthread_mutex_lock(&c->lock);
    c->calls++;
    if (level == MGPU_LOG_ERROR) c->errors++;
    c->user = user_data;
    c->level = level;
    snprintf(c->last, sizeof c->last, "%s", message ? message : "(null)");
    if (message && strstr(message, "mgpu_stream_create")) c->saw_thread_error = 1;
    pthread_mutex_unlock(&c->lock);
}

static mgpu_result core_fail_in_thread(mgpu_device dev, int index, void *arg)
{
    (void)dev; (void)index; (void)arg;
    return mgpu_stream_create(NULL);            /* INVALID_ARGUMENT, logged from this thread */
}

static void core_log_reset(void)
{
    pthread_mutex_lock(&core_log.lock);
    core_log.calls = core_log.errors = core_log.saw_thread_error = 0;
    core_log.user = NULL;
    core_log.last[0] = 0;
    pthread_mutex_unlock(&core_log.lock);
}

TEST(log_callback)
{
    mgpu_desc d;
    void *p = (void *)&d;
    int token = 42, before;
    mgpu_thread th = NULL;
    mgpu_result fr = MGPU_SUCCESS;
    memset(&d, 0, sizeof d);
    d.backend = tc->backend;
    d.cpu_devices = tc->cpu_devices;
    d.log = core_log_fn;
    d.log_user_data = &token;
    core_log_reset();
    REQUIRE_OK(mgpu_init(&d));
    before = core_log.errors;
    CHECK_EQ_INT(before, 0);                     /* a good init logs no error */
    if (mgpu_malloc(&p, 0) == MGPU_SUCCESS) t_fail(__FILE__, __LINE__, "mgpu_malloc(&p, 0) succeeded");
    CHECK_EQ_INT(core_log.errors, before + 1);
    CHECK_EQ_INT(core_log.level, MGPU_LOG_ERROR);
    CHECK(core_log.user == (void *)&token);
    CHECK(!strcmp(core_log.last, mgpu_last_error()));
    CHECK_CONTAINS(core_log.last, "mgpu_malloc");
    /* a failure in another thread reaches the same callback */
    REQUIRE_OK(mgpu_run_on_device(0, core_fail_in_thread, NULL, &th));
    CHECK_OK(mgpu_thread_join(th, &fr));
    CHECK_EQ_INT(fr, MGPU_ERROR_INVALID_ARGUMENT);
    CHECK(core_log.saw_thread_error);
    CHECK_OK(mgpu_shutdown());

    /* a failed init is logged too */
    core_log_reset();
    d.backend = MGPU_BACKEND_CUDA;
    d.driver_path = "/nonexistent/libcuda.so.1";
    CHECK(mgpu_init(&d) == MGPU_ERROR_NO_DRIVER);
    CHECK(core_log.errors >= 1);
    CHECK_CONTAINS(core_log.last, "/nonexistent/libcuda.so.1");

    /* without a callback nothing is called */
    memset(&d, 0, sizeof d);
    d.backend = tc->backend;
    d.cpu_devices = tc->cpu_devices;
    REQUIRE_OK(mgpu_init(&d));
    core_log_reset();
    CHECK(mgpu_malloc(&p, 0) == MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(core_log.calls, 0);
    CHECK_OK(mgpu_shutdown());
}

/* The callback and user_data of mgpu_desc belong to one init..shutdown cycle: once
   mgpu_shutdown returned (or mgpu_init failed) the library must not call them again,
   since user_data may be gone. */
TEST(log_callback_after_shutdown)
{
    mgpu_desc d;
    void *p = NULL;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CPU;
    d.log = core_log_fn;
    d.log_user_data = &d;
    REQUIRE_OK(mgpu_init(&d));
    CHECK_OK(mgpu_shutdown());
    core_log_reset();
    CHECK(mgpu_malloc(&p, 16) == MGPU_ERROR_NOT_INITIALIZED);
    CHECK(mgpu_shutdown() == MGPU_ERROR_NOT_INITIALIZED);
    CHECK_EQ_INT(core_log.calls, 0);

    d.backend = MGPU_BACKEND_CUDA;
    d.driver_path = "/nonexistent/libcuda.so.1";
    CHECK(mgpu_init(&d) == MGPU_ERROR_NO_DRIVER);      /* logged: this call had the callback */
    core_log_reset();
    CHECK(mgpu_malloc(&p, 16) == MGPU_ERROR_NOT_INITIALIZED);
    CHECK_EQ_INT(core_log.calls, 0);
}
