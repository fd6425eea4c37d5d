/* The GP-UCB driver (paper eq. 3 with Algorithm 1's β_t) over MPI.
 *
 * Every rank builds Λ's description, owns a contiguous block of it and keeps
 * that block's posterior (ucb.h). Rank 0 drives: each step all ranks agree on
 * λ_t with one reduction, rank 0 hands λ_t to a worker rank (round robin over
 * ranks 1..P-1; rank 0 itself when P = 1), the worker evaluates the objective
 * and returns v_t, and rank 0 broadcasts the result so every rank appends the
 * same observation to its copy of the GP and updates its block. */
#ifndef DPBO_DRIVER_H
#define DPBO_DRIVER_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/config.h"
#include "dpbo/error.h"
#include "dpbo/space.h"
#include "dpbo/ucb.h"

typedef struct dpbo_trace_step {
  int64_t index;               /* λ_t's global index in Λ */
  double unit[DPBO_MAX_DIM];   /* unit-cube coordinates */
  double value[DPBO_MAX_DIM];  /* hyper-parameter values */
  double gain;                 /* v_t */
  double mean, std;            /* posterior of f at λ_t before observing v_t (units of v) */
  double beta;                 /* β_t */
  double ucb;                  /* acquisition score at λ_t: μ + √β σ (units of v), or EI */
  int64_t alive;               /* Algorithm 2: candidates not pruned when λ_t was chosen */
  double eval_seconds;         /* objective time on the worker */
  double step_seconds;         /* whole step, selection to update */
  int worker;                  /* rank that evaluated */
} dpbo_trace_step;

typedef struct dpbo_run {
  int planned;  /* T */
  int steps;    /* completed steps */
  dpbo_trace_step *trace;
  int best_step; /* argmax_t v_t (first on ties), -1 before any step */
  double wall_seconds;
  dpbo_status outcome; /* DPBO_OK, or the failure that ended the run early */
  char outcome_message[DPBO_ERROR_MSG_MAX];
  /* State kept for output: */
  dpbo_space *space;
  dpbo_ucb *ucb;
  dpbo_gp *gp;
  size_t state_bytes; /* this rank's UCB state */
} dpbo_run;

/* Runs the configured optimization on comm (collective). On return with
 * DPBO_OK, run->outcome says whether all T steps completed; an evaluation
 * failure ends the loop but keeps the steps done so far for the run file.
 * Set-up failures (bad space, unreadable dataset on a worker) return an error
 * on every rank. */
dpbo_status dpbo_driver_run(MPI_Comm comm, const dpbo_config *config, dpbo_run *run, dpbo_error *err);

/* Rebuilds a finished run's state (Λ, blocks, GP, UCB posterior) from its
 * trace: steps candidate indices and gains, identical on every rank
 * (collective). Used to redraw a release without re-running the objective. */
dpbo_status dpbo_driver_replay(MPI_Comm comm, const dpbo_config *config, int steps,
                               const int64_t *index, const double *gain, dpbo_run *run,
                               dpbo_error *err);

void dpbo_run_free(dpbo_run *run);

/* Builds Λ from the config (all ranks; lists are read by every rank). */
dpbo_status dpbo_driver_space(const dpbo_config *config, dpbo_space **space, dpbo_error *err);

#endif
