/* suite_processes: several processes (mgpu.h "SEVERAL PROCESSES").
   - Device selection: mgpu_desc.gpus / gpus_per_rank and MGPU_GPUS, by the launchers' local
     rank variables, and every rejected form; needs 2 GPUs (the fake GPUs in `make test`).
   - IPC between this process and a child it starts (this program again, exec'ed): the child
     opens the parent's memory and event, waits for the event on a stream, reduces the
     parent's data with mgpu_reduce on its device and writes into it; the parent then sees
     the child's bytes. Then the errors: a handle of this process, of an exporter that
     exited, of memory the exporter freed, bytes that are no handle, memory that cannot be
     exported. On the CPU backend (memfd shared memory) and on the CUDA backend (the driver's
     cuIpc calls: the fake libcuda in CI, the real driver on a GPU machine).
   - The same with pool memory (mgpu_malloc_async; ipc_pool[...]): on GPUs the pool's file
     descriptor travels over the exporter's Unix socket; also an exporter that shut mgpu
     down. ipc_pool_socket: a stand-in exporter (a child that binds the exporter's socket
     name by hand) that closes the socket, answers without a descriptor, passes /dev/null or
     refuses: each a distinct status, and no descriptor of the importer leaks.
   A child that hangs is killed after 60 s and fails the test. On Windows (the mingw build
   under wine) no child can be forked: ipc[cuda] skips, and ipc[cpu] checks that CPU device
   memory is refused there (MGPU_ERROR_NOT_SUPPORTED) and that a CPU event still exports;
   ipc_pool[...] check that pool memory is refused there.
   Usage: suite_processes [substring...] runs the tests whose name contains one of the
   substrings. */
#define _POSIX_C_SOURCE 200809L
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include "tests/suites/suite.h"

#ifndef _WIN32                          /* the IPC tests' child processes: fork and exec */
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#endif

static const char *cur_name;
static int cur_failed;
#define CHECK(c) do { if (!(c)) { printf("  %s: %s:%d: CHECK(%s) [last error: %s]\n", cur_name, __FILE__, __LINE__, #c, \
                                        mgpu_last_error()); cur_failed = 1; } } while (0)
#define CHECK_IS(call, want) do { mgpu_result r_ = (call); if (r_ != (want)) { printf("  %s: %s:%d: %s gave %s, expected " \
    "%s [last error: %s]\n", cur_name, __FILE__, __LINE__, #call, mgpu_result_string(r_), mgpu_result_string(want), \
    mgpu_last_error()); cur_failed = 1; } } while (0)
#define CHECK_OK(call) CHECK_IS(call, MGPU_SUCCESS)

static const char *const rank_vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK" };
static void clear_selection_env(void)
{
    size_t i;
    for (i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) unsetenv(rank_vars[i]);
    unsetenv("MGPU_GPUS");
}

/* mgpu_init on one backend, without a device selection: 1, or 0 when it failed (a CUDA
   test without a GPU skips; the CPU devices must work). */
static int init_backend(mgpu_backend backend)
{
    mgpu_desc d;
    mgpu_result r;
    memset(&d, 0, sizeof d);
    d.backend = backend;
    clear_selection_env();
    if ((r = mgpu_init(&d)) == MGPU_SUCCESS) return 1;
    if (backend == MGPU_BACKEND_CUDA) { skip("%s: no CUDA device: %s", cur_name, mgpu_last_error()); cur_failed = -1; }
    else { CHECK_OK(r); }
    return 0;
}

/* ---------------------------------------------------------------- device selection */
/* mgpu_init(d) on CUDA must give exactly these ordinals (n of them), then shut down. */
static void expect_gpus(const mgpu_desc *d, const int *want, int n, const char *what)
{
    mgpu_device_info info;
    int i;
    mgpu_result r = mgpu_init(d);
    if (r != MGPU_SUCCESS) { printf("  %s: mgpu_init: %s\n", what, mgpu_last_error()); cur_failed = 1; return; }
    if (mgpu_device_count() != n) { printf("  %s: %d devices, expected %d\n", what, mgpu_device_count(), n); cur_failed = 1; }
    for (i = 0; i < n && i < mgpu_device_count(); i++) {
        CHECK_OK(mgpu_device_info_get(i, &info));
        if (info.backend != MGPU_BACKEND_CUDA || info.ordinal != want[i]) {
            printf("  %s: device %d is CUDA ordinal %d, expected %d\n", what, i, info.ordinal, want[i]);
            cur_failed = 1;
        }
    }
    CHECK_OK(mgpu_shutdown());
}

