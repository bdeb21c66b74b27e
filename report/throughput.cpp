#include "report/throughput.hpp"

#include <simdjson.h>

#include <algorithm>
#include <map>

namespace warpforge::report {

namespace {

// A number of an event's JSON (its detail keys sit at the top level); none when absent.
std::optional<double> number_in(simdjson::dom::parser& parser, const std::string& json, const char* key) {
  simdjson::dom::object object;
  if (parser.parse(json).get(object) != simdjson::SUCCESS)
    return std::nullopt;
  simdjson::dom::element value;
  if (object.at_key(key).get(value) != simdjson::SUCCESS)
    return std::nullopt;
  double number = 0;
  if (value.get_double().get(number) == simdjson::SUCCESS)
    return number;
  std::int64_t integer = 0;
  if (value.get_int64().get(integer) == simdjson::SUCCESS)
    return static_cast<double>(integer);
  std::uint64_t unsigned_integer = 0;
  if (value.get_uint64().get(unsigned_integer) == simdjson::SUCCESS)
    return static_cast<double>(unsigned_integer);
  bool flag = false;
  if (value.get_bool().get(flag) == simdjson::SUCCESS)
    return flag ? 1.0 : 0.0;
  return std::nullopt;
}

bool has_key(simdjson::dom::parser& parser, const std::string& json, const char* key) {
  simdjson::dom::object object;
  simdjson::dom::element value;
  return parser.parse(json).get(object) == simdjson::SUCCESS && object.at_key(key).get(value) == simdjson::SUCCESS;
}

bool ends_a_run(const std::string& type) {
  return type == "campaign_finished" || type == "campaign_failed" || type == "campaign_interrupted";
}

} // namespace

std::optional<double> campaign_throughput::per_gpu_hour() const {
  if (!not_measured_reason.empty() || wall_s <= 0 || gpu_count == 0)
    return std::nullopt;
  return static_cast<double>(measured) / (wall_s * static_cast<double>(gpu_count) / 3600.0);
}

campaign_throughput throughput_from_events(std::span<const storage::event_row> events) {
  campaign_throughput out;
  simdjson::dom::parser parser;
  std::map<int, gpu_throughput> gpus;
  std::optional<double> run_started;
  double last_ts = 0;
  for (const auto& e : events) {
    last_ts = e.ts;
    if (e.type == "campaign_started") {
      run_started = e.ts;
      out.gpu_count = std::max(out.gpu_count, static_cast<std::size_t>(number_in(parser, e.json, "gpus").value_or(0)));
    } else if (ends_a_run(e.type) && run_started) {
      out.wall_s += e.ts - *run_started;
      run_started.reset();
    } else if (e.type == "gpu_released" && e.gpu) {
      auto& g = gpus[static_cast<int>(*e.gpu)];
      g.gpu = static_cast<int>(*e.gpu);
      if (has_key(parser, e.json, "out_of_service"))
        continue; // given back unanswered: no measurement, its race went elsewhere
      const auto lease = number_in(parser, e.json, "lease_s");
      g.recorded = g.recorded && lease.has_value();
      if (number_in(parser, e.json, "profile").value_or(0) != 0) {
        ++g.profiles;
        g.profile_s += lease.value_or(0);
        continue;
      }
      ++g.races;
      g.race_lease_s += lease.value_or(0);
      g.kernel_s += number_in(parser, e.json, "kernel_s").value_or(0);
      g.measured += static_cast<std::uint64_t>(number_in(parser, e.json, "measured").value_or(0));
    }
  }
  if (run_started) // live, or it died without its end event: up to the last word it said
    out.wall_s += last_ts - *run_started;
  for (auto& [ordinal, g] : gpus) {
    out.measured += g.measured;
    if (!g.recorded && out.not_measured_reason.empty())
      out.not_measured_reason = "not recorded: GPU " + std::to_string(ordinal) +
                                "'s leases carry no lease_s (a run recorded before warpforge counted them)";
    out.gpus.push_back(g);
  }
  if (out.gpu_count == 0 && out.not_measured_reason.empty())
    out.not_measured_reason = "no GPU in this campaign";
  return out;
}

} // namespace warpforge::report
