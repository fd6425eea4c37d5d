#include "experiments/k1lik.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "core/eigen.h"
#include "dpbo/privacy.h"
#include "dpbo/space.h"

#define K1LIK_SQRT2 1.4142135623730951
#define K1LIK_LOG2PI 1.8378770664093453
/* Largest ℓ lattice (points); the default range and step need 3,454. */
#define K1LIK_MAX_LATTICE 1000000

/* Everything one length-scale vector contributes (header: "Kronecker
 * structure"); 5n + d doubles in one block, so the cache stays small. */
typedef struct k1lik_entry {
  double *ls;     /* d length-scales: the key */
  double *lambda; /* eigenvalues of K2, ascending, rounding negatives clamped to 0 */
  double *g;      /* Qᵀ1 */
  double *abar;   /* mean over sets of the sum-channel projections a_ij */
  double *ssa;    /* Σ_i (a_ij − ā_j)² */
  double *b2;     /* Σ_i b_ij² (difference channel) */
  double *memo;   /* the basis's log-determinant memo of this ℓ, or NULL */
} k1lik_entry;

/* One ℓ lattice point of a basis: 2n + 2Rn + grid·scan doubles in one block. */
typedef struct k1lik_basis_point {
  double *lambda; /* as k1lik_entry */
  double *g;
  double *proj; /* R×2n: a_i = Qᵀ sum_i, then b_i² = (Qᵀ diff_i)², original set i */
  double *memo; /* grid×scan log-determinants, NaN until computed */
} k1lik_basis_point;

struct dpbo_k1lik_basis {
  int R, n, d;
  dpbo_k1lik_options opt;
  double *coords, *sum, *diff; /* as the context's, for all R original sets */
  int lattice_K;
  int grid_count, scan_count; /* the sweep grid's k1 and the ρ scan's points */
  k1lik_basis_point *point;   /* lattice_K + 1, lambda NULL until computed */
  size_t bytes, max_bytes;
  dpbo_k1lik_work work;
};

struct dpbo_k1lik {
  MPI_Comm comm; /* private duplicate */
  int rank, size;
  int R, n, d;
  dpbo_k1lik_options opt;
  double *coords;       /* n×d unit coordinates */
  int64_t begin, count; /* this rank's block of sets */
  double *sum, *diff;   /* count×n: (F + F')/√2 and (F − F')/√2 */
  int *counts, *displs; /* Allgatherv layout, 2n doubles per set */
  k1lik_entry *cache;
  int cache_len, cache_cap;
  int *lattice_slot; /* ℓ lattice index → cache slot, −1 when not computed */
  int lattice_K;     /* lattice points 0..K */
  double log_ell_min, lattice_h;
  int eigen_count, scalapack_count;
  double *scratch;         /* 8n: the ρ search's per-setting terms */
  dpbo_k1lik_basis *basis; /* shared eigenbases, or NULL */
  int32_t *index;          /* set i of this context is the basis's set index[i] */
  dpbo_k1lik_work work;
};

void dpbo_k1lik_options_default(dpbo_k1lik_options *o) {
  memset(o, 0, sizeof *o);
  o->kernel = DPBO_KERNEL_SE;
  o->ell_min = 0.01;
  o->ell_max = 10.0;
  o->ell_step = 0.002;
  o->ell_grid = 347; /* a scan step of 0.02 in log ℓ over [0.01, 10] */
  o->ratio_min = 1e-6;
  o->ratio_max = 100.0;
  o->ratio_per_decade = 4;
  o->k1_step = 0.05;
  o->t_min = 1e-10;
  o->t_per_decade = 10;
  o->eigen_threshold = 1000;
}

