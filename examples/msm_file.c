/* msm_file.c - runs the multi-scalar multiplications stored in BN254MSM v1 files (BN254 G1;
   format: tests/vectors/bn254msm/FORMAT.md) and CURVEMSM v1 files (BN254 G1 and G2,
   BLS12-381 G1 and G2; tests/vectors/curvemsm/FORMAT.md), told apart by their magic, and
   checks each result against the file's.

   usage: msm_file [--gpus N|all] FILE...     one line per file: the affine result in hex
                                             and "ok" or "MISMATCH"; exit 0 only if all match
          msm_file                           self-check: every .bin file of tests/vectors/bn254msm
                                             and tests/vectors/curvemsm, then malformed files
                                             of both formats it writes to a temporary
                                             folder, which must be rejected (exit 0: pass)
   Device: device 0 of the default backend (the first GPU, else the CPU device);
   MGPU_DEVICE=cpu forces the CPU device. --gpus N (or --devices N) splits each MSM over
   devices 0..N-1 with mgpu_msm_multi ("all": every device of the default backend). The
   file's flags are honoured: bit 0 (Montgomery scalars) and bit 1 (Montgomery coordinates,
   for the points and the expected result) become MGPU_MSM_SCALARS_MONTGOMERY and
   MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY, and the result is compared in
   that form. A malformed file (truncated, wrong magic or version, unknown flag bits, size
   not matching N, N too large) gets one line naming the file and exit status 2; a
   mismatch gives exit status 1.

   Build (the Makefile does this): cc -std=c99 -I. examples/msm_file.c build/mgpu.o -ldl -lpthread */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32                           /* mingw-w64: dirent.h is there, mkdtemp is not */
#include <direct.h>
#include <io.h>
static char *mkdtemp(char *tmpl) { return _mktemp(tmpl) && _mkdir(tmpl) == 0 ? tmpl : NULL; }
#define rmdir _rmdir
#define TMP_VAR "TEMP"
#else
#include <unistd.h>
#define TMP_VAR "TMPDIR"
#endif

#include "mgpu.h"

#define MAX_N (((size_t)1 << 31) - 1)    /* mgpu_msm's limit */

