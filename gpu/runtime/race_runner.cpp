#include "gpu/runtime/race_runner.hpp"

#include "gpu/check/poison.hpp"
#include "gpu/runner/exit_codes.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/device_checks.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

namespace warpforge::gpu {

namespace {

using steady = std::chrono::steady_clock;
constexpr double seconds_per_ms = 1e-3;

// A wait spins (yielding) for this long, as cudaEventSynchronize would, so the next launch
// follows at once; after it, a kernel is long enough that polling every event_poll_interval
// costs nothing measurable.
constexpr std::chrono::milliseconds event_spin_time{20};
constexpr std::chrono::microseconds event_poll_interval{50};

double seconds_since(steady::time_point start) {
  return std::chrono::duration<double>(steady::now() - start).count();
}

std::string describe_mismatch(const candidate_buffer_arg& b, const compare_report& c) {
  std::ostringstream out;
  out << "output '" << b.name << "': ";
  if (c.mismatches)
    out << c.mismatches << " of " << c.elements << " elements outside tolerance (rtol "
        << b.tol.rtol << ", atol " << b.tol.atol << "), first at index "
        << c.first_bad_index.value_or(0) << " (got " << c.first_bad_got << ", want "
        << c.first_bad_want << "); ";
  if (c.poisoned_elements)
    out << c.poisoned_elements << " elements never written (still poisoned)";
  return out.str();
}

// 64 bits no kernel can predict: which timed launch is verified, where its poison lies.
std::uint64_t unpredictable_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

} // namespace

race_runner::race_runner(const race_request& request, device_workspace& workspace, double setup_s,
                         hung_race_exit on_hung)
    : request_(request), ws_(workspace), on_hung_(std::move(on_hung)), start_(steady::now()),
      random_(unpredictable_seed()) {
  result_.kernels.resize(request.kernels.size());
  verdict_.assign(request.kernels.size(), false);
  result_.setup_s = setup_s;
}

race_runner::~race_runner() {
  for (auto event : events_)
    (void)cudaEventDestroy(event);
}

std::string race_runner::kernel_name(std::size_t j) const {
  return "kernel " + std::to_string(j) + " '" + request_.kernels[j].entry + "'";
}

bool race_runner::any_pending() const {
  for (std::size_t j = 0; j < verdict_.size(); ++j)
    if (!verdict_[j])
      return true;
  return false;
}

void race_runner::set_verdict(std::size_t j, vocabulary::branch_outcome outcome, std::string detail) {
  result_.kernels[j].outcome = outcome;
  result_.kernels[j].detail = std::move(detail);
  verdict_[j] = true;
}

bool race_runner::fail_kernel(std::size_t j, const launch_failure& f) {
  set_verdict(j, f.outcome, f.detail);
  auto& notes = result_.kernels[j].notes;
  notes.insert(notes.end(), f.notes.begin(), f.notes.end());
  if (!f.runner_exits)
    return any_pending();
  end_on(j);
  return false;
}

void race_runner::fail_all(const launch_failure& f) {
  for (std::size_t j = 0; j < verdict_.size(); ++j)
    if (!verdict_[j])
      set_verdict(j, f.outcome, f.detail);
  result_.notes.insert(result_.notes.end(), f.notes.begin(), f.notes.end());
  if (f.runner_exits)
    result_.runner_exits = true;
}

void race_runner::end_on(std::size_t j) {
  result_.ended_by = j;
  result_.runner_exits = true;
  for (std::size_t k = 0; k < verdict_.size(); ++k)
    if (!verdict_[k])
      set_verdict(k, vocabulary::branch_outcome::not_run,
                  "the runner ended on " + kernel_name(j) + " (" +
                    std::string{to_string(result_.kernels[j].outcome)} +
                    ") before this kernel had its verdict; run it on a fresh runner");
}

void race_runner::hung(std::optional<std::size_t> j, const std::string& what, double limit_s) {
  const std::string detail = what + " still running after " + std::to_string(limit_s) +
                             " s (the kernel watchdog): presumed hung";
  if (j) {
    set_verdict(*j, vocabulary::branch_outcome::timeout, detail);
    end_on(*j);
  } else {
    launch_failure f;
    f.detail = detail + " (the reference itself failed)";
    fail_all(f);
    result_.runner_exits = true;
  }
  result_.watchdog_s = limit_s;
  result_.notes.push_back("the runner exits with code " + std::to_string(runner_exit_kernel_hung) +
                          " after this reply: only the process's end stops the kernel");
  result_.wall_s = result_.setup_s + seconds_since(start_); // set-up came before start_
  on_hung_(result_);
  std::_Exit(runner_exit_kernel_hung);
}

std::optional<launch_failure> race_runner::timed_launches(std::optional<std::size_t> j,
                                                          const loaded_kernel& k, void** params,
                                                          std::size_t count, double limit_s,
                                                          std::vector<double>& times_s,
                                                          const std::function<std::optional<launch_failure>()>& before_last) {
  const std::string what = j ? kernel_name(*j) : "the reference kernel '" + k.launch.entry + "'";
  while (events_.size() < 2 * count) {
    cudaEvent_t event = nullptr;
    if (auto r = WARPFORGE_GPU_CALL(cudaEventCreate(&event)); !r)
      return cuda_failure(r.error(), "creating events");
    events_.push_back(event);
  }
  if (cold()) // the buffer before the first launch: a failure to allocate it names no launch
    if (auto buffer = ws_.flush_buffer(); !buffer)
      return buffer.error();
  const cudaStream_t stream = ws_.stream();
  for (std::size_t i = 0; i < count; ++i) {
    if (before_last && i + 1 == count)
      if (auto f = before_last())
        return f;
    if (cold())
      if (auto f = ws_.flush_l2(static_cast<unsigned char>(i & 0xff)))
        return f;
    call_result r = WARPFORGE_GPU_CALL(cudaEventRecord(events_[2 * i], stream));
    if (r)
      r = launch(k, params, stream);
    if (r)
      r = WARPFORGE_GPU_CALL(cudaEventRecord(events_[2 * i + 1], stream));
    if (!r)
      return cuda_failure(r.error(), what);
  }
  // Wait for the last launch under the watchdog; a kernel still running then is presumed hung.
  const double total_limit_s = limit_s * static_cast<double>(count);
  const auto begin = steady::now();
  const auto deadline = begin + std::chrono::duration_cast<steady::duration>(
                                  std::chrono::duration<double>(total_limit_s));
  for (;;) {
    const cudaError_t state = cudaEventQuery(events_[2 * count - 1]);
    if (state != cudaErrorNotReady) {
      if (auto r = WARPFORGE_GPU_CALL(state); !r)
        return cuda_failure(r.error(), what);
      break;
    }
    const auto now = steady::now();
    if (now > deadline)
      hung(j, what, total_limit_s);
    if (now - begin < event_spin_time)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(event_poll_interval);
  }
  for (std::size_t i = 0; i < count; ++i) {
    float ms = 0;
    if (auto r = WARPFORGE_GPU_CALL(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1])); !r)
      return cuda_failure(r.error(), "timing " + what);
    times_s.push_back(ms * seconds_per_ms);
  }
  return std::nullopt;
}