static dpbo_status k1lik_check_options(const dpbo_k1lik_options *o, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (o->kernel != DPBO_KERNEL_SE && o->kernel != DPBO_KERNEL_MATERN52)
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood: unknown kernel kind %d", (int)o->kernel);
  if (!(o->ell_min > 0.0) || !(o->ell_max >= o->ell_min) || !isfinite(o->ell_max))
    DPBO_RAISE(DPBO_ERR_ARG,
               "k1 likelihood: length-scale range [%g, %g] must satisfy 0 < min <= max", o->ell_min,
               o->ell_max);
  if (!(o->ell_step > 0.0) || o->ell_grid < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood: ell_step (%g) must be > 0 and ell_grid (%d) >= 1",
               o->ell_step, o->ell_grid);
  if (log(o->ell_max / o->ell_min) / o->ell_step > K1LIK_MAX_LATTICE)
    DPBO_RAISE(DPBO_ERR_ARG,
               "k1 likelihood: length-scale lattice over [%g, %g] with step %g exceeds %d points",
               o->ell_min, o->ell_max, o->ell_step, K1LIK_MAX_LATTICE);
  if (!(o->ratio_min > 0.0) || !(o->ratio_max >= o->ratio_min) || !isfinite(o->ratio_max) ||
      o->ratio_per_decade < 1)
    DPBO_RAISE(DPBO_ERR_ARG,
               "k1 likelihood: σn/s range [%g, %g] (%d per decade) must satisfy 0 < min <= max",
               o->ratio_min, o->ratio_max, o->ratio_per_decade);
  if (!(o->k1_step > 0.0 && o->k1_step < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood: k1_step must lie in (0, 1), got %g", o->k1_step);
  if (!(o->t_min > 0.0 && o->t_min < 1.0) || o->t_per_decade < 1)
    DPBO_RAISE(DPBO_ERR_ARG,
               "k1 likelihood: t_min (%g) must lie in (0, 1) and t_per_decade (%d) >= 1", o->t_min,
               o->t_per_decade);
done:
  return status;
}

void dpbo_k1lik_destroy(dpbo_k1lik *ctx) {
  if (!ctx) return;
  for (int i = 0; i < ctx->cache_len; i++)
    free(ctx->cache[i].ls);
  free(ctx->cache);
  free(ctx->lattice_slot);
  free(ctx->coords);
  free(ctx->sum);
  free(ctx->diff);
  free(ctx->counts);
  free(ctx->displs);
  free(ctx->scratch);
  free(ctx->index);
  if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
  free(ctx);
}

/* Rank 0's data checks: finite values, not all equal. */
static dpbo_status k1lik_check_data(int R, int n, int d, const double *F, const double *Fp,
                                    const double *coords, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!F || !Fp || !coords)
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood: rank 0 needs F, F' and coordinates");
  int varies = 0;
  for (size_t i = 0; i < (size_t)R * n; i++) {
    if (!isfinite(F[i]) || !isfinite(Fp[i]))
      DPBO_RAISE(DPBO_ERR_DATA, "k1 likelihood: accuracy of set %zu, setting %zu is not finite",
                 i / n + 1, i % n + 1);
    if (F[i] != F[0] || Fp[i] != F[0]) varies = 1;
  }
  if (!varies)
    DPBO_RAISE(DPBO_ERR_DATA, "k1 likelihood: every accuracy equals %g; nothing to fit", F[0]);
  for (size_t i = 0; i < (size_t)n * d; i++)
    if (!isfinite(coords[i]))
      DPBO_RAISE(DPBO_ERR_DATA, "k1 likelihood: coordinate %zu of setting %zu is not finite",
                 i % d + 1, i / d + 1);
done:
  return status;
}

dpbo_status dpbo_k1lik_create(MPI_Comm comm, const dpbo_k1lik_sets *sets,
                              const dpbo_k1lik_options *options, dpbo_k1lik **out,
                              dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int R = sets->R, n = sets->n, d = sets->d;
  const double *F = sets->F, *Fp = sets->Fp, *coords = sets->coords;
  dpbo_k1lik *ctx = NULL;
  double *Fblock = NULL, *Fpblock = NULL;
  int *sendcounts = NULL, *senddispls = NULL;
  int rank, size;
  *out = NULL;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));

  /* Rank 0's arguments, everywhere. */
  int dims[3] = {R, n, d};
  dpbo_k1lik_options opt;
  if (options)
    opt = *options;
  else
    dpbo_k1lik_options_default(&opt);
  DPBO_MPI_TRY(MPI_Bcast(dims, 3, MPI_INT, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(&opt, (int)sizeof opt, MPI_BYTE, 0, comm));
  R = dims[0];
  n = dims[1];
  d = dims[2];
  if (R < 1 || n < 2 || d < 1 || d > DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_ARG,
               "k1 likelihood needs R >= 1 sets, n >= 2 settings and 1 <= d <= %d, got %d, %d, %d",
               DPBO_MAX_DIM, R, n, d);
  if (n > DPBO_EIGEN_MAX_N || (int64_t)R * 2 * n > INT32_MAX || (int64_t)n * d > INT32_MAX)
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood: R = %d, n = %d too large for 32-bit MPI counts", R, n);
  DPBO_TRY(k1lik_check_options(&opt, err));
  if (rank == 0) local = k1lik_check_data(R, n, d, F, Fp, coords, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));

  ctx = calloc(1, sizeof *ctx);
  if (ctx) {
    ctx->comm = MPI_COMM_NULL;
    ctx->R = R;
    ctx->n = n;
    ctx->d = d;
    ctx->opt = opt;
    ctx->rank = rank;
    ctx->size = size;
    dpbo_space_block(R, size, rank, &ctx->begin, &ctx->count);
    ctx->lattice_K = (int)ceil(log(opt.ell_max / opt.ell_min) / opt.ell_step - 1e-9);
    if (ctx->lattice_K < 0) ctx->lattice_K = 0;
    ctx->log_ell_min = log(opt.ell_min);
    ctx->lattice_h = ctx->lattice_K > 0 ? log(opt.ell_max / opt.ell_min) / ctx->lattice_K : 0.0;
    size_t block = (size_t)(ctx->count > 0 ? ctx->count : 1) * n;
    ctx->coords = malloc((size_t)n * d * sizeof *ctx->coords);
    ctx->sum = malloc(block * sizeof *ctx->sum);
    ctx->diff = malloc(block * sizeof *ctx->diff);
    Fblock = malloc(block * sizeof *Fblock);
    Fpblock = malloc(block * sizeof *Fpblock);
    ctx->counts = malloc((size_t)size * sizeof *ctx->counts);
    ctx->displs = malloc((size_t)size * sizeof *ctx->displs);
    sendcounts = malloc((size_t)size * sizeof *sendcounts);
    senddispls = malloc((size_t)size * sizeof *senddispls);
    ctx->lattice_slot = malloc(((size_t)ctx->lattice_K + 1) * sizeof *ctx->lattice_slot);
    ctx->scratch = malloc((size_t)8 * n * sizeof *ctx->scratch);
  }
  if (!ctx || !ctx->coords || !ctx->sum || !ctx->diff || !Fblock || !Fpblock || !ctx->counts ||
      !ctx->displs || !sendcounts || !senddispls || !ctx->lattice_slot || !ctx->scratch)
    local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM,
                           "k1 likelihood: out of memory for %d sets x %d settings", R, n);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  for (int k = 0; k <= ctx->lattice_K; k++)
    ctx->lattice_slot[k] = -1;
  for (int r = 0; r < size; r++) {
    int64_t b, c;
    dpbo_space_block(R, size, r, &b, &c);
    sendcounts[r] = (int)(c * n);
    senddispls[r] = (int)(b * n);
    ctx->counts[r] = (int)(c * 2 * n);
    ctx->displs[r] = (int)(b * 2 * n);
  }
  DPBO_MPI_TRY(MPI_Comm_dup(comm, &ctx->comm));
  if (rank == 0) memcpy(ctx->coords, coords, (size_t)n * d * sizeof *coords);
  DPBO_MPI_TRY(MPI_Bcast(ctx->coords, n * d, MPI_DOUBLE, 0, ctx->comm));
  DPBO_MPI_TRY(MPI_Scatterv(F, sendcounts, senddispls, MPI_DOUBLE, Fblock, sendcounts[rank],
                            MPI_DOUBLE, 0, ctx->comm));
  DPBO_MPI_TRY(MPI_Scatterv(Fp, sendcounts, senddispls, MPI_DOUBLE, Fpblock, sendcounts[rank],
                            MPI_DOUBLE, 0, ctx->comm));
  /* The two channels of K1's eigenvectors (1, ±1)/√2. */
  for (size_t i = 0; i < (size_t)ctx->count * n; i++) {
    ctx->sum[i] = (Fblock[i] + Fpblock[i]) / K1LIK_SQRT2;
    ctx->diff[i] = (Fblock[i] - Fpblock[i]) / K1LIK_SQRT2;
  }
  *out = ctx;
  ctx = NULL;
done:
  dpbo_k1lik_destroy(ctx);
  free(Fblock);
  free(Fpblock);
  free(sendcounts);
  free(senddispls);
  return status;
}

void dpbo_k1lik_counts(const dpbo_k1lik *ctx, int *eigendecompositions, int *scalapack) {
  if (eigendecompositions) *eigendecompositions = ctx->eigen_count;
  if (scalapack) *scalapack = ctx->scalapack_count;
}

void dpbo_k1lik_work_get(const dpbo_k1lik *ctx, dpbo_k1lik_work *work) {
  *work = ctx->work;
  work->eigendecompositions = ctx->eigen_count;
  work->scalapack = ctx->scalapack_count;
}

/* K2 over the settings (n×n, both triangles), identical on every rank. */
static dpbo_status k1lik_kernel_matrix(dpbo_kernel_kind kind, int n, int d, const double *coords,
                                       const double *ls, double *V, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_kernel kernel;
  DPBO_TRY(dpbo_kernel_init(&kernel, kind, d, ls, err));
  for (int i = 0; i < n; i++) {
    V[(size_t)i * n + i] =
        dpbo_kernel_eval(&kernel, coords + (size_t)i * d, coords + (size_t)i * d);
    for (int j = i + 1; j < n; j++) {
      double k = dpbo_kernel_eval(&kernel, coords + (size_t)i * d, coords + (size_t)j * d);
      V[(size_t)i * n + j] = k;
      V[(size_t)j * n + i] = k;
    }
  }
done:
  return status;
}

/* λ (clamped) and g = Qᵀ1 from an eigendecomposition (eigen.h layout). */
static void k1lik_spectrum(int n, const double *V, const double *w, double *lambda, double *g) {
  for (int j = 0; j < n; j++) {
    /* K2 is positive semi-definite; rounding can leave its smallest
     * eigenvalues at −1e-16 or so, which σn² > 0 dominates anyway. */
    lambda[j] = w[j] > 0.0 ? w[j] : 0.0;
    double acc = 0.0;
    for (int i = 0; i < n; i++)
      acc += V[(size_t)j * n + i];
    g[j] = acc;
  }
}

