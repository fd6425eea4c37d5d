/* Pool prediction of the k1 sweep: LIBSVM's svm_predict row by row against
 * dpbo_svm_predict_dense (dgemm distances, the RBF kernel, a dgemm of the
 * decision values), on the same model and rows in the same run.
 *
 *   OPENBLAS_NUM_THREADS=1 build/bench/svm_predict DATA [--train N] [--pool N]
 *       [--repeats R] [--model C,GAMMA]... [--sweep K] [--seed S] [--cache MB]
 *       [--dump DIR]
 *
 * DATA is read through dpbo's dataset reader (Covertype: covtype.data.gz or a
 * subset of it), split and scaled as `dpbo k1sweep` does (N training rows, the
 * next pool rows to predict). For each model (default: two settings from the
 * sweep's box) it prints the training time and support vectors, the median
 * over R repeats of each prediction (the repeats alternate between the two),
 * the speed-up, how many labels agree, and the rows with a decision value
 * within 1e-9 of a tie or within its error bound (predicted again by
 * svm_predict), and the pool accuracy. --sweep K adds the first K settings
 * of the k1 sweep's Sobol sequence (configs/k1sweep-covtype.ini's box: model
 * j of the sweep is point j). --repeats 0 skips svm_predict (one dense
 * prediction, for the accuracy). --dump DIR writes the rows as LIBSVM sees
 * them (DIR/train.libsvm, DIR/pool.libsvm) and the settings at full
 * precision (DIR/settings.txt, "C gamma" per line) for another SVM to train
 * on the same rows (bench/svc_side_by_side.py). One core: run with
 * OPENBLAS_NUM_THREADS=1. */
#define _POSIX_C_SOURCE 200809L

#include <libsvm/svm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpbo/space.h"
#include "objectives/dataset.h"
#include "objectives/svm.h"

