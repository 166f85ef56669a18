/* image.c - see image.h. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_PNG
#include <png.h>
#endif

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int image_alloc(image *img, int width, int height)
{
    img->width = img->height = 0;
    img->rgb = NULL;
    if (width < 1 || height < 1 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) {
        errno = EINVAL;
        return -1;
    }
    img->rgb = calloc((size_t)width * (size_t)height, 3);
    if (!img->rgb)
        return -1;
    img->width = width;
    img->height = height;
    return 0;
}

void image_free(image *img)
{
    free(img->rgb);
    img->rgb = NULL;
    img->width = img->height = 0;
}

size_t image_bytes(const image *img)
{
    return (size_t)img->width * (size_t)img->height * 3;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int image_write(const image *img, const char *path, char *err, size_t errlen)
{
    if (ends_with(path, ".png"))
        return image_write_png(img, path, err, errlen);
    if (ends_with(path, ".ppm"))
        return image_write_ppm(img, path, err, errlen);
    return fail(err, errlen, "%s: unknown image type (use .ppm or .png)", path);
}

/* The temporary file being written, for the signal handler: its name is
 * saved before the file exists and `pending` is set once it does. The file
 * it will replace: pending_target (output_target's answer). */
static char pending_name[PATH_MAX + 32];
static char pending_target[PATH_MAX];
static output_kind pending_kind; /* what pending_target must hold to be replaced */
static volatile sig_atomic_t pending;

const char *output_target(const char *path, char *target, size_t size)
{
    static char reason[PATH_MAX + 160];
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
        if ((size_t)snprintf(target, size, "%s", path) >= size)
            return "cannot be written: the path is too long";
        return NULL;
    }
    char resolved[PATH_MAX];
    if (!realpath(path, resolved)) { /* a dangling link: following it would create a file elsewhere */
        int saved = errno;
        char points[PATH_MAX];
        ssize_t n = readlink(path, points, sizeof points - 1);
        points[n > 0 ? n : 0] = '\0';
        snprintf(reason, sizeof reason, "is a symbolic link to '%.*s', which cannot be written through: %s",
                 PATH_MAX / 2, points, strerror(saved));
        return reason;
    }
    if ((size_t)snprintf(target, size, "%s", resolved) >= size)
        return "cannot be written: the path is too long";
    return NULL;
}

