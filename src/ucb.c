#include "dpbo/ucb.h"

#include <math.h>
#include <stddef.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

/* Candidates are updated in chunks: each of the t - 1 earlier rows is read
 * as one long contiguous run per chunk (the prefetchers need long runs; 1,024
 * was 2x slower than this), while the running sums stay in L2. Measured with
 * bench/ucb_step. */
enum { UCB_CHUNK = 16384 };

struct dpbo_ucb {
  dpbo_kernel kernel;
  int d;
  int64_t begin, count;
  int capacity, t;
  double *unit; /* count * d */
  double *mean; /* count */
  double *var;  /* count */
  double *cross; /* capacity * count: row j holds a_j(x) for the block */
  unsigned char *pruned; /* NULL until the first pruning (Algorithm 2) */
  double *work;          /* 2 x UCB_CHUNK scratch: running sums and kernel values */
  double fused_beta;     /* β announced by dpbo_ucb_prepare_select, NaN if none */
  int cached_valid;      /* cached_best holds the local best for cached_beta */
  double cached_beta;
  dpbo_ucb_choice cached_best;
};

double dpbo_ucb_beta(int64_t n_candidates, int t, double delta) {
  const double pi2 = 9.8696044010893586188;
  return 2.0 * log((double)n_candidates * (double)t * (double)t * pi2 / (3.0 * delta));
}

/* The cross-covariance rows are the step's whole memory traffic: ask for
 * transparent huge pages, so that a step streams through few TLB entries and
 * a run's first touch takes 512 times fewer page faults. Rows are always
 * written before they are read, so the memory is not cleared. */
static dpbo_status ucb_alloc_rows(double **rows, size_t count, dpbo_error *err) {
  const size_t huge = (size_t)2 << 20;
  size_t bytes = count * sizeof(double);
  bytes = (bytes + huge - 1) / huge * huge;
  if (bytes == 0) bytes = huge;
  *rows = aligned_alloc(huge, bytes);
  if (!*rows)
    return DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory allocating %zu MiB of UCB state",
                          bytes >> 20);
  madvise(*rows, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
  return DPBO_OK;
}

dpbo_status dpbo_ucb_create(const dpbo_space *space, const dpbo_kernel *kernel, int64_t begin,
                            int64_t count, int capacity, dpbo_ucb **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_ucb *ucb = NULL;
  *out = NULL;
  if (count < 0 || begin < 0 || begin + count > dpbo_space_size(space))
    DPBO_RAISE(DPBO_ERR_ARG, "block [%lld, %lld) outside the space of %lld points",
               (long long)begin, (long long)(begin + count), (long long)dpbo_space_size(space));
  DPBO_ALLOC(ucb, 1, "UCB state");
  ucb->kernel = *kernel;
  ucb->d = dpbo_space_dims(space);
  ucb->begin = begin;
  ucb->count = count;
  ucb->capacity = capacity;
  DPBO_ALLOC(ucb->unit, (size_t)count * ucb->d, "candidate coordinates");
  DPBO_ALLOC(ucb->mean, count, "posterior means");
  DPBO_ALLOC(ucb->var, count, "posterior variances");
  DPBO_ALLOC(ucb->work, 2 * UCB_CHUNK, "UCB scratch");
  ucb->fused_beta = NAN;
  DPBO_TRY(ucb_alloc_rows(&ucb->cross, (size_t)capacity * (size_t)count, err));
  for (int64_t i = 0; i < count; i++) {
    DPBO_TRY(dpbo_space_unit(space, begin + i, ucb->unit + (size_t)i * ucb->d, err));
    ucb->var[i] = 1.0;
  }
  *out = ucb;
  ucb = NULL;
done:
  dpbo_ucb_destroy(ucb);
  return status;
}

void dpbo_ucb_destroy(dpbo_ucb *ucb) {
  if (!ucb) return;
  free(ucb->unit);
  free(ucb->mean);
  free(ucb->var);
  free(ucb->cross);
  free(ucb->pruned);
  free(ucb->work);
  free(ucb);
}

void dpbo_ucb_prepare_select(dpbo_ucb *ucb, double beta) { ucb->fused_beta = beta; }

/* The selection's scan over one chunk: larger score wins, the first (lowest)
 * index wins ties. Shared by the fused and the stand-alone selection so both
 * compute the same scores in the same order. */
static void ucb_scan(const dpbo_ucb *ucb, int64_t start, int64_t len, double root_beta, double *score,
                     dpbo_ucb_choice *best) {
  const double *mean = ucb->mean + start, *var = ucb->var + start;
  for (int64_t i = 0; i < len; i++) score[i] = mean[i] + root_beta * sqrt(var[i]);
  for (int64_t i = 0; i < len; i++) {
    if (ucb->pruned && ucb->pruned[start + i]) continue;
    if (score[i] > best->score) {
      best->score = score[i];
      best->index = ucb->begin + start + i;
    }
  }
}