/* mgpu_init(d) must fail with `want`, name mgpu_init, and leave mgpu usable. */
static void expect_rejected(const mgpu_desc *d, mgpu_result want, const char *what)
{
    mgpu_desc cpu;
    mgpu_result r = mgpu_init(d);
    if (r != want || !strstr(mgpu_last_error(), "mgpu_init")) {
        printf("  %s: mgpu_init gave %s (\"%s\"), expected %s\n", what, mgpu_result_string(r), mgpu_last_error(),
               mgpu_result_string(want));
        cur_failed = 1;
    }
    if (r == MGPU_SUCCESS) mgpu_shutdown();
    memset(&cpu, 0, sizeof cpu);                      /* still usable (the CPU: no selection) */
    cpu.backend = MGPU_BACKEND_CPU;
    r = mgpu_init(&cpu);
    CHECK(r == MGPU_SUCCESS);
    if (r == MGPU_SUCCESS) CHECK_OK(mgpu_shutdown());
}

static void test_local_rank(void)
{
    clear_selection_env();
    CHECK(mgpu_local_rank() == -1);
    setenv("LOCAL_RANK", "5", 1);
    CHECK(mgpu_local_rank() == 5);
    setenv("SLURM_LOCALID", "2", 1);                  /* earlier in the list: wins */
    CHECK(mgpu_local_rank() == 2);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
    CHECK(mgpu_local_rank() == 3);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x3", 1);
    CHECK(mgpu_local_rank() == -1);
    clear_selection_env();
}

static int gpu_count(void)
{
    int n = 0;
    mgpu_desc d;
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CUDA;
    if (mgpu_init(&d) == MGPU_SUCCESS) { n = mgpu_device_count(); mgpu_shutdown(); }
    return n;
}

