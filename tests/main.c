/* The test runner: see test.h. */
#include "test.h"

#include <stdarg.h>
#include <pthread.h>
#include <time.h>

/* ---------------------------------------------------------------- the table */
typedef struct ttest { const char *name; void (*fn)(void); tkind kind; } ttest;
static const ttest t_tests[] = {
#define T(name, kind) { #name, test_##name, kind },
#include "list.h"
#undef T
};
#define T_NTESTS (sizeof t_tests / sizeof t_tests[0])

static const tcfg t_once = { "once", MGPU_BACKEND_AUTO, 0 };
static const tcfg t_cpu1 = { "cpu1", MGPU_BACKEND_CPU, 1 };
static const tcfg t_cpu4 = { "cpu4", MGPU_BACKEND_CPU, 4 };
static const tcfg t_cuda = { "cuda", MGPU_BACKEND_CUDA, 2 };

const tcfg *tc = &t_once;
mgpu_result t_cuda_status = MGPU_ERROR_NOT_INITIALIZED;
char t_cuda_message[1024];
int t_gpu_count;
const char *t_argv0 = "";
const size_t t_sizes[T_NSIZES] = { 1, 7, 4097, ((size_t)1 << 20) + 3 };

/* ---------------------------------------------------------------- recording */
#define T_MAX_KEPT 3
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static int t_nfail;
static char t_msgs[T_MAX_KEPT][768];
static int t_skipped;
static char t_skip_reason[1024];

static int t_verbose;               /* MGPU_TEST_VERBOSE=1: every failure on stderr at once */

static void t_record(const char *file, int line, const char *err, const char *what)
{
    if (t_verbose) fprintf(stderr, "  %s:%d: %s%s%s%s\n", file, line, what, err && *err ? " [last error: " : "",
                           err && *err ? err : "", err && *err ? "]" : "");
    pthread_mutex_lock(&t_lock);
    if (t_nfail < T_MAX_KEPT) {
        if (err && *err) snprintf(t_msgs[t_nfail], sizeof t_msgs[0], "%s:%d: %s [last error: %s]", file, line, what, err);
        else snprintf(t_msgs[t_nfail], sizeof t_msgs[0], "%s:%d: %s", file, line, what);
    }
    t_nfail++;
    pthread_mutex_unlock(&t_lock);
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    t_record(file, line, mgpu_last_error(), what);
}

void t_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_skip_reason, sizeof t_skip_reason, fmt, ap);
    va_end(ap);
    t_skipped = 1;
}

int t_failed(void)
{
    int n;
    pthread_mutex_lock(&t_lock);
    n = t_nfail;
    pthread_mutex_unlock(&t_lock);
    return n;
}

/* The mgpu function a CHECK_ERR call names: the identifier before the first '('. */
static void t_function_name(const char *call, char *out, size_t cap)
{
    size_t n = 0;
    while (*call == ' ' || *call == '(') call++;
    while (call[n] && call[n] != '(' && call[n] != ' ' && n + 1 < cap) { out[n] = call[n]; n++; }
    out[n] = 0;
}

/* Leaves a message in mgpu_last_error() that names a function other than the one about to
   be called, so that CHECK_ERR sees the text of its own call. */
void t_prime(const char *call)
{
    char name[128];
    t_function_name(call, name, sizeof name);
    if (strcmp(name, "mgpu_get_device")) mgpu_get_device(NULL);     /* "dev is NULL" */
    else mgpu_stream_device(NULL, NULL);
}

void t_check_err(const char *file, int line, const char *call, mgpu_result got, mgpu_result want)
{
    char name[128];
    const char *err = mgpu_last_error();
    t_function_name(call, name, sizeof name);
    if (got != want) {
        char what[512];
        snprintf(what, sizeof what, "%s returned %s, expected %s", call, mgpu_result_string(got), mgpu_result_string(want));
        t_record(file, line, got == MGPU_SUCCESS ? "" : err, what);   /* on success the text is stale */
        return;
    }
    if (!err || !*err) t_fail(file, line, "%s returned %s but mgpu_last_error() is empty", call, mgpu_result_string(got));
    else if (!strstr(err, name))
        t_fail(file, line, "%s returned %s but mgpu_last_error() does not name %s", call, mgpu_result_string(got), name);
}

/* ---------------------------------------------------------------- helpers */
static uint64_t t_seed;
static uint64_t t_state;

static uint64_t t_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
uint64_t t_rand(void) { return t_splitmix(&t_state); }
uint32_t t_rand_u32(void) { return (uint32_t)(t_rand() >> 32); }
float t_rand_float(void) { return (float)((double)(t_rand() >> 40) / (double)(1ull << 24) * 2.0 - 1.0); }
void t_fill(void *p, size_t n)
{
    unsigned char *b = (unsigned char *)p;
    size_t i = 0;
    while (i + 8 <= n) { uint64_t v = t_rand(); memcpy(b + i, &v, 8); i += 8; }
    if (i < n) { uint64_t v = t_rand(); memcpy(b + i, &v, n - i); }
}

