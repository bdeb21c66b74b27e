// Every message must survive CAF's binary serialisation, which is what the middleman uses when a
// gpu_worker lives on another host. A field missing from an inspect shows up here as a mismatch.

#include "messages/type_ids.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include <gtest/gtest.h>

namespace warpforge::messages {
namespace {

template <class T>
T round_trip(caf::actor_system& system, T value) {
  std::vector<char> buffer;
  caf::binary_serializer sink{system, buffer};
  if (auto err = sink(value))
    ADD_FAILURE() << "serialising failed: " << system.render(err);
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
};

candidate sample_candidate() {
  candidate c;
  c.ref = {"nightly", "transpose", 2, 3};
  c.kind = candidate_kind::ablation;
  c.problem_path = "examples/transpose/problem.toml";
  c.source = "extern \"C\" __global__ void k() {}";
  c.entry = "k";
  c.defines = {{"TILE", "32"}, {"PAD", "1"}};
  c.methods = {"smem_tiling", "smem_padding"};
  c.ablated_method = "smem_padding";
  c.rationale = "leave-one-out";
  return c;
}

checked_candidate sample_checked() {
  checked_candidate checked;
  checked.compiled.source = sample_candidate();
  checked.compiled.outcome = branch_outcome::passed;
  checked.compiled.arch = "sm_90a";
  checked.compiled.cache_key = "abc123";
  checked.compiled.cubin_path = "cache/abc123.cubin";
  checked.compiled.log = "line 3: warning";
  checked.compiled.resources = {40, 8, 4096, 1024};
  checked.compiled.compile_s = 0.25;
  checked.outcome = branch_outcome::sass_rejected;
  checked.checks = {{"smem_tiling", method_presence::present, {"LDS.128 R4, [R2]"}},
                    {"smem_padding", method_presence::absent, {}}};
  checked.sass_path = "jobs/transpose/iter-2/branch-3/kernel.sass";
  return checked;
}

TEST_F(MessagesSerialization, PipelineNounsRoundTripFieldForField) {
  auto c = sample_candidate();
  EXPECT_EQ(round_trip(system, c), c);
  auto checked = sample_checked();
  EXPECT_EQ(round_trip(system, checked), checked);

  measurement m;
  m.ref = {"nightly", "transpose", 2, 3};
  m.outcome = branch_outcome::timeout;
  m.device = {0, "NVIDIA H100 80GB HBM3", "sm_90", 85'000'000'000ULL, 132, 52'428'800};
  m.correctness = {1e-6, 2e-5, 17, 2, false};
  m.timing = {1e-3, 1.01e-3, 5e-6, 0.005, 0.99e-3, 1.02e-3, 0.98e-3, 200, 1755};
  m.mode = timing_mode::cold;
  m.error_text = "watchdog: 2.0 s";
  EXPECT_EQ(round_trip(system, m), m);

  m.wall_s = 3.25;
  EXPECT_EQ(round_trip(system, m), m);
  run_request run{{"nightly", "transpose", 2, 3}, candidate_kind::ablation,
                  R"({"candidate":{"cubin":"a.cubin"}})", 2.5};
  EXPECT_EQ(round_trip(system, run), run);

  metric_set metrics{{"c", "j", 1, 0}, m.device, metric_source::ncu,
                     {{"dram__throughput.pct", 91.5}}, "ncu fallback"};
  EXPECT_EQ(round_trip(system, metrics), metrics);

  diagnosis d{{"c", "j", 1, 0}, {0.1, 0.6, 0.3}, false,
              {{"uncoalesced", finding_severity::critical, "sectors/request 16", "tile in smem"}},
              {"smem_tiling"}, 2};
  EXPECT_EQ(round_trip(system, d), d);

  propose_request request{{"c", "j", 2, -1}, "p.toml", c, d,
                          {{{"c", "j", 1, 0}, {{"TILE", "16"}}, {"smem_tiling"},
                            branch_outcome::incorrect, 0, "FAILED: max rel error 0.3"}}, 4};
  EXPECT_EQ(round_trip(system, request), request);
  proposal p{{c, c}, {c}, "space exhausted"};
  EXPECT_EQ(round_trip(system, p), p);
}

TEST_F(MessagesSerialization, ControlMessagesRoundTrip) {
  campaign_plan plan{"nightly", "c.toml", "name = \"nightly\"", "runs/nightly-1", true};
  EXPECT_EQ(round_trip(system, plan), plan);
  campaign_result result{"nightly", campaign_result_kind::interrupted, "SIGINT"};
  EXPECT_EQ(round_trip(system, result), result);
  llm_request llm{"anthropic", "claude", "sys", "prompt", 4096};
  EXPECT_EQ(round_trip(system, llm), llm);
  llm_reply reply{"```cuda\n```", 10, 20, 1.5};
  EXPECT_EQ(round_trip(system, reply), reply);
  deploy_request deploy{{"c", "j", 3, 1}, "a.cu", "b.cu", "make", "make test"};
  EXPECT_EQ(round_trip(system, deploy), deploy);
  deploy_result deployed{deploy_outcome::rolled_back, "b.cu.bak", "tests failed"};
  EXPECT_EQ(round_trip(system, deployed), deployed);
  supervision_report report{{{"store", component_state::degraded, "busy", {{"rows", 7}}}}, 3, true,
                            "feed crashed"};
  EXPECT_EQ(round_trip(system, report), report);
  supervision_failed failed{"feed", 6, "runtime_error"};
  EXPECT_EQ(round_trip(system, failed), failed);
  campaign_record campaign{"nightly", "c.toml", "toml", "runs/x"};
  EXPECT_EQ(round_trip(system, campaign), campaign);
  job_record job{7, "transpose", "p.toml"};
  EXPECT_EQ(round_trip(system, job), job);
  campaign_state_change cs{7, vocabulary::campaign_state::failed, "gave up"};
  EXPECT_EQ(round_trip(system, cs), cs);
  job_state_change js{9, vocabulary::job_state::interrupted, "SIGINT"};
  EXPECT_EQ(round_trip(system, js), js);
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
