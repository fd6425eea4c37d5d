/* Statistics that test Assumption 1 in the k1 experiment, not only fit k1
 * (issue 14, item 2). `dpbo k1sweep` calls them per validation-set size m
 * after the likelihood sweep (k1lik.h) and writes what they return under
 * /m<m> (k1sweep.h lists the datasets).
 *
 * Notation as in k1lik.h: R pairs (V_i, V_i'), n settings, F and F' R×n
 * row-major, and the fitted model
 *     [F_i; F_i'] ~ N(m0·1, s²(K1 ⊗ K2) + σn² I),  K1 = [[1, k1], [k1, 1]].
 *
 * 1. Goodness of fit. Under the model, F_i' given F_i is Gaussian with
 *        mean  m0 + s²k1 K2 A⁻¹ (F_i − m0),      A = s²K2 + σn² I,
 *        cov   Σ = A − s⁴k1² K2 A⁻¹ K2.
 *    With K2 = Q diag(λ) Qᵀ both are diagonal in Q: the mean's gain is
 *    s²k1λ_j/(s²λ_j + σn²) and Σ's eigenvalues are
 *        (s⁴λ_j²(1 − k1)(1 + k1) + 2s²λ_jσn² + σn⁴)/(s²λ_j + σn²),
 *    written so that nothing cancels as k1 → 1 (A − BA⁻¹B formed directly
 *    would lose every digit at 1 − k1 = 1e-9). The residuals z_i = L⁻¹(F_i'
 *    − mean), L the Cholesky factor of Σ = Q diag Qᵀ, are i.i.d. N(0, 1) if
 *    the model holds; their KS distance to Φ with the asymptotic Kolmogorov
 *    p-value (Q_KS(√(Rn)·D); with Rn >= 100 within about 1% of the exact
 *    one where it matters) and the largest |z| summarise them. The
 *    parameters are the MLE's, estimated on the same data, which makes the
 *    KS test somewhat conservative (Lilliefors); with five parameters and
 *    2Rn data the effect is small.
 *
 * 2. What the proof uses. Algorithms 1 and 2 need max_λ |f_V(λ) − f_V'(λ)|
 *    <= s·c with probability >= 1 − δ (c = 2√((1 − k1) log(3N/δ)), privacy.h,
 *    at the MLE's k1 and s, as k1lik computes c_mle). dpbo_k1gof_exceedance
 *    returns each pair's max_λ |F − F'| and the fraction of pairs above s·c
 *    at a list of δ.
 *
 * 3. The whole pipeline. dpbo_k1gof_pipeline runs the GP-UCB of a run on
 *    F_V and on F_V' of every pair (the run layer's step, run/run.h, T
 *    steps over Λ = the models' settings as a Sobol space; the demo's prior
 *    rule, fixed before any data: Matérn-5/2, ℓ = 0.2, m0 = 0.5, s = 0.25,
 *    σ = 0.01; Algorithm 1 with ε = 1, δ = 0.05 split equally, so β_t is the
 *    demo's) and records max_λ |μ_T(λ) − μ'_T(λ)| against Theorem 1's Δ_λ =
 *    s(2√β_{T+1} + c) that the release would use (dpbo_privacy_sensitivities
 *    with the config's privacy.k1 = the MLE's k1). Pairs are spread over the
 *    ranks, each run on MPI_COMM_SELF, so the results do not depend on the
 *    number of ranks.
 *
 * 4. Honest uncertainty. The R pairs share the same models, so they are not
 *    independent draws and the likelihood-ratio interval is too narrow.
 *    dpbo_k1gof_bootstrap resamples the pairs with replacement B times
 *    (PCG streams from seed and m, so fixed), refits the whole sweep on each
 *    resample (k1lik on MPI_COMM_SELF with LAPACK, resamples spread over the
 *    ranks) and returns the MLE's k1 and s²(1 − k1) of each; the 95%
 *    percentile interval (numpy's default linear quantile at 0.025, 0.975)
 *    comes from dpbo_k1gof_quantile. */
#ifndef DPBO_K1GOF_H
#define DPBO_K1GOF_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/space.h"
#include "experiments/k1lik.h"

/* Residuals z (R×n) of the sets' F' given F under the fit, with kernel kind
 * over their unit coordinates (n×d). Local (no MPI). */
dpbo_status dpbo_k1gof_residuals(const dpbo_k1lik_sets *sets, dpbo_kernel_kind kind,
                                 const dpbo_k1lik_fit *fit, double *z, dpbo_error *err);

/* One-sample KS distance of x[0..count) to the standard normal, the
 * asymptotic p-value Q_KS(√count · D) and max |x|. */
dpbo_status dpbo_k1gof_ks(const double *x, int64_t count, double *statistic, double *pvalue,
                          double *max_abs, dpbo_error *err);

/* Kolmogorov's survival function Q_KS(t) = P(K > t) = 2 Σ_{k>=1} (−1)^{k−1}
 * e^{−2k²t²} (the series in π²/t² below t = 1). */
double dpbo_k1gof_kolmogorov_sf(double t);

/* max_j |F_ij − F'_ij| per pair of the sets into max_diff (R; coords
 * unused), and for each of the `count` δ in deltas the bound s·c(k1, N, δ)
 * at the fit (its MLE's k1 and s, its N) into bound and the fraction of
 * pairs whose max exceeds it into rate. */
void dpbo_k1gof_exceedance(const dpbo_k1lik_sets *sets, const dpbo_k1lik_result *fit, int count,
                           const double *deltas, double *max_diff, double *bound, double *rate);

/* The pipeline's inputs: the sweep's space (Λ = its Sobol points) and seed. */
typedef struct dpbo_k1gof_pipeline_in {
  int dims;
  const dpbo_dim *dim;
  int64_t n; /* |Λ| */
  int T;     /* GP-UCB steps */
  uint64_t seed;
  double k1; /* privacy.k1 of the release (the MLE) */
} dpbo_k1gof_pipeline_in;

