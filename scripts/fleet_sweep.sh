#!/usr/bin/env bash
# The fleet on real GPUs (issue 24): a 12-job sweep — four example problems at three sizes each,
# the tuner (random search, fixed seed: the same candidates whatever the GPU count), 3 iterations
# of K = 4 — run by one warpforge install on GPU 0 alone and then on the first N GPUs of this host
# for each N given. Prints, per run, the wall time, the candidates measured and per GPU-hour, and
# per GPU its measurements and kernel time over wall time (busy), from the run's own store; then
# whether every run crowned the same champions as the one-GPU run (the same end state) and, last,
# "scaling: 2 GPUs X.XXx, 4 GPUs Y.YYx" (wall time on one GPU over wall time on N).
#
#   scripts/fleet_sweep.sh <install-dir> [gpu-counts...]    # default: 2; e.g. 2 4
#   scripts/fleet_sweep.sh <install-dir> 1                  # the one-GPU run alone (a 1-GPU host)
#   ITERATIONS=3 BRANCHES=4 scripts/fleet_sweep.sh /tmp/W/warpforge-0.1.0-linux-x86_64 2 4
#   PROFILE=none scripts/fleet_sweep.sh ...   # [profile] champions (default: the tuner's, final)
#
# Needs python3 (its sqlite3 module reads the store; works on installs from before the
# throughput report). The examples come from <install-dir>/share/warpforge/examples, else the
# repository this script is in.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/scripts/sweep_jobs.sh"
sweep_install fleet_sweep "${1:-}" || exit 2
shift
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(2)

# One problem folder per (problem, size): the example's files with its [dims] changed. SIZES=6
# gives six sizes per problem (a 24-job sweep): more jobs than the longest job's chain of races.
declare -A sizes=(
  [transpose]="ROWS=4096,COLS=4096 ROWS=8192,COLS=8192 ROWS=12288,COLS=12288"
  [row_reduction]="ROWS=8192 ROWS=16384 ROWS=32768"
  [softmax]="ROWS=8192 ROWS=16384 ROWS=32768"
  [sgemm]="M=1024,N=1024,K=1024 M=1536,N=1536,K=1536 M=2048,N=2048,K=2048"
  [vector_add]="N=8388608 N=16777216 N=33554432"
)
if [[ "${SIZES:-3}" == 6 ]]; then
  sizes[transpose]="ROWS=2048,COLS=2048 ROWS=4096,COLS=4096 ROWS=6144,COLS=6144 ROWS=8192,COLS=8192 ROWS=10240,COLS=10240 ROWS=12288,COLS=12288"
  sizes[row_reduction]="ROWS=4096 ROWS=8192 ROWS=12288 ROWS=16384 ROWS=24576 ROWS=32768"
  sizes[softmax]="ROWS=4096 ROWS=8192 ROWS=12288 ROWS=16384 ROWS=24576 ROWS=32768"
  sizes[sgemm]="M=512,N=512,K=512 M=768,N=768,K=768 M=1024,N=1024,K=1024 M=1280,N=1280,K=1280 M=1536,N=1536,K=1536 M=2048,N=2048,K=2048"
fi
jobs_toml="$(sweep_jobs "$work" "$examples" sizes ${PROBLEMS:-transpose row_reduction softmax sgemm})"$'\n'

write_campaign() { # label gpu-list
  cat <<EOF
name = "fleet-$1"
run_root = "$work/runs-$1"
gpus = [$2]
$jobs_toml
[budget]
iterations = ${ITERATIONS:-3}
branches = ${BRANCHES:-4}
wall_time_s = 1800.0
patience = 10

[proposer]
kind = "tune"
strategy = "random"
seed = 7

[feed]
endpoint = "tcp://127.0.0.1:*"
EOF
  [[ -z "${PROFILE:-}" ]] || printf '\n[profile]\nchampions = "%s"\n' "$PROFILE"
}

