/* `dpbo run` of the GP-guided private selection (guided.h,
 * dpbo_guided_run; docs/privacy-proofs.md section 14): the two stages
 * through the driver's task farm on a real objective, the law π between
 * them, one run file that records both and one release, charged before the
 * first mechanism. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "base/log.h"
#include "dpbo/ucb.h"
#include "run/algorithm.h"
#include "run/driver.h"
#include "run/farm.h"
#include "run/guided.h"
#include "run/ledger.h"
#include "run/output.h"
#include "run/publish.h"
#include "run/release.h"
#include "run/session.h"

/* What the run file records of stage 1 and of the law (/guided): the
 * accounting, the settings, stage 1's run and π's extremes. */
typedef struct guided_run_record {
  const dpbo_guided_accounting *acc;
  const dpbo_guided_settings *s;
  const dpbo_run *stage1;
  double pi_min, pi_max;
  /* Stage 1's released values (rank 0): λ_t's index and noisy v_t (NaN:
   * failed), in /guided and in both release files alike. */
  int64_t *stage1_index;
  double *stage1_value;
} guided_run_record;

/* π on rank 0 from stage 1's posterior, whose blocks of Λ the ranks hold
 * (collective): every rank scores its block (dpbo_guided_scores), rank 0
 * gathers the scores in Λ's order and builds the integer law
 * (dpbo_guided_law). Only rank 0 draws the candidates
 * (dpbo_selection_candidates_law), so only rank 0 needs π; *cdf stays NULL
 * elsewhere. rec->pi_min and rec->pi_max: π's extremes (rank 0). */
