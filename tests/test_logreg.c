/* The logreg objective (Algorithm 3) checked independently:
 *  - LIBLINEAR's w_λ against a damped Newton method written here on the
 *    same objective λ/2‖w‖² + (1/n) Σ log(1 + exp(−y wᵀx)), for both label
 *    orientations and for training splits holding one class only;
 *  - the gain against −(1/m) Σ g evaluated directly (sigmoid and ramp);
 *  - ‖x‖₂ ≤ 1 for every scaled row, including validation rows outside the
 *    training ranges;
 *  - errors (dimension names, λ ≤ 0, three classes without positive_label);
 *  - digits, zero against the rest: gains in [−1, 0], better at λ = 1e-3
 *    than at λ = 10. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "objectives/logreg.h"

#define DIGITS_DEFAULT "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
#define MAXD 8

static int has(const char *message, const char *part) { return strstr(message, part) != NULL; }

/* A small LCG for the synthetic data: the test must not depend on libdpbo's
 * own generators to build its inputs. */
static uint64_t lcg_state = 12345u;
static double uniform01(void) {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(lcg_state >> 11) * 0x1.0p-53;
}

/* ---- the reference: damped Newton on O_λ, dense, d ≤ MAXD ---------------- */

static double log1pexp_neg(double z) { /* log(1 + e^{−z}) */
  return z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
}

static double objective_value(const dpbo_dataset *t, double lambda, const double *w) {
  size_t d = (size_t)t->d;
  double s = 0, ww = 0;
  for (int64_t i = 0; i < t->n; i++) {
    double z = 0;
    for (size_t j = 0; j < d; j++)
      z += w[j] * t->x[i * (int64_t)d + (int64_t)j];
    s += log1pexp_neg(t->y[i] * z);
  }
  for (size_t j = 0; j < d; j++)
    ww += w[j] * w[j];
  return 0.5 * lambda * ww + s / (double)t->n;
}

/* Returns the final gradient norm. */
static double newton(const dpbo_dataset *t, double lambda, double *w) {
  int d = t->d;
  double gnorm = INFINITY;
  for (int j = 0; j < d; j++)
    w[j] = 0;
  for (int it = 0; it < 200; it++) {
    double g[MAXD] = {0}, H[MAXD][MAXD] = {{0}};
    for (int64_t i = 0; i < t->n; i++) {
      const double *x = t->x + i * d;
      double z = 0;
      for (int j = 0; j < d; j++)
        z += w[j] * x[j];
      double yz = t->y[i] * z;
      /* σ(−yz) = 1/(1 + e^{yz}) and p(1−p) for p = σ(z). */
      double s = yz > 0 ? exp(-yz) / (1 + exp(-yz)) : 1 / (1 + exp(yz));
      double pq = s * (1 - s);
      for (int j = 0; j < d; j++) {
        g[j] -= t->y[i] * s * x[j];
        for (int k = 0; k < d; k++)
          H[j][k] += pq * x[j] * x[k];
      }
    }
    gnorm = 0;
    for (int j = 0; j < d; j++) {
      g[j] = lambda * w[j] + g[j] / (double)t->n;
      gnorm += g[j] * g[j];
      for (int k = 0; k < d; k++)
        H[j][k] = H[j][k] / (double)t->n + (j == k ? lambda : 0);
    }
    gnorm = sqrt(gnorm);
    if (gnorm < 1e-15) break;
    /* Cholesky H = R Rᵀ, then solve H p = −g. */
    double R[MAXD][MAXD] = {{0}}, p[MAXD], u[MAXD];
    for (int j = 0; j < d; j++) {
      for (int k = 0; k <= j; k++) {
        double s = H[j][k];
        for (int l = 0; l < k; l++)
          s -= R[j][l] * R[k][l];
        R[j][k] = j == k ? sqrt(s) : s / R[k][k];
      }
    }
    for (int j = 0; j < d; j++) {
      double s = -g[j];
      for (int l = 0; l < j; l++)
        s -= R[j][l] * u[l];
      u[j] = s / R[j][j];
    }
    for (int j = d - 1; j >= 0; j--) {
      double s = u[j];
      for (int l = j + 1; l < d; l++)
        s -= R[l][j] * p[l];
      p[j] = s / R[j][j];
    }
    /* Backtracking (Armijo) so the method also converges for small λ. */
    double f0 = objective_value(t, lambda, w), slope = 0, step = 1, trial[MAXD];
    for (int j = 0; j < d; j++)
      slope += g[j] * p[j];
    for (int k = 0; k < 60; k++, step *= 0.5) {
      for (int j = 0; j < d; j++)
        trial[j] = w[j] + step * p[j];
      if (objective_value(t, lambda, trial) <= f0 + 1e-4 * step * slope) break;
    }
    for (int j = 0; j < d; j++)
      w[j] = trial[j];
  }
  return gnorm;
}

