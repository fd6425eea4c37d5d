/* Distributed exact selection (dpbo_mech_select), run on 1, 2 and 4 ranks.
 *
 *  - Exponential mechanism over 20 candidates: frequencies of many seeded
 *    draws against dpbo_mech_select_probabilities (Pearson chi-square,
 *    critical value at 1e-6 from tests/stat_check.h). The check passes on 1,
 *    2 and 4 ranks, so the law does not depend on the number of ranks.
 *  - Permute-and-flip: the library's exact probabilities against brute-force
 *    enumeration of all 4! orders, then frequencies against them (n = 4 and
 *    n = 20).
 *  - Every rank returns the same index; epsilon_spent <= ε within 1e-9.
 *  - A large candidate set with one dominant score (exercises batching and
 *    the lazy random order), and invalid input reported on every rank. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dpbo/mechanism.h"
#include "stat_check.h"

/* dpbo_mech_select with its input spelled out (the calls below predate
 * dpbo_select_input). */
static dpbo_status mech_select(MPI_Comm comm, int root, dpbo_noise *noise, dpbo_select_kind kind,
                               const double *scores, int64_t begin, int64_t count, int64_t n,
                               double sensitivity, double epsilon, dpbo_select_release *out,
                               dpbo_error *err) {
  const dpbo_select_input in = {kind, scores, begin, count, n, sensitivity, epsilon};
  return dpbo_mech_select(comm, root, noise, &in, out, err);
}

static int rank, size;

static void block(int64_t n, int64_t *begin, int64_t *count) {
  *begin = n * rank / size;
  *count = n * (rank + 1) / size - *begin;
}

/* Draws `draws` selections of the scores (global vector, each rank passes
 * its block), returns the histogram and checks every rank agrees. */
static void sample(dpbo_select_kind kind, const double *q, int64_t n, double delta, double eps,
                   int64_t draws, uint64_t seed, int64_t *hist, dpbo_select_release *last) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, seed, (uint64_t)rank); /* stream = rank */
  int64_t begin, count;
  block(n, &begin, &count);
  memset(hist, 0, (size_t)n * sizeof *hist);
  uint64_t fingerprint = 0;
  int ok = 1, in_range = 1;
  for (int64_t d = 0; d < draws && ok; d++) {
    dpbo_select_release rel;
    dpbo_status st = mech_select(MPI_COMM_WORLD, 0, &noise, kind, q + begin, begin, count, n, delta,
                                 eps, &rel, &err);
    CHECK_MSG(st == DPBO_OK, "select: %s", err.message);
    ok = st == DPBO_OK;
    if (!ok) break;
    in_range &= rel.index >= 0 && rel.index < n;
    if (!in_range) break;
    hist[rel.index]++;
    fingerprint = fingerprint * 1000003u + (uint64_t)rel.index + 1u;
    *last = rel;
  }
  CHECK(in_range);
  uint64_t lo, hi;
  MPI_Allreduce(&fingerprint, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&fingerprint, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK_MSG(lo == hi, "ranks returned different indices");
}

static void check_chi2(const char *what, const int64_t *hist, const double *p, int n,
                       int64_t draws) {
  double x2 = stat_chi2(hist, p, n, draws), crit = stat_chi2_critical(n - 1, STAT_ALPHA);
  CHECK_MSG(x2 < crit, "%s: chi-square %.2f >= %.2f (df %d)", what, x2, crit, n - 1);
  if (rank == 0)
    printf("%s on %d ranks: chi-square %.2f < %.2f (df %d, %lld draws)\n", what, size, x2, crit,
           n - 1, (long long)draws);
}

/* P&F output law by enumerating every order (Heap's algorithm): candidate r
 * is released if it is the first whose coin lands heads. */
static void pf_brute_force(const double *a, int n, double *p) {
  int perm[8], c[8] = {0};
  for (int i = 0; i < n; i++)
    perm[i] = i, p[i] = 0.0;
  double orders = 0.0;
  for (int i = 0;;) {
    double reach = 1.0;
    for (int j = 0; j < n; j++) {
      p[perm[j]] += reach * a[perm[j]];
      reach *= 1.0 - a[perm[j]];
    }
    orders += 1.0;
    while (i < n && c[i] >= i)
      c[i++] = 0;
    if (i >= n) break;
    int s = i % 2 ? c[i] : 0, tmp = perm[s];
    perm[s] = perm[i];
    perm[i] = tmp;
    c[i]++;
    i = 0;
  }
  for (int i = 0; i < n; i++)
    p[i] /= orders;
}

