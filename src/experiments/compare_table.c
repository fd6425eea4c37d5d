/* dpbo compare's table from an earlier compare file (compare_table.h says
 * which keys must match and why). */
#include "experiments/compare_table.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "base/log.h"
#include "dpbo/privacy.h"
#include "objectives/command.h"
#include "run/farm.h"
#include "run/output.h"
#include "run/selection.h"

dpbo_status dpbo_compare_table_lambda(const dpbo_space *space, double *lambda, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  for (int64_t i = 0; i < n; i++) {
    double u[DPBO_MAX_DIM];
    DPBO_TRY(dpbo_space_unit(space, i, u, err));
    dpbo_space_to_values(space, u, lambda + (size_t)i * (size_t)d);
  }
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * A command objective's table (compare_table.h). */

dpbo_status dpbo_compare_table_command_check(const dpbo_config *config,
                                             const dpbo_compare_options *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->objective != DPBO_OBJECTIVE_COMMAND) goto done;
  if (options->validation_size < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare on objective.kind = command needs objective.validation_size: m, "
               "the validation records your program's accuracy counts (the baselines' "
               "sensitivity is 1/m; dpbo compare does not guess it)",
               config->path);
  if (!options->command[0])
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare on objective.kind = command needs objective.compare_command: "
               "your program started so that it replies 'VAL TEST' (the validation and the "
               "held-out test accuracy), e.g. objective.command with --score both",
               config->path);
  /* 1/m is the sensitivity of a share of m records: the value must be one. */
  if (config->clamp_value && !(config->value_lo >= 0.0 && config->value_hi <= 1.0))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare reads a command's value as an accuracy over m = %lld records "
               "(sensitivity 1/m): objective.value_range [%g, %g] must lie within [0, 1]",
               config->path, (long long)options->validation_size, config->value_lo,
               config->value_hi);
done:
  return status;
}

dpbo_status dpbo_compare_table_gain_range(const dpbo_config *config,
                                          const dpbo_compare_options *options, double *sensitivity,
                                          double *lo, double *hi, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->objective != DPBO_OBJECTIVE_COMMAND)
    return dpbo_selection_gain_range(config, sensitivity, lo, hi, err);
  DPBO_TRY(dpbo_compare_table_command_check(config, options, err));
  /* An accuracy: each of the m records scores 0 or 1, so one replaced
   * record moves it by at most 1/m (as for the svm objective). */
  *sensitivity = dpbo_privacy_gain_sensitivity(options->validation_size, 1.0);
  *lo = config->clamp_value ? config->value_lo : 0.0;
  *hi = config->clamp_value ? config->value_hi : 1.0;
done:
  return status;
}

/* One candidate's row as a worker sends it to rank 0. */
typedef struct command_row {
  int64_t index;
  double val, test, seconds;
  int32_t code, pad;
  char message[DPBO_ERROR_MSG_MAX];
} command_row;

typedef struct command_fill {
  const dpbo_space *space;
  dpbo_objective objective; /* workers (rank 0 alone): the compare_command program */
  const char *names[DPBO_MAX_DIM];
  int64_t n, filed;
  double *val, *test, seconds; /* rank 0 */
  double start, next_log;
} command_fill;

static void command_fill_work(void *context, int64_t i, void *result) {
  command_fill *fill = context;
  command_row *row = result;
  dpbo_error err;
  dpbo_error_clear(&err);
  memset(row, 0, sizeof *row);
  row->index = i;
  double u[DPBO_MAX_DIM], v[DPBO_MAX_DIM], pair[2] = {0.0, 0.0};
  const double t0 = MPI_Wtime();
  dpbo_status code = dpbo_space_unit(fill->space, i, u, &err);
  if (code == DPBO_OK) {
    dpbo_space_to_values(fill->space, u, v);
    code = dpbo_command_evaluate_pair(&fill->objective, dpbo_space_dims(fill->space), fill->names,
                                      v, pair, &err);
    if (code != DPBO_OK) dpbo_error_prefix(&err, "dpbo compare, candidate %lld", (long long)i);
  }
  row->val = pair[0];
  row->test = pair[1];
  row->seconds = MPI_Wtime() - t0;
  row->code = (int32_t)code;
  if (code != DPBO_OK) snprintf(row->message, sizeof row->message, "%s", err.message);
}

static dpbo_status command_fill_accept(void *context, const void *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  command_fill *fill = context;
  const command_row *row = result;
  if (row->code != DPBO_OK) DPBO_RAISE((dpbo_status)row->code, "%s", row->message);
  if (row->index < 0 || row->index >= fill->n)
    DPBO_RAISE(DPBO_ERR_MPI, "unexpected result for candidate %lld", (long long)row->index);
  fill->val[row->index] = row->val;
  fill->test[row->index] = row->test;
  fill->seconds += row->seconds;
  fill->filed++;
  if ((double)fill->filed >= fill->next_log * (double)fill->n) {
    dpbo_log_info("table: %lld of %lld candidates (%.0f%%), %.1f s", (long long)fill->filed,
                  (long long)fill->n, 100.0 * (double)fill->filed / (double)fill->n,
                  MPI_Wtime() - fill->start);
    fill->next_log += 0.1;
  }
done:
  return status;
}

