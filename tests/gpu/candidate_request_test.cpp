// run_candidate on the CPU: body codecs, the request builder, and the runner's answer without a GPU.
#include "gpu/runner/candidate_request.hpp"
#include "gpu/runner/protocol.hpp"
#include "gpu/runtime/runner_server.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>

using namespace warpforge;
using namespace warpforge::gpu;

namespace {

candidate_request sample_request() {
  candidate_request r;
  r.candidate = {"/tmp/c.cubin", "vadd", {{4096, 1, 1}, {256, 1, 1}, 0}};
  r.reference = kernel_launch{"/tmp/r.cubin", "vadd_ref", {{2048, 2, 1}, {128, 2, 1}, 65536}};
  config::init_spec normal;
  normal.kind = config::init_kind::normal;
  normal.mean = 0.5;
  normal.stddev = 2.25;
  r.args.emplace_back(candidate_buffer_arg{"a", config::dtype::f32, 1u << 20,
                                           config::arg_role::input, normal, {}});
  r.args.emplace_back(candidate_buffer_arg{"c", config::dtype::bf16, 7, config::arg_role::output,
                                           {}, {0.01, 1e-3}});
  r.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i64, std::int64_t{-5}});
  r.args.emplace_back(candidate_scalar_arg{"alpha", config::dtype::f32, 0.25});
  r.seeds = {42, 43};
  r.timing.min_samples = 7;
  r.timing.max_noise = 0.02;
  r.mode = vocabulary::timing_mode::cold;
  return r;
}

} // namespace

TEST(candidate_request, enums_round_trip_through_text) {
  for (auto mode : vocabulary::all_timing_modes)
    EXPECT_EQ(vocabulary::from_string<vocabulary::timing_mode>(to_string(mode)), mode);
  for (auto outcome : vocabulary::all_branch_outcomes)
    EXPECT_EQ(vocabulary::from_string<vocabulary::branch_outcome>(to_string(outcome)), outcome);
  EXPECT_FALSE(vocabulary::from_string<vocabulary::timing_mode>("tepid"));
  EXPECT_EQ(to_string(vocabulary::branch_outcome::runtime_error), "runtime_error"); // branch_outcome's text
  EXPECT_EQ(runner_request_kind_from_string("run_candidate"), runner_request_kind::run_candidate);
}

TEST(candidate_request, the_body_round_trips) {
  auto request = sample_request();
  auto decoded = decode_candidate_request(encode_body(request));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, request);

  request.reference.reset();
  decoded = decode_candidate_request(encode_body(request));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, request);
}

TEST(candidate_request, a_bad_field_is_named) {
  auto text = encode_body(sample_request());
  auto at = text.find("\"bf16\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "\"bf17\"");
  auto decoded = decode_candidate_request(text);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("args[1]"), std::string::npos) << decoded.error().detail;
  EXPECT_NE(decoded.error().detail.find("bf17"), std::string::npos) << decoded.error().detail;

  auto empty_seeds = sample_request();
  empty_seeds.seeds.clear();
  decoded = decode_candidate_request(encode_body(empty_seeds));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("seeds"), std::string::npos);
}

TEST(candidate_request, the_result_round_trips_with_infinities) {
  candidate_result r;
  r.outcome = vocabulary::branch_outcome::incorrect;
  r.detail = "output 'c': 3 of 7";
  r.seed = 43;
  r.arg = "c";
  compare_report c;
  c.passed = false;
  c.elements = 7;
  c.mismatches = 3;
  c.max_abs_error = 2.5;
  c.max_rel_error = std::numeric_limits<double>::infinity();
  c.first_bad_index = 4;
  c.first_bad_got = 1;
  c.first_bad_want = 0;
  c.first_bad_got_bits = 0x3f80;
  c.poisoned_elements = 2;
  r.compare = c;
  r.input = input_check{false, 12};
  r.stats.count = 3;
  r.stats.median_s = 1e-5;
  r.stats.median_ci = {0.9e-5, 1.1e-5, 0.75};
  r.decision = stop_decision::noise_plateau;
  r.sm_clock_hz_before = 1.98e9;
  r.runner_exits = true;
  r.notes = {"a note"};
  auto decoded = decode_candidate_result(encode_body(r));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(encode_body(*decoded), encode_body(r));
  ASSERT_TRUE(decoded->compare);
  EXPECT_EQ(decoded->compare->max_rel_error, std::numeric_limits<double>::infinity());
  EXPECT_EQ(decoded->compare->first_bad_index, std::optional<std::size_t>{4});
  EXPECT_EQ(decoded->input, r.input);
  EXPECT_EQ(decoded->stats, r.stats);
  EXPECT_EQ(decoded->seed, std::optional<std::uint64_t>{43});
  EXPECT_TRUE(decoded->runner_exits);
}