dpbo_status dpbo_ucb_update(dpbo_ucb *ucb, const dpbo_gp *gp, const double *u, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int t = dpbo_gp_count(gp); /* observations including the new one */
  if (t != ucb->t + 1)
    DPBO_RAISE(DPBO_ERR_ARG, "UCB state holds %d observations, GP holds %d", ucb->t, t);
  if (t > ucb->capacity)
    DPBO_RAISE(DPBO_ERR_ARG, "UCB state capacity %d exceeded", ucb->capacity);
  const double *l;
  double pivot, z;
  dpbo_gp_last_row(gp, &l, &pivot, &z);
  const int prev = t - 1;
  const int64_t n = ucb->count;
  const int d = ucb->d;
  double *newrow = ucb->cross + (size_t)prev * (size_t)n;
  double *acc = ucb->work, *kx = ucb->work + UCB_CHUNK;
  const int fuse = !isnan(ucb->fused_beta);
  const double root_beta = fuse ? sqrt(ucb->fused_beta) : 0.0;
  dpbo_ucb_choice best = {-INFINITY, -1};
  const double inv_pivot = 1.0 / pivot;
  for (int64_t start = 0; start < n; start += UCB_CHUNK) {
    const int64_t len = n - start < UCB_CHUNK ? n - start : UCB_CHUNK;
    /* lᵀ a(x) over the earlier rows: t - 1 streams, the step's memory traffic. */
    for (int64_t i = 0; i < len; i++) acc[i] = 0.0;
    /* Four rows per pass over acc (same order of additions per candidate as
     * one row at a time, so the same bits), a quarter of the scratch traffic. */
    int j = 0;
    for (; j + 4 <= prev; j += 4) {
      const double c0 = l[j], c1 = l[j + 1], c2 = l[j + 2], c3 = l[j + 3];
      const double *r0 = ucb->cross + (size_t)j * (size_t)n + start;
      const double *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
      for (int64_t i = 0; i < len; i++) acc[i] = (((acc[i] + c0 * r0[i]) + c1 * r1[i]) + c2 * r2[i]) + c3 * r3[i];
    }
    for (; j < prev; j++) {
      const double c = l[j];
      const double *row = ucb->cross + (size_t)j * (size_t)n + start;
      for (int64_t i = 0; i < len; i++) acc[i] += c * row[i];
    }
    /* k(x, λ_t): r² per candidate, then the kernel in one vectorized pass. */
    dpbo_kernel_r2_block(&ucb->kernel, ucb->unit + (size_t)start * d, len, u, kx);
    dpbo_kernel_of_r2_block(&ucb->kernel, kx, kx, len);
    double *mean = ucb->mean + start, *var = ucb->var + start, *out = newrow + start;
    for (int64_t i = 0; i < len; i++) {
      double a = (kx[i] - acc[i]) * inv_pivot;
      out[i] = a;
      mean[i] += a * z;
      double v = var[i] - a * a;
      var[i] = v > 0.0 ? v : 0.0;
    }
    if (fuse) ucb_scan(ucb, start, len, root_beta, acc, &best); /* acc is free again */
  }
  ucb->cached_valid = fuse;
  ucb->cached_beta = ucb->fused_beta;
  ucb->cached_best = best;
  ucb->fused_beta = NAN;
  ucb->t = t;
done:
  return status;
}

dpbo_ucb_choice dpbo_ucb_local_best(const dpbo_ucb *ucb, double beta) {
  if (ucb->cached_valid && ucb->cached_beta == beta) return ucb->cached_best;
  dpbo_ucb_choice best = {-INFINITY, -1};
  const double root_beta = sqrt(beta);
  double *score = ucb->work; /* the selection never runs during an update */
  for (int64_t start = 0; start < ucb->count; start += UCB_CHUNK) {
    const int64_t len = ucb->count - start < UCB_CHUNK ? ucb->count - start : UCB_CHUNK;
    ucb_scan(ucb, start, len, root_beta, score, &best);
  }
  return best;
}

dpbo_ucb_choice dpbo_ucb_local_best_ei(const dpbo_ucb *ucb, double best) {
  dpbo_ucb_choice choice = {-INFINITY, -1};
  const double inv_sqrt2 = 0.70710678118654752440, inv_sqrt2pi = 0.39894228040143267794;
  for (int64_t i = 0; i < ucb->count; i++) {
    if (ucb->pruned && ucb->pruned[i]) continue;
    double sd = sqrt(ucb->var[i]);
    double gap = ucb->mean[i] - best;
    double ei;
    if (sd > 0.0) {
      double z = gap / sd;
      ei = gap * 0.5 * erfc(-z * inv_sqrt2) + sd * inv_sqrt2pi * exp(-0.5 * z * z);
    } else {
      ei = gap > 0.0 ? gap : 0.0;
    }
    if (ei > choice.score) {
      choice.score = ei;
      choice.index = ucb->begin + i;
    }
  }
  return choice;
}