enum { FILE_OK = 0, FILE_MISMATCH = 1, FILE_BAD = 2 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}
static uint32_t le32(const unsigned char *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

/* 32 little-endian bytes -> 4 limbs, least significant first. */
static void limbs_of(const unsigned char *b, uint64_t out[4])
{
    int i;
    for (i = 0; i < 4; i++) out[i] = le64(b + 8 * i);
}

/* 0x + 16 L hex digits of an L-limb integer, most significant first. */
static void hex_of(const uint64_t *v, int L, char out[99])
{
    int i;
    out[0] = '0';
    out[1] = 'x';
    for (i = 0; i < L; i++) sprintf(out + 2 + 16 * i, "%016llx", (unsigned long long)v[L - 1 - i]);
}

/* A parsed file. */
typedef struct msm_file {
    int curvemsm;                      /* a CURVEMSM file, else BN254MSM */
    int group;                         /* MGPU_MSM_BN254_G1 ... MGPU_MSM_BLS12_381_G2 */
    uint32_t flags;
    size_t n, point_bytes;
    mgpu_bn254_scalar *scalars;
    uint64_t *points;                  /* n points of point_bytes */
    uint64_t expected[24];
} msm_file;

static void msm_file_free(msm_file *f)
{
    free(f->scalars);
    free(f->points);
    f->scalars = NULL;
    f->points = NULL;
}

/* The CURVEMSM header (32 bytes): group and N, or FILE_BAD with one sentence in why. */
static int curvemsm_header(const unsigned char *bytes, size_t size, msm_file *f, uint64_t *n64, char *why, size_t why_cap)
{
    uint32_t version, curve, group;
    if (size < 32) {
        snprintf(why, why_cap, "truncated: %zu bytes, shorter than the 32-byte CURVEMSM header", size);
        return FILE_BAD;
    }
    version = le32(bytes + 8);
    curve = le32(bytes + 12);
    group = le32(bytes + 16);
    f->flags = le32(bytes + 20);
    *n64 = le64(bytes + 24);
    if (version != 1) {
        snprintf(why, why_cap, "CURVEMSM version %lu, this program reads version 1", (unsigned long)version);
        return FILE_BAD;
    }
    if (curve < 1 || curve > 2) {
        snprintf(why, why_cap, "curve %lu (1 is BN254, 2 is BLS12-381)", (unsigned long)curve);
        return FILE_BAD;
    }
    if (group < 1 || group > 2) {
        snprintf(why, why_cap, "group %lu (1 is G1, 2 is G2)", (unsigned long)group);
        return FILE_BAD;
    }
    f->group = (int)(curve - 1) * 2 + (int)(group - 1);   /* = MGPU_MSM_BN254_G1 ... BLS12_381_G2 */
    f->curvemsm = 1;
    return FILE_OK;
}

/* Parses the size bytes of a BN254MSM v1 or CURVEMSM v1 file into *f (freed with
   msm_file_free). A malformed file (truncated, wrong magic or version, unknown curve,
   group or flag bits, N too large, size not matching N) gives FILE_BAD with one sentence
   in why; the bytes are untrusted: every size is checked before it is used. Both formats
   store little-endian limbs, which this reads on any host. */
static int msm_file_parse(const unsigned char *bytes, size_t size, msm_file *f, char *why, size_t why_cap)
{
    uint32_t version;
    uint64_t n64, need;
    size_t i, head, pb;
    const unsigned char *body;
    memset(f, 0, sizeof *f);
    if (size >= 8 && memcmp(bytes, "CURVEMSM", 8) == 0) {
        if (curvemsm_header(bytes, size, f, &n64, why, why_cap) != FILE_OK) return FILE_BAD;
        head = 32;
    } else {
        if (size < 24) {
            snprintf(why, why_cap, "truncated: %zu bytes, shorter than the 24-byte BN254MSM header", size);
            return FILE_BAD;
        }
        if (memcmp(bytes, "BN254MSM", 8) != 0) {
            snprintf(why, why_cap, "not a BN254MSM or CURVEMSM file (wrong magic: the first 8 bytes must be "
                     "\"BN254MSM\" or \"CURVEMSM\")");
            return FILE_BAD;
        }
        version = le32(bytes + 8);
        f->flags = le32(bytes + 12);
        n64 = le64(bytes + 16);
        if (version != 1) {
            snprintf(why, why_cap, "BN254MSM version %lu, this program reads version 1", (unsigned long)version);
            return FILE_BAD;
        }
        f->group = MGPU_MSM_BN254_G1;
        head = 24;
    }
    if (f->flags & ~3u) {
        snprintf(why, why_cap, "unknown flag bits 0x%lx (only bit 0, Montgomery scalars, and bit 1, Montgomery "
                 "coordinates, are defined)", (unsigned long)(f->flags & ~3u));
        return FILE_BAD;
    }
    if (n64 > MAX_N) {
        snprintf(why, why_cap, "N = %llu is too large (at most 2^31 - 1 points)", (unsigned long long)n64);
        return FILE_BAD;
    }
    pb = mgpu_msm_point_bytes(f->group);
    f->point_bytes = pb;
    need = (32 + pb) * n64 + head + pb;  /* no overflow: N < 2^31 */
    if ((uint64_t)size != need) {
        snprintf(why, why_cap, "%s: %zu bytes, but N = %llu needs %zu * N + %zu = %llu",
                 (uint64_t)size < need ? "truncated" : "size does not match N", size, (unsigned long long)n64,
                 32 + pb, head + pb, (unsigned long long)need);
        return FILE_BAD;
    }
    f->n = (size_t)n64;
    body = bytes + head;
    f->scalars = (mgpu_bn254_scalar *)malloc((f->n ? f->n : 1) * sizeof *f->scalars);
    f->points = (uint64_t *)malloc((f->n ? f->n : 1) * pb);
    if (!f->scalars || !f->points) {
        snprintf(why, why_cap, "out of memory for N = %zu", f->n);
        msm_file_free(f);
        return FILE_BAD;
    }
    for (i = 0; i < f->n; i++) limbs_of(body + 32 * i, f->scalars[i].limb);
    for (i = 0; i < f->n * pb / 8; i++) f->points[i] = le64(body + 32 * f->n + 8 * i);
    for (i = 0; i < pb / 8; i++) f->expected[i] = le64(body + (32 + pb) * f->n + 8 * i);
    return FILE_OK;
}

static int read_all(const char *path, unsigned char **bytes, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    long size;
    *bytes = NULL;
    if (!fp) return -1;
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0 ||
        !(*bytes = (unsigned char *)malloc((size_t)size + 1)) || fread(*bytes, 1, (size_t)size, fp) != (size_t)size) {
        fclose(fp);
        free(*bytes);
        *bytes = NULL;
        return -1;
    }
    fclose(fp);
    *n = (size_t)size;
    return 0;
}

