/* blur_image.c - Gaussian blur of image files on every device: one image split into bands
   over all devices (mgpu_blur_split), or a folder of images spread over all devices
   (mgpu_blur_batch). Reads PNG, JPEG, PNM, BMP, TGA... with stb_image and writes PNG with
   stb_image_write (Debian/Ubuntu: apt-get install libstb-dev; link -lstb).

   usage: blur_image IN OUT.png [options]
          blur_image --folder DIR OUTDIR [options]     prints images/s
          blur_image                                   self-check on generated images (exit 0: pass)
   options: --sigma S (default 2)  --radius R (default 2; 0 copies)
            --border replicate|reflect|constant (default replicate)  --value V (constant border, 0..255)

   Build (the Makefile does this): cc -std=c99 -I. $(pkg-config --cflags stb) examples/blur_image.c \
       build/mgpu.o -ldl -lpthread $(pkg-config --libs stb) */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mgpu.h"
#include "stb_image.h"
#include "stb_image_write.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int usage(void)
{
    fprintf(stderr, "usage: blur_image IN OUT.png [--sigma S] [--radius R] [--border replicate|reflect|constant] [--value V]\n"
                    "       blur_image --folder DIR OUTDIR [options]\n"
                    "       blur_image            (self-check)\n");
    return 2;
}

/* Parses the options from argv[i..]; 0 on success. */
static int parse_options(int argc, char **argv, int i, mgpu_blur_params *p)
{
    memset(p, 0, sizeof *p);
    for (; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!val) { fprintf(stderr, "blur_image: %s needs a value\n", opt); return 1; }
        if (!strcmp(opt, "--sigma")) {
            p->sigma = (float)strtod(val, &end);
            if (*end || p->sigma <= 0) { fprintf(stderr, "blur_image: --sigma %s: use a positive number\n", val); return 1; }
        } else if (!strcmp(opt, "--radius")) {
            long r = strtol(val, &end, 10);
            if (*end || r < 0 || r > MGPU_BLUR_MAX_RADIUS) {
                fprintf(stderr, "blur_image: --radius %s: use 0..%d\n", val, MGPU_BLUR_MAX_RADIUS);
                return 1;
            }
            p->radius = r == 0 ? MGPU_BLUR_RADIUS_ZERO : (int)r;
        } else if (!strcmp(opt, "--border")) {
            if (!strcmp(val, "replicate")) p->border = MGPU_BORDER_REPLICATE;
            else if (!strcmp(val, "reflect")) p->border = MGPU_BORDER_REFLECT_101;
            else if (!strcmp(val, "constant")) p->border = MGPU_BORDER_CONSTANT;
            else { fprintf(stderr, "blur_image: --border %s: use replicate, reflect or constant\n", val); return 1; }
        } else if (!strcmp(opt, "--value")) {
            p->border_value = (float)strtod(val, &end);
            if (*end) { fprintf(stderr, "blur_image: --value %s is not a number\n", val); return 1; }
        } else {
            fprintf(stderr, "blur_image: unknown option %s\n", opt);
            return 1;
        }
        i++;
    }
    return 0;
}

static mgpu_image image_of(unsigned char *data, int w, int h, int channels)
{
    mgpu_image im;
    memset(&im, 0, sizeof im);
    im.data = data;
    im.width = w;
    im.height = h;
    im.channels = channels;
    im.format = MGPU_PIXEL_U8;
    return im;
}

