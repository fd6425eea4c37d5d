#!/usr/bin/env bash
# sbatch with a pre-flight check: the job's request must fit a node of its
# partition, or this exits 2 with the reason instead of submitting.
#   jobs/submit.sh [sbatch options] SCRIPT [script arguments]
#   e.g. jobs/submit.sh jobs/bo.sbatch configs/demo.ini
#        jobs/submit.sh --ntasks=2 jobs/k1sweep.sbatch configs/k1sweep-small.ini
# Why: a job that asks for more CPUs or memory per node than any node of the
# partition has is accepted by sbatch (unless the cluster sets
# EnforcePartLimits) and then stays pending for ever with the reason
# "PartitionConfig" or "Resources"; jobs/bo.sbatch asks for 4 tasks, more
# than a 2-CPU test node has. The request is read as sbatch reads it: the
# script's #SBATCH lines, then the options given here, which win. Checked
# for the one-node jobs of jobs/ (--nodes=1): tasks x CPUs per task against
# the node with the most CPUs, their memory (--mem-per-cpu or --mem) against
# the node with the most memory, and --time against the partition's limit.
# When the request fits (or sinfo cannot say), the arguments go to sbatch
# unchanged.
set -uo pipefail
say() { echo "submit: $*" >&2; }

# The script: the first argument that is a file beginning with "#!".
script=
for arg in "$@"; do
  if [[ -f $arg ]] && [[ $(head -c 2 "$arg") == '#!' ]]; then script=$arg; break; fi
done
[[ -n $script ]] || { say "no batch script among the arguments (usage: jobs/submit.sh [sbatch options] SCRIPT [args])"; exit 2; }

# The request: #SBATCH lines up to the first command, then the options
# before the script.
ntasks=1 cpt=1 nodes=1 partition= mem_per_cpu= mem= time=
take() { # take OPTION VALUE
  case $1 in
    -n|--ntasks) ntasks=$2 ;;
    -c|--cpus-per-task) cpt=$2 ;;
    -N|--nodes) nodes=$2 ;;
    -p|--partition) partition=$2 ;;
    --mem-per-cpu) mem_per_cpu=$2 mem= ;;
    --mem) mem=$2 mem_per_cpu= ;;
    -t|--time) time=$2 ;;
  esac
}
words=()
while IFS= read -r line; do
  [[ $line =~ ^#SBATCH[[:space:]]+(.*)$ ]] && { read -ra w <<< "${BASH_REMATCH[1]}"; words+=("${w[@]}"); continue; }
  [[ -z ${line//[[:space:]]/} || $line == \#* ]] || break
done < "$script"
for arg in "$@"; do [[ $arg == "$script" ]] && break; words+=("$arg"); done
for (( i = 0; i < ${#words[@]}; i++ )); do
  w=${words[i]}
  case $w in
    --*=*) take "${w%%=*}" "${w#*=}" ;;
    -n|-c|-N|-p|-t|--ntasks|--cpus-per-task|--nodes|--partition|--mem-per-cpu|--mem|--time)
      take "$w" "${words[i + 1]:-}"; i=$(( i + 1 )) ;;
    -[ncNpt]?*) take "${w:0:2}" "${w:2}" ;;
  esac
done

# Megabytes of a Slurm size (K, M, G, T; M without a unit).
megabytes() {
  local v=${1%[KkMmGgTt]} unit=${1: -1}
  [[ $v =~ ^[0-9]+$ ]] || { echo -1; return; }
  case $unit in
    [Kk]) echo $(( v / 1024 )) ;; [Gg]) echo $(( v * 1024 )) ;; [Tt]) echo $(( v * 1048576 )) ;; *) echo "$v" ;;
  esac
}
# Minutes of a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; -1 for infinite).
minutes() {
  local t=$1 d=0 h=0 m=0 s=0
  [[ $t == infinite || $t == UNLIMITED ]] && { echo -1; return; }
  if [[ $t == *-* ]]; then d=${t%%-*}; t=${t#*-}; IFS=: read -r h m s <<< "$t"
  else
    IFS=: read -r a b c <<< "$t"
    if [[ -n $c ]]; then h=$a m=$b s=$c; elif [[ -n $b ]]; then m=$a s=$b; else m=$a; fi
  fi
  echo $(( 10#${d:-0} * 1440 + 10#${h:-0} * 60 + 10#${m:-0} + (10#${s:-0} > 0 ? 1 : 0) ))
}

command -v sinfo > /dev/null || { say "sinfo not found: submitting unchecked"; exec sbatch "$@"; }
if [[ -z $partition ]]; then
  partition=$(sinfo -h -o '%P' 2>/dev/null | sed -n 's/\*$//p' | head -n 1)
fi
nodeinfo=$(sinfo -h -N -p "$partition" -o '%c %m' 2>/dev/null)
limit=$(sinfo -h -p "$partition" -o '%l' 2>/dev/null | head -n 1)
[[ -n $nodeinfo ]] || { say "sinfo shows no node of partition '${partition:-(default)}': submitting unchecked"; exec sbatch "$@"; }
max_cpus=$(awk '$1 + 0 > m { m = $1 + 0 } END { print m + 0 }' <<< "$nodeinfo")
max_mem=$(awk '$2 + 0 > m { m = $2 + 0 } END { print m + 0 }' <<< "$nodeinfo")

why=()
if [[ $nodes == 1 && $ntasks =~ ^[0-9]+$ && $cpt =~ ^[0-9]+$ ]]; then
  cpus=$(( ntasks * cpt ))
  if (( cpus > max_cpus )); then
    fit=$(( max_cpus / cpt ))
    why+=("it asks for $ntasks tasks x $cpt CPU on one node, but the largest node of partition $partition has $max_cpus CPUs (ask for at most --ntasks=$fit)")
  fi
  need=-1
  [[ -n $mem_per_cpu ]] && need=$(( $(megabytes "$mem_per_cpu") * cpus ))
  [[ -n $mem ]] && need=$(megabytes "$mem")
  if (( need > max_mem && max_mem > 0 )); then
    why+=("it asks for $need MB of memory on one node, but the largest node of partition $partition has $max_mem MB (lower --mem-per-cpu or --mem)")
  fi
fi
if [[ -n $time && -n $limit ]]; then
  want=$(minutes "$time") most=$(minutes "$limit")
  if (( most >= 0 && want > most )); then
    why+=("it asks for --time=$time, but partition $partition allows at most $limit")
  fi
fi
if (( ${#why[@]} > 0 )); then
  for w in "${why[@]}"; do say "$script: $w"; done
  say "not submitted: such a job would stay pending for ever (reason PartitionConfig or Resources)"
  exit 2
fi
exec sbatch "$@"
