// The report for programs: the CSV with one column per tunable and per claimed method, and the
// Kernel Tuner cache file (schema 1.0.0), from a real run directory filled the way the tuner
// fills it (tunables in defines_json, a failed configuration, an ablation).

#include "report/campaign_report.hpp"
#include "report/kerneltuner_cache.hpp"
#include "report/tunable_values.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>
#include <unistd.h>

namespace warpforge::report {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

class Exports : public ::testing::Test {
protected:
  fs::path root;
  fs::path run;

  void SetUp() override {
    root = fs::temp_directory_path() / ("wf-report-exports-" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto dir = storage::run_directory::create(root, "tuned", std::chrono::system_clock::now());
    ASSERT_TRUE(dir);
    run = dir->path();
    auto db = storage::database::open(dir->database_path());
    ASSERT_TRUE(db);
    storage::campaign_row c;
    c.name = "tuned";
    c.run_dir = run.string();
    storage::job_row j;
    j.campaign_id = *db->insert_campaign(c);
    j.name = "transpose";
    j.id = *db->insert_job(j);
    storage::iteration_row it;
    it.job_id = j.id;
    it.number = 1;
    const auto iteration = *db->insert_iteration(it);
    auto branch = [&](std::int64_t ordinal, vocabulary::branch_kind kind, std::string defines, std::string methods,
                      std::optional<double> time, vocabulary::branch_outcome outcome) {
      storage::branch_row b;
      b.iteration_id = iteration;
      b.ordinal = ordinal;
      b.kind = kind;
      b.defines_json = std::move(defines);
      b.methods_json = std::move(methods);
      const auto id = *db->insert_branch(b);
      EXPECT_TRUE(db->set_branch_outcome(id, outcome, "", 1.0));
      if (time) {
        storage::measurement_row m;
        m.branch_id = id;
        m.gpu_name = "NVIDIA H100 80GB HBM3";
        m.median_s = *time;
        m.samples = 10;
        EXPECT_TRUE(db->insert_measurement(m));
      }
    };
    using enum vocabulary::branch_outcome;
    branch(0, vocabulary::branch_kind::branch, R"({"BLOCK":16,"LAYOUT":"row"})", "[]", 2e-3, passed);
    branch(1, vocabulary::branch_kind::branch, R"({"BLOCK":32,"LAYOUT":"row"})", R"(["smem_tiling"])", 1e-3, passed);
    branch(2, vocabulary::branch_kind::branch, R"({"BLOCK":64})", R"(["smem_tiling","padding"])", std::nullopt,
           compile_error);
    branch(3, vocabulary::branch_kind::ablation, R"({"BLOCK":32,"LAYOUT":"row"})", "[]", 1.5e-3, passed);
    branch(4, vocabulary::branch_kind::branch, R"({"BLOCK":128})", "[]", std::nullopt, not_run);
  }
  void TearDown() override { fs::remove_all(root); }
};

TEST(TunableValues, ANumberKeepsItsJsonTextAndAStringItsContent) {
  const auto values = tunable_values(R"({"BLOCK":16,"SCALE":0.5,"LAYOUT":"row","UNROLL":true})");
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0].name, "BLOCK");
  EXPECT_EQ(values[0].text, "16");
  EXPECT_TRUE(values[0].is_number);
  EXPECT_EQ(values[1].text, "0.5");
  EXPECT_EQ(values[2].text, "row");
  EXPECT_FALSE(values[2].is_number);
  EXPECT_EQ(values[3].text, "true");
  EXPECT_TRUE(tunable_values("not json").empty());
  EXPECT_TRUE(tunable_values("[1,2]").empty()) << "only an object has tunables";
}

TEST_F(Exports, TheCsvHasOneColumnPerTunableAndPerClaimedMethodAfterTheFixedOnes) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  const auto lines = lines_of(render_csv(*report));
  ASSERT_EQ(lines.size(), 6u) << render_csv(*report);
  EXPECT_EQ(lines[0], "job,iteration,branch,kind,outcome,methods,defines,gpu,gpu_name,mode,median_s,cv,ci95_low_s,"
                      "ci95_high_s,samples,not_measured_reason,\"tunable:BLOCK\",\"tunable:LAYOUT\","
                      "\"method:padding\",\"method:smem_tiling\"");
  // branch 1: measured, BLOCK 32 (a number, unquoted), LAYOUT "row", smem_tiling claimed.
  EXPECT_EQ(lines[2].substr(lines[2].size() - std::string{",32,\"row\",0,1"}.size()), ",32,\"row\",0,1") << lines[2];
  // branch 2: not measured (empty figures, a reason), no LAYOUT, both methods claimed.
  EXPECT_EQ(lines[3].substr(lines[3].size() - std::string{",64,,1,1"}.size()), ",64,,1,1") << lines[3];
}

TEST_F(Exports, TheKernelTunerCacheHasTheSchemaMembersAndOneEntryPerConfiguration) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  const auto text = render_kerneltuner_cache(report->jobs.at(0));
  simdjson::dom::parser parser;
  simdjson::dom::object cache;
  ASSERT_EQ(parser.parse(simdjson::padded_string{text}).get(cache), simdjson::SUCCESS) << text;
  for (const char* key : {"schema_version", "device_name", "kernel_name", "problem_size", "tune_params_keys",
                          "tune_params", "objective", "cache"})
    EXPECT_EQ(cache.at_key(key).error(), simdjson::SUCCESS) << "missing " << key << ": " << text;
  EXPECT_EQ(std::string_view{cache["schema_version"].get_string().value()}, "1.0.0");
  EXPECT_EQ(std::string_view{cache["device_name"].get_string().value()}, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(std::string_view{cache["kernel_name"].get_string().value()}, "transpose");
  EXPECT_EQ(std::string_view{cache["objective"].get_string().value()}, "time");
  EXPECT_EQ(simdjson::minify(cache["tune_params_keys"]), R"(["BLOCK","LAYOUT"])");
  EXPECT_EQ(simdjson::minify(cache["tune_params"]), R"({"BLOCK":[16,32,64],"LAYOUT":["row"]})");

  simdjson::dom::object entries = cache["cache"].get_object();
  EXPECT_EQ(entries.size(), 3u) << "no ablation, no branch that never ran: " << text;
  // Times in milliseconds; the ablation with the same tunables (1.5 ms) is not the configuration.
  simdjson::dom::object fast = entries["32,row"].get_object();
  EXPECT_DOUBLE_EQ(fast["time"].get_double().value(), 1.0);
  simdjson::dom::array times = fast["times"].get_array();
  ASSERT_EQ(times.size(), 1u) << "one median per GPU";
  EXPECT_DOUBLE_EQ(times.at(0).get_double().value(), 1.0);
  EXPECT_EQ(fast["BLOCK"].get_int64().value(), 32);
  EXPECT_EQ(std::string_view{fast["LAYOUT"].get_string().value()}, "row");
  for (const char* key : {"compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time"})
    EXPECT_TRUE(fast[key].is_number()) << key;
  EXPECT_DOUBLE_EQ(fast["benchmark_time"].get_double().value(), 10.0) << "10 samples of 1 ms";
  EXPECT_EQ(std::string_view{fast["timestamp"].get_string().value()}.size(), std::string_view{"2026-01-01T00:00:00Z"}.size());
  EXPECT_DOUBLE_EQ(entries["16,row"]["time"].get_double().value(), 2.0);
  EXPECT_EQ(std::string_view{entries["64,"]["time"].get_string().value()}, "CompilationFailedConfig");
}

} // namespace
} // namespace warpforge::report