/* Sets' projections: out + r·2n gets a = Qᵀ sum_r, then b² = (Qᵀ diff_r)²,
 * one gemv each (a set's projection does not depend on which rank or which
 * basis computes it). */
static void k1lik_project(int n, int64_t count, const double *V, const double *sum,
                          const double *diff, double *out) {
  for (int64_t r = 0; r < count; r++) {
    double *a = out + (size_t)r * 2 * n, *b = a + n;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, V, n, sum + (size_t)r * n, 1, 0.0, a, 1);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, V, n, diff + (size_t)r * n, 1, 0.0, b, 1);
    for (int j = 0; j < n; j++)
      b[j] *= b[j];
  }
}

/* ā, SSa and B of the sets rows[0..R) of proj (rows NULL: 0..R−1), summed
 * in set order: rank-count independent, and two-pass so the mean does not
 * cancel against the spread. */
static void k1lik_moments(int R, int n, const double *proj, const int32_t *rows, double *abar,
                          double *ssa, double *b2out) {
  for (int j = 0; j < n; j++) {
    double s = 0.0, b2 = 0.0;
    for (int i = 0; i < R; i++) {
      const double *p = proj + (size_t)(rows ? rows[i] : i) * 2 * n;
      s += p[j];
      b2 += p[n + j];
    }
    double mean = s / R, ss = 0.0;
    for (int i = 0; i < R; i++) {
      double dev = proj[(size_t)(rows ? rows[i] : i) * 2 * n + j] - mean;
      ss += dev * dev;
    }
    abar[j] = mean;
    ssa[j] = ss;
    b2out[j] = b2;
  }
}

/* --- one length-scale: eigendecomposition, projections, sufficient statistics */

static dpbo_status k1lik_basis_point_get(dpbo_k1lik_basis *basis, int k, const double *ls,
                                         const k1lik_basis_point **out, dpbo_error *err);

/* Collective: the cache entry for length-scales ls (computed if absent).
 * lattice_k >= 0 names the ℓ lattice point ls stands for. */
static dpbo_status k1lik_entry_get(dpbo_k1lik *ctx, const double *ls, int lattice_k,
                                   const k1lik_entry **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const int n = ctx->n, d = ctx->d, R = ctx->R;
  double *V = NULL, *w = NULL, *mine = NULL, *all = NULL, *block = NULL;
  if (lattice_k >= 0 && ctx->lattice_slot[lattice_k] >= 0) {
    *out = &ctx->cache[ctx->lattice_slot[lattice_k]];
    return DPBO_OK;
  }
  for (int i = 0; i < ctx->cache_len; i++)
    if (memcmp(ctx->cache[i].ls, ls, (size_t)d * sizeof *ls) == 0) {
      if (lattice_k >= 0) ctx->lattice_slot[lattice_k] = i;
      *out = &ctx->cache[i];
      return DPBO_OK;
    }

  /* A basis (one rank) may hold this lattice point's eigenbasis and the
   * original sets' projections already. */
  const k1lik_basis_point *point = NULL;
  if (ctx->basis && lattice_k >= 0)
    DPBO_TRY(k1lik_basis_point_get(ctx->basis, lattice_k, ls, &point, err));
  if (!point) {
    V = malloc((size_t)n * n * sizeof *V);
    w = malloc((size_t)n * sizeof *w);
    mine = malloc((size_t)(ctx->count > 0 ? ctx->count : 1) * 2 * n * sizeof *mine);
    all = malloc((size_t)R * 2 * n * sizeof *all);
  }
  block = malloc(((size_t)d + 5 * (size_t)n) * sizeof *block);
  if (ctx->cache_len == ctx->cache_cap) {
    int cap = ctx->cache_cap ? 2 * ctx->cache_cap : 64;
    k1lik_entry *grown = realloc(ctx->cache, (size_t)cap * sizeof *grown);
    if (grown) {
      ctx->cache = grown;
      ctx->cache_cap = cap;
    }
  }
  if ((!point && (!V || !w || !mine || !all)) || !block || ctx->cache_len == ctx->cache_cap)
    local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM,
                           "k1 likelihood: out of memory for a %d x %d kernel matrix", n, n);
  DPBO_TRY(dpbo_comm_agree(ctx->comm, local, err));

  k1lik_entry e;
  e.ls = block;
  e.lambda = block + d;
  e.g = e.lambda + n;
  e.abar = e.g + n;
  e.ssa = e.abar + n;
  e.b2 = e.ssa + n;
  e.memo = NULL;
  memcpy(e.ls, ls, (size_t)d * sizeof *ls);
  if (point) {
    /* The resample's sets are the basis's sets index[i]: the same
     * projections, summed in the same order, as below. */
    memcpy(e.lambda, point->lambda, (size_t)n * sizeof *e.lambda);
    memcpy(e.g, point->g, (size_t)n * sizeof *e.g);
    k1lik_moments(R, n, point->proj, ctx->index, e.abar, e.ssa, e.b2);
    e.memo = point->memo;
  } else {
    /* K2 over the settings, identical on every rank, then V with
     * eigenvector j at V + j*n (eigen.h). */
    DPBO_TRY(k1lik_kernel_matrix(ctx->opt.kernel, n, d, ctx->coords, ls, V, err));
    int used = 0;
    DPBO_TRY(dpbo_eigen_sym(ctx->comm, n, V, w, ctx->opt.eigen_threshold, &used, err));
    ctx->eigen_count++;
    ctx->scalapack_count += used;
    k1lik_spectrum(n, V, w, e.lambda, e.g);
    /* This rank's sets, then every set on every rank. */
    k1lik_project(n, ctx->count, V, ctx->sum, ctx->diff, mine);
    ctx->work.projections += ctx->count;
    DPBO_MPI_TRY(MPI_Allgatherv(mine, ctx->counts[ctx->rank], MPI_DOUBLE, all, ctx->counts,
                                ctx->displs, MPI_DOUBLE, ctx->comm));
    k1lik_moments(R, n, all, NULL, e.abar, e.ssa, e.b2);
  }
  ctx->work.entries++;
  ctx->cache[ctx->cache_len] = e;
  block = NULL;
  if (lattice_k >= 0) ctx->lattice_slot[lattice_k] = ctx->cache_len;
  *out = &ctx->cache[ctx->cache_len++];
done:
  free(V);
  free(w);
  free(mine);
  free(all);
  free(block);
  return status;
}

/* --- evaluations, O(n) each -------------------------------------------------- */

/* Joint log-likelihood; onep = 1 + k1, onem = 1 − k1 (header formula). */
static double k1lik_loglik_entry(const dpbo_k1lik *ctx, const k1lik_entry *e, double onep,
                                 double onem, double m0, double s2, double sn2) {
  const int n = ctx->n, R = ctx->R;
  double logdet = 0.0, quad = 0.0;
  for (int j = 0; j < n; j++) {
    double ep = s2 * onep * e->lambda[j] + sn2, em = s2 * onem * e->lambda[j] + sn2;
    double r = e->abar[j] - K1LIK_SQRT2 * m0 * e->g[j];
    logdet += log(ep * em);
    quad += (e->ssa[j] + R * r * r) / ep + e->b2[j] / em;
  }
  return -(double)R * n * K1LIK_LOG2PI - 0.5 * R * logdet - 0.5 * quad;
}

