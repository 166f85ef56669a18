/* image.h - an RGB8 framebuffer, PPM/PNG output, PPM input, and comparison.
 *
 * Writes are atomic: the bytes go to a temporary file made by mkstemp() in the
 * destination's folder (a short name, ".img-XXXXXX", whatever the length of
 * the destination's), are flushed to the disk (fsync), and the file is renamed
 * over <path> only once complete and only if every write succeeded. The
 * destination itself is never opened for writing, so a failed write leaves an
 * existing file as it was. SIGINT and SIGTERM during a write remove the
 * temporary file before the process dies. PNG support is compiled in when
 * libpng was found (HAVE_PNG); without it, writing a .png fails clearly.
 *
 * What may be replaced (output_target): only a regular file this process may
 * write (access W_OK) and its owner may write (output_read_only), of the
 * output's own kind (output_kind_problem), in a folder it may write (the
 * rename needs it); never a device, a FIFO or a folder. A symbolic link is written through: the file
 * it points to is replaced and the link stays (a dangling link is refused,
 * not followed into a file it would create). The replacing file takes the old
 * one's permission bits (and its owner and group where this process may set
 * them); it is a new inode, so other hard links to the old file keep the old
 * contents: the price of never leaving a half-written file under the name.
 */
#ifndef COMMON_IMAGE_H
#define COMMON_IMAGE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int width, height;
    unsigned char *rgb; /* width * height * 3 bytes, row 0 at the top */
} image;

/* Largest width or height accepted anywhere (keeps w*h*3 far from overflow). */
#define IMAGE_MAX_SIDE 65536
/* Largest image the readers decode (8192 x 8192): a file's header may claim
 * any size, and it is checked against this before any pixel is allocated. */
#define IMAGE_READ_MAX_PIXELS (8192L * 8192L)
/* Room for an error message that quotes a whole path (PATH_MAX) and a reason. */
#define IMAGE_ERROR_SIZE 4400

/* Allocates a zeroed image; returns 0, or -1 (with errno) on bad size / no memory. */
int image_alloc(image *img, int width, int height);
void image_free(image *img);
size_t image_bytes(const image *img);

/* Write by extension: ".ppm" (P6) or ".png". Returns 0, or -1 and a message
 * in err (which may be NULL). */
int image_write(const image *img, const char *path, char *err, size_t errlen);
int image_write_ppm(const image *img, const char *path, char *err, size_t errlen);
int image_write_png(const image *img, const char *path, char *err, size_t errlen);
int image_png_supported(void);

/* The file that writing `path` replaces or creates: path itself, or for a
 * symbolic link the file it resolves to (realpath), in target. NULL, or why
 * not ("is a symbolic link to a missing file ..."). Creates nothing. */
const char *output_target(const char *path, char *target, size_t size);

/* --images' name for a stage's image: "<dir>/<program>-<stage>.png" (.ppm
 * without libpng). Returns 0, or -1 if it does not fit in size. */
int image_stage_path(char *buf, size_t size, const char *dir, const char *program, const char *stage);

/* The kinds of file the course writes. An output replaces only a file of its
 * own kind (or an empty one): a CSV of another header, notes renamed x.ppm,
 * a README given as --state-out are someone's, and are never replaced. */
typedef enum {
    KIND_PPM,    /* P6 or P3, whole: its size (P6) or its numbers (P3) as its header says */
    KIND_PNG,    /* the signature, an IHDR chunk first and an IEND chunk last */
    KIND_PFM,    /* PF or Pf, whole: its size as its header says */
    KIND_CSV,    /* text; its first line `header`, every other line as many fields */
    KIND_NUMBERS /* text; every line `fields` numbers */
} output_form;
typedef struct {
    output_form form;
    const char *header; /* KIND_CSV: the first line, without its newline */
    int fields;         /* KIND_NUMBERS: the numbers on each line */
} output_kind;

/* The image kind a file name asks for: .png a PNG, anything else a PPM. */
output_kind output_image_kind(const char *name);

/* NULL if the file at path is missing, not a regular file (the write checks
 * refuse that themselves), empty, or wholly of `kind`; else why not, ending
 * "not replaced". A file that cannot be read is refused too ("cannot be read
 * to check ..."): a write-only file of another kind is someone's as much as a
 * readable one. Reads the whole file where its kind needs it (P3, CSV, numbers). */
const char *output_kind_problem(const char *path, const output_kind *kind);

/* Any other output written the way images are: file_write_begin opens a
 * temporary file beside path (removed if a signal ends the program);
 * file_write_end flushes and syncs it and renames it over path if ok, or
 * removes it. One at a time. 0 / the FILE, or -1 / NULL with err. Both
 * check that an existing file at path is of `kind` (output_kind_problem),
 * file_write_end again just before the rename: a file that came to hold
 * something else while the program worked is not replaced. The image
 * writers do the same with their image's kind. */
FILE *file_write_begin(const char *path, const output_kind *kind, char *err, size_t errlen);
int file_write_end(FILE *f, int ok, const char *path, char *err, size_t errlen);

/* Opens path for reading if it is a regular file, without ever blocking (a
 * FIFO or a device is refused, not waited on): the stream, or NULL with the
 * reason in *why ("not a regular file", or strerror's). Every input file of
 * the course (images, CSV, ch08's scenes) is opened this way. */
FILE *open_regular_file(const char *path, const char **why);

/* The size a PPM or PNG file declares, from its header alone (no pixels
 * decoded). Returns 0, or -1 and a message in err. */
int image_read_size(const char *path, int *width, int *height, char *err, size_t errlen);

/* Reads a PPM, binary (P6) or plain (P3, as smallpt writes), maxval 255,
 * any whitespace in the header. */
int image_read_ppm(image *img, const char *path, char *err, size_t errlen);

/* Reads a PNG (8-bit RGB after conversion; needs libpng), or by extension
 * either kind (anything not ending in .png is read as PPM). */
int image_read_png(image *img, const char *path, char *err, size_t errlen);
int image_read(image *img, const char *path, char *err, size_t errlen);

/* --images: writes img as "<dir>/<program>-<stage>.png" (.ppm without
 * libpng). Returns 0, or -1 after printing "program: reason" to stderr. */
int image_write_stage(const image *img, const char *dir, const char *program, const char *stage);

typedef struct {
    double psnr;     /* dB; INFINITY when the images are identical */
    double mse;      /* mean squared difference per channel, in 8-bit levels squared */
    double mean_abs; /* mean absolute difference per channel, 0..255 */
    int max_abs;     /* largest absolute difference of one channel */
    long differing;  /* number of bytes that differ */
} image_diff;

/* Compares two images of the same size; returns -1 if the sizes differ. */
int image_compare(const image *a, const image *b, image_diff *out);

#ifdef __cplusplus
}
#endif

/* NULL if the file of stat st has its owner's write bit, else "it is
 * read-only (mode 0464: its owner may not write it): not replaced". Asked for
 * root as for anyone: access(W_OK) says yes to root whatever the mode, and a
 * file its owner made read-only is read-only on purpose, whoever else the
 * mode lets write it (a group write bit alone does not make it writable).
 * Every output's check (cli.h's before any work, the write's own at the end)
 * asks it. */
struct stat;
const char *output_read_only(const struct stat *st);

#endif
