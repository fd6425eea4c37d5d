/* The private release after a run (paper Algorithms 1, 2, 3; docs/design.md
 * sections 2, 3, 6): λ̃ by the exponential mechanism (or permute-and-flip)
 * over μ_T on Λ, and the best value by the Laplace mechanism, with every
 * sensitivity term, the budget and the randomness source recorded.
 *
 * The release file holds only DP outputs and public settings, never a trace
 * value: <dir>/<name>.release.h5 and a one-line <dir>/<name>.release.json,
 * both written atomically. */
#ifndef DPBO_RELEASE_H
#define DPBO_RELEASE_H

#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

#include "run/config.h"
#include "run/release_warn.h"
#include "run/ledger.h"
#include "run/run.h"
#include "run/selection.h"
#include "dpbo/mechanism.h"
#include "dpbo/noise.h"
#include "dpbo/privacy.h"

/* What a release of privatized evaluations states besides the common fields
 * (run/private_evals.h; set only for that algorithm, whose λ̃ and ṽ are
 * post-processing of the noisy trace). */
typedef struct dpbo_evals_release {
  dpbo_final_choice final_choice;
  int64_t index; /* λ̃'s index in Λ */
  int step;      /* best_observed: its step t (1-based); 0 otherwise */
  int clamped;   /* ṽ moved by privacy.value_range (post-processing) */
  int observations, failures;
  int64_t max_evaluations, charged; /* K, and the mechanisms charged */
  double sensitivity, sigma, granularity;
  int sensitivity_proven;
  int64_t validation_size; /* m (svm, logreg); 0 for a stated sensitivity */
  /* The discrete Gaussian's proven bound for K mechanisms: δ at ε and ε at δ,
   * by the accountant named (the PLD bound, or the zCDP bound where that is
   * smaller), and the zCDP bound's numbers and σ for comparison. */
  double proven_delta, proven_epsilon;
  double zcdp_delta, zcdp_epsilon, sigma_zcdp;
  char accountant[256];
  /* The continuous Gaussian's GDP (Dong, Roth, Su), for reference only. */
  double gdp_mu, gdp_delta, gdp_epsilon;
  double gp_noise_std, gp_noise_std_used;
  char objective[32];
} dpbo_evals_release;

/* What a guided release states of its stage 1 and of the law π (run/guided.h;
 * set for it only: stage 2's accounting is selection_accounting). Functions of
 * public settings and of stage 1's noisy trace: publishable. */
typedef struct dpbo_guided_release {
  int64_t stage1_evaluations;               /* T1 */
  double stage1_epsilon, stage1_delta;      /* its share (ε1, δ1) */
  double stage1_epsilon_accounted;          /* ε1' by the PLD bound (<= ε1) */
  double stage1_sigma, stage1_gp_noise_std; /* its mechanism and the GP's noise */
  double pi_min, pi_max;                    /* π's extremes */
  int64_t stage1_proxy_rows;                /* K >= 1: stage 1 ran on the proxy task */
  /* Stage 1's privatized evaluations, in step order: λ_t's index in Λ and
   * its gain through the discrete Gaussian (NaN: the evaluation failed),
   * the values the run file's /guided holds. DP outputs of stage 1 under
   * the release's (ε, δ), so both release files list them (never stage 2's
   * gains or candidates). Owned by the caller (dpbo_guided_run); the writer
   * reads them on rank 0. */
  int stage1_count;
  const int64_t *stage1_index;
  const double *stage1_value;
} dpbo_guided_release;

