/* The candidate set Λ (docs/design.md section 1): grid, Sobol points or a list.
 *
 * Grid and Sobol points are computed from their global index alone, so a rank
 * builds only its own block and Λ is never broadcast (docs/design.md section 4).
 * Only a list holds its points in memory, as unit coordinates. */
#define _POSIX_C_SOURCE 200809L /* getline */

#include "dpbo/space.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/input.h"

/* sobol_v[DPBO_SOBOL_MAX_DIM][SOBOL_BITS], generated from the Joe-Kuo numbers
 * by tools/gen_sobol_directions.py. */
#include "core/sobol_directions.inc"

_Static_assert(SOBOL_TABLE_DIM == DPBO_SOBOL_MAX_DIM,
               "src/sobol_directions.inc must cover DPBO_SOBOL_MAX_DIM dimensions");
_Static_assert(DPBO_MAX_DIM <= DPBO_SOBOL_MAX_DIM,
               "every space dimension count must have Sobol direction numbers");

/* scipy.stats.qmc.Sobol's default: 2^30 points at most. */
#define SOBOL_MAX_POINTS ((int64_t)1 << SOBOL_BITS)

/* Largest grid accepted: half of INT64_MAX leaves room for index arithmetic
 * such as begin + count in callers without overflow. */
#define GRID_MAX_POINTS (INT64_MAX / 2)

struct dpbo_space {
  dpbo_space_kind kind;
  int d;
  int64_t n;
  dpbo_dim dims[DPBO_MAX_DIM];
  int64_t stride[DPBO_MAX_DIM]; /* grid: index distance between neighbouring levels */
  double *unit;                 /* list: n x d unit coordinates, row-major */
};

/* How messages name a dimension: its name, which config files and list files use. */
static const char *space_dim_name(const dpbo_dim *dim) {
  return dim->name[0] ? dim->name : "(unnamed)";
}

/* The value of unit coordinate u on a dimension's linear or log map, before
 * any rounding; the bounds come out exactly. */
static double space_map(const dpbo_dim *dim, double u) {
  if (u == 0.0) return dim->lo;
  if (u == 1.0) return dim->hi;
  double v;
  if (dim->scale == DPBO_SCALE_LOG) {
    double llo = log(dim->lo);
    v = exp(llo + u * (log(dim->hi) - llo));
  } else {
    v = dim->lo + u * (dim->hi - dim->lo);
  }
  return u >= 0.0 && u <= 1.0 ? fmin(fmax(v, dim->lo), dim->hi) : v;
}

static double space_unmap(const dpbo_dim *dim, double v) {
  if (dim->scale == DPBO_SCALE_LOG) {
    double llo = log(dim->lo);
    return (log(v) - llo) / (log(dim->hi) - llo);
  }
  return (v - dim->lo) / (dim->hi - dim->lo);
}

/* Grid level l of `levels` as a unit coordinate (one level sits at 0.5). */
static double space_level_unit(int64_t level, int64_t levels) {
  return levels == 1 ? 0.5 : (double)level / (double)(levels - 1);
}

/* The largest integer bound accepted: every integer up to 2^53 is a double. */
#define SPACE_INTEGER_MAX 9007199254740992.0

/* An integer dimension: integer bounds (lo >= 1 on the log scale, checked
 * with lo > 0 above) and, on a grid, levels that round to distinct integers,
 * so that no two grid points are the same hyper-parameter. */
static dpbo_status space_integer_validate(const dpbo_dim *dim, dpbo_space_kind kind,
                                          dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *name = space_dim_name(dim);
  if (dim->lo != floor(dim->lo) || dim->hi != floor(dim->hi) || fabs(dim->lo) > SPACE_INTEGER_MAX ||
      fabs(dim->hi) > SPACE_INTEGER_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': an integer range needs integer bounds (at most 2^53 in size), "
               "got [%.17g, %.17g]",
               name, dim->lo, dim->hi);
  if (kind != DPBO_SPACE_GRID) goto done;
  const double count = dim->hi - dim->lo + 1.0;
  if ((double)dim->levels > count)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': %lld points requested, but [%.17g, %.17g] holds only %.17g "
               "integers",
               name, (long long)dim->levels, dim->lo, dim->hi, count);
  /* On the linear scale neighbouring levels are at least 1 apart, so their
   * roundings differ; log-spaced levels crowd at the low end: check them. */
  if (dim->scale == DPBO_SCALE_LOG && dim->levels > 1) {
    double previous = -1.0;
    for (int64_t l = 0; l < dim->levels; l++) {
      double v = round(space_map(dim, space_level_unit(l, dim->levels)));
      if (v == previous)
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "dimension '%s': %lld log-spaced points in [%.17g, %.17g] do not round to "
                   "distinct integers (points %lld and %lld are both %.17g); ask for fewer points "
                   "or use 'integer' (every integer of a linear range)",
                   name, (long long)dim->levels, dim->lo, dim->hi, (long long)l, (long long)l + 1,
                   v);
      previous = v;
    }
  }
