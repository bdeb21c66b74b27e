#include "gpu/compile/compile_cache.hpp"

#include "gpu/compile/include_check.hpp"
#include "gpu/json_fields.hpp"
#include "foundation/json/writer.hpp"

#include <openssl/evp.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace warpforge::gpu {
namespace fs = std::filesystem;
namespace {

// Bumped when an entry's layout or meaning changes; part of every key.
// v2: compile_kernel checks includes and passes --no-source-include (issue 22); a v1 entry may
// hold a log that quotes a file the source should never have read, so none is served.
// v3: the key holds every header included from the include folders, and meta.json the entry's
// lowered symbol; --no-source-include is no longer passed (headers include their siblings),
// walk_included_headers checks what the working folder would give instead (issue 29).
constexpr std::string_view kernel_key_format = "warpforge-kernel-cache-v3";
constexpr std::size_t key_prefix_length = 2; // hex digits of the fan-out directory
constexpr std::string_view ptx_file = "kernel.ptx";
constexpr std::string_view cubin_file = "kernel.cubin";
constexpr std::string_view log_file = "compile.log";
constexpr std::string_view meta_file = "meta.json";
constexpr std::string_view success_outcome = "ok";
constexpr std::string_view fallback_cache_dir = "/tmp/warpforge-cache";

std::atomic<std::uint64_t> scratch_counter{0};

std::optional<std::string> non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return std::string(value);
}

std::string unique_suffix() {
  return std::to_string(::getpid()) + "-" + std::to_string(scratch_counter++);
}

std::string kernel_meta(std::string_view key, const compile_result& result,
                        const std::string& outcome) {
  json::writer out;
  out.begin_object()
      .key("format").value(kernel_key_format)
      .key("key").value(key)
      .key("mode").value("kernel")
      .key("outcome").value(outcome);
  if (result) {
    out.key("entry").value(result->entry)
        .key("symbol").value(result->symbol)
        .key("arch").value(result->arch)
        .key("compile_s").value(result->compile_s)
        .key("ptx_bytes").value(static_cast<std::uint64_t>(result->ptx.size()))
        .key("cubin_bytes").value(static_cast<std::uint64_t>(result->cubin.size()));
  }
  out.key("nvrtc_version").value(nvrtc_version_text())
      .key("stored_unix_s")
      .value(static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count()))
      .end_object();
  return std::move(out).str();
}

} // namespace

namespace cache_detail {

void add_field(std::string& input, std::string_view field) {
  input += std::to_string(field.size());
  input += ':';
  input += field;
  input += ';';
}

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  // One-shot EVP digest: fails only if OpenSSL cannot allocate or has no SHA-256 (a broken
  // installation), which no caller can recover from.
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL EVP_Digest(SHA-256) failed");
  constexpr std::string_view hex_digits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += hex_digits[digest[i] >> 4];
    hex += hex_digits[digest[i] & 0x0f];
  }
  return hex;
}

expected<std::string, cache_error> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return unexpected(cache_error{"cannot open " + path.string()});
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return unexpected(cache_error{"cannot read " + path.string()});
  return std::move(text).str();
}

} // namespace cache_detail

cache_environment cache_environment::from_process() {
  return {non_empty_env("WARPFORGE_CACHE_DIR"), non_empty_env("XDG_CACHE_HOME"),
          non_empty_env("HOME")};
}

fs::path default_cache_root(const cache_environment& env) {
  if (env.warpforge_cache_dir && !env.warpforge_cache_dir->empty())
    return *env.warpforge_cache_dir;
  if (env.xdg_cache_home && !env.xdg_cache_home->empty())
    return fs::path(*env.xdg_cache_home) / "warpforge";
  if (env.home && !env.home->empty())
    return fs::path(*env.home) / ".cache" / "warpforge";
  return fallback_cache_dir;
}

fs::path default_cache_root() { return default_cache_root(cache_environment::from_process()); }

std::string kernel_cache_key(const compile_request& request, std::string_view nvrtc_version) {
  std::string input;
  cache_detail::add_field(input, kernel_key_format);
  cache_detail::add_field(input, request.source);
  cache_detail::add_field(input, request.source_name); // NVRTC's messages quote it
  cache_detail::add_field(input, request.entry);
  for (const auto& option : canonical_options(request))
    cache_detail::add_field(input, option);
  cache_detail::add_field(input, nvrtc_version);
  cache_detail::add_field(input, request.arch);
  // What NVRTC reads besides the source: an edited header is a new key. A refused walk keys its
  // reason (the compile is refused the same way while the files stay as they are).
  const auto walk = walk_included_headers(request.source, request.source_name,
                                          allowed_include_roots(nvrtc_options(request)).folders, request.include_dirs);
  for (const auto& header : walk.headers) {
    cache_detail::add_field(input, header.path);
    cache_detail::add_field(input, header.text);
  }
  if (walk.refusal)
    cache_detail::add_field(input, *walk.refusal);
  return cache_detail::sha256_hex(input);
}

compile_cache::compile_cache(fs::path root) : root_(std::move(root)) {}

fs::path compile_cache::entry_path(std::string_view key) const {
  return root_ / std::string(key.substr(0, key_prefix_length)) / std::string(key);
}

bool compile_cache::contains(std::string_view key) const {
  std::error_code ec;
  return fs::is_regular_file(entry_path(key) / meta_file, ec);
}