bool race_runner::load_reference() {
  const auto& launch = *request_.reference;
  std::ifstream file{launch.cubin_path, std::ios::binary};
  reference_image_.assign(std::istreambuf_iterator<char>{file}, {});
  reference_ = std::make_unique<loaded_kernel>();
  if (auto f = load_kernel(ws_.device(), launch, "the reference '" + launch.entry + "'", *reference_)) {
    f->detail += " (the reference itself failed)";
    fail_all(*f);
    return false;
  }
  return true;
}

bool race_runner::load_kernels() {
  kernels_.resize(request_.kernels.size());
  for (std::size_t j = 0; j < request_.kernels.size(); ++j) {
    const auto start = steady::now();
    kernels_[j] = std::make_unique<loaded_kernel>();
    auto failure = load_kernel(ws_.device(), request_.kernels[j], kernel_name(j), *kernels_[j]);
    result_.kernels[j].load_s = seconds_since(start);
    if (failure && !fail_kernel(j, *failure))
      return false;
  }
  return any_pending();
}

bool race_runner::reload_kernel(std::size_t j) {
  const auto start = steady::now();
  kernels_[j] = std::make_unique<loaded_kernel>(); // the old module is unloaded first
  auto failure = load_kernel(ws_.device(), request_.kernels[j], kernel_name(j), *kernels_[j]);
  result_.kernels[j].load_s += seconds_since(start);
  if (!failure)
    return true;
  failure->detail += " (loading it again after its checks)";
  return fail_kernel(j, *failure);
}

