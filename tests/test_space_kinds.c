/* Integer, log-integer and categorical dimensions (issue #23 item 4):
 *  - a grid's integer dimension takes every integer of its range (or LEVELS
 *    of them, distinct), log_integer rounds log-spaced points, a categorical
 *    one takes its K indices at unit coordinates k/(K-1);
 *  - Sobol points are snapped: every value is an integer or a category, and
 *    its unit coordinate is the one the value maps back to;
 *  - a list file names categories and refuses a non-integer integer value;
 *  - bad dimensions are refused with the dimension named (reversed integer
 *    range, more points than integers, log-spaced points that collide, one
 *    category, a repeated or empty category);
 *  - dpbo_dim_format prints integers and category names;
 *  - the kernel on a mixed point equals an SE/Matérn kernel computed here
 *    independently on the one-hot encoding scaled by 1/sqrt(2), and the
 *    block path gives the scalar path's bits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dpbo/kernel.h"
#include "dpbo/space.h"

static dpbo_dim real_dim(const char *name, double lo, double hi, dpbo_scale scale, int64_t levels) {
  dpbo_dim d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "%s", name);
  d.lo = lo;
  d.hi = hi;
  d.scale = scale;
  d.levels = levels;
  return d;
}

static dpbo_dim integer_dim(const char *name, double lo, double hi, dpbo_scale scale,
                            int64_t levels) {
  dpbo_dim d = real_dim(name, lo, hi, scale, levels);
  d.type = DPBO_DIM_INTEGER;
  return d;
}

static dpbo_dim categorical_dim(const char *name, const char *const *cats, int k, dpbo_error *err) {
  dpbo_dim d = real_dim(name, 0, 1, DPBO_SCALE_LINEAR, 1);
  for (int i = 0; i < k; i++)
    if (dpbo_dim_add_category(&d, cats[i], err) != DPBO_OK) break;
  return d;
}

/* The dimension's validation fails with a message containing `want`. */
static void expect_refused(const dpbo_dim *dim, dpbo_space_kind kind, const char *want) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_status st = dpbo_dim_validate(dim, kind, &err);
  CHECK_MSG(st == DPBO_ERR_CONFIG && strstr(err.message, want) &&
                strstr(err.message, dim->name[0] ? dim->name : "(unnamed)"),
            "dimension %s: status %s, message '%s' (want '%s')", dim->name, dpbo_status_name(st),
            err.message, want);
}

