/* fuzz_msm_file.c - libFuzzer target: BN254MSM v1 and CURVEMSM v1 files
   (tests/vectors/bn254msm/FORMAT.md, tests/vectors/curvemsm/FORMAT.md) as examples/msm_file.c
   reads them. Any bytes must be rejected with a message or parsed;
   a parsed file's MSM (N <= 64, on device 0) must run to a status, and a result that
   succeeded must be on the curve (the points are not checked, as msm_file does not check
   them: off-curve points and coordinates >= p give a meaningless sum, never a crash). */
#define MSM_FILE_NO_MAIN
#include "../../examples/msm_file.c"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msm_file f;
    uint64_t got[24];
    mgpu_result r;
    char why[256] = "";
    fuzz_init();
    if (msm_file_parse(data, size, &f, why, sizeof why) != FILE_OK) {
        FUZZ_CHECK(why[0] && !f.scalars && !f.points, "rejected without a reason, or kept memory");
        return 0;
    }
    FUZZ_CHECK(f.n <= MAX_N && (f.curvemsm ? size == (32 + mgpu_msm_point_bytes(f.group)) * f.n + 32 +
                                             mgpu_msm_point_bytes(f.group) : size == 96 * f.n + 88),
               "accepted %zu bytes for N = %zu", size, f.n);
    if (f.n <= 64) {
        r = msm_file_compute(&f, 0, got);
        if (r != MGPU_SUCCESS) FUZZ_FAILED_CLEANLY(r);
        (void)msm_file_matches(&f, got);
    }
    msm_file_free(&f);
    return 0;
}
