#include "sass/listing_memo.hpp"

#include "gpu/compile/compile_cache.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

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

std::optional<std::string> listing_memo::find(const std::string& key) const {
  std::optional<std::filesystem::path> file;
  {
    const std::lock_guard lock{mutex_};
    if (auto it = printed_.find(key); it != printed_.end())
      return it->second;
    file = file_of(key);
  }
  if (!file)
    return std::nullopt;
  std::ifstream in{*file, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::ostringstream printed;
  printed << in.rdbuf();
  return std::move(printed).str();
}

void listing_memo::keep(const std::string& key, std::string printed) {
  std::optional<std::filesystem::path> file;
  {
    const std::lock_guard lock{mutex_};
    file = file_of(key);
  }
  if (file) { // written whole under another name, then renamed: a reader never sees half a listing
    std::error_code ec;
    std::filesystem::create_directories(file->parent_path(), ec);
    auto partial = file->string() + ".XXXXXX";
    if (const int fd = ::mkstemp(partial.data()); fd >= 0) {
      ::close(fd);
      std::ofstream out{partial, std::ios::binary | std::ios::trunc};
      const bool written = out.write(printed.data(), static_cast<std::streamsize>(printed.size())) && out.flush();
      out.close();
      if (!written || (std::filesystem::rename(partial, *file, ec), ec))
        std::filesystem::remove(partial, ec);
    }
  }
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
