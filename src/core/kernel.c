#include "dpbo/kernel.h"

#include <math.h>
#include <string.h>

dpbo_status dpbo_kernel_init(dpbo_kernel *kernel, dpbo_kernel_kind kind, int d,
                             const double *lengthscales, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (d < 1 || d > DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_ARG, "kernel dimension %d outside 1..%d", d, DPBO_MAX_DIM);
  if (kind != DPBO_KERNEL_SE && kind != DPBO_KERNEL_MATERN52)
    DPBO_RAISE(DPBO_ERR_ARG, "unknown kernel kind %d", (int)kind);
  memset(kernel, 0, sizeof *kernel);
  kernel->kind = kind;
  kernel->d = d;
  for (int i = 0; i < d; i++) {
    if (!(lengthscales[i] > 0.0) || !isfinite(lengthscales[i]))
      DPBO_RAISE(DPBO_ERR_ARG, "length-scale %d must be a positive number, got %g", i + 1,
                 lengthscales[i]);
    kernel->lengthscale[i] = lengthscales[i];
    kernel->inv_lengthscale[i] = 1.0 / lengthscales[i];
  }
done:
  return status;
}

void dpbo_kernel_use_dims(dpbo_kernel *kernel, const dpbo_dim *dims) {
  kernel->categoricals = 0;
  for (int i = 0; i < kernel->d; i++) {
    kernel->categorical[i] = dims[i].type == DPBO_DIM_CATEGORICAL;
    kernel->categoricals += kernel->categorical[i];
  }
}

const char *const dpbo_kernel_kind_names[] = {"se", "matern52", NULL};

const char *dpbo_kernel_kind_name(dpbo_kernel_kind kind) {
  return dpbo_kernel_kind_names[kind == DPBO_KERNEL_SE ? DPBO_KERNEL_SE : DPBO_KERNEL_MATERN52];
}

double dpbo_kernel_r2(const dpbo_kernel *kernel, const double *a, const double *b) {
  double r2 = 0.0;
  if (!kernel->categoricals) { /* the common case, without a branch per term */
    for (int i = 0; i < kernel->d; i++) {
      double z = (a[i] - b[i]) * kernel->inv_lengthscale[i];
      r2 += z * z;
    }
    return r2;
  }
  for (int i = 0; i < kernel->d; i++) {
    /* A categorical term is the one-hot distance (kernel.h): 0 or 1/ℓ. */
    double diff = kernel->categorical[i] ? (double)(a[i] != b[i]) : a[i] - b[i];
    double z = diff * kernel->inv_lengthscale[i];
    r2 += z * z;
  }
  return r2;
}

/* See kernel.h. Every operation is a single IEEE add, multiply, sqrt or an
 * integer add/shift, none contracted (-ffp-contract=off), so the vector and
 * scalar code paths agree bit for bit. */
static inline double kernel_exp(double x) {
  const double log2e = 1.4426950408889634074;
  const double ln2_hi = 6.93147180369123816490e-01; /* ln 2 with 32 trailing zero bits */
  const double ln2_lo = 1.90821492927058770002e-10;
  const double shifter = 0x1.8p52; /* adding it rounds to an integer */
  const int flush = x < -708.0;    /* 2^k would leave the normal range */
  x = flush ? -708.0 : x;
  double kf = (x * log2e + shifter) - shifter;
  double r = (x - kf * ln2_hi) - kf * ln2_lo; /* |r| <= ln2/2 */
  /* Taylor series of e^r to degree 13: the remainder is < 3e-19 relative. */
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  /* 2^k from the integer left in the low bits of kf + shifter. */
  double biased = kf + shifter;
  uint64_t bits;
  memcpy(&bits, &biased, sizeof bits);
  bits = (bits + 1023u) << 52;
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  double y = p * scale;
  return flush ? 0.0 : y;
}

double dpbo_exp_nonpositive(double x) { return kernel_exp(x); }

static inline double kernel_of_r2(dpbo_kernel_kind kind, double r2) {
  if (kind == DPBO_KERNEL_SE) return kernel_exp(-0.5 * r2);
  /* Matérn ν = 5/2 (Rasmussen & Williams eq. 4.17) in r = sqrt(r2). */
  double sr = sqrt(5.0 * r2);
  return (1.0 + sr + (5.0 / 3.0) * r2) * kernel_exp(-sr);
}

double dpbo_kernel_of_r2(const dpbo_kernel *kernel, double r2) {
  return kernel_of_r2(kernel->kind, r2);
}

/* Function multiversioning for the block loops below. Only with GCC: clang
 * before 18 names the dispatcher "<name>.ifunc", so calls from other files
 * (ucb.c) fail to link (llvm-project PR 71706); clang (the fuzz build) gets
 * the plain function, which computes the same bits. */
#if defined(__GNUC__) && !defined(__clang__)
#define DPBO_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DPBO_KERNEL_CLONES
#endif

/* The common small dimensions get loops with a constant inner trip count,
 * which the compiler vectorizes; the order of the sum is that of
 * dpbo_kernel_r2 in every branch. */
DPBO_KERNEL_CLONES
void dpbo_kernel_r2_block(const dpbo_kernel *kernel, const double *points, int64_t n,
                          const double *u, double *r2) {
  const double *w = kernel->inv_lengthscale;
  /* Categorical dimensions take the scalar path (same bits as dpbo_kernel_r2). */
  switch (kernel->categoricals ? 0 : kernel->d) {
  case 1:
    for (int64_t i = 0; i < n; i++) {
      double z0 = (points[i] - u[0]) * w[0];
      r2[i] = 0.0 + z0 * z0;
    }
    break;
  case 2:
    for (int64_t i = 0; i < n; i++) {
      double z0 = (points[2 * i] - u[0]) * w[0], z1 = (points[2 * i + 1] - u[1]) * w[1];
      r2[i] = (0.0 + z0 * z0) + z1 * z1;
    }
    break;
  case 3:
    for (int64_t i = 0; i < n; i++) {
      double z0 = (points[3 * i] - u[0]) * w[0], z1 = (points[3 * i + 1] - u[1]) * w[1];
      double z2 = (points[3 * i + 2] - u[2]) * w[2];
      r2[i] = ((0.0 + z0 * z0) + z1 * z1) + z2 * z2;
    }
    break;
  default:
    for (int64_t i = 0; i < n; i++)
      r2[i] = dpbo_kernel_r2(kernel, points + (size_t)i * kernel->d, u);
  }
}

/* Cloned for wider vectors where the CPU has them (chosen at load time).
 * Every clone performs the same IEEE operations in the same order — no
 * contraction into FMA (-ffp-contract=off) — so all give identical bits. */
DPBO_KERNEL_CLONES
void dpbo_kernel_of_r2_block(const dpbo_kernel *kernel, const double *r2, double *k, int64_t n) {
  /* One loop per kind, so each is a straight line the compiler vectorizes. */
  if (kernel->kind == DPBO_KERNEL_SE) {
    for (int64_t i = 0; i < n; i++)
      k[i] = kernel_of_r2(DPBO_KERNEL_SE, r2[i]);
  } else {
    for (int64_t i = 0; i < n; i++)
      k[i] = kernel_of_r2(DPBO_KERNEL_MATERN52, r2[i]);
  }
}

double dpbo_kernel_eval(const dpbo_kernel *kernel, const double *a, const double *b) {
  return dpbo_kernel_of_r2(kernel, dpbo_kernel_r2(kernel, a, b));
}
