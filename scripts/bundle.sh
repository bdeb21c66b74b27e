#!/usr/bin/env bash
# Builds the relocatable warpforge bundle for GPU nodes and checks it (docs/deploy.md).
#
#   scripts/bundle.sh [--build-dir DIR] [--runner-only] [--no-check]
#
#   --build-dir DIR  use (or create) this CMake build directory; default: <repo>/build (Release)
#   --runner-only    bundle warpforge-runner alone (while the coordinator does not build)
#   --no-check       skip the self-check of the unpacked tarball
#
# Output: stage/warpforge-<version>-linux-x86_64/{bin,lib,share,README.txt} and
#         dist/warpforge-<version>-linux-x86_64.tar.gz (its path is the last line printed).
# Built on Debian 12 for Ubuntu 24.04 + CUDA 13: glibc, libstdc++/libgcc_s, the NVIDIA driver
# (libcuda) and the CUDA toolkit libraries (NVRTC, CUPTI) are NOT bundled; the node has them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$here/build"
runner_only=0
check=1

# The oldest target node: Ubuntu 24.04 (glibc 2.39, GCC 13's libstdc++).
readonly target_glibc="2.39"
readonly target_glibcxx="3.4.33"
# Libraries the node provides, so ldd may call them missing here (no driver on the build host).
readonly node_provided_regex='^(libcuda\.so|libnvidia|libnvrtc|libcupti|libnvperf)'
# Libraries that must never be in the bundle.
readonly forbidden_regex='^(ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libutil\.so|libresolv|libstdc\+\+|libgcc_s|libcuda\.so|libnvidia|libnvrtc|libcupti|libnvperf|libcudart)'

usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "bundle: $*" >&2; exit 1; }

