#!/bin/sh
# A stand-in for `warpforge host` in the Slurm tests: records how srun started it, in a marker
# file in its credential folder, then waits to be cancelled (exec: the recorded pid is the sleep).
#
#   stand_in_host.sh host --coordinator HOST:PORT --credential DIR
set -eu
marker="$5/host-${SLURM_JOB_ID:-none}.marker"
{
  echo "pid=$$"
  echo "args=$*"
  echo "job=${SLURM_JOB_ID:-}"
  echo "gpus_on_node=${SLURM_GPUS_ON_NODE:-}"
  echo "tasks=${SLURM_NTASKS:-}"
} >"$marker.tmp"
mv "$marker.tmp" "$marker"
exec sleep 600
