/* ucb_step: how fast is one distributed GP-UCB step, how close does it come
 * to the memory-bandwidth bound, and how does a whole GP-UCB loop compare
 * with scikit-learn on the same problem.
 *
 * Problem (shared with bench/sklearn_ucb.py): Λ = the first N points of the
 * unscrambled 2-D Sobol sequence on x1 ∈ [-5, 10], x2 ∈ [0, 15]; kernel
 * Matérn-5/2 with ℓ = 0.2 on unit coordinates; gain v = -branin(x); prior
 * m0 = -50, s = 50, σ = 0.05 (nugget (σ/s)² = 1e-6); δ = 0.05 in β_t.
 *
 * 1. Step time. A step is dpbo_ucb_update (fold observation t into the
 *    block: read rows a_1..a_{t-1}, write a_t, update μ and σ²) followed by
 *    dpbo_ucb_select (local argmax and one Allreduce). It is timed at chosen
 *    t inside real GP-UCB loops, as the maximum over ranks, median over
 *    repetitions after one warm-up loop. Reported per candidate and
 *    observation, time / (t · N/P), and in ms.
 * 2. Bound. A STREAM-like triad a = b + s·c on arrays far larger than the
 *    caches, all ranks at once, best of several runs, 24 bytes per element,
 *    gives the bandwidth one rank gets while the others stream too. A step
 *    must move at least (8 t + 32) bytes per candidate of its block: t - 1
 *    rows read and one written, μ and σ² read and written. The bound is
 *    those bytes over the triad bandwidth; the coordinates (8 d bytes) and
 *    the select pass over μ and σ² (16 bytes) are not counted, so the bound
 *    is optimistic and the ratio measured/bound errs high. Alongside, the
 *    time of the kernel column alone over a block (one k(λ_t, x) per
 *    candidate and step, computed as dpbo_ucb_update does) and the select
 *    part of the step show the compute floor that no bandwidth lowers.
 * 3. Against scikit-learn. Rank 0 runs `python3 bench/sklearn_ucb.py`, a
 *    GP-UCB loop that refits GaussianProcessRegressor and predicts over all N
 *    candidates every step, while the other ranks sleep; then all ranks run
 *    the same T-step loop with dpbo (objective evaluations included) from a
 *    cold start, and the speed-ups are printed with a check that both loops
 *    chose the same points.
 *
 * Every loop allocates its UCB state afresh, as a run does, so each step
 * also pays the first touch of its new row (few faults: ucb.c backs the
 * rows with transparent huge pages); the warm-up loop warms code and caches.
 *
 * Run: mpiexec -n P ucb_step [--n 1e4,1e5,1e6] [--large] [--t 10,20,30] ...
 * (--help lists the options). Only rank 0 prints. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dpbo/error.h"
#include "dpbo/gp.h"
#include "dpbo/kernel.h"
#include "dpbo/space.h"
#include "objectives/synthetic.h"
#include "dpbo/privacy.h"
#include "dpbo/ucb.h"

#ifndef DPBO_SOURCE_DIR
#define DPBO_SOURCE_DIR "."
#endif
#ifndef DPBO_BENCH_BUILD_TYPE
#define DPBO_BENCH_BUILD_TYPE "unknown"
#endif

enum { MAX_LIST = 16, D = 2 };

/* The problem shared with bench/sklearn_ucb.py. */
static const double PROBLEM_LENGTHSCALE = 0.2;
static const double PROBLEM_MEAN = -50.0;
static const double PROBLEM_SCALE = 50.0;
static const double PROBLEM_NOISE = 0.05;
static const double PROBLEM_DELTA = 0.05;

typedef struct bench_options {
  int64_t n[MAX_LIST];
  int n_count;
  int t[MAX_LIST];
  int t_count;
  int reps;
  int64_t compare_n;
  int compare_T;
  int sklearn;
  int compare;
  const char *python;
  double triad_mib;
  int triad_reps;
} bench_options;

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

static const char *fmt_n(int64_t n, char *buf, size_t size) {
  int64_t p = 1;
  for (int e = 0; e <= 18; e++, p *= 10)
    if (n == p) {
      snprintf(buf, size, "1e%d", e);
      return buf;
    }
  snprintf(buf, size, "%lld", (long long)n);
  return buf;
}

