#include "sass/disassembler.hpp"

#include "sass_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace warpforge::sass {
namespace {

using namespace std::chrono_literals;
using test::temp_dir;

/// A stand-in for nvdisasm/cuobjdump: checks its first argument, then prints a fixture dump.
std::string printing_tool(std::string_view expected_flag, const std::filesystem::path& dump) {
  return "#!/bin/sh\n"
         "[ \"$1\" = \"" + std::string{expected_flag} + "\" ] || { echo \"bad flag $1\" >&2; exit 3; }\n"
         "[ -f \"$2\" ] || { echo \"no cubin $2\" >&2; exit 4; }\n"
         "exec cat '" + dump.string() + "'\n";
}

tool_search search_only(const std::filesystem::path& dir) {
  return tool_search{dir.string(), {}};
}

TEST(SassDisassembler, EveryFailureKindRoundTripsThroughItsName) {
  for (auto kind : all_disassemble_failure_kinds)
    EXPECT_EQ(disassemble_failure_kind_from_string(to_string(kind)), kind);
  EXPECT_EQ(disassemble_failure_kind_from_string("passed"), std::nullopt);
  EXPECT_EQ((disassemble_failure{disassemble_failure_kind::timed_out, "x"}).to_string(),
            "timed_out: x");
}

TEST(SassDisassembler, WithNeitherToolTheAnswerIsUnavailableNamingWhereItLooked) {
  const temp_dir empty;
  tool_search where{(empty.path() / "bin").string() + ":" + empty.path().string(),
                    {empty.path() / "cuda"}};
  auto found = find_disassembler(where);
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind, disassemble_failure_kind::unavailable);
  EXPECT_NE(found.error().detail.find("no nvdisasm or cuobjdump on this host"), std::string::npos);
  EXPECT_NE(found.error().detail.find((empty.path() / "cuda" / "bin").string()), std::string::npos);
}

TEST(SassDisassembler, AToolPathThatDoesNotExistIsUnavailableNotAPass) {
  const temp_dir dir;
  const auto cubin = dir.write("k.cubin", "not really a cubin");
  auto listing = disassemble(disassembler{dir.path() / "no-such-nvdisasm", sass_format::nvdisasm},
                             cubin);
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().kind, disassemble_failure_kind::unavailable);
  EXPECT_NE(listing.error().detail.find("no-such-nvdisasm"), std::string::npos);
}

TEST(SassDisassembler, PrefersNvdisasmOverCuobjdumpWhereverEachIs) {
  const temp_dir dir;
  dir.write("path/cuobjdump", "#!/bin/sh\n", true);
  dir.write("cuda/bin/nvdisasm", "#!/bin/sh\n", true);
  auto found = find_disassembler(tool_search{(dir.path() / "path").string(), {dir.path() / "cuda"}});
  ASSERT_TRUE(found) << found.error().to_string();
  EXPECT_EQ(found->format, sass_format::nvdisasm);
  EXPECT_EQ(found->tool, dir.path() / "cuda" / "bin" / "nvdisasm");
  EXPECT_EQ(found->arguments("k.cubin"), (std::vector<std::string>{"-c", "k.cubin"}));
}

TEST(SassDisassembler, FallsBackToCuobjdumpAndLooksOnPathBeforeCudaHomes) {
  const temp_dir dir;
  dir.write("path/cuobjdump", "#!/bin/sh\n", true);
  dir.write("cuda/bin/cuobjdump", "#!/bin/sh\n", true);
  dir.write("path/nvdisasm", "not executable");
  auto found = find_disassembler(tool_search{(dir.path() / "path").string(), {dir.path() / "cuda"}});
  ASSERT_TRUE(found) << found.error().to_string();
  EXPECT_EQ(found->format, sass_format::cuobjdump);
  EXPECT_EQ(found->tool, dir.path() / "path" / "cuobjdump");
  EXPECT_EQ(found->arguments("k.cubin"), (std::vector<std::string>{"-sass", "k.cubin"}));
}

TEST(SassDisassembler, FromProcessSearchesPathThenCudaHomeElseUsrLocalCuda) {
  const char* saved = std::getenv("CUDA_HOME");
  const std::string restore = saved ? saved : "";
  ::unsetenv("CUDA_HOME");
  EXPECT_EQ(tool_search::from_process().cuda_homes, std::vector<std::filesystem::path>{"/usr/local/cuda"});
  ::setenv("CUDA_HOME", "/opt/cuda-13", 1);
  EXPECT_EQ(tool_search::from_process().cuda_homes, std::vector<std::filesystem::path>{"/opt/cuda-13"})
    << "the toolkit named is the one used, as doctor reports it";
  if (saved)
    ::setenv("CUDA_HOME", restore.c_str(), 1);
  else
    ::unsetenv("CUDA_HOME");
}

