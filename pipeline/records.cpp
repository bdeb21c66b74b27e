#include "pipeline/records.hpp"

#include "foundation/json/writer.hpp"
#include "storage/run_directory.hpp"
#include "tuning/point_text.hpp"

#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

void write_launch(json::writer& out, const config::launch_geometry& launch) {
  out.key("launch").begin_object();
  out.key("grid").begin_array();
  for (auto v : launch.grid)
    out.value(static_cast<std::int64_t>(v));
  out.end_array();
  out.key("block").begin_array();
  for (auto v : launch.block)
    out.value(static_cast<std::int64_t>(v));
  out.end_array();
  out.key("dynamic_smem_bytes").value(static_cast<std::int64_t>(launch.dynamic_smem_bytes));
  out.end_object();
}

expected<config::tunable_point, std::string> read_point(simdjson::dom::object o, const char* name) {
  config::tunable_point point;
  for (auto field : o) {
    std::int64_t v = 0;
    if (field.value.get(v) != simdjson::SUCCESS)
      return unexpected{std::string{"candidate: "} + name + "." + std::string{field.key}};
    point[std::string{field.key}] = v;
  }
  return point;
}

expected<config::launch_geometry, std::string> read_launch(simdjson::dom::object o) {
  config::launch_geometry launch;
  auto read3 = [&](const char* key, std::array<std::uint32_t, 3>& into) {
    simdjson::dom::array values;
    if (o[key].get(values) != simdjson::SUCCESS || values.size() != 3)
      return false;
    std::size_t i = 0;
    for (auto v : values) {
      std::uint64_t n = 0;
      if (v.get(n) != simdjson::SUCCESS || n == 0 || n > 0xffffffffu)
        return false;
      into[i++] = static_cast<std::uint32_t>(n);
    }
    return true;
  };
  std::uint64_t smem = 0;
  if (!read3("grid", launch.grid) || !read3("block", launch.block) ||
      o["dynamic_smem_bytes"].get(smem) != simdjson::SUCCESS)
    return unexpected{std::string{"candidate: launch (grid, block: three positive integers; dynamic_smem_bytes)"}};
  launch.dynamic_smem_bytes = static_cast<std::uint32_t>(smem);
  return launch;
}

void write_candidate(json::writer& out, const candidate& c) {
  out.begin_object();
  out.key("kind").value(vocabulary::to_string(c.kind));
  out.key("point").raw(point_json(c.point));
  out.key("methods").raw(methods_json(c.methods));
  out.key("source").value(c.source);
  out.key("source_name").value(c.source_name);
  out.key("note").value(c.note);
  if (!c.defines.empty())
    out.key("defines").raw(point_json(c.defines));
  if (c.launch)
    write_launch(out, *c.launch);
  if (c.compiled_defines != define_set::tunables_and_own)
    out.key("compiled_defines").value(to_string(c.compiled_defines));
  if (c.duplicate_of) {
    out.key("duplicate_of").begin_object();
    out.key("iteration").value(c.duplicate_of->iteration).key("ordinal").value(c.duplicate_of->ordinal);
    out.end_object();
  }
  out.key("ablations").begin_array();
  for (const auto& a : c.ablations)
    write_candidate(out, a);
  out.end_array();
  out.end_object();
}