/* Table rules: '-' for blanks of the header, '+' under its '|'. */
#define RULE_STEPS                                                                                 \
  "------ --- ---- ---- | --------- --------- ------------- | -------- --------- --------------"
#define RULE_LOOPS "---------------------------- | --------- --------- ------------ | ------------"
static const char *rule(const char *pattern) {
  static char buf[256];
  size_t i = 0;
  for (; pattern[i] && i + 1 < sizeof buf; i++)
    buf[i] = pattern[i] == '|' ? '+' : '-';
  buf[i] = '\0';
  return buf;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, int n) {
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) return NAN;
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

static int parse_int64_list(const char *text, int64_t *out, int max) {
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

/* Waits at a barrier without spinning: the ranks that are not running the
 * Python loop must leave its process the cores. */
static void sleepy_barrier(MPI_Comm comm) {
  MPI_Request req;
  int done = 0;
  MPI_Ibarrier(comm, &req);
  struct timespec nap = {0, 5000000};
  while (!done) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&nap, NULL);
  }
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: mpiexec -n P ucb_step [options]\n"
          "  --n LIST          candidate counts N (default 1e4,1e5,1e6; 1e7 added by --large)\n"
          "  --large           add N = 1e7 to the default list (needs ~2.4 GB / P per rank)\n"
          "  --t LIST          observation counts t at which a step is timed (default 10,20,30)\n"
          "  --reps R          repetitions per N after one warm-up loop (default 5;\n"
          "                    4R for N <= 1e5, max(2, R/2) for N >= 1e7); median reported\n"
          "  --compare-n N     candidates of the loop against scikit-learn (default 1e6)\n"
          "  --T T             iterations of that loop (default 30)\n"
          "  --no-sklearn      do not run the scikit-learn loop\n"
          "  --no-compare      run neither comparison loop\n"
          "  --python PATH     interpreter for bench/sklearn_ucb.py (default $DPBO_PYTHON,\n"
          "                    else /usr/bin/python3 when present, else python3)\n"
          "  --triad-mib M     MiB per triad array per rank (default 256)\n"
          "  --help\n");
}