int image_stage_path(char *buf, size_t size, const char *dir, const char *program, const char *stage)
{
    int n = snprintf(buf, size, "%s/%s-%s.%s", dir, program, stage, image_png_supported() ? "png" : "ppm");
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

const char *output_read_only(const struct stat *st)
{
    static char reason[96];
    if (st->st_mode & S_IWUSR)
        return NULL;
    snprintf(reason, sizeof reason, "it is read-only (mode %04o: its owner may not write it): not replaced",
             (unsigned)(st->st_mode & 07777));
    return reason;
}

output_kind output_image_kind(const char *name)
{
    return (output_kind){ends_with(name, ".png") ? KIND_PNG : KIND_PPM, NULL, 0};
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* One number of a PPM or PFM header, after blanks and '#' comments, ended by
 * exactly one blank (after the last one, the data start). 0 if there is none
 * or it is over `max`. */
static int header_number(FILE *f, long long max, long long *value)
{
    int c = fgetc(f);
    while (c == '#' || is_blank(c)) {
        if (c == '#') /* a comment runs to its line's end */
            while ((c = fgetc(f)) != '\n' && c != EOF)
                continue;
        if (c != EOF)
            c = fgetc(f);
    }
    long long v = 0;
    int digits = 0;
    for (; c >= '0' && c <= '9' && v <= max; c = fgetc(f), digits++)
        v = v * 10 + (c - '0');
    *value = v;
    return digits > 0 && v <= max && is_blank(c);
}

/* P3's numbers after its header: only digits and blanks, `count` numbers,
 * none over maxval. */
static const char *plain_ppm_problem(FILE *f, long long count, long long maxval)
{
    long long numbers = 0, v = -1;
    for (int c = fgetc(f);; c = fgetc(f)) {
        if (c >= '0' && c <= '9') {
            v = (v < 0 ? 0 : v) * 10 + (c - '0');
            if (v > maxval)
                return "a number over its maxval";
            continue;
        }
        if (v >= 0)
            numbers++, v = -1;
        if (c == EOF)
            break;
        if (!is_blank(c))
            return "something other than numbers after its header";
    }
    return numbers == count ? NULL : "not as many numbers as its header's width x height x 3";
}

/* NULL if f (size bytes) is a whole PPM or PFM: its magic, its header's
 * numbers, then as many bytes of pixels as they say (P3: numbers). */
static const char *raster_problem(FILE *f, long long size, output_form form)
{
    char magic[3] = "";
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' ||
        (form == KIND_PPM ? magic[1] != '6' && magic[1] != '3' : magic[1] != 'F' && magic[1] != 'f'))
        return form == KIND_PPM ? "it does not start with P6 or P3" : "it does not start with PF or Pf";
    long long w, h, maxval = 255;
    int c = fgetc(f);
    if (!is_blank(c) || ungetc(c, f) == EOF || !header_number(f, IMAGE_MAX_SIDE, &w) ||
        !header_number(f, IMAGE_MAX_SIDE, &h) || w < 1 || h < 1)
        return "its header has no width and height";
    if (form == KIND_PFM) { /* the scale: a decimal number, its sign the byte order */
        char scale[32];
        double s;
        if (fscanf(f, " %31[-+0-9.eE]", scale) != 1 || sscanf(scale, "%lf", &s) != 1 || s == 0 || !is_blank(fgetc(f)))
            return "its header has no scale";
    } else if (!header_number(f, 65535, &maxval) || maxval < 1) {
        return "its header has no maxval";
    }
    if (magic[1] == '3')
        return plain_ppm_problem(f, w * h * 3, maxval);
    long long at = ftell(f), sample = form == KIND_PFM ? 4 : maxval > 255 ? 2 : 1;
    long long want = at + w * h * (magic[1] == 'f' ? 1 : 3) * sample; /* Pf: one channel */
    return at > 0 && size == want ? NULL : "its size is not what its header's width and height need";
}

/* NULL if f (size bytes) is a whole PNG: the signature, the IHDR chunk
 * first and the IEND chunk last (a signature followed by notes is not one). */
static const char *png_problem(FILE *f, long long size)
{
    static const unsigned char head[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    static const unsigned char tail[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    unsigned char buf[16];
    if (fread(buf, 1, 8, f) != 8 || memcmp(buf, head, 8) != 0)
        return "no PNG signature at its start";
    if (fread(buf + 8, 1, 8, f) != 8 || memcmp(buf, head, 16) != 0 || size < 8 + 25 + 12 ||
        fseek(f, (long)(size - 12), SEEK_SET) != 0 || fread(buf, 1, 12, f) != 12 || memcmp(buf, tail, 12) != 0)
        return "no IHDR chunk first and IEND chunk last";
    return NULL;
}

/* 1 if the len bytes of a line (its newline taken off) are text: no NUL,
 * no control character but a tab or a CR. */
static int is_text(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)line[i];
        if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7f)
            return 0;
    }
    return 1;
}

/* NULL if f is text whose lines are the kind's: a CSV's header first and as
 * many fields on every other line, or `fields` numbers on every line. Reads
 * it whole, a line at a time. */
static const char *text_problem(FILE *f, const output_kind *kind)
{
    static char reason[160];
    char *line = NULL;
    size_t room = 0, header_commas = 0;
    ssize_t len;
    const char *why = NULL;
    /* errno is cleared before each line: getline says "out of memory" (a
     * line longer than memory allows) only through errno, and that is not
     * the end of the file, whose rest would go unread. */
    for (long n = 1; !why && (errno = 0, len = getline(&line, &room, f)) > 0; n++) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (!is_text(line, (size_t)len)) {
            snprintf(reason, sizeof reason, "line %ld is not text", n);
            why = reason;
        } else if (kind->form == KIND_CSV) {
            size_t commas = 0;
            for (const char *c = line; *c; c++)
                commas += *c == ',';
            if (n == 1 && strcmp(line, kind->header) != 0)
                why = "its first line is not the header";
            else if (n == 1)
                header_commas = commas;
            else if (commas != header_commas) {
                snprintf(reason, sizeof reason, "line %ld has %zu field%s, its header %zu", n, commas + 1,
                         commas ? "s" : "", header_commas + 1);
                why = reason;
            }
        } else {
            int count = 0;
            char *at = line, *end = line;
            for (;; count++, at = end) {
                strtod(at, &end);
                if (end == at)
                    break;
            }
            while (is_blank(*at))
                at++;
            if (count != kind->fields || *at) {
                snprintf(reason, sizeof reason, "line %ld is not %d numbers", n, kind->fields);
                why = reason;
            }
        }
    }
    int read_errno = errno;
    free(line);
    if (why)
        return why;
    if (read_errno == ENOMEM)
        return "a line is too long to be read whole";
    return ferror(f) ? "a read failed" : NULL;
}