void t_check_mem(const char *file, int line, const void *got, const void *want, size_t n, const char *what)
{
    const unsigned char *g = (const unsigned char *)got, *w = (const unsigned char *)want;
    size_t i;
    if (!memcmp(g, w, n)) return;
    for (i = 0; i < n && g[i] == w[i]; i++) {}
    t_fail(file, line, "%s: %zu bytes differ from byte %zu on (got 0x%02x, expected 0x%02x)", what, n, i, g[i], w[i]);
}

void t_check_byte(const char *file, int line, const void *got, int v, size_t n, const char *what)
{
    const unsigned char *g = (const unsigned char *)got;
    size_t i;
    for (i = 0; i < n; i++)
        if (g[i] != (unsigned char)v) {
            t_fail(file, line, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, n, g[i], (unsigned char)v);
            return;
        }
}

typedef struct t_block { struct t_block *next; } t_block;
static t_block *t_blocks;
void *tmalloc(size_t n)
{
    t_block *b = (t_block *)malloc(sizeof(t_block) + 64 + n);
    if (!b) { fprintf(stderr, "tests: out of host memory\n"); exit(2); }
    pthread_mutex_lock(&t_lock);
    b->next = t_blocks;
    t_blocks = b;
    pthread_mutex_unlock(&t_lock);
    return (char *)b + 64;          /* 64-byte aligned past the header on glibc */
}
static void t_free_blocks(void)
{
    while (t_blocks) { t_block *n = t_blocks->next; free(t_blocks); t_blocks = n; }
}

int t_all_devices(mgpu_device out[MGPU_MAX_DEVICES])
{
    int n = mgpu_device_count(), i, k = 0;
    for (i = 0; i < n && k < MGPU_MAX_DEVICES; i++) out[k++] = i;
    if (mgpu_default_backend() == MGPU_BACKEND_CUDA)
        for (i = 0; i < mgpu_cpu_device_count() && k < MGPU_MAX_DEVICES; i++) out[k++] = mgpu_cpu_device(i);
    return k;
}

