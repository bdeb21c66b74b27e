#!/usr/bin/env bash
# GPU acceptance checks, run on a GPU node from a bundle (scripts/bundle.sh). Prints everything and
# copies the evidence to $OUT (the device tool's output folder) or /tmp/warpforge-gpu-check.
#
#   scripts/gpu_check.sh [bundle.tar.gz] [test-binary ...]
#   SECTIONS="doctor bench faults diagnose program campaign tests" scripts/gpu_check.sh ...
#
# Sections (all by default):
#   doctor    doctor, doctor --require-gpu, library resolution
#   bench     the three examples checked and timed; ncu's gpu__time_duration on the same launch
#   faults    scripts/gpu_faults.sh: eight broken candidates then a good kernel, one run
#   diagnose  warpforge diagnose on vector_add and the naive transpose, and ncu's DRAM and SM
#             throughput on the same launches for comparison
#   program   program mode: the device-to-device copy bandwidth (examples/d2d_copy)
#   campaign  warpforge run examples/quickstart.toml (K = 4, ablations), its report; then a
#             campaign whose search space holds a faulting branch (it must finish the rest)
#   sweep     examples/sweep.toml on GPU 0 alone, then on every GPU: busy fraction, candidates/hour
#   calibrate warpforge calibrate --max-priority 3 on GPU 0 (built-in microbenchmarks): report.md,
#             results.json, measurements.tsv, the Accel-Sim and GPGPU-Sim fragments, the charts
#   llm       examples/llm/campaign.toml against the scripted loopback server (no model: the
#             replies are tests/llm/fixtures), then its replay from the transcripts, compared
#   deploy    examples/deploy/demo.sh: build the example application, observe its kernel
#             (warpforge observe), tune at the observed configurations, deploy the champion
#             (before/after of the real program), then a slower kernel that must be rolled back;
#             the deploy rows of the store; then the champion again, timed as the observed sum of
#             the kernel's launches (timing = "observed")
#   cheat     scripts/cheat_suite.sh: every kernel of tests/cheat/cheats.tsv through warpforge
#             bench (one run per problem, the honest kernel beside its cheats), each with the
#             outcome the manifest gives; then $AB_BASE (a bundle of an earlier tree), if set,
#             against this one on the examples' own kernels (scripts/bench_ab.sh)
#   tests     the gpu-labelled GoogleTest binaries given after the bundle
# Exit status: non-zero when any check failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="${1:-$(ls "$here"/.bundle/warpforge-*-linux-x86_64.tar.gz 2>/dev/null | head -1)}"
shift || true
out="${OUT:-/tmp/warpforge-gpu-check}"
sections="${SECTIONS:-doctor bench faults diagnose program campaign tests}"
mkdir -p "$out"
failed=0
step() { echo; echo "=== $*"; }
check() { "$@"; local rc=$?; [[ $rc -eq 0 ]] || { echo "FAILED ($rc): $*"; failed=1; }; return 0; }
wants() { [[ " $sections " == *" $1 "* ]]; }

[[ -f "$bundle" ]] || { echo "no bundle at '$bundle' (make one with scripts/bundle.sh)" >&2; exit 2; }
unpack="$(mktemp -d)"
tar xzf "$bundle" -C "$unpack"
W="$(ls -d "$unpack"/warpforge-*)"
runs="${RUNS:-$unpack/runs}" # run directories: thousands of files, kept out of $OUT unless asked
export WARPFORGE_CACHE_DIR="$unpack/cache"

# ncu's value of `metric` for the launch in a run directory's request file (warpforge-runner
# --execute replays it): the same CUBIN, arguments and seed that warpforge measured. Clocks are
# never locked, and caches are not flushed between passes: the conditions warpforge's own timing
# and CUPTI profiling run under.
ncu_metric() { # request.json metrics...
  local request="$1"; shift
  local list; list="$(IFS=,; echo "$*")"
  ncu --clock-control none --cache-control none --metrics "$list" --csv --print-units base --page raw \
      "$W/bin/warpforge-runner" --execute "$request" > "$unpack/ncu.csv" 2>&1
  # The requested columns of the last launch, as name=value (ncu's raw page has many more).
  python3 - "$unpack/ncu.csv" "$@" <<'PY' || tail -3 "$unpack/ncu.csv"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and (r[0] == "ID" or r[0].isdigit())]
header, last = rows[0], rows[-1]
print(" ".join(f"{m}={last[header.index(m)]}" for m in sys.argv[2:]))
PY
}

