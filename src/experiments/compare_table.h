/* dpbo compare's table read from an earlier compare file (compare.table).
 *
 * The table (/table/gain, val_accuracy, test_accuracy over Λ) is the
 * training of the objective at every candidate: it depends on the
 * objective.* keys (data, split, rows, solver settings; their defaults
 * included, e.g. objective.split_seed's run.seed) and on the candidates
 * (space.* keys), nothing else. The GP (gp.*), the UCB (ucb.*), T and every
 * privacy and compare key only enter after it, in the GP-UCB run and the
 * repetitions, which are recomputed. So an earlier file's table is reused
 * only when its effective objective.* and space.* settings (config.* and
 * default.* attributes, as text) equal this run's and its /table/lambda
 * holds this run's candidates bit for bit; anything else is refused. */
#ifndef DPBO_COMPARE_TABLE_H
#define DPBO_COMPARE_TABLE_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/space.h"
#include "experiments/compare_options.h"
#include "run/config.h"
#include "run/farm.h"

/* objective.kind = command (docs/own-model.md, dpbo compare on your
 * program): objective.validation_size (m) and objective.compare_command are
 * required, and a stated objective.value_range must lie within [0, 1] (the
 * value is an accuracy over m records). DPBO_ERR_CONFIG naming the key;
 * DPBO_OK for the other kinds. */
dpbo_status dpbo_compare_table_command_check(const dpbo_config *config,
                                             const dpbo_compare_options *options, dpbo_error *err);

/* The baselines' sensitivity of a gain at a fixed λ and its range: for a
 * command 1/m from objective.validation_size (never guessed) and
 * objective.value_range (else [0, 1]); the other kinds as
 * dpbo_selection_gain_range (run/selection.h). */
dpbo_status dpbo_compare_table_gain_range(const dpbo_config *config,
                                          const dpbo_compare_options *options, double *sensitivity,
                                          double *lo, double *hi, dpbo_error *err);

/* A table's columns over Λ: malloc'd n-long gain, validation and test
 * accuracy, and the training seconds summed over ranks. */
typedef struct dpbo_compare_columns {
  double *gain, *val, *test;
  double seconds;
  /* compare.table's file only: the guided method's proxy column
   * (table/proxy_accuracy) when it holds one for privacy.guided_proxy_rows
   * = this run's K >= 1, else NULL and proxy_rows 0. */
  double *proxy;
  int64_t proxy_rows;
} dpbo_compare_columns;

/* Collective: the table of a command objective over the space, trained by
 * objective.compare_command (one program per worker rank, rank 0 handing
 * out the candidates; rank 0 alone evaluates them itself), each reply "VAL
 * TEST" read strictly (command.h, reply_pair). Every rank receives the
 * columns (gain = val; the caller frees them); after a failure they are
 * freed and NULL. A failed or malformed reply fails the whole table with
 * the program's message. */
dpbo_status dpbo_compare_table_command(MPI_Comm comm, const dpbo_config *config,
                                       const dpbo_compare_options *options, const dpbo_space *space,
                                       dpbo_compare_columns *out, dpbo_error *err);

/* Collective: every candidate of the space once through the task farm
 * (run/farm.h), for both ways of filling a table: rank 0 hands out the
 * indices 0 .. n - 1 and files each row (job->accept), the workers (rank 0
 * alone when it has none) evaluate them (job->work, rows of row_bytes).
 * `ready` is this rank's outcome of setting up its evaluator; the ranks
 * agree on it before the farm starts. job's tasks and count are set here. */
dpbo_status dpbo_compare_table_farm(MPI_Comm comm, dpbo_status ready, const dpbo_farm_work *job,
                                    int64_t n, size_t row_bytes, dpbo_error *err);

/* The candidates' values, row after row (n x d, units of v), as /table/lambda
 * stores them. */
dpbo_status dpbo_compare_table_lambda(const dpbo_space *space, double *lambda, dpbo_error *err);

/* Collective: rank 0 reads and checks the earlier compare file `path`
 * (compare.table) against this run's config and space, and every rank
 * receives its table and training seconds (the columns as
 * dpbo_compare_table_command's; after a failure freed and NULL). A
 * missing, unreadable or foreign file and a table from other settings are
 * DPBO_ERR_DATA / DPBO_ERR_CONFIG naming both files (and the first key that
 * differs). */
dpbo_status dpbo_compare_table_read(MPI_Comm comm, const dpbo_config *config, const char *path,
                                    const dpbo_space *space, dpbo_compare_columns *out,
                                    dpbo_error *err);

#endif