/* What a kind is called in a refusal: "a PPM", "a CSV headed 'stage,...'". */
static const char *kind_name(const output_kind *kind)
{
    static char name[160];
    static const char *const names[] = {[KIND_PPM] = "a PPM", [KIND_PNG] = "a PNG", [KIND_PFM] = "a PFM"};
    if (kind->form == KIND_CSV)
        snprintf(name, sizeof name, "a CSV headed '%.100s'", kind->header);
    else if (kind->form == KIND_NUMBERS)
        snprintf(name, sizeof name, "lines of %d numbers", kind->fields);
    else
        snprintf(name, sizeof name, "%s", names[kind->form]);
    return name;
}

const char *output_kind_problem(const char *path, const output_kind *kind)
{
    static char reason[400];
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return NULL; /* nothing in it to lose (a missing file, an empty one), or the write checks refuse it */
    const char *why = NULL;
    FILE *f = open_regular_file(path, &why);
    if (!f) {
        snprintf(reason, sizeof reason, "cannot be read to check that it is %s (%s): not replaced", kind_name(kind),
                 why);
        return reason;
    }
    if (kind->form == KIND_PNG)
        why = png_problem(f, (long long)st.st_size);
    else if (kind->form == KIND_PPM || kind->form == KIND_PFM)
        why = raster_problem(f, (long long)st.st_size, kind->form);
    else
        why = text_problem(f, kind);
    fclose(f);
    if (!why)
        return NULL;
    snprintf(reason, sizeof reason, "holds something else: not %s (%s); not replaced", kind_name(kind), why);
    return reason;
}

/* NULL if the existing file at target (stat in st) may be replaced: a
 * regular file this process may write, with its owner's write bit
 * (output_read_only), of the output's kind. Else why not. */
static const char *replace_problem(const char *target, const struct stat *st, const output_kind *kind)
{
    if (!S_ISREG(st->st_mode))
        return S_ISDIR(st->st_mode) ? "is a folder: not replaced" : "is not a regular file: not replaced";
    static char reason[160];
    const char *read_only = output_read_only(st);
    if (read_only) {
        snprintf(reason, sizeof reason, "cannot be written: %s", read_only);
        return reason;
    }
    if (access(target, W_OK) != 0) {
        snprintf(reason, sizeof reason, "cannot be written: %s", strerror(errno));
        return reason;
    }
    return output_kind_problem(target, kind);
}

