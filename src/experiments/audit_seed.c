/* A private-selection release against an attacker who knows run.seed
 * (`dpbo audit --seed-attack`, audit.h). */
#include "experiments/audit.h"
#include "run/algorithm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "run/selection.h"
#include "dpbo/noise.h"
#include "run/release_private.h"

/* ------------------------------------------------------------------------ */
/* A selection release against an attacker who knows run.seed (audit.h)     */

/* Run k of Q in the seed audit: the k-th candidate, every gain the side's. */
typedef struct seed_draws {
  const int64_t *candidates;
  double gain;
} seed_draws;

static dpbo_status audit_seed_next(void *context, int64_t k, int64_t *index, double *gain,
                                   dpbo_error *err) {
  const seed_draws *d = context;
  (void)err;
  *index = d->candidates[k];
  *gain = d->gain;
  return DPBO_OK;
}

/* The attacker's view of the public stream: its first AUDIT_SEED_PREFIX
 * candidates (K exceeds it with probability (1 - 1/T)^AUDIT_SEED_PREFIX). */
enum { AUDIT_SEED_PREFIX = 512 };

dpbo_status dpbo_audit_selection_seed(MPI_Comm comm, const dpbo_audit_seed_options *options,
                                      dpbo_audit_seed_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  dpbo_config *config = NULL;
  int64_t *candidates = NULL, stream[AUDIT_SEED_PREFIX];
  int rank, size;
  memset(result, 0, sizeof *result);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  if (!dpbo_algorithm_ops_get(options->algorithm)->stopping)
    DPBO_RAISE(DPBO_ERR_ARG,
               "seed audit: %s is not a stopping method (random search's guarantee holds for any "
               "fixed candidate set, public or not)",
               dpbo_algorithm_name(options->algorithm));
  if (options->trials < 1 || options->n < 1 || options->T < 1 ||
      !(options->alpha > 0.0 && options->alpha < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "seed audit: bad trials, |Λ|, T or alpha");
  DPBO_ALLOC(config, 1, "the seed audit's config");
  config->algorithm = options->algorithm;
  config->iterations = options->T;
  config->seed = options->run_seed;
  config->privacy_epsilon = options->epsilon;
  config->privacy_delta = options->delta;
  config->ps_eta = options->ps_eta;
  config->noise = DPBO_NOISE_SEEDED;
  snprintf(config->path, sizeof config->path, "seed audit");
  dpbo_selection_accounting acc;
  DPBO_TRY(dpbo_selection_account(options->algorithm,
                                  (dpbo_privacy_cost){options->epsilon, options->delta}, 0.5,
                                  options->T, options->ps_eta, &acc, err));
  result->epsilon_claimed = acc.epsilon_accounted;
  result->delta_claimed = acc.delta_accounted;
  /* What the attacker computes from run.seed: the stream the candidates
   * came from before issue #22. */
  {
    dpbo_rng rng;
    dpbo_selection_candidate_stream_legacy(config, &rng);
    for (int p = 0; p < AUDIT_SEED_PREFIX; p++)
      stream[p] = dpbo_selection_candidate(&rng, options->n);
  }
  /* Trial i on side s is the run with noise_seed = seed + 2 i + s. */
  const double sensitivity = 1.0, g = 0.0;
  int64_t hits[2] = {0, 0};
  for (int64_t i = rank; i < options->trials && local == DPBO_OK; i += size)
    for (int side = 0; side < 2 && local == DPBO_OK; side++) {
      config->noise_seed = options->seed + 2 * (uint64_t)i + (uint64_t)side;
      dpbo_noise noise;
      dpbo_noise_init_seeded(&noise, config->noise_seed, DPBO_SELECTION_RUNS_STREAM);
      const int64_t K = dpbo_selection_draw_runs(&noise, options->algorithm, options->T, &acc);
      if (K > 100000000) {
        local = DPBO_ERROR_SET(err, DPBO_ERR_NUMERIC, "seed audit: K = %lld", (long long)K);
        break;
      }
      int64_t *grown = realloc(candidates, sizeof *candidates * (size_t)K);
      if (!grown) {
        local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "seed audit: out of memory");
        break;
      }
      candidates = grown;
      if (options->public_candidates) {
        dpbo_rng rng;
        dpbo_selection_candidate_stream_legacy(config, &rng);
        for (int64_t k = 0; k < K; k++)
          candidates[k] = dpbo_selection_candidate(&rng, options->n);
      } else {
        local =
            dpbo_selection_candidates(MPI_COMM_SELF, config, (int)K, options->n, candidates, err);
        if (local != DPBO_OK) break;
      }
      seed_draws draws = {candidates, g + side * sensitivity};
      dpbo_selection_pick pick;
      dpbo_noise_init_seeded(&noise, config->noise_seed, 0); /* the release's: rank 0 */
      const dpbo_selection_runs runs = {audit_seed_next, &draws, K, options->T};
      const dpbo_selection_draw draw = {
          &noise, DPBO_SELECT_EXPONENTIAL, sensitivity, -INFINITY, INFINITY, 1.0};
      local = dpbo_selection_stopping(&runs, &draw, acc.epsilon_base, &pick, err);
      if (local != DPBO_OK) break;
      int j = -1;
      for (int p = 0; p < AUDIT_SEED_PREFIX && j < 0; p++)
        if (stream[p] == pick.index) j = p;
      hits[side] += j >= options->position && pick.released < g + options->score * sensitivity;
    }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Allreduce(hits, result->hits, 2, MPI_INT64_T, MPI_SUM, comm));
  result->trials = options->trials;
  result->p_lower = dpbo_audit_cp_lower(result->hits[0], options->trials, options->alpha / 2);
  result->p_upper = dpbo_audit_cp_upper(result->hits[1], options->trials, options->alpha / 2);
  result->epsilon_lower = result->p_lower > result->delta_claimed
                              ? log((result->p_lower - result->delta_claimed) / result->p_upper)
                              : -INFINITY;
  result->violated = result->epsilon_lower > result->epsilon_claimed;
done:
  free(candidates);
  free(config);
  return status;
}
