/* Audit-only entry point of release.c, for the whole-pipeline audit
 * (`dpbo audit --pipeline`, audit.c).
 *
 * dpbo_release_draw is this function with both factors exactly 1. A
 * sensitivity_factor below 1 draws the release as if every sensitivity
 * (Δ_λ and the value's) were that many times smaller (the release records
 * the shrunken sensitivities it used), the way an implementation with an
 * underestimated sensitivity would; a noise_scale_factor below 1 multiplies
 * the mechanisms' noise scale (mechanism_private.h) while the release still
 * claims its ε. Either makes the release spend more than it claims, which
 * is what the audit must catch. The declaration lives in src/, not in
 * include/dpbo/, so no release path can reach a factor other than 1; the
 * double underscore marks it private (HDF5 habit). */
#ifndef DPBO_RELEASE_PRIVATE_H
#define DPBO_RELEASE_PRIVATE_H

#include "run/release.h"

/* The two factors, 1 and 1 in every release path. */
typedef struct dpbo__release_scale {
  double sensitivity_factor, noise_scale_factor;
} dpbo__release_scale;

dpbo_status dpbo__release_draw_scaled(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                      dpbo_noise *noise, const dpbo__release_scale *scale,
                                      dpbo_release *out, dpbo_error *err);

/* The non-private best value the value release perturbs: max_t v_t
 * (Algorithm 1, Algorithm 3's f^BO) or max_{2 <= t <= T} f(λ_t)
 * (Algorithm 2). The audit uses it to place its histogram and to compute
 * the exact privacy loss of the release on the audited pair. */
double dpbo__release_best_value(const dpbo_config *config, const dpbo_run *run);

#endif