typedef struct dpbo_k1gof_pipeline_out {
  double lambda_sensitivity; /* Δ_λ, units of v */
  double beta_T1, c_lambda;  /* its parts (normalized) */
  double signal_std;         /* s of the run's prior */
} dpbo_k1gof_pipeline_out;

/* Collective; the sets' F and Fp (R×n, n = in->n) on rank 0, R on every
 * rank (coords unused: Λ is in's). max_diff (R, every rank) gets
 * max_λ |μ_T − μ'_T| per pair. */
dpbo_status dpbo_k1gof_pipeline(MPI_Comm comm, const dpbo_k1gof_pipeline_in *in,
                                const dpbo_k1lik_sets *sets, double *max_diff,
                                dpbo_k1gof_pipeline_out *out, dpbo_error *err);

/* The bootstrap's problem: R pairs of n settings (F, Fp R×n on rank 0),
 * coords (n×d) and options on every rank, B resamples from PCG streams
 * stream | b of seed, and N, δ for Algorithm 1's c (k1lik.h). */
typedef struct dpbo_k1gof_bootstrap_in {
  int R, n, d;
  const double *F, *Fp, *coords;
  const dpbo_k1lik_options *options;
  int B;
  uint64_t seed, stream;
  int64_t N;
  double delta;
} dpbo_k1gof_bootstrap_in;

/* Arrays the caller provides (every rank): index B×R, the others B. */
typedef struct dpbo_k1gof_bootstrap_out {
  int32_t *index;                    /* resample b's pairs: index[b·R .. b·R + R) */
  double *k1;                        /* the MLE's k1 per resample */
  double *one_minus_k1;              /* its 1 − k1 */
  double *s2t;                       /* s²(1 − k1) */
  int32_t *boundary;                 /* the sweep's boundary flag */
  dpbo_k1lik_work work;              /* summed over the ranks: the refits' and the bases' work */
  int64_t basis_eigendecompositions; /* of which in the ranks' shared bases */
} dpbo_k1gof_bootstrap_out;

/* Collective. Replicate b refits the whole sweep on resample b (k1lik on
 * MPI_COMM_SELF with LAPACK, resamples b ≡ rank mod size), drawing each ℓ
 * lattice point's eigenbasis and the sets' projections from one basis per
 * rank (dpbo_k1lik_basis: bit for bit what a fresh context returns). */
dpbo_status dpbo_k1gof_bootstrap(MPI_Comm comm, const dpbo_k1gof_bootstrap_in *in,
                                 dpbo_k1gof_bootstrap_out *out, dpbo_error *err);

/* Linear-interpolation quantile (numpy's default) of x[0..count) at p. */
double dpbo_k1gof_quantile(const double *x, int count, double p);

/* Everything above for one validation-set size, as `dpbo k1sweep` runs it. */
typedef struct dpbo_k1gof_task {
  int R, n, d;
  const double *F, *Fp; /* R×n, rank 0 */
  const double *coords; /* n×d unit coordinates, every rank */
  int dims;             /* [space] of the sweep: Λ of the pipeline */
  const dpbo_dim *dim;
  const dpbo_k1lik_options *options;
  const dpbo_k1lik_result *fit; /* the sweep's result, every rank */
  int64_t m;
  uint64_t seed;
  int B; /* bootstrap resamples (0: none) */
  int T; /* pipeline steps (0: no pipeline) */
} dpbo_k1gof_task;

#define DPBO_K1GOF_DELTAS 13 /* the δ grid of the exceedance curve */
extern const double dpbo_k1gof_deltas[DPBO_K1GOF_DELTAS];

typedef struct dpbo_k1gof_result {
  int R, n, B, T;
  double s2_one_minus_k1; /* s²(1 − k1) at the MLE */
  /* residuals (z on rank 0; the rest on every rank) */
  double *z;
  double ks_statistic, ks_pvalue, max_abs_z;
  /* exceedance at the run's δ and over dpbo_k1gof_deltas (max_diff on rank 0) */
  double *max_diff;
  double bound, rate;
  double bounds[DPBO_K1GOF_DELTAS], rates[DPBO_K1GOF_DELTAS];
  /* pipeline (every rank) */
  double *pipeline_diff;
  dpbo_k1gof_pipeline_out pipeline;
  double pipeline_max, pipeline_slack; /* max over pairs, Δ_λ / that max */
  int64_t pipeline_violations;         /* pairs with max_λ |μ_T − μ'_T| > Δ_λ */
  /* bootstrap (every rank) */
  uint64_t stream;
  int32_t *index, *boundary;
  double *k1, *one_minus_k1, *s2t;
  dpbo_k1lik_work boot_work; /* the refits' work, summed over the ranks */
  int64_t boot_basis_eigendecompositions;
  double k1_lo, k1_hi, s2t_lo, s2t_hi; /* 95% percentile intervals */
  int64_t at_boundary;                 /* resamples whose MLE sits at a searched end */
} dpbo_k1gof_result;

/* Collective: fills out (free with dpbo_k1gof_result_free). */
dpbo_status dpbo_k1gof_compute(MPI_Comm comm, const dpbo_k1gof_task *task, dpbo_k1gof_result *out,
                               dpbo_error *err);
void dpbo_k1gof_result_free(dpbo_k1gof_result *result);

/* Collective (parallel HDF5): the groups residuals, exceedance, pipeline and
 * bootstrap under `parent` (/m<m>). */
dpbo_status dpbo_k1gof_write(hid_t parent, const dpbo_k1gof_result *result, int rank,
                             dpbo_error *err);

#endif
