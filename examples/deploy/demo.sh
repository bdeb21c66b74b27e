#!/usr/bin/env bash
# The observe -> tune -> deploy -> roll back demo of examples/deploy, for a machine with a GPU:
#
#   examples/deploy/demo.sh [path/to/warpforge]        (default: warpforge on PATH)
#
#  1. build the application (app/) and run its own check
#  2. observe it: which sizes its transpose kernel really runs at, and for how long
#     (rewrites transpose.configs.toml, the weighted configurations the problem tunes at)
#  3. tune the kernel at those configurations (campaign.toml, the built-in tuner)
#  4. deploy the champion into app/src/transpose_kernel.cuh: build, check, time; show before/after
#  5. deploy a deliberately slower kernel (slow_transpose.cuh): it must be rolled back
# At the end (also on failure) the kernel file and the configs file are put back as they were.
# Needs: cmake >= 3.24, nvcc (CUDA 13), a GPU. Leaves: app/build/, .warpforge-observe/, a run
# directory under <repo>/runs/, and its copies of the outputs in $DEMO_OUT (default /tmp/deploy-demo).
set -euo pipefail

WF="${1:-warpforge}"
if [[ "$WF" == */* ]]; then WF="$(cd "$(dirname "$WF")" && pwd)/$(basename "$WF")"; fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUNS="$(cd "$HERE/../.." && pwd)/runs" # campaign.toml's run_root
OUT="${DEMO_OUT:-/tmp/deploy-demo}"
KERNEL_FILE="$HERE/app/src/transpose_kernel.cuh"
CONFIGS_FILE="$HERE/transpose.configs.toml"
APP="$HERE/app/build/transpose_app"
cd "$HERE"
mkdir -p "$OUT"

section() { printf '\n==== %s ====\n' "$*"; }
# The app's RESULT line from one --bench run.
bench_line() { "$APP" --bench | tee -a "$OUT/bench.log" | grep '^RESULT:'; }

# Keep the committed files aside; put them back however the script ends.
SAVED="$(mktemp -d)"
cp "$KERNEL_FILE" "$SAVED/transpose_kernel.cuh"
cp "$CONFIGS_FILE" "$SAVED/transpose.configs.toml"
restore() {
  cp "$SAVED/transpose_kernel.cuh" "$KERNEL_FILE"
  cp "$SAVED/transpose.configs.toml" "$CONFIGS_FILE"
  rm -rf "$SAVED"
  echo "demo: restored app/src/transpose_kernel.cuh and transpose.configs.toml"
}
trap restore EXIT

section "1. build the application and run its own check"
(cd app && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" && cmake --build build -j >> "$OUT/build.log")
"$APP" --check | tee "$OUT/check.log"
echo "original kernel, standalone: $(bench_line)"

section "2. observe: warpforge observe --kernel transpose --problem problem.toml -- app --bench"
"$WF" observe --kernel transpose --problem problem.toml -- "$APP" --bench 2>&1 | tee "$OUT/observe.log"
cp "$CONFIGS_FILE" "$OUT/transpose.configs.observed.toml"
echo "--- the observed configurations (transpose.configs.toml):"
cat "$CONFIGS_FILE"

section "3. tune at the observed configurations: warpforge run campaign.toml"
"$WF" run campaign.toml 2>&1 | tee "$OUT/run.log"
RUN_DIR="$(ls -td "$RUNS"/deploy_transpose-* | head -1)"
echo "run directory: $RUN_DIR"
"$WF" report "$RUN_DIR" > "$OUT/report.md" || true

section "4. deploy the champion: warpforge deploy $RUN_DIR"
BEFORE="$(bench_line)"
"$WF" deploy "$RUN_DIR" 2>&1 | tee "$OUT/deploy.log"
AFTER="$(bench_line)"
echo "the application, before: $BEFORE"
echo "the application, after:  $AFTER"
if cmp -s "$KERNEL_FILE" "$SAVED/transpose_kernel.cuh"; then
  echo "demo: FAILED: the champion was not written into app/src/transpose_kernel.cuh" >&2
  exit 1
fi
"$APP" --check > /dev/null && echo "the deployed application passes its own check"
cp "$KERNEL_FILE" "$OUT/transpose_kernel.deployed.cuh"

section "5. deploy a slower kernel: warpforge deploy $RUN_DIR --source slow_transpose.cuh"
set +e # a rolled-back deploy exits non-zero: judge it by what it left behind instead
"$WF" deploy "$RUN_DIR" --source slow_transpose.cuh 2>&1 | tee "$OUT/deploy-slow.log"
SLOW_STATUS=${PIPESTATUS[0]}
set -e
echo "warpforge deploy --source slow_transpose.cuh exited $SLOW_STATUS"
if ! cmp -s "$KERNEL_FILE" "$OUT/transpose_kernel.deployed.cuh"; then
  echo "demo: FAILED: the slow kernel was not rolled back (the kernel file differs from the deployed one)" >&2
  exit 1
fi
if [[ -e app/.warpforge-deploy.json ]]; then
  echo "demo: FAILED: app/.warpforge-deploy.json is still there (run warpforge deploy --recover)" >&2
  exit 1
fi
grep -qiE 'rolled.back' "$OUT/deploy-slow.log" || echo "demo: note: the deploy's output does not say 'rolled back'"
echo "after the rollback: $(bench_line)"
"$APP" --check > /dev/null && echo "the rolled-back application passes its own check"

section "done"
echo "outputs in $OUT; run directory $RUN_DIR (deploy/ holds the journals, backups, logs, timings)"
