// profile_candidate on the CPU: body codecs, the protocol kind, and the runner's answer without a GPU.
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/protocol.hpp"
#include "gpu/runtime/runner_server.hpp"

#include <gtest/gtest.h>

#include <iostream>

using namespace warpforge;
using namespace warpforge::gpu;

namespace {

profile_request sample_request() {
  profile_request r;
  r.run.kernels = {{"/tmp/c.cubin", "vector_add", {{65536, 1, 1}, {256, 1, 1}, 0}}};
  r.run.args.emplace_back(candidate_buffer_arg{"a", config::dtype::f32, 1u << 24,
                                               config::arg_role::input, {}, {}});
  r.run.args.emplace_back(candidate_buffer_arg{"c", config::dtype::f32, 1u << 24,
                                               config::arg_role::output, {}, {}});
  r.run.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i32, std::int64_t{1 << 24}});
  r.run.seeds = {7};
  r.metrics = {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum"};
  r.replay = profile_replay::user;
  return r;
}

profile_result sample_result(profile_status status) {
  profile_result r;
  r.status = status;
  r.source = metric_source::ncu;
  r.replay = profile_replay::user;
  r.values = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.25},
              {"gpu__time_duration.sum", 72416.0}};
  r.missing = {{"smsp__no_such.ratio", "not a metric of chip GH100 \"quoted\""}};
  r.passes = 9;
  r.note = "chip GH100, auto range";
  r.runner_exits = status == profile_status::failed;
  return r;
}

std::string detail_of(std::string_view body) {
  auto decoded = decode_profile_request(body);
  return decoded ? std::string{"(decoded)"} : decoded.error().detail;
}

} // namespace

TEST(profile_request, every_enum_value_round_trips_through_its_text) {
  for (auto replay : all_profile_replays)
    EXPECT_EQ(profile_replay_from_string(to_string(replay)), replay);
  for (auto status : all_profile_statuses)
    EXPECT_EQ(profile_status_from_string(to_string(status)), status);
  for (auto source : all_metric_sources)
    EXPECT_EQ(metric_source_from_string(to_string(source)), source);
  EXPECT_FALSE(profile_status_from_string("OK"));
  EXPECT_EQ(to_string(profile_status::counters_unavailable), "counters_unavailable");
  EXPECT_EQ(runner_request_kind_from_string("profile_candidate"),
            runner_request_kind::profile_candidate);
}

TEST(profile_request, the_request_body_round_trips) {
  auto request = sample_request();
  auto decoded = decode_profile_request(encode_body(request));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, request);
}

TEST(profile_request, the_result_body_round_trips_for_every_status) {
  for (auto status : all_profile_statuses) {
    auto result = sample_result(status);
    auto decoded = decode_profile_result(encode_body(result));
    ASSERT_TRUE(decoded) << decoded.error().detail;
    EXPECT_EQ(*decoded, result) << to_string(status);
  }
  profile_result empty;
  auto decoded = decode_profile_result(encode_body(empty));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, empty);
}

TEST(profile_request, a_bad_request_names_the_field) {
  auto request = sample_request();
  request.metrics.clear();
  EXPECT_NE(detail_of(encode_body(request)).find("profile_candidate.metrics: empty"),
            std::string::npos);
  request.metrics = {"gpu__time_duration.sum", "gpu__time_duration.sum"};
  EXPECT_NE(detail_of(encode_body(request)).find("listed twice"), std::string::npos);

  auto text = encode_body(sample_request());
  auto replay = text.find("\"user\"");
  ASSERT_NE(replay, std::string::npos);
  EXPECT_NE(detail_of(text.substr(0, replay) + "\"app\"" + text.substr(replay + 6))
              .find("profile_candidate.replay: unknown value 'app'"),
            std::string::npos);

  auto seeds = text.find("\"seeds\":[7]");
  ASSERT_NE(seeds, std::string::npos);
  auto detail = detail_of(text.substr(0, seeds) + "\"seeds\":[]" + text.substr(seeds + 11));
  EXPECT_NE(detail.find("profile_candidate.run: seeds: empty"), std::string::npos) << detail;

  EXPECT_NE(detail_of(R"({"metrics":["a"],"replay":"kernel"})").find("profile_candidate.run: missing"),
            std::string::npos);
  EXPECT_NE(detail_of("[]").find("not a JSON object"), std::string::npos);
}

