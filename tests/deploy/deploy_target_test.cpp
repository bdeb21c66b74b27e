// Reading [deploy]: paths made absolute, defaults, errors placed and named, and the
// write-only-inside rule (a `..` or a symbolic link leading out of the project is an error).

#include "config/deploy_target.hpp"
#include "deploy/project_guard.hpp"

#include "stand_in_project.hpp"

namespace warpforge::deploy {
namespace {

using testing::stand_in_project;

class deploy_target_test : public stand_in_project {
protected:
  std::filesystem::path spec() const { return dir / "problem.toml"; }

  auto read(const std::string& table) {
    const std::string text = "name = \"p\"\n[deploy]\n" + table;
    testing::write_file(spec(), text);
    return read_deploy_target(text, spec());
  }

  static std::string errors_of(const toml_reader::placed_errors& errors) { return toml_reader::to_string(errors); }
};

constexpr const char* minimal = "project = \"app\"\nfile = \"src/kernel.cuh\"\nbuild = \"sh build.sh\"\n"
                                "verify = \"sh check.sh\"\nresult_key = \"kernel_ms\"\n";

TEST_F(deploy_target_test, a_full_table_reads_with_absolute_paths_and_defaults) {
  auto target = read(std::string{minimal} + "region = \"k\"\n");
  ASSERT_TRUE(target) << errors_of(target.error());
  ASSERT_TRUE(*target);
  const auto& t = **target;
  EXPECT_EQ(t.project, std::filesystem::canonical(project));
  EXPECT_EQ(t.file, t.project / "src/kernel.cuh");
  EXPECT_EQ(t.relative_file, "src/kernel.cuh");
  EXPECT_EQ(t.region, "k");
  EXPECT_EQ(t.time, "sh check.sh") << "time defaults to verify";
  EXPECT_EQ(t.timing, timing_source::result);
  EXPECT_EQ(t.repeats, 5);
  EXPECT_DOUBLE_EQ(t.gain_threshold, 0.02);
  EXPECT_EQ(t.build_timeout, std::chrono::seconds{900});
  EXPECT_EQ(t.run_timeout, std::chrono::seconds{600});
  EXPECT_EQ(t.place.line, 2u);
  EXPECT_EQ(t.kernel, "") << "the spec has no [kernel] entry";
}

TEST_F(deploy_target_test, the_observed_kernel_defaults_to_the_problems_entry) {
  const std::string text = std::string{"name = \"p\"\n[kernel]\nsource = \"k.cu\"\nentry = \"transpose\"\n[deploy]\n"} +
                           minimal + "timing = \"observed\"\n";
  testing::write_file(spec(), text);
  auto target = read_deploy_target(text, spec());
  ASSERT_TRUE(target) << errors_of(target.error());
  EXPECT_EQ((*target)->kernel, "transpose");
}

TEST_F(deploy_target_test, a_spec_without_a_deploy_table_has_no_target) {
  testing::write_file(spec(), "name = \"p\"\n");
  auto target = read_deploy_target("name = \"p\"\n", spec());
  ASSERT_TRUE(target);
  EXPECT_FALSE(*target);
}

TEST_F(deploy_target_test, an_unknown_key_is_placed_with_a_did_you_mean) {
  auto target = read(std::string{minimal} + "repeat = 3\n");
  ASSERT_FALSE(target);
  const auto text = errors_of(target.error());
  EXPECT_NE(text.find("problem.toml:8:1: deploy.repeat"), std::string::npos) << text;
  EXPECT_NE(text.find("did you mean 'repeats'"), std::string::npos) << text;
}

TEST_F(deploy_target_test, timing_result_needs_a_result_key) {
  auto target = read("project = \"app\"\nfile = \"src/kernel.cuh\"\nbuild = \"b\"\nverify = \"v\"\n");
  ASSERT_FALSE(target);
  EXPECT_NE(errors_of(target.error()).find("timing \"result\" needs result_key"), std::string::npos);
  auto observed = read("project = \"app\"\nfile = \"src/kernel.cuh\"\nbuild = \"b\"\nverify = \"v\"\n"
                       "timing = \"observed\"\nkernel = \"transpose\"\n");
  ASSERT_TRUE(observed) << errors_of(observed.error());
  EXPECT_EQ((*observed)->timing, timing_source::observed);
  EXPECT_EQ((*observed)->kernel, "transpose");
}

TEST_F(deploy_target_test, a_region_the_file_lacks_is_an_error_naming_the_markers) {
  auto target = read(std::string{minimal} + "region = \"other\"\n");
  ASSERT_FALSE(target);
  const auto text = errors_of(target.error());
  EXPECT_NE(text.find("deploy.region"), std::string::npos);
  EXPECT_NE(text.find("// warpforge:begin other"), std::string::npos) << text;
}

TEST_F(deploy_target_test, a_file_leading_out_with_dot_dot_is_an_error_naming_the_key) {
  testing::write_file(dir / "outside.cu", "x\n");
  auto target = read("project = \"app\"\nfile = \"../outside.cu\"\nbuild = \"b\"\nverify = \"v\"\nresult_key = \"k\"\n");
  ASSERT_FALSE(target);
  const auto text = errors_of(target.error());
  EXPECT_NE(text.find("problem.toml:4:8: deploy.file: '../outside.cu' leads outside the project"), std::string::npos)
    << text;
}

TEST_F(deploy_target_test, a_file_that_is_a_symbolic_link_out_of_the_project_is_an_error) {
  testing::write_file(dir / "outside.cu", "x\n");
  std::filesystem::create_symlink("../../outside.cu", project / "src/link.cu");
  auto target = read("project = \"app\"\nfile = \"src/link.cu\"\nbuild = \"b\"\nverify = \"v\"\nresult_key = \"k\"\n");
  ASSERT_FALSE(target);
  const auto text = errors_of(target.error());
  EXPECT_NE(text.find("deploy.file"), std::string::npos);
  EXPECT_NE(text.find("through a symbolic link, outside the project"), std::string::npos) << text;
}

TEST_F(deploy_target_test, a_folder_link_out_of_the_project_is_caught_too) {
  std::filesystem::create_directories(dir / "elsewhere");
  testing::write_file(dir / "elsewhere/k.cu", "x\n");
  std::filesystem::create_directory_symlink("../elsewhere", project / "linked");
  auto target = read("project = \"app\"\nfile = \"linked/k.cu\"\nbuild = \"b\"\nverify = \"v\"\nresult_key = \"k\"\n");
  ASSERT_FALSE(target);
  EXPECT_NE(errors_of(target.error()).find("outside the project"), std::string::npos);
}

TEST_F(deploy_target_test, bad_values_are_each_reported) {
  auto target = read(std::string{minimal} + "repeats = 0\ngain_threshold = -1\nbuild_timeout_s = 0\n"
                                            "timing = \"observd\"\nproject_x = 1\n");
  ASSERT_FALSE(target);
  const auto text = errors_of(target.error());
  EXPECT_NE(text.find("deploy.repeats: must be 1 to"), std::string::npos) << text;
  EXPECT_NE(text.find("deploy.gain_threshold"), std::string::npos);
  EXPECT_NE(text.find("deploy.build_timeout_s: must be positive"), std::string::npos);
  EXPECT_NE(text.find("deploy.timing"), std::string::npos);
  EXPECT_NE(text.find("did you mean 'observed'"), std::string::npos) << text;
}

TEST_F(deploy_target_test, a_missing_project_folder_is_an_error) {
  auto target = read("project = \"nope\"\nfile = \"k.cu\"\nbuild = \"b\"\nverify = \"v\"\nresult_key = \"k\"\n");
  ASSERT_FALSE(target);
  EXPECT_NE(errors_of(target.error()).find("deploy.project: the project folder"), std::string::npos);
}

TEST_F(deploy_target_test, the_guard_writes_only_the_target_file_and_the_marker) {
  const auto t = target();
  EXPECT_TRUE(write_inside_project(t, t.file, project_write::replace, "new\n"));
  EXPECT_EQ(kernel_text(), "new\n");
  auto other = write_inside_project(t, t.project / "build.sh", project_write::replace, "rm -rf /\n");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("neither the target file"), std::string::npos);
  auto outside = write_inside_project(t, dir / "x.txt", project_write::replace, "x\n");
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("outside the project"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.txt"));
  EXPECT_TRUE(write_inside_project(t, marker_path(t), project_write::create_exclusive, "{}"));
  auto twice = write_inside_project(t, marker_path(t), project_write::create_exclusive, "{}");
  ASSERT_FALSE(twice);
  EXPECT_TRUE(twice.error().exists);
  EXPECT_TRUE(write_inside_project(t, marker_path(t), project_write::remove));
  EXPECT_FALSE(marker_exists());
}

TEST_F(deploy_target_test, every_timing_source_has_a_name_that_reads_back) {
  for (auto source : all_timing_sources)
    EXPECT_EQ(timing_source_from_string(to_string(source)), source);
  EXPECT_FALSE(timing_source_from_string("ncu"));
}

} // namespace
} // namespace warpforge::deploy
