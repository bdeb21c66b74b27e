#include "gpu/runtime/execute.hpp"

#include "gpu/check/poison.hpp"
#include "gpu/runtime/candidate_launch.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/runner_server.hpp"
#include "logging/logging.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <sstream>

namespace warpforge::gpu {

namespace {

using steady = std::chrono::steady_clock;
constexpr double seconds_per_ms = 1e-3;
constexpr double hz_per_mhz = 1e6;
constexpr int nvml_clock_sm = 1; // NVML_CLOCK_SM in nvml.h
constexpr int nvml_success = 0;
constexpr std::size_t pci_bus_id_chars = 32;

// The SM clock now, Hz, via NVML (dlopen: optional on the node); 0 and a note when unknown.
double sm_clock_hz(std::vector<std::string>& notes) {
  using init_fn = int (*)();
  using by_pci_fn = int (*)(const char*, void**);
  using clock_fn = int (*)(void*, int, unsigned*);
  static void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  static bool initialised = library && [] {
    auto init = reinterpret_cast<init_fn>(::dlsym(library, "nvmlInit_v2"));
    return init && init() == nvml_success;
  }();
  auto note = [&](std::string text) {
    for (const auto& n : notes)
      if (n == text)
        return 0.0;
    notes.push_back(std::move(text));
    return 0.0;
  };
  if (!initialised)
    return note("SM clock unknown: NVML (libnvidia-ml.so.1) not available or not initialised");
  auto by_pci = reinterpret_cast<by_pci_fn>(::dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<clock_fn>(::dlsym(library, "nvmlDeviceGetClockInfo"));
  char pci[pci_bus_id_chars] = {};
  int device = 0;
  void* handle = nullptr;
  unsigned mhz = 0;
  if (!by_pci || !clock || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetPCIBusId(pci, sizeof pci, device) != cudaSuccess ||
      by_pci(pci, &handle) != nvml_success || clock(handle, nvml_clock_sm, &mhz) != nvml_success)
    return note("SM clock unknown: NVML could not read it");
  return mhz * hz_per_mhz;
}

std::string describe_mismatch(const candidate_buffer_arg& b, const compare_report& c,
                              std::size_t poisoned) {
  std::ostringstream out;
  out << "output '" << b.name << "': ";
  if (c.mismatches)
    out << c.mismatches << " of " << c.elements << " elements outside tolerance (rtol "
        << b.tol.rtol << ", atol " << b.tol.atol << "), first at index "
        << c.first_bad_index.value_or(0) << " (got " << c.first_bad_got << ", want "
        << c.first_bad_want << "); ";
  if (poisoned)
    out << poisoned << " elements never written (still poisoned)";
  return out.str();
}

// A wait spins (yielding) for this long, as cudaEventSynchronize would, so the next launch
// follows at once and short kernels keep back-to-back timing; after it, a kernel is long enough
// that polling every event_poll_interval costs nothing measurable.
constexpr std::chrono::milliseconds event_spin_time{20};
constexpr std::chrono::microseconds event_poll_interval{50};

// Waits for `done`, at most `limit_s` seconds. A kernel still running then is presumed hung:
// `on_hung` replies timeout and ends the process (see hung_kernel_exit).
call_result wait_or_hang(cudaEvent_t done, double limit_s, const std::string& what,
                         const hung_kernel_exit& on_hung) {
  const auto begin = steady::now();
  const auto deadline = begin + std::chrono::duration_cast<steady::duration>(
                                  std::chrono::duration<double>(limit_s));
  for (;;) {
    const cudaError_t state = cudaEventQuery(done);
    if (state != cudaErrorNotReady)
      return WARPFORGE_GPU_CALL(state);
    const auto now = steady::now();
    if (now > deadline)
      break;
    if (now - begin < event_spin_time)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(event_poll_interval);
  }
  auto hung = make_result(vocabulary::branch_outcome::timeout,
                          what + " still running after " + std::to_string(limit_s) +
                            " s (the kernel watchdog): presumed hung");
  hung.watchdog_s = limit_s;
  hung.runner_exits = true;
  hung.notes.push_back("the runner exits with code " + std::to_string(runner_exit_kernel_hung) +
                       " after this reply: only the process's end stops the kernel");
  on_hung(hung);
  std::_Exit(runner_exit_kernel_hung);
}

struct stream_guard {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  ~stream_guard() {
    if (start)
      (void)cudaEventDestroy(start);
    if (stop)
      (void)cudaEventDestroy(stop);
    if (stream)
      (void)cudaStreamDestroy(stream);
  }
};

} // namespace

expected<candidate_result, std::string> execute_candidate(const candidate_request& request,
                                                          const hung_kernel_exit& on_hung) {
  if (!request.reference)
    return make_result(vocabulary::branch_outcome::not_supported,
                       "reference from an expected-values file is not supported by this runner "
                       "yet: send a reference kernel");
  if (auto shape = check_request_shape(request, "run_candidate"); !shape)
    return unexpected(shape.error());

  // The device, its primary context and the driver entry points.
  auto device = open_device();
  if (!device)
    return unexpected(device.error());
  const device_limits& limits = device->limits;

  loaded_kernel reference;
  loaded_kernel candidate;
  if (auto f = load_kernel(*device, *request.reference, "reference", reference)) {
    f->detail += " (the reference itself failed)";
    return *f;
  }
  if (auto f = load_kernel(*device, request.candidate, "candidate", candidate))
    return *f;

  device_args reference_args;
  device_args candidate_args;
  if (auto f = allocate(request.args, reference_args))
    return *f;
  if (auto f = allocate(request.args, candidate_args))
    return *f;
  stream_guard s;
  if (auto r = WARPFORGE_GPU_CALL(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking)); !r)
    return cuda_failure(r.error(), "creating the stream");
  if (auto r = WARPFORGE_GPU_CALL(cudaEventCreate(&s.start)); !r)
    return cuda_failure(r.error(), "creating events");
  if (auto r = WARPFORGE_GPU_CALL(cudaEventCreate(&s.stop)); !r)
    return cuda_failure(r.error(), "creating events");

