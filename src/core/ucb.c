#define _GNU_SOURCE /* getline, MADV_HUGEPAGE */

#include "dpbo/ucb.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Candidates are updated in chunks: each of the t - 1 earlier rows is read
 * as one long contiguous run per chunk (the prefetchers need long runs; 1,024
 * was 2x slower than this), while the running sums stay in L2. Measured with
 * bench/ucb_step. */
enum { UCB_CHUNK = 16384 };

/* Recompute mode rebuilds a_1..a_t of one chunk at a time in a scratch of
 * capacity × chunk doubles; about this many bytes keep the rows of a chunk
 * in L2 while each new row reads all earlier ones (bench/ucb_step). */
enum { UCB_RECOMPUTE_SCRATCH = 256 * 1024, UCB_RECOMPUTE_MIN_CHUNK = 64 };

struct dpbo_ucb {
  dpbo_kernel kernel;
  int d;
  int64_t begin, count;
  int capacity, t;
  dpbo_ucb_mode mode;
  int64_t chunk; /* candidates per pass: UCB_CHUNK (incremental) or ucb_recompute_chunk */
  double *unit;  /* count * d */
  double *mean;  /* count */
  double *var;   /* count */
  double *cross; /* incremental: capacity * count, row j holds a_j(x) for the block; else NULL */
  double *rows;  /* recompute: capacity * chunk, a_1..a_t of the chunk in hand; else NULL */
  double *obs;   /* capacity * d: unit coordinates of the observations, in order */
  unsigned char *pruned; /* NULL until the first pruning (Algorithm 2) */
  double *work;          /* 2 x min(count, UCB_CHUNK) scratch: running sums and kernel values */
  double fused_beta;     /* β announced by dpbo_ucb_prepare_select, NaN if none */
  int cached_valid;      /* cached_best holds the local best for cached_beta */
  double cached_beta;
  dpbo_ucb_choice cached_best;
};

const char *dpbo_ucb_mode_name(dpbo_ucb_mode mode) {
  return mode == DPBO_UCB_RECOMPUTE ? "recompute" : "incremental";
}

static const size_t ucb_huge_page = (size_t)2 << 20;

/* Bytes of the incremental rows: whole huge pages (ucb_alloc_rows). */
static size_t ucb_rows_bytes(size_t doubles) {
  size_t bytes = doubles * sizeof(double);
  bytes = (bytes + ucb_huge_page - 1) / ucb_huge_page * ucb_huge_page;
  return bytes ? bytes : ucb_huge_page;
}

/* Candidates per pass of the scratch buffers: no more than the block holds. */
static int64_t ucb_work_len(int64_t count) {
  return count < 1 ? 1 : count < UCB_CHUNK ? count : UCB_CHUNK;
}

/* Candidates per chunk in recompute mode: a multiple of 64 whose capacity
 * rows take about UCB_RECOMPUTE_SCRATCH bytes, within [64, UCB_CHUNK] and no
 * larger than the block needs. The chunk only decides which candidates are
 * processed together, never the arithmetic done for one candidate. */
static int64_t ucb_recompute_chunk(int64_t count, int capacity) {
  int64_t chunk = UCB_RECOMPUTE_SCRATCH / ((int64_t)sizeof(double) * (capacity > 0 ? capacity : 1));
  chunk = chunk / UCB_RECOMPUTE_MIN_CHUNK * UCB_RECOMPUTE_MIN_CHUNK;
  if (chunk < UCB_RECOMPUTE_MIN_CHUNK) chunk = UCB_RECOMPUTE_MIN_CHUNK;
  if (chunk > UCB_CHUNK) chunk = UCB_CHUNK;
  return chunk < ucb_work_len(count) ? chunk : ucb_work_len(count);
}

size_t dpbo_ucb_memory_needed(int64_t count, int d, int capacity, dpbo_ucb_mode mode) {
  const size_t n = count > 0 ? (size_t)count : 0, cap = capacity > 0 ? (size_t)capacity : 0;
  size_t doubles = n * ((size_t)d + 2) + 2 * (size_t)ucb_work_len(count) + cap * (size_t)d;
  size_t bytes = sizeof(struct dpbo_ucb) + doubles * sizeof(double);
  if (mode == DPBO_UCB_INCREMENTAL)
    bytes += ucb_rows_bytes(cap * n);
  else
    bytes += cap * (size_t)ucb_recompute_chunk(count, capacity) * sizeof(double);
  return bytes;
}

