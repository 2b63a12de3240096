/* fuzz_eip196.c - libFuzzer target: the EIP-196 byte encodings (mgpu_bn254_point_from_bytes,
   _point_to_bytes, _scalar_from_bytes) as Ethereum's precompiles use them: the input,
   zero-padded to 128 bytes, is read as two points (ECADD) and as a point and a 32-byte
   scalar (ECMUL). Properties:
   - from_bytes accepts exactly the points on the curve with coordinates below p (infinity
     is 64 zero bytes), leaves its output untouched otherwise, and to_bytes gives the input
     back;
   - ECMUL and ECADD as MSMs of 1 and 2 points on device 0 give points that from_bytes
     accepts, and ECADD does not depend on the order of its points;
   - Montgomery form there and back (mgpu_bn254_convert_points) is the identity. */
#include <stdint.h>
#include "fuzz.h"

static mgpu_result msm_affine(const mgpu_bn254_scalar *k, const mgpu_bn254_affine *p, size_t n, mgpu_bn254_affine *out)
{
    mgpu_bn254_jacobian j;
    mgpu_stream s;
    mgpu_result r = mgpu_default_stream(0, &s);
    if (r == MGPU_SUCCESS) r = mgpu_msm(k, p, n, NULL, &j, s);
    return r == MGPU_SUCCESS ? mgpu_bn254_to_affine(&j, out, 0) : r;
}

/* The point encoded in bytes, or 0 if from_bytes rejects it (checking the rules above). */
static int decode(const uint8_t bytes[64], mgpu_bn254_affine *p)
{
    mgpu_bn254_affine sentinel;
    uint8_t back[64];
    mgpu_result r;
    memset(&sentinel, 0xA5, sizeof sentinel);
    *p = sentinel;
    r = mgpu_bn254_point_from_bytes(bytes, p);
    if (r != MGPU_SUCCESS) {
        FUZZ_CHECK(r == MGPU_ERROR_NOT_ON_CURVE || r == MGPU_ERROR_NOT_IN_FIELD, "status %s", mgpu_result_string(r));
        FUZZ_FAILED_CLEANLY(r);
        FUZZ_CHECK(!memcmp(p, &sentinel, sizeof *p), "a rejected point was written");
        return 0;
    }
    FUZZ_CHECK(mgpu_bn254_on_curve(p, 0), "an accepted point is not on the curve");
    mgpu_bn254_point_to_bytes(p, back);
    FUZZ_CHECK(!memcmp(back, bytes, 64), "to_bytes(from_bytes(b)) != b");
    return 1;
}

/* result must encode to bytes that decode to it. */
static void check_result(const mgpu_bn254_affine *p, const char *what)
{
    uint8_t bytes[64];
    mgpu_bn254_affine q;
    mgpu_bn254_point_to_bytes(p, bytes);
    FUZZ_CHECK(mgpu_bn254_point_from_bytes(bytes, &q) == MGPU_SUCCESS && !memcmp(&q, p, sizeof q),
               "%s is not a point from_bytes accepts", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t in[128];
    mgpu_bn254_affine p[2], swapped[2], mont, sum, sum2, prod;
    mgpu_bn254_scalar k[2];
    mgpu_stream s;
    int ok0, ok1;
    fuzz_init();
    memset(in, 0, sizeof in);
    memcpy(in, data, size < sizeof in ? size : sizeof in);
    ok0 = decode(in, &p[0]);
    ok1 = decode(in + 64, &p[1]);
    mgpu_bn254_scalar_from_bytes(in + 64, &k[0]);
    if (ok0) {                                          /* ECMUL: k * P */
        FUZZ_CHECK(msm_affine(k, p, 1, &prod) == MGPU_SUCCESS, "ECMUL failed");
        check_result(&prod, "k * P");
        mont = p[0];
        FUZZ_CHECK(mgpu_default_stream(0, &s) == MGPU_SUCCESS, "no default stream");
        FUZZ_CHECK(mgpu_bn254_convert_points(&mont, 1, 1, s) == MGPU_SUCCESS &&
                   mgpu_bn254_convert_points(&mont, 1, 0, s) == MGPU_SUCCESS && mgpu_stream_synchronize(s) == MGPU_SUCCESS,
                   "Montgomery conversion failed");
        FUZZ_CHECK(!memcmp(&mont, &p[0], sizeof mont), "Montgomery form there and back changed the point");
    }
    if (ok0 && ok1) {                                   /* ECADD: P + Q = Q + P */
        memset(k, 0, sizeof k);
        k[0].limb[0] = k[1].limb[0] = 1;
        swapped[0] = p[1];
        swapped[1] = p[0];
        FUZZ_CHECK(msm_affine(k, p, 2, &sum) == MGPU_SUCCESS && msm_affine(k, swapped, 2, &sum2) == MGPU_SUCCESS,
                   "ECADD failed");
        check_result(&sum, "P + Q");
        FUZZ_CHECK(!memcmp(&sum, &sum2, sizeof sum), "P + Q != Q + P");
    }
    return 0;
}
