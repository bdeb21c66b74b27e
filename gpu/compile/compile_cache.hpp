#pragma once
// A content-addressed, on-disk cache of compile results, shared by every process on the host.
//
//   <root>/<first 2 hex of key>/<key>/kernel.ptx     PTX text       (kernel mode, success only)
//                                    /kernel.cubin   CUBIN bytes    (kernel mode, success only)
//                                    /program        executable     (program mode, success only)
//                                    /compile.log    the compiler's log (warnings or errors)
//                                    /meta.json      outcome, entry, symbol, arch, options, versions
//
// key = SHA-256 over (kind, source, canonical options, compiler version, arch, and in kernel mode
// the path and bytes of every header included from the include folders), each field
// length-prefixed. An entry is written into a temporary directory next to its place and renamed
// into place, so a crash never leaves a half entry and concurrent writers of one key agree.
// Deterministic failures (compile_error, invalid_option) are cached too: the same source and
// options give the same log again without running the compiler. internal failures are not.

#include "foundation/expected/expected.hpp"
#include "gpu/compile/compile_options.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// The inputs of default_cache_root, so tests can set them.
struct cache_environment {
  std::optional<std::string> warpforge_cache_dir; // $WARPFORGE_CACHE_DIR
  std::optional<std::string> xdg_cache_home;      // $XDG_CACHE_HOME
  std::optional<std::string> home;                // $HOME
  static cache_environment from_process();
};

/// $WARPFORGE_CACHE_DIR, else $XDG_CACHE_HOME/warpforge, else $HOME/.cache/warpforge
/// (unset and empty variables are skipped; with none, ./.warpforge-cache).
std::filesystem::path default_cache_root(const cache_environment& env);
std::filesystem::path default_cache_root();

/// The cache key of a kernel-mode request (64 hex digits).
std::string kernel_cache_key(const compile_request& request, std::string_view nvrtc_version);

/// Why a cache entry could not be written: the step and the path.
struct cache_error {
  std::string detail;
};

/// One file of an entry; `executable` sets mode 0755 (else 0644).
struct cache_file {
  std::string name;
  std::string contents;
  bool executable = false;
};

class compile_cache {
public:
  explicit compile_cache(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  /// <root>/<key[0:2]>/<key>; exists only once the entry is complete.
  std::filesystem::path entry_path(std::string_view key) const;
  /// True when a complete entry for `key` exists.
  bool contains(std::string_view key) const;

  /// A kernel entry: the compiled kernel (cache_hit = true, compile_s = 0) or the cached
  /// failure; nullopt on a miss. An unreadable entry is removed and reported as a miss.
  std::optional<compile_result> lookup(std::string_view key) const;
  /// Stores a kernel result. internal failures are not stored (returns success, stores nothing).
  expected<void, cache_error> store(std::string_view key, const compile_result& result) const;

  /// Writes `files` (which must include meta.json) as the entry for `key`, atomically. If
  /// another writer completed the entry first, theirs is kept and this succeeds.
  expected<void, cache_error> store_files(std::string_view key,
                                          const std::vector<cache_file>& files) const;
  /// A fresh, empty scratch directory under <root>/tmp (the caller removes it).
  expected<std::filesystem::path, cache_error> make_scratch_dir() const;

private:
  std::filesystem::path root_;
};

/// Counters of a cached compiler (for tests, the bench and status reports).
struct cache_stats {
  std::uint64_t hits = 0;           // answered from the cache
  std::uint64_t misses = 0;         // the compiler ran
  std::uint64_t store_failures = 0; // results that could not be written (still returned)
};

/// compile_kernel behind the cache. Thread-safe (the pool shares one).
class cached_compiler {
public:
  using compile_function = std::function<compile_result(const compile_request&)>;

  /// `compile` defaults to compile_kernel; tests substitute a counting one.
  explicit cached_compiler(compile_cache cache, compile_function compile = compile_kernel);

  compile_result compile(const compile_request& request);
  std::string key_for(const compile_request& request) const;
  const compile_cache& cache() const { return cache_; }
  cache_stats stats() const;

private:
  compile_cache cache_;
  compile_function compile_;
  std::string nvrtc_version_; // asked once
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
  std::atomic<std::uint64_t> store_failures_{0};
};

// Shared by the kernel and program caches (compile_cache.cpp).
namespace cache_detail {
/// Appends `field` to the key's input as "<size>:<bytes>;", so fields cannot run together.
void add_field(std::string& input, std::string_view field);
/// SHA-256 of `bytes` (OpenSSL) as 64 lowercase hex digits: a cache key.
std::string sha256_hex(std::string_view bytes);
expected<std::string, cache_error> read_file(const std::filesystem::path& path);
} // namespace cache_detail

} // namespace warpforge::gpu
