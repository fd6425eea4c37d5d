/* The candidate set Λ: a finite set of hyper-parameter vectors.
 *
 * Λ is a grid, a Sobol point set or a list read from a file. Grid and Sobol
 * points are generated from their global index, so a rank only ever builds
 * its own contiguous block (dpbo_space_block) and Λ is never broadcast.
 *
 * Each dimension has bounds and a scale. Kernels see "unit" coordinates in
 * [0,1]^d; objectives see "values" (C, γ, ...):
 *   linear: value = lo + u (hi - lo)
 *   log:    value = exp(log lo + u (log hi - log lo))
 * A list file holds values; they are mapped back to unit coordinates.
 *
 * A dimension's type says what values it takes (docs/config.md, dim.NAME):
 *   real:        the maps above;
 *   integer:     the maps above, rounded to the nearest integer (configs:
 *                `integer` on the linear scale, `log_integer` on the log one);
 *   categorical: K named categories, value = the category's index 0..K-1
 *                (lo = 0, hi = K - 1, linear), unit coordinate index/(K-1).
 * Every point of Λ is "snapped": an integer point's unit coordinate is that
 * of its rounded value, so the kernel sees the integer on its linear or log
 * scale (the rounding-before-the-kernel transform of Garrido-Merchán and
 * Hernández-Lobato, Neurocomputing 380, 2020), and a categorical coordinate
 * is one of the K values index/(K-1), which the kernel compares for equality
 * only (kernel.h). */
#ifndef DPBO_SPACE_H
#define DPBO_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "dpbo/error.h"

#define DPBO_MAX_DIM 32
#define DPBO_NAME_MAX 64

typedef enum { DPBO_SCALE_LINEAR = 0, DPBO_SCALE_LOG = 1 } dpbo_scale;
typedef enum { DPBO_SPACE_GRID = 0, DPBO_SPACE_SOBOL = 1, DPBO_SPACE_LIST = 2 } dpbo_space_kind;
typedef enum { DPBO_DIM_REAL = 0, DPBO_DIM_INTEGER = 1, DPBO_DIM_CATEGORICAL = 2 } dpbo_dim_type;

/* A categorical dimension's names, each at most DPBO_NAME_MAX - 1 characters,
 * stored back to back (each NUL-terminated) in DPBO_CATEGORY_TEXT bytes. */
#define DPBO_CATEGORY_TEXT 512

typedef struct dpbo_dim {
  char name[DPBO_NAME_MAX];
  double lo, hi;
  dpbo_scale scale;
  int64_t levels;                         /* grid only: points along this dimension (>= 1) */
  dpbo_dim_type type;                     /* DPBO_DIM_REAL unless set (a zeroed dim is real) */
  int categories;                         /* categorical: K >= 2, lo = 0, hi = K - 1, levels = K */
  char category_text[DPBO_CATEGORY_TEXT]; /* categorical: the K names, NUL after each */
} dpbo_dim;

typedef struct dpbo_space dpbo_space;

/* Checks one dimension (lo < hi, finite, lo > 0 for log, levels >= 1 on a
 * grid; an integer dimension's bounds are integers (lo >= 1 on the log
 * scale) and its grid levels round to distinct integers; a categorical
 * dimension has K >= 2 distinct, non-empty names); the message names the
 * dimension. */
dpbo_status dpbo_dim_validate(const dpbo_dim *dim, dpbo_space_kind kind, dpbo_error *err);

/* Full tensor grid: N = Π levels_i; a dimension with one level sits at u=0.5.
 * Index order: the last dimension varies fastest. */
dpbo_status dpbo_space_create_grid(int d, const dpbo_dim *dims, dpbo_space **out, dpbo_error *err);

/* The first n points of the unscrambled Sobol sequence (Joe-Kuo direction
 * numbers, Gray-code order as scipy.stats.qmc.Sobol(scramble=False)), starting
 * at the origin. */
dpbo_status dpbo_space_create_sobol(int d, const dpbo_dim *dims, int64_t n, dpbo_space **out,
                                    dpbo_error *err);

/* Points listed in a text file, one per line, d comma- or blank-separated
 * values in the order of dims; '#' starts a comment. Values outside the
 * bounds are an error naming the line. */
dpbo_status dpbo_space_create_list(int d, const dpbo_dim *dims, const char *path, dpbo_space **out,
                                   dpbo_error *err);

void dpbo_space_destroy(dpbo_space *space);

int64_t dpbo_space_size(const dpbo_space *space);
int dpbo_space_dims(const dpbo_space *space);
dpbo_space_kind dpbo_space_get_kind(const dpbo_space *space);
const dpbo_dim *dpbo_space_dim(const dpbo_space *space, int i);
/* The names configs write ("grid", "sobol", "list"; "linear", "log"),
 * indexed by the enum and NULL-terminated: the one table of each. */
extern const char *const dpbo_space_kind_names[];
extern const char *const dpbo_scale_names[];
const char *dpbo_space_kind_name(dpbo_space_kind kind);
const char *dpbo_scale_name(dpbo_scale scale);

/* The config keyword of a dimension: "linear", "log", "integer",
 * "log_integer" or "categorical". */
const char *dpbo_dim_kind_name(const dpbo_dim *dim);

/* Category k (0 <= k < K) of a categorical dimension, or NULL. */
const char *dpbo_dim_category(const dpbo_dim *dim, int k);

/* Appends a category name to a categorical dimension (sets type, K, lo, hi
 * and levels); refuses an empty, over-long or repeated name, naming it. */
dpbo_status dpbo_dim_add_category(dpbo_dim *dim, const char *category, dpbo_error *err);

/* λ_i as an objective receives it and reports print it: an integer
 * dimension's value as an integer, a categorical one's as its category
 * name, a real one with `digits` significant digits (17 reads back to the
 * same double). Returns 1 when the text is a category name, else 0. */
int dpbo_dim_format(const dpbo_dim *dim, double value, int digits, char *buf, size_t cap);

/* Unit-cube coordinates of point `index` (0 <= index < N) into u[d]. */
dpbo_status dpbo_space_unit(const dpbo_space *space, int64_t index, double *u, dpbo_error *err);

/* Maps unit coordinates to hyper-parameter values and back. */
void dpbo_space_to_values(const dpbo_space *space, const double *u, double *values);
void dpbo_space_to_unit(const dpbo_space *space, const double *values, double *u);

/* Contiguous block of [0, n) owned by `rank` of `nranks`: the first n % nranks
 * ranks get one extra point. */
void dpbo_space_block(int64_t n, int nranks, int rank, int64_t *begin, int64_t *count);

/* The candidates [begin, begin + count) of a space: the block of Λ one
 * rank searches (dpbo_space_block), for the UCB state and γ_T. */
typedef struct dpbo_space_range {
  const dpbo_space *space;
  int64_t begin, count;
} dpbo_space_range;

/* Raw unscrambled Sobol point `index` in dimension count d (d <= DPBO_SOBOL_MAX_DIM),
 * exposed for tests and for the k1 experiment's settings. */
#define DPBO_SOBOL_MAX_DIM 64
dpbo_status dpbo_sobol_point(int d, uint64_t index, double *u, dpbo_error *err);

#endif
