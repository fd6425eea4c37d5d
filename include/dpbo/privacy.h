/* Every privacy formula of the paper, in one place (docs/design.md section 2;
 * docs/privacy-proofs.md derives each one and the corrections).
 *
 * Notation: N = |Λ|, T iterations, (ε, δ) per released quantity, σ_n = σ/s
 * the noise in normalized units (the paper's formulas assume s = 1, m0 = 0;
 * every sensitivity below is converted back to units of v by multiplying by s).
 *
 * Two sets of bounds ([privacy] bounds): `corrected` (the default) closes
 * the gaps of the paper's proofs, `paper` keeps its literal formulas. Where
 * they differ (δ_v: the value's δ, δ_β: the δ of the run's β_t):
 *
 *                 paper                            corrected
 *  β_t   = 2 log(N t² π² / (3 δ_β))   δ_β = δ_v    δ_β = δ_v/3 (Alg. 1), δ_v/2 (Alg. 2)
 *  q     = σ_n √(4 log(3/δ_v))                     2 σ_n √(2 log(6T/δ_v))
 *  Δ_f2  = A e^{−2τ/(log 2)^{d/4}} + c             A max_{t≥2} e^{−τt/(log t)^{d/4}} + c
 *  Δ_f3  = min{g* / m, L/(m λ_min)} + (λ_max − λ_min) L/(λ_max λ_min)
 *                                                  + 2 L r (1 + 1/m), r = tol/(4 λ_min)
 *
 * and in both:
 *  c     = 2 √((1 − k1) log(3N/δ))                 Algorithm 1 (2N/δ in Algorithm 2)
 *  C1    = 8 / log(1 + σ_n⁻²)                      Algorithm 1
 *  Δ_λ   = 2 √β_{T+1} + c   (β_{T+1} with δ_λ)     Theorem 1 (q = 0 changes nothing here)
 *  Δ_v   = √(C1 β_T γ_T / T) + c + q               Theorem 3 (β_T with δ_β)
 *  γ_T   = γ_greedy / (1 − 1/e), γ_greedy from the greedy maximization of
 *          ½ log det(I + σ_n⁻² K_A) over Λ (monotone submodular, so greedy is
 *          within 1 − 1/e of the optimum; Nemhauser, Wolsey & Fisher 1978).
 */
#ifndef DPBO_PRIVACY_H
#define DPBO_PRIVACY_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/kernel.h"
#include "dpbo/space.h"

typedef enum {
  DPBO_ALGORITHM_NONE = 0, /* no private release */
  DPBO_ALGORITHM_1 = 1,    /* noisy observations: λ̃ and ṽ */
  DPBO_ALGORITHM_2 = 2,    /* noise-free observations: λ̃ and f̃ */
  DPBO_ALGORITHM_3 = 3,    /* Lipschitz and convex: f̃_L */
  /* GP-UCB on privatized evaluations: each v_t through the Gaussian
   * mechanism, everything after it post-processing (run/private_evals.h) */
  DPBO_ALGORITHM_PRIVATE_EVALUATIONS = 4,
  /* The private-selection methods (no GP; run/selection.h): */
  DPBO_ALGORITHM_RANDOM_SEARCH = 5, /* Chaudhuri & Vinterbo: T candidates, exp. mech. + Laplace */
  DPBO_ALGORITHM_LIU_TALWAR = 6,    /* random stopping, K ~ Geometric, 3 ε0 */
  DPBO_ALGORITHM_PAPERNOT_STEINKE = 7, /* repeated search, K ~ truncated negative binomial, RDP */
  /* GP-guided private selection: privatized GP-UCB evaluations, then
   * Liu–Talwar or Papernot–Steinke with candidates from a law built from
   * them (run/guided.h) */
  DPBO_ALGORITHM_GUIDED = 8
} dpbo_algorithm;

/* Which proofs the bounds follow (docs/privacy-proofs.md). */
typedef enum {
  DPBO_BOUNDS_CORRECTED = 0, /* the gaps of the paper's proofs closed (default) */
  DPBO_BOUNDS_PAPER = 1      /* the paper's literal formulas */
} dpbo_bounds;

