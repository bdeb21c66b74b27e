// run_race on the CPU: body codecs, the request builder, and the runner's answer without a GPU.
#include "gpu/runner/race_request.hpp"
#include "gpu/runner/protocol.hpp"
#include "gpu/runtime/runner_server.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>

using namespace warpforge;
using namespace warpforge::gpu;

namespace {

race_request sample_request() {
  race_request r;
  r.kernels = {{"/tmp/c0.cubin", "vadd", {{4096, 1, 1}, {256, 1, 1}, 0}},
               {"/tmp/c1.cubin", "vadd_wide", {{1024, 1, 1}, {1024, 1, 1}, 49152}}};
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
  r.timing.min_rounds = 7;
  r.timing.ci_target = 0.002;
  r.timing.warmup_window = 3;
  r.timing.max_batch_samples = 40;
  r.mode = vocabulary::timing_mode::cold;
  r.watchdog.floor_s = 0.5;
  return r;
}

kernel_result incorrect_kernel() {
  kernel_result k;
  k.outcome = vocabulary::branch_outcome::incorrect;
  k.detail = "output 'c': 3 of 7";
  k.seed = 43;
  k.arg = "c";
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
  k.compare = c;
  k.input = input_check{false, 12};
  k.kernel_s = 2e-4;
  k.check_s = 3e-3;
  k.load_s = 1e-3;
  return k;
}

kernel_result passed_kernel() {
  kernel_result k;
  k.outcome = vocabulary::branch_outcome::passed;
  const std::vector<double> samples{1e-5, 1.1e-5, 0.9e-5};
  k.stats = summarize(samples);
  k.stats.median_ci = {0.9e-5, 1.1e-5, 0.95};
  k.decision = stop_decision::converged;
  k.rounds = 6;
  k.round_spread_s = 1e-8;
  k.batch_samples = 40;
  k.warmup_launches = 15;
  k.warmup = warmup_decision::settled;
  k.kernel_s = 3e-3;
  k.warmup_s = 1e-3;
  k.timing_s = 5e-2;
  k.notes = {"a note"};
  return k;
}

} // namespace

TEST(race_request, enums_round_trip_through_text) {
  for (auto mode : vocabulary::all_timing_modes)
    EXPECT_EQ(vocabulary::from_string<vocabulary::timing_mode>(to_string(mode)), mode);
  for (auto outcome : vocabulary::all_branch_outcomes)
    EXPECT_EQ(vocabulary::from_string<vocabulary::branch_outcome>(to_string(outcome)), outcome);
  EXPECT_FALSE(vocabulary::from_string<vocabulary::timing_mode>("tepid"));
  EXPECT_EQ(runner_request_kind_from_string("run_race"), runner_request_kind::run_race);
  EXPECT_FALSE(runner_request_kind_from_string("run_candidate")) << "the single-candidate kind is gone";
}

TEST(race_request, the_body_round_trips) {
  auto request = sample_request();
  auto decoded = decode_race_request(encode_body(request));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, request);

  request.reference.reset();
  decoded = decode_race_request(encode_body(request));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, request);
}

TEST(race_request, the_fresh_flag_round_trips_and_is_false_when_the_body_lacks_it) {
  auto request = sample_request();
  request.fresh = true;
  auto decoded = decode_race_request(encode_body(request));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_TRUE(decoded->fresh);
  EXPECT_EQ(*decoded, request);

  auto text = encode_body(sample_request()); // fresh = false is written...
  const auto at = text.find(",\"fresh\":false");
  ASSERT_NE(at, std::string::npos) << text;
  text.erase(at, std::string_view{",\"fresh\":false"}.size()); // ...and a body without it still reads
  decoded = decode_race_request(text);
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_FALSE(decoded->fresh);

  text = encode_body(request);
  text.replace(text.find("\"fresh\":true"), std::string_view{"\"fresh\":true"}.size(), "\"fresh\":1");
  decoded = decode_race_request(text);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("fresh"), std::string::npos) << decoded.error().detail;
}

TEST(race_request, a_bad_field_is_named) {
  auto text = encode_body(sample_request());
  auto at = text.find("\"bf16\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "\"bf17\"");
  auto decoded = decode_race_request(text);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("args[1]"), std::string::npos) << decoded.error().detail;
  EXPECT_NE(decoded.error().detail.find("bf17"), std::string::npos) << decoded.error().detail;

  auto empty_seeds = sample_request();
  empty_seeds.seeds.clear();
  decoded = decode_race_request(encode_body(empty_seeds));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("seeds"), std::string::npos);

  auto no_kernels = sample_request();
  no_kernels.kernels.clear();
  decoded = decode_race_request(encode_body(no_kernels));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("run_race.kernels: empty"), std::string::npos) << decoded.error().detail;

  text = encode_body(sample_request());
  at = text.find("\"vadd_wide\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(text.find("\"grid\"", at), 6, "\"grod\"");
  decoded = decode_race_request(text);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("kernels[1]"), std::string::npos) << decoded.error().detail;
  EXPECT_NE(decoded.error().detail.find("grid"), std::string::npos) << decoded.error().detail;
}

