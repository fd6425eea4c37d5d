/* What the phases of `dpbo k1sweep` share: the run's state, a model's
 * result as a worker sends it, and one entry point per phase. Private to
 * experiments/k1sweep*.c:
 *   k1sweep_config.c      the config and the settings' fingerprint
 *   k1sweep_train.c       training and pool prediction (a task farm)
 *   k1sweep_checkpoint.c  the finished models, written and read back
 *   k1sweep_stats.c       F_V and F_V', the likelihood sweep, the statistics
 *   k1sweep_write.c       the output file and the account of the time
 *   k1sweep.c             dpbo_k1sweep_run, which sequences them */
#ifndef DPBO_K1SWEEP_PRIVATE_H
#define DPBO_K1SWEEP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/h5io.h"
#include "experiments/k1gof.h"
#include "experiments/k1lik.h"
#include "experiments/k1sweep.h"

/* One model's result as a worker sends it: this header, then `acc_count`
 * doubles (for each size s and set i: accuracy on V_i at s·2·sets + i, on
 * V_i' at s·2·sets + sets + i), then the pool's correctness bits. */
typedef struct dpbo__k1sweep_model {
  int64_t worker, support_vectors;
  double train_seconds, predict_seconds, pool_accuracy;
  double score_seconds; /* deriving the set accuracies from the predictions */
} dpbo__k1sweep_model;

typedef struct dpbo__k1sweep_head {
  int64_t model;
  dpbo__k1sweep_model result;
  int32_t code, pad;
  char message[DPBO_ERROR_MSG_MAX];
} dpbo__k1sweep_head;

/* A model's numbers as columns: one table for the checkpoint (written and
 * read back) and the output file's /models (k1sweep_checkpoint.c). The
 * last, score_seconds, is missing from checkpoints written before it. */
enum { DPBO__K1SWEEP_COLUMNS = 6 };
extern const dpbo_h5io_field dpbo__k1sweep_columns[DPBO__K1SWEEP_COLUMNS];

typedef struct dpbo__k1sweep_state {
  const dpbo_k1sweep_config *config;
  MPI_Comm comm;
  int rank, size;
  int64_t n; /* settings */
  int d;
  double *unit;   /* n × d */
  double *values; /* n × d: (C, γ) in config order */
  int c_dim, gamma_dim;
  /* data (on the ranks that train): LIBSVM's, or the logreg objective's */
  dpbo_svm_data *svm;
  dpbo_objective logreg;
  int64_t data_rows, pool, nbytes;
  /* validation sets (svm mode; every rank) */
  int32_t **rows;              /* [size] sets × m */
  dpbo_valset_change **change; /* [size] sets */
  int64_t acc_count;           /* size_count · 2 · sets */
  /* results (rank 0) */
  unsigned char *done;
  int64_t done_count;
  dpbo__k1sweep_model *model;
  double *accuracy; /* n × acc_count */
  uint8_t *bits;    /* n × nbytes */
  /* F matrices (rank 0): [size] sets × n */
  double **fv, **fvp;
  double synthetic_jitter;
  /* where this invocation's time went (rank 0): inside LIBSVM (training and
   * predicting the pool, summed over workers), scoring the sets, phases */
  double perf_train, perf_predict, perf_score;
  int64_t perf_models;
  double perf_load, perf_training_phase, perf_likelihood;
  double perf_size[DPBO_K1SWEEP_MAX_SIZES][2]; /* per size: likelihood, goodness of fit */
  unsigned char *fresh;                        /* rank 0: trained in this invocation */
  /* LIBSVM's options on the ranks that train: the config's, with an
   * automatic cache resolved (k1sweep_cache_resolve); rank 0 holds the
   * smallest and largest cache of the training ranks and the inputs. */
  dpbo_svm_options svm_options;
  double cache_mb[2], cache_full_mb, cache_available_mb;
  int cache_node_ranks;
  char fingerprint[8192];
  char hash[32];
} dpbo__k1sweep_state;

/* k1sweep_config.c: the resolved settings that determine every model's
 * result, one "key=value" per line; its FNV-1a hash; the first line in
 * which a checkpoint's fingerprint differs from this run's, as an error. */
void dpbo__k1sweep_fingerprint(const dpbo_k1sweep_config *c, char *text, size_t size);
void dpbo__k1sweep_hash(const char *text, char *hex, size_t size);
dpbo_status dpbo__k1sweep_compare(const char *stored, const char *current, const char *checkpoint,
                                  dpbo_error *err);

/* k1sweep_checkpoint.c (rank 0). */
dpbo_status dpbo__k1sweep_write_checkpoint(dpbo__k1sweep_state *st, const char *path,
                                           dpbo_error *err);
dpbo_status dpbo__k1sweep_read_checkpoint(dpbo__k1sweep_state *st, const char *path,
                                          dpbo_error *err);

/* k1sweep_train.c: every model not in the checkpoint (collective). */
dpbo_status dpbo__k1sweep_train_all(dpbo__k1sweep_state *st, int64_t stop_after,
                                    dpbo_k1sweep_outcome *outcome, dpbo_error *err);

/* k1sweep_stats.c. */
dpbo_status dpbo__k1sweep_adversarial(dpbo__k1sweep_state *st, dpbo_error *err);
dpbo_status dpbo__k1sweep_assemble(dpbo__k1sweep_state *st, dpbo_error *err);
dpbo_status dpbo__k1sweep_synthetic(dpbo__k1sweep_state *st, dpbo_error *err);
dpbo_status dpbo__k1sweep_likelihood(dpbo__k1sweep_state *st, dpbo_k1lik_result *results,
                                     dpbo_k1gof_result *gof, dpbo_error *err);

/* k1sweep_write.c. */
dpbo_status dpbo__k1sweep_write(const dpbo__k1sweep_state *st, const char *path,
                                const dpbo_k1lik_result *results, const dpbo_k1gof_result *gof,
                                double wall_seconds, dpbo_error *err);
void dpbo__k1sweep_log_performance(const dpbo__k1sweep_state *st, double wall);

#endif