static double direct_gain(const dpbo_dataset *v, const double *w, int ramp) {
  double s = 0;
  for (int64_t i = 0; i < v->n; i++) {
    double z = 0;
    for (int j = 0; j < v->d; j++)
      z += w[j] * v->x[i * v->d + j];
    z *= v->y[i];
    s += ramp ? fmin(1.0, fmax(0.0, (1 - z) / 2)) : 1 / (1 + exp(z)); /* |z| is small here */
  }
  return -s / (double)v->n;
}

static double dist(const double *a, const double *b, int d) {
  double s = 0;
  for (int j = 0; j < d; j++)
    s += (a[j] - b[j]) * (a[j] - b[j]);
  return sqrt(s);
}

static double norm(const double *a, int d) {
  double s = 0;
  for (int j = 0; j < d; j++)
    s += a[j] * a[j];
  return sqrt(s);
}

static void check_unit_ball(const dpbo_dataset *data, const char *which, int d_expect) {
  double worst = 0;
  int labels_ok = 1;
  for (int64_t i = 0; i < data->n; i++) {
    worst = fmax(worst, norm(data->x + i * data->d, data->d));
    labels_ok &= data->y[i] == 1.0 || data->y[i] == -1.0;
  }
  printf("  %s: %lld rows, max ||x|| = %.17g\n", which, (long long)data->n, worst);
  CHECK_MSG(worst <= 1 + 1e-12, "%s rows: max norm %.17g", which, worst);
  CHECK(labels_ok);
  CHECK(data->d == d_expect);
}

/* The scaling recomputed here from the raw file: the same split (the
 * documented dpbo_dataset_split call with split_seed), min-max ranges from
 * the training rows, division by √d' (d' = non-constant features), and
 * projection of rows with norm > 1. */
static void check_scaling(const dpbo_logreg_options *options, const dpbo_dataset *train,
                          const dpbo_dataset *valid) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *raw = NULL, *rt = NULL, *rv = NULL;
  CHECK_OK(dpbo_dataset_read(options->data_path, options->format, &raw, &err));
  if (!raw) return;
  CHECK_OK(dpbo_dataset_split(raw, options->split_seed, options->train_rows,
                              options->validation_rows, &rt, &rv, &err));
  if (!rt) {
    dpbo_dataset_destroy(raw);
    return;
  }
  int d = raw->d, d_eff = 0;
  double lo[MAXD], hi[MAXD];
  for (int j = 0; j < d; j++) {
    lo[j] = INFINITY;
    hi[j] = -INFINITY;
    for (int64_t i = 0; i < rt->n; i++) {
      lo[j] = fmin(lo[j], rt->x[i * d + j]);
      hi[j] = fmax(hi[j], rt->x[i * d + j]);
    }
    d_eff += hi[j] > lo[j];
  }
  int64_t projected = 0;
  double worst = 0, label_errors = 0;
  for (int split = 0; split < 2; split++) {
    const dpbo_dataset *r = split ? rv : rt, *s = split ? valid : train;
    for (int64_t i = 0; i < r->n; i++) {
      double x[MAXD], nx = 0;
      for (int j = 0; j < d; j++) {
        x[j] = hi[j] > lo[j] ? (r->x[i * d + j] - lo[j]) / (hi[j] - lo[j]) / sqrt(d_eff) : 0;
        nx += x[j] * x[j];
      }
      nx = sqrt(nx);
      if (nx > 1) {
        projected += split;
        for (int j = 0; j < d; j++)
          x[j] /= nx;
      }
      for (int j = 0; j < d; j++)
        worst = fmax(worst, fabs(x[j] - s->x[i * d + j]));
      label_errors += s->y[i] != (r->y[i] == 7 ? 1.0 : -1.0);
    }
  }
  printf("  scaling recomputed from the file: max |difference| %.3g, d' = %d, %lld validation "
         "rows projected onto the unit ball\n",
         worst, d_eff, (long long)projected);
  CHECK(worst <= 1e-15);
  CHECK(label_errors == 0);
  CHECK(d_eff == 3);
  CHECK(projected > 0); /* the corner rows exercise the projection */
  dpbo_dataset_destroy(raw);
  dpbo_dataset_destroy(rt);
  dpbo_dataset_destroy(rv);
}