dpbo_status dpbo_compare_table_farm(MPI_Comm comm, dpbo_status ready, const dpbo_farm_work *job,
                                    int64_t n, size_t row_bytes, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = ready;
  dpbo_farm *farm = NULL;
  int64_t *tasks = NULL;
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (local == DPBO_OK && rank == 0) {
    tasks = malloc((size_t)(n > 0 ? n : 1) * sizeof *tasks);
    if (!tasks) local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the candidates");
    for (int64_t i = 0; tasks && i < n; i++)
      tasks[i] = i;
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  const dpbo_farm_options options = {.result_bytes = row_bytes};
  DPBO_TRY(dpbo_farm_create(comm, &options, &farm, err));
  dpbo_farm_work work = *job;
  work.tasks = tasks;
  work.task_count = n;
  work.noun = "candidate";
  dpbo_farm_outcome outcome;
  local = dpbo_farm_run(farm, &work, &outcome, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  dpbo_farm_destroy(farm);
  free(tasks);
  return status;
}

dpbo_status dpbo_compare_table_command(MPI_Comm comm, const dpbo_config *config,
                                       const dpbo_compare_options *options, const dpbo_space *space,
                                       dpbo_compare_columns *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank, size;
  command_fill fill;
  memset(&fill, 0, sizeof fill);
  memset(out, 0, sizeof *out);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const int64_t n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  DPBO_ALLOC(out->gain, n, "the gains");
  DPBO_ALLOC(out->val, n, "the validation accuracies");
  DPBO_ALLOC(out->test, n, "the test accuracies");
  fill.space = space;
  fill.n = n;
  fill.val = out->val;
  fill.test = out->test;
  fill.start = MPI_Wtime();
  fill.next_log = 0.1;
  for (int i = 0; i < d && i < DPBO_MAX_DIM; i++)
    fill.names[i] = dpbo_space_dim(space, i)->name;
  local = dpbo_compare_table_command_check(config, options, err);
  /* One program per worker rank (rank 0 only hands out candidates when it
   * has workers), objective.command's mode, pass and time-out. */
  if (local == DPBO_OK && (size == 1 || rank > 0)) {
    dpbo_command_options program = config->command;
    memcpy(program.command, options->command, sizeof program.command);
    program.space = space;
    program.reply_pair = 1;
    local = dpbo_command_objective_create(&program, &fill.objective, err);
    if (local != DPBO_OK) dpbo_error_prefix(err, "%s: objective.compare_command", config->path);
  }
  const dpbo_farm_work job = {
      .context = &fill, .work = command_fill_work, .accept = command_fill_accept};
  DPBO_TRY(dpbo_compare_table_farm(comm, local, &job, n, sizeof(command_row), err));
  /* Rank 0 filed every entry, the others hold zeros. */
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, out->val, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, out->test, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(&fill.seconds, &out->seconds, 1, MPI_DOUBLE, MPI_SUM, comm));
  /* The gain the methods select on is the validation accuracy. */
  memcpy(out->gain, out->val, sizeof *out->val * (size_t)n);
done:
  dpbo_objective_destroy(&fill.objective); /* stdin closed: the programs exit */
  if (status != DPBO_OK) {
    free(out->gain);
    free(out->val);
    free(out->test);
    free(out->proxy);
    memset(out, 0, sizeof *out);
  }
  return status;
}

/* ---------------------------------------------------------------------------
 * An earlier file's table. */

/* The sections the table depends on (compare_table.h). */
static int table_section(const char *name) {
  return strcmp(name, "objective") == 0 || strcmp(name, "space") == 0;
}

/* The value of section.key among settings' entries, else its defaults, or
 * NULL. */
static const char *table_value(const dpbo_settings *settings, const char *section,
                               const char *key) {
  for (int i = 0; i < settings->count; i++)
    if (strcmp(settings->entry[i].section, section) == 0 &&
        strcmp(settings->entry[i].key, key) == 0)
      return settings->entry[i].value;
  for (int i = 0; i < settings->default_count; i++)
    if (strcmp(settings->defaults[i].section, section) == 0 &&
        strcmp(settings->defaults[i].key, key) == 0)
      return settings->defaults[i].value;
  return NULL;
}

/* A stored key's effective value: written (config.*), else its default. */
static const char *table_stored_value(const dpbo_settings *written, const dpbo_settings *taken,
                                      const char *section, const char *key) {
  const char *v = table_value(written, section, key);
  return v ? v : table_value(taken, section, key);
}

/* Compares one of this run's keys with the file's; 1 and `what` if it differs. */
static int table_key_differs(const dpbo_settings_entry *e, const dpbo_settings *written,
                             const dpbo_settings *taken, const char *table, char *what,
                             size_t size) {
  if (!table_section(e->section)) return 0;
  const char *old = table_stored_value(written, taken, e->section, e->key);
  if (!old) {
    snprintf(what, size, "%s.%s is '%s' in this run and not set in %s", e->section, e->key,
             e->value, table);
    return 1;
  }
  if (strcmp(e->value, old) != 0) {
    snprintf(what, size, "%s.%s is '%s' in this run and '%s' in %s", e->section, e->key, e->value,
             old, table);
    return 1;
  }
  return 0;
}

/* Every objective.* and space.* key with its effective value must be the
 * same in both (as text: "80" and "8e1" differ, a conservative refusal). */
static int table_settings_differ(const dpbo_settings *settings, const dpbo_settings *written,
                                 const dpbo_settings *taken, const char *table, char *what,
                                 size_t size) {
  for (int i = 0; i < settings->count; i++)
    if (table_key_differs(&settings->entry[i], written, taken, table, what, size)) return 1;
  for (int i = 0; i < settings->default_count; i++)
    if (table_key_differs(&settings->defaults[i], written, taken, table, what, size)) return 1;
  /* ...and no key of those sections the file has may be missing now. */
  const dpbo_settings *stored[2] = {written, taken};
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < stored[t]->count; i++) {
      const dpbo_settings_entry *e = &stored[t]->entry[i];
      if (table_section(e->section) && !table_value(settings, e->section, e->key)) {
        snprintf(what, size, "%s.%s is '%s' in %s and not set in this run", e->section, e->key,
                 e->value, table);
        return 1;
      }
    }
  return 0;
}