done:
  return status;
}

/* A categorical dimension: K >= 2 names (the text holds exactly K, each
 * non-empty and distinct), lo = 0, hi = K - 1, linear, and on a grid one
 * level per category. */
static dpbo_status space_categorical_validate(const dpbo_dim *dim, dpbo_space_kind kind,
                                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *name = space_dim_name(dim);
  if (dim->categories < 2)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': a categorical dimension needs at least 2 categories, got %d "
               "(a single value is a constant: pass it to the objective directly)",
               name, dim->categories);
  for (int k = 0; k < dim->categories; k++) {
    const char *a = dpbo_dim_category(dim, k);
    if (!a || !*a) DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': category %d is empty", name, k + 1);
    for (int j = 0; j < k; j++)
      if (strcmp(a, dpbo_dim_category(dim, j)) == 0)
        DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': category '%s' is listed twice", name, a);
  }
  if (dim->lo != 0.0 || dim->hi != (double)(dim->categories - 1) || dim->scale != DPBO_SCALE_LINEAR)
    DPBO_RAISE(DPBO_ERR_ARG, "dimension '%s': a categorical dimension has lo = 0, hi = K - 1",
               name);
  if (kind == DPBO_SPACE_GRID && dim->levels != dim->categories)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': a categorical dimension takes one grid level per category (%d), "
               "got %lld levels",
               name, dim->categories, (long long)dim->levels);
done:
  return status;
}

const char *dpbo_dim_category(const dpbo_dim *dim, int k) {
  if (!dim || dim->type != DPBO_DIM_CATEGORICAL || k < 0 || k >= dim->categories) return NULL;
  const char *p = dim->category_text, *end = dim->category_text + sizeof dim->category_text;
  for (int j = 0; j < k && p < end; j++)
    p += strnlen(p, (size_t)(end - p)) + 1;
  return p < end ? p : NULL;
}

dpbo_status dpbo_dim_add_category(dpbo_dim *dim, const char *category, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *name = space_dim_name(dim);
  size_t len = strlen(category), used = 0;
  if (len == 0) DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': empty category name", name);
  if (len >= DPBO_NAME_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': category '%.20s...' is longer than %d characters",
               name, category, DPBO_NAME_MAX - 1);
  if (dim->type != DPBO_DIM_CATEGORICAL) {
    dim->type = DPBO_DIM_CATEGORICAL;
    dim->categories = 0;
    memset(dim->category_text, 0, sizeof dim->category_text);
  }
  for (int k = 0; k < dim->categories; k++) {
    const char *c = dpbo_dim_category(dim, k);
    if (strcmp(c, category) == 0)
      DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': category '%s' is listed twice", name, category);
    used += strlen(c) + 1;
  }
  if (used + len + 1 > sizeof dim->category_text)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': the category names take more than %d characters in all", name,
               DPBO_CATEGORY_TEXT - 1);
  memcpy(dim->category_text + used, category, len + 1);
  dim->categories++;
  dim->scale = DPBO_SCALE_LINEAR;
  dim->lo = 0.0;
  dim->hi = (double)(dim->categories - 1);
  dim->levels = dim->categories;
done:
  return status;
}

const char *dpbo_dim_kind_name(const dpbo_dim *dim) {
  if (dim->type == DPBO_DIM_CATEGORICAL) return "categorical";
  if (dim->type == DPBO_DIM_INTEGER)
    return dim->scale == DPBO_SCALE_LOG ? "log_integer" : "integer";
  return dpbo_scale_name(dim->scale);
}

