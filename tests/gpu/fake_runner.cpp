// A misbehaving stand-in for warpforge-runner, to prove runner_client's error paths. Same command
// line as the real one; the misbehaviour comes from $WARPFORGE_FAKE_RUNNER_MODE:
//   hang_on_start      never connects
//   exit_on_start      prints a line on stderr, exits 42
//   garbage_hello      greets with text that is not JSON
//   hang_on_request    greets, then ignores every request (shutdown too)
//   garbage_reply      greets, answers requests with text that is not JSON
//   abort_mid_request  greets, then aborts (SIGABRT) on the first request
//   failed_reply       greets, answers every request with status failed
//   stale_then_reply   greets, answers with a reply for another id first, then a proper one
//   polite             greets, answers ok with an empty body
//   by_entry           greets; in a run_race request each kernel's entry says what it does, the
//                      kernels taken in order as the real runner checks them:
//                        pass          passed, with timing statistics (if the race gets to timing)
//                        incorrect     incorrect (element 7 differs)
//                        hang          never answer at all (a runner that stops talking: the
//                                      client's reply deadline is the only way out)
//                        crash         abort (SIGABRT) mid-request
//                        lost_context  the kernel gets runtime_error, every kernel still without a
//                                      verdict not_run, ended_by it, runner_exits; reply, exit 5
//                        watchdog      the same with timeout (the runner's kernel watchdog); exit 7
//                      a profile_candidate request's kernels[0] entry likewise (and each
//                      profile of a profile_candidates batch by its own entry; where one loses
//                      the context, the others answer not profiled, as the real runner's):
//                        pass          answer ok: fake_counters below for the metrics it knows,
//                                      every other requested metric in `missing`
//                        restricted    answer counters_unavailable (as RmProfilingAdminOnly=1)
//                        unsupported   answer not_supported (as a vGPU or MIG slice)
//                        hang, crash, lost_context   as for run_race (failed, runner_exits)
//                      other requests are answered as polite
//   campaign           a host with two healthy fake GPUs, for campaign logic tests: device_query
//                      reports GPUs 0 and 1, both "Fake GPU" (one model, sm_90;
//                      $WARPFORGE_FAKE_RUNNER_GPUS, 1-16, makes it that many, for
//                      scripts/scaling_bench.sh); run_race waits
//                      $WARPFORGE_FAKE_RUNNER_DELAY_MS (default 0) per kernel and answers every
//                      kernel passed with a time drawn from its CUBIN's bytes (0.5-1.5 ms: the
//                      same kernel always gets the same time, different variants different ones),
//                      kernel_s = samples x that time, or the delay when longer (the wait stands
//                      for GPU time: a sleep, no CPU core); profile_candidate
//                      answers counters_unavailable (no numbers are faked), and so does each
//                      profile of a profile_candidates batch. Never a product
//                      path: real numbers only come from warpforge-runner.
//   campaign_gpu0_down the host of campaign, whose GPU 0 is out of service: a runner pinned to it
//                      (CUDA_VISIBLE_DEVICES = its uuid) says so on stderr and exits 42 at
//                      start, every time; any other runner (the device query, GPU 1) is campaign's
//   campaign_impossible the host of campaign with its GPUs named "NVIDIA H100 80GB HBM3" (so the
//                      specs table's peaks apply), where every kernel but the job's baseline
//                      (a CUBIN under iter-1/branch-0/) is answered 1 us: faster than physics
//                      allows for any example problem (the physical-limit gate's test), fresh or not
// Every mode but hang_on_request exits 0 on shutdown (without replying).
// It exits by itself when its parent goes away, like the real runner.

#include "gpu/device_report.hpp"
#include "gpu/runner/race_request.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/protocol.hpp"

#include <zmq.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace warpforge::gpu;
namespace vocabulary = warpforge::vocabulary;

