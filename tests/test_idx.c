/* The IDX reader (the MNIST and Fashion-MNIST format): small images and
 * labels files written here, plain and gzip, read back exactly (pixels
 * scaled to [0, 1] as pixel / 255); every malformed file refused with one
 * message naming it; and, when Debian's dataset-fashion-mnist is installed,
 * its 10,000-row test set.
 *
 *   test_idx                 unit checks
 *   test_idx --fashion DIR   also reads DIR/t10k-{images-idx3,labels-idx1}-ubyte.gz */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "objectives/dataset.h"
#include "objectives/dataset_private.h"

static char tmpdir[256];

/* An IDX file: magic 0x00 0x00 type ndim, big-endian sizes, then `count`
 * payload bytes (which need not match the sizes: that is what the error
 * cases test). */
typedef struct idx_bytes {
  unsigned char b[4096];
  size_t n;
} idx_bytes;

static void idx_make(idx_bytes *f, unsigned type, int ndim, const uint32_t *dims,
                     const unsigned char *payload, size_t count) {
  f->n = 0;
  f->b[f->n++] = 0;
  f->b[f->n++] = 0;
  f->b[f->n++] = (unsigned char)type;
  f->b[f->n++] = (unsigned char)ndim;
  for (int i = 0; i < ndim; i++) {
    f->b[f->n++] = (unsigned char)(dims[i] >> 24);
    f->b[f->n++] = (unsigned char)(dims[i] >> 16);
    f->b[f->n++] = (unsigned char)(dims[i] >> 8);
    f->b[f->n++] = (unsigned char)dims[i];
  }
  memcpy(f->b + f->n, payload, count);
  f->n += count;
}

static void write_bytes(const char *name, const idx_bytes *f, int gzip, char *path, size_t size) {
  snprintf(path, size, "%s/%s", tmpdir, name);
  if (gzip) {
    gzFile gz = gzopen(path, "wb");
    CHECK(gz != NULL);
    CHECK(gzwrite(gz, f->b, (unsigned)f->n) == (int)f->n);
    gzclose(gz);
  } else {
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    CHECK(fwrite(f->b, 1, f->n, fp) == f->n);
    fclose(fp);
  }
}

static int has(const char *message, const char *part) { return strstr(message, part) != NULL; }

static dpbo_status read_idx(const char *images, const char *labels, dpbo_data_format format,
                            dpbo_dataset **data, dpbo_error *err) {
  dpbo_dataset_options options;
  dpbo_dataset_options_default(&options);
  options.format = format;
  options.labels = labels;
  dpbo_error_clear(err);
  *data = NULL;
  return dpbo_dataset_read_options(images, &options, data, err);
}

/* 3 images of 2 x 2 pixels, labels 7 0 9. */
static const uint32_t image_dims[3] = {3, 2, 2};
static const unsigned char pixels[12] = {0, 255, 51, 102, 1, 2, 3, 4, 254, 0, 0, 128};
static const unsigned char label_bytes[3] = {7, 0, 9};
static const uint32_t label_dims[1] = {3};

static void check_small(const dpbo_dataset *data) {
  CHECK(data->n == 3 && data->d == 4);
  for (int i = 0; i < 12; i++)
    CHECK(data->x[i] == pixels[i] / 255.0);
  CHECK(data->x[1] == 1.0 && data->x[2] == 0.2);
  CHECK(data->y[0] == 7 && data->y[1] == 0 && data->y[2] == 9);
}