int dpbo_dim_format(const dpbo_dim *dim, double value, int digits, char *buf, size_t cap) {
  if (dim && dim->type == DPBO_DIM_CATEGORICAL && value >= 0.0 && value < (double)dim->categories &&
      value == floor(value)) {
    snprintf(buf, cap, "%s", dpbo_dim_category(dim, (int)value));
    return 1;
  }
  if (dim && dim->type == DPBO_DIM_INTEGER && value == floor(value) &&
      fabs(value) <= SPACE_INTEGER_MAX)
    snprintf(buf, cap, "%lld", (long long)value);
  else
    snprintf(buf, cap, "%.*g", digits, value);
  return 0;
}

/* Moves a point's coordinate on an integer or categorical dimension to the
 * point of Λ it stands for (space.h): the unit coordinate of the rounded
 * integer, or of the category index/(K-1). Sobol coordinates in [0,1) pick
 * category floor(u K), every category with the same share. */
static double space_snap(const dpbo_dim *dim, double u, int from_grid) {
  if (dim->type == DPBO_DIM_CATEGORICAL) {
    const int K = dim->categories;
    double k = from_grid ? round(u * (K - 1)) : fmin(floor(u * K), (double)(K - 1));
    return k / (double)(K - 1);
  }
  if (dim->type == DPBO_DIM_INTEGER) {
    double v = round(space_map(dim, u));
    return fmin(fmax(space_unmap(dim, v), 0.0), 1.0);
  }
  return u;
}

dpbo_status dpbo_dim_validate(const dpbo_dim *dim, dpbo_space_kind kind, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!dim) DPBO_RAISE(DPBO_ERR_ARG, "no dimension given (NULL)");
  if (!memchr(dim->name, '\0', sizeof dim->name))
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension name '%.*s...' is longer than %d characters", 16,
               dim->name, DPBO_NAME_MAX - 1);
  const char *name = space_dim_name(dim);
  if (kind != DPBO_SPACE_GRID && kind != DPBO_SPACE_SOBOL && kind != DPBO_SPACE_LIST)
    DPBO_RAISE(DPBO_ERR_ARG, "dimension '%s': unknown space kind %d", name, (int)kind);
  /* A categorical dimension's bounds and levels follow from its names. */
  if (dim->type == DPBO_DIM_CATEGORICAL) {
    DPBO_TRY(space_categorical_validate(dim, kind, err));
    goto done;
  }
  if (!isfinite(dim->lo) || !isfinite(dim->hi))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': bounds must be finite numbers, got lo = %g, hi = %g", name, dim->lo,
               dim->hi);
  if (!(dim->lo < dim->hi))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension '%s': reversed bounds, lo = %.17g must be below hi = %.17g", name,
               dim->lo, dim->hi);
  if (dim->scale != DPBO_SCALE_LINEAR && dim->scale != DPBO_SCALE_LOG)
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': unknown scale %d (expected linear or log)", name,
               (int)dim->scale);
  if (dim->scale == DPBO_SCALE_LOG && !(dim->lo > 0.0))
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': log scale needs lo > 0, got lo = %g", name,
               dim->lo);
  /* hi - lo is the linear map's slope; if it overflows every value is inf. */
  if (dim->scale == DPBO_SCALE_LINEAR && !isfinite(dim->hi - dim->lo))
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': range [%g, %g] is too wide for doubles", name,
               dim->lo, dim->hi);
  if (kind == DPBO_SPACE_GRID && dim->levels < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': a grid needs at least 1 level, got %lld", name,
               (long long)dim->levels);
  if (dim->type == DPBO_DIM_INTEGER)
    DPBO_TRY(space_integer_validate(dim, kind, err));
  else if (dim->type != DPBO_DIM_REAL)
    DPBO_RAISE(DPBO_ERR_CONFIG, "dimension '%s': unknown type %d", name, (int)dim->type);
done:
  return status;
}

/* The end of every constructor: *out = space on success; on failure the
 * space is destroyed and *out = NULL. */
static dpbo_status space_finish(dpbo_status status, dpbo_space *space, dpbo_space **out) {
  if (status != DPBO_OK) {
    dpbo_space_destroy(space);
    space = NULL;
  }
  *out = space;
  return status;
}