#define MAX_MODELS 16
#define MAX_REPEATS 101

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int usage(const char *why) {
  fprintf(stderr,
          "svm_predict: %s\n"
          "usage: svm_predict DATA [--train N] [--pool N] [--repeats R] [--model C,GAMMA]... "
          "[--sweep K] [--seed S] [--cache MB] [--dump DIR]\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  long long train = 5000, pool = 50000, seed = 20150706;
  int repeats = 5, models = 0, sweep = 0;
  double C[MAX_MODELS], gamma[MAX_MODELS], cache_mb = 1000; /* as k1sweep-covtype.ini had */
  const char *dump = NULL;
  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a];
    if (strcmp(arg, "--help") == 0) {
      printf("%s", "usage: svm_predict DATA [--train N] [--pool N] [--repeats R] "
                   "[--model C,GAMMA]... [--sweep K] [--seed S] [--cache MB] [--dump DIR]\n");
      return 0;
    }
    if (arg[0] != '-') {
      path = arg;
      continue;
    }
    if (a + 1 >= argc) return usage("an option needs a value");
    const char *value = argv[++a];
    if (strcmp(arg, "--train") == 0)
      train = atoll(value);
    else if (strcmp(arg, "--pool") == 0)
      pool = atoll(value);
    else if (strcmp(arg, "--repeats") == 0)
      repeats = atoi(value);
    else if (strcmp(arg, "--seed") == 0)
      seed = atoll(value);
    else if (strcmp(arg, "--sweep") == 0)
      sweep = atoi(value);
    else if (strcmp(arg, "--cache") == 0)
      cache_mb = atof(value);
    else if (strcmp(arg, "--dump") == 0)
      dump = value;
    else if (strcmp(arg, "--model") == 0 && models < MAX_MODELS) {
      if (sscanf(value, "%lf,%lf", &C[models], &gamma[models]) != 2)
        return usage("--model takes C,GAMMA");
      models++;
    } else
      return usage("unknown option");
  }
  if (!path) return usage("no DATA");
  if (train < 1 || pool < 1 || repeats < 0 || repeats > MAX_REPEATS || sweep < 0 ||
      models + sweep > MAX_MODELS || !(cache_mb > 0))
    return usage("--train, --pool >= 1, --repeats in 0..101, --cache > 0, at most 16 models");
  if (sweep > 0) {
    /* The sweep's settings: Sobol points over its box, as dpbo k1sweep
     * makes them (k1sweep_settings). */
    dpbo_dim box[2];
    memset(box, 0, sizeof box);
    snprintf(box[0].name, sizeof box[0].name, "C");
    box[0].lo = 1, box[0].hi = 1000, box[0].scale = DPBO_SCALE_LOG;
    snprintf(box[1].name, sizeof box[1].name, "gamma");
    box[1].lo = 0.01, box[1].hi = 10, box[1].scale = DPBO_SCALE_LOG;
    dpbo_space *space = NULL;
    dpbo_error e;
    dpbo_error_clear(&e);
    if (dpbo_space_create_sobol(2, box, sweep, &space, &e) != DPBO_OK) return usage(e.message);
    for (int j = 0; j < sweep; j++) {
      double u[2], v[2];
      if (dpbo_space_unit(space, j, u, &e) != DPBO_OK) {
        dpbo_space_destroy(space);
        return usage(e.message);
      }
      dpbo_space_to_values(space, u, v);
      C[models] = v[0], gamma[models] = v[1];
      models++;
    }
    dpbo_space_destroy(space);
  }
  if (models == 0) {
    /* Two points of the sweep's box (C in [1, 1000], gamma in [0.01, 10]). */
    C[0] = 10.0, gamma[0] = 0.1;
    C[1] = 100.0, gamma[1] = 1.0;
    models = 2;
  }

  int code = 1;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *data = NULL;
  dpbo_svm_data *svm = NULL;
  double *ref = NULL, *fast = NULL;
  const char *env = getenv("OPENBLAS_NUM_THREADS");
  printf("svm_predict: %s, %lld training rows, %lld pool rows, %d repeats, "
         "OPENBLAS_NUM_THREADS=%s\n",
         path, train, pool, repeats, env ? env : "(unset)");
  double t0 = now();
  if (dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err) != DPBO_OK ||
      dpbo_svm_check_labels(data, path, &err) != DPBO_OK ||
      dpbo_svm_data_split(data, &(dpbo_svm_split){(uint64_t)seed, train, pool}, "svm_predict", path,
                          &svm, &err) != DPBO_OK)
    goto fail;
  printf("data: %lld rows, %d features, read and split in %.1f s\n", (long long)data->n, data->d,
         now() - t0);
  if (dump) {
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/train.libsvm", dump);
    snprintf(b, sizeof b, "%s/pool.libsvm", dump);
    if (dpbo_svm_data_write_libsvm(svm, a, b, &err) != DPBO_OK) goto fail;
    snprintf(a, sizeof a, "%s/settings.txt", dump);
    FILE *f = fopen(a, "w");
    if (!f) {
      fprintf(stderr, "svm_predict: cannot write %s\n", a);
      goto done;
    }
    for (int m = 0; m < models; m++)
      fprintf(f, "%.17g %.17g\n", C[m], gamma[m]);
    fclose(f);
    printf("dump: %s/train.libsvm, pool.libsvm, settings.txt\n", dump);
  }
  const int n = dpbo_svm_data_eval_rows(svm);
  ref = malloc((size_t)n * sizeof *ref);
  fast = malloc((size_t)n * sizeof *fast);
  if (!ref || !fast) {
    fprintf(stderr, "svm_predict: out of memory\n");
    goto done;
  }
  dpbo_svm_options options;
  dpbo_svm_options_default(&options);
  options.cache_mb = cache_mb;
  printf("cache: %g MiB\n", cache_mb);
  printf("%8s %8s %8s %6s %10s %10s %8s %13s %9s %9s %8s\n", "C", "gamma", "train_s", "SVs",
         "libsvm_s", "blas_s", "speedup", "agree", "near_ties", "rechecked", "pool_acc");
  for (int m = 0; m < models; m++) {
    struct svm_model *model = NULL;
    double train_s = 0, t_ref[MAX_REPEATS], t_fast[MAX_REPEATS];
    dpbo_svm_dense_counts counts = {0};
    if (dpbo_svm_data_train(svm, &options, C[m], gamma[m], &model, &train_s, &err) != DPBO_OK)
      goto fail;
    int ok = 1;
    if (repeats == 0) { /* the dense labels alone */
      double a = now();
      ok = dpbo_svm_data_predict(svm, model, 1, fast, &counts, &err) == DPBO_OK;
      t_fast[0] = now() - a;
      t_ref[0] = 0.0;
      memcpy(ref, fast, (size_t)n * sizeof *ref);
    }
    for (int r = 0; r < repeats && ok; r++) {
      double a = now();
      ok = dpbo_svm_data_predict(svm, model, 0, ref, NULL, &err) == DPBO_OK;
      double b = now();
      dpbo_svm_dense_counts once = {0};
      ok = ok && dpbo_svm_data_predict(svm, model, 1, fast, &once, &err) == DPBO_OK;
      double c = now();
      t_ref[r] = b - a;
      t_fast[r] = c - b;
      counts = once;
    }
    long long agree = 0, right = 0;
    const double *truth = dpbo_svm_data_eval_y(svm);
    for (int i = 0; i < n; i++) {
      agree += ref[i] == fast[i];
      right += fast[i] == truth[i];
    }
    const int nsv = model ? svm_get_nr_sv(model) : 0;
    svm_free_and_destroy_model(&model);
    if (!ok) goto fail;
    const int r = repeats > 0 ? repeats : 1;
    const double mr = median(t_ref, r), mf = median(t_fast, r);
    printf("%8.4g %8.4g %8.2f %6d %10.3f %10.3f %7.1fx %7lld/%-5d %9lld %9lld %8.6f\n", C[m],
           gamma[m], train_s, nsv, mr, mf, mr / mf, agree, n, (long long)counts.near_ties,
           (long long)counts.rechecked, (double)right / n);
    fflush(stdout);
  }
  code = 0;
  goto done;
fail:
  fprintf(stderr, "svm_predict: %s: %s\n", dpbo_status_name(err.code), err.message);
done:
  free(ref);
  free(fast);
  dpbo_svm_data_destroy(svm);
  dpbo_dataset_destroy(data);
  return code;
}
