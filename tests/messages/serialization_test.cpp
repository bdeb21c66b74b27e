// Every message must survive CAF's binary serialisation, which is what the middleman uses when a
// gpu_worker lives on another host. A field missing from an inspect shows up here: the value read
// back differs from the value written.

#include "messages/type_ids.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include <gtest/gtest.h>

#include <concepts>

namespace warpforge::messages {
namespace {

template <class T>
std::vector<char> bytes_of(caf::actor_system& system, T value) {
  std::vector<char> buffer;
  caf::binary_serializer sink{system, buffer};
  if (auto err = sink(value))
    ADD_FAILURE() << "serialising failed: " << system.render(err);
  return buffer;
}

template <class T>
T round_trip(caf::actor_system& system, T value) {
  auto buffer = bytes_of(system, value);
  T copy;
  caf::binary_deserializer source{system, buffer};
  if (auto err = source(copy))
    ADD_FAILURE() << "deserialising failed: " << system.render(err);
  return copy;
}

class MessagesSerialization : public ::testing::Test {
protected:
  static caf::actor_system_config& config() {
    static caf::actor_system_config cfg = [] {
      caf::actor_system_config c;
      c.add_message_types<caf::id_block::warpforge>();
      c.set("scheduler.max-threads", 1);
      return c;
    }();
    return cfg;
  }
  caf::actor_system system{config()};

