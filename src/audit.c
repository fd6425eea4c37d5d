/* Empirical privacy audit (see include/dpbo/audit.h for the method and the
 * choice of neighbouring inputs). */
#include "dpbo/audit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/noise.h"
#include "mechanism_private.h"

/* ------------------------------------------------------------------------ */
/* Clopper-Pearson bounds                                                   */

/* Continued fraction of the regularized incomplete beta function
 * (Abramowitz & Stegun 26.5.8; DLMF 8.17.22), evaluated by the modified
 * Lentz method. Converges quickly for x < (a + 1)/(a + b + 2). */
static double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 200000; m++) {
    double m2 = 2.0 * m;
    /* even step: d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1.0 + num / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    /* odd step: d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1.0 + num / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    double step = d * c;
    h *= step;
    if (fabs(step - 1.0) < 1e-15) break;
  }
  return h;
}

/* I_x(a, b), the regularized incomplete beta function (a, b > 0). The
 * binomial tail is P(X >= k | n, p) = I_p(k, n - k + 1). */
static double beta_regularized(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  double log_front = a * log(x) + b * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b));
  if (x < (a + 1.0) / (a + b + 2.0)) return exp(log_front) * beta_fraction(a, b, x) / a;
  return 1.0 - exp(log_front) * beta_fraction(b, a, 1.0 - x) / b;
}

/* Bisection to 2^-100 of [0, 1]; the bound returned is the conservative end
 * of the final bracket, so rounding never makes the interval narrower. */
enum { CP_BISECTIONS = 100 };

