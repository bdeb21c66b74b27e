#!/usr/bin/env bash
# ONE `warpforge bench` run on one GPU: every broken candidate of tests/fixtures/faults/ (syntax
# error, too much shared memory, illegal address, trap, infinite loop, writes nothing, writes half,
# mutates its input), then the good vector_add kernel. Checks that each got its status and that
# the good kernel was still measured, on the same GPU, in the same run.
#
#   scripts/gpu_faults.sh [warpforge-binary] [gpu-ordinal] [run-root]
#
# Exit status: 0 when every row is as expected.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
warpforge="${1:-$here/build/bin/warpforge}"
gpu="${2:-0}"
run_root="${3:-${TMPDIR:-/tmp}/warpforge-faults}"
faults="$here/tests/fixtures/faults"

# file → the outcome it must get (tests/fixtures/faults/README.md says why).
expected=(
  "syntax_error.cu compile_error"
  "too_much_smem.cu compile_error"
  "illegal_address.cu runtime_error"
  "trap.cu runtime_error"
  "infinite_loop.cu timeout"
  "writes_nothing.cu incorrect"
  "writes_half.cu incorrect"
  "mutates_input.cu incorrect"
  "kernel.cu passed"
)
args=()
for entry in "${expected[@]}"; do
  file="${entry%% *}"
  [[ "$file" == kernel.cu ]] && args+=(--candidate "$here/examples/vector_add/kernel.cu") \
                             || args+=(--candidate "$faults/$file")
done

started=$(date +%s.%N)
table="$("$warpforge" bench "$here/examples/vector_add/problem.toml" --gpus "$gpu" --run-root "$run_root" \
         "${args[@]}" 2>&1)"
echo "$table"
echo "one run, $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"

failed=0
for entry in "${expected[@]}"; do
  file="${entry%% *}"
  want="${entry##* }"
  # A compile error happens before any GPU sees the kernel: its row's GPU column is "-".
  got="$(awk -v gpu="$gpu" -v file="$file" '($1 == gpu || $1 == "-") && $2 == file { print $3; exit }' <<<"$table")"
  if [[ "$got" == "$want" ]]; then
    echo "ok    $file: $got"
  else
    echo "WRONG $file: got '${got:-no row}', want $want"
    failed=1
  fi
done
[[ $failed -eq 0 ]] && echo "gpu_faults: every candidate got its status; the good kernel was measured after them"
exit $failed
