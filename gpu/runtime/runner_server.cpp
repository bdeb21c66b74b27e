#include "gpu/runtime/runner_server.hpp"

#include "gpu/device_report.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/protocol.hpp"
#include "gpu/runtime/device_query.hpp"
#include "gpu/runtime/race_runner.hpp"
#include "gpu/runtime/range_profiler.hpp"
#include "gpu/runtime/runner_warm_up.hpp"

#include "foundation/logging/logging.hpp"

#include <zmq.hpp>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <unistd.h>

namespace warpforge::gpu {

namespace {

// stderr, which the client captures into the runner's log file.
std::shared_ptr<spdlog::logger> runner_log() {
  return logging::get("runner");
}

// Ends the process when the parent is gone; stops with the server.
class parent_watch {
public:
  explicit parent_watch(pid_t parent)
    : thread_([parent](std::stop_token stop) {
        std::mutex mutex;
        std::condition_variable_any wake;
        std::unique_lock lock{mutex};
        while (!wake.wait_for(lock, stop, parent_check_interval, [] { return false; })) {
          if (stop.stop_requested())
            return;
          if (::getppid() != parent) {
            runner_log()->error("parent {} is gone; exiting", parent);
            runner_log()->flush();
            ::_exit(runner_exit_parent_gone);
          }
        }
      }) {}

private:
  std::jthread thread_;
};

// How a reply goes out when the process must end right after it (a hung kernel: returning into
// CUDA would wait on it). serve() points it at its socket; without a socket it only exits.
std::function<void(const std::string&)> final_reply_sink;

[[noreturn]] void reply_and_exit(const std::string& reply_text, int exit_code) {
  if (final_reply_sink)
    final_reply_sink(reply_text);
  runner_log()->flush();
  std::_Exit(exit_code);
}

runner_reply reply_to(const runner_request& request) {
  runner_reply reply;
  reply.id = request.id;
  reply.kind = request.kind;
  return reply;
}

} // namespace

handled_message handle_message(std::string_view request_text) {
  auto request = decode_request(request_text);
  if (!request) {
    runner_reply reply;
    reply.id = peek_request_id(request_text);
    reply.status = runner_reply_status::bad_request;
    reply.error = request.error().detail;
    runner_log()->warn("bad request: {}", reply.error);
    return {encode(reply), false};
  }
  auto reply = reply_to(*request);
  switch (request->kind) {
    case runner_request_kind::hello:
      reply.body_json = encode_body(runner_hello{::getpid(), runner_protocol_version});
      return {encode(reply), false};
    case runner_request_kind::device_query: {
      auto depth = decode_device_query_body(request->body_json);
      if (!depth) {
        reply.status = runner_reply_status::bad_request;
        reply.error = depth.error().detail;
        runner_log()->warn("bad device_query: {}", reply.error);
        return {encode(reply), false};
      }
      phase_clock clock;
      auto report = query_host(*depth, clock);
      runner_log()->info("device query ({}): {} device(s), status {}; time: {}", to_string(*depth),
                         report.device_count, to_string(report.status), clock.text());
      reply.body_json = to_json(report);
      return {encode(reply), false};
    }
    case runner_request_kind::shutdown:
      runner_log()->info("shutdown requested");
      return {encode(reply), true};
    case runner_request_kind::run_race: {
      auto body = decode_race_request(request->body_json);
      if (!body) {
        reply.status = runner_reply_status::bad_request;
        reply.error = body.error().detail;
        runner_log()->warn("bad run_race: {}", reply.error);
        return {encode(reply), false};
      }
      auto result = execute_race(*body, [&](const race_result& hung) {
        const auto j = hung.ended_by.value_or(0);
        runner_log()->error("run_race: {}; exiting with {}", hung.kernels.at(j).detail,
                            runner_exit_kernel_hung);
        reply.body_json = encode_body(hung);
        reply_and_exit(encode(reply), runner_exit_kernel_hung);
      });
      if (!result) {
        reply.status = runner_reply_status::failed;
        reply.error = result.error();
        runner_log()->warn("run_race failed: {}", reply.error);
        return {encode(reply), false};
      }
      for (std::size_t j = 0; j < result->kernels.size(); ++j)
        runner_log()->info("run_race kernel {} '{}': {} {}", j, body->kernels[j].entry,
                           to_string(result->kernels[j].outcome), result->kernels[j].detail);
      runner_log()->info("run_race: {} kernel(s) in {:.3f} s; {}", result->kernels.size(), result->wall_s,
                         result->notes.empty() ? std::string{} : result->notes.back());
      reply.body_json = encode_body(*result);
      if (result->runner_exits) {
        runner_log()->error("CUDA context lost; exiting with {}", runner_exit_context_lost);
        return {encode(reply), true, runner_exit_context_lost};
      }
      return {encode(reply), false};
    }
    case runner_request_kind::profile_candidate:
    case runner_request_kind::profile_candidates: {
      // One profile is a batch of one; the reply's body is the kind's.
      const bool batch = request->kind == runner_request_kind::profile_candidates;
      auto bodies = batch ? decode_profile_requests(request->body_json) : [&] {
        auto one = decode_profile_request(request->body_json);
        return one ? expected<std::vector<profile_request>, json_error>{std::vector{std::move(*one)}}
                   : unexpected(one.error());
      }();
      if (!bodies) {
        reply.status = runner_reply_status::bad_request;
        reply.error = bodies.error().detail;
        runner_log()->warn("bad {}: {}", to_string(request->kind), reply.error);
        return {encode(reply), false};
      }
      auto results = profile_candidates(*bodies);
      if (!results) {
        reply.status = runner_reply_status::failed;
        reply.error = results.error();
        runner_log()->warn("{} failed: {}", to_string(request->kind), reply.error);
        return {encode(reply), false};
      }
      bool exits = false;
      for (std::size_t i = 0; i < results->size(); ++i) {
        const auto& result = (*results)[i];
        runner_log()->info("profile_candidate {}: {}, {} value(s), {} missing, {} pass(es); {}",
                           (*bodies)[i].run.kernels.front().entry, to_string(result.status), result.values.size(),
                           result.missing.size(), result.passes, result.note);
        exits = exits || result.runner_exits;
      }
      reply.body_json = batch ? encode_body(*results) : encode_body(results->front());
      if (exits) {
        runner_log()->error("CUDA context lost; exiting with {}", runner_exit_context_lost);
        return {encode(reply), true, runner_exit_context_lost};
      }
      return {encode(reply), false};
    }
  }
  reply.status = runner_reply_status::bad_request;
  reply.error = "unhandled kind";
  return {encode(reply), false};
}

int serve(const runner_server_options& options) {
  auto log = runner_log();
  pid_t parent = options.parent_pid.value_or(::getppid());
  if (::getppid() != parent) {
    log->error("parent {} is already gone", parent);
    return runner_exit_parent_gone;
  }
  parent_watch watch{parent};
  try {
    zmq::context_t context;
    zmq::socket_t socket{context, zmq::socket_type::dealer};
    socket.set(zmq::sockopt::linger, static_cast<int>(runner_socket_linger.count()));
    socket.connect(options.endpoint);
    runner_reply hello;
    hello.id = runner_hello_id;
    hello.kind = runner_request_kind::hello;
    hello.body_json = encode_body(runner_hello{::getpid(), runner_protocol_version});
    socket.send(zmq::buffer(encode(hello)), zmq::send_flags::none);
    log->info("connected to {}", options.endpoint);
    if (options.warm_up != warm_up_level::none) { // the client's first request waits in the socket meanwhile
      if (auto warm = warm_up_runner(options.warm_up))
        log->info("warm-up: {}", *warm);
      else
        log->warn("warm-up: {}", warm.error());
    }
    final_reply_sink = [&](const std::string& text) {
      socket.send(zmq::buffer(text), zmq::send_flags::none);
      socket.close();
      context.close(); // waits (up to the linger) until the reply has left
    };
    struct sink_reset { // the sink must not outlive the socket it uses
      ~sink_reset() { final_reply_sink = nullptr; }
    } reset_sink;
    for (;;) {
      zmq::message_t message;
      try {
        if (!socket.recv(message, zmq::recv_flags::none))
          continue;
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR)
          continue;
        throw;
      }
      auto handled = handle_message(message.to_string_view());
      socket.send(zmq::buffer(handled.reply), zmq::send_flags::none);
      if (handled.stop) {
        if (handled.exit_code != runner_exit_ok) {
          socket.close(); // flushes the reply (linger) before the exit
          log->flush();
          return handled.exit_code;
        }
        break;
      }
    }
  } catch (const zmq::error_t& e) {
    log->error("socket error on {}: {}", options.endpoint, e.what());
    return runner_exit_endpoint_failed;
  }
  return runner_exit_ok;
}

} // namespace warpforge::gpu