TEST(candidate_request, built_from_a_resolved_problem) {
  config::resolved_problem problem;
  problem.launch = {{8, 1, 1}, {128, 1, 1}, 0};
  problem.args.emplace_back(config::resolved_buffer{"x", config::dtype::f16, config::arg_role::input,
                                                    {}, 1024, 2048});
  problem.args.emplace_back(config::resolved_buffer{"y", config::dtype::f16,
                                                    config::arg_role::output, {}, 1024, 2048});
  problem.args.emplace_back(config::resolved_scalar{"n", config::dtype::i32, std::int64_t{1024}});
  config::reference_spec reference;
  reference.rtol = 0.125;
  candidate_inputs inputs;
  inputs.candidate_cubin = "/x/c.cubin";
  inputs.candidate_entry = "k";
  inputs.reference_cubin = "/x/r.cubin";
  inputs.reference_entry = "k_ref";
  inputs.seed = 9;
  auto request = make_candidate_request(problem, reference, inputs);
  EXPECT_EQ(request.candidate.launch, problem.launch);
  ASSERT_TRUE(request.reference);
  EXPECT_EQ(request.reference->launch, problem.launch); // no reference_launch: the problem's
  EXPECT_EQ(request.reference->entry, "k_ref");
  EXPECT_EQ(request.seeds, (std::vector<std::uint64_t>{9, 10}));
  ASSERT_EQ(request.args.size(), 3u);
  const auto& y = std::get<candidate_buffer_arg>(request.args[1]);
  EXPECT_EQ(y.count, 1024u);
  EXPECT_EQ(y.tol, config::tolerance_for(reference, config::dtype::f16));
  EXPECT_EQ(y.tol.rtol, 0.125);
  EXPECT_EQ(std::get<candidate_scalar_arg>(request.args[2]).value,
            (std::variant<std::int64_t, double>{std::int64_t{1024}}));

  inputs.reference_cubin.reset();
  EXPECT_FALSE(make_candidate_request(problem, reference, inputs).reference);
}

TEST(candidate_request, the_runner_answers_a_bad_body_with_bad_request) {
  auto handled = handle_message(encode(runner_request{5, runner_request_kind::run_candidate, "{}"}));
  EXPECT_FALSE(handled.stop);
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->id, 5u);
  EXPECT_EQ(reply->status, runner_reply_status::bad_request);
  EXPECT_NE(reply->error.find("candidate"), std::string::npos) << reply->error;
}

TEST(candidate_request, without_a_gpu_the_runner_says_so_instead_of_crashing) {
  auto request = sample_request();
  request.candidate.cubin_path = "/nonexistent/c.cubin";
  request.reference->cubin_path = "/nonexistent/r.cubin";
  auto handled = handle_message(
    encode(runner_request{6, runner_request_kind::run_candidate, encode_body(request)}));
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply) << handled.reply;
  EXPECT_EQ(reply->id, 6u);
  if (reply->status == runner_reply_status::failed) { // no GPU (this machine)
    EXPECT_FALSE(handled.stop);
    EXPECT_NE(reply->error.find("no usable CUDA device"), std::string::npos) << reply->error;
    std::cout << "reply error: " << reply->error << "\n";
  } else { // a GPU: the missing CUBIN is a runtime_error outcome
    ASSERT_EQ(reply->status, runner_reply_status::ok) << reply->error;
    auto result = decode_candidate_result(reply->body_json);
    ASSERT_TRUE(result) << result.error().detail;
    EXPECT_EQ(result->outcome, vocabulary::branch_outcome::runtime_error);
  }

  request.reference.reset(); // expected-values file: not supported yet, GPU or not
  handled = handle_message(
    encode(runner_request{7, runner_request_kind::run_candidate, encode_body(request)}));
  reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, runner_reply_status::ok) << reply->error;
  auto result = decode_candidate_result(reply->body_json);
  ASSERT_TRUE(result) << result.error().detail;
  EXPECT_EQ(result->outcome, vocabulary::branch_outcome::not_supported);
}
