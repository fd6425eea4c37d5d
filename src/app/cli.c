#include "app/cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/config.h"
#include "run/algorithm.h"
#include "run/config_keys.h"
#include "run/driver.h"
#include "run/farm.h"
#include "base/h5io.h"
#include "experiments/k1sweep.h"
#include "experiments/k1sweep_keys.h"
#include "base/lock.h"
#include "base/blas.h"
#include "base/log.h"
#include "experiments/audit.h"
#include "base/comm.h"
#include "experiments/compare.h"
#include "run/ledger.h"
#include "run/output.h"
#include "run/publish.h"
#include "base/proc.h"
#include "run/release.h"
#include "run/runfile.h"
#include "run/session.h"
#include "run/private_evals.h"
#include "experiments/utility.h"
#include "dpbo/version.h"

static const char usage_text[] =
    "usage:\n"
    "  dpbo run CONFIG [--set section.key=value ...] [--quiet] [--resume | --overwrite]\n"
    "                  [--stop-after K]\n"
    "      GP-UCB over the candidate set of CONFIG; writes <output.dir>/<output.name>.h5\n"
    "      (rewritten as a checkpoint after every evaluation); with [privacy] algorithm =\n"
    "      1|2|3|private_evaluations, also writes the private release\n"
    "      <output.dir>/<output.name>.release.h5 and .release.json (private_evaluations:\n"
    "      every evaluation goes through the Gaussian mechanism, and the whole trace is\n"
    "      publishable); algorithm = random_search|liu_talwar|papernot_steinke evaluates\n"
    "      data-independent random candidates over the workers instead (no GP) and releases\n"
    "      a private selection among them; algorithm = guided makes privacy.guided_evaluations\n"
    "      privatized GP-UCB evaluations, then a private selection among candidates drawn\n"
    "      from their posterior (privacy.guided_base), and publishes both (never resumed);\n"
    "      with privacy.guided_proxy_rows = K its first stage runs on the training rows\n"
    "      alone (the last K scored), spends nothing and is not published.\n"
    "      SIGTERM or SIGUSR1 to any rank (or SIGUSR1 to mpiexec) stops it at once (exit\n"
    "      code 4); --resume continues an unfinished run\n"
    "      file with the same settings. An existing run file is never replaced:\n"
    "      --overwrite removes it and its release files first. --stop-after K (tests)\n"
    "      stops likewise after K evaluations\n"
    "  dpbo release RUNFILE [--set privacy.key=value ...] [--out PREFIX]\n"
    "      a new private release from a finished run (each draw spends budget: the ledger\n"
    "      of its validation set counts it, refused past privacy.budget); --set may\n"
    "      change privacy.epsilon, privacy.noise and privacy.noise_seed only. The files\n"
    "      are PREFIX.h5 and .json or <run>.release-K.h5 and .json; a release never\n"
    "      replaces a file, and a target that exists or cannot be written is refused\n"
    "      before anything is drawn or spent\n"
    "  dpbo utility RUNFILE [--epsilon LIST] [--tail P] [--quiet]\n"
    "      what the private release of a finished run costs, for each total epsilon of LIST\n"
    "      (default: the run's privacy.epsilon): PUBLIC theorem bounds (Theorems 2 and 4,\n"
    "      at probability 1 - (delta + P), P = --tail, default 0.05) and figures FOR THE\n"
    "      DATA HOLDER ONLY (exact distribution of lambda~, Laplace error quantiles;\n"
    "      liu_talwar and papernot_steinke: the law of the best of K noisy runs, over\n"
    "      the run's evaluated candidates as a sample of Lambda unless they cover it),\n"
    "      written into the run file as /utility, never into a release file\n"
    "  dpbo compare CONFIG [--set section.key=value ...] [--quiet]\n"
    "      DP-BO against private random search, Liu-Talwar random stopping and\n"
    "      Papernot-Steinke repeated search at equal (epsilon, delta), over\n"
    "      [compare] epsilons and repetitions; writes <output.dir>/<output.name>.h5\n"
    "  dpbo audit [--mechanism laplace|exponential|permute_and_flip|gaussian|all] [--broken] ...\n"
    "      empirical privacy audit of the mechanisms (dpbo audit --help for options)\n"
    "  dpbo audit --pipeline CONFIG [--trials R] ...\n"
    "      audit of the whole tuning run and its release on a neighbouring validation set\n"
    "  dpbo audit --seed-attack liu_talwar|papernot_steinke [--broken] ...\n"
    "      audit of a stopping method's releases by an attacker who knows run.seed\n"
    "  dpbo k1sweep CONFIG [--set section.key=value ...] [--quiet] [--stop-after K]\n"
    "      the k1 experiment (paper, Results, Figure 1): SVMs over Sobol settings, validation\n"
    "      sets and neighbours, the multi-task GP likelihood of k1 per set size; writes\n"
    "      <output.dir>/<output.name>.h5. Finished models go to <name>.partial.h5 as they\n"
    "      arrive; rerunning the same command continues from there. SIGTERM or SIGUSR1\n"
    "      stops it after the trainings in progress (exit code 4; a second signal abandons\n"
    "      them). --stop-after K (tests) stops likewise after K trainings\n"
    "  dpbo info FILE.h5 [--trace]\n"
    "      prints the ledger of a run file's validation set, its settings and summary\n"
    "      (and its trace)\n"
    "  dpbo config --list [--markdown]\n"
    "      every config key: type, accepted values, default, unit, when it is read and\n"
    "      what it does (--markdown: the text of docs/config.md)\n"
    "  dpbo --help | --version\n"
    "\n"
    "Run under MPI with any number of ranks: mpiexec -n 4 dpbo run configs/demo.ini\n"
    "Commands that write a run file (run, release, utility) hold a lock beside it\n"
    "(.<file>.lock): a second writer is refused, naming the holder's host and pid.\n"
    "Exit codes:\n"
    "  0  success\n"
    "  1  run ended early (a checkpoint could not be written; the partial run file is\n"
    "     written) or dpbo audit found a loss above the claim\n"
    "  2  bad input (usage, config, data, a corrupted run file, a release past\n"
    "     privacy.budget; a run file in use, or one that --overwrite would replace)\n"
    "  3  other failure (every evaluation failed; an output file cannot be written: a\n"
    "     full disk, the last checkpoint is kept)\n"
    "  4  run or k1sweep interrupted by a signal or --stop-after (checkpoint written:\n"
    "     `dpbo run CONFIG --resume`, or rerun the same k1sweep)\n";

