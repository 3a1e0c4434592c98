#!/bin/sh
# Starts two ranks of a program the way srun or MPICH's launcher would on
# one node: each gets only that launcher's variables (no RANK), plus
# MASTER_ADDR/MASTER_PORT and DDP_HARNESS_RUN_DIR as a job script exports them.
#   ranks-by-hand.sh slurm|pmi RUN_DIR PROGRAM [ARGS...]
set -eu
kind=$1 dir=$2
shift 2
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$dir"
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE
export MASTER_ADDR=127.0.0.1 MASTER_PORT=$port DDP_HARNESS_RUN_DIR=$dir OMP_NUM_THREADS=1
pids=
for r in 0 1; do
  if [ "$kind" = slurm ]; then
    env SLURM_PROCID=$r SLURM_NTASKS=2 SLURM_LOCALID=$r SLURM_TASKS_PER_NODE='2(x1)' "$@" > "$dir/../out-$kind-$r.txt" 2>&1 &
  else
    env PMI_RANK=$r PMI_SIZE=2 MPI_LOCALRANKID=$r "$@" > "$dir/../out-$kind-$r.txt" 2>&1 &
  fi
  pids="$pids $!"
done
status=0
for pid in $pids; do wait "$pid" || status=1; done
exit $status