/* Checks d and every dimension, and allocates a space holding copies of them. */
static dpbo_status space_new(int d, const dpbo_dim *dims, dpbo_space_kind kind, dpbo_space **out,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  *out = NULL;
  if (d < 1 || d > DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_CONFIG, "a %s space needs 1 to %d dimensions, got %d",
               dpbo_space_kind_name(kind), DPBO_MAX_DIM, d);
  if (!dims) DPBO_RAISE(DPBO_ERR_ARG, "no dimensions given (NULL)");
  for (int i = 0; i < d; i++) {
    status = dpbo_dim_validate(&dims[i], kind, err);
    if (status != DPBO_OK) {
      /* An unnamed dimension is only identifiable by its position. */
      if (!dims[i].name[0]) dpbo_error_prefix(err, "dimension %d of %d", i + 1, d);
      goto done;
    }
  }
  DPBO_ALLOC(space, 1, "the candidate space");
  space->kind = kind;
  space->d = d;
  memcpy(space->dims, dims, (size_t)d * sizeof *dims);
done:
  if (status == DPBO_OK)
    *out = space;
  else
    free(space);
  return status;
}

dpbo_status dpbo_space_create_grid(int d, const dpbo_dim *dims, dpbo_space **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  DPBO_TRY(space_new(d, dims, DPBO_SPACE_GRID, &space, err));
  /* Last dimension fastest: stride[i] = levels[i+1] * ... * levels[d-1]. Checking
   * before each product keeps every intermediate value representable. */
  int64_t n = 1;
  for (int i = d - 1; i >= 0; i--) {
    space->stride[i] = n;
    if (n > GRID_MAX_POINTS / dims[i].levels)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "the grid is too large: the product of the levels exceeds %lld points "
                 "(reached at dimension '%s' with %lld levels)",
                 (long long)GRID_MAX_POINTS, space_dim_name(&dims[i]), (long long)dims[i].levels);
    n *= dims[i].levels;
  }
  space->n = n;
done:
  return space_finish(status, space, out);
}

dpbo_status dpbo_space_create_sobol(int d, const dpbo_dim *dims, int64_t n, dpbo_space **out,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  DPBO_TRY(space_new(d, dims, DPBO_SPACE_SOBOL, &space, err));
  if (n < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG, "the candidate space is empty (a Sobol space of %lld points)",
               (long long)n);
  if (n > SOBOL_MAX_POINTS)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "a Sobol space holds at most 2^%d = %lld points (%d-bit direction numbers), "
               "asked for %lld",
               SOBOL_BITS, (long long)SOBOL_MAX_POINTS, SOBOL_BITS, (long long)n);
  space->n = n;
done:
  return space_finish(status, space, out);
}

/* Parses one line of a list file (comment already cut off) into
 * row[0..d-1], one value per dimension of `space` (whose dims a value is
 * read by: a category by its name, an integer checked), and counts its
 * values in *found, all of them, so that a line with too many values can
 * say how many it has. Values are separated by commas and/or blanks; an
 * empty field between commas is an error, not a silent skip. */
static dpbo_status space_list_parse_line(const dpbo_space *space, const char *path, long lineno,
                                         char *text, double *row, int *found, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int d = space->d;
  const dpbo_dim *dims = space->dims;
  int count = 0;
  char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  while (*p) {
    if (*p == ',')
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%ld: empty value (a comma not preceded by a number)", path,
                 lineno);
    char *end = p;
    while (*end && *end != ',' && !isspace((unsigned char)*end))
      end++;
    char saved = *end;
    *end = '\0';
    char *stop = NULL;
    double v = strtod(p, &stop);
    if (count < d && dims[count].type == DPBO_DIM_CATEGORICAL) { /* a category by its name */
      int k = 0;
      while (k < dims[count].categories && strcmp(p, dpbo_dim_category(&dims[count], k)) != 0)
        k++;
      if (k == dims[count].categories)
        DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%ld: value %d '%s' is not a category of dimension '%s'",
                   path, lineno, count + 1, p, space_dim_name(&dims[count]));
      v = (double)k;
      stop = p + strlen(p);
    }
    if (count < d && dims[count].type == DPBO_DIM_INTEGER && stop != p && *stop == '\0' &&
        v != floor(v))
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s:%ld: value %d '%s' of integer dimension '%s' is not an integer", path, lineno,
                 count + 1, p, space_dim_name(&dims[count]));
    if (stop == p || *stop != '\0')
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%ld: value %d '%s' is not a number", path, lineno, count + 1,
                 p);
    if (!isfinite(v))
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%ld: value %d '%s' is not a finite number", path, lineno,
                 count + 1, p);
    *end = saved;
    if (count < d) row[count] = v;
    count++;
    p = end;
    while (isspace((unsigned char)*p))
      p++;
    if (*p == ',') {
      p++;
      while (isspace((unsigned char)*p))
        p++;
      if (!*p)
        DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%ld: trailing comma after value %d", path, lineno, count);
    }
  }
  *found = count;