/* The signals whose default action ends the process: each would leave the
 * temporary file behind. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM};
#define CLEANUP_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])
static struct sigaction previous[CLEANUP_COUNT];

/* Removes the temporary file, then lets the signal do what it did before. */
static void remove_pending_and_die(int sig)
{
    if (pending)
        unlink(pending_name); /* async-signal-safe */
    for (size_t i = 0; i < CLEANUP_COUNT; i++)
        if (cleanup_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    raise(sig);
}

/* Before each write: our handler on each signal, unless it is there already
 * (the program, or a forked child, may have changed the actions since), and
 * never on a signal the program ignores (under nohup, HUP; in a script's
 * background job, INT and QUIT): the write must go on through those. A file
 * size limit (ulimit -f) must be a write error, not death by SIGXFSZ: with
 * SIGXFSZ ignored the write fails with EFBIG, and the temporary file goes. */
static void install_cleanup(void)
{
    struct sigaction sa, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_pending_and_die;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < CLEANUP_COUNT; i++)
        if (sigaction(cleanup_signals[i], NULL, &now) == 0 && now.sa_handler != remove_pending_and_die &&
            now.sa_handler != SIG_IGN)
            sigaction(cleanup_signals[i], &sa, &previous[i]);
    if (sigaction(SIGXFSZ, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
        signal(SIGXFSZ, SIG_IGN);
}

/* Holds the cleanup signals back while the temporary file and `pending`
 * disagree (created but not yet marked, or renamed but still marked). */
static void hold_signals(int hold, sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < CLEANUP_COUNT; i++)
        sigaddset(&set, cleanup_signals[i]);
    if (hold)
        sigprocmask(SIG_BLOCK, &set, saved);
    else
        sigprocmask(SIG_SETMASK, saved, NULL);
}

/* The new file takes the old one's permission bits, and its owner and group
 * where this process may give them (root may; a member of the group may give
 * the group); a new file gets what open() would give it. */
static int take_mode(int fd, int exists, const struct stat *old)
{
    if (!exists) {
        mode_t mask = umask(0);
        umask(mask);
        return fchmod(fd, 0666 & ~mask);
    }
    if (fchown(fd, old->st_uid, old->st_gid) != 0 && fchown(fd, (uid_t)-1, old->st_gid) != 0) {
        /* not ours to give: the new file is this user's, as any file they create */
    }
    return fchmod(fd, old->st_mode & 0777); /* after fchown, which may clear bits */
}

/* Creates the temporary file beside the file path names (output_target: a
 * symbolic link's file), with that file's permissions or a new file's; the
 * caller renames it over pending_target when done. Refuses (no temporary
 * file) what may not be replaced: see image.h. */
static FILE *open_temp(const char *path, const output_kind *kind, char *err, size_t errlen)
{
    const char *why = output_target(path, pending_target, sizeof pending_target);
    if (why) {
        fail(err, errlen, "%s %s", path, why);
        return NULL;
    }
    struct stat old;
    int exists = stat(pending_target, &old) == 0;
    pending_kind = *kind;
    if (exists && (why = replace_problem(pending_target, &old, kind)) != NULL) {
        fail(err, errlen, "%s %s", path, why);
        return NULL;
    }
    const char *target = pending_target, *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target) + 1 : 0;
    if (snprintf(pending_name, sizeof pending_name, "%.*s.img-XXXXXX", dirlen, target) >= (int)sizeof pending_name) {
        fail(err, errlen, "%s: the folder's name is too long", path);
        return NULL;
    }
    install_cleanup();
    sigset_t saved;
    hold_signals(1, &saved);
    int fd = mkstemp(pending_name);
    int mkstemp_errno = errno;
    pending = fd >= 0;
    hold_signals(0, &saved);
    if (fd < 0) {
        fail(err, errlen, "%s: cannot create a file in its folder: %s", path, strerror(mkstemp_errno));
        return NULL;
    }
    FILE *f = take_mode(fd, exists, &old) == 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        fail(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(pending_name);
        pending = 0;
    }
    return f;
}

/* Flushes and syncs f, closes it, then renames the temporary file over path;
 * removes it on any failure. */
static int finish_temp(FILE *f, int ok, const char *path, char *err, size_t errlen)
{
    int saved = ok ? 0 : (errno ? errno : EIO);
    if (ok && (fflush(f) != 0 || fsync(fileno(f)) != 0)) {
        ok = 0;
        saved = errno;
    }
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    sigset_t held;
    hold_signals(1, &held);
    /* once more at the last moment: never rename over a device or a folder,
     * nor over a file made read-only or given other contents while the work ran */
    struct stat now;
    const char *late = NULL;
    if (ok && lstat(pending_target, &now) == 0)
        late = S_ISREG(now.st_mode) ? replace_problem(pending_target, &now, &pending_kind)
                                    : "is no longer a regular file: not replaced";
    if (late)
        ok = 0;
    if (ok && rename(pending_name, pending_target) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        unlink(pending_name);
    pending = 0;
    hold_signals(0, &held);
    if (!ok)
        return late ? fail(err, errlen, "%s: write failed: checked again before the rename, the file %s", path, late)
                    : fail(err, errlen, "%s: write failed: %s", path, strerror(saved));
    return 0;
}

FILE *file_write_begin(const char *path, const output_kind *kind, char *err, size_t errlen)
{
    return open_temp(path, kind, err, errlen);
}

int file_write_end(FILE *f, int ok, const char *path, char *err, size_t errlen)
{
    return finish_temp(f, ok, path, err, errlen);
}

int image_write_ppm(const image *img, const char *path, char *err, size_t errlen)
{
    FILE *f = open_temp(path, &(output_kind){KIND_PPM, NULL, 0}, err, errlen);
    if (!f)
        return -1;
    errno = 0;
    int ok = fprintf(f, "P6\n%d %d\n255\n", img->width, img->height) > 0 &&
             fwrite(img->rgb, 1, image_bytes(img), f) == image_bytes(img);
    return finish_temp(f, ok, path, err, errlen);
}

int image_png_supported(void)
{
#ifdef HAVE_PNG
    return 1;
#else
    return 0;
#endif
}

#ifdef HAVE_PNG
/* libpng reports errors by longjmp; keep the work in its own function so no
 * local of the caller is live across the jump. */
static int png_body(FILE *f, const image *img)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return 0;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return 0;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < img->height; y++)
        png_write_row(png, img->rgb + (size_t)y * (size_t)img->width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 1;
}
#endif