typedef struct k1lik_inner {
  double loglik, rho, m0, s2;
  int rho_at_bound;
} k1lik_inner;

typedef struct k1lik_rho_arg {
  dpbo_k1lik *ctx;
  const k1lik_entry *e;
  const double *pl, *ml, *ag, *gg; /* onep·λ_j, onem·λ_j, ā_j g_j, g_j² (k1lik_best_rho) */
  double *ep, *em, *t1, *t2;       /* per-setting scratch */
  double *memo; /* log-determinants at the scan points of this ℓ and grid k1, or NULL */
  int slot;     /* the scan point being evaluated (index into memo), −1: none */
  k1lik_inner last;
} k1lik_rho_arg;

/* The per-setting vectors of one ρ evaluation: inputs (eigenvalue sums
 * and the sets' GLS sums) and the scratch the terms are formed in. */
typedef struct k1lik_vectors {
  const double *pl, *ml, *ag, *gg;   /* (1 ± k1)λ_j, ā_j g_j, g_j² */
  const double *abar, *g, *ssa, *b2; /* the quadratic form's per-setting sums */
  double *ep, *em, *t1, *t2;         /* e±_j and the GLS terms (out) */
} k1lik_vectors;

/* e±_j = (1 ± k1)λ_j + ρ and the GLS terms ā_j g_j / e+_j, g_j² / e+_j. The
 * restrict copies tell the compiler the vectors do not overlap, so the loop
 * vectorizes. */
static void k1lik_gls_terms(int n, double rho, const k1lik_vectors *v) {
  const double *restrict pl = v->pl, *restrict ml = v->ml, *restrict ag = v->ag,
                         *restrict gg = v->gg;
  double *restrict ep = v->ep, *restrict em = v->em, *restrict t1 = v->t1, *restrict t2 = v->t2;
  for (int j = 0; j < n; j++) {
    ep[j] = pl[j] + rho;
    em[j] = ml[j] + rho;
    t1[j] = ag[j] / ep[j];
    t2[j] = gg[j] / ep[j];
  }
}

/* The quadratic form's terms at the GLS mean (c = √2·m0), into out. */
static void k1lik_quad_terms(int n, double Rd, double c, const k1lik_vectors *v,
                             double *restrict out) {
  const double *restrict abar = v->abar, *restrict g = v->g, *restrict ssa = v->ssa,
                         *restrict b2 = v->b2, *restrict ep = v->ep, *restrict em = v->em;
  for (int j = 0; j < n; j++) {
    double r = abar[j] - c * g[j];
    out[j] = (ssa[j] + Rd * r * r) / ep[j] + b2[j] / em[j];
  }
}

/* Profile over m0 (GLS) and s² (closed form) at ρ = σn²/s² = exp(x).
 *
 * The per-setting terms are formed elementwise first and summed after, in
 * setting order: the same operations on the same operands as one fused
 * loop (-ffp-contract=off, nothing reassociated), so the same bits, but the
 * elementwise loops vectorize and the log of e+_j e−_j is called once per
 * distinct product (λ ascending: the tail of clamped or negligible
 * eigenvalues gives equal products in a row). The log-determinant does not
 * depend on the data, so a basis's memo can supply it (dpbo_k1lik_basis). */
static dpbo_status k1lik_rho_value(void *varg, double x, double *value, dpbo_error *err) {
  k1lik_rho_arg *arg = varg;
  const k1lik_entry *e = arg->e;
  const int n = arg->ctx->n, R = arg->ctx->R;
  const double Rd = R;
  const double rho = exp(x);
  double *ep = arg->ep, *em = arg->em, *t1 = arg->t1, *t2 = arg->t2;
  const k1lik_vectors v = {.pl = arg->pl,
                           .ml = arg->ml,
                           .ag = arg->ag,
                           .gg = arg->gg,
                           .abar = e->abar,
                           .g = e->g,
                           .ssa = e->ssa,
                           .b2 = e->b2,
                           .ep = ep,
                           .em = em,
                           .t1 = t1,
                           .t2 = t2};
  k1lik_gls_terms(n, rho, &v);
  double num = 0.0, den = 0.0;
  for (int j = 0; j < n; j++) {
    num += t1[j];
    den += t2[j];
  }
  double m0 = num / (K1LIK_SQRT2 * den);
  k1lik_quad_terms(n, Rd, K1LIK_SQRT2 * m0, &v, t1);
  double quad = 0.0;
  for (int j = 0; j < n; j++)
    quad += t1[j];
  double logdet;
  arg->ctx->work.evaluations++;
  if (arg->memo && arg->slot >= 0 && !isnan(arg->memo[arg->slot])) {
    logdet = arg->memo[arg->slot];
    arg->ctx->work.logdet_reused++;
  } else {
    for (int j = 0; j < n; j++)
      t2[j] = ep[j] * em[j];
    double prev = NAN, lg = 0.0;
    int64_t logs = 0;
    logdet = 0.0;
    for (int j = 0; j < n; j++) {
      if (!(t2[j] == prev)) {
        prev = t2[j];
        lg = log(prev);
        logs++;
      }
      logdet += lg;
    }
    arg->ctx->work.logs += logs;
    if (arg->memo && arg->slot >= 0) arg->memo[arg->slot] = logdet;
  }
  double Nobs = 2.0 * R * n, s2 = quad / Nobs;
  arg->last.rho = rho;
  arg->last.m0 = m0;
  arg->last.s2 = s2;
  arg->last.loglik =
      s2 > 0.0 ? -0.5 * Nobs * (K1LIK_LOG2PI + log(s2) + 1.0) - 0.5 * R * logdet : -HUGE_VAL;
  *value = arg->last.loglik;
  (void)err;
  return DPBO_OK;
}

typedef dpbo_status (*k1lik_fn)(void *arg, double x, double *value, dpbo_error *err);

/* An interval [lo, hi] a maximum is searched in. */
typedef struct k1lik_bracket {
  double lo, hi;
} k1lik_bracket;

/* Brent's minimizer (Brent 1973, "Algorithms for minimization without
 * derivatives", ch. 5; netlib fmin) applied to −f on [a, b] = bracket. */