/* Returns 0 to run, 1 to exit successfully (help), 2 on a usage error. */
static int parse_options(int argc, char **argv, bench_options *o, int rank) {
  int large = 0, n_given = 0;
  memset(o, 0, sizeof *o);
  o->t[0] = 10, o->t[1] = 20, o->t[2] = 30, o->t_count = 3;
  o->reps = 5;
  o->compare_n = 1000000;
  o->compare_T = 30;
  o->sklearn = 1;
  o->compare = 1;
  o->triad_mib = 256;
  o->triad_reps = 10;
  const char *env = getenv("DPBO_PYTHON");
  o->python = env && *env                             ? env
              : access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3"
                                                      : "python3";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      if (rank == 0) usage(stdout);
      return 1;
    } else if (strcmp(a, "--large") == 0) {
      large = 1;
    } else if (strcmp(a, "--no-sklearn") == 0) {
      o->sklearn = 0;
    } else if (strcmp(a, "--no-compare") == 0) {
      o->compare = 0;
      o->sklearn = 0;
    } else if (v && strcmp(a, "--n") == 0) {
      o->n_count = parse_int64_list(v, o->n, MAX_LIST);
      bad = o->n_count < 1;
      n_given = 1;
      i++;
    } else if (v && strcmp(a, "--t") == 0) {
      int64_t t[MAX_LIST];
      o->t_count = parse_int64_list(v, t, MAX_LIST);
      bad = o->t_count < 1;
      for (int k = 0; k < o->t_count && !bad; k++) {
        bad = t[k] > 100000;
        o->t[k] = (int)t[k];
      }
      i++;
    } else if (v && strcmp(a, "--reps") == 0) {
      o->reps = atoi(v);
      bad = o->reps < 1;
      i++;
    } else if (v && strcmp(a, "--compare-n") == 0) {
      bad = parse_int64_list(v, &o->compare_n, 1) != 1;
      i++;
    } else if (v && strcmp(a, "--T") == 0) {
      o->compare_T = atoi(v);
      bad = o->compare_T < 1 || o->compare_T > 100000;
      i++;
    } else if (v && strcmp(a, "--python") == 0) {
      o->python = v;
      i++;
    } else if (v && strcmp(a, "--triad-mib") == 0) {
      o->triad_mib = atof(v);
      bad = !(o->triad_mib >= 1);
      i++;
    } else {
      bad = 1;
    }
    if (bad) {
      if (rank == 0) {
        fprintf(stderr, "ucb_step: bad option or value: %s%s%s\n", a, v ? " " : "", v ? v : "");
        usage(stderr);
      }
      return 2;
    }
  }
  if (!n_given) {
    o->n[0] = 10000, o->n[1] = 100000, o->n[2] = 1000000, o->n_count = 3;
    if (large) o->n[o->n_count++] = 10000000;
  } else if (large && o->n_count < MAX_LIST) {
    o->n[o->n_count++] = 10000000;
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The problem                                                              */

static dpbo_status problem_create(int64_t n, dpbo_space **space, dpbo_kernel *kernel,
                                  dpbo_gp_prior *prior, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_dim dims[D] = {{"x1", -5.0, 10.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""},
                            {"x2", 0.0, 15.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""}};
  const double ls[D] = {PROBLEM_LENGTHSCALE, PROBLEM_LENGTHSCALE};
  DPBO_TRY(dpbo_space_create_sobol(D, dims, n, space, err));
  DPBO_TRY(dpbo_kernel_init(kernel, DPBO_KERNEL_MATERN52, D, ls, err));
  prior->mean = PROBLEM_MEAN;
  prior->signal_std = PROBLEM_SCALE;
  prior->noise_std = PROBLEM_NOISE;
  prior->jitter = 0.0;
done:
  return status;
}

/* Evaluates the objective at candidate `index` on rank 0 and broadcasts the
 * gain, as the driver does with a worker's result; every rank gets u. */
static dpbo_status problem_observe(MPI_Comm comm, const dpbo_space *space, int64_t index, double *u,
                                   double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank;
  MPI_Comm_rank(comm, &rank);
  DPBO_TRY(dpbo_space_unit(space, index, u, err));
  if (rank == 0) {
    double x[D];
    dpbo_space_to_values(space, u, x);
    *gain = -dpbo_branin(x);
  }
  if (MPI_Bcast(gain, 1, MPI_DOUBLE, 0, comm) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "broadcast of the gain failed");
done:
  return status;
}

/* ------------------------------------------------------------------------ */
/* 1. Step times inside a GP-UCB loop                                        */

/* Runs `steps` GP-UCB steps on this rank's block and stores in step_s[2(t-1)]
 * the time of step t (update with observation t, then select λ_{t+1}), the
 * maximum over ranks, and in step_s[2(t-1)+1] the select part alone, the
 * minimum over ranks: on the fastest ranks select also waits in its
 * Allreduce for the slowest one, which is load imbalance, not select. */
static dpbo_status loop_step_times(MPI_Comm comm, const dpbo_space *space,
                                   const dpbo_kernel *kernel, const dpbo_gp_prior *prior,
                                   int64_t begin, int64_t count, int steps, double *step_s,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_ucb *ucb = NULL;
  dpbo_gp *gp = NULL;
  double *local = NULL, *select_min = NULL;
  const int64_t n = dpbo_space_size(space);
  DPBO_ALLOC(local, 2 * (size_t)steps, "step times");
  DPBO_ALLOC(select_min, 2 * (size_t)steps, "step times");
  DPBO_TRY(dpbo_gp_create(kernel, prior, steps, &gp, err));
  DPBO_TRY(dpbo_ucb_create(&(dpbo_space_range){space, begin, count}, kernel, steps, &ucb, err));
  dpbo_ucb_choice choice;
  DPBO_TRY(dpbo_ucb_select(comm, ucb, dpbo_privacy_beta(n, 1, PROBLEM_DELTA), &choice, err));
  for (int t = 1; t <= steps; t++) {
    double u[D], gain = 0.0;
    DPBO_TRY(problem_observe(comm, space, choice.index, u, &gain, err));
    DPBO_TRY(dpbo_gp_append(gp, u, gain, err));
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    /* As the driver does: the update also scans for the next selection. */
    dpbo_ucb_prepare_select(ucb, dpbo_privacy_beta(n, t + 1, PROBLEM_DELTA));
    DPBO_TRY(dpbo_ucb_update(ucb, gp, u, err));
    double mid = MPI_Wtime();
    DPBO_TRY(dpbo_ucb_select(comm, ucb, dpbo_privacy_beta(n, t + 1, PROBLEM_DELTA), &choice, err));
    double end = MPI_Wtime();
    local[2 * (t - 1)] = end - start;
    local[2 * (t - 1) + 1] = end - mid;
  }
  if (MPI_Allreduce(local, step_s, 2 * steps, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS ||
      MPI_Allreduce(local, select_min, 2 * steps, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS)
    DPBO_RAISE(DPBO_ERR_MPI, "reduction of the step times failed");
  for (int t = 0; t < steps; t++)
    step_s[2 * t + 1] = select_min[2 * t + 1];
done:
  dpbo_ucb_destroy(ucb);
  dpbo_gp_destroy(gp);
  free(local);
  free(select_min);
  return status;
}

/* ------------------------------------------------------------------------ */
/* 2. Triad bandwidth                                                        */

/* Best-of-reps triad over all ranks at once; returns one rank's bandwidth in
 * bytes per second (24 bytes per element over the slowest rank's time). */
static dpbo_status triad_bandwidth(MPI_Comm comm, size_t n, int reps, double *bytes_per_s,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *a = NULL, *b = NULL, *c = NULL;
  DPBO_ALLOC(a, n, "triad array a");
  DPBO_ALLOC(b, n, "triad array b");
  DPBO_ALLOC(c, n, "triad array c");
  for (size_t i = 0; i < n; i++) { /* first touch outside the timing */
    a[i] = 0.0;
    b[i] = 1.0 + (double)(i & 7);
    c[i] = 2.0 - (double)(i & 3);
  }
  double best = INFINITY;
  for (int r = 0; r <= reps; r++) { /* r = 0 is a warm-up */
    const double s = 0.5 + 0.125 * (r & 3);
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    for (size_t i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
    double local = MPI_Wtime() - start, slowest;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (r > 0 && slowest < best) best = slowest;
  }
  volatile double sink = a[n / 2] + a[n - 1]; /* keeps the stores alive */
  (void)sink;
  *bytes_per_s = 24.0 * (double)n / best;
done:
  free(a);
  free(b);
  free(c);
  return status;
}

/* The part of a step that does not depend on t and is computed, not
 * streamed: one kernel value k(λ_t, x) per candidate, computed as the update
 * does (dpbo_kernel_r2_block, then dpbo_kernel_of_r2_block over a chunk). Best
 * of reps, ns per candidate on the slowest rank, all ranks at once. */
static dpbo_status kernel_cost(MPI_Comm comm, const dpbo_space *space, const dpbo_kernel *kernel,
                               int64_t begin, int64_t count, int reps, double *ns_per,
                               dpbo_error *err) {
  enum { CHUNK = 1024 };
  dpbo_status status = DPBO_OK;
  double *unit = NULL, kx[CHUNK];
  DPBO_ALLOC(unit, (size_t)count * D, "candidate coordinates");
  for (int64_t i = 0; i < count; i++)
    DPBO_TRY(dpbo_space_unit(space, begin + i, unit + (size_t)i * D, err));
  const double u[D] = {0.3, 0.7};
  double best = INFINITY, sum = 0.0;
  for (int r = 0; r <= reps; r++) {
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    for (int64_t s0 = 0; s0 < count; s0 += CHUNK) {
      const int64_t len = count - s0 < CHUNK ? count - s0 : CHUNK;
      dpbo_kernel_r2_block(kernel, unit + (size_t)s0 * D, len, u, kx);
      dpbo_kernel_of_r2_block(kernel, kx, kx, len);
      sum += kx[0];
    }
    double local = MPI_Wtime() - start, slowest;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (r > 0 && slowest < best) best = slowest;
  }
  volatile double sink = sum;
  (void)sink;
  *ns_per = 1e9 * best / (double)(count > 0 ? count : 1);
done:
  free(unit);
  return status;
}

/* ------------------------------------------------------------------------ */
/* 3. Whole loops: scikit-learn and dpbo                                     */

typedef struct loop_result {
  int ok;
  char version[64];
  double setup_s, loop_s, last_s, best_gain;
  int64_t *indices; /* T entries */
  int steps;
} loop_result;

/* Rank 0 runs bench/sklearn_ucb.py and parses its "key value" lines. */
static void sklearn_run(const bench_options *o, const dpbo_gp_prior *prior, loop_result *res) {
  char cmd[8192];
  double nugget = (prior->noise_std / prior->signal_std) * (prior->noise_std / prior->signal_std);
  snprintf(cmd, sizeof cmd,
           "'%s' '%s/bench/sklearn_ucb.py' --n %lld --T %d --lengthscale %.17g --nugget %.17g "
           "--mean %.17g --scale %.17g --delta %.17g",
           o->python, DPBO_SOURCE_DIR, (long long)o->compare_n, o->compare_T, PROBLEM_LENGTHSCALE,
           nugget, prior->mean, prior->signal_std, PROBLEM_DELTA);
  fflush(NULL);
  FILE *pipe = popen(cmd, "r");
  if (!pipe) {
    fprintf(stderr, "ucb_step: cannot start %s: %s\n", o->python, strerror(errno));
    return;
  }
  static char line[1 << 20];
  int have = 0;
  while (fgets(line, sizeof line, pipe)) {
    char key[64];
    int used = 0;
    if (sscanf(line, "%63s %n", key, &used) != 1) continue;
    const char *val = line + used;
    if (strcmp(key, "sklearn_version") == 0) {
      sscanf(val, "%63s", res->version);
      have |= 1;
    } else if (strcmp(key, "setup_seconds") == 0) {
      have |= 2 * (sscanf(val, "%lf", &res->setup_s) == 1);
    } else if (strcmp(key, "loop_seconds") == 0) {
      have |= 4 * (sscanf(val, "%lf", &res->loop_s) == 1);
    } else if (strcmp(key, "last_step_seconds") == 0) {
      have |= 8 * (sscanf(val, "%lf", &res->last_s) == 1);
    } else if (strcmp(key, "best_gain") == 0) {
      sscanf(val, "%lf", &res->best_gain);
    } else if (strcmp(key, "indices") == 0) {
      const char *p = val;
      res->steps = 0;
      while (res->steps < o->compare_T && *p && *p != '\n') {
        char *end;
        long long idx = strtoll(p, &end, 10);
        if (end == p) break;
        res->indices[res->steps++] = idx;
        p = *end == ',' ? end + 1 : end;
      }
    }
  }
  int code = pclose(pipe);
  res->ok = code == 0 && have == 15;
  if (!res->ok)
    fprintf(stderr,
            "ucb_step: the scikit-learn loop failed (exit status %d); is python3-sklearn "
            "installed for %s? (set --python or DPBO_PYTHON)\n",
            code, o->python);
}

/* The same T-step loop with dpbo; state creation is the setup; each
 * step selects λ_t, evaluates the gain on rank 0, broadcasts it, appends it
 * to the GP and updates the block. Times are rank 0's wall clock (every step
 * ends in collectives, so the ranks stay in step). */
static dpbo_status dpbo_loop(MPI_Comm comm, const bench_options *o, loop_result *res,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  dpbo_ucb *ucb = NULL;
  dpbo_gp *gp = NULL;
  dpbo_kernel kernel;
  dpbo_gp_prior prior;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int64_t n = o->compare_n;
  const int T = o->compare_T;
  int64_t begin, count;
  dpbo_space_block(n, size, rank, &begin, &count);

  MPI_Barrier(comm);
  double start = MPI_Wtime();
  DPBO_TRY(problem_create(n, &space, &kernel, &prior, err));
  DPBO_TRY(dpbo_ucb_create(&(dpbo_space_range){space, begin, count}, &kernel, T, &ucb, err));
  DPBO_TRY(dpbo_gp_create(&kernel, &prior, T, &gp, err));
  MPI_Barrier(comm);
  double loop_start = MPI_Wtime();
  res->setup_s = loop_start - start;
  res->best_gain = -INFINITY;
  for (int t = 1; t <= T; t++) {
    double step_start = MPI_Wtime();
    dpbo_ucb_choice choice;
    DPBO_TRY(dpbo_ucb_select(comm, ucb, dpbo_privacy_beta(n, t, PROBLEM_DELTA), &choice, err));
    double u[D], gain = 0.0;
    DPBO_TRY(problem_observe(comm, space, choice.index, u, &gain, err));
    DPBO_TRY(dpbo_gp_append(gp, u, gain, err));
    if (t < T) dpbo_ucb_prepare_select(ucb, dpbo_privacy_beta(n, t + 1, PROBLEM_DELTA));
    DPBO_TRY(dpbo_ucb_update(ucb, gp, u, err));
    res->indices[t - 1] = choice.index;
    if (gain > res->best_gain) res->best_gain = gain;
    res->last_s = MPI_Wtime() - step_start;
  }
  MPI_Barrier(comm);
  res->loop_s = MPI_Wtime() - loop_start;
  res->steps = T;
  res->ok = 1;
done:
  dpbo_gp_destroy(gp);
  dpbo_ucb_destroy(ucb);
  dpbo_space_destroy(space);
  return status;
}

/* ------------------------------------------------------------------------ */

typedef struct step_row {
  int64_t n;
  int t, reps;
  double ms, select_ms, ns_per, mbytes, bound_ms;
} step_row;

static int reps_for(int64_t n, int reps) {
  if (n <= 100000) return 4 * reps;
  if (n >= 10000000) return reps / 2 > 2 ? reps / 2 : 2;
  return reps;
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
  bench_options o;
  step_row *rows = NULL;
  double *times = NULL, *samples = NULL;
  loop_result sk, dp;
  memset(&sk, 0, sizeof sk);
  memset(&dp, 0, sizeof dp);
  int code = parse_options(argc, argv, &o, rank);
  if (code) {
    MPI_Finalize();
    return code == 1 ? 0 : 2;
  }

  int tmax = 0;
  for (int k = 0; k < o.t_count; k++)
    tmax = o.t[k] > tmax ? o.t[k] : tmax;
  int local_ranks = 1;
  {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local_ranks);
    MPI_Comm_free(&node);
  }
  double avail = (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE), min_avail;
  MPI_Allreduce(&avail, &min_avail, 1, MPI_DOUBLE, MPI_MIN, comm);
  /* Memory this rank needs for N candidates and `cap` observations. */
#define STATE_BYTES(nn, cap) ((double)(((nn) + size - 1) / size) * 8.0 * ((double)(cap) + D + 2))
#define FITS(nn, cap) (STATE_BYTES(nn, cap) * local_ranks < 0.8 * min_avail)

  DPBO_ALLOC(rows, (size_t)o.n_count * o.t_count, "result rows"); /* >= one per N */
  int row_count = 0;
  char nbuf[32];

  if (rank == 0) {
    printf("ucb_step: one distributed GP-UCB step = dpbo_ucb_update + dpbo_ucb_select\n");
    printf("  problem: first N points of the unscrambled 2-D Sobol sequence, Matern-5/2 (l = %g on "
           "unit coordinates), gain = -branin(x1, x2)\n",
           PROBLEM_LENGTHSCALE);
    printf("  ranks P = %d (%d on this node), build type %s\n\n", size, local_ranks,
           DPBO_BENCH_BUILD_TYPE);
    fflush(stdout);
  }

  /* 3a. scikit-learn first, while nothing else runs. */
  if (o.sklearn && (o.compare_T > 0)) {
    DPBO_ALLOC(sk.indices, o.compare_T, "indices");
    if (rank == 0) {
      fprintf(stderr, "ucb_step: running the scikit-learn loop (N = %s, T = %d) ...\n",
              fmt_n(o.compare_n, nbuf, sizeof nbuf), o.compare_T);
      const dpbo_gp_prior prior = {PROBLEM_MEAN, PROBLEM_SCALE, PROBLEM_NOISE, 0.0};
      sklearn_run(&o, &prior, &sk);
    }
    sleepy_barrier(comm);
  }
  /* 3b. dpbo's loop. */
  if (o.compare) {
    if (!FITS(o.compare_n, o.compare_T)) {
      if (rank == 0)
        fprintf(stderr, "ucb_step: skipping the dpbo loop at N = %lld: not enough memory\n",
                (long long)o.compare_n);
    } else {
      DPBO_ALLOC(dp.indices, o.compare_T, "indices");
      if (rank == 0) fprintf(stderr, "ucb_step: running the dpbo loop ...\n");
      DPBO_TRY(dpbo_loop(comm, &o, &dp, err));
    }
  }

  /* 2. Triad. */
  double bw = 0.0;
  size_t triad_n = (size_t)(o.triad_mib * 1048576.0 / 8.0);
  if (rank == 0) fprintf(stderr, "ucb_step: triad ...\n");
  DPBO_TRY(triad_bandwidth(comm, triad_n, o.triad_reps, &bw, err));

  /* The kernel column's compute cost, on the largest N that fits. */
  double kernel_ns = NAN;
  int64_t kernel_n = 0;
  for (int in = 0; in < o.n_count; in++)
    if (o.n[in] > kernel_n && o.n[in] <= 1000000 && FITS(o.n[in], tmax)) kernel_n = o.n[in];
  if (kernel_n > 0) {
    dpbo_space *space = NULL;
    dpbo_kernel kernel;
    dpbo_gp_prior prior;
    int64_t begin, count;
    dpbo_space_block(kernel_n, size, rank, &begin, &count);
    status = problem_create(kernel_n, &space, &kernel, &prior, err);
    if (status == DPBO_OK)
      status = kernel_cost(comm, space, &kernel, begin, count, 5, &kernel_ns, err);
    dpbo_space_destroy(space);
    if (status != DPBO_OK) goto done;
  }

  /* 1. Step times. */
  DPBO_ALLOC(times, 2 * (size_t)tmax, "step times");
  for (int in = 0; in < o.n_count; in++) {
    const int64_t n = o.n[in];
    if (!FITS(n, tmax)) { /* a row with reps = 0 says so in the table */
      step_row *row = &rows[row_count++];
      memset(row, 0, sizeof *row);
      row->n = n;
      row->mbytes = STATE_BYTES(n, tmax) / 1e6;
      continue;
    }
    dpbo_space *space = NULL;
    dpbo_kernel kernel;
    dpbo_gp_prior prior;
    DPBO_TRY(problem_create(n, &space, &kernel, &prior, err));
    int64_t begin, count;
    dpbo_space_block(n, size, rank, &begin, &count);
    const int reps = reps_for(n, o.reps);
    free(samples);
    samples = NULL;
    DPBO_ALLOC(samples, 2 * (size_t)(reps + 1) * tmax, "samples");
    if (rank == 0)
      fprintf(stderr, "ucb_step: N = %s, %d + 1 loops of %d steps ...\n",
              fmt_n(n, nbuf, sizeof nbuf), reps, tmax);
    for (int r = 0; r <= reps && status == DPBO_OK; r++) {
      status = loop_step_times(comm, space, &kernel, &prior, begin, count, tmax, times, err);
      for (int t = 0; t < 2 * tmax; t++)
        samples[(size_t)t * (reps + 1) + r] = times[t];
    }
    dpbo_space_destroy(space);
    if (status != DPBO_OK) goto done;
    const double block = (double)((n + size - 1) / size); /* the largest block */
    for (int k = 0; k < o.t_count; k++) {
      const int t = o.t[k];
      step_row *row = &rows[row_count++];
      row->n = n;
      row->t = t;
      row->reps = reps;
      const double *s = samples + (size_t)2 * (t - 1) * (reps + 1);
      const double *sel = s + (reps + 1);
      row->ms = 1e3 * median(s + 1, reps);
      row->select_ms = 1e3 * median(sel + 1, reps);
      row->ns_per = 1e6 * row->ms / ((double)t * block);
      double bytes = block * (8.0 * t + 32.0);
      row->mbytes = bytes / 1e6;
      row->bound_ms = 1e3 * bytes / bw;
    }
  }

  if (rank == 0) {
    printf("Memory bandwidth: STREAM triad a[i] = b[i] + s*c[i], 3 x %.0f MiB per rank, all %d "
           "rank%s at once, best of %d\n",
           o.triad_mib, size, size == 1 ? "" : "s", o.triad_reps);
    printf("  %.2f GB/s per rank, %.2f GB/s in all (24 bytes per element)\n\n", bw / 1e9,
           bw * size / 1e9);
    if (kernel_n > 0)
      printf("Kernel column k(lambda_t, x) alone (dpbo_kernel_r2_block + _of_r2_block, once per "
             "candidate and step): %.2f ns per candidate at N = %s\n\n",
             kernel_ns, fmt_n(kernel_n, nbuf, sizeof nbuf));
    printf("UCB step at t observations (update folds in observation t, select picks the next "
           "point), N/P candidates per rank\n");
    printf("  ms/step: median of reps after a warm-up loop, slowest rank; select: its "
           "dpbo_ucb_select part on the rank that waited least\n");
    printf("  bound = (8t + 32) bytes per candidate [rows a_1..a_t-1 read, a_t written, mu and "
           "sigma^2 read+written] / triad bandwidth\n");
    printf("\n  %6s %3s %4s %4s | %9s %9s %13s | %8s %9s %14s\n", "N", "P", "t", "reps", "ms/step",
           "select", "ns/(cand*obs)", "MB/rank", "bound ms", "measured/bound");
    printf("  %s\n", rule(RULE_STEPS));
    for (int i = 0; i < row_count; i++) {
      const step_row *r = &rows[i];
      if (r->reps == 0) {
        printf("  %6s %3d    - skipped: the state needs %.2f GB per rank, %d ranks share %.2f GB\n",
               fmt_n(r->n, nbuf, sizeof nbuf), size, r->mbytes / 1e3, local_ranks, min_avail / 1e9);
        continue;
      }
      printf("  %6s %3d %4d %4d | %9.3f %9.3f %13.2f | %8.1f %9.3f %14.2f\n",
             fmt_n(r->n, nbuf, sizeof nbuf), size, r->t, r->reps, r->ms, r->select_ms, r->ns_per,
             r->mbytes, r->bound_ms, r->ms / r->bound_ms);
    }
    printf("\n");

    if (o.compare && (dp.ok || sk.ok)) {
      printf("Whole GP-UCB loop, T = %d, N = %s (same candidates, function, prior and rule; "
             "objective evaluations included)\n",
             o.compare_T, fmt_n(o.compare_n, nbuf, sizeof nbuf));
      printf("  %-28s | %9s %9s %12s | %12s\n", "", "setup s", "loop s", "last step s",
             "best gain");
      printf("  %s\n", rule(RULE_LOOPS));
      if (sk.ok) {
        char label[64];
        snprintf(label, sizeof label, "scikit-learn %s", sk.version);
        printf("  %-28s | %9.3f %9.3f %12.4f | %12.6g\n", label, sk.setup_s, sk.loop_s, sk.last_s,
               sk.best_gain);
      } else if (o.sklearn) {
        printf("  %-28s | %s\n", "scikit-learn", "(did not run; see the message above)");
      }
      if (dp.ok) {
        char label[64];
        snprintf(label, sizeof label, "dpbo (%d rank%s)", size, size == 1 ? "" : "s");
        printf("  %-28s | %9.3f %9.3f %12.4f | %12.6g\n", label, dp.setup_s, dp.loop_s, dp.last_s,
               dp.best_gain);
      }
      if (sk.ok && dp.ok) {
        printf("  %-28s | %9.1fx %8.1fx %11.1fx |\n", "speed-up (sklearn / dpbo)",
               sk.setup_s / dp.setup_s, sk.loop_s / dp.loop_s, sk.last_s / dp.last_s);
        int same = 0;
        while (same < dp.steps && same < sk.steps && dp.indices[same] == sk.indices[same])
          same++;
        if (same == dp.steps && sk.steps == dp.steps)
          printf("  same choices: lambda_1..lambda_%d identical in both loops\n", dp.steps);
        else
          printf("  same choices: lambda_1..lambda_%d identical; step %d differs (index %lld vs "
                 "%lld: a near-tie broken differently by rounding)\n",
                 same, same + 1, (long long)(same < sk.steps ? sk.indices[same] : -1),
                 (long long)(same < dp.steps ? dp.indices[same] : -1));
        printf("  setup = candidate generation (and, for dpbo, the UCB state); loop = %d steps of "
               "select + evaluate + update\n",
               o.compare_T);
      }
    }
    fflush(stdout);
  }
done:
  if (status != DPBO_OK) {
    /* A failure on one rank would leave the others waiting in a collective. */
    fprintf(stderr, "ucb_step: error (rank %d): %s\n", rank, err->message);
    MPI_Abort(comm, 1);
  }
  free(rows);
  free(times);
  free(samples);
  free(sk.indices);
  free(dp.indices);
  MPI_Finalize();
  return status == DPBO_OK ? 0 : 1;
}