std::string race_runner::reference_key(std::uint64_t seed) const {
  // Everything the reference's outputs depend on: its CUBIN's bytes, entry, launch, every
  // argument (scalars' values included) and the seed.
  std::ostringstream key;
  key.precision(17);
  const auto& r = *request_.reference;
  key << "reference/" << seed << '/' << r.entry << '/' << r.launch.grid[0] << ',' << r.launch.grid[1]
      << ',' << r.launch.grid[2] << '/' << r.launch.block[0] << ',' << r.launch.block[1] << ','
      << r.launch.block[2] << '/' << r.launch.dynamic_smem_bytes << '/' << buffers_signature(request_.args);
  for (const auto& arg : request_.args)
    if (const auto* s = std::get_if<candidate_scalar_arg>(&arg)) {
      const auto bytes = scalar_bytes(*s);
      key << s->name << '=';
      key.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      key << ';';
    }
  key << '\n' << reference_image_;
  return key.str();
}

std::shared_ptr<cached_buffers> race_runner::reference_outputs(std::uint64_t seed,
                                                               const pristine_inputs& inputs) {
  const auto key = reference_key(seed);
  if (auto hit = ws_.cache().find(key))
    return hit;
  const auto start = steady::now();
  const auto& args = request_.args;
  auto fail = [&](launch_failure f) {
    f.detail = "the reference (seed " + std::to_string(seed) + "): " + f.detail + " (the reference itself failed)";
    fail_all(f);
    return nullptr;
  };
  // The reference writes its outputs into buffers of their own (they become the cache entry);
  // its inputs are fresh copies in the working buffers.
  auto entry = std::make_shared<cached_buffers>();
  entry->buffers.resize(args.size());
  std::size_t bytes = 0;
  if (auto f = ws_.refresh(args, inputs, working_))
    return fail(*f);
  std::vector<void*> pointers = working_;
  const cudaStream_t stream = ws_.stream();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto* b = std::get_if<candidate_buffer_arg>(&args[i]);
    if (!b || b->role == config::arg_role::input)
      continue;
    if (auto f = ws_.allocate_evicting(entry->buffers[i], buffer_bytes(*b), "the reference's '" + b->name + "'"))
      return fail(*f);
    bytes += buffer_bytes(*b);
    pointers[i] = entry->buffers[i].ptr;
    call_result r = b->role == config::arg_role::output
                      ? ws_.checks().fill(constant_plan(b->type, poison_bits(b->type)), pointers[i], b->count, stream)
                      : WARPFORGE_GPU_CALL(cudaMemcpyAsync(pointers[i], inputs[i]->buffers[0].ptr, buffer_bytes(*b),
                                                           cudaMemcpyDeviceToDevice, stream));
    if (!r)
      return fail(cuda_failure(r.error(), "preparing '" + b->name + "'"));
  }
  kernel_params params{args, pointers};
  std::vector<double> times;
  if (auto f = timed_launches(std::nullopt, *reference_, params.data(), 1,
                              request_.watchdog.reference_limit_s, times))
    return fail(*f);
  entry->reference_s = times.front();
  ws_.cache().put(key, entry, bytes);
  result_.reference_wall_s += seconds_since(start);
  return entry;
}