static dpbo_status k1lik_brent_max(k1lik_fn f, void *arg, k1lik_bracket bracket, double tol,
                                   double *xbest, double *fbest, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double a = bracket.lo, b = bracket.hi;
  const double c = 0.5 * (3.0 - sqrt(5.0)), eps = sqrt(DBL_EPSILON);
  double x = a + c * (b - a), w = x, v = x, fx, fw, fv, d = 0.0, e = 0.0;
  DPBO_TRY(f(arg, x, &fx, err));
  fx = -fx;
  fw = fv = fx;
  for (int iter = 0; iter < 200; iter++) {
    double xm = 0.5 * (a + b), tol1 = eps * fabs(x) + tol / 3.0, tol2 = 2.0 * tol1;
    if (fabs(x - xm) <= tol2 - 0.5 * (b - a)) break;
    int golden = 1;
    if (fabs(e) > tol1) {
      double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r;
      q = 2.0 * (q - r);
      if (q > 0.0)
        p = -p;
      else
        q = -q;
      double etemp = e;
      e = d;
      if (!(fabs(p) >= fabs(0.5 * q * etemp) || p <= q * (a - x) || p >= q * (b - x))) {
        d = p / q; /* parabolic step */
        double u = x + d;
        if (u - a < tol2 || b - u < tol2) d = xm >= x ? tol1 : -tol1;
        golden = 0;
      }
    }
    if (golden) {
      e = x >= xm ? a - x : b - x;
      d = c * e;
    }
    double u = x + (fabs(d) >= tol1 ? d : (d > 0.0 ? tol1 : -tol1)), fu;
    DPBO_TRY(f(arg, u, &fu, err));
    fu = -fu;
    if (fu <= fx) {
      if (u >= x)
        a = x;
      else
        b = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x)
        a = u;
      else
        b = u;
      if (fu <= fw || w == x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u;
        fv = fu;
      }
    }
  }
  *xbest = x;
  *fbest = -fx;
done:
  return status;
}

/* Scan peaks, for both searches below. Point j of a scan v[0..M−1] is a
 * peak when (j == 0 or v[j] >= v[j−1]) and (j == M−1 or v[j] > v[j+1]):
 * every local maximum of the scan, a plateau counted once (at its right
 * end). Every peak is refined, not only the best scan point: a narrow mode
 * whose scan neighbours are lower than a broad mode elsewhere is still a
 * peak of the scan (issue 14: refining only the best point missed such a
 * mode in ℓ at m = 5000). */
static int k1lik_is_peak(int j, int M, const double *v /* v[j−1], v[j], v[j+1] */) {
  return (j == 0 || v[1] >= v[0]) && (j == M - 1 || v[1] > v[2]);
}

/* Points of the ρ scan (k1lik_best_rho). */
static int k1lik_scan_count(const dpbo_k1lik_options *o) {
  int M = (int)ceil(log10(o->ratio_max / o->ratio_min) * o->ratio_per_decade - 1e-9) + 1;
  return M < 2 || !(2.0 * log(o->ratio_max) > 2.0 * log(o->ratio_min)) ? 1 : M;
}

/* Best ρ for one entry and k1: a scan of ratio_per_decade points per decade
 * of σn/s, then Brent between the neighbours of every scan peak. grid >= 0:
 * k1 is point `grid` of the sweep grid (the scan's log-determinants may come
 * from, and go to, the basis's memo). */
static void k1lik_best_rho(dpbo_k1lik *ctx, const k1lik_entry *e, double onep, double onem,
                           int grid, k1lik_inner *best) {
  const int n = ctx->n;
  double *pl = ctx->scratch, *ml = pl + n, *ag = ml + n, *gg = ag + n;
  for (int j = 0; j < n; j++) {
    pl[j] = onep * e->lambda[j];
    ml[j] = onem * e->lambda[j];
    ag[j] = e->abar[j] * e->g[j];
    gg[j] = e->g[j] * e->g[j];
  }
  k1lik_rho_arg arg = {.ctx = ctx,
                       .e = e,
                       .pl = pl,
                       .ml = ml,
                       .ag = ag,
                       .gg = gg,
                       .ep = gg + n,
                       .em = gg + 2 * n,
                       .t1 = gg + 3 * n,
                       .t2 = gg + 4 * n,
                       .slot = -1};
  const double lo = 2.0 * log(ctx->opt.ratio_min), hi = 2.0 * log(ctx->opt.ratio_max);
  const int M = k1lik_scan_count(&ctx->opt);
  if (e->memo && grid >= 0 && ctx->basis && grid < ctx->basis->grid_count)
    arg.memo = e->memo + (size_t)grid * M;
  double value, v[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL}; /* scan values k − 2, k − 1, k */
  for (int k = 0; k <= M; k++) {
    v[0] = v[1];
    v[1] = v[2];
    if (k < M) {
      double x = M == 1 ? lo : lo + (hi - lo) * k / (M - 1);
      arg.slot = k;
      k1lik_rho_value(&arg, x, &value, NULL);
      arg.slot = -1;
      v[2] = arg.last.loglik;
      if (k == 0 || arg.last.loglik > best->loglik) *best = arg.last;
    }
    const int j = k - 1; /* all of j's neighbours are known now */
    if (M == 1 || j < 0 || !k1lik_is_peak(j, M, v)) continue;
    double xa = lo + (hi - lo) * (j > 0 ? j - 1 : 0) / (M - 1);
    double xb = lo + (hi - lo) * (j < M - 1 ? j + 1 : M - 1) / (M - 1);
    double xbest = xa, fbest = -HUGE_VAL;
    k1lik_brent_max(k1lik_rho_value, &arg, (k1lik_bracket){xa, xb}, 1e-9, &xbest, &fbest, NULL);
    if (fbest > best->loglik) {
      k1lik_rho_value(&arg, xbest, &value, NULL);
      *best = arg.last;
    }
  }
  double x = log(best->rho);
  best->rho_at_bound = M == 1 || x - lo < 1e-5 || hi - x < 1e-5;
}

/* ℓ of lattice point k. */
static double k1lik_lattice_ell(const dpbo_k1lik *ctx, int k) {
  return exp(ctx->log_ell_min + ctx->lattice_h * k);
}

/* The k1 a profile is taken at: 1 + k1 and 1 − k1 (each exact), and its
 * point of the sweep grid (−1: none; k1lik_best_rho). */
typedef struct k1lik_at {
  double onep, onem;
  int grid;
} k1lik_at;

static dpbo_status k1lik_at_lattice(dpbo_k1lik *ctx, int k, const k1lik_at *at, k1lik_inner *out,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double ls[DPBO_MAX_DIM];
  double ell = k1lik_lattice_ell(ctx, k);
  for (int i = 0; i < ctx->d; i++)
    ls[i] = ell;
  const k1lik_entry *e;
  DPBO_TRY(k1lik_entry_get(ctx, ls, k, &e, err));
  k1lik_best_rho(ctx, e, at->onep, at->onem, at->grid, out);
done:
  return status;
}

/* Coarse scan point g of G over the lattice 0..K. */
static int k1lik_scan_point(int g, int G, int K) {
  return G == 1 ? 0 : (int)llround((double)g * K / (G - 1));
}

/* Golden-section search on the lattice over [lo, hi] starting from the
 * point c inside it with profile *at_c (integers, so lattice points recur
 * and hit the cache): probe the larger side at 0.382 of its length, keep
 * the better point. On a unimodal stretch of the lattice it ends at the
 * maximum. *c and *at_c return the best point. */
static dpbo_status k1lik_golden_lattice(dpbo_k1lik *ctx, const k1lik_at *at, int lo, int hi,
                                        int *c_io, k1lik_inner *at_c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int c = *c_io;
  k1lik_inner cur;
  for (;;) {
    int left = c - lo, right = hi - c;
    if (left <= 1 && right <= 1) break;
    int x = right >= left ? c + (int)fmax(1.0, round(0.3819660112501051 * right))
                          : c - (int)fmax(1.0, round(0.3819660112501051 * left));
    DPBO_TRY(k1lik_at_lattice(ctx, x, at, &cur, err));
    if (cur.loglik > at_c->loglik) {
      if (x > c)
        lo = c;
      else
        hi = c;
      c = x;
      *at_c = cur;
    } else {
      if (x > c)
        hi = x;
      else
        lo = x;
    }
  }
  *c_io = c;
done:
  return status;
}

