/* tests/suites/suite.h - what the suites of tests/suites share: the `ok` / `FAIL` / `skip`
   lines and their counts, each distinct skip reason once at the end, the last line
   (`N passed, N failed, N skipped`) and exit status,
   the seed of a run, and the random numbers of the test data (xorshift64*). Each suite is
   one C99 program holding the implementation: it includes this header once, after mgpu.h
   (static inline: a suite may leave some of it unused). */
#ifndef MGPU_SUITE_H
#define MGPU_SUITE_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32                       /* the Windows build (mingw-w64, run under wine in CI) */
#define setenv(name, value, overwrite) _putenv_s(name, value)
#define unsetenv(name) _putenv_s(name, "")
#endif

static int npass, nfail, nskip;

/* One line: "ok   <what>" or "FAIL <what>", counted. */
static inline void report(int good, const char *fmt, ...)
{
    va_list ap;
    printf("%s", good ? "ok   " : "FAIL ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (good) npass++; else nfail++;
    fflush(stdout);
}
/* The distinct skip reasons, with how many skips each covers and the first few names. */
#define SUITE_MAX_REASONS 32
#define SUITE_NAMES_SHOWN 3
static struct suite_reason { char text[1024]; int count; char names[SUITE_NAMES_SHOWN][160]; } suite_reasons[SUITE_MAX_REASONS];
static int suite_nreasons;

/* "what: reason" (the first ": " splits them; without one the whole text is the reason):
   one line "skip <what>", counted; each distinct reason is printed once, by summary(). */
static inline void skip(const char *fmt, ...)
{
    char text[1024];
    const char *colon, *why;
    int i;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    colon = strstr(text, ": ");
    why = colon ? colon + 2 : text;
    if (colon) text[colon - text] = 0;
    printf("skip %s\n", text);
    for (i = 0; i < suite_nreasons && strcmp(suite_reasons[i].text, why); i++) {}
    if (i < SUITE_MAX_REASONS) {
        struct suite_reason *q = &suite_reasons[i];
        if (i == suite_nreasons) { snprintf(q->text, sizeof q->text, "%s", why); suite_nreasons++; }
        if (q->count < SUITE_NAMES_SHOWN) snprintf(q->names[q->count], sizeof q->names[0], "%.150s", colon ? text : "");
        q->count++;
    }
    nskip++;
    fflush(stdout);
}
/* Each distinct skip reason once ("skip N (what, ...): reason"), then the last line; main
   returns this (1 if anything failed). */
static inline int summary(void)
{
    int i, k;
    for (i = 0; i < suite_nreasons; i++) {
        const struct suite_reason *q = &suite_reasons[i];
        int named = q->names[0][0] != 0;
        printf("skip %d%s", q->count, named ? " (" : "");
        for (k = 0; named && k < q->count && k < SUITE_NAMES_SHOWN; k++) printf("%s%s", k ? ", " : "", q->names[k]);
        printf("%s: %s\n", !named ? "" : q->count > SUITE_NAMES_SHOWN ? ", ...)" : ")", q->text);
    }
    printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
    return nfail ? 1 : 0;
}

/* The run's seed: MGPU_TEST_SEED when set, else the time. */
static inline unsigned long long suite_seed(void)
{
    const char *env = getenv("MGPU_TEST_SEED");
    return env && *env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
}

/* xorshift64*: rng_state must not be 0 */
static uint64_t rng_state = 1;
static inline uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

#ifdef SUITE_CHECKS
/* For suites that run many checks per test (define SUITE_CHECKS before including): the
   current test's failures (the first three, "file:line: what"; cur_msg) and skip reason
   (cur_skip), reset by the runner before each test. CHECK* record and go on, REQUIRE* record
   and return from the test, SKIP returns with a reason. */
static int cur_failed, cur_skipped;
static char cur_msg[2048], cur_skip[1200];

static inline void fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    size_t used = strlen(cur_msg);
    if (cur_failed++ < 3 && used < sizeof cur_msg - 64) {
        snprintf(cur_msg + used, sizeof cur_msg - used, "%s%s:%d: ", used ? "; " : "", file, line);
        used = strlen(cur_msg);
        va_start(ap, fmt);
        vsnprintf(cur_msg + used, sizeof cur_msg - used, fmt, ap);
        va_end(ap);
    }
}
#define CHECK(c) do { if (!(c)) fail_at(__FILE__, __LINE__, "CHECK(%s)", #c); } while (0)
#define CHECK_OK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) \
    fail_at(__FILE__, __LINE__, "%s returned %s [%s]", #call, mgpu_result_string(r_), mgpu_last_error()); } while (0)
#define REQUIRE_OK(call) do { mgpu_result r_ = (call); if (r_ != MGPU_SUCCESS) { \
    fail_at(__FILE__, __LINE__, "%s returned %s [%s]", #call, mgpu_result_string(r_), mgpu_last_error()); return; } } while (0)
#define REQUIRE(c) do { if (!(c)) { fail_at(__FILE__, __LINE__, "REQUIRE(%s)", #c); return; } } while (0)
#define SKIP(...) do { cur_skipped = 1; snprintf(cur_skip, sizeof cur_skip, __VA_ARGS__); return; } while (0)
#endif

#endif