/* "corrected", "paper" as configs write them, indexed by dpbo_bounds and
 * NULL-terminated. */
extern const char *const dpbo_bounds_names[];
const char *dpbo_bounds_name(dpbo_bounds bounds);

/* How a total budget is spent: ε and δ of each release, and the δ share of
 * every failure event the sensitivity proofs take a union bound over. Every
 * place that splits a budget calls dpbo_privacy_budget. */
typedef struct dpbo_privacy_budget {
  dpbo_algorithm algorithm;
  dpbo_bounds bounds;
  double epsilon_lambda, epsilon_value; /* ε of λ̃ and of the value */
  double delta_lambda, delta_value;     /* δ of λ̃ and of the value (0 for Algorithm 3) */
  /* The δ in the run's β_t = 2 log(N t² π²/(3 δ_β)) (ucb.delta): with it,
   * Srinivas et al.'s Lemma 5.1 (hence Theorem 1) fails with probability
   * δ_β/2 per run, and the proof of Theorem 3 (Theorem 5) needs it on both
   * runs, V and V'. DPBO_PRIVACY_DELTA_BETA_DEFAULT without a GP release. */
  double delta_beta;
  double delta_regret_run; /* δ_β/2: one run's regret event */
  double delta_c_value;    /* c of the value: max_λ |f − f'| > c */
  double delta_q;          /* q (Algorithm 1): the observation noise of both runs */
  /* The value's δ the shares really add up to: 2 δ_regret_run + δ_c + δ_q.
   * Corrected: δ_value (rounding aside); paper: 5δ_v/3 (Algorithm 1), 3δ_v/2
   * (Algorithm 2), since the paper counts the regret event once, at δ/3. */
  double delta_value_union;
  /* λ̃ (Theorem 1, the same in both): the c event at δ_λ/3 and each run's
   * confidence bound at t = T + 1, which fails with probability
   * 3δ_λ/(π²(T+1)²) ≤ δ_λ/3 (Lemma 5.1 at one t). */
  double delta_c_lambda;
} dpbo_privacy_budget;

/* The δ of β_t when no release rests on β (Algorithm 3 or no release): the
 * budget's delta_beta then, hence ucb.delta's default (config.c takes its
 * default from the budget). */
#define DPBO_PRIVACY_DELTA_BETA_DEFAULT 0.05

/* The budget of total (epsilon, delta) split between λ̃ and the value
 * (split: λ̃'s share of both; Algorithm 3 releases the value only and
 * ignores split). */
dpbo_status dpbo_privacy_budget_split(dpbo_algorithm algorithm, dpbo_bounds bounds, double epsilon,
                                      double delta, double split, dpbo_privacy_budget *out,
                                      dpbo_error *err);

/* β_t = 2 log(N t² π² / (3δ)) (Algorithm 1, line 3): the UCB rule's and
 * every bound's; the run's δ comes from dpbo_privacy_budget's delta_beta. */
double dpbo_privacy_beta(int64_t n, int t, double delta);
/* factor = 3 for Algorithm 1, 2 for Algorithm 2. */
double dpbo_privacy_c(double k1, int64_t n, double delta, double factor);
/* q of Algorithm 1: bounds |α| + |α'|, the two runs' largest observation
 * noise. paper: σ_n √(4 log(3/δ)); corrected: 2 σ_n √(2 log(2T/δ_q)) with
 * δ_q = delta/3 (a union bound over the 2T Gaussians). */
double dpbo_privacy_q(dpbo_bounds bounds, double sigma_n, int T, double delta);
double dpbo_privacy_C1(double sigma_n);
/* Algorithm 2's regret term: A e^{−τt/(log t)^{d/4}} at t = 2 (paper), or
 * its maximum over integers t ≥ 2 (corrected; t = 2 only for d ≤ 3). */
