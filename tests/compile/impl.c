/* The implementation in one file: mgpu_init, mgpu_shutdown, silent on success.
   Built by tests/compile_matrix.sh as C99, C11 and C++17 with gcc and clang (and mingw).
   Also checks that this compiler reads kernels_fatbin.h's text as the fatbin it was made
   from: mgpu's decoder gives MGPU_KERNELS_FATBIN_SIZE bytes of sha256
   MGPU_KERNELS_FATBIN_SHA256. */
#define MGPU_IMPLEMENTATION
#include "mgpu.h"
#include "tools/sha256.h"
#include <stdio.h>

int main(void)
{
    mgpu_result r;
    int damaged = 1;
    char hex[65];
    void *image = mgpu__kernels_decode(&damaged);
    if (!image) {
        fprintf(stderr, "kernels_fatbin.h: %s\n", damaged ? "its text is not base 85" : "out of memory");
        return 1;
    }
    mgpu_sha256_hex(image, MGPU_KERNELS_FATBIN_SIZE, hex);
    free(image);
    if (strcmp(hex, MGPU_KERNELS_FATBIN_SHA256)) {
        fprintf(stderr, "kernels_fatbin.h decodes to %d bytes of sha256 %s, not %s\n", MGPU_KERNELS_FATBIN_SIZE, hex,
                MGPU_KERNELS_FATBIN_SHA256);
        return 1;
    }
    r = mgpu_init(NULL);
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "mgpu_init: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    r = mgpu_shutdown();
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "mgpu_shutdown: %s: %s\n", mgpu_result_string(r), mgpu_last_error());
        return 1;
    }
    return 0;
}
