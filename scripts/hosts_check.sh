#!/usr/bin/env bash
# GPU hosts on real GPUs (issue 25, docs/hosts.md): on a machine with two GPUs (nvidia-h100-x2),
# from an unpacked bundle. One sweep — example problems at two sizes each, the tuner (random
# search, fixed seed), ITERATIONS iterations of K = BRANCHES — three times:
#   A  one `warpforge run` on both GPUs (gpus = [0, 1]): the baseline;
#   B  a coordinator and two `warpforge host` processes, CUDA_VISIBLE_DEVICES=0 and =1, over
#      127.0.0.1 with TLS (a campaign credential made here): wall time against A's;
#   C  as B, host 1 killed (SIGKILL) once a third of A's measurements are recorded: the campaign
#      must finish on host 0 with nothing lost (every branch with an outcome, no measurement row
#      repeated, no gap in the event sequence, a race given back).
# Prints each run's wall time, measured candidates and per-GPU counts, the champions side by side,
# and last "hosts: B/A wall X.XX (within 10%: yes|no); C finished on one host after a kill: yes|no".
#
#   tar xzf warpforge-*.tar.gz -C /tmp/W && scripts/hosts_check.sh /tmp/W/warpforge-<version>-linux-x86_64
#   ITERATIONS=3 BRANCHES=4 PROBLEMS="transpose row_reduction softmax" scripts/hosts_check.sh <install-dir>
#
# Needs python3 (its sqlite3 module reads the stores) and the `openssl` tool (the credential).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/scripts/sweep_jobs.sh"
sweep_install hosts_check "${1:-}" || exit 2
run_limit="${RUN_LIMIT:-240}" # seconds per campaign
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT
say() { echo "hosts_check: $*" >&2; }

