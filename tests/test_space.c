/* The candidate space: grid indexing against hand-computed points, the block
 * distribution over ranks, Sobol points against scipy's (tests/data), list
 * files and each of their errors, dimension validation, and the unit/value
 * maps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "dpbo/space.h"

static dpbo_dim make_dim(const char *name, double lo, double hi, dpbo_scale scale, int64_t levels) {
  dpbo_dim dim;
  memset(&dim, 0, sizeof dim);
  snprintf(dim.name, sizeof dim.name, "%s", name);
  dim.lo = lo;
  dim.hi = hi;
  dim.scale = scale;
  dim.levels = levels;
  return dim;
}

/* Checks that err holds `code` and a message containing every string of the
 * NULL-terminated list. */
static void check_error(int line, dpbo_status got, const dpbo_error *err, dpbo_status code,
                        const char *const *parts) {
  CHECK_MSG(got == code, "line %d: status %s, expected %s (message: %s)", line,
            dpbo_status_name(got), dpbo_status_name(code), err->message);
  for (int i = 0; parts[i]; i++)
    CHECK_MSG(strstr(err->message, parts[i]) != NULL, "line %d: message '%s' lacks '%s'", line,
              err->message, parts[i]);
}
#define CHECK_ERROR(got, code, ...)                                                                \
  do {                                                                                             \
    const char *const parts__[] = {__VA_ARGS__, NULL};                                             \
    check_error(__LINE__, (got), &err, (code), parts__);                                           \
  } while (0)

static void test_grid(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  /* x: 3 levels on [0,10]; y: one level (sits at u = 0.5) on log [1,100];
   * z: 2 levels on [-1,1]. N = 3 * 1 * 2 = 6, z varies fastest. */
  dpbo_dim dims[3] = {make_dim("x", 0, 10, DPBO_SCALE_LINEAR, 3),
                      make_dim("y", 1, 100, DPBO_SCALE_LOG, 1),
                      make_dim("z", -1, 1, DPBO_SCALE_LINEAR, 2)};
  static const double expected[6][3] = {{0, 0.5, 0},   {0, 0.5, 1}, {0.5, 0.5, 0},
                                        {0.5, 0.5, 1}, {1, 0.5, 0}, {1, 0.5, 1}};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_grid(3, dims, &space, &err));
  if (!space) return;
  CHECK(dpbo_space_size(space) == 6);
  CHECK(dpbo_space_dims(space) == 3);
  CHECK(dpbo_space_get_kind(space) == DPBO_SPACE_GRID);
  CHECK(strcmp(dpbo_space_kind_name(DPBO_SPACE_GRID), "grid") == 0);
  CHECK(dpbo_space_dim(space, 2) && strcmp(dpbo_space_dim(space, 2)->name, "z") == 0);
  CHECK(dpbo_space_dim(space, 3) == NULL);
  for (int i = 0; i < 6; i++) {
    double u[3] = {-1, -1, -1};
    CHECK_OK(dpbo_space_unit(space, i, u, &err));
    for (int j = 0; j < 3; j++)
      CHECK_MSG(u[j] == expected[i][j], "grid point %d coordinate %d: %g, expected %g", i, j, u[j],
                expected[i][j]);
  }
  /* Point 3 in values: x = 5, y = 10 (middle of log [1,100]), z = 1. */
  double u[3], v[3];
  CHECK_OK(dpbo_space_unit(space, 3, u, &err));
  dpbo_space_to_values(space, u, v);
  CHECK(v[0] == 5.0);
  CHECK_CLOSE(v[1], 10.0, 1e-14, 0.0);
  CHECK(v[2] == 1.0);
  CHECK_ERROR(dpbo_space_unit(space, 6, u, &err), DPBO_ERR_ARG, "index 6", "6 points");
  CHECK_ERROR(dpbo_space_unit(space, -1, u, &err), DPBO_ERR_ARG, "index -1");
  dpbo_space_destroy(space);

  /* Grids are never stored, so a 2^61-point grid is cheap; its last point is
   * the far corner and point 2^30 is the second level of the first dimension. */
  dpbo_dim big[2] = {make_dim("a", 0, 1, DPBO_SCALE_LINEAR, INT64_C(1) << 31),
                     make_dim("b", 0, 1, DPBO_SCALE_LINEAR, INT64_C(1) << 30)};
  CHECK_OK(dpbo_space_create_grid(2, big, &space, &err));
  if (space) {
    CHECK(dpbo_space_size(space) == INT64_C(1) << 61);
    CHECK_OK(dpbo_space_unit(space, (INT64_C(1) << 61) - 1, u, &err));
    CHECK(u[0] == 1.0 && u[1] == 1.0);
    CHECK_OK(dpbo_space_unit(space, INT64_C(1) << 30, u, &err));
    CHECK(u[0] == 1.0 / (double)((INT64_C(1) << 31) - 1) && u[1] == 0.0);
    dpbo_space_destroy(space);
  }
  /* 2^31 * 2^31 = 2^62 > INT64_MAX / 2: refused. 2^32 cubed would wrap. */
  big[1].levels = INT64_C(1) << 31;
  space = (dpbo_space *)&space; /* must be reset to NULL on failure */
  CHECK_ERROR(dpbo_space_create_grid(2, big, &space, &err), DPBO_ERR_CONFIG, "too large");
  CHECK(space == NULL);
  dpbo_dim huge[3] = {make_dim("p", 0, 1, DPBO_SCALE_LINEAR, INT64_C(1) << 32),
                      make_dim("q", 0, 1, DPBO_SCALE_LINEAR, INT64_C(1) << 32),
                      make_dim("r", 0, 1, DPBO_SCALE_LINEAR, INT64_C(1) << 32)};
  CHECK_ERROR(dpbo_space_create_grid(3, huge, &space, &err), DPBO_ERR_CONFIG, "too large");
  CHECK_ERROR(dpbo_space_create_grid(0, huge, &space, &err), DPBO_ERR_CONFIG, "dimensions");
  CHECK_ERROR(dpbo_space_create_grid(DPBO_MAX_DIM + 1, huge, &space, &err), DPBO_ERR_CONFIG,
              "dimensions");
}