if wants doctor; then
  step "host"
  nvidia-smi -L || true
  step "libraries the bundle does not resolve (expect none)"
  ldd "$W/bin/warpforge" "$W/bin/warpforge-runner" | grep 'not found' || echo "all resolved"
  step "warpforge doctor"
  check "$W/bin/warpforge" doctor --run-root "$runs" | tee "$out/doctor.txt"
  step "warpforge doctor --require-gpu"
  check "$W/bin/warpforge" doctor --require-gpu --run-root "$runs" > /dev/null && echo "a GPU is usable"
fi

if wants bench; then
  step "warpforge bench on the examples (checked against their references, then timed)"
  for example in vector_add transpose row_reduction; do
    check "$W/bin/warpforge" bench "$here/examples/$example/problem.toml" --run-root "$runs" \
      2>&1 | grep -v ' info ' | tee "$out/bench-$example.txt"
  done
  step "ncu's gpu__time_duration on the same ~1 ms launch (naive transpose; --clock-control none)"
  if command -v ncu > /dev/null; then
    request="$(ls -t "$runs"/bench-transpose-*/jobs/transpose/iter-1/branch-0/request-*.json | head -1)"
    for i in 1 2 3; do ncu_metric "$request" gpu__time_duration.sum; done | tee "$out/ncu-transpose.csv"
    grep -E '^0 ' "$out/bench-transpose.txt" | head -1
  else
    echo "ncu not found: skipped"
  fi
fi

if wants faults; then
  step "broken candidates and a good kernel in ONE run (scripts/gpu_faults.sh)"
  check "$here/scripts/gpu_faults.sh" "$W/bin/warpforge" 0 "$runs" 2>&1 | grep -v ' info ' | tee "$out/faults.txt"
fi

if wants diagnose; then
  for example in vector_add transpose; do
    step "warpforge diagnose $example"
    check "$W/bin/warpforge" diagnose "$here/examples/$example/problem.toml" --gpus 0 --run-root "$runs" \
      2>&1 | grep -v ' info ' | tee "$out/diagnose-$example.txt"
    if command -v ncu > /dev/null; then
      request="$(ls -td "$runs"/diagnose-$example-* | head -1)"
      request="$(find "$request" -name 'request-*.json' | head -1)"
      echo "request: ${request:-none found}"
      echo "ncu on the same launch: dram__throughput, sm__throughput (% of peak), 3 runs"
      for i in 1 2 3; do
        ncu_metric "$request" dram__throughput.avg.pct_of_peak_sustained_elapsed \
                   sm__throughput.avg.pct_of_peak_sustained_elapsed
      done | tee "$out/ncu-$example.csv"
    fi
  done
fi

if wants program; then
  step "program mode: device-to-device copy bandwidth (examples/d2d_copy/copy.cu, 5 trials)"
  check "$W/bin/warpforge" program "$here/examples/d2d_copy/copy.cu" --gpus 0 --trials 5 --run-root "$runs" \
    2>&1 | grep -v ' info ' | tee "$out/program-d2d.txt"
fi

