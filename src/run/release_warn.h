/* Warnings a release carries (issue #23, 1): a λ̃ close to a uniform draw,
 * a value that carries no signal, a value clamped to the value range. Each
 * is one line, logged on rank 0 and written into both release files
 * ("warnings": [...] in the JSON, a "warnings" attribute in the HDF5).
 *
 * Every warning is computed from PUBLIC quantities only (ε, the sensitivity,
 * the sampler's exact rate, the value range, N, σ, and the released outputs
 * themselves): the release files are for publication, so a warning drawn from
 * μ_T or the trace (e.g. `dpbo utility`'s P(λ̃ = argmax μ_T), which is for
 * the data holder) would leak what the mechanism hides.
 *
 * The near-uniform rule, one for every method: take two candidates whose
 * scores differ by the whole value range W = hi − lo (e.g. accuracies 0
 * and 1). A uniform draw picks the worse with probability 1/2. The release
 * is flagged when its mechanism picks (or ranks first) the worse one with
 * probability at least DPBO_RELEASE_WRONG_LIMIT = 1/4, i.e. within a factor
 * 2 of a uniform draw's:
 *  - exponential mechanism and permute-and-flip (Algorithms 1 and 2 over Λ,
 *    random_search over its T candidates), a_i = exp(−η (k_max − k_i)) with
 *    η the sampler's exact rate and k the scores on its grid g: two scores at
 *    most W apart are at most W/g + 1 steps apart, so with
 *    R = exp(η (W/g + 1)) every candidate scoring in the range has
 *    a_i >= 1/R. Exponential: p_i/p_j = a_i/a_j <= R, so of the draws that
 *    pick one of two such candidates at least 1/(1 + R) pick the worse, and
 *    p_i <= R/N. Permute-and-flip: p_i = a_i ∫_0^1 Π_{l≠i} (1 − a_l t) dt
 *    (the random order as uniform arrival times), so
 *    p_i <= ∫_0^1 (1 − t/R)^{N−1} dt <= R/N, and for a_b >= a_w
 *    p_b/p_w <= (a_b/a_w)(2 − a_w)/(2 − a_b) <= 2R − 1 (the integrands'
 *    ratio grows with t while the other factors shrink; equality for two
 *    candidates): at least 1/(2R) pick the worse. Flagged when that share
 *    is >= 1/4;
 *  - the stopping methods (the best noisy score, Laplace of scale b per
 *    run): two scores W apart are misordered with probability
 *    ½ e^{−W/b} (1 + W/(2b)) (the difference of two Lap(b));
 *  - private_evaluations (each evaluation + Gaussian noise σ): two
 *    evaluations W apart are misordered with probability Φ(−W/(σ√2)).
 * No value range (a command objective without one): no near-uniform check.
 *
 * The clamp warning: the released value hit the value range's edge. */
#ifndef DPBO_RELEASE_WARN_H
#define DPBO_RELEASE_WARN_H

#include <stdint.h>

#include "dpbo/mechanism.h"

#define DPBO_RELEASE_WARNINGS_MAX 4
#define DPBO_RELEASE_WARNING_LEN 640
#define DPBO_RELEASE_WRONG_LIMIT 0.25 /* half a uniform draw's 1/2 */

typedef struct dpbo_release_warnings {
  int count;
  char text[DPBO_RELEASE_WARNINGS_MAX][DPBO_RELEASE_WARNING_LEN];
} dpbo_release_warnings;

/* R = exp(η (W/g + 1)): the largest ratio of the selection's probabilities
 * of two candidates whose scores differ by at most W. */
double dpbo_release_warn_ratio(const dpbo_select_release *select, double width);

/* The exponential mechanism / permute-and-flip (kind) over `candidates`
 * (what: "Lambda" or "the T evaluated candidates"), scores in a range of
 * width W. */
void dpbo_release_warn_selection(dpbo_release_warnings *w, dpbo_select_kind kind,
                                 const dpbo_select_release *select, double width,
                                 int64_t candidates, const char *what);

/* Of the draws that pick one of two candidates W apart, the share that
 * picks the worse, at least: 1/(1 + R) (exponential) or 1/(2R)
 * (permute-and-flip). */
double dpbo_release_warn_selection_wrong(dpbo_select_kind kind, double R);

/* ½ e^{−W/b} (1 + W/(2b)): P(Z1 − Z2 > W) for Z1, Z2 ~ Lap(b) independent. */
double dpbo_release_warn_laplace_wrong(double width, double b);

/* The best of the stopping methods' noisy scores, Laplace of scale b. */
void dpbo_release_warn_stopping(dpbo_release_warnings *w, double b, double width);

/* Φ(−W/(σ√2)): two evaluations W apart, each + N(0, σ²), misordered. */
double dpbo_release_warn_gaussian_wrong(double width, double sigma);

/* private_evaluations: each evaluation's Gaussian noise σ. */
void dpbo_release_warn_evaluations(dpbo_release_warnings *w, double sigma, double width);

/* The released value (named `symbol`, e.g. "value~") was clamped to
 * [lo, hi]; why: what the noise was (e.g. "Laplace scale 11.05"). */
void dpbo_release_warn_clamped(dpbo_release_warnings *w, const char *symbol, double value,
                               double lo, double hi, const char *why);

/* One warning per line, "warning: " first (rank 0 calls). */
void dpbo_release_warnings_log(const dpbo_release_warnings *w);

/* The warnings joined by newlines into buf (the HDF5 attribute). */
void dpbo_release_warnings_join(const dpbo_release_warnings *w, char *buf, size_t size);

#endif
