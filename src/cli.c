#include "dpbo/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/config.h"
#include "dpbo/driver.h"
#include "dpbo/log.h"
#include "dpbo/output.h"
#include "dpbo/version.h"

static const char usage_text[] =
    "usage:\n"
    "  dpbo run CONFIG [--set section.key=value ...] [--quiet]\n"
    "      GP-UCB over the candidate set of CONFIG; writes <output.dir>/<output.name>.h5\n"
    "  dpbo info FILE.h5 [--trace]\n"
    "      prints a run file's settings and summary (and its trace)\n"
    "  dpbo --help | --version\n"
    "\n"
    "Run under MPI with any number of ranks: mpiexec -n 4 dpbo run configs/demo.ini\n"
    "Exit codes: 0 success, 1 run ended early (partial run file written),\n"
    "            2 bad input (usage, config, data), 3 other failure.\n";

static int exit_code_for(dpbo_status status) {
  switch (status) {
  case DPBO_OK: return DPBO_EXIT_OK;
  case DPBO_ERR_USAGE:
  case DPBO_ERR_CONFIG:
  case DPBO_ERR_DATA:
  case DPBO_ERR_ARG: return DPBO_EXIT_BAD_INPUT;
  case DPBO_ERR_IO: return DPBO_EXIT_BAD_INPUT; /* a missing config, dataset or list */
  default: return DPBO_EXIT_FAILURE;
  }
}

static int report(int rank, const dpbo_error *err) {
  if (rank == 0) fprintf(stderr, "dpbo: error: %s\n", err->message);
  return exit_code_for(err->code);
}

static int cli_run(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const char *config_path = NULL;
  const char **overrides = calloc((size_t)argc + 1, sizeof *overrides);
  int override_count = 0, quiet = 0, code = DPBO_EXIT_OK;
  dpbo_config *config = calloc(1, sizeof *config);
  dpbo_run run;
  memset(&run, 0, sizeof run);
  if (!overrides || !config) {
    if (rank == 0) fprintf(stderr, "dpbo: error: out of memory\n");
    code = DPBO_EXIT_FAILURE;
    goto done;
  }
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      overrides[override_count++] = argv[++i];
    } else if (strncmp(argv[i], "--set=", 6) == 0) {
      overrides[override_count++] = argv[i] + 6;
    } else if (strcmp(argv[i], "--quiet") == 0) {
      quiet = 1;
    } else if (argv[i][0] == '-' || config_path) {
      if (rank == 0) fprintf(stderr, "dpbo run: unexpected argument '%s'\n%s", argv[i], usage_text);
      code = DPBO_EXIT_BAD_INPUT;
      goto done;
    } else {
      config_path = argv[i];
    }
  }
  if (!config_path) {
    if (rank == 0) fprintf(stderr, "dpbo run: missing CONFIG\n%s", usage_text);
    code = DPBO_EXIT_BAD_INPUT;
    goto done;
  }
  dpbo_log_setup(rank, rank == 0, quiet ? DPBO_LOG_QUIET : DPBO_LOG_INFO);

  if (dpbo_config_load(config_path, override_count, overrides, config, &err) != DPBO_OK) {
    code = report(rank, &err);
    goto done;
  }
  if (dpbo_driver_run(comm, config, &run, &err) != DPBO_OK) {
    code = report(rank, &err);
    goto done;
  }
  char path[DPBO_PATH_MAX + 300];
  dpbo_config_run_path(config, path, sizeof path);
  if (run.steps > 0 || run.outcome == DPBO_OK) {
    if (dpbo_output_write_run(comm, path, config, &run, &err) != DPBO_OK) {
      code = report(rank, &err);
      goto done;
    }
  }
  if (run.outcome != DPBO_OK) {
    if (rank == 0)
      fprintf(stderr, "dpbo: the run stopped after %d of %d steps: %s\n%s\n", run.steps, run.planned,
              run.outcome_message, run.steps > 0 ? "dpbo: the steps done are in the run file" : "");
    code = DPBO_EXIT_INCOMPLETE;
  }
  if (rank == 0 && run.best_step >= 0) {
    const dpbo_trace_step *best = &run.trace[run.best_step];
    char lambda[512] = "";
    size_t used = 0;
    for (int i = 0; i < dpbo_space_dims(run.space); i++)
      used += (size_t)snprintf(lambda + used, sizeof lambda - used, "%s%s=%.6g", i ? ", " : "",
                               dpbo_space_dim(run.space, i)->name, best->value[i]);
    double eval = 0;
    for (int t = 0; t < run.steps; t++) eval += run.trace[t].eval_seconds;
    dpbo_log_info("best validation gain %.6g at step %d (%s); %d evaluations in %.1f s "
                  "(%.1f s evaluating)",
                  best->gain, run.best_step + 1, lambda, run.steps, run.wall_seconds, eval);
    dpbo_log_info("run file: %s  (the trace is NOT private: never publish it)", path);
  }
done:
  dpbo_run_free(&run);
  free(config);
  free(overrides);
  return code;
}

static int cli_info(int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const char *path = NULL;
  int trace = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--trace") == 0)
      trace = 1;
    else if (!path && argv[i][0] != '-')
      path = argv[i];
    else {
      if (rank == 0) fprintf(stderr, "dpbo info: unexpected argument '%s'\n%s", argv[i], usage_text);
      return DPBO_EXIT_BAD_INPUT;
    }
  }
  if (!path) {
    if (rank == 0) fprintf(stderr, "dpbo info: missing FILE.h5\n%s", usage_text);
    return DPBO_EXIT_BAD_INPUT;
  }
  if (rank != 0) return DPBO_EXIT_OK;
  if (dpbo_output_print_info(path, trace, &err) != DPBO_OK) return report(rank, &err);
  return DPBO_EXIT_OK;
}

int dpbo_cli_main(MPI_Comm comm, int argc, char **argv) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  dpbo_log_setup(rank, rank == 0, DPBO_LOG_INFO);
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    if (rank == 0) fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? DPBO_EXIT_BAD_INPUT : DPBO_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    if (rank == 0) printf("dpbo %s\n", DPBO_VERSION_STRING);
    return DPBO_EXIT_OK;
  }
  if (strcmp(argv[1], "run") == 0) return cli_run(comm, rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "info") == 0) return cli_info(rank, argc - 2, argv + 2);
  if (rank == 0) fprintf(stderr, "dpbo: unknown command '%s'\n%s", argv[1], usage_text);
  return DPBO_EXIT_BAD_INPUT;
}
