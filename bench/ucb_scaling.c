/* ucb_scaling: the constants of docs/scaling.md's cost model of one GP-UCB
 * step, measured on this machine.
 *
 * 1. Computation. Inside real GP-UCB loops (bench/ucb_step's problem: the
 *    first N points of the 2-D Sobol sequence, Matérn-5/2 with ℓ = 0.2,
 *    gain -branin) the time of step t — dpbo_ucb_update folding observation t
 *    into the block (with the next selection's scan fused in, as the driver
 *    does) — on the slowest rank, median over repetitions, for a grid of N
 *    and t, in both modes of the UCB state (ucb.h). The CPU time of the
 *    rank's thread is the measure (the machine is shared: wall time also
 *    counts the time other processes hold the core); wall time is printed
 *    beside it:
 *      incremental: ∝ t·N/P, printed as ns per (candidate · observation);
 *      recompute:   ∝ t²·N/P, printed as ns per (candidate · observation²).
 *    Least squares then fit, over all rows of a mode, the model of its
 *    per-candidate cost:
 *      incremental: time / (N/P) = c_row · t + c_0
 *      recompute:   time / (N/P) = c_fma · t(t-1)/2 + c_kernel · t
 *    (row t reads t-1 earlier rows and evaluates one kernel value; in
 *    recompute mode every step rebuilds rows 1..t).
 * 2. Communication. The collectives of a step, each timed over many calls
 *    after a warm-up: the MAXLOC reduction of the selection
 *    (dpbo_ucb_reduce: a (score, index) pair with a user operator), the
 *    broadcast of an evaluation result (1,072 bytes, the driver's
 *    eval_result), and for reference MPI_Allreduce of one double and
 *    MPI_Barrier. Median and minimum per call, in µs.
 * 3. Load. /proc/loadavg before and after: the machine is shared, so the
 *    figures are as noisy as that says; compare ratios within one run.
 *
 * Run: mpiexec -n P ucb_scaling [--n 1e5,1e6,4e6] [--t 10,20,40,80]
 *      [--modes incremental,recompute] [--reps 3] [--calls 2000]
 * Only rank 0 prints. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpbo/error.h"
#include "dpbo/gp.h"
#include "dpbo/kernel.h"
#include "dpbo/space.h"
#include "objectives/synthetic.h"
#include "dpbo/privacy.h"
#include "dpbo/ucb.h"

enum { MAX_LIST = 16, D = 2, RESULT_BYTES = 1072 };

typedef struct options {
  int64_t n[MAX_LIST];
  int n_count;
  int t[MAX_LIST];
  int t_count;
  int modes[2];
  int mode_count;
  int reps;
  int calls;
} options;

static int parse_list(const char *text, int64_t *out, int max) {
  int count = 0;
  const char *p = text;
  while (*p) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno || !(v >= 1) || v > 9e15 || v != floor(v) || count == max) return -1;
    out[count++] = (int64_t)v;
    if (*end == ',')
      end++;
    else if (*end)
      return -1;
    p = end;
  }
  return count;
}

static int parse_options(int argc, char **argv, options *o, int rank) {
  memset(o, 0, sizeof *o);
  const int64_t n_default[] = {100000, 1000000, 4000000};
  const int t_default[] = {10, 20, 40, 80};
  o->n_count = 3;
  memcpy(o->n, n_default, sizeof n_default);
  o->t_count = 4;
  memcpy(o->t, t_default, sizeof t_default);
  o->modes[0] = DPBO_UCB_INCREMENTAL, o->modes[1] = DPBO_UCB_RECOMPUTE, o->mode_count = 2;
  o->reps = 3;
  o->calls = 2000;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (strcmp(a, "--help") == 0) {
      if (rank == 0)
        printf("usage: mpiexec -n P ucb_scaling [--n LIST] [--t LIST] [--modes "
               "incremental,recompute]\n"
               "                                [--reps R] [--calls C]\n");
      return 1;
    } else if (v && strcmp(a, "--n") == 0) {
      o->n_count = parse_list(v, o->n, MAX_LIST);
      bad = o->n_count < 1;
      i++;
    } else if (v && strcmp(a, "--t") == 0) {
      int64_t t[MAX_LIST];
      o->t_count = parse_list(v, t, MAX_LIST);
      bad = o->t_count < 1;
      for (int k = 0; k < o->t_count && !bad; k++) {
        bad = t[k] > 100000;
        o->t[k] = (int)t[k];
      }
      i++;
    } else if (v && strcmp(a, "--modes") == 0) {
      o->mode_count = 0;
      bad = !(strstr(v, "incremental") || strstr(v, "recompute"));
      if (strstr(v, "incremental")) o->modes[o->mode_count++] = DPBO_UCB_INCREMENTAL;
      if (strstr(v, "recompute")) o->modes[o->mode_count++] = DPBO_UCB_RECOMPUTE;
      i++;
    } else if (v && strcmp(a, "--reps") == 0) {
      o->reps = atoi(v);
      bad = o->reps < 1;
      i++;
    } else if (v && strcmp(a, "--calls") == 0) {
      o->calls = atoi(v);
      bad = o->calls < 10;
      i++;
    } else {
      bad = 1;
    }
    if (bad) {
      if (rank == 0) fprintf(stderr, "ucb_scaling: bad option or value: %s %s\n", a, v ? v : "");
      return 2;
    }
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void loadavg(char *buf, size_t size) {
  FILE *f = fopen("/proc/loadavg", "r");
  buf[0] = '\0';
  if (f && fgets(buf, (int)size, f)) buf[strcspn(buf, "\n")] = '\0';
  if (f) fclose(f);
}

static dpbo_status problem_create(int64_t n, dpbo_space **space, dpbo_kernel *kernel,
                                  dpbo_gp_prior *prior, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_dim dims[D] = {{"x1", -5.0, 10.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""},
                            {"x2", 0.0, 15.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""}};
  const double ls[D] = {0.2, 0.2};
  DPBO_TRY(dpbo_space_create_sobol(D, dims, n, space, err));
  DPBO_TRY(dpbo_kernel_init(kernel, DPBO_KERNEL_MATERN52, D, ls, err));
  prior->mean = -50.0;
  prior->signal_std = 50.0;
  prior->noise_std = 0.05;
  prior->jitter = 0.0;
done:
  return status;
}

/* CPU time of this thread: what the update costs, without the time the
 * shared machine's other processes hold the core. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One GP-UCB loop of `steps` steps in `mode`; update_s[t-1] = the CPU time
 * of step t's update on the slowest rank, update_s[steps + t-1] its wall
 * time there. */
