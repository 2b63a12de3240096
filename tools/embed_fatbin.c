/* embed_fatbin - turns an nvcc fatbin into kernels_fatbin.h (run by `make kernels`).

   usage: embed_fatbin FATBIN SOURCE.cu SOURCE.ii "ARCHS" "NVCC VERSION LINE" > kernels_fatbin.h

   The header records the sha256 of SOURCE.cu (mgpu can tell a stale header), the
   architectures, the nvcc that built it, the extern "C" __global__ kernels of SOURCE.ii
   (SOURCE.cu preprocessed, so that kernels a macro defines are listed too; in order), and
   the fatbin itself with its size and sha256, as base-85 text: compilers read a few
   thousand string literals in a fraction of the time that 670k integer literals take, and
   the text is 1.25 times the bytes (base 64: 1.33, hex words: 2.9). Any error: a message
   on stderr, exit 1. */
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
static char *find_kernels(const char *src)
{
    size_t cap = 4096;
    char *names = (char *)malloc(cap);
    lexer lx;
    token t;
    int depth = 0, extern_c_block = -1;   /* depth of the innermost extern "C" { } block */
    int decl_extern_c = 0;                /* this declaration began with extern "C" */
    int want_name = 0;                    /* after __global__: the name is before the next ( */
    token prev;
    lx.s = src;
    lx.line_start = 1;
    if (!names) die("%s", "out of memory");
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
                    while (len + prev.n + 2 > cap) {
                        names = (char *)realloc(names, cap *= 2);
                        if (!names) die("%s", "out of memory");
                    }
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
    return names;
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

/* Base 85: each 4 bytes, read as a big-endian number, become 5 digits, most significant
   first. The digits are printable and need no escape in a C string: no quote, backslash or
   '?' (no trigraph can form). */
static const char b85_digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*~&<>()[]{}@%$#";
/* A row is one string of ROW_GROUPS groups: 4095 characters, the longest string literal C99
   promises (-pedantic warns past it), written as 5 pieces of 819 (MSVC takes pieces of at
   most 16380 characters and strings of 65535 bytes). */
enum { ROW_GROUPS = 819, PIECE_GROUPS = 819 / 5 + 1 };

static void put_row_piece(const unsigned char *b, size_t n, size_t from, size_t groups)
{
    size_t g;
    putchar('"');
    for (g = from; g < from + groups; g++) {
        uint32_t v = 0;
        char d[5];
        int k;
        for (k = 0; k < 4; k++) v = v << 8 | (g * 4 + k < n ? b[g * 4 + k] : 0u);
        for (k = 4; k >= 0; k--) { d[k] = b85_digits[v % 85]; v /= 85; }
        fwrite(d, 1, 5, stdout);
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    unsigned char *fatbin, *source, *preprocessed;
    size_t fatbin_size, source_size, pre_size, groups, rows, r, g;
    char sha[65], fatbin_sha[65], *names;
    const char *a;

    if (argc != 6) {
        fprintf(stderr, "usage: %s FATBIN SOURCE.cu SOURCE.ii \"ARCHS\" \"NVCC VERSION LINE\" > kernels_fatbin.h\n"
                "  (SOURCE.ii: SOURCE.cu preprocessed, e.g. c++ -E -P -x c++ SOURCE.cu)\n", prog);
        return 1;
    }
    if (!argv[4][0]) die("%s", "ARCHS is empty");
    for (a = argv[4]; *a; a++)
        if (!isdigit((unsigned char)*a) && *a != ' ') die("ARCHS must be numbers separated by spaces, got \"%s\"", argv[4]);
    if (!argv[5][0]) die("%s", "the nvcc version line is empty (is nvcc on the PATH?)");

    fatbin = read_file(argv[1], &fatbin_size);
    if (fatbin_size < 16) die("%s is too small to be a fatbin", argv[1]);
    if (((unsigned)fatbin[0] | (unsigned)fatbin[1] << 8 | (unsigned)fatbin[2] << 16 | (unsigned long)fatbin[3] << 24)
        != FATBIN_MAGIC)
        die("%s is not an nvcc fatbin (bad magic)", argv[1]);
    source = read_file(argv[2], &source_size);
    if (strlen((const char *)source) != source_size) die("%s contains a NUL byte", argv[2]);
    preprocessed = read_file(argv[3], &pre_size);
    mgpu_sha256_hex(source, source_size, sha);
    mgpu_sha256_hex(fatbin, fatbin_size, fatbin_sha);
    names = find_kernels((const char *)preprocessed);
    if (!names[0]) die("no extern \"C\" __global__ kernel found in %s", argv[3]);

    printf("/* kernels_fatbin.h - generated by `make kernels` from ");
    put_escaped(base_name(argv[2]));
    printf(". Do not edit. */\n");
    printf("#ifndef MGPU_KERNELS_FATBIN_H\n#define MGPU_KERNELS_FATBIN_H\n");
    printf("#define MGPU_KERNELS_SHA256 \"%s\"\n", sha);
    printf("#define MGPU_KERNELS_ARCHS \"");
    put_escaped(argv[4]);
    printf("\"\n#define MGPU_KERNELS_NVCC \"");
    put_escaped(argv[5]);
    printf("\"\n#define MGPU_KERNELS_NAMES \"%s\"\n", names);
    printf("#define MGPU_KERNELS_FATBIN_SIZE %lu\n", (unsigned long)fatbin_size);
    printf("#define MGPU_KERNELS_FATBIN_SHA256 \"%s\"\n", fatbin_sha);
    groups = (fatbin_size + 3) / 4;
    rows = (groups + ROW_GROUPS - 1) / ROW_GROUPS;
    printf("/* The fatbin in base 85: each 4 bytes, read as a big-endian number, are 5 digits of\n"
           "   MGPU_KERNELS_FATBIN_DIGITS, most significant first (the last group padded with zero\n"
           "   bytes); %d groups a row. */\n", ROW_GROUPS);
    printf("#define MGPU_KERNELS_FATBIN_DIGITS \"%s\"\n", b85_digits);
    printf("#define MGPU_KERNELS_FATBIN_ROW_GROUPS %d\n", ROW_GROUPS);
    printf("static const char mgpu__kernels_fatbin_b85[%lu][%d] = {\n", (unsigned long)rows, ROW_GROUPS * 5 + 1);
    for (r = 0; r < rows; r++) {
        size_t end = (r + 1) * ROW_GROUPS < groups ? (r + 1) * ROW_GROUPS : groups, piece = PIECE_GROUPS;
        /* A short last row is never 2 pieces: clang's -Wstring-concatenation takes exactly two
           literals on separate lines in an array's initializer for a missing comma. */
        if ((end - r * ROW_GROUPS + PIECE_GROUPS - 1) / PIECE_GROUPS == 2) piece = (end - r * ROW_GROUPS + 2) / 3;
        for (g = r * ROW_GROUPS; g < end; g += piece) {
            put_row_piece(fatbin, fatbin_size, g, end - g < piece ? end - g : piece);
            fputs(g + piece < end ? "\n" : (r + 1 < rows ? ",\n" : "\n"), stdout);
        }
    }
    printf("};\n#endif\n");

    free(fatbin);
    free(source);
    free(preprocessed);
    free(names);
    if (fflush(stdout) != 0 || ferror(stdout)) die("error writing the header: %s", strerror(errno));
    if (fclose(stdout) != 0) die("error closing the header: %s", strerror(errno));
    return 0;
}