/* Reads and checks path; on failure prints one line naming it and returns FILE_BAD. */
static int msm_file_read(const char *path, msm_file *f)
{
    unsigned char *bytes;
    size_t size = 0;
    char why[256];
    int status;
    memset(f, 0, sizeof *f);
    if (read_all(path, &bytes, &size) != 0) {
        fprintf(stderr, "msm_file: %s: cannot read: %s\n", path, strerror(errno));
        return FILE_BAD;
    }
    status = msm_file_parse(bytes, size, f, why, sizeof why);
    free(bytes);
    if (status != FILE_OK) fprintf(stderr, "msm_file: %s: %s\n", path, why);
    return status;
}

/* The file's MSM in the file's point form (got: point_bytes): ndevs 0 on device 0's
   default stream, else mgpu_msm_curve_multi over devices 0..ndevs-1 (ndevs < 0: every
   device of the default backend). BN254 G1 goes through mgpu_msm_curve as through mgpu_msm. */
static mgpu_result msm_file_compute(const msm_file *f, int ndevs, uint64_t *got)
{
    mgpu_msm_config cfg;
    uint64_t res[36];
    mgpu_result r;
    memset(&cfg, 0, sizeof cfg);
    cfg.group = f->group;
    if (f->flags & 1u) cfg.flags |= MGPU_MSM_SCALARS_MONTGOMERY;
    if (f->flags & 2u) cfg.flags |= MGPU_MSM_POINTS_MONTGOMERY | MGPU_MSM_RESULT_MONTGOMERY;
    if (ndevs == 0) {
        mgpu_stream s;
        r = mgpu_default_stream(0, &s);
        if (r == MGPU_SUCCESS) r = mgpu_msm_curve(f->scalars, f->points, f->n, 1, &cfg, res, s);
    } else {
        r = mgpu_msm_curve_multi(f->scalars, f->points, f->n, 1, &cfg, res, NULL, ndevs < 0 ? 0 : ndevs);
    }
    return r == MGPU_SUCCESS ? mgpu_curve_to_affine(f->group, res, got, (f->flags & 2u) != 0) : r;
}

static int msm_file_matches(const msm_file *f, const uint64_t *got)
{
    return !memcmp(got, f->expected, f->point_bytes);
}

/* "x=0x.. y=0x.." (G1) or "x0=.. x1=.. y0=.. y1=.." (G2, c0 then c1) of a point. */
static void point_str(const msm_file *f, const uint64_t *p, char *out, size_t cap)
{
    static const char *const g1[2] = { "x", "y" }, *const g2[4] = { "x0", "x1", "y0", "y1" };
    const int g2group = f->group & 1, L = f->group < 2 ? 4 : 6, parts = g2group ? 4 : 2;
    size_t used = 0;
    int i;
    for (i = 0; i < parts && used < cap; i++) {
        char hx[99];
        hex_of(p + i * L, L, hx);
        used += (size_t)snprintf(out + used, cap - used, "%s%s=%s", i ? " " : "", g2group ? g2[i] : g1[i], hx);
    }
}

