#!/usr/bin/env bash
# The runner's GPU checks (races, device checks, caches, timing) in one run on a GPU node, from a
# bundle and three binaries built from the same tree. Prints everything and copies the evidence to
# $OUT (the device tool's output folder) or /tmp/warpforge-gpu-check-runner.
#
#   scripts/gpu_check_runner.sh --stage [build-dir]   # here: bundle + binaries into .bundle/
#   scripts/gpu_check_runner.sh [bundle.tar.gz] [binaries-dir]    # on the GPU node
#
# --stage builds the bundle (scripts/bundle.sh), gpu_check_device_tests, gpu_race_tests and
# warpforge-race-bench, and copies them to .bundle/ and .bundle/runner-check/ (about 25 MiB: carry
# .bundle). On the node the defaults are those paths. Sections (SECTIONS="device race bench"):
#   device  gpu_check_device_tests: device fill == host fill byte for byte (every dtype and
#           distribution, several sizes), device comparison == host comparison, the device input
#           check, the workspace's caches
#   race    gpu_race_tests: races through the real runner (good and broken kernels, a fault in the
#           middle, runner_keeper re-running what it left, the kernel watchdog, cache reuse)
#   bench   warpforge-race-bench on examples/transpose (8 candidates; phases of a race on a fresh
#           and a warm runner; 20 races of the incumbent and the re-measurement share), and on
#           each problem in $PROBLEMS (space-separated problem.toml paths), if any
# Exit status: non-zero when any check failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ "${1:-}" == "--stage" ]]; then
  set -e
  build_dir="${2:-$here/build}"
  "$here/scripts/bundle.sh" --build-dir "$build_dir" --no-check | tail -n 1
  cmake --build "$build_dir" --target gpu_check_device_tests gpu_race_tests warpforge-race-bench
  mkdir -p "$here/.bundle/runner-check"
  rm -f "$here"/.bundle/warpforge-*-linux-x86_64.tar.gz
  cp "$here"/dist/warpforge-*-linux-x86_64.tar.gz "$here/.bundle/"
  cp "$build_dir/tests/gpu/gpu_check_device_tests" "$build_dir/tests/gpu/gpu_race_tests" \
     "$build_dir/tests/bench/warpforge-race-bench" "$here/.bundle/runner-check/"
  du -sh "$here/.bundle"
  echo "staged: carry .bundle and run scripts/gpu_check_runner.sh on the GPU node"
  exit 0
fi

bundle="${1:-$(ls "$here"/.bundle/warpforge-*-linux-x86_64.tar.gz 2>/dev/null | head -1)}"
binaries="${2:-$here/.bundle/runner-check}"
out="${OUT:-/tmp/warpforge-gpu-check-runner}"
sections="${SECTIONS:-device race bench}"
mkdir -p "$out"
failed=0
step() { echo; echo "=== $*"; }
# Runs a command, its output to the terminal and to a log file; a failure marks the run failed.
logged() {
  local log="$1"; shift
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  [[ $rc -eq 0 ]] || { echo "FAILED ($rc): $*"; failed=1; }
  return 0
}
wants() { [[ " $sections " == *" $1 "* ]]; }

[[ -f "$bundle" ]] || { echo "no bundle at '$bundle' (make one with: scripts/gpu_check_runner.sh --stage)" >&2; exit 2; }
for b in gpu_check_device_tests gpu_race_tests warpforge-race-bench; do
  [[ -x "$binaries/$b" ]] || { echo "no $binaries/$b (scripts/gpu_check_runner.sh --stage)" >&2; exit 2; }
done
unpack="$(mktemp -d)"
tar xzf "$bundle" -C "$unpack"
W="$(ls -d "$unpack"/warpforge-*)"
export LD_LIBRARY_PATH="$W/lib:${LD_LIBRARY_PATH:-}"
export WARPFORGE_RUNNER="$W/bin/warpforge-runner"
export WARPFORGE_CACHE_DIR="$unpack/cache" # the check kernels compile once, then load from here

step "host"
nvidia-smi -L || true
"$W/bin/warpforge-runner" --query | head -12

if wants device; then
  step "device checks in this process (fill bit-identity, device vs host comparison, input check, caches)"
  logged "$out/gpu_check_device_tests.txt" \
    "$binaries/gpu_check_device_tests" --gtest_output="xml:$out/gpu_check_device_tests.xml"
fi

if wants race; then
  step "races through the real runner (faults in the middle, keeper re-runs, watchdog, caches)"
  logged "$out/gpu_race_tests.txt" "$binaries/gpu_race_tests" --gtest_output="xml:$out/gpu_race_tests.xml"
fi

if wants bench; then
  for problem in "$here/examples/transpose/problem.toml" ${PROBLEMS:-}; do
    name="$(basename "$(dirname "$problem")")"
    step "race bench: $name (8 candidates; then 20 races of the incumbent)"
    logged "$out/race-bench-$name.txt" "$binaries/warpforge-race-bench" --problem "$problem" \
      --candidates 8 --repeat 20 --runner "$W/bin/warpforge-runner"
  done
fi

rm -rf "$unpack"
echo
[[ $failed -eq 0 ]] && echo "gpu_check_runner: all checks passed" || echo "gpu_check_runner: some checks FAILED"
exit $failed
