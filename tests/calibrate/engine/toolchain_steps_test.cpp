#include "calibrate/engine/toolchain_steps.hpp"

#include "calibrate/engine/run_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace warpforge::calibrate {
namespace {

namespace fs = std::filesystem;

TEST(listing_text, prints_each_kernel_and_instruction_as_cuobjdump_lays_them_out) {
  sass::disassembly listing;
  listing.format = sass::sass_format::cuobjdump;
  sass::sass_kernel kernel;
  kernel.name = "fma_chain";
  kernel.arch = "sm_90";
  sass::sass_instruction ffma;
  ffma.address = 0x40;
  ffma.opcode = "FFMA";
  ffma.text = "FFMA R1, R2, R3, R1";
  kernel.instructions.push_back(ffma);
  listing.kernels.push_back(kernel);
  const auto text = listing_text(listing);
  EXPECT_NE(text.find("Function : fma_chain (sm_90)"), std::string::npos) << text;
  EXPECT_NE(text.find("/*0040*/  FFMA R1, R2, R3, R1 ;"), std::string::npos) << text;
}

TEST(trial_outputs, reads_each_trials_whole_log_and_falls_back_to_its_kept_tail) {
  const auto dir = fs::temp_directory_path() / ("wf-trialout-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(write_file_atomically(dir / "trial-1.log", "line 1\nRESULT: value=4\n"));
  std::vector<gpu::program_trial> trials(2);
  trials[0].outcome = gpu::program_outcome::passed;
  trials[0].output_tail = "RESULT: value=4\n";
  trials[0].wall_s = 0.5;
  trials[1].outcome = gpu::program_outcome::crashed;
  trials[1].output_tail = "the tail";
  trials[1].detail = "signal 11 (Segmentation fault)";
  const auto outputs = trial_outputs(trials, dir);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].output, "line 1\nRESULT: value=4\n") << "the whole log, not the tail";
  EXPECT_EQ(outputs[0].outcome, gpu::program_outcome::passed);
  EXPECT_DOUBLE_EQ(outputs[0].wall_s, 0.5);
  EXPECT_EQ(outputs[1].output, "the tail") << "no trial-2.log: the tail the run kept";
  EXPECT_EQ(outputs[1].detail, "signal 11 (Segmentation fault)");
  fs::remove_all(dir);
}

// Writing whole or not at all is foundation/files/atomic_write's, tested there; here, reading it back.
TEST(read_whole_file, reads_what_was_written_and_nothing_for_a_missing_file) {
  const auto dir = fs::temp_directory_path() / ("wf-runfiles-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(write_file_atomically(dir / "report.md", "second"));
  EXPECT_EQ(read_whole_file(dir / "report.md"), "second");
  EXPECT_FALSE(read_whole_file(dir / "missing"));
  fs::remove_all(dir);
}

TEST(write_file_atomically, names_the_file_it_cannot_write) {
  auto written = write_file_atomically("/proc/warpforge-no/such.md", "x");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find("/proc/warpforge-no"), std::string::npos) << written.error();
}

} // namespace
} // namespace warpforge::calibrate