namespace {

constexpr std::chrono::milliseconds parent_check_interval{50};
constexpr int exit_on_start_code = 42;
constexpr int usage_code = 2;
constexpr std::uint64_t stale_id_offset = 1000;
constexpr int lost_context_code = 5; // the real runner's exit codes (gpu/runner/exit_codes.hpp):
constexpr int kernel_hung_code = 7;  // after a sticky CUDA error, after a hung kernel

// What profile_candidate answers for entry "pass", in Nsight's base units (percent, nanoseconds,
// bytes, counts): a streaming kernel at 91.5% of DRAM peak. tests/actors/gpu_worker_test.cpp
// checks the worker's mapping against these numbers.
const std::map<std::string, double> fake_counters{
  {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.5},
  {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 91.5},
  {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 12.25},
  {"gpu__time_duration.sum", 62080.0},
  {"dram__bytes_read.sum", 134217728.0},
  {"dram__bytes_write.sum", 67108864.0},
  {"launch__registers_per_thread", 16.0},
};

profile_result fake_profile(const std::string& entry, const profile_request& request) {
  profile_result result;
  result.replay = request.replay;
  if (entry == "restricted") {
    result.status = profile_status::counters_unavailable;
    result.note = "fake runner: RmProfilingAdminOnly=1 and not root; load the driver with "
                  "NVreg_RestrictProfilingToAdminUsers=0";
    return result;
  }
  if (entry == "unsupported") {
    result.status = profile_status::not_supported;
    result.note = "fake runner: CUPTI cannot profile this device";
    return result;
  }
  if (entry != "pass") {
    result.status = profile_status::failed;
    result.note = "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered";
    result.runner_exits = true;
    return result;
  }
  result.status = profile_status::ok;
  result.passes = 3;
  result.note = "fake runner: chip FAKE, kernel replay";
  for (const auto& name : request.metrics) {
    if (auto known = fake_counters.find(name); known != fake_counters.end())
      result.values[name] = known->second;
    else
      result.missing[name] = "not a metric of chip FAKE (CUPTI_ERROR_INVALID_METRIC_NAME)";
  }
  return result;
}

[[noreturn]] void abort_without_core() {
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  std::abort();
}

[[noreturn]] void idle_until_orphaned(pid_t parent) {
  while (::getppid() == parent)
    std::this_thread::sleep_for(parent_check_interval);
  std::_Exit(0);
}

std::string reply_text(const runner_request& request, runner_reply_status status,
                       std::uint64_t id) {
  runner_reply reply;
  reply.id = id;
  reply.kind = request.kind;
  reply.status = status;
  if (status != runner_reply_status::ok)
    reply.error = "fake runner says no";
  return encode(reply);
}

// Two healthy H100-like devices (or $WARPFORGE_FAKE_RUNNER_GPUS of them), so a campaign has GPUs
// to schedule on.
host_report fake_host() {
  host_report host;
  host.status = gpu_status::ok;
  host.driver_version = host.runtime_version = 13000;
  constexpr int most_gpus = 16;
  const char* asked = std::getenv("WARPFORGE_FAKE_RUNNER_GPUS");
  const int count = asked != nullptr ? std::clamp(std::atoi(asked), 1, most_gpus) : 2;
  for (int i = 0; i < count; ++i) {
    device_info d;
    d.ordinal = i;
    d.name = "Fake GPU"; // one model, as the GPUs of a real host
    d.uuid = "GPU-fake-campaign-" + std::to_string(i);
    d.sm_major = 9;
    d.sm_minor = 0;
    d.sm_count = 132;
    d.l2_bytes = 50 << 20;
    host.devices.push_back(d);
  }
  host.device_count = count;
  return host;
}

// A passed kernel's result: five samples around `t` seconds, in one round.
kernel_result passed_with(double t) {
  kernel_result k;
  k.outcome = vocabulary::branch_outcome::passed;
  const std::vector<double> samples{t, t * 1.001, t * 0.999, t, t * 1.002};
  k.stats = summarize(samples);
  k.decision = stop_decision::converged;
  k.rounds = 1;
  k.batch_samples = static_cast<std::uint32_t>(samples.size());
  k.kernel_s = static_cast<double>(samples.size()) * t;
  return k;
}

// What the real runner answers once kernel j ended it: j's verdict, not_run for the others
// still without one.
void end_race_on(race_result& result, std::size_t j, const std::vector<bool>& has_verdict) {
  for (std::size_t k = 0; k < result.kernels.size(); ++k)
    if (k != j && !has_verdict[k]) {
      result.kernels[k] = kernel_result{};
      result.kernels[k].outcome = vocabulary::branch_outcome::not_run;
      result.kernels[k].detail = "the runner ended on kernel " + std::to_string(j);
    }
  result.ended_by = j;
  result.runner_exits = true;
}

// 0.5-1.5 ms from the CUBIN's bytes (FNV-1a).
double time_of_cubin(const std::filesystem::path& cubin) {
  std::ifstream in{cubin, std::ios::binary};
  std::uint64_t hash = 1469598103934665603ULL;
  for (std::istreambuf_iterator<char> it{in}, end; it != end; ++it)
    hash = (hash ^ static_cast<unsigned char>(*it)) * 1099511628211ULL;
  return 0.5e-3 + static_cast<double>(hash % 1000) * 1e-6;
}

} // namespace