static void test_good(void) {
  idx_bytes im, lb;
  char ip[512], lp[512], ipz[512], lpz[512];
  idx_make(&im, 0x08, 3, image_dims, pixels, sizeof pixels);
  idx_make(&lb, 0x08, 1, label_dims, label_bytes, sizeof label_bytes);
  write_bytes("im.idx3", &im, 0, ip, sizeof ip);
  write_bytes("lb.idx1", &lb, 0, lp, sizeof lp);
  write_bytes("im.idx3.gz", &im, 1, ipz, sizeof ipz);
  write_bytes("lb.idx1.gz", &lb, 1, lpz, sizeof lpz);
  dpbo_error err;
  dpbo_dataset *data = NULL;
  /* Plain and gzip, format idx and auto (a labels file means IDX). */
  CHECK_OK(read_idx(ip, lp, DPBO_FORMAT_IDX, &data, &err));
  check_small(data);
  dpbo_dataset_destroy(data);
  CHECK_OK(read_idx(ipz, lpz, DPBO_FORMAT_AUTO, &data, &err));
  check_small(data);
  dpbo_dataset_destroy(data);
  /* The in-memory entry point of the fuzz target reads the same. */
  CHECK_OK(dpbo__dataset_read_idx_buffers(&(dpbo__dataset_buffer){"im", im.b, im.n},
                                          &(dpbo__dataset_buffer){"lb", lb.b, lb.n}, &data, &err));
  check_small(data);
  dpbo_dataset_destroy(data);
  /* Images of one dimension past the rows (a flat feature vector) work too. */
  const uint32_t flat[2] = {3, 4};
  idx_make(&im, 0x08, 2, flat, pixels, sizeof pixels);
  write_bytes("flat.idx2", &im, 0, ip, sizeof ip);
  CHECK_OK(read_idx(ip, lp, DPBO_FORMAT_IDX, &data, &err));
  check_small(data);
  dpbo_dataset_destroy(data);
  /* The option's consistency: IDX needs a labels file, and only IDX takes one. */
  CHECK(read_idx(ip, NULL, DPBO_FORMAT_IDX, &data, &err) == DPBO_ERR_ARG);
  CHECK(has(err.message, "needs a labels file"));
  CHECK(read_idx(ip, lp, DPBO_FORMAT_CSV, &data, &err) == DPBO_ERR_ARG);
  CHECK(has(err.message, "goes with the IDX format only"));
  /* An IDX file read as text (the labels forgotten): the message says what
   * it is and how to read it. */
  CHECK(read_idx(ipz, NULL, DPBO_FORMAT_AUTO, &data, &err) == DPBO_ERR_DATA);
  CHECK_MSG(has(err.message, ipz) && has(err.message, "begins like an IDX file") &&
                has(err.message, "format = idx"),
            "%s", err.message);
  CHECK(read_idx(lp, NULL, DPBO_FORMAT_CSV, &data, &err) == DPBO_ERR_DATA);
  CHECK_MSG(has(err.message, "begins like an IDX file"), "%s", err.message);
  /* A NUL byte on a last line without a newline: gzgets stops at the end of
   * the file there, not at the NUL, and the line used to be read up to the
   * NUL ("1,2,1" accepted, the rest dropped unseen). */
  {
    idx_bytes text;
    static const char csv[] = "1,2,1\n3,4,2\n1,2,1\0garbage";
    memcpy(text.b, csv, sizeof csv - 1);
    text.n = sizeof csv - 1;
    for (int gzip = 0; gzip <= 1; gzip++) {
      char cp[512];
      write_bytes(gzip ? "nul-last.csv.gz" : "nul-last.csv", &text, gzip, cp, sizeof cp);
      CHECK(read_idx(cp, NULL, DPBO_FORMAT_AUTO, &data, &err) == DPBO_ERR_DATA);
      CHECK_MSG(has(err.message, ":3: contains a NUL byte") && data == NULL, "%s", err.message);
    }
  }
}

/* Reading must fail with `code`, no dataset, and a message holding `named`
 * (the file at fault) and `part`. */
static void expect_error(const idx_bytes *im, const idx_bytes *lb, int gzip, dpbo_status code,
                         int labels_at_fault, const char *part) {
  char ip[512], lp[512];
  write_bytes(gzip ? "bad-images.gz" : "bad-images", im, gzip, ip, sizeof ip);
  write_bytes(gzip ? "bad-labels.gz" : "bad-labels", lb, gzip, lp, sizeof lp);
  dpbo_error err;
  dpbo_dataset *data = NULL;
  dpbo_status st = read_idx(ip, lp, DPBO_FORMAT_IDX, &data, &err);
  printf("  %s -> %s: %s\n", part, dpbo_status_name(st), err.message);
  CHECK_MSG(st == code, "%s: got %s, expected %s", part, dpbo_status_name(st),
            dpbo_status_name(code));
  CHECK(data == NULL);
  CHECK_MSG(has(err.message, labels_at_fault ? lp : ip), "names the file: %s", err.message);
  CHECK_MSG(has(err.message, part), "'%s' in: %s", part, err.message);
  /* The message begins with the file at fault, once: not "images: labels: ...". */
  CHECK_MSG(strstr(err.message, labels_at_fault ? lp : ip) == err.message ||
                has(err.message, "images but"),
            "begins with the file: %s", err.message);
}

