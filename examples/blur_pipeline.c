/* blur_pipeline.c - blur_image's folder mode as pipelines: decode (CPU) -> blur (GPU) ->
   encode (CPU), against the folder mode (decode every file, mgpu_blur_batch, encode every
   file), both timed from the first file read to the last file written.

   One pipeline per device of the default backend (every GPU; CPU devices without one), each
   taking every P-th file, driven by its own thread: while a GPU blurs image k, W host
   threads (the decode stage's workers) decode the next images and W more (the encode
   stage's) encode the previous ones, for every GPU at once; W is the host's cores / P by
   default (--workers W). PNG coding is nearly all of the time (a 1920x1080 image takes
   the GPU a few milliseconds and stb hundreds), so W is what makes the pipelines faster.
   The push carries the file's index (the stages read its name and size from a table made
   by stbi_info); decode writes the pixels into the stage's pinned buffer, the pipeline
   copies them to the GPU, blur runs mgpu_blur_async on the stage's stream, the pipeline
   copies the result back into pinned memory and encode writes the PNG. The folder mode
   is blur_image's (one thread decodes and encodes); both ways read the same files, and
   every file the pipelines write must equal the folder mode's, byte for byte.

   usage: blur_pipeline DIR OUTDIR [--sigma S] [--radius R] [--workers W]   prints images/s of both ways
                                     (writes OUTDIR/folder/NAME.png and OUTDIR/pipeline/NAME.png)
          blur_pipeline --generate DIR COUNT WIDTH HEIGHT   writes COUNT test PNGs (RGBA) into DIR
          blur_pipeline              self-check: generated images, both ways, identical files
   Needs stb (Debian/Ubuntu: libstb-dev); the Makefile builds it like blur_image. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mgpu.h"
#include "stb_image.h"
#include "stb_image_write.h"

typedef struct file { char in[4096], out[4096]; int w, h, n; } file;
typedef struct job {
    file *files;
    int count;
    size_t max_bytes;                   /* the largest image */
    mgpu_blur_params params;
    int workers;                        /* per decode and per encode stage */
} job;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static mgpu_image image_of(const void *data, const file *f)
{
    mgpu_image im;
    memset(&im, 0, sizeof im);
    im.data = (void *)data;
    im.width = f->w;
    im.height = f->h;
    im.channels = f->n;
    im.format = MGPU_PIXEL_U8;
    return im;
}

/* The images of dir (stbi_info: name, size), to be written as outdir/NAME.png. */
static int list_folder(const char *dir, const char *outdir, job *j)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int cap = 0;
    if (!d) { fprintf(stderr, "blur_pipeline: cannot open folder %s\n", dir); return 1; }
    mkdir(outdir, 0755);                                       /* may exist already */
    while ((e = readdir(d)) != NULL) {
        file f;
        char base[1024], *dot;
        if (e->d_name[0] == '.') continue;
        snprintf(f.in, sizeof f.in, "%s/%s", dir, e->d_name);
        if (!stbi_info(f.in, &f.w, &f.h, &f.n)) continue;       /* not an image stb can read */
        snprintf(base, sizeof base, "%s", e->d_name);
        if ((dot = strrchr(base, '.')) != NULL) *dot = '\0';
        snprintf(f.out, sizeof f.out, "%s/%s.png", outdir, base);
        if (j->count == cap) {
            cap = cap ? 2 * cap : 64;
            j->files = (file *)realloc(j->files, (size_t)cap * sizeof *j->files);
            if (!j->files) { fprintf(stderr, "blur_pipeline: out of memory\n"); exit(1); }
        }
        j->files[j->count++] = f;
        if ((size_t)f.w * f.h * f.n > j->max_bytes) j->max_bytes = (size_t)f.w * f.h * f.n;
    }
    closedir(d);
    if (!j->count) { fprintf(stderr, "blur_pipeline: no image in %s\n", dir); return 1; }
    return 0;
}

