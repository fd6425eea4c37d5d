/* The private-selection methods, shared by `dpbo run` and `dpbo compare`
 * (selection.h; the formulas in core/baseline.h). */
#include "run/selection.h"

#include <math.h>
#include <string.h>

#include "base/comm.h"
#include "run/algorithm.h"
#include "core/baseline.h"
#include "core/profile.h"
#include "core/mechanism_private.h"
#include "objectives/logreg.h"

const char *dpbo_selection_bound_name(dpbo_selection_bound bound) {
  switch (bound) {
  case DPBO_SELECTION_BOUND_BASIC:
    return "basic composition of the selection's and the value's pure epsilon (Chaudhuri and "
           "Vinterbo 2013)";
  case DPBO_SELECTION_BOUND_PURE:
    return "pure (3 epsilon0, 0) of random stopping (Liu and Talwar 2019, Theorem 3.4)";
  case DPBO_SELECTION_BOUND_PROFILE:
    return "privacy profile bound of the best of K runs (docs/privacy-proofs.md section 8)";
  case DPBO_SELECTION_BOUND_RENYI:
    return "Renyi DP of the best of K runs (Papernot and Steinke 2022, Theorem 2) converted to "
           "(epsilon, delta) (Canonne, Kamath and Steinke 2020, Proposition 12)";
  }
  return "unknown";
}

dpbo_status dpbo_selection_account(dpbo_algorithm algorithm, dpbo_privacy_cost total, double split,
                                   int T, double ps_eta, dpbo_selection_accounting *out,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double epsilon = total.epsilon, delta = total.delta;
  memset(out, 0, sizeof *out);
  out->epsilon = epsilon;
  out->delta = delta;
  if (!(epsilon > 0.0 && isfinite(epsilon) && T >= 1))
    DPBO_RAISE(DPBO_ERR_ARG, "selection accounting: bad budget (epsilon %g, T %d)", epsilon, T);
  /* Each method's calibration lives in its row of the registry
   * (run/alg_random_search.c, run/alg_stopping.c). */
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(algorithm);
  if (!ops->account)
    DPBO_RAISE(DPBO_ERR_ARG, "selection accounting: %s is not a selection method",
               dpbo_algorithm_name(algorithm));
  DPBO_TRY(ops->account(epsilon, delta, split, T, ps_eta, out, err));
done:
  return status;
}

dpbo_status dpbo_selection_gain_range(const dpbo_config *config, double *sensitivity, double *lo,
                                      double *hi, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  if (config->objective != DPBO_OBJECTIVE_SVM && !logreg)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the private-selection methods need objective.kind = svm or logreg (they rest "
               "on the gain's sensitivity over the m validation records)",
               config->path);
  if (logreg) {
    /* g ∈ [0, g*]: f_V(w_λ) moves by at most g* / m for a fixed λ. */
    double L, gstar;
    dpbo_logreg_loss_constants(config->logreg.loss, &L, &gstar);
    *sensitivity = dpbo_privacy_gain_sensitivity(config->logreg.validation_rows, gstar);
  } else {
    /* An accuracy: each record scores 0 or 1. */
    *sensitivity = dpbo_privacy_gain_sensitivity(config->svm.validation_rows, 1.0);
  }
  *lo = config->clamp_value ? config->value_lo : logreg ? -1.0 : 0.0;
  *hi = config->clamp_value ? config->value_hi : logreg ? 0.0 : 1.0;
done:
  return status;
}

int64_t dpbo_selection_candidate(dpbo_rng *rng, int64_t n) {
  return (int64_t)dpbo_rng_below64(rng, (uint64_t)n);
}

void dpbo_selection_candidate_stream_legacy(const dpbo_config *config, dpbo_rng *rng) {
  /* "select": the stream of run.seed the old version used. */
  dpbo_rng_seed(rng, config->seed ^ 0x73656c656374ull, 0);
}

/* The release noise source of a `dpbo run` on `stream` when seeded. */
static void selection_noise(const dpbo_config *config, uint64_t stream, dpbo_noise *noise) {
  if (config->noise == DPBO_NOISE_SEEDED)
    dpbo_noise_init_seeded(noise, config->noise_seed, stream);
  else
    dpbo_noise_init_os(noise);
}

int64_t dpbo_selection_law_draw(dpbo_noise *noise, const dpbo_selection_law *law) {
  if (!law->cdf) return (int64_t)dpbo_noise_below(noise, (uint64_t)law->n);
  const uint64_t u = dpbo_noise_below(noise, law->cdf[law->n - 1]);
  int64_t lo = 0, hi = law->n - 1; /* the first i with cdf[i] > u lies in [lo, hi] */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (law->cdf[mid] > u)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

dpbo_status dpbo_selection_candidates(MPI_Comm comm, const dpbo_config *config, int planned,
                                      int64_t n, int64_t *candidates, dpbo_error *err) {
  const dpbo_selection_law uniform = {n, NULL};
  return dpbo_selection_candidates_law(comm, config, planned, &uniform, candidates, err);
}

dpbo_status dpbo_selection_candidates_law(MPI_Comm comm, const dpbo_config *config, int planned,
                                          const dpbo_selection_law *law, int64_t *candidates,
                                          dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const int64_t n = law->n;
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    /* Secret, like K: the proofs treat each run's candidate as a fresh
     * uniform draw inside the mechanism (selection.h). */
    dpbo_noise noise;
    selection_noise(config, DPBO_SELECTION_CANDIDATES_STREAM, &noise);
    if (planned < 1 || n < 1)
      local = DPBO_ERROR_SET(err, DPBO_ERR_ARG, "candidates: %d of a space of %lld", planned,
                             (long long)n);
    for (int t = 0; local == DPBO_OK && t < planned; t++)
      candidates[t] = dpbo_selection_law_draw(&noise, law);
    if (local == DPBO_OK) local = dpbo_noise_check(&noise, err);
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(candidates, planned, MPI_INT64_T, 0, comm));
done:
  return status;
}

