#include "sass/listing_memo.hpp"

#include "foundation/files/atomic_write.hpp"
#include "gpu/compile/compile_cache.hpp"

#include <fstream>
#include <sstream>

namespace warpforge::sass {

std::optional<std::string> listing_memo::key(const std::filesystem::path& tool, std::string_view format,
                                             std::string_view cubin_bytes) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(tool, ec);
  if (ec)
    return std::nullopt;
  const auto time = std::filesystem::last_write_time(tool, ec);
  if (ec)
    return std::nullopt;
  std::string input;
  gpu::cache_detail::add_field(input, tool.string());
  gpu::cache_detail::add_field(input, std::to_string(size));
  gpu::cache_detail::add_field(input, std::to_string(time.time_since_epoch().count()));
  gpu::cache_detail::add_field(input, format);
  gpu::cache_detail::add_field(input, cubin_bytes);
  return gpu::cache_detail::sha256_hex(input);
}

namespace {

// A kept file: one line naming the listing's length and SHA-256, then the listing. It is written
// to a temporary file and renamed into place; one that does not match its line (damaged, cut
// short by a crash, written by something else) is not used.
constexpr std::string_view file_tag = "warpforge-listing";

std::string file_header(std::string_view printed) {
  return std::string{file_tag} + " " + std::to_string(printed.size()) + " " + gpu::cache_detail::sha256_hex(printed) + "\n";
}

std::optional<std::string> read_kept(const std::filesystem::path& file, std::size_t budget) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size > budget + 256)
    return std::nullopt;
  std::ifstream in{file, std::ios::binary};
  std::string header;
  if (!in || !std::getline(in, header))
    return std::nullopt;
  std::ostringstream rest;
  rest << in.rdbuf();
  auto printed = std::move(rest).str();
  if (header + "\n" != file_header(printed))
    return std::nullopt;
  return printed;
}

} // namespace

std::optional<std::string> listing_memo::find(const std::string& key) {
  std::optional<std::filesystem::path> file;
  {
    const std::lock_guard lock{mutex_};
    if (auto it = printed_.find(key); it != printed_.end())
      return it->second;
    file = file_of(key);
  }
  if (!file)
    return std::nullopt;
  auto printed = read_kept(*file, budget_);
  if (printed) { // the next reader in this process (the SASS check after the build) finds it here
    const std::lock_guard lock{mutex_};
    remember(key, *printed);
  }
  return printed;
}

void listing_memo::keep(const std::string& key, std::string printed) {
  std::optional<std::filesystem::path> file;
  {
    const std::lock_guard lock{mutex_};
    file = file_of(key);
  }
  if (file) // best effort: a listing that cannot be written is kept in memory alone
    (void)files::write_file_atomically(*file, file_header(printed) + printed);
  const std::lock_guard lock{mutex_};
  remember(key, std::move(printed));
}

void listing_memo::keep_on_disk(std::filesystem::path folder) {
  const std::lock_guard lock{mutex_};
  folder_ = std::move(folder);
}

std::optional<std::filesystem::path> listing_memo::file_of(const std::string& key) const {
  if (!folder_ || key.size() < 2)
    return std::nullopt;
  return *folder_ / key.substr(0, 2) / (key + ".txt");
}

void listing_memo::remember(const std::string& key, std::string printed) {
  if (auto it = printed_.find(key); it != printed_.end()) { // replaced: it is the newest now
    bytes_ -= it->second.size();
    printed_.erase(it);
    order_.remove(key);
  }
  if (printed.size() > budget_)
    return;
  bytes_ += printed.size();
  printed_.emplace(key, std::move(printed));
  order_.push_back(key);
  while (bytes_ > budget_) {
    auto oldest = printed_.find(order_.front());
    bytes_ -= oldest->second.size();
    printed_.erase(oldest);
    order_.pop_front();
  }
}

std::size_t listing_memo::bytes() const {
  const std::lock_guard lock{mutex_};
  return bytes_;
}

std::size_t listing_memo::entries() const {
  const std::lock_guard lock{mutex_};
  return printed_.size();
}

listing_memo& listing_memo::of_process() {
  static listing_memo memo;
  return memo;
}

} // namespace warpforge::sass
