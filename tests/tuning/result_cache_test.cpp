#include "tuning/result_cache.hpp"

#include "tuning/point_text.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace warpforge::tuning {
namespace {

namespace fs = std::filesystem;
using vocabulary::branch_outcome;

/// A fresh folder per test, removed with its contents afterwards.
class ResultCache : public ::testing::Test {
protected:
  ResultCache() {
    std::string pattern = (fs::temp_directory_path() / "warpforge-tuner-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed for " + pattern);
    dir_ = pattern;
  }
  ~ResultCache() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path dir_;
};

cache_key key_of(const config::tunable_point& point) {
  return {problem_identity("name = \"t\"", "__global__ void k() {}"),
          gpu_key("NVIDIA H100 80GB HBM3", "sm_90"), canonical_text(point)};
}

TEST_F(ResultCache, AResultWrittenInOneOpenIsFoundInTheNext) {
  const fs::path file = dir_ / "nested" / "tuner.db";
  const config::tunable_point fast{{"TILE", 32}, {"PAD", 1}};
  const config::tunable_point broken{{"TILE", 64}, {"PAD", 0}};
  {
    auto cache = result_cache::open(file);
    ASSERT_TRUE(cache) << to_string(cache.error());
    ASSERT_TRUE(cache->put(key_of(fast), {branch_outcome::passed, 2.1e-4, 0.004}));
    ASSERT_TRUE(cache->put(key_of(broken), {branch_outcome::compile_error, {}, {}}));
  }
  auto cache = result_cache::open(file);
  ASSERT_TRUE(cache) << to_string(cache.error());
  auto hit = cache->find(key_of(fast));
  ASSERT_TRUE(hit);
  ASSERT_TRUE(*hit);
  EXPECT_EQ(**hit, (cached_result{branch_outcome::passed, 2.1e-4, 0.004}));
  auto pruned = cache->find(key_of(broken));
  ASSERT_TRUE(pruned && *pruned);
  EXPECT_EQ((*pruned)->outcome, branch_outcome::compile_error);

  auto all = cache->points_for(key_of(fast).problem, key_of(fast).gpu);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ(parse_point_text((*all)[0].point), broken) << "in point-text order: PAD=0 first";
  EXPECT_EQ(parse_point_text((*all)[1].point), fast);
  EXPECT_EQ((*all)[1].result.median_s, 2.1e-4);
}

TEST_F(ResultCache, TheKeyHasAllThreeParts) {
  auto cache = result_cache::open(dir_ / "tuner.db");
  ASSERT_TRUE(cache);
  const config::tunable_point p{{"BLOCK", 256}};
  ASSERT_TRUE(cache->put(key_of(p), {branch_outcome::passed, 1e-3, {}}));
  auto other_gpu = key_of(p);
  other_gpu.gpu = gpu_key("NVIDIA H200", "sm_90");
  auto other_problem = key_of(p);
  other_problem.problem = problem_identity("name = \"t\"", "__global__ void k() { /* v2 */ }");
  auto other_point = key_of({{"BLOCK", 512}});
  for (const auto& key : {other_gpu, other_problem, other_point}) {
    auto miss = cache->find(key);
    ASSERT_TRUE(miss);
    EXPECT_FALSE(*miss);
  }
}

TEST_F(ResultCache, ALaterPutReplacesTheRow) {
  auto cache = result_cache::open(dir_ / "tuner.db");
  ASSERT_TRUE(cache);
  const auto key = key_of({{"BLOCK", 256}});
  ASSERT_TRUE(cache->put(key, {branch_outcome::passed, 1e-3, 0.01}));
  ASSERT_TRUE(cache->put(key, {branch_outcome::passed, 0.9e-3, {}}));
  auto hit = cache->find(key);
  ASSERT_TRUE(hit && *hit);
  EXPECT_EQ(**hit, (cached_result{branch_outcome::passed, 0.9e-3, std::nullopt}));
}

TEST_F(ResultCache, OutcomesThatMayNotRepeatAreNotKept) {
  auto cache = result_cache::open(dir_ / "tuner.db");
  ASSERT_TRUE(cache);
  // inconsistent and suspicious: a cheat caught once may be lucky next time, so it is measured again
  for (auto outcome : {branch_outcome::timeout, branch_outcome::interrupted, branch_outcome::not_run,
                       branch_outcome::inconsistent, branch_outcome::suspicious}) {
    auto put = cache->put(key_of({{"BLOCK", 1}}), {outcome, {}, {}});
    ASSERT_FALSE(put);
    EXPECT_EQ(put.error().code, storage::store_error_code::invalid_argument);
  }
  auto untimed = cache->put(key_of({{"BLOCK", 1}}), {branch_outcome::passed, {}, {}});
  EXPECT_FALSE(untimed) << "a passed result needs its time";
  for (auto outcome : vocabulary::all_branch_outcomes)
    EXPECT_EQ(is_cacheable(outcome), outcome != branch_outcome::timeout &&
                                         outcome != branch_outcome::interrupted &&
                                         outcome != branch_outcome::not_run &&
                                         outcome != branch_outcome::inconsistent &&
                                         outcome != branch_outcome::suspicious);
}

TEST_F(ResultCache, AFileFromANewerWarpforgeIsRefused) {
  const fs::path file = dir_ / "tuner.db";
  {
    auto conn = storage::connection::open(file, storage::open_mode::read_write_create);
    ASSERT_TRUE(conn);
    ASSERT_TRUE(conn->exec("PRAGMA user_version = 99"));
  }
  auto cache = result_cache::open(file);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().code, storage::store_error_code::schema_too_new);
}

TEST(ResultCachePath, FollowsTheCompileCachesFolderOrder) {
  EXPECT_EQ(default_cache_path({"/w", "/x", "/h"}), fs::path("/w/tuner.db"));
  EXPECT_EQ(default_cache_path({std::nullopt, "/x", "/h"}), fs::path("/x/warpforge/tuner.db"));
  EXPECT_EQ(default_cache_path({"", "", "/h"}), fs::path("/h/.cache/warpforge/tuner.db"));
  EXPECT_EQ(default_cache_path({}), fs::path("/tmp/warpforge-cache/tuner.db"));
}

TEST(ProblemIdentity, ChangesWithTheSpecOrTheKernelText) {
  const auto base = problem_identity("spec", "kernel");
  EXPECT_EQ(base.size(), 16u);
  EXPECT_EQ(base, problem_identity("spec", "kernel"));
  EXPECT_NE(base, problem_identity("spec ", "kernel"));
  EXPECT_NE(base, problem_identity("spec", "kernel2"));
  EXPECT_NE(problem_identity("ab", "c"), problem_identity("a", "bc")) << "fields are delimited";
  EXPECT_NE(base, problem_identity("spec", "kernel", "reference"));
}

TEST(ProblemIdentity, OfAnExampleReadsItsSources) {
  auto spec = config::load_problem(std::string(WARPFORGE_SOURCE_DIR) +
                                   "/examples/transpose/problem.toml");
  ASSERT_TRUE(spec);
  auto id = problem_identity(*spec);
  ASSERT_TRUE(id) << to_string(id.error());
  EXPECT_EQ(id->size(), 16u);
  spec->kernel.source = "/nonexistent/kernel.cu";
  auto missing = problem_identity(*spec);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, tuning_error_code::cannot_read);
}

} // namespace
} // namespace warpforge::tuning