#ifndef MSM_FILE_NO_MAIN   /* tests/fuzz/fuzz_msm_file.c includes the part above */
/* Runs one file (ndevs as msm_file_compute) and prints its line. */
static int run_file(const char *path, int ndevs)
{
    static const char *const group_names[4] = { "BN254 G1", "BN254 G2", "BLS12-381 G1", "BLS12-381 G2" };
    msm_file f;
    uint64_t got[24];
    mgpu_result r;
    char text[420], where[64];
    double t;
    int status;
    if ((status = msm_file_read(path, &f)) != FILE_OK) return status;
    t = now_s();
    r = msm_file_compute(&f, ndevs, got);
    t = now_s() - t;
    if (ndevs == 0) snprintf(where, sizeof where, "device 0");
    else snprintf(where, sizeof where, "%d devices", ndevs < 0 ? mgpu_device_count() : ndevs);
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "msm_file: %s: %s: %s\n", path, mgpu_result_string(r), mgpu_last_error());
        msm_file_free(&f);
        return FILE_BAD;
    }
    status = msm_file_matches(&f, got) ? FILE_OK : FILE_MISMATCH;
    point_str(&f, got, text, sizeof text);
    printf("%s: %s%sN=%zu flags=%lu%s on %s in %.2f ms: %s %s\n", path, f.curvemsm ? group_names[f.group] : "",
           f.curvemsm ? " " : "", f.n, (unsigned long)f.flags, f.flags & 2u ? " (Montgomery coordinates)" : "", where,
           t * 1e3, text, status == FILE_OK ? "ok" : "MISMATCH");
    if (status != FILE_OK) {
        point_str(&f, f.expected, text, sizeof text);
        printf("  expected %s\n", text);
    }
    msm_file_free(&f);
    return status;
}

/* ---- self-check (no arguments) */
static int find_vectors(const char *argv0, char *dir, size_t cap)
{
    const char *cands[3] = { NULL, "tests/vectors/bn254msm", "../tests/vectors/bn254msm" };
    char buf[4096];
    int i;
    snprintf(buf, sizeof buf, "%s", argv0);
    if (strrchr(buf, '/')) {
        *strrchr(buf, '/') = '\0';
        strncat(buf, "/../tests/vectors/bn254msm", sizeof buf - strlen(buf) - 1);
        cands[0] = buf;
    }
    for (i = 0; i < 3; i++) {
        DIR *d;
        if (!cands[i] || !(d = opendir(cands[i]))) continue;
        closedir(d);
        snprintf(dir, cap, "%s", cands[i]);
        return 0;
    }
    return -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int write_file(const char *path, const void *bytes, size_t n)
{
    FILE *fp = fopen(path, "wb");
    int ok = fp && fwrite(bytes, 1, n, fp) == n;
    if (fp && fclose(fp) != 0) ok = 0;
    return ok ? 0 : -1;
}

static void put32(unsigned char *b, uint32_t v) { int i; for (i = 0; i < 4; i++) b[i] = (unsigned char)(v >> 8 * i); }
static void put64(unsigned char *b, uint64_t v) { int i; for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> 8 * i); }

/* Writes a special file of len bytes as DIR/WHAT.bin, runs it and prints whether it got
   want (FILE_*); 1 if not (or it could not be written). */
static int try_case(const char *dir, const char *what, const unsigned char *b, size_t len, int want)
{
    char path[8192];
    int got;
    snprintf(path, sizeof path, "%s/%s.bin", dir, what);
    if (write_file(path, b, len) != 0) { fprintf(stderr, "msm_file: cannot write %s\n", path); return 1; }
    got = run_file(path, 0);
    printf("%s %s: %s (want %s)\n", got == want ? "ok  " : "FAIL", what,
           got == FILE_OK ? "accepted, result ok" : got == FILE_MISMATCH ? "MISMATCH reported" : "rejected",
           want == FILE_OK ? "ok" : want == FILE_MISMATCH ? "MISMATCH" : "rejected");
    remove(path);
    return got != want;
}

