/* Empirical privacy audit of the mechanisms (`dpbo audit`).
 *
 * A statistical lower bound on the ε a mechanism really has, in the style of
 * DP auditing (Ding et al. 2018, "Detecting Violations of Differential
 * Privacy"; Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private
 * Machine Learning"; Google's DP Stochastic Tester): run the mechanism many
 * times on two neighbouring inputs D and D' at the sensitivity bound, and for
 * every event E of a fixed family (histogram bins of the output and their
 * prefix and suffix unions) bound
 *
 *     ε >= log( p_lower(E | D) / p_upper(E | D') )   (and D, D' swapped)
 *
 * with one-sided Clopper-Pearson bounds. Each of the 4·(number of events)
 * bounds is taken at level α/(4·events) (Bonferroni), so with probability at
 * least 1 - α all of them hold at once and the reported maximum is a valid
 * lower bound on the true ε. A correct mechanism therefore passes (lower
 * bound <= claimed ε) except with probability α; a mechanism whose real loss
 * exceeds its claim by enough fails once the trials resolve the gap.
 *
 * The neighbouring inputs (sensitivity Δ, claimed ε):
 *  - Laplace: x = 0 and x' = Δ. Every event "release <= c" with c <= 0 has
 *    ratio exactly e^ε, the worst case, and probability about 1/2.
 *  - Exponential mechanism: N candidates, u = (0, ..., 0) and
 *    u' = (Δ, -Δ, ..., -Δ) (‖u - u'‖∞ = Δ): the raised candidate's weight
 *    rises by e^(ε/2) while the crowd's falls by e^(-ε/2), so its
 *    probability ratio is e^ε (1 + r)/(e^ε + r), r = N - 1, which tends to
 *    e^ε as N grows. N is chosen so that this loss is >= 0.965 ε (N = 49 at
 *    ε = 1: loss 0.9655), at most 256 (enough up to ε = 3.55; above, the
 *    reported pair loss is lower); the arithmetic behind that choice and the default
 *    of 10^6 trials (audited bound about 0.925 at ε = 1) is in audit.c.
 *  - Permute-and-flip: u = (0, 0), u' = (Δ, -Δ): the lowered candidate is
 *    chosen with probability 1/2 on u and e^(-ε)/2 on u', exactly e^ε.
 *  - Gaussian (discrete, dpbo_mech_gaussian): x = 0 and x' = Δ, σ calibrated
 *    by the accountant so that one release is (ε, δ)-DP (k = 1; δ =
 *    DPBO_AUDIT_GAUSSIAN_DELTA unless given). An (ε, δ) claim allows
 *    P(E | D) <= e^ε P(E | D') + δ, so each event gives the lower bound
 *    ε >= log((p_lower(E | D) - δ) / p_upper(E | D')) (events with
 *    p_lower <= δ say nothing). Output bins of width σ/4 from -6σ to Δ + 6σ;
 *    the threshold events "release >= c" are the optimal tests for a
 *    Gaussian pair, so the audit can approach the pair's exact ε at δ
 *    (pair_loss: the continuous Gaussian's ε(δ) at μ = Δ/σ_used; with at
 *    least 2^19 grid steps per σ the discrete law agrees with it far below
 *    the audit's resolution). The claim comes from the zCDP bound, which is
 *    looser than that exact value (0.867 against 1 at ε = 1, δ = 1e-3), so a
 *    correct release audits below about 0.85; --broken (σ halved, μ
 *    doubled: pair ε(δ) = 1.99) fails.
 *  Selection outputs are tested as two bins: the raised candidate and the
 *  rest. The result reports the exact loss of the pair (pair_loss). The
 *  audit can only exhibit a loss the pair has, less its statistical
 *  resolution: at the defaults a correct mechanism audits at about 0.99 ε
 *  (Laplace, permute-and-flip) and 0.925 ε (exponential), so a mechanism
 *  whose real ε exceeds the claim by more than about 2% (Laplace,
 *  permute-and-flip) or 8% (exponential: 0.9655 c - 0.04 > 1 for c > 1.08)
 *  fails; the --broken variant's doubled ε fails by a wide margin. It checks
 *  the mechanisms, not the sensitivities fed to them (the pipeline audit
 *  below does that on real data).
 *
 * The noise is seeded PCG (seed, stream = rank): the audit is reproducible
 * and runs split over the ranks of comm. A noise_scale_factor below 1 runs a
 * deliberately broken mechanism (noise scale multiplied by the factor, so
 * the true ε is divided by it) to show that the audit catches violations;
 * it is reachable only from here, never from a release. */