/* ---- the folder mode: decode all, one mgpu_blur_batch over every device, encode all */
static int folder_mode(job *j, double *blur_s)
{
    mgpu_image *src = (mgpu_image *)calloc((size_t)j->count, sizeof *src), *dst = (mgpu_image *)calloc((size_t)j->count, sizeof *dst);
    int i, status = 0;
    double t;
    if (!src || !dst) return 1;
    for (i = 0; i < j->count; i++) {
        file *f = &j->files[i];
        unsigned char *px = stbi_load(f->in, &f->w, &f->h, &f->n, 0);
        if (!px) { fprintf(stderr, "blur_pipeline: cannot read %s\n", f->in); return 1; }
        src[i] = image_of(px, f);
        dst[i] = image_of(malloc((size_t)f->w * f->h * f->n), f);
        if (!dst[i].data) return 1;
    }
    t = now_s();
    if (mgpu_blur_batch(src, dst, j->count, &j->params, NULL, 0) != MGPU_SUCCESS) {
        fprintf(stderr, "blur_pipeline: %s\n", mgpu_last_error());
        status = 1;
    }
    *blur_s = now_s() - t;
    for (i = 0; i < j->count && !status; i++)
        if (!stbi_write_png(j->files[i].out, dst[i].width, dst[i].height, dst[i].channels, dst[i].data,
                            dst[i].width * dst[i].channels)) { fprintf(stderr, "blur_pipeline: cannot write %s\n", j->files[i].out); status = 1; }
    for (i = 0; i < j->count; i++) { stbi_image_free(src[i].data); free(dst[i].data); }
    free(src); free(dst);
    return status;
}

/* ---- the pipelines */
static mgpu_result decode(mgpu_stage_batch *b, void *user)            /* CPU: file -> pixels */
{
    const job *j = (const job *)user;
    const file *f = &j->files[*(const int *)b->in];
    int w, h, n;
    unsigned char *px = stbi_load(f->in, &w, &h, &n, 0);
    if (!px || w != f->w || h != f->h || n != f->n) {
        fprintf(stderr, "blur_pipeline: cannot read %s\n", f->in);
        stbi_image_free(px);
        return MGPU_ERROR_INVALID_ARGUMENT;
    }
    b->out_bytes = (size_t)w * h * n;
    memcpy(b->out, px, b->out_bytes);
    stbi_image_free(px);
    return MGPU_SUCCESS;
}
static mgpu_result blur(mgpu_stage_batch *b, void *user)              /* GPU: pixels -> pixels */
{
    const job *j = (const job *)user;
    const file *f = &j->files[(int)(size_t)b->tag];
    mgpu_image src = image_of(b->in, f), dst = image_of(b->out, f);
    b->out_bytes = b->in_bytes;
    return mgpu_blur_async(&src, &dst, &j->params, b->stream);
}
static mgpu_result encode(mgpu_stage_batch *b, void *user)            /* CPU: pixels -> file */
{
    const job *j = (const job *)user;
    const file *f = &j->files[(int)(size_t)b->tag];
    b->out_bytes = 0;
    if (!stbi_write_png(f->out, f->w, f->h, f->n, b->in, f->w * f->n)) {
        fprintf(stderr, "blur_pipeline: cannot write %s\n", f->out);
        return MGPU_ERROR_INVALID_ARGUMENT;
    }
    return MGPU_SUCCESS;
}

