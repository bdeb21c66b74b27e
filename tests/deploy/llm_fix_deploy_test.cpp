// A deploy whose champion does not build in the project, repaired by the deploy build-fix
// (pipeline/llm/deploy_fix.hpp) end to end: run_deploy on a stand-in project, the fixer's client
// talking to a loopback server in the OpenAI-compatible wire format. The server's replies are
// scripted test fixtures written by hand, not a model's answers.

#include "stand_in_project.hpp"

#include "pipeline/llm/deploy_fix.hpp"
#include "pipeline/llm/model.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"
#include "tests/llm/chat/scripted_provider.hpp"
#include "tests/llm/support/variant_envelope.hpp"

#include <algorithm>

namespace warpforge::deploy {
namespace {

using llm::testing::connection;
using llm::testing::in_order;
using llm::testing::loopback_server;

// The champion's kernel region for the examples' transpose problem; `speed` is what the stand-in
// project's build and benchmark grep for (BROKEN fails the build, FAST times 1 ms).
std::string kernel_region(const std::string& speed) {
  return "// SPEED " + speed + "\n"
         "extern \"C\" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {\n"
         "  const int c = blockIdx.x * TILE + threadIdx.x;\n"
         "  const int r = blockIdx.y * TILE + threadIdx.y;\n"
         "  if (r < rows && c < cols)\n"
         "    out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];\n"
         "}\n";
}

std::string envelope_with(const std::string& code) {
  return llm::testing::one_variant_envelope(code, "the build stops at BROKEN_BUILD; removed");
}

using llm_fix_deploy_test = testing::stand_in_project;

TEST_F(llm_fix_deploy_test, a_champion_that_does_not_build_is_repaired_by_the_model_and_accepted_on_the_second_build) {
  const std::string corrected = "#ifndef TILE\n#define TILE 32\n#endif\n" + kernel_region("FAST");
  loopback_server server{in_order({[&](connection& c) { llm::scripted::openai_reply(c, envelope_with(corrected)); }})};
  auto r = request(chosen(""));
  r.chosen.source = "// warpforge:begin k\n" + kernel_region("FAST BROKEN_BUILD") + "// warpforge:end k\n";

  pipeline::deploy_fix_setup setup;
  setup.llm.provider = config::llm_provider::openai;
  setup.llm.model = "test-model";
  setup.llm.base_url = server.base_url() + "/v1";
  setup.llm.max_attempts = 1;
  setup.model = *pipeline::model_for(setup.llm);
  setup.run_dir = run_dir;
  setup.job = "transpose";
  setup.problem_path = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";
  setup.build_command = r.target.build;
  setup.target_file = "src/kernel.cuh";
  setup.region = "k";
  setup.transcripts = pipeline::deploy_fix_folder(run_dir, "transpose", "1");
  auto fixer = pipeline::make_deploy_fixer(setup);
  ASSERT_TRUE(fixer) << fixer.error();
  r.fix_build = fixer->fix;

  collecting_sink sink;
  auto report = run_deploy(r, sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  EXPECT_EQ(kernel_text(), "// the project's kernel header\n// warpforge:begin k\n" + corrected +
                             "// warpforge:end k\n// launch helper below the region\n");
  const auto build = std::find_if(report.steps.rbegin(), report.steps.rend(),
                                  [](const auto& s) { return s.step == deploy_step::build; });
  ASSERT_NE(build, report.steps.rend());
  EXPECT_EQ(build->status, step_status::passed);
  EXPECT_EQ(build->attempt, 2) << "the second build, of the model's correction";
  EXPECT_TRUE(std::any_of(report.steps.begin(), report.steps.end(), [](const auto& s) {
    return s.step == deploy_step::fix_build && s.status == step_status::passed;
  }));
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_NE(server.requests()[0].body.find("BROKEN is not a type"), std::string::npos) << "the build's own log";
  ASSERT_EQ(fixer->log->calls.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(run_dir / fixer->log->calls[0].transcript));
}

TEST_F(llm_fix_deploy_test, a_model_that_brings_no_code_leaves_the_champion_rolled_back_with_the_reason_logged) {
  const auto prose = [](connection& c) { llm::scripted::openai_reply(c, "Delete BROKEN_BUILD."); };
  loopback_server server{in_order({prose, prose, prose})};
  auto r = request(chosen(""));
  r.chosen.source = "// warpforge:begin k\n" + kernel_region("FAST BROKEN_BUILD") + "// warpforge:end k\n";
  pipeline::deploy_fix_setup setup;
  setup.llm.provider = config::llm_provider::openai;
  setup.llm.model = "test-model";
  setup.llm.base_url = server.base_url() + "/v1";
  setup.llm.max_attempts = 1;
  setup.model = *pipeline::model_for(setup.llm);
  setup.run_dir = run_dir;
  setup.job = "transpose";
  setup.problem_path = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";
  setup.transcripts = pipeline::deploy_fix_folder(run_dir, "transpose", "1");
  auto fixer = pipeline::make_deploy_fixer(setup);
  ASSERT_TRUE(fixer) << fixer.error();
  r.fix_build = fixer->fix;
  collecting_sink sink;
  auto report = run_deploy(r, sink);
  EXPECT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  ASSERT_EQ(fixer->log->notes.size(), 1u);
  EXPECT_NE(fixer->log->notes[0].find("no valid reply"), std::string::npos) << fixer->log->notes[0];
  const auto events = pipeline::deploy_fix_events("transpose", *fixer->log);
  ASSERT_EQ(events.size(), 4u) << "three calls, one warning";
  EXPECT_EQ(events[0].type, feed::event_type::llm_call);
  EXPECT_EQ(events[3].type, feed::event_type::warning);
  EXPECT_NE(events[3].detail_json.find("no valid reply"), std::string::npos);
}

// A finished run whose campaign spec (as the store keeps it) is `spec_toml`, job "transpose".
std::filesystem::path run_with_spec(const std::filesystem::path& root, const std::string& spec_toml) {
  auto created = storage::run_directory::create(root / "runs", "c", std::chrono::system_clock::now());
  EXPECT_TRUE(created);
  auto db = storage::database::open(created->database_path());
  EXPECT_TRUE(db);
  const auto campaign = *db->insert_campaign({0, "c", (root / "c.toml").string(), spec_toml, created->path().string(),
                                              vocabulary::campaign_state::finished, 1, 1, 1, ""});
  EXPECT_TRUE(db->insert_job({0, campaign, "transpose", WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml",
                              vocabulary::job_state::finished, 1, 1e-3, 2e-3, 1, ""}));
  return created->path();
}

std::string campaign_spec(const std::string& tail) {
  return "name = \"c\"\n[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n" + tail;
}

TEST_F(llm_fix_deploy_test, the_deployer_gets_a_fixer_only_when_the_runs_campaign_has_an_llm_table) {
  const auto corrected = "#ifndef TILE\n#define TILE 32\n#endif\n" + kernel_region("FAST");
  loopback_server server{in_order({[&](connection& c) { llm::scripted::openai_reply(c, envelope_with(corrected)); }})};
  const auto with_llm = run_with_spec(dir / "a", campaign_spec("[proposer]\nkind = \"llm\"\n[llm]\nprovider = \"openai\"\n"
                                                               "model = \"test-model\"\napi_key_env = \"\"\nbase_url = \"" +
                                                               server.base_url() + "/v1\"\n"));
  auto fixer = pipeline::deploy_fixer_for_run({with_llm, "transpose", "sh build.sh", "src/kernel.cuh", "k",
                                               with_llm / "deploy/transpose/20261125T101010Z"});
  ASSERT_TRUE(fixer) << fixer.error();
  ASSERT_TRUE(*fixer) << "the campaign has an [llm]";
  auto fixed = (*fixer)->fix("kernel.cuh:3: error: BROKEN is not a type", "#ifndef TILE\n#define TILE 32\n#endif\n" +
                                                                            kernel_region("FAST BROKEN"));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(*fixed, corrected);
  EXPECT_TRUE(std::filesystem::exists(with_llm / "llm/transpose/deploy-fix/20261125T101010Z/01-fix_compile.json"));

  const auto tuner = run_with_spec(dir / "b", campaign_spec("[proposer]\nkind = \"tune\"\n"));
  auto none = pipeline::deploy_fixer_for_run({tuner, "transpose", "sh build.sh", "src/kernel.cuh", "k", tuner / "deploy/x/1"});
  ASSERT_TRUE(none) << none.error();
  EXPECT_FALSE(*none) << "no [llm]: a build failure rolls back";
}

} // namespace
} // namespace warpforge::deploy
