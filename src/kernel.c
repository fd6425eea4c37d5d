#include "dpbo/kernel.h"

#include <math.h>
#include <string.h>

dpbo_status dpbo_kernel_init(dpbo_kernel *kernel, dpbo_kernel_kind kind, int d,
                             const double *lengthscales, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (d < 1 || d > DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_ARG, "kernel dimension %d outside 1..%d", d, DPBO_MAX_DIM);
  if (kind != DPBO_KERNEL_SE && kind != DPBO_KERNEL_MATERN52)
    DPBO_RAISE(DPBO_ERR_ARG, "unknown kernel kind %d", (int)kind);
  memset(kernel, 0, sizeof *kernel);
  kernel->kind = kind;
  kernel->d = d;
  for (int i = 0; i < d; i++) {
    if (!(lengthscales[i] > 0.0) || !isfinite(lengthscales[i]))
      DPBO_RAISE(DPBO_ERR_ARG, "length-scale %d must be a positive number, got %g", i + 1,
                 lengthscales[i]);
    kernel->lengthscale[i] = lengthscales[i];
  }
done:
  return status;
}

dpbo_status dpbo_kernel_kind_parse(const char *text, dpbo_kernel_kind *kind, dpbo_error *err) {
  if (strcmp(text, "se") == 0 || strcmp(text, "squared_exponential") == 0) {
    *kind = DPBO_KERNEL_SE;
    return DPBO_OK;
  }
  if (strcmp(text, "matern52") == 0 || strcmp(text, "matern") == 0) {
    *kind = DPBO_KERNEL_MATERN52;
    return DPBO_OK;
  }
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "unknown kernel '%s' (expected se or matern52)", text);
}

const char *dpbo_kernel_kind_name(dpbo_kernel_kind kind) {
  return kind == DPBO_KERNEL_SE ? "se" : "matern52";
}

double dpbo_kernel_r2(const dpbo_kernel *kernel, const double *a, const double *b) {
  double r2 = 0.0;
  for (int i = 0; i < kernel->d; i++) {
    double z = (a[i] - b[i]) / kernel->lengthscale[i];
    r2 += z * z;
  }
  return r2;
}

double dpbo_kernel_of_r2(const dpbo_kernel *kernel, double r2) {
  if (kernel->kind == DPBO_KERNEL_SE) return exp(-0.5 * r2);
  /* Matérn ν = 5/2 (Rasmussen & Williams eq. 4.17) in r = sqrt(r2). */
  double sr = sqrt(5.0 * r2);
  return (1.0 + sr + (5.0 / 3.0) * r2) * exp(-sr);
}

double dpbo_kernel_eval(const dpbo_kernel *kernel, const double *a, const double *b) {
  return dpbo_kernel_of_r2(kernel, dpbo_kernel_r2(kernel, a, b));
}