/* One file: split over every device. */
static int blur_file(const char *in, const char *out, const mgpu_blur_params *p)
{
    int w, h, n;
    unsigned char *src = stbi_load(in, &w, &h, &n, 0), *dst;
    mgpu_image a, b;
    mgpu_result r;
    double t;
    if (!src) { fprintf(stderr, "blur_image: cannot read %s: %s\n", in, stbi_failure_reason()); return 1; }
    dst = (unsigned char *)malloc((size_t)w * h * n);
    if (!dst) { fprintf(stderr, "blur_image: out of memory\n"); stbi_image_free(src); return 1; }
    a = image_of(src, w, h, n);
    b = image_of(dst, w, h, n);
    t = now_s();
    r = mgpu_blur_split(&a, &b, p, NULL, 0);
    t = now_s() - t;
    if (r != MGPU_SUCCESS) fprintf(stderr, "blur_image: %s\n", mgpu_last_error());
    else if (!stbi_write_png(out, w, h, n, dst, w * n)) { fprintf(stderr, "blur_image: cannot write %s\n", out); r = MGPU_ERROR_INVALID_ARGUMENT; }
    else printf("%s: %d x %d, %d channel(s), blurred in %.2f ms on %d device(s) -> %s\n", in, w, h, n, t * 1e3,
                mgpu_device_count(), out);
    stbi_image_free(src);
    free(dst);
    return r == MGPU_SUCCESS ? 0 : 1;
}

/* Every image in a folder: one batch over every device. All images are held in memory. */
static int blur_folder(const char *dir, const char *outdir, const mgpu_blur_params *p)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    unsigned char **pix = NULL;
    mgpu_image *src = NULL, *dst = NULL;
    int count = 0, cap = 0, i, status = 0;
    size_t bytes = 0;
    double t;
    mgpu_result r;
    if (!d) { fprintf(stderr, "blur_image: cannot open folder %s: %s\n", dir, strerror(errno)); return 1; }
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        int w, h, n;
        unsigned char *data;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!stbi_info(path, &w, &h, &n)) continue;          /* not an image stb can read */
        if (!(data = stbi_load(path, &w, &h, &n, 0))) continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            names = (char **)realloc(names, (size_t)cap * sizeof *names);
            pix = (unsigned char **)realloc(pix, (size_t)cap * 2 * sizeof *pix);
            src = (mgpu_image *)realloc(src, (size_t)cap * sizeof *src);
            dst = (mgpu_image *)realloc(dst, (size_t)cap * sizeof *dst);
            if (!names || !pix || !src || !dst) { fprintf(stderr, "blur_image: out of memory\n"); exit(1); }
        }
        names[count] = (char *)malloc(strlen(e->d_name) + 1);
        pix[2 * count] = data;
        pix[2 * count + 1] = (unsigned char *)malloc((size_t)w * h * n);
        if (!names[count] || !pix[2 * count + 1]) { fprintf(stderr, "blur_image: out of memory\n"); exit(1); }
        strcpy(names[count], e->d_name);
        src[count] = image_of(data, w, h, n);
        dst[count] = image_of(pix[2 * count + 1], w, h, n);
        bytes += (size_t)w * h * n;
        count++;
    }
    closedir(d);
    if (!count) { fprintf(stderr, "blur_image: no image in %s\n", dir); return 1; }
    t = now_s();
    r = mgpu_blur_batch(src, dst, count, p, NULL, 0);
    t = now_s() - t;
    if (r != MGPU_SUCCESS) {
        fprintf(stderr, "blur_image: %s\n", mgpu_last_error());
        status = 1;
    } else {
        printf("%d images (%.1f MB) blurred in %.1f ms on %d device(s): %.1f images/s, %.2f GB/s read + written\n",
               count, bytes / 1e6, t * 1e3, mgpu_device_count(), count / t, 2.0 * bytes / t / 1e9);
        mkdir(outdir, 0755);                                  /* may exist already */
        for (i = 0; i < count; i++) {
            char path[4096], base[1024], *dot;
            snprintf(base, sizeof base, "%s", names[i]);
            if ((dot = strrchr(base, '.')) != NULL) *dot = '\0';
            snprintf(path, sizeof path, "%s/%s.png", outdir, base);
            if (!stbi_write_png(path, dst[i].width, dst[i].height, dst[i].channels, dst[i].data, dst[i].width * dst[i].channels)) {
                fprintf(stderr, "blur_image: cannot write %s\n", path);
                status = 1;
            }
        }
        if (!status) printf("wrote %d PNG files to %s\n", count, outdir);
    }
    for (i = 0; i < count; i++) { stbi_image_free(pix[2 * i]); free(pix[2 * i + 1]); free(names[i]); }
    free(names); free(pix); free(src); free(dst);
    return status;
}

