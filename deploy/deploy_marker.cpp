#include "deploy/deploy_marker.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <simdjson.h>

#include <cmath>
#include <ctime>

namespace warpforge::deploy {

namespace {

std::string utc_text(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm parts{};
  ::gmtime_r(&t, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

} // namespace

constexpr vocabulary::enum_word<marker_stage> marker_stage_words[] = {
    {marker_stage::locked, "locked"},
    {marker_stage::backed_up, "backed_up"},
    {marker_stage::written, "written"},
};
static_assert(vocabulary::covers(marker_stage_words, all_marker_stages));

std::string_view to_string(marker_stage stage) { return vocabulary::word_of(marker_stage_words, stage); }

std::optional<marker_stage> marker_stage_from_string(std::string_view text) {
  return vocabulary::value_of(marker_stage_words, text);
}

std::string marker_json(const deploy_marker& marker) {
  json::writer out;
  out.begin_object();
  out.key("job").value(marker.job);
  out.key("run_dir").value(marker.run_dir.string());
  out.key("work_dir").value(marker.work_dir.string());
  out.key("file").value(marker.file.string());
  out.key("backup").value(marker.backup.string());
  out.key("champion").value(marker.champion);
  out.key("pid").value(marker.owner.pid);
  out.key("pid_start").value(marker.owner.start_ticks);
  out.key("boot_id").value(marker.owner.boot_id);
  out.key("host").value(marker.owner.host);
  out.key("started_at").value(marker.started_at);
  out.key("stage").value(to_string(marker.stage));
  out.key("original_sha256").value(marker.original_sha256);
  out.end_object();
  return std::move(out).str() + "\n";
}

expected<deploy_marker, std::string> parse_marker(std::string_view text, std::string_view file) {
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  const simdjson::padded_string padded{text};
  if (parser.parse(padded).get(root) != simdjson::SUCCESS)
    return unexpected{std::string{file} + ": not a JSON object"};
  deploy_marker out;
  auto text_field = [&](const char* key, auto& into) -> bool {
    std::string_view value;
    if (root[key].get(value) != simdjson::SUCCESS)
      return false;
    into = std::string{value};
    return true;
  };
  std::string run_dir, work_dir, relative, backup;
  if (!text_field("job", out.job) || !text_field("run_dir", run_dir) ||
      !text_field("work_dir", work_dir) || !text_field("file", relative) ||
      !text_field("backup", backup))
    return unexpected{std::string{file} +
                      ": lacks one of job, run_dir, work_dir, file, backup (strings)"};
  out.run_dir = run_dir;
  out.work_dir = work_dir;
  out.file = relative;
  out.backup = backup;
  text_field("champion", out.champion);
  // The owner fields and the stage came later: a marker without them still names its backup
  // (liveness_of() is cautious about what is missing; the stage reads as written).
  if (root["pid"].get(out.owner.pid) != simdjson::SUCCESS)
    out.owner.pid = 0;
  if (root["pid_start"].get(out.owner.start_ticks) != simdjson::SUCCESS)
    out.owner.start_ticks = 0;
  text_field("boot_id", out.owner.boot_id);
  text_field("host", out.owner.host);
  if (root["started_at"].get(out.started_at) != simdjson::SUCCESS)
    out.started_at = 0;
  std::string stage;
  if (text_field("stage", stage)) {
    auto known = marker_stage_from_string(stage);
    if (!known)
      return unexpected{std::string{file} + ": stage \"" + stage + "\" is none of locked, backed_up, written"};
    out.stage = *known;
  }
  text_field("original_sha256", out.original_sha256);
  return out;
}

std::string owner_text(const deploy_marker& marker) {
  std::string text = "pid " + std::to_string(marker.owner.pid);
  if (marker.started_at > 0)
    text += " started at " + utc_text(marker.started_at);
  if (!marker.owner.host.empty() && marker.owner.host != this_host())
    text += ", on host " + marker.owner.host;
  return text;
}

std::string held_message(const deploy_marker& marker, const std::filesystem::path& project,
                         owner_liveness liveness) {
  const std::string deploy = "deploy of " + marker.job + " from " + marker.run_dir.string();
  switch (liveness) {
    case owner_liveness::alive:
      return "a " + deploy + " is running (" + owner_text(marker) + ") and holds " + project.string() +
             ": wait for it to end";
    case owner_liveness::elsewhere:
      return "a " + deploy + " holds " + project.string() + " (" + owner_text(marker) +
             "); whether it still runs cannot be checked from " + this_host() +
             ": once it has ended there, run warpforge deploy --recover on " + marker.owner.host;
    case owner_liveness::dead:
      break;
  }
  const std::string gone =
    marker.owner.pid > 0 ? "its process, " + owner_text(marker) + ", is gone" : "it names no process";
  return "an unrecovered " + deploy + " holds " + project.string() + " (" + gone + "): run warpforge deploy --recover";
}

} // namespace warpforge::deploy
