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
//   by_entry           greets; a run_candidate request's candidate entry says what to do:
//                        pass          answer passed, with timing statistics
//                        incorrect     answer incorrect (element 7 differs)
//                        hang          never answer (a kernel that does not end)
//                        crash         abort (SIGABRT) mid-request
//                        lost_context  answer runtime_error, runner_exits set, then exit 5
//                      other requests are answered as polite
// Every mode but hang_on_request exits 0 on shutdown (without replying).
// It exits by itself when its parent goes away, like the real runner.

#include "gpu/runner/candidate_request.hpp"
#include "gpu/runner/protocol.hpp"

#include <zmq.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace warpforge::gpu;

namespace {

constexpr std::chrono::milliseconds parent_check_interval{50};
constexpr int exit_on_start_code = 42;
constexpr int usage_code = 2;
constexpr std::uint64_t stale_id_offset = 1000;
constexpr int lost_context_code = 5; // the real runner's exit code after a sticky CUDA error

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
    if (mode == "by_entry" && request->kind == runner_request_kind::run_candidate) {
      auto body = decode_candidate_request(request->body_json);
      const std::string entry = body ? body->candidate.entry : "";
      std::cerr << "fake runner: candidate " << entry << std::endl;
      if (entry == "hang")
        continue;
      if (entry == "crash")
        abort_without_core();
      candidate_result result;
      if (entry == "pass") {
        result.outcome = candidate_outcome::passed;
        const std::vector<double> samples{1.00e-3, 1.01e-3, 0.99e-3, 1.02e-3, 1.00e-3};
        result.stats = summarize(samples);
        result.sm_clock_hz_after = 1.98e9;
      } else if (entry == "incorrect") {
        result.outcome = candidate_outcome::incorrect;
        result.detail = "output y differs at element 7";
        result.seed = 42;
        compare_report compare;
        compare.passed = false;
        compare.first_bad_index = 7;
        compare.max_abs_error = 0.5;
        compare.max_rel_error = 0.25;
        result.compare = compare;
      } else {
        result.outcome = candidate_outcome::runtime_error;
        result.detail = "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered";
        result.runner_exits = true;
      }
      runner_reply reply;
      reply.id = request->id;
      reply.kind = request->kind;
      reply.body_json = encode_body(result);
      socket.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
      if (result.runner_exits) {
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
