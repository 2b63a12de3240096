/* embed_fatbin - turns an nvcc fatbin into kernels_fatbin.h (run by `make kernels`).

   usage: embed_fatbin FATBIN SOURCE.cu "ARCHS" "NVCC VERSION LINE" > kernels_fatbin.h

   The header records the sha256 of SOURCE.cu (mgpu can tell a stale header), the
   architectures, the nvcc that built it, the extern "C" __global__ kernels SOURCE.cu
   defines (in order), and the fatbin itself as little-endian 64-bit words, so the array
   is 8-byte aligned as cuModuleLoadData wants. Any error: a message on stderr, exit 1. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define FATBIN_MAGIC 0xBA55ED50u /* first 4 bytes of an nvcc fatbin, little-endian */

static const char *prog = "embed_fatbin";

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

/* Reads a whole file (NUL-terminated for convenience, not counted in *size). */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    for (;;) {
        size_t got;
        if (cap - len < 65536 + 1) {
            unsigned char *p;
            size_t ncap = cap ? cap * 2 : 262144;
            if (ncap < cap) die("%s is too large", path);
            p = (unsigned char *)realloc(buf, ncap);
            if (!p) die("out of memory reading %s", path);
            buf = p;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: error reading %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    fclose(f);
    buf[len] = '\0';
    *size = len;
    return buf;
}

/* ---- a small C/C++ tokenizer, enough to find extern "C" __global__ kernel names */
enum { T_END, T_IDENT, T_STRING, T_PUNCT };
typedef struct { int kind; const char *p; size_t n; } token;
typedef struct { const char *s; int line_start; } lexer;

static int is_ident_char(int c) { return isalnum(c) || c == '_'; }

/* s points at a quote: returns the end of the string or character literal. */
static const char *skip_literal(const char *s)
{
    char q = *s++;
    while (*s && *s != q && *s != '\n') {
        if (*s == '\\' && s[1]) s++;
        s++;
    }
    return *s == q ? s + 1 : s;
}

static token next_token(lexer *lx)
{
    token t;
    const char *s = lx->s;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v' || *s == '\n') {
            if (*s == '\n') lx->line_start = 1;
            s++;
        }
        if (s[0] == '/' && s[1] == '/') {                 /* line comment */
            while (*s && *s != '\n') s++;
        } else if (s[0] == '/' && s[1] == '*') {          /* block comment */
            s += 2;
            while (*s && !(s[0] == '*' && s[1] == '/')) s++;
            if (*s) s += 2;
        } else if (*s == '#' && lx->line_start) {         /* preprocessor line, with continuations */
            while (*s && *s != '\n') {
                if (s[0] == '\\' && s[1] == '\n') s++;
                else if (s[0] == '\\' && s[1] == '\r' && s[2] == '\n') s += 2;
                s++;
            }
        } else {
            break;
        }
    }
    lx->line_start = 0;
    t.p = s;
    if (!*s) {
        t.kind = T_END;
    } else if (is_ident_char((unsigned char)*s)) {
        while (is_ident_char((unsigned char)*s)) s++;
        t.kind = T_IDENT;
        /* a prefixed literal (u8"", L'x') is one token of the literal's kind */
        if ((*s == '"' || *s == '\'') && (size_t)(s - t.p) <= 3 && strspn(t.p, "LuUR8") == (size_t)(s - t.p)) {
            s = skip_literal(s);
            t.kind = T_STRING;
        }
    } else if (*s == '"' || *s == '\'') {
        s = skip_literal(s);
        t.kind = T_STRING;
    } else {
        s++;
        t.kind = T_PUNCT;
    }
    t.n = (size_t)(s - t.p);
    lx->s = s;
    return t;
}

static int tok_is(token t, const char *text) { return t.n == strlen(text) && memcmp(t.p, text, t.n) == 0; }

/* Appends the names of extern "C" __global__ functions, in order of first appearance. A
   declaration counts when `extern "C"` precedes it or it sits in an `extern "C" { }` block. */
