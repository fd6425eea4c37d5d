/* Dataset readers, splits, scaling and the LIBSVM writer: files with known
 * content in a temporary directory, the digits file Debian's python3-sklearn
 * installs, and every parse error's message (file and line named).
 *
 *   test_dataset                 unit checks
 *   test_dataset --covtype PATH  loads the Covertype file and times it (slow) */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "objectives/dataset.h"

#define DIGITS_DEFAULT "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"

static char tmpdir[256];

static void tmp_path(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", tmpdir, name);
}

static void write_file(const char *name, const char *text, char *path, size_t size) {
  tmp_path(path, size, name);
  FILE *fp = fopen(path, "w");
  if (!fp) {
    perror(path);
    exit(1);
  }
  fputs(text, fp);
  fclose(fp);
}

static void write_gzip(const char *name, const char *text, char *path, size_t size) {
  tmp_path(path, size, name);
  gzFile gz = gzopen(path, "wb");
  if (!gz) {
    perror(path);
    exit(1);
  }
  gzputs(gz, text);
  gzclose(gz);
}

static int has(const char *message, const char *part) { return strstr(message, part) != NULL; }

/* Reading `path` must fail with `code` and a message containing each part. */
static void expect_read_error(const char *path, dpbo_data_format format, dpbo_status code,
                              const char *part1, const char *part2, const char *part3) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *data = NULL;
  dpbo_status st = dpbo_dataset_read(path, format, &data, &err);
  printf("  %s -> %s: %s\n", strrchr(path, '/') + 1, dpbo_status_name(st), err.message);
  CHECK_MSG(st == code, "%s: got %s, expected %s", path, dpbo_status_name(st),
            dpbo_status_name(code));
  CHECK(data == NULL);
  const char *parts[3] = {part1, part2, part3};
  for (int i = 0; i < 3; i++) {
    if (parts[i]) CHECK_MSG(has(err.message, parts[i]), "'%s' not in '%s'", parts[i], err.message);
  }
  dpbo_dataset_destroy(data);
}

static const char small_csv[] = "1.5, 2,3\n"
                                "  -4e2 ,0.25, 7 \n"
                                "\n"
                                "5,6,8\r\n"
                                "1e-3,.5,-0";

static void check_small_csv(const dpbo_dataset *data) {
  static const double x[8] = {1.5, 2, -400, 0.25, 5, 6, 0.001, 0.5};
  static const double y[4] = {3, 7, 8, 0};
  CHECK(data->n == 4 && data->d == 2);
  if (data->n != 4 || data->d != 2) return;
  for (int i = 0; i < 8; i++)
    CHECK_MSG(data->x[i] == x[i], "x[%d] = %.17g, expected %.17g", i, data->x[i], x[i]);
  for (int i = 0; i < 4; i++)
    CHECK_MSG(data->y[i] == y[i], "y[%d] = %.17g, expected %.17g", i, data->y[i], y[i]);
}

/* CSV as users bring it: a header row (objective.header = auto | yes | no)
 * and the label in another column than the last (objective.label_column). */