TEST(profile_request, a_bad_result_names_the_field) {
  auto text = encode_body(sample_result(profile_status::ok));
  auto at = text.find("91.25");
  ASSERT_NE(at, std::string::npos);
  auto decoded = decode_profile_result(text.substr(0, at) + "\"x\"" + text.substr(at + 5));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("values"), std::string::npos) << decoded.error().detail;
}

TEST(profile_request, the_runner_answers_a_bad_body_with_bad_request) {
  auto handled =
    handle_message(encode(runner_request{5, runner_request_kind::profile_candidate, "{}"}));
  EXPECT_FALSE(handled.stop);
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->id, 5u);
  EXPECT_EQ(reply->kind, runner_request_kind::profile_candidate);
  EXPECT_EQ(reply->status, runner_reply_status::bad_request);
  EXPECT_NE(reply->error.find("profile_candidate.run"), std::string::npos) << reply->error;
}

TEST(profile_request, without_a_gpu_the_runner_says_so_instead_of_crashing) {
  auto request = sample_request();
  request.run.kernels[0].cubin_path = "/nonexistent/c.cubin";
  auto handled = handle_message(
    encode(runner_request{6, runner_request_kind::profile_candidate, encode_body(request)}));
  EXPECT_FALSE(handled.stop);
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply) << handled.reply;
  EXPECT_EQ(reply->id, 6u);
  if (reply->status == runner_reply_status::failed) { // no GPU (this build host)
    EXPECT_NE(reply->error.find("no usable CUDA device"), std::string::npos) << reply->error;
    std::cout << "reply error: " << reply->error << "\n";
    return;
  }
  // A GPU: the missing CUBIN is a failed profile (or the counters are not ours to read).
  ASSERT_EQ(reply->status, runner_reply_status::ok) << reply->error;
  auto result = decode_profile_result(reply->body_json);
  ASSERT_TRUE(result) << result.error().detail;
  EXPECT_NE(result->status, profile_status::ok) << result->note;
  EXPECT_TRUE(result->values.empty());
  std::cout << to_string(result->status) << ": " << result->note << "\n";
}

// profile_candidates: several profiles in one request, their results in one reply.

TEST(profile_request, a_batch_round_trips_in_order) {
  auto first = sample_request();
  auto second = sample_request();
  second.run.kernels[0].entry = "transpose";
  second.run.seeds = {11};
  auto decoded = decode_profile_requests(encode_body(std::vector{first, second}));
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, (std::vector{first, second}));

  std::vector results{sample_result(profile_status::ok), sample_result(profile_status::counters_unavailable)};
  auto answered = decode_profile_results(encode_body(results));
  ASSERT_TRUE(answered) << answered.error().detail;
  EXPECT_EQ(*answered, results);
  EXPECT_EQ(runner_request_kind_from_string("profile_candidates"), runner_request_kind::profile_candidates);
}

TEST(profile_request, a_bad_batch_names_the_profile_and_what_is_wrong) {
  auto bad = sample_request();
  bad.metrics.clear();
  auto decoded = decode_profile_requests(encode_body(std::vector{sample_request(), bad}));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("profiles[1]: profile_candidate.metrics: empty"), std::string::npos)
    << decoded.error().detail;

  auto other_metrics = sample_request();
  other_metrics.metrics = {"gpu__time_duration.sum"};
  decoded = decode_profile_requests(encode_body(std::vector{sample_request(), other_metrics}));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("differ in their metrics or replay"), std::string::npos)
    << decoded.error().detail;

  decoded = decode_profile_requests(R"({"profiles":[]})");
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("profiles: empty"), std::string::npos) << decoded.error().detail;
  decoded = decode_profile_requests(R"({"runs":[]})");
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().detail.find("profiles"), std::string::npos) << decoded.error().detail;
}

TEST(profile_request, the_runner_answers_a_bad_batch_with_bad_request_naming_it) {
  auto handled = handle_message(encode(runner_request{8, runner_request_kind::profile_candidates, R"({"profiles":[{}]})"}));
  EXPECT_FALSE(handled.stop);
  auto reply = decode_reply(handled.reply);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->kind, runner_request_kind::profile_candidates);
  EXPECT_EQ(reply->status, runner_reply_status::bad_request);
  EXPECT_NE(reply->error.find("profiles[0]"), std::string::npos) << reply->error;
}