static int cli_exit_code_for(dpbo_status status) {
  switch (status) {
  case DPBO_OK:
    return DPBO_EXIT_OK;
  case DPBO_ERR_USAGE:
  case DPBO_ERR_CONFIG:
  case DPBO_ERR_DATA:
  case DPBO_ERR_ARG:
    return DPBO_EXIT_BAD_INPUT;
  case DPBO_ERR_IO:
    return DPBO_EXIT_BAD_INPUT; /* a missing config, dataset or list */
  default:
    return DPBO_EXIT_FAILURE;
  }
}

static int cli_report(int rank, const dpbo_error *err) {
  if (rank == 0) fprintf(stderr, "dpbo: error: %s\n", err->message);
  return cli_exit_code_for(err->code);
}

/* A usage error (rank 0 prints): one line, in the form of every other
 * error, and where the usage is. The whole usage text used to follow, and
 * buried the one line that said what was wrong. */
static int cli_usage_error(int rank, const char *command, const char *what, const char *arg) {
  if (rank == 0)
    fprintf(stderr, "dpbo: error: dpbo %s: %s%s%s%s (dpbo %s --help shows its usage)\n", command,
            what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "", command);
  return DPBO_EXIT_BAD_INPUT;
}

/* In a command: a failed call sets the exit code for its error (rank 0
 * prints the message) and goes to done. */
#define CLI_TRY(call)                                                                              \
  do {                                                                                             \
    if ((call) != DPBO_OK) {                                                                       \
      code = cli_report(rank, &err);                                                               \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

/* In a command: allocates *ptr zeroed, or fails with "out of memory". */
#define CLI_ALLOC(ptr)                                                                             \
  do {                                                                                             \
    (ptr) = calloc(1, sizeof *(ptr));                                                              \
    if (!(ptr)) CLI_TRY(DPBO_ERROR_SET(&err, DPBO_ERR_NOMEM, "out of memory"));                    \
  } while (0)

/* The options a command takes besides its one positional argument and
 * `--set section.key=value`. */
enum {
  CLI_QUIET = 1 << 1,      /* --quiet */
  CLI_OUT = 1 << 2,        /* --out PREFIX */
  CLI_STOP_AFTER = 1 << 3, /* --stop-after K, K >= 1 */
  CLI_RESUME = 1 << 4,     /* --resume */
  CLI_EPSILON = 1 << 5,    /* --epsilon LIST */
  CLI_TAIL = 1 << 6,       /* --tail P */
  CLI_OVERWRITE = 1 << 7,  /* --overwrite */
};

typedef struct cli_args {
  const char *positional; /* CONFIG or RUNFILE */
  const char **overrides; /* the --set assignments, in order */
  int override_count;
  int quiet;
  const char *out;
  long long stop_after;
  int resume;
  int overwrite;
  const char *epsilon; /* --epsilon LIST, as written */
  const char *tail;    /* --tail P, as written */
} cli_args;

/* The kernels OpenBLAS runs (base/blas.h), said once per command, by rank 0,
 * when the command's input has been accepted and its work starts: every
 * rank chose the same core, and the stage times of what follows depend on
 * it (issue #24). Not before: a refused input gets its one error alone. */
static void cli_blas_report(int rank) {
  if (rank == 0) dpbo_blas_log();
}

/* Reads the arguments of `dpbo <command>` (`missing` names the positional
 * argument) and sets up logging (quiet with --quiet). Returns DPBO_EXIT_OK,
 * or the exit code after rank 0 printed why with the usage. Free
 * args->overrides afterwards (also on failure). */
static int cli_parse(int rank, const char *command, const char *missing, unsigned accept, int argc,
                     char **argv, cli_args *args) {
  memset(args, 0, sizeof *args);
  args->overrides = calloc((size_t)argc + 1, sizeof *args->overrides);
  if (!args->overrides) {
    if (rank == 0) fprintf(stderr, "dpbo: error: out of memory\n");
    return DPBO_EXIT_FAILURE;
  }
  for (int i = 0; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      args->overrides[args->override_count++] = argv[++i];
    } else if (strncmp(argv[i], "--set=", 6) == 0) {
      args->overrides[args->override_count++] = argv[i] + 6;
    } else if ((accept & CLI_RESUME) && strcmp(argv[i], "--resume") == 0) {
      args->resume = 1;
    } else if ((accept & CLI_OVERWRITE) && strcmp(argv[i], "--overwrite") == 0) {
      args->overwrite = 1;
    } else if ((accept & CLI_QUIET) && strcmp(argv[i], "--quiet") == 0) {
      args->quiet = 1;
    } else if ((accept & CLI_OUT) && strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      args->out = argv[++i];
    } else if ((accept & CLI_EPSILON) && strcmp(argv[i], "--epsilon") == 0 && i + 1 < argc) {
      args->epsilon = argv[++i];
    } else if ((accept & CLI_TAIL) && strcmp(argv[i], "--tail") == 0 && i + 1 < argc) {
      args->tail = argv[++i];
    } else if ((accept & CLI_STOP_AFTER) && strcmp(argv[i], "--stop-after") == 0 && i + 1 < argc &&
               (args->stop_after = strtoll(argv[i + 1], &end, 10)) > 0 && *end == '\0') {
      i++;
    } else if (argv[i][0] == '-' || args->positional) {
      return cli_usage_error(rank, command, "unexpected argument", argv[i]);
    } else {
      args->positional = argv[i];
    }
  }
  if (!args->positional) {
    char what[64];
    snprintf(what, sizeof what, "missing %s", missing);
    return cli_usage_error(rank, command, what, NULL);
  }
  if (args->resume && args->overwrite) {
    if (rank == 0)
      fprintf(stderr,
              "dpbo %s: --resume continues a run file and --overwrite replaces it: give one\n",
              command);
    return DPBO_EXIT_BAD_INPUT;
  }
  dpbo_log_setup(rank, rank == 0, args->quiet ? DPBO_LOG_QUIET : DPBO_LOG_INFO);
  return DPBO_EXIT_OK;
}

/* SIGTERM and SIGUSR1 (Slurm's --signal; Open MPI's mpiexec forwards both)
 * ask a long command to stop at its next safe point: each is one stop
 * request of the task farm (run/farm.h; what a first and a second request
 * mean is the command's), and cli_stop_signals_restore puts the previous
 * handlers back. */
typedef struct cli_stop_signals {
  int installed;
  struct sigaction old_term, old_usr1;
} cli_stop_signals;

static void cli_on_stop_signal(int signo) {
  (void)signo;
  dpbo_farm_request_stop();
}

static void cli_stop_signals_install(cli_stop_signals *saved) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = cli_on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, &saved->old_term);
  sigaction(SIGUSR1, &action, &saved->old_usr1);
  saved->installed = 1;
}

