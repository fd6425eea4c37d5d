/* `dpbo k1sweep`: training the models and predicting the pool (a task farm
 * over the ranks), scoring every validation set. */
#include "experiments/k1sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/log.h"
#include "run/config.h"
#include "run/farm.h"
#include "experiments/k1sweep_private.h"

/* Reads, splits and scales the data and prepares LIBSVM or the logreg
 * objective (ranks that train). Both models split with dpbo_dataset_split
 * and the same seed, so they train on the same rows and share the pool. */
static dpbo_status k1sweep_load_data(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  dpbo_dataset *data = NULL;
  dpbo_dataset_options read;
  dpbo_dataset_options_default(&read);
  read.format = c->format;
  read.max_features = c->svm.max_features;
  read.labels = c->labels_path;
  DPBO_TRY(dpbo_dataset_read_options(c->data_path, &read, &data, err));
  if (c->model == DPBO_K1SWEEP_SVM) DPBO_TRY(dpbo_svm_check_labels(data, c->data_path, err));
  if (c->train_rows >= data->n)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s has %lld rows: k1sweep.train_rows = %lld leaves none for validation",
               c->data_path, (long long)data->n, (long long)c->train_rows);
  st->data_rows = data->n;
  st->pool = data->n - c->train_rows;
  if (c->pool_rows > 0 && c->pool_rows < st->pool) st->pool = c->pool_rows;
  if (c->model == DPBO_K1SWEEP_LOGREG) {
    dpbo_logreg_options o = c->logreg;
    snprintf(o.data_path, sizeof o.data_path, "%s", c->data_path);
    o.train_rows = c->train_rows;
    o.validation_rows = st->pool; /* the pool is the objective's validation split */
    o.split_seed = c->seed;
    DPBO_TRY(dpbo_logreg_objective_from_data(data, &o, &st->logreg, err));
  } else {
    const dpbo_svm_split split = {c->seed, c->train_rows, st->pool};
    DPBO_TRY(dpbo_svm_data_split(data, &split, "k1sweep", c->data_path, &st->svm, err));
  }
done:
  dpbo_dataset_destroy(data);
  return status;
}

/* LIBSVM's options of the ranks that train (collective, after the data is
 * loaded). k1sweep.cache_mb = auto: each training rank takes min(the whole
 * kernel matrix Q, DPBO_SVM_CACHE_MEM_FRACTION x MemAvailable / the training
 * ranks on its node - its data), at least 100 MiB (dpbo_svm_cache_auto_mb).
 * available_mb was read before the data was loaded, so the data is counted
 * once. The cache only saves recomputing kernel rows: LIBSVM computes each
 * entry of Q the same way whether it is cached or not, so the models and
 * every result are the same bits at any size. */