int main(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  static const char *const cats[] = {"gini", "entropy", "log_loss"};

  /* --- grid: every integer, LEVELS integers, log-spaced integers, categories */
  dpbo_dim dims[4];
  dims[0] = integer_dim("n", 1, 5, DPBO_SCALE_LINEAR, 5);
  dims[1] = integer_dim("m", 10, 200, DPBO_SCALE_LINEAR, 4);
  dims[2] = integer_dim("depth", 1, 1000, DPBO_SCALE_LOG, 4);
  dims[3] = categorical_dim("criterion", cats, 3, &err);
  CHECK(dims[3].type == DPBO_DIM_CATEGORICAL && dims[3].categories == 3);
  dpbo_space *grid = NULL;
  CHECK_OK(dpbo_space_create_grid(4, dims, &grid, &err));
  CHECK(dpbo_space_size(grid) == 5 * 4 * 4 * 3);
  double u[4], v[4];
  /* The last dimension fastest: the first 3 points walk the categories. */
  for (int k = 0; k < 3; k++) {
    CHECK_OK(dpbo_space_unit(grid, k, u, &err));
    dpbo_space_to_values(grid, u, v);
    CHECK_MSG(v[3] == k && u[3] == k / 2.0, "category %d: value %g, unit %g", k, v[3], u[3]);
  }
  const double want_m[4] = {10, 73, 137, 200}, want_depth[4] = {1, 10, 100, 1000};
  for (int64_t i = 0; i < dpbo_space_size(grid); i++) {
    CHECK_OK(dpbo_space_unit(grid, i, u, &err));
    dpbo_space_to_values(grid, u, v);
    int64_t rest = i;
    int c = (int)(rest % 3), l2 = (int)(rest / 3 % 4), l1 = (int)(rest / 12 % 4),
        l0 = (int)(rest / 48);
    CHECK_MSG(v[0] == l0 + 1 && v[1] == want_m[l1] && v[2] == want_depth[l2] && v[3] == c,
              "point %lld: (%.17g, %.17g, %.17g, %.17g)", (long long)i, v[0], v[1], v[2], v[3]);
    /* Snapped: the unit coordinates are those of the values. */
    double back[4];
    dpbo_space_to_unit(grid, v, back);
    for (int j = 0; j < 3; j++)
      CHECK_CLOSE(back[j], u[j], 1e-15, 1e-15);
  }
  dpbo_space_destroy(grid);

  /* --- Sobol: values are integers and categories, each category drawn */
  dpbo_dim sdims[2] = {integer_dim("n_estimators", 10, 200, DPBO_SCALE_LINEAR, 1),
                       categorical_dim("criterion", cats, 3, &err)};
  dpbo_space *sobol = NULL;
  CHECK_OK(dpbo_space_create_sobol(2, sdims, 256, &sobol, &err));
  int seen[3] = {0, 0, 0};
  for (int64_t i = 0; i < 256; i++) {
    CHECK_OK(dpbo_space_unit(sobol, i, u, &err));
    dpbo_space_to_values(sobol, u, v);
    CHECK_MSG(v[0] == floor(v[0]) && v[0] >= 10 && v[0] <= 200, "point %lld: n = %.17g",
              (long long)i, v[0]);
    CHECK_MSG(v[1] == 0 || v[1] == 1 || v[1] == 2, "point %lld: criterion = %.17g", (long long)i,
              v[1]);
    if (v[1] >= 0 && v[1] <= 2) seen[(int)v[1]]++;
  }
  /* floor(u K) on 256 Sobol points (a (0,m,2)-net): 85 or 86 each. */
  for (int k = 0; k < 3; k++)
    CHECK_MSG(seen[k] >= 85 && seen[k] <= 86, "category %d drawn %d times of 256", k, seen[k]);
  dpbo_space_destroy(sobol);

  /* --- list file: categories by name, integers checked */
  const char *path = "test_space_kinds_list.txt";
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("# n_estimators criterion\n20 entropy\n200, gini\n", f);
    fclose(f);
  }
  dpbo_space *list = NULL;
  CHECK_OK(dpbo_space_create_list(2, sdims, path, &list, &err));
  CHECK(dpbo_space_size(list) == 2);
  if (list) {
    CHECK_OK(dpbo_space_unit(list, 0, u, &err));
    dpbo_space_to_values(list, u, v);
    CHECK_MSG(v[0] == 20 && v[1] == 1, "list row 1: %.17g %.17g", v[0], v[1]);
  }
  dpbo_space_destroy(list);
  f = fopen(path, "w");
  if (f) {
    fputs("20.5 entropy\n", f);
    fclose(f);
  }
  dpbo_error_clear(&err);
  CHECK(dpbo_space_create_list(2, sdims, path, &list, &err) == DPBO_ERR_CONFIG &&
        strstr(err.message, "not an integer") && strstr(err.message, "n_estimators"));
  f = fopen(path, "w");
  if (f) {
    fputs("20 twoing\n", f);
    fclose(f);
  }
  dpbo_error_clear(&err);
  CHECK(dpbo_space_create_list(2, sdims, path, &list, &err) == DPBO_ERR_CONFIG &&
        strstr(err.message, "'twoing' is not a category of dimension 'criterion'"));
  printf("list refusal: %s\n", err.message);
  remove(path);

  /* --- refusals, each naming the dimension */
  dpbo_dim bad = integer_dim("trees", 5, 1, DPBO_SCALE_LINEAR, 5);
  expect_refused(&bad, DPBO_SPACE_GRID, "reversed bounds");
  bad = integer_dim("trees", 1, 5, DPBO_SCALE_LINEAR, 10);
  expect_refused(&bad, DPBO_SPACE_GRID, "10 points requested, but [1, 5] holds only 5 integers");
  bad = integer_dim("trees", 1.5, 5, DPBO_SCALE_LINEAR, 2);
  expect_refused(&bad, DPBO_SPACE_SOBOL, "integer bounds");
  bad = integer_dim("depth", 1, 100, DPBO_SCALE_LOG, 50);
  expect_refused(&bad, DPBO_SPACE_GRID, "do not round to distinct integers");
  bad = integer_dim("depth", 0, 100, DPBO_SCALE_LOG, 5);
  expect_refused(&bad, DPBO_SPACE_GRID, "log scale needs lo > 0");
  bad = categorical_dim("kernel", cats, 1, &err);
  expect_refused(&bad, DPBO_SPACE_GRID, "at least 2 categories");
  bad = categorical_dim("kernel", cats, 2, &err);
  dpbo_error_clear(&err);
  CHECK(dpbo_dim_add_category(&bad, "entropy", &err) == DPBO_ERR_CONFIG &&
        strstr(err.message, "'entropy' is listed twice") && strstr(err.message, "kernel"));
  printf("duplicate refusal: %s\n", err.message);
  dpbo_error_clear(&err);
  CHECK(dpbo_dim_add_category(&bad, "", &err) == DPBO_ERR_CONFIG &&
        strstr(err.message, "empty category"));

  /* --- formatting */
  char text[64];
  dpbo_dim fdims[3] = {integer_dim("n", 1, 1000, DPBO_SCALE_LOG, 1),
                       categorical_dim("criterion", cats, 3, &err),
                       real_dim("C", 0.1, 10, DPBO_SCALE_LOG, 1)};
  CHECK(dpbo_dim_format(&fdims[0], 19.0, 17, text, sizeof text) == 0 && !strcmp(text, "19"));
  CHECK(dpbo_dim_format(&fdims[1], 2.0, 17, text, sizeof text) == 1 && !strcmp(text, "log_loss"));
  CHECK(dpbo_dim_format(&fdims[2], 0.25, 17, text, sizeof text) == 0 && !strcmp(text, "0.25"));
  CHECK(!strcmp(dpbo_dim_kind_name(&fdims[0]), "log_integer"));
  CHECK(!strcmp(dpbo_dim_kind_name(&fdims[1]), "categorical"));

  /* --- the kernel: Hamming factor = SE/Matérn on a scaled one-hot code */
  const double ls[3] = {0.3, 0.7, 0.45};
  dpbo_dim kdims[3] = {real_dim("x", 0, 1, DPBO_SCALE_LINEAR, 1),
                       categorical_dim("criterion", cats, 3, &err),
                       integer_dim("n", 1, 9, DPBO_SCALE_LINEAR, 9)};
  const double pts[4][3] = {{0.1, 0.0, 0.25}, {0.4, 0.5, 0.25}, {0.4, 1.0, 0.875}, {0.9, 0.0, 0.0}};
  for (int kind = 0; kind < 2; kind++) {
    dpbo_kernel kernel;
    CHECK_OK(dpbo_kernel_init(&kernel, (dpbo_kernel_kind)kind, 3, ls, &err));
    dpbo_kernel_use_dims(&kernel, kdims);
    CHECK(kernel.categoricals == 1 && kernel.categorical[1] && !kernel.categorical[0]);
    double r2_block[4];
    for (int a = 0; a < 4; a++) {
      dpbo_kernel_r2_block(&kernel, &pts[0][0], 4, pts[a], r2_block);
      for (int b = 0; b < 4; b++) {
        /* Independent: x and n as numbers, the category one-hot / sqrt(2). */
        int ca = (int)lround(pts[a][1] * 2), cb = (int)lround(pts[b][1] * 2);
        double r2 = 0;
        r2 += pow((pts[a][0] - pts[b][0]) / ls[0], 2);
        for (int k = 0; k < 3; k++) {
          double ea = (k == ca) / sqrt(2.0), eb = (k == cb) / sqrt(2.0);
          r2 += pow((ea - eb) / ls[1], 2);
        }
        r2 += pow((pts[a][2] - pts[b][2]) / ls[2], 2);
        double r = sqrt(r2);
        double want = kind == DPBO_KERNEL_SE
                          ? exp(-0.5 * r2)
                          : (1 + sqrt(5.0) * r + 5.0 * r2 / 3.0) * exp(-sqrt(5.0) * r);
        double got = dpbo_kernel_eval(&kernel, pts[a], pts[b]);
        CHECK_CLOSE(got, want, 1e-14, 1e-300);
        CHECK(got <= 1.0 && (a != b || got == 1.0));
        CHECK_MSG(r2_block[b] == dpbo_kernel_r2(&kernel, &pts[b][0], pts[a]),
                  "block r2 %.17g vs scalar %.17g", r2_block[b],
                  dpbo_kernel_r2(&kernel, &pts[b][0], pts[a]));
      }
    }
    /* Two different categories: as far as the two ends of a numeric axis. */
    const double p0[3] = {0.5, 0.0, 0.5}, p1[3] = {0.5, 1.0, 0.5}, p2[3] = {0.5, 0.5, 0.5};
    CHECK(dpbo_kernel_r2(&kernel, p0, p1) == dpbo_kernel_r2(&kernel, p0, p2));
    CHECK_CLOSE(dpbo_kernel_r2(&kernel, p0, p1), 1.0 / (ls[1] * ls[1]), 1e-15, 0);
  }
  return dpbo_test_summary("test_space_kinds");
}
