/* Test-only entry points of mechanism.c, for the privacy audit (audit.c).
 *
 * noise_scale_factor multiplies the noise scale the mechanism would use for
 * the requested ε: 1 is the real mechanism; 0.5 is the "deliberately broken"
 * variant of the audit (half the Laplace scale, twice the selection rate η,
 * half the Gaussian σ),
 * whose true privacy loss is about 2ε while it still claims ε. These
 * declarations live in src/, not in include/dpbo/, so that no release path
 * can reach a scale other than 1: dpbo_mech_laplace and dpbo_mech_select call
 * them with exactly 1. The double underscore marks them private (HDF5 habit).
 * With a factor other than 1 the out->epsilon_spent field reports the true
 * cost of the draw, which then exceeds the requested ε. */
#ifndef DPBO_MECHANISM_PRIVATE_H
#define DPBO_MECHANISM_PRIVATE_H

#include "dpbo/mechanism.h"

/* dpbo_mech_laplace's arguments (include/dpbo/mechanism.h says what each
 * means) and the noise scale factor, in one struct. */
typedef struct dpbo__laplace_args {
  dpbo_noise *noise;
  double x, sensitivity, epsilon;
  double lo, hi; /* the clamp range; lo = hi for none */
  double noise_scale_factor;
} dpbo__laplace_args;

dpbo_status dpbo__mech_laplace_scaled(const dpbo__laplace_args *args, dpbo_laplace_release *out,
                                      dpbo_error *err);

/* dpbo_mech_select's arguments (include/dpbo/mechanism.h says what each
 * means) and the noise scale factor, in one struct. */
typedef struct dpbo__select_args {
  MPI_Comm comm;
  int root;
  dpbo_noise *noise;
  dpbo_select_kind kind;
  const double *scores; /* this rank's block [begin, begin + count) of n */
  int64_t begin, count, n;
  double sensitivity, epsilon;
  double noise_scale_factor;
} dpbo__select_args;

dpbo_status dpbo__mech_select_scaled(const dpbo__select_args *args, dpbo_select_release *out,
                                     dpbo_error *err);

/* The Gaussian mechanism with σ·noise_scale_factor in place of σ for the draw
 * (out->sigma keeps the σ asked for; out->sigma_used is the true one). */
dpbo_status dpbo__mech_gaussian_scaled(dpbo_noise *noise, double x, double sensitivity,
                                       double sigma, double noise_scale_factor,
                                       dpbo_gaussian_release *out, dpbo_error *err);

#endif