static void cli_stop_signals_restore(cli_stop_signals *saved) {
  if (!saved->installed) return;
  sigaction(SIGTERM, &saved->old_term, NULL);
  sigaction(SIGUSR1, &saved->old_usr1, NULL);
  saved->installed = 0;
}

/* What `dpbo run` says once its run went to dpbo_session_run (rank 0
 * prints), and the exit code: what a stop left, the run file, the release
 * and the best point, or why there are none. */
static int cli_run_report(int rank, const char *config_path, const char *path,
                          const dpbo_algorithm_ops *ops, const dpbo_run *run,
                          dpbo_session_end end) {
  int code = DPBO_EXIT_OK;
  if (end == DPBO_SESSION_ABANDONED || end == DPBO_SESSION_HOOK_PUBLISHED) return code;
  if (end == DPBO_SESSION_INTERRUPTED) {
    /* A checkpoint exists once an evaluation is in (or when resuming one). */
    if (rank == 0 && ops->stop_note)
      fprintf(stderr, "dpbo: %s %s\n", ops->stop_note, config_path);
    else if (rank == 0 && access(path, F_OK) == 0)
      fprintf(stderr,
              "dpbo: stopped after %d of %d evaluations; the checkpoint %s holds them.\n"
              "dpbo: continue with: dpbo run %s --resume\n",
              run->finished, run->planned, path, config_path);
    else if (rank == 0)
      fprintf(stderr,
              "dpbo: stopped before the first evaluation finished; nothing was written.\n"
              "dpbo: start again with: dpbo run %s\n",
              config_path);
    return DPBO_EXIT_INTERRUPTED;
  }
  if (end == DPBO_SESSION_NO_CHECKPOINT) {
    if (rank == 0 && access(path, F_OK) == 0)
      fprintf(stderr,
              "dpbo: %s holds the evaluations before that; continue with: dpbo run %s --resume\n",
              path, config_path);
    else if (rank == 0)
      fprintf(stderr, "dpbo: no checkpoint was written; nothing to resume\n");
    return DPBO_EXIT_FAILURE;
  }
  if (end == DPBO_SESSION_ALL_FAILED) {
    if (rank == 0) {
      const char *first = "";
      for (int s = 0; s < run->steps && !*first; s++)
        if (run->trace[s].state == DPBO_STEP_FAILED) first = run->trace[s].failure;
      fprintf(stderr,
              "dpbo: error: all %d evaluations failed; no release was made. The first: %s\n"
              "dpbo: the run file %s lists every failure (dpbo info %s --trace)\n",
              run->finished, first, path, path);
    }
    return DPBO_EXIT_FAILURE;
  }
  if (run->outcome != DPBO_OK) {
    if (rank == 0)
      fprintf(stderr, "dpbo: the run stopped after %d of %d evaluations: %s\n%s\n", run->finished,
              run->planned, run->outcome_message,
              run->finished > 0 ? "dpbo: the evaluations done are in the run file" : "");
    code = DPBO_EXIT_INCOMPLETE;
  }
  if (rank == 0 && run->best_step >= 0) {
    const dpbo_trace_step *best = &run->trace[run->best_step];
    char lambda[512] = "";
    size_t used = 0;
    for (int i = 0; i < dpbo_space_dims(run->space); i++)
      used += (size_t)snprintf(lambda + used, sizeof lambda - used, "%s%s=%s", i ? ", " : "",
                               dpbo_space_dim(run->space, i)->name,
                               dpbo_release_lambda_text(run->space, i, best->value[i], 6).text);
    dpbo_log_info("best %s %.6g at step %d (%s); %d evaluations (%d failed%s) in %.1f s, "
                  "%.1f s evaluating on %d worker%s (utilization %.0f%%)",
                  ops->private_evaluations ? "noisy observation" : "validation gain", best->gain,
                  run->best_step + 1, lambda, run->finished, run->failures,
                  run->resumed ? ", some from the checkpoint" : "", run->wall_seconds,
                  run->busy_seconds, run->workers, run->workers == 1 ? "" : "s",
                  100.0 * run->utilization);
    dpbo_log_info("run file: %s  %s", path,
                  ops->publishes_trace
                      ? "(every gain in it is privatized: its trace is publishable)"
                      : "(the trace is NOT private: never publish it)");
  }
  return code;
}

static int cli_run(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  cli_args args;
  dpbo_config *config = NULL;
  dpbo_runfile_start start;
  memset(&start, 0, sizeof start);
  cli_stop_signals signals = {0};
  dpbo_lock lock = {-1, ""};
  dpbo_run run;
  memset(&run, 0, sizeof run);
  int code = cli_parse(rank, "run", "CONFIG",
                       CLI_QUIET | CLI_STOP_AFTER | CLI_RESUME | CLI_OVERWRITE, argc, argv, &args);
  if (code != DPBO_EXIT_OK) goto done;
  CLI_ALLOC(config);
  CLI_TRY(dpbo_config_load(args.positional, args.override_count, args.overrides, config, &err));
  /* A release dpbo run cannot make (or, with --resume, cannot continue) is
   * refused before any file is touched. */
  CLI_TRY(dpbo_algorithm_runnable(config->algorithm, config->path, args.resume, &err));
  char path[DPBO_PATH_MAX + 300];
  dpbo_config_run_path(config, path, sizeof path);
  /* Before anything is read or evaluated: one writer per run file. */
  CLI_TRY(dpbo_lock_acquire(comm, path, args.resume ? "run --resume" : "run", 1, &lock, &err));
  const dpbo_runfile_mode mode = {args.resume, args.overwrite};
  CLI_TRY(dpbo_runfile_prepare(comm, config, path, &mode, &start, &err));
  if (start.complete) {
    int lost = 0;
    if (dpbo_session_publish_resumed(comm, config, path, &lost, &err) != DPBO_OK) {
      code = cli_report(rank, &err);
      if (lost) code = DPBO_EXIT_FAILURE; /* an output that cannot be made: exit 3 */
    }
    goto done;
  }
  cli_stop_signals_install(&signals);
  const dpbo_driver_options options = {.checkpoint = path,
                                       .resume = start.steps,
                                       .resume_count = start.count,
                                       .stop_after = (int)args.stop_after,
                                       .candidates = start.candidates,
                                       .candidate_count = start.candidate_count};
  cli_blas_report(rank);
  dpbo_session_end end;
  if (dpbo_session_run(comm, config, &options, &run, &end, &err) != DPBO_OK) {
    code = cli_report(rank, &err);
    /* The run file cannot be written (a failing rename or folder is an I/O
     * error, which elsewhere means a missing input): an output fault, exit
     * 3 as documented, never "bad input". */
    if (end == DPBO_SESSION_NOT_WRITTEN) code = DPBO_EXIT_FAILURE;
    goto done;
  }
  code = cli_run_report(rank, args.positional, path, dpbo_algorithm_ops_get(config->algorithm),
                        &run, end);
done:
  cli_stop_signals_restore(&signals);
  dpbo_lock_release(&lock);
  dpbo_run_free(&run);
  dpbo_runfile_start_free(&start);
  dpbo_config_free(config);
  free(config);
  free(args.overrides);
  return code;
}

