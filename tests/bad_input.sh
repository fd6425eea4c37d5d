#!/usr/bin/env bash
# One bad-input case per call: dpbo must exit with code 2, print one clear
# message naming the file/line/key, and leave no run file behind.
#   bad_input.sh CASE
set -uo pipefail
case_name=$1
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# A valid base: Branin on a small Sobol set, then each case breaks one thing.
write_base() {
  cat > run.ini <<INI
[run]
iterations = 3
seed = 1
[space]
kind = sobol
points = 64
dim.x1 = linear -5 10
dim.x2 = linear 0 15
[gp]
kernel = se
lengthscale = 0.3
mean = 0
signal_std = 50
noise_std = 1
[objective]
kind = synthetic
function = branin
[output]
dir = $work/out
name = run
INI
}

# An SVM base on a tiny CSV written here.
write_svm_base() {
  local data=$1
  cat > run.ini <<INI
[run]
iterations = 2
[space]
kind = sobol
points = 16
dim.C = log 0.1 10
dim.gamma = log 0.01 1
[gp]
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $data
train_rows = 4
validation_rows = 2
[output]
dir = $work/out
name = run
INI
}
good_rows() { printf '0.1,0.2,1\n0.3,0.1,2\n0.5,0.9,1\n0.7,0.4,2\n0.2,0.8,1\n0.9,0.3,2\n'; }
# Six 1 x 2 images in IDX (the MNIST format): magic 0x00 0x00 0x08 NDIM,
# big-endian sizes, unsigned bytes; and their six labels.
idx_images() { printf '\x00\x00\x08\x03\x00\x00\x00\x06\x00\x00\x00\x01\x00\x00\x00\x02'; printf '\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0'; }
idx_labels() { printf '\x00\x00\x08\x01\x00\x00\x00\x06\x01\x02\x01\x02\x01\x02'; }
write_idx_base() { idx_images > im.idx3; idx_labels > lb.idx1; write_svm_base "$work/im.idx3"; sed -i "s|^\[objective\]|[objective]\nformat = idx\nlabels = $work/lb.idx1|" run.ini; }