static void test_block(void) {
  /* Hand-computed: 10 points on 4 ranks -> 3, 3, 2, 2 starting at 0, 3, 6, 8. */
  static const int64_t begins[4] = {0, 3, 6, 8}, counts[4] = {3, 3, 2, 2};
  for (int r = 0; r < 4; r++) {
    int64_t b, c;
    dpbo_space_block(10, 4, r, &b, &c);
    CHECK_MSG(b == begins[r] && c == counts[r], "rank %d of 4: [%lld, +%lld)", r, (long long)b,
              (long long)c);
  }
  static const int64_t ns[] = {0, 1, 2, 3, 5, 7, 10, 64, 1000, 1000003};
  static const int ranks[] = {1, 2, 3, 4, 7, 16, 100};
  static int hits[1000003];
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    for (size_t b = 0; b < sizeof ranks / sizeof ranks[0]; b++) {
      int64_t n = ns[a];
      int p = ranks[b];
      memset(hits, 0, sizeof hits);
      int ok = 1;
      int64_t next = 0;
      for (int r = 0; r < p; r++) {
        int64_t begin, count;
        dpbo_space_block(n, p, r, &begin, &count);
        /* contiguous, in rank order, sizes n/p or n/p + 1 (the first n % p ranks) */
        if (begin != next || count != n / p + (r < n % p ? 1 : 0)) ok = 0;
        for (int64_t i = begin; i < begin + count; i++) {
          if (i < 0 || i >= n) {
            ok = 0;
            break;
          }
          hits[i]++;
        }
        next = begin + count;
      }
      if (next != n) ok = 0;
      for (int64_t i = 0; i < n; i++)
        if (hits[i] != 1) ok = 0;
      CHECK_MSG(ok, "block distribution of n = %lld over %d ranks", (long long)n, p);
    }
  }
}