void t_note(const char *fmt, ...)
{
    va_list ap;
    if (!t_verbose) return;
    fprintf(stderr, "  note: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

void t_sleep_ms(int ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

int t_init(const char *file, int line)
{
    mgpu_desc d;
    mgpu_result r;
    memset(&d, 0, sizeof d);
    d.backend = tc->backend;
    d.cpu_devices = tc->cpu_devices;
    if (tc->backend == MGPU_BACKEND_CUDA && t_cuda_status != MGPU_SUCCESS) {
        t_skip("CUDA unavailable: %s (the CUDA line above says why)", mgpu_result_string(t_cuda_status));
        return 0;
    }
    r = mgpu_init(&d);
    if (r != MGPU_SUCCESS) {
        t_fail(file, line, "mgpu_init(%s) returned %s", tc->label, mgpu_result_string(r));
        return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- running */
static int t_selected(const char *full, int argc, char **argv)
{
    int i, any = 0;
    for (i = 1; i < argc; i++) {
        if (argv[i][0] == '-') continue;
        any = 1;
        if (strstr(full, argv[i])) return 1;
    }
    return !any;
}

static uint64_t t_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s) { h ^= (unsigned char)*s++; h *= 1099511628211ull; }
    return h;
}

static int t_passed_n, t_failed_n, t_skipped_n;
static int t_list_all;              /* -v: a line for every test run, not only failures */

/* The distinct skip reasons, each with how many runs it covers and the first few names. */
#define T_MAX_REASONS 32
#define T_NAMES_SHOWN 3
static struct t_reason {
    char text[1024];
    int count;
    char names[T_NAMES_SHOWN][160];
} t_reasons[T_MAX_REASONS];
static int t_nreasons, t_reasons_lost;

static void t_count_skip(const char *full, const char *reason)
{
    int i;
    for (i = 0; i < t_nreasons && strcmp(t_reasons[i].text, reason); i++) {}
    if (i == t_nreasons) {
        if (t_nreasons == T_MAX_REASONS) { t_reasons_lost++; return; }
        snprintf(t_reasons[i].text, sizeof t_reasons[i].text, "%s", reason);
        t_nreasons++;
    }
    if (t_reasons[i].count < T_NAMES_SHOWN) snprintf(t_reasons[i].names[t_reasons[i].count], sizeof t_reasons[i].names[0], "%s", full);
    t_reasons[i].count++;
}

/* One line per distinct reason: "skip N runs (a[cfg], b[cfg], ...): reason". */
static void t_print_skips(void)
{
    int i, k;
    for (i = 0; i < t_nreasons; i++) {
        const struct t_reason *q = &t_reasons[i];
        printf("skip %d run%s (", q->count, q->count == 1 ? "" : "s");
        for (k = 0; k < q->count && k < T_NAMES_SHOWN; k++) printf("%s%s", k ? ", " : "", q->names[k]);
        printf("%s): %s\n", q->count > T_NAMES_SHOWN ? ", ..." : "", q->text);
    }
    if (t_reasons_lost) printf("skip %d more run(s) with other reasons (-v lists them)\n", t_reasons_lost);
}

static void t_run(const ttest *t, const tcfg *cfg)
{
    char full[160];
    const char *msg;
    int i;
    snprintf(full, sizeof full, "%s[%s]", t->name, cfg->label);
    tc = cfg;
    t_nfail = 0;
    t_skipped = 0;
    t_skip_reason[0] = 0;
    t_state = t_seed ^ t_hash(full);
    t->fn();
    /* A test that returned early may have left mgpu initialized: clean up for the next. */
    if (mgpu_cuda_status(&msg) != MGPU_ERROR_NOT_INITIALIZED) {
        if (!t_nfail && !t_skipped) t_fail(__FILE__, __LINE__, "the test left mgpu initialized");
        mgpu_shutdown();
    }
    t_free_blocks();
    if (t_nfail) {
        printf("FAIL %s: ", full);
        for (i = 0; i < t_nfail && i < T_MAX_KEPT; i++) printf("%s%s", i ? " | " : "", t_msgs[i]);
        if (t_nfail > T_MAX_KEPT) printf(" (+%d more)", t_nfail - T_MAX_KEPT);
        printf("\n");
        t_failed_n++;
    } else if (t_skipped) {
        if (t_list_all) printf("skip %s: %s\n", full, t_skip_reason);
        t_count_skip(full, t_skip_reason);
        t_skipped_n++;
    } else {
        if (t_list_all) printf("ok %s\n", full);
        t_passed_n++;
    }
    fflush(stdout);
}

/* One mgpu_init(NULL) to learn whether the CUDA configuration can run. */
static void t_probe_cuda(void)
{
    mgpu_desc d;
    const char *msg = "";
    mgpu_result r;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_AUTO;
    r = mgpu_init(&d);
    if (r != MGPU_SUCCESS) {
        t_cuda_status = r;
        snprintf(t_cuda_message, sizeof t_cuda_message, "mgpu_init failed: %s", mgpu_last_error());
        return;
    }
    t_cuda_status = mgpu_cuda_status(&msg);
    snprintf(t_cuda_message, sizeof t_cuda_message, "%s", msg ? msg : "");
    t_gpu_count = mgpu_default_backend() == MGPU_BACKEND_CUDA ? mgpu_device_count() : 0;
    if (t_cuda_status == MGPU_SUCCESS && t_gpu_count == 0) t_cuda_status = MGPU_ERROR_NO_DEVICE;
    mgpu_shutdown();
}

int t_child_visible(void);          /* test_visible.c */

int main(int argc, char **argv)
{
    const char *env = getenv("MGPU_TEST_SEED");
    size_t i;
    int a;
    t_argv0 = argv[0];
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--child-visible")) return t_child_visible();
        if (!strcmp(argv[a], "--list")) {
            for (i = 0; i < T_NTESTS; i++) printf("%s\n", t_tests[i].name);
            return 0;
        }
        if (!strcmp(argv[a], "-v")) t_list_all = 1;
    }
    /* The tests choose their configuration through mgpu_desc: clear the variables that
       would override a zero field. MGPU_CUDA_PATH stays (it says where the driver is). */
    unsetenv("MGPU_DEVICE");
    unsetenv("MGPU_CPU_DEVICES");

    t_verbose = getenv("MGPU_TEST_VERBOSE") && atoi(getenv("MGPU_TEST_VERBOSE")) > 0;
    if (env && *env) t_seed = strtoull(env, NULL, 0);
    else t_seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("mgpu %s tests, seed %llu (MGPU_TEST_SEED=%llu repeats it)\n", mgpu_version(),
           (unsigned long long)t_seed, (unsigned long long)t_seed);

    t_probe_cuda();
    if (t_cuda_status == MGPU_SUCCESS) printf("CUDA: %d GPU(s): %s\n", t_gpu_count, t_cuda_message);
    else printf("CUDA: unavailable (%s): %s\n", mgpu_result_string(t_cuda_status), t_cuda_message);
    fflush(stdout);

    for (i = 0; i < T_NTESTS; i++) {
        const ttest *t = &t_tests[i];
        const tcfg *cfgs[3];
        int n = 0, k;
        switch (t->kind) {
        case T_ONCE: cfgs[n++] = &t_once; break;
        case T_CPU: cfgs[n++] = &t_cpu1; cfgs[n++] = &t_cpu4; break;
        case T_DEV: cfgs[n++] = &t_cpu1; cfgs[n++] = &t_cpu4; cfgs[n++] = &t_cuda; break;
        case T_CUDA: cfgs[n++] = &t_cuda; break;
        }
        for (k = 0; k < n; k++) {
            char full[160];
            snprintf(full, sizeof full, "%s[%s]", t->name, cfgs[k]->label);
            if (t_selected(full, argc, argv)) t_run(t, cfgs[k]);
        }
    }
    t_print_skips();
    printf("%d passed, %d failed, %d skipped\n", t_passed_n, t_failed_n, t_skipped_n);
    return t_failed_n ? 1 : 0;
}