static void find_kernels(const char *src, char *names, size_t cap)
{
    lexer lx;
    token t;
    int depth = 0, extern_c_block = -1;   /* depth of the innermost extern "C" { } block */
    int decl_extern_c = 0;                /* this declaration began with extern "C" */
    int want_name = 0;                    /* after __global__: the name is before the next ( */
    token prev;
    lx.s = src;
    lx.line_start = 1;
    memset(&prev, 0, sizeof prev);
    names[0] = '\0';
    while ((t = next_token(&lx)).kind != T_END) {
        if (t.kind == T_IDENT && tok_is(t, "extern")) {
            token u = next_token(&lx);
            if (u.kind == T_STRING && tok_is(u, "\"C\"")) {
                token v = next_token(&lx);
                if (v.kind == T_PUNCT && *v.p == '{') {
                    if (extern_c_block < 0) extern_c_block = depth;
                    depth++;
                    prev = v;
                    continue;
                }
                decl_extern_c = 1;
                t = v;                     /* examine the token after extern "C" as usual */
            } else {
                prev = u;
                continue;
            }
        }
        if (t.kind == T_IDENT && tok_is(t, "__global__")) {
            want_name = decl_extern_c || (extern_c_block >= 0 && depth == extern_c_block + 1);
        } else if (t.kind == T_IDENT && want_name && t.n > 4 && t.p[0] == '_' && t.p[1] == '_' &&
                   t.p[t.n - 1] == '_' && t.p[t.n - 2] == '_') {
            /* __launch_bounds__(...), __attribute__((...)) and the like: skip the arguments */
            lexer save = lx;
            token u = next_token(&lx);
            if (u.kind == T_PUNCT && *u.p == '(') {
                int parens = 1;
                while (parens > 0 && (u = next_token(&lx)).kind != T_END) {
                    if (u.kind == T_PUNCT && *u.p == '(') parens++;
                    if (u.kind == T_PUNCT && *u.p == ')') parens--;
                }
            } else {
                lx = save;
            }
            continue;                      /* prev stays the token before the attribute */
        } else if (t.kind == T_PUNCT && *t.p == '(' && want_name) {
            want_name = 0;
            if (prev.kind == T_IDENT) {
                char name[256];
                size_t len = strlen(names), i;
                int dup = 0;
                const char *q = names;
                if (prev.n >= sizeof name) die("kernel name too long in %s", "the source");
                memcpy(name, prev.p, prev.n);
                name[prev.n] = '\0';
                while (*q) {               /* a prototype and a definition: list it once */
                    size_t w = strcspn(q, " ");
                    if (w == prev.n && memcmp(q, name, w) == 0) dup = 1;
                    q += w;
                    while (*q == ' ') q++;
                }
                if (!dup) {
                    if (len + prev.n + 2 > cap) die("too many kernel names in %s", "the source");
                    if (len) names[len++] = ' ';
                    for (i = 0; i <= prev.n; i++) names[len + i] = name[i];
                }
            }
        } else if (t.kind == T_PUNCT && (*t.p == ';' || *t.p == '{' || *t.p == '}')) {
            if (*t.p == '{') depth++;
            if (*t.p == '}') {
                if (depth > 0) depth--;
                if (extern_c_block >= 0 && depth == extern_c_block) extern_c_block = -1;
            }
            decl_extern_c = 0;
            want_name = 0;
        }
        prev = t;
    }
}

/* Writes s as the inside of a C string literal. */
static void put_escaped(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c == '\n') printf("\\n");
        else if (c < 0x20 || c >= 0x7f) printf("\\%03o", c);
        else putchar(c);
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
    unsigned char *fatbin, *source;
    size_t fatbin_size, source_size, words, i;
    char sha[65], names[4096];
    const char *a;

    if (argc != 5) {
        fprintf(stderr, "usage: %s FATBIN SOURCE.cu \"ARCHS\" \"NVCC VERSION LINE\" > kernels_fatbin.h\n", prog);
        return 1;
    }
    if (!argv[3][0]) die("%s", "ARCHS is empty");
    for (a = argv[3]; *a; a++)
        if (!isdigit((unsigned char)*a) && *a != ' ') die("ARCHS must be numbers separated by spaces, got \"%s\"", argv[3]);
    if (!argv[4][0]) die("%s", "the nvcc version line is empty (is nvcc on the PATH?)");

    fatbin = read_file(argv[1], &fatbin_size);
    if (fatbin_size < 16) die("%s is too small to be a fatbin", argv[1]);
    if (((unsigned)fatbin[0] | (unsigned)fatbin[1] << 8 | (unsigned)fatbin[2] << 16 | (unsigned long)fatbin[3] << 24)
        != FATBIN_MAGIC)
        die("%s is not an nvcc fatbin (bad magic)", argv[1]);
    source = read_file(argv[2], &source_size);
    if (strlen((const char *)source) != source_size) die("%s contains a NUL byte", argv[2]);
    mgpu_sha256_hex(source, source_size, sha);
    find_kernels((const char *)source, names, sizeof names);
    if (!names[0]) die("no extern \"C\" __global__ kernel found in %s", argv[2]);

    printf("/* kernels_fatbin.h - generated by `make kernels` from ");
    put_escaped(base_name(argv[2]));
    printf(". Do not edit. */\n");
    printf("#ifndef MGPU_KERNELS_FATBIN_H\n#define MGPU_KERNELS_FATBIN_H\n");
    printf("#define MGPU_KERNELS_SHA256 \"%s\"\n", sha);
    printf("#define MGPU_KERNELS_ARCHS \"");
    put_escaped(argv[3]);
    printf("\"\n#define MGPU_KERNELS_NVCC \"");
    put_escaped(argv[4]);
    printf("\"\n#define MGPU_KERNELS_NAMES \"%s\"\n", names);
    printf("#define MGPU_KERNELS_FATBIN_SIZE %lu\n", (unsigned long)fatbin_size);
    words = (fatbin_size + 7) / 8;
    printf("static const uint64_t mgpu__kernels_fatbin[%lu] = {\n", (unsigned long)words);
    for (i = 0; i < words; i++) {
        unsigned long long w = 0;
        unsigned b;
        for (b = 0; b < 8; b++) {
            size_t at = i * 8 + b;
            if (at < fatbin_size) w |= (unsigned long long)fatbin[at] << (8 * b);
        }
        printf("0x%016llxull%s", w, i + 1 == words ? "\n" : (i % 4 == 3 ? ",\n" : ", "));
    }
    printf("};\n#endif\n");

    free(fatbin);
    free(source);
    if (fflush(stdout) != 0 || ferror(stdout)) die("error writing the header: %s", strerror(errno));
    if (fclose(stdout) != 0) die("error closing the header: %s", strerror(errno));
    return 0;
}