dpbo_status dpbo_ucb_choose_mode(int64_t count, int d, int capacity, size_t limit,
                                 dpbo_ucb_mode *mode, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const size_t incremental = dpbo_ucb_memory_needed(count, d, capacity, DPBO_UCB_INCREMENTAL);
  const size_t recompute = dpbo_ucb_memory_needed(count, d, capacity, DPBO_UCB_RECOMPUTE);
  *mode = DPBO_UCB_INCREMENTAL;
  if (limit == 0 || incremental <= limit) goto done;
  *mode = DPBO_UCB_RECOMPUTE;
  if (recompute > limit)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "the UCB state of %lld candidates needs %.3g MiB even in recompute mode (%.3g MiB "
               "incremental), above the limit of %.3g MiB per rank: raise ucb.memory_limit_mb or "
               "use more ranks",
               (long long)count, recompute / 1048576.0, incremental / 1048576.0, limit / 1048576.0);
done:
  return status;
}

/* The memory limit of a control group, or 0 when there is none: cgroup v2
 * ("0::PATH" in /proc/self/cgroup, PATH/memory.max) or v1 ("N:memory:PATH",
 * memory/PATH/memory.limit_in_bytes). Whatever cannot be read means none. */
static size_t ucb_cgroup_limit(void) {
  size_t limit = 0;
  char *line = NULL;
  size_t cap = 0;
  FILE *f = fopen("/proc/self/cgroup", "r");
  while (f && getline(&line, &cap, f) > 0) {
    line[strcspn(line, "\n")] = '\0';
    char path[4096 + 64];
    const char *v1 = strstr(line, ":memory:");
    if (strncmp(line, "0::", 3) == 0)
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
    else if (v1)
      snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", v1 + 8);
    else
      continue;
    FILE *g = fopen(path, "r");
    unsigned long long value = 0;
    if (g && fscanf(g, "%llu", &value) == 1 && value > 0 && value < ((unsigned long long)1 << 60) &&
        (limit == 0 || value < limit))
      limit = (size_t)value; /* "max" (v2) and the v1 "unlimited" 2^63 - 4096 are no limit */
    if (g) fclose(g);
  }
  free(line);
  if (f) fclose(f);
  return limit;
}

dpbo_status dpbo_ucb_memory_limit(MPI_Comm comm, double limit_mb, size_t *bytes, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  MPI_Comm node = MPI_COMM_NULL;
  *bytes = 0;
  if (limit_mb > 0) {
    *bytes = (size_t)(limit_mb * 1048576.0);
  } else if (limit_mb < 0) {
    int local_ranks = 1, rank;
    DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
    DPBO_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    DPBO_MPI_TRY(MPI_Comm_size(node, &local_ranks));
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double node_bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    size_t group = ucb_cgroup_limit();
    if (group > 0 && (node_bytes == 0.0 || (double)group < node_bytes)) node_bytes = (double)group;
    /* Half: the rest is for the objective (datasets, SVM caches), MPI and
     * HDF5 buffers, and the other processes of the node. */
    if (node_bytes > 0) *bytes = (size_t)(0.5 * node_bytes / local_ranks);
  }
done:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  return status;
}

/* The cross-covariance rows are the step's whole memory traffic: ask for
 * transparent huge pages, so that a step streams through few TLB entries and
 * a run's first touch takes 512 times fewer page faults. Rows are always
 * written before they are read, so the memory is not cleared. */
static dpbo_status ucb_alloc_rows(double **rows, size_t count, dpbo_error *err) {
  const size_t bytes = ucb_rows_bytes(count);
  *rows = aligned_alloc(ucb_huge_page, bytes);
  if (!*rows)
    return DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory allocating %zu MiB of UCB state",
                          bytes >> 20);
  madvise(*rows, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
  return DPBO_OK;
}

/* The recompute scratch: capacity rows of one chunk, cache-line aligned. */
static dpbo_status ucb_alloc_scratch(dpbo_ucb *ucb, dpbo_error *err) {
  const int64_t chunk = ucb_recompute_chunk(ucb->count, ucb->capacity);
  size_t bytes = (size_t)ucb->capacity * (size_t)chunk * sizeof(double);
  bytes = (bytes + 63) / 64 * 64;
  ucb->rows = aligned_alloc(64, bytes ? bytes : 64);
  if (!ucb->rows)
    return DPBO_ERROR_SET(err, DPBO_ERR_NOMEM,
                          "out of memory allocating the UCB recompute scratch");
  ucb->chunk = chunk;
  return DPBO_OK;
}

