#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/compile_pool.hpp"
#include "gpu/compile/cubin_resources.hpp"

#include "compile_test_support.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

TEST(compile_pool, default_threads_are_between_one_and_four) {
  EXPECT_GE(default_compile_threads(), 1u);
  EXPECT_LE(default_compile_threads(), max_default_compile_threads);
  compile_pool pool;
  EXPECT_EQ(pool.thread_count(), default_compile_threads());
}

TEST(compile_pool, concurrent_compiles_each_return_their_own_result) {
  compile_pool pool(compile_kernel, 4);
  constexpr int blocks[] = {64, 128, 256, 512, 1024, 32};
  std::vector<std::future<compile_result>> futures;
  for (int block : blocks) {
    compile_request request;
    request.source = test::scale_kernel;
    request.entry = "scale";
    request.defines = {{"BLOCK", std::to_string(block)}};
    futures.push_back(pool.submit(request));
  }
  compile_request broken;
  broken.source = "extern \"C\" __global__ void scale() { nope; }\n";
  broken.entry = "scale";
  auto broken_future = pool.submit(broken);

  for (std::size_t i = 0; i < futures.size(); ++i) {
    auto result = futures[i].get();
    ASSERT_TRUE(result) << result.error().log;
    auto resources = read_kernel_resources(result->cubin, "scale");
    ASSERT_TRUE(resources) << resources.error().detail;
    EXPECT_EQ(resources->max_threads_per_block, static_cast<std::uint32_t>(blocks[i]))
        << "the BLOCK define of request " << i;
  }
  auto broken_result = broken_future.get();
  ASSERT_FALSE(broken_result);
  EXPECT_EQ(broken_result.error().kind, compile_failure_kind::compile_error);
}

TEST(compile_pool, a_shared_cached_compiler_serves_concurrent_duplicates) {
  test::scratch_dir dir;
  cached_compiler cached{compile_cache(dir.path)};
  std::vector<std::future<compile_result>> futures;
  {
    compile_pool pool([&](const compile_request& r) { return cached.compile(r); }, 3);
    for (int i = 0; i < 6; ++i) {
      compile_request request;
      request.source = test::scale_kernel;
      request.entry = "scale";
      futures.push_back(pool.submit(request));
    }
  } // the destructor drains the queue
  for (auto& future : futures) {
    auto result = future.get();
    ASSERT_TRUE(result) << result.error().log;
    EXPECT_TRUE(kernel_entries(result->cubin));
  }
  const auto stats = cached.stats();
  EXPECT_EQ(stats.hits + stats.misses, 6u);
  EXPECT_GE(stats.hits, 3u) << "at most one miss per thread";
  EXPECT_EQ(stats.store_failures, 0u);
}
