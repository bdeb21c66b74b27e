#include "deploy/deploy_owner.hpp"

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace warpforge::deploy {

namespace {

/// /proc/<pid>/stat: "pid (comm) state ppid ... starttime ...": the command may hold spaces and
/// parentheses, so the fields are counted after the last ')'. Field 3 is the state, 22 the start.
constexpr int stat_state_field = 3;
constexpr int stat_start_field = 22;

std::string first_line_of(const std::string& file) {
  std::ifstream in{file};
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

std::string_view to_string(owner_liveness liveness) {
  switch (liveness) {
    case owner_liveness::alive: return "alive";
    case owner_liveness::dead: return "dead";
    case owner_liveness::elsewhere: return "elsewhere";
  }
  return "unknown";
}

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0)
    return {};
  return name;
}

std::optional<std::uint64_t> start_ticks_of(std::int64_t pid) {
  if (pid <= 0)
    return std::nullopt;
  const std::string stat = first_line_of("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream fields{stat.substr(close + 1)};
  std::string field;
  std::optional<std::uint64_t> start;
  for (int n = stat_state_field; n <= stat_start_field && fields >> field; ++n) {
    if (n == stat_state_field && (field == "Z" || field == "X")) // ended: only its entry is left
      return std::nullopt;
    if (n == stat_start_field) {
      std::uint64_t ticks = 0;
      const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), ticks);
      if (error != std::errc{} || end != field.data() + field.size())
        return std::nullopt; // not a stat line we can read
      start = ticks;
    }
  }
  return start;
}

process_identity this_process() {
  process_identity me;
  me.pid = static_cast<std::int64_t>(::getpid());
  me.start_ticks = start_ticks_of(me.pid).value_or(0);
  me.boot_id = first_line_of("/proc/sys/kernel/random/boot_id");
  me.host = this_host();
  return me;
}

owner_liveness liveness_of(const process_identity& owner) {
  if (!owner.host.empty() && owner.host != this_host())
    return owner_liveness::elsewhere;
  if (!owner.boot_id.empty() && owner.boot_id != first_line_of("/proc/sys/kernel/random/boot_id"))
    return owner_liveness::dead; // the machine restarted since: every process of then is gone
  const auto start = start_ticks_of(owner.pid);
  if (!start)
    return owner_liveness::dead;
  if (owner.start_ticks != 0 && *start != owner.start_ticks)
    return owner_liveness::dead; // the pid was given to another process
  return owner_liveness::alive;
}

} // namespace warpforge::deploy