static dpbo_status loop_times(MPI_Comm comm, const dpbo_space *space, const dpbo_kernel *kernel,
                              const dpbo_gp_prior *prior, int64_t begin, int64_t count,
                              dpbo_ucb_mode mode, int steps, double *update_s, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_ucb *ucb = NULL;
  dpbo_gp *gp = NULL;
  double *local = NULL;
  const int64_t n = dpbo_space_size(space);
  int rank;
  MPI_Comm_rank(comm, &rank);
  DPBO_ALLOC(local, 2 * (size_t)steps, "step times");
  DPBO_TRY(dpbo_gp_create(kernel, prior, steps, &gp, err));
  DPBO_TRY(dpbo_ucb_create_mode(&(dpbo_space_range){space, begin, count}, kernel, steps, mode, &ucb,
                                err));
  dpbo_ucb_choice choice;
  DPBO_TRY(dpbo_ucb_select(comm, ucb, dpbo_privacy_beta(n, 1, 0.05), &choice, err));
  for (int t = 1; t <= steps; t++) {
    double u[D], x[D], gain = 0.0;
    DPBO_TRY(dpbo_space_unit(space, choice.index, u, err));
    if (rank == 0) {
      dpbo_space_to_values(space, u, x);
      gain = -dpbo_branin(x);
    }
    MPI_Bcast(&gain, 1, MPI_DOUBLE, 0, comm);
    DPBO_TRY(dpbo_gp_append(gp, u, gain, err));
    MPI_Barrier(comm);
    double start = MPI_Wtime(), cpu_start = cpu_now();
    dpbo_ucb_prepare_select(ucb, dpbo_privacy_beta(n, t + 1, 0.05));
    DPBO_TRY(dpbo_ucb_update(ucb, gp, u, err));
    local[t - 1] = cpu_now() - cpu_start;
    local[steps + t - 1] = MPI_Wtime() - start;
    DPBO_TRY(dpbo_ucb_select(comm, ucb, dpbo_privacy_beta(n, t + 1, 0.05), &choice, err));
  }
  if (MPI_Allreduce(local, update_s, 2 * steps, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "reduction of the step times failed");
done:
  dpbo_ucb_destroy(ucb);
  dpbo_gp_destroy(gp);
  free(local);
  return status;
}

/* Least squares for y ≈ a·x1 + b·x2 (2 x 2 normal equations), with weights
 * 1/y² so that each row counts by its relative error. */
static void fit2(const double *x1, const double *x2, const double *y, int n, double *a, double *b) {
  double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
  for (int i = 0; i < n; i++) {
    double w = 1.0 / (y[i] * y[i]);
    s11 += w * x1[i] * x1[i];
    s12 += w * x1[i] * x2[i];
    s22 += w * x2[i] * x2[i];
    s1y += w * x1[i] * y[i];
    s2y += w * x2[i] * y[i];
  }
  double det = s11 * s22 - s12 * s12;
  *a = (s1y * s22 - s2y * s12) / det;
  *b = (s11 * s2y - s12 * s1y) / det;
}

typedef struct row {
  int64_t n;
  int mode, t;
  double ms, wall_ms, per_cand_ns; /* ms: CPU time */
} row;

/* Per-call time of `op` over `calls` calls after calls/10 warm-up calls:
 * median and minimum over batches of 10 calls, slowest rank, in µs. */
typedef void (*comm_op)(MPI_Comm comm, void *buf);

static void op_maxloc(MPI_Comm comm, void *buf) {
  dpbo_ucb_choice *c = buf;
  dpbo_error err;
  dpbo_ucb_reduce(comm, c, &err);
}
static void op_bcast(MPI_Comm comm, void *buf) { MPI_Bcast(buf, RESULT_BYTES, MPI_BYTE, 0, comm); }
static void op_allreduce(MPI_Comm comm, void *buf) {
  double x = *(double *)buf, y;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, comm);
}
static void op_barrier(MPI_Comm comm, void *buf) {
  (void)buf;
  MPI_Barrier(comm);
}

