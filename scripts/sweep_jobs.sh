# Sourced by scripts/fleet_sweep.sh and scripts/hosts_check.sh: the install they run and the
# sweeps they run on GPU hosts.
#
#   source scripts/sweep_jobs.sh
#   sweep_install fleet_sweep "$1" || exit 2   # sets install, warpforge, examples, work
#   declare -A sizes=([transpose]="ROWS=4096,COLS=4096 ROWS=8192,COLS=8192")
#   jobs_toml="$(sweep_jobs "$work" "$examples" sizes transpose)"
#
# sweep_install <script-name> <install-dir>: install (absolute), warpforge (its bin/warpforge,
# which must be executable), examples (the install's share/warpforge/examples, else this
# repository's) and work ($WORK, else a fresh temporary folder; created).
sweep_install() {
  [[ -n "$2" ]] || { echo "usage: scripts/$1.sh <install-dir> ..." >&2; return 1; }
  install="$(cd "$2" && pwd)" || return 1
  warpforge="$install/bin/warpforge"
  [[ -x "$warpforge" ]] || { echo "$1: no $warpforge" >&2; return 1; }
  examples="$install/share/warpforge/examples"
  [[ -d "$examples" ]] || examples="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/examples"
  work="${WORK:-$(mktemp -d)}"
  mkdir -p "$work"
}
#
# sweep_jobs <work> <examples> <sizes-array-name> <problems...>: for each problem and each of its
# sizes ("DIM=value,DIM=value"), a problem folder under <work>/problems made of the example's files
# with those [dims] changed; prints one [[jobs]] table per folder.
sweep_jobs() {
  local work=$1 examples=$2
  local -n sizes_of=$3
  shift 3
  local problem size name assignment
  for problem in "$@"; do
    for size in ${sizes_of[$problem]}; do
      name="$problem-$(echo "$size" | tr ',=' '_-')"
      mkdir -p "$work/problems/$name"
      cp -r "$examples/$problem/." "$work/problems/$name/"
      for assignment in ${size//,/ }; do
        sed -i -E "s/^${assignment%%=*} = [0-9]+/${assignment%%=*} = ${assignment#*=}/" "$work/problems/$name/problem.toml"
      done
      printf '[[jobs]]\nname = "%s"\nproblem = "%s"\n' "$name" "$work/problems/$name/problem.toml"
    done
  done
}
