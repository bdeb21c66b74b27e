#pragma once
// A campaign as the scheduler receives it: the validated spec travels as its TOML text (the
// scheduler re-reads it with config/, so a remote scheduler sees exactly what was validated).

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>

namespace warpforge::messages {

struct campaign_plan {
  std::string name;      // campaign name from the spec
  std::string spec_path; // where the spec was read from (for messages and relative paths)
  std::string spec_toml; // the spec's text, as validated
  std::string run_dir;   // the run directory this campaign records into
  bool resume = false;   // continue what the store already holds instead of starting afresh
  friend bool operator==(const campaign_plan&, const campaign_plan&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_plan& x) {
  return f(caf::meta::type_name("campaign_plan"), x.name, x.spec_path, x.spec_toml, x.run_dir,
           x.resume);
}

enum class campaign_result_kind : std::uint8_t { finished, failed, interrupted };

struct campaign_result {
  std::string name;
  campaign_result_kind kind = campaign_result_kind::finished;
  std::string reason;          // why it failed or stopped; empty when finished
  double wall_s = 0;           // seconds the scheduler ran
  double gpu_busy_fraction = 0; // time inside GPU requests / (wall time x GPUs)
  std::uint64_t measured = 0;  // candidates the GPUs answered
  std::uint64_t compiled = 0;  // candidates built (cache hits included)
  friend bool operator==(const campaign_result&, const campaign_result&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_result& x) {
  return f(caf::meta::type_name("campaign_result"), x.name, x.kind, x.reason, x.wall_s,
           x.gpu_busy_fraction, x.measured, x.compiled);
}

} // namespace warpforge::messages