done:
  return status;
}

dpbo_status dpbo_space_create_list(int d, const dpbo_dim *dims, const char *path, dpbo_space **out,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  FILE *file = NULL;
  char *line = NULL;
  size_t line_cap = 0;
  int64_t capacity = 0;
  long lineno = 0;
  double row[DPBO_MAX_DIM];
  DPBO_TRY(space_new(d, dims, DPBO_SPACE_LIST, &space, err));
  if (!path) DPBO_RAISE(DPBO_ERR_ARG, "no candidate list file given (NULL path)");
  {
    int fd = -1;
    DPBO_TRY(dpbo_input_open(path, "candidate list", &fd, err));
    file = fdopen(fd, "r");
    if (!file) {
      close(fd);
      DPBO_RAISE(DPBO_ERR_IO, "cannot read candidate list %s: %s", path, strerror(errno));
    }
  }

  for (;;) {
    errno = 0; /* so that a read error below reports getline's errno, not strtod's */
    ssize_t got = getline(&line, &line_cap, file);
    if (got == -1) break;
    lineno++;
    if (lineno == 1) { /* a UTF-8 byte order mark is no part of the first value */
      size_t bom = dpbo_input_bom(line, (size_t)got);
      memmove(line, line + bom, (size_t)got - bom + 1);
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int found = 0;
    DPBO_TRY(space_list_parse_line(space, path, lineno, line, row, &found, err));
    if (found == 0) continue; /* blank or comment-only line */
    if (found != d)
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%ld: expected %d values (one per dimension), found %d", path,
                 lineno, d, found);
    for (int i = 0; i < d; i++) {
      if (row[i] < dims[i].lo || row[i] > dims[i].hi)
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "%s:%ld: value %d (dimension '%s') = %.17g is outside the bounds [%.17g, %.17g]",
                   path, lineno, i + 1, space_dim_name(&dims[i]), row[i], dims[i].lo, dims[i].hi);
    }
    if (space->n == capacity) {
      int64_t grown = capacity ? 2 * capacity : 64;
      if ((uint64_t)grown > SIZE_MAX / sizeof(double) / (size_t)d)
        DPBO_RAISE(DPBO_ERR_NOMEM, "%s:%ld: too many candidate points for memory", path, lineno);
      double *bigger = realloc(space->unit, (size_t)grown * (size_t)d * sizeof(double));
      if (!bigger)
        DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory storing %lld candidate points from %s",
                   (long long)grown, path);
      space->unit = bigger;
      capacity = grown;
    }
    double *u = space->unit + space->n * d;
    dpbo_space_to_unit(space, row, u); /* integers and category indices: already snapped */
    /* In-bounds values map into [0,1] up to rounding of log(); kernels and the
     * grid/Sobol kinds rely on that range, so remove the rounding. */
    for (int i = 0; i < d; i++)
      u[i] = fmin(fmax(u[i], 0.0), 1.0);
    space->n++;
  }
  if (ferror(file))
    DPBO_RAISE(DPBO_ERR_IO, "%s: read error after line %ld: %s", path, lineno,
               errno ? strerror(errno) : "unknown error");
  if (space->n == 0)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: the candidate space is empty (no points in the file)", path);
done:
  free(line);
  if (file) fclose(file);
  return space_finish(status, space, out);
}

void dpbo_space_destroy(dpbo_space *space) {
  if (!space) return;
  free(space->unit);
  free(space);
}

int64_t dpbo_space_size(const dpbo_space *space) { return space ? space->n : 0; }

int dpbo_space_dims(const dpbo_space *space) { return space ? space->d : 0; }

dpbo_space_kind dpbo_space_get_kind(const dpbo_space *space) { return space->kind; }

const dpbo_dim *dpbo_space_dim(const dpbo_space *space, int i) {
  if (!space || i < 0 || i >= space->d) return NULL;
  return &space->dims[i];
}

const char *const dpbo_space_kind_names[] = {"grid", "sobol", "list", NULL};
const char *const dpbo_scale_names[] = {"linear", "log", NULL};