/* Acceptance probabilities a_i = exp(-η (K - k_i)) from a release's metadata. */
static void acceptance(const double *q, int n, const dpbo_select_release *rel, double *a) {
  double K = -INFINITY;
  for (int i = 0; i < n; i++)
    K = fmax(K, round(q[i] / rel->granularity));
  for (int i = 0; i < n; i++)
    a[i] = exp(-rel->eta_num / rel->eta_den * (K - round(q[i] / rel->granularity)));
}

static void test_exponential(void) {
  enum { N = 20 };
  const int64_t draws = 60000;
  double q[N], p[N];
  int64_t hist[N];
  dpbo_error err;
  dpbo_error_clear(&err);
  for (int i = 0; i < N; i++)
    q[i] = 0.15 * i - 1.0 + 0.01 * (i % 3);
  CHECK_OK(dpbo_mech_select_probabilities(DPBO_SELECT_EXPONENTIAL, q, N, 1.0, 2.0, p, &err));
  /* Against the naive formula (safe here: scores span 3 units). */
  dpbo_select_release rel;
  sample(DPBO_SELECT_EXPONENTIAL, q, N, 1.0, 2.0, draws, 77u, hist, &rel);
  double a[N], total = 0.0;
  acceptance(q, N, &rel, a);
  for (int i = 0; i < N; i++)
    total += a[i];
  double worst = 0.0;
  for (int i = 0; i < N; i++)
    worst = fmax(worst, fabs(p[i] - a[i] / total));
  CHECK_MSG(worst < 1e-14, "exponential probabilities differ from the formula by %g", worst);
  /* η and the score grid as documented; ε within 1e-9 below the request. */
  CHECK(rel.granularity == 0x1p-20);
  CHECK_MSG(rel.epsilon_spent <= 2.0 && rel.epsilon_spent >= 2.0 * (1 - 1e-9),
            "epsilon_spent %.17g", rel.epsilon_spent);
  long double exact = 2.0L * rel.eta_num / rel.eta_den * (1.0L + 0x1p20L); /* 2η(D + 1) */
  CHECK_MSG(exact <= 2.0L && exact <= (long double)rel.epsilon_spent,
            "2η(Δ+g)/g = %.20Lg vs reported %.17g", exact, rel.epsilon_spent);
  check_chi2("exponential mechanism, 20 candidates", hist, p, N, draws);
}

static void test_permute_and_flip(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  /* n = 4: the library's closed form against brute force, then sampling. */
  {
    enum { N = 4 };
    const double q[N] = {0.0, 1.3, 0.4, 1.5};
    double p[N], brute[N], a[N];
    int64_t hist[N];
    dpbo_select_release rel;
    CHECK_OK(dpbo_mech_select_probabilities(DPBO_SELECT_PERMUTE_AND_FLIP, q, N, 1.0, 1.5, p, &err));
    sample(DPBO_SELECT_PERMUTE_AND_FLIP, q, N, 1.0, 1.5, 60000, 78u, hist, &rel);
    acceptance(q, N, &rel, a);
    pf_brute_force(a, N, brute);
    double worst = 0.0, sum = 0.0;
    for (int i = 0; i < N; i++)
      worst = fmax(worst, fabs(p[i] - brute[i])), sum += p[i];
    CHECK_MSG(worst < 1e-14, "P&F probabilities differ from enumeration by %g", worst);
    CHECK_CLOSE(sum, 1.0, 1e-14, 0);
    if (rank == 0)
      printf("permute-and-flip n=4 exact: %.6f %.6f %.6f %.6f (EM would give", p[0], p[1], p[2],
             p[3]);
    double em[N];
    CHECK_OK(dpbo_mech_select_probabilities(DPBO_SELECT_EXPONENTIAL, q, N, 1.0, 1.5, em, &err));
    if (rank == 0) printf(" %.6f %.6f %.6f %.6f)\n", em[0], em[1], em[2], em[3]);
    check_chi2("permute-and-flip, 4 candidates", hist, p, N, 60000);
    CHECK(rel.proposals >= 1 && rel.proposals <= N);
  }
  /* n = 20. */
  {
    enum { N = 20 };
    double q[N], p[N];
    int64_t hist[N];
    dpbo_select_release rel;
    for (int i = 0; i < N; i++)
      q[i] = 0.2 * ((i * 7) % N) - 1.0;
    CHECK_OK(dpbo_mech_select_probabilities(DPBO_SELECT_PERMUTE_AND_FLIP, q, N, 1.0, 1.0, p, &err));
    sample(DPBO_SELECT_PERMUTE_AND_FLIP, q, N, 1.0, 1.0, 60000, 79u, hist, &rel);
    check_chi2("permute-and-flip, 20 candidates", hist, p, N, 60000);
  }
}