class SassDisassemblerRuns : public ::testing::TestWithParam<sass_format> {};

TEST_P(SassDisassemblerRuns, RunsTheToolOnTheCubinAndParsesWhatItPrints) {
  const auto format = GetParam();
  const temp_dir dir;
  const auto flag = format == sass_format::nvdisasm ? "-c" : "-sass";
  dir.write(std::string{to_string(format)},
            printing_tool(flag, test::dump_path("signatures.sm_90a", format)), true);
  auto found = find_disassembler(search_only(dir.path()));
  ASSERT_TRUE(found) << found.error().to_string();
  ASSERT_EQ(found->format, format);
  auto listing = disassemble(*found, test::fixture_dir() / "signatures.sm_90a.cubin");
  ASSERT_TRUE(listing) << listing.error().to_string();
  const auto expected = test::load_dump("signatures.sm_90a", format);
  EXPECT_EQ(listing->format, format);
  EXPECT_EQ(listing->kernel_names(), expected.kernel_names());
  EXPECT_EQ(listing->instruction_count(), expected.instruction_count());
}

INSTANTIATE_TEST_SUITE_P(BothTools, SassDisassemblerRuns, ::testing::ValuesIn(all_sass_formats),
                         [](const auto& param) { return std::string{to_string(param.param)}; });

// A stand-in nvdisasm that prints a stored listing and counts its runs in a file beside it.
struct counting_nvdisasm {
  const temp_dir dir;
  const std::filesystem::path runs = dir.path() / "runs";
  const disassembler nvdisasm{
    dir.write("nvdisasm",
              "#!/bin/sh\necho run >> '" + runs.string() + "'\nexec cat '" +
                test::dump_path("signatures.sm_90a", sass_format::nvdisasm).string() + "'\n",
              true),
    sass_format::nvdisasm};

  int count_runs() const {
    std::ifstream in{runs};
    return static_cast<int>(std::count(std::istreambuf_iterator<char>{in}, {}, '\n'));
  }
};

// Listings kept on disk (the pipeline keeps them beside the compile cache): a later process runs
// no tool for machine code disassembled before; a kept listing the parser cannot read is replaced
// by a new run.
TEST(SassDisassembler, ALaterProcessFindsTheListingOnDiskAndAnUnreadableOneIsDisassembledAgain) {
  const counting_nvdisasm counting;
  const auto& dir = counting.dir;
  const auto& nvdisasm = counting.nvdisasm;
  const auto count_runs = [&] { return counting.count_runs(); };
  const auto cubin = dir.write("a/kernel.cubin", "machine code kept on disk, test " + dir.path().string());
  const auto folder = dir.path() / "cache" / "sass";
  listing_memo first_process;
  first_process.keep_on_disk(folder);
  auto a = disassemble(nvdisasm, cubin, disassemble_timeout, first_process);
  ASSERT_TRUE(a) << a.error().to_string();
  EXPECT_EQ(count_runs(), 1);

  listing_memo second_process;
  second_process.keep_on_disk(folder);
  auto b = disassemble(nvdisasm, cubin, disassemble_timeout, second_process);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(count_runs(), 1) << "found on disk: no run";
  EXPECT_EQ(b->instruction_count(), a->instruction_count());

  for (const auto& entry : std::filesystem::recursive_directory_iterator{folder})
    if (entry.is_regular_file())
      std::ofstream{entry.path(), std::ios::trunc} << "not a listing\n";
  listing_memo third_process;
  third_process.keep_on_disk(folder);
  auto c = disassemble(nvdisasm, cubin, disassemble_timeout, third_process);
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(count_runs(), 2) << "an unreadable listing: the tool runs again";
  EXPECT_EQ(c->instruction_count(), a->instruction_count());
  listing_memo fourth_process;
  fourth_process.keep_on_disk(folder);
  ASSERT_TRUE(disassemble(nvdisasm, cubin, disassemble_timeout, fourth_process));
  EXPECT_EQ(count_runs(), 2) << "the new run's listing replaced the unreadable one";
}