static dpbo_status guided_run_law(MPI_Comm comm, const dpbo_config *stage1, guided_run_record *rec,
                                  uint64_t **cdf, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank, size;
  double *u = NULL, *all = NULL;
  int *counts = NULL, *displs = NULL;
  *cdf = NULL;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const dpbo_run *run = rec->stage1;
  const dpbo_guided_settings *s = rec->s;
  const int64_t n = dpbo_space_size(run->space), count = dpbo_ucb_count(run->ucb);
  if (n > INT32_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "privacy.algorithm = guided gathers its law over |Lambda| = %lld candidates on "
               "rank 0, at most %d",
               (long long)n, INT32_MAX);
  u = malloc(sizeof *u * (size_t)(count > 0 ? count : 1));
  if (rank == 0) {
    all = malloc(sizeof *all * (size_t)n);
    *cdf = malloc(sizeof **cdf * (size_t)n);
    counts = malloc(sizeof *counts * (size_t)size);
    displs = malloc(sizeof *displs * (size_t)size);
  }
  local = u && (rank != 0 || (all && *cdf && counts && displs))
              ? DPBO_OK
              : DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the guided law");
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  dpbo_guided_scores(stage1, run, s->score, u);
  if (rank == 0)
    for (int r = 0; r < size; r++) {
      int64_t begin, c;
      dpbo_space_block(n, size, r, &begin, &c);
      counts[r] = (int)c;
      displs[r] = (int)begin;
    }
  DPBO_MPI_TRY(MPI_Gatherv(u, (int)count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, comm));
  if (rank == 0) {
    local = dpbo_guided_law(all, n, s->weight, s->temperature, *cdf, err);
    if (local == DPBO_OK) {
      uint64_t wmax = (*cdf)[0], wmin = (*cdf)[0];
      for (int64_t i = 1; i < n; i++) {
        const uint64_t w = (*cdf)[i] - (*cdf)[i - 1];
        wmax = w > wmax ? w : wmax;
        wmin = w < wmin ? w : wmin;
      }
      rec->pi_max = (double)wmax / (double)(*cdf)[n - 1];
      rec->pi_min = (double)wmin / (double)(*cdf)[n - 1];
    }
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* (Stated in the release, which every rank holds.) */
  double extremes[2] = {rec->pi_min, rec->pi_max};
  DPBO_MPI_TRY(MPI_Bcast(extremes, 2, MPI_DOUBLE, 0, comm));
  rec->pi_min = extremes[0];
  rec->pi_max = extremes[1];
done:
  if (status != DPBO_OK) {
    free(*cdf);
    *cdf = NULL;
  }
  free(u);
  free(all);
  free(counts);
  free(displs);
  return status;
}

/* /guided in the run file (rank 0, after the run file is written): its
 * attributes (the accounting, π's extremes) and stage 1's trace (λ_t's
 * index and noisy v_t, publishable with the release). */
static dpbo_status guided_run_write_stage1(const char *path, const guided_run_record *rec,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_run *run = rec->stage1;
  const dpbo_guided_accounting *acc = rec->acc;
  dpbo_h5io_file out;
  hid_t group = -1;
  const int64_t *index = rec->stage1_index;
  const double *value = rec->stage1_value;
  memset(&out, 0, sizeof out);
  out.id = -1;
  DPBO_TRY(dpbo_h5io_modify(path, &out, err));
  group = H5Gcreate2(out.id, "guided", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /guided in %s", path);
  const int proxy = dpbo_guided_stage1_is_proxy(rec->s);
  DPBO_TRY(dpbo_h5io_attr_string(
      group, "note",
      proxy ? "privacy.algorithm = guided, stage 1 on the proxy task (stage1_index, stage1_value: "
              "exact accuracies on the last stage1_proxy_rows training rows, statistics of the "
              "training rows that no guarantee covers: not part of the release) and the law pi "
              "built from it; /trace holds stage 2's secret candidates and raw gains: never "
              "publish it"
            : "privacy.algorithm = guided: stage 1 (stage1_index, stage1_value: every value "
              "through the discrete Gaussian mechanism, publishable with the release) and the law "
              "pi built from it; /trace holds stage 2's secret candidates and raw gains: never "
              "publish it",
      err));
  const int64_t proxy_rows = rec->s->proxy_rows;
  DPBO_TRY(dpbo_h5io_attr_int64(group, "stage1_proxy_rows", &proxy_rows, 1, err));
  DPBO_TRY(dpbo_h5io_attr_string(group, "stage2_base", dpbo_algorithm_name(rec->s->base), err));
  const int64_t ints[] = {acc->stage1_evaluations, acc->stage2_runs};
  DPBO_TRY(dpbo_h5io_attr_int64(group, "stage1_evaluations", &ints[0], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "stage2_expected_runs", &ints[1], 1, err));
  const struct {
    const char *name;
    double value;
  } numbers[] = {{"epsilon_total", acc->epsilon_accounted},
                 {"delta_total", acc->delta_accounted},
                 {"stage1_epsilon", acc->epsilon1},
                 {"stage1_delta", acc->delta1},
                 {"stage1_epsilon_accounted", acc->epsilon1_accounted},
                 {"stage1_sigma", acc->sigma},
                 {"stage1_gp_noise_std", acc->gp_noise_std_used},
                 {"stage2_epsilon", acc->stage2.epsilon},
                 {"stage2_delta", acc->stage2.delta},
                 {"stage2_epsilon_accounted", acc->stage2.epsilon_accounted},
                 {"stage2_delta_accounted", acc->stage2.delta_accounted},
                 {"stage2_epsilon_base", acc->stage2.epsilon_base},
                 {"stage2_epsilon_select", acc->stage2.epsilon_select},
                 {"stage2_epsilon_value", acc->stage2.epsilon_value},
                 {"pi_min", rec->pi_min},
                 {"pi_max", rec->pi_max},
                 {"weight", rec->s->weight},
                 {"temperature", rec->s->temperature}};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
    DPBO_TRY(dpbo_h5io_attr_doubles(group, numbers[i].name, &numbers[i].value, 1, err));
  const hsize_t dims[1] = {(hsize_t)run->steps};
  DPBO_TRY(dpbo_h5io_write_array(group, "stage1_index", H5T_NATIVE_INT64, 1, dims, index, err));
  DPBO_TRY(dpbo_h5io_write_array(group, "stage1_value", H5T_NATIVE_DOUBLE, 1, dims, value, err));
  H5Gclose(group);
  group = -1;
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (group >= 0) H5Gclose(group);
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  return status;
}

/* The release's part in the release transaction (run/publish.h). */
typedef struct guided_publishing {
  const dpbo_config *config; /* the guided config */
  const dpbo_config *stage2; /* the base's config at stage 2's share */
  const dpbo_run *run;       /* stage 2's runs */
  const guided_run_record *rec;
  dpbo_noise *noise;
  dpbo_release *release;
} guided_publishing;

/* Stage 2's release is the base method's over its runs, drawn as for a
 * liu_talwar or papernot_steinke run (the best noisy score, E[K] = T − T1)
 * or a random_search run (the selection over its T2 candidates and the
 * chosen gain's noisy value), by dpbo_release_draw at the stage's share;
 * the release then states the guided total by composition and the guided
 * guarantee (alg_guided.c). */
static dpbo_status guided_publish_make(MPI_Comm comm, void *user, double *epsilon, double *delta,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  guided_publishing *p = user;
  dpbo_release *r = p->release;
  DPBO_TRY(dpbo_release_draw(comm, p->stage2, p->run, p->noise, r, err));
  r->algorithm = p->config->algorithm;
  r->T = p->config->iterations;
  const dpbo_guided_accounting *acc = p->rec->acc;
  r->epsilon_total = acc->epsilon_accounted;
  r->delta_total = acc->delta_accounted;
  r->guided.stage1_evaluations = acc->stage1_evaluations;
  r->guided.stage1_epsilon = acc->epsilon1;
  r->guided.stage1_delta = acc->delta1;
  r->guided.stage1_epsilon_accounted = acc->epsilon1_accounted;
  r->guided.stage1_sigma = acc->sigma;
  r->guided.stage1_gp_noise_std = acc->gp_noise_std_used;
  r->guided.stage1_proxy_rows = p->rec->s->proxy_rows;
  r->guided.pi_min = p->rec->pi_min;
  r->guided.pi_max = p->rec->pi_max;
  /* Stage 1's values are released only when privatized: on the proxy task
   * they are statistics of the training rows, which no guarantee covers. */
  r->guided.stage1_count = dpbo_guided_stage1_is_proxy(p->rec->s) ? 0 : p->rec->stage1->steps;
  r->guided.stage1_index = p->rec->stage1_index;
  r->guided.stage1_value = p->rec->stage1_value;
  dpbo_algorithm_ops_get(r->algorithm)->describe(r, p->config);
  *epsilon = r->epsilon_total;
  *delta = r->delta_total;
done:
  return status;
}

static void guided_publish_ledger(void *user, const dpbo_privacy_ledger *ledger,
                                  const dpbo_ledger_zcdp *zcdp) {
  guided_publishing *p = user;
  dpbo_release_set_ledger(p->release, p->config, ledger, zcdp);
}

static dpbo_status guided_publish_write(void *user, const char *h5, const char *json,
                                        dpbo_error *err) {
  guided_publishing *p = user;
  return dpbo_release_write(p->release, h5, json, err);
}

/* The end of a stage: interrupted (a stop request), or failed. */
static dpbo_status guided_run_stage_end(const dpbo_run *run, int stage, int *interrupted,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (run->interrupted || dpbo_farm_stop_requests()) {
    *interrupted = 1;
    goto done;
  }
  if (run->outcome != DPBO_OK)
    DPBO_RAISE(run->outcome, "guided stage %d stopped after %d of %d evaluations: %s", stage,
               run->finished, run->planned, run->outcome_message);
  if (run->finished == 0 || run->failures == run->finished)
    DPBO_RAISE(DPBO_ERR_DATA,
               "every evaluation of guided stage %d failed: nothing was learnt and nothing is "
               "released (the budget charged at the start stays charged)",
               stage);
done:
  return status;
}

/* The release: charged at the start, so the transaction only notes it in
 * the run file's own ledger (as private_evaluations' release). */
static dpbo_status guided_run_publish(MPI_Comm comm, const dpbo_config *config,
                                      const dpbo_config *stage2, dpbo_run *run2,
                                      guided_run_record *rec, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_release *release = NULL;
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_ALLOC(release, 1, "the release");
  dpbo_noise noise;
  dpbo_session_noise(&noise, config, rank);
  guided_publishing p = {config, stage2, run2, rec, &noise, release};
  static const dpbo_publish_ops ops = {guided_publish_make, guided_publish_ledger,
                                       guided_publish_write};
  char base[DPBO_PATH_MAX + 300], h5[DPBO_PATH_MAX + 364], json[DPBO_PATH_MAX + 364];
  dpbo_release_base(config, base, sizeof base);
  const dpbo_publish_spec spec = {path,   base, 0, config->budget_epsilon, config->budget_delta,
                                  config, 1};
  dpbo_privacy_ledger ledger;
  DPBO_TRY(dpbo_publish_release(comm, &spec, &ops, &p, (dpbo_publish_files){h5, json, sizeof h5},
                                &ledger, err));
  if (rank == 0) {
    dpbo_release_log(release, run2);
    dpbo_log_info("release files: %s, %s (safe to publish%s; %s)", h5, json,
                  release->reproducible ? " ONLY IF drawn with noise = os; this one is seeded" : "",
                  release->guided.stage1_count > 0
                      ? "they list stage 1's privatized evaluations"
                      : "stage 1 ran on the proxy task: none of its values is in them");
    dpbo_session_log_ledger(release);
    dpbo_log_info("run file: %s  (/trace holds stage 2's raw gains: NOT private, never publish)",
                  path);
  }
done:
  free(release);
  return status;
}

dpbo_status dpbo_guided_run(MPI_Comm comm, const dpbo_config *config,
                            const dpbo_driver_options *options, int *interrupted, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  dpbo_config *stage1 = NULL, *stage2 = NULL;
  uint64_t *cdf = NULL;
  int64_t *stage1_index = NULL;
  double *stage1_value = NULL;
  dpbo_run run1, run2;
  memset(&run1, 0, sizeof run1);
  memset(&run2, 0, sizeof run2);
  *interrupted = 0;
  const char *path = options->checkpoint;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  /* The accounting: public settings only, the same on every rank. */
  dpbo_guided_settings s;
  dpbo_guided_accounting acc;
  double sensitivity, lo, hi;
  dpbo_guided_settings_from(config, &s);
  DPBO_TRY(dpbo_selection_gain_range(config, &sensitivity, &lo, &hi, err));
  const dpbo_guided_budget budget = {config->privacy_epsilon, config->privacy_delta,
                                     config->iterations, sensitivity, config->prior.noise_std};
  status = dpbo_guided_account(&s, &budget, &acc, err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "%s", config->path);
    goto done;
  }
  /* The total, charged before stage 1's first mechanism: stage 1's trace
   * is publishable, and a run stopped half way has spent it (section 14). */
  if (rank == 0)
    local =
        dpbo_ledger_charge_guided(path, config, acc.epsilon_accounted, acc.delta_accounted, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  const int search = dpbo_guided_base_is_search(s.base);
  char stage1_what[192];
  if (dpbo_guided_stage1_is_proxy(&s))
    snprintf(stage1_what, sizeof stage1_what,
             "%d GP-UCB evaluations on the proxy task (the last %lld training rows, no "
             "validation record: nothing spent)",
             acc.stage1_evaluations, (long long)s.proxy_rows);
  else
    snprintf(stage1_what, sizeof stage1_what,
             "%d privatized GP-UCB evaluations at epsilon = %.4g, delta = %.3g (sigma %.6g)",
             acc.stage1_evaluations, acc.epsilon1_accounted, acc.delta1, acc.sigma);
  if (rank == 0)
    dpbo_log_info("dpbo: guided: stage 1, %s; stage 2, %s at epsilon = %.4g, delta = %.3g with "
                  "%s = %d %s, every candidate secret from the law pi of stage 1's posterior; "
                  "in all (%.6g, %.3g) by basic composition, charged now",
                  stage1_what, dpbo_algorithm_name(s.base), acc.stage2.epsilon_accounted,
                  acc.stage2.delta_accounted, search ? "T2" : "E[K]", acc.stage2_runs,
                  search ? "candidates" : "runs (K secret)", acc.epsilon_accounted,
                  acc.delta_accounted);
  /* Stage 1 through the driver, no checkpoint (a guided run is not resumed:
   * its row refuses --resume): a private_evaluations run of T1 steps (each
   * gain privatized on the rank that evaluated it), or on the proxy task a
   * plain GP-UCB run on the training rows' split. */
  DPBO_ALLOC(stage1, 1, "the guided run's stage 1");
  DPBO_ALLOC(stage2, 1, "the guided run's stage 2");
  dpbo_guided_stage1_config(config, &s, &acc, sensitivity, stage1);
  const dpbo_driver_options o1 = {NULL, NULL, 0, options->stop_after, NULL, 0, NULL};
  DPBO_TRY(dpbo_driver_run(comm, stage1, &o1, &run1, err));
  DPBO_TRY(guided_run_stage_end(&run1, 1, interrupted, err));
  if (*interrupted) goto done;
  /* π: post-processing of stage 1's noisy trace, fixed before stage 2. */
  guided_run_record rec = {&acc, &s, &run1, NAN, NAN, NULL, NULL};
  DPBO_ALLOC(stage1_index, run1.steps > 0 ? run1.steps : 1, "stage 1's released values");
  DPBO_ALLOC(stage1_value, run1.steps > 0 ? run1.steps : 1, "stage 1's released values");
  for (int t = 0; t < run1.steps; t++) {
    stage1_index[t] = run1.trace[t].index;
    stage1_value[t] = run1.trace[t].state == DPBO_STEP_FAILED ? NAN : run1.trace[t].gain;
  }
  rec.stage1_index = stage1_index;
  rec.stage1_value = stage1_value;
  DPBO_TRY(guided_run_law(comm, stage1, &rec, &cdf, err));
  DPBO_TRY(dpbo_ucb_drop_rows(run1.ucb, err));
  if (rank == 0)
    dpbo_log_info("dpbo: guided: the law pi from stage 1's posterior: every candidate has "
                  "probability between %.3g and %.3g (floor weight %.3g / |Lambda|)",
                  rec.pi_min, rec.pi_max, s.weight);
  /* Stage 2: the base method at its share, E[K] = T − T1 (its secret K
   * drawn by dpbo_selection_planned at exactly acc.stage2's accounting) or
   * random search's T2 = T − T1 candidates at (ε2, 0) and privacy.split,
   * its candidates from π (the driver's law hook), raw gains. */
  *stage2 = *config;
  stage2->algorithm = s.base;
  stage2->iterations = acc.stage2_runs;
  stage2->privacy_epsilon = acc.stage2.epsilon;
  stage2->privacy_delta = acc.stage2.delta;
  stage2->privacy_split = s.split;
  const dpbo_selection_law law = {dpbo_space_size(run1.space), cdf};
  const int stop2 = options->stop_after > 0 ? options->stop_after - run1.finished : 0;
  const dpbo_driver_options o2 = {NULL, NULL, 0, stop2 > 0 ? stop2 : 0, NULL, 0, &law};
  DPBO_TRY(dpbo_driver_run(comm, stage2, &o2, &run2, err));
  DPBO_TRY(guided_run_stage_end(&run2, 2, interrupted, err));
  if (*interrupted) goto done;
  /* The run file: stage 2's runs as a stopping run's (/trace, its secret
   * /trace/candidates), under the guided settings, and stage 1 in /guided. */
  DPBO_TRY(dpbo_output_write_run(comm, path, stage2, &run2, err));
  if (rank == 0) local = guided_run_write_stage1(path, &rec, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_TRY(guided_run_publish(comm, config, stage2, &run2, &rec, path, err));
done:
  dpbo_run_free(&run1);
  dpbo_run_free(&run2);
  free(stage1);
  free(stage2);
  free(cdf);
  free(stage1_index);
  free(stage1_value);
  return status;
}