# The run's figures from its store: wall, measurements per GPU, candidates measured (branches a
# GPU gave a verdict: docs/report.md), kernel time per GPU (gpu_released kernel_s, where the
# install records it), champions.
summarise() { # label run-dir wall gpu-count
  python3 - "$@" <<'EOF'
import json, sqlite3, sys
label, run, wall, ngpus = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
db = sqlite3.connect(f"{run}/warpforge.db")
q = lambda sql: db.execute(sql).fetchall()
per_gpu = dict(q("SELECT gpu, count(*) FROM measurements GROUP BY gpu"))
verdicts = "('passed','incorrect','runtime_error','timeout','inconsistent','suspicious')"
measured = q(f"SELECT count(*) FROM branches WHERE outcome IN {verdicts}")[0][0]
kernel = {}
for gpu, detail in q("SELECT gpu, json FROM events WHERE type = 'gpu_released'"):
    k = json.loads(detail).get("kernel_s")
    if k is not None:
        kernel[gpu] = kernel.get(gpu, 0.0) + k
if measured == 0:
    print(f"{label}: wall {wall:.1f} s, no candidate measured (no GPU here? see fleet-{label}.err)")
    sys.exit(0)
per_hour = measured / (wall * ngpus / 3600.0)
print(f"{label}: wall {wall:.1f} s, candidates measured {measured} ({per_hour:.0f} per GPU-hour)")
leased = {}
for gpu, detail in q("SELECT gpu, json FROM events WHERE type = 'gpu_released'"):
    leased[gpu] = leased.get(gpu, 0.0) + json.loads(detail).get("lease_s", 0.0)
for gpu in sorted(per_gpu):
    busy = f"busy {100 * kernel[gpu] / wall:.1f}%" if gpu in kernel else "busy not recorded by this install"
    occupied = f", occupied {100 * leased[gpu] / wall:.1f}%" if leased.get(gpu) else ""
    print(f"  GPU {gpu}: {per_gpu[gpu]} measurements, {busy}{occupied}")
# Where each job's time went (DETAIL=1): its chain of races and profiles is what no number of
# GPUs shortens, so the longest job bounds the wall time.
if __import__("os").environ.get("DETAIL"):
    start = q("SELECT min(ts) FROM events")[0][0]
    jobs = {}
    for job, typ, ts, detail in q("SELECT job, type, ts, json FROM events WHERE job IS NOT NULL ORDER BY seq"):
        j = jobs.setdefault(job, {"races": 0, "race_s": 0.0, "max_race_s": 0.0, "profiles": 0, "profile_s": 0.0,
                                  "kernel_s": 0.0, "end": 0.0})
        j["end"] = ts - start
        if typ == "gpu_released":
            d = json.loads(detail)
            lease = d.get("lease_s", 0.0)
            if d.get("profile"):
                j["profiles"] += 1; j["profile_s"] += lease
            else:
                j["races"] += 1; j["race_s"] += lease; j["max_race_s"] = max(j["max_race_s"], lease)
                j["kernel_s"] += d.get("kernel_s", 0.0)
    # Where the GPU workers' time went, summed over GPUs: the engine's lease, the worker's request,
    # the runner's race wall and its parts (per race), and the kernels' own phases.
    lease = request = profile = 0.0
    for detail, in q("SELECT json FROM events WHERE type = 'gpu_released'"):
        d = json.loads(detail)
        if d.get("profile"):
            profile += d.get("lease_s", 0.0)
        else:
            lease += d.get("lease_s", 0.0); request += d.get("request_s", 0.0)
    races, phases = {}, {}
    for job, it, gpu, detail in q("SELECT job, iter, gpu, json FROM events WHERE type IN ('branch_measured', 'ablation_measured')"):
        d = json.loads(detail)
        races[(job, it, gpu, d.get("race_wall_s"))] = d
        for key in ("load_s", "check_s", "warmup_s", "timing_s", "kernel_s"):
            phases[key] = phases.get(key, 0.0) + d.get(key, 0.0)
    part = lambda key: sum(d.get(key, 0.0) for d in races.values())
    print(f"    races: lease {lease:.1f} s, worker request {request:.1f} s, runner wall {part('race_wall_s'):.1f} s "
          f"(inputs {part('race_inputs_s'):.1f}, reference {part('race_reference_s'):.1f}, set-up {part('race_setup_s'):.1f}); "
          "kernels: " + ", ".join(f"{k[:-2]} {v:.1f}" for k, v in phases.items()) + f"; profiles: lease {profile:.1f} s")
    for name, j in sorted(jobs.items(), key=lambda kv: -kv[1]["end"]):
        print(f"    {name}: ends at {j['end']:.1f} s; {j['races']} races {j['race_s']:.1f} s (longest {j['max_race_s']:.1f} s, "
              f"kernels {j['kernel_s']:.1f} s), {j['profiles']} profiles {j['profile_s']:.1f} s")
EOF
}