typedef struct dpbo_release {
  dpbo_algorithm algorithm;
  dpbo_bounds bounds; /* which proofs the sensitivities follow ([privacy] bounds) */
  dpbo_privacy_inputs inputs;
  dpbo_sensitivity sens;
  int64_t n;
  int T, d;
  char names[DPBO_MAX_DIM][DPBO_NAME_MAX];
  const dpbo_space *space; /* λ's dimensions: integers and category names print as such */
  int has_lambda;
  double lambda[DPBO_MAX_DIM];
  dpbo_select_kind selection;
  dpbo_select_release select;
  int has_value;
  dpbo_laplace_release value;
  double epsilon_lambda, delta_lambda, epsilon_value, delta_value;
  /* What the release reports, the ledger is charged and privacy.budget is
   * checked against: the (ε, δ) of the bound it was calibrated with (the
   * files' "calibration"; basic composition for Algorithms 1-3). The
   * selection methods' never exceeds the configured (ε, δ). */
  double epsilon_total, delta_total;
  int reproducible; /* seeded noise: not for publication */
  char source[256];
  char guarantee[2048];
  /* The private-selection methods (selection.h): their accounting and the
   * gain's sensitivity (never K, the runs made). */
  dpbo_selection_accounting selection_accounting;
  double gain_sensitivity;
  dpbo_evals_release evals;   /* private_evaluations only */
  dpbo_guided_release guided; /* guided only */
  /* The run's ledger after this draw (dpbo_release_set_ledger). */
  dpbo_privacy_ledger ledger;
  double ledger_epsilon_advanced, ledger_delta_advanced, ledger_delta_slack;
  dpbo_ledger_zcdp ledger_zcdp;        /* written only where present */
  double budget_epsilon, budget_delta; /* NaN: the run has no budget */
  /* Near-uniform λ̃ or value, value clamped (run/release_warn.h; public
   * quantities only). */
  dpbo_release_warnings warnings;
} dpbo_release;

/* The config's total budget split (dpbo_privacy_budget_split) at total
 * epsilon (the config's own, or one of dpbo utility's list). */
dpbo_status dpbo_release_budget(const dpbo_config *config, double epsilon,
                                dpbo_privacy_budget *budget, dpbo_error *err);

/* Which `--set` settings a redraw from a finished run may change (`dpbo
 * release`). An algorithm whose row has a rule of its own (run/algorithm.h:
 * a stopping method is never redrawn, a private_evaluations release is
 * post-processing) is held to that rule; the others to this one:
 * privacy.epsilon, the noise source (privacy.noise,
 * privacy.noise_seed), privacy.failures_public (a statement about the
 * objective, not a parameter of the bounds) and ucb.memory_limit_mb (how the
 * posterior is rebuilt, never what it is). A run made without a privacy
 * algorithm (stored: the run's settings, algorithm none) is refused
 * whatever the overrides: its privacy settings were not fixed before the
 * data was seen (issue #22, 4). A run of Algorithm 1 or 2 may name
 * privacy.bounds (only the bounds its β_t was drawn for
 * pass that check; run files written before bounds existed are paper
 * runs). Everything else is
 * fixed before the validation data is seen (the GP prior and kernel, k1, A,
 * τ, ...) or fixed the run's β_t (δ, split, bounds, algorithm), and is
 * refused with the reason. */
dpbo_status dpbo_release_check_overrides(const dpbo_config *stored, int count,
                                         const char *const *overrides, dpbo_error *err);

/* Theorem 3's regret bound (and Theorem 5's) holds only for the β_t the run
 * used: recomputes β_t = dpbo_privacy_beta(N, t, δ_β) for t = 1..steps with
 * the release's δ_β and refuses, naming both δ, when any differs from the
 * run's /trace/beta (stored_delta: the run's /trace delta). Algorithm 3 does
 * not rest on β and passes. */
dpbo_status dpbo_release_check_beta(const dpbo_config *config, int64_t n, int steps,
                                    const double *beta, double stored_delta, dpbo_error *err);

/* Records in the release the run's cumulative spend after it: the ledger
 * (basic composition), advanced composition with slack δ' = the run's
 * privacy.delta, the zCDP total where every event allows one (zcdp, may be
 * NULL: none) and the run's privacy.budget (all stated in the files). */
void dpbo_release_set_ledger(dpbo_release *release, const dpbo_config *config,
                             const dpbo_privacy_ledger *ledger, const dpbo_ledger_zcdp *zcdp);

