#include "actors/calibration_job.hpp"

#include "actors/gpu_worker.hpp"
#include "actors/registry.hpp"
#include "calibrate/engine/calibration_run.hpp"
#include "calibrate/engine/toolchain_steps.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/after.hpp>
#include <caf/sec.hpp>

#include <optional>

namespace warpforge::actors {

namespace {

using std::chrono::milliseconds;

double seconds(milliseconds d) {
  return std::chrono::duration<double>(d).count();
}

// `order` to the worker of GPU `ordinal`, asked again of its restarted successor when it dies
// with it; the error says why there is no answer. `timed_out` is set when the worker did not
// answer in time: it may still be on the order, so the next one would queue behind it.
template <class Reply, class Order>
expected<Reply, std::string> ask_worker(caf::blocking_actor* self, int ordinal, const Order& order,
                                        milliseconds deadline, const job_gpu_options& options,
                                        bool& timed_out) {
  const auto name = gpu_worker_name(ordinal);
  std::string last = name + " is not running";
  for (std::uint32_t attempt = 1; attempt <= options.attempts; ++attempt) {
    if (attempt > 1)
      self->receive(caf::after(options.retry_delay) >> [] {});
    auto worker = lookup<messages::gpu_worker_actor>(self->system(), name);
    if (!worker)
      continue; // being restarted: look again after the delay
    std::optional<Reply> reply;
    self->request(worker, deadline, order)
      .receive([&](Reply& r) { reply = std::move(r); },
               [&](caf::error& e) {
                 timed_out = e == caf::sec::request_timeout;
                 last = name + ": " + self->system().render(e);
               });
    if (reply)
      return std::move(*reply);
    if (timed_out) // it may still be running the order: asking again would queue a second one
      return unexpected{name + " did not answer within " + std::to_string(seconds(deadline)) + " s"};
    logging::get("calibrate")->warn("{} (attempt {} of {})", last, attempt, options.attempts);
  }
  return unexpected{last};
}

} // namespace

gpu_worker_steps::gpu_worker_steps(caf::blocking_actor* self, calibrate::build_steps& host, job_gpu_options options)
    : self_(self), host_(host), options_(options) {}

expected<calibrate::built_benchmark, calibrate::build_failure> gpu_worker_steps::build(const calibrate::benchmark& bench,
                                                                                       const std::string& arch) {
  return host_.build(bench, arch);
}

expected<std::string, std::string> gpu_worker_steps::disassemble(const calibrate::built_benchmark& built) {
  return host_.disassemble(built);
}

expected<std::vector<calibrate::trial_output>, std::string>
gpu_worker_steps::run_trials(const calibrate::built_benchmark& built, const calibrate::gpu_slot& gpu,
                             std::uint32_t trials, const std::filesystem::path& log_dir) {
  messages::program_order order;
  order.label = "calibrate " + log_dir.filename().string();
  order.executable = built.executable;
  order.trials = trials;
  order.watchdog_s = seconds(options_.trial_watchdog);
  order.output_dir = log_dir;
  const auto deadline = options_.lock_timeout + (options_.trial_watchdog + options_.reply_slack) * trials;
  bool timed_out = false;
  auto reply = ask_worker<messages::program_reply>(self_, gpu.ordinal, order, deadline, options_, timed_out);
  if (timed_out) // still on this order: the GPU's next parameters would wait behind it and fail
    service_ = messages::worker_service::out_of_service;
  if (!reply)
    return unexpected{reply.error()};
  if (reply->status == messages::program_run_status::out_of_service)
    service_ = messages::worker_service::out_of_service;
  if (reply->status != messages::program_run_status::ran)
    return unexpected{reply->detail};
  return calibrate::trial_outputs(reply->trials, log_dir);
}

std::string gpu_worker_steps::validate_counters(const calibrate::built_benchmark& built,
                                                const calibrate::parameter& what, double measured,
                                                const calibrate::gpu_slot& gpu, const std::filesystem::path& log_dir) {
  messages::counter_order order;
  order.parameter = what.name;
  order.unit = what.unit;
  order.metrics = what.validation_metrics;
  if (what.rederive) {
    order.rederive_count = what.rederive->count;
    order.rederive_over = what.rederive->over;
    order.rederive_scale = what.rederive->scale;
  }
  order.measured = measured;
  order.executable = built.executable;
  order.dir = log_dir;
  order.pass_timeout_s = seconds(options_.counter_pass_timeout);
  const auto deadline = options_.lock_timeout + (options_.counter_pass_timeout + options_.reply_slack) * 2;
  bool timed_out = false;
  auto reply = ask_worker<messages::counter_reply>(self_, gpu.ordinal, order, deadline, options_, timed_out);
  if (timed_out)
    service_ = messages::worker_service::out_of_service;
  return reply ? reply->verdict : "not validated: " + reply.error();
}

void calibration_job(caf::blocking_actor* self, messages::calibrator_actor calibrator,
                     calibrate::measure_request request, job_context context) {
  gpu_worker_steps steps{self, *context.host, context.gpu};
  messages::measured_parameter measured;
  measured.gpu = request.gpu.ordinal;
  measured.result = calibrate::measure_guarded(request, steps);
  measured.service = steps.service();
  self->send(calibrator, std::move(measured));
}

} // namespace warpforge::actors
