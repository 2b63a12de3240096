/* fuzz.h - shared by the libFuzzer targets of tests/fuzz (see tests/fuzz/README.md). */
#ifndef MGPU_FUZZ_H
#define MGPU_FUZZ_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu.h"

/* A broken property: libFuzzer reports the abort with the input that caused it. */
#define FUZZ_CHECK(cond, ...)                                                          \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
            fprintf(stderr, __VA_ARGS__);                                               \
            fprintf(stderr, " (mgpu_last_error: \"%s\")\n", mgpu_last_error());         \
            abort();                                                                    \
        }                                                                               \
    } while (0)

/* A failed call must say why. */
#define FUZZ_FAILED_CLEANLY(r) FUZZ_CHECK((r) != MGPU_SUCCESS && *mgpu_last_error(), "status %s without a message", mgpu_result_string(r))

/* mgpu_init once per process, with the environment's devices (MGPU_DEVICE, MGPU_CUDA_PATH:
   the fake GPUs of tests/fake_cuda; CPU devices when there is no driver). */
static void fuzz_init(void)
{
    static int ready;
    if (ready) return;
    if (mgpu_init(NULL) != MGPU_SUCCESS) {
        fprintf(stderr, "fuzz: mgpu_init: %s\n", mgpu_last_error());
        exit(1);
    }
    ready = 1;
}
#endif
