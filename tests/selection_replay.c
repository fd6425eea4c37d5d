/* selection_replay RUNFILE: the release of a seeded private-selection run
 * (privacy.algorithm = random_search | liu_talwar | papernot_steinke),
 * recomputed outside `dpbo run` from what the run file stores and the
 * documented streams, through the functions `dpbo run` calls
 * (run/selection.h): K from the seeded stream DPBO_SELECTION_RUNS_STREAM,
 * the candidates from DPBO_SELECTION_CANDIDATES_STREAM (secret noise, never
 * run.seed), the release noise from stream 0. It checks that the trace's
 * and the stored (/trace/candidates) candidates are that stream and that
 * the trace holds K runs, then prints "INDEX VALUE EPSILON" (%.17g) for the shell test
 * to compare with the release files (tests/selection_run.sh). Exit 1 on a
 * mismatch, 2 on bad use. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "run/output.h"
#include "run/run.h"
#include "run/selection.h"

typedef struct replay {
  const int64_t *index;
  const double *gain;
  int steps;
} replay;

static dpbo_status replay_next(void *context, int64_t k, int64_t *index, double *gain,
                               dpbo_error *err) {
  const replay *r = context;
  if (k >= r->steps)
    return DPBO_ERROR_SET(err, DPBO_ERR_ARG, "run %lld past the trace", (long long)k);
  *index = r->index[k];
  *gain = r->gain[k];
  return DPBO_OK;
}

int main(int argc, char **argv) {
  int code = 1;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_settings stored;
  memset(&stored, 0, sizeof stored);
  int64_t *index = NULL;
  double *gain = NULL;
  int64_t *want = NULL, *candidates = NULL;
  int stored_count = 0;
  int complete = 0, steps = 0;
  dpbo_config config;
  memset(&config, 0, sizeof config);
  MPI_Init(&argc, &argv);
  if (argc == 5 && strcmp(argv[1], "--legacy-stream") == 0) {
    /* selection_replay --legacy-stream SEED N COUNT: the first COUNT
     * candidates of the public stream of run.seed = SEED over Λ of size N,
     * which dpbo drew a run's candidates from before issue #22 (to build an
     * old run file for the resume test). */
    config.seed = strtoull(argv[2], NULL, 10);
    const int64_t n = strtoll(argv[3], NULL, 10);
    const int count_wanted = atoi(argv[4]);
    dpbo_rng rng;
    dpbo_selection_candidate_stream_legacy(&config, &rng);
    for (int t = 0; t < count_wanted; t++)
      printf("%lld%s", (long long)dpbo_selection_candidate(&rng, n),
             t + 1 < count_wanted ? " " : "\n");
    code = 0;
    goto done;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: selection_replay RUNFILE | --legacy-stream SEED N COUNT\n");
    code = 2;
    goto done;
  }
  if (dpbo_output_read_trace(argv[1], &stored, &complete, &steps, &index, &gain, &err) != DPBO_OK)
    goto fail;
  if (dpbo_config_load_stored(argv[1], &stored, 0, NULL, &config, &err) != DPBO_OK) goto fail;
  if (!dpbo_algorithm_is_selection(config.algorithm) || config.noise != DPBO_NOISE_SEEDED) {
    fprintf(stderr, "selection_replay: not a seeded private-selection run\n");
    code = 2;
    goto done;
  }
  /* K: T for random search, else the seeded draw. */
  int planned;
  if (dpbo_selection_planned(MPI_COMM_SELF, &config, &planned, &err) != DPBO_OK) goto fail;
  if (planned != steps) {
    fprintf(stderr, "FAIL: the trace holds %d runs, the K stream gives %d\n", steps, planned);
    goto done;
  }
  /* The candidates: the seeded noise's candidate stream, in order, and the
   * list the run file stores for --resume. */
  dpbo_space *space = NULL;
  if (dpbo_run_space(&config, &space, &err) != DPBO_OK) goto fail;
  const int64_t n = dpbo_space_size(space);
  dpbo_space_destroy(space);
  want = malloc(sizeof *want * (size_t)planned);
  if (!want ||
      dpbo_selection_candidates(MPI_COMM_SELF, &config, planned, n, want, &err) != DPBO_OK ||
      dpbo_output_read_candidates(argv[1], &candidates, &stored_count, &err) != DPBO_OK)
    goto fail;
  if (stored_count != planned) {
    fprintf(stderr, "FAIL: the run file stores %d candidates, not K = %d\n", stored_count, planned);
    goto done;
  }
  for (int t = 0; t < steps; t++) {
    if (index[t] != want[t] || candidates[t] != want[t]) {
      fprintf(stderr,
              "FAIL: step %d evaluated candidate %lld (stored %lld), the stream gives %lld\n",
              t + 1, (long long)index[t], (long long)candidates[t], (long long)want[t]);
      goto done;
    }
  }
  double sens, lo, hi;
  dpbo_selection_accounting acc;
  dpbo_selection_pick pick;
  if (dpbo_selection_gain_range(&config, &sens, &lo, &hi, &err) != DPBO_OK ||
      dpbo_selection_account(
          config.algorithm, (dpbo_privacy_cost){config.privacy_epsilon, config.privacy_delta},
          config.privacy_split, config.iterations, config.ps_eta, &acc, &err) != DPBO_OK)
    goto fail;
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, config.noise_seed, 0); /* the release's stream: rank 0 */
  const dpbo_selection_draw draw = {&noise, config.selection, sens, lo, hi, 1.0};
  if (config.algorithm == DPBO_ALGORITHM_RANDOM_SEARCH) {
    if (dpbo_selection_random_search(&draw, gain, steps, acc.epsilon_select, acc.epsilon_value,
                                     &pick, &err) != DPBO_OK)
      goto fail;
    pick.index = index[pick.position];
  } else {
    replay r = {index, gain, steps};
    const dpbo_selection_runs runs = {replay_next, &r, steps, config.iterations};
    if (dpbo_selection_stopping(&runs, &draw, acc.epsilon_base, &pick, &err) != DPBO_OK) goto fail;
  }
  printf("%lld %.17g %.17g\n", (long long)pick.index, pick.released, acc.epsilon_accounted);
  code = 0;
  goto done;
fail:
  fprintf(stderr, "selection_replay: %s\n", err.message);
done:
  dpbo_config_free(&config);
  dpbo_settings_free(&stored);
  free(index);
  free(want);
  free(candidates);
  free(gain);
  MPI_Finalize();
  return code;
}