double dpbo_privacy_alg2_regret(dpbo_bounds bounds, double A, double tau, int d);
/* The integer t ≥ 2 where τt/(log t)^{d/4} is smallest (2 for d ≤ 3). */
int dpbo_privacy_alg2_worst_t(int d);
/* The gain's sensitivity at a fixed λ: a mean over m validation records of
 * a per-record score in [0, gstar] moves by at most gstar/m when one record
 * is swapped (w_λ depends on the public training set only). An accuracy has
 * gstar = 1 (1/m); the logistic-regression objective's f_V has the
 * validation loss's g* (logreg.h). */
double dpbo_privacy_gain_sensitivity(int64_t m, double gstar);
/* Algorithm 3's λ-range term (λ_max − λ_min) L/(λ_max λ_min) of Δ_f3
 * (Theorem 6): how far the regularized optimum's loss can move across
 * [λ_min, λ_max]. */
double dpbo_privacy_alg3_lambda_term(double lambda_min, double lambda_max, double lipschitz);
/* Algorithm 3's Δ_f3. tolerance: the solver's relative stopping tolerance
 * (LIBLINEAR's eps), which adds 2 L r (1 + 1/m) with r = tol/(4 λ_min) under
 * corrected bounds (see the .c file); ignored under paper. */
double dpbo_privacy_alg3_sensitivity(dpbo_bounds bounds, int64_t m, double lambda_min,
                                     double lambda_max, double lipschitz, double gstar,
                                     double tolerance);

/* Everything a release reports about its sensitivities (units of v where
 * marked; the rest are the paper's normalized quantities). */
typedef struct dpbo_sensitivity {
  dpbo_algorithm algorithm;
  dpbo_bounds bounds;
  int64_t n;
  int T;
  int d;
  double signal_std; /* s */
  double sigma_n;    /* σ/s */
  double k1;
  double delta_lambda_priv, delta_value_priv; /* δ of each release */
  double delta_beta;                          /* the δ of the run's β_t */
  double beta_T, beta_T1;                     /* β_T with δ_β, β_{T+1} with λ̃'s δ */
  double c_lambda, c_value;
  double q;
  double C1;
  double gamma_greedy, gamma_T;
  double regret_term;    /* √(C1 β_T γ_T/T) (Alg. 1), A e^{...} (Alg. 2), λ-term (Alg. 3) */
  double tolerance_term; /* Algorithm 3, corrected: the solver tolerance's 2 L r (1 + 1/m) */
  double lambda_sensitivity; /* Δ_λ, units of v */
  double value_sensitivity;  /* Δ_v, Δ_f2 or Δ_f3, units of v */
} dpbo_sensitivity;

/* The inputs of every sensitivity, as plain numbers (filled from the config
 * by the caller, so this module never reads a config). */
typedef struct dpbo_privacy_inputs {
  dpbo_algorithm algorithm;
  dpbo_bounds bounds;
  int T;
  double k1;
  double signal_std, noise_std;     /* s, σ */
  double delta_lambda, delta_value; /* δ of each release */
  double delta_beta;                /* the δ of the run's β_t (budget's delta_beta) */
  double alg2_A, alg2_tau;          /* Algorithm 2 */
  int64_t validation_size;          /* Algorithm 3: m */
  double lambda_min, lambda_max;    /* Algorithm 3 */
  double lipschitz, gstar;          /* Algorithm 3: L, g* of the validation loss */
  double solver_tolerance;          /* Algorithm 3: LIBLINEAR's eps */
  size_t memory_limit;              /* bytes per rank for γ_T's UCB state (0: none) */
  double gamma_greedy;              /* > 0: γ_greedy known already (not recomputed) */
} dpbo_privacy_inputs;

/* Fills every term of dpbo_sensitivity for the algorithm (collective: γ_T
 * for Algorithm 1 runs the distributed greedy over the ranks' blocks, this
 * rank's being `block`). */