/* One dominant score among many: the exponential mechanism needs about n
 * proposals (batches up to the cap), permute-and-flip walks the random order
 * until it reaches it (all others have acceptance e^-30). */
static void test_large(void) {
  const int64_t n = 100000, star = 54321;
  int64_t begin, count;
  block(n, &begin, &count);
  double *q = calloc((size_t)(count ? count : 1), sizeof *q);
  if (star >= begin && star < begin + count) q[star - begin] = 60.0;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 80u, (uint64_t)rank);
  for (int kind = 0; kind < 2; kind++) {
    for (int rep = 0; rep < 3; rep++) {
      dpbo_select_release rel;
      CHECK_OK(mech_select(MPI_COMM_WORLD, 0, &noise, (dpbo_select_kind)kind, q, begin, count, n,
                           1.0, 1.0, &rel, &err));
      CHECK_MSG(rel.index == star, "%s picked %lld", dpbo_select_kind_name((dpbo_select_kind)kind),
                (long long)rel.index);
      if (kind == DPBO_SELECT_PERMUTE_AND_FLIP) CHECK(rel.proposals <= (uint64_t)n);
      if (rank == 0 && rep == 0)
        printf("%s, n = %lld, one dominant score: %llu proposals\n",
               dpbo_select_kind_name((dpbo_select_kind)kind), (long long)n,
               (unsigned long long)rel.proposals);
    }
  }
  /* Equal scores: permute-and-flip accepts its first proposal. */
  for (int64_t i = 0; i < count; i++)
    q[i] = 2.5;
  dpbo_select_release rel;
  CHECK_OK(mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_PERMUTE_AND_FLIP, q, begin, count, n,
                       1.0, 1.0, &rel, &err));
  CHECK(rel.proposals == 1u);
  free(q);
}

