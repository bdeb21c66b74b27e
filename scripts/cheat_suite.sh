#!/usr/bin/env bash
# The cheat suite (issue 21, docs/measurement.md "Kernels that cheat") with `warpforge bench` on a
# GPU node: for each problem of tests/cheat/cheats.tsv, ONE bench run with every cheating kernel
# of that problem as a --candidate beside the honest baseline; then the out-of-bounds writer
# under --sanitize. Prints one line per kernel: kind, outcome, median, reason; then whether each
# got the outcome the manifest gives (docs/measurement.md's table says what catches each).
#
#   scripts/cheat_suite.sh [bundle.tar.gz | warpforge-binary] [gpu-ordinal] [run-root]
#
# With no first argument: the newest bundle under .bundle/ or dist/ (scripts/bundle.sh), else
# build/bin/warpforge. Needs python3 (to read bench's --json). Nothing is built here.
# Exit status: 0 when every kernel got its outcome; 1 otherwise; 2 when it could not run.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
manifest="$here/tests/cheat/cheats.tsv"
what="${1:-$(ls -t "$here"/.bundle/warpforge-*-linux-x86_64.tar.gz "$here"/dist/warpforge-*-linux-x86_64.tar.gz 2>/dev/null | head -1)}"
gpu="${2:-0}"
run_root="${3:-${TMPDIR:-/tmp}/warpforge-cheat-suite}"

if [[ -z "$what" ]]; then
  what="$here/build/bin/warpforge"
fi
if [[ "$what" == *.tar.gz ]]; then
  [[ -f "$what" ]] || { echo "cheat_suite: no bundle at '$what'" >&2; exit 2; }
  unpack="$(mktemp -d)"
  tar xzf "$what" -C "$unpack" || exit 2
  warpforge="$(ls -d "$unpack"/warpforge-*)/bin/warpforge"
else
  warpforge="$what"
fi
[[ -x "$warpforge" ]] || { echo "cheat_suite: '$warpforge' is not an executable" >&2; exit 2; }
command -v python3 >/dev/null || { echo "cheat_suite: python3 is needed to read bench --json" >&2; exit 2; }
mkdir -p "$run_root"

# One bench run: problem, extra flags, then candidate files. Its --json goes to stdout.
bench_json() {
  local problem="$1" extra="$2"; shift 2
  local args=()
  for file in "$@"; do args+=(--candidate "$here/$file"); done
  # shellcheck disable=SC2086 # extra is one flag or none
  "$warpforge" bench "$here/examples/$problem/problem.toml" --gpus "$gpu" --run-root "$run_root" --json \
    $extra "${args[@]}" 2>"$run_root/$problem$extra.log"
}

# Prints "kind outcome median reason" per manifest line of this run and "WRONG"/"ok" verdicts;
# returns 1 when any kernel got another outcome than the manifest's.
report() { # json-file problem sanitized(0|1)
  python3 - "$1" "$manifest" "$2" "$3" <<'PY'
import json, os, sys
path, manifest, problem, sanitized = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
try:
    rows = {k["kernel"]: k for k in json.load(open(path)).get("kernels", [])}
except Exception as e:  # no JSON: bench failed before measuring (its log says why)
    print(f"  {problem}: no bench result ({e}); see {path[:-5]}.log")
    sys.exit(1)
bad = 0
for line in open(manifest):
    if line.startswith("#") or not line.strip():
        continue
    file, prob, kind, runner, bench, reason, caught = line.rstrip("\n").split("\t")
    if prob != problem or (kind == "writes_outside_buffers") != sanitized:
        continue
    label = "baseline" if kind == "honest" else os.path.basename(file)
    row = rows.get(label)
    outcome = row["outcome"] if row else "no-row"
    median = f'{row["time_s"] * 1e6:.1f}us' if row and row.get("time_s") else "-"
    detail = " ".join(((row or {}).get("detail") or "").split())[:200]
    ok = outcome in bench.split("|") and (reason == "-" or reason in ((row or {}).get("detail") or ""))
    bad += 0 if ok else 1
    print(f'{"ok   " if ok else "WRONG"} {kind:<36} {outcome:<14} {median:>11}  {detail or "-"}')
    if not ok:
        print(f"      want {bench} (caught by: {caught})")
sys.exit(1 if bad else 0)
PY
}

failed=0
for problem in transpose vector_add; do
  mapfile -t files < <(awk -F'\t' -v p="$problem" '!/^#/ && $2 == p && $3 != "honest" && $3 != "writes_outside_buffers" { print $1 }' "$manifest")
  echo "=== $problem: ${#files[@]} cheating kernels and the honest baseline, one bench run on GPU $gpu"
  started=$(date +%s.%N)
  bench_json "$problem" "" "${files[@]}" > "$run_root/$problem.json"
  echo "    ($(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s)"
  report "$run_root/$problem.json" "$problem" 0 || failed=1
done

mapfile -t oob < <(awk -F'\t' '!/^#/ && $3 == "writes_outside_buffers" { print $2 " " $1 }' "$manifest")
for entry in "${oob[@]}"; do
  problem="${entry%% *}"
  echo "=== $problem under --sanitize: ${entry#* }"
  if "$warpforge" bench --help 2>&1 | grep -q -- "--sanitize"; then
    bench_json "$problem" "--sanitize" "${entry#* }" > "$run_root/$problem-sanitize.json"
    report "$run_root/$problem-sanitize.json" "$problem" 1 || failed=1
  else
    echo "WRONG writes_outside_buffers: this warpforge bench has no --sanitize (the check is not in place)"
    failed=1
  fi
done
[[ $failed -eq 0 ]] && echo "cheat_suite: every kernel got its outcome" || echo "cheat_suite: some kernels did not get their outcome (WRONG above)"
exit $failed