/* Profile at k1 = 1 − t: ℓ by a scan of ell_grid lattice points, then
 * golden-section search between the scan neighbours of EVERY scan peak
 * (k1lik_is_peak); ρ inside (k1lik_best_rho).
 *
 * What this cannot miss. Let x = log ℓ, Δ the largest gap between scan
 * points (log(ell_max/ell_min)/(ell_grid − 1), rounded to the lattice; 0.02
 * by default) and x* the best lattice point. If the profile on the lattice
 * rises strictly up to x* and falls strictly after it within 2Δ of x*, the
 * search returns x*: the scan points p_L <= x* <= p_R next to x* and their
 * outer neighbours lie within 2Δ of x*, so the higher of p_L and p_R is a
 * peak of the scan, and golden section between its neighbours (a bracket
 * that holds x*, on which the profile is unimodal) ends at x*. A maximum
 * can thus be missed only if the profile turns within 2Δ of it (a mode
 * narrower than about 4% in ℓ with the defaults), whatever its height
 * elsewhere; the old search (25 points, golden section next to the best
 * one only) could miss any mode whose nearest scan points were lower than
 * the best scan point elsewhere, as at m = 5000 in the Covertype sweep.
 * ("The profile" at each ℓ is k1lik_best_rho's maximum over ρ, which
 * obeys the same rule with its own scan step, 1/ratio_per_decade decades of
 * σn/s.)
 * The profile is not unimodal in ℓ in general (two scales in the data give
 * two modes: test_k1lik's tail case), so some scan is needed; its cost is
 * ell_grid ρ searches per profile (O(n) each) and at most ell_grid + the
 * refinements' eigendecompositions, cached across k1 (a whole sweep at n =
 * 100 settings and R = 100 sets: 2.4 s and 846 eigendecompositions, against
 * 0.4 s and 299 for the old search). test_k1lik checks
 * the result against a brute-force maximum over every lattice point. */
/* grid >= 0: t is point `grid` of the sweep grid (k1lik_best_rho). */
static dpbo_status k1lik_profile_t(dpbo_k1lik *ctx, double t, int grid, dpbo_k1lik_fit *fit,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const k1lik_at at = {2.0 - t, t, grid};
  const int K = ctx->lattice_K;
  const int G = ctx->opt.ell_grid < K + 1 ? ctx->opt.ell_grid : K + 1;
  k1lik_inner best = {0}, cur, win[3] = {{0}}; /* scan points g − 2, g − 1, g */
  double v[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  int c = 0;
  for (int g = 0; g <= G; g++) {
    win[0] = win[1];
    win[1] = win[2];
    v[0] = v[1];
    v[1] = v[2];
    if (g < G) {
      int k = k1lik_scan_point(g, G, K);
      DPBO_TRY(k1lik_at_lattice(ctx, k, &at, &win[2], err));
      v[2] = win[2].loglik;
      if (g == 0 || win[2].loglik > best.loglik) {
        best = win[2];
        c = k;
      }
    }
    const int j = g - 1; /* all of j's neighbours are known now */
    if (j < 0 || !k1lik_is_peak(j, G, v)) continue;
    int k = k1lik_scan_point(j, G, K);
    int lo = k1lik_scan_point(j > 0 ? j - 1 : j, G, K);
    int hi = k1lik_scan_point(j < G - 1 ? j + 1 : j, G, K);
    cur = win[1];
    DPBO_TRY(k1lik_golden_lattice(ctx, &at, lo, hi, &k, &cur, err));
    if (cur.loglik > best.loglik) {
      best = cur;
      c = k;
    }
  }
  memset(fit, 0, sizeof *fit);
  fit->one_minus_k1 = t;
  fit->k1 = 1.0 - t;
  fit->loglik = best.loglik;
  fit->m0 = best.m0;
  fit->s = sqrt(best.s2);
  fit->sigma_n = fit->s * sqrt(best.rho);
  fit->lengthscale = k1lik_lattice_ell(ctx, c);
  fit->ell_at_bound = c == 0 || c == K;
  fit->ratio_at_bound = best.rho_at_bound;
done:
  return status;
}

/* --- public entry points --------------------------------------------------- */

dpbo_status dpbo_k1lik_loglik(dpbo_k1lik *ctx, const dpbo_k1lik_params *params, double *loglik,
                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double args[4 + DPBO_MAX_DIM] = {params->k1, params->m0, params->s, params->sigma_n};
  if (ctx->rank == 0)
    memcpy(args + 4, params->lengthscales, (size_t)ctx->d * sizeof *params->lengthscales);
  DPBO_MPI_TRY(MPI_Bcast(args, 4 + ctx->d, MPI_DOUBLE, 0, ctx->comm));
  const double k1 = args[0], m0 = args[1], s = args[2], sigma_n = args[3];
  if (!(k1 >= -1.0 && k1 <= 1.0)) DPBO_RAISE(DPBO_ERR_ARG, "k1 must lie in [-1, 1], got %g", k1);
  if (!(s > 0.0) || !(sigma_n > 0.0) || !isfinite(s) || !isfinite(sigma_n) || !isfinite(m0))
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood needs finite m0, s > 0 and sigma_n > 0, got %g, %g, %g",
               m0, s, sigma_n);
  const k1lik_entry *e;
  DPBO_TRY(k1lik_entry_get(ctx, args + 4, -1, &e, err));
  *loglik = k1lik_loglik_entry(ctx, e, 1.0 + k1, 1.0 - k1, m0, s * s, sigma_n * sigma_n);
done:
  return status;
}

dpbo_status dpbo_k1lik_profile(dpbo_k1lik *ctx, double one_minus_k1, dpbo_k1lik_fit *fit,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_MPI_TRY(MPI_Bcast(&one_minus_k1, 1, MPI_DOUBLE, 0, ctx->comm));
  if (!(one_minus_k1 > 0.0 && one_minus_k1 < 2.0))
    DPBO_RAISE(DPBO_ERR_ARG, "1 - k1 must lie in (0, 2), got %g", one_minus_k1);
  DPBO_TRY(k1lik_profile_t(ctx, one_minus_k1, -1, fit, err));
done:
  return status;
}

/* The sweep's 1 − k1 values, descending: 1 − step·i for k1 = step·i < 1
 * (k1 rounded to 12 decimals so 0.15 is the double nearest 0.15), then
 * 10^(−m/per_decade) below the last of those, down to t_min. */