static void test_errors(void) {
  enum { N = 10 };
  double q[N];
  for (int i = 0; i < N; i++)
    q[i] = i;
  int64_t begin, count;
  block(N, &begin, &count);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 81u, (uint64_t)rank);
  dpbo_select_release rel;
  dpbo_error err;

  /* A NaN score on the last rank: every rank fails, none hangs. */
  double bad[N];
  memcpy(bad, q, sizeof q);
  bad[N - 1] = NAN;
  dpbo_error_clear(&err);
  dpbo_status st = mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, bad + begin,
                               begin, count, N, 1.0, 1.0, &rel, &err);
  CHECK_MSG(st == DPBO_ERR_ARG, "NaN score: %s", dpbo_status_name(st));
  if (begin + count == N)
    CHECK_MSG(strstr(err.message, "candidate 9") && strstr(err.message, "finite"), "%s",
              err.message);
  /* Too large for the grid. */
  memcpy(bad, q, sizeof q);
  bad[0] = 1e30;
  dpbo_error_clear(&err);
  st = mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_PERMUTE_AND_FLIP, bad + begin, begin,
                   count, N, 1.0, 1.0, &rel, &err);
  CHECK(st == DPBO_ERR_ARG);
  /* Blocks that do not tile [0, n). */
  dpbo_error_clear(&err);
  st = mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, q + begin, begin, count,
                   N + 1, 1.0, 1.0, &rel, &err);
  CHECK_MSG(st == DPBO_ERR_ARG && strstr(err.message, "partition"), "%s", err.message);
  if (size > 1) {
    dpbo_error_clear(&err);
    st = mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, q, 0, N, N, 1.0, 1.0, &rel,
                     &err);
    CHECK_MSG(st == DPBO_ERR_ARG, "overlapping blocks accepted");
  }
  /* ε, Δ, root. */
  dpbo_error_clear(&err);
  CHECK(mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, q + begin, begin, count, N,
                    1.0, 0.0, &rel, &err) == DPBO_ERR_ARG);
  dpbo_error_clear(&err);
  CHECK(mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, q + begin, begin, count, N,
                    NAN, 1.0, &rel, &err) == DPBO_ERR_ARG);
  dpbo_error_clear(&err);
  CHECK(mech_select(MPI_COMM_WORLD, size, &noise, DPBO_SELECT_EXPONENTIAL, q + begin, begin, count,
                    N, 1.0, 1.0, &rel, &err) == DPBO_ERR_ARG);
  /* The exact probabilities refuse what they cannot compute. */
  double *big = calloc(600, sizeof *big), *p = calloc(600, sizeof *p);
  dpbo_error_clear(&err);
  CHECK(dpbo_mech_select_probabilities(DPBO_SELECT_PERMUTE_AND_FLIP, big, 600, 1.0, 1.0, p, &err) ==
        DPBO_ERR_ARG);
  dpbo_error_clear(&err);
  CHECK_OK(dpbo_mech_select_probabilities(DPBO_SELECT_EXPONENTIAL, big, 600, 1.0, 1.0, p, &err));
  CHECK_CLOSE(p[0], 1.0 / 600, 1e-14, 0);
  free(big);
  free(p);
  /* Still in step after all the failures. */
  dpbo_error_clear(&err);
  CHECK_OK(mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, q + begin, begin, count,
                       N, 1.0, 1.0, &rel, &err));
}

/* epsilon_spent over a sweep of (Δ, ε): never above ε, within 1e-9 of it
 * for ε >= 2^-10 (η keeps 32 significant bits there). */
static void test_accounting(void) {
  static const double deltas[] = {1e-9, 0.37, 1.0, 3.0, 29.5, 3e4, 1e12};
  static const double epss[] = {1e-3, 0.013, 0.1, 0.5, 1.0, 2.0 / 3.0, 3.0, 50.0, 1e4};
  const double q[3] = {0.0, 0.5, 1.0};
  int64_t begin, count;
  block(3, &begin, &count);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 82u, (uint64_t)rank);
  dpbo_error err;
  dpbo_error_clear(&err);
  for (size_t a = 0; a < sizeof deltas / sizeof deltas[0]; a++) {
    for (size_t b = 0; b < sizeof epss / sizeof epss[0]; b++) {
      double sq[3] = {q[0] * deltas[a], q[1] * deltas[a], q[2] * deltas[a]};
      dpbo_select_release rel;
      CHECK_OK(mech_select(MPI_COMM_WORLD, 0, &noise, DPBO_SELECT_EXPONENTIAL, sq + begin, begin,
                           count, 3, deltas[a], epss[b], &rel, &err));
      long double D = (long double)deltas[a] / rel.granularity;
      long double cost = 2.0L * rel.eta_num / rel.eta_den * (D + 1.0L);
      CHECK_MSG(
          cost <= (long double)epss[b] && rel.epsilon_spent <= epss[b] &&
              (long double)rel.epsilon_spent >= cost && rel.epsilon_spent >= epss[b] * (1 - 1e-9),
          "Δ %g ε %g: cost %.20Lg, reported %.17g", deltas[a], epss[b], cost, rel.epsilon_spent);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double t0 = MPI_Wtime();
  test_exponential();
  test_permute_and_flip();
  test_large();
  test_errors();
  test_accounting();
  if (rank == 0) printf("test_select on %d ranks: %.1f s\n", size, MPI_Wtime() - t0);
  int code = dpbo_test_summary("test_select");
  MPI_Finalize();
  return code;
}