static void test_errors(void) {
  idx_bytes im, lb, bad;
  idx_make(&im, 0x08, 3, image_dims, pixels, sizeof pixels);
  idx_make(&lb, 0x08, 1, label_dims, label_bytes, sizeof label_bytes);
  for (int gzip = 0; gzip <= 1; gzip++) {
    /* Wrong magic: a text file, and a first byte that is not 0. */
    bad = im;
    bad.b[0] = 0x1f;
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0, "not an IDX file: it begins with bytes 0x1f");
    bad = lb;
    memcpy(bad.b, "1,2\n", 4);
    expect_error(&im, &bad, gzip, DPBO_ERR_DATA, 1, "not an IDX file");
    /* Unsupported and unknown types. */
    bad = im;
    bad.b[2] = 0x0D;
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0, "byte 2: IDX data type 0x0d (float)");
    bad = lb;
    bad.b[2] = 0x0C;
    expect_error(&im, &bad, gzip, DPBO_ERR_DATA, 1, "IDX data type 0x0c (int) is not supported");
    bad = im;
    bad.b[2] = 0x42;
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0, "unknown IDX data type 0x42");
    /* ndim: labels of 2 dimensions, images of 1 (the images and labels files
     * swapped is this case). */
    const uint32_t two[2] = {3, 1};
    idx_make(&bad, 0x08, 2, two, label_bytes, sizeof label_bytes);
    expect_error(&im, &bad, gzip, DPBO_ERR_DATA, 1, "a labels file has 1 dimension");
    expect_error(&lb, &lb, gzip, DPBO_ERR_DATA, 0, "an images file has at least 2 dimensions");
    /* Truncated: in the header, in the second image, in the labels. */
    bad = im;
    bad.n = 10;
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0,
                 "truncated IDX file: it ends at byte 10, in the size of dimension 2");
    bad = im;
    bad.n -= 6;
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0,
                 "truncated IDX file: it ends at byte 22, in image 2 of 3");
    bad = lb;
    bad.n -= 1;
    expect_error(&im, &bad, gzip, DPBO_ERR_DATA, 1, "it ends at byte 10, in the 3 labels");
    /* Extra bytes: a size in the header too small. */
    bad = lb;
    bad.b[bad.n++] = 5;
    expect_error(&im, &bad, gzip, DPBO_ERR_DATA, 1, "byte 11: data continue past the end");
    /* Counts that disagree. */
    const uint32_t four[1] = {4};
    const unsigned char four_labels[4] = {1, 2, 3, 4};
    idx_make(&bad, 0x08, 1, four, four_labels, 4);
    expect_error(&im, &bad, gzip, DPBO_ERR_DATA, 0, "has 3 images but");
    /* A size of 0, and a header asking for more features than allowed. */
    const uint32_t zero[3] = {3, 0, 2};
    idx_make(&bad, 0x08, 3, zero, pixels, 0);
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0, "byte 8: dimension 2 has size 0");
    const uint32_t huge[3] = {3, 65536, 65536};
    idx_make(&bad, 0x08, 3, huge, pixels, sizeof pixels);
    expect_error(&bad, &lb, gzip, DPBO_ERR_DATA, 0,
                 "an image has more than 100000 values (the header's sizes after the first)");
    /* A header claiming 4 billion images, with 3 there: the truncation is
     * reported, nothing of the claimed size is allocated. */
    const uint32_t many[3] = {0xFFFFFFFFu, 2, 2};
    const uint32_t many_labels[1] = {0xFFFFFFFFu};
    idx_make(&bad, 0x08, 3, many, pixels, sizeof pixels);
    idx_bytes bad_lb;
    idx_make(&bad_lb, 0x08, 1, many_labels, label_bytes, sizeof label_bytes);
    expect_error(&bad, &bad_lb, gzip, DPBO_ERR_DATA, 0, "in image 4 of 4294967295");
  }
  /* Both files named when the counts differ. */
  {
    char ip[512], lp[512];
    const uint32_t four[1] = {4};
    const unsigned char four_labels[4] = {1, 2, 3, 4};
    idx_make(&lb, 0x08, 1, four, four_labels, 4);
    write_bytes("count-images", &im, 0, ip, sizeof ip);
    write_bytes("count-labels", &lb, 0, lp, sizeof lp);
    dpbo_error err;
    dpbo_dataset *data = NULL;
    CHECK(read_idx(ip, lp, DPBO_FORMAT_IDX, &data, &err) == DPBO_ERR_DATA);
    CHECK_MSG(has(err.message, ip) && has(err.message, lp) && has(err.message, "4 labels"), "%s",
              err.message);
  }
  /* Missing files: the images, then the labels. */
  {
    char ip[512], missing[512];
    write_bytes("ok-images", &im, 0, ip, sizeof ip);
    snprintf(missing, sizeof missing, "%s/no-such-labels", tmpdir);
    dpbo_error err;
    dpbo_dataset *data = NULL;
    CHECK(read_idx(ip, missing, DPBO_FORMAT_IDX, &data, &err) == DPBO_ERR_IO);
    CHECK_MSG(has(err.message, "cannot open IDX labels file") && has(err.message, missing) &&
                  has(err.message, "No such file"),
              "%s", err.message);
    CHECK(read_idx(missing, ip, DPBO_FORMAT_IDX, &data, &err) == DPBO_ERR_IO);
    CHECK_MSG(has(err.message, "cannot open IDX images file"), "%s", err.message);
  }
  /* A gzip file cut short: zlib's error, with the file and the offset. */
  {
    char ip[512], lp[512];
    idx_make(&lb, 0x08, 1, label_dims, label_bytes, sizeof label_bytes);
    write_bytes("cut-images.gz", &im, 1, ip, sizeof ip);
    write_bytes("cut-labels", &lb, 0, lp, sizeof lp);
    CHECK(truncate(ip, 20) == 0);
    dpbo_error err;
    dpbo_dataset *data = NULL;
    dpbo_status st = read_idx(ip, lp, DPBO_FORMAT_IDX, &data, &err);
    printf("  cut gzip -> %s: %s\n", dpbo_status_name(st), err.message);
    CHECK(st == DPBO_ERR_IO || st == DPBO_ERR_DATA);
    CHECK_MSG(strstr(err.message, ip) == err.message && has(err.message, "byte"), "%s",
              err.message);
  }
}

