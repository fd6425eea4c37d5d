/* `dpbo k1sweep`: the checkpoint of the finished models (rank 0 alone,
 * rewritten atomically after every model) and reading it back. */
#include "experiments/k1sweep.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/h5io.h"
#include "dpbo/version.h"
#include "run/output.h"
#include "experiments/k1sweep_private.h"

/* ---------------------------------------------------------------------------
 * The checkpoint (rank 0 alone, rewritten atomically after every model). */

/* A model's numbers as columns: one table for the checkpoint (written and
 * read back) and the output file's /models. */
const dpbo_h5io_field dpbo__k1sweep_columns[DPBO__K1SWEEP_COLUMNS] = {
    {"worker", offsetof(dpbo__k1sweep_model, worker), 1},
    {"support_vectors", offsetof(dpbo__k1sweep_model, support_vectors), 1},
    {"train_seconds", offsetof(dpbo__k1sweep_model, train_seconds), 0},
    {"predict_seconds", offsetof(dpbo__k1sweep_model, predict_seconds), 0},
    {"pool_accuracy", offsetof(dpbo__k1sweep_model, pool_accuracy), 0},
    /* last: checkpoints written before it have the columns above only */
    {"score_seconds", offsetof(dpbo__k1sweep_model, score_seconds), 0}};

/* The finished models in ascending order, packed: the checkpoint's rows. */
typedef struct k1sweep_rows {
  int64_t k;
  int64_t *index;             /* the models */
  dpbo__k1sweep_model *model; /* their numbers */
  double *acc;                /* k × acc_count */
  uint8_t *bits;              /* k × nbytes */
} k1sweep_rows;

static void k1sweep_rows_free(k1sweep_rows *rows) {
  free(rows->index);
  free(rows->model);
  free(rows->acc);
  free(rows->bits);
  memset(rows, 0, sizeof *rows);
}

static dpbo_status k1sweep_rows_alloc(const dpbo__k1sweep_state *st, int64_t k, k1sweep_rows *rows,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  rows->k = k;
  DPBO_ALLOC(rows->index, k, "the checkpoint");
  DPBO_ALLOC(rows->model, k, "the checkpoint");
  DPBO_ALLOC(rows->acc, (size_t)(k * st->acc_count), "the checkpoint");
  DPBO_ALLOC(rows->bits, (size_t)(k * st->nbytes), "the checkpoint");
done:
  return status;
}

/* Copies row r to model index[r] of the state (or back, to_state = 0). */
static void k1sweep_rows_copy(dpbo__k1sweep_state *st, k1sweep_rows *rows, int to_state) {
  const int64_t A = st->acc_count, B = st->nbytes;
  for (int64_t r = 0; r < rows->k; r++) {
    const int64_t j = rows->index[r];
    if (to_state) {
      st->model[j] = rows->model[r];
      memcpy(st->accuracy + j * A, rows->acc + r * A, (size_t)A * sizeof *rows->acc);
      memcpy(st->bits + j * B, rows->bits + r * B, (size_t)B);
    } else {
      rows->model[r] = st->model[j];
      memcpy(rows->acc + r * A, st->accuracy + j * A, (size_t)A * sizeof *rows->acc);
      memcpy(rows->bits + r * B, st->bits + j * B, (size_t)B);
    }
  }
}

