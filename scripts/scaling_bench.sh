#!/usr/bin/env bash
# The coordinator's own scaling limit, free of GPU noise: a 16-job campaign (four example problems,
# four jobs each; the tuner, 3 iterations of K = 4) through the real `warpforge` binary on 1, 2 and
# 4 stand-in GPUs (tests/gpu/fake_runner.cpp, mode campaign: each kernel of a race sleeps
# DELAY_MS, so it takes a fixed GPU time without using a CPU core, and answers a time drawn from
# its CUBIN's bytes, so every run reaches the same champions). Real NVRTC (through a compile
# cache warmed by a first run that is not timed), SQLite, ZeroMQ, actors and runner processes.
# Runs on CI's 2 cores.
#
#   scripts/scaling_bench.sh [build-dir]      # default: build/ (needs targets warpforge, fake_runner)
#   DELAY_MS=100 JOBS_PER_PROBLEM=4 scripts/scaling_bench.sh
#   KEEP=1 scripts/scaling_bench.sh          # keeps the run folders (their events: the timeline)
#
# Prints, per GPU count, the wall time, the measurements each GPU took and where its time went
# (the end-of-run table), checks that every run ended with the same champions, and, as its last
# line: "scaling: 2 GPUs X.XXx, 4 GPUs Y.YYx" (wall time of 1 GPU over wall time of N).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$here/build}" && pwd)" || exit 2
warpforge="$build/bin/warpforge"
runner="$build/tests/gpu/fake_runner"
for needed in "$warpforge" "$runner"; do
  [[ -x "$needed" ]] || { echo "scaling_bench: $needed is missing: ninja -C $build warpforge fake_runner" >&2; exit 2; }
done
delay_ms="${DELAY_MS:-100}"
per_problem="${JOBS_PER_PROBLEM:-4}"
problems="${PROBLEMS:-transpose row_reduction vector_add softmax}"
work="$(mktemp -d)"
[[ -n "${KEEP:-}" ]] && echo "scaling_bench: runs kept in $work" >&2 || trap 'rm -rf "$work"' EXIT

# The campaign on `gpus` stand-in GPUs, its run folder under $work/runs-<label>.
write_campaign() { # gpus label
  local list="0"
  for ((g = 1; g < $1; ++g)); do list+=", $g"; done
  echo "name = \"scaling\""
  echo "run_root = \"$work/runs-$2\""
  echo "gpus = [$list]"
  for problem in $problems; do
    for ((i = 1; i <= per_problem; ++i)); do
      printf '[[jobs]]\nname = "%s-%d"\nproblem = "%s"\n' "$problem" "$i" "$here/examples/$problem/problem.toml"
    done
  done
  printf '[budget]\niterations = 3\nbranches = 4\npatience = 10\nwall_time_s = 3600.0\n'
  printf '[proposer]\nkind = "tune"\nstrategy = "random"\nseed = 7\n'
}

# One campaign on `gpus` stand-in GPUs; prints its wall time (seconds) and leaves its run folder
# under $work/runs-<label>.
run_on() { # gpus label
  local gpus="$1" label="$2" start end
  mkdir -p "$work/locks-$label"
  write_campaign "$gpus" "$label" >"$work/$label.toml"
  start=$(date +%s.%N)
  env HOME="$work/home" WARPFORGE_CACHE_DIR="$work/cache" WARPFORGE_LOCK_DIR="$work/locks-$label" \
    WARPFORGE_RUNNER="$runner" WARPFORGE_FAKE_RUNNER_MODE=campaign WARPFORGE_FAKE_RUNNER_GPUS="$gpus" \
    WARPFORGE_FAKE_RUNNER_DELAY_MS="$delay_ms" \
    "$warpforge" run "$work/$label.toml" >"$work/$label.out" 2>"$work/$label.err"
  local rc=$?
  end=$(date +%s.%N)
  if [[ $rc -ne 0 ]]; then
    echo "scaling_bench: the run on $gpus GPU(s) failed (exit $rc):" >&2
    tail -5 "$work/$label.err" >&2
    exit 1
  fi
  echo "$end - $start" | bc -l
}

database_of() { ls -d "$work/runs-$1"/*/warpforge.db; }

# Every job's champion point and best time: the end state every GPU count must reach.
end_state() { # label
  sqlite3 "$(database_of "$1")" \
    "SELECT j.name, j.state, printf('%.9f', j.best_time_s), j.iterations_done FROM jobs j ORDER BY j.name"
}

echo "scaling_bench: 16 jobs ($problems x $per_problem), ${delay_ms} ms per stand-in kernel" >&2
run_on 4 warm >/dev/null # fills the compile cache: the timed runs measure the coordinator, not NVRTC
declare -A wall
for gpus in 1 2 4; do
  wall[$gpus]=$(run_on "$gpus" "g$gpus")
  printf 'scaling_bench: %d GPU(s): %.2f s wall\n' "$gpus" "${wall[$gpus]}"
  sqlite3 "$(database_of "g$gpus")" \
    "SELECT '  GPU ' || gpu || ': ' || count(*) || ' measurements' FROM measurements GROUP BY gpu ORDER BY gpu"
  sed -n '/^  GPU /,$p' "$work/g$gpus.err" | grep -E '^  (GPU|[0-9])' | sed 's/^/  /'
  if [[ "$(end_state "g$gpus")" != "$(end_state g1)" ]]; then
    echo "scaling_bench: $gpus GPU(s) ended elsewhere than 1 GPU:" >&2
    diff <(end_state g1) <(end_state "g$gpus") >&2
    exit 1
  fi
done

# Spread: each GPU's measurement count against the mean of its run (issue 24: within +-25%).
for gpus in 2 4; do
  sqlite3 "$(database_of "g$gpus")" \
    "WITH c AS (SELECT count(*) AS n FROM measurements GROUP BY gpu)
     SELECT printf('scaling_bench: %d GPUs: measurements per GPU within %+.0f%% .. %+.0f%% of their mean',
                   $gpus, 100.0 * (min(n) - avg(n)) / avg(n), 100.0 * (max(n) - avg(n)) / avg(n)) FROM c"
done
printf 'scaling: 2 GPUs %.2fx, 4 GPUs %.2fx\n' "$(echo "${wall[1]} / ${wall[2]}" | bc -l)" \
  "$(echo "${wall[1]} / ${wall[4]}" | bc -l)"