/* ---- helpers around the objective ----------------------------------------- */

static double eval(dpbo_objective *objective, double lambda) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const char *names[1] = {"lambda"};
  double gain = NAN;
  CHECK_OK(dpbo_objective_evaluate(objective, 1, names, &lambda, &gain, &err));
  return gain;
}

static void expect_eval_error(dpbo_objective *objective, int d, const char *const *names,
                              const double *values, dpbo_status code, const char *part) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double gain = -7.0;
  dpbo_status st = dpbo_objective_evaluate(objective, d, names, values, &gain, &err);
  printf("  evaluate -> %s: %s\n", dpbo_status_name(st), err.message);
  CHECK_MSG(st == code, "got %s, expected %s", dpbo_status_name(st), dpbo_status_name(code));
  CHECK_MSG(has(err.message, part), "'%s' not in '%s'", part, err.message);
}

static void expect_create_error(const dpbo_logreg_options *options, dpbo_status code,
                                const char *part) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_objective objective = {0};
  dpbo_status st = dpbo_logreg_objective_create(options, &objective, &err);
  printf("  create -> %s: %s\n", dpbo_status_name(st), err.message);
  CHECK_MSG(st == code, "got %s, expected %s", dpbo_status_name(st), dpbo_status_name(code));
  CHECK_MSG(has(err.message, part), "'%s' not in '%s'", part, err.message);
  CHECK(objective.ops == NULL && objective.impl == NULL);
  dpbo_objective_destroy(&objective);
}

/* LIBLINEAR's w against Newton's, the certified bound, and the gain. */
static void compare_with_newton(dpbo_objective *objective, double lambda, int ramp, double *w_out) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const dpbo_dataset *train = NULL, *valid = NULL;
  CHECK_OK(dpbo_logreg_scaled_data(objective, &train, &valid, &err));
  if (!train) return;
  int d = train->d;
  double w_ll[MAXD] = {0}, w_nt[MAXD] = {0}, bound = NAN;
  CHECK_OK(dpbo_logreg_train(objective, lambda, w_ll, &bound, &err));
  double gnorm = newton(train, lambda, w_nt);
  double rel = dist(w_ll, w_nt, d) / fmax(norm(w_nt, d), 1e-300);
  printf("  lambda=%-6g |w|=%.6f  rel |w_liblinear - w_newton| = %.3g  certified bound %.3g "
         "(abs diff %.3g, Newton |grad| %.1e)\n",
         lambda, norm(w_nt, d), rel, bound, dist(w_ll, w_nt, d), gnorm);
  CHECK(gnorm < 1e-12);
  CHECK_MSG(rel < 1e-4, "lambda %g: relative difference %g", lambda, rel);
  /* Both are within their own bound of the exact minimizer; Newton's is
   * |grad|/λ. */
  CHECK(dist(w_ll, w_nt, d) <= bound + gnorm / lambda + 1e-12);
  double gain = eval(objective, lambda);
  double direct = direct_gain(valid, w_nt, ramp);
  printf("    gain %.12f, direct formula with Newton's w %.12f\n", gain, direct);
  CHECK(gain >= -1.0 && gain <= 0.0);
  /* The gain is L-Lipschitz in w (L ≤ 1/2). */
  CHECK_MSG(fabs(gain - direct) <= 0.5 * dist(w_ll, w_nt, d) + 1e-13, "gain %.17g vs %.17g", gain,
            direct);
  CHECK(fabs(gain - direct_gain(valid, w_ll, ramp)) <= 1e-13);
  if (w_out)
    for (int j = 0; j < d; j++)
      w_out[j] = w_ll[j];
}