/* Every line of the fixture: d index x_1..x_d as exact doubles from scipy. */
static void test_sobol_fixture(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const char *src = getenv("DPBO_SOURCE_DIR");
  CHECK_MSG(src != NULL, "DPBO_SOURCE_DIR is not set (run through ctest)");
  if (!src) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/data/sobol_scipy.txt", src);
  FILE *f = fopen(path, "r");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  if (!f) return;
  char line[8192];
  int points = 0, mismatches = 0, d64 = 0;
  uint64_t largest = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char *p = line, *end;
    int d = (int)strtol(p, &end, 10);
    p = end;
    uint64_t index = strtoull(p, &end, 10);
    p = end;
    double want[DPBO_SOBOL_MAX_DIM], got[DPBO_SOBOL_MAX_DIM];
    int ok_line = d >= 1 && d <= DPBO_SOBOL_MAX_DIM;
    for (int j = 0; ok_line && j < d; j++) {
      want[j] = strtod(p, &end);
      if (end == p) ok_line = 0;
      p = end;
    }
    CHECK_MSG(ok_line, "malformed fixture line: %s", line);
    if (!ok_line) continue;
    CHECK_OK(dpbo_sobol_point(d, index, got, &err));
    for (int j = 0; j < d; j++) {
      if (got[j] != want[j]) {
        if (mismatches++ < 5)
          fprintf(stderr, "sobol d=%d index %llu dim %d: %.17g, scipy %.17g\n", d,
                  (unsigned long long)index, j + 1, got[j], want[j]);
      }
    }
    points++;
    if (d == 64) d64++;
    if (index > largest) largest = index;
  }
  fclose(f);
  CHECK_MSG(mismatches == 0, "%d Sobol coordinates differ from scipy's", mismatches);
  /* The whole fixture was read: 1024 points in 10-d, 64 + 18 in 64-d, up to 2^30 - 1. */
  CHECK_MSG(points == 1106 && d64 == 82, "read %d fixture points (%d in 64-d)", points, d64);
  CHECK(largest == (UINT64_C(1) << 30) - 1);
}

static void test_sobol_space(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double u[DPBO_SOBOL_MAX_DIM], w[DPBO_SOBOL_MAX_DIM];
  /* Second and third points by hand (van der Corput 1/2, 3/4; dimension 2 1/2, 1/4). */
  CHECK_OK(dpbo_sobol_point(2, 1, u, &err));
  CHECK(u[0] == 0.5 && u[1] == 0.5);
  CHECK_OK(dpbo_sobol_point(2, 2, u, &err));
  CHECK(u[0] == 0.75 && u[1] == 0.25);
  CHECK_OK(dpbo_sobol_point(DPBO_SOBOL_MAX_DIM, (UINT64_C(1) << 30) - 1, u, &err));
  CHECK_ERROR(dpbo_sobol_point(2, UINT64_C(1) << 30, u, &err), DPBO_ERR_ARG, "1073741824");
  CHECK_ERROR(dpbo_sobol_point(DPBO_SOBOL_MAX_DIM + 1, 0, u, &err), DPBO_ERR_ARG, "65");
  CHECK_ERROR(dpbo_sobol_point(0, 0, u, &err), DPBO_ERR_ARG, "dimensions");

  dpbo_dim dims[3] = {make_dim("a", 0, 1, DPBO_SCALE_LINEAR, 0),
                      make_dim("b", 1e-3, 1e3, DPBO_SCALE_LOG, 0),
                      make_dim("c", -2, 2, DPBO_SCALE_LINEAR, 0)};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_sobol(3, dims, 100, &space, &err));
  if (space) {
    CHECK(dpbo_space_size(space) == 100);
    CHECK(dpbo_space_get_kind(space) == DPBO_SPACE_SOBOL);
    int same = 1;
    for (int64_t i = 0; i < 100; i++) {
      CHECK_OK(dpbo_space_unit(space, i, u, &err));
      CHECK_OK(dpbo_sobol_point(3, (uint64_t)i, w, &err));
      if (memcmp(u, w, 3 * sizeof *u) != 0) same = 0;
    }
    CHECK_MSG(same, "Sobol space points differ from dpbo_sobol_point");
    CHECK_ERROR(dpbo_space_unit(space, 100, u, &err), DPBO_ERR_ARG, "index 100");
    dpbo_space_destroy(space);
  }
  CHECK_ERROR(dpbo_space_create_sobol(3, dims, 0, &space, &err), DPBO_ERR_CONFIG,
              "the candidate space is empty");
  CHECK(space == NULL);
  CHECK_ERROR(dpbo_space_create_sobol(3, dims, (INT64_C(1) << 30) + 1, &space, &err),
              DPBO_ERR_CONFIG, "at most 2^30");
  CHECK_OK(dpbo_space_create_sobol(3, dims, INT64_C(1) << 30, &space, &err));
  dpbo_space_destroy(space);
}

