/* `dpbo k1sweep`: the k1 experiment of the paper's Results (Figure 1); the
 * pipeline is described in include/dpbo/k1sweep.h. */
#include "experiments/k1sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/log.h"
#include "dpbo/space.h"
#include "run/config.h"
#include "run/farm.h"
#include "experiments/k1sweep_private.h"

static void k1sweep_state_free(dpbo__k1sweep_state *st) {
  dpbo_svm_data_destroy(st->svm);
  dpbo_objective_destroy(&st->logreg);
  free(st->unit);
  free(st->values);
  for (int s = 0; s < DPBO_K1SWEEP_MAX_SIZES; s++) {
    if (st->rows) free(st->rows[s]);
    if (st->change) free(st->change[s]);
    if (st->fv) free(st->fv[s]);
    if (st->fvp) free(st->fvp[s]);
  }
  free(st->rows);
  free(st->change);
  free(st->fv);
  free(st->fvp);
  free(st->done);
  free(st->fresh);
  free(st->model);
  free(st->accuracy);
  free(st->bits);
}

/* The settings: Sobol points over [space], the same on every rank. */
static dpbo_status k1sweep_settings(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  const dpbo_k1sweep_config *c = st->config;
  DPBO_TRY(dpbo_space_create_sobol(c->dims, c->dim, st->n, &space, err));
  DPBO_ALLOC(st->unit, (size_t)(st->n * st->d), "the settings");
  DPBO_ALLOC(st->values, (size_t)(st->n * st->d), "the settings");
  for (int64_t j = 0; j < st->n; j++) {
    DPBO_TRY(dpbo_space_unit(space, j, st->unit + j * st->d, err));
    dpbo_space_to_values(space, st->unit + j * st->d, st->values + j * st->d);
  }
  st->c_dim = st->gamma_dim = -1;
  for (int i = 0; i < st->d; i++) {
    if (strcmp(c->dim[i].name, "C") == 0) st->c_dim = i;
    if (strcmp(c->dim[i].name, "gamma") == 0) st->gamma_dim = i;
  }
done:
  dpbo_space_destroy(space);
  return status;
}

dpbo_status dpbo_k1sweep_run(MPI_Comm comm, const dpbo_k1sweep_config *config, int64_t stop_after,
                             dpbo_k1sweep_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  dpbo__k1sweep_state st;
  dpbo_k1lik_result results[DPBO_K1SWEEP_MAX_SIZES];
  dpbo_k1gof_result gof[DPBO_K1SWEEP_MAX_SIZES];
  memset(&st, 0, sizeof st);
  memset(results, 0, sizeof results);
  memset(gof, 0, sizeof gof);
  memset(outcome, 0, sizeof *outcome);
  dpbo_farm_stops_reset(); /* a request belongs to one run */
  const double t_start = MPI_Wtime();
  st.config = config;
  st.comm = comm;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &st.rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &st.size));
  st.n = dpbo_k1sweep_settings(config);
  st.d = config->dims;
  st.acc_count = (int64_t)config->size_count * 2 * config->sets;
  dpbo__k1sweep_fingerprint(config, st.fingerprint, sizeof st.fingerprint);
  dpbo__k1sweep_hash(st.fingerprint, st.hash, sizeof st.hash);
  const int synthetic = config->synthetic_models > 0;
  dpbo_log_info("k1sweep: %lld settings, %d validation-set sizes x %lld sets (%s neighbours), %d "
                "rank(s)%s; settings hash %s",
                (long long)st.n, config->size_count, (long long)config->sets,
                dpbo_neighbour_kind_name(config->neighbour), st.size,
                synthetic ? ", synthetic accuracies" : "", st.hash);

  DPBO_TRY(k1sweep_settings(&st, err));
  DPBO_ALLOC(st.fv, DPBO_K1SWEEP_MAX_SIZES, "F_V");
  DPBO_ALLOC(st.fvp, DPBO_K1SWEEP_MAX_SIZES, "F_V'");
  if (synthetic) {
    if (st.rank == 0) local = dpbo__k1sweep_synthetic(&st, err);
    DPBO_TRY(dpbo_comm_agree(comm, local, err));
  } else {
    DPBO_TRY(dpbo__k1sweep_train_all(&st, stop_after, outcome, err));
    if (outcome->interrupted) goto done;
  }

  const double t_likelihood = MPI_Wtime();
  DPBO_TRY(dpbo__k1sweep_likelihood(&st, results, gof, err));

  char path[DPBO_PATH_MAX + 300];
  dpbo_k1sweep_output_path(config, path, sizeof path);
  st.perf_likelihood = MPI_Wtime() - t_likelihood;
  double wall = MPI_Wtime() - t_start;
  DPBO_MPI_TRY(MPI_Bcast(&wall, 1, MPI_DOUBLE, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(st.perf_size, 2 * DPBO_K1SWEEP_MAX_SIZES, MPI_DOUBLE, 0, comm));
  if (!synthetic && st.rank == 0 && st.perf_models > 0) dpbo__k1sweep_log_performance(&st, wall);
  DPBO_TRY(dpbo__k1sweep_write(&st, path, results, gof, wall, err));
  if (!synthetic && st.rank == 0) {
    char checkpoint[DPBO_PATH_MAX + 300];
    dpbo_k1sweep_checkpoint_path(config, checkpoint, sizeof checkpoint);
    remove(checkpoint);
  }
  dpbo_log_info("k1sweep: wrote %s (%.1f s); figure: analysis/plot_k1_sweep.py %s", path, wall,
                path);
done:
  for (int s = 0; s < DPBO_K1SWEEP_MAX_SIZES; s++) {
    dpbo_k1lik_result_free(&results[s]);
    dpbo_k1gof_result_free(&gof[s]);
  }
  k1sweep_state_free(&st);
  return status;
}
