#pragma once
// profiler: profile_order -> diagnosis_summary. Asks the order's GPU worker for the counters of one
// launch (gpu/profiling: CUPTI in the runner, ncu for what CUPTI lacks or when counters are
// restricted), keeps the metric set in the run directory, and diagnoses it against the GPU's peaks
// (diagnosis/: roofline gaps, fired rules, method budget, candidate methods).
// profile_batch_order -> profile_batch_reply: several profiles on one GPU, their counters read in
// one batch (metrics_batch_order), each diagnosed and answered in order.

#include "messages/atoms.hpp"
#include "messages/gpu_worker.hpp"
#include "messages/proposer.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>
#include <vector>

namespace warpforge::messages {

struct profile_order {
  pipeline::branch_ref ref;  // the branch whose kernel is profiled
  gpu::device_info device;   // the GPU (its worker) to profile on
  gpu::race_request launch;  // kernels[0]: that kernel, with the problem's arguments and seeds
  std::string metrics_path;  // where the metric set is kept (JSON), in the branch's folder
  config::profile_tool tool = config::profile_tool::cupti; // who reads the counters ([profile] tool)
  friend bool operator==(const profile_order&, const profile_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_order& x) {
  return f(caf::meta::type_name("profile_order"), x.ref, x.device, x.launch, x.metrics_path, x.tool);
}

/// Profiles of one GPU, with one tool.
struct profile_batch_order {
  std::vector<profile_order> orders;
  friend bool operator==(const profile_batch_order&, const profile_batch_order&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_batch_order& x) {
  return f(caf::meta::type_name("profile_batch_order"), x.orders);
}

struct profile_batch_reply {
  std::vector<pipeline::diagnosis_summary> summaries; // one per order, in order
  friend bool operator==(const profile_batch_reply&, const profile_batch_reply&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, profile_batch_reply& x) {
  return f(caf::meta::type_name("profile_batch_reply"), x.summaries);
}

using profiler_actor = caf::typed_actor<
  caf::replies_to<profile_order>::with<pipeline::diagnosis_summary>, // diagnosed=false: why not, in note
  caf::replies_to<profile_batch_order>::with<profile_batch_reply>,
  caf::reacts_to<stop_atom>,
  status_handler>;

} // namespace warpforge::messages