/* dpbo release RUNFILE: a new private release from a finished run, without
 * evaluating anything again (the posterior is rebuilt from the trace). */
static int cli_release(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_status local = DPBO_OK;
  cli_args args;
  dpbo_config *config = NULL;
  dpbo_release *release = NULL;
  double *beta = NULL;
  dpbo_lock lock = {-1, ""};
  dpbo_run run;
  memset(&run, 0, sizeof run);
  int code = cli_parse(rank, "release", "RUNFILE", CLI_OUT, argc, argv, &args);
  if (code != DPBO_EXIT_OK) goto done;
  const char *runfile = args.positional, *prefix = args.out;
  CLI_ALLOC(config);
  CLI_ALLOC(release);
  /* privacy.budget is fixed when the run is made: a redraw that could
   * raise it would make the cap meaningless. */
  for (int i = 0; i < args.override_count; i++)
    if (strncmp(args.overrides[i], "privacy.budget", 14) == 0 &&
        (args.overrides[i][14] == '=' || args.overrides[i][14] == ' ')) {
      if (rank == 0)
        fprintf(stderr,
                "dpbo release: --set %s: privacy.budget is fixed when the run is made (it "
                "is stored in %s and caps every release drawn from it), so a release "
                "cannot change it\n",
                args.overrides[i], runfile);
      code = DPBO_EXIT_BAD_INPUT;
      goto done;
    }
  CLI_TRY(dpbo_lock_acquire(comm, runfile, "release", 0, &lock, &err)); /* the ledger is written */
  const dpbo_session_load load = {runfile, args.override_count, (const char *const *)args.overrides,
                                  1, "nothing is released"};
  CLI_TRY(dpbo_session_load_run(comm, &load, config, &run, &err));
  if (dpbo_algorithm_ops_get(config->algorithm)->private_evaluations) {
    /* Post-processing of the published trace: nothing drawn, nothing spent. */
    CLI_TRY(dpbo_ucb_drop_rows(run.ucb, &err));
    CLI_TRY(dpbo_private_evals_redraw(comm, config, &run, runfile, prefix, &err));
    goto done;
  }
  /* The β_t the run used must be the one the release's accounting assumes. */
  if (rank == 0) {
    double stored_delta = 0.0;
    beta = calloc((size_t)run.steps + 1, sizeof *beta);
    local = beta ? DPBO_OK : DPBO_ERROR_SET(&err, DPBO_ERR_NOMEM, "out of memory for beta_t");
    if (local == DPBO_OK)
      local = dpbo_output_read_beta(runfile, run.steps, beta, &stored_delta, &err);
    if (local == DPBO_OK)
      local = dpbo_release_check_beta(config, dpbo_space_size(run.space), run.steps, beta,
                                      stored_delta, &err);
  }
  CLI_TRY(dpbo_comm_agree(comm, local, &err));
  CLI_TRY(dpbo_ucb_drop_rows(run.ucb, &err)); /* as in `dpbo run`: one UCB state at a time */
  dpbo_noise noise;
  dpbo_session_noise(&noise, config, rank);
  char h5[DPBO_PATH_MAX + 64], json[DPBO_PATH_MAX + 64];
  /* The transaction (run/publish.h): --out PREFIX or <stem>.release-K. */
  const dpbo_release_files files = {runfile, prefix, h5, json, sizeof h5};
  CLI_TRY(dpbo_release_publish(comm, config, &run, &noise, &files, release, &err));
  if (rank == 0) {
    dpbo_release_log(release, &run);
    dpbo_log_info("release files: %s, %s", h5, json);
    dpbo_session_log_ledger(release);
  }
done:
  dpbo_lock_release(&lock);
  dpbo_run_free(&run);
  free(beta);
  free(release);
  dpbo_config_free(config);
  free(config);
  free(args.overrides);
  return code;
}

/* "0.1,0.3 1" into values (comma or space separated, each positive). */
static int cli_epsilons(const char *text, double *values, int max) {
  int n = 0;
  const char *cursor = text;
  for (;;) {
    while (*cursor == ' ' || *cursor == ',')
      cursor++;
    if (!*cursor) break;
    char *end;
    double v = strtod(cursor, &end);
    if (end == cursor || !(v > 0.0 && v < 1e300) || n >= max) return -1;
    values[n++] = v;
    cursor = end;
  }
  return n;
}

/* dpbo utility RUNFILE [--epsilon LIST] [--tail P]: public bounds and the
 * data holder's exact figures, written into the run file (never a release
 * file). */
