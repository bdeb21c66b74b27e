#!/usr/bin/env bash
# A campaign on three `warpforge host` processes over 127.0.0.1 with TLS, one of them killed
# (SIGKILL) mid-campaign and a new one started at its address later: it must end exactly where an
# undisturbed run ends (the same run on three local stand-in GPUs): the same champions, the same
# branches with the same outcomes, one measurement row per measured kernel as there, the same
# branch and job events, and an event sequence without a gap. Then a `warpforge host` without the
# campaign's credential is refused. Stand-in GPUs (tests/gpu/fake_runner.cpp, mode campaign: a
# kernel's time is drawn from its CUBIN's bytes, so every run reaches the same champions), real
# NVRTC on the coordinator and on each host, real SQLite, ZeroMQ, actors and TLS.
#
#   tests/actors/hosts/loopback_campaign.sh BUILD_DIR        (ctest: Hosts.LoopbackCampaignSurvivesAKilledHost)
#   KEEP=1 ...                                                keeps the work folder (logs, runs)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)" || exit 2
warpforge="$build/bin/warpforge"
runner="$build/tests/gpu/fake_runner"
for needed in "$warpforge" "$runner"; do
  [[ -x "$needed" ]] || { echo "loopback_campaign: $needed is missing: ninja -C $build warpforge fake_runner" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "loopback_campaign: needs the sqlite3 tool" >&2; exit 2; }
delay_ms="${DELAY_MS:-400}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  [[ -n "${KEEP:-}" ]] && echo "loopback_campaign: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "loopback_campaign: FAIL: $*" >&2; exit 1; }

export HOME="$work/home" WARPFORGE_CACHE_DIR="$work/cache" WARPFORGE_RUNNER="$runner"
export WARPFORGE_FAKE_RUNNER_MODE=campaign WARPFORGE_FAKE_RUNNER_DELAY_MS="$delay_ms"

write_campaign() { # label gpus
  echo "name = \"hosts\""
  echo "run_root = \"$work/runs-$1\""
  echo "gpus = [$2]"
  for problem in transpose vector_add row_reduction; do
    printf '[[jobs]]\nname = "%s"\nproblem = "%s"\n' "$problem" "$here/examples/$problem/problem.toml"
  done
  printf '[budget]\niterations = 6\nbranches = 4\npatience = 10\nwall_time_s = 3600.0\n'
  printf '[proposer]\nkind = "tune"\nstrategy = "random"\nseed = 11\n'
  printf '[feed]\nendpoint = "tcp://127.0.0.1:*"\n'
}
database_of() { ls -d "$work/runs-$1"/*/warpforge.db; }
sql() { sqlite3 "$(database_of "$1")" "$2"; }

# Where a campaign ends, branch by branch, and what it told the feed about it.
end_state() { sql "$1" "SELECT name, state, printf('%.9f', best_time_s), iterations_done FROM jobs ORDER BY name"; }
branches() {
  sql "$1" "SELECT j.name, i.number, b.ordinal, b.kind, coalesce(b.outcome, 'NONE'),
                   (SELECT count(*) FROM measurements m WHERE m.branch_id = b.id)
            FROM branches b JOIN iterations i ON i.id = b.iteration_id JOIN jobs j ON j.id = i.job_id
            ORDER BY j.name, i.number, b.ordinal"
}
branch_events() {
  sql "$1" "SELECT type, coalesce(job, ''), coalesce(iter, -1), coalesce(branch, -1), count(*) FROM events
            WHERE type IN ('branch_proposed', 'branch_compiled', 'branch_checked', 'branch_measured', 'branch_failed',
                           'champion_elected', 'ablation_measured', 'iteration_started', 'iteration_finished',
                           'job_started', 'job_finished', 'job_failed', 'campaign_finished')
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
}
seq_gaps() { sql "$1" "SELECT max(seq) - count(*) FROM events"; }

# One `warpforge host` on one stand-in GPU; echoes its pid, its port lands in $work/host-$1.port.
start_host() { # label [port]
  local label="$1" port="${2:-0}"
  mkdir -p "$work/locks-$label"
  WARPFORGE_LOCK_DIR="$work/locks-$label" WARPFORGE_FAKE_RUNNER_GPUS=1 \
    "$warpforge" host --credential "$work/credential" --listen "127.0.0.1:$port" --work-dir "$work/host-$label" \
    >"$work/host-$label.out" 2>"$work/host-$label.err" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 200); do
    local bound
    bound="$(sed -n 's/.* GPU(s) on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/host-$label.err")"
    if [[ -n "$bound" ]]; then echo "$bound" >"$work/host-$label.port"; echo "$pid"; return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$work/host-$label.err" >&2; fail "host $label did not start"; }
    sleep 0.1
  done
  fail "host $label did not say where it listens"
}

"$warpforge" host --new-credential "$work/credential" >/dev/null || fail "no credential made"

# The undisturbed run: the same campaign on three local stand-in GPUs.
write_campaign local "0, 1, 2" >"$work/local.toml"
mkdir -p "$work/locks-local"
WARPFORGE_LOCK_DIR="$work/locks-local" WARPFORGE_FAKE_RUNNER_GPUS=3 \
  "$warpforge" run "$work/local.toml" --quiet >"$work/local.out" 2>"$work/local.err" || {
  tail -5 "$work/local.err" >&2
  fail "the undisturbed run failed"
}

# Three hosts; the coordinator has no GPU of its own here.
# Host 2 listens on a port chosen here, so that a host started there again is the same host.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_host 1 >"$work/host-1.pid"
start_host 2 "$(free_port)" >"$work/host-2.pid"
start_host 3 >"$work/host-3.pid"
write_campaign hosts "0" >"$work/hosts.toml"
WARPFORGE_RUNNER=/nonexistent "$warpforge" run "$work/hosts.toml" --quiet --credential "$work/credential" \
  --host "127.0.0.1:$(cat "$work/host-1.port")" --host "127.0.0.1:$(cat "$work/host-2.port")" \
  --host "127.0.0.1:$(cat "$work/host-3.port")" >"$work/hosts.out" 2>"$work/hosts.err" &
coordinator=$!
pids+=("$coordinator")

# Host 2 is killed once the campaign has measured some kernels, with races surely in flight.
killed=""
for _ in $(seq 1 600); do
  kill -0 "$coordinator" 2>/dev/null || break
  db="$(ls -d "$work/runs-hosts"/*/warpforge.db 2>/dev/null | head -1)"
  if [[ -n "$db" ]] && (( $(sqlite3 "$db" "SELECT count(*) FROM measurements" 2>/dev/null || echo 0) >= 4 )); then
    kill -9 "$(cat "$work/host-2.pid")"
    killed=yes
    break
  fi
  sleep 0.1
