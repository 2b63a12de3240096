/* sha256.h - SHA-256 (FIPS 180-4) in portable C99, header-only, every function static.

       unsigned char digest[32];  mgpu_sha256(data, n, digest);
       char hex[65];              mgpu_sha256_hex(data, n, hex);   (lower case, NUL-terminated)

   Also compiles as C++. Used by tools/embed_fatbin.c and the tests. */
#ifndef MGPU_TOOLS_SHA256_H
#define MGPU_TOOLS_SHA256_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A file may use only one of the two public functions: no unused-function warning. */
#if defined(__GNUC__) || defined(__clang__)
#define MGPU__SHA256_MAYBE_UNUSED __attribute__((unused))
#else
#define MGPU__SHA256_MAYBE_UNUSED
#endif
static void mgpu_sha256(const void *data, size_t n, unsigned char out[32]) MGPU__SHA256_MAYBE_UNUSED;
static void mgpu_sha256_hex(const void *data, size_t n, char out[65]) MGPU__SHA256_MAYBE_UNUSED;

static const uint32_t mgpu__sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
};

static uint32_t mgpu__sha256_rotr(uint32_t x, unsigned r) { return (x >> r) | (x << (32u - r)); }

/* Folds one 64-byte block into the state h[8]. */
static void mgpu__sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
    unsigned i;
    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (i = 16; i < 64; i++) {
        uint32_t s0 = mgpu__sha256_rotr(w[i - 15], 7) ^ mgpu__sha256_rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = mgpu__sha256_rotr(w[i - 2], 17) ^ mgpu__sha256_rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; hh = h[7];
    for (i = 0; i < 64; i++) {
        t1 = hh + (mgpu__sha256_rotr(e, 6) ^ mgpu__sha256_rotr(e, 11) ^ mgpu__sha256_rotr(e, 25))
             + ((e & f) ^ (~e & g)) + mgpu__sha256_k[i] + w[i];
        t2 = (mgpu__sha256_rotr(a, 2) ^ mgpu__sha256_rotr(a, 13) ^ mgpu__sha256_rotr(a, 22))
             + ((a & b) ^ (a & c) ^ (b & c));
        hh = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void mgpu_sha256(const void *data, size_t n, unsigned char out[32])
{
    static const uint32_t init[8] = { 0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                      0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u };
    const unsigned char *p = (const unsigned char *)data;
    unsigned char tail[128];
    uint32_t h[8];
    uint64_t bits = (uint64_t)n * 8u;          /* message length mod 2^64, as the standard says */
    size_t full = n / 64, rest = n % 64, padded, i;

    memcpy(h, init, sizeof h);
    for (i = 0; i < full; i++) mgpu__sha256_block(h, p + 64 * i);

    /* The last partial block, 0x80, zeros, and the 64-bit big-endian bit length: one
       block if the remainder leaves room for 9 bytes (rest <= 55), else two. */
    memset(tail, 0, sizeof tail);
    if (rest) memcpy(tail, p + 64 * full, rest);
    tail[rest] = 0x80;
    padded = rest <= 55 ? 64 : 128;
    for (i = 0; i < 8; i++) tail[padded - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (i = 0; i < padded; i += 64) mgpu__sha256_block(h, tail + i);

    for (i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(h[i] >> 8);
        out[4 * i + 3] = (unsigned char)h[i];
    }
}

static void mgpu_sha256_hex(const void *data, size_t n, char out[65])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char d[32];
    unsigned i;
    mgpu_sha256(data, n, d);
    for (i = 0; i < 32; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[64] = '\0';
}

#endif /* MGPU_TOOLS_SHA256_H */
