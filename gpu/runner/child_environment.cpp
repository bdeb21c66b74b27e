#include "gpu/runner/child_environment.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

extern char** environ;

namespace warpforge::gpu {
namespace {

std::string upper(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

// The names registered by withhold_from_children, upper case.
struct withheld_names {
  std::mutex mutex;
  std::set<std::string, std::less<>> names;
};

withheld_names& registered() {
  static withheld_names names;
  return names;
}

} // namespace

bool is_secret_variable(std::string_view name) {
  const std::string key = upper(name);
  const std::string_view text{key};
  for (std::string_view known : known_secret_variables)
    if (text == known)
      return true;
  for (std::string_view suffix : {"_KEY", "_TOKEN", "_SECRET", "_PASSWORD"})
    if (text.ends_with(suffix))
      return true;
  for (std::string_view part : {"API_KEY", "APIKEY"})
    if (text.find(part) != std::string_view::npos)
      return true;
  return false;
}

void withhold_from_children(std::string_view name) {
  if (name.empty())
    return;
  auto& withheld = registered();
  std::lock_guard lock{withheld.mutex};
  withheld.names.insert(upper(name));
}

bool is_withheld_from_children(std::string_view name) {
  if (is_secret_variable(name))
    return true;
  auto& withheld = registered();
  std::lock_guard lock{withheld.mutex};
  return withheld.names.contains(upper(name));
}

std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides,
                                           const char* const* parent) {
  std::vector<std::string> out;
  for (const char* const* entry = parent; entry && *entry; ++entry) {
    const std::string_view text{*entry};
    const auto name = text.substr(0, text.find('='));
    if (is_withheld_from_children(name))
      continue;
    const bool replaced = std::any_of(overrides.begin(), overrides.end(),
                                      [&](const auto& setting) { return setting.first == name; });
    if (!replaced)
      out.emplace_back(text);
  }
  for (const auto& [key, value] : overrides)
    out.push_back(key + "=" + value);
  return out;
}

std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  return child_environment(overrides, environ);
}

} // namespace warpforge::gpu
