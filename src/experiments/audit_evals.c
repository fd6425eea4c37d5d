/* The pipeline audit of privatized evaluations (audit_evals.h). */
#include "experiments/audit_evals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/accountant.h"
#include "dpbo/mechanism.h"
#include "objectives/logreg.h"
#include "run/private_evals_settings.h"
#include "run/run.h"

struct dpbo_audit_evals {
  dpbo_config cfg;    /* D's, for the GP-UCB step (memory limit off) */
  int64_t n;          /* |Λ| */
  double *f[2];       /* f_V(λ), f_V'(λ) over Λ */
  double sensitivity; /* Δ as claimed (x sensitivity_factor) */
  double sigma;       /* σ of the draws */
  double scale;       /* Δ σ of Z's denominator (the real Δ) */
  double max_difference;
  int T;
};

/* One trial's evaluation: the table value of its side through the
 * Gaussian mechanism; Z accumulates. */
typedef struct audit_evals_trial {
  dpbo_audit_evals *ae;
  int side;
  dpbo_noise *noise;
  double z;
} audit_evals_trial;

static dpbo_status audit_evals_evaluate(void *context, int64_t index, double *gain,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  audit_evals_trial *tr = context;
  const dpbo_audit_evals *ae = tr->ae;
  dpbo_gaussian_release release;
  if (index < 0 || index >= ae->n)
    DPBO_RAISE(DPBO_ERR_ARG, "candidate %lld outside Λ", (long long)index);
  DPBO_TRY(dpbo_mech_gaussian(tr->noise, ae->f[tr->side][index], ae->sensitivity, ae->sigma,
                              &release, err));
  *gain = release.value;
  const double a = ae->f[0][index], b = ae->f[1][index];
  tr->z += (b - a) * (release.value - 0.5 * (a + b)) / ae->scale;
done:
  return status;
}

void dpbo_audit_evals_destroy(dpbo_audit_evals *ae) {
  if (!ae) return;
  free(ae->f[0]);
  free(ae->f[1]);
  free(ae);
}

dpbo_status dpbo_audit_evals_create(const dpbo_config *cfg, double sensitivity_factor,
                                    double noise_scale_factor, dpbo_audit_evals **out,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_audit_evals *ae = NULL;
  dpbo_space *space = NULL;
  dpbo_objective objective = {NULL, NULL};
  *out = NULL;
  DPBO_ALLOC(ae, 1, "the audit of privatized evaluations");
  ae->cfg = cfg[0];
  ae->cfg.memory_limit_mb = 0.0; /* Λ is small; no node memory detection per trial */
  ae->T = cfg[0].iterations;
  DPBO_TRY(dpbo_run_space(&cfg[0], &space, err));
  ae->n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    names[i] = dpbo_space_dim(space, i)->name;
  for (int side = 0; side < 2; side++) {
    DPBO_ALLOC(ae->f[side], ae->n, "the audit's tables");
    DPBO_TRY(dpbo_logreg_objective_create(&cfg[side].logreg, &objective, err));
    for (int64_t i = 0; i < ae->n; i++) {
      double u[DPBO_MAX_DIM], values[DPBO_MAX_DIM];
      DPBO_TRY(dpbo_space_unit(space, i, u, err));
      dpbo_space_to_values(space, u, values);
      DPBO_TRY(dpbo_objective_evaluate(&objective, d, names, values, &ae->f[side][i], err));
    }
    dpbo_objective_destroy(&objective);
    objective.ops = NULL;
  }
  for (int64_t i = 0; i < ae->n; i++)
    ae->max_difference = fmax(ae->max_difference, fabs(ae->f[1][i] - ae->f[0][i]));
  /* σ as the run calibrates it, from the (possibly understated) Δ. */
  const dpbo_private_evals_settings *e = &cfg[0].evals;
  ae->sensitivity = e->sensitivity * sensitivity_factor;
  double noise_std_unused;
  DPBO_TRY(dpbo_private_evals_calibrate(
      e->max_evaluations, ae->sensitivity,
      (dpbo_privacy_cost){cfg[0].privacy_epsilon, cfg[0].privacy_delta}, 0.0, &ae->sigma,
      &noise_std_unused, err));
  ae->sigma *= noise_scale_factor;
  ae->scale = e->sensitivity * ae->sigma;
  *out = ae;
  ae = NULL;
done:
  if (objective.ops) dpbo_objective_destroy(&objective);
  dpbo_space_destroy(space);
  dpbo_audit_evals_destroy(ae);
  return status;
}

dpbo_status dpbo_audit_evals_trial(dpbo_audit_evals *ae, int side, dpbo_noise *noise, double *z,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_run run;
  audit_evals_trial tr = {ae, side, noise, 0.0};
  memset(&run, 0, sizeof run);
  DPBO_TRY(dpbo_run_create(MPI_COMM_SELF, &ae->cfg, &run, err));
  for (int t = 0; t < ae->T; t++)
    DPBO_TRY(dpbo_run_step(MPI_COMM_SELF, &ae->cfg, audit_evals_evaluate, &tr, &run, err));
  if (run.failures > 0) DPBO_RAISE(DPBO_ERR_NUMERIC, "an audited evaluation failed");
  *z = tr.z;
done:
  dpbo_run_free(&run);
  return status;
}

double dpbo_audit_evals_sigma(const dpbo_audit_evals *ae) { return ae->sigma; }

double dpbo_audit_evals_sensitivity(const dpbo_audit_evals *ae) { return ae->sensitivity; }

double dpbo_audit_evals_max_difference(const dpbo_audit_evals *ae) { return ae->max_difference; }

double dpbo_audit_evals_best(const dpbo_audit_evals *ae, int side) {
  double best = -INFINITY;
  for (int64_t i = 0; i < ae->n; i++)
    best = fmax(best, ae->f[side][i]);
  return best;
}

void dpbo_audit_evals_range(const dpbo_audit_evals *ae, double *lo, double *hi) {
  /* |E Z| <= T dmax²/(2Δσ), sd Z <= √T dmax/Δ (Δ the real sensitivity). */
  const double delta = ae->scale / ae->sigma;
  const double mean = ae->T * ae->max_difference * ae->max_difference / (2.0 * ae->scale);
  const double sd = sqrt((double)ae->T) * ae->max_difference / delta;
  *lo = -mean - 8.0 * sd;
  *hi = mean + 8.0 * sd;
}

dpbo_status dpbo_audit_evals_pair_loss(const dpbo_audit_evals *ae, double delta, double *loss,
                                       dpbo_error *err) {
  const double mu = sqrt((double)ae->T) * ae->max_difference / ae->sigma;
  *loss = 0.0;
  if (!(mu > 0)) return DPBO_OK;
  return dpbo_accountant_gdp_epsilon(mu, delta, loss, err);
}
