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
 * A list file holds values; they are mapped back to unit coordinates. */
#ifndef DPBO_SPACE_H
#define DPBO_SPACE_H

#include <stdint.h>

#include "dpbo/error.h"

#define DPBO_MAX_DIM 32
#define DPBO_NAME_MAX 64

typedef enum { DPBO_SCALE_LINEAR = 0, DPBO_SCALE_LOG = 1 } dpbo_scale;
typedef enum { DPBO_SPACE_GRID = 0, DPBO_SPACE_SOBOL = 1, DPBO_SPACE_LIST = 2 } dpbo_space_kind;

typedef struct dpbo_dim {
  char name[DPBO_NAME_MAX];
  double lo, hi;
  dpbo_scale scale;
  int64_t levels; /* grid only: points along this dimension (>= 1) */
} dpbo_dim;

typedef struct dpbo_space dpbo_space;

/* Checks one dimension (lo < hi, finite, lo > 0 for log, levels >= 1 on a
 * grid); the message names the dimension. */
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

/* Unit-cube coordinates of point `index` (0 <= index < N) into u[d]. */
dpbo_status dpbo_space_unit(const dpbo_space *space, int64_t index, double *u, dpbo_error *err);

/* Maps unit coordinates to hyper-parameter values and back. */
void dpbo_space_to_values(const dpbo_space *space, const double *u, double *values);
void dpbo_space_to_unit(const dpbo_space *space, const double *values, double *u);

/* Contiguous block of [0, n) owned by `rank` of `nranks`: the first n % nranks
 * ranks get one extra point. */
void dpbo_space_block(int64_t n, int nranks, int rank, int64_t *begin, int64_t *count);

/* Raw unscrambled Sobol point `index` in dimension count d (d <= DPBO_SOBOL_MAX_DIM),
 * exposed for tests and for the k1 experiment's settings. */
#define DPBO_SOBOL_MAX_DIM 64
dpbo_status dpbo_sobol_point(int d, uint64_t index, double *u, dpbo_error *err);

#endif
