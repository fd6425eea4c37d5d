/* Privacy-profile accounting of private selection with a random number of
 * runs (issue #13, item 3): the δ(ε) of "run an ε0-DP base mechanism Q K
 * times and output the best", for K ~ D_{η,γ}, the truncated negative
 * binomial law of Papernot & Steinke (η = 1: the geometric law of Liu &
 * Talwar's random stopping, γ the stopping probability).
 *
 * The privacy profile of a mechanism M is δ_M(ε) = sup over neighbours D, D′
 * of the hockey-stick divergence H_{e^ε}(M(D) || M(D′)) = ∫ [p − e^ε p′]_+;
 * M is (ε, δ)-DP exactly when δ_M(ε) <= δ. Koskela, Redberg & Wang (ICML
 * 2024, "Privacy profiles for private selection") bound δ_A of the selection
 * A by the base's profile and the probability generating function φ(x) =
 * E[x^K] of the number of runs. Their theorem statements could not be
 * consulted when this module was written; the bound below is derived here
 * from the definition and proved in docs/privacy-proofs.md section 8:
 *
 *   For any law of K on {1, 2, ...} with pgf φ and any ε0-DP base Q whose
 *   output is ranked by a score (ties broken uniformly at random),
 *     δ_A(ε) <= ∫_0^1 [φ′(1 − T) − e^{ε − ε0} φ′(1 − min(1, e^{ε0} T))]_+ dT.
 *
 * For D_{η,γ} the positive part is one interval (T_lo, T_hi) around e^{−ε0}
 * and the integral has a closed form in φ (profile.c). K ≡ 1 (φ(x) = x)
 * gives back the pure-DP bound 1 − e^{ε − ε0}; ε >= (2 + η) ε0 gives δ = 0,
 * the pure (2 + η) ε0-DP of the same argument.
 *
 * Budget arithmetic rounds outward (docs/design.md section 3): δ and ε are
 * rounded up, the base ε0 rounded down. */
#ifndef DPBO_PROFILE_H
#define DPBO_PROFILE_H

#include "dpbo/error.h"

/* The profile bound of an ε0-DP mechanism, max(0, 1 − e^{ε − ε0}) (K ≡ 1 of
 * the bound above; for every ε0-DP Q, since its privacy loss is <= ε0). */
double dpbo_profile_pure_delta(double epsilon0, double epsilon);

/* δ_A(ε) of the selection with K ~ D_{η,γ} (η >= 0, γ ∈ (0, 1)) over an
 * ε0-DP base, rounded up; 0 for ε >= (2 + η) ε0. */
double dpbo_profile_tnb_delta(double epsilon0, double eta, double gamma, double epsilon);

/* The smallest ε (bisection to a relative 1e-12, rounded up) with
 * dpbo_profile_tnb_delta(ε0, η, γ, ε) <= delta. */
double dpbo_profile_tnb_epsilon(double epsilon0, double eta, double gamma, double delta);

/* The largest base ε0 (to a relative 1e-9, rounded down) with
 * dpbo_profile_tnb_epsilon(ε0, η, γ, δ) <= epsilon. */
dpbo_status dpbo_profile_tnb_base_epsilon(double epsilon, double delta, double eta, double gamma,
                                          double *epsilon0, dpbo_error *err);

#endif