expected<candidate, std::string> read_candidate(simdjson::dom::object o) {
  candidate c;
  std::string_view kind;
  if (o["kind"].get(kind) != simdjson::SUCCESS || !vocabulary::from_string<vocabulary::branch_kind>(kind))
    return unexpected{std::string{"candidate: kind"}};
  c.kind = *vocabulary::from_string<vocabulary::branch_kind>(kind);
  simdjson::dom::object point;
  if (o["point"].get(point) != simdjson::SUCCESS)
    return unexpected{std::string{"candidate: point"}};
  auto values = read_point(point, "point");
  if (!values)
    return unexpected{values.error()};
  c.point = std::move(*values);
  if (simdjson::dom::object defines; o["defines"].get(defines) == simdjson::SUCCESS) {
    auto read = read_point(defines, "defines");
    if (!read)
      return unexpected{read.error()};
    c.defines = std::move(*read);
  }
  if (simdjson::dom::object launch; o["launch"].get(launch) == simdjson::SUCCESS) {
    auto read = read_launch(launch);
    if (!read)
      return unexpected{read.error()};
    c.launch = *read;
  }
  if (std::string_view set; o["compiled_defines"].get(set) == simdjson::SUCCESS) {
    auto read = define_set_from_string(set);
    if (!read)
      return unexpected{"candidate: compiled_defines \"" + std::string{set} + "\""};
    c.compiled_defines = *read;
  }
  if (simdjson::dom::object earlier; o["duplicate_of"].get(earlier) == simdjson::SUCCESS) {
    branch_place place;
    if (earlier["iteration"].get(place.iteration) != simdjson::SUCCESS ||
        earlier["ordinal"].get(place.ordinal) != simdjson::SUCCESS)
      return unexpected{std::string{"candidate: duplicate_of (iteration, ordinal: integers)"}};
    c.duplicate_of = place;
  }
  simdjson::dom::array methods;
  if (o["methods"].get(methods) == simdjson::SUCCESS)
    for (auto m : methods) {
      std::string_view text;
      if (m.get(text) == simdjson::SUCCESS)
        c.methods.emplace_back(text);
    }
  std::string_view text;
  if (o["source"].get(text) == simdjson::SUCCESS)
    c.source = std::string{text};
  if (o["source_name"].get(text) == simdjson::SUCCESS)
    c.source_name = std::string{text};
  if (o["note"].get(text) == simdjson::SUCCESS)
    c.note = std::string{text};
  simdjson::dom::array ablations;
  if (o["ablations"].get(ablations) == simdjson::SUCCESS)
    for (auto a : ablations) {
      simdjson::dom::object object;
      if (a.get(object) != simdjson::SUCCESS)
        return unexpected{std::string{"candidate: ablations"}};
      auto ablation = read_candidate(object);
      if (!ablation)
        return ablation;
      c.ablations.push_back(std::move(*ablation));
    }
  return c;
}

fs::path proposal_path(const fs::path& run_dir, const std::string& job, std::int64_t iteration) {
  return job_folder(run_dir, job) / ("iter-" + std::to_string(iteration)) / "proposal.json";
}

} // namespace

fs::path job_folder(const fs::path& run_dir, const std::string& job) {
  return run_dir / storage::run_directory::jobs_folder / storage::path_component(job);
}

fs::path branch_folder(const fs::path& run_dir, const std::string& job, std::int64_t iteration, std::int64_t ordinal) {
  return job_folder(run_dir, job) / ("iter-" + std::to_string(iteration)) / ("branch-" + std::to_string(ordinal));
}

std::string point_json(const config::tunable_point& point) {
  json::writer out;
  out.begin_object();
  for (const auto& [name, value] : point)
    out.key(name).value(value);
  out.end_object();
  return std::move(out).str();
}

std::string methods_json(const std::vector<std::string>& methods) {
  json::writer out;
  out.begin_array();
  for (const auto& m : methods)
    out.value(m);
  out.end_array();
  return std::move(out).str();
}

expected<std::string, std::string> keep_source(const fs::path& run_dir, const job_setup& job, const planned_branch& b) {
  const auto file = branch_folder(run_dir, job.name, b.iteration, b.ordinal) /
                    (b.what.source_name.empty() ? job.problem.kernel.source.filename() : fs::path{b.what.source_name});
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec)
    return unexpected{"cannot create the branch's folder " + file.parent_path().string() + ": " + ec.message()};
  std::ofstream out{file};
  out << (b.what.source.empty() ? job.kernel_text : b.what.source);
  if (!out.flush())
    return unexpected{"cannot write the branch's source " + file.string()};
  auto relative = fs::relative(file, run_dir, ec);
  if (ec)
    return unexpected{"cannot name " + file.string() + " relative to the run: " + ec.message()};
  return relative.string();
}