double dpbo_audit_cp_lower(int64_t k, int64_t n, double gamma) {
  if (k <= 0) return 0.0;
  /* The p with P(X >= k | p) = gamma; P(X >= k | p) increases with p. */
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < CP_BISECTIONS; i++) {
    double mid = 0.5 * (lo + hi);
    if (beta_regularized((double)k, (double)(n - k + 1), mid) < gamma)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

double dpbo_audit_cp_upper(int64_t k, int64_t n, double gamma) {
  if (k >= n) return 1.0;
  /* The p with P(X <= k | p) = I_(1-p)(n - k, k + 1) = gamma; decreasing in
   * p. Evaluated through 1 - p so the small tail keeps its precision. */
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < CP_BISECTIONS; i++) {
    double mid = 0.5 * (lo + hi);
    if (beta_regularized((double)(n - k), (double)(k + 1), 1.0 - mid) > gamma)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* ------------------------------------------------------------------------ */
/* Histograms of the two neighbouring inputs                                */

const char *dpbo_audit_kind_name(dpbo_audit_kind kind) {
  switch (kind) {
  case DPBO_AUDIT_LAPLACE: return "laplace";
  case DPBO_AUDIT_EXPONENTIAL: return "exponential";
  case DPBO_AUDIT_PERMUTE_AND_FLIP: return "permute_and_flip";
  case DPBO_AUDIT_KIND_COUNT: break;
  }
  return "unknown";
}

/* Laplace histogram: bins of width b/2 (b = Δ/ε, the claimed scale) from
 * -6b to Δ + 6b, plus one open bin at each end. Fixed before any draw, so
 * the event family does not depend on the data it is tested on. */
typedef struct laplace_bins {
  double first, width;
  int count; /* including both open bins */
} laplace_bins;

static laplace_bins laplace_bins_make(double epsilon, double sensitivity) {
  double b = sensitivity / epsilon;
  laplace_bins bins;
  bins.first = -6.0 * b;
  bins.width = 0.5 * b;
  bins.count = (int)ceil((sensitivity + 12.0 * b) / bins.width) + 2;
  return bins;
}

static int laplace_bin(const laplace_bins *bins, double v) {
  if (v < bins->first) return 0;
  double j = floor((v - bins->first) / bins->width) + 1.0;
  return j >= bins->count - 1 ? bins->count - 1 : (int)j;
}

/* Draws `trials` outputs on D (hist[0..bins)) and on D' (hist[bins..2 bins))
 * with this rank's noise. */
static dpbo_status audit_draw(dpbo_audit_kind kind, double epsilon, double sensitivity,
                              double factor, int64_t trials, dpbo_noise *noise,
                              const laplace_bins *bins, int nbins, int64_t *hist,
                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double u[2] = {0.0, sensitivity}, u_prime[2] = {-sensitivity, 2.0 * sensitivity};
  const dpbo_select_kind sk =
      kind == DPBO_AUDIT_EXPONENTIAL ? DPBO_SELECT_EXPONENTIAL : DPBO_SELECT_PERMUTE_AND_FLIP;
  for (int64_t i = 0; i < trials; i++) {
    for (int side = 0; side < 2; side++) {
      int bin;
      if (kind == DPBO_AUDIT_LAPLACE) {
        dpbo_laplace_release rel;
        DPBO_TRY(dpbo__mech_laplace_scaled(noise, side ? sensitivity : 0.0, sensitivity, epsilon,
                                           0.0, 0.0, factor, &rel, err));
        bin = laplace_bin(bins, rel.value);
      } else {
        dpbo_select_release rel;
        DPBO_TRY(dpbo__mech_select_scaled(MPI_COMM_SELF, 0, noise, sk, side ? u_prime : u, 0, 2,
                                          2, sensitivity, epsilon, factor, &rel, err));
        bin = (int)rel.index;
      }
      hist[side * nbins + bin]++;
    }
  }
done:
  return status;
}

/* An event: the output falls in bins lo..hi. */
typedef struct audit_event {
  int lo, hi;
} audit_event;

/* Describes bins [lo, hi] of the output. */
static void event_name(dpbo_audit_kind kind, const laplace_bins *bins, int nbins, int lo, int hi,
                       char *buf, size_t size) {
  if (kind != DPBO_AUDIT_LAPLACE) {
    snprintf(buf, size, "index = %d", lo);
    return;
  }
  double a = bins->first + (lo - 1) * bins->width, b = bins->first + hi * bins->width;
  if (lo == 0 && hi == nbins - 1)
    snprintf(buf, size, "any release");
  else if (lo == 0)
    snprintf(buf, size, "release < %g", b);
  else if (hi == nbins - 1)
    snprintf(buf, size, "release >= %g", a);
  else
    snprintf(buf, size, "%g <= release < %g", a, b);
}

dpbo_status dpbo_audit_mechanism(MPI_Comm comm, dpbo_audit_kind kind, double epsilon,
                                 double sensitivity, int64_t trials, uint64_t seed, double alpha,
                                 double noise_scale_factor, dpbo_audit_result *result,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int64_t *hist = NULL, *total = NULL;
  audit_event *events = NULL;
  int rank, size;
  memset(result, 0, sizeof *result);
  if (kind < 0 || kind >= DPBO_AUDIT_KIND_COUNT)
    DPBO_RAISE(DPBO_ERR_ARG, "audit: unknown mechanism %d", (int)kind);
  if (!(isfinite(epsilon) && epsilon > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: epsilon must be positive and finite, got %g", epsilon);
  if (!(isfinite(sensitivity) && sensitivity > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: sensitivity must be positive and finite, got %g",
               sensitivity);
  if (trials < 1) DPBO_RAISE(DPBO_ERR_ARG, "audit: trials must be positive, got %lld",
                             (long long)trials);
  if (kind == DPBO_AUDIT_LAPLACE && epsilon > 1000.0)
    DPBO_RAISE(DPBO_ERR_ARG, "audit: the Laplace histogram has 2 epsilon + 26 bins; epsilon "
                             "%g is above the supported 1000", epsilon);
  if (!(alpha > 0.0 && alpha < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: alpha must be in (0, 1), got %g", alpha);
  if (!(isfinite(noise_scale_factor) && noise_scale_factor > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: noise scale factor must be positive, got %g",
               noise_scale_factor);
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "audit: invalid communicator");

  laplace_bins bins = laplace_bins_make(epsilon, sensitivity);
  const int nbins = kind == DPBO_AUDIT_LAPLACE ? bins.count : 2;
  DPBO_ALLOC(hist, 2 * nbins, "audit histogram");
  DPBO_ALLOC(total, 2 * nbins, "audit histogram");

  /* Trials split over the ranks, each with its own stream of the seed. */
  int64_t mine = trials / size + (rank < trials % size ? 1 : 0);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, seed, (uint64_t)rank);
  dpbo_error local_err;
  dpbo_error_clear(&local_err);
  local = audit_draw(kind, epsilon, sensitivity, noise_scale_factor, mine, &noise, &bins, nbins,
                     hist, &local_err);
  int failed = local != DPBO_OK, any_failed;
  if (MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "audit: MPI_Allreduce failed");
  if (failed) {
    if (err) *err = local_err;
    status = local;
    goto done;
  }
  if (any_failed) DPBO_RAISE(DPBO_ERR_ARG, "audit: another rank failed to draw");
  if (MPI_Allreduce(hist, total, 2 * nbins, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "audit: MPI_Allreduce of the histograms failed");

  /* Events: every single bin, every prefix and every suffix union (a prefix
   * and the suffix after it are complements, both kept: each direction of
   * the ratio favours a different tail). With two outputs the singles are
   * all there is. */
  DPBO_ALLOC(events, 3 * nbins, "audit events");
  int m = 0;
  for (int j = 0; j < nbins; j++) events[m++] = (audit_event){j, j};
  if (nbins > 2) {
    for (int j = 1; j < nbins - 1; j++) events[m++] = (audit_event){0, j};
    for (int j = 1; j < nbins - 1; j++) events[m++] = (audit_event){j, nbins - 1};
  }
  const double gamma = alpha / (4.0 * m);
  double best = 0.0;
  char witness[sizeof result->witness] = "no event separates the inputs";
  for (int e = 0; e < m; e++) {
    int64_t c[2] = {0, 0};
    for (int side = 0; side < 2; side++)
      for (int j = events[e].lo; j <= events[e].hi; j++) c[side] += total[side * nbins + j];
    for (int dir = 0; dir < 2; dir++) {
      double p_lower = dpbo_audit_cp_lower(c[dir], trials, gamma);
      double p_upper = dpbo_audit_cp_upper(c[1 - dir], trials, gamma);
      if (!(p_lower > 0.0)) continue;
      double bound = log(p_lower / p_upper);
      if (bound > best) {
        char name[96];
        event_name(kind, &bins, nbins, events[e].lo, events[e].hi, name, sizeof name);
        best = bound;
        snprintf(witness, sizeof witness, "P(%s | %s) / P(same | %s): %lld vs %lld of %lld", name,
                 dir ? "D'" : "D", dir ? "D" : "D'", (long long)c[dir], (long long)c[1 - dir],
                 (long long)trials);
      }
    }
  }

  result->kind = kind;
  result->epsilon_claimed = epsilon;
  result->epsilon_lower = best;
  result->sensitivity = sensitivity;
  result->alpha = alpha;
  result->noise_scale_factor = noise_scale_factor;
  result->trials = trials;
  result->events = m;
  snprintf(result->witness, sizeof result->witness, "%s", witness);
  result->violated = best > epsilon;
done:
  free(hist);
  free(total);
  free(events);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Command line                                                             */

static const char audit_usage[] =
    "usage: dpbo audit [--mechanism laplace|exponential|permute_and_flip|all]\n"
    "                  [--epsilon E] [--sensitivity D] [--trials N] [--seed S]\n"
    "                  [--alpha A] [--broken]\n"
    "  Draws each mechanism N times on two neighbouring inputs (seeded noise,\n"
    "  split over the MPI ranks) and reports a lower bound on its true epsilon\n"
    "  that holds with probability >= 1 - A (Clopper-Pearson, Bonferroni over\n"
    "  the events tested). --broken halves the noise scale (the true epsilon\n"
    "  doubles) to show that the audit detects a violation.\n"
    "  Defaults: all, E = 1, D = 1, N = 200000, S = 20150706, A = 0.001.\n"
    "  Exit codes: 0 every bound within its claim, 1 a bound exceeds its claim,\n"
    "  2 bad usage, 3 other failure.\n";

/* Value of option argv[*i] (either "--name=value" or "--name value"), or
 * NULL if argv[*i] is not --name. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t len = strlen(name);
  if (strncmp(argv[*i], name, len) != 0) return NULL;
  if (argv[*i][len] == '=') return argv[*i] + len + 1;
  if (argv[*i][len] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int parse_double(const char *text, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int parse_int64(const char *text, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return -1;
  *out = (int64_t)v;
  return 0;
}

static int parse_uint64(const char *text, uint64_t *out) {
  char *end;
  errno = 0;
  if (text[0] == '-') return -1;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return -1;
  *out = (uint64_t)v;
  return 0;
}

int dpbo_audit_main(MPI_Comm comm, int argc, char **argv) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int which[DPBO_AUDIT_KIND_COUNT] = {1, 1, 1};
  double epsilon = 1.0, sensitivity = 1.0, alpha = 1e-3;
  int64_t trials = 200000;
  uint64_t seed = 20150706u;
  int broken = 0;
  const char *bad = NULL, *value;
  char why[256] = "";
  for (int i = 0; i < argc && !bad; i++) {
    int missing = 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (rank == 0) fputs(audit_usage, stdout);
      return 0;
    } else if (strcmp(argv[i], "--broken") == 0) {
      broken = 1;
    } else if ((value = option_value(argc, argv, &i, "--mechanism", &missing))) {
      int found = strcmp(value, "all") == 0;
      for (int k = 0; k < DPBO_AUDIT_KIND_COUNT; k++) {
        int match = strcmp(value, dpbo_audit_kind_name((dpbo_audit_kind)k)) == 0;
        which[k] = found || match;
        found |= match;
      }
      if (!found) {
        bad = argv[i];
        snprintf(why, sizeof why, "unknown mechanism '%s'", value);
      }
    } else if ((value = option_value(argc, argv, &i, "--epsilon", &missing))) {
      if (parse_double(value, &epsilon) != 0 || !(epsilon > 0.0)) {
        bad = argv[i];
        snprintf(why, sizeof why, "--epsilon needs a positive number, got '%s'", value);
      }
    } else if ((value = option_value(argc, argv, &i, "--sensitivity", &missing))) {
      if (parse_double(value, &sensitivity) != 0 || !(sensitivity > 0.0)) {
        bad = argv[i];
        snprintf(why, sizeof why, "--sensitivity needs a positive number, got '%s'", value);
      }
    } else if ((value = option_value(argc, argv, &i, "--alpha", &missing))) {
      if (parse_double(value, &alpha) != 0 || !(alpha > 0.0 && alpha < 1.0)) {
        bad = argv[i];
        snprintf(why, sizeof why, "--alpha needs a number in (0, 1), got '%s'", value);
      }
    } else if ((value = option_value(argc, argv, &i, "--trials", &missing))) {
      if (parse_int64(value, &trials) != 0 || trials < 1) {
        bad = argv[i];
        snprintf(why, sizeof why, "--trials needs a positive integer, got '%s'", value);
      }
    } else if ((value = option_value(argc, argv, &i, "--seed", &missing))) {
      if (parse_uint64(value, &seed) != 0) {
        bad = argv[i];
        snprintf(why, sizeof why, "--seed needs a nonnegative integer, got '%s'", value);
      }
    } else {
      bad = argv[i];
      snprintf(why, sizeof why, missing ? "option %s needs a value" : "unexpected argument '%s'",
               argv[i]);
    }
  }
  if (bad) {
    if (rank == 0) fprintf(stderr, "dpbo audit: %s\n%s", why, audit_usage);
    return 2;
  }

  const double factor = broken ? 0.5 : 1.0;
  if (rank == 0) {
    printf("dpbo audit: %s mechanisms, sensitivity %g, seeded noise (seed %llu), alpha %g\n",
           broken ? "DELIBERATELY BROKEN (noise scale x0.5)" : "real", sensitivity,
           (unsigned long long)seed, alpha);
    printf("%-18s %12s %16s %12s  %s\n", "mechanism", "claimed eps", "audited eps >=",
           "trials", "verdict");
  }
  int code = 0;
  for (int k = 0; k < DPBO_AUDIT_KIND_COUNT; k++) {
    if (!which[k]) continue;
    dpbo_audit_result res;
    dpbo_error err;
    dpbo_error_clear(&err);
    if (dpbo_audit_mechanism(comm, (dpbo_audit_kind)k, epsilon, sensitivity, trials, seed, alpha,
                             factor, &res, &err) != DPBO_OK) {
      if (rank == 0) fprintf(stderr, "dpbo audit: error: %s\n", err.message);
      return err.code == DPBO_ERR_ARG ? 2 : 3;
    }
    if (rank == 0) {
      printf("%-18s %12.4f %16.4f %12lld  %s\n", dpbo_audit_kind_name(res.kind),
             res.epsilon_claimed, res.epsilon_lower, (long long)res.trials,
             res.violated ? "FAIL (lower bound exceeds the claim)" : "pass");
      printf("%-18s   strongest event: %s\n", "", res.witness);
      fflush(stdout);
    }
    if (res.violated) code = 1;
  }
  return code;
}
