#include "experiments/k1sweep_keys.h"

#include "dpbo/kernel.h"
#include "experiments/k1sweep.h"
#include "objectives/dataset.h"
#include "objectives/valset.h"
#include "run/config_keys.h"

/* Columns as in run/config_keys.c; rows in the order k1sweep_config.c reads them. */
#define KEY(section, key, type, values, fallback, computed, unit, doc)                             \
  {                                                                                                \
    section, key, type, values, fallback, computed, unit, "", doc, { 0 }                           \
  }
/* A choice: its names are the code's list. */
#define KEY_CHOICE(section, key, names, fallback, doc)                                             \
  {                                                                                                \
    section, key, "choice", NULL, fallback, 0, "", "", doc, { .choices = (names) }                 \
  }
/* A row read only for one model (k1sweep.model). */
#define KEY_IF(section, key, type, values, fallback, computed, unit, applies, doc)                 \
  {                                                                                                \
    section, key, type, values, fallback, computed, unit, applies, doc, { 0 }                      \
  }

const dpbo_settings_key dpbo_k1sweep_keys[] = {
    /* [k1sweep] */
    KEY("k1sweep", "seed", "integer", "0 to 2^63-1", "1", 0, "",
        "Seed of the Sobol settings' training rows, the validation sets and neighbours."),
    KEY("k1sweep", "synthetic_models", "integer", "0 to 46340", "0", 0, "settings",
        "> 0: synthetic mode with that many settings (no data, no SVMs; the sweep must recover "
        "synthetic_k1)."),
    KEY_CHOICE(
        "k1sweep", "model", dpbo_k1sweep_model_names, "svm",
        "The models: RBF-SVMs (LIBSVM) over (C, gamma) from [space], or L2-regularised logistic "
        "regression (LIBLINEAR, the logreg objective's code) over lambda in [lambda_min, "
        "lambda_max]; each a Sobol set of k1sweep.models settings."),
    KEY("k1sweep", "data", "text", "a path", "required unless k1sweep.synthetic_models > 0", 1, "",
        "The data file (CSV, gzip ok, LIBSVM, or IDX images)."),
    KEY_CHOICE("k1sweep", "format", dpbo_data_format_names, "auto",
               "The data file's format (idx when k1sweep.labels is set)."),
    KEY("k1sweep", "labels", "text", "a path, or empty", "", 0, "",
        "IDX only: the labels file (e.g. Fashion-MNIST's *-labels-idx1-ubyte.gz)."),
    KEY("k1sweep", "train_rows", "integer", ">= 1 (unless synthetic)", NULL, 0, "rows",
        "Rows each SVM is trained on."),
    KEY("k1sweep", "pool_rows", "integer", ">= 0", "0", 0, "rows",
        "Rows of the validation pool (0: every row not drawn for training)."),
    KEY("k1sweep", "models", "integer", "1 to 46340", "100", 0, "settings",
        "Sobol settings (C, gamma), one SVM each."),
    KEY_IF("k1sweep", "tolerance", "number", "> 0", "0.001 (svm), 1e-06 (logreg)", 1, "", "",
           "The solver's stopping tolerance: LIBSVM's -e, or LIBLINEAR's -e (logreg: every model "
           "is checked to lie within tolerance/(4 lambda) of the minimizer, as the logreg "
           "objective checks)."),
    KEY_IF("k1sweep", "positive_label", "number", "a label of the data",
           "none: the larger of the data's two labels", 1, "", "k1sweep.model = logreg",
           "The class against the rest (needed for data with more than two classes)."),
    KEY_IF("k1sweep", "lambda_min", "number", "> 0", "1e-06", 0, "", "k1sweep.model = logreg",
           "Smallest regularisation lambda of the Sobol set (log scale)."),
    KEY_IF("k1sweep", "lambda_max", "number", "> lambda_min", "1", 0, "", "k1sweep.model = logreg",
           "Largest lambda of the Sobol set (log scale)."),
    KEY_IF("k1sweep", "cache_mb", "text", "auto | a number > 0", "auto", 0, "MiB",
           "k1sweep.model = svm",
           "LIBSVM's kernel cache (-m) per training rank. auto: min(the whole kernel matrix, "
           "rows^2 x 4 bytes; half of the node's MemAvailable, or of the memory cgroup's headroom "
           "(a batch job's limit) if less, over its training ranks, less the rank's data), at "
           "least 100 MiB; the log and /performance@libsvm_cache_mb give the "
           "size. It changes the speed, never the results."),
    KEY_IF("k1sweep", "shrinking", "integer", "0 or 1", "1", 0, "", "k1sweep.model = svm",
           "LIBSVM's shrinking (-h)."),
    KEY("k1sweep", "max_features", "integer", "1 to 2147483647", "100000", 0, "features",
        "The largest LIBSVM feature index accepted."),
    KEY("k1sweep", "sizes", "text", "1 to 32 sizes m, ascending, each >= 2", NULL, 0, "rows",
        "The validation-set sizes m."),
    KEY("k1sweep", "sets", "integer", "1 to 16777216", "100", 0, "sets",
        "Validation sets V_i (each with a neighbour V_i') per size."),
    KEY_CHOICE(
        "k1sweep", "neighbour", dpbo_neighbour_kind_names, "add_remove",
        "How V_i' differs from V_i: one random record added or removed, one swapped, or "
        "(adversarial) the record r removed whose removal changes the models' accuracies most "
        "unevenly: the largest max_j - min_j of (f_V(lambda_j) - c_r(j))/(m - 1), c_r(j) = 1 "
        "if model j classifies r right, ties to the smallest pool row. Chosen after the models "
        "are trained (needs models >= 2; see README)."),
    KEY("k1sweep", "synthetic_k1", "number", "[0, 1]", "0.9", 0, "",
        "Synthetic mode: the true k1."),
    KEY("k1sweep", "synthetic_mean", "number", "(0, 1)", "0.8", 0, "accuracy",
        "Synthetic mode: the prior mean of the accuracies."),
    KEY("k1sweep", "synthetic_signal_std", "number", "> 0", "0.05", 0, "accuracy",
        "Synthetic mode: their prior standard deviation."),
    KEY("k1sweep", "synthetic_lengthscale", "number", "> 0", "0.3", 0, "unit-cube coordinates",
        "Synthetic mode: the kernel's length-scale."),

    /* [space] */
    DPBO_CONFIG_KEYS_DIMS,

    /* [likelihood]: the multi-task GP likelihood of k1 (experiments/k1lik.h) */
    KEY_CHOICE("likelihood", "kernel", dpbo_kernel_kind_names, "se",
               "K2, the kernel over the settings."),
    KEY("likelihood", "ell_min", "number", "> 0", "0.01", 0, "unit-cube coordinates",
        "Smallest shared length-scale searched."),
    KEY("likelihood", "ell_max", "number", "> ell_min", "10", 0, "unit-cube coordinates",
        "Largest shared length-scale searched."),
    KEY("likelihood", "ell_step", "number", "> 0", "0.002", 0, "log length-scale",
        "Lattice step in log length-scale."),
    KEY("likelihood", "ell_grid", "integer", "2 to 10000", "347", 0, "points",
        "Scan points over the length-scale range before the golden-section search."),
    KEY("likelihood", "ratio_min", "number", "> 0", "1e-06", 0, "",
        "Smallest sigma_n / s searched."),
    KEY("likelihood", "ratio_max", "number", "> ratio_min", "100", 0, "",
        "Largest sigma_n / s searched."),
    KEY("likelihood", "ratio_per_decade", "integer", "1 to 1000", "4", 0, "points",
        "Scan points per decade of sigma_n / s before Brent's search."),
    KEY("likelihood", "k1_step", "number", "(0, 0.5)", "0.05", 0, "",
        "Step of the linear part of the k1 sweep."),
    KEY("likelihood", "t_min", "number", "(0, k1_step)", "1e-10", 0, "",
        "Smallest 1 - k1 of the sweep."),
    KEY("likelihood", "t_per_decade", "integer", "1 to 1000", "10", 0, "points",
        "Points per decade of 1 - k1 below the linear part."),
    KEY("likelihood", "eigen_threshold", "integer", "0 to 2147483647", "1000", 0, "settings",
        "From this many settings on, the eigendecomposition runs on every rank (ScaLAPACK)."),
    KEY("likelihood", "delta", "number", "(0, 1)", "0.05", 0, "",
        "delta of the c for Algorithm 1 that the k1 implies."),
    KEY("likelihood", "bootstrap", "integer", "0 to 100000", "100", 0, "resamples",
        "B, the bootstrap resamples of the pairs behind the intervals of k1 and s^2(1 - k1) "
        "(0: none)."),
    KEY("likelihood", "pipeline_iterations", "integer", "0 to 1000", "30", 0, "steps",
        "T of the GP-UCB run on F_V and F_V' whose max |mu_T - mu'_T| is set against "
        "Delta_lambda (0: no pipeline check)."),

    /* [output] */
    DPBO_CONFIG_KEYS_OUTPUT_DIR_NAME(dpbo_k1sweep_config),

    KEY(NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL)};
