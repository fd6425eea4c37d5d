/* Labelled datasets: dense rows x[n][d] with labels y[n].
 *
 * Formats: comma-separated numbers with the label in the last column (the UCI
 * covtype.data.gz format), LIBSVM's sparse "label idx:val ..." format, and
 * IDX (the MNIST and Fashion-MNIST format: an images file and a labels file
 * of unsigned bytes; the pixels are scaled to [0, 1] as pixel / 255). All
 * may be gzip-compressed (read through zlib, which also reads plain files).
 * Every parse error names the file and line (IDX: the byte offset). */
#ifndef DPBO_DATASET_H
#define DPBO_DATASET_H

#include <float.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/rng.h"

typedef enum {
  DPBO_FORMAT_AUTO = 0,
  DPBO_FORMAT_CSV = 1,
  DPBO_FORMAT_LIBSVM = 2,
  DPBO_FORMAT_IDX = 3
} dpbo_data_format;

/* "auto", "csv", "libsvm", "idx" as configs write them, indexed by dpbo_data_format
 * and NULL-terminated: the one list of the formats. */
extern const char *const dpbo_data_format_names[];
const char *dpbo_data_format_name(dpbo_data_format format);

typedef struct dpbo_dataset {
  int64_t n; /* rows */
  int d;     /* features */
  double *x; /* n * d, row-major */
  double *y; /* n labels */
} dpbo_dataset;

/* The largest LIBSVM feature index by default. The rows are held dense
 * (n x d doubles), so one "100000000:1" in a 130-byte LIBSVM file would ask
 * for 800 MB per row: a file past the limit is refused while it is read,
 * before anything of its size is allocated. (A CSV row writes out every
 * column, so its memory stays proportional to the file: no limit there.) */
#define DPBO_DATASET_MAX_FEATURES 100000

/* The largest magnitude of a value in a data file. Min-max scaling
 * subtracts two values (max - min, x - min), which stays finite when both
 * lie within DBL_MAX / 2 (about 8.99e307); a larger one is refused where it
 * is read, with its file, line and column, as NaN and infinity are. */
#define DPBO_DATASET_VALUE_MAX (DBL_MAX / 2)

/* A CSV file's first row: a header of column names (skipped), or data.
 * AUTO takes a first row with any field that is not a number for a header
 * (and says so in the log), as most exported tables have one. */
typedef enum { DPBO_HEADER_AUTO = 0, DPBO_HEADER_YES = 1, DPBO_HEADER_NO = 2 } dpbo_csv_header;
/* "auto", "yes", "no": indexed by dpbo_csv_header, NULL-terminated. */
extern const char *const dpbo_csv_header_names[];

/* How to read a data file (the [objective] keys format, max_features,
 * header, label_column and labels). */
typedef struct dpbo_dataset_options {
  dpbo_data_format format;
  int64_t max_features;   /* LIBSVM: the largest feature index accepted (>= 1) */
  dpbo_csv_header header; /* CSV only */
  int label_column;       /* CSV only: 0 = the last column, k >= 1 = the k-th column */
  const char *labels;     /* IDX only: the labels file (the path read is the images
                             file); NULL or "" otherwise. With AUTO, a labels file
                             means IDX. */
} dpbo_dataset_options;

/* The defaults: AUTO format and header, DPBO_DATASET_MAX_FEATURES, label
 * last, no labels file. */
void dpbo_dataset_options_default(dpbo_dataset_options *options);
dpbo_status dpbo_dataset_read_options(const char *path, const dpbo_dataset_options *options,
                                      dpbo_dataset **out, dpbo_error *err);

/* AUTO picks LIBSVM when the first data line has an "idx:val" token. LIBSVM
 * feature indices up to DPBO_DATASET_MAX_FEATURES. */
dpbo_status dpbo_dataset_read(const char *path, dpbo_data_format format, dpbo_dataset **out,
                              dpbo_error *err);
/* The same with another limit on the LIBSVM feature indices (>= 1); the
 * message of a file past it states the limit and names the `max_features`
 * setting. */
dpbo_status dpbo_dataset_read_max(const char *path, dpbo_data_format format, int64_t max_features,
                                  dpbo_dataset **out, dpbo_error *err);
void dpbo_dataset_destroy(dpbo_dataset *data);

/* New dataset holding rows[0..count) of data, in that order. */
dpbo_status dpbo_dataset_subset(const dpbo_dataset *data, const int64_t *rows, int64_t count,
                                dpbo_dataset **out, dpbo_error *err);

/* The checks every objective on a dataset (svm, logreg) makes of its data
 * options: a path NUL-terminated within path_size and not empty, at least
 * one training and one validation row. Messages begin with `what`. */
dpbo_status dpbo_dataset_check_source(const char *what, const char *path, size_t path_size,
                                      int64_t train_rows, int64_t validation_rows, dpbo_error *err);

/* Random train/validation split drawn from PCG (seed, stream 0): a uniformly
 * random permutation; the first n_train rows train, the next n_valid
 * validate. n_train + n_valid <= n. */
dpbo_status dpbo_dataset_split(const dpbo_dataset *data, uint64_t seed, int64_t n_train,
                               int64_t n_valid, dpbo_dataset **train, dpbo_dataset **valid,
                               dpbo_error *err);

/* Min-max scaling to [0,1] with ranges taken from `ref` (the training split)
 * and applied to `data` in place; a constant feature maps to 0 (as svm-scale
 * leaves it out). Values of `data` outside ref's range fall outside [0,1];
 * one so far outside that its scaled value overflows is refused
 * (DPBO_ERR_DATA, naming the `which` split's row and the feature), for
 * every objective that scales. */
typedef struct dpbo_scaling {
  int d;
  double *min, *max;
} dpbo_scaling;
dpbo_status dpbo_scaling_fit(const dpbo_dataset *ref, dpbo_scaling *scaling, dpbo_error *err);
dpbo_status dpbo_scaling_apply(const dpbo_scaling *scaling, dpbo_dataset *data, const char *which,
                               dpbo_error *err);
void dpbo_scaling_free(dpbo_scaling *scaling);

/* Writes LIBSVM sparse format with %.17g values (zeros omitted), for handing
 * the exact same data to LIBSVM's command-line tools. */
dpbo_status dpbo_dataset_write_libsvm(const dpbo_dataset *data, const char *path, dpbo_error *err);

#endif