static dpbo_status k1lik_sweep_grid(const dpbo_k1lik_options *o, double **out, double **out_k1,
                                    int *count, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *t = NULL, *k1 = NULL;
  int linear = 0;
  while (round((linear + 1) * o->k1_step * 1e12) / 1e12 < 1.0)
    linear++;
  double last = linear > 0 ? 1.0 - round(linear * o->k1_step * 1e12) / 1e12 : 1.0;
  int m0 = (int)floor(-log10(last) * o->t_per_decade) + 1;
  while (pow(10.0, -(double)(m0 - 1) / o->t_per_decade) < last * (1.0 - 1e-9))
    m0--;
  int m1 = (int)floor(-log10(o->t_min) * o->t_per_decade + 1e-9);
  int cap = linear + (m1 >= m0 ? m1 - m0 + 1 : 0) + 1;
  DPBO_ALLOC(t, cap, "k1 sweep grid");
  DPBO_ALLOC(k1, cap, "k1 sweep grid");
  int c = 0;
  for (int i = 1; i <= linear; i++, c++) {
    k1[c] = round(i * o->k1_step * 1e12) / 1e12;
    t[c] = 1.0 - k1[c];
  }
  for (int m = m0; m <= m1; m++) {
    double v = pow(10.0, -(double)m / o->t_per_decade);
    if (v < last * (1.0 - 1e-9) && v >= o->t_min * (1.0 - 1e-9)) t[c++] = v;
  }
  if (c == 0 || t[c - 1] > o->t_min * (1.0 + 1e-9)) t[c++] = o->t_min;
  for (int g = linear; g < c; g++)
    k1[g] = 1.0 - t[g];
  *out = t;
  *out_k1 = k1;
  *count = c;
  t = k1 = NULL;
done:
  free(t);
  free(k1);
  return status;
}

typedef struct k1lik_t_arg {
  dpbo_k1lik *ctx;
  dpbo_k1lik_fit best;
  int have;
} k1lik_t_arg;

/* Profile log-likelihood at 1 − k1 = exp(x), remembering the best fit. */
static dpbo_status k1lik_t_value(void *varg, double x, double *value, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  k1lik_t_arg *arg = varg;
  dpbo_k1lik_fit fit;
  DPBO_TRY(k1lik_profile_t(arg->ctx, exp(x), -1, &fit, err));
  *value = fit.loglik;
  if (!arg->have || fit.loglik > arg->best.loglik) {
    arg->best = fit;
    arg->have = 1;
  }
done:
  return status;
}

/* Where the profile crosses `level` between x_in (above) and x_out (below),
 * by bisection in log(1 − k1) to 1e-6. */
static dpbo_status k1lik_crossing(dpbo_k1lik *ctx, double x_in, double x_out, double level,
                                  double *x, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  k1lik_t_arg arg = {.ctx = ctx};
  while (fabs(x_out - x_in) > 1e-6) {
    double mid = 0.5 * (x_in + x_out), value;
    DPBO_TRY(k1lik_t_value(&arg, mid, &value, err));
    if (value >= level)
      x_in = mid;
    else
      x_out = mid;
  }
  *x = 0.5 * (x_in + x_out);
done:
  return status;
}

dpbo_status dpbo_k1lik_sweep(dpbo_k1lik *ctx, int64_t N, double delta, dpbo_k1lik_result *result,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *t = NULL, *k1 = NULL;
  memset(result, 0, sizeof *result);
  struct {
    int64_t N;
    double delta;
  } args = {N, delta};
  DPBO_MPI_TRY(MPI_Bcast(&args, (int)sizeof args, MPI_BYTE, 0, ctx->comm));
  if (args.N < 1 || !(args.delta > 0.0 && args.delta < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "k1 sweep needs N >= 1 and delta in (0, 1), got %lld and %g",
               (long long)args.N, args.delta);
  int count = 0;
  DPBO_TRY(k1lik_sweep_grid(&ctx->opt, &t, &k1, &count, err));
  DPBO_ALLOC(result->grid, count, "k1 sweep results");
  result->count = count;
  int b = 0;
  for (int g = 0; g < count; g++) {
    DPBO_TRY(k1lik_profile_t(ctx, t[g], g, &result->grid[g], err));
    result->grid[g].k1 = k1[g]; /* 0.15, not 1 − (1 − 0.15) */
    if (result->grid[g].loglik > result->grid[b].loglik) b = g;
  }
  const int last = count - 1;
  /* The MLE: Brent in x = log(1 − k1) between the grid neighbours of the
   * grid maximum (grid t descends, so b + 1 is the smaller t). */
  result->mle = result->grid[b];
  if (count > 1) {
    double xa = log(t[b < last ? b + 1 : b]), xb = log(t[b > 0 ? b - 1 : b]);
    k1lik_t_arg arg = {.ctx = ctx};
    double xbest, fbest;
    DPBO_TRY(
        k1lik_brent_max(k1lik_t_value, &arg, (k1lik_bracket){xa, xb}, 1e-5, &xbest, &fbest, err));
    if (arg.have && arg.best.loglik > result->mle.loglik) result->mle = arg.best;
  }
  const double xm = log(result->mle.one_minus_k1);
  if (b == last && xm - log(t[last]) < 1e-3) {
    result->boundary = +1;
    result->mle = result->grid[last];
  } else if (b == 0 && log(t[0]) - xm < 1e-3) {
    result->boundary = -1;
    result->mle = result->grid[0];
  }

  /* Likelihood-ratio interval: walk outward from the MLE over the grid to
   * the first point below the level, then bisect (the connected set
   * around the MLE; a profile that dips and rises again is cut at the dip). */
  const double level = result->mle.loglik - DPBO_K1LIK_LR95;
  const double tm = result->mle.one_minus_k1;
  double x_in = log(tm);
  result->lo_open = 1;
  result->t_hi = t[0];
  for (int g = b; g >= 0; g--) { /* larger 1 − k1: smaller k1 */
    if (!(t[g] > tm)) continue;
    if (result->grid[g].loglik < level) {
      double x;
      DPBO_TRY(k1lik_crossing(ctx, x_in, log(t[g]), level, &x, err));
      result->t_hi = exp(x);
      result->lo_open = 0;
      break;
    }
    x_in = log(t[g]);
  }
  x_in = log(tm);
  result->hi_open = 1;
  result->t_lo = t[last];
  for (int g = b; g <= last; g++) { /* smaller 1 − k1: larger k1 */
    if (!(t[g] < tm)) continue;
    if (result->grid[g].loglik < level) {
      double x;
      DPBO_TRY(k1lik_crossing(ctx, x_in, log(t[g]), level, &x, err));
      result->t_lo = exp(x);
      result->hi_open = 0;
      break;
    }
    x_in = log(t[g]);
  }
  if (result->boundary == +1) result->hi_open = 1;
  result->k1_lo = 1.0 - result->t_hi;
  result->k1_hi = 1.0 - result->t_lo;
  result->N = args.N;
  result->delta = args.delta;
  result->c_mle = dpbo_privacy_c(result->mle.k1, args.N, args.delta, 3.0);
  result->c_upper = dpbo_privacy_c(result->k1_lo, args.N, args.delta, 3.0);
done:
  free(t);
  free(k1);
  if (status != DPBO_OK) dpbo_k1lik_result_free(result);
  return status;
}

void dpbo_k1lik_result_free(dpbo_k1lik_result *result) {
  if (!result) return;
  free(result->grid);
  result->grid = NULL;
  result->count = 0;
}

/* --- a basis shared by refits (header: dpbo_k1lik_basis) ------------------ */

void dpbo_k1lik_basis_destroy(dpbo_k1lik_basis *basis) {
  if (!basis) return;
  if (basis->point)
    for (int k = 0; k <= basis->lattice_K; k++)
      free(basis->point[k].lambda);
  free(basis->point);
  free(basis->coords);
  free(basis->sum);
  free(basis->diff);
  free(basis);
}

dpbo_status dpbo_k1lik_basis_create(const dpbo_k1lik_sets *sets, const dpbo_k1lik_options *options,
                                    size_t max_bytes, dpbo_k1lik_basis **out, dpbo_error *err) {
  const int R = sets->R, n = sets->n, d = sets->d;
  const double *F = sets->F, *Fp = sets->Fp, *coords = sets->coords;
  dpbo_status status = DPBO_OK;
  dpbo_k1lik_basis *basis = NULL;
  double *t = NULL, *k1 = NULL;
  *out = NULL;
  if (R < 1 || n < 2 || d < 1 || d > DPBO_MAX_DIM || n > DPBO_EIGEN_MAX_N || !F || !Fp || !coords)
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood basis: bad sizes R = %d, n = %d, d = %d or no data", R,
               n, d);
  DPBO_ALLOC(basis, 1, "the k1 likelihood basis");
  basis->R = R;
  basis->n = n;
  basis->d = d;
  if (options)
    basis->opt = *options;
  else
    dpbo_k1lik_options_default(&basis->opt);
  DPBO_TRY(k1lik_check_options(&basis->opt, err));
  basis->max_bytes = max_bytes;
  /* The context's lattice (dpbo_k1lik_create) and sweep grid. */
  basis->lattice_K =
      (int)ceil(log(basis->opt.ell_max / basis->opt.ell_min) / basis->opt.ell_step - 1e-9);
  if (basis->lattice_K < 0) basis->lattice_K = 0;
  DPBO_TRY(k1lik_sweep_grid(&basis->opt, &t, &k1, &basis->grid_count, err));
  basis->scan_count = k1lik_scan_count(&basis->opt);
  DPBO_ALLOC(basis->point, (size_t)basis->lattice_K + 1, "the k1 likelihood basis");
  DPBO_ALLOC(basis->coords, (size_t)n * d, "the k1 likelihood basis");
  DPBO_ALLOC(basis->sum, (size_t)R * n, "the k1 likelihood basis");
  DPBO_ALLOC(basis->diff, (size_t)R * n, "the k1 likelihood basis");
  memset(basis->point, 0, ((size_t)basis->lattice_K + 1) * sizeof *basis->point);
  memcpy(basis->coords, coords, (size_t)n * d * sizeof *coords);
  /* As dpbo_k1lik_create forms them. */
  for (size_t i = 0; i < (size_t)R * n; i++) {
    basis->sum[i] = (F[i] + Fp[i]) / K1LIK_SQRT2;
    basis->diff[i] = (F[i] - Fp[i]) / K1LIK_SQRT2;
  }
  *out = basis;
  basis = NULL;
done:
  free(t);
  free(k1);
  dpbo_k1lik_basis_destroy(basis);
  return status;
}

