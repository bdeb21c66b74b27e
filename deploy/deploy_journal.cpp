#include "deploy/deploy_journal.hpp"

#include "foundation/files/atomic_write.hpp"
#include "foundation/json/writer.hpp"

namespace warpforge::deploy {

namespace {

void write_step(json::writer& out, const step_record& s) {
  out.begin_object();
  out.key("step").value(to_string(s.step));
  out.key("status").value(to_string(s.status));
  out.key("detail").value(s.detail);
  out.key("seconds").value(s.seconds);
  out.key("attempt").value(s.attempt);
  out.key("log").value(s.log);
  if (s.timing)
    out.key("timing").raw(timing_json(*s.timing));
  out.end_object();
}

} // namespace

std::string timing_json(const timing_summary& timing) {
  json::writer out;
  out.begin_object();
  out.key("samples").begin_array();
  for (double v : timing.samples)
    out.value(v);
  out.end_array();
  out.key("median").value(timing.median);
  out.key("spread").value(timing.spread);
  out.key("unit").value(timing.unit);
  out.end_object();
  return std::move(out).str();
}

deploy_journal::deploy_journal(std::filesystem::path work_dir, journal_header header)
    : path_(std::move(work_dir) / "journal.json"), header_(std::move(header)) {}

expected<void, std::string> deploy_journal::add(const step_record& record) {
  steps_.push_back(record);
  return files::write_file_atomically(path_, json());
}

expected<void, std::string> deploy_journal::finish(deploy_outcome outcome, const std::string& reason) {
  state_ = std::string{to_string(outcome)};
  reason_ = reason;
  return files::write_file_atomically(path_, json());
}

std::string deploy_journal::json() const {
  json::writer out;
  out.begin_object();
  out.key("job").value(header_.job);
  out.key("champion").value(header_.champion);
  out.key("given").value(header_.given);
  out.key("choice").value(header_.choice);
  out.key("run_dir").value(header_.run_dir.string());
  out.key("project").value(header_.project.string());
  out.key("file").value(header_.file.string());
  out.key("state").value(state_);
  out.key("reason").value(reason_);
  out.key("steps").begin_array();
  for (const auto& s : steps_)
    write_step(out, s);
  out.end_array();
  if (!kernels_.empty())
    out.key("kernels").raw(kernels_);
  out.end_object();
  return std::move(out).str() + "\n";
}

} // namespace warpforge::deploy