declare -A sizes=(
  [transpose]="ROWS=4096,COLS=4096 ROWS=8192,COLS=8192"
  [row_reduction]="ROWS=8192 ROWS=32768"
  [softmax]="ROWS=8192 ROWS=32768"
  [vector_add]="N=8388608 N=33554432"
)
jobs_toml="$(sweep_jobs "$work" "$examples" sizes ${PROBLEMS:-transpose row_reduction softmax})"$'\n'
write_campaign() { # label gpu-list
  printf 'name = "hosts-%s"\nrun_root = "%s/runs-%s"\ngpus = [%s]\n%s' "$1" "$work" "$1" "$2" "$jobs_toml"
  printf '[budget]\niterations = %s\nbranches = %s\npatience = 10\nwall_time_s = 3600.0\n' \
    "${ITERATIONS:-3}" "${BRANCHES:-4}"
  printf '[proposer]\nkind = "tune"\nstrategy = "random"\nseed = 7\n[feed]\nendpoint = "tcp://127.0.0.1:*"\n'
}
db_of() { ls -d "$work/runs-$1"/*/warpforge.db 2>/dev/null | head -1; }
sql() { python3 -c 'import sqlite3, sys; [print("|".join(map(str, r))) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]' "$(db_of "$1")" "$2"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$warpforge" host --new-credential "$work/credential" >/dev/null || { say "no credential made"; exit 1; }

# A host on one GPU at a port; its pid in $work/host-<label>.pid.
start_host() { # label gpu port
  CUDA_VISIBLE_DEVICES="$2" "$warpforge" host --credential "$work/credential" --listen "127.0.0.1:$3" \
    --work-dir "$work/host-$1" >"$work/host-$1.out" 2>"$work/host-$1.err" &
  echo $! >"$work/host-$1.pid"
  pids+=("$(cat "$work/host-$1.pid")")
  for _ in $(seq 1 300); do
    grep -q "GPU(s) on" "$work/host-$1.err" && return 0
    kill -0 "$(cat "$work/host-$1.pid")" 2>/dev/null || { cat "$work/host-$1.err" >&2; say "host $1 did not start"; exit 1; }
    sleep 0.1
  done
  say "host $1 did not say where it listens"; exit 1
}

timed_run() { # label [warpforge run arguments...]; prints the wall seconds
  local label="$1"; shift
  write_campaign "$label" "0, 1" >"$work/$label.toml"
  local start end rc
  start=$(date +%s.%N)
  timeout "$run_limit" "$warpforge" run "$work/$label.toml" --quiet "$@" >"$work/$label.out" 2>"$work/$label.err"
  rc=$?
  end=$(date +%s.%N)
  [[ $rc -eq 0 ]] || { tail -20 "$work/$label.err" >&2; say "run $label failed (exit $rc)"; exit 1; }
  python3 -c "print(f'{$end - $start:.2f}')"
}
describe() { # label wall
  say "$1: $2 s wall; $(sql "$1" "SELECT count(*) FROM measurements") measurements;" \
      "per GPU: $(sql "$1" "SELECT gpu || ':' || count(*) FROM measurements GROUP BY gpu ORDER BY gpu" | tr '\n' ' ')"
}
champions() { sql "$1" "SELECT name, state, printf('%.3e', best_time_s) FROM jobs ORDER BY name"; }

wall_a=$(timed_run a) && describe a "$wall_a"

p0=$(free_port); p1=$(free_port)
start_host b0 0 "$p0"; start_host b1 1 "$p1"
wall_b=$(timed_run b --credential "$work/credential" --host "127.0.0.1:$p0" --host "127.0.0.1:$p1") && describe b "$wall_b"
kill "$(cat "$work/host-b0.pid")" "$(cat "$work/host-b1.pid")"; wait "$(cat "$work/host-b0.pid")" "$(cat "$work/host-b1.pid")" 2>/dev/null

say "champions, A | B:"
paste -d'#' <(champions a) <(champions b) | sed 's/#/   |   /' >&2

# C: host 1 killed once a third of A's measurements are recorded.
p0=$(free_port); p1=$(free_port)
start_host c0 0 "$p0"; start_host c1 1 "$p1"
kill_at=$(( $(sql a "SELECT count(*) FROM measurements") / 3 ))
(
  for _ in $(seq 1 3000); do
    db="$(db_of c)"
    if [[ -n "$db" ]] && (( $(sql c "SELECT count(*) FROM measurements" 2>/dev/null || echo 0) >= kill_at )); then
      kill -9 "$(cat "$work/host-c1.pid")"; echo "killed host 1 at $(sql c "SELECT count(*) FROM measurements") measurements" >"$work/killed"
      exit 0
    fi
    sleep 0.2
  done
) &
killer=$!
wall_c=$(timed_run c --credential "$work/credential" --host "127.0.0.1:$p0" --host "127.0.0.1:$p1") && describe c "$wall_c"
wait "$killer"
killed="$(cat "$work/killed" 2>/dev/null)"
say "C: ${killed:-host 1 was never killed (the run ended first)}"
open_branches=$(sql c "SELECT count(*) FROM branches WHERE outcome IS NULL")
gaps=$(sql c "SELECT max(seq) - count(*) FROM events")
given_back=$(sql c "SELECT count(*) FROM events WHERE type = 'gpu_released' AND json LIKE '%out_of_service%'")
state=$(sql c "SELECT state FROM campaigns")
per_branch_a=$(sql a "SELECT max(n) FROM (SELECT count(*) AS n FROM measurements GROUP BY branch_id)")
per_branch_c=$(sql c "SELECT max(n) FROM (SELECT count(*) AS n FROM measurements GROUP BY branch_id)")
say "C: campaign $state; branches without an outcome: $open_branches; event seq gaps: $gaps; races given back: $given_back;" \
    "most measurement rows of one branch: $per_branch_c (A: $per_branch_a)"
say "C: log lines about the loss:"; grep -E "\[hosts\]" "$work/c.err" | head -5 >&2

ratio=$(python3 -c "print(f'{$wall_b / $wall_a:.2f}')")
within=$(python3 -c "print('yes' if $wall_b <= 1.10 * $wall_a else 'no')")
survived=no
[[ -n "$killed" && "$state" == finished && "$open_branches" == 0 && "$gaps" == 0 && "$given_back" -ge 1 && \
   "$per_branch_c" == "$per_branch_a" ]] && survived=yes
echo "hosts: B/A wall $ratio (within 10%: $within); C finished on one host after a kill: $survived"