#ifndef DPBO_AUDIT_H
#define DPBO_AUDIT_H

#include <mpi.h>
#include <stdint.h>

#include "run/config.h"
#include "dpbo/error.h"

typedef enum {
  DPBO_AUDIT_LAPLACE = 0,
  DPBO_AUDIT_EXPONENTIAL = 1,
  DPBO_AUDIT_PERMUTE_AND_FLIP = 2,
  DPBO_AUDIT_GAUSSIAN = 3,
  DPBO_AUDIT_KIND_COUNT
} dpbo_audit_kind;

/* Default draws on each input: see the arithmetic in audit.c. */
#define DPBO_AUDIT_DEFAULT_TRIALS 1000000
/* δ of the Gaussian mechanism's audited claim, unless given (large enough
 * that the events near the optimal threshold are frequent: see audit.c). */
#define DPBO_AUDIT_GAUSSIAN_DELTA 1e-3

typedef struct dpbo_audit_result {
  dpbo_audit_kind kind;
  double epsilon_claimed; /* ε requested from the mechanism */
  double epsilon_lower;   /* audited lower bound; valid with probability >= 1 - alpha */
  double sensitivity;
  double alpha;
  double noise_scale_factor; /* 1 for the real mechanism */
  int64_t trials;            /* draws on each of the two inputs */
  int events;                /* events tested, each in both directions */
  int64_t candidates;        /* selection: candidates of the audited pair (0 for Laplace) */
  double pair_loss;          /* exact privacy loss of the pair at the mechanism's real ε */
  char witness[160];         /* the event and direction that attain epsilon_lower */
  int violated;              /* epsilon_lower > epsilon_claimed */
  double delta_claimed;      /* Gaussian: the claim's δ (0 for the ε-DP mechanisms) */
  double sigma;              /* Gaussian: σ calibrated to (ε, δ), before noise_scale_factor */
} dpbo_audit_result;

/* "laplace", "exponential", "permute_and_flip", "gaussian". */
const char *dpbo_audit_kind_name(dpbo_audit_kind kind);

/* One audit of one mechanism. epsilon, sensitivity > 0; delta in (0, 1)
 * for the Gaussian mechanism's claim (ignored by the ε-DP mechanisms;
 * DPBO_AUDIT_GAUSSIAN_DELTA by default); trials >= 1; alpha in (0, 1);
 * noise_scale_factor > 0 (1 = the real mechanism). */
typedef struct dpbo_audit_mechanism_options {
  dpbo_audit_kind kind;
  double epsilon, delta, sensitivity;
  int64_t trials; /* draws on each neighbouring input, split over the ranks */
  uint64_t seed;  /* of the seeded noise (stream = rank) */
  double alpha;
  double noise_scale_factor;
} dpbo_audit_mechanism_options;

/* Collective over comm: audits one mechanism with seeded noise. Every rank
 * gets the same result. */
dpbo_status dpbo_audit_mechanism(MPI_Comm comm, const dpbo_audit_mechanism_options *options,
                                 dpbo_audit_result *result, dpbo_error *err);

/* One-sided Clopper-Pearson bounds for k successes in n trials: the lower
 * bound holds with probability >= 1 - gamma (0 when k = 0), likewise the
 * upper bound (1 when k = n). Exposed for tests. */
