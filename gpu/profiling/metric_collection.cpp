#include "gpu/profiling/metric_collection.hpp"

#include "gpu/toolchain.hpp"

#include <set>

namespace warpforge::gpu {

namespace {

void add_measured_inputs(const diagnosis::metric_schema& schema, const diagnosis::metric_definition& m,
                         std::set<std::string>& names, std::set<std::string>& visited) {
  if (!visited.insert(m.key).second)
    return;
  if (!m.derived()) {
    names.insert(m.nsight);
    return;
  }
  for (const auto& key : m.formula.names())
    if (const auto* input = schema.find(key))
      add_measured_inputs(schema, *input, names, visited);
}

// How a source's attempt ended, for the note: its status and note, or the error.
std::string describe(const expected<profile_result, std::string>& attempt) {
  if (!attempt)
    return "could not answer: " + attempt.error();
  return std::string{to_string(attempt->status)} + (attempt->note.empty() ? std::string{} : ": " + attempt->note);
}

metric_set nothing(std::string note) {
  metric_set set;
  set.note = std::move(note);
  return set;
}

} // namespace

bool counter_source::worth_a_second_opinion(const expected<profile_result, std::string>& attempt) const {
  return !attempt || (attempt->status != profile_status::ok && !attempt->runner_exits);
}

metric_set out_of_service_metrics(const std::string& why) {
  metric_set none;
  none.note = why;
  none.service = worker_service::out_of_service;
  none.why_out_of_service = why;
  return none;
}

expected<profile_result, std::string> cupti_source::collect(const profile_request& request) {
  auto result = ask_(request);
  last_timed_out_ = !result && result.error().kind == runner_error_kind::reply_timeout;
  if (!result)
    return unexpected{result.error().to_string()};
  return std::move(*result);
}

bool cupti_source::worth_a_second_opinion(const expected<profile_result, std::string>& attempt) const {
  return !last_timed_out_ && counter_source::worth_a_second_opinion(attempt);
}

std::optional<std::filesystem::path> ncu_source::locate(const std::optional<std::filesystem::path>& configured) {
  if (configured)
    return configured->empty() ? std::nullopt : configured;
  const auto env = toolchain_environment::from_process();
  const std::filesystem::path home = env.cuda_home ? std::filesystem::path{*env.cuda_home} : default_cuda_home;
  return find_tool(to_string(cuda_tool::ncu), env.path, home);
}

expected<profile_result, std::string> ncu_source::collect(const profile_request& request) {
  return profile_with_ncu(request, options_);
}

nsight_selection nsight_names_for(const std::vector<std::string>& keys, const diagnosis::metric_schema& schema) {
  nsight_selection out;
  std::set<std::string> wanted;
  std::set<std::string> visited;
  for (const auto& key : keys) {
    if (const auto* m = schema.find(key))
      add_measured_inputs(schema, *m, wanted, visited);
    else
      out.unknown_keys.push_back(key);
  }
  for (const auto& m : schema.metrics())
    if (!m.derived() && (keys.empty() || wanted.count(m.nsight) > 0))
      out.names.push_back(m.nsight);
  return out;
}

metric_set metric_set_from(metric_source source, const profile_result& result, const nsight_selection& selection,
                           const diagnosis::metric_schema& schema, std::string note) {
  metric_set set;
  set.source = source;
  const diagnosis::nsight_values values(result.values.begin(), result.values.end());
  const auto mapped = diagnosis::map_base_units(values, schema);
  std::vector<std::string> gaps;
  for (const auto& name : selection.names) {
    const auto* m = schema.find_nsight(name);
    if (m == nullptr)
      continue;
    if (auto v = mapped.values.find(m->key); v != mapped.values.end()) {
      set.values.push_back({m->key, v->second});
      continue;
    }
    std::string why = "not returned";
    if (auto r = result.missing.find(name); r != result.missing.end())
      why = r->second;
    for (const auto& skipped : mapped.skipped)
      if (skipped.nsight == name)
        why = skipped.reason;
    gaps.push_back(m->key + " (" + name + "): " + why);
  }
  for (const auto& key : selection.unknown_keys)
    gaps.push_back(key + ": not a key of the metric schema");
  if (!gaps.empty()) {
    if (!note.empty())
      note += "; ";
    note += std::to_string(gaps.size()) + " of " +
            std::to_string(selection.names.size() + selection.unknown_keys.size()) +
            " requested metrics have no value: ";
    for (std::size_t i = 0; i < gaps.size(); ++i)
      note += (i == 0 ? "" : "; ") + gaps[i];
  }
  set.note = std::move(note);
  return set;
}

namespace {

// Tool cupti: the runner for everything; ncu for the gaps when `supplement` asks, and for
// everything when CUPTI cannot profile at all.
metric_set cupti_first(const profile_request& launch, const nsight_selection& selection, counter_source& cupti,
                       counter_source* ncu, const diagnosis::metric_schema& schema, ncu_supplement supplement) {
  auto attempt = cupti.collect(launch);
  if (attempt && attempt->status == profile_status::ok) {
    auto result = std::move(*attempt);
    std::string note = result.note;
    profile_request rest = launch;
    rest.metrics.clear();
    for (const auto& metric : launch.metrics)
      if (result.values.count(metric) == 0)
        rest.metrics.push_back(metric);
    if (!rest.metrics.empty() && ncu != nullptr && supplement == ncu_supplement::skip) {
      for (const auto& metric : rest.metrics)
        result.missing.emplace(metric, "not collected: CUPTI cannot, and ncu was not asked for this profile");
    } else if (!rest.metrics.empty() && ncu != nullptr) {
      auto extra = ncu->collect(rest);
      std::size_t supplied = 0;
      if (extra)
        for (const auto& [metric, value] : extra->values)
          if (result.values.emplace(metric, value).second) {
            result.missing.erase(metric);
            ++supplied;
          }
      note += "; ncu for the " + std::to_string(rest.metrics.size()) + " metrics CUPTI did not give: " +
              (extra ? std::string{to_string(extra->status)} + ", " + std::to_string(supplied) + " supplied" +
                         (extra->status == profile_status::ok ? "" : " (" + extra->note + ")")
                     : extra.error());
    }
    return metric_set_from(cupti.kind(), result, selection, schema, note);
  }
  const std::string cupti_note = "CUPTI: " + describe(attempt);
  if (!cupti.worth_a_second_opinion(attempt))
    return nothing(cupti_note + "; no ncu fallback: the kernel itself failed under the profiler");
  if (ncu == nullptr)
    return nothing(cupti_note + "; no ncu fallback: ncu not found on PATH or in the CUDA home's bin/");
  auto fallback = ncu->collect(launch);
  if (fallback && fallback->status == profile_status::ok)
    return metric_set_from(ncu->kind(), *fallback, selection, schema, cupti_note + "; values from the ncu fallback");
  return nothing(cupti_note + "; ncu: " + describe(fallback));
}

// Tool ncu: Nsight Compute for everything; the runner's CUPTI when ncu is not here or cannot
// profile at all.
metric_set ncu_first(const profile_request& launch, const nsight_selection& selection, counter_source& cupti,
                     counter_source* ncu, const diagnosis::metric_schema& schema) {
  std::string ncu_note;
  if (ncu == nullptr) {
    ncu_note = "[profile] tool = \"ncu\", but ncu was not found on PATH or in the CUDA home's bin/";
  } else {
    auto attempt = ncu->collect(launch);
    if (attempt && attempt->status == profile_status::ok)
      return metric_set_from(ncu->kind(), *attempt, selection, schema, attempt->note);
    ncu_note = "ncu: " + describe(attempt);
    if (!ncu->worth_a_second_opinion(attempt))
      return nothing(ncu_note + "; no CUPTI fallback: the kernel itself failed under the profiler");
  }
  auto fallback = cupti.collect(launch);
  if (fallback && fallback->status == profile_status::ok)
    return metric_set_from(cupti.kind(), *fallback, selection, schema, ncu_note + "; values from the runner's CUPTI");
  return nothing(ncu_note + "; CUPTI: " + describe(fallback));
}

} // namespace

metric_set collect_metrics(profile_request launch, const std::vector<std::string>& keys, counter_source& cupti,
                           counter_source* ncu, const diagnosis::metric_schema& schema, ncu_supplement supplement,
                           config::profile_tool tool) {
  const auto selection = nsight_names_for(keys, schema);
  if (selection.names.empty()) {
    std::string unknown;
    for (const auto& key : selection.unknown_keys)
      unknown += (unknown.empty() ? "" : ", ") + key;
    return nothing("no metric to collect: not keys of the metric schema: " + unknown);
  }
  launch.metrics = selection.names;
  if (tool == config::profile_tool::ncu)
    return ncu_first(launch, selection, cupti, ncu, schema);
  return cupti_first(launch, selection, cupti, ncu, schema, supplement);
}

std::vector<metric_set> collect_metrics(std::vector<profile_request> launches, const std::vector<std::string>& keys,
                                        const ask_runner_batch& ask, counter_source* ncu,
                                        const diagnosis::metric_schema& schema, ncu_supplement supplement,
                                        config::profile_tool tool) {
  const auto selection = nsight_names_for(keys, schema);
  for (auto& launch : launches)
    launch.metrics = selection.names;
  // Tool cupti: every launch's first attempt, in one batch (none when nothing is to be collected).
  std::optional<expected<std::vector<profile_result>, runner_error>> batch;
  if (tool == config::profile_tool::cupti && !selection.names.empty())
    batch = ask(launches);
  std::vector<metric_set> sets;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    cupti_source cupti{[&, i](const profile_request& request) -> expected<profile_result, runner_error> {
      if (batch) {
        if (!*batch)
          return unexpected(batch->error());
        return (**batch)[i];
      }
      auto one = ask({request});
      if (!one)
        return unexpected(std::move(one).error());
      return std::move(one->front());
    }};
    sets.push_back(collect_metrics(launches[i], keys, cupti, ncu, schema, supplement, tool));
  }
  return sets;
}

} // namespace warpforge::gpu