/* Fashion-MNIST's test set: 10,000 images of 28 x 28, 1,000 per class. */
static int fashion(const char *dir) {
  char ip[1024], lp[1024];
  snprintf(ip, sizeof ip, "%s/t10k-images-idx3-ubyte.gz", dir);
  snprintf(lp, sizeof lp, "%s/t10k-labels-idx1-ubyte.gz", dir);
  if (access(ip, R_OK) != 0 || access(lp, R_OK) != 0) {
    printf("test_idx: %s not installed (Debian's dataset-fashion-mnist): skipped\n", ip);
    return 77;
  }
  dpbo_error err;
  dpbo_dataset *data = NULL;
  CHECK_OK(read_idx(ip, lp, DPBO_FORMAT_AUTO, &data, &err));
  CHECK(data->n == 10000 && data->d == 784);
  int64_t per_class[10] = {0};
  double lo = 1.0, hi = 0.0;
  for (int64_t i = 0; i < data->n; i++) {
    CHECK(data->y[i] >= 0 && data->y[i] <= 9);
    per_class[(int)data->y[i]]++;
  }
  for (size_t k = 0; k < (size_t)data->n * 784; k++) {
    if (data->x[k] < lo) lo = data->x[k];
    if (data->x[k] > hi) hi = data->x[k];
  }
  for (int c = 0; c < 10; c++)
    CHECK_MSG(per_class[c] == 1000, "class %d has %lld rows", c, (long long)per_class[c]);
  CHECK(lo == 0.0 && hi == 1.0);
  dpbo_dataset_destroy(data);
  return dpbo_test_summary("test_idx --fashion");
}

static void remove_tree(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv) {
  snprintf(tmpdir, sizeof tmpdir, "%s/dpbo_idx_XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  int rc;
  if (argc == 3 && strcmp(argv[1], "--fashion") == 0) {
    rc = fashion(argv[2]);
  } else {
    test_good();
    test_errors();
    rc = dpbo_test_summary("test_idx");
  }
  remove_tree(tmpdir);
  return rc;
}
