#include "deploy/observe/inject/notes.hpp"

namespace warpforge::observe::inject {

void note_list::add(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (counts_[text]++ == 0) order_.push_back(text);
}

std::vector<std::string> note_list::summary() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const std::string& text : order_) {
    std::uint64_t count = counts_.at(text);
    out.push_back(count == 1 ? text : text + " (" + std::to_string(count) + " times)");
  }
  return out;
}

} // namespace warpforge::observe::inject