/* The pipeline of device dev (the index-th of P): files index, index + P, ... */
static mgpu_result drive(mgpu_device dev, int index, void *arg)
{
    job *j = (job *)arg;
    const int P = mgpu_device_count(), cpus = mgpu_cpu_device_count();
    mgpu_pipeline_stage st[3];
    mgpu_pipeline_desc d;
    mgpu_pipeline p;
    int next = index, pulled = 0, todo = (j->count - index + P - 1) / P;
    char none;
    size_t bytes;
    memset(st, 0, sizeof st);
    memset(&d, 0, sizeof d);
    st[0].device = mgpu_cpu_device(index % cpus); st[0].fn = decode; st[0].out_bytes = j->max_bytes; st[0].name = "decode";
    st[1].device = dev;                            st[1].fn = blur;   st[1].out_bytes = j->max_bytes; st[1].name = "blur";
    st[2].device = mgpu_cpu_device(index % cpus); st[2].fn = encode; st[2].out_bytes = 1;           st[2].name = "encode";
    st[0].workers = st[2].workers = j->workers;
    for (d.nstages = 0; d.nstages < 3; d.nstages++) st[d.nstages].user_data = j;
    d.stages = st; d.in_bytes = sizeof(int);      /* depth 0: a batch for every worker */
    mgpu_result r = mgpu_pipeline_create(&d, &p);
    if (r != MGPU_SUCCESS) return r;
    while (pulled < todo) {
        r = MGPU_NOT_READY;
        if (next < j->count) r = mgpu_pipeline_push(p, &next, sizeof next, (void *)(size_t)next);
        if (r == MGPU_SUCCESS) { next += P; continue; }
        if (r == MGPU_NOT_READY) r = mgpu_pipeline_pull(p, &none, 1, &bytes, NULL);
        if (r != MGPU_SUCCESS) { mgpu_pipeline_destroy(p); return r; }
        pulled++;
    }
    return mgpu_pipeline_destroy(p);
}

/* Same bytes in two files? */
static int same_file(const char *x, const char *y)
{
    FILE *f = fopen(x, "rb"), *g = fopen(y, "rb");
    int c, d, same = f && g;
    while (same && ((c = fgetc(f)) != EOF) | ((d = fgetc(g)) != EOF)) same = c == d;
    if (f) fclose(f);
    if (g) fclose(g);
    return same;
}

/* Both ways over the folder (workers per decode and encode stage; 0: cores / pipelines);
   prints images/s; 0 on success, 1 on failure or when a file of the pipelines differs. */
static int run(const char *dir, const char *outdir_folder, const char *outdir_pipe, const mgpu_blur_params *params,
               int workers)
{
    job a, b;
    double t0, t_folder, t_pipe, blur_s = 0;
    int P = mgpu_device_count(), cores = (int)sysconf(_SC_NPROCESSORS_ONLN), i, differ = 0;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.params = b.params = *params;
    b.workers = workers ? workers : cores / P > 1 ? cores / P : 1;
    if (b.workers > MGPU_PIPELINE_MAX_WORKERS) b.workers = MGPU_PIPELINE_MAX_WORKERS;
    if (list_folder(dir, outdir_folder, &a) || list_folder(dir, outdir_pipe, &b)) return 1;
    t0 = now_s();
    if (folder_mode(&a, &blur_s)) return 1;
    t_folder = now_s() - t0;
    t0 = now_s();
    if (mgpu_run_on_devices(NULL, P, drive, &b) != MGPU_SUCCESS) { fprintf(stderr, "blur_pipeline: %s\n", mgpu_last_error()); return 1; }
    t_pipe = now_s() - t0;
    for (i = 0; i < a.count; i++) {                            /* the same input's two outputs */
        int k = 0;
        while (k < b.count && strcmp(a.files[i].in, b.files[k].in)) k++;
        differ += k == b.count || !same_file(a.files[i].out, b.files[k].out);
    }
    printf("%d images, files in and out, on %d %s, %d host cores:\n", a.count, P,
           mgpu_default_backend() == MGPU_BACKEND_CUDA ? "GPU(s)" : "CPU device(s)", cores);
    printf("  folder mode (decode all, mgpu_blur_batch, encode all; one thread codes): %7.1f images/s  (the blur alone: %.1f images/s)\n",
           a.count / t_folder, a.count / blur_s);
    printf("  pipelines (decode -> blur -> encode, one per device; %d decode and %d encode workers each): %7.1f images/s  (%.2fx)\n",
           b.workers, b.workers, b.count / t_pipe, t_folder / t_pipe);
    printf("  the pipelines' %d files %s the folder mode's\n", b.count, differ ? "DIFFER from" : "are identical to");
    free(a.files);
    free(b.files);
    return differ != 0;
}