expected<std::optional<race_runner::buffer_mismatch>, launch_failure>
race_runner::compare_working(const pristine_inputs& inputs, const cached_buffers& reference) {
  const auto& args = request_.args;
  const cudaStream_t stream = ws_.stream();
  std::size_t checked = 0;
  for (const auto& arg : args)
    checked += std::holds_alternative<candidate_buffer_arg>(arg) ? 1 : 0;
  auto records = ws_.fresh_records(checked);
  if (!records)
    return unexpected(records.error());
  std::size_t slot = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto* b = std::get_if<candidate_buffer_arg>(&args[i]);
    if (!b)
      continue;
    device_check_record* record = *records + slot++;
    call_result r = b->role == config::arg_role::input
                      ? ws_.checks().first_difference(inputs[i]->buffers[0].ptr, working_[i], buffer_bytes(*b), record, stream)
                      : ws_.checks().compare(b->type, working_[i], reference.buffers[i].ptr, b->count, b->tol, record, stream);
    if (!r)
      return unexpected(cuda_failure(r.error(), "checking '" + b->name + "'"));
  }
  auto read = ws_.read_records(checked);
  if (!read)
    return unexpected(read.error());
  slot = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto* b = std::get_if<candidate_buffer_arg>(&args[i]);
    if (!b)
      continue;
    const device_check_record& record = (*read)[slot++];
    if (b->role == config::arg_role::input) {
      const auto check = input_check_from(record);
      if (check.unchanged)
        continue;
      return std::optional{buffer_mismatch{b->name,
                             "input '" + b->name + "' was changed by the kernel (first at byte " +
                               std::to_string(check.first_difference.value_or(0)) + ")",
                             std::nullopt, check}};
    }
    auto verdict = output_verdict_from(record, b->type, b->count, working_[i], reference.buffers[i].ptr, stream);
    if (!verdict)
      return unexpected(verdict.error());
    if (verdict->report.passed && verdict->report.poisoned_elements <= verdict->reference_poisoned)
      continue;
    return std::optional{buffer_mismatch{b->name, describe_mismatch(*b, verdict->report), verdict->report, std::nullopt}};
  }
  return std::optional<buffer_mismatch>{};
}

bool race_runner::check_kernel(std::size_t j, std::uint64_t seed, const pristine_inputs& inputs,
                               const cached_buffers& reference) {
  const auto start = steady::now();
  auto& out = result_.kernels[j];
  auto runner_failure = [&](launch_failure f) {
    fail_all(f);
    return false;
  };
  // Fresh inputs and poisoned outputs, queued before the launch.
  if (auto f = ws_.refresh(request_.args, inputs, working_))
    return runner_failure(*f);
  std::vector<double> times;
  if (auto f = timed_launches(j, *kernels_[j], params_->data(), 1, candidate_limit_s_, times)) {
    out.seed = seed;
    out.check_s += seconds_since(start);
    return fail_kernel(j, *f);
  }
  out.kernel_s += times.front();
  auto mismatch = compare_working(inputs, reference);
  if (!mismatch)
    return runner_failure(mismatch.error());
  if (*mismatch) {
    set_verdict(j, vocabulary::branch_outcome::incorrect, (*mismatch)->what);
    out.seed = seed;
    out.arg = (*mismatch)->arg;
    out.compare = (*mismatch)->compare;
    out.input = (*mismatch)->input;
  }
  out.check_s += seconds_since(start);
  return true;
}

bool race_runner::use_seed(std::size_t seed_index) {
  if (auto f = ws_.refresh(request_.args, seed_inputs_[seed_index], working_)) {
    fail_all(*f);
    return false;
  }
  return true;
}

bool race_runner::check_seed(std::size_t seed_index) {
  const std::uint64_t seed = request_.seeds[seed_index];
  auto inputs = ws_.pristine(request_.args, seed, result_.inputs_s, request_.fresh);
  if (!inputs) {
    auto f = inputs.error();
    f.detail = "seed " + std::to_string(seed) + ": " + f.detail;
    fail_all(f);
    return false;
  }
  auto reference = reference_outputs(seed, *inputs);
  if (!reference)
    return false;
  seed_inputs_.resize(request_.seeds.size());
  seed_references_.resize(request_.seeds.size());
  seed_inputs_[seed_index] = *inputs;
  seed_references_[seed_index] = reference;
  if (seed_index == 0) { // the first seed's reference time sets the kernel watchdog
    result_.reference_s = reference->reference_s;
    candidate_limit_s_ = request_.watchdog.candidate_limit_s(reference->reference_s);
    result_.watchdog_s = candidate_limit_s_;
  }
  for (std::size_t j = 0; j < kernels_.size(); ++j)
    if (!has_verdict(j) && !check_kernel(j, seed, *inputs, *reference))
      return false;
  return any_pending();
}

