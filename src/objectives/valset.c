#include "objectives/valset.h"

#include <string.h>

#include "dpbo/rng.h"

/* Stream tag "k1" in the top bits keeps these streams apart from the
 * rank-numbered ones. */
#define VALSET_STREAM_TAG (UINT64_C(0x6b31) << 48)

/* The k-th (0-based) pool row that is not in the sorted rows[0..m). */
static int32_t valset_kth_outside(const int32_t *rows, int64_t m, int64_t k) {
  int64_t candidate = k;
  for (int64_t j = 0; j < m && rows[j] <= candidate; j++)
    candidate++;
  return (int32_t)candidate;
}

dpbo_status dpbo_valset_draw(uint64_t seed, int64_t pool, int64_t m, int64_t set,
                             dpbo_neighbour_kind kind, int32_t *rows, dpbo_valset_change *change,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (m < 2 || m >= pool || m > DPBO_VALSET_MAX_M || pool > INT32_MAX)
    DPBO_RAISE(DPBO_ERR_ARG,
               "validation sets need 2 <= m < pool rows (m <= %lld, pool <= %d); got m = %lld, "
               "pool = %lld",
               (long long)DPBO_VALSET_MAX_M, INT32_MAX, (long long)m, (long long)pool);
  if (set < 0 || set >= DPBO_VALSET_MAX_SETS)
    DPBO_RAISE(DPBO_ERR_ARG, "validation set index %lld outside [0, %lld)", (long long)set,
               (long long)DPBO_VALSET_MAX_SETS);
  dpbo_rng rng;
  dpbo_rng_seed(&rng, seed, VALSET_STREAM_TAG | (uint64_t)m << 24 | (uint64_t)set);

  /* Selection sampling (Knuth, TAOCP vol. 2, Algorithm 3.4.2 S): row t is
   * taken with probability (still needed)/(rows left), exactly, in integer
   * arithmetic; every m-subset is equally likely and comes out sorted. */
  int64_t taken = 0;
  for (int64_t t = 0; t < pool && taken < m; t++) {
    if ((int64_t)dpbo_rng_below64(&rng, (uint64_t)(pool - t)) < m - taken)
      rows[taken++] = (int32_t)t;
  }

  int remove = kind == DPBO_NEIGHBOUR_ADD_REMOVE && dpbo_rng_below(&rng, 2) == 0;
  if (remove) {
    change->op = DPBO_VALSET_REMOVE;
    change->slot = (int32_t)dpbo_rng_below64(&rng, (uint64_t)m);
    change->row = rows[change->slot];
  } else if (kind == DPBO_NEIGHBOUR_ADD_REMOVE) {
    change->op = DPBO_VALSET_ADD;
    change->slot = -1;
    change->row =
        valset_kth_outside(rows, m, (int64_t)dpbo_rng_below64(&rng, (uint64_t)(pool - m)));
  } else {
    change->op = DPBO_VALSET_SWAP;
    change->slot = (int32_t)dpbo_rng_below64(&rng, (uint64_t)m);
    change->row =
        valset_kth_outside(rows, m, (int64_t)dpbo_rng_below64(&rng, (uint64_t)(pool - m)));
  }
done:
  return status;
}

int64_t dpbo_valset_neighbour_size(int64_t m, const dpbo_valset_change *change) {
  return m + (int64_t)change->op;
}

void dpbo_valset_pack(const unsigned char *flags, int64_t n, uint8_t *bits) {
  memset(bits, 0, (size_t)((n + 7) / 8));
  for (int64_t r = 0; r < n; r++)
    if (flags[r]) bits[r >> 3] |= (uint8_t)(1u << (r & 7));
}

void dpbo_valset_accuracy(const uint8_t *bits, int64_t m, const int32_t *rows,
                          const dpbo_valset_change *change, double *accuracy,
                          double *accuracy_neighbour) {
  int64_t right = 0;
  for (int64_t j = 0; j < m; j++)
    right += dpbo_valset_bit(bits, rows[j]);
  int64_t right2 = right;
  if (change->op == DPBO_VALSET_ADD) right2 += dpbo_valset_bit(bits, change->row);
  if (change->op == DPBO_VALSET_REMOVE) right2 -= dpbo_valset_bit(bits, rows[change->slot]);
  if (change->op == DPBO_VALSET_SWAP)
    right2 += dpbo_valset_bit(bits, change->row) - dpbo_valset_bit(bits, rows[change->slot]);
  *accuracy = (double)right / (double)m;
  *accuracy_neighbour = (double)right2 / (double)dpbo_valset_neighbour_size(m, change);
}

const char *const dpbo_neighbour_kind_names[] = {"add_remove", "swap", NULL};

const char *dpbo_neighbour_kind_name(dpbo_neighbour_kind kind) {
  return dpbo_neighbour_kind_names[kind == DPBO_NEIGHBOUR_SWAP ? DPBO_NEIGHBOUR_SWAP
                                                               : DPBO_NEIGHBOUR_ADD_REMOVE];
}
