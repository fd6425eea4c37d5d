/* A gain through the discrete Gaussian mechanism (private_gain.h). */
#include "run/private_gain.h"

#include "dpbo/mechanism.h"

void dpbo_private_gain_init(dpbo_private_gain *pg, dpbo_run_evaluate_fn gain, void *context,
                            dpbo_noise *noise, double sensitivity, double sigma) {
  pg->gain = gain;
  pg->context = context;
  pg->noise = noise;
  pg->sensitivity = sensitivity;
  pg->sigma = sigma;
  pg->code = DPBO_OK;
  dpbo_error_clear(&pg->failure);
}

dpbo_status dpbo_private_gain_evaluate(void *context, int64_t index, double *gain,
                                       dpbo_error *err) {
  dpbo_private_gain *pg = context;
  dpbo_gaussian_release release;
  double raw;
  (void)err;
  pg->code = pg->gain(pg->context, index, &raw, &pg->failure);
  if (pg->code == DPBO_OK)
    pg->code =
        dpbo_mech_gaussian(pg->noise, raw, pg->sensitivity, pg->sigma, &release, &pg->failure);
  *gain = pg->code == DPBO_OK ? release.value : 0.0;
  return DPBO_OK;
}
