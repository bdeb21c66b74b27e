// The observation cache: written and read back whole, and a changed program, argument, kernel or
// --source file changes its signature (so the cache is not reused).

#include "deploy/observe/observation_file.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <unistd.h>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;

class ObservationFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-observation-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& path, std::string_view text) {
    std::ofstream{path, std::ios::binary} << text;
  }
  fs::path dir_;
};

observation sample() {
  observation o;
  o.kernel = "transpose";
  o.signature = std::string(64, 'a');
  o.captured_at = "2026-11-25T22:10:03Z";
  o.method = "cupti";
  o.command = {"/bin/app", "--bench", "a \"quoted\" arg"};
  o.workdir = "/work";
  o.exit = "exit code 0";
  o.wall_s = 1.25;
  o.options = {.split_ratio = 3.0, .coverage = 0.8, .top_k = 4};
  launch_record r;
  r.sequence = 4;
  r.kernel = "_Z9transposePfPKfii";
  r.demangled = "transpose(float*, float const*, int, int)";
  r.grid = {256, 128, 1};
  r.block = {32, 8, 1};
  r.dynamic_smem = 4096;
  r.duration_s = 1.5e-6;
  r.device = 1;
  r.params = {{0, 8, "0000a000007f0000"}, {16, 4, "00200000"}};
  o.launches = {r};
  representative_config c;
  c.kernel = r.kernel;
  c.grid = r.grid;
  c.block = r.block;
  c.dynamic_smem = r.dynamic_smem;
  c.bucket = duration_bucket::slow;
  c.launches = 1;
  c.total_s = c.median_s = c.p25_s = c.p95_s = 1.5e-6;
  c.weight = 1.0;
  c.coverage = 0.75;
  c.median_sequence = 4;
  c.scalars = r.params;
  o.representative = {{r.kernel, r.demangled, {}}};
  auto& s = o.representative[0].selection;
  s.configs = {c};
  s.total_s = 2e-6;
  s.covered = 0.75;
  s.launches = 2;
  s.launches_without_duration = 1;
  s.notes = {"1 of 2 launches have no duration"};
  o.notes = {"a note"};
  return o;
}

TEST_F(ObservationFile, ReadsBackWhatItWrote) {
  const auto original = sample();
  const auto path = observation_path(dir_ / "cache", "transpose");
  EXPECT_EQ(path, dir_ / "cache" / "transpose.observed.json");
  ASSERT_TRUE(write_observation(path, original));
  auto back = read_observation(path);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->kernel, original.kernel);
  EXPECT_EQ(back->signature, original.signature);
  EXPECT_EQ(back->captured_at, original.captured_at);
  EXPECT_EQ(back->command, original.command);
  EXPECT_EQ(back->exit, original.exit);
  EXPECT_DOUBLE_EQ(back->wall_s, 1.25);
  EXPECT_EQ(back->options.top_k, 4u);
  EXPECT_DOUBLE_EQ(back->options.split_ratio, 3.0);
  ASSERT_EQ(back->launches.size(), 1u);
  const auto& l = back->launches[0];
  EXPECT_EQ(l.sequence, 4u);
  EXPECT_EQ(l.demangled, original.launches[0].demangled);
  EXPECT_EQ(l.grid, original.launches[0].grid);
  EXPECT_EQ(l.dynamic_smem, 4096u);
  EXPECT_DOUBLE_EQ(l.duration_s, 1.5e-6);
  EXPECT_EQ(l.device, 1u);
  ASSERT_EQ(l.params.size(), 2u);
  EXPECT_EQ(l.params[1].offset, 16u);
  EXPECT_EQ(l.params[1].hex, "00200000");
  ASSERT_EQ(back->representative.size(), 1u);
  const auto& s = back->representative[0].selection;
  EXPECT_EQ(s.launches_without_duration, 1u);
  EXPECT_EQ(s.notes, original.representative[0].selection.notes);
  ASSERT_EQ(s.configs.size(), 1u);
  EXPECT_EQ(s.configs[0].bucket, duration_bucket::slow);
  EXPECT_DOUBLE_EQ(s.configs[0].coverage, 0.75);
  EXPECT_EQ(s.configs[0].scalars.size(), 2u);
  EXPECT_EQ(back->notes, original.notes);
}

TEST_F(ObservationFile, AWrongFieldIsAnErrorNamingTheFileAndTheKey) {
  auto text = to_json(sample());
  auto at = text.find("\"smem\":4096");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "\"smem\":\"big\"");
  auto read = parse_observation(text, "cache/t.observed.json");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("cache/t.observed.json: launches[0].smem"), std::string::npos) << read.error();
  auto other = parse_observation(R"({"schema":"something/9"})", "x.json");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().find("schema"), std::string::npos) << other.error();
  EXPECT_FALSE(parse_observation("not json", "y.json"));
}

TEST_F(ObservationFile, EveryKernelIsCachedAsAllAndUnsafeCharactersAreReplaced) {
  EXPECT_EQ(observation_path("c", ""), fs::path{"c/all.observed.json"});
  EXPECT_EQ(observation_path("c", "ns::f<32>"), fs::path{"c/ns__f_32_.observed.json"});
}