/* Writes dir/imageNN.png, a gradient plus noise of w x h pixels of n channels; 0 on success. */
static int write_test_image(const char *dir, int i, int w, int h, int n)
{
    char path[4200];
    unsigned char *px = (unsigned char *)malloc((size_t)w * h * n);
    unsigned s = 777u + (unsigned)i;
    size_t k;
    int ok;
    if (!px) return 1;
    for (k = 0; k < (size_t)w * h * n; k++) { s = s * 1103515245u + 12345u; px[k] = (unsigned char)(k / n % w * 200 / w + (s >> 27)); }
    snprintf(path, sizeof path, "%s/image%02d.png", dir, i);
    ok = stbi_write_png(path, w, h, n, px, w * n);
    free(px);
    return !ok;
}

/* No arguments: 12 generated PNGs of different sizes, both ways (3 workers per coding
   stage, whatever the cores); the files must agree. */
static int self_check(void)
{
    char dir[] = "/tmp/mgpu_blur_pipeline_XXXXXX", path[256], sub[3][64];
    mgpu_blur_params params;
    int i, j, bad;
    if (!mkdtemp(dir)) { fprintf(stderr, "blur_pipeline: mkdtemp failed\n"); return 1; }
    snprintf(sub[0], sizeof sub[0], "%s/in", dir);
    snprintf(sub[1], sizeof sub[1], "%s/folder", dir);
    snprintf(sub[2], sizeof sub[2], "%s/pipeline", dir);
    mkdir(sub[0], 0755);
    for (i = 0; i < 12; i++)
        if (write_test_image(sub[0], i, 97 + 31 * i, 64 + 17 * (i % 5), 1 + i % 4)) return 1;
    memset(&params, 0, sizeof params);
    bad = run(sub[0], sub[1], sub[2], &params, 3);
    for (i = 0; i < 12; i++)
        for (j = 0; j < 3; j++) {
            snprintf(path, sizeof path, "%s/image%02d.png", sub[j], i);
            remove(path);
        }
    for (i = 2; i >= 0; i--) rmdir(sub[i]);
    rmdir(dir);
    return bad;
}

int main(int argc, char **argv)
{
    mgpu_blur_params params;
    char out_folder[4200], out_pipe[4200];
    int status, i, workers = 0;
    memset(&params, 0, sizeof params);
    if (argc == 6 && !strcmp(argv[1], "--generate")) {
        int count = atoi(argv[3]), w = atoi(argv[4]), h = atoi(argv[5]);
        mkdir(argv[2], 0755);
        for (i = 0; i < count; i++)
            if (w < 1 || h < 1 || write_test_image(argv[2], i, w, h, 4)) { fprintf(stderr, "blur_pipeline: cannot write into %s\n", argv[2]); return 1; }
        printf("wrote %d %d x %d RGBA PNGs into %s\n", count, w, h, argv[2]);
        return 0;
    }
    for (i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sigma")) params.sigma = (float)atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--radius")) params.radius = atoi(argv[i + 1]) ? atoi(argv[i + 1]) : MGPU_BLUR_RADIUS_ZERO;
        else if (!strcmp(argv[i], "--workers") && atoi(argv[i + 1]) > 0) workers = atoi(argv[i + 1]);
        else break;
    }
    if (argc == 2 || (argc > 2 && i < argc)) {
        fprintf(stderr, "usage: blur_pipeline DIR OUTDIR [--sigma S] [--radius R] [--workers W]   (no arguments: self-check)\n");
        return 2;
    }
    if (mgpu_init(NULL) != MGPU_SUCCESS) { fprintf(stderr, "blur_pipeline: %s\n", mgpu_last_error()); return 1; }
    if (argc == 1) status = self_check();
    else {
        snprintf(out_folder, sizeof out_folder, "%s/folder", argv[2]);
        snprintf(out_pipe, sizeof out_pipe, "%s/pipeline", argv[2]);
        mkdir(argv[2], 0755);
        status = run(argv[1], out_folder, out_pipe, &params, workers);
    }
    mgpu_shutdown();
    return status;
}