static void test_header_and_label(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  char path[512];
  dpbo_dataset *data = NULL;
  dpbo_dataset_options opt;

  /* auto: a first row of names is skipped; the rows are read as before. */
  write_file("named.csv", "x1, x2,label\n1.5, 2,3\n  -4e2 ,0.25, 7 \n\n5,6,8\r\n1e-3,.5,-0", path,
             sizeof path);
  dpbo_dataset_options_default(&opt);
  CHECK_OK(dpbo_dataset_read_options(path, &opt, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;
  /* auto: scikit-learn's breast_cancer.csv begins "569,30,malignant,benign",
   * numbers and names, with fewer columns than the data. */
  write_file("sklearn.csv", "4,2,malignant,benign\n1.5, 2,3\n  -4e2 ,0.25, 7 \n5,6,8\n1e-3,.5,-0\n",
             path, sizeof path);
  CHECK_OK(dpbo_dataset_read_options(path, &opt, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;
  /* auto: an all-number first row is data (the small CSV: 4 rows). */
  write_file("plain.csv", small_csv, path, sizeof path);
  CHECK_OK(dpbo_dataset_read_options(path, &opt, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;
  /* yes: the first row is skipped even when it is numbers. */
  opt.header = DPBO_HEADER_YES;
  CHECK_OK(dpbo_dataset_read_options(path, &opt, &data, &err));
  CHECK(data && data->n == 3 && data->x[0] == -400 && data->y[0] == 7);
  dpbo_dataset_destroy(data);
  data = NULL;
  /* no: a header row is an error naming the field, as before. */
  write_file("named2.csv", "x1,x2,label\n1,2,3\n", path, sizeof path);
  opt.header = DPBO_HEADER_NO;
  CHECK(dpbo_dataset_read_options(path, &opt, &data, &err) == DPBO_ERR_DATA);
  CHECK_MSG(has(err.message, "named2.csv:1") && has(err.message, "column 1 is not a number"), "%s",
            err.message);
  CHECK(data == NULL);

  /* auto: a first data row with a typo is data, and its error names it. */
  write_file("typo.csv", "1,2,15-1\n3,4,5\n", path, sizeof path);
  dpbo_dataset_options_default(&opt);
  CHECK(dpbo_dataset_read_options(path, &opt, &data, &err) == DPBO_ERR_DATA);
  CHECK_MSG(has(err.message, "typo.csv:1: column 3 is not a number: '15-1'"), "%s", err.message);
  CHECK(data == NULL);

  /* The label in the first column: the features keep their order. */
  write_file("first.csv", "3,1.5,2\n7,-4e2,0.25\n8,5,6\n0,1e-3,.5\n", path, sizeof path);
  dpbo_dataset_options_default(&opt);
  opt.label_column = 1;
  CHECK_OK(dpbo_dataset_read_options(path, &opt, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;
  /* ... in a middle column. */
  write_file("middle.csv", "1.5,3,2\n-4e2,7,0.25\n5,8,6\n1e-3,0,.5\n", path, sizeof path);
  opt.label_column = 2;
  CHECK_OK(dpbo_dataset_read_options(path, &opt, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;
  /* A label column past the row is refused, naming the line. */
  opt.label_column = 4;
  CHECK(dpbo_dataset_read_options(path, &opt, &data, &err) == DPBO_ERR_DATA);
  CHECK_MSG(has(err.message, "middle.csv:1: the label column is 4, but the rows have 3 columns"),
            "%s", err.message);
  CHECK(data == NULL);
}

static void test_formats(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  char path[512];
  dpbo_dataset *data = NULL;

  write_file("small.csv", small_csv, path, sizeof path);
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;

  write_gzip("small.csv.gz", small_csv, path, sizeof path);
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_CSV, &data, &err));
  if (data) check_small_csv(data);
  dpbo_dataset_destroy(data);
  data = NULL;

  /* A UTF-8 byte order mark at the start is skipped (issue #27: it was
   * quoted as part of the first field), gzip'ed or not. */
  char bom_csv[sizeof small_csv + 3] = "\xef\xbb\xbf";
  strcat(bom_csv, small_csv);
  for (int gz = 0; gz < 2; gz++) {
    if (gz)
      write_gzip("bom.csv.gz", bom_csv, path, sizeof path);
    else
      write_file("bom.csv", bom_csv, path, sizeof path);
    CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err));
    if (data) check_small_csv(data);
    dpbo_dataset_destroy(data);
    data = NULL;
  }

  /* LIBSVM: d is the largest index; missing entries are zeros. */
  static const char libsvm[] = "1 1:0.5 3:2\n"
                               "-1\t2:1.25  \n"
                               "\n"
                               "+1\n"
                               "2 3:-7e-1";
  static const double lx[12] = {0.5, 0, 2, 0, 1.25, 0, 0, 0, 0, 0, 0, -0.7};
  static const double ly[4] = {1, -1, 1, 2};
  for (int gz = 0; gz < 2; gz++) {
    if (gz)
      write_gzip("small.libsvm.gz", libsvm, path, sizeof path);
    else
      write_file("small.libsvm", libsvm, path, sizeof path);
    for (int f = 0; f < 2; f++) {
      CHECK_OK(dpbo_dataset_read(path, f ? DPBO_FORMAT_LIBSVM : DPBO_FORMAT_AUTO, &data, &err));
      if (!data) continue;
      CHECK(data->n == 4 && data->d == 3);
      if (data->n == 4 && data->d == 3) {
        for (int i = 0; i < 12; i++)
          CHECK_MSG(data->x[i] == lx[i], "libsvm x[%d] = %g", i, data->x[i]);
        for (int i = 0; i < 4; i++)
          CHECK_MSG(data->y[i] == ly[i], "libsvm y[%d] = %g", i, data->y[i]);
      }
      dpbo_dataset_destroy(data);
      data = NULL;
    }
  }

  /* A LIBSVM feature index past the limit is refused while the file is read
   * (issue #11: the dense matrix of index 1e8 took 6 GiB), with the limit
   * in the message; up to the limit is fine. */
  write_file("limit.libsvm", "1 1:1\n2 11:1\n", path, sizeof path);
  dpbo_status st = dpbo_dataset_read_max(path, DPBO_FORMAT_AUTO, 10, &data, &err);
  CHECK(st == DPBO_ERR_DATA && data == NULL);
  CHECK_MSG(
      strstr(err.message, "limit.libsvm:2: feature index 11 exceeds the limit of 10 features"),
      "message: %s", err.message);
  CHECK_OK(dpbo_dataset_read_max(path, DPBO_FORMAT_AUTO, 11, &data, &err));
  CHECK(data && data->d == 11);
  dpbo_dataset_destroy(data);
  data = NULL;

  /* Two 200,000-column lines (about 2 MB each) through the growing line
   * buffer, gzip-compressed. */
  const int cols = 200000;
  size_t cap = (size_t)cols * 2 * 24 + 16;
  char *text = malloc(cap);
  size_t len = 0;
  for (int r = 0; r < 2; r++) {
    for (int j = 0; j < cols; j++)
      len += (size_t)snprintf(text + len, cap - len, j + 1 < cols ? "%d.%d," : "%d\n", j, r);
  }
  write_gzip("wide.csv.gz", text, path, sizeof path);
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err));
  if (data) {
    CHECK(data->n == 2 && data->d == cols - 1);
    if (data->n == 2 && data->d == cols - 1) {
      int ok = 1;
      for (int r = 0; r < 2; r++) {
        for (int j = 0; j < cols - 1; j++) {
          char buf[32];
          snprintf(buf, sizeof buf, "%d.%d", j, r);
          if (data->x[(size_t)r * (size_t)(cols - 1) + (size_t)j] != strtod(buf, NULL)) ok = 0;
        }
        if (data->y[r] != cols - 1) ok = 0;
      }
      CHECK_MSG(ok, "wide rows do not match their text");
    }
  }
  dpbo_dataset_destroy(data);
  data = NULL;
  free(text);

  /* Numbers outside the fast path agree with strtod to the last bit. */
  static const char hard[] =
      "0.1000000000000000055511151231257827,123456789012345678901234567890,"
      "2.2250738585072011e-308,1e23,9007199254740993,4.9406564584124654e-324,1\n";
  write_file("hard.csv", hard, path, sizeof path);
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_CSV, &data, &err));
  if (data && data->d == 6) {
    const char *p = hard;
    for (int j = 0; j < 6; j++) {
      char *end;
      double v = strtod(p, &end);
      CHECK_MSG(data->x[j] == v, "column %d: %.17g vs strtod %.17g", j + 1, data->x[j], v);
      p = end + 1;
    }
  }
  dpbo_dataset_destroy(data);
}

static void test_digits(void) {
  /* The first row of sklearn's digits.csv.gz, label last. */
  static const double first[65] = {0, 0,  5,  13, 9,  1, 0, 0, 0,  0,  13, 15, 10, 15, 5, 0, 0,
                                   3, 15, 2,  0,  11, 8, 0, 0, 4,  12, 0,  0,  8,  8,  0, 0, 5,
                                   8, 0,  0,  9,  8,  0, 0, 4, 11, 0,  1,  12, 7,  0,  0, 2, 14,
                                   5, 10, 12, 0,  0,  0, 0, 6, 13, 10, 0,  0,  0,  0};
  const char *path = getenv("DPBO_DIGITS") ? getenv("DPBO_DIGITS") : DIGITS_DEFAULT;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *data = NULL;
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err));
  if (!data) return;
  printf("  digits: n=%lld d=%d\n", (long long)data->n, data->d);
  CHECK(data->n == 1797 && data->d == 64);
  if (data->d == 64) {
    for (int j = 0; j < 64; j++)
      CHECK_MSG(data->x[j] == first[j], "digits x[0][%d] = %g", j, data->x[j]);
    CHECK(data->y[0] == first[64]);
    /* Labels are the ten digits. */
    int ok = 1;
    for (int64_t i = 0; i < data->n; i++)
      ok &= data->y[i] >= 0 && data->y[i] <= 9 && data->y[i] == (int)data->y[i];
    CHECK(ok);
  }
  dpbo_dataset_destroy(data);
}