/* The inputs of the sensitivities from a config and a run (public settings
 * only; m for Algorithm 3 is the validation size, itself public). */
dpbo_status dpbo_release_inputs(const dpbo_config *config, const dpbo_space *space,
                                dpbo_privacy_inputs *in, dpbo_error *err);

/* Draws a release from a finished run (collective). noise must be set up on
 * every rank (OS source, or seeded with stream = rank). */
dpbo_status dpbo_release_draw(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                              dpbo_noise *noise, dpbo_release *out, dpbo_error *err);

/* Writes the release file pair; call on one rank. The fields that apply to
 * the release's algorithm are written, the others are absent; its row
 * chooses the layout (a "ledger" object, or flat ledger_* keys). */
dpbo_status dpbo_release_write(const dpbo_release *release, const char *h5_path,
                               const char *json_path, dpbo_error *err);

/* Draws a release from a finished run and publishes it through the release
 * transaction (run/publish.h: targets checked, draw, ledger of runfile
 * charged, files written; collective). files->base: the files are
 * <base>.h5 and .json; NULL: <runfile stem>.release-K, K the ledger's count
 * after it. On success *out holds the release and the ledger after it, and
 * rank 0's files->h5 and files->json (size bytes each) the files written. */
typedef struct dpbo_release_files {
  const char *runfile, *base; /* in */
  char *h5, *json;            /* out */
  size_t size;
} dpbo_release_files;

dpbo_status dpbo_release_publish(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                 dpbo_noise *noise, const dpbo_release_files *files,
                                 dpbo_release *out, dpbo_error *err);

/* <output_dir>/<output_name>.release (base) and its .h5 / .json */
void dpbo_release_base(const dpbo_config *config, char *base, size_t size);
void dpbo_release_paths(const dpbo_config *config, char *h5_path, char *json_path, size_t size);

/* A JSON string (escaped) and a JSON number (shortest round trip; null
 * for NaN and infinities), as the release files write them. */
void dpbo_release_json_string(FILE *f, const char *text);
void dpbo_release_json_number(FILE *f, double x);
/* ,"warnings":[...] (an empty list when there is none). */
void dpbo_release_json_warnings(FILE *f, const dpbo_release_warnings *w);

/* λ_i as text: an integer dimension's value as an integer, a categorical
 * one's as its category name, else `digits` significant digits
 * (dpbo_dim_format; space NULL: a number). */
typedef struct dpbo_lambda_text {
  char text[DPBO_NAME_MAX];
} dpbo_lambda_text;
dpbo_lambda_text dpbo_release_lambda_text(const dpbo_space *space, int i, double value, int digits);
/* λ_i as a JSON value: a category name as a string, every other as a number. */
void dpbo_release_json_lambda(FILE *f, const dpbo_space *space, int i, double value);
/* The attribute "lambda_text" of a release file: λ̃ as text, comma-separated. */
dpbo_status dpbo_release_write_lambda_text(hid_t file, const dpbo_space *space, int d,
                                           const double *lambda, dpbo_error *err);
/* The end of a JSON release written into the temporary `tmp` of
 * dpbo_h5io_temp_open (f, or still the descriptor fd when fdopen failed):
 * with status DPBO_OK flushes, publishes atomically as `path` and closes;
 * otherwise, or when that fails, closes and removes the temporary. Call it
 * at the writer's done label; returns the writer's status or the failure. */
dpbo_status dpbo_release_json_publish(dpbo_status status, FILE *f, int fd, const char *tmp,
                                      const char *path, dpbo_error *err);

/* The guarantee's sentence on which bounds the sensitivities follow
 * (Algorithms 1-3; the rows in run/alg_gp.c and run/alg_lipschitz.c). */
const char *dpbo_release_bounds_note(const dpbo_release *release);

/* Logs the release next to the non-private best (rank 0 prints). */
void dpbo_release_log(const dpbo_release *release, const dpbo_run *run);

#endif
