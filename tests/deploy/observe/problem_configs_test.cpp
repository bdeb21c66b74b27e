// From an observation to a problem's [[configs]]: dims from the scalars, the geometry check, the
// errors that say why no mapping exists, and the written file read back by the problem loader.

#include "deploy/observe/problem_configs.hpp"

#include "config/problem_configs.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;

const fs::path fixtures = fs::path{WARPFORGE_SOURCE_DIR} / "tests/deploy/observe/fixtures";

config::problem_spec load_fixture_problem() {
  auto spec = config::load_problem(fixtures / "transpose_problem.toml");
  if (!spec)
    throw std::runtime_error(toml_reader::to_string(spec.error()));
  return *spec;
}

// The four parameters of transpose(in, out, rows, cols) as the injection library records them.
std::vector<param_bytes> params(std::int32_t rows, std::int32_t cols) {
  std::uint64_t in = 0x7f0000a00000, out = 0x7f0000b00000;
  return {{0, 8, to_hex(&in, 8)}, {8, 8, to_hex(&out, 8)}, {16, 4, to_hex(&rows, 4)}, {20, 4, to_hex(&cols, 4)}};
}

// `launches`: the bucket's launch count, which is what a config's weight becomes.
representative_config rep(std::int32_t rows, std::int32_t cols, std::array<std::uint32_t, 3> grid, std::size_t launches,
                          duration_bucket bucket = duration_bucket::all) {
  representative_config c;
  c.kernel = "transpose";
  c.grid = grid;
  c.block = {32, 8, 1};
  c.bucket = bucket;
  c.launches = launches;
  c.weight = 0.1; // the share of time, shown by observe; not what a config is weighted by
  c.coverage = 0.1;
  c.scalars = params(rows, cols);
  return c;
}

observation observed_with(std::vector<representative_config> reps) {
  observation o;
  o.kernel = "transpose";
  o.signature = std::string(64, 'b');
  o.captured_at = "2026-11-25T22:30:00Z";
  o.method = "cupti";
  o.command = {"/work/app/build/transpose_app", "--bench"};
  o.representative = {{"transpose", "transpose", {}}};
  o.representative[0].selection.configs = std::move(reps);
  o.representative[0].selection.covered = 0.95;
  return o;
}