/* Rank 0: the guided method's proxy column from the earlier file, when
 * this run's privacy.guided_proxy_rows is K >= 1 and the file holds the
 * column of that K (table/proxy_rows); otherwise none (compare trains it). */
static dpbo_status table_load_proxy(const dpbo_config *config, const char *path, hid_t file,
                                    int64_t n, dpbo_compare_columns *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hsize_t dims[1] = {0};
  int64_t rows = 0;
  char why[DPBO_ERROR_MSG_MAX];
  if (config->guided_proxy_rows < 1) return DPBO_OK;
  H5E_BEGIN_TRY { rows = H5Lexists(file, "table/proxy_rows", H5P_DEFAULT) > 0; }
  H5E_END_TRY;
  if (!rows) return DPBO_OK; /* an older file, or one without the proxy task */
  if (dpbo_h5io_shape(file, "table/proxy_rows", 1, dims, err) != DPBO_OK || dims[0] != 1 ||
      dpbo_h5io_read(file, "table/proxy_rows", H5T_NATIVE_INT64, &rows, err) != DPBO_OK ||
      dpbo_h5io_shape(file, "table/proxy_accuracy", 1, dims, err) != DPBO_OK ||
      dims[0] != (hsize_t)n) {
    snprintf(why, sizeof why, "%s", err->message);
    DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s: a bad proxy column (table/proxy_*): %s",
               config->path, path, why);
  }
  if (rows != config->guided_proxy_rows) return DPBO_OK; /* another K: trained again */
  DPBO_ALLOC(out->proxy, n, "the proxy accuracies");
  if (dpbo_h5io_read(file, "table/proxy_accuracy", H5T_NATIVE_DOUBLE, out->proxy, err) != DPBO_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s: %s", config->path, path, why);
  }
  out->proxy_rows = rows;
done:
  return status;
}

/* Rank 0: opens, checks and reads the earlier file `path` into the columns
 * (allocated n long). */