// The same machine code is disassembled once per process (listing_memo.hpp): a second CUBIN with
// the same bytes at another path is answered without running the tool; other bytes run it again,
// and so does a tool that failed.
TEST(SassDisassembler, TheSameMachineCodeRunsTheToolOnceAndOtherCodeOrAFailureRunsItAgain) {
  const counting_nvdisasm counting;
  const auto& dir = counting.dir;
  const auto& nvdisasm = counting.nvdisasm;
  const auto count_runs = [&] { return counting.count_runs(); };
  const auto first = dir.write("a/kernel.cubin", "machine code of a kernel, test " + dir.path().string());
  const auto same = dir.write("b/kernel.cubin", "machine code of a kernel, test " + dir.path().string());
  const auto other = dir.write("c/kernel.cubin", "other machine code, test " + dir.path().string());
  auto a = disassemble(nvdisasm, first);
  ASSERT_TRUE(a) << a.error().to_string();
  auto b = disassemble(nvdisasm, same);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(count_runs(), 1) << "the same bytes at another path: no second run";
  EXPECT_EQ(b->kernel_names(), a->kernel_names());
  EXPECT_EQ(b->instruction_count(), a->instruction_count());
  ASSERT_TRUE(disassemble(nvdisasm, other));
  EXPECT_EQ(count_runs(), 2) << "other bytes: the tool runs";

  const auto failing = dir.write("fails/nvdisasm", "#!/bin/sh\necho run >> '" + counting.runs.string() + "'\nexit 1\n", true);
  EXPECT_FALSE(disassemble(disassembler{failing, sass_format::nvdisasm}, first));
  EXPECT_FALSE(disassemble(disassembler{failing, sass_format::nvdisasm}, first));
  EXPECT_EQ(count_runs(), 4) << "a failure is not kept: each call runs the tool";
}

TEST(SassDisassembler, AMissingCubinIsReportedAsSuch) {
  const temp_dir dir;
  const auto tool = dir.write("nvdisasm", "#!/bin/sh\nexit 0\n", true);
  auto listing = disassemble(disassembler{tool, sass_format::nvdisasm}, dir.path() / "none.cubin");
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().kind, disassemble_failure_kind::missing_cubin);
}

TEST(SassDisassembler, AToolThatFailsIsToolFailedQuotingItsOutput) {
  const temp_dir dir;
  const auto cubin = dir.write("k.cubin", "x");
  const auto tool =
      dir.write("nvdisasm", "#!/bin/sh\necho 'nvdisasm fatal : not an ELF file' >&2\nexit 1\n", true);
  auto listing = disassemble(disassembler{tool, sass_format::nvdisasm}, cubin);
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().kind, disassemble_failure_kind::tool_failed);
  EXPECT_NE(listing.error().detail.find("exit code 1"), std::string::npos) << listing.error().detail;
  EXPECT_NE(listing.error().detail.find("not an ELF file"), std::string::npos);
  EXPECT_NE(listing.error().detail.find(" -c "), std::string::npos); // names the command
}

TEST(SassDisassembler, AToolThatHangsIsKilledAtTheDeadline) {
  const temp_dir dir;
  const auto cubin = dir.write("k.cubin", "x");
  const auto tool = dir.write("cuobjdump", "#!/bin/sh\nexec sleep 30\n", true);
  const auto start = std::chrono::steady_clock::now();
  auto listing = disassemble(disassembler{tool, sass_format::cuobjdump}, cubin, 200ms);
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().kind, disassemble_failure_kind::timed_out);
  EXPECT_NE(listing.error().detail.find("200 ms"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST(SassDisassembler, OutputTheParserCannotReadIsUnparseable) {
  const temp_dir dir;
  const auto cubin = dir.write("k.cubin", "x");
  const auto tool = dir.write("nvdisasm", "#!/bin/sh\necho '        /*0000*/  NOP ;'\n", true);
  auto listing = disassemble(disassembler{tool, sass_format::nvdisasm}, cubin);
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().kind, disassemble_failure_kind::unparseable);
  EXPECT_NE(listing.error().detail.find("line 1"), std::string::npos);
}

// With a real toolkit disassembler (a GPU node, or a host with the full CUDA toolkit), the stored
// CUBIN disassembles into the kernel and the memory instructions its source implies (another
// toolkit version may schedule differently, so the sequence itself is not compared). Skipped
// where there is no disassembler, like this build host.
TEST(SassDisassembler, TheHostsRealDisassemblerReadsTheStoredCubin) {
  auto found = find_disassembler();
  if (!found)
    GTEST_SKIP() << found.error().to_string();
  auto listing = disassemble(*found, test::fixture_dir() / "vector_add.sm_90.cubin");
  ASSERT_TRUE(listing) << listing.error().to_string();
  ASSERT_EQ(listing->kernel_names(), std::vector<std::string>{"vector_add"});
  const auto& code = listing->kernels[0].instructions;
  const auto has = [&](std::string_view opcode) {
    return std::any_of(code.begin(), code.end(), [&](const auto& i) { return i.opcode == opcode; });
  };
  EXPECT_TRUE(has("LDG"));
  EXPECT_TRUE(has("STG"));
  EXPECT_TRUE(has("EXIT"));
}

} // namespace
} // namespace warpforge::sass