int64_t dpbo_selection_draw_runs(dpbo_noise *noise, dpbo_algorithm algorithm, int T,
                                 const dpbo_selection_accounting *acc) {
  /* Each stopping method's law of K: run/alg_stopping.c. */
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(algorithm);
  return ops->draw_runs ? ops->draw_runs(noise, T, acc) : T; /* random search: its T */
}

dpbo_status dpbo_selection_planned(MPI_Comm comm, const dpbo_config *config, int *planned,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  long long K = config->iterations;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (dpbo_algorithm_ops_get(config->algorithm)->stopping) {
    if (rank == 0) {
      dpbo_selection_accounting acc;
      dpbo_noise noise;
      selection_noise(config, DPBO_SELECTION_RUNS_STREAM, &noise);
      local = dpbo_selection_account(
          config->algorithm, (dpbo_privacy_cost){config->privacy_epsilon, config->privacy_delta},
          config->privacy_split, config->iterations, config->ps_eta, &acc, err);
      if (local != DPBO_OK)
        dpbo_error_prefix(err, "%s: privacy.epsilon = %g with privacy.delta = %g and T = %d",
                          config->path, config->privacy_epsilon, config->privacy_delta,
                          config->iterations);
      if (local == DPBO_OK)
        K = dpbo_selection_draw_runs(&noise, config->algorithm, config->iterations, &acc);
      if (local == DPBO_OK) local = dpbo_noise_check(&noise, err);
      /* The trace is indexed by int: a K past it (probability below 1e-9
       * for any T of a run) is refused rather than cut short, since a cut
       * would change the law the accounting assumes. */
      if (local == DPBO_OK && K > 100000000LL)
        local = DPBO_ERROR_SET(err, DPBO_ERR_NUMERIC,
                               "the number of runs drawn exceeds 1e8; nothing was evaluated");
    }
    DPBO_TRY(dpbo_comm_agree(comm, local, err));
    DPBO_MPI_TRY(MPI_Bcast(&K, 1, MPI_LONG_LONG, 0, comm));
  }
  *planned = (int)K;
done:
  return status;
}

dpbo_status dpbo_selection_stopping(const dpbo_selection_runs *plan,
                                    const dpbo_selection_draw *draw, double epsilon0,
                                    dpbo_selection_pick *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_selection_next_fn next = plan->next;
  void *const context = plan->context;
  dpbo_noise *const noise = draw->noise;
  const double sensitivity = draw->sensitivity, lo = draw->lo, hi = draw->hi;
  const double noise_scale = draw->noise_scale;
  const int64_t K = plan->K;
  const int T = plan->T;
  double best = -INFINITY;
  memset(out, 0, sizeof *out);
  for (int64_t runs = 0;;) {
    int64_t index;
    double gain;
    DPBO_TRY(next(context, runs, &index, &gain, err));
    dpbo_laplace_release lap;
    const dpbo__laplace_args args = {noise, gain, sensitivity, epsilon0, 0.0, 0.0, noise_scale};
    DPBO_TRY(dpbo__mech_laplace_scaled(&args, &lap, err));
    runs++;
    /* Ties go to the first run. The scores lie on the Laplace mechanism's
     * grid, about 2^-40 b fine, so a tie has probability of that order, not
     * 0; still no secret coin is needed: given K the runs are i.i.d., hence
     * exchangeable, so "the first of the tied" releases (candidate, score)
     * with the same law as a uniformly random one among them, and the run's
     * position is never released (the candidates are secret, selection.h). */
    if (lap.value > best) {
      best = lap.value;
      out->index = index;
      out->position = runs - 1;
      out->value = lap;
    }
    if (K > 0 ? runs >= K : dpbo_mech_bernoulli(noise, 1, (uint64_t)T)) {
      out->runs = runs;
      break;
    }
  }
  DPBO_TRY(dpbo_noise_check(noise, err));
  /* The released score, clamped to the gain's range (post-processing). */
  out->released = fmin(fmax(best, lo), hi);
  out->value.clamped = out->released != best;
  out->epsilon_spent = out->value.epsilon_spent;
done:
  return status;
}

dpbo_status dpbo_selection_random_search(const dpbo_selection_draw *draw, const double *gains,
                                         int T, double epsilon_select, double epsilon_value,
                                         dpbo_selection_pick *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise *const noise = draw->noise;
  const dpbo_select_kind kind = draw->kind;
  const double sensitivity = draw->sensitivity, lo = draw->lo, hi = draw->hi;
  const double noise_scale = draw->noise_scale;
  memset(out, 0, sizeof *out);
  /* No tie-break to draw: both mechanisms pick a position by proposals from
   * `noise` (exponential: uniform proposals accepted with their weight;
   * permute-and-flip: a uniformly random order), so equal gains are chosen
   * with equal probability by construction. */
  const dpbo__select_args args = {
      MPI_COMM_SELF, 0, noise, kind, gains, 0, T, T, sensitivity, epsilon_select, noise_scale};
  DPBO_TRY(dpbo__mech_select_scaled(&args, &out->select, err));
  out->position = out->select.index;
  out->runs = T;
  const dpbo__laplace_args value = {noise, gains[out->position], sensitivity, epsilon_value, lo,
                                    hi,    noise_scale};
  DPBO_TRY(dpbo__mech_laplace_scaled(&value, &out->value, err));
  out->released = out->value.value;
  out->epsilon_spent = dpbo_privacy_round_up(out->select.epsilon_spent + out->value.epsilon_spent);
done:
  return status;
}