int main(int argc, char** argv) {
  std::string endpoint;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string{argv[i]} == "--endpoint")
      endpoint = argv[i + 1];
  const char* mode_env = std::getenv("WARPFORGE_FAKE_RUNNER_MODE");
  std::string mode = mode_env ? mode_env : "polite";
  pid_t parent = ::getppid();
  if (endpoint.empty()) {
    std::cerr << "fake runner: no --endpoint\n";
    return usage_code;
  }
  std::cerr << "fake runner: mode " << mode << std::endl;
  // Like the real runner: gone with its parent, even while blocked on the socket (a SIGKILLed
  // warpforge must not leave runners behind).
  std::thread{[parent] { idle_until_orphaned(parent); }}.detach();

  if (mode == "campaign_gpu0_down") {
    const char* pinned = std::getenv("CUDA_VISIBLE_DEVICES");
    if (pinned != nullptr && std::string{pinned} == fake_host().devices.front().uuid) {
      std::cerr << "fake runner: GPU 0 is out of service (cudaErrorDevicesUnavailable)" << std::endl;
      return exit_on_start_code;
    }
    mode = "campaign";
  }
  const bool impossible = mode == "campaign_impossible";
  if (impossible)
    mode = "campaign";
  if (mode == "hang_on_start")
    idle_until_orphaned(parent);
  if (mode == "exit_on_start") {
    std::cerr << "fake runner: exiting on start as asked" << std::endl;
    return exit_on_start_code;
  }

  zmq::context_t context;
  zmq::socket_t socket{context, zmq::socket_type::dealer};
  socket.set(zmq::sockopt::linger, 0);
  socket.connect(endpoint);
  if (mode == "garbage_hello") {
    socket.send(zmq::str_buffer("hello? {{{"), zmq::send_flags::none);
    idle_until_orphaned(parent);
  }
  runner_reply hello;
  hello.body_json = encode_body(runner_hello{::getpid(), runner_protocol_version});
  socket.send(zmq::buffer(encode(hello)), zmq::send_flags::none);

  for (;;) {
    zmq::message_t message;
    if (!socket.recv(message, zmq::recv_flags::none))
      continue;
    auto request = decode_request(message.to_string_view());
    if (!request) {
      std::cerr << "fake runner: bad request " << request.error().detail << std::endl;
      continue;
    }
    if (mode == "hang_on_request")
      continue;
    if (request->kind == runner_request_kind::shutdown)
      return 0;
    if (mode == "abort_mid_request") {
      std::cerr << "fake runner: aborting mid-request" << std::endl;
      abort_without_core();
    }
    if (mode == "campaign" && request->kind == runner_request_kind::device_query) {
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      auto host = fake_host();
      if (impossible)
        for (auto& d : host.devices)
          d.name = "NVIDIA H100 80GB HBM3";
      reply.body_json = to_json(host);
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      continue;
    }
    if (mode == "campaign" && request->kind == runner_request_kind::profile_candidate) {
      auto body = decode_profile_request(request->body_json);
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      reply.body_json = encode_body(fake_profile("restricted", body ? *body : profile_request{}));
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      continue;
    }
    if (mode == "campaign" && request->kind == runner_request_kind::profile_candidates) {
      auto bodies = decode_profile_requests(request->body_json);
      std::vector<profile_result> results;
      for (const auto& body : bodies ? *bodies : std::vector<profile_request>(1))
        results.push_back(fake_profile("restricted", body));
      std::cerr << "fake runner: profiled a batch of " << results.size() << std::endl;
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      reply.body_json = encode_body(results);
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      continue;
    }
    if (mode == "campaign" && request->kind == runner_request_kind::run_race) {
      auto body = decode_race_request(request->body_json);
      race_result result;
      for (const auto& kernel : body ? body->kernels : std::vector<kernel_launch>(1)) {
        const char* delay = std::getenv("WARPFORGE_FAKE_RUNNER_DELAY_MS");
        const int delay_ms = delay != nullptr ? std::atoi(delay) : 0;
        std::this_thread::sleep_for(std::chrono::milliseconds{delay_ms});
        const bool baseline = kernel.cubin_path.generic_string().find("iter-1/branch-0/") != std::string::npos;
        // A test that needs one branch to win names its folder: it runs in 0.25 ms, faster than
        // any hashed time, so it is crowned whatever its CUBIN hashes to.
        const char* fast = std::getenv("WARPFORGE_FAKE_RUNNER_FAST_PATH");
        const bool fastest = fast != nullptr && *fast != '\0' &&
                             kernel.cubin_path.generic_string().find(fast) != std::string::npos;
        result.kernels.push_back(passed_with(impossible && !baseline ? 1e-6
                                             : fastest               ? 0.25e-3
                                             : body                  ? time_of_cubin(kernel.cubin_path)
                                                                     : 1e-3));
        // The wait stands for the kernel's GPU time: what a runner reports as kernel_s.
        result.kernels.back().kernel_s = std::max(result.kernels.back().kernel_s, delay_ms * 1e-3);
      }
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      reply.body_json = encode_body(result);
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      continue;
    }
    if (mode == "by_entry" && request->kind == runner_request_kind::run_race) {
      auto body = decode_race_request(request->body_json);
      const auto kernels = body ? body->kernels : std::vector<kernel_launch>{};
      race_result result;
      result.kernels.resize(kernels.size());
      std::vector<bool> has_verdict(kernels.size(), false);
      bool silent = false;
      int exit_code = 0;
      for (std::size_t j = 0; j < kernels.size() && !silent && exit_code == 0; ++j) {
        const std::string& entry = kernels[j].entry;
        std::cerr << "fake runner: kernel " << j << " " << entry << std::endl;
        if (entry == "hang")
          silent = true;
        else if (entry == "crash")
          abort_without_core();
        else if (entry == "incorrect") {
          auto& k = result.kernels[j];
          k.outcome = vocabulary::branch_outcome::incorrect;
          k.detail = "output y differs at element 7";
          k.seed = 42;
          compare_report compare;
          compare.passed = false;
          compare.first_bad_index = 7;
          compare.max_abs_error = 0.5;
          compare.max_rel_error = 0.25;
          k.compare = compare;
          has_verdict[j] = true;
        } else if (entry == "lost_context" || entry == "watchdog") {
          auto& k = result.kernels[j];
          k.outcome = entry == "watchdog" ? vocabulary::branch_outcome::timeout
                                          : vocabulary::branch_outcome::runtime_error;
          k.detail = entry == "watchdog"
                       ? "kernel " + std::to_string(j) + " still running after 2 s (the kernel watchdog): presumed hung"
                       : "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered";
          has_verdict[j] = true;
          end_race_on(result, j, has_verdict);
          exit_code = entry == "watchdog" ? kernel_hung_code : lost_context_code;
        }
      }
      if (silent)
        continue; // never answer
      if (exit_code == 0) // the race got to timing: every kernel still in it passed
        for (std::size_t j = 0; j < kernels.size(); ++j)
          if (!has_verdict[j])
            result.kernels[j] = passed_with(1.0e-3);
      result.sm_clock_hz_after = 1.98e9;
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      reply.body_json = encode_body(result);
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      if (exit_code != 0) {
        socket.set(zmq::sockopt::linger, 2000); // let the reply leave before we go
        return exit_code;
      }
      continue;
    }
    if (mode == "by_entry" && (request->kind == runner_request_kind::profile_candidate ||
                               request->kind == runner_request_kind::profile_candidates)) {
      // One profile, or a batch (each kernel answered by its entry, as alone).
      const bool batch = request->kind == runner_request_kind::profile_candidates;
      std::vector<profile_request> bodies;
      if (batch) {
        if (auto decoded = decode_profile_requests(request->body_json))
          bodies = std::move(*decoded);
      } else if (auto decoded = decode_profile_request(request->body_json)) {
        bodies.push_back(std::move(*decoded));
      }
      std::vector<profile_result> results;
      bool hang = false;
      for (const auto& body : bodies) {
        const std::string entry = body.run.kernels.empty() ? "" : body.run.kernels.front().entry;
        std::cerr << "fake runner: profiling " << entry << (batch ? " (in a batch)" : "") << std::endl;
        hang = hang || entry == "hang";
        if (entry == "crash")
          abort_without_core();
        results.push_back(fake_profile(entry, body));
      }
      if (hang)
        continue;
      if (results.empty())
        results.push_back(fake_profile("", profile_request{}));
      const bool exits = std::any_of(results.begin(), results.end(), [](const profile_result& r) { return r.runner_exits; });
      if (exits) // as the real runner: a lost context ends the batch, the others are not profiled
        for (auto& r : results)
          if (!r.runner_exits) {
            r.status = profile_status::failed;
            r.values.clear();
            r.note = std::string{not_profiled_note} + "fake runner: a kernel of the batch lost the context";
          }
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      reply.body_json = batch ? encode_body(results) : encode_body(results.front());
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      if (exits) {
        socket.set(zmq::sockopt::linger, 2000); // let the reply leave before we go
        return lost_context_code;
      }
      continue;
    }
    if (mode == "garbage_reply") {
      socket.send(zmq::str_buffer("\x01 definitely not json"), zmq::send_flags::none);
      continue;
    }
    if (mode == "failed_reply") {
      socket.send(zmq::buffer(reply_text(*request, runner_reply_status::failed, request->id)),
                  zmq::send_flags::none);
      continue;
    }
    if (mode == "stale_then_reply")
      socket.send(zmq::buffer(reply_text(*request, runner_reply_status::failed,
                                         request->id + stale_id_offset)),
                  zmq::send_flags::none);
    socket.send(zmq::buffer(reply_text(*request, runner_reply_status::ok, request->id)),
                zmq::send_flags::none);
  }
}
