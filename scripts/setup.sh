#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for warpforge and builds it (Release) into build/.
# Idempotent: packages already present are skipped, apt-get update runs at most once.
# Nothing is fetched from anywhere but Debian's package archive.
#
#   scripts/setup.sh              install packages, configure, build
#   scripts/setup.sh --no-build   install packages only
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${WARPFORGE_BUILD_DIR:-$here/build}"

packages=(
  build-essential cmake ninja-build pkg-config patchelf
  libcaf-dev libboost-dev libssl-dev
  libsimdjson-dev libspdlog-dev libfmt-dev
  libzmq3-dev cppzmq-dev
  libtomlplusplus-dev libcli11-dev libsqlite3-dev
  libgtest-dev libgmock-dev
  # The monitor test runs examples/monitor/monitor.py under Debian's python3 with pyzmq; the
  # dashboard test drives a headless chromium (28 packages, about 124 MB to download and 16 s to
  # install on a CI runner).
  python3-zmq chromium
  # tests/architecture reads the include graph with python3 (the folder-cycle check).
  python3
  # The tests labelled slurm start a one-node Slurm cluster on 127.0.0.1
  # (tests/pipeline/hosts/slurm_cluster.sh): its controller, its node daemon, the client commands
  # warpforge runs (sbatch, squeue, scancel) and munge, Slurm's authentication. Installing starts
  # no daemon a test relies on: the fixture starts its own, with its own key and configuration.
  slurmctld slurmd slurm-client munge
  # GPU hosts: the campaign credential is made by the openssl tool (pipeline/host_credential.cpp);
  # the hosts' test scripts read their stores with the sqlite3 tool.
  openssl sqlite3
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [[ ! -x "$cuda_home/bin/nvcc" && ! -e "$cuda_home/lib64/libnvrtc.so" && ! -e "$cuda_home/lib/libnvrtc.so" ]]; then
  echo "setup: no CUDA toolkit at $cuda_home (set CUDA_HOME to the CUDA 13 toolkit's folder)" >&2
  exit 3
fi

# The SASS check reads the CUBIN with nvdisasm (else cuobjdump); without either every branch is
# compiled and its PTX checked, but its SASS is "not checked: no disassembler". A note, not a stop.
if ! command -v nvdisasm >/dev/null && ! command -v cuobjdump >/dev/null &&
   [[ ! -x "$cuda_home/bin/nvdisasm" && ! -x "$cuda_home/bin/cuobjdump" ]]; then
  echo "setup: note: neither nvdisasm nor cuobjdump is in $cuda_home/bin or on PATH, so the SASS of" \
       "candidates will not be checked; install NVIDIA's cuda-nvdisasm-13-0 (or cuda-cuobjdump-13-0)" \
       "package from the CUDA apt repository, the toolkit package that carries them" >&2
fi

[[ "${1:-}" == "--no-build" ]] && exit 0

cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_home"
cmake --build "$build_dir" --parallel "$(nproc)"
echo "setup: built into $build_dir"