/* The k1 sweep's path (dpbo_logreg_objective_from_data on data read by the
 * caller, dpbo_logreg_classify) against the objective made from the file:
 * the same scaled validation rows, and every row's correctness against
 * sign(x'w) with Newton's w, except rows within the certified distance of
 * LIBLINEAR's w from the minimizer of a tie (|x'w| <= tol/(4 lambda) +
 * Newton's |grad|/lambda, as |x| <= 1). */
static void check_classify(dpbo_objective *made, const dpbo_logreg_options *options) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *data = NULL;
  dpbo_objective from = {0};
  unsigned char correct[512];
  CHECK_OK(dpbo_dataset_read(options->data_path, DPBO_FORMAT_AUTO, &data, &err));
  if (!data) return;
  CHECK_OK(dpbo_logreg_objective_from_data(data, options, &from, &err));
  const dpbo_dataset *train = NULL, *valid = NULL, *valid_from = NULL;
  CHECK_OK(dpbo_logreg_scaled_data(made, &train, &valid, &err));
  CHECK_OK(dpbo_logreg_scaled_data(&from, NULL, &valid_from, &err));
  if (!valid || !valid_from || valid->n > 512) goto done;
  CHECK(valid->n == valid_from->n && valid->d == valid_from->d);
  CHECK(memcmp(valid->x, valid_from->x, sizeof(double) * (size_t)(valid->n * valid->d)) == 0);
  CHECK(memcmp(valid->y, valid_from->y, sizeof(double) * (size_t)valid->n) == 0);
  for (double lambda = 1.0; lambda >= 1e-3; lambda /= 10) {
    double w[MAXD] = {0}, accuracy = NAN, seconds = NAN;
    double gnorm = newton(train, lambda, w);
    CHECK_OK(dpbo_logreg_classify(&from, lambda, correct, &accuracy, &seconds, &err));
    const double slack = options->tolerance / (4 * lambda) + gnorm / lambda;
    int64_t right = 0, disagree = 0, ties = 0;
    for (int64_t i = 0; i < valid->n; i++) {
      double z = 0;
      for (int j = 0; j < valid->d; j++)
        z += w[j] * valid->x[i * valid->d + j];
      const int ok = (z > 0 ? 1.0 : -1.0) == valid->y[i];
      right += correct[i];
      if (fabs(z) <= slack)
        ties++;
      else
        disagree += ok != correct[i];
    }
    printf("  classify lambda=%-6g accuracy %.4f (%lld rows within %.2g of a tie, %lld "
           "disagreements with Newton)\n",
           lambda, accuracy, (long long)ties, slack, (long long)disagree);
    CHECK(disagree == 0);
    CHECK(accuracy == (double)right / (double)valid->n);
    CHECK(seconds >= 0);
  }
done:
  dpbo_objective_destroy(&from);
  dpbo_dataset_destroy(data);
}

static void write_file(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  if (!fp) return;
  fputs(text, fp);
  fclose(fp);
}