double dpbo_audit_cp_lower(int64_t k, int64_t n, double gamma);
double dpbo_audit_cp_upper(int64_t k, int64_t n, double gamma);

/* ------------------------------------------------------------------------
 * Whole-pipeline audit (`dpbo audit --pipeline CONFIG`).
 *
 * The complete tuning procedure of a config (the GP-UCB/EI run of
 * dpbo_driver_run, then the private release of dpbo_release_draw) on the
 * validation set V of the config (D) and on a neighbour V' with one record
 * swapped (D', paper Definition 1), and the histogram test above applied to
 * what is released: ṽ (f̃, f̃_L), and λ̃ where the algorithm releases it
 * (Algorithms 1 and 2). The objective must be logreg (paper Algorithm 3's
 * logistic regression), the one objective whose validation records dpbo
 * can swap (dpbo_logreg_options.swap_validation_row).
 *
 * The tuning run is deterministic (logreg training and the GP search draw
 * no randomness), so it runs once on D and once on D' on every rank of comm
 * (on MPI_COMM_SELF; the ranks' agreement on the best values checks the
 * determinism), and only the release is repeated: `trials` releases of each
 * run, split over the ranks, each through the release code every `dpbo run`
 * uses (sensitivities, μ_T, max v_t, mechanisms) with the operating
 * system's CSPRNG, the noise every published release uses (the config's
 * [privacy] noise setting is overridden).
 *
 * The neighbour: V' replaces validation record j by pool record k (pool =
 * rows in neither split). ADVERSARIAL (the default) takes the λ_t evaluated
 * by the run on D and picks, at each, the (j, k) that moves f_V(w_λ) the
 * most, (g_j − g_k)/m, over all m × pool pairs (w_λ does not depend on V, so
 * this is exact and cheap), keeping the largest change over the λ_t: it
 * bounds the change of max_t v_t and drives the change of μ_T. RANDOM draws
 * j and k uniformly (PCG, seed `seed`).
 *
 * What is checked is the privacy of this implementation on this one pair,
 * not the worst case the sensitivities bound: the true loss on a real pair
 * is usually far below ε, so the audited lower bound is small and even a
 * release with half the noise passes. The result reports each mechanism's
 * loss on this pair (pair_loss: exact for ṽ, an upper bound for λ̃) from
 * its observed inputs; sensitivity_factor < 1 makes the release claim a
 * smaller sensitivity than the observed difference supports, which the
 * audit catches once pair_loss / sensitivity_factor exceeds the claim by the
 * audit's resolution (about 0.3 at the default trials). The small audit
 * configs (configs/audit-alg{1,2,3}-small.ini) are chosen so that a real
 * pair uses about 5% of the claim: there a factor of 0.01 fails. For
 * Algorithms 1 and 2 the sensitivities rest on Assumption 1 (the gains of
 * neighbouring validation sets form a multi-task GP); the audit is then an
 * empirical check of that assumption on this data pair, not a proof. With
 * two released quantities each test is run at level alpha/2, so both bounds
 * hold together with probability >= 1 - alpha. */

/* Default releases on each of D and D'. A Laplace release whose pair loss
 * is L is audited at about L - z (sqrt(1/R) + sqrt(2 e^L / R)), z = 4.7 at
 * the Bonferroni level of the histogram test: 20,000 releases resolve a
 * loss of 2.5 to within 0.25 and take about 5 s for Algorithm 1 (which
 * recomputes γ_T in every release) and well under a second for 2 and 3. */
#define DPBO_AUDIT_PIPELINE_DEFAULT_TRIALS 20000

typedef enum { DPBO_AUDIT_SWAP_ADVERSARIAL = 0, DPBO_AUDIT_SWAP_RANDOM = 1 } dpbo_audit_swap;

typedef struct dpbo_audit_pipeline_options {
  int64_t trials; /* releases on each of D and D' */
  uint64_t seed;  /* of the random swap (--swap random) only */
  double alpha;
  double noise_scale_factor; /* 1: the real release; 0.5: --broken */
  double sensitivity_factor; /* 1: the real release; < 1 claims a smaller sensitivity */
  dpbo_audit_swap swap;
} dpbo_audit_pipeline_options;