static dpbo_status k1sweep_cache_resolve(dpbo__k1sweep_state *st, int trainer, double available_mb,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  MPI_Comm node = MPI_COMM_NULL;
  st->svm_options = c->svm;
  if (c->model != DPBO_K1SWEEP_SVM) return DPBO_OK;
  const int automatic = c->svm.cache_mb == DPBO_SVM_CACHE_AUTO;
  int node_trainers = 1, mine = trainer;
  if (automatic) {
    DPBO_MPI_TRY(
        MPI_Comm_split_type(st->comm, MPI_COMM_TYPE_SHARED, st->rank, MPI_INFO_NULL, &node));
    DPBO_MPI_TRY(MPI_Allreduce(&mine, &node_trainers, 1, MPI_INT, MPI_SUM, node));
    if (trainer)
      st->svm_options.cache_mb = dpbo_svm_cache_auto_mb(
          c->train_rows, available_mb, node_trainers,
          (double)dpbo_svm_data_bytes(st->svm) / (1024.0 * 1024.0), DPBO_SVM_CACHE_MEM_FRACTION);
  }
  /* Rank 0 learns the smallest and largest choice and the inputs. */
  double in[4] = {trainer ? st->svm_options.cache_mb : INFINITY,
                  trainer ? -st->svm_options.cache_mb : INFINITY, trainer ? available_mb : INFINITY,
                  trainer ? -(double)node_trainers : INFINITY},
         out[4];
  DPBO_MPI_TRY(MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_MIN, st->comm));
  st->cache_mb[0] = out[0];
  st->cache_mb[1] = -out[1];
  st->cache_available_mb = automatic ? out[2] : NAN;
  st->cache_node_ranks = automatic ? (int)-out[3] : 0;
  st->cache_full_mb = dpbo_svm_cache_full_mb(c->train_rows);
  char range[64] = "";
  if (st->cache_mb[1] > st->cache_mb[0]) snprintf(range, sizeof range, " to %.0f", st->cache_mb[1]);
  if (automatic)
    dpbo_log_info("k1sweep: LIBSVM kernel cache (cache_mb = auto): %.0f%s MiB per training rank; "
                  "the whole Q of %lld rows needs %.0f MiB; %.2f of the available %.0f MiB over "
                  "%d training rank(s) on the node is %.0f MiB each, less its data (floor %.0f)",
                  st->cache_mb[0], range, (long long)c->train_rows, st->cache_full_mb,
                  DPBO_SVM_CACHE_MEM_FRACTION, st->cache_available_mb, st->cache_node_ranks,
                  DPBO_SVM_CACHE_MEM_FRACTION * st->cache_available_mb / st->cache_node_ranks,
                  DPBO_SVM_CACHE_FLOOR_MB);
  else
    dpbo_log_info("k1sweep: LIBSVM kernel cache (cache_mb): %.0f MiB per training rank; the whole "
                  "Q of %lld rows needs %.0f MiB",
                  st->cache_mb[0], (long long)c->train_rows, st->cache_full_mb);
done:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  return status;
}

/* Every validation set and neighbour, from the seed (every rank). */
static dpbo_status k1sweep_valsets(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  DPBO_ALLOC(st->rows, DPBO_K1SWEEP_MAX_SIZES, "the validation sets");
  DPBO_ALLOC(st->change, DPBO_K1SWEEP_MAX_SIZES, "the validation sets");
  for (int s = 0; s < c->size_count; s++) {
    const int64_t m = c->size[s];
    DPBO_ALLOC(st->rows[s], (size_t)(c->sets * m), "the validation sets");
    DPBO_ALLOC(st->change[s], (size_t)c->sets, "the neighbours");
    for (int64_t i = 0; i < c->sets; i++) {
      const dpbo_valset_request request = {c->seed, st->pool, m, i, c->neighbour};
      DPBO_TRY(dpbo_valset_draw(&request, st->rows[s] + i * m, &st->change[s][i], err));
    }
  }
done:
  return status;
}