dpbo_status dpbo_privacy_sensitivities(MPI_Comm comm, const dpbo_privacy_inputs *in,
                                       const dpbo_space_range *block, const dpbo_kernel *kernel,
                                       dpbo_sensitivity *out, dpbo_error *err);

/* Greedy information gain over Λ for in->T steps at σ_n = in->noise_std /
 * in->signal_std (collective over comm; each rank searches its block with a
 * UCB state of at most in->memory_limit bytes, 0 for no limit: ucb.h's
 * recompute mode gives the same γ when the incremental state does not
 * fit): γ_greedy in nats. */
dpbo_status dpbo_privacy_gamma_greedy(MPI_Comm comm, const dpbo_privacy_inputs *in,
                                      const dpbo_space_range *block, const dpbo_kernel *kernel,
                                      double *gamma_greedy, dpbo_error *err);

/* An (ε, δ) guarantee. */
typedef struct dpbo_privacy_cost {
  double epsilon, delta;
} dpbo_privacy_cost;

/* Composition of k releases of an (ε, δ) = `each` mechanism: basic
 * (kε, kδ) and the advanced bound of Dwork, Rothblum & Vadhan (2010) with
 * slack δ': (√(2k log(1/δ')) ε + k ε (e^ε − 1), kδ + δ'). Results rounded
 * outward. */
void dpbo_privacy_compose(int k, dpbo_privacy_cost each, double delta_slack,
                          dpbo_privacy_cost *basic, dpbo_privacy_cost *advanced);

/* The privacy ledger of one run file: what the releases drawn from it
 * spent, as the sums both composition theorems need. Each sum is rounded
 * outward as it grows. */
typedef struct dpbo_privacy_ledger {
  int64_t draws;
  double epsilon_sum, delta_sum; /* Σ ε_i, Σ δ_i: basic composition */
  double epsilon_sq_sum;         /* Σ ε_i² */
  double epsilon_tanh_sum;       /* Σ ε_i tanh(ε_i / 2) = Σ ε_i (e^ε_i − 1)/(e^ε_i + 1) */
} dpbo_privacy_ledger;

/* Adds one (ε, δ) release to the ledger. */
void dpbo_privacy_ledger_add(dpbo_privacy_ledger *ledger, double epsilon, double delta);

/* Advanced composition of the ledger's draws, whatever their ε (the
 * heterogeneous form of Kairouz, Oh & Viswanath 2017, Theorem 3.5), with
 * slack δ' > 0: ε = Σ ε_i tanh(ε_i/2) + √(2 log(1/δ') Σ ε_i²) and
 * δ = Σ δ_i + δ'. Rounded outward. */
void dpbo_privacy_ledger_advanced(const dpbo_privacy_ledger *ledger, double delta_slack,
                                  double *epsilon, double *delta);

/* Whether the ledger's basic-composition totals stay within the budget
 * (ε_max, δ_max); a total above it by no more than the outward rounding of
 * the sums (a relative 1e-12) counts as within (docs/design.md section 3). */
int dpbo_privacy_ledger_within(const dpbo_privacy_ledger *ledger, double epsilon_max,
                               double delta_max);

/* Rounds x up / down to the next representable double (budget arithmetic
 * rounds outward, docs/design.md section 3). */
double dpbo_privacy_round_up(double x);
/* a + b rounded up only where the double lies below the exact sum, so that
 * shares adding up to a budget exactly are reported as the budget, not one
 * ulp above it (issue #22). */
double dpbo_privacy_sum_up(double a, double b);

const char *dpbo_algorithm_name(dpbo_algorithm algorithm);
/* 1 for the private-selection methods (random search, Liu–Talwar,
 * Papernot–Steinke), which select on evaluated gains without a GP. */
int dpbo_algorithm_is_selection(dpbo_algorithm algorithm);
/* 1 where the run file's trace is published with the release (the
 * privatized evaluations: λ_t and noisy v_t are DP); the proof covers only
 * what the trace holds of them (issue #22: no attempts unless failures are
 * public). */
int dpbo_algorithm_publishes_trace(dpbo_algorithm algorithm);

#endif
