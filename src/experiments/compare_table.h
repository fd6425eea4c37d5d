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
#include "run/config.h"

/* The candidates' values, row after row (n x d, units of v), as /table/lambda
 * stores them. */
dpbo_status dpbo_compare_table_lambda(const dpbo_space *space, double *lambda, dpbo_error *err);

/* Collective: rank 0 reads and checks config->compare_table against this
 * run's config and space, every rank receives the table (malloc'd n-long
 * gain, val and test; the caller frees them, also after a failure) and the
 * earlier run's training seconds. A missing, unreadable or foreign file and
 * a table from other settings are DPBO_ERR_DATA / DPBO_ERR_CONFIG naming
 * both files (and the first key that differs). */
dpbo_status dpbo_compare_table_read(MPI_Comm comm, const dpbo_config *config,
                                    const dpbo_space *space, double **gain, double **val,
                                    double **test, double *seconds, dpbo_error *err);

#endif