static const char *write_file(const char *name, const char *text) {
  FILE *f = fopen(name, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", name);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  return name;
}

static void test_list(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dim dims[2] = {make_dim("C", 1e-3, 1e3, DPBO_SCALE_LOG, 0),
                      make_dim("gamma", 0, 1, DPBO_SCALE_LINEAR, 0)};
  const char *ok = write_file("test_space_ok.txt", "# C, gamma\n"
                                                   "\n"
                                                   "1, 0.5\n"
                                                   "  1000 1   # the upper corner\n"
                                                   "0.001,0\n"
                                                   "1e-1 ,\t0.25\r\n"
                                                   "   # indented comment\n"
                                                   "10 ,0.75");
  static const double expected[4][2] = {{0.5, 0.5}, {1, 1}, {0, 0}, {1.0 / 3.0, 0.25}};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_list(2, dims, ok, &space, &err));
  if (space) {
    CHECK(dpbo_space_size(space) == 5);
    CHECK(dpbo_space_get_kind(space) == DPBO_SPACE_LIST);
    double u[2], v[2];
    for (int i = 0; i < 4; i++) {
      CHECK_OK(dpbo_space_unit(space, i, u, &err));
      CHECK_CLOSE(u[0], expected[i][0], 1e-14, 1e-14);
      CHECK_CLOSE(u[1], expected[i][1], 1e-14, 1e-14);
    }
    /* Values come back as written in the file. */
    CHECK_OK(dpbo_space_unit(space, 4, u, &err));
    dpbo_space_to_values(space, u, v);
    CHECK_CLOSE(v[0], 10.0, 1e-12, 0.0);
    CHECK(v[1] == 0.75);
    CHECK_OK(dpbo_space_unit(space, 1, u, &err));
    dpbo_space_to_values(space, u, v);
    CHECK(v[0] == 1000.0 && v[1] == 1.0);
    CHECK_ERROR(dpbo_space_unit(space, 5, u, &err), DPBO_ERR_ARG, "index 5");
    dpbo_space_destroy(space);
  }

  /* A UTF-8 byte order mark before the first value is skipped (issue #27:
   * it made value 1 "not a number", quoting an invisible character). */
  const char *bom = write_file("test_space_bom.txt", "\xef\xbb\xbf"
                                                     "1, 0.5\n10 0.75\n");
  CHECK_OK(dpbo_space_create_list(2, dims, bom, &space, &err));
  if (space) {
    CHECK(dpbo_space_size(space) == 2);
    dpbo_space_destroy(space);
  }
  remove(bom);

  struct {
    const char *text;
    dpbo_status code;
    const char *part1, *part2;
  } cases[] = {
      {"1, 0.5\n1 0.5 0.25\n", DPBO_ERR_CONFIG, ":2: expected 2 values", "found 3"},
      {"# one value\n1\n", DPBO_ERR_CONFIG, ":2: expected 2 values", "found 1"},
      {"1, abc\n", DPBO_ERR_CONFIG, ":1: value 2 'abc'", "not a number"},
      {"1.5x 0.5\n", DPBO_ERR_CONFIG, ":1: value 1 '1.5x'", "not a number"},
      {"1 0.5\n\nnan 0.5\n", DPBO_ERR_CONFIG, ":3: value 1 'nan'", "not a finite number"},
      {"1 inf\n", DPBO_ERR_CONFIG, ":1: value 2 'inf'", "not a finite number"},
      {"1 1e999\n", DPBO_ERR_CONFIG, ":1: value 2 '1e999'", "not a finite number"},
      {"2000 0.5\n", DPBO_ERR_CONFIG, ":1: value 1 (dimension 'C')", "outside the bounds"},
      {"1 0.5\n1 -0.25\n", DPBO_ERR_CONFIG, ":2: value 2 (dimension 'gamma')",
       "outside the bounds"},
      {"1,,0.5\n", DPBO_ERR_CONFIG, ":1: empty value", "comma"},
      {", 1, 0.5\n", DPBO_ERR_CONFIG, ":1: empty value", "comma"},
      {"1, 0.5,\n", DPBO_ERR_CONFIG, ":1: trailing comma", "value 2"},
      {"# nothing here\n\n   \n", DPBO_ERR_CONFIG, "the candidate space is empty", "no points"},
      {"", DPBO_ERR_CONFIG, "the candidate space is empty", "no points"},
  };
  char name[64];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(name, sizeof name, "test_space_bad%zu.txt", i);
    write_file(name, cases[i].text);
    space = (dpbo_space *)&space;
    dpbo_status st = dpbo_space_create_list(2, dims, name, &space, &err);
    CHECK_ERROR(st, cases[i].code, name, cases[i].part1, cases[i].part2);
    CHECK_MSG(space == NULL, "case %zu: output not reset on failure", i);
    remove(name);
  }

  /* Missing file, and a directory (opens, but reading fails). */
  CHECK_ERROR(dpbo_space_create_list(2, dims, "test_space_missing.txt", &space, &err), DPBO_ERR_IO,
              "test_space_missing.txt", "No such file");
  mkdir("test_space_dir", 0755);
  CHECK_ERROR(dpbo_space_create_list(2, dims, "test_space_dir", &space, &err), DPBO_ERR_IO,
              "test_space_dir", "directory");
  rmdir("test_space_dir");
  /* A bad dimension is reported before the file is read. */
  dims[1].hi = -1;
  CHECK_ERROR(dpbo_space_create_list(2, dims, ok, &space, &err), DPBO_ERR_CONFIG, "'gamma'",
              "reversed bounds");
  remove(ok);
}

