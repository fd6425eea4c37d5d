/* The private-selection methods (issue #13 item 2), written once for `dpbo
 * run` (privacy.algorithm = random_search | liu_talwar | papernot_steinke:
 * the evaluations go through the driver's task farm, the release reads them
 * from the run's trace) and for `dpbo compare` (the evaluations are look-ups
 * in its accuracy table). core/baseline.h states every formula and source.
 *
 * The setting: the validation set V of m records is private, the training
 * data public; neighbours differ in one validation record. A gain at a fixed
 * λ then moves by at most Δ (svm accuracy: 1/m; logreg f_V: g* / m), and that
 * is the only sensitivity the methods need: no GP, no assumption about f.
 *
 *  random_search     T candidates, the best by the exponential mechanism (or
 *                    permute-and-flip) on their gains (Δ, split·ε), its gain
 *                    + Laplace (Δ, (1 − split)·ε): (ε, 0)-DP.
 *  liu_talwar        Q = (a uniform candidate, its gain + Lap(Δ/ε0)), run K ~
 *                    Geometric(1/T) times (E[K] = T), the best noisy score
 *                    and its candidate released: (3ε0, 0)-DP, ε0 = ε/3.
 *  papernot_steinke  the same Q run K ~ D_{η,γ} times (E[K] = T), Rényi
 *                    accounting: (ε, δ)-DP with the largest ε0 that fits.
 *
 * Candidates are uniform on Λ and K is the stopping law's draw; both are
 * part of the mechanism and stay secret (issue #22). Liu–Talwar, Papernot–
 * Steinke and the random stopping of docs/privacy-proofs.md section 8 need
 * every run to be an identical, independent draw of the base algorithm Q
 * (a uniform candidate and its noisy score): if the candidate sequence were
 * public (it once came from run.seed), λ̃ would name the run j that won,
 * which reveals that K > j and breaks the analysis (δ ≈ 6.5e-3 at ε = 1 for
 * Liu–Talwar with ε0 = 1/3, issue #22). So both come from the release noise
 * source (the operating system's CSPRNG, or, with noise = seeded, the
 * streams DPBO_SELECTION_RUNS_STREAM and DPBO_SELECTION_CANDIDATES_STREAM,
 * not for publication), drawn on rank 0 and broadcast, independently of the
 * data, so they may be drawn before anything is evaluated and the K
 * evaluations spread over the workers. The run file (never published) keeps
 * them (/trace/candidates) so that --resume evaluates the same ones.
 * Released: the candidate and its (noisy, clamped) score, never K, the
 * candidate list or a raw gain. */
#ifndef DPBO_SELECTION_H
#define DPBO_SELECTION_H

#include <mpi.h>
#include <stdint.h>

#include "run/config.h"
#include "dpbo/error.h"
#include "dpbo/mechanism.h"
#include "dpbo/noise.h"
#include "dpbo/privacy.h"
#include "dpbo/rng.h"

/* The seeded noise stream K is drawn from (the release's streams are the
 * ranks, compare's 1000 + r). */
#define DPBO_SELECTION_RUNS_STREAM 0x52554e53u
/* The seeded noise stream the candidates are drawn from ("CAND"). */
#define DPBO_SELECTION_CANDIDATES_STREAM 0x43414e44u

/* The bound a method is calibrated with. Its (epsilon_accounted,
 * delta_accounted) is the one number the release reports as epsilon_total
 * and delta_total, the ledger is charged and privacy.budget is checked
 * against (issue #22): never a second bound applied afterwards. */
typedef enum dpbo_selection_bound {
  DPBO_SELECTION_BOUND_BASIC,   /* random_search: basic composition of two pure mechanisms */
  DPBO_SELECTION_BOUND_PURE,    /* liu_talwar: pure (3 ε0, 0), Liu–Talwar Theorem 3.4 */
  DPBO_SELECTION_BOUND_PROFILE, /* the privacy profile, docs/privacy-proofs.md section 8 */
  DPBO_SELECTION_BOUND_RENYI    /* papernot_steinke: Theorem 2, Rényi DP to (ε, δ) */
} dpbo_selection_bound;