TEST_F(ObservationFile, ASignatureChangesWithTheProgramItsArgumentsTheKernelAndTheSources) {
  const auto program = dir_ / "program"; // a stand-in for the program's executable
  const auto source = dir_ / "kernel.cu";
  write(program, "version 1");
  write(source, "__global__ void k() {}");
  signature_inputs inputs{program, {"--bench"}, "k", {source}, {}};
  auto first = observation_signature(inputs);
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first->size(), 64u);
  EXPECT_EQ(observation_signature(inputs).value(), *first); // stable

  auto cached = sample();
  cached.signature = *first;
  EXPECT_FALSE(stale_reason(cached, *first));

  write(program, "version 2"); // the program was rebuilt
  auto rebuilt = observation_signature(inputs);
  ASSERT_TRUE(rebuilt);
  EXPECT_NE(*rebuilt, *first);
  auto why = stale_reason(cached, *rebuilt);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("signature changed"), std::string::npos) << *why;
  write(program, "version 1");

  auto other_args = inputs;
  other_args.arguments = {"--check"};
  EXPECT_NE(observation_signature(other_args).value(), *first);
  auto other_kernel = inputs;
  other_kernel.kernel = "";
  EXPECT_NE(observation_signature(other_kernel).value(), *first);
  write(source, "__global__ void k() { /* edited */ }");
  EXPECT_NE(observation_signature(inputs).value(), *first);
}

TEST_F(ObservationFile, AnArgumentNamingAFileBringsItsBytesIntoTheSignature) {
  const auto interpreter = dir_ / "sh"; // a stand-in for /bin/sh: the program that stays the same
  write(interpreter, "an interpreter");
  write(dir_ / "app.sh", "echo one\n");
  signature_inputs inputs{interpreter, {"app.sh", "--bench"}, "k", {}, dir_};
  auto first = observation_signature(inputs);
  ASSERT_TRUE(first) << first.error();
  EXPECT_TRUE(signature_notes(inputs).empty());

  write(dir_ / "app.sh", "echo two\n"); // the script changed, its name and the interpreter did not
  auto edited = observation_signature(inputs);
  ASSERT_TRUE(edited) << edited.error();
  EXPECT_NE(*edited, *first);

  write(dir_ / "app.sh", "echo one\n");
  EXPECT_EQ(observation_signature(inputs).value(), *first) << "the same bytes, the same signature";

  auto absolute = inputs; // an absolute argument is read where it points, whatever the workdir
  absolute.arguments = {(dir_ / "app.sh").string(), "--bench"};
  absolute.workdir = "/";
  auto before = observation_signature(absolute).value();
  write(dir_ / "app.sh", "echo three\n");
  EXPECT_NE(observation_signature(absolute).value(), before);
}

TEST_F(ObservationFile, ArgumentsThatNameNoRegularFileAreTheirTextAlone) {
  write(dir_ / "p", "x");
  fs::create_directories(dir_ / "data");
  signature_inputs inputs{dir_ / "p", {"data", "no-such-file", "/dev/null", ""}, "", {}, dir_};
  auto signed_once = observation_signature(inputs);
  ASSERT_TRUE(signed_once) << "a folder, a missing path or a device is no error: " << signed_once.error();
  write(dir_ / "data" / "inside", "changed");
  EXPECT_EQ(observation_signature(inputs).value(), *signed_once) << "a folder's content is not hashed";

  // "no-such-file" appearing makes it a file argument: the observation is stale.
  write(dir_ / "no-such-file", "");
  EXPECT_NE(observation_signature(inputs).value(), *signed_once);
}

TEST_F(ObservationFile, AFileAboveTheHashLimitIsKeyedBySizeAndMtimeAndANoteSaysSo) {
  write(dir_ / "p", "x");
  const auto big = dir_ / "big.bin";
  write(big, "");
  fs::resize_file(big, max_hashed_argument_bytes + 1); // sparse: nothing is read of it
  signature_inputs inputs{dir_ / "p", {"big.bin"}, "", {}, dir_};
  auto first = observation_signature(inputs);
  ASSERT_TRUE(first) << first.error();
  const auto notes = signature_notes(inputs);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("big.bin (" + std::to_string(max_hashed_argument_bytes + 1) + " bytes"), std::string::npos)
    << notes[0];
  EXPECT_NE(notes[0].find("size and modification time"), std::string::npos) << notes[0];

  fs::resize_file(big, max_hashed_argument_bytes + 2);
  EXPECT_NE(observation_signature(inputs).value(), *first) << "its size changed";
  auto resized = observation_signature(inputs).value();
  fs::last_write_time(big, fs::last_write_time(big) - std::chrono::hours{1});
  EXPECT_NE(observation_signature(inputs).value(), resized) << "its mtime changed";
}

TEST_F(ObservationFile, AMissingProgramOrSourceIsAnErrorNamingIt) {
  signature_inputs inputs{dir_ / "absent", {}, "", {}, {}};
  auto missing = observation_signature(inputs);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("absent"), std::string::npos) << missing.error();
  write(dir_ / "p", "x");
  inputs = {dir_ / "p", {}, "", {dir_ / "gone.cu"}, {}};
  auto no_source = observation_signature(inputs);
  ASSERT_FALSE(no_source);
  EXPECT_NE(no_source.error().find("gone.cu"), std::string::npos) << no_source.error();
}

} // namespace
} // namespace warpforge::observe
