/* Every privacy formula of the paper, in one place (DESIGN.md section 2).
 *
 * Notation: N = |Λ|, T iterations, (ε, δ) per released quantity, σ_n = σ/s
 * the noise in normalized units (the paper's formulas assume s = 1, m0 = 0;
 * every sensitivity below is converted back to units of v by multiplying by s).
 *
 *  β_t   = 2 log(N t² π² / (3δ))                       Algorithm 1, line 3
 *  c     = 2 √((1 − k1) log(3N/δ))                     Algorithm 1 (2N/δ in Algorithm 2)
 *  q     = σ_n √(4 log(3/δ))                           Algorithm 1
 *  C1    = 8 / log(1 + σ_n⁻²)                          Algorithm 1
 *  Δ_λ   = 2 √β_{T+1} + c                              Theorem 1 (q = 0 changes nothing here)
 *  Δ_v   = √(C1 β_T γ_T / T) + c + q                   Theorem 3
 *  Δ_f2  = A e^{−2τ/(log 2)^{d/4}} + c                 Theorem 5 (Algorithm 2; A in units of v)
 *  Δ_f3  = min{g* / m, L/(m λ_min)} + (λ_max − λ_min) L/(λ_max λ_min)   Theorem 6 (Algorithm 3)
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
  DPBO_ALGORITHM_3 = 3     /* Lipschitz and convex: f̃_L */
} dpbo_algorithm;

double dpbo_privacy_beta(int64_t n, int t, double delta);
/* factor = 3 for Algorithm 1, 2 for Algorithm 2. */
double dpbo_privacy_c(double k1, int64_t n, double delta, double factor);
double dpbo_privacy_q(double sigma_n, double delta);
double dpbo_privacy_C1(double sigma_n);
double dpbo_privacy_alg2_regret(double A, double tau, int d);
double dpbo_privacy_alg3_sensitivity(int64_t m, double lambda_min, double lambda_max,
                                     double lipschitz, double gstar);

/* Everything a release reports about its sensitivities (units of v where
 * marked; the rest are the paper's normalized quantities). */
typedef struct dpbo_sensitivity {
  dpbo_algorithm algorithm;
  int64_t n;
  int T;
  int d;
  double signal_std;  /* s */
  double sigma_n;     /* σ/s */
  double k1;
  double delta_lambda_priv, delta_value_priv; /* δ of each release */
  double beta_T, beta_T1; /* β_T with the value's δ, β_{T+1} with λ̃'s δ */
  double c_lambda, c_value;
  double q;
  double C1;
  double gamma_greedy, gamma_T;
  double regret_term;  /* √(C1 β_T γ_T/T) (Alg. 1), A e^{...} (Alg. 2), λ-term (Alg. 3) */
  double lambda_sensitivity; /* Δ_λ, units of v */
  double value_sensitivity;  /* Δ_v, Δ_f2 or Δ_f3, units of v */
} dpbo_sensitivity;

/* The inputs of every sensitivity, as plain numbers (filled from the config
 * by the caller, so this module never reads a config). */
typedef struct dpbo_privacy_inputs {
  dpbo_algorithm algorithm;
  int T;
  double k1;
  double signal_std, noise_std;             /* s, σ */
  double delta_lambda, delta_value;         /* δ of each release */
  double alg2_A, alg2_tau;                  /* Algorithm 2 */
  int64_t validation_size;                  /* Algorithm 3: m */
  double lambda_min, lambda_max;            /* Algorithm 3 */
  double lipschitz, gstar;                  /* Algorithm 3: L, g* of the validation loss */
  size_t memory_limit;                      /* bytes per rank for γ_T's UCB state (0: none) */
} dpbo_privacy_inputs;

/* Fills every term of dpbo_sensitivity for the algorithm (collective: γ_T
 * for Algorithm 1 runs the distributed greedy over the blocks). */
dpbo_status dpbo_privacy_sensitivities(MPI_Comm comm, const dpbo_privacy_inputs *in,
                                       const dpbo_space *space, const dpbo_kernel *kernel,
                                       int64_t begin, int64_t count, dpbo_sensitivity *out,
                                       dpbo_error *err);

/* Greedy information gain over Λ for T steps (collective over comm; each
 * rank searches its block [begin, begin+count) with a UCB state of at most
 * memory_limit bytes, 0 for no limit: ucb.h's recompute mode gives the same
 * γ when the incremental state does not fit): γ_greedy in nats. */
dpbo_status dpbo_privacy_gamma_greedy(MPI_Comm comm, const dpbo_space *space,
                                      const dpbo_kernel *kernel, double sigma_n, int T,
                                      int64_t begin, int64_t count, size_t memory_limit,
                                      double *gamma_greedy, dpbo_error *err);

/* Composition of k releases of an (ε, δ) mechanism: basic (kε, kδ) and the
 * advanced bound of Dwork, Rothblum & Vadhan (2010) with slack δ':
 * (√(2k log(1/δ')) ε + k ε (e^ε − 1), kδ + δ'). Results rounded outward. */
void dpbo_privacy_compose(int k, double epsilon, double delta, double delta_slack,
                          double *eps_basic, double *delta_basic, double *eps_advanced,
                          double *delta_advanced);

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
 * the sums (a relative 1e-12) counts as within (DESIGN.md section 3). */
int dpbo_privacy_ledger_within(const dpbo_privacy_ledger *ledger, double epsilon_max,
                               double delta_max);

/* Rounds x up / down to the next representable double (budget arithmetic
 * rounds outward, DESIGN.md section 3). */
double dpbo_privacy_round_up(double x);

const char *dpbo_algorithm_name(dpbo_algorithm algorithm);

#endif
