#include "gpu/toolchain.hpp"

#include "foundation/json/writer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace warpforge::gpu;
namespace fs = std::filesystem;

namespace {

// A scratch directory removed at the end of the test.
struct scratch_dir {
  fs::path path;
  scratch_dir() {
    std::string pattern = (fs::temp_directory_path() / "wf-toolchain-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path make_tool(const fs::path& relative, bool executable = true) const {
    auto file = path / relative;
    fs::create_directories(file.parent_path());
    std::ofstream{file} << "#!/bin/sh\n";
    fs::permissions(file, executable ? fs::perms::owner_all : fs::perms::owner_read);
    return file;
  }
};

bool executable(const fs::path& path) {
  return fs::is_regular_file(path) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

TEST(toolchain, every_cuda_tool_round_trips_through_its_name) {
  for (auto tool : all_cuda_tools)
    EXPECT_EQ(cuda_tool_from_string(to_string(tool)), tool) << to_string(tool);
  EXPECT_FALSE(cuda_tool_from_string("gcc"));
}

TEST(toolchain, path_wins_over_cuda_home_and_non_executables_are_skipped) {
  scratch_dir dir;
  auto on_path = dir.make_tool("path2/nvdisasm");
  dir.make_tool("path1/nvdisasm", false);
  dir.make_tool("cuda/bin/nvdisasm");
  auto path_env = (dir.path / "path1").string() + "::" + (dir.path / "path2").string();
  EXPECT_EQ(find_tool("nvdisasm", path_env, dir.path / "cuda"), on_path);
}

TEST(toolchain, cuda_home_bin_is_the_fallback) {
  scratch_dir dir;
  auto in_home = dir.make_tool("cuda/bin/cuobjdump");
  EXPECT_EQ(find_tool("cuobjdump", std::string{"/nonexistent"}, dir.path / "cuda"), in_home);
  EXPECT_EQ(find_tool("cuobjdump", std::nullopt, dir.path / "cuda"), in_home);
  EXPECT_FALSE(find_tool("ncu", std::nullopt, dir.path / "cuda"));
}

TEST(toolchain, cuda_home_comes_from_the_environment_else_the_default) {
  toolchain_environment env;
  env.cuda_home = "/nonexistent/cuda";
  auto from_env = probe_toolchain(env);
  EXPECT_EQ(from_env.cuda_home, fs::path{"/nonexistent/cuda"});
  EXPECT_TRUE(from_env.cuda_home_from_env);
  EXPECT_FALSE(from_env.cuda_home_exists);
  auto by_default = probe_toolchain(toolchain_environment{});
  EXPECT_EQ(by_default.cuda_home, default_cuda_home);
  EXPECT_FALSE(by_default.cuda_home_from_env);
}

TEST(toolchain, the_probe_reports_each_tool_as_it_is_on_this_host) {
  auto report = probe_toolchain();
  ASSERT_FALSE(report.nvrtc_error) << report.nvrtc_error->to_string();
  EXPECT_GE(report.nvrtc_major, 13);
  ASSERT_EQ(report.tools.size(), all_cuda_tools.size());
  auto env = toolchain_environment::from_process();
  for (auto tool : all_cuda_tools) {
    const auto& found = report.find(tool);
    // What a shell would find: PATH entries, then $CUDA_HOME/bin, checked here with access().
    bool present = false;
    std::string path = env.path.value_or("");
    for (std::size_t start = 0; start <= path.size();) {
      auto end = path.find(':', start);
      auto dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && executable(fs::path{dir} / to_string(tool)))
        present = true;
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
    present = present || executable(report.cuda_home / "bin" / to_string(tool));
    EXPECT_EQ(found.path.has_value(), present) << to_string(tool);
    if (found.path) {
      EXPECT_TRUE(executable(*found.path)) << found.path->string();
    }
  }
}

TEST(toolchain, the_json_form_has_null_for_missing_tools) {
  toolchain_report report;
  report.cuda_home = "/usr/local/cuda";
  report.nvrtc_major = 13;
  report.tools = {{cuda_tool::nvcc, fs::path{"/usr/local/cuda/bin/nvcc"}},
                  {cuda_tool::ncu, std::nullopt}};
  warpforge::json::writer out;
  write_json(out, report);
  EXPECT_EQ(out.view(), R"({"cuda_home":"/usr/local/cuda","cuda_home_from_env":false,)"
                        R"("cuda_home_exists":false,"nvrtc_version":"13.0","nvrtc_error":null,)"
                        R"("tools":{"nvcc":"/usr/local/cuda/bin/nvcc","ncu":null}})");
  EXPECT_NE(to_text(report).find("ncu        not found"), std::string::npos) << to_text(report);
}