dpbo_status dpbo__k1sweep_write_checkpoint(dpbo__k1sweep_state *st, const char *path,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_h5io_file out;
  k1sweep_rows rows;
  memset(&rows, 0, sizeof rows);
  out.id = -1;
  out.tmp[0] = '\0';
  const int64_t k = st->done_count, A = st->acc_count, B = st->nbytes;
  DPBO_TRY(k1sweep_rows_alloc(st, k, &rows, err));
  for (int64_t j = 0, r = 0; j < st->n; j++)
    if (st->done[j]) rows.index[r++] = j;
  k1sweep_rows_copy(st, &rows, 0);
  DPBO_TRY(dpbo_h5io_create(MPI_COMM_SELF, path, &out, err));
  hid_t f = out.id;
  DPBO_TRY(dpbo_h5io_attr_string(f, "dpbo_version", DPBO_VERSION_STRING, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "content", "k1sweep checkpoint: finished models", err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "fingerprint", st->fingerprint, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "config_hash", st->hash, err));
  DPBO_TRY(dpbo_output_write_settings(f, &st->config->settings, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "models", &st->n, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "accuracies_per_model", &A, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "bytes_per_model", &B, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "pool_rows", &st->pool, 1, err));
  hsize_t d1[1] = {(hsize_t)k}, dA[2] = {(hsize_t)k, (hsize_t)A}, dB[2] = {(hsize_t)k, (hsize_t)B};
  DPBO_TRY(dpbo_h5io_write_small(f, &(dpbo_h5io_array){"model", H5T_NATIVE_INT64, 1, d1},
                                 rows.index, 0, err));
  const dpbo_h5io_columns columns = {sizeof *rows.model, dpbo__k1sweep_columns,
                                     DPBO__K1SWEEP_COLUMNS};
  DPBO_TRY(dpbo_h5io_write_fields(f, rows.model, d1[0], &columns, 0, err));
  DPBO_TRY(dpbo_h5io_write_small(f, &(dpbo_h5io_array){"accuracy", H5T_NATIVE_DOUBLE, 2, dA},
                                 rows.acc, 0, err));
  DPBO_TRY(dpbo_h5io_write_small(f, &(dpbo_h5io_array){"correct_bits", H5T_NATIVE_UINT8, 2, dB},
                                 rows.bits, 0, err));
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  k1sweep_rows_free(&rows);
  return status;
}

/* Loads the finished models of an earlier run of the same sweep (rank 0). */
dpbo_status dpbo__k1sweep_read_checkpoint(dpbo__k1sweep_state *st, const char *path,
                                          dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t f = -1;
  char *stored = NULL;
  k1sweep_rows rows;
  memset(&rows, 0, sizeof rows);
  if (access(path, F_OK) != 0) return DPBO_OK;
  DPBO_TRY(dpbo_input_check(path, "the checkpoint", err)); /* H5Fopen would wait on a FIFO */
  H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  if (f < 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot open the checkpoint %s (delete it to start the sweep over)",
               path);
  status = dpbo_h5io_read_attr_string(f, "fingerprint", &stored, err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "%s is not a k1sweep checkpoint", path);
    goto done;
  }
  DPBO_TRY(dpbo__k1sweep_compare(stored, st->fingerprint, path, err));
  int64_t shape[4];
  static const char *const shape_names[4] = {"models", "accuracies_per_model", "bytes_per_model",
                                             "pool_rows"};
  for (int k = 0; k < 4; k++)
    DPBO_TRY(dpbo_h5io_read_attr_int64(f, shape_names[k], &shape[k], err));
  if (shape[0] != st->n || shape[1] != st->acc_count || shape[2] != st->nbytes ||
      shape[3] != st->pool)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s holds models for a different sweep (%lld models, %lld accuracies and %lld bytes "
               "per model, %lld pool rows); delete it to start over",
               path, (long long)shape[0], (long long)shape[1], (long long)shape[2],
               (long long)shape[3]);
  hsize_t dims[1];
  DPBO_TRY(dpbo_h5io_shape(f, "model", 1, dims, err));
  const int64_t k = (int64_t)dims[0];
  DPBO_TRY(k1sweep_rows_alloc(st, k, &rows, err));
  if (k > 0) {
    DPBO_TRY(dpbo_h5io_read(f, "model", H5T_NATIVE_INT64, rows.index, err));
    for (int64_t r = 0; r < k; r++)
      if (rows.index[r] < 0 || rows.index[r] >= st->n || st->done[rows.index[r]])
        DPBO_RAISE(DPBO_ERR_DATA, "%s: bad model index %lld", path, (long long)rows.index[r]);
    DPBO_TRY(dpbo_h5io_read(f, "accuracy", H5T_NATIVE_DOUBLE, rows.acc, err));
    DPBO_TRY(dpbo_h5io_read(f, "correct_bits", H5T_NATIVE_UINT8, rows.bits, err));
    const int scored = H5Lexists(f, "score_seconds", H5P_DEFAULT) > 0;
    const dpbo_h5io_columns columns = {sizeof *rows.model, dpbo__k1sweep_columns,
                                       DPBO__K1SWEEP_COLUMNS - (scored ? 0 : 1)};
    DPBO_TRY(dpbo_h5io_read_fields(f, rows.model, dims[0], &columns, err));
    k1sweep_rows_copy(st, &rows, 1);
    for (int64_t r = 0; r < k; r++)
      st->done[rows.index[r]] = 1;
    st->done_count = k;
  }
done:
  if (f >= 0) H5Fclose(f);
  free(stored);
  k1sweep_rows_free(&rows);
  return status;
}
