/* fuzz_module.c - libFuzzer target: mgpu_module_create on arbitrary bytes, then loading the
   module on every device. mgpu_module_create must accept the bytes or fail with
   MGPU_ERROR_INVALID_IMAGE and a message, keeping nothing. A created module must load on
   every device, or fail with a status and a message (a CPU device loads nothing; a GPU
   hands the copy to the driver, which takes no size: with the fake GPUs of tests/fake_cuda,
   MGPU_CUDA_PATH=build/libfake_cuda.so, the fake reads the image as far as its headers
   say, so ASan catches a copy shorter than that), and destroy cleanly. */
#include <stdint.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mgpu_module m;
    mgpu_kernel k;
    mgpu_result r;
    int dev;
    fuzz_init();
    r = mgpu_module_create(data, size, &m);
    if (r != MGPU_SUCCESS) {
        FUZZ_CHECK(r == MGPU_ERROR_INVALID_IMAGE || (r == MGPU_ERROR_INVALID_ARGUMENT && size == 0),
                   "status %s for %zu bytes", mgpu_result_string(r), size);
        FUZZ_FAILED_CLEANLY(r);
        return 0;
    }
    for (dev = 0; dev < mgpu_device_count(); dev++) {
        r = mgpu_module_load(m, dev);
        if (r != MGPU_SUCCESS) FUZZ_FAILED_CLEANLY(r);
    }
    r = mgpu_module_kernel(m, "mgpu_noop", &k);
    if (r != MGPU_SUCCESS) FUZZ_FAILED_CLEANLY(r);
    FUZZ_CHECK(mgpu_module_destroy(m) == MGPU_SUCCESS, "destroy failed");
    return 0;
}
