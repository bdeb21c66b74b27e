#pragma once
// Shared by the llm/reply tests: files of the source tree, the built-in catalog's method ids, the
// contracts of the real examples, and a small valid kernel to vary.

#include "llm/reply/contract.hpp"
#include "sass/method_catalog.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace warpforge::llm::testing {

inline std::string read_text(const std::filesystem::path& relative) {
  std::ifstream in{std::filesystem::path{WARPFORGE_SOURCE_DIR} / relative, std::ios::binary};
  EXPECT_TRUE(in.good()) << relative;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> catalog_ids() {
  std::vector<std::string> ids;
  for (const auto& method : sass::method_catalog::builtin().methods())
    ids.push_back(method.id);
  return ids;
}

/// The contract of examples/<example>/kernel.cu's `entry`; fails the test if there is none.
inline kernel_contract example_contract(const std::string& example, const std::string& entry,
                                        std::uint32_t max_variants = 8) {
  auto contract = contract_from_source(read_text("examples/" + example + "/kernel.cu"), entry,
                                       catalog_ids(), max_variants);
  EXPECT_TRUE(contract.has_value()) << (contract ? "" : contract.error());
  return contract ? *contract : kernel_contract{};
}

/// A complete, valid kernel for the contract extern "C" "scale(const float*, float*, int)".
inline const std::string scale_kernel = R"(// y = 2 x
extern "C" __global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    y[i] = 2.0f * x[i];
}
)";

inline kernel_contract scale_contract(std::uint32_t max_variants = 4) {
  return kernel_contract{"scale", {"const float*", "float*", "int"}, catalog_ids(), max_variants, true, ""};
}

} // namespace warpforge::llm::testing