static int cli_utility(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_status local = DPBO_OK;
  cli_args args;
  dpbo_config *config = NULL;
  dpbo_utility_report *reports = NULL;
  double epsilons[DPBO_UTILITY_MAX_EPSILONS], tail = 0.05;
  int count = 0;
  dpbo_lock lock = {-1, ""};
  dpbo_run run;
  memset(&run, 0, sizeof run);
  int code =
      cli_parse(rank, "utility", "RUNFILE", CLI_EPSILON | CLI_TAIL | CLI_QUIET, argc, argv, &args);
  if (code != DPBO_EXIT_OK) goto done;
  for (int i = 0; i < args.override_count; i++)
    if (strncmp(args.overrides[i], "privacy.", 8) != 0) {
      if (rank == 0)
        fprintf(stderr,
                "dpbo utility: --set %s: only [privacy] settings can change after the run\n",
                args.overrides[i]);
      code = DPBO_EXIT_BAD_INPUT;
      goto done;
    }
  if (args.epsilon &&
      (count = cli_epsilons(args.epsilon, epsilons, DPBO_UTILITY_MAX_EPSILONS)) < 1) {
    if (rank == 0)
      fprintf(stderr,
              "dpbo utility: --epsilon '%s': expected 1 to %d positive numbers (e.g. 0.1,1,10)\n",
              args.epsilon, DPBO_UTILITY_MAX_EPSILONS);
    code = DPBO_EXIT_BAD_INPUT;
    goto done;
  }
  if (args.tail) {
    char *end;
    tail = strtod(args.tail, &end);
    if (end == args.tail || *end || !(tail > 0.0 && tail < 1.0)) {
      if (rank == 0)
        fprintf(stderr, "dpbo utility: --tail '%s': expected a probability in (0, 1)\n", args.tail);
      code = DPBO_EXIT_BAD_INPUT;
      goto done;
    }
  }
  CLI_ALLOC(config);
  CLI_TRY(dpbo_lock_acquire(comm, args.positional, "utility", 0, &lock,
                            &err)); /* /utility is written */
  const dpbo_session_load load = {args.positional, args.override_count,
                                  (const char *const *)args.overrides, 0,
                                  "the theorems need all T steps"};
  CLI_TRY(dpbo_session_load_run(comm, &load, config, &run, &err));
  if (count == 0) {
    epsilons[0] = config->privacy_epsilon;
    count = 1;
  }
  reports = calloc((size_t)count, sizeof *reports);
  if (!reports) CLI_TRY(DPBO_ERROR_SET(&err, DPBO_ERR_NOMEM, "out of memory"));
  cli_blas_report(rank);
  const dpbo_utility_request request = {epsilons, count, tail};
  CLI_TRY(dpbo_utility_compute(comm, config, &run, &request, reports, &err));
  if (rank == 0) local = dpbo_utility_write(args.positional, reports, count, &err);
  CLI_TRY(dpbo_comm_agree(comm, local, &err));
  if (rank == 0) {
    dpbo_utility_log(config, reports, count);
    dpbo_log_info("utility report written to %s:/utility (%s; no release file was touched and "
                  "no budget was spent)",
                  args.positional,
                  dpbo_algorithm_publishes_trace(config->algorithm)
                      ? "the run file's trace is publishable with its release"
                      : "the run file: sensitive, never publish");
  }
done:
  dpbo_lock_release(&lock);
  dpbo_run_free(&run);
  free(reports);
  dpbo_config_free(config);
  free(config);
  free(args.overrides);
  return code;
}

/* dpbo compare CONFIG: DP-BO against the private-selection baselines. */
static int cli_compare(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  cli_args args;
  dpbo_config *config = NULL;
  dpbo_compare_options *options = NULL;
  int code = cli_parse(rank, "compare", "CONFIG", CLI_QUIET, argc, argv, &args);
  if (code != DPBO_EXIT_OK) goto done;
  CLI_ALLOC(config);
  CLI_ALLOC(options);
  CLI_TRY(dpbo_config_load(args.positional, args.override_count, args.overrides, config, &err));
  CLI_TRY(dpbo_compare_options_read(config, options, &err));
  cli_blas_report(rank);
  CLI_TRY(dpbo_compare_run(comm, config, options, &err));
done:
  dpbo_config_free(config);
  free(config);
  free(options);
  free(args.overrides);
  return code;
}

static const char audit_usage[] =
    "usage: dpbo audit [--mechanism laplace|exponential|permute_and_flip|gaussian|all]\n"
    "                  [--epsilon E] [--delta d] [--sensitivity D] [--trials N]\n"
    "                  [--seed S] [--alpha A] [--broken]\n"
    "       dpbo audit --pipeline CONFIG [--trials R] [--seed S] [--alpha A] [--broken]\n"
    "                  [--sensitivity-factor F] [--swap adversarial|random]\n"
    "                  [--set section.key=value ...]\n"
    "       dpbo audit --seed-attack liu_talwar|papernot_steinke [--epsilon E] [--delta d]\n"
    "                  [--trials R] [--seed S] [--alpha A] [--broken]\n"
    "  Draws each mechanism N times on two neighbouring inputs (seeded noise,\n"
    "  split over the MPI ranks) and reports a lower bound on its true epsilon\n"
    "  that holds with probability >= 1 - A (Clopper-Pearson, Bonferroni over\n"
    "  the events tested). --broken halves the noise scale (the true epsilon\n"
    "  doubles) to show that the audit detects a violation. The Gaussian\n"
    "  mechanism claims (E, d) with sigma from the accountant; an event counts\n"
    "  against it only beyond d: eps >= log((P(E | D) - d) / P(E | D')).\n"
    "  'loss on pair' is the exact privacy loss of the neighbouring inputs used\n"
    "  (close to the mechanism's real epsilon: the audit can only find what the\n"
    "  pair exhibits).\n"
    "  Defaults: all, E = 1, d = 0.001, D = 1, N = 1000000, S = 20150706,\n"
    "  A = 0.001.\n"
    "  --pipeline runs CONFIG's whole tuning run once on its validation set and\n"
    "  once on a neighbour with one record swapped (objective.kind = logreg; the\n"
    "  swap is chosen adversarially, or at random with --swap random and --seed),\n"
    "  draws R private releases of each with the operating system's noise and\n"
    "  applies the same test to what is released. --sensitivity-factor F < 1\n"
    "  makes the release claim F times its sensitivity, so that its noise is\n"
    "  too small for the observed change.\n"
    "  Defaults: R = 20000, F = 1.\n"
    "  --seed-attack draws R whole releases of the stopping method (T = 4, |Lambda|\n"
    "  = 2^20, every gain 0 on D and 1 on D', each release a run with its own\n"
    "  noise seed S + 2 trial + side) and tests the event {j >= 3, v~ < 0.5} of an\n"
    "  attacker who knows run.seed, j being the position of lambda~ in the public\n"
    "  candidate stream of run.seed. --broken draws the candidates from that\n"
    "  stream (what dpbo did before they were secret). Defaults: E = 1, d = 0\n"
    "  (papernot_steinke: 1e-6), R = 400000.\n"
    "  Exit codes: 0 every bound within its claim, 1 a bound exceeds its claim,\n"
    "  2 bad usage or configuration, 3 other failure.\n";

/* What `dpbo audit` was given, before the defaults are resolved. */
typedef struct cli_audit_args {
  dpbo_audit_options options;
  const char *pipeline; /* --pipeline CONFIG */
  const char **sets;    /* the --set assignments, in order */
  int set_count;
  int delta_given, mechanism_only, pipeline_only, help;
  char why[256]; /* a usage error, "" if none */
} cli_audit_args;

