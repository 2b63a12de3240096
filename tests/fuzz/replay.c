/* replay.c - the fallback engine for the targets of tests/fuzz where clang cannot link
   libFuzzer (-fsanitize=fuzzer: Debian's libclang-rt-NN-dev missing): runs every file of
   the corpus folders given, then deterministic mutations of them (bit flips, interesting
   bytes, inserted, erased and repeated runs, cuts) until -runs=N inputs or
   -max_total_time=S seconds, under the same ASan/UBSan build. No coverage guidance: it is
   a replay with noise, not a fuzzer, and says so. Other -flags are ignored (the libFuzzer
   command line works unchanged). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct seed { unsigned char *b; size_t n; } seed;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

/* One input: seed, mutated 1..8 times, at most cap bytes. */
static size_t mutate(const seed *in, unsigned char *out, size_t cap, uint64_t *rng)
{
    static const unsigned char interesting[] = { 0, 1, 0x7F, 0x80, 0xFF, 16, 64 };
    size_t n = in->n < cap ? in->n : cap, i, k = 1 + next(rng) % 8;
    memcpy(out, in->b, n);
    while (k--) {
        size_t at = n ? (size_t)(next(rng) % n) : 0, len = 1 + (size_t)(next(rng) % 16);
        switch (next(rng) % 6) {
        case 0: if (n) out[at] ^= (unsigned char)(1u << next(rng) % 8); break;
        case 1: if (n) out[at] = interesting[next(rng) % sizeof interesting]; break;
        case 2: if (n + len <= cap) { memmove(out + at + len, out + at, n - at); for (i = 0; i < len; i++) out[at + i] = (unsigned char)next(rng); n += len; } break;
        case 3: if (at + len <= n) { memmove(out + at, out + at + len, n - at - len); n -= len; } break;
        case 4: n = at; break;
        default: if (n && at + len <= n) { size_t from = (size_t)(next(rng) % n); if (from + len <= n) memmove(out + at, out + from, len); } break;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    seed *seeds = NULL;
    size_t nseeds = 0, cap = 4096, i;
    long runs = -1, seconds = 10, done = 0;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    unsigned char *buf;
    time_t start = time(NULL);
    int a;
    for (a = 1; a < argc; a++) {
        DIR *d;
        struct dirent *e;
        if (!strncmp(argv[a], "-runs=", 6)) { runs = atol(argv[a] + 6); continue; }
        if (!strncmp(argv[a], "-max_total_time=", 16)) { seconds = atol(argv[a] + 16); continue; }
        if (!strncmp(argv[a], "-max_len=", 9)) { cap = (size_t)atol(argv[a] + 9); continue; }
        if (argv[a][0] == '-' || !(d = opendir(argv[a]))) continue;
        while ((e = readdir(d)) != NULL) {
            char path[4096];
            FILE *fp;
            seed s;
            long size;
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            if (!(fp = fopen(path, "rb"))) continue;
            if (fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) ||
                !(s.b = (unsigned char *)malloc((size_t)size + 1)) || fread(s.b, 1, (size_t)size, fp) != (size_t)size) {
                fclose(fp);
                continue;
            }
            fclose(fp);
            s.n = (size_t)size;
            LLVMFuzzerTestOneInput(s.b, s.n);
            done++;
            seeds = (seed *)realloc(seeds, (nseeds + 1) * sizeof *seeds);
            if (!seeds) return 1;
            seeds[nseeds++] = s;
        }
        closedir(d);
    }
    if (!nseeds) { fprintf(stderr, "replay: no corpus files\n"); return 1; }
    if (!(buf = (unsigned char *)malloc(cap))) return 1;
    while ((runs < 0 || done < runs) && time(NULL) - start < seconds) {
        size_t n = mutate(&seeds[next(&rng) % nseeds], buf, cap, &rng);
        unsigned char *exact = (unsigned char *)malloc(n ? n : 1);   /* exact size: ASan sees overreads */
        if (!exact) return 1;
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
        free(exact);
        done++;
    }
    printf("stat::number_of_executed_units: %ld\n", done);
    printf("replay: %ld inputs (%zu corpus files, then deterministic mutations; libFuzzer not available)\n", done, nseeds);
    for (i = 0; i < nseeds; i++) free(seeds[i].b);
    free(seeds);
    free(buf);
    return 0;
}