/* The bound as the release names it ("calibration"). */
const char *dpbo_selection_bound_name(dpbo_selection_bound bound);

/* How one method spends a total (ε, δ). */
typedef struct dpbo_selection_accounting {
  double epsilon, delta; /* the total budget asked for */
  double epsilon_accounted,
      delta_accounted;        /* what the method's own accounting claims (<= asked, exactly) */
  dpbo_selection_bound bound; /* the bound that gives (epsilon_accounted, delta_accounted) */
  double epsilon_select, epsilon_value; /* the two releases of dpbo and random_search */
  double epsilon_base;              /* ε0 of each run of the base (liu_talwar, papernot_steinke) */
  double gamma, eta, expected_runs; /* the stopping law */
  double rdp_order, rdp_order_hat;  /* papernot_steinke: the orders reached */
  /* papernot_steinke: the base ε0 of the Rényi and of the privacy-profile
   * accounting (core/baseline.h); epsilon_base is the larger, by_profile = 1
   * when that is the profile's. liu_talwar: the profile's ε0 at δ > 0
   * (by_profile = 1 when it replaces the pure ε/3). */
  double epsilon_base_rdp, epsilon_base_profile;
  int by_profile;
} dpbo_selection_accounting;

/* The accounting of a selection algorithm at the total (ε, δ) for T candidates
 * or E[K] = T runs, split (random_search) and η (papernot_steinke).
 * random_search is pure and ignores δ; liu_talwar is pure (3ε0, 0) at δ = 0
 * and takes the privacy profile's larger ε0 at δ > 0 (docs/privacy-proofs.md
 * section 8). epsilon_accounted <= ε and delta_accounted <= δ hold exactly
 * (no rounding slack), so a run whose (ε, δ) fits privacy.budget never has
 * its release refused. */
dpbo_status dpbo_selection_account(dpbo_algorithm algorithm, dpbo_privacy_cost total, double split,
                                   int T, double ps_eta, dpbo_selection_accounting *out,
                                   dpbo_error *err);

/* The gain's sensitivity at a fixed λ (svm: 1/m, logreg: g* / m) and the range
 * released values are clamped to (objective.value_range, or the gain's). Other
 * objectives have no known sensitivity and are refused. */
dpbo_status dpbo_selection_gain_range(const dpbo_config *config, double *sensitivity, double *lo,
                                      double *hi, dpbo_error *err);

/* One data-independent candidate, uniform on Λ of size n (dpbo compare's
 * public streams, and run files written before issue #22). */
int64_t dpbo_selection_candidate(dpbo_rng *rng, int64_t n);

/* The law the stopping search draws each run's candidate from (issue #26):
 * uniform on Λ of size n (cdf NULL: today's draw, dpbo_noise_below(n), bit
 * for bit), or P(i) = (cdf[i] - cdf[i-1]) / cdf[n-1] for integer cumulative
 * weights (the guided method's π, run/guided.h), drawn exactly: one uniform
 * integer below cdf[n-1] and the first i whose cdf[i] exceeds it. The law is
 * fixed before the search starts and every draw of it comes from the secret
 * noise source: each run is then the identical base algorithm the stopping
 * theorems need, whatever the law (docs/privacy-proofs.md section 8). */
typedef struct dpbo_selection_law {
  int64_t n;
  const uint64_t *cdf; /* n nondecreasing, cdf[n-1] >= 1; NULL: uniform */
} dpbo_selection_law;

/* One candidate of the law from `noise`. */
int64_t dpbo_selection_law_draw(dpbo_noise *noise, const dpbo_selection_law *law);

/* The candidates of one `dpbo run` (collective: rank 0 draws, every rank
 * gets them): `planned` uniform indices into Λ of size n from the release
 * noise source (the OS CSPRNG, or with noise = seeded the stream
 * DPBO_SELECTION_CANDIDATES_STREAM of privacy.noise_seed), never from
 * run.seed. */
dpbo_status dpbo_selection_candidates(MPI_Comm comm, const dpbo_config *config, int planned,
                                      int64_t n, int64_t *candidates, dpbo_error *err);