/* Value of option argv[*i] (either "--name=value" or "--name value"), or
 * NULL if argv[*i] is not --name. */
static const char *cli_option_value(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t len = strlen(name);
  if (strncmp(argv[*i], name, len) != 0) return NULL;
  if (argv[*i][len] == '=') return argv[*i] + len + 1;
  if (argv[*i][len] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int cli_parse_double(const char *text, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int cli_parse_int64(const char *text, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return -1;
  *out = (int64_t)v;
  return 0;
}

static int cli_parse_uint64(const char *text, uint64_t *out) {
  char *end;
  errno = 0;
  if (text[0] == '-') return -1;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return -1;
  *out = (uint64_t)v;
  return 0;
}

/* --mechanism NAME: each mechanism on its own merit, "all" or its own name
 * (a flag carried over from an earlier match switched on every later one). */
static int cli_audit_mechanism(const char *value, dpbo_audit_options *o) {
  const int all = strcmp(value, "all") == 0;
  int found = all;
  for (int k = 0; k < DPBO_AUDIT_KIND_COUNT; k++) {
    const int match = strcmp(value, dpbo_audit_kind_name((dpbo_audit_kind)k)) == 0;
    o->which[k] = all || match;
    found |= match;
  }
  return found ? 0 : -1;
}

/* The options of `dpbo audit` that take a value, in the order they are
 * tried. */
static const char *const cli_audit_valued[] = {
    "--pipeline",  "--seed-attack", "--set",   "--swap",        "--sensitivity-factor",
    "--mechanism", "--epsilon",     "--delta", "--sensitivity", "--alpha",
    "--trials",    "--seed",        NULL};

/* Option `name` of `dpbo audit` with its value into a; on a bad value,
 * a->why says why. */
static void cli_audit_option(const char *name, const char *value, cli_audit_args *a) {
  dpbo_audit_options *o = &a->options;
  const size_t n = sizeof a->why;
  if (strcmp(name, "--pipeline") == 0) {
    a->pipeline = value;
  } else if (strcmp(name, "--seed-attack") == 0) {
    if (strcmp(value, "liu_talwar") == 0)
      o->attack = DPBO_ALGORITHM_LIU_TALWAR;
    else if (strcmp(value, "papernot_steinke") == 0)
      o->attack = DPBO_ALGORITHM_PAPERNOT_STEINKE;
    else
      snprintf(a->why, n, "--seed-attack needs liu_talwar or papernot_steinke, got '%s'", value);
  } else if (strcmp(name, "--set") == 0) {
    a->sets[a->set_count++] = value;
    a->pipeline_only = 1;
  } else if (strcmp(name, "--swap") == 0) {
    a->pipeline_only = 1;
    if (strcmp(value, "adversarial") == 0)
      o->swap = DPBO_AUDIT_SWAP_ADVERSARIAL;
    else if (strcmp(value, "random") == 0)
      o->swap = DPBO_AUDIT_SWAP_RANDOM;
    else
      snprintf(a->why, n, "--swap needs adversarial or random, got '%s'", value);
  } else if (strcmp(name, "--sensitivity-factor") == 0) {
    a->pipeline_only = 1;
    if (cli_parse_double(value, &o->sensitivity_factor) != 0 || !(o->sensitivity_factor > 0.0))
      snprintf(a->why, n, "--sensitivity-factor needs a positive number, got '%s'", value);
  } else if (strcmp(name, "--mechanism") == 0) {
    a->mechanism_only = 1;
    if (cli_audit_mechanism(value, o) != 0) snprintf(a->why, n, "unknown mechanism '%s'", value);
  } else if (strcmp(name, "--epsilon") == 0) {
    a->mechanism_only = 1;
    if (cli_parse_double(value, &o->epsilon) != 0 || !(o->epsilon > 0.0))
      snprintf(a->why, n, "--epsilon needs a positive number, got '%s'", value);
  } else if (strcmp(name, "--delta") == 0) {
    a->mechanism_only = 1;
    a->delta_given = 1;
    if (cli_parse_double(value, &o->delta) != 0 || !(o->delta >= 0.0 && o->delta < 1.0))
      snprintf(a->why, n, "--delta needs a number in (0, 1), got '%s'", value);
  } else if (strcmp(name, "--sensitivity") == 0) {
    a->mechanism_only = 1;
    if (cli_parse_double(value, &o->sensitivity) != 0 || !(o->sensitivity > 0.0))
      snprintf(a->why, n, "--sensitivity needs a positive number, got '%s'", value);
  } else if (strcmp(name, "--alpha") == 0) {
    if (cli_parse_double(value, &o->alpha) != 0 || !(o->alpha > 0.0 && o->alpha < 1.0))
      snprintf(a->why, n, "--alpha needs a number in (0, 1), got '%s'", value);
  } else if (strcmp(name, "--trials") == 0) {
    if (cli_parse_int64(value, &o->trials) != 0 || o->trials < 1)
      snprintf(a->why, n, "--trials needs a positive integer, got '%s'", value);
  } else if (cli_parse_uint64(value, &o->seed) != 0) { /* --seed */
    snprintf(a->why, n, "--seed needs a nonnegative integer, got '%s'", value);
  }
}

/* The options that do not go together; a->why says why. */
static void cli_audit_combinations(cli_audit_args *a) {
  const dpbo_audit_options *o = &a->options;
  const size_t n = sizeof a->why;
  const int attack = o->attack != DPBO_ALGORITHM_NONE;
  if (a->pipeline && a->mechanism_only)
    snprintf(a->why, n,
             "--mechanism, --epsilon, --delta and --sensitivity do not apply to "
             "--pipeline (the config sets epsilon and the sensitivities)");
  else if (!attack && a->delta_given && o->delta == 0.0)
    snprintf(a->why, n, "--delta needs a number in (0, 1) for the Gaussian mechanism");
  else if (attack && (a->pipeline || a->pipeline_only))
    snprintf(a->why, n, "--seed-attack and --pipeline are separate audits");
  else if (attack &&
           (o->which[0] + o->which[1] + o->which[2] + o->which[3] != DPBO_AUDIT_KIND_COUNT ||
            o->sensitivity != 1.0))
    snprintf(a->why, n, "--mechanism and --sensitivity do not apply to --seed-attack");
  else if (!a->pipeline && a->pipeline_only)
    snprintf(a->why, n, "--set, --swap and --sensitivity-factor need --pipeline CONFIG");
}

/* Reads `dpbo audit`'s arguments into a (a->sets: room for argc) and
 * resolves each mode's defaults. A usage error leaves a->why set; --help
 * (before any error) sets a->help. */
static void cli_audit_parse(int argc, char **argv, cli_audit_args *a) {
  dpbo_audit_options *o = &a->options;
  *o = (dpbo_audit_options){.mode = DPBO_AUDIT_MODE_MECHANISMS,
                            .which = {1, 1, 1, 1},
                            .epsilon = 1.0,
                            .delta = DPBO_AUDIT_GAUSSIAN_DELTA,
                            .sensitivity = 1.0,
                            .seed = 20150706u,
                            .alpha = 1e-3,
                            .attack = DPBO_ALGORITHM_NONE,
                            .sensitivity_factor = 1.0,
                            .swap = DPBO_AUDIT_SWAP_ADVERSARIAL};
  for (int i = 0; i < argc && !a->why[0]; i++) {
    int missing = 0;
    const char *value = NULL;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      a->help = 1;
      return;
    }
    if (strcmp(argv[i], "--broken") == 0) {
      o->broken = 1;
      continue;
    }
    int k = 0;
    for (; cli_audit_valued[k]; k++)
      if ((value = cli_option_value(argc, argv, &i, cli_audit_valued[k], &missing))) break;
    if (value)
      cli_audit_option(cli_audit_valued[k], value, a);
    else
      snprintf(a->why, sizeof a->why,
               missing ? "option %s needs a value" : "unexpected argument '%s'", argv[i]);
  }
  if (!a->why[0]) cli_audit_combinations(a);
  if (o->attack != DPBO_ALGORITHM_NONE) {
    o->mode = DPBO_AUDIT_MODE_SEED;
    if (!a->delta_given) o->delta = o->attack == DPBO_ALGORITHM_PAPERNOT_STEINKE ? 1e-6 : 0.0;
    if (!o->trials) o->trials = DPBO_AUDIT_SEED_DEFAULT_TRIALS;
  } else if (a->pipeline) {
    o->mode = DPBO_AUDIT_MODE_PIPELINE;
    if (!o->trials) o->trials = DPBO_AUDIT_PIPELINE_DEFAULT_TRIALS;
  } else if (!o->trials) {
    o->trials = DPBO_AUDIT_DEFAULT_TRIALS;
  }
}

/* dpbo audit [...]: the empirical privacy audits (experiments/audit.h).
 * Exit 1 when an audited bound exceeds its claim. */
static int cli_audit(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_config *config = NULL;
  int code = DPBO_EXIT_OK, violated = 0;
  cli_audit_args *args = calloc(1, sizeof *args);
  if (args) args->sets = calloc((size_t)argc + 1, sizeof *args->sets);
  if (!args || !args->sets) {
    if (rank == 0) fprintf(stderr, "dpbo audit: out of memory\n");
    code = DPBO_EXIT_FAILURE;
    goto done;
  }
  cli_audit_parse(argc, argv, args);
  if (args->help) {
    if (rank == 0) fputs(audit_usage, stdout);
    goto done;
  }
  if (args->why[0]) {
    if (rank == 0) fprintf(stderr, "dpbo audit: %s\n%s", args->why, audit_usage);
    code = DPBO_EXIT_BAD_INPUT;
    goto done;
  }
  if (args->pipeline) {
    config = calloc(1, sizeof *config);
    if (!config) {
      if (rank == 0) fprintf(stderr, "dpbo audit: error: out of memory for the config\n");
      code = DPBO_EXIT_FAILURE;
      goto done;
    }
    if (dpbo_config_load(args->pipeline, args->set_count, args->sets, config, &err) != DPBO_OK) {
      if (rank == 0) fprintf(stderr, "dpbo audit: error: %s\n", err.message);
      code = DPBO_EXIT_BAD_INPUT; /* whatever the reason: the config cannot be used */
      goto done;
    }
    cli_blas_report(rank); /* the pipeline's runs: the other audits are not BLAS's */
  }
  if (dpbo_audit_run(comm, &args->options, config, &violated, &err) != DPBO_OK) {
    if (rank == 0) fprintf(stderr, "dpbo audit: error: %s\n", err.message);
    code = cli_exit_code_for(err.code);
    goto done;
  }
  code = violated ? DPBO_EXIT_INCOMPLETE : DPBO_EXIT_OK;
done:
  dpbo_config_free(config);
  free(config);
  if (args) free(args->sets);
  free(args);
  return code;
}

static int cli_k1sweep(MPI_Comm comm, int rank, int argc, char **argv) {
  dpbo_error err;
  dpbo_error_clear(&err);
  cli_args args;
  cli_stop_signals signals = {0};
  dpbo_k1sweep_config *config = NULL;
  int code = cli_parse(rank, "k1sweep", "CONFIG", CLI_QUIET | CLI_STOP_AFTER, argc, argv, &args);
  if (code != DPBO_EXIT_OK) goto done;
  CLI_ALLOC(config);
  CLI_TRY(
      dpbo_k1sweep_config_load(args.positional, args.override_count, args.overrides, config, &err));
  cli_stop_signals_install(&signals);
  cli_blas_report(rank);
  dpbo_k1sweep_outcome outcome;
  if (dpbo_k1sweep_run(comm, config, args.stop_after, &outcome, &err) != DPBO_OK) {
    code = cli_report(rank, &err);
    if (outcome.abandoned) {
      /* The one abort dpbo keeps: ranks still inside LIBSVM, or waiting for
       * a message from a rank that left the task farm, cannot join a
       * collective call, so returning would hang the job. The rank that
       * gave up says why (rank 0 did above; another rank through the log,
       * tagged with its rank); the checkpoint on disk is whole (written
       * atomically). */
      if (rank != 0) dpbo_log_error("%s", err.message);
      fflush(NULL);
      MPI_Abort(comm, DPBO_EXIT_INTERRUPTED);
    }
    goto done;
  }
  if (outcome.interrupted) code = DPBO_EXIT_INTERRUPTED;
done:
  cli_stop_signals_restore(&signals);
  dpbo_k1sweep_config_free(config);
  free(config);
  free(args.overrides);
  return code;
}

/* dpbo info's first part: the ledger of a run file's validation set (what
 * every run file on it has spent), when the file is a run file with a
 * privacy algorithm. Says why when it cannot. */
static void cli_info_ledger(const char *path) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_settings stored;
  memset(&stored, 0, sizeof stored);
  int64_t *index = NULL;
  double *gain = NULL;
  int complete = 0, steps = 0, loaded = 0;
  dpbo_config *config = calloc(1, sizeof *config);
  if (!config ||
      dpbo_output_read_trace(path, &stored, &complete, &steps, &index, &gain, &err) != DPBO_OK)
    goto done; /* not a run file: nothing to say */
  if (dpbo_config_load_stored(path, &stored, 0, NULL, config, &err) != DPBO_OK) {
    printf("ledger: cannot rebuild the run's settings to find its ledger: %s\n", err.message);
    goto done;
  }
  loaded = 1;
  if (dpbo_algorithm_ops_get(config->algorithm)->private_release &&
      dpbo_ledger_print(path, config, &err) != DPBO_OK)
    printf("ledger: %s\n", err.message);
done:
  if (loaded) dpbo_config_free(config);
  free(config);
  dpbo_settings_free(&stored);
  free(index);
  free(gain);
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
      return cli_usage_error(rank, "info", "unexpected argument", argv[i]);
    }
  }
  if (!path) {
    return cli_usage_error(rank, "info", "missing FILE.h5", NULL);
  }
  if (rank != 0) return DPBO_EXIT_OK;
  /* First: the trace, when asked for, stays the last section. */
  cli_info_ledger(path);
  if (dpbo_output_print_info(path, trace, &err) != DPBO_OK) return cli_report(rank, &err);
  return DPBO_EXIT_OK;
}