expected<fs::path, cache_error> compile_cache::make_scratch_dir() const {
  const fs::path dir = root_ / "tmp" / ("scratch-" + unique_suffix());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return unexpected(cache_error{"create " + dir.string() + ": " + ec.message()});
  return dir;
}

expected<void, cache_error> compile_cache::store_files(std::string_view key,
                                                       const std::vector<cache_file>& files) const {
  const fs::path final_path = entry_path(key);
  const fs::path temp_path =
      final_path.parent_path() / (".tmp-" + std::string(key) + "-" + unique_suffix());
  std::error_code ec;
  fs::create_directories(temp_path, ec);
  if (ec)
    return unexpected(cache_error{"create " + temp_path.string() + ": " + ec.message()});
  auto abandon = [&](std::string detail) -> expected<void, cache_error> {
    std::error_code ignored;
    fs::remove_all(temp_path, ignored);
    return unexpected(cache_error{std::move(detail)});
  };
  for (const auto& file : files) {
    const fs::path path = temp_path / file.name;
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(file.contents.data(), static_cast<std::streamsize>(file.contents.size()));
      out.flush();
      if (!out)
        return abandon("write " + path.string());
    }
    const auto mode = file.executable ? fs::perms::owner_all | fs::perms::group_read |
                                            fs::perms::group_exec | fs::perms::others_read |
                                            fs::perms::others_exec
                                      : fs::perms::owner_read | fs::perms::owner_write |
                                            fs::perms::group_read | fs::perms::others_read;
    fs::permissions(path, mode, ec);
    if (ec)
      return abandon("chmod " + path.string() + ": " + ec.message());
  }
  fs::rename(temp_path, final_path, ec);
  if (ec) {
    // Another writer got there first: its entry is equivalent (same key), keep it.
    if (contains(key)) {
      std::error_code ignored;
      fs::remove_all(temp_path, ignored);
      return {};
    }
    return abandon("rename " + temp_path.string() + " to " + final_path.string() + ": " +
                   ec.message());
  }
  return {};
}

expected<void, cache_error> compile_cache::store(std::string_view key,
                                                 const compile_result& result) const {
  if (!result && result.error().kind == compile_failure_kind::internal)
    return {};
  std::vector<cache_file> files;
  if (result) {
    files.push_back({std::string(ptx_file), result->ptx});
    files.push_back({std::string(cubin_file),
                     std::string(result->cubin.begin(), result->cubin.end())});
    files.push_back({std::string(log_file), result->log});
    files.push_back({std::string(meta_file), kernel_meta(key, result, std::string(success_outcome))});
  } else {
    files.push_back({std::string(log_file), result.error().log});
    files.push_back({std::string(meta_file),
                     kernel_meta(key, result, std::string(to_string(result.error().kind)))});
  }
  return store_files(key, files);
}

std::optional<compile_result> compile_cache::lookup(std::string_view key) const {
  const fs::path dir = entry_path(key);
  if (!contains(key))
    return std::nullopt;
  auto discard = [&]() -> std::optional<compile_result> {
    std::error_code ignored;
    fs::remove_all(dir, ignored); // unreadable: drop it, the next store rewrites it
    return std::nullopt;
  };

  auto meta_text = cache_detail::read_file(dir / meta_file);
  auto log = cache_detail::read_file(dir / log_file);
  if (!meta_text || !log)
    return discard();
  simdjson::dom::parser parser;
  auto meta = parse_object(parser, *meta_text, "meta.json");
  if (!meta)
    return discard();
  json_object_reader reader(*meta, "meta.json");
  std::string format;
  std::string outcome;
  reader.required("format", format);
  reader.required("outcome", outcome);
  if (!reader.ok() || format != kernel_key_format)
    return discard();

  if (outcome != success_outcome) {
    const auto kind = compile_failure_kind_from_string(outcome);
    if (!kind)
      return discard();
    return compile_result(unexpected(compile_failure{*kind, std::move(*log)}));
  }
  compiled_kernel kernel;
  reader.required("entry", kernel.entry);
  reader.required("symbol", kernel.symbol);
  reader.required("arch", kernel.arch);
  auto ptx = cache_detail::read_file(dir / ptx_file);
  auto cubin = cache_detail::read_file(dir / cubin_file);
  if (!reader.ok() || !ptx || !cubin || cubin->empty())
    return discard();
  kernel.ptx = std::move(*ptx);
  kernel.cubin.assign(cubin->begin(), cubin->end());
  kernel.log = std::move(*log);
  kernel.compile_s = 0;
  kernel.cache_hit = true;
  return compile_result(std::move(kernel));
}

cached_compiler::cached_compiler(compile_cache cache, compile_function compile)
    : cache_(std::move(cache)), compile_(std::move(compile)), nvrtc_version_(nvrtc_version_text()) {}

std::string cached_compiler::key_for(const compile_request& request) const {
  return kernel_cache_key(request, nvrtc_version_);
}

compile_result cached_compiler::compile(const compile_request& request) {
  const std::string key = key_for(request);
  if (auto cached = cache_.lookup(key)) {
    ++hits_;
    return std::move(*cached);
  }
  ++misses_;
  compile_result result = compile_(request);
  if (!cache_.store(key, result))
    ++store_failures_;
  return result;
}

cache_stats cached_compiler::stats() const {
  return {hits_.load(), misses_.load(), store_failures_.load()};
}

} // namespace warpforge::gpu
