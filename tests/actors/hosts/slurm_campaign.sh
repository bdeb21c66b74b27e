#!/usr/bin/env bash
# A campaign with [hosts.slurm] on a one-node Slurm cluster (tests/pipeline/hosts/slurm_cluster.sh):
# `warpforge run` makes the run's credential, listens for its hosts, submits one `warpforge host
# --coordinator` per node with sbatch, measures on the host that calls back (stand-in GPU,
# tests/gpu/fake_runner.cpp), and at the end cancels the job: no job and no host process left.
# Then the same with Ctrl-C (SIGINT) in the middle: the run ends interrupted and cancels its job;
# and with the coordinator SIGKILLed: `warpforge stop <run>` cancels the job it left.
# Exit 77 (skipped) where the cluster cannot run (Slurm not installed, not root).
#
#   tests/actors/hosts/slurm_campaign.sh BUILD_DIR      (ctest: Hosts.SlurmCampaignLeavesNoJob, label slurm)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)" || exit 2
warpforge="$build/bin/warpforge"
work="$(mktemp -d)"
chmod 755 "$work" # munged wants every folder above its socket searchable
cluster="$work/cluster"
fail() { echo "slurm_campaign: FAIL: $*" >&2; exit 1; }
cleanup() { "$here/tests/pipeline/hosts/slurm_cluster.sh" stop "$cluster" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
started="$("$here/tests/pipeline/hosts/slurm_cluster.sh" start "$cluster")"
rc=$?
[[ $rc -eq 77 ]] && exit 77
[[ $rc -eq 0 ]] || fail "the cluster did not start"
export "${started##*$'\n'}" # SLURM_CONF=...
export HOME="$work/home" WARPFORGE_CACHE_DIR="$work/cache" WARPFORGE_LOCK_DIR="$work/locks"
export WARPFORGE_RUNNER="$build/tests/gpu/fake_runner" WARPFORGE_FAKE_RUNNER_MODE=campaign WARPFORGE_FAKE_RUNNER_GPUS=1
campaign() { # label iterations
  printf 'name = "slurm-%s"\nrun_root = "%s/runs-%s"\n[[jobs]]\nname = "v"\nproblem = "%s"\n' "$1" "$work" "$1" \
    "$here/examples/vector_add/problem.toml"
  printf '[budget]\niterations = %s\nbranches = 2\n[proposer]\nkind = "tune"\n[feed]\nendpoint = "tcp://127.0.0.1:*"\n' "$2"
  printf '[hosts.slurm]\nnodes = 1\ngpus_per_node = 1\ntime_limit = "10"\n'
}
no_job_left() { # label
  [[ -z "$(squeue --noheader 2>&1)" ]] || fail "$1: a job is left: $(squeue 2>&1)"
  ! pgrep -f "warpforge host --coordinator" >/dev/null || fail "$1: a host process is left"
}

campaign end 2 >"$work/end.toml"
WARPFORGE_FAKE_RUNNER_DELAY_MS=50 timeout 300 "$warpforge" run "$work/end.toml" --quiet --hosts-wait 60 \
  >"$work/end.out" 2>"$work/end.err" || { tail "$work/end.err" >&2; fail "the campaign on a Slurm host failed"; }
db="$(ls -d "$work/runs-end"/*/warpforge.db)"
[[ "$(sqlite3 "$db" "SELECT state FROM jobs")" == finished ]] || fail "the job did not finish"
(( $(sqlite3 "$db" "SELECT count(*) FROM measurements") > 0 )) || fail "nothing was measured on the Slurm host"
[[ -f "$(dirname "$db")/credential/member.key" ]] || fail "no credential in the run directory"
no_job_left "after the end"
echo "slurm_campaign: the campaign ran on its Slurm host and left no job"

# A long campaign started in the background (`coordinator` its pid), back once its Slurm host has
# measured something (`db` its store).
start_until_measured() { # label
  campaign "$1" 50 >"$work/$1.toml"
  WARPFORGE_FAKE_RUNNER_DELAY_MS=300 "$warpforge" run "$work/$1.toml" --quiet --hosts-wait 60 \
    >"$work/$1.out" 2>"$work/$1.err" &
  coordinator=$!
  for _ in $(seq 1 600); do
    db="$(ls -d "$work/runs-$1"/*/warpforge.db 2>/dev/null | head -1)"
    [[ -n "$db" ]] && (( $(sqlite3 "$db" "SELECT count(*) FROM measurements" 2>/dev/null || echo 0) > 0 )) && return
    sleep 0.1
  done
}
start_until_measured interrupted
kill -INT "$coordinator"
wait "$coordinator"
rc=$?
[[ $rc -eq 130 ]] || { tail "$work/interrupted.err" >&2; fail "Ctrl-C: exit $rc, not 130"; }
no_job_left "after Ctrl-C"
echo "slurm_campaign: Ctrl-C ended the campaign interrupted and left no job"
# A coordinator killed outright (SIGKILL) cannot cancel its job: `warpforge stop` finds the job the
# run recorded and cancels it.
start_until_measured killed
kill -KILL "$coordinator"
wait "$coordinator" 2>/dev/null
[[ -n "$(squeue --noheader 2>&1)" ]] || fail "SIGKILL: the job was gone before stop (nothing to test)"
"$warpforge" stop "$(dirname "$db")" >"$work/stop.out" 2>"$work/stop.err" || { cat "$work/stop.err" >&2; fail "stop failed"; }
grep -q "Slurm job .* cancelled" "$work/stop.out" || fail "stop did not say it cancelled the job: $(cat "$work/stop.out")"
no_job_left "after a SIGKILL and warpforge stop"
echo "slurm_campaign: warpforge stop cancelled the job of a killed coordinator"