if wants campaign; then
  step "warpforge run examples/quickstart.toml (tuner, K = 4, ablations; unattended)"
  sed "s|^run_root = .*|run_root = \"$runs\"|; s|^endpoint = .*|endpoint = \"tcp://127.0.0.1:*\"|" \
    "$here/examples/quickstart.toml" > "$unpack/quickstart.toml"
  sed -i "s|problem = \"|problem = \"$here/examples/|" "$unpack/quickstart.toml"
  check "$W/bin/warpforge" run "$unpack/quickstart.toml" 2>&1 | grep -v ' info ' | tee "$out/campaign.txt"
  run_dir="$(ls -td "$runs"/quickstart-* | head -1)"
  check "$W/bin/warpforge" report "$run_dir" > "$out/campaign-report.md"
  "$W/bin/warpforge" report "$run_dir" --format csv > "$out/campaign-report.csv"
  cp "$run_dir"/*.svg "$out/" 2>/dev/null
  cat "$out/campaign-report.md" | head -120

  step "a campaign with a faulting branch in the middle (tests/fixtures/faults/campaign)"
  faulting="$here/tests/fixtures/faults/campaign/.gpu-check.toml" # beside problem.toml: relative paths hold
  sed "s|^run_root = .*|run_root = \"$runs\"|" "$here/tests/fixtures/faults/campaign/campaign.toml" > "$faulting"
  check "$W/bin/warpforge" run "$faulting" 2>&1 | grep -v ' info ' | tee "$out/campaign-faulting.txt"
  rm -f "$faulting"
  run_dir="$(ls -td "$runs"/faulting-* | head -1)"
  "$W/bin/warpforge" report "$run_dir" --format csv | tee "$out/campaign-faulting.csv"
fi

if wants sweep; then
  for label in one all; do
    gpus='"all"'
    [[ $label == one ]] && gpus='[0]'
    step "sweep (examples/sweep.toml) on gpus = $gpus"
    sed "s|^run_root = .*|run_root = \"$runs/sweep-$label\"|; s|^gpus = .*|gpus = $gpus|" \
      "$here/examples/sweep.toml" > "$unpack/sweep.toml"
    sed -i "s|problem = \"|problem = \"$here/examples/|" "$unpack/sweep.toml"
    check "$W/bin/warpforge" run "$unpack/sweep.toml" 2>&1 | grep -v ' info ' > "$out/sweep-$label.txt"
    grep -E '^warpforge: |^\| |^  GPU |^  [0-9]+ ' "$out/sweep-$label.txt"
    # candidates per hour from the summary line: "finished in S s: C kernels compiled, M candidates
    # measured; R per GPU-hour; ..." (docs/report.md, "Throughput")
    awk '/^warpforge: .* in [0-9.]+ s:/ { for (i = 1; i <= NF; i++) { if ($i == "in") s = $(i+1);
         if ($i == "measured;") m = $(i-2) } printf "candidates/hour: %.0f (%d in %.1f s)\n", m / s * 3600, m, s }' \
      "$out/sweep-$label.txt"
  done
fi

if wants calibrate; then
  step "warpforge calibrate --max-priority ${CAL_PRIORITY:-3} --gpus ${CAL_GPUS:-0} (trials ${CAL_TRIALS:-10})"
  start=$(date +%s)
  timeout "${CAL_TIMEOUT:-480}" "$W/bin/warpforge" calibrate --max-priority "${CAL_PRIORITY:-3}" --gpus "${CAL_GPUS:-0}" \
    --trials "${CAL_TRIALS:-10}" --watchdog 30 --run-root "$runs" 2>&1 | grep -v ' info ' | tail -n 60 | tee "$out/calibrate.txt"
  echo "calibrate wall: $(( $(date +%s) - start )) s" | tee -a "$out/calibrate.txt"
  cal_dir="$(ls -td "$runs"/calibrat* | head -1)"
  for f in report.md results.json accel-sim.config measurements.tsv; do cp "$cal_dir/$f" "$out/calibrate-$f" 2>/dev/null; done
  (cd "$cal_dir" && tar czf "$out/calibrate-charts.tgz" charts solved 2>/dev/null)
fi

if wants deploy; then
  step "observe -> tune -> deploy -> roll back: examples/deploy/demo.sh"
  check env DEMO_OUT="$out/deploy-demo" "$here/examples/deploy/demo.sh" "$W/bin/warpforge"
  deploy_run="$(ls -td "$here"/runs/deploy_transpose-* 2>/dev/null | head -1)"
  if [[ -n "$deploy_run" ]]; then
    {
      echo "## deployments"; python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute('select * from deployments')]" "$deploy_run/warpforge.db"
      echo "## deploy_steps"; python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute('select * from deploy_steps')]" "$deploy_run/warpforge.db"
      echo "## deploy events"; "$W/bin/warpforge" tail --run-dir "$deploy_run" --log --idle-timeout 1 2>&1 | grep -E 'deploy_' | cut -c1-400
    } > "$out/deploy-demo/store.md" 2>&1
    head -c 8000 "$out/deploy-demo/store.md"
    step "the same champion deployed again with timing = \"observed\" (the kernel's launches under the injection library)"
    problem="$here/examples/deploy/problem.toml"
    cp "$problem" "$unpack/problem.toml.orig"
    sed -i 's/^timing = "result"/timing = "observed"/; /^result_key = /d' "$problem"
    check "$W/bin/warpforge" deploy "$deploy_run" 2>&1 | tee "$out/deploy-demo/deploy-observed.log"
    cp "$unpack/problem.toml.orig" "$problem"
    cp "$here/examples/deploy/app/src/transpose_kernel.cuh" "$out/deploy-demo/kernel-after-observed.cuh"
    git -C "$here" checkout -- examples/deploy/app/src/transpose_kernel.cuh 2>/dev/null ||
      cp "$(ls -d "$deploy_run"/deploy/deploy_transpose/*/ | tail -1)backup/src/transpose_kernel.cuh" \
         "$here/examples/deploy/app/src/transpose_kernel.cuh"
  fi
fi