/* The same from any law (dpbo_selection_candidates is the uniform one). */
dpbo_status dpbo_selection_candidates_law(MPI_Comm comm, const dpbo_config *config, int planned,
                                          const dpbo_selection_law *law, int64_t *candidates,
                                          dpbo_error *err);

/* The PUBLIC candidate stream of run.seed that dpbo before issue #22 drew a
 * run's candidates from: only to resume a run file of that version, which
 * stores none (its candidates were public already). */
void dpbo_selection_candidate_stream_legacy(const dpbo_config *config, dpbo_rng *rng);

/* One secret K of liu_talwar (Geometric(1/T), by exact Bernoulli(1/T)
 * coins) or papernot_steinke (D_{η,γ} of the accounting) from `noise`. */
int64_t dpbo_selection_draw_runs(dpbo_noise *noise, dpbo_algorithm algorithm, int T,
                                 const dpbo_selection_accounting *acc);

/* K for `dpbo run` (collective: rank 0 draws, every rank gets it): the
 * number of evaluations the algorithm makes: T for random_search, the
 * secret K of the stopping methods (from the configured release noise
 * source). */
dpbo_status dpbo_selection_planned(MPI_Comm comm, const dpbo_config *config, int *planned,
                                   dpbo_error *err);

/* Run k (0-based) of Q: its candidate and gain. */
typedef dpbo_status (*dpbo_selection_next_fn)(void *context, int64_t k, int64_t *index,
                                              double *gain, dpbo_error *err);

/* What a method picks. */
typedef struct dpbo_selection_pick {
  int64_t index;              /* the released candidate's index in Λ */
  int64_t position;           /* its run (stopping) or its place among the T (random search) */
  int64_t runs;               /* runs of Q made (K): secret, never released */
  double released;            /* the released score, clamped to [lo, hi] */
  dpbo_laplace_release value; /* the chosen score's Laplace draw */
  dpbo_select_release select; /* random_search: the selection */
  /* random_search: the two draws' ε by basic composition; stopping: the
   * ε0 one run of Q cost (<= epsilon_base). Either is <= the accounting's;
   * releases report and charge the accounting's (ε, δ), never this. */
  double epsilon_spent;
} dpbo_selection_pick;

/* How a selection method draws what it releases: every draw from the
 * secret `noise`; the selection mechanism `kind` (random_search); the
 * scores' sensitivity; the range [lo, hi] the released score is clamped to
 * (post-processing); noise_scale, 1 except in the audit's broken variant
 * (core/mechanism_private.h). */
typedef struct dpbo_selection_draw {
  dpbo_noise *noise;
  dpbo_select_kind kind;
  double sensitivity;
  double lo, hi;
  double noise_scale;
} dpbo_selection_draw;

/* The runs of Q that a stopping method takes the best of: next(context, k,
 * ...) gives run k; K > 0 runs, or (K = 0: Liu–Talwar's random stopping)
 * until an exact Bernoulli(1/T) coin after a run says stop. */
typedef struct dpbo_selection_runs {
  dpbo_selection_next_fn next;
  void *context;
  int64_t K;
  int T;
} dpbo_selection_runs;

/* Q run as `runs` says (the stopping coins drawn from draw->noise between
 * the runs), each score released by Laplace at epsilon0; the best (first on
 * ties) noisy score is kept and released clamped. draw->kind is not used. */
dpbo_status dpbo_selection_stopping(const dpbo_selection_runs *runs,
                                    const dpbo_selection_draw *draw, double epsilon0,
                                    dpbo_selection_pick *out, dpbo_error *err);

/* Private random search over the gains of T candidates: the selection on
 * gains (epsilon_select), then Laplace on the chosen gain (epsilon_value),
 * clamped; out->position is the chosen one's place among the T. */
dpbo_status dpbo_selection_random_search(const dpbo_selection_draw *draw, const double *gains,
                                         int T, double epsilon_select, double epsilon_value,
                                         dpbo_selection_pick *out, dpbo_error *err);

#endif