done
[[ -n "$killed" ]] || fail "the campaign ended before a host could be killed (raise DELAY_MS)"
sleep 0.5
start_host 2b "$(cat "$work/host-2.port")" >/dev/null # the host comes back at the same address
wait "$coordinator" || { tail -20 "$work/hosts.err" >&2; fail "the campaign on the hosts failed"; }

[[ "$(end_state hosts)" == "$(end_state local)" ]] || {
  diff <(end_state local) <(end_state hosts) >&2
  fail "the champions differ from the undisturbed run's"
}
[[ "$(branches hosts)" == "$(branches local)" ]] || {
  diff <(branches local) <(branches hosts) >&2
  fail "branches, outcomes or measurement rows differ from the undisturbed run's (a duplicate or a loss)"
}
[[ "$(branch_events hosts)" == "$(branch_events local)" ]] || {
  diff <(branch_events local) <(branch_events hosts) >&2
  fail "the branch and job events differ from the undisturbed run's"
}
[[ "$(seq_gaps hosts)" == "0" ]] || fail "the event sequence has gaps"
given_back="$(sql hosts "SELECT count(*) FROM events WHERE type = 'gpu_released' AND json LIKE '%out_of_service%'")"
(( given_back >= 1 )) || fail "no race was given back when its host was killed (was one in flight?)"
# Host 2's GPU (its number is the order the hosts joined in) is back in service, and measures again.
back="$(sql hosts "SELECT gpu || '|' || ts FROM events WHERE type = 'warning' AND json LIKE '%is back in service%'")"
[[ -n "$back" ]] || fail "the host started again at the killed one's address did not come back into the running campaign"
(( $(sql hosts "SELECT count(*) FROM measurements WHERE gpu = ${back%%|*} AND created_at > ${back##*|}") >= 1 )) ||
  fail "the host that came back measured nothing in the running campaign"
echo "loopback_campaign: killed host 2 mid-campaign: $given_back race(s) given back, same champions, branches, measurement rows and events as the undisturbed run; host 2 came back"

# A host with another campaign's credential is refused: the coordinator never hears it.
"$warpforge" host --new-credential "$work/stranger" >/dev/null || fail "no second credential made"
mkdir -p "$work/locks-stranger"
WARPFORGE_LOCK_DIR="$work/locks-stranger" WARPFORGE_FAKE_RUNNER_GPUS=1 \
  "$warpforge" host --credential "$work/stranger" --listen 127.0.0.1:0 --work-dir "$work/host-stranger" \
  >"$work/stranger.out" 2>"$work/stranger.err" &
pids+=("$!")
for _ in $(seq 1 100); do grep -q "GPU(s) on" "$work/stranger.err" && break; sleep 0.1; done
stranger_port="$(sed -n 's/.* GPU(s) on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/stranger.err")"
[[ -n "$stranger_port" ]] || fail "the stranger host did not start"
write_campaign refused "0" >"$work/refused.toml"
WARPFORGE_RUNNER=/nonexistent timeout 120 "$warpforge" run "$work/refused.toml" --quiet --credential "$work/credential" \
  --host "127.0.0.1:$stranger_port" --hosts-wait 5 >"$work/refused.out" 2>"$work/refused.err"
rc=$?
[[ $rc -ne 0 && $rc -ne 124 ]] || fail "a campaign on a host with another credential did not fail at once (exit $rc)"
grep -q "no host offered a GPU" "$work/refused.err" || { cat "$work/refused.err" >&2; fail "the refusal does not say so"; }
echo "loopback_campaign: a host with another campaign's credential was refused"