/* The test of one released quantity. */
typedef struct dpbo_audit_check {
  double epsilon_claimed; /* the ε the release states for this quantity */
  double sensitivity;     /* the sensitivity the release used (x sensitivity_factor) */
  double pair_loss;       /* privacy loss of the mechanism on this pair, from its inputs
                           * (exact for the value, an upper bound for λ̃) */
  double epsilon_lower;   /* audited lower bound */
  int events;
  char witness[192];
  int violated; /* epsilon_lower > epsilon_claimed */
} dpbo_audit_check;

typedef struct dpbo_audit_pipeline_result {
  dpbo_algorithm algorithm;
  dpbo_audit_pipeline_options options;
  int64_t n; /* |Λ| */
  int T;
  int64_t validation_rows, pool_rows;
  int64_t swap_validation_row, swap_with_row;
  double swap_lambda;            /* the λ_t at which the chosen swap moves f_V the most */
  double swap_gain_change;       /* f_V'(w_λ) − f_V(w_λ) there */
  int records_differ;            /* rows in which V and V' differ (1, or 0: equal records) */
  int path_first_difference;     /* first step t with λ_t(D) != λ_t(D'), 0 if none */
  double best_lo[2], best_hi[2]; /* non-private best value on D, D' over all ranks */
  double value_scale;            /* Laplace noise scale of ṽ actually used */
  int has_lambda;
  double score_difference; /* max over Λ of |μ_T(D) − μ_T(D')|, units of v */
  dpbo_audit_check value, lambda;
  int violated;
  double seconds;
} dpbo_audit_pipeline_result;

/* Collective over comm; config from dpbo_config_load with a privacy
 * algorithm and objective.kind = logreg. Every rank gets the same result. */
dpbo_status dpbo_audit_pipeline(MPI_Comm comm, const dpbo_config *config,
                                const dpbo_audit_pipeline_options *options,
                                dpbo_audit_pipeline_result *result, dpbo_error *err);

/* ------------------------------------------------------------------------
 * A private-selection release against an attacker who knows run.seed
 * (issue #22). Liu–Talwar and Papernot–Steinke release the best of K runs
 * of Q (a uniform candidate, its gain + Laplace noise); their proofs need
 * each run's candidate to be a secret part of the mechanism. The attacker
 * knows run.seed and the PUBLIC candidate stream dpbo once drew from it
 * (dpbo_selection_candidate_stream_legacy), and maps the released λ̃ to the
 * position j of its first occurrence there (none: j = -1). On D every gain
 * is g, on D' every gain is g + Δ (a neighbour when every gain moves by its
 * sensitivity); the test event is E = {j >= position, ṽ < g + score·Δ},
 * fixed in advance, so
 *
 *     ε >= log((P_lower(E | D) − δ) / P_upper(E | D'))
 *
 * with one-sided Clopper-Pearson bounds at level alpha/2 each. Every release
 * is one whole `dpbo run`: K from dpbo_selection_draw_runs on its seeded
 * stream, the candidates from dpbo_selection_candidates (the function `dpbo
 * run` calls), the release by dpbo_selection_stopping on stream 0, all with
 * noise = seeded and noise_seed = seed + 2 trial + side (a secret seed per run, as the
 * OS CSPRNG gives; fixed here so the audit is reproducible) and run.seed =
 * run_seed. If the candidates came from run.seed, j would be the winning
 * run, which reveals K > j: Liu–Talwar at (1, 0) (ε0 = 1/3), T = 4, the
 * event {j >= 3, ṽ < g + Δ/2}, 400,000 releases a side give P(E | D) ≈
 * 0.0070 against P(E | D') ≈ 0.0016, an audited ε >= 1.30 > 1
 * (public_candidates = 1, tests/test_audit_seed.c); with the candidates
 * drawn from the noise, λ̃ says nothing about j and the audit passes. */
