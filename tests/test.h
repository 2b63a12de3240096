/* test.h - the mgpu test framework: one runner (tests/main.c), plain C99 + POSIX threads.

   A test is a function written with TEST(name) in any .c file of tests/ and listed, with the
   configurations it runs in, in tests/list.h. The runner runs each listed test once per
   configuration and prints a line for each run that failed:

       FAIL name[cfg]: file:line: what failed [last error: ...]

   then each distinct skip reason once, with the number of runs it covers:

       skip N runs (name[cfg], name[cfg], name[cfg], ...): reason

   and as its last line exactly `N passed, N failed, N skipped`; it exits 1 if any failed.
   With -v it also prints `ok name[cfg]` and `skip name[cfg]: reason` for every run.

   Configurations (T_ONCE, T_CPU, T_DEV, T_CUDA in list.h):
       once   run one time; the test chooses its own mgpu_desc
       cpu1   CPU backend, 1 CPU device            } T_CPU and T_DEV
       cpu4   CPU backend, 4 CPU devices           }
       cuda   CUDA backend (plus 2 CPU devices); skipped with mgpu_cuda_status's message
              when CUDA is unavailable; the test loops over every device itself (T_DEV, T_CUDA)

   A test that needs its configuration starts with TINIT() (mgpu_init with tcfg's desc) and
   ends with CHECK_OK(mgpu_shutdown()). If a test returns early (REQUIRE*, SKIP) the runner
   shuts mgpu down and frees what tmalloc gave out.

   Checks: CHECK(cond), CHECK_EQ_INT(a, b), CHECK_OK(call) record a failure and go on;
   REQUIRE(cond) and REQUIRE_OK(call) also return from the test. CHECK_ERR(call, status)
   checks that the call fails with exactly that status, and that mgpu_last_error() is
   non-empty and names the mgpu function called. Failures may be recorded from any thread.

   Random inputs: the seed comes from the time, is printed first, and MGPU_TEST_SEED=N
   repeats it; each test run draws from its own stream derived from the seed and its name.

   Usage: build/mgpu_tests [-v] [substring...] runs only the tests whose name[cfg] contains
   one of the substrings; --list prints the names. Run it from the repository root. */
#ifndef MGPU_TEST_H
#define MGPU_TEST_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* setenv, nanosleep, fork, execve, pipe */
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

#ifdef _WIN32                       /* the Windows build (mingw-w64, run under wine in CI) */
#define setenv(name, value, overwrite) _putenv_s(name, value)
#define unsetenv(name) _putenv_s(name, "")
#endif

/* ---------------------------------------------------------------- configurations */
typedef enum tkind { T_ONCE, T_CPU, T_DEV, T_CUDA } tkind;
typedef struct tcfg {
    const char *label;              /* "once", "cpu1", "cpu4", "cuda" */
    mgpu_backend backend;           /* MGPU_BACKEND_AUTO for "once" */
    int cpu_devices;
} tcfg;
extern const tcfg *tc;              /* the configuration of the running test */

/* What the runner learnt about CUDA from one mgpu_init(NULL) before the tests. */
extern mgpu_result t_cuda_status;   /* MGPU_SUCCESS when CUDA devices can be used */
extern char t_cuda_message[1024];   /* mgpu_cuda_status's sentence */
extern int t_gpu_count;             /* CUDA devices (0 without CUDA) */
extern const char *t_argv0;         /* how the runner was started */

/* ---------------------------------------------------------------- tests */
#define TEST(name) void test_##name(void)
#define T(name, kind) TEST(name);
#include "list.h"
#undef T

/* ---------------------------------------------------------------- recording */
void t_fail(const char *file, int line, const char *fmt, ...);
void t_skip(const char *fmt, ...);
int t_failed(void);                 /* failures recorded in this test run so far */
void t_prime(const char *call);     /* makes mgpu_last_error() name another function */
void t_check_err(const char *file, int line, const char *call, mgpu_result got, mgpu_result want);

#define CHECK(cond) do { if (!(cond)) t_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); } while (0)
#define REQUIRE(cond) do { if (!(cond)) { t_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond); return; } } while (0)
#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ != b_) t_fail(__FILE__, __LINE__, "%s is %lld, expected %s = %lld", #a, a_, #b, b_); } while (0)
#define CHECK_OK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) \
    t_fail(__FILE__, __LINE__, "%s returned %s", #call, mgpu_result_string(r_)); } while (0)
#define REQUIRE_OK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    t_fail(__FILE__, __LINE__, "%s returned %s", #call, mgpu_result_string(r_)); return; } } while (0)
/* The call must fail with `want`, and mgpu_last_error() must name the function. */
#define CHECK_ERR(call, want) do { mgpu_result r_; t_prime(#call); r_ = (call); \
    t_check_err(__FILE__, __LINE__, #call, r_, (want)); } while (0)
#define SKIP(...) do { t_skip(__VA_ARGS__); return; } while (0)

/* mgpu_init for the current configuration; on failure records it (or skips the CUDA
   configuration when CUDA is unavailable) and returns from the test. */
int t_init(const char *file, int line);
#define TINIT() do { if (!t_init(__FILE__, __LINE__)) return; } while (0)
#define IS_CUDA() (tc->backend == MGPU_BACKEND_CUDA)

/* ---------------------------------------------------------------- helpers */
uint64_t t_rand(void);              /* this test's random stream */
uint32_t t_rand_u32(void);
float t_rand_float(void);           /* uniform in [-1, 1) */
void t_fill(void *p, size_t n);     /* random bytes */
void *tmalloc(size_t n);            /* host memory, freed by the runner after the test */
/* Every device of the table in this configuration: the default devices, then (with CUDA)
   the CPU devices. Returns how many. */
int t_all_devices(mgpu_device out[MGPU_MAX_DEVICES]);
void t_sleep_ms(int ms);
void t_note(const char *fmt, ...);  /* a line on stderr under MGPU_TEST_VERBOSE=1 */
/* strstr that records a failure naming what was looked for */
#define CHECK_CONTAINS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); \
    if (!h_ || !strstr(h_, n_)) t_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_); } while (0)

/* Compares n bytes; on a difference records the first differing offset and both bytes. */
void t_check_mem(const char *file, int line, const void *got, const void *want, size_t n, const char *what);
#define CHECK_MEM(got, want, n, what) t_check_mem(__FILE__, __LINE__, (got), (want), (n), (what))
/* n bytes all equal to v? */
void t_check_byte(const char *file, int line, const void *got, int v, size_t n, const char *what);
#define CHECK_BYTES(got, v, n, what) t_check_byte(__FILE__, __LINE__, (got), (v), (n), (what))

/* A PTX module (tests/test_modules.c) with two kernels:
     add_one(unsigned int *p, unsigned long long n): p[i] += 1 for i < n (grid-stride)
     spin(unsigned long long ns): one thread busy-waits ns nanoseconds (%globaltimer) */
extern const char t_ptx[];

/* The sizes every copy and memset is checked at. */
#define T_NSIZES 4
extern const size_t t_sizes[T_NSIZES];  /* 1, 7, 4097, (1 << 20) + 3 */

#endif