race_result race_runner::finish() {
  result_.wall_s = result_.setup_s + seconds_since(start_); // set-up came before start_
  const auto& cache = ws_.cache();
  result_.notes.push_back("measured on device 0 of those visible to the runner");
  result_.notes.push_back("device cache: " + std::to_string(cache.entries()) + " entries, " +
                          std::to_string(cache.bytes() >> 20) + " MiB of a " +
                          std::to_string(cache.budget() >> 20) + " MiB budget; " +
                          std::to_string(cache.hits()) + " hits, " + std::to_string(cache.misses()) +
                          " misses, " + std::to_string(cache.evictions()) + " evictions in this runner");
  phases_.mark("the rest");
  // Last: the runner's log line quotes it. The device's opening (a runner without warm-up) came
  // before this race's clock started; wall_s counts it.
  char setup[48] = "";
  if (result_.setup_s > 0)
    std::snprintf(setup, sizeof setup, "device opened %.3f s, ", result_.setup_s);
  result_.notes.push_back("time: " + std::string{setup} + phases_.text());
  return result_;
}

race_result race_runner::run() {
  if (request_.fresh) { // buffers of this request's own, at addresses no earlier launch saw
    own_working_.resize(request_.args.size());
    working_.assign(request_.args.size(), nullptr);
    ws_.use_problem(request_.args);
    for (std::size_t i = 0; i < request_.args.size(); ++i)
      if (const auto* b = std::get_if<candidate_buffer_arg>(&request_.args[i])) {
        if (auto f = ws_.allocate_evicting(own_working_[i], buffer_bytes(*b), "'" + b->name + "' (fresh)")) {
          fail_all(*f);
          return finish();
        }
        working_[i] = own_working_[i].ptr;
      }
    result_.notes.push_back("fresh: modules loaded before the checks and every round, working buffers of "
                            "this request's own, inputs generated again, L2 flushed before each launch");
  } else {
    auto working = ws_.working_buffers(request_.args);
    if (!working) {
      fail_all(working.error());
      return finish();
    }
    working_ = *working;
  }
  params_ = std::make_unique<kernel_params>(request_.args, working_);
  phases_.mark("buffers");
  if (!load_reference() || !load_kernels())
    return finish();
  phases_.mark("modules");
  for (std::size_t s = 0; s < request_.seeds.size(); ++s)
    if (!check_seed(s))
      return finish();
  phases_.mark("checks (inputs and references included)");
  time_passed_kernels();
  return finish();
}

expected<race_result, std::string> execute_race(const race_request& request, const hung_race_exit& on_hung) {
  if (request.kernels.empty())
    return unexpected(std::string{"run_race: no kernels"});
  if (request.seeds.empty())
    return unexpected(std::string{"run_race: no seeds"});
  for (const auto& arg : request.args)
    if (const auto* b = std::get_if<candidate_buffer_arg>(&arg); b && b->count == 0)
      return unexpected("run_race: buffer '" + b->name + "' has no elements");
  if (!request.reference) { // answered without touching the device
    race_result result;
    result.kernels.resize(request.kernels.size());
    for (auto& k : result.kernels) {
      k.outcome = vocabulary::branch_outcome::not_supported;
      k.detail = "reference from an expected-values file is not supported by this runner yet: "
                 "send a reference kernel";
    }
    return result;
  }
  double setup_s = 0.0;
  auto workspace = device_workspace::get(setup_s);
  if (!workspace)
    return unexpected(workspace.error());
  race_runner race{request, **workspace, setup_s, on_hung};
  return race.run();
}

} // namespace warpforge::gpu
