/* The pipeline audit of `privacy.algorithm = private_evaluations`
 * (`dpbo audit --pipeline`, issue #13 item 5): the composed T-step
 * mechanism — a whole GP-UCB run whose every evaluation goes through the
 * discrete Gaussian mechanism — on a real neighbouring pair (D, D').
 *
 * The logreg objective is deterministic, so f_V(λ) and f_V'(λ) are computed
 * once for every λ of Λ; each trial then runs GP-UCB (run.h's step, on
 * MPI_COMM_SELF) on one side with fresh operating-system noise from
 * dpbo_mech_gaussian, exactly as the privatized run draws it. The audit
 * tests one real-valued function of the whole output (λ_1, ṽ_1, ...,
 * λ_T, ṽ_T), which is post-processing and so can only show less loss than
 * the output has: the log-likelihood-ratio direction of the pair,
 *   Z = Σ_t d_t (ṽ_t − (f_V(λ_t) + f_V'(λ_t))/2) / (Δ σ),  d_t = f_V'(λ_t) − f_V(λ_t),
 * the most powerful statistic of the composed Gaussian mechanism on this
 * pair. A sensitivity understated (sensitivity_factor < 1: σ calibrated to
 * a smaller Δ) or noise cut (noise_scale_factor < 1) makes the pair's loss
 * exceed the claim, which the histogram test catches. */
#ifndef DPBO_AUDIT_EVALS_H
#define DPBO_AUDIT_EVALS_H

#include "dpbo/error.h"
#include "dpbo/noise.h"
#include "run/config.h"

typedef struct dpbo_audit_evals dpbo_audit_evals;

/* cfg[0] = D, cfg[1] = D' (logreg, algorithm private_evaluations). */
dpbo_status dpbo_audit_evals_create(const dpbo_config *cfg, double sensitivity_factor,
                                    double noise_scale_factor, dpbo_audit_evals **out,
                                    dpbo_error *err);
void dpbo_audit_evals_destroy(dpbo_audit_evals *ae);

/* One privatized run on side 0 (D) or 1 (D'): the statistic Z of its output. */
dpbo_status dpbo_audit_evals_trial(dpbo_audit_evals *ae, int side, dpbo_noise *noise, double *z,
                                   dpbo_error *err);

/* What the report needs: σ of the draws, the sensitivity claimed (Δ x
 * sensitivity_factor), the largest |f_V'(λ) − f_V(λ)| over Λ, a range of Z
 * that holds all but a negligible share of the trials, and the loss of the
 * composed mechanism on this pair (an upper bound: the continuous Gaussian's
 * ε at δ for μ = √T max|d|/σ, the path taking the largest |d| every time). */
double dpbo_audit_evals_sigma(const dpbo_audit_evals *ae);
double dpbo_audit_evals_sensitivity(const dpbo_audit_evals *ae);
double dpbo_audit_evals_max_difference(const dpbo_audit_evals *ae);
/* max_Λ f on side 0 (D) or 1 (D'): the non-private best value. */
double dpbo_audit_evals_best(const dpbo_audit_evals *ae, int side);
void dpbo_audit_evals_range(const dpbo_audit_evals *ae, double *lo, double *hi);
dpbo_status dpbo_audit_evals_pair_loss(const dpbo_audit_evals *ae, double delta, double *loss,
                                       dpbo_error *err);

#endif