run_one() { # label gpu-list gpu-count
  write_campaign "$1" "$2" > "$work/fleet-$1.toml"
  local start end
  start=$(date +%s.%N)
  "$warpforge" run "$work/fleet-$1.toml" > "$work/fleet-$1.out" 2> "$work/fleet-$1.err"
  local status=$?
  end=$(date +%s.%N)
  local run
  run=$(ls -d "$work/runs-$1"/*/ | head -1)
  echo "== $1 (exit $status): $warpforge run, gpus [$2]"
  tail -n 12 "$work/fleet-$1.out"
  [[ $status -eq 0 ]] || tail -n 5 "$work/fleet-$1.err"
  local wall
  wall=$(python3 -c "print($end - $start)")
  echo "$wall" > "$work/wall-$1"
  summarise "$1" "${run%/}" "$wall" "$3"
  "$warpforge" report "${run%/}" > "$work/report-$1.md" 2>/dev/null || true
}

run_one n1 0 1
labels=(n1)
for n in "${counts[@]}"; do
  ((n > 1)) || continue # the one-GPU run is n1, above
  list="0"
  for ((g = 1; g < n; ++g)); do list+=", $g"; done
  run_one "n$n" "$list" "$n"
  labels+=("n$n")
done
python3 - "$work" "${labels[@]}" <<'EOF'
import glob, sqlite3, sys
work, labels = sys.argv[1], sys.argv[2:]
def champions(label):
    run = glob.glob(f"{work}/runs-{label}/*/")[0]
    db = sqlite3.connect(f"{run}/warpforge.db")
    return db.execute("""SELECT j.name, i.number, b.defines_json FROM jobs j JOIN iterations i ON i.job_id = j.id
                         JOIN branches b ON b.id = i.champion_branch_id ORDER BY j.name, i.number""").fetchall()
wall = {label: float(open(f"{work}/wall-{label}").read()) for label in labels}
for label in labels[1:]:
    try:
        if not champions("n1"):
            print(f"{label}: no champions to compare (nothing was measured)")
            continue
        same = champions(label) == champions("n1")
        print(f"{label}: " + ("the same champions as n1" if same else
                              "champions differ from n1 (noise decided a close election)"))
    except sqlite3.Error as e:
        print(f"{label}: champions not compared ({e})")
measured_n1 = sqlite3.connect(glob.glob(f"{work}/runs-n1/*/")[0] + "warpforge.db").execute(
    "SELECT count(*) FROM measurements").fetchone()[0]
if measured_n1 == 0:
    print("scaling: not measured (the one-GPU run measured nothing)")
elif len(labels) == 1:
    print("scaling: not measured (one GPU only)")
else:
    print("scaling: " + ", ".join(f"{label[1:]} GPUs {wall['n1'] / wall[label]:.2f}x" for label in labels[1:]))
EOF