static int self_check(const char *argv0)
{
    char dir[4096], cdir[4096], tmp[4096], path[8192];
    const char *tmpdir = getenv(TMP_VAR);
    char **names = NULL;
    int count = 0, cap = 0, i, k, bad = 0, split = mgpu_device_count() > 1;
    DIR *d;
    struct dirent *e;
    unsigned char *src = NULL;
    size_t srcn = 0;

    if (find_vectors(argv0, dir, sizeof dir) != 0) {
        fprintf(stderr, "msm_file: tests/vectors/bn254msm not found (looked next to the program and in the current folder)\n");
        return 1;
    }
    snprintf(cdir, sizeof cdir, "%.*scurvemsm", (int)(strlen(dir) - strlen("bn254msm")), dir);
    for (k = 0; k < 2; k++) {
        const char *from = k ? cdir : dir;
        int before = count;
        if (!(d = opendir(from))) { fprintf(stderr, "msm_file: cannot open %s\n", from); return 1; }
        while ((e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".bin")) continue;
            if (count == cap) {
                cap = cap ? 2 * cap : 16;
                names = (char **)realloc(names, (size_t)cap * sizeof *names);
                if (!names) return 1;
            }
            names[count] = (char *)malloc(strlen(from) + len + 2);
            if (!names[count]) return 1;
            sprintf(names[count], "%s/%s", from, e->d_name);
            count++;
        }
        closedir(d);
        if (count == before) { fprintf(stderr, "msm_file: no .bin file in %s\n", from); return 1; }
    }
    qsort(names, (size_t)count, sizeof *names, cmp_str);
    printf("-- %d vector files in %s and %s on device 0%s\n", count, dir, cdir,
           split ? ", then split over every device" : "");
    for (i = 0; i < count; i++) {
        if (run_file(names[i], 0) != FILE_OK) bad = 1;
        if (split && run_file(names[i], -1) != FILE_OK) bad = 1;
    }

    /* Malformed files, each built from msm_n5.bin (or the first file), must be rejected;
       a file with a wrong expected result must give MISMATCH; N = 0 and an all-infinity
       MSM must pass. */
    snprintf(path, sizeof path, "%s/msm_n5.bin", dir);
    if (read_all(path, &src, &srcn) != 0 && read_all(names[0], &src, &srcn) != 0) { fprintf(stderr, "msm_file: cannot read %s\n", path); return 1; }
    snprintf(tmp, sizeof tmp, "%s/msm_file.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmp)) { fprintf(stderr, "msm_file: mkdtemp %s: %s\n", tmp, strerror(errno)); return 1; }
    printf("-- malformed and special files in %s (messages on stderr)\n", tmp);
    {
        enum { NCASES = 12 };
        static const char *const what[NCASES] = {
            "empty", "truncated-header", "truncated-body", "bad-magic", "version-2", "flags-0x4",
            "extra-bytes", "n-too-large", "n-smaller-than-data", "wrong-expected", "n0-infinity", "all-infinity"
        };
        static const int want[NCASES] = { FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD,
                                          FILE_BAD, FILE_BAD, FILE_BAD, FILE_MISMATCH, FILE_OK, FILE_OK };
        unsigned char *b = (unsigned char *)malloc(srcn + 64);
        int k;
        if (!b) return 1;
        for (k = 0; k < NCASES; k++) {
            size_t len = srcn;
            memcpy(b, src, srcn);
            switch (k) {
            case 0: len = 0; break;
            case 1: len = 20; break;
            case 2: len = srcn - 1; break;
            case 3: b[0] = 'X'; break;
            case 4: put32(b + 8, 2); break;
            case 5: put32(b + 12, le32(b + 12) | 4u); break;
            case 6: memset(b + srcn, 0, 7); len = srcn + 7; break;
            case 7: put64(b + 16, (uint64_t)1 << 31); break;
            case 8: put64(b + 16, le64(b + 16) - 1); break;                   /* N one less than the data */
            case 9: b[srcn - 64] ^= 1; break;                                 /* expected x changed */
            case 10: put32(b + 12, 0); put64(b + 16, 0); memset(b + 24, 0, 64); len = 88; break;
            case 11: {   /* every point at infinity: the result is infinity */
                size_t n = (size_t)le64(b + 16);
                memset(b + 24 + 32 * n, 0, 64 * n + 64);
                break;
            }
            default: break;
            }
            if (try_case(tmp, what[k], b, len, want[k])) bad = 1;
        }
        free(b);
    }
    /* The same for CURVEMSM files, from BLS12-381 G2's N = 5 file. */
    free(src);
    src = NULL;
    snprintf(path, sizeof path, "%s/bls12_381_g2_n5.bin", cdir);
    if (read_all(path, &src, &srcn) != 0 || srcn != 32 + 5 * (32 + 192) + 192) {
        fprintf(stderr, "msm_file: cannot read %s (or its size is wrong)\n", path);
        return 1;
    }
    {
        enum { NCASES = 12 };
        static const char *const what[NCASES] = {
            "curve-truncated-header", "curve-truncated-body", "curve-version-2", "curve-3", "curve-group-0",
            "curve-flags-0x8", "curve-extra-bytes", "curve-n-smaller-than-data", "curve-bls-as-bn254",
            "curve-wrong-expected", "curve-n0-infinity", "curve-all-infinity"
        };
        static const int want[NCASES] = { FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD, FILE_BAD,
                                          FILE_BAD, FILE_BAD, FILE_MISMATCH, FILE_OK, FILE_OK };
        unsigned char *b = (unsigned char *)malloc(srcn + 64);
        if (!b) return 1;
        for (k = 0; k < NCASES; k++) {
            size_t len = srcn;
            memcpy(b, src, srcn);
            switch (k) {
            case 0: len = 28; break;
            case 1: len = srcn - 1; break;
            case 2: put32(b + 8, 2); break;
            case 3: put32(b + 12, 3); break;
            case 4: put32(b + 16, 0); break;
            case 5: put32(b + 20, 8); break;
            case 6: memset(b + srcn, 0, 5); len = srcn + 5; break;
            case 7: put64(b + 24, 4); break;
            case 8: put32(b + 12, 1); break;                                  /* BN254 G2: 128-byte points */
            case 9: b[srcn - 192] ^= 1; break;                                /* expected x.c0 changed */
            case 10: put64(b + 24, 0); memset(b + 32, 0, 192); len = 32 + 192; break;
            case 11: memset(b + 32 + 32 * 5, 0, 192 * 6); break;              /* every point and the result */
            default: break;
            }
            if (try_case(tmp, what[k], b, len, want[k])) bad = 1;
        }
        free(b);
    }
    rmdir(tmp);
    free(src);
    for (i = 0; i < count; i++) free(names[i]);
    free(names);
    printf("msm_file self-check: %s\n", bad ? "FAILED" : "passed");
    return bad;
}