const char *dpbo_space_kind_name(dpbo_space_kind kind) {
  const size_t count = sizeof dpbo_space_kind_names / sizeof *dpbo_space_kind_names - 1;
  return (size_t)kind < count ? dpbo_space_kind_names[kind] : "unknown";
}

const char *dpbo_scale_name(dpbo_scale scale) {
  return dpbo_scale_names[scale == DPBO_SCALE_LOG ? DPBO_SCALE_LOG : DPBO_SCALE_LINEAR];
}

dpbo_status dpbo_sobol_point(int d, uint64_t index, double *u, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (d < 1 || d > DPBO_SOBOL_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_ARG, "Sobol points have 1 to %d dimensions, got %d", DPBO_SOBOL_MAX_DIM, d);
  if (index >= (uint64_t)SOBOL_MAX_POINTS)
    DPBO_RAISE(DPBO_ERR_ARG,
               "Sobol index %llu is beyond the last of the 2^%d points that %d-bit direction "
               "numbers give",
               (unsigned long long)index, SOBOL_BITS, SOBOL_BITS);
  /* scipy's Gray-code recursion reaches point i by XOR-ing, per step j, the
   * direction number of the lowest zero bit of j - 1; the steps add up to the
   * direction numbers of the set bits of gray(i) = i ^ (i >> 1). Computing
   * that directly needs no previous point, so any rank can start anywhere. */
  uint64_t gray = index ^ (index >> 1);
  for (int j = 0; j < d; j++) {
    uint32_t x = 0;
    for (int k = 0; k < SOBOL_BITS; k++)
      if ((gray >> k) & 1u) x ^= sobol_v[j][k];
    /* x < 2^30 and the scale is a power of two: exact, as in scipy. */
    u[j] = (double)x * (1.0 / (double)SOBOL_MAX_POINTS);
  }
done:
  return status;
}

dpbo_status dpbo_space_unit(const dpbo_space *space, int64_t index, double *u, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!space) DPBO_RAISE(DPBO_ERR_ARG, "no candidate space given (NULL)");
  if (index < 0 || index >= space->n)
    DPBO_RAISE(DPBO_ERR_ARG, "candidate index %lld outside the %s space of %lld points",
               (long long)index, dpbo_space_kind_name(space->kind), (long long)space->n);
  switch (space->kind) {
  case DPBO_SPACE_GRID: {
    int64_t rest = index;
    for (int i = 0; i < space->d; i++) {
      int64_t level = rest / space->stride[i];
      rest %= space->stride[i];
      u[i] = space_snap(&space->dims[i], space_level_unit(level, space->dims[i].levels), 1);
    }
    break;
  }
  case DPBO_SPACE_SOBOL:
    DPBO_TRY(dpbo_sobol_point(space->d, (uint64_t)index, u, err));
    for (int i = 0; i < space->d; i++)
      u[i] = space_snap(&space->dims[i], u[i], 0);
    break;
  case DPBO_SPACE_LIST:
    memcpy(u, space->unit + index * space->d, (size_t)space->d * sizeof *u);
    break;
  }
done:
  return status;
}

void dpbo_space_to_values(const dpbo_space *space, const double *u, double *values) {
  for (int i = 0; i < space->d; i++) {
    const dpbo_dim *dim = &space->dims[i];
    /* The bounds themselves come out exactly (C = 1000, not 999.9999999999998),
     * and points of the unit cube stay inside the bounds despite exp() rounding.
     * Integer and categorical points are snapped (space.h): rounding only
     * removes exp()'s last bits. */
    double v = space_map(dim, u[i]);
    if (dim->type != DPBO_DIM_REAL) v = round(v);
    values[i] = v;
  }
}

void dpbo_space_to_unit(const dpbo_space *space, const double *values, double *u) {
  for (int i = 0; i < space->d; i++)
    u[i] = space_unmap(&space->dims[i], values[i]);
}

void dpbo_space_block(int64_t n, int nranks, int rank, int64_t *begin, int64_t *count) {
  if (n <= 0 || nranks < 1 || rank < 0 || rank >= nranks) {
    *begin = 0;
    *count = 0;
    return;
  }
  int64_t base = n / nranks, extra = n % nranks;
  *begin = (int64_t)rank * base + (rank < extra ? rank : extra);
  *count = base + (rank < extra ? 1 : 0);
}