static void test_validate(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dim good = make_dim("lr", 1e-4, 1, DPBO_SCALE_LOG, 5);
  CHECK_OK(dpbo_dim_validate(&good, DPBO_SPACE_GRID, &err));

  dpbo_dim d = make_dim("C", 2, 1, DPBO_SCALE_LINEAR, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_GRID, &err), DPBO_ERR_CONFIG, "'C'",
              "reversed bounds");
  d = make_dim("C", 1, 1, DPBO_SCALE_LINEAR, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_SOBOL, &err), DPBO_ERR_CONFIG, "'C'",
              "reversed bounds");
  d = make_dim("gamma", NAN, 1, DPBO_SCALE_LINEAR, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_GRID, &err), DPBO_ERR_CONFIG, "'gamma'", "finite");
  d = make_dim("gamma", 0, INFINITY, DPBO_SCALE_LINEAR, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_LIST, &err), DPBO_ERR_CONFIG, "'gamma'", "finite");
  d = make_dim("wide", -1e308, 1e308, DPBO_SCALE_LINEAR, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_LIST, &err), DPBO_ERR_CONFIG, "'wide'", "too wide");
  d = make_dim("lambda", 0, 1, DPBO_SCALE_LOG, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_GRID, &err), DPBO_ERR_CONFIG, "'lambda'",
              "log scale");
  d = make_dim("lambda", -1, 1, DPBO_SCALE_LOG, 3);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_SOBOL, &err), DPBO_ERR_CONFIG, "'lambda'",
              "log scale");
  d = make_dim("depth", 1, 10, DPBO_SCALE_LINEAR, 0);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_GRID, &err), DPBO_ERR_CONFIG, "'depth'",
              "at least 1 level");
  /* Levels matter only on a grid. */
  CHECK_OK(dpbo_dim_validate(&d, DPBO_SPACE_SOBOL, &err));
  CHECK_OK(dpbo_dim_validate(&d, DPBO_SPACE_LIST, &err));
  d = make_dim("s", 1, 10, (dpbo_scale)7, 2);
  CHECK_ERROR(dpbo_dim_validate(&d, DPBO_SPACE_GRID, &err), DPBO_ERR_CONFIG, "'s'", "scale");

  /* Through a constructor, an unnamed dimension is named by its position. */
  dpbo_dim dims[2] = {make_dim("a", 0, 1, DPBO_SCALE_LINEAR, 2),
                      make_dim("", 0, 1, DPBO_SCALE_LINEAR, 0)};
  dpbo_space *space = NULL;
  CHECK_ERROR(dpbo_space_create_grid(2, dims, &space, &err), DPBO_ERR_CONFIG, "dimension 2 of 2",
              "at least 1 level");
  CHECK(space == NULL);
}