/* No arguments: generated images, split and batch over every device against the CPU device. */
static int self_check(void)
{
    enum { N = 6 };
    const int w = 1031, h = 517, c = 4;
    const size_t n = (size_t)w * h * c;
    unsigned char *src = (unsigned char *)malloc(N * n), *want = (unsigned char *)malloc(N * n), *got = (unsigned char *)malloc(N * n);
    mgpu_image a[N], b[N], ref;
    mgpu_blur_params p;
    mgpu_stream cpu;
    unsigned s = 12345;
    size_t i;
    int k, bad = 0;
    double t;
    if (!src || !want || !got) return 1;
    for (i = 0; i < N * n; i++) {                       /* gradients plus noise */
        s = s * 1103515245u + 12345u;
        src[i] = (unsigned char)((i / c % (size_t)w) * 255 / w / 2 + (s >> 25));
    }
    memset(&p, 0, sizeof p);                            /* sigma 2, radius 2, replicate */
    mgpu_default_stream(mgpu_cpu_device(0), &cpu);
    for (k = 0; k < N; k++) {
        a[k] = image_of(src + k * n, w, h, c);
        b[k] = image_of(got + k * n, w, h, c);
        ref = image_of(want + k * n, w, h, c);
        if (mgpu_blur(&a[k], &ref, &p, cpu) != MGPU_SUCCESS) { fprintf(stderr, "%s\n", mgpu_last_error()); return 1; }
    }
    t = now_s();
    if (mgpu_blur_split(&a[0], &b[0], &p, NULL, 0) != MGPU_SUCCESS) { fprintf(stderr, "%s\n", mgpu_last_error()); return 1; }
    printf("split: one %d x %d RGBA image over %d device(s) in %.2f ms: %s\n", w, h, mgpu_device_count(), (now_s() - t) * 1e3,
           memcmp(got, want, n) ? (bad = 1, "DIFFERS from the CPU device") : "identical to the CPU device");
    memset(got, 0, N * n);
    t = now_s();
    if (mgpu_blur_batch(a, b, N, &p, NULL, 0) != MGPU_SUCCESS) { fprintf(stderr, "%s\n", mgpu_last_error()); return 1; }
    t = now_s() - t;
    printf("batch: %d images over %d device(s) in %.2f ms (%.0f images/s): %s\n", N, mgpu_device_count(), t * 1e3, N / t,
           memcmp(got, want, N * n) ? (bad = 1, "DIFFER from the CPU device") : "identical to the CPU device");
    free(src); free(want); free(got);
    return bad;
}

int main(int argc, char **argv)
{
    mgpu_blur_params p;
    int status;
    if (argc == 2 || (argc > 1 && argv[1][0] == '-' && strcmp(argv[1], "--folder"))) return usage();
    if (mgpu_init(NULL) != MGPU_SUCCESS) { fprintf(stderr, "blur_image: %s\n", mgpu_last_error()); return 1; }
    if (argc == 1) {
        const char *why = "";
        mgpu_cuda_status(&why);
        printf("blur_image self-check (%s; usage: blur_image IN OUT.png | --folder DIR OUTDIR)\n", why);
        status = self_check();
    } else if (!strcmp(argv[1], "--folder")) {
        status = argc < 4 ? usage() : parse_options(argc, argv, 4, &p) ? 2 : blur_folder(argv[2], argv[3], &p);
    } else {
        status = parse_options(argc, argv, 3, &p) ? 2 : blur_file(argv[1], argv[2], &p);
    }
    mgpu_shutdown();
    return status;
}