static void time_op(MPI_Comm comm, comm_op op, int calls, double *median_us, double *min_us) {
  enum { BATCH = 10 };
  char buf[RESULT_BYTES];
  memset(buf, 0, sizeof buf);
  int rank;
  MPI_Comm_rank(comm, &rank);
  dpbo_ucb_choice *choice = (dpbo_ucb_choice *)(void *)buf;
  choice->score = rank;
  choice->index = rank;
  for (int i = 0; i < calls / 10; i++)
    op(comm, buf);
  const int batches = calls / BATCH;
  double *t = malloc((size_t)batches * sizeof *t);
  if (!t) {
    *median_us = *min_us = NAN;
    return;
  }
  for (int b = 0; b < batches; b++) {
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    for (int i = 0; i < BATCH; i++)
      op(comm, buf);
    double local = (MPI_Wtime() - start) / BATCH, slowest;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    t[b] = slowest * 1e6;
  }
  *median_us = median(t, batches);
  *min_us = t[0]; /* sorted by median() */
  free(t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  dpbo_error error, *err = &error;
  dpbo_error_clear(err);
  dpbo_status status = DPBO_OK;
  options o;
  row *rows = NULL;
  double *times = NULL, *samples = NULL;
  int code = parse_options(argc, argv, &o, rank);
  if (code) {
    MPI_Finalize();
    return code == 1 ? 0 : 2;
  }
  char load_before[128], load_after[128];
  loadavg(load_before, sizeof load_before);
  int tmax = 0;
  for (int k = 0; k < o.t_count; k++)
    tmax = o.t[k] > tmax ? o.t[k] : tmax;
  DPBO_ALLOC(rows, (size_t)o.n_count * o.t_count * 2, "rows");
  DPBO_ALLOC(times, 2 * (size_t)tmax, "step times");
  DPBO_ALLOC(samples, 2 * (size_t)tmax * o.reps, "samples");
  int row_count = 0;

  /* 2. Communication first, while no state occupies memory. */
  static const struct {
    const char *name;
    comm_op op;
  } ops[] = {{"MAXLOC reduction of the selection (dpbo_ucb_reduce)", op_maxloc},
             {"MPI_Bcast of an evaluation result (1,072 bytes)", op_bcast},
             {"MPI_Allreduce of one double", op_allreduce},
             {"MPI_Barrier", op_barrier}};
  double comm_median[4], comm_min[4];
  for (int k = 0; k < 4; k++)
    time_op(comm, ops[k].op, o.calls, &comm_median[k], &comm_min[k]);

  /* 1. Computation. */
  for (int m = 0; m < o.mode_count; m++) {
    const dpbo_ucb_mode mode = (dpbo_ucb_mode)o.modes[m];
    for (int in = 0; in < o.n_count; in++) {
      const int64_t n = o.n[in];
      dpbo_space *space = NULL;
      dpbo_kernel kernel;
      dpbo_gp_prior prior;
      int64_t begin, count;
      dpbo_space_block(n, size, rank, &begin, &count);
      DPBO_TRY(problem_create(n, &space, &kernel, &prior, err));
      if (rank == 0)
        fprintf(stderr, "ucb_scaling: %s, N = %lld, %d + 1 loops of %d steps ...\n",
                dpbo_ucb_mode_name(mode), (long long)n, o.reps, tmax);
      /* A short warm-up loop (code, page cache of the allocator), then reps. */
      status = loop_times(comm, space, &kernel, &prior, begin, count, mode, tmax < 3 ? tmax : 3,
                          times, err);
      for (int r = 0; r < o.reps && status == DPBO_OK; r++) {
        status = loop_times(comm, space, &kernel, &prior, begin, count, mode, tmax, times, err);
        for (int t = 0; t < 2 * tmax; t++)
          samples[(size_t)t * o.reps + r] = times[t];
      }
      dpbo_space_destroy(space);
      if (status != DPBO_OK) goto done;
      const double block = (double)((n + size - 1) / size);
      for (int k = 0; k < o.t_count; k++) {
        const int t = o.t[k];
        row *r = &rows[row_count++];
        r->n = n;
        r->mode = mode;
        r->t = t;
        r->ms = 1e3 * median(samples + (size_t)(t - 1) * o.reps, o.reps);
        r->wall_ms = 1e3 * median(samples + (size_t)(tmax + t - 1) * o.reps, o.reps);
        r->per_cand_ns = 1e6 * r->ms / block;
      }
    }
  }
  loadavg(load_after, sizeof load_after);

  if (rank == 0) {
    printf("ucb_scaling: P = %d rank%s; load average before: %s; after: %s\n\n", size,
           size == 1 ? "" : "s", load_before, load_after);
    printf("Step time (dpbo_ucb_update of observation t, next selection's scan fused in), "
           "slowest rank, median of %d loops:\n  CPU time of the rank's thread (the cost, without "
           "the time other processes held the core), and wall time\n",
           o.reps);
    printf("  %-11s %9s %3s %4s | %10s %10s | %16s %17s\n", "mode", "N", "P", "t", "cpu ms",
           "wall ms", "ns/(cand*obs)", "ns/(cand*obs^2)");
    printf("  ----------- --------- --- ---- + ---------- ---------- + ---------------- "
           "-----------------\n");
    for (int i = 0; i < row_count; i++) {
      const row *r = &rows[i];
      printf("  %-11s %9lld %3d %4d | %10.3f %10.3f | %16.3f %17.4f\n",
             dpbo_ucb_mode_name((dpbo_ucb_mode)r->mode), (long long)r->n, size, r->t, r->ms,
             r->wall_ms, r->per_cand_ns / r->t, r->per_cand_ns / ((double)r->t * r->t));
    }
    printf("\nFits over all rows of a mode (time per candidate of the block, ns):\n");
    for (int m = 0; m < o.mode_count; m++) {
      double x1[MAX_LIST * MAX_LIST], x2[MAX_LIST * MAX_LIST], y[MAX_LIST * MAX_LIST];
      int k = 0;
      for (int i = 0; i < row_count; i++) {
        if (rows[i].mode != o.modes[m]) continue;
        const double t = rows[i].t;
        if (o.modes[m] == DPBO_UCB_INCREMENTAL) {
          x1[k] = t;
          x2[k] = 1.0;
        } else {
          x1[k] = t * (t - 1) / 2;
          x2[k] = t;
        }
        y[k++] = rows[i].per_cand_ns;
      }
      if (k < 2) continue;
      double a, b;
      fit2(x1, x2, y, k, &a, &b);
      double worst = 0.0;
      for (int i = 0; i < k; i++)
        worst = fmax(worst, fabs(a * x1[i] + b * x2[i] - y[i]) / y[i]);
      if (o.modes[m] == DPBO_UCB_INCREMENTAL)
        printf("  incremental: %.3f ns x t + %.3f ns   (c_row, c_0; worst row off by %.0f%%)\n", a,
               b, 100 * worst);
      else
        printf(
            "  recompute:   %.3f ns x t(t-1)/2 + %.3f ns x t   (c_fma, c_kernel; worst row off by "
            "%.0f%%)\n",
            a, b, 100 * worst);
    }
    printf("\nCollectives on %d rank%s (per call, slowest rank; median and minimum over batches of "
           "10 calls, %d calls)\n",
           size, size == 1 ? "" : "s", o.calls);
    for (int k = 0; k < 4; k++)
      printf("  %-52s median %8.2f us   min %8.2f us\n", ops[k].name, comm_median[k], comm_min[k]);
    fflush(stdout);
  }
done:
  if (status != DPBO_OK) {
    fprintf(stderr, "ucb_scaling: error (rank %d): %s\n", rank, err->message);
    MPI_Abort(comm, 1);
  }
  free(rows);
  free(times);
  free(samples);
  MPI_Finalize();
  return status == DPBO_OK ? 0 : 1;
}