args=()
wrap=() # a command the launch runs under (setpriv below)
command=run
config=run.ini
expect=
case $case_name in
  missing_config)   config=$work/nope.ini; expect="cannot open config file $work/nope.ini" ;;
  unreadable_config) mkdir dir.ini; config=dir.ini; expect="cannot read config file dir.ini" ;;
  syntax_error)     write_base; echo "this is not a key" >> run.ini; expect="run.ini:21: syntax error" ;;
  unknown_key)      write_base; sed -i 's/^seed = 1/sede = 1/' run.ini; expect="run.ini:3: unknown key 'sede' in \[run\]" ;;
  misspelt_required) write_base; sed -i 's/^iterations = 3/iteratons = 3/' run.ini; expect="run.ini:2: unknown key 'iteratons' in \[run\]; did you mean 'iterations'\?" ;;
  misspelt_data)    write_svm_base "$work/d.csv"; good_rows > d.csv; sed -i 's/^data = /dta = /' run.ini; expect="run.ini:[0-9]+: unknown key 'dta' in \[objective\]; did you mean 'data'\?" ;;
  output_not_a_dir) write_base; touch afile; args=(--set "output.dir=$work/afile/sub"); expect="cannot create directory $work/afile/sub: Not a directory" ;;
  unknown_section)  write_base; printf '[gpu]\nx = 1\n' >> run.ini; expect="run.ini:22: unknown section \[gpu\]" ;;
  unknown_set)      write_base; args=(--set gp.lenghtscale=0.2); expect="--set gp.lenghtscale: unknown key 'lenghtscale' in \[gp\]" ;;
  non_numeric)      write_base; sed -i 's/^signal_std = 50/signal_std = fifty/' run.ini; expect="run.ini:13: gp.signal_std = 'fifty' is not a finite number" ;;
  reversed_bounds)  write_base; sed -i 's/^dim.x1 = linear -5 10/dim.x1 = linear 10 -5/' run.ini; expect="run.ini:7.*x1.*revers" ;;
  dim_glued_numbers) write_base; sed -i 's/^dim.x2 = linear 0 15/dim.x2 = linear 0 15-1/' run.ini; expect="run.ini:8: dimension x2 = 'linear 0 15-1': expected 'linear\|log\|integer\|log_integer LO HI \[LEVELS\]'" ;;
  dim_negative_levels) write_base; sed -i 's/^dim.x2 = linear 0 15/dim.x2 = linear 0 15 -1/' run.ini; expect="run.ini:8: dimension x2: LEVELS = -1 must be at least 1" ;;
  log_nonpositive)  write_base; sed -i 's/^dim.x2 = linear 0 15/dim.x2 = log 0 15/' run.ini; expect="run.ini:8.*x2.*log" ;;
  zero_iterations)  write_base; sed -i 's/^iterations = 3/iterations = 0/' run.ini; expect="run.ini:2: run.iterations must be between 1" ;;
  negative_iterations) write_base; sed -i 's/^iterations = 3/iterations = -4/' run.ini; expect="run.ini:2: run.iterations must be between 1" ;;
  empty_space)      write_base; sed -i 's/^points = 64/points = 0/' run.ini; expect="run.ini:6: space.points must be at least 1 \(the candidate space is empty\)" ;;
  empty_list)       write_base; sed -i 's/^kind = sobol/kind = list\nfile = empty.txt/; /^points/d' run.ini; echo "# nothing" > empty.txt; expect="empty.txt.*(no points|empty)" ;;
  missing_dataset)  write_svm_base "$work/none.csv"; expect="$work/none.csv" ;;
  ragged_rows)      good_rows > d.csv; echo "0.5,1" >> d.csv; write_svm_base "$work/d.csv"; expect="d.csv:7" ;;
  nan_value)        good_rows > d.csv; echo "nan,0.5,1" >> d.csv; write_svm_base "$work/d.csv"; expect="d.csv:7" ;;
  empty_dataset)    : > d.csv; write_svm_base "$work/d.csv"; expect="d.csv.*empty" ;;
  privacy_epsilon)  write_base; printf '[privacy]\nalgorithm = 1\nepsilon = 0\n' >> run.ini; expect="run.ini:23: privacy.epsilon must be positive" ;;
  privacy_delta)    write_base; printf '[privacy]\nalgorithm = 1\ndelta = 1\n' >> run.ini; expect="run.ini:23: privacy.delta must lie in \(0, 1\)" ;;
  privacy_k1)       write_base; printf '[privacy]\nalgorithm = 1\nk1 = 1.5\n' >> run.ini; expect="run.ini:23: privacy.k1 must lie in \[0, 1\]" ;;
  privacy_alg1_noise_free) write_base; sed -i 's/^noise_std = 1/noise_std = 0/' run.ini; printf '[privacy]\nalgorithm = 1\n' >> run.ini; expect="algorithm = 1 needs observation noise" ;;
  privacy_prior_on_validation) write_base; printf '[privacy]\nalgorithm = 1\nprior_source = validation\n' >> run.ini; expect="run.ini:23: privacy.prior_source = validation: a GP prior .* voids the guarantee" ;;
  privacy_alg1_ei)  write_base; sed -i 's/^\[objective\]/[ucb]\nacquisition = ei\n[objective]/' run.ini; printf '[privacy]\nalgorithm = 1\n' >> run.ini; expect="only algorithm 3 allows ucb.acquisition = ei" ;;
  privacy_alg1_batch) write_base; sed -i 's/^seed = 1/seed = 1\nbatch = 4/' run.ini; printf '[privacy]\nalgorithm = 1\n' >> run.ini; expect="run.ini:4: run.batch > 1 with privacy.algorithm = 1: the released value's sensitivity" ;;
  # The private-selection methods (issue #13): Papernot-Steinke's Renyi accounting needs a
  # delta > 0, random search a split in (0, 1), each T >= 2 and a gain of known sensitivity.
  selection_ps_delta_zero) write_base; printf '[privacy]\nalgorithm = papernot_steinke\ndelta = 0\n' >> run.ini; expect="run.ini:23: privacy.delta must lie in \(0, 1\): Papernot-Steinke" ;;
  selection_split)  write_base; printf '[privacy]\nalgorithm = random_search\nsplit = 1\n' >> run.ini; expect="run.ini:23: privacy.split .*must lie in \(0, 1\)" ;;
  selection_iterations) write_base; sed -i 's/^iterations = 3/iterations = 1/' run.ini; printf '[privacy]\nalgorithm = liu_talwar\n' >> run.ini; expect="run.ini:2: run.iterations must be >= 2 with a private-selection algorithm" ;;
  selection_objective) write_base; printf '[privacy]\nalgorithm = random_search\n' >> run.ini; expect="run.ini:22: privacy.algorithm .*needs objective.kind = svm or logreg" ;;
  # privacy.algorithm = private_evaluations (issue #13): no sensitivity for an
  # objective dpbo cannot bound, K below the planned evaluations, a
  # sensitivity below the proven one, its keys under another algorithm.
  private_evals_no_sensitivity) write_base; printf '[privacy]\nalgorithm = private_evaluations\n' >> run.ini; expect="run.ini: privacy.evaluation_sensitivity is required with privacy.algorithm = private_evaluations and objective.kind = synthetic" ;;
  private_evals_max_below_planned) write_base; printf '[privacy]\nalgorithm = private_evaluations\nevaluation_sensitivity = 1\nmax_evaluations = 2\n' >> run.ini; expect="run.ini:24: privacy.max_evaluations = 2 is fewer than the run's planned evaluations \(run.iterations = 3\)" ;;
  private_evals_sensitivity_below_proven) good_rows > d.csv; write_svm_base "$work/d.csv"; printf '[privacy]\nalgorithm = private_evaluations\nevaluation_sensitivity = 0.1\n' >> run.ini; expect="run.ini:[0-9]+: privacy.evaluation_sensitivity = 0.1 is below the proven sensitivity 0.5 of objective.kind = svm" ;;
  private_evals_key_elsewhere) write_base; printf '[privacy]\nalgorithm = 1\nmax_evaluations = 5\n' >> run.ini; expect="run.ini:23: privacy.max_evaluations applies only to privacy.algorithm = private_evaluations" ;;
  private_evals_final_choice) write_base; printf '[privacy]\nalgorithm = private_evaluations\nevaluation_sensitivity = 1\nfinal_choice = best\n' >> run.ini; expect="run.ini:24: privacy.final_choice = .best. is not one of: posterior_mean, best_observed" ;;
  # privacy.algorithm = guided (issue #26): dpbo run --resume refuses it (each
  # run charges its whole budget and draws afresh) before anything is touched,
  # its settings named, a gain of known sensitivity, a delta for stage 1's
  # Gaussian.
  guided_resume_refused) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^iterations = 2/iterations = 10/' run.ini; printf '[privacy]\nalgorithm = guided\ndelta = 1e-6\n' >> run.ini; args=(--resume); expect="run.ini: privacy.algorithm = guided cannot be resumed: each dpbo run of it charges its whole budget" ;;
  guided_evaluations_too_many) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^iterations = 2/iterations = 10/' run.ini; printf '[privacy]\nalgorithm = guided\ndelta = 1e-6\nguided_evaluations = 9\n' >> run.ini; expect="run.ini:[0-9]+: privacy.guided_evaluations = 9 must lie between 1 and run.iterations - 2 = 8" ;;
  guided_weight_zero) write_base; printf '[privacy]\nguided_weight = 0\n' >> run.ini; expect="run.ini:22: privacy.guided_weight must lie in \(0, 1\]" ;;
  guided_objective) write_base; printf '[privacy]\nalgorithm = guided\ndelta = 1e-6\n' >> run.ini; expect="run.ini: privacy.algorithm = guided needs objective.kind = svm or logreg" ;;
  guided_delta_zero) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^iterations = 2/iterations = 10/' run.ini; printf '[privacy]\nalgorithm = guided\ndelta = 0\n' >> run.ini; expect="run.ini:[0-9]+: privacy.delta must lie in \(0, 1\): stage 1's discrete Gaussian" ;;
  compare_guided_base) write_base; printf '[privacy]\nguided_base = private_evaluations\n' >> run.ini; command=compare; expect="run.ini:22: privacy.guided_base = .private_evaluations. is not one of: liu_talwar, papernot_steinke, random_search" ;;
  # [compare] is read by every command (strict keys); dpbo compare's own refusals.
  compare_unknown_key) write_base; printf '[compare]\nrepeats = 3\n' >> run.ini; expect="run.ini:22: unknown key 'repeats' in \[compare\]" ;;
  compare_epsilons) write_base; printf '[compare]\nepsilons = 1 0.5\n' >> run.ini; expect="run.ini:22: compare.epsilons must be 1 to 32 positive numbers in increasing order" ;;
  compare_repetitions) write_base; printf '[compare]\nrepetitions = 0\n' >> run.ini; expect="run.ini:22: compare.repetitions = 0 is outside" ;;
  compare_ps_eta)   write_base; printf '[compare]\nps_eta = -1\n' >> run.ini; expect="run.ini:22: compare.ps_eta .*must lie in \[0, 10\]" ;;
  compare_not_svm)  write_base; printf '[privacy]\nalgorithm = 1\n' >> run.ini; command=compare; expect="dpbo compare needs objective.kind = svm" ;;
  compare_no_test_rows) good_rows > d.csv; write_svm_base "$work/d.csv"; printf '[privacy]\nalgorithm = 1\n' >> run.ini; command=compare; expect="run.ini: dpbo compare needs held-out rows: set objective.test_rows >= 1" ;;
  compare_no_privacy) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^validation_rows = 2/validation_rows = 2\ntest_rows = 1/' run.ini; command=compare; expect="run.ini: dpbo compare runs DP-BO with privacy.algorithm = 1" ;;
  compare_test_rows_negative) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^validation_rows = 2/validation_rows = 2\ntest_rows = -1/' run.ini; expect="run.ini:[0-9]+: objective.test_rows = -1 is outside" ;;
  command_path_missing) write_base; sed -i 's/^kind = synthetic/kind = command/; s|^function = branin|command = ./nosuchprog|' run.ini; expect="command program './nosuchprog' No such file or directory" ;;
  command_path_not_executable) write_base; printf 'echo 1\n' > prog.sh; sed -i 's/^kind = synthetic/kind = command/; s|^function = branin|command = ./prog.sh|' run.ini; expect="command program './prog.sh' is not an executable file" ;;
  label_column_word) write_svm_base "$work/d.csv"; good_rows > d.csv; sed -i 's/^\[objective\]/[objective]\nlabel_column = first/' run.ini; expect="run.ini:[0-9]+: objective.label_column must be 'last' or a column number from 1" ;;
  header_with_libsvm) write_svm_base "$work/d.csv"; good_rows > d.csv; sed -i 's/^\[objective\]/[objective]\nformat = libsvm\nheader = yes/' run.ini; expect="objective.header applies to CSV files" ;;
  utility_missing_run) command=utility; config=$work/nope.h5; expect="cannot open run file $work/nope.h5: No such file or directory" ;;
  release_missing_run) command=release; config=$work/nope.h5; expect="cannot open run file $work/nope.h5: No such file or directory" ;;
  info_missing_run) command=info; config=$work/nope.h5; expect="cannot open run file $work/nope.h5: No such file or directory" ;;
  ucb_memory_limit_word) write_base; printf '[ucb]\nmemory_limit_mb = lots\n' >> run.ini; expect="run.ini:22: ucb.memory_limit_mb must be auto, off, or a positive number of MiB per rank \(got 'lots'\)" ;;
  ucb_memory_limit_negative) write_base; args=(--set ucb.memory_limit_mb=-5); expect="--set ucb.memory_limit_mb: ucb.memory_limit_mb must be auto, off, or a positive number" ;;
  ucb_memory_limit_tiny) write_base; printf '[ucb]\nmemory_limit_mb = 0.001\n' >> run.ini; expect="run.ini: ucb.memory_limit_mb = 0.001 \(rank [01]\): the UCB state of 32 candidates needs .* MiB even in recompute mode" ;;
  # Issue #11: hostile files. A FIFO used to block open() forever (the
  # timeout below turns a hang into a failure); a NUL byte cut the line short
  # unseen; an over-long --set value was reported as "run.ini:0".
  fifo_config)      mkfifo run.fifo; config=run.fifo; expect="cannot read config file run.fifo: it is a FIFO" ;;
  nul_config)       write_base; sed -i 's/^seed = 1/seed = 1\x00; iterations = 1000000/' run.ini; expect="run.ini:3: contains a NUL byte" ;;
  long_set)         write_base; args=(--set "output.name=$(head -c 5000 /dev/zero | tr '\0' n)"); expect="^dpbo: error: --set output.name: value too long \(5000 characters, at most 4095\)" ;;
  fifo_data)        mkfifo d.csv; write_svm_base "$work/d.csv"; expect="cannot read dataset $work/d.csv: it is a FIFO" ;;
  fifo_list)        write_base; sed -i 's/^kind = sobol/kind = list\nfile = list.txt/; /^points/d' run.ini; mkfifo list.txt; expect="cannot read candidate list list.txt: it is a FIFO" ;;
  # An output path Open MPI cannot take used to abort inside MPI_File_open
  # ("buffer overflow detected", exit 134).
  long_output_dir)  write_base; args=(--set "output.dir=$work/$(printf 'a%.0s' {1..100})/$(printf 'b%.0s' {1..100})/$(printf 'c%.0s' {1..100})"); expect="--set output.dir: output.dir and output.name are too long: .* at most 200" ;;
  # A LIBSVM feature index is checked before the dense matrix is allocated
  # (index 2^31-1 asked for 96 GiB); the limit is stated and configurable.
  libsvm_huge_index) printf '1 2147483647:1\n2 1:1\n1 1:2\n2 2:1\n1 1:3\n2 2:2\n' > d.svm; write_svm_base "$work/d.svm"; expect="d.svm:1: feature index 2147483647 exceeds the limit of 100000 features \(set max_features" ;;
  k1sweep_max_features) printf '1 1:1\n2 11:1\n1 1:2\n2 2:1\n1 1:3\n2 2:2\n' > d.svm; command=k1sweep
    printf '[k1sweep]\ndata = %s\ntrain_rows = 2\nmodels = 2\nsizes = 2\nsets = 1\nmax_features = 10\n[space]\ndim.C = log 1 10\ndim.gamma = log 0.1 1\n[output]\ndir = %s/out\nname = k1\n' "$work/d.svm" "$work" > run.ini
    expect="d.svm:2: feature index 11 exceeds the limit of 10 features" ;;
  libsvm_max_features) printf '1 1:1\n2 1:1\n1 1:2\n2 11:1\n1 1:3\n2 2:2\n' > d.svm; write_svm_base "$work/d.svm"; sed -i 's/^\[objective\]/[objective]\nmax_features = 10/' run.ini; expect="d.svm:4: feature index 11 exceeds the limit of 10 features" ;;
  # The IDX reader (issue #13): files named, with the byte where it went wrong.
  idx_missing_labels) write_idx_base; rm lb.idx1; expect="cannot open IDX labels file $work/lb.idx1: No such file or directory" ;;
  idx_wrong_magic)  write_idx_base; good_rows > im.idx3; expect="$work/im.idx3: not an IDX file: it begins with bytes 0x30 0x2e" ;;
  idx_truncated)    write_idx_base; idx_images | head -c 25 > im.idx3; expect="$work/im.idx3: truncated IDX file: it ends at byte 25, in image 5 of 6" ;;
  idx_count_mismatch) write_idx_base; idx_labels | head -c 13 | sed 's/\x06/\x05/' > lb.idx1; expect="$work/im.idx3 has 6 images but $work/lb.idx1 has 5 labels" ;;
  idx_float_type)   write_idx_base; idx_images | sed 's/^\x00\x00\x08/\x00\x00\x0d/' > im.idx3; expect="$work/im.idx3: byte 2: IDX data type 0x0d \(float\) is not supported" ;;
  idx_labels_ndim)  write_idx_base; idx_images > lb.idx1; expect="$work/lb.idx1: byte 3: a labels file has 1 dimension \(one label per row\), this one 3" ;;
  idx_no_labels_key) write_idx_base; sed -i '/^labels = /d' run.ini; expect="objective.labels is required with objective.format = idx" ;;
  idx_labels_with_csv) write_idx_base; sed -i 's/^format = idx/format = csv/' run.ini; expect="run.ini:[0-9]+: objective.labels applies to IDX files" ;;
  # Feature weights of the svm objective (dim.weight.K, issue #13 item 4): a
  # feature 0, a feature past the data's 2 (dpbo run and dpbo compare), a
  # range below 0, a weight on the logreg objective; and compare still refuses
  # an unknown dimension by its key.
  svm_weight_index_zero) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.gamma = log 0.01 1/&\ndim.weight.0 = log 0.1 10/' run.ini; expect="run.ini:8: space.dim.weight.0 is not a feature weight" ;;
  svm_weight_beyond_features) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.gamma = log 0.01 1/&\ndim.weight.3 = log 0.1 10/' run.ini; expect="space.dim.weight.3 weighs feature 3, but $work/d.csv has 2 features" ;;
  compare_weight_beyond_features) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.gamma = log 0.01 1/&\ndim.weight.3 = log 0.1 10/; s/^validation_rows = 2/validation_rows = 1\ntest_rows = 1/' run.ini; printf '[privacy]\nalgorithm = 1\n' >> run.ini; command=compare; expect="run.ini: dpbo compare: svm objective: space.dim.weight.3 weighs feature 3, but $work/d.csv has 2 features" ;;
  svm_weight_negative_range) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.gamma = log 0.01 1/&\ndim.weight.2 = linear -1 1/' run.ini; expect="run.ini:8: space.dim.weight.2 reaches below 0" ;;
  logreg_weight) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^kind = svm/kind = logreg/; s/^dim.C = .*/dim.lambda = log 0.01 1/; s/^dim.gamma = .*/dim.weight.1 = log 0.1 10/' run.ini; printf '[privacy]\nalgorithm = 3\n' >> run.ini; expect="run.ini:7: space.dim.weight.1 is a feature weight, which only objective.kind = svm takes" ;;
  compare_unknown_dim) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.gamma = log 0.01 1/&\ndim.degree = linear 1 5/; s/^validation_rows = 2/validation_rows = 1\ntest_rows = 1/' run.ini; printf '[privacy]\nalgorithm = 1\n' >> run.ini; command=compare; expect="run.ini: dpbo compare: svm objective: unknown dimension 'degree' \(space.dim.degree\)" ;;
  # Mistakes that used to spend epsilon on failures or garbage (the front-door
  # issue): C or gamma ranges reaching 0 or below (every evaluation there fails
  # in LIBSVM), and a label-first CSV read with label_column = last, whose last
  # column (a feature of 30 distinct integers) became 30 "classes".
  svm_c_nonpositive) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.C = log 0.1 10/dim.C = linear -1 10/' run.ini; expect="run.ini:6: space.dim.C reaches 0 or below: .* must lie in \(0, infinity\)" ;;
  svm_gamma_zero)   good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^dim.gamma = log 0.01 1/dim.gamma = linear 0 1/' run.ini; expect="run.ini:7: space.dim.gamma reaches 0 or below" ;;
  logreg_lambda_zero) good_rows > d.csv; write_svm_base "$work/d.csv"; sed -i 's/^kind = svm/kind = logreg/; s/^dim.C = .*/dim.lambda = linear 0 1/; /^dim.gamma/d' run.ini; printf '[privacy]\nalgorithm = 3\n' >> run.ini; expect="run.ini:6: space.dim.lambda reaches 0 or below" ;;
  label_wrong_column) for i in $(seq 1 30); do echo "$((i % 2 + 1)),0.$i,$((100 + i))"; done > d.csv; write_svm_base "$work/d.csv"; expect="$work/d.csv: the label column holds 30 distinct values in 30 rows, which cannot be class labels .* set objective.label_column" ;;
  # Issue #27: a folder without write permission said it did not exist (as
  # root, the launch drops the capabilities that ignore permissions).
  output_readonly)  write_base; mkdir ro; chmod 555 ro; args=(--set "output.dir=$work/ro")
    if [[ $(id -u) -eq 0 ]]; then
      command -v setpriv > /dev/null || { echo "SKIP: root without setpriv cannot be denied a write"; exit 77; }
      wrap=(setpriv --bounding-set=-dac_override,-dac_read_search)
    fi
    expect="cannot create the lock file $work/ro/.run.h5.lock of $work/ro/run.h5: Permission denied \(the folder is not writable\)" ;;
  # Issue #27: GP values whose squares overflow said every evaluation had
  # failed, or that a zero noise needs a jitter.
  gp_mean_huge)     write_base; sed -i 's/^mean = 0/mean = 1e308/' run.ini; expect="run.ini:12: gp.mean must be at most 1e\+100 in magnitude \(the GP squares it" ;;
  gp_noise_huge)    write_base; sed -i 's/^noise_std = 1/noise_std = 1e308/' run.ini; expect="run.ini:14: gp.noise_std must be at most 1e\+100 in magnitude" ;;
  gp_noise_ratio)   write_base; sed -i 's/^signal_std = 50/signal_std = 1e-60/; s/^noise_std = 1/noise_std = 1e50/' run.ini; expect="run.ini:14: gp.noise_std must be at most 1e\+100 times gp.signal_std" ;;
  # Issue #27: a key of another space.kind suggested itself; a 1e308 feature
  # became NaN after the svm's scaling.
  list_with_points) write_base; sed -i 's/^kind = sobol/kind = list\nfile = list.txt/' run.ini; printf '0 0\n1 1\n' > list.txt; expect="run.ini:7: space.points applies only with space.kind = sobol \(this config has space.kind = list\): remove it" ;;
  huge_value)       good_rows > d.csv; echo "1e308,0.5,1" >> d.csv; write_svm_base "$work/d.csv"; expect="d.csv:7: column 1 is '1e308', beyond ±8.99e\+307: min-max scaling" ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac

# A hang (a FIFO opened for reading waits for a writer) fails the case
# instead of blocking the suite.
timeout -k 10 120 "${wrap[@]}" "$mpiexec" -n 2 --oversubscribe "$bin" "$command" "$config" "${args[@]}" > stdout.txt 2> stderr.txt
code=$?
fail=0
if [[ $code -ne 2 ]]; then echo "FAIL: exit code $code, expected 2"; fail=1; fi
if ! grep -Eq -- "$expect" stderr.txt; then echo "FAIL: stderr does not match /$expect/"; fail=1; fi
# One message, from rank 0 only (mpiexec may add its own notice lines).
n=$(grep -c "dpbo: error:" stderr.txt)
if [[ $n -ne 1 ]]; then echo "FAIL: $n error lines, expected 1"; fail=1; fi
# -mindepth 1: the work folder itself is no output (mktemp's random suffix
# may start with "h5": tmp.h5...).
if [[ -n $(find "$work" -mindepth 1 -name '*.h5*' -print -quit) ]]; then echo "FAIL: an output file was written"; fail=1; fi
# No epsilon spent: no ledger line (the ledger is made by the first charge).
if [[ -n $(find "$work" -mindepth 1 -name 'dpbo-ledger*' -print -quit) ]]; then echo "FAIL: the ledger was written"; fail=1; fi
# Checked before the first evaluation: no progress line was printed.
if grep -q '^\[[0-9]*/[0-9]*\]' stdout.txt stderr.txt; then echo "FAIL: an evaluation ran before the error"; fail=1; fi
echo "--- stderr:"; cat stderr.txt
exit $fail
