#!/usr/bin/env bash
# Same GPU, two builds: does a change of the runner move honest kernels' medians? Runs
# `warpforge bench` on each example problem's own kernel with bundle A, then B, then A, ... (ROUNDS
# times each, interleaved so drift hits both alike) and prints each median and the relative
# change of B's median of medians against A's. For a GPU node, from two bundles (scripts/bundle.sh
# of each tree); nothing is built there. Needs python3 (reads bench --json).
#
#   scripts/bench_ab.sh A.tar.gz B.tar.gz [gpu-ordinal] [rounds]
#   PROBLEMS="transpose vector_add" scripts/bench_ab.sh ...   # examples/<name>/problem.toml
#
# Last line: "bench_ab: largest change X.XX% (problem)".
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -ge 2 ]] || { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
gpu="${3:-0}"
rounds="${4:-3}"
problems="${PROBLEMS:-transpose vector_add row_reduction softmax sgemm}"
work="$(mktemp -d)"

unpack() { # bundle-file label -> path of its warpforge
  mkdir -p "$work/$2" && tar xzf "$1" -C "$work/$2" || exit 2
  echo "$(ls -d "$work/$2"/warpforge-*)/bin/warpforge"
}
declare -A bin=([A]="$(unpack "$1" A)" [B]="$(unpack "$2" B)")

for problem in $problems; do
  for ((r = 1; r <= rounds; ++r)); do
    for side in A B; do
      "${bin[$side]}" bench "$here/examples/$problem/problem.toml" --gpus "$gpu" --run-root "$work/runs-$side" \
        --json --quiet >"$work/$problem-$side-$r.json" 2>"$work/$problem-$side-$r.log" ||
        echo "bench_ab: $problem $side round $r failed (exit $?): $(tail -1 "$work/$problem-$side-$r.log")"
    done
  done
done

python3 - "$work" "$rounds" $problems <<'PY'
import json, statistics, sys
work, rounds, problems = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def median_of(problem, side, r):
    try:
        kernels = json.load(open(f"{work}/{problem}-{side}-{r}.json"))["kernels"]
        return kernels[0]["time_s"]
    except Exception:
        return None
print(f"{'problem':<14} {'A medians (us)':<32} {'B medians (us)':<32} {'B/A - 1':>8}")
worst = (0.0, "-")
for p in problems:
    a = [median_of(p, "A", r) for r in range(1, rounds + 1)]
    b = [median_of(p, "B", r) for r in range(1, rounds + 1)]
    fmt = lambda xs: " ".join("-" if x is None else f"{x * 1e6:.2f}" for x in xs)
    a_ok, b_ok = [x for x in a if x], [x for x in b if x]
    change = statistics.median(b_ok) / statistics.median(a_ok) - 1 if a_ok and b_ok else None
    print(f"{p:<14} {fmt(a):<32} {fmt(b):<32} {'not measured' if change is None else f'{change * 100:+.2f}%':>8}")
    if change is not None and abs(change) >= abs(worst[0]):
        worst = (change, p)
print(f"bench_ab: largest change {worst[0] * 100:+.2f}% ({worst[1]})")
PY
