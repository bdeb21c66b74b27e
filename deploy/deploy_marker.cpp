#include "deploy/deploy_marker.hpp"

#include "json/writer.hpp"

#include <simdjson.h>

namespace warpforge::deploy {

std::string marker_json(const deploy_marker& marker) {
  json::writer out;
  out.begin_object();
  out.key("job").value(marker.job);
  out.key("run_dir").value(marker.run_dir.string());
  out.key("work_dir").value(marker.work_dir.string());
  out.key("file").value(marker.file.string());
  out.key("backup").value(marker.backup.string());
  out.key("champion").value(marker.champion);
  out.key("pid").value(marker.pid);
  out.key("started_at").value(marker.started_at);
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
  // pid and started_at only inform a person; a marker without them still names its backup.
  if (root["pid"].get(out.pid) != simdjson::SUCCESS)
    out.pid = 0;
  if (root["started_at"].get(out.started_at) != simdjson::SUCCESS)
    out.started_at = 0;
  return out;
}

std::string held_message(const deploy_marker& marker, const std::filesystem::path& project) {
  return "an unrecovered deploy of " + marker.job + " from " + marker.run_dir.string() +
         " holds " + project.string() + ": run warpforge deploy --recover";
}

} // namespace warpforge::deploy