/* dpbo config --list [--markdown]: the key table (run/config_keys.h). */
static int cli_config(int rank, int argc, char **argv) {
  int list = 0, markdown = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--list") == 0) {
      list = 1;
    } else if (strcmp(argv[i], "--markdown") == 0) {
      markdown = 1;
    } else {
      return cli_usage_error(rank, "config", "unexpected argument", argv[i]);
    }
  }
  if (!list) {
    return cli_usage_error(rank, "config", "missing --list", NULL);
  }
  if (rank == 0) {
    dpbo_config_keys_print(stdout, markdown);
    dpbo_config_keys_print_command(stdout, markdown, "dpbo k1sweep",
                                   "The config of `dpbo k1sweep` (configs/k1sweep-*.ini) has "
                                   "sections of its own.",
                                   dpbo_k1sweep_keys);
  }
  return DPBO_EXIT_OK;
}

/* Whether `dpbo COMMAND ...` asks for help: --help or -h among its
 * arguments, not as the value of an option that takes one. */
static int cli_asks_help(int argc, char **argv) {
  static const char *const valued[] = {"--set",  "--out",        "--epsilon",
                                       "--tail", "--stop-after", NULL};
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") != 0 && strcmp(argv[i], "-h") != 0) continue;
    int is_value = 0;
    for (int k = 0; valued[k]; k++)
      is_value |= strcmp(argv[i - 1], valued[k]) == 0;
    if (!is_value) return 1;
  }
  return 0;
}