int main(void) {
  const char *digits = getenv("DPBO_DIGITS") ? getenv("DPBO_DIGITS") : DIGITS_DEFAULT;
  dpbo_error err;
  dpbo_error_clear(&err);

  /* ---- constants and options ---- */
  double L = 0, gstar = 0;
  dpbo_logreg_loss_constants(DPBO_LOGREG_LOSS_SIGMOID, &L, &gstar);
  CHECK(L == 0.25 && gstar == 1.0);
  dpbo_logreg_loss_constants(DPBO_LOGREG_LOSS_RAMP, &L, &gstar);
  CHECK(L == 0.5 && gstar == 1.0);
  dpbo_logreg_loss_constants((dpbo_logreg_loss)9, &L, &gstar);
  CHECK(isnan(L) && isnan(gstar));
  /* The sigmoid's slope numerically: max |g'(z)| over a fine grid. */
  double slope = 0;
  for (double z = -8; z <= 8; z += 1e-3)
    slope = fmax(slope, fabs(1 / (1 + exp(z + 1e-6)) - 1 / (1 + exp(z))) / 1e-6);
  printf("sigmoid: max |g'| on a grid %.9f (L = 0.25); ramp L = 0.5; g* = 1\n", slope);
  CHECK(slope <= 0.25 + 1e-6 && slope > 0.25 - 1e-6);
  dpbo_logreg_loss loss = DPBO_LOGREG_LOSS_SIGMOID;
  CHECK_OK(dpbo_logreg_loss_parse("ramp", &loss, &err));
  CHECK(loss == DPBO_LOGREG_LOSS_RAMP);
  CHECK(dpbo_logreg_loss_parse("hinge", &loss, &err) == DPBO_ERR_CONFIG &&
        has(err.message, "hinge"));
  CHECK(strcmp(dpbo_logreg_loss_name(DPBO_LOGREG_LOSS_SIGMOID), "sigmoid") == 0);

  dpbo_logreg_options defaults;
  dpbo_logreg_options_default(&defaults);
  CHECK(isnan(defaults.positive_label) && defaults.tolerance == 1e-6 &&
        defaults.loss == DPBO_LOGREG_LOSS_SIGMOID && defaults.format == DPBO_FORMAT_AUTO);

  char dir[] = "/tmp/dpbo_logreg_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char synth[512], rare[512], three[512];
  snprintf(synth, sizeof synth, "%s/synthetic.csv", dir);
  snprintf(rare, sizeof rare, "%s/rare.csv", dir);
  snprintf(three, sizeof three, "%s/three.csv", dir);

  /* ---- synthetic, separable-ish: 4 features on different ranges (one
   * constant), labels 3 and 7 from a noisy linear rule ---- */
  {
    FILE *fp = fopen(synth, "w");
    CHECK(fp != NULL);
    if (!fp) return dpbo_test_summary("test_logreg");
    for (int i = 0; i < 200; i++) {
      double a = 10 * uniform01(), b = -5 + 10 * uniform01(), c = 100 + 50 * uniform01();
      double score = (a - 5) / 5 - b / 5 + 0.3 * (c - 125) / 25 + 0.6 * (uniform01() - 0.5);
      fprintf(fp, "%.17g,%.17g,4.5,%.17g,%d\n", a, b, c, score > 0 ? 7 : 3);
    }
    /* Corner rows beyond the ranges of the rest: those drawn for validation
     * beyond the training maxima leave the unit ball and are projected. */
    for (int k = 1; k <= 6; k++)
      fprintf(fp, "%g,%g,4.5,%g,%d\n", 10 + 0.5 * k, 5 + 0.5 * k, 150 + 5.0 * k, k % 2 ? 7 : 3);
    fclose(fp);
  }
  dpbo_logreg_options options = defaults;
  snprintf(options.data_path, sizeof options.data_path, "%s", synth);
  options.train_rows = 110;
  options.validation_rows = 96;
  options.split_seed = 11u;

  printf("synthetic (labels 7 = +1, 3 = -1), 110/96 rows:\n");
  dpbo_objective objective = {0};
  CHECK_OK(dpbo_logreg_objective_create(&options, &objective, &err));
  if (!objective.ops) return dpbo_test_summary("test_logreg");
  const dpbo_dataset *train = NULL, *valid = NULL;
  CHECK_OK(dpbo_logreg_scaled_data(&objective, &train, &valid, &err));
  check_unit_ball(train, "training", 4);
  check_unit_ball(valid, "validation", 4);
  check_scaling(&options, train, valid);

  double w_pos[MAXD], w_neg[MAXD];
  for (double lambda = 1.0; lambda >= 1e-3; lambda /= 10)
    compare_with_newton(&objective, lambda, 0, lambda == 1e-2 ? w_pos : NULL);
  double g1 = eval(&objective, 0.01), g2 = eval(&objective, 0.01);
  CHECK(g1 == g2); /* deterministic */
  check_classify(&objective, &options);

  /* Other orientation: 3 = +1 flips w and keeps the split. */
  dpbo_logreg_options flipped = options;
  flipped.positive_label = 3;
  dpbo_objective objective_flipped = {0};
  CHECK_OK(dpbo_logreg_objective_create(&flipped, &objective_flipped, &err));
  if (objective_flipped.ops) {
    printf("synthetic with positive_label = 3:\n");
    compare_with_newton(&objective_flipped, 1e-2, 0, w_neg);
    double sum[MAXD];
    for (int j = 0; j < 4; j++)
      sum[j] = w_pos[j] + w_neg[j];
    CHECK_MSG(norm(sum, 4) <= 1e-4 * norm(w_pos, 4), "w(7 positive) + w(3 positive) = %g",
              norm(sum, 4));
  }
  dpbo_objective_destroy(&objective_flipped);

  /* Ramp loss. */
  dpbo_logreg_options ramp = options;
  ramp.loss = DPBO_LOGREG_LOSS_RAMP;
  dpbo_objective objective_ramp = {0};
  CHECK_OK(dpbo_logreg_objective_create(&ramp, &objective_ramp, &err));
  if (objective_ramp.ops) {
    printf("synthetic, ramp loss:\n");
    compare_with_newton(&objective_ramp, 1e-2, 1, NULL);
    compare_with_newton(&objective_ramp, 1e-3, 1, NULL);
  }
  dpbo_objective_destroy(&objective_ramp);

  /* ---- errors on evaluation ---- */
  const char *lambda_name[1] = {"lambda"};
  const char *c_name[1] = {"C"};
  const double one[2] = {1.0, 1.0};
  expect_eval_error(&objective, 0, NULL, NULL, DPBO_ERR_CONFIG, "no dimension named 'lambda'");
  expect_eval_error(&objective, 1, c_name, one, DPBO_ERR_CONFIG, "'C'");
  const char *twice[2] = {"lambda", "lambda"};
  expect_eval_error(&objective, 2, twice, one, DPBO_ERR_CONFIG, "twice");
  const double zero = 0.0, negative = -1.0, nan_value = NAN;
  expect_eval_error(&objective, 1, lambda_name, &zero, DPBO_ERR_OBJECTIVE, "lambda=0");
  expect_eval_error(&objective, 1, lambda_name, &negative, DPBO_ERR_OBJECTIVE, "lambda=-1");
  expect_eval_error(&objective, 1, lambda_name, &nan_value, DPBO_ERR_OBJECTIVE, "lambda=nan");
  CHECK(eval(&objective, 0.01) == g1); /* still usable */
  dpbo_objective_destroy(&objective);
  CHECK(objective.ops == NULL && objective.impl == NULL);
  double wdummy[MAXD];
  CHECK(dpbo_logreg_train(&objective, 1.0, wdummy, NULL, &err) == DPBO_ERR_ARG);

  /* ---- a training split holding one class only ---- */
  {
    FILE *fp = fopen(rare, "w");
    if (fp) {
      for (int i = 0; i < 30; i++)
        fprintf(fp, "%.6f,%.6f,%d\n", uniform01(), 2 * uniform01(), i == 4 || i == 17 ? 1 : 2);
      fclose(fp);
    }
    dpbo_logreg_options one_class = defaults;
    snprintf(one_class.data_path, sizeof one_class.data_path, "%s", rare);
    one_class.train_rows = 6;
    one_class.validation_rows = 20;
    int found = 0;
    for (uint64_t seed = 1; seed < 200 && !found; seed++) {
      one_class.split_seed = seed;
      one_class.positive_label = 1; /* the rare class */
      dpbo_objective o = {0};
      CHECK_OK(dpbo_logreg_objective_create(&one_class, &o, &err));
      if (!o.ops) break;
      const dpbo_dataset *t = NULL;
      CHECK_OK(dpbo_logreg_scaled_data(&o, &t, NULL, &err));
      int all_negative = 1;
      for (int64_t i = 0; i < t->n; i++)
        all_negative &= t->y[i] == -1.0;
      if (all_negative) {
        found = 1;
        printf("one-class training split (seed %llu), all y = -1:\n", (unsigned long long)seed);
        compare_with_newton(&o, 0.1, 0, NULL);
        one_class.positive_label = 2; /* same split, all y = +1 */
        dpbo_objective o2 = {0};
        CHECK_OK(dpbo_logreg_objective_create(&one_class, &o2, &err));
        if (o2.ops) {
          printf("same split, all y = +1:\n");
          compare_with_newton(&o2, 0.1, 0, NULL);
        }
        dpbo_objective_destroy(&o2);
      }
      dpbo_objective_destroy(&o);
    }
    CHECK(found);
  }

  /* ---- errors on creation ---- */
  write_file(three, "0,1,0\n1,0,1\n1,1,2\n0,0,1\n2,2,0\n");
  dpbo_logreg_options bad = defaults;
  snprintf(bad.data_path, sizeof bad.data_path, "%s", three);
  bad.train_rows = 3;
  bad.validation_rows = 2;
  expect_create_error(&bad, DPBO_ERR_DATA, "more than two labels");
  bad.positive_label = 1; /* one class against the rest is fine */
  dpbo_objective ok = {0};
  CHECK_OK(dpbo_logreg_objective_create(&bad, &ok, &err));
  dpbo_objective_destroy(&ok);
  bad.positive_label = 5;
  expect_create_error(&bad, DPBO_ERR_DATA, "no row has the positive label 5");
  bad = options;
  bad.tolerance = 0;
  expect_create_error(&bad, DPBO_ERR_CONFIG, "tolerance");
  bad = options;
  bad.validation_rows = 0;
  expect_create_error(&bad, DPBO_ERR_CONFIG, "validation");
  bad = options;
  bad.train_rows = 300;
  expect_create_error(&bad, DPBO_ERR_ARG, "206");
  bad = options;
  bad.loss = (dpbo_logreg_loss)9;
  expect_create_error(&bad, DPBO_ERR_CONFIG, "loss");
  bad = options;
  snprintf(bad.data_path, sizeof bad.data_path, "%s/missing.csv", dir);
  expect_create_error(&bad, DPBO_ERR_IO, "missing.csv");

  unlink(synth);
  unlink(rare);
  unlink(three);
  rmdir(dir);

  /* ---- digits: zero against the rest ---- */
  dpbo_logreg_options dig = defaults;
  snprintf(dig.data_path, sizeof dig.data_path, "%s", digits);
  dig.positive_label = 0;
  dig.train_rows = 1000;
  dig.validation_rows = 797;
  dig.split_seed = 1u;
  dpbo_objective digit_objective = {0};
  CHECK_OK(dpbo_logreg_objective_create(&dig, &digit_objective, &err));
  if (digit_objective.ops) {
    const dpbo_dataset *dt = NULL, *dv = NULL;
    CHECK_OK(dpbo_logreg_scaled_data(&digit_objective, &dt, &dv, &err));
    check_unit_ball(dt, "digits training", 64);
    check_unit_ball(dv, "digits validation", 64);
    double strong = eval(&digit_objective, 10.0), weak = eval(&digit_objective, 1e-3);
    double w[64], bound = NAN;
    CHECK_OK(dpbo_logreg_train(&digit_objective, 1e-3, w, &bound, &err));
    printf("digits 0 vs rest, 1000/797, sigmoid loss: gain %.6f at lambda=10, %.6f at "
           "lambda=1e-3 (certified |w - w_lambda| <= %.2g, |w| = %.3f)\n",
           strong, weak, bound, norm(w, 64));
    CHECK(strong >= -1 && strong <= 0 && weak >= -1 && weak <= 0);
    CHECK_MSG(weak > strong, "gain at 1e-3 (%g) not better than at 10 (%g)", weak, strong);
    CHECK(bound < 1e-3);
  }
  dpbo_objective_destroy(&digit_objective);
  return dpbo_test_summary("test_logreg");
}
