/* fuzz_eip2537.c - libFuzzer target: the precompile encodings of every group
   (mgpu_curve_point_from_bytes, _point_to_bytes, _msm_from_bytes, _result_to_bytes). The
   first byte picks the group (modulo 4: BN254 G1, BN254 G2, BLS12-381 G1, G2); the rest is
   an MSM input (EIP-2537's pairs of an encoded point and a 32-byte scalar), as it comes.
   Properties:
   - msm_from_bytes accepts exactly a whole number (>= 1) of pairs whose points
     point_from_bytes accepts, writes nothing otherwise, and fails with one of the
     documented statuses and a message (the first bad pair's, as point_from_bytes gives it);
   - point_from_bytes accepts only points mgpu_curve_on_curve accepts (the subgroup
     included), leaves its output untouched otherwise, and to_bytes gives the input back;
   - an accepted MSM input of up to 4 pairs runs with MGPU_MSM_CHECK_POINTS on device 0, and
     its result encodes (result_to_bytes) to bytes that point_from_bytes accepts. */
#include <stdint.h>
#include "fuzz.h"

static int documented(mgpu_result r)
{
    return r == MGPU_ERROR_BAD_LENGTH || r == MGPU_ERROR_BAD_PADDING || r == MGPU_ERROR_NOT_IN_FIELD ||
           r == MGPU_ERROR_NOT_ON_CURVE || r == MGPU_ERROR_NOT_IN_SUBGROUP;
}

/* point_from_bytes on one encoded point; 1 if accepted (checking the rules above). */
static int decode(int g, const uint8_t *bytes, size_t len, uint64_t *p)
{
    uint64_t sentinel[24];
    uint8_t back[256];
    mgpu_result r;
    memset(sentinel, 0xA5, sizeof sentinel);
    memcpy(p, sentinel, sizeof sentinel);
    r = mgpu_curve_point_from_bytes(g, bytes, len, p);
    if (r != MGPU_SUCCESS) {
        FUZZ_CHECK(documented(r) && r != MGPU_ERROR_BAD_LENGTH, "status %s", mgpu_result_string(r));
        FUZZ_FAILED_CLEANLY(r);
        FUZZ_CHECK(!memcmp(p, sentinel, sizeof sentinel), "a rejected point was written");
        return 0;
    }
    FUZZ_CHECK(mgpu_curve_on_curve(g, p, 0), "an accepted point is not in the group");
    FUZZ_CHECK(mgpu_curve_point_to_bytes(g, p, back, len) == MGPU_SUCCESS && !memcmp(back, bytes, len),
               "to_bytes(from_bytes(b)) != b");
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAXK = 8 };
    mgpu_bn254_scalar k[MAXK], kcan[MAXK];
    uint64_t pts[MAXK * 24], pcan[MAXK * 24], q[24], j[36];
    uint8_t res[256];
    const uint8_t *in = data + 1;
    size_t len = size ? size - 1 : 0, enc, pair, n = 99, i;
    int g, all_good = 1;
    mgpu_result r;
    if (!size) return 0;
    fuzz_init();
    g = data[0] % 4;
    enc = mgpu_curve_encoded_bytes(g);
    pair = enc + 32;
    memset(pcan, 0x5A, sizeof pcan);
    memset(kcan, 0x5A, sizeof kcan);
    memcpy(pts, pcan, sizeof pts);
    memcpy(k, kcan, sizeof k);
    r = mgpu_curve_msm_from_bytes(g, in, len, k, pts, MAXK, &n);
    for (i = 0; i + pair <= len && i / pair < MAXK; i += pair) all_good &= decode(g, in + i, enc, q);
    if (len == 0 || len % pair) {
        FUZZ_CHECK(r == MGPU_ERROR_BAD_LENGTH, "len %zu: status %s", len, mgpu_result_string(r));
    } else if (len / pair > MAXK) {
        FUZZ_CHECK(r == MGPU_ERROR_INVALID_ARGUMENT, "%zu pairs > max_n: status %s", len / pair, mgpu_result_string(r));
    } else {
        FUZZ_CHECK((r == MGPU_SUCCESS) == all_good, "msm_from_bytes %s, the points one by one %s", mgpu_result_string(r),
                   all_good ? "accepted" : "not all accepted");
    }
    if (r != MGPU_SUCCESS) {
        FUZZ_CHECK(documented(r) || r == MGPU_ERROR_INVALID_ARGUMENT, "status %s", mgpu_result_string(r));
        FUZZ_FAILED_CLEANLY(r);
        FUZZ_CHECK(!memcmp(pts, pcan, sizeof pts) && !memcmp(k, kcan, sizeof k) && n == 99, "a rejected input was written");
        return 0;
    }
    FUZZ_CHECK(n == len / pair, "n = %zu for %zu pairs", n, len / pair);
    for (i = 0; i < n; i++) {
        uint8_t back[256];
        FUZZ_CHECK(mgpu_curve_point_to_bytes(g, pts + i * (mgpu_msm_point_bytes(g) / 8), back, enc) ==
                   MGPU_SUCCESS && !memcmp(back, in + i * pair, enc), "pair %zu: the point does not encode back", i);
    }
    if (n <= 4) {
        mgpu_msm_config cfg;
        mgpu_stream s;
        memset(&cfg, 0, sizeof cfg);
        cfg.group = g;
        cfg.flags = MGPU_MSM_CHECK_POINTS;
        FUZZ_CHECK(mgpu_default_stream(0, &s) == MGPU_SUCCESS, "no default stream");
        FUZZ_CHECK(mgpu_msm_curve(k, pts, n, 1, &cfg, j, s) == MGPU_SUCCESS, "the MSM of decoded points failed");
        FUZZ_CHECK(mgpu_curve_result_to_bytes(g, j, 0, res, enc) == MGPU_SUCCESS, "result_to_bytes failed");
        FUZZ_CHECK(decode(g, res, enc, q), "the MSM's result does not decode");
    }
    return 0;
}
