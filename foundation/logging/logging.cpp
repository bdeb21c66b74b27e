#include "foundation/logging/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <vector>

namespace warpforge::logging {
namespace {

constexpr auto default_level = spdlog::level::info;
constexpr auto pattern = "%Y-%m-%d %H:%M:%S.%e %^%-5l%$ [%n] %v";

struct registry {
  std::mutex mutex;
  std::vector<spdlog::sink_ptr> sinks;
  spdlog::level::level_enum level = default_level;
  std::vector<std::shared_ptr<spdlog::logger>> loggers;
  spdlog::sink_ptr file_sink;

  registry() {
    auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_pattern(pattern);
    sinks.push_back(console);
  }
};

registry& instance() {
  static registry r;
  return r;
}

} // namespace

std::optional<spdlog::level::level_enum> level_from_string(std::string_view text) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> names[] = {
    {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
    {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
    {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
    {"off", spdlog::level::off},
  };
  for (auto [name, level] : names)
    if (name == text)
      return level;
  return std::nullopt;
}

void set_level(spdlog::level::level_enum level) {
  auto& r = instance();
  std::lock_guard lock{r.mutex};
  r.level = level;
  for (auto& l : r.loggers)
    l->set_level(level);
}

void set_console_level(spdlog::level::level_enum level) {
  auto& r = instance();
  std::lock_guard lock{r.mutex};
  r.sinks.front()->set_level(level); // the console sink is created first (registry())
}

bool add_file_sink(const std::filesystem::path& file) {
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> sink;
  try {
    std::filesystem::create_directories(file.parent_path());
    sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file.string());
  } catch (const std::exception& e) {
    get("log")->error("cannot open log file {}: {}", file.string(), e.what());
    return false;
  }
  sink->set_pattern(pattern);
  auto& r = instance();
  std::lock_guard lock{r.mutex};
  r.sinks.push_back(sink);
  r.file_sink = sink;
  for (auto& l : r.loggers)
    l->sinks().push_back(sink);
  return true;
}

std::shared_ptr<spdlog::logger> get(const std::string& component) {
  auto& r = instance();
  std::lock_guard lock{r.mutex};
  for (auto& l : r.loggers)
    if (l->name() == component)
      return l;
  auto l = std::make_shared<spdlog::logger>(component, r.sinks.begin(), r.sinks.end());
  l->set_level(r.level);
  l->flush_on(spdlog::level::warn);
  r.loggers.push_back(l);
  return l;
}

void shutdown() {
  auto& r = instance();
  std::lock_guard lock{r.mutex};
  for (auto& l : r.loggers) {
    l->flush();
    if (r.file_sink)
      std::erase(l->sinks(), r.file_sink);
  }
  if (r.file_sink)
    std::erase(r.sinks, r.file_sink);
  r.file_sink.reset();
}

} // namespace warpforge::logging