static void test_maps(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dim dims[3] = {make_dim("lin", -5, 7, DPBO_SCALE_LINEAR, 0),
                      make_dim("log", 1e-6, 1e6, DPBO_SCALE_LOG, 0),
                      make_dim("log2", 1e-3, 1e3, DPBO_SCALE_LOG, 0)};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_sobol(3, dims, 1, &space, &err));
  if (!space) return;
  double u[3] = {0.25, 0.5, 0.5}, v[3], back[3];
  dpbo_space_to_values(space, u, v);
  CHECK(v[0] == -2.0);
  CHECK_CLOSE(v[1], 1.0, 1e-15, 0.0);
  CHECK_CLOSE(v[2], 1.0, 1e-15, 0.0);
  u[0] = 1.0;
  u[1] = 1.0;
  u[2] = 0.0;
  dpbo_space_to_values(space, u, v);
  CHECK(v[0] == 7.0 && v[1] == 1e6 && v[2] == 1e-3); /* the bounds exactly */
  u[0] = 0.0;
  u[1] = 0.75;      /* 3/4 of the 12 decades above 1e-6: 1e3 */
  u[2] = 1.0 / 6.0; /* 1/6 of the 6 decades above 1e-3: 1e-2 */
  dpbo_space_to_values(space, u, v);
  CHECK(v[0] == -5.0);
  CHECK_CLOSE(v[1], 1e3, 1e-13, 0.0);
  CHECK_CLOSE(v[2], 1e-2, 1e-13, 0.0);

  /* Round trips over the whole range: u -> values -> u and values -> u -> values. */
  double worst_u = 0, worst_v = 0;
  for (int k = 0; k <= 1000; k++) {
    for (int j = 0; j < 3; j++)
      u[j] = k / 1000.0;
    dpbo_space_to_values(space, u, v);
    dpbo_space_to_unit(space, v, back);
    for (int j = 0; j < 3; j++)
      worst_u = fmax(worst_u, fabs(back[j] - u[j]));
    double w[3] = {-5 + 12 * k / 1000.0, 1e-6 * pow(1e12, k / 1000.0),
                   1e-3 * pow(10, 6.0 * k / 1000.0)};
    if (w[1] > 1e6) w[1] = 1e6;
    if (w[2] > 1e3) w[2] = 1e3;
    dpbo_space_to_unit(space, w, back);
    dpbo_space_to_values(space, back, v);
    /* Relative to the value on the log scales; on the linear one, whose values
     * cross zero, relative to the width of the range. */
    worst_v = fmax(worst_v, fabs(v[0] - w[0]) / 12.0);
    for (int j = 1; j < 3; j++)
      worst_v = fmax(worst_v, fabs(v[j] - w[j]) / w[j]);
  }
  CHECK_MSG(worst_u <= 1e-12, "unit round trip error %g", worst_u);
  CHECK_MSG(worst_v <= 1e-12, "value round trip relative error %g", worst_v);
  dpbo_space_destroy(space);
}

int main(void) {
  test_grid();
  test_block();
  test_sobol_fixture();
  test_sobol_space();
  test_list();
  test_validate();
  test_maps();
  return dpbo_test_summary("test_space");
}
