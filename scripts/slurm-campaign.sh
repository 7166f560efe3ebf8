#!/usr/bin/env bash
# A ptxmm hardware campaign as a Slurm array job: one task per GPU, each running its shard of the
# tests (`ptxmm campaign run --shard I/N`) into its own store, then one job merging the stores
# (`ptxmm campaign merge`). Slurm schedules, requeues and spreads the tasks over nodes; a requeued or
# re-submitted task resumes its store (finished runs are kept, re-running them is a no-op).
#   scripts/slurm-campaign.sh submit N OUTDIR [campaign run options and tests...]
#       submits the array (N tasks, one GPU each) and the merge job (after the array ends, whatever
#       its tasks' exit status); the merged store is OUTDIR/campaign.db
#   scripts/slurm-campaign.sh task OUTDIR [options and tests...]     (what each array task runs)
#   scripts/slurm-campaign.sh merge OUTDIR                           (what the merge job runs)
# Environment: PTXMM (default: ptxmm on PATH, or ptxmm-hw for machines without the checker, with
# --model-states), SBATCH_ARGS (extra sbatch options: partition, account, time).
set -euo pipefail
PTXMM=${PTXMM:-ptxmm}
mode=${1:?usage: slurm-campaign.sh submit N OUTDIR [options and tests...] | task OUTDIR ... | merge OUTDIR}
shift
case "$mode" in
  submit)
    n=${1:?N tasks}; out=${2:?OUTDIR}; shift 2
    mkdir -p "$out"
    self=$(realpath "$0")
    # shellcheck disable=SC2086
    job=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=ptxmm-campaign --array=0-$((n - 1)) --gpus-per-task=1 \
      --ntasks=1 --output="$out/task-%a.log" --export=ALL,PTXMM="$PTXMM" "$self" task "$out" "$@")
    # shellcheck disable=SC2086
    sbatch ${SBATCH_ARGS:-} --job-name=ptxmm-merge --dependency=afterany:"$job" --output="$out/merge.log" \
      --export=ALL,PTXMM="$PTXMM" "$self" merge "$out"
    echo "submitted array job $job ($n tasks); merged store: $out/campaign.db"
    ;;
  task)
    out=${1:?OUTDIR}; shift
    i=${SLURM_ARRAY_TASK_ID:?run as a Slurm array task}
    n=${SLURM_ARRAY_TASK_COUNT:?run as a Slurm array task}
    exec "$PTXMM" campaign run --db "$out/task-$i.db" --shard "$i/$n" --no-progress "$@"
    ;;
  merge)
    out=${1:?OUTDIR}
    shopt -s nullglob
    stores=("$out"/task-*.db)
    ((${#stores[@]} > 0)) || { echo "no task stores in $out" >&2; exit 2; }
    "$PTXMM" campaign merge "$out/campaign.db" "${stores[@]}"
    "$PTXMM" campaign coverage "$out/campaign.db" > "$out/coverage.txt" || true
    ;;
  *)
    echo "unknown mode $mode (submit, task, merge)" >&2
    exit 2
    ;;
esac