storage::branch_record branch_row(std::int64_t job_id, const planned_branch& b, std::string source_path) {
  storage::branch_record r;
  r.key = {job_id, b.iteration, b.ordinal};
  r.kind = b.what.kind;
  r.parent_ordinal = b.parent.value_or(-1);
  r.methods_json = methods_json(b.what.methods);
  r.defines_json = point_json(recorded_defines(b.what)); // exactly what NVRTC is given
  if (b.what.duplicate_of) {
    r.duplicate_of_iteration = b.what.duplicate_of->iteration;
    r.duplicate_of_ordinal = b.what.duplicate_of->ordinal;
  }
  r.source_path = std::move(source_path);
  return r;
}

std::string config_medians_text(const std::vector<gpu::config_median>& medians) {
  std::string out;
  char figure[64];
  for (const auto& m : medians) {
    std::snprintf(figure, sizeof figure, " %.4g ms (weight %.2f)", m.median_s * 1e3, m.weight);
    out += (out.empty() ? "per config: " : ", ") + m.config + figure;
  }
  return out;
}

namespace {

// [{"config": ..., "weight": ..., "median_s": ...}, ...] for an event's detail.
std::string config_medians_json(const std::vector<gpu::config_median>& medians) {
  json::writer out;
  out.begin_array();
  for (const auto& m : medians) {
    out.begin_object();
    out.key("config").value(m.config).key("weight").value(m.weight).key("median_s").value(m.median_s);
    out.end_object();
  }
  out.end_array();
  return std::move(out).str();
}

} // namespace

branch_result result_of(const gpu::kernel_result& k, std::vector<std::string> sass_absent) {
  branch_result r;
  r.outcome = k.outcome;
  r.detail = k.detail;
  r.sass_absent = std::move(sass_absent);
  if (k.outcome == vocabulary::branch_outcome::passed) {
    r.median_s = k.stats.median_s;
    r.ci_low_s = k.stats.median_ci.low;
    r.ci_high_s = k.stats.median_ci.high;
    if (!k.config_medians.empty()) // what the weighted time is made of, for the report's row
      r.detail = config_medians_text(k.config_medians);
  }
  return r;
}

storage::measurement_record measurement_row(const storage::branch_key& key, const gpu::device_info& device,
                                            vocabulary::timing_mode mode, const gpu::kernel_result& k,
                                            double sm_clock_hz) {
  const auto& s = k.stats;
  return {key, device.ordinal, device.name, mode, s.median_s, s.mean_s, s.stddev_s, s.cv,
          s.median_ci.low, s.median_ci.high, s.min_s, static_cast<std::int64_t>(s.count), sm_clock_hz / 1e6};
}

feed::event job_event(feed::event_type type, const std::string& job, std::int64_t iteration, std::int64_t branch,
                      int gpu, std::string detail_json) {
  feed::event e;
  e.type = type;
  e.job = job;
  e.iter = iteration;
  e.branch = branch;
  e.gpu = gpu;
  e.detail_json = std::move(detail_json);
  return e;
}

feed::event kernel_event(const std::string& job, const planned_branch& b, int gpu, const gpu::device_info& device,
                         const gpu::kernel_result& k, const gpu::race_result& race, double request_s) {
  if (k.outcome != vocabulary::branch_outcome::passed)
    return job_event(feed::event_type::branch_failed, job, b.iteration, b.ordinal, gpu,
                     feed::detail{}.add("outcome", vocabulary::to_string(k.outcome))
                       .add("detail", k.detail.substr(0, 2000)).json());
  const auto& s = k.stats;
  const auto type = b.what.kind == vocabulary::branch_kind::ablation ? feed::event_type::ablation_measured
                                                                     : feed::event_type::branch_measured;
  feed::detail measured;
  measured.add("gpu_name", device.name)
    .add("time_s", s.median_s)
    .add("cv", s.cv)
    .add("samples", static_cast<std::uint64_t>(s.count))
    .add("ci95_low_s", s.median_ci.low)
    .add("ci95_high_s", s.median_ci.high)
    .add("rounds", static_cast<std::uint64_t>(k.rounds))
    .add("kernel_s", k.kernel_s)
    .add("load_s", k.load_s)
    .add("check_s", k.check_s)
    .add("warmup_s", k.warmup_s)
    .add("timing_s", k.timing_s)
    .add("race_kernels", static_cast<std::uint64_t>(race.kernels.size()))
    .add("race_inputs_s", race.inputs_s)
    .add("race_reference_s", race.reference_wall_s)
    .add("race_setup_s", race.setup_s)
    .add("race_wall_s", race.wall_s)
    .add("request_s", request_s)
    .add("point", tuning::canonical_text(b.what.point));
  if (!k.config_medians.empty())
    measured.add_raw("configs", config_medians_json(k.config_medians));
  return job_event(type, job, b.iteration, b.ordinal, gpu, measured.json());
}