TEST(ProblemConfigs, DimsComeFromTheScalarsWhoseValueIsADimAndTheGeometryIsChecked) {
  auto spec = load_fixture_problem();
  // 8192x8192 and 1024x4096 launch as the problem would; 512x512 launched with a 16-wide grid.
  auto observed = observed_with({rep(8192, 8192, {256, 256, 1}, 6), rep(1024, 4096, {128, 32, 1}, 24),
                                 rep(512, 512, {32, 32, 1}, 200)});
  auto mapped = map_to_configs(observed, spec);
  ASSERT_TRUE(mapped) << mapped.error();
  ASSERT_EQ(mapped->configs.size(), 3u);
  EXPECT_EQ(mapped->configs[0].name, "8192x8192");
  EXPECT_EQ(mapped->configs[1].name, "1024x4096");
  EXPECT_EQ(mapped->configs[1].dims,
            (std::vector<std::pair<std::string, std::int64_t>>{{"ROWS", 1024}, {"COLS", 4096}}));
  EXPECT_DOUBLE_EQ(mapped->configs[0].weight, 6.0); // its launches: the loader normalises
  std::string notes;
  for (const auto& note : mapped->notes)
    notes += note + "\n";
  // The mismatch names both geometries; the matching configs have no such note.
  EXPECT_NE(notes.find("config 512x512: the problem launches grid (16,16,1) block (32,8,1) smem 0 at these dims"),
            std::string::npos) << notes;
  EXPECT_NE(notes.find("the program launched grid (32,32,1) block (32,8,1) smem 0"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("config 8192x8192:"), std::string::npos) << notes;
  EXPECT_NE(notes.find("dim BATCH is no scalar argument's value"), std::string::npos) << notes;
}

TEST(ProblemConfigs, TheWrittenFileIsReadBackByTheProblemLoader) {
  auto spec = load_fixture_problem();
  auto observed = observed_with({rep(8192, 8192, {256, 256, 1}, 3), rep(1024, 4096, {128, 32, 1}, 1)});
  auto mapped = map_to_configs(observed, spec);
  ASSERT_TRUE(mapped) << mapped.error();
  const auto dir = fs::temp_directory_path() / ("wf-problem-configs-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fixtures / "transpose_kernel.cu", dir / "transpose_kernel.cu");
  std::ifstream in{fixtures / "transpose_problem.toml"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  std::ofstream{dir / "problem.toml"} << "configs_file = \"transpose.configs.toml\"\n" << text;
  const auto path = default_configs_path(dir / "problem.toml", "transpose");
  EXPECT_EQ(path, dir / "transpose.configs.toml");
  ASSERT_TRUE(write_configs_file(path, *mapped, observed));

  auto with_configs = config::load_problem(dir / "problem.toml");
  ASSERT_TRUE(with_configs) << toml_reader::to_string(with_configs.error());
  auto configs = config::problem_configs(*with_configs);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "8192x8192");
  EXPECT_DOUBLE_EQ(configs[0].weight, 0.75);
  EXPECT_EQ(configs[1].dims.at("ROWS"), 1024);
  EXPECT_EQ(configs[1].dims.at("COLS"), 4096);
  EXPECT_EQ(configs[1].dims.at("BATCH"), 1); // unbound: its [dims] value
  std::ifstream written{path};
  std::string header;
  std::getline(written, header);
  EXPECT_EQ(header.rfind("# Written by `warpforge observe --problem`", 0), 0u) << header;
  fs::remove_all(dir);
}

// A copy of the fixture problem in a fresh folder, with `first_line` before it (e.g. a configs_file).
fs::path problem_copy(const std::string& folder, const std::string& first_line) {
  const auto dir = fs::temp_directory_path() / (folder + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fixtures / "transpose_kernel.cu", dir / "transpose_kernel.cu");
  std::ifstream in{fixtures / "transpose_problem.toml"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  std::ofstream{dir / "problem.toml"} << first_line << text;
  return dir / "problem.toml";
}

TEST(ProblemConfigs, ObserveLoadsAProblemWhoseConfigsFileDoesNotExistYet) {
  const auto problem = problem_copy("wf-observe-missing-configs", "configs_file = \"sizes.configs.toml\"\n");
  auto normal = config::load_problem(problem);
  ASSERT_FALSE(normal); // what a campaign needs: the configs
  EXPECT_NE(toml_reader::to_string(normal.error()).find("cannot read the configs file"), std::string::npos);

  auto to_observe = load_problem_to_observe(problem);
  ASSERT_TRUE(to_observe) << toml_reader::to_string(to_observe.error());
  EXPECT_EQ(to_observe->configs_file, problem.parent_path() / "sizes.configs.toml");
  EXPECT_TRUE(to_observe->configs.empty());
  auto destination = configs_destination_for(*to_observe, "", "transpose");
  EXPECT_EQ(destination.path, problem.parent_path() / "sizes.configs.toml"); // the named file, not transpose.configs.toml
  EXPECT_TRUE(destination.problem_reads_it);

  // The key is still checked: inline [[configs]] beside it is an error either way.
  std::ofstream{problem, std::ios::app} << "\n[[configs]]\ndims = { ROWS = 128 }\n";
  auto both = load_problem_to_observe(problem);
  ASSERT_FALSE(both);
  EXPECT_NE(toml_reader::to_string(both.error()).find("not both"), std::string::npos);
  fs::remove_all(problem.parent_path());
}

TEST(ProblemConfigs, WithoutAConfigsFileObserveWritesTheKernelsDefaultWhichTheProblemDoesNotRead) {
  const auto problem = problem_copy("wf-observe-no-configs-file", "");
  auto spec = load_problem_to_observe(problem);
  ASSERT_TRUE(spec) << toml_reader::to_string(spec.error());
  auto destination = configs_destination_for(*spec, "", "transpose");
  EXPECT_EQ(destination.path, problem.parent_path() / "transpose.configs.toml");
  EXPECT_FALSE(destination.problem_reads_it);
  auto elsewhere = configs_destination_for(*spec, problem.parent_path() / "other.toml", "transpose");
  EXPECT_EQ(elsewhere.path, problem.parent_path() / "other.toml");
  EXPECT_FALSE(elsewhere.problem_reads_it);
  fs::remove_all(problem.parent_path());
}

TEST(ProblemConfigs, FastAndSlowBucketsOfOneSizeAreOneConfigWithTheirWeightsAdded) {
  auto spec = load_fixture_problem();
  auto observed = observed_with({rep(8192, 8192, {256, 256, 1}, 5, duration_bucket::slow),
                                 rep(1024, 4096, {128, 32, 1}, 3),
                                 rep(8192, 8192, {256, 256, 1}, 2, duration_bucket::fast)});
  auto mapped = map_to_configs(observed, spec);
  ASSERT_TRUE(mapped) << mapped.error();
  ASSERT_EQ(mapped->configs.size(), 2u);
  EXPECT_DOUBLE_EQ(mapped->configs[0].weight, 7.0);
  EXPECT_EQ(mapped->configs[0].representatives, (std::vector<std::size_t>{0, 2}));
}

TEST(ProblemConfigs, AnObservationWithoutScalarValuesSaysToObserveWithCupti) {
  auto spec = load_fixture_problem();
  auto observed = observed_with({rep(8192, 8192, {256, 256, 1}, 1)});
  observed.method = "ncu";
  observed.representative[0].selection.configs[0].scalars.clear();
  auto mapped = map_to_configs(observed, spec);
  ASSERT_FALSE(mapped);
  EXPECT_NE(mapped.error().find("scalar values are needed to map launches onto dims; observe with cupti"),
            std::string::npos) << mapped.error();
}

TEST(ProblemConfigs, ADifferentParameterCountOrAnUndecodableValueIsAnError) {
  auto spec = load_fixture_problem();
  auto observed = observed_with({rep(8192, 8192, {256, 256, 1}, 1)});
  observed.representative[0].selection.configs[0].scalars.pop_back();
  auto fewer = map_to_configs(observed, spec);
  ASSERT_FALSE(fewer);
  EXPECT_NE(fewer.error().find("has 3 parameters"), std::string::npos) << fewer.error();

  observed = observed_with({rep(-4, 8192, {256, 256, 1}, 1)});
  auto negative = map_to_configs(observed, spec);
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().find("'rows'"), std::string::npos) << negative.error();
  EXPECT_NE(negative.error().find("-4 is not a positive size"), std::string::npos) << negative.error();

  observed = observed_with({rep(8192, 8192, {256, 256, 1}, 1)});
  observed.representative[0].selection.configs[0].scalars[2] = {16, 8, "0020000000000000"};
  auto wide = map_to_configs(observed, spec);
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().find("has 8 bytes"), std::string::npos) << wide.error();
}

TEST(ProblemConfigs, SeveralObservedKernelsPickTheProblemsEntry) {
  auto spec = load_fixture_problem();
  auto observed = observed_with({rep(8192, 8192, {256, 256, 1}, 1)});
  observed.kernel = "";
  observed.representative.insert(observed.representative.begin(), {"fill", "fill", {}});
  auto mapped = map_to_configs(observed, spec);
  ASSERT_TRUE(mapped) << mapped.error();
  EXPECT_EQ(mapped->kernel, "transpose");
  observed.representative.erase(observed.representative.begin() + 1);
  auto missing = map_to_configs(observed, spec); // every kernel observed, none is the entry
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("0 of them are the problem's entry 'transpose' (seen: fill)"), std::string::npos)
    << missing.error();
}

} // namespace
} // namespace warpforge::observe