static void test_select_devices(void)
{
    mgpu_desc d;
    int g = gpu_count(), all[MGPU_MAX_DEVICES], i, rank;
    int one[1] = { 1 }, swapped[2] = { 1, 0 }, twice[2] = { 0, 0 }, want[2], missing[1];
    if (g < 2) { skip("%s: needs 2 GPUs, this machine has %d", cur_name, g); cur_failed = -1; return; }
    clear_selection_env();
    memset(&d, 0, sizeof d);
    d.backend = MGPU_BACKEND_CUDA;
    for (i = 0; i < g; i++) all[i] = i;
    expect_gpus(&d, all, g, "every GPU by default");
    d.gpus = one; d.ngpus = 1;
    expect_gpus(&d, one, 1, "gpus = {1}");
    d.gpus = swapped; d.ngpus = 2;
    expect_gpus(&d, swapped, 2, "gpus = {1, 0}");
    d.gpus = NULL; d.ngpus = 0; d.gpus_per_rank = 1;
    expect_gpus(&d, all, 1, "gpus_per_rank = 1 without a launcher: rank 0");
    for (rank = 0; rank < 2 * g; rank++) {            /* round-robin over the GPUs */
        char v[16], what[64];
        snprintf(v, sizeof v, "%d", rank);
        setenv("LOCAL_RANK", v, 1);
        want[0] = rank % g;
        snprintf(what, sizeof what, "LOCAL_RANK=%d, 1 per rank", rank);
        expect_gpus(&d, want, 1, what);
    }
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);     /* OpenMPI's variable before LOCAL_RANK */
    setenv("LOCAL_RANK", "0", 1);
    want[0] = 1 % g;
    expect_gpus(&d, want, 1, "OMPI_COMM_WORLD_LOCAL_RANK=1 LOCAL_RANK=0");
    d.gpus_per_rank = 2;                              /* rank 1, 2 each: ordinals 2 and 3 mod g */
    want[0] = 2 % g; want[1] = 3 % g;
    expect_gpus(&d, want, 2, "OMPI_COMM_WORLD_LOCAL_RANK=1, 2 per rank");
    clear_selection_env();

    memset(&d, 0, sizeof d);                          /* MGPU_GPUS when the desc asks nothing */
    d.backend = MGPU_BACKEND_CUDA;
    setenv("MGPU_GPUS", "1", 1);
    expect_gpus(&d, one, 1, "MGPU_GPUS=1");
    setenv("MGPU_GPUS", "1,0", 1);
    expect_gpus(&d, swapped, 2, "MGPU_GPUS=1,0");
    setenv("MGPU_GPUS", "local-rank", 1);
    setenv("SLURM_LOCALID", "1", 1);
    want[0] = 1 % g;
    expect_gpus(&d, want, 1, "MGPU_GPUS=local-rank SLURM_LOCALID=1");
    setenv("MGPU_GPUS", "local-rank:2", 1);
    want[0] = 2 % g; want[1] = 3 % g;
    expect_gpus(&d, want, 2, "MGPU_GPUS=local-rank:2 SLURM_LOCALID=1");
    d.gpus = one; d.ngpus = 1;                        /* the desc wins over MGPU_GPUS */
    expect_gpus(&d, one, 1, "gpus = {1} with MGPU_GPUS set");
    d.gpus = NULL; d.ngpus = 0;

    /* rejected */
    setenv("MGPU_GPUS", "1,x", 1);
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "MGPU_GPUS=1,x");
    setenv("MGPU_GPUS", "1,", 1);
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "MGPU_GPUS=1,");
    setenv("MGPU_GPUS", "local-rank:0", 1);
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "MGPU_GPUS=local-rank:0");
    setenv("MGPU_GPUS", "local-rankx", 1);
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "MGPU_GPUS=local-rankx");
    setenv("MGPU_GPUS", "0,0", 1);
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "MGPU_GPUS=0,0");
    {
        char v[32];
        snprintf(v, sizeof v, "0,%d", g);
        setenv("MGPU_GPUS", v, 1);
        expect_rejected(&d, MGPU_ERROR_INVALID_DEVICE, "MGPU_GPUS names a GPU that does not exist");
    }
    clear_selection_env();
    missing[0] = g;
    d.gpus = missing; d.ngpus = 1;
    expect_rejected(&d, MGPU_ERROR_INVALID_DEVICE, "gpus = {G}");
    missing[0] = -1;
    expect_rejected(&d, MGPU_ERROR_INVALID_DEVICE, "gpus = {-1}");
    d.gpus = twice; d.ngpus = 2;
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "gpus = {0, 0}");
    d.gpus = NULL; d.ngpus = 1;
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "gpus NULL, ngpus 1");
    d.gpus = one; d.ngpus = 0;
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "gpus set, ngpus 0");
    d.ngpus = 1; d.gpus_per_rank = 1;
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "a list and gpus_per_rank");
    d.gpus = NULL; d.ngpus = 0; d.gpus_per_rank = g + 1;
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "more GPUs per rank than GPUs");
    d.gpus_per_rank = -1;
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "gpus_per_rank = -1");
    d.gpus_per_rank = 1;
    setenv("LOCAL_RANK", "one", 1);
    expect_rejected(&d, MGPU_ERROR_INVALID_ARGUMENT, "LOCAL_RANK=one");
    clear_selection_env();
}

/* ---------------------------------------------------------------- IPC */
#ifndef _WIN32
#define IPC_WORDS 65536                  /* u32 words the parent exports (after a 4 KiB offset) */
#define IPC_OFFSET 4096
#define CHILD_WRITES 256                 /* bytes the child sets to 0xAB */

static void to_hex(const mgpu_ipc_handle *h, char *out)
{
    int i;
    for (i = 0; i < MGPU_IPC_HANDLE_SIZE; i++) sprintf(out + 2 * i, "%02x", h->bytes[i]);
}
static int from_hex(const char *s, mgpu_ipc_handle *h)
{
    int i;
    unsigned v;
    if (strlen(s) != 2 * MGPU_IPC_HANDLE_SIZE) return 0;
    for (i = 0; i < MGPU_IPC_HANDLE_SIZE; i++) {
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return 0;
        h->bytes[i] = (unsigned char)v;
    }
    return 1;
}