if wants llm; then
  step "llm proposer end to end against scripts/scripted_llm_server.py (scripted replies, not a model)"
  # LLM_MANIFEST: another manifest of scripted replies (e.g. tests/llm/fixtures/scripted_repeat.json)
  python3 "$here/scripts/scripted_llm_server.py" --port 8765 --manifest "${LLM_MANIFEST:-$here/examples/llm/scripted.json}" \
    --log "$out/llm-server.jsonl" 2> "$unpack/llm-server.err" &
  server=$!
  for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', 8765), 1)" 2>/dev/null && break; sleep 0.1; done
  sed "s|^run_root = .*|run_root = \"$runs\"|; s|^endpoint = .*|endpoint = \"tcp://127.0.0.1:*\"|; s|problem = \"\.\./|problem = \"$here/examples/|" \
    "$here/examples/llm/campaign.toml" > "$unpack/llm-campaign.toml"
  check "$W/bin/warpforge" doctor --campaign "$unpack/llm-campaign.toml" 2>&1 | tail -n 2
  check "$W/bin/warpforge" run "$unpack/llm-campaign.toml" 2>&1 | grep -v ' info ' | tee "$out/llm.txt"
  kill $server
  run_dir="$(ls -td "$runs"/llm-scripted-* | head -1)"
  {
    "$W/bin/warpforge" report "$run_dir"
    for job in transpose sgemm; do echo; echo "## memory.md of $job"; cat "$run_dir/jobs/$job/memory.md"; done
    echo; echo "## events: model calls, failures, SASS, champions, ablations"
    "$W/bin/warpforge" tail --run-dir "$run_dir" 2>&1 |
      grep -E 'llm_call|branch_failed|branch_checked|champion|ablation|job_finished|branch_measured' | cut -c1-500
    echo; echo "## iterations rows (job, number, champion)"
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute('select job_id, number, state, champion_branch_id from iterations')]" "$run_dir/warpforge.db"
    echo; echo "## branches recorded as a repeat (duplicate_of), and races per job and iteration"
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute('select j.name, i.number, b.ordinal, b.kind, b.outcome, b.duplicate_of_iteration, b.duplicate_of_ordinal from branches b join iterations i on b.iteration_id = i.id join jobs j on i.job_id = j.id order by j.name, i.number, b.ordinal')]" "$run_dir/warpforge.db"
    echo; echo "## llm_calls rows"
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute('select * from llm_calls')]" "$run_dir/warpforge.db"
  } > "$out/llm-run.md" 2>&1
  head -c 20000 "$out/llm-run.md"
  step "replay from $run_dir (no server running)"
  sed "s|^name = .*|name = \"llm-replay\"|; s|^kind = \"llm\"|kind = \"replay\"\nreplay_from = \"$run_dir\"|" \
    "$unpack/llm-campaign.toml" > "$unpack/llm-replay.toml"
  check "$W/bin/warpforge" run "$unpack/llm-replay.toml" 2>&1 | grep -v ' info ' | tail -n 12 | tee "$out/llm-replay.txt"
  replay_dir="$(ls -td "$runs"/llm-replay-* | head -1)"
  check python3 - "$run_dir" "$replay_dir" <<'PY' | tee -a "$out/llm-replay.txt"
import json, os, sys
first, again = sys.argv[1], sys.argv[2]
same = total = 0
for job in ("transpose", "sgemm"):
    for it in sorted(os.listdir(os.path.join(first, "jobs", job))):
        p = os.path.join(first, "jobs", job, it, "proposal.json")
        q = os.path.join(again, "jobs", job, it, "proposal.json")
        if not os.path.exists(p):
            continue
        total += 1
        a, b = json.load(open(p))["candidates"], json.load(open(q))["candidates"] if os.path.exists(q) else None
        same += a == b
        print(job, it, "identical" if a == b else "DIFFERENT", len(a), "candidates")
print("replay: %d of %d proposals identical" % (same, total))
sys.exit(0 if same == total else 1)
PY
fi

if wants cheat; then
  step "cheat suite through warpforge bench"
  check "$here/scripts/cheat_suite.sh" "$bundle" 0 "$out/cheat-runs"
  if [[ -n "${AB_BASE:-}" ]]; then
    step "honest kernels: $AB_BASE (A) against this bundle (B), same GPU"
    check "$here/scripts/bench_ab.sh" "$AB_BASE" "$bundle" 0 "${AB_ROUNDS:-3}"
  fi
fi

if wants tests; then
  for test_binary in "$@"; do
    step "$(basename "$test_binary")"
    check env LD_LIBRARY_PATH="$W/lib:${LD_LIBRARY_PATH:-}" WARPFORGE_RUNNER="$W/bin/warpforge-runner" \
      "$test_binary" --gtest_output="xml:$out/$(basename "$test_binary").xml"
  done
fi

echo
[[ $failed -eq 0 ]] && echo "gpu_check: all checks passed" || echo "gpu_check: some checks FAILED"
exit $failed
