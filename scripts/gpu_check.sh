#!/usr/bin/env bash
# GPU acceptance checks, run on a GPU node from a bundle (scripts/bundle.sh). Prints everything and
# copies the evidence to $OUT (the device tool's output folder) or /tmp/warpforge-gpu-check.
#
#   scripts/gpu_check.sh [bundle.tar.gz] [test-binary ...]
#
# Test binaries given after the bundle (gpu-labelled GoogleTest suites built beside the bundle)
# run with the bundle's libraries. Exit status: non-zero when any check failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="${1:-$(ls "$here"/.bundle/warpforge-*-linux-x86_64.tar.gz 2>/dev/null | head -1)}"
shift || true
out="${OUT:-/tmp/warpforge-gpu-check}"
mkdir -p "$out"
failed=0
step() { echo; echo "=== $*"; }
check() { "$@"; local rc=$?; [[ $rc -eq 0 ]] || { echo "FAILED ($rc): $*"; failed=1; }; return 0; }

[[ -f "$bundle" ]] || { echo "no bundle at '$bundle' (make one with scripts/bundle.sh)" >&2; exit 2; }
unpack="$(mktemp -d)"
tar xzf "$bundle" -C "$unpack"
W="$(ls -d "$unpack"/warpforge-*)"

step "host"
nvidia-smi -L || true
uname -r
step "libraries the bundle does not resolve (expect none)"
ldd "$W/bin/warpforge" "$W/bin/warpforge-runner" | grep 'not found' || echo "all resolved"

step "warpforge doctor"
check "$W/bin/warpforge" doctor --run-root "$out/runs" | tee "$out/doctor.txt"
"$W/bin/warpforge" doctor --json --run-root "$out/runs" > "$out/doctor.json"
step "warpforge doctor --require-gpu"
check "$W/bin/warpforge" doctor --require-gpu --run-root "$out/runs" > /dev/null && echo "a GPU is usable"

step "warpforge run (boots the actors, records and publishes; the pipeline lands later)"
cat > "$unpack/campaign.toml" <<TOML
name = "gpu-check"
run_root = "$unpack/runs"
[[jobs]]
problem = "$here/examples/vector_add/problem.toml"
[feed]
endpoint = "tcp://127.0.0.1:*"
TOML
"$W/bin/warpforge" run "$unpack/campaign.toml"; echo "run exit code: $? (4 = pipeline not in this build)"
run_dir="$(ls -d "$unpack"/runs/gpu-check-* | head -1)"
check "$W/bin/warpforge" status "$run_dir"
check "$W/bin/warpforge" tail --log --run-dir "$run_dir" --idle-timeout 0.2

step "warpforge bench on the examples (checked against their references, then timed)"
for example in vector_add transpose row_reduction; do
  check "$W/bin/warpforge" bench "$here/examples/$example/problem.toml" --run-root "$out/runs" \
    2>&1 | tee "$out/bench-$example.txt"
done

step "broken candidates and a good kernel in ONE run (scripts/gpu_faults.sh)"
check "$here/scripts/gpu_faults.sh" "$W/bin/warpforge" 0 "$out/runs" 2>&1 | tee "$out/faults.txt"

step "ncu's gpu__time_duration on the same ~1 ms launch (naive transpose; --clock-control none)"
if command -v ncu > /dev/null; then
  request="$(ls -t "$out"/runs/bench-transpose-*/jobs/transpose/iter-1/branch-0/request-*.json | head -1)"
  ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
      --print-units base "$W/bin/warpforge-runner" --execute "$request" 2>&1 | tee "$out/ncu-transpose.csv" | tail -3
  grep -E '^ *[0-9]' "$out/bench-transpose.txt" | head -1
else
  echo "ncu not found: skipped"
fi

for test_binary in "$@"; do
  step "$(basename "$test_binary")"
  check env LD_LIBRARY_PATH="$W/lib:${LD_LIBRARY_PATH:-}" WARPFORGE_RUNNER="$W/bin/warpforge-runner" \
    "$test_binary" --gtest_output="xml:$out/$(basename "$test_binary").xml"
done

echo
[[ $failed -eq 0 ]] && echo "gpu_check: all checks passed" || echo "gpu_check: some checks FAILED"
exit $failed