double dpbo_ucb_local_max_lcb(const dpbo_ucb *ucb, double beta) {
  double best = -INFINITY;
  const double root_beta = sqrt(beta);
  for (int64_t i = 0; i < ucb->count; i++) {
    double lcb = ucb->mean[i] - root_beta * sqrt(ucb->var[i]);
    if (lcb > best) best = lcb;
  }
  return best;
}

dpbo_status dpbo_ucb_prune(dpbo_ucb *ucb, double beta, double lcb_max, int64_t *alive,
                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double root_beta = sqrt(beta);
  if (!ucb->pruned) DPBO_ALLOC(ucb->pruned, ucb->count, "pruning flags");
  ucb->cached_valid = 0; /* the cached best may just have been pruned */
  int64_t left = 0;
  for (int64_t i = 0; i < ucb->count; i++) {
    if (!ucb->pruned[i] && ucb->mean[i] + root_beta * sqrt(ucb->var[i]) < lcb_max) ucb->pruned[i] = 1;
    left += !ucb->pruned[i];
  }
  *alive = left;
done:
  return status;
}

dpbo_status dpbo_ucb_exclude(dpbo_ucb *ucb, int64_t index, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (index < ucb->begin || index >= ucb->begin + ucb->count) goto done; /* another rank's */
  if (!ucb->pruned) DPBO_ALLOC(ucb->pruned, ucb->count, "exclusion flags");
  ucb->pruned[index - ucb->begin] = 1;
  ucb->cached_valid = 0;
done:
  return status;
}

dpbo_status dpbo_ucb_refresh_mean(dpbo_ucb *ucb, const dpbo_gp *gp, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int t = dpbo_gp_count(gp);
  if (t != ucb->t) DPBO_RAISE(DPBO_ERR_ARG, "UCB state holds %d observations, GP holds %d", ucb->t, t);
  const double *z = dpbo_gp_whitened_targets(gp);
  const int64_t n = ucb->count;
  for (int64_t start = 0; start < n; start += UCB_CHUNK) {
    const int64_t len = n - start < UCB_CHUNK ? n - start : UCB_CHUNK;
    double *mean = ucb->mean + start;
    for (int64_t i = 0; i < len; i++) mean[i] = 0.0;
    for (int j = 0; j < t; j++) {
      const double c = z[j];
      const double *row = ucb->cross + (size_t)j * (size_t)n + start;
      for (int64_t i = 0; i < len; i++) mean[i] += c * row[i];
    }
  }
  ucb->cached_valid = 0;
  ucb->fused_beta = NAN;
done:
  return status;
}

/* MPI reduction operator on dpbo_ucb_choice: larger score, then lower index.
 * An empty block's index -1 never wins because its score is -inf. */
static void ucb_choice_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  const dpbo_ucb_choice *a = in;
  dpbo_ucb_choice *b = inout;
  for (int i = 0; i < *len; i++) {
    int a_better = a[i].score > b[i].score ||
                   (a[i].score == b[i].score && a[i].index >= 0 &&
                    (b[i].index < 0 || a[i].index < b[i].index));
    if (a_better) b[i] = a[i];
  }
}

dpbo_status dpbo_ucb_reduce(MPI_Comm comm, dpbo_ucb_choice *choice, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int blocklens[2] = {1, 1};
  MPI_Aint displs[2] = {offsetof(dpbo_ucb_choice, score), offsetof(dpbo_ucb_choice, index)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT64_T};
  dpbo_ucb_choice result;
  if (MPI_Type_create_struct(2, blocklens, displs, types, &type) != MPI_SUCCESS ||
      MPI_Type_commit(&type) != MPI_SUCCESS || MPI_Op_create(ucb_choice_max, 1, &op) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "cannot create the UCB reduction");
  if (MPI_Allreduce(choice, &result, 1, type, op, comm) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "MPI_Allreduce of the UCB maximum failed");
  *choice = result;
done:
  if (op != MPI_OP_NULL) MPI_Op_free(&op);
  if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  return status;
}

dpbo_status dpbo_ucb_select(MPI_Comm comm, const dpbo_ucb *ucb, double beta,
                            dpbo_ucb_choice *choice, dpbo_error *err) {
  *choice = dpbo_ucb_local_best(ucb, beta);
  return dpbo_ucb_reduce(comm, choice, err);
}

int64_t dpbo_ucb_begin(const dpbo_ucb *ucb) { return ucb->begin; }
int64_t dpbo_ucb_count(const dpbo_ucb *ucb) { return ucb->count; }
const double *dpbo_ucb_mean(const dpbo_ucb *ucb) { return ucb->mean; }
const double *dpbo_ucb_var(const dpbo_ucb *ucb) { return ucb->var; }
const double *dpbo_ucb_unit(const dpbo_ucb *ucb) { return ucb->unit; }

size_t dpbo_ucb_memory(const dpbo_ucb *ucb) {
  size_t per_candidate = (size_t)ucb->d + 2 + (size_t)ucb->capacity;
  return sizeof *ucb + (per_candidate * (size_t)ucb->count + 2 * UCB_CHUNK) * sizeof(double) +
         (ucb->pruned ? (size_t)ucb->count : 0);
}