  double reference_s = 0;
  double candidate_limit_s = request.watchdog.reference_limit_s;
  // A candidate launch, waited for under the kernel watchdog.
  auto launch_and_watch = [&](loaded_kernel& k, void** params, const std::string& what) {
    call_result r = launch(k, params, s.stream);
    if (r)
      r = WARPFORGE_GPU_CALL(cudaEventRecord(s.stop, s.stream));
    if (r)
      r = wait_or_hang(s.stop, candidate_limit_s, what, on_hung);
    return r;
  };

  // Correctness, on every seed.
  std::vector<std::vector<std::byte>> initial(request.args.size());
  std::vector<std::vector<std::byte>> want;
  std::vector<std::vector<std::byte>> got;
  for (auto seed : request.seeds) {
    if (auto f = fill_host_args(request.args, seed, initial))
      return *f;
    if (auto f = upload(initial, reference_args))
      return *f;
    // The reference's own time (first seed) sets the candidate's watchdog.
    const std::string reference_name = "reference kernel '" + reference.launch.entry + "'";
    call_result ran = WARPFORGE_GPU_CALL(cudaEventRecord(s.start, s.stream));
    if (ran)
      ran = launch(reference, reference_args.params.data(), s.stream);
    if (ran)
      ran = WARPFORGE_GPU_CALL(cudaEventRecord(s.stop, s.stream));
    if (ran)
      ran = wait_or_hang(s.stop, request.watchdog.reference_limit_s, reference_name, on_hung);
    if (!ran) {
      auto f = cuda_failure(ran.error(), reference_name);
      f.detail += " (the reference itself failed)";
      f.seed = seed;
      return f;
    }
    if (reference_s == 0) {
      float ms = 0;
      if (auto r = WARPFORGE_GPU_CALL(cudaEventElapsedTime(&ms, s.start, s.stop)); !r)
        return cuda_failure(r.error(), "timing the reference");
      reference_s = ms * seconds_per_ms;
      candidate_limit_s = request.watchdog.candidate_limit_s(reference_s);
    }
    if (auto f = download(reference_args, want))
      return *f;
    if (auto f = upload(initial, candidate_args)) // fresh inputs, poisoned outputs
      return *f;
    if (auto r = launch_and_watch(candidate, candidate_args.params.data(), "candidate kernel '" + candidate.launch.entry + "'"); !r) {
      auto f = cuda_failure(r.error(), "candidate kernel '" + candidate.launch.entry + "'");
      f.seed = seed;
      return f;
    }
    if (auto f = download(candidate_args, got))
      return *f;
    for (std::size_t i = 0; i < request.args.size(); ++i) {
      const auto* b = std::get_if<candidate_buffer_arg>(&request.args[i]);
      if (!b)
        continue;
      if (b->role == config::arg_role::input) {
        auto check = inputs_unchanged(initial[i], got[i]);
        if (!check.unchanged) {
          auto f = make_result(vocabulary::branch_outcome::incorrect,
                               "input '" + b->name + "' was changed by the kernel (first at byte " +
                                 std::to_string(check.first_difference.value_or(0)) + ")");
          f.seed = seed;
          f.arg = b->name;
          f.input = check;
          return f;
        }
        continue;
      }
      auto report = compare_outputs(got[i], want[i], b->type, b->tol);
      if (!report)
        return make_result(vocabulary::branch_outcome::runtime_error,
                           "comparing '" + b->name + "': " + std::string{to_string(report.error())});
      auto poisoned = count_poisoned(got[i], b->type);
      auto reference_poisoned = count_poisoned(want[i], b->type);
      if (!report->passed || poisoned > reference_poisoned) {
        auto f = make_result(vocabulary::branch_outcome::incorrect, describe_mismatch(*b, *report, poisoned));
        f.seed = seed;
        f.arg = b->name;
        f.compare = *report;
        return f;
      }
    }
  }

