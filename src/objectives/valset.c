#include "objectives/valset.h"

#include <stdlib.h>
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

dpbo_status dpbo_valset_draw(const dpbo_valset_request *request, int32_t *rows,
                             dpbo_valset_change *change, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const uint64_t seed = request->seed;
  const int64_t pool = request->pool, m = request->m, set = request->set;
  const dpbo_neighbour_kind kind = request->kind;
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
  if (kind == DPBO_NEIGHBOUR_ADVERSARIAL) {
    /* Provisional: dpbo_valset_adversarial chooses the record later. */
    change->op = DPBO_VALSET_REMOVE;
    change->slot = 0;
    change->row = rows[0];
  } else if (remove) {
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

dpbo_status dpbo_valset_adversarial(const dpbo_valset_models *models, int64_t m,
                                    const int32_t *rows, dpbo_valset_change *change, double *spread,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const uint8_t *bits = models->bits;
  const int64_t nbytes = models->nbytes, n = models->n;
  int64_t *right = NULL;
  if (n < 1 || m < 2)
    DPBO_RAISE(DPBO_ERR_ARG,
               "adversarial neighbour: needs n >= 1 models and m >= 2, got %lld, %lld",
               (long long)n, (long long)m);
  /* m·(m − 1)·D_r(j) = S_j − m·c_r(j) with S_j = m·f_V(λ_j) the records
   * model j gets right: integers, so spreads compare exactly and the
   * tie rule is the only thing that decides between equal ones. */
  DPBO_ALLOC(right, (size_t)n, "the adversarial neighbour");
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = 0; k < m; k++)
      right[j] += dpbo_valset_bit(bits + j * nbytes, rows[k]);
  int64_t best = -1, best_slot = 0;
  for (int64_t k = 0; k < m; k++) {
    int64_t hi = INT64_MIN, lo = INT64_MAX;
    for (int64_t j = 0; j < n; j++) {
      const int64_t v = right[j] - m * dpbo_valset_bit(bits + j * nbytes, rows[k]);
      hi = v > hi ? v : hi;
      lo = v < lo ? v : lo;
    }
    /* Strictly larger: on a tie the earlier slot, i.e. the smaller pool
     * row (rows ascend), stays. */
    if (hi - lo > best) {
      best = hi - lo;
      best_slot = k;
    }
  }
  change->op = DPBO_VALSET_REMOVE;
  change->slot = (int32_t)best_slot;
  change->row = rows[best_slot];
  if (spread) *spread = (double)best / ((double)m * (double)(m - 1));
done:
  free(right);
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

const char *const dpbo_neighbour_kind_names[] = {"add_remove", "swap", "adversarial", NULL};

const char *dpbo_neighbour_kind_name(dpbo_neighbour_kind kind) {
  return dpbo_neighbour_kind_names[kind == DPBO_NEIGHBOUR_SWAP || kind == DPBO_NEIGHBOUR_ADVERSARIAL
                                       ? kind
                                       : DPBO_NEIGHBOUR_ADD_REMOVE];
}