  // The value read back equals the one written (a field its inspect forgot comes back defaulted).
  template <class T>
  void expect_round_trip(const T& value) {
    static_assert(std::equality_comparable<T>, "compare field by field: give the type an operator==");
    EXPECT_TRUE(round_trip(system, value) == value);
  }
};

pipeline::candidate sample_candidate() {
  pipeline::candidate c;
  c.kind = vocabulary::branch_kind::branch;
  c.point = {{"TILE", 32}, {"PAD", 1}};
  c.source = "extern \"C\" __global__ void k() {}";
  c.source_name = "mine.cu";
  c.methods = {"tiling_smem", "bank_conflict"};
  c.note = "neighbour of the best";
  pipeline::candidate without;
  without.kind = vocabulary::branch_kind::ablation;
  without.point = {{"TILE", 32}, {"PAD", 0}};
  without.methods = {"bank_conflict"};
  c.ablations = {without};
  return c;
}

gpu::race_request sample_race() {
  gpu::race_request r;
  r.kernels = {{"jobs/t/iter-1/branch-0/kernel-sm_90.cubin", "transpose", {{256, 256, 1}, {32, 8, 1}, 0}},
               {"jobs/t/iter-1/branch-1/kernel-sm_90.cubin", "transpose", {{512, 256, 1}, {16, 16, 1}, 1024}}};
  r.reference = gpu::kernel_launch{"jobs/t/reference-sm_90.cubin", "transpose_reference", {{512, 512, 1}, {16, 16, 1}, 0}};
  gpu::candidate_buffer_arg in{"in", config::dtype::f32, 1 << 20, config::arg_role::input, {}, {}};
  in.init.kind = config::init_kind::normal;
  gpu::candidate_buffer_arg out{"out", config::dtype::f16, 1 << 20, config::arg_role::output, {}, {1e-3, 1e-5}};
  r.args = {in, out, gpu::candidate_scalar_arg{"rows", config::dtype::i32, std::int64_t{8192}},
            gpu::candidate_scalar_arg{"alpha", config::dtype::f32, 0.5}};
  r.seeds = {7, 8};
  r.mode = vocabulary::timing_mode::cold;
  r.fresh = true; // the physical-limit gate's cold re-verification travels to the runner
  return r;
}

TEST_F(MessagesSerialization, TheProposersNounsRoundTrip) {
  expect_round_trip(sample_candidate());
  pipeline::diagnosis_summary d;
  d.of = {"c", "j", 1, 0};
  d.gpu = 1;
  d.diagnosed = true;
  d.gap_memory = 0.4;
  d.near_peak = false;
  d.widest = diagnosis::widest_gap::memory;
  d.budget_memory = 2;
  d.service = gpu::worker_service::out_of_service;
  d.why_out_of_service = "gpu.1 is out of service: its runner gave up";
  d.findings = {{"uncoalesced", diagnosis::severity::critical, "sectors/request 16", "tile in smem"}};
  d.methods = {{"memory.tiling_smem", 1, "Shared-memory tiling"}};
  d.gaps_json = R"({"memory":0.4})";
  pipeline::attempt a{1, vocabulary::branch_kind::branch, {{"TILE", 16}}, {"tiling_smem"},
                      vocabulary::branch_outcome::passed, 1.5e-3, "REJECTED: slower", 2,
                      tuning::branch_verdict::rejected};
  pipeline::propose_request request{"transpose", "p.toml", 2, 4, sample_candidate(), 1e-3, d, {a}};
  expect_round_trip(request);
  request.best_s.reset();
  request.diagnosis.reset();
  expect_round_trip(request);
  expect_round_trip(pipeline::proposal{{sample_candidate(), sample_candidate()}, "4 of 4"});
}

TEST_F(MessagesSerialization, BuildOrdersAndTheirAnswersRoundTrip) {
  pipeline::compile_order order;
  order.ref = {"c", "transpose", 2, 3};
  order.request.source = "code";
  order.request.defines = {{"TILE", "32"}};
  order.request.extra_flags = {"-use_fast_math"};
  order.output_dir = "runs/x/jobs/transpose/iter-2/branch-3";
  order.file_stem = "kernel-sm_90";
  order.code = {gpu::ptx_float_type::f32, false};
  expect_round_trip(order);
  expect_round_trip(pipeline::built_kernel{order.ref, vocabulary::branch_outcome::compile_error, "sm_90", "",
                                           "kernel.cu(3): error", 0.05, false});
  expect_round_trip(pipeline::built_kernel{order.ref, vocabulary::branch_outcome::passed, "sm_90", "k.cubin", "",
                                           0.05, false, "lower precision: PTX line 40: cvt.rn.f16.f32 ...",
                                           "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii"});
  expect_round_trip(pipeline::sass_order{order.ref, "a.cubin", {"tiling_smem"}, "a.sass",
                                         "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii"});
  expect_round_trip(pipeline::sass_verdict{order.ref,
                                           {{"tiling_smem", sass::method_presence::present, "", "k +0x0130: LDS", 3}},
                                           {},
                                           "a.sass"});
}

TEST_F(MessagesSerialization, RacesAndTheirResultsRoundTripWithEveryOptionalAndVariant) {
  race_order order{{"c", "transpose", 2, -1}, sample_race(), 30};
  expect_round_trip(order);
  auto none = order;
  none.request.reference.reset();
  expect_round_trip(none);

  gpu::kernel_result failed;
  failed.outcome = vocabulary::branch_outcome::incorrect;
  failed.detail = "output 'out': 3 of 1048576 outside tolerance";
  failed.seed = 8;
  failed.arg = "out";
  failed.compare = gpu::compare_report{};
  failed.compare->first_bad_index = 17;
  failed.input = gpu::input_check{false, 4};
  gpu::kernel_result passed;
  passed.outcome = vocabulary::branch_outcome::passed;
  passed.stats.count = 40;
  passed.stats.median_s = 1e-3;
  passed.stats.median_ci = {0.99e-3, 1.01e-3, 0.95};
  passed.rounds = 4;
  passed.kernel_s = 0.045;
  race_reply reply;
  reply.device.ordinal = 1;
  reply.device.name = "NVIDIA H100 80GB HBM3";
  reply.device.notes = {"ECC on"};
  reply.result.kernels = {passed, failed};
  reply.result.ended_by = 1;
  reply.result.inputs_s = 0.12;
  reply.wall_s = 0.4;
  expect_round_trip(reply);

  gpu::metric_set metrics{gpu::metric_source::ncu, {{"dram_throughput", 0.915}}, "ncu fallback"};
  expect_round_trip(metrics);
  gpu::metric_set given_back;
  given_back.note = given_back.why_out_of_service = "host node7:4242 is lost"; // a remote host's answer
  given_back.service = gpu::worker_service::out_of_service;
  expect_round_trip(given_back);
  expect_round_trip(profile_order{{"c", "j", 1, 0}, reply.device, sample_race(), "metrics-gpu1.json", config::profile_tool::ncu});

  // Batches of profiles: one GPU's, and the same bound for a remote host with its kernels' builds.
  metrics_batch_order batch{{metrics_order{{"c", "j", 1, 0}, sample_race(), {"dram_throughput"}, config::profile_tool::cupti},
                             metrics_order{{"c", "k", 2, 1}, sample_race(), {}, config::profile_tool::cupti}}};
  expect_round_trip(batch);
  expect_round_trip(metrics_batch_reply{{metrics, given_back}});
  expect_round_trip(profile_batch_order{{profile_order{{"c", "j", 1, 0}, reply.device, sample_race(), "m.json",
                                                       config::profile_tool::cupti}}});
  pipeline::diagnosis_summary summary;
  summary.note = "not diagnosed: CUPTI: counters_unavailable";
  expect_round_trip(profile_batch_reply{{summary, summary}});
  pipeline::kernel_build build;
  build.cubin_sha256 = std::string(64, 'a');
  build.request.source = "extern \"C\" __global__ void k() {}";
  build.request.entry = "k";
  expect_round_trip(remote_profile_batch{batch, 1, {build}});
}

TEST_F(MessagesSerialization, CampaignAndStoreMessagesRoundTrip) {
  campaign_plan plan;
  plan.name = "nightly";
  plan.spec_toml = "name = \"nightly\"";
  plan.mode = pipeline::campaign_mode::bench;
  plan.candidate_paths = {"a.cu"};
  plan.gpus = {gpu::device_info{}};
  plan.job_ids = {3, 4};
  plan.resume = true;
  expect_round_trip(plan);
  expect_round_trip(pipeline::campaign_result{"nightly", pipeline::campaign_result_kind::interrupted, "SIGINT",
                                              12.5, 0.7, 0.9, 0.3, 40, 44,
                                              {pipeline::gpu_usage{1, 2.5, 8.0, 0.3, 12, 2}}});
  expect_round_trip(supervision_report{{{"store", component_state::degraded, "busy", {{"rows", 7}}}}, 3, true, "x"});
  expect_round_trip(supervision_failed{"feed", 6, "runtime_error"});
  expect_round_trip(storage::campaign_record{"nightly", "c.toml", "toml", "runs/x"});
  expect_round_trip(storage::branch_record{{7, 2, 3}, vocabulary::branch_kind::ablation, 1, "[\"x\"]", "{}", "a.cu"});
  expect_round_trip(storage::iteration_update{7, 2, vocabulary::iteration_state::finished, 1, true, "{}"});
  expect_round_trip(storage::branch_outcome_change{{7, 2, 3}, vocabulary::branch_outcome::timeout, "hung"});
  storage::measurement_record m;
  m.key = {7, 2, 3};
  m.gpu = 1;
  m.median_s = 1e-3;
  m.mode = vocabulary::timing_mode::cold;
  expect_round_trip(m);
}

TEST_F(MessagesSerialization, FeedEventsRoundTripWithTheirDetail) {
  feed::event e;
  e.seq = 42;
  e.ts = 1.7e9;
  e.type = feed::event_type::actor_restarted;
  e.campaign = "nightly";
  e.job = "transpose";
  e.iter = 2;
  e.branch = 1;
  e.gpu = 3;
  e.detail_json = R"({"actor":"feed","attempt":2})";
  EXPECT_EQ(round_trip(system, e), e);
}

TEST_F(MessagesSerialization, AChatAnswerComesBackAsTheReplyOrAsTheErrorItCarried) {
  llm::chat_reply reply;
  reply.text = "__global__ void k() {}";
  reply.stop = llm::stop_reason::max_tokens;
  reply.usage = {100, 20, 30, 4};
  reply.cost_usd = 0.25;
  reply.attempts = 3;
  reply.model = "m-1";
  reply.notes = {"no token usage reported"};
  const auto replied = round_trip(system, chat_answer{reply});
  ASSERT_TRUE(std::holds_alternative<llm::chat_reply>(replied.outcome));
  const auto& back = std::get<llm::chat_reply>(replied.outcome);
  EXPECT_EQ(back.text, reply.text);
  EXPECT_EQ(back.stop, llm::stop_reason::max_tokens);
  EXPECT_EQ(back.usage, reply.usage);
  EXPECT_EQ(back.attempts, 3u);
  EXPECT_EQ(back.notes, reply.notes);

  const auto failed =
    round_trip(system, chat_answer{llm::chat_error{llm::chat_error_kind::rate_limited, "429 after 5 tries", 429u, 5}});
  ASSERT_TRUE(std::holds_alternative<llm::chat_error>(failed.outcome));
  const auto& error = std::get<llm::chat_error>(failed.outcome);
  EXPECT_EQ(error.kind, llm::chat_error_kind::rate_limited);
  EXPECT_EQ(error.message, "429 after 5 tries");
  EXPECT_EQ(error.http_status, 429u);
  EXPECT_EQ(error.attempts, 5u);

  const auto done = round_trip(system, chat_done{llm::chat_error_kind::budget_exhausted, 0, 0});
  EXPECT_EQ(done.failure, llm::chat_error_kind::budget_exhausted);
  const auto replied_done = round_trip(system, chat_done{std::nullopt, 154, 0.25});
  EXPECT_EQ(replied_done.failure, std::nullopt);
  EXPECT_EQ(replied_done.tokens, 154);
}

TEST_F(MessagesSerialization, ADeployAnswerCarriesItsOutcomeOrNoneWhenTheDeployCouldNotStart) {
  expect_round_trip(deploy_answer{deploy::deploy_outcome::rolled_back, "slower", "/w", true, 2.0, 0.1, true, 2.5, 0.2,
                                  "kernel_ms"});
  expect_round_trip(deploy_answer{std::nullopt, "no job 'x'", "", false, 0, 0, false, 0, 0, ""});
  EXPECT_EQ(round_trip(system, deploy_done{deploy::deploy_outcome::nothing_to_recover}).outcome,
            deploy::deploy_outcome::nothing_to_recover);
  EXPECT_EQ(round_trip(system, deploy_done{}).outcome, std::nullopt);
}

TEST_F(MessagesSerialization, AProposalsFailureComesBackAndNoFailureStaysNone) {
  pipeline::proposal failed;
  failed.failure = "cannot load the problem p.toml";
  expect_round_trip(failed);
  pipeline::proposal proposed;
  proposed.candidates = {sample_candidate()};
  EXPECT_EQ(round_trip(system, proposed).failure, std::nullopt);
}

TEST_F(MessagesSerialization, EveryComponentStateHasAName) {
  for (auto state : all_component_states) {
    auto back = component_state_from_string(to_string(state));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, state);
  }
  EXPECT_FALSE(component_state_from_string("sleepy").has_value());
}

} // namespace
} // namespace warpforge::messages