  // Timing.
  candidate_result result = make_result(vocabulary::branch_outcome::passed, "");
  result.reference_s = reference_s;
  result.watchdog_s = candidate_limit_s;
  result.notes.push_back("measured on device 0 of those visible to the runner");
  device_memory flush;
  if (request.mode == vocabulary::timing_mode::cold) {
    flush.bytes = l2_flush_size_factor * static_cast<std::uint64_t>(limits.l2_bytes);
    if (auto r = WARPFORGE_GPU_CALL(cudaMalloc(&flush.ptr, flush.bytes)); !r)
      return cuda_failure(r.error(), "allocating the L2 flush buffer");
    result.notes.push_back("cold: L2 flushed before each sample by a memset of " +
                           std::to_string(flush.bytes) + " bytes (2x L2), outside the events");
  }
  result.sm_clock_hz_before = sm_clock_hz(result.notes);
  void** params = candidate_args.params.data();
  auto warmup_start = steady::now();
  for (std::uint32_t n = 0;
       n < request.timing.warmup_launches ||
       std::chrono::duration<double>(steady::now() - warmup_start).count() <
         request.timing.warmup_min_time_s;
       ++n)
    if (auto r = launch_and_watch(candidate, params, "candidate warm-up launch"); !r)
      return cuda_failure(r.error(), "candidate warm-up launch");

  stopping_rule rule{request.timing};
  std::vector<double> samples;
  auto timing_start = steady::now();
  int flush_value = 0;
  while (!is_final(rule.decision())) {
    if (flush.ptr)
      if (auto r = WARPFORGE_GPU_CALL(cudaMemsetAsync(flush.ptr, ++flush_value & 0xff, flush.bytes,
                                                      s.stream));
          !r)
        return cuda_failure(r.error(), "L2 flush");
    if (auto r = WARPFORGE_GPU_CALL(cudaEventRecord(s.start, s.stream)); !r)
      return cuda_failure(r.error(), "timing");
    if (auto r = launch(candidate, params, s.stream); !r)
      return cuda_failure(r.error(), "candidate timed launch");
    if (auto r = WARPFORGE_GPU_CALL(cudaEventRecord(s.stop, s.stream)); !r)
      return cuda_failure(r.error(), "timing");
    if (auto r = wait_or_hang(s.stop, candidate_limit_s, "candidate timed launch", on_hung); !r)
      return cuda_failure(r.error(), "candidate timed launch");
    float ms = 0;
    if (auto r = WARPFORGE_GPU_CALL(cudaEventElapsedTime(&ms, s.start, s.stop)); !r)
      return cuda_failure(r.error(), "timing");
    samples.push_back(ms * seconds_per_ms);
    rule.add(samples.back());
    rule.set_wall_elapsed(std::chrono::duration<double>(steady::now() - timing_start).count());
  }
  result.wall_s = std::chrono::duration<double>(steady::now() - timing_start).count();
  result.sm_clock_hz_after = sm_clock_hz(result.notes);
  result.stats = summarize(samples);
  result.decision = rule.decision();
  return result;
}

expected<void, std::string> launch_candidate_once(const candidate_request& request) {
  if (auto shape = check_request_shape(request, "execute"); !shape)
    return unexpected(shape.error());
  auto device = open_device();
  if (!device)
    return unexpected(device.error());
  prepared_candidate candidate;
  if (auto f = prepare_candidate(*device, request, request.seeds.front(), candidate))
    return unexpected(std::string{to_string(f->outcome)} + ": " + f->detail);
  if (auto r = launch_and_wait(candidate.kernel, candidate.args.params.data(), nullptr); !r) {
    auto f = cuda_failure(r.error(), "candidate kernel '" + request.candidate.entry + "'");
    return unexpected(std::string{to_string(f.outcome)} + ": " + f.detail);
  }
  return {};
}

int execute_request_file(const std::filesystem::path& request_file) {
  auto log = logging::get("runner");
  std::ifstream in{request_file, std::ios::binary};
  if (!in) {
    log->error("--execute: cannot read {}", request_file.string());
    return runner_exit_usage;
  }
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  auto request = decode_candidate_request(text);
  if (!request) {
    log->error("--execute {}: {}", request_file.string(), request.error().detail);
    return runner_exit_usage;
  }
  if (auto done = launch_candidate_once(*request); !done) {
    log->error("--execute {}: {}", request_file.string(), done.error());
    return runner_exit_execute_failed;
  }
  log->info("--execute: launched '{}' once", request->candidate.entry);
  return 0;
}

} // namespace warpforge::gpu
