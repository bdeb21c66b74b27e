// `warpforge calibrate`'s notes commands through the real binary: --defer, --retry, --annotate,
// --backlog edit the notes file and --progress reads it (with a run directory's results.json);
// none measures anything, so no GPU or nvcc is involved.

#include "campaign_fixture.hpp"

#include <simdjson.h>

#include <fstream>
#include <regex>

namespace warpforge::testing {
namespace {

class CliCalibrateNotes : public campaign_fixture {
protected:
  struct outcome {
    int code = -1;
    std::string out, err;
  };

  // `warpforge calibrate <args> --notes <dir>/notes.json`, its exit code and output.
  outcome calibrate(std::vector<std::string> args) {
    const std::string name = "call-" + std::to_string(++calls_);
    args.insert(args.begin(), "calibrate");
    args.insert(args.end(), {"--notes", notes_path().string()});
    const int code = wait_exit(spawn(WARPFORGE_BIN, args, {}, name + ".out", name + ".err"));
    return {code, text_of(name + ".out"), text_of(name + ".err")};
  }

  std::filesystem::path notes_path() const { return dir / "notes.json"; }

  // The --progress line of `parameter`: its state and detail.
  static std::string row(const std::string& progress_text, const std::string& parameter) {
    std::smatch found;
    const std::regex line{"(^|\n)" + parameter + " +[0-9] +([^\n]*)"};
    return std::regex_search(progress_text, found, line) ? found[2].str() : "(no row for " + parameter + ")";
  }

  // How many parameter rows --progress printed (the catalog's, at the default priorities), so
  // the summary line is checked against the table above it, not against a catalog size.
  static std::size_t rows_of(const std::string& progress_text) {
    const std::regex line{"(^|\n)[a-z0-9_]+ +[0-9] +"};
    return static_cast<std::size_t>(std::distance(
      std::sregex_iterator(progress_text.begin(), progress_text.end(), line), std::sregex_iterator()));
  }

  // A results.json with one result per (name, status) in the engine's schema.
  std::filesystem::path write_results(const std::vector<std::pair<std::string, std::string>>& results) {
    const auto run = dir / "run";
    std::filesystem::create_directories(run);
    std::ofstream out{run / "results.json"};
    out << R"({"schema":"warpforge.calibrate.results/1","parameters":[)";
    for (std::size_t i = 0; i < results.size(); ++i)
      out << (i ? "," : "") << R"({"name":")" << results[i].first << R"(","unit":"cycles","status":")"
          << results[i].second << R"(","value":4.0,"stats":{"n":10,"discarded":0,"invalid":0,"median":4,)"
          << R"("mean":4,"stddev":0.1,"cv":0.02,"ci95_low":3.9,"ci95_high":4.1,"ci_level":0.95,"max_clock_mhz":1980},)"
          << R"("known":null,"delta":null,"sass_verdict":"PASS","counter_verdict":"","arch":"sm_90a",)"
          << R"("gpu_name":"test","notes":["cv 2%"],"curve":[],"benchmark_file":"","measured_at":""})";
    out << "]}";
    return run;
  }

private:
  int calls_ = 0;
};

TEST_F(CliCalibrateNotes, ADeferredParameterShowsInProgressWithItsReasonAndSetsAsideItsDependents) {
  const auto deferred = calibrate({"--defer", "l2_size", "--reason", "knee blurred by the partitions",
                                   "--next-idea", "one SM per partition"});
  ASSERT_EQ(deferred.code, 0) << deferred.err;
  EXPECT_NE(deferred.out.find("deferred l2_size"), std::string::npos) << deferred.out;

  const auto progress = calibrate({"--progress"});
  ASSERT_EQ(progress.code, 0) << progress.err;
  EXPECT_EQ(row(progress.out, "l2_size"),
            "deferred  deferred: knee blurred by the partitions; next idea: one SM per partition");
  EXPECT_NE(row(progress.out, "dram_latency").find("deferred  depends on l2_size"), std::string::npos);
  EXPECT_EQ(row(progress.out, "fp32_fma_latency").rfind("pending", 0), 0u);
  const auto rows = rows_of(progress.out);
  ASSERT_GT(rows, 3u) << progress.out;
  EXPECT_NE(progress.out.find("0/" + std::to_string(rows) + " passed, 0 failed, 3 deferred, " +
                              std::to_string(rows - 3) + " pending"),
            std::string::npos)
    << progress.out;
}

TEST_F(CliCalibrateNotes, RetryLiftsADeferral) {
  ASSERT_EQ(calibrate({"--defer", "l2_size", "--reason", "blurred"}).code, 0);
  const auto retry = calibrate({"--retry", "l2_size"});
  ASSERT_EQ(retry.code, 0) << retry.err;
  EXPECT_NE(retry.out.find("its deferral ended"), std::string::npos) << retry.out;

  const auto progress = calibrate({"--progress"});
  ASSERT_EQ(progress.code, 0) << progress.err;
  EXPECT_EQ(row(progress.out, "l2_size"), "pending   retry requested");
  EXPECT_EQ(row(progress.out, "dram_latency").rfind("pending", 0), 0u);
  EXPECT_NE(progress.out.find("0 deferred, " + std::to_string(rows_of(progress.out)) + " pending"),
            std::string::npos)
    << progress.out;
}

TEST_F(CliCalibrateNotes, AnnotationsAndBacklogIdeasAreKeptInTheNotesFile) {
  ASSERT_EQ(calibrate({"--annotate", "smem_banks", "--note", "32 banks on every run"}).code, 0);
  ASSERT_EQ(calibrate({"--backlog", "smem_banks", "--idea", "probe 64-bit mode"}).code, 0);
  const auto second = calibrate({"--backlog", "smem_banks", "--idea", "stride sweep"});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find("(2 idea(s))"), std::string::npos) << second.out;