while (($#)); do
  case "$1" in
    --build-dir) [[ $# -ge 2 ]] || die "--build-dir needs a directory"; build_dir="$(realpath -m "$2")"; shift 2 ;;
    --runner-only) runner_only=1; shift ;;
    --no-check) check=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

version="$(sed -n 's/^project(warpforge VERSION \([0-9][0-9.]*\).*/\1/p' "$here/CMakeLists.txt")"
[[ -n "$version" ]] || die "cannot read the version from project(...) in CMakeLists.txt"
name="warpforge-$version-linux-x86_64"
stage="$here/stage/$name"
tarball="$here/dist/$name.tar.gz"

# 1. Configure (Release) if the build directory is new, then build what is installed.
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  echo "bundle: configuring $build_dir (Release)"
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
[[ "$build_type" == "Release" ]] || echo "bundle: warning: $build_dir is a '$build_type' build, not Release" >&2

targets=(warpforge-runner)
components=(runner)
if ((!runner_only)); then
  build_targets="$(cmake --build "$build_dir" --target help)" # not piped: grep -q would SIGPIPE it
  if grep -q '^warpforge:' <<<"$build_targets"; then
    targets+=(warpforge)
    components+=(coordinator)
  else
    echo "bundle: note: no 'warpforge' target in this tree yet; bundling the runner only" >&2
    runner_only=1
  fi
fi
echo "bundle: building ${targets[*]} in $build_dir"
cmake --build "$build_dir" --target "${targets[@]}"

# 2. Install into the stage: executables, bundled libraries (RUNPATH $ORIGIN set by the rules).
rm -rf "$stage"
for component in "${components[@]}"; do
  cmake --install "$build_dir" --prefix "$stage" --component "$component" >/dev/null
done

# The coordinator's shell completions and man page, written when warpforge links
# (cmake/WarpforgeShellDocs.cmake) and installed with it.
readonly shell_docs=(share/man/man1/warpforge.1 share/bash-completion/completions/warpforge
                     share/zsh/site-functions/_warpforge)
if ((!runner_only)); then
  for f in "${shell_docs[@]}"; do
    [[ -s "$stage/$f" ]] || die "$f is missing from the stage (warpforge writes it after linking: cmake/WarpforgeShellDocs.cmake)"
  done
fi

bad="$(ls "$stage/lib" 2>/dev/null | grep -E "$forbidden_regex" || true)"
[[ -z "$bad" ]] || die "the bundle must not contain: $bad"

# Every ELF file must run on the target's glibc and libstdc++.
newest() { sort -V | tail -n 1; }
# The newest <prefix>_x.y symbol version the given ELF files need.
newest_version() {
  local prefix="$1" f
  shift
  for f in "$@"; do objdump -T "$f" | grep -o "${prefix}_[0-9][0-9.]*" || true; done \
    | sed "s/^${prefix}_//" | newest
}
elf_files=("$stage"/bin/*)
while IFS= read -r -d '' f; do elf_files+=("$f"); done < <(find "$stage/lib" -type f -name '*.so*' -print0 2>/dev/null)
need_glibc="$(newest_version GLIBC "${elf_files[@]}")"
need_glibcxx="$(newest_version GLIBCXX "${elf_files[@]}")"
[[ "$(printf '%s\n%s\n' "$need_glibc" "$target_glibc" | newest)" == "$target_glibc" ]] \
  || die "needs glibc $need_glibc, newer than the target's $target_glibc"
[[ -z "$need_glibcxx" || "$(printf '%s\n%s\n' "$need_glibcxx" "$target_glibcxx" | newest)" == "$target_glibcxx" ]] \
  || die "needs GLIBCXX_$need_glibcxx, newer than the target's $target_glibcxx"

# 3. README.txt
commit="$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$here" status --porcelain 2>/dev/null)" ]]; then commit="$commit (with uncommitted changes)"; fi
contents="bin/warpforge-runner"
((runner_only)) || contents="bin/warpforge, bin/warpforge-runner, share/ (man page, bash and zsh completion)"
cat > "$stage/README.txt" <<README
warpforge $version for Linux x86-64 GPU nodes
Built $(date -u +%Y-%m-%dT%H:%M:%SZ) from commit $commit on $(. /etc/os-release && echo "$PRETTY_NAME"),
$build_type build. Contents: $contents, and lib/ with the shared libraries they need.

Requirements on the node
  - glibc >= $need_glibc and a libstdc++ with GLIBCXX_${need_glibcxx:-none}
    (Ubuntu 24.04 has glibc $target_glibc and GLIBCXX_$target_glibcxx).
  - The CUDA 13 toolkit at /usr/local/cuda (libnvrtc.so.13, libnvrtc-builtins.so.13.0,
    libcupti.so.13 in /usr/local/cuda/lib64): found through the executables' RPATH
    \$ORIGIN/../lib:/usr/local/cuda/lib64, or through LD_LIBRARY_PATH / ld.so.cache.
  - The NVIDIA driver (libcuda.so.1), e.g. LD_LIBRARY_PATH=/usr/local/nvidia/lib64.
    Without it the runner still starts and reports status "no_driver".
  - /proc mounted (\$ORIGIN is resolved through it).

Not bundled on purpose: glibc, libstdc++, libgcc_s, libcuda, NVRTC, CUPTI (the node's own copies
are newer or must match its driver and toolkit).

Check a node
  bin/warpforge-runner --query          # human-readable device report
  bin/warpforge-runner --query --json   # the same as JSON
  ldd bin/warpforge-runner | grep 'not found'   # should print nothing on a GPU node

Man page and shell completion (bundles with bin/warpforge)
  man -l share/man/man1/warpforge.1
  source share/bash-completion/completions/warpforge          # bash; or copy it to
                                                               # ~/.local/share/bash-completion/completions/
  fpath=(\$PWD/share/zsh/site-functions \$fpath); autoload -Uz compinit; compinit   # zsh
More: docs/deploy.md in the source tree.
README

# 4. Tarball
mkdir -p "$here/dist"
tar -C "$here/stage" -czf "$tarball" "$name"

# 5. Self-check: unpack elsewhere, resolve libraries, run the runner.
if ((check)); then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  tar -C "$scratch" -xzf "$tarball"
  root="$scratch/$name"
  failed=0
  for f in "$root"/bin/* "$root"/lib/*.so*; do
    [[ -L "$f" ]] && continue
    ldd_out="$(env -u LD_LIBRARY_PATH ldd "$f" 2>&1)" || true
    missing="$(awk '/not found/ {print $1}' <<<"$ldd_out" | grep -Ev "$node_provided_regex" || true)"
    if [[ -n "$missing" ]]; then
      echo "bundle: check: ${f#"$root"/} misses: $missing" >&2
      failed=1
    fi
    # A library the bundle ships must be loaded from the bundle, not from the host.
    while read -r soname path; do
      path="$(realpath -m "$path")"
      if [[ -e "$root/lib/$soname" && "$path" != "$(realpath "$root/lib")/"* ]]; then
        echo "bundle: check: ${f#"$root"/} loads $soname from $path, not from the bundle" >&2
        failed=1
      fi
    done < <(awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' <<<"$ldd_out")
  done
  ((failed == 0)) || die "self-check failed (ldd)"

  query="$(env -u LD_LIBRARY_PATH "$root/bin/warpforge-runner" --query --json)" \
    || die "self-check failed: bin/warpforge-runner --query --json exited $?"
  grep -q '"status":"' <<<"$query" || die "self-check failed: no status in: $query"
  status="$(sed -n 's/.*"status":"\([a-z_]*\)".*/\1/p' <<<"$query" | head -n 1)"
  if [[ -x "$root/bin/warpforge" ]]; then
    rc=0
    env -u LD_LIBRARY_PATH "$root/bin/warpforge" --help >/dev/null 2>&1 || rc=$?
    ((rc != 127)) || die "self-check failed: bin/warpforge cannot start (loader error)"
    bash -c "source '$root/share/bash-completion/completions/warpforge' && complete -p warpforge" >/dev/null \
      || die "self-check failed: share/bash-completion/completions/warpforge does not register a completion"
  fi
  echo "bundle: self-check passed (ldd clean; runner --query --json: status $status)"
fi

scope="warpforge and warpforge-runner"
((runner_only)) && scope="warpforge-runner only"
echo "bundle: $scope, $(du -h "$tarball" | cut -f1)"
echo "$tarball"