dpbo_status dpbo_ucb_create_mode(const dpbo_space_range *block, const dpbo_kernel *kernel,
                                 int capacity, dpbo_ucb_mode mode, dpbo_ucb **out,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_space *space = block->space;
  const int64_t begin = block->begin, count = block->count;
  dpbo_ucb *ucb = NULL;
  *out = NULL;
  if (count < 0 || begin < 0 || begin + count > dpbo_space_size(space))
    DPBO_RAISE(DPBO_ERR_ARG, "block [%lld, %lld) outside the space of %lld points",
               (long long)begin, (long long)(begin + count), (long long)dpbo_space_size(space));
  if (capacity < 1) DPBO_RAISE(DPBO_ERR_ARG, "UCB capacity must be >= 1, got %d", capacity);
  if (mode != DPBO_UCB_INCREMENTAL && mode != DPBO_UCB_RECOMPUTE)
    DPBO_RAISE(DPBO_ERR_ARG, "unknown UCB mode %d", (int)mode);
  DPBO_ALLOC(ucb, 1, "UCB state");
  ucb->kernel = *kernel;
  ucb->d = dpbo_space_dims(space);
  ucb->begin = begin;
  ucb->count = count;
  ucb->capacity = capacity;
  ucb->mode = mode;
  ucb->chunk = UCB_CHUNK;
  DPBO_ALLOC(ucb->unit, (size_t)count * ucb->d, "candidate coordinates");
  DPBO_ALLOC(ucb->mean, count, "posterior means");
  DPBO_ALLOC(ucb->var, count, "posterior variances");
  DPBO_ALLOC(ucb->obs, (size_t)capacity * ucb->d, "observation coordinates");
  DPBO_ALLOC(ucb->work, 2 * ucb_work_len(count), "UCB scratch");
  ucb->fused_beta = NAN;
  if (mode == DPBO_UCB_INCREMENTAL)
    DPBO_TRY(ucb_alloc_rows(&ucb->cross, (size_t)capacity * (size_t)count, err));
  else
    DPBO_TRY(ucb_alloc_scratch(ucb, err));
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

dpbo_status dpbo_ucb_create(const dpbo_space_range *block, const dpbo_kernel *kernel, int capacity,
                            dpbo_ucb **out, dpbo_error *err) {
  return dpbo_ucb_create_mode(block, kernel, capacity, DPBO_UCB_INCREMENTAL, out, err);
}

void dpbo_ucb_destroy(dpbo_ucb *ucb) {
  if (!ucb) return;
  free(ucb->unit);
  free(ucb->mean);
  free(ucb->var);
  free(ucb->cross);
  free(ucb->rows);
  free(ucb->obs);
  free(ucb->pruned);
  free(ucb->work);
  free(ucb);
}

dpbo_ucb_mode dpbo_ucb_get_mode(const dpbo_ucb *ucb) { return ucb->mode; }

dpbo_status dpbo_ucb_drop_rows(dpbo_ucb *ucb, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (ucb->mode == DPBO_UCB_RECOMPUTE) goto done;
  DPBO_TRY(ucb_alloc_scratch(ucb, err)); /* before freeing: a failure leaves the state whole */
  free(ucb->cross);
  ucb->cross = NULL;
  ucb->mode = DPBO_UCB_RECOMPUTE;
done:
  return status;
}

void dpbo_ucb_prepare_select(dpbo_ucb *ucb, double beta) { ucb->fused_beta = beta; }

/* The selection's scan over one chunk: larger score wins, the first (lowest)
 * index wins ties. Shared by the fused and the stand-alone selection so both
 * compute the same scores in the same order. */
static void ucb_scan(const dpbo_ucb *ucb, int64_t start, int64_t len, double root_beta,
                     double *score, dpbo_ucb_choice *best) {
  const double *mean = ucb->mean + start, *var = ucb->var + start;
  for (int64_t i = 0; i < len; i++)
    score[i] = mean[i] + root_beta * sqrt(var[i]);
  for (int64_t i = 0; i < len; i++) {
    if (ucb->pruned && ucb->pruned[start + i]) continue;
    if (score[i] > best->score) {
      best->score = score[i];
      best->index = ucb->begin + start + i;
    }
  }
}

/* A chunk of candidates and their earlier rows of a. */
typedef struct ucb_chunk {
  const double *unit; /* len candidates' coordinates */
  int64_t len;
  const double *rows; /* a_k(x_i) = rows[k·stride + i] */
  size_t stride;
} ucb_chunk;

/* Row j's inputs (the GP's row j of L, 1/pivot and λ_j) and where it goes. */
typedef struct ucb_row_of {
  int j;
  const double *l;
  double inv_pivot;
  const double *u;
  double *out;
} ucb_row_of;

/* Row j of a over `len` candidates with coordinates `unit`:
 *     out[i] = (k(λ_j, x_i) − Σ_{k<j} l[k] a_k(x_i)) · inv_pivot,
 * with a_k(x_i) = rows[k·stride + i]; when mean is not NULL the same pass
 * folds the row into the posterior (μ += a z, σ² −= a², floored at 0).
 * Both modes compute every a_j(x) here, in the same order of operations per
 * candidate whatever the chunk, so the recompute mode reproduces the
 * incremental rows, μ and σ² bit for bit (no contraction: -ffp-contract=off). */
static void ucb_row(const dpbo_ucb *ucb, const ucb_chunk *chunk, const ucb_row_of *row_j,
                    double *mean, double *var, double z) {
  const double *unit = chunk->unit, *rows = chunk->rows;
  const int64_t len = chunk->len;
  const size_t stride = chunk->stride;
  const int j = row_j->j;
  const double *l = row_j->l, *u = row_j->u, inv_pivot = row_j->inv_pivot;
  double *out = row_j->out;
  double *acc = ucb->work, *kx = ucb->work + ucb_work_len(ucb->count);
  /* lᵀ a(x) over the earlier rows: j streams, the step's memory traffic. */
  for (int64_t i = 0; i < len; i++)
    acc[i] = 0.0;
  /* Four rows per pass over acc (same order of additions per candidate as
   * one row at a time, so the same bits), a quarter of the scratch traffic. */
  int k = 0;
  for (; k + 4 <= j; k += 4) {
    const double c0 = l[k], c1 = l[k + 1], c2 = l[k + 2], c3 = l[k + 3];
    const double *r0 = rows + (size_t)k * stride;
    const double *r1 = r0 + stride, *r2 = r1 + stride, *r3 = r2 + stride;
    for (int64_t i = 0; i < len; i++)
      acc[i] = (((acc[i] + c0 * r0[i]) + c1 * r1[i]) + c2 * r2[i]) + c3 * r3[i];
  }
  for (; k < j; k++) {
    const double c = l[k];
    const double *row = rows + (size_t)k * stride;
    for (int64_t i = 0; i < len; i++)
      acc[i] += c * row[i];
  }
  /* k(x, λ_j): r² per candidate, then the kernel in one vectorized pass. */
  dpbo_kernel_r2_block(&ucb->kernel, unit, len, u, kx);
  dpbo_kernel_of_r2_block(&ucb->kernel, kx, kx, len);
  if (mean) {
    for (int64_t i = 0; i < len; i++) {
      double a = (kx[i] - acc[i]) * inv_pivot;
      out[i] = a;
      mean[i] += a * z;
      double v = var[i] - a * a;
      var[i] = v > 0.0 ? v : 0.0;
    }
  } else {
    for (int64_t i = 0; i < len; i++)
      out[i] = (kx[i] - acc[i]) * inv_pivot;
  }
}

dpbo_status dpbo_ucb_update(dpbo_ucb *ucb, const dpbo_gp *gp, const double *u, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int t = dpbo_gp_count(gp); /* observations including the new one */
  if (t != ucb->t + 1)
    DPBO_RAISE(DPBO_ERR_ARG, "UCB state holds %d observations, GP holds %d", ucb->t, t);
  if (t > ucb->capacity) DPBO_RAISE(DPBO_ERR_ARG, "UCB state capacity %d exceeded", ucb->capacity);
  const double *l;
  double pivot, z;
  dpbo_gp_last_row(gp, &l, &pivot, &z);
  const int prev = t - 1;
  const int64_t n = ucb->count;
  const int d = ucb->d;
  int ld;
  const double *factor = dpbo_gp_factor(gp, &ld);
  memcpy(ucb->obs + (size_t)prev * d, u, (size_t)d * sizeof *u);
  const int fuse = !isnan(ucb->fused_beta);
  const double root_beta = fuse ? sqrt(ucb->fused_beta) : 0.0;
  dpbo_ucb_choice best = {-INFINITY, -1};
  const double inv_pivot = 1.0 / pivot;
  for (int64_t start = 0; start < n; start += ucb->chunk) {
    const int64_t len = n - start < ucb->chunk ? n - start : ucb->chunk;
    const double *unit = ucb->unit + (size_t)start * d;
    if (ucb->mode == DPBO_UCB_INCREMENTAL) {
      double *rows = ucb->cross + start;
      const ucb_chunk chunk = {unit, len, rows, (size_t)n};
      const ucb_row_of row = {prev, l, inv_pivot, u, rows + (size_t)prev * (size_t)n};
      ucb_row(ucb, &chunk, &row, ucb->mean + start, ucb->var + start, z);
    } else {
      /* Rows a_1..a_{t-1} of the chunk again, each exactly as its own step
       * computed it (the GP's row j of L and λ_j), then a_t as above. Any
       * other pass over all rows (e.g. μ = Σ_j a_j z_j again after the
       * whitened targets z changed) rebuilds them the same way, chunk by
       * chunk, with mean = NULL. */
      double *rows = ucb->rows;
      const size_t stride = (size_t)ucb->chunk;
      const ucb_chunk chunk = {unit, len, rows, stride};
      for (int j = 0; j < prev; j++) {
        const double *lj = factor + (size_t)j * (size_t)ld;
        const ucb_row_of row = {j, lj, 1.0 / lj[j], ucb->obs + (size_t)j * d,
                                rows + (size_t)j * stride};
        ucb_row(ucb, &chunk, &row, NULL, NULL, 0.0);
      }
      const ucb_row_of row = {prev, l, inv_pivot, u, rows + (size_t)prev * stride};
      ucb_row(ucb, &chunk, &row, ucb->mean + start, ucb->var + start, z);
    }
    if (fuse) ucb_scan(ucb, start, len, root_beta, ucb->work, &best); /* the sums are free again */
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
  const int64_t chunk = ucb_work_len(ucb->count);
  for (int64_t start = 0; start < ucb->count; start += chunk) {
    const int64_t len = ucb->count - start < chunk ? ucb->count - start : chunk;
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
    if (!ucb->pruned[i] && ucb->mean[i] + root_beta * sqrt(ucb->var[i]) < lcb_max)
      ucb->pruned[i] = 1;
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
  if (t != ucb->t)
    DPBO_RAISE(DPBO_ERR_ARG, "UCB state holds %d observations, GP holds %d", ucb->t, t);
  const double *z = dpbo_gp_whitened_targets(gp);
  const int64_t n = ucb->count;
  const int d = ucb->d;
  int ld;
  const double *factor = dpbo_gp_factor(gp, &ld);
  for (int64_t start = 0; start < n; start += ucb->chunk) {
    const int64_t len = n - start < ucb->chunk ? n - start : ucb->chunk;
    const double *rows = ucb->cross + start;
    size_t stride = (size_t)n;
    if (ucb->mode == DPBO_UCB_RECOMPUTE) {
      /* The rows of the chunk again, as their updates computed them. */
      const double *unit = ucb->unit + (size_t)start * d;
      stride = (size_t)ucb->chunk;
      const ucb_chunk chunk = {unit, len, ucb->rows, stride};
      for (int j = 0; j < t; j++) {
        const double *lj = factor + (size_t)j * (size_t)ld;
        const ucb_row_of row = {j, lj, 1.0 / lj[j], ucb->obs + (size_t)j * d,
                                ucb->rows + (size_t)j * stride};
        ucb_row(ucb, &chunk, &row, NULL, NULL, 0.0);
      }
      rows = ucb->rows;
    }
    double *mean = ucb->mean + start;
    for (int64_t i = 0; i < len; i++)
      mean[i] = 0.0;
    for (int j = 0; j < t; j++) {
      const double c = z[j];
      const double *row = rows + (size_t)j * stride;
      for (int64_t i = 0; i < len; i++)
        mean[i] += c * row[i];
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
    int a_better = a[i].score > b[i].score || (a[i].score == b[i].score && a[i].index >= 0 &&
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
  DPBO_MPI_TRY(MPI_Type_create_struct(2, blocklens, displs, types, &type));
  DPBO_MPI_TRY(MPI_Type_commit(&type));
  DPBO_MPI_TRY(MPI_Op_create(ucb_choice_max, 1, &op));
  DPBO_MPI_TRY(MPI_Allreduce(choice, &result, 1, type, op, comm));
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
  return dpbo_ucb_memory_needed(ucb->count, ucb->d, ucb->capacity, ucb->mode) +
         (ucb->pruned ? (size_t)ucb->count : 0);
}