  simdjson::dom::parser parser;
  simdjson::dom::element notes;
  ASSERT_EQ(parser.load(notes_path().string()).get(notes), simdjson::SUCCESS);
  auto entry = notes["parameters"]["smem_banks"];
  std::string_view text, first_idea, second_idea;
  ASSERT_EQ(entry["annotations"].at(0)["text"].get(text), simdjson::SUCCESS);
  EXPECT_EQ(text, "32 banks on every run");
  ASSERT_EQ(entry["backlog"].at(0).get(first_idea), simdjson::SUCCESS);
  ASSERT_EQ(entry["backlog"].at(1).get(second_idea), simdjson::SUCCESS);
  EXPECT_EQ(first_idea, "probe 64-bit mode");
  EXPECT_EQ(second_idea, "stride sweep");
  bool retry = true;
  ASSERT_EQ(entry["retry"].get(retry), simdjson::SUCCESS);
  EXPECT_FALSE(retry); // an annotation changes nothing else
}

TEST_F(CliCalibrateNotes, AnUnknownParameterIsRefusedWithASuggestionAndNothingIsWritten) {
  for (const auto& option : {"--retry", "--defer"}) {
    std::vector<std::string> args{option, "l2_sise"};
    if (std::string{option} == "--defer")
      args.insert(args.end(), {"--reason", "x"});
    const auto refused = calibrate(args);
    EXPECT_EQ(refused.code, 2) << option;
    EXPECT_NE(refused.err.find("unknown parameter 'l2_sise' (did you mean 'l2_size'?)"), std::string::npos)
      << refused.err;
  }
  EXPECT_FALSE(std::filesystem::exists(notes_path()));
}

TEST_F(CliCalibrateNotes, ProgressOfARunDirectoryCountsItsPassedAndFailedResults) {
  const auto run = write_results({{"fp32_fma_latency", "PASS"}, {"fp64_fma_latency", "HIGH_VARIANCE"}});
  const auto progress = calibrate({"--progress", "--max-priority", "1", "--resume", run.string()});
  ASSERT_EQ(progress.code, 0) << progress.err;
  EXPECT_EQ(row(progress.out, "fp32_fma_latency").rfind("passed    PASS 4 cycles", 0), 0u) << progress.out;
  EXPECT_EQ(row(progress.out, "fp64_fma_latency").rfind("failed    HIGH_VARIANCE", 0), 0u) << progress.out;
  EXPECT_NE(row(progress.out, "fp64_fma_throughput").find("depends on fp64_fma_latency"), std::string::npos);
  EXPECT_NE(progress.out.find("1/14 passed, 1 failed, 1 deferred, 11 pending"), std::string::npos) << progress.out;

  ASSERT_EQ(calibrate({"--retry", "fp64_fma_latency"}).code, 0); // a retry brings a failed one back
  const auto after = calibrate({"--progress", "--max-priority", "1", "--resume", run.string()});
  EXPECT_EQ(row(after.out, "fp64_fma_latency"), "pending   retry requested");
  EXPECT_NE(after.out.find("1/14 passed, 0 failed, 0 deferred, 13 pending"), std::string::npos) << after.out;
}

} // namespace
} // namespace warpforge::testing