void dpbo_k1lik_basis_work(const dpbo_k1lik_basis *basis, dpbo_k1lik_work *work) {
  *work = basis->work;
}

/* Lattice point k of the basis, computed if absent (ls: its length-scales);
 * *out NULL when it would pass max_bytes (the caller computes it itself). */
static dpbo_status k1lik_basis_point_get(dpbo_k1lik_basis *basis, int k, const double *ls,
                                         const k1lik_basis_point **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int n = basis->n, R = basis->R;
  double *V = NULL, *w = NULL, *block = NULL;
  k1lik_basis_point *p = &basis->point[k];
  *out = NULL;
  if (p->lambda) {
    *out = p;
    return DPBO_OK;
  }
  const size_t memo = (size_t)basis->grid_count * basis->scan_count;
  const size_t bytes = (2 * (size_t)n + 2 * (size_t)R * n + memo) * sizeof(double);
  if (basis->bytes + bytes > basis->max_bytes) return DPBO_OK;
  DPBO_ALLOC(V, (size_t)n * n, "a k1 likelihood basis point");
  DPBO_ALLOC(w, n, "a k1 likelihood basis point");
  DPBO_ALLOC(block, bytes / sizeof(double), "a k1 likelihood basis point");
  /* What k1lik_entry_get does on one rank, for all R original sets. */
  DPBO_TRY(k1lik_kernel_matrix(basis->opt.kernel, n, basis->d, basis->coords, ls, V, err));
  int used = 0;
  DPBO_TRY(dpbo_eigen_sym(MPI_COMM_SELF, n, V, w, basis->opt.eigen_threshold, &used, err));
  basis->work.eigendecompositions++;
  basis->work.scalapack += used;
  p->lambda = block;
  p->g = block + n;
  p->proj = p->g + n;
  p->memo = p->proj + 2 * (size_t)R * n;
  block = NULL;
  k1lik_spectrum(n, V, w, p->lambda, p->g);
  k1lik_project(n, R, V, basis->sum, basis->diff, p->proj);
  basis->work.projections += R;
  for (size_t i = 0; i < memo; i++)
    p->memo[i] = NAN;
  basis->bytes += bytes;
  *out = p;
done:
  free(V);
  free(w);
  free(block);
  return status;
}

dpbo_status dpbo_k1lik_use_basis(dpbo_k1lik *ctx, dpbo_k1lik_basis *basis, const int32_t *index,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int R = ctx->R, n = ctx->n;
  if (ctx->size != 1 || basis->R != R || basis->n != n || basis->d != ctx->d)
    DPBO_RAISE(DPBO_ERR_ARG,
               "k1 likelihood basis: a basis of %d sets x %d settings serves one rank's context "
               "of the same sizes (this one: %d x %d on %d ranks)",
               basis->R, basis->n, R, n, ctx->size);
  const dpbo_k1lik_options *a = &basis->opt, *b = &ctx->opt;
  const int same = a->kernel == b->kernel && a->ell_min == b->ell_min && a->ell_max == b->ell_max &&
                   a->ell_step == b->ell_step && a->ell_grid == b->ell_grid &&
                   a->ratio_min == b->ratio_min && a->ratio_max == b->ratio_max &&
                   a->ratio_per_decade == b->ratio_per_decade && a->k1_step == b->k1_step &&
                   a->t_min == b->t_min && a->t_per_decade == b->t_per_decade &&
                   a->eigen_threshold == b->eigen_threshold;
  if (!same || memcmp(basis->coords, ctx->coords, (size_t)n * ctx->d * sizeof *ctx->coords) != 0)
    DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood basis: options or coordinates differ from the "
                             "context's");
  for (int i = 0; i < R; i++) {
    if (index[i] < 0 || index[i] >= R)
      DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood basis: index %d of set %d is outside [0, %d)",
                 (int)index[i], i, R);
    /* The context's set i must be the basis's set index[i], bit for bit. */
    if (memcmp(ctx->sum + (size_t)i * n, basis->sum + (size_t)index[i] * n,
               (size_t)n * sizeof *ctx->sum) != 0 ||
        memcmp(ctx->diff + (size_t)i * n, basis->diff + (size_t)index[i] * n,
               (size_t)n * sizeof *ctx->diff) != 0)
      DPBO_RAISE(DPBO_ERR_ARG, "k1 likelihood basis: set %d is not the basis's set %d", i,
                 (int)index[i]);
  }
  free(ctx->index);
  DPBO_ALLOC(ctx->index, R, "the k1 likelihood basis index");
  memcpy(ctx->index, index, (size_t)R * sizeof *index);
  ctx->basis = basis;
done:
  return status;
}
