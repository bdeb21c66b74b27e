#include "deploy/observe/representative.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace warpforge::observe {
namespace {

// Sums of shares are rounded: 0.9 covered in three buckets may add up to 0.8999999999999999.
constexpr double coverage_tolerance = 1e-12;

using geometry_key = std::tuple<std::array<std::uint32_t, 3>, std::array<std::uint32_t, 3>, std::uint32_t>;

geometry_key geometry_of(const launch_record& launch) {
  return {launch.grid, launch.block, launch.dynamic_smem};
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100.0);
  return text;
}

// One bucket's statistics; `members` are timed launches, in launch order.
representative_config describe_bucket(const std::vector<const launch_record*>& members,
                                      duration_bucket bucket) {
  representative_config config;
  const auto& first = *members.front();
  config.kernel = first.kernel;
  config.grid = first.grid;
  config.block = first.block;
  config.dynamic_smem = first.dynamic_smem;
  config.bucket = bucket;
  config.launches = members.size();
  std::vector<double> durations;
  for (const auto* launch : members) {
    durations.push_back(launch->duration_s);
    config.total_s += launch->duration_s;
  }
  std::sort(durations.begin(), durations.end());
  config.p25_s = quantile(durations, 0.25);
  config.median_s = quantile(durations, 0.50);
  config.p95_s = quantile(durations, 0.95);
  // The launch standing for the bucket: the one closest to the median (the earlier on a tie).
  const launch_record* closest = members.front();
  for (const auto* launch : members)
    if (std::abs(launch->duration_s - config.median_s) < std::abs(closest->duration_s - config.median_s))
      closest = launch;
  config.median_sequence = closest->sequence;
  config.scalars = closest->params;
  return config;
}

// The buckets of one geometry: one ("all"), or fast and slow when its durations spread wide.
std::vector<representative_config> buckets_of(const std::vector<const launch_record*>& members,
                                              double split_ratio) {
  std::vector<double> durations;
  for (const auto* launch : members)
    durations.push_back(launch->duration_s);
  std::sort(durations.begin(), durations.end());
  const double p25 = quantile(durations, 0.25);
  const double p95 = quantile(durations, 0.95);
  if (!(p95 > split_ratio * p25))
    return {describe_bucket(members, duration_bucket::all)};
  const double median = quantile(durations, 0.50);
  std::vector<const launch_record*> fast, slow;
  for (const auto* launch : members)
    (launch->duration_s <= median ? fast : slow).push_back(launch);
  std::vector<representative_config> out;
  for (auto [part, bucket] : {std::pair{&fast, duration_bucket::fast}, std::pair{&slow, duration_bucket::slow}})
    if (!part->empty())
      out.push_back(describe_bucket(*part, bucket));
  return out;
}

std::optional<std::string> check_options(const representative_options& options) {
  if (!(options.split_ratio >= 1.0))
    return "split ratio " + std::to_string(options.split_ratio) + " is below 1 (p95/p25 is never below 1)";
  if (!(options.coverage > 0.0 && options.coverage <= 1.0))
    return "coverage " + std::to_string(options.coverage) + " is outside (0, 1]";
  if (options.top_k == 0)
    return "top-k is 0: no configuration could be kept";
  return std::nullopt;
}

// Keeps the largest buckets until coverage or top_k; sets weight and coverage.
void keep_largest(std::vector<representative_config> buckets, const representative_options& options,
                  representative_selection& out) {
  std::stable_sort(buckets.begin(), buckets.end(),
                   [](const auto& a, const auto& b) { return a.total_s > b.total_s; });
  double kept_total = 0.0;
  for (auto& bucket : buckets) {
    if (out.configs.size() == options.top_k || out.covered >= options.coverage - coverage_tolerance)
      break;
    bucket.coverage = out.total_s > 0 ? bucket.total_s / out.total_s : 0.0;
    out.covered += bucket.coverage;
    kept_total += bucket.total_s;
    out.configs.push_back(std::move(bucket));
  }
  for (auto& config : out.configs)
    config.weight = kept_total > 0 ? config.total_s / kept_total : 1.0 / static_cast<double>(out.configs.size());
  if (out.covered < options.coverage - coverage_tolerance)
    out.notes.push_back("the top " + std::to_string(out.configs.size()) + " configurations cover " +
                        percent(out.covered) + " of the time, short of " + percent(options.coverage) +
                        " (top-k " + std::to_string(options.top_k) + ", " + std::to_string(buckets.size()) +
                        " buckets in all)");
}

} // namespace

constexpr vocabulary::enum_word<duration_bucket> duration_bucket_words[] = {
    {duration_bucket::all, "all"},
    {duration_bucket::fast, "fast"},
    {duration_bucket::slow, "slow"},
};
static_assert(vocabulary::covers(duration_bucket_words, all_duration_buckets));

std::string_view to_string(duration_bucket bucket) { return vocabulary::word_of(duration_bucket_words, bucket); }

std::optional<duration_bucket> duration_bucket_from_string(std::string_view text) {
  return vocabulary::value_of(duration_bucket_words, text);
}

double quantile(std::span<const double> sorted, double q) {
  if (sorted.empty())
    return 0.0;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

expected<representative_selection, std::string>
select_representative(std::span<const launch_record> launches, const representative_options& options) {
  if (auto problem = check_options(options))
    return unexpected(*problem);
  representative_selection out;
  out.launches = launches.size();
  std::map<geometry_key, std::vector<const launch_record*>> groups;
  for (const auto& launch : launches) {
    if (!(launch.duration_s > 0.0)) {
      ++out.launches_without_duration;
      continue;
    }
    groups[geometry_of(launch)].push_back(&launch);
    out.total_s += launch.duration_s;
  }
  if (groups.empty())
    return unexpected(std::string{launches.empty() ? "no launches to choose from"
                                                   : "none of the " + std::to_string(launches.size()) +
                                                       " launches has a duration (the launch path "
                                                       "recorded no GPU time)"});
  if (out.launches_without_duration > 0)
    out.notes.push_back(std::to_string(out.launches_without_duration) + " of " + std::to_string(out.launches) +
                        " launches have no duration and are left out of the selection");
  std::vector<representative_config> buckets;
  for (const auto& [key, members] : groups)
    for (auto& bucket : buckets_of(members, options.split_ratio))
      buckets.push_back(std::move(bucket));
  keep_largest(std::move(buckets), options, out);
  return out;
}

expected<std::vector<kernel_selection>, std::string>
select_per_kernel(std::span<const launch_record> launches, const representative_options& options) {
  if (auto problem = check_options(options))
    return unexpected(*problem);
  std::vector<kernel_selection> out;
  std::map<std::string, std::vector<launch_record>, std::less<>> by_kernel;
  for (const auto& launch : launches) {
    auto [it, inserted] = by_kernel.try_emplace(launch.kernel);
    if (inserted)
      out.push_back({launch.kernel, launch.demangled, {}});
    it->second.push_back(launch);
  }
  for (auto& kernel : out) {
    const auto& members = by_kernel.at(kernel.kernel);
    if (auto picked = select_representative(members, options))
      kernel.selection = std::move(*picked);
    else {
      kernel.selection.launches = members.size();
      kernel.selection.launches_without_duration = members.size();
      kernel.selection.notes.push_back(picked.error());
    }
  }
  return out;
}

} // namespace warpforge::observe