/* Runs this program with args (MGPU_DEVICE=backend); its stdout goes to out (cap bytes). If
   hold is not NULL the child's stdin stays a pipe the caller closes (*hold) to let it go.
   Returns the exit status, -1 when it had to be killed after 60 s. */
static int run_child(const char *backend, char *const args[], char *out, size_t cap, int *hold, pid_t *started)
{
    int fds[2], in[2], status = 0, waited;
    size_t got = 0;
    pid_t pid;
    char *argv[8];
    int i;
    argv[0] = (char *)"/proc/self/exe";
    for (i = 0; args[i] && i < 6; i++) argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    if (pipe(fds) != 0 || pipe(in) != 0) return -2;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(in[0], 0);
        close(fds[0]); close(fds[1]); close(in[0]); close(in[1]);
        setenv("MGPU_DEVICE", backend, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    close(in[0]);
    if (started) *started = pid;
    if (hold) *hold = in[1]; else close(in[1]);
    for (;;) {                           /* the child's output, until it closes stdout */
        ssize_t r = read(fds[0], out + got, cap - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
        if (hold && memchr(out, '\n', got)) break;   /* a held child prints one line, then waits */
        if (got == cap - 1) break;
    }
    out[got] = 0;
    close(fds[0]);
    if (hold) return 0;
    for (waited = 0; waited < 6000; waited++) {
        struct timespec ms10 = { 0, 10000000 };
        if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        nanosleep(&ms10, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}
static void reap(int hold, pid_t pid)
{
    int status;
    close(hold);
    waitpid(pid, &status, 0);
}

/* Child: --ipc-open MEM EVENT: opens both, waits for the event, sums the words, writes
   CHILD_WRITES bytes of 0xAB at the start, prints "sum=S". */
static int child_open(const char *mem_hex, const char *ev_hex)
{
    mgpu_ipc_handle mh, eh;
    mgpu_stream s;
    mgpu_event ev;
    void *p;
    uint32_t sum = 0;                    /* u32 sums wrap */
    int ok;
    if (!from_hex(mem_hex, &mh) || !from_hex(ev_hex, &eh) || mgpu_init(NULL) != MGPU_SUCCESS) return 2;
    ok = mgpu_stream_create(&s) == MGPU_SUCCESS && mgpu_ipc_open_event(&eh, &ev) == MGPU_SUCCESS &&
         mgpu_stream_wait_event(s, ev) == MGPU_SUCCESS && mgpu_ipc_open_memory(&mh, &p) == MGPU_SUCCESS;
    if (!ok) { printf("error=%s\n", mgpu_last_error()); return 3; }
    ok = mgpu_reduce(p, IPC_WORDS, MGPU_U32, MGPU_OP_SUM, &sum, s) == MGPU_SUCCESS &&
         mgpu_memset_async(p, 0xAB, CHILD_WRITES, s) == MGPU_SUCCESS && mgpu_stream_synchronize(s) == MGPU_SUCCESS &&
         mgpu_ipc_close_memory(p) == MGPU_SUCCESS && mgpu_event_destroy(ev) == MGPU_SUCCESS;
    if (!ok) { printf("error=%s\n", mgpu_last_error()); return 4; }
    printf("sum=%llu\n", (unsigned long long)sum);
    mgpu_shutdown();
    return 0;
}

/* Child: --ipc-export MODE: exports memory (pool memory for MODE pool-...) and prints the
   handle; MODE "exit" then exits, "freed" frees it first (pool memory: after allocating
   again, so that the pool cannot hand out the same address), "shutdown" calls mgpu_shutdown
   first; both then wait for stdin to close. */
static int child_export(const char *mode)
{
    mgpu_ipc_handle h;
    char hex[2 * MGPU_IPC_HANDLE_SIZE + 1], c;
    void *p, *q = NULL;
    int pool = !strncmp(mode, "pool-", 5);
    if (pool) mode += 5;
    if (mgpu_init(NULL) != MGPU_SUCCESS) return 2;
    if ((pool ? mgpu_malloc_async(&p, 1 << 16, NULL) : mgpu_malloc(&p, 1 << 16)) != MGPU_SUCCESS ||
        mgpu_stream_synchronize(NULL) != MGPU_SUCCESS || mgpu_ipc_export_memory(p, &h) != MGPU_SUCCESS) return 2;
    if (!strcmp(mode, "freed") &&
        (pool ? mgpu_malloc_async(&q, 1 << 16, NULL) != MGPU_SUCCESS || mgpu_free_async(p, NULL) != MGPU_SUCCESS
              : mgpu_free(p) != MGPU_SUCCESS || mgpu_malloc(&q, 1 << 16) != MGPU_SUCCESS)) return 3;
    if (!strcmp(mode, "shutdown") && mgpu_shutdown() != MGPU_SUCCESS) return 4;
    to_hex(&h, hex);
    printf("%s\n", hex);
    fflush(stdout);
    if (strcmp(mode, "exit")) while (read(0, &c, 1) > 0) {}
    if (strcmp(mode, "shutdown")) mgpu_shutdown();
    return 0;
}

/* Child: --ipc-rogue HANDLE MODE: stands in for the exporter of the GPU pool handle HANDLE
   (mgpu.h's >>ipc: its wire layout and socket name): binds the socket name of this pid and
   the handle's key, prints the handle with this pid, takes one request and answers by MODE:
   "close" (no answer), "nofd" (served, but no descriptor), "badfd" (/dev/null), "refuse";
   then waits for stdin to close. */
static int child_rogue(const char *hex, const char *mode)
{
    mgpu_ipc_handle h;
    mgpu__ipc_wire w;
    mgpu__ipc_request q;
    mgpu__ipc_answer answer;
    struct sockaddr_un a;
    char out[2 * MGPU_IPC_HANDLE_SIZE + 1], c;
    int s, conn, fd = -1;
    if (!from_hex(hex, &h)) return 2;
    memcpy(&w, h.bytes, sizeof w);
    w.pid = (int32_t)getpid();
    memcpy(h.bytes, &w, sizeof w);
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || bind(s, (struct sockaddr *)&a, mgpu__ipc_address((int)w.pid, w.id[0], &a)) != 0 || listen(s, 4) != 0)
        return 3;
    to_hex(&h, out);
    printf("%s\n", out);
    fflush(stdout);
    conn = accept(s, NULL, NULL);
    if (conn < 0 || recv(conn, &q, sizeof q, MSG_WAITALL) != (ssize_t)sizeof q) return 4;
    answer.status = strcmp(mode, "refuse") ? MGPU__IPC_SERVED : MGPU__IPC_REFUSED;
    if (!strcmp(mode, "badfd")) fd = open("/dev/null", O_RDWR);
    if (strcmp(mode, "close")) mgpu__ipc_send_answer(conn, &answer, fd);
    close(conn);
    while (read(0, &c, 1) > 0) {}
    return 0;
}

/* Descriptors this process has open (a failed open must leave none behind). */
static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

static void test_ipc(mgpu_backend backend, int pool)
{
    const char *name = backend == MGPU_BACKEND_CUDA ? "cuda" : "cpu";
    mgpu_ipc_handle mh, eh, bad;
    char mhex[2 * MGPU_IPC_HANDLE_SIZE + 1], ehex[2 * MGPU_IPC_HANDLE_SIZE + 1], out[4096], want[64];
    char *args[4];
    uint32_t *host, *shared;
    uint8_t *base;
    uint64_t sum = 0;
    mgpu_event ev, plain, opened;
    void *p, *pinned;
    int i, rc, hold;
    pid_t pid;
    mgpu_result r;
    if (!init_backend(backend)) return;
    host = (uint32_t *)malloc(IPC_WORDS * 4);
    if (!host) { cur_failed = 1; mgpu_shutdown(); return; }
    for (i = 0; i < IPC_WORDS; i++) { host[i] = (uint32_t)rnd(); sum += host[i]; }
    if (pool) CHECK_OK(mgpu_malloc_async((void **)&base, IPC_OFFSET + IPC_WORDS * 4, NULL));
    else CHECK_OK(mgpu_malloc((void **)&base, IPC_OFFSET + IPC_WORDS * 4));
    shared = (uint32_t *)(void *)(base + IPC_OFFSET);
    CHECK_OK(mgpu_memcpy(shared, host, IPC_WORDS * 4));
    CHECK_OK(mgpu_event_create_flags(&ev, MGPU_EVENT_INTERPROCESS));
    CHECK_OK(mgpu_event_record(ev, NULL));
    CHECK_OK(mgpu_device_synchronize(0));
    CHECK_OK(mgpu_ipc_export_memory(shared, &mh));
    CHECK_OK(mgpu_ipc_export_event(ev, &eh));

    /* the child opens, reduces and writes */
    to_hex(&mh, mhex);
    to_hex(&eh, ehex);
    args[0] = (char *)"--ipc-open"; args[1] = mhex; args[2] = ehex; args[3] = NULL;
    rc = run_child(name, args, out, sizeof out, NULL, NULL);
    snprintf(want, sizeof want, "sum=%llu\n", (unsigned long long)(uint32_t)sum);
    if (rc != 0 || strcmp(out, want)) { printf("  %s: child exit %d, printed \"%s\", expected \"%s\"", cur_name, rc, out, want); cur_failed = 1; }
    CHECK_OK(mgpu_memcpy(host, shared, IPC_WORDS * 4));
    for (i = 0; i < CHILD_WRITES / 4; i++) CHECK(host[i] == 0xABABABABu);

    /* errors: this process's own handles, bytes that are no handle, the wrong kind */
    CHECK_IS(mgpu_ipc_open_memory(&mh, &p), MGPU_ERROR_IPC_SAME_PROCESS);
    CHECK_IS(mgpu_ipc_open_event(&eh, &opened), MGPU_ERROR_IPC_SAME_PROCESS);
    memset(&bad, 0, sizeof bad);
    CHECK_IS(mgpu_ipc_open_memory(&bad, &p), MGPU_ERROR_IPC_INVALID_HANDLE);
    for (i = 0; i < MGPU_IPC_HANDLE_SIZE; i++) bad.bytes[i] = (unsigned char)rnd();
    CHECK_IS(mgpu_ipc_open_memory(&bad, &p), MGPU_ERROR_IPC_INVALID_HANDLE);
    CHECK_IS(mgpu_ipc_open_event(&bad, &opened), MGPU_ERROR_IPC_INVALID_HANDLE);
    CHECK_IS(mgpu_ipc_open_event(&mh, &opened), MGPU_ERROR_IPC_INVALID_HANDLE);
    CHECK_IS(mgpu_ipc_open_memory(&eh, &p), MGPU_ERROR_IPC_INVALID_HANDLE);
    bad = mh; bad.bytes[8] ^= 0x40;                   /* another handle version */
    CHECK_IS(mgpu_ipc_open_memory(&bad, &p), MGPU_ERROR_IPC_INVALID_HANDLE);
    CHECK_IS(mgpu_ipc_open_memory(NULL, &p), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_IS(mgpu_ipc_open_memory(&mh, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    /* what cannot be exported or closed */
    CHECK_IS(mgpu_ipc_export_memory(host, &bad), MGPU_ERROR_INVALID_POINTER);
    CHECK_IS(mgpu_ipc_export_memory(shared, NULL), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_malloc_host(&pinned, 64));
    CHECK_IS(mgpu_ipc_export_memory(pinned, &bad), MGPU_ERROR_NOT_SUPPORTED);
    CHECK_OK(mgpu_free_host(pinned));
    CHECK_OK(mgpu_event_create(&plain));
    CHECK_IS(mgpu_ipc_export_event(plain, &bad), MGPU_ERROR_INVALID_ARGUMENT);
    CHECK_OK(mgpu_event_destroy(plain));
    CHECK_IS(mgpu_ipc_close_memory(shared), MGPU_ERROR_INVALID_POINTER);
    CHECK_IS(mgpu_event_create_flags(&plain, 8u), MGPU_ERROR_INVALID_ARGUMENT);

    /* an exporter that exited: its handle is refused, no crash */
    args[0] = (char *)"--ipc-export"; args[1] = (char *)(pool ? "pool-exit" : "exit"); args[2] = NULL;
    rc = run_child(name, args, out, sizeof out, NULL, NULL);
    out[strcspn(out, "\n")] = 0;
    CHECK(rc == 0 && from_hex(out, &bad));
    if (rc == 0) CHECK_IS(mgpu_ipc_open_memory(&bad, &p), MGPU_ERROR_IPC_EXPORTER_GONE);
    /* an exporter alive that freed the memory (and allocated again), or that shut mgpu down
       (pool memory: its socket is gone) */
    for (i = 0; i < 2; i++) {
        static const char *const modes[2][2] = { { "freed", "pool-freed" }, { "shutdown", "pool-shutdown" } };
        args[1] = (char *)modes[i][pool];
        rc = run_child(name, args, out, sizeof out, &hold, &pid);
        out[strcspn(out, "\n")] = 0;
        CHECK(rc == 0 && from_hex(out, &bad));
        if (rc != 0) continue;
        r = mgpu_ipc_open_memory(&bad, &p);
        /* CPU devices know (the memfd's identity), so does the pool's server; for
           mgpu_malloc memory a GPU driver reports its own error */
        if (backend == MGPU_BACKEND_CPU || pool) CHECK_IS(r, MGPU_ERROR_IPC_EXPORTER_GONE);
        else CHECK(r == MGPU_ERROR_IPC_EXPORTER_GONE || r == MGPU_ERROR_CUDA);
        if (r == MGPU_SUCCESS) mgpu_ipc_close_memory(p);
        reap(hold, pid);
    }

    CHECK_OK(mgpu_event_destroy(ev));
    if (pool) CHECK_OK(mgpu_free_async(base, NULL));
    else CHECK_OK(mgpu_free(base));
    free(host);
    CHECK_OK(mgpu_shutdown());
}

/* A stand-in exporter of GPU pool memory that misbehaves (child_rogue): distinct statuses,
   no descriptor left open. */
static void test_ipc_pool_socket(void)
{
    static const struct { const char *mode; mgpu_result want; } cases[] = {
        { "close", MGPU_ERROR_IPC_NO_ANSWER }, { "nofd", MGPU_ERROR_IPC_NO_ANSWER },
        { "badfd", MGPU_ERROR_IPC_INVALID_HANDLE }, { "refuse", MGPU_ERROR_IPC_INVALID_HANDLE },
    };
    mgpu_ipc_handle h, rogue;
    char hex[2 * MGPU_IPC_HANDLE_SIZE + 1], out[4096];
    char *args[4];
    void *base, *p;
    size_t i;
    int rc, hold, before;
    pid_t pid;
    mgpu_result r;
    if (!init_backend(MGPU_BACKEND_CUDA)) return;
    CHECK_OK(mgpu_malloc_async(&base, 4096, NULL));
    CHECK_OK(mgpu_stream_synchronize(NULL));
    if ((r = mgpu_ipc_export_memory(base, &h)) == MGPU_ERROR_NOT_SUPPORTED) {
        skip("%s: %s", cur_name, mgpu_last_error());
        cur_failed = -1;
        mgpu_shutdown();
        return;
    }
    CHECK_OK(r);
    to_hex(&h, hex);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        args[0] = (char *)"--ipc-rogue"; args[1] = hex; args[2] = (char *)cases[i].mode; args[3] = NULL;
        rc = run_child("cuda", args, out, sizeof out, &hold, &pid);
        out[strcspn(out, "\n")] = 0;
        CHECK(rc == 0 && from_hex(out, &rogue));
        if (rc != 0) continue;
        before = open_fds();
        r = mgpu_ipc_open_memory(&rogue, &p);
        if (r != cases[i].want) {
            printf("  %s: a stand-in exporter that does \"%s\": %s (\"%s\"), expected %s\n", cur_name, cases[i].mode,
                   mgpu_result_string(r), mgpu_last_error(), mgpu_result_string(cases[i].want));
            cur_failed = 1;
        }
        if (r == MGPU_SUCCESS) mgpu_ipc_close_memory(p);
        CHECK(open_fds() == before);
        reap(hold, pid);
    }
    CHECK_OK(mgpu_free(base));
    CHECK_OK(mgpu_shutdown());
}

#else
/* Windows: the child processes need fork, and CPU device memory is not shareable there
   (mgpu.h's >>ipc); what remains is that its export and a CPU event say so, or work. */
static void test_ipc(mgpu_backend backend, int pool)
{
    mgpu_ipc_handle h;
    mgpu_event ev, opened;
    void *p;
    if (backend == MGPU_BACKEND_CUDA && pool) {      /* the fake GPUs: their pool memory is refused */
        if (!init_backend(backend)) return;
        CHECK_OK(mgpu_malloc_async(&p, 4096, NULL));
        CHECK_IS(mgpu_ipc_export_memory(p, &h), MGPU_ERROR_NOT_SUPPORTED);
        CHECK(strstr(mgpu_last_error(), "no memory pools with POSIX file descriptors") != NULL);
        CHECK_OK(mgpu_free(p));
        CHECK_OK(mgpu_shutdown());
        return;
    }
    if (backend == MGPU_BACKEND_CUDA) {
        skip("%s: its child processes are started with fork (POSIX only)", cur_name);
        cur_failed = -1;
        return;
    }
    if (!init_backend(backend)) return;
    CHECK_OK(pool ? mgpu_malloc_async(&p, 4096, NULL) : mgpu_malloc(&p, 4096));
    CHECK_IS(mgpu_ipc_export_memory(p, &h), MGPU_ERROR_NOT_SUPPORTED);
    CHECK(strstr(mgpu_last_error(), "on Windows only GPU memory can be shared") != NULL);
    CHECK_OK(mgpu_free(p));
    CHECK_OK(mgpu_event_create_flags(&ev, MGPU_EVENT_INTERPROCESS));
    CHECK_OK(mgpu_ipc_export_event(ev, &h));
    CHECK_IS(mgpu_ipc_open_event(&h, &opened), MGPU_ERROR_IPC_SAME_PROCESS);
    CHECK_OK(mgpu_event_destroy(ev));
    CHECK_OK(mgpu_shutdown());
}
#endif

static void test_ipc_cpu(void) { test_ipc(MGPU_BACKEND_CPU, 0); }
static void test_ipc_cuda(void) { test_ipc(MGPU_BACKEND_CUDA, 0); }
static void test_ipc_pool_cpu(void) { test_ipc(MGPU_BACKEND_CPU, 1); }
static void test_ipc_pool_cuda(void) { test_ipc(MGPU_BACKEND_CUDA, 1); }
#ifdef _WIN32
static void test_ipc_pool_socket(void) { skip("%s: Unix sockets (POSIX only)", cur_name); cur_failed = -1; }
#endif

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } tests[] = {
        { "local_rank", test_local_rank }, { "select_devices", test_select_devices },
        { "ipc[cpu]", test_ipc_cpu }, { "ipc[cuda]", test_ipc_cuda }, { "ipc_pool[cpu]", test_ipc_pool_cpu },
        { "ipc_pool[cuda]", test_ipc_pool_cuda }, { "ipc_pool_socket", test_ipc_pool_socket },
    };
    unsigned long long seed;
    size_t t;
    int i;
#ifndef _WIN32
    if (argc == 4 && !strcmp(argv[1], "--ipc-open")) return child_open(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "--ipc-export")) return child_export(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "--ipc-rogue")) return child_rogue(argv[2], argv[3]);
#endif
    seed = suite_seed();
    printf("seed %llu (MGPU_TEST_SEED=%llu repeats it)\n", seed, seed);
    if (mgpu_init(NULL) == MGPU_SUCCESS) {
        int gpus = mgpu_default_backend() == MGPU_BACKEND_CUDA ? mgpu_device_count() : 0;
        printf("-- %d CPU device(s), %d GPU(s)\n", mgpu_cpu_device_count(), gpus);
        mgpu_shutdown();
    }
    for (t = 0; t < sizeof tests / sizeof tests[0]; t++) {
        int chosen = argc < 2;
        for (i = 1; i < argc; i++) chosen |= strstr(tests[t].name, argv[i]) != NULL;
        if (!chosen) continue;
        cur_name = tests[t].name;
        cur_failed = 0;
        rng_state = seed * 0x9E3779B97F4A7C15ull + (t + 1) * 0xD1B54A32D192ED03ull;
        if (!rng_state) rng_state = 1;
        tests[t].fn();
        if (cur_failed >= 0) report(!cur_failed, "%s", cur_name);
    }
    return summary();
}
