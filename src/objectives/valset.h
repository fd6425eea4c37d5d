/* Validation sets and their neighbours for the k1 experiment (paper,
 * Results): for each size m and set index i, a validation set V_i of m
 * distinct rows drawn uniformly from a pool of rows, and a neighbour V_i'
 * that differs from it in one record:
 *
 *   add_remove (the paper's Results): with probability 1/2 one random record
 *              of V_i is removed, else one random pool row outside V_i is
 *              added (|V'| = m - 1 or m + 1);
 *   swap       (Definition 1): one random record of V_i is replaced by a
 *              random pool row outside V_i (|V'| = m);
 *   adversarial: the record of V_i whose removal changes the models'
 *              accuracies most unevenly across the settings λ_j
 *              (|V'| = m - 1). Removing record r changes model j's
 *              accuracy f_V(λ_j) by
 *                D_r(j) = (f_V(λ_j) − c_r(j)) / (m − 1),
 *              c_r(j) = 1 when model j classifies r right, else 0; V' drops
 *              the r with the largest spread max_j D_r(j) − min_j D_r(j),
 *              ties to the smallest pool row. The choice needs every
 *              model's correctness on V, so dpbo_valset_draw only draws V
 *              (and a provisional removal of its first record) and
 *              dpbo_valset_adversarial makes the choice once the models
 *              are trained.
 *
 * Each (m, i) has its own PCG stream (seed, stream = tag | m << 24 | i), so
 * any rank generates any set from the seed alone and the sets do not depend
 * on the number of ranks or on which sizes and set counts a run asks for.
 * The accuracy of a model on V and V' follows from one bit per pool row
 * (was the row predicted right), packed least significant bit first
 * (numpy.unpackbits(bits, bitorder="little")). */
#ifndef DPBO_VALSET_H
#define DPBO_VALSET_H

#include <stdint.h>

#include "dpbo/error.h"

typedef enum {
  DPBO_NEIGHBOUR_ADD_REMOVE = 0,
  DPBO_NEIGHBOUR_SWAP = 1,
  DPBO_NEIGHBOUR_ADVERSARIAL = 2
} dpbo_neighbour_kind;

/* Largest m and set index (they share the 63-bit PCG stream id). */
#define DPBO_VALSET_MAX_M ((INT64_C(1) << 24) - 1)
#define DPBO_VALSET_MAX_SETS (INT64_C(1) << 24)

/* How V' differs from V. */
typedef enum { DPBO_VALSET_REMOVE = -1, DPBO_VALSET_SWAP = 0, DPBO_VALSET_ADD = 1 } dpbo_valset_op;

typedef struct dpbo_valset_change {
  dpbo_valset_op op;
  int32_t slot; /* REMOVE, SWAP: the position in rows of the record that leaves; ADD: -1 */
  int32_t row;  /* ADD, SWAP: the pool row that enters; REMOVE: the row that leaves */
} dpbo_valset_change;

/* A validation set asked for: set number `set` of size m over a pool of
 * `pool` rows under `seed` (its PCG stream, above), with a neighbour of
 * kind `kind`. */
typedef struct dpbo_valset_request {
  uint64_t seed;
  int64_t pool, m, set;
  dpbo_neighbour_kind kind;
} dpbo_valset_request;

/* Draws V (rows[0..m), ascending pool row indices in [0, pool)) and its
 * neighbour. Needs 2 <= m < pool (a neighbour must exist on both sides). */
dpbo_status dpbo_valset_draw(const dpbo_valset_request *request, int32_t *rows,
                             dpbo_valset_change *change, dpbo_error *err);

/* n models' correctness over the pool: model j's bits at bits + j·nbytes
 * (dpbo_valset_pack's layout). */
typedef struct dpbo_valset_models {
  const uint8_t *bits;
  int64_t nbytes, n;
} dpbo_valset_models;

/* The adversarial neighbour of V = rows[0..m) (see above) from the models'
 * correctness: *change removes the chosen record, *spread (may be NULL) is
 * its max_j D_r(j) − min_j D_r(j). The spreads are compared exactly, as the
 * integers m·(m − 1)·spread. */
dpbo_status dpbo_valset_adversarial(const dpbo_valset_models *models, int64_t m,
                                    const int32_t *rows, dpbo_valset_change *change, double *spread,
                                    dpbo_error *err);

/* Size of V'. */
int64_t dpbo_valset_neighbour_size(int64_t m, const dpbo_valset_change *change);

/* Bit r of a packed bit array. */
static inline int dpbo_valset_bit(const uint8_t *bits, int64_t r) {
  return (bits[r >> 3] >> (r & 7)) & 1;
}

/* Packs n flags (0 or 1) into (n + 7) / 8 bytes, least significant bit first. */
void dpbo_valset_pack(const unsigned char *flags, int64_t n, uint8_t *bits);

/* Accuracy on V and on V' from the pool's correctness bits. */
void dpbo_valset_accuracy(const uint8_t *bits, int64_t m, const int32_t *rows,
                          const dpbo_valset_change *change, double *accuracy,
                          double *accuracy_neighbour);

/* "add_remove", "swap", "adversarial" as configs write them, indexed by
 * dpbo_neighbour_kind and NULL-terminated. */
extern const char *const dpbo_neighbour_kind_names[];
const char *dpbo_neighbour_kind_name(dpbo_neighbour_kind kind);

#endif