typedef struct dpbo_audit_seed_options {
  dpbo_algorithm algorithm; /* liu_talwar or papernot_steinke */
  double epsilon, delta;    /* the total budget (the accounting's claim) */
  int T;                    /* run.iterations: E[K] */
  double ps_eta;            /* papernot_steinke's η */
  int64_t n;                /* |Λ| */
  uint64_t run_seed;        /* run.seed: public */
  int64_t trials;           /* releases on each of D and D' */
  uint64_t seed;            /* the first trial's noise_seed */
  double alpha;             /* the test's level */
  int position;             /* the event: j >= position ... */
  double score;             /* ... and ṽ < g + score·Δ */
  /* 1: the broken variant, the candidates of every run drawn from the
   * public stream of run.seed as dpbo did before issue #22 (the audit must
   * fail); 0: the candidates `dpbo run` draws. */
  int public_candidates;
} dpbo_audit_seed_options;

typedef struct dpbo_audit_seed_result {
  double epsilon_claimed, delta_claimed; /* what the accounting states */
  int64_t hits[2];                       /* releases in E on D, D' */
  int64_t trials;
  double p_lower, p_upper; /* P(E | D) >= p_lower, P(E | D') <= p_upper */
  double epsilon_lower;    /* audited lower bound (-inf: none) */
  int violated;            /* epsilon_lower > epsilon_claimed */
} dpbo_audit_seed_result;

/* Collective over comm (the trials split over the ranks); every rank gets
 * the same result. */
dpbo_status dpbo_audit_selection_seed(MPI_Comm comm, const dpbo_audit_seed_options *options,
                                      dpbo_audit_seed_result *result, dpbo_error *err);

/* ------------------------------------------------------------------------
 * `dpbo audit` (its command line is read in app/cli.c). */

/* Default releases on each side of --seed-attack (arithmetic above). */
#define DPBO_AUDIT_SEED_DEFAULT_TRIALS 400000

typedef enum {
  DPBO_AUDIT_MODE_MECHANISMS = 0, /* the mechanisms on their worst pairs */
  DPBO_AUDIT_MODE_PIPELINE = 1,   /* --pipeline CONFIG: dpbo_audit_pipeline */
  DPBO_AUDIT_MODE_SEED = 2        /* --seed-attack ALG: dpbo_audit_selection_seed */
} dpbo_audit_mode;

/* One audit, every default resolved by the caller. */
typedef struct dpbo_audit_options {
  dpbo_audit_mode mode;
  int which[DPBO_AUDIT_KIND_COUNT]; /* mechanisms: 1 for each kind audited */
  double epsilon;                   /* mechanisms, seed: the claim's ε */
  double delta;                     /* mechanisms: the Gaussian claim's δ; seed: the claim's δ */
  double sensitivity;               /* mechanisms: Δ */
  int64_t trials;                   /* draws (releases) on each side */
  uint64_t seed;                    /* mechanisms: the noise; pipeline: --swap random; seed:
                                     * the first trial's noise_seed */
  double alpha;
  int broken;                /* mechanisms, pipeline: noise x0.5; seed: public candidates */
  dpbo_algorithm attack;     /* seed: liu_talwar or papernot_steinke */
  double sensitivity_factor; /* pipeline: 1, or < 1 to claim less */
  dpbo_audit_swap swap;      /* pipeline */
} dpbo_audit_options;

/* Collective: runs the audit of options (config: the loaded --pipeline
 * config, NULL otherwise) and prints its table on rank 0 (mechanism or
 * released quantity, claimed ε, audited lower bound, trials, verdict).
 * *violated: 1 when a lower bound exceeds its claim. A failure prints
 * nothing: the caller reports err. */
dpbo_status dpbo_audit_run(MPI_Comm comm, const dpbo_audit_options *options,
                           const dpbo_config *config, int *violated, dpbo_error *err);

#endif
