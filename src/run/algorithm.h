/* The release algorithms' registry (issue #22, "one algorithm, one file, one
 * ops table"): what each `[privacy] algorithm` is, what it fixes before the
 * data, how its settings are checked, how it is calibrated, what it draws,
 * how its release is described and how `dpbo run` makes it (resumed or
 * not, by the driver or its own run hook), in one row per algorithm, the shape
 * dpbo_objective_ops has. Everything in the run, experiments and app layers
 * asks this table instead of comparing the algorithm with a constant.
 *
 * The rows live beside their code:
 *   alg_gp.c              Algorithms 1 and 2 (GP-UCB, λ̃ and ṽ / f̃)
 *   alg_lipschitz.c       Algorithm 3 (Lipschitz and convex, f̃_L)
 *   alg_private_evals.c   GP-UCB on privatized evaluations
 *   alg_random_search.c   private random search (Chaudhuri & Vinterbo)
 *   alg_stopping.c        Liu–Talwar and Papernot–Steinke (K secret runs)
 *   alg_guided.c          GP-guided selection (privatized evaluations, then a
 *                         stopping search with candidates from their posterior)
 * and `none` (no private release) in algorithm.c. core/privacy.c stays the
 * formula table beneath it (budget split, sensitivities) and keeps the public
 * dpbo_algorithm_name / _is_selection / _publishes_trace; the registry's
 * rows agree with them (test_algorithm). */
#ifndef DPBO_ALGORITHM_H
#define DPBO_ALGORITHM_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"
#include "dpbo/privacy.h"
#include "dpbo/space.h"

/* Declared by the modules that own them (the rows' files include those):
 * the registry itself includes none of them, so config.c, release.c and
 * selection.c can ask it without a circle. */
struct dpbo_config;
struct dpbo_driver_options;
struct dpbo_release;
struct dpbo_selection_accounting;

typedef struct dpbo_algorithm_ops {
  dpbo_algorithm algorithm;
  const char *name; /* as configs write it (dpbo_algorithm_name) */

  /* What the algorithm is. */
  int private_release;     /* 0 only for none: no private release at all */
  int is_selection;        /* selects on evaluated gains without a GP */
  int stopping;            /* K secret runs: the trace holds K steps, no redraw */
  int private_evaluations; /* each evaluation privatized during the run */
  int publishes_trace;     /* the run file's trace is published with the release */
  int gp_release;          /* rests on β_t, the UCB rule and Assumption 1 (Alg. 1, 2) */
  int noisy_observations;  /* Algorithm 1: v_t = f(λ_t) + α_t (q, the noise terms) */
  int prunes;              /* Algorithm 2's branch-and-bound pruning of Λ */
  int first_value_step;    /* the value is max over t > first (Algorithm 2: 1) */
  int fixed_candidates;    /* random search: exactly T candidates, drawn before the data */
  /* guided: privatized GP-UCB evaluations, then a stopping search whose
   * candidates follow their posterior (run/guided.h); a mechanism on the
   * gains of Λ like the selection methods, but with a GP in it. */
  int guided_selection;

  /* What it releases and how it spends the budget. */
  int releases_lambda;          /* λ̃ (all but Algorithm 3 and private_evaluations' own) */
  int pure;                     /* δ = 0 is a valid privacy.delta */
  int splits_budget;            /* privacy.split shares (ε, δ) between λ̃ and the value */
  const char *delta_rule;       /* privacy.delta's message when out of range */
  const char *value_name;       /* the released value in the guarantee (v_tilde, ...) */
  const char *value_symbol;     /* ... and in log lines and warnings (v~, ...) */
  const char *lambda_mechanism; /* λ̃'s mechanism in the files; NULL: privacy.selection's */
  const char *utility_bound;    /* dpbo utility: the value's bound (Theorem 4, ...) */
  const char *utility_target;   /* ... and what the value is compared with */
  /* The release files' layout of the privatized evaluations: flat ledger_*
   * keys and the mechanisms' numbers at the top level, no GP terms. */
  int evals_layout;
  const char *release_note; /* a note both release files carry (NULL: none) */
  /* Why `dpbo run` cannot make this release (NULL: it can); refused before
   * anything is read, evaluated or charged (dpbo_algorithm_runnable). */
  const char *run_refusal;
  /* Why `dpbo run --resume` cannot continue a run file of it (NULL: it can):
   * each of its runs is charged and drawn afresh. Refused before anything is
   * read or charged (dpbo_algorithm_runnable); a run file it left is
   * replaced with --overwrite or kept, never continued. */
  const char *resume_refusal;
  /* What `dpbo run` says when a stop request ended its run before anything
   * was written (NULL: the driver's checkpoint is what is left), followed by
   * the config's path. */
  const char *stop_note;

  /* Hooks, each NULL where the algorithm has nothing to do. */
  /* Its assumptions on the rest of the config (config.c, after [privacy]). */
  dpbo_status (*check_config)(struct dpbo_config *config, dpbo_error *err);
  /* `dpbo release --set`: which overrides a redraw from a finished run may
   * make (NULL: dpbo_release_check_overrides's rule for a redraw). */
  dpbo_status (*check_overrides)(const struct dpbo_config *stored, int count,
                                 const char *const *overrides, dpbo_error *err);
  /* Fills the public constants of its sensitivity (Algorithm 3's m, λ range,
   * L, g*) after dpbo_release_inputs filled the common ones. */
  dpbo_status (*inputs)(const struct dpbo_config *config, const dpbo_space *space,
                        dpbo_privacy_inputs *in, dpbo_error *err);
  /* The selection methods' calibration at total (ε, δ) for T candidates or
   * E[K] = T runs (run/selection.h, dpbo_selection_account). */
  dpbo_status (*account)(double epsilon, double delta, double split, int T, double ps_eta,
                         struct dpbo_selection_accounting *out, dpbo_error *err);
  /* The stopping methods' secret K from the release noise source. */
  int64_t (*draw_runs)(dpbo_noise *noise, int T, const struct dpbo_selection_accounting *acc);
  /* The accountant and bound the release was calibrated with (its
   * "calibration"), and the release's guarantee text. */
  const char *(*calibration)(const struct dpbo_release *release);
  void (*describe)(struct dpbo_release *release, const struct dpbo_config *config);
  /* Its whole `dpbo run` once the run file's path is settled: the run, the
   * run file and the release (collective; options->checkpoint is the run
   * file, *interrupted set when a stop request ended it). NULL: the driver
   * (dpbo_driver_run), then dpbo_session_publish (dpbo_session_run). */
  dpbo_status (*run)(MPI_Comm comm, const struct dpbo_config *config,
                     const struct dpbo_driver_options *options, int *interrupted, dpbo_error *err);
} dpbo_algorithm_ops;

/* The row of an algorithm; the none row for a value outside the enum. */
const dpbo_algorithm_ops *dpbo_algorithm_ops_get(dpbo_algorithm algorithm);

/* DPBO_OK, or DPBO_ERR_CONFIG with the row's run_refusal (with resume set,
 * else its resume_refusal) prefixed by the config's path. */
dpbo_status dpbo_algorithm_runnable(dpbo_algorithm algorithm, const char *path, int resume,
                                    dpbo_error *err);

/* The rows, defined in the files named above (for the table only). */
extern const dpbo_algorithm_ops dpbo_alg_1_ops, dpbo_alg_2_ops, dpbo_alg_3_ops,
    dpbo_alg_private_evals_ops, dpbo_alg_random_search_ops, dpbo_alg_liu_talwar_ops,
    dpbo_alg_papernot_steinke_ops, dpbo_alg_guided_ops;

#endif