static dpbo_status k1sweep_alloc_results(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const size_t n = (size_t)st->n;
  DPBO_ALLOC(st->done, n, "the results");
  DPBO_ALLOC(st->fresh, n, "the results");
  DPBO_ALLOC(st->model, n, "the results");
  DPBO_ALLOC(st->accuracy, n * (size_t)st->acc_count, "the accuracies");
  DPBO_ALLOC(st->bits, n * (size_t)st->nbytes, "the correctness bits");
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * One model: train, predict the pool, score every set. */

static size_t k1sweep_message_size(const dpbo__k1sweep_state *st) {
  return sizeof(dpbo__k1sweep_head) + (size_t)st->acc_count * sizeof(double) + (size_t)st->nbytes;
}

static void k1sweep_train(dpbo__k1sweep_state *st, int64_t j, unsigned char *flags,
                          unsigned char *message) {
  const dpbo_k1sweep_config *c = st->config;
  dpbo__k1sweep_head head;
  memset(&head, 0, sizeof head);
  double *acc = (double *)(message + sizeof head);
  uint8_t *bits = message + sizeof head + (size_t)st->acc_count * sizeof(double);
  dpbo_error err;
  dpbo_error_clear(&err);
  head.model = j;
  head.result.worker = st->rank;
  double t0 = MPI_Wtime();
  dpbo__k1sweep_model *r = &head.result;
  dpbo_status code;
  if (c->model == DPBO_K1SWEEP_LOGREG) {
    /* The logreg objective's own training and classification rule. */
    code = dpbo_logreg_classify(&st->logreg, st->values[j], flags, &r->pool_accuracy,
                                &r->train_seconds, &err);
  } else {
    const double C = st->values[j * st->d + st->c_dim],
                 gamma = st->values[j * st->d + st->gamma_dim];
    /* The pool through BLAS: svm_predict's labels, several times faster. */
    dpbo_svm_fit fit;
    code = dpbo_svm_fit_predict_dense(st->svm, &st->svm_options, C, gamma, flags, &fit, &err);
    r->pool_accuracy = fit.accuracy;
    r->support_vectors = fit.support_vectors;
    r->train_seconds = fit.train_seconds;
  }
  r->predict_seconds = MPI_Wtime() - t0 - r->train_seconds;
  head.code = (int32_t)code;
  if (code != DPBO_OK) {
    snprintf(head.message, sizeof head.message, "model %lld on rank %d: %s", (long long)j, st->rank,
             err.message);
  } else {
    double t1 = MPI_Wtime();
    dpbo_valset_pack(flags, st->pool, bits);
    for (int s = 0; s < c->size_count; s++) {
      double *row = acc + (size_t)s * 2 * (size_t)c->sets;
      for (int64_t i = 0; i < c->sets; i++)
        dpbo_valset_accuracy(bits, c->size[s], st->rows[s] + i * c->size[s], &st->change[s][i],
                             &row[i], &row[c->sets + i]);
    }
    r->score_seconds = MPI_Wtime() - t1;
  }
  memcpy(message, &head, sizeof head);
}

/* ---------------------------------------------------------------------------
 * Scheduling: the trainings are a task farm (run/farm.h). */

typedef struct k1sweep_farm {
  dpbo__k1sweep_state *st;
  const char *checkpoint;
  unsigned char *flags; /* a trainer's pool predictions */
} k1sweep_farm;

static void k1sweep_farm_work(void *context, int64_t j, void *message) {
  k1sweep_farm *kf = context;
  k1sweep_train(kf->st, j, kf->flags, message);
}

/* Rank 0 files one result; a failed model is reported through err. */
static dpbo_status k1sweep_accept(void *context, const void *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo__k1sweep_state *st = ((k1sweep_farm *)context)->st;
  const unsigned char *message = result;
  dpbo__k1sweep_head head;
  memcpy(&head, message, sizeof head);
  if (head.code != DPBO_OK) DPBO_RAISE((dpbo_status)head.code, "%s", head.message);
  const int64_t j = head.model;
  if (j < 0 || j >= st->n || st->done[j])
    DPBO_RAISE(DPBO_ERR_MPI, "unexpected result for model %lld", (long long)j);
  memcpy(st->accuracy + j * st->acc_count, message + sizeof head,
         (size_t)st->acc_count * sizeof(double));
  memcpy(st->bits + j * st->nbytes, message + sizeof head + (size_t)st->acc_count * sizeof(double),
         (size_t)st->nbytes);
  st->model[j] = head.result;
  st->done[j] = 1;
  st->done_count++;
  st->perf_train += head.result.train_seconds;
  st->perf_predict += head.result.predict_seconds;
  st->perf_score += head.result.score_seconds;
  st->fresh[j] = 1;
  st->perf_models++;
  char setting[96];
  if (st->config->model == DPBO_K1SWEEP_LOGREG)
    snprintf(setting, sizeof setting, "lambda=%.4g", st->values[j]);
  else
    snprintf(setting, sizeof setting, "C=%.4g, gamma=%.4g", st->values[j * st->d + st->c_dim],
             st->values[j * st->d + st->gamma_dim]);
  dpbo_log_info("trained model %lld (%s) on rank %lld: %.1f s training, %.1f s "
                "predicting %lld pool rows, %lld support vectors, pool accuracy %.4f [%lld/%lld]",
                (long long)j, setting, (long long)head.result.worker, head.result.train_seconds,
                head.result.predict_seconds, (long long)st->pool,
                (long long)head.result.support_vectors, head.result.pool_accuracy,
                (long long)st->done_count, (long long)st->n);
done:
  return status;
}

/* The farm's checkpoint hook: every model filed so far, rewritten. */
static dpbo_status k1sweep_checkpoint(void *context, dpbo_error *err) {
  k1sweep_farm *kf = context;
  return dpbo__k1sweep_write_checkpoint(kf->st, kf->checkpoint, err);
}

/* The order of the trainings (qsort has no context argument in C11). */
static const dpbo__k1sweep_state *k1sweep_order_state;

static int k1sweep_compare_cost(const void *a, const void *b) {
  const dpbo__k1sweep_state *st = k1sweep_order_state;
  const int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  const double ci = st->values[i * st->d + st->c_dim], cj = st->values[j * st->d + st->c_dim];
  if (ci != cj) return ci < cj ? 1 : -1;
  return (i > j) - (i < j);
}

/* Every rank: the models not in the checkpoint, one per worker at a time
 * (rank 0 trains them itself when alone). */
static dpbo_status k1sweep_farm_run(dpbo__k1sweep_state *st, int64_t stop_after,
                                    const char *checkpoint, dpbo_k1sweep_outcome *outcome,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_farm *farm = NULL;
  int64_t *todo = NULL, todo_count = 0;
  k1sweep_farm kf = {st, checkpoint, NULL};
  const dpbo_farm_options options = {.result_bytes = k1sweep_message_size(st)};
  dpbo_farm_outcome farmed = {0, 0};
  DPBO_TRY(dpbo_farm_create(st->comm, &options, &farm, err));
  /* (From here on a failure on one rank leaves the others in the farm.) */
  farmed.abandoned = st->size > 1;
  if (st->size == 1 || st->rank > 0) DPBO_ALLOC(kf.flags, st->pool, "the pool predictions");
  if (st->rank == 0) {
    DPBO_ALLOC(todo, st->n, "the work list");
    for (int64_t j = 0; j < st->n; j++)
      if (!st->done[j]) todo[todo_count++] = j;
    /* Longest first, so the workers finish together: LIBSVM's iterations
     * grow with C (more bounded support vectors to settle), so the SVMs go
     * out by C, largest first (Sobol order otherwise). Each model's result
     * depends on its setting alone, so the order changes no output. */
    if (st->config->model == DPBO_K1SWEEP_SVM && st->c_dim >= 0) {
      k1sweep_order_state = st;
      qsort(todo, (size_t)todo_count, sizeof *todo, k1sweep_compare_cost);
      k1sweep_order_state = NULL;
    }
  }
  const dpbo_farm_work work = {.tasks = todo,
                               .task_count = todo_count,
                               .stop_after = stop_after,
                               .stoppable = 1,
                               .noun = "training",
                               .context = &kf,
                               .work = k1sweep_farm_work,
                               .accept = k1sweep_accept,
                               .checkpoint = k1sweep_checkpoint};
  status = dpbo_farm_run(farm, &work, &farmed, err);
done:
  outcome->trained = farmed.accepted;
  outcome->abandoned = farmed.abandoned;
  dpbo_farm_destroy(farm);
  free(todo);
  free(kf.flags);
  return status;
}

/* ---------------------------------------------------------------------------
 * The pipeline. */

/* Trains every model not in the checkpoint (svm mode). Returns with
 * outcome->interrupted when it stopped early. */
dpbo_status dpbo__k1sweep_train_all(dpbo__k1sweep_state *st, int64_t stop_after,
                                    dpbo_k1sweep_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  char checkpoint[DPBO_PATH_MAX + 300];
  dpbo_k1sweep_checkpoint_path(c, checkpoint, sizeof checkpoint);
  const int trainer = st->size == 1 || st->rank > 0;
  const int root = st->size == 1 ? 0 : 1; /* first rank holding the data */

  double t0 = MPI_Wtime(), available_mb = NAN;
  /* Before the data is loaded, so that its memory is counted once. */
  if (trainer && c->model == DPBO_K1SWEEP_SVM && c->svm.cache_mb == DPBO_SVM_CACHE_AUTO)
    local = dpbo_svm_mem_available_mb(&available_mb, err);
  if (trainer && local == DPBO_OK) local = k1sweep_load_data(st, err);
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
  DPBO_TRY(k1sweep_cache_resolve(st, trainer, available_mb, err));
  int64_t shape[2] = {st->data_rows, st->pool};
  DPBO_MPI_TRY(MPI_Bcast(shape, 2, MPI_INT64_T, root, st->comm));
  st->data_rows = shape[0];
  st->pool = shape[1];
  st->nbytes = (st->pool + 7) / 8;
  st->perf_load = MPI_Wtime() - t0;
  dpbo_log_info(
      "k1sweep: %lld data rows, %lld training, pool of %lld for validation (%.1f s to load)",
      (long long)st->data_rows, (long long)c->train_rows, (long long)st->pool, st->perf_load);
  if (c->size[c->size_count - 1] >= st->pool)
    DPBO_RAISE(
        DPBO_ERR_CONFIG,
        "%s: k1sweep.sizes asks for a validation set of %lld rows, but the pool has only %lld "
        "(a neighbour needs a row outside the set): lower the sizes or raise pool_rows",
        c->settings.path, (long long)c->size[c->size_count - 1], (long long)st->pool);
  DPBO_TRY(k1sweep_valsets(st, err));

  if (st->rank == 0) {
    local = k1sweep_alloc_results(st, err);
    if (local == DPBO_OK) local = dpbo__k1sweep_read_checkpoint(st, checkpoint, err);
    if (local == DPBO_OK && st->done_count > 0)
      dpbo_log_info("k1sweep: resuming from %s: %lld of %lld models already trained", checkpoint,
                    (long long)st->done_count, (long long)st->n);
    outcome->resumed = st->done_count;
  }
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));

  const double t_train = MPI_Wtime();
  local = k1sweep_farm_run(st, stop_after, checkpoint, outcome, err);
  if (outcome->abandoned) {
    status = local;
    goto done;
  }
  /* Idle ranks sleep here while the last trainings finish. */
  DPBO_TRY(dpbo_comm_barrier_idle(st->comm, err));
  st->perf_training_phase = MPI_Wtime() - t_train;
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
  int64_t finished = st->done_count;
  DPBO_MPI_TRY(MPI_Bcast(&finished, 1, MPI_INT64_T, 0, st->comm));
  outcome->interrupted = finished < st->n;
  if (outcome->interrupted) {
    dpbo_log_info(
        "k1sweep: stopped with %lld of %lld models trained; they are in %s. Rerun the same "
        "command to continue.",
        (long long)finished, (long long)st->n, checkpoint);
    goto done;
  }
  /* The training data is not needed from here on. */
  dpbo_svm_data_destroy(st->svm);
  st->svm = NULL;
  dpbo_objective_destroy(&st->logreg);
  if (c->neighbour == DPBO_NEIGHBOUR_ADVERSARIAL) DPBO_TRY(dpbo__k1sweep_adversarial(st, err));
  if (st->rank == 0) local = dpbo__k1sweep_assemble(st, err);
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
done:
  return status;
}
