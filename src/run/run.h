/* The run record and its step: GP-UCB as the paper runs it (eq. 3 with
 * Algorithm 1's β_t, Algorithm 2's pruning, expected improvement for
 * Algorithm 3), written once and used by `dpbo run` (driver.h: the MPI
 * event loop, the workers and the checkpoints around it), by the replay of
 * `dpbo release` and `dpbo utility`, and by `dpbo compare`. Output, release,
 * utility and compare read the record without the driver, which is above
 * them (the driver writes its checkpoints through output.h).
 *
 * Every rank holds the whole trace and the GP, and the UCB state of its own
 * block of Λ (ucb.h). The functions taking a communicator are collective
 * over it: every rank calls them in the same order with the same arguments,
 * and ends with the same trace. A step has two halves because `dpbo run`
 * evaluates asynchronously: dpbo_run_select chooses λ_t and appends it to the
 * trace, dpbo_run_observe folds its v_t (or its failure) in later, in
 * between other steps' selections when batch > 1. dpbo_run_step is both
 * halves around an evaluation every rank can make itself (a table). */
#ifndef DPBO_RUN_H
#define DPBO_RUN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "run/config.h"
#include "dpbo/error.h"
#include "dpbo/space.h"
#include "dpbo/ucb.h"

typedef enum {
  DPBO_STEP_DONE = 0,   /* v_t observed */
  DPBO_STEP_FAILED = 1, /* the evaluation failed; gain is NaN */
  DPBO_STEP_PENDING = 2 /* selected, result not in yet (batches, checkpoints) */
} dpbo_step_state;

#define DPBO_FAILURE_MAX 512

typedef struct dpbo_trace_step {
  int64_t index;                  /* λ_t's global index in Λ */
  double unit[DPBO_MAX_DIM];      /* unit-cube coordinates */
  double value[DPBO_MAX_DIM];     /* hyper-parameter values */
  double gain;                    /* v_t */
  double mean, std;               /* posterior of f at λ_t before observing v_t (units of v) */
  double beta;                    /* β_t */
  double ucb;                     /* acquisition score at λ_t: μ + √β σ (units of v), or EI */
  int64_t alive;                  /* Algorithm 2: candidates not pruned when λ_t was chosen */
  double eval_seconds;            /* objective time on the worker */
  double step_seconds;            /* whole step, selection to update */
  int worker;                     /* rank that evaluated */
  int state;                      /* dpbo_step_state */
  int attempts;                   /* 1 + retries used */
  char failure[DPBO_FAILURE_MAX]; /* why a failed evaluation failed */
} dpbo_trace_step;

typedef struct dpbo_run {
  int planned;         /* T */
  int steps;           /* trace entries: points selected so far, in order */
  int finished;        /* of those, evaluations whose result is in (done or failed) */
  int failures;        /* of those, failed evaluations */
  int resumed;         /* steps taken over from a checkpoint */
  int interrupted;     /* stopped by a signal or stop_after: the checkpoint holds the run */
  int workers;         /* ranks that evaluated */
  double busy_seconds; /* evaluation time summed over workers (this invocation) */
  double utilization;  /* busy_seconds / (workers x wall_seconds) */
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
  /* The UCB state over all ranks (the same on every rank; ucb.h): */
  size_t memory_limit;          /* this rank's limit in bytes (0: none) */
  size_t memory_limit_min;      /* the smallest limit of any rank (0: none anywhere) */
  size_t state_bytes_max;       /* largest rank's state */
  size_t state_bytes_total;     /* sum over ranks */
  size_t incremental_bytes_max; /* largest rank's state in incremental mode */
  int recompute_ranks;          /* ranks whose state runs in recompute mode */
  int ranks;
  /* Peak resident set size (getrusage) at the end of the run's loop. */
  size_t peak_rss_max, peak_rss_total;
  /* The step's own state: at most `batch` evaluations in flight (GP-BUCB
   * when > 1: a selected point enters the GP at once with a hallucinated
   * value), and each step's row in the GP (-1: none, e.g. a failed step). */
  int batch;
  int *gp_row;
  /* The private-selection methods (selection.h): the data-independent
   * candidates the run evaluates in order instead of choosing by UCB (no GP
   * is fitted); NULL for GP-UCB. */
  int64_t *candidates;
  /* privacy.algorithm = private_evaluations (run/private_evals.h): Gaussian
   * mechanisms charged so far (every evaluation dispatched, lost ones
   * included; restored on resume), and whether the run stopped because the
   * next would pass privacy.max_evaluations. */
  int64_t evaluations_charged;
  int evaluations_exhausted;
} dpbo_run;

