/* The svm objective's feature weights, for tests/svm_weights.sh.
 *
 *   svm_weights_case DATA OUTDIR K W [W ...]
 *
 * builds the svm objective on the CSV DATA (the `dpbo run` path:
 * dpbo_svm_objective_create, dpbo_objective_evaluate; 150 training and 100
 * validation rows, fixed split seed), writes the same scaled splits to
 * OUTDIR/train.libsvm and OUTDIR/valid.libsvm through the public dataset API,
 * and prints one line
 *   case C GAMMA K W CORRECT TOTAL
 * per (C, γ) pair and weight W of feature K, with dpbo's count of correct
 * validation predictions at dimensions (C, gamma, weight.K). The script
 * multiplies feature K of the written files by W and requires the same
 * counts from svm-train/svm-predict. With K = 0 the lines are for the
 * dimensions (C, gamma) alone (W is ignored). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objectives/dataset.h"
#include "objectives/svm.h"

#define TRAIN_ROWS 150
#define VALID_ROWS 100
#define SPLIT_SEED 11u

static int fail(const dpbo_error *err) {
  fprintf(stderr, "svm_weights_case: %s: %s\n", dpbo_status_name(err->code), err->message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s DATA OUTDIR K W [W ...]\n", argv[0]);
    return 2;
  }
  const char *path = argv[1], *outdir = argv[2];
  const int k = atoi(argv[3]);
  dpbo_error err;
  dpbo_error_clear(&err);

  dpbo_svm_options options;
  dpbo_svm_options_default(&options);
  snprintf(options.data_path, sizeof options.data_path, "%s", path);
  options.train_rows = TRAIN_ROWS;
  options.validation_rows = VALID_ROWS;
  options.split_seed = SPLIT_SEED;
  dpbo_objective objective = {0};
  if (dpbo_svm_objective_create(&options, &objective, &err) != DPBO_OK) return fail(&err);

  /* The same steps svm.c takes: read, split, scale with training ranges. */
  dpbo_dataset *data = NULL, *train = NULL, *valid = NULL;
  dpbo_scaling scaling;
  char file[4200];
  if (dpbo_dataset_read(path, DPBO_FORMAT_CSV, &data, &err) != DPBO_OK) return fail(&err);
  if (dpbo_dataset_split(data, SPLIT_SEED, TRAIN_ROWS, VALID_ROWS, &train, &valid, &err) != DPBO_OK)
    return fail(&err);
  if (dpbo_scaling_fit(train, &scaling, &err) != DPBO_OK) return fail(&err);
  if (dpbo_scaling_apply(&scaling, train, "training", &err) != DPBO_OK ||
      dpbo_scaling_apply(&scaling, valid, "validation", &err) != DPBO_OK)
    return fail(&err);
  snprintf(file, sizeof file, "%s/train.libsvm", outdir);
  if (dpbo_dataset_write_libsvm(train, file, &err) != DPBO_OK) return fail(&err);
  snprintf(file, sizeof file, "%s/valid.libsvm", outdir);
  if (dpbo_dataset_write_libsvm(valid, file, &err) != DPBO_OK) return fail(&err);

  /* A smooth fit and a sharp one, where a feature's scale matters most. */
  static const double pairs[][2] = {{1.0, 0.5}, {30.0, 8.0}};
  char weight_name[32];
  snprintf(weight_name, sizeof weight_name, "weight.%d", k);
  const char *names[3] = {"C", "gamma", weight_name};
  for (int a = 4; a < argc; a++)
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
      const double w = strtod(argv[a], NULL);
      const double values[3] = {pairs[p][0], pairs[p][1], w};
      double gain = 0.0;
      if (dpbo_objective_evaluate(&objective, k > 0 ? 3 : 2, names, values, &gain, &err) != DPBO_OK)
        return fail(&err);
      printf("case %.17g %.17g %d %.17g %ld %d\n", pairs[p][0], pairs[p][1], k, w,
             lround(gain * VALID_ROWS), VALID_ROWS);
    }
  dpbo_scaling_free(&scaling);
  dpbo_dataset_destroy(data);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(valid);
  dpbo_objective_destroy(&objective);
  return 0;
}
