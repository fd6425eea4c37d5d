/* The release's warnings (release_warn.h states every rule and formula). */
#include "run/release_warn.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

static void release_warn_add(dpbo_release_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void release_warn_add(dpbo_release_warnings *w, const char *fmt, ...) {
  if (w->count >= DPBO_RELEASE_WARNINGS_MAX) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->text[w->count], sizeof w->text[w->count], fmt, ap);
  va_end(ap);
  w->count++;
}

double dpbo_release_warn_ratio(const dpbo_select_release *select, double width) {
  /* Scores on the grid g: two scores at most W apart are at most W/g + 1
   * grid steps apart, and each step multiplies a candidate's weight
   * (exponential) or acceptance (permute-and-flip) by e^η. */
  const double eta = select->eta_num / select->eta_den;
  return exp(eta * (width / select->granularity + 1.0));
}

double dpbo_release_warn_selection_wrong(dpbo_select_kind kind, double R) {
  return kind == DPBO_SELECT_PERMUTE_AND_FLIP ? 1.0 / (2.0 * R) : 1.0 / (1.0 + R);
}

void dpbo_release_warn_selection(dpbo_release_warnings *w, dpbo_select_kind kind,
                                 const dpbo_select_release *select, double width,
                                 int64_t candidates, const char *what) {
  if (!(width > 0.0) || !(select->granularity > 0.0) || !(select->eta_den > 0.0)) return;
  const double R = dpbo_release_warn_ratio(select, width);
  const double wrong = dpbo_release_warn_selection_wrong(kind, R);
  if (!(wrong >= DPBO_RELEASE_WRONG_LIMIT)) return;
  release_warn_add(w,
                   "lambda~ is close to a uniform draw over %s (%lld candidates): at epsilon %.4g "
                   "and sensitivity %.4g the selection draws the worse of two candidates a whole "
                   "value range (%.4g) apart with probability >= %.3g of the times it draws "
                   "either (a uniform draw: 0.5), and "
                   "no candidate scoring in that range is more than %.4g times as likely as "
                   "1/%lld (flagged when that probability is >= 1/4, half a uniform draw's)",
                   what, (long long)candidates, select->epsilon_spent, select->sensitivity, width,
                   wrong, R, (long long)candidates);
}

double dpbo_release_warn_laplace_wrong(double width, double b) {
  return 0.5 * exp(-width / b) * (1.0 + width / (2.0 * b));
}

void dpbo_release_warn_stopping(dpbo_release_warnings *w, double b, double width) {
  if (!(width > 0.0) || !(b > 0.0)) return;
  const double wrong = dpbo_release_warn_laplace_wrong(width, b);
  if (!(wrong >= DPBO_RELEASE_WRONG_LIMIT)) return;
  release_warn_add(w,
                   "lambda~ is close to a uniform draw over Lambda: each run's score noise "
                   "(Laplace scale %.4g) ranks the worse of two candidates a whole value range "
                   "(%.4g) apart first with probability %.3g (a uniform draw: 0.5; flagged when "
                   ">= 1/4, half a uniform draw's)",
                   b, width, wrong);
}

double dpbo_release_warn_gaussian_wrong(double width, double sigma) {
  /* Φ(−x) = ½ erfc(x/√2) with x = W/(σ√2): ½ erfc(W/(2σ)). */
  return 0.5 * erfc(width / (2.0 * sigma));
}

void dpbo_release_warn_evaluations(dpbo_release_warnings *w, double sigma, double width) {
  if (!(width > 0.0) || !(sigma > 0.0)) return;
  const double wrong = dpbo_release_warn_gaussian_wrong(width, sigma);
  if (!(wrong >= DPBO_RELEASE_WRONG_LIMIT)) return;
  release_warn_add(w,
                   "lambda~ is close to a uniform draw: each evaluation's Gaussian noise (sigma "
                   "%.4g) ranks the worse of two evaluations a whole value range (%.4g) apart "
                   "first with probability %.3g (a uniform draw: 0.5; flagged when >= 1/4, half "
                   "a uniform draw's)",
                   sigma, width, wrong);
}

void dpbo_release_warn_clamped(dpbo_release_warnings *w, const char *symbol, double value,
                               double lo, double hi, const char *why) {
  release_warn_add(w,
                   "%s = %.6g was clamped to the value range [%.6g, %.6g]: %s fell outside it, so "
                   "%s says only that it lay beyond that edge",
                   symbol, value, lo, hi, why, symbol);
}

void dpbo_release_warnings_log(const dpbo_release_warnings *w) {
  for (int i = 0; i < w->count; i++)
    dpbo_log_warn("%s", w->text[i]);
}

void dpbo_release_warnings_join(const dpbo_release_warnings *w, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < w->count && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "\n" : "", w->text[i]);
}
