#include "sass/listing_memo.hpp"

#include "gpu/compile/compile_cache.hpp"

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
  const std::lock_guard lock{mutex_};
  if (auto it = printed_.find(key); it != printed_.end())
    return it->second;
  return std::nullopt;
}

void listing_memo::keep(const std::string& key, std::string printed) {
  const std::lock_guard lock{mutex_};
  if (printed.size() > budget_ || printed_.contains(key))
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