int image_write_png(const image *img, const char *path, char *err, size_t errlen)
{
#ifdef HAVE_PNG
    FILE *f = open_temp(path, &(output_kind){KIND_PNG, NULL, 0}, err, errlen);
    if (!f)
        return -1;
    errno = 0;
    return finish_temp(f, png_body(f, img), path, err, errlen);
#else
    (void)img;
    return fail(err, errlen, "%s: PNG output is not available (built without libpng); use .ppm", path);
#endif
}

/* Reads one header number, skipping whitespace and '#' comments. */
static int read_header_int(FILE *f, int *value)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            break;
        }
    }
    long v = 0;
    int digits = 0;
    while (c >= '0' && c <= '9' && v <= 1000000) {
        v = v * 10 + (c - '0');
        digits++;
        c = fgetc(f);
    }
    *value = (int)v;
    /* exactly one whitespace byte ends the number (after maxval it starts the data) */
    return digits > 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

/* Reads a P6 or P3 header; its kind ('6' or '3'), or 0 if it is neither or
 * not maxval 255 and a size within the cap. */
static int read_ppm_header(FILE *f, int *w, int *h)
{
    int maxval;
    char magic[2];
    int ok = fread(magic, 1, 2, f) == 2 && magic[0] == 'P' && (magic[1] == '6' || magic[1] == '3') &&
             read_header_int(f, w) && read_header_int(f, h) && read_header_int(f, &maxval) && maxval == 255 &&
             *w > 0 && *h > 0 && (long)*w * *h <= IMAGE_READ_MAX_PIXELS;
    return ok ? magic[1] : 0;
}

/* P3's pixels: decimal numbers 0-255 separated by whitespace (smallpt
 * writes its image so). */
static int read_plain_pixels(FILE *f, image *img)
{
    for (size_t i = 0; i < image_bytes(img); i++) {
        int v;
        if (fscanf(f, "%d", &v) != 1 || v < 0 || v > 255)
            return 0;
        img->rgb[i] = (unsigned char)v;
    }
    return 1;
}

FILE *open_regular_file(const char *path, const char **why)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO with no writer would block a plain open */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = S_ISREG(st.st_mode) && flags != -1 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb")
                                                                                                : NULL;
    if (!f) {
        *why = S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file";
        close(fd);
    }
    return f;
}

/* Opens path for reading (open_regular_file), or NULL with the reason in err. */
static FILE *open_input(const char *path, char *err, size_t errlen)
{
    const char *why = NULL;
    FILE *f = open_regular_file(path, &why);
    if (!f)
        fail(err, errlen, "%s: %s", path, why);
    return f;
}

int image_read_ppm(image *img, const char *path, char *err, size_t errlen)
{
    img->rgb = NULL;
    FILE *f = open_input(path, err, errlen);
    if (!f)
        return -1;
    int w, h, kind = read_ppm_header(f, &w, &h);
    if (!kind) {
        fclose(f);
        return fail(err, errlen, "%s: not a P6 or P3 PPM with maxval 255 and at most %ld pixels", path,
                    IMAGE_READ_MAX_PIXELS);
    }
    if (image_alloc(img, w, h) != 0) {
        fclose(f);
        return fail(err, errlen, "%s: out of memory (a %dx%d image)", path, w, h);
    }
    int ok;
    ok = kind == '3' ? read_plain_pixels(f, img) : fread(img->rgb, 1, image_bytes(img), f) == image_bytes(img);
    fclose(f);
    if (!ok) {
        image_free(img);
        return fail(err, errlen, "%s: truncated or bad pixel data", path);
    }
    return 0;
}

