/* The svm objective on digits, for the agreement test against LIBSVM's own
 * command-line tools (tests/test_svm_vs_libsvm_tools.sh).
 *
 *   svm_reference_case DIGITS OUTDIR
 *
 * builds the svm objective (1000 training / 500 validation rows, fixed split
 * seed), writes the same scaled splits to OUTDIR/train.libsvm and
 * OUTDIR/valid.libsvm through the public dataset API, and prints one line
 *   case C GAMMA CORRECT TOTAL
 * per (C, γ) pair with dpbo's count of correct validation predictions. The
 * script trains and predicts with svm-train/svm-predict on the written files
 * and requires the same counts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "objectives/dataset.h"
#include "objectives/svm.h"

#define TRAIN_ROWS 1000
#define VALID_ROWS 500
#define SPLIT_SEED 20150706u

static int fail(const dpbo_error *err) {
  fprintf(stderr, "svm_reference_case: %s: %s\n", dpbo_status_name(err->code), err->message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s DIGITS OUTDIR\n", argv[0]);
    return 2;
  }
  const char *digits = argv[1], *outdir = argv[2];
  dpbo_error err;
  dpbo_error_clear(&err);

  dpbo_svm_options options;
  dpbo_svm_options_default(&options);
  snprintf(options.data_path, sizeof options.data_path, "%s", digits);
  options.train_rows = TRAIN_ROWS;
  options.validation_rows = VALID_ROWS;
  options.split_seed = SPLIT_SEED;
  dpbo_objective objective = {0};
  if (dpbo_svm_objective_create(&options, &objective, &err) != DPBO_OK) return fail(&err);

  /* The same steps svm.c takes: read, split, scale with training ranges. */
  dpbo_dataset *data = NULL, *train = NULL, *valid = NULL;
  dpbo_scaling scaling;
  char path[4200];
  if (dpbo_dataset_read(digits, DPBO_FORMAT_AUTO, &data, &err) != DPBO_OK) return fail(&err);
  if (dpbo_dataset_split(data, SPLIT_SEED, TRAIN_ROWS, VALID_ROWS, &train, &valid, &err) != DPBO_OK)
    return fail(&err);
  if (dpbo_scaling_fit(train, &scaling, &err) != DPBO_OK) return fail(&err);
  if (dpbo_scaling_apply(&scaling, train, "training", &err) != DPBO_OK ||
      dpbo_scaling_apply(&scaling, valid, "validation", &err) != DPBO_OK)
    return fail(&err);
  snprintf(path, sizeof path, "%s/train.libsvm", outdir);
  if (dpbo_dataset_write_libsvm(train, path, &err) != DPBO_OK) return fail(&err);
  snprintf(path, sizeof path, "%s/valid.libsvm", outdir);
  if (dpbo_dataset_write_libsvm(valid, path, &err) != DPBO_OK) return fail(&err);

  /* Pairs from underfitting (small C, small γ) to overfitting (large γ). */
  static const double pairs[][2] = {
      {1.0, 0.015625}, {10.0, 0.1}, {0.5, 0.002}, {100.0, 1.5}, {3.0, 0.04}};
  const char *names[2] = {"C", "gamma"};
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    double gain = 0.0;
    if (dpbo_objective_evaluate(&objective, 2, names, pairs[k], &gain, &err) != DPBO_OK)
      return fail(&err);
    long correct = lround(gain * VALID_ROWS);
    printf("case %.17g %.17g %ld %d\n", pairs[k][0], pairs[k][1], correct, VALID_ROWS);
  }
  dpbo_scaling_free(&scaling);
  dpbo_dataset_destroy(data);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(valid);
  dpbo_objective_destroy(&objective);
  return 0;
}