/* Builds Λ from the config (all ranks; lists are read by every rank). */
dpbo_status dpbo_run_space(const dpbo_config *config, dpbo_space **space, dpbo_error *err);

/* Λ, this rank's block of it, the UCB state (incremental or recompute per
 * ucb.memory_limit_mb) and the GP, with an empty trace of capacity T and
 * run.batch from the config. A failure on any rank fails all. */
dpbo_status dpbo_run_create(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                            dpbo_error *err);

/* The same with `planned` evaluations instead of T: a private-selection
 * run's K (selection.h), whose candidates are evaluated in order, over every
 * worker at once (the batch is the number of workers); its GP and UCB state
 * stay empty. The candidates are `candidates` (planned of them, identical on
 * every rank: a resumed run's stored list), or when NULL drawn here from the
 * release noise source (dpbo_selection_candidates: secret, never run.seed). */
dpbo_status dpbo_run_create_planned(MPI_Comm comm, const dpbo_config *config, int planned,
                                    const int64_t *candidates, dpbo_run *run, dpbo_error *err);

/* The first half of step t = run->steps + 1: β_t (dpbo_privacy_beta),
 * Algorithm 2's pruning when t > 1, the next λ_t by UCB (or EI with
 * ucb.acquisition = ei), appended to the trace as pending with the
 * posterior at λ_t; with batch > 1 it enters the GP hallucinated. Fails
 * when every candidate is excluded. */
dpbo_status dpbo_run_select(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                            dpbo_error *err);

/* The second half, for pending step s (0-based): failure NULL records v_t =
 * gain, folds it into GP and block and notes the best; otherwise the step
 * failed for that reason: it never enters the GP (a batch's hallucinated row
 * leaves it) and its candidate is never proposed again. */
dpbo_status dpbo_run_observe(MPI_Comm comm, const dpbo_config *config, int s, double gain,
                             const char *failure, dpbo_run *run, dpbo_error *err);

/* v at candidate `index` of Λ, the same on every rank; a status other than
 * DPBO_OK is a failed evaluation (err's message is its reason). */
typedef dpbo_status (*dpbo_run_evaluate_fn)(void *context, int64_t index, double *gain,
                                            dpbo_error *err);

/* One whole step (batch = 1): select, evaluate on every rank, observe. */
dpbo_status dpbo_run_step(MPI_Comm comm, const dpbo_config *config, dpbo_run_evaluate_fn evaluate,
                          void *context, dpbo_run *run, dpbo_error *err);

/* After dpbo_run_create: continues from a checkpoint's `count` steps (every
 * state, identical on all ranks). GP and block are rebuilt as the live run
 * built them, Algorithm 2's pruning included, so with batch = 1 the run goes
 * on bit for bit as if it had never stopped. */
dpbo_status dpbo_run_resume(MPI_Comm comm, const dpbo_config *config, const dpbo_trace_step *steps,
                            int count, dpbo_run *run, dpbo_error *err);

/* Rebuilds a finished run (Λ, blocks, GP, UCB posterior) from its trace:
 * `steps` candidate indices and gains (NaN for a failed evaluation),
 * identical on every rank. For a new release without evaluating again;
 * sequential and without Algorithm 2's pruning, as a release reads the
 * posterior only. */
dpbo_status dpbo_run_replay(MPI_Comm comm, const dpbo_config *config, int steps,
                            const int64_t *index, const double *gain, dpbo_run *run,
                            dpbo_error *err);

void dpbo_run_free(dpbo_run *run);

/* Whether more than half of the run's finished evaluations failed (from
 * the trace's states, so a run read back from its file counts the same).
 * Such a run makes no private release: the objective refused most of the
 * space (a wrong range, a broken program), and epsilon would be spent on
 * failures. */
int dpbo_run_mostly_failed(const dpbo_run *run);

/* "incremental", "recompute", or "recompute on R of P ranks, ...": the UCB
 * state's mode over all ranks, into buf. */
const char *dpbo_run_ucb_mode(const dpbo_run *run, char *buf, size_t size);

#endif