static dpbo_status table_load(const dpbo_config *config, const char *path, const dpbo_space *space,
                              dpbo_compare_columns *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  hid_t file = -1;
  dpbo_settings written, taken;
  memset(&written, 0, sizeof written);
  memset(&taken, 0, sizeof taken);
  double *lambda = NULL, *stored = NULL;
  char what[1024], why[DPBO_ERROR_MSG_MAX]; /* why: err's message, copied before err is rewritten */
  /* A regular file only: H5Fopen would wait forever on a FIFO. */
  if (dpbo_input_check(path, "the file", err) != DPBO_OK) {
    dpbo_error_prefix(err, "%s: compare.table", config->path);
    status = err->code;
    goto done;
  }
  H5E_BEGIN_TRY { file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  if (file < 0)
    DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s is not an HDF5 file (a dpbo compare output)",
               config->path, path);
  /* Every failed read below is a bad input file: DPBO_ERR_DATA, exit 2. */
  if (dpbo_output_read_settings(file, path, &written, err) != DPBO_OK ||
      dpbo_output_read_defaults(file, path, &taken, err) != DPBO_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s", config->path, why);
  }
  if (written.count == 0)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: compare.table: %s holds no settings (config.* attributes): not a dpbo "
               "compare output",
               config->path, path);
  if (table_settings_differ(&config->settings, &written, &taken, path, what, sizeof what))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: compare.table: %s was made from another objective or space, so its table "
               "does not apply: %s",
               config->path, path, what);
  hsize_t dims[2] = {0, 0};
  if (dpbo_h5io_shape(file, "table/lambda", 2, dims, err) != DPBO_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s has no table (/table/lambda): %s",
               config->path, path, why);
  }
  if (dims[0] != (hsize_t)n || dims[1] != (hsize_t)d)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: compare.table: %s holds %llu candidates of %llu dimension(s), this run %lld "
               "of %d",
               config->path, path, (unsigned long long)dims[0], (unsigned long long)dims[1],
               (long long)n, d);
  DPBO_ALLOC(lambda, (size_t)n * (size_t)d, "the candidates");
  DPBO_ALLOC(stored, (size_t)n * (size_t)d, "the stored candidates");
  DPBO_TRY(dpbo_compare_table_lambda(space, lambda, err));
  /* The file's shapes are checked before each read: a short dataset would
   * overrun the buffers. */
  static const char *const columns[4] = {"table/lambda", "table/gain", "table/val_accuracy",
                                         "table/test_accuracy"};
  double *into[4] = {stored, out->gain, out->val, out->test};
  for (int c = 0; c < 4; c++) {
    if (c > 0 &&
        (dpbo_h5io_shape(file, columns[c], 1, dims, err) != DPBO_OK || dims[0] != (hsize_t)n))
      DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s: /%s is missing or not %lld long",
                 config->path, path, columns[c], (long long)n);
    if (dpbo_h5io_read(file, columns[c], H5T_NATIVE_DOUBLE, into[c], err) != DPBO_OK) {
      snprintf(why, sizeof why, "%s", err->message);
      DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s: %s", config->path, path, why);
    }
  }
  for (int64_t i = 0; i < n; i++)
    if (memcmp(lambda + (size_t)i * (size_t)d, stored + (size_t)i * (size_t)d,
               sizeof *lambda * (size_t)d) != 0)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: compare.table: candidate %lld of %s (/table/lambda) is not this run's",
                 config->path, (long long)i, path);
  if (dpbo_h5io_read_attr_double(file, "train_seconds", &out->seconds, err) != DPBO_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    DPBO_RAISE(DPBO_ERR_DATA, "%s: compare.table: %s: %s", config->path, path, why);
  }
  DPBO_TRY(table_load_proxy(config, path, file, n, out, err));
done:
  if (file >= 0) H5Fclose(file);
  dpbo_settings_free(&written);
  dpbo_settings_free(&taken);
  free(lambda);
  free(stored);
  return status;
}

dpbo_status dpbo_compare_table_read(MPI_Comm comm, const dpbo_config *config, const char *path,
                                    const dpbo_space *space, dpbo_compare_columns *out,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  const int64_t n = dpbo_space_size(space);
  memset(out, 0, sizeof *out);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_ALLOC(out->gain, n, "the gains");
  DPBO_ALLOC(out->val, n, "the validation accuracies");
  DPBO_ALLOC(out->test, n, "the test accuracies");
  if (rank == 0) local = table_load(config, path, space, out, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(out->gain, (int)n, MPI_DOUBLE, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(out->val, (int)n, MPI_DOUBLE, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(out->test, (int)n, MPI_DOUBLE, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(&out->seconds, 1, MPI_DOUBLE, 0, comm));
  /* The proxy column, when rank 0 found this K's. */
  DPBO_MPI_TRY(MPI_Bcast(&out->proxy_rows, 1, MPI_INT64_T, 0, comm));
  if (out->proxy_rows > 0) {
    if (rank != 0) out->proxy = malloc(sizeof *out->proxy * (size_t)n);
    local = out->proxy ? DPBO_OK
                       : DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the proxy column");
    DPBO_TRY(dpbo_comm_agree(comm, local, err));
    DPBO_MPI_TRY(MPI_Bcast(out->proxy, (int)n, MPI_DOUBLE, 0, comm));
  }
  if (rank == 0)
    dpbo_log_info("table: %lld candidates read from %s (compare.table; %.1f s of training there)",
                  (long long)n, path, out->seconds);
done:
  if (status != DPBO_OK) {
    free(out->gain);
    free(out->val);
    free(out->test);
    free(out->proxy);
    memset(out, 0, sizeof *out);
  }
  return status;
}