static void test_errors(void) {
  char path[512];
  tmp_path(path, sizeof path, "no-such-file.csv");
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_IO, "no-such-file.csv", "No such file", NULL);
  expect_read_error(tmpdir, DPBO_FORMAT_AUTO, DPBO_ERR_IO, tmpdir, "directory", NULL);

  write_file("ragged.csv", "1,2,3\n4,5,6\n\n7,8\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "ragged.csv:4", "expected 3", "got 2");
  write_file("ragged2.csv", "1,2\n4,5,6\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_CSV, DPBO_ERR_DATA, "ragged2.csv:2", "expected 2", "got 3");

  write_file("text.csv", "1,2,3\n4,abc,6\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "text.csv:2", "column 2", "'abc'");
  write_file("suffix.csv", "1,2,3\n4,5x ,6\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "suffix.csv:2", "column 2", "'5x'");
  write_file("blankfield.csv", "1,2,3\n4,,6\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "blankfield.csv:2", "column 2", "empty");
  /* A first row of names is a header (objective.header = auto), and an
   * error with header = no: test_header_and_label. */

  write_file("nan.csv", "1,2,3\n4,5,6\n7,NaN,9\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "nan.csv:3", "column 2", "NaN");
  write_file("inf.csv", "1,2,-inf\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "inf.csv:1", "column 3", "infinite");
  write_file("huge.csv", "1,2e999,3\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "huge.csv:1", "column 2", "beyond");
  /* Finite, but past DBL_MAX / 2: min-max scaling would overflow to NaN
   * (issue #27); refused where it is read, for svm and logreg alike. */
  write_file("big.csv", "1,2,3\n4,-1e308,6\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "big.csv:2", "column 2 is '-1e308'",
                    "beyond");
  write_file("big.libsvm", "1 1:1\n2 2:1e308\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "big.libsvm:2", "feature 2", "beyond");

  write_file("empty.csv", "", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "empty.csv", "dataset is empty", NULL);
  write_file("blank.csv", "\n  \n\t\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_CSV, DPBO_ERR_DATA, "blank.csv", "dataset is empty", NULL);
  write_gzip("empty.csv.gz", "", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "empty.csv.gz", "dataset is empty",
                    NULL);
  write_file("onecol.csv", "1\n2\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_CSV, DPBO_ERR_DATA, "onecol.csv:1", "at least one feature",
                    NULL);

  write_file("order.libsvm", "1 1:1 3:1\n2 2:1 2:3\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "order.libsvm:2", "increase", NULL);
  write_file("zero.libsvm", "1 0:1\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_LIBSVM, DPBO_ERR_DATA, "zero.libsvm:1", "out of range", NULL);
  write_file("token.libsvm", "1 1:1\n1 2:1 junk\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "token.libsvm:2", "'junk'", NULL);
  write_file("value.libsvm", "1 1:1\n\n1 2:nan\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_DATA, "value.libsvm:3", "feature 2", "NaN");
  write_file("label.libsvm", "x 1:1\n", path, sizeof path);
  expect_read_error(path, DPBO_FORMAT_LIBSVM, DPBO_ERR_DATA, "label.libsvm:1", "label", "'x'");

  /* A gzip file cut in half is an I/O error, not a short dataset. */
  size_t cap = 200000;
  char *text = malloc(cap);
  size_t len = 0;
  for (int i = 0; len + 64 < cap; i++)
    len += (size_t)snprintf(text + len, cap - len, "%d,%d,%d\n", i, i * 7 % 1000, i % 3);
  write_gzip("cut.csv.gz", text, path, sizeof path);
  free(text);
  FILE *fp = fopen(path, "rb");
  fseek(fp, 0, SEEK_END);
  long size = ftell(fp);
  fclose(fp);
  CHECK(truncate(path, size / 2) == 0);
  expect_read_error(path, DPBO_FORMAT_AUTO, DPBO_ERR_IO, "cut.csv.gz:", "truncated", NULL);
}

/* n rows whose label is the row number, so rows can be traced through a split. */
static dpbo_dataset *numbered(int n) {
  dpbo_dataset *data = calloc(1, sizeof *data);
  data->n = n;
  data->d = 2;
  data->x = calloc((size_t)n * 2, sizeof *data->x);
  data->y = calloc((size_t)n, sizeof *data->y);
  for (int i = 0; i < n; i++) {
    data->x[2 * i] = i;
    data->x[2 * i + 1] = -2.0 * i;
    data->y[i] = i;
  }
  return data;
}

static void test_split(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const int n = 100;
  dpbo_dataset *data = numbered(n);
  dpbo_dataset *tr = NULL, *va = NULL, *tr2 = NULL, *va2 = NULL, *tr3 = NULL, *va3 = NULL;
  CHECK_OK(dpbo_dataset_split(data, 2015u, 60, 40, &tr, &va, &err));
  CHECK_OK(dpbo_dataset_split(data, 2015u, 60, 40, &tr2, &va2, &err));
  CHECK_OK(dpbo_dataset_split(data, 2016u, 60, 40, &tr3, &va3, &err));
  if (tr && va && tr2 && va2 && tr3 && va3) {
    CHECK(tr->n == 60 && va->n == 40 && tr->d == 2 && va->d == 2);
    /* A partition: every row exactly once, features travelling with labels. */
    int seen[100] = {0}, rows_ok = 1, in_order = 1;
    for (int s = 0; s < 2; s++) {
      const dpbo_dataset *part = s ? va : tr;
      for (int64_t i = 0; i < part->n; i++) {
        int r = (int)part->y[i];
        if (r < 0 || r >= n || seen[r]++) rows_ok = 0;
        if (part->x[2 * i] != r || part->x[2 * i + 1] != -2.0 * r) rows_ok = 0;
        if (s == 0 && i > 0 && part->y[i] != part->y[i - 1] + 1) in_order = 0;
      }
    }
    for (int i = 0; i < n; i++)
      rows_ok &= seen[i] == 1;
    CHECK_MSG(rows_ok, "split is not a partition of the rows");
    CHECK_MSG(!in_order, "the split did not shuffle");
    CHECK(memcmp(tr->y, tr2->y, 60 * sizeof(double)) == 0 &&
          memcmp(va->y, va2->y, 40 * sizeof(double)) == 0);
    CHECK_MSG(memcmp(tr->y, tr3->y, 60 * sizeof(double)) != 0,
              "seeds 2015 and 2016 give the same split");

    /* The rule in dataset.h: permutation of PCG(seed, stream 0), train first. */
    uint64_t perm[100];
    dpbo_rng rng;
    dpbo_rng_seed(&rng, 2015u, 0u);
    dpbo_rng_permutation(&rng, n, perm);
    int same = 1;
    for (int i = 0; i < 60; i++)
      same &= tr->y[i] == (double)perm[i];
    for (int i = 0; i < 40; i++)
      same &= va->y[i] == (double)perm[60 + i];
    CHECK_MSG(same, "split does not follow dpbo_rng_permutation(seed, stream 0)");
  }
  dpbo_dataset_destroy(tr);
  dpbo_dataset_destroy(va);
  dpbo_dataset_destroy(tr2);
  dpbo_dataset_destroy(va2);
  dpbo_dataset_destroy(tr3);
  dpbo_dataset_destroy(va3);
  tr = va = NULL;

  /* A split may use fewer rows than the dataset has, but not more. */
  CHECK_OK(dpbo_dataset_split(data, 1u, 10, 5, &tr, &va, &err));
  CHECK(tr && va && tr->n == 10 && va->n == 5);
  dpbo_dataset_destroy(tr);
  dpbo_dataset_destroy(va);
  tr = va = NULL;
  CHECK(dpbo_dataset_split(data, 1u, 60, 41, &tr, &va, &err) == DPBO_ERR_ARG);
  CHECK_MSG(has(err.message, "100"), "message: %s", err.message);
  CHECK(dpbo_dataset_split(data, 1u, 0, 10, &tr, &va, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_dataset_split(data, 1u, 10, 0, &tr, &va, &err) == DPBO_ERR_ARG);
  CHECK(tr == NULL && va == NULL);

  /* Subset keeps the given order; an out-of-range row is refused. */
  int64_t rows[3] = {5, 0, 5};
  dpbo_dataset *sub = NULL;
  CHECK_OK(dpbo_dataset_subset(data, rows, 3, &sub, &err));
  CHECK(sub && sub->n == 3 && sub->y[0] == 5 && sub->y[1] == 0 && sub->y[2] == 5 && sub->x[2] == 0);
  dpbo_dataset_destroy(sub);
  sub = NULL;
  rows[1] = 100;
  CHECK(dpbo_dataset_subset(data, rows, 3, &sub, &err) == DPBO_ERR_ARG && sub == NULL);
  dpbo_dataset_destroy(data);
}

static void test_scaling_and_writer(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  /* Feature 1 spans [2, 6], feature 2 is constant, feature 3 spans [-1, 1]. */
  double rx[9] = {2, 5, -1, 6, 5, 1, 3, 5, 0};
  double ry[3] = {1, 2, 1};
  dpbo_dataset ref = {3, 3, rx, ry};
  double ox[6] = {4, 7, 3, 1, 5, -1};
  double oy[2] = {2, 1};
  dpbo_dataset other = {2, 3, ox, oy};
  dpbo_scaling scaling;
  CHECK_OK(dpbo_scaling_fit(&ref, &scaling, &err));
  CHECK_OK(dpbo_scaling_apply(&scaling, &ref, "training", &err));
  CHECK_OK(dpbo_scaling_apply(&scaling, &other, "validation", &err));
  static const double want_ref[9] = {0, 0, 0, 1, 0, 1, 0.25, 0, 0.5};
  static const double want_other[6] = {0.5, 0, 2, -0.25, 0, 0};
  for (int i = 0; i < 9; i++)
    CHECK_MSG(rx[i] == want_ref[i], "scaled ref[%d] = %.17g", i, rx[i]);
  for (int i = 0; i < 6; i++)
    CHECK_MSG(ox[i] == want_other[i], "scaled other[%d] = %.17g", i, ox[i]);
  dpbo_scaling_free(&scaling);

  /* A value so far outside a tiny training range that its scaled value
   * overflows is refused, naming the split, row and feature (svm and logreg
   * share this check). */
  double tx[2] = {0, 1e-310}, ty[2] = {1, 2};
  dpbo_dataset tiny = {2, 1, tx, ty};
  double fx[2] = {0.5, 1e10}, fy[2] = {1, 2};
  dpbo_dataset far = {2, 1, fx, fy};
  CHECK_OK(dpbo_scaling_fit(&tiny, &scaling, &err));
  CHECK(dpbo_scaling_apply(&scaling, &far, "validation", &err) == DPBO_ERR_DATA);
  CHECK_MSG(strstr(err.message, "validation row 1, feature 1: 0.5 lies so far outside"),
            "message: %s", err.message);
  dpbo_scaling_free(&scaling);
  dpbo_error_clear(&err);

  /* The writer: %.17g, zeros omitted, and reading back gives the same bits. */
  char path[512];
  tmp_path(path, sizeof path, "written.libsvm");
  double wx[6] = {0.1, 0, 1.0 / 3.0, 0, 0, 0};
  double wy[2] = {3, -1};
  dpbo_dataset w = {2, 3, wx, wy};
  CHECK_OK(dpbo_dataset_write_libsvm(&w, path, &err));
  FILE *fp = fopen(path, "r");
  char text[256] = {0};
  if (fp) {
    size_t got = fread(text, 1, sizeof text - 1, fp);
    text[got] = '\0';
    fclose(fp);
  }
  const char *want = "3 1:0.10000000000000001 3:0.33333333333333331\n-1\n";
  CHECK_MSG(strcmp(text, want) == 0, "written:\n%s\nexpected:\n%s", text, want);
  /* A row of zeros keeps d from the other rows only; compare what is there. */
  dpbo_dataset *back = NULL;
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &back, &err));
  if (back) {
    CHECK(back->n == 2 && back->d == 3);
    if (back->n == 2 && back->d == 3)
      CHECK(memcmp(back->x, wx, sizeof wx) == 0 && memcmp(back->y, wy, sizeof wy) == 0);
  }
  dpbo_dataset_destroy(back);
  tmp_path(path, sizeof path, "no-such-dir/out.libsvm");
  CHECK(dpbo_dataset_write_libsvm(&w, path, &err) == DPBO_ERR_IO);
  CHECK_MSG(has(err.message, "no-such-dir/out.libsvm"), "message: %s", err.message);
}

static int covtype(const char *path) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *data = NULL;
  if (access(path, R_OK) != 0) {
    printf("covtype file %s not found: skipped\n", path);
    return 77;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (data) {
    printf("covtype: n=%lld d=%d loaded in %.2f s\n", (long long)data->n, data->d, seconds);
    CHECK(data->n == 205857 && data->d == 54);
    /* First row: 2891,159,8,270,0,1832,...,label 5. */
    CHECK(data->x[0] == 2891 && data->x[1] == 159 && data->x[5] == 1832 && data->y[0] == 5);
    int ok = 1;
    for (int64_t i = 0; i < data->n; i++)
      ok &= data->y[i] >= 1 && data->y[i] <= 7;
    CHECK(ok);
  }
  dpbo_dataset_destroy(data);
  return dpbo_test_summary("test_dataset --covtype");
}

static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--covtype") == 0) return covtype(argv[2]);
  snprintf(tmpdir, sizeof tmpdir, "%s/dpbo_dataset_XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_formats();
  test_header_and_label();
  test_digits();
  test_errors();
  test_split();
  test_scaling_and_writer();
  remove_tree(tmpdir);
  return dpbo_test_summary("test_dataset");
}