void append_memory(const fs::path& run_dir, const std::string& job, const iteration_summary& summary) {
  std::string memory;
  for (const auto& line : summary.memory)
    memory += "- " + line + "\n";
  for (const auto& m : summary.methods)
    memory += "- method " + m.method + ": " + std::string{tuning::to_string(m.verdict)} + " (" + m.note + ")\n";
  const auto file = job_folder(run_dir, job) / "memory.md";
  std::error_code ignored;
  fs::create_directories(file.parent_path(), ignored);
  std::ofstream{file, std::ios::app} << "## iteration " << summary.iteration << "\n" << memory << "\n";
}

expected<void, std::string> write_proposal(const fs::path& run_dir, const std::string& job, std::int64_t iteration,
                                           const proposal& p) {
  json::writer out;
  out.begin_object();
  out.key("note").value(p.note);
  out.key("candidates").begin_array();
  for (const auto& c : p.candidates)
    write_candidate(out, c);
  out.end_array();
  out.end_object();
  const auto file = proposal_path(run_dir, job, iteration);
  std::error_code ignored;
  fs::create_directories(file.parent_path(), ignored);
  std::ofstream f{file};
  f << std::move(out).str() << '\n';
  if (!f)
    return unexpected{"cannot write " + file.string()};
  return {};
}

expected<std::optional<proposal>, std::string> read_proposal(const fs::path& run_dir, const std::string& job,
                                                             std::int64_t iteration) {
  const auto file = proposal_path(run_dir, job, iteration);
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (ec)
      return unexpected{file.string() + ": " + ec.message()};
    return std::optional<proposal>{};
  }
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(text.str()).get(root) != simdjson::SUCCESS)
    return unexpected{file.string() + ": not a JSON object"};
  proposal p;
  std::string_view note;
  if (root["note"].get(note) == simdjson::SUCCESS)
    p.note = std::string{note};
  simdjson::dom::array candidates;
  if (root["candidates"].get(candidates) != simdjson::SUCCESS)
    return unexpected{file.string() + ": candidates: missing"};
  for (auto element : candidates) {
    simdjson::dom::object object;
    if (element.get(object) != simdjson::SUCCESS)
      return unexpected{file.string() + ": candidates: not an object"};
    auto c = read_candidate(object);
    if (!c)
      return unexpected{file.string() + ": " + c.error()};
    p.candidates.push_back(std::move(*c));
  }
  return std::optional<proposal>{std::move(p)};
}

std::string roofline_position(double buffer_bytes, std::optional<double> best_s, std::optional<double> peak_bandwidth) {
  if (!best_s || *best_s <= 0 || !peak_bandwidth || *peak_bandwidth <= 0)
    return {};
  const double achieved = buffer_bytes / *best_s;
  json::writer out;
  out.begin_object();
  out.key("achieved_bandwidth").value(achieved);
  out.key("peak_bandwidth").value(*peak_bandwidth);
  out.key("dram_fraction").value(achieved / *peak_bandwidth);
  out.key("bytes").value(buffer_bytes);
  out.end_object();
  return std::move(out).str();
}

} // namespace warpforge::pipeline