static int usage(void)
{
    fprintf(stderr, "usage: msm_file [--gpus N|all] FILE...   (no arguments: self-check on tests/vectors/bn254msm "
            "and tests/vectors/curvemsm)\n");
    return 2;
}

int main(int argc, char **argv)
{
    int i, ndevs = 0, worst = FILE_OK, first = 1;
    const char *why = "";
    for (; first < argc && argv[first][0] == '-'; first++) {
        const char *a = argv[first];
        if ((!strcmp(a, "--gpus") || !strcmp(a, "--devices")) && first + 1 < argc) {
            const char *v = argv[++first];
            char *end;
            long k = strtol(v, &end, 10);
            if (!strcmp(v, "all")) ndevs = -1;
            else if (*end || k < 1 || k > MGPU_MAX_DEVICES) { fprintf(stderr, "msm_file: %s %s: use 1..%d or all\n", a, v, MGPU_MAX_DEVICES); return 2; }
            else ndevs = (int)k;
        } else if (!strcmp(a, "--")) { first++; break; }
        else return usage();
    }
    setvbuf(stdout, NULL, _IOLBF, 0);        /* keeps the result lines and the stderr messages in order */
    if (ndevs && first == argc) return usage();
    if (mgpu_init(NULL) != MGPU_SUCCESS) { fprintf(stderr, "msm_file: mgpu_init: %s\n", mgpu_last_error()); return 1; }
    mgpu_cuda_status(&why);
    if (ndevs > mgpu_device_count()) {
        fprintf(stderr, "msm_file: --gpus %d: there are %d device(s) (%s)\n", ndevs, mgpu_device_count(),
                mgpu_default_backend() == MGPU_BACKEND_CUDA ? "GPUs" : "CPU devices");
        mgpu_shutdown();
        return 2;
    }
    printf("msm_file: %d %s device(s)%s%s\n", mgpu_device_count(), mgpu_default_backend() == MGPU_BACKEND_CUDA ? "CUDA" : "CPU",
           mgpu_default_backend() == MGPU_BACKEND_CUDA ? "" : "; ", mgpu_default_backend() == MGPU_BACKEND_CUDA ? "" : why);
    if (first == argc) worst = self_check(argv[0]);
    else {
        int counts[3] = { 0, 0, 0 };
        for (i = first; i < argc; i++) {
            int s = run_file(argv[i], ndevs);
            counts[s]++;
            if (s > worst) worst = s;
        }
        printf("msm_file: %d file(s): %d ok, %d MISMATCH, %d rejected\n", argc - first, counts[FILE_OK],
               counts[FILE_MISMATCH], counts[FILE_BAD]);
    }
    mgpu_shutdown();
    return worst;
}
#endif