/* Prints the command's part of the usage text (from its "  dpbo COMMAND "
 * line up to the next command) and the notes that apply to every command.
 * (print: on rank 0 only). Returns 0 when the usage text has no such command. */
static int cli_print_command_help(const char *command, int print) {
  char head[64];
  snprintf(head, sizeof head, "\n  dpbo %s ", command);
  const char *start = strstr(usage_text, head);
  const char *notes = strstr(usage_text, "\nRun under MPI");
  if (!start || !notes) return 0;
  const char *end = strstr(start + 1, "\n  dpbo ");
  if (!end || end > notes) end = notes;
  if (print) printf("usage:%.*s\n\n%s", (int)(end - start), start, notes + 1);
  return 1;
}

static int cli_dispatch(MPI_Comm comm, int rank, int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    if (rank == 0) fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? DPBO_EXIT_BAD_INPUT : DPBO_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    if (rank == 0) {
      char blas[512];
      int warn = 0;
      dpbo_blas_describe(blas, sizeof blas, &warn);
      printf("dpbo %s\n%s\n", DPBO_VERSION_STRING, blas);
    }
    return DPBO_EXIT_OK;
  }
  /* dpbo audit answers --help itself, with its own options. */
  if (strcmp(argv[1], "audit") != 0 && cli_asks_help(argc, argv) &&
      cli_print_command_help(argv[1], rank == 0))
    return DPBO_EXIT_OK;
  if (strcmp(argv[1], "run") == 0) return cli_run(comm, rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "info") == 0) return cli_info(rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "config") == 0) return cli_config(rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "release") == 0) return cli_release(comm, rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "utility") == 0) return cli_utility(comm, rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "compare") == 0) return cli_compare(comm, rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "k1sweep") == 0) return cli_k1sweep(comm, rank, argc - 2, argv + 2);
  if (strcmp(argv[1], "audit") == 0) return cli_audit(comm, rank, argc - 2, argv + 2);
  if (rank == 0)
    fprintf(stderr,
            "dpbo: error: unknown command '%s' (the commands: run, release, utility, compare, "
            "audit, k1sweep, info, config; dpbo --help shows their usage)\n",
            argv[1]);
  return DPBO_EXIT_BAD_INPUT;
}

int dpbo_cli_main(MPI_Comm comm, int argc, char **argv) {
  int rank = 0;
  /* Nothing was set up to cli_report through yet: a communicator MPI cannot
   * even rank is refused with MPI's own reason. */
  int mpi = MPI_Comm_rank(comm, &rank);
  if (mpi != MPI_SUCCESS) {
    dpbo_error err;
    dpbo_error_set_mpi(&err, mpi, "MPI_Comm_rank(comm, &rank)", __FILE__, __LINE__, __func__);
    fprintf(stderr, "dpbo: error: %s\n", err.message);
    return DPBO_EXIT_FAILURE;
  }
  dpbo_log_setup(rank, rank == 0, DPBO_LOG_INFO);
  dpbo_error err;
  dpbo_error_clear(&err);
  /* HDF5's own error stack never reaches the user: each failure becomes one
   * dpbo message with the file and the reason (h5io.h). */
  if (dpbo_h5io_silence(&err) != DPBO_OK) return cli_report(rank, &err);
  /* The sections of a run config that experiments own: every command reads
   * them (run/config.h). */
  if (dpbo_config_add_section(&dpbo_compare_section, &err) != DPBO_OK)
    return cli_report(rank, &err);
  /* A rank whose launcher died (SIGKILL of mpiexec) ends itself within
   * 0.1 s, its evaluations with it, and writes nothing more (proc.h). */
  if (dpbo_proc_watch_launcher(DPBO_EXIT_FAILURE, &err) != DPBO_OK) return cli_report(rank, &err);
  int code = cli_dispatch(comm, rank, argc, argv);
  dpbo_proc_unwatch_launcher();
  return code;
}