TEST(race_request, the_result_round_trips_with_infinities) {
  race_result r;
  r.kernels = {passed_kernel(), incorrect_kernel()};
  r.reference_s = 2e-5;
  r.watchdog_s = 2.0;
  r.sm_clock_hz_before = 1.98e9;
  r.sm_clock_hz_after = 1.755e9;
  r.inputs_s = 0.01;
  r.reference_wall_s = 0.002;
  r.setup_s = 0.7;
  r.rounds_wall_s = 0.05;
  r.wall_s = 0.9;
  r.ended_by = 1;
  r.runner_exits = true;
  r.notes = {"device cache: 2 entries"};
  auto decoded = decode_race_result(encode_body(r));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, r);
  ASSERT_TRUE(decoded->kernels[1].compare);
  EXPECT_EQ(decoded->kernels[1].compare->max_rel_error, std::numeric_limits<double>::infinity());
  EXPECT_EQ(decoded->ended_by, std::optional<std::size_t>{1});
}

TEST(race_request, a_result_that_names_a_kernel_it_does_not_have_is_rejected) {
  race_result r;
  r.kernels = {passed_kernel()};
  r.ended_by = 3;
  auto decoded = decode_race_result(encode_body(r));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("ended_by"), std::string::npos) << decoded.error().detail;
}

TEST(race_request, built_from_a_resolved_problem) {
  config::resolved_problem problem;
  problem.launch = {{8, 1, 1}, {128, 1, 1}, 0};
  problem.args.emplace_back(config::resolved_buffer{"x", config::dtype::f16, config::arg_role::input,
                                                    {}, 1024, 2048});
  problem.args.emplace_back(config::resolved_buffer{"y", config::dtype::f16,
                                                    config::arg_role::output, {}, 1024, 2048});
  problem.args.emplace_back(config::resolved_scalar{"n", config::dtype::i32, std::int64_t{1024}});
  config::reference_spec reference;
  reference.rtol = 0.125;
  race_inputs inputs;
  inputs.kernels = {{"/x/a.cubin", "k", {{4, 1, 1}, {256, 1, 1}, 0}}, {"/x/b.cubin", "k", problem.launch}};
  inputs.reference_cubin = "/x/r.cubin";
  inputs.reference_entry = "k_ref";
  inputs.seed = 9;
  auto request = make_race_request(problem, reference, inputs);
  EXPECT_EQ(request.kernels, inputs.kernels);
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

  const auto single = make_single_kernel_race(problem, reference, "/x/c.cubin", "k", inputs);
  ASSERT_EQ(single.kernels.size(), 1u);
  EXPECT_EQ(single.kernels[0], (kernel_launch{"/x/c.cubin", "k", problem.launch}));
  EXPECT_EQ(single.args, request.args);

  inputs.reference_cubin.reset();
  EXPECT_FALSE(make_race_request(problem, reference, inputs).reference);
}

TEST(race_request, the_runner_answers_a_bad_body_with_bad_request) {
  auto handled = handle_message(encode(runner_request{5, runner_request_kind::run_race, "{}"}));
  EXPECT_FALSE(handled.stop);
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->id, 5u);
  EXPECT_EQ(reply->status, runner_reply_status::bad_request);
  EXPECT_NE(reply->error.find("run_race.kernels"), std::string::npos) << reply->error;
}

TEST(race_request, without_a_gpu_the_runner_says_so_instead_of_crashing) {
  auto request = sample_request();
  request.kernels[0].cubin_path = "/nonexistent/c.cubin";
  request.reference->cubin_path = "/nonexistent/r.cubin";
  auto handled = handle_message(encode(runner_request{6, runner_request_kind::run_race, encode_body(request)}));
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply) << handled.reply;
  EXPECT_EQ(reply->id, 6u);
  if (reply->status == runner_reply_status::failed) { // no GPU (this machine)
    EXPECT_FALSE(handled.stop);
    EXPECT_NE(reply->error.find("no usable CUDA device"), std::string::npos) << reply->error;
    std::cout << "reply error: " << reply->error << "\n";
  } else { // a GPU: the missing reference CUBIN fails every kernel
    ASSERT_EQ(reply->status, runner_reply_status::ok) << reply->error;
    auto result = decode_race_result(reply->body_json);
    ASSERT_TRUE(result) << result.error().detail;
    ASSERT_EQ(result->kernels.size(), 2u);
    EXPECT_EQ(result->kernels[0].outcome, vocabulary::branch_outcome::runtime_error);
  }

  request.reference.reset(); // expected-values file: not supported yet, GPU or not
  handled = handle_message(encode(runner_request{7, runner_request_kind::run_race, encode_body(request)}));
  reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, runner_reply_status::ok) << reply->error;
  auto result = decode_race_result(reply->body_json);
  ASSERT_TRUE(result) << result.error().detail;
  ASSERT_EQ(result->kernels.size(), 2u);
  for (const auto& k : result->kernels)
    EXPECT_EQ(k.outcome, vocabulary::branch_outcome::not_supported);
}
