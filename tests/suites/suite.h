/* tests/suites/suite.h - what the suites of tests/suites share: the `ok` / `FAIL` / `skip`
   lines and their counts, the last line (`N passed, N failed, N skipped`) and exit status,
   the seed of a run, and the random numbers of the test data (xorshift64*). Each suite is
   one C99 program holding the implementation: it includes this header once, after mgpu.h
   (static inline: a suite may leave some of it unused). */
#ifndef MGPU_SUITE_H
#define MGPU_SUITE_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
/* One line: "skip <why>", counted. */
static inline void skip(const char *fmt, ...)
{
    va_list ap;
    printf("skip ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    nskip++;
    fflush(stdout);
}
/* The last line; main returns this (1 if anything failed). */
static inline int summary(void)
{
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

#endif