#ifdef HAVE_PNG
/* Opens a PNG and reads its header (libpng's simplified API); 0 with the
 * file in *f (the caller closes it after png_image_free), or -1. */
static int png_begin(png_image *p, FILE **f, const char *path, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->version = PNG_IMAGE_VERSION;
    if (!(*f = open_input(path, err, errlen)))
        return -1;
    if (!png_image_begin_read_from_stdio(p, *f)) {
        fclose(*f);
        return fail(err, errlen, "%s: %s", path, p->message);
    }
    return 0;
}
#endif

int image_read_png(image *img, const char *path, char *err, size_t errlen)
{
#ifdef HAVE_PNG
    png_image p;
    FILE *f;
    if (png_begin(&p, &f, path, err, errlen) != 0)
        return -1;
    p.format = PNG_FORMAT_RGB;
    int too_big = (long)p.width * (long)p.height > IMAGE_READ_MAX_PIXELS;
    if (too_big || image_alloc(img, (int)p.width, (int)p.height) != 0) {
        png_image_free(&p);
        fclose(f);
        if (too_big)
            return fail(err, errlen, "%s: a PNG of %ux%u pixels (at most %ld are read)", path, p.width, p.height,
                        IMAGE_READ_MAX_PIXELS);
        return fail(err, errlen, "%s: out of memory (a %ux%u image)", path, p.width, p.height);
    }
    if (!png_image_finish_read(&p, NULL, img->rgb, 0, NULL)) {
        image_free(img);
        png_image_free(&p);
        fclose(f);
        return fail(err, errlen, "%s: %s", path, p.message);
    }
    fclose(f);
    return 0;
#else
    (void)img;
    return fail(err, errlen, "%s: PNG input is not available (built without libpng)", path);
#endif
}

int image_read_size(const char *path, int *width, int *height, char *err, size_t errlen)
{
    if (ends_with(path, ".png")) {
#ifdef HAVE_PNG
        png_image p;
        FILE *f;
        if (png_begin(&p, &f, path, err, errlen) != 0)
            return -1;
        *width = (int)(p.width < INT_MAX ? p.width : INT_MAX);
        *height = (int)(p.height < INT_MAX ? p.height : INT_MAX);
        png_image_free(&p);
        fclose(f);
        return 0;
#else
        return fail(err, errlen, "%s: PNG input is not available (built without libpng)", path);
#endif
    }
    FILE *f = open_input(path, err, errlen);
    if (!f)
        return -1;
    int ok = read_ppm_header(f, width, height);
    fclose(f);
    return ok ? 0 : fail(err, errlen, "%s: not a P6 or P3 PPM with maxval 255 and at most %ld pixels", path,
                         IMAGE_READ_MAX_PIXELS);
}

int image_read(image *img, const char *path, char *err, size_t errlen)
{
    if (ends_with(path, ".png"))
        return image_read_png(img, path, err, errlen);
    return image_read_ppm(img, path, err, errlen);
}

int image_write_stage(const image *img, const char *dir, const char *program, const char *stage)
{
    char path[PATH_MAX + 64], err[IMAGE_ERROR_SIZE];
    if (image_stage_path(path, sizeof path, dir, program, stage) != 0) {
        fprintf(stderr, "%s: --images %s: path too long\n", program, dir);
        return -1;
    }
    if (image_write(img, path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", program, err);
        return -1;
    }
    return 0;
}

int image_compare(const image *a, const image *b, image_diff *out)
{
    if (a->width != b->width || a->height != b->height)
        return -1;
    size_t n = image_bytes(a);
    double sum_abs = 0, sum_sq = 0;
    int max_abs = 0;
    long differing = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a->rgb[i] - (int)b->rgb[i]);
        sum_abs += d;
        sum_sq += (double)d * d;
        if (d > max_abs)
            max_abs = d;
        differing += d != 0;
    }
    double mse = sum_sq / (double)n;
    out->psnr = mse == 0 ? INFINITY : 10.0 * log10(255.0 * 255.0 / mse);
    out->mse = mse;
    out->mean_abs = sum_abs / (double)n;
    out->max_abs = max_abs;
    out->differing = differing;
    return 0;
}
