#!/usr/bin/env bash
# A one-node Slurm cluster on 127.0.0.1 from Debian's packages (slurmctld, slurmd, slurm-client,
# munge), for the tests labelled `slurm` (docs/hosts.md, "Testing with a one-node cluster").
# Everything it makes — munge key, slurm.conf, gres.conf, state, spool, logs, sockets, pid files —
# lies in one folder, and `stop` ends the daemons it started (by their pid files) and removes it.
#
#   slurm_cluster.sh start DIR   start munged, slurmctld and slurmd; wait until the node is idle;
#                                print `SLURM_CONF=DIR/slurm.conf` (set it for sbatch, squeue, ...)
#   slurm_cluster.sh stop DIR    stop them and remove DIR
#
# The node offers `gpu:2` with no GPU behind it (gres.conf names two stand-in device files in DIR,
# and task/none binds nothing), so the hosts' `--gres=gpu:N` is scheduled on any machine. Exit
# status 77 means the cluster cannot run here (Slurm not installed, not root, a daemon that would
# not start or a node that never became idle): the reason and the daemons' last log lines are
# printed, and the tests report themselves skipped with it.
set -euo pipefail

readonly cannot_run=77
readonly gpus=2
readonly idle_timeout_s=60

usage() {
  echo "usage: $0 start|stop DIR" >&2
  exit 2
}

[[ $# -eq 2 ]] || usage
action=$1
dir=$2

# Says why, ends whatever was started, and exits 77.
skip() {
  echo "slurm_cluster: cannot run a Slurm cluster here: $*" >&2
  [[ $started == yes ]] && stop_cluster
  exit "$cannot_run"
}
started=no

# A TCP port nobody listens on now, from the kernel's ephemeral range.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The last lines of a daemon's log, for the reason a start failed.
log_tail() {
  [[ -f $1 ]] && tail -n 15 "$1" | sed 's/^/  | /' >&2 || true
}

stop_daemon() { # pid file
  [[ -f $1 ]] || return 0
  local pid
  pid=$(cat "$1")
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || return 0
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
}

stop_cluster() {
  [[ -d $dir ]] || return 0
  # Jobs first, while slurmctld can still end them; then the daemons, slurmd before its controller.
  if [[ -f $dir/slurm.conf && -f $dir/slurmctld.pid ]]; then
    SLURM_CONF=$dir/slurm.conf scancel --user=root >/dev/null 2>&1 || true
  fi
  stop_daemon "$dir/slurmd.pid"
  stop_daemon "$dir/slurmctld.pid"
  stop_daemon "$dir/munged.pid"
  [[ -f $dir/slurm.conf ]] && rm -rf "$dir" # only a folder this script made a cluster in
}

start_cluster() {
  for tool in munged mungekey slurmctld slurmd sinfo sbatch squeue scancel srun python3; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
      skip "'$tool' is not installed (scripts/setup.sh installs slurmctld, slurmd, slurm-client and munge)"
  done
  [[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs as their owner (uid $(id -u) here)"
  PATH=$PATH:/usr/sbin

  mkdir -p "$dir"
  started=yes
  # munged wants its socket's folders searchable by all, and its key's folder private.
  chmod 0755 "$dir"
  dir=$(cd "$dir" && pwd)
  mkdir -p "$dir/state" "$dir/spool/localhost" "$dir/munge" "$dir/socket"
  chmod 0700 "$dir/munge"
  chmod 0755 "$dir/socket"

  # munge: a fresh key for this cluster only, its own socket (not the system's /run/munge).
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
  munged --socket="$dir/socket/munge" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" ||
    { log_tail "$dir/munged.log"; skip "munged did not start"; }

  local ctld_port slurmd_port cpu_line memory_mb
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(free_port); done
  # The machine's own CPU layout, as slurmd sees it: a node described otherwise is drained.
  cpu_line=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]* //' -e 's/ RealMemory=[0-9]*//')
  memory_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 / 2) }' /proc/meminfo)

  cat >"$dir/slurm.conf" <<EOF
ClusterName=warpforge-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/socket/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups: plain process tracking, no task binding, no accounting (a container has no
# delegated cgroup tree to give slurmd).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=2
NodeName=localhost NodeAddr=127.0.0.1 $cpu_line RealMemory=$memory_mb Gres=gpu:$gpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  # Slurm drops a GPU with no File, but only names the file (task/none binds nothing): stand-ins
  # for /dev/nvidia0.. , so no GPU has to exist. Character devices (the null device's numbers)
  # where mknod is allowed, so slurmd takes them as GPUs and sets CUDA_VISIBLE_DEVICES; else
  # empty files, which it still counts (its log says they are not devices).
  mkdir -p "$dir/dev"
  for ((i = 0; i < gpus; i++)); do
    mknod "$dir/dev/nvidia$i" c 1 3 2>/dev/null || : >"$dir/dev/nvidia$i"
  done
  cat >"$dir/gres.conf" <<EOF
AutoDetect=off
NodeName=localhost Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]
EOF

  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" || { log_tail "$dir/slurmctld.log"; skip "slurmctld did not start"; }
  slurmd -f "$SLURM_CONF" -N localhost || { log_tail "$dir/slurmd.log"; skip "slurmd did not start"; }

  local state=""
  for _ in $(seq $((idle_timeout_s * 2))); do
    state=$(sinfo --noheader --nodes=localhost --format=%T 2>/dev/null || true)
    [[ $state == idle || $state == inval || $state == drain* || $state == down* ]] && break
    sleep 0.5
  done
  if [[ $state != idle ]]; then
    echo "slurm_cluster: the node is '${state:-not known}' after ${idle_timeout_s} s, not idle" >&2
    log_tail "$dir/slurmctld.log"
    log_tail "$dir/slurmd.log"
    stop_cluster # a cluster that starts but never serves is a failure of the fixture, not a skip
    exit 1
  fi
  echo "SLURM_CONF=$SLURM_CONF"
}

case $action in
  start) start_cluster ;;
  stop) stop_cluster ;;
  *) usage ;;
esac
