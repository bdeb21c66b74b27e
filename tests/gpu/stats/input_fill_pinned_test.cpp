// The input generator's output is pinned: the SHA-256 of the first pinned_elements elements of
// every dtype under a set of init specs (every distribution but `normal`, whose formula changed
// once: docs/measurement.md) must equal tests/gpu/fixtures/input_fill_digests.txt. That file was
// written by the host generator before it moved into gpu/check/counter_generator.hpp (the header
// the device fill kernel shares), so the port is checked bit for bit against the old code.
// Changing a digest changes every campaign's inputs: do it deliberately, and say so.
#include "gpu/check/input_fill.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace warpforge::gpu;
using warpforge::config::all_dtypes;
using warpforge::config::dtype;
using warpforge::config::init_kind;
using warpforge::config::init_spec;
using warpforge::config::size_of;

namespace {

constexpr std::uint64_t seed = 20240917; // config::defaults::seed
constexpr std::uint64_t arg = 3;
// Past 65519 (f16's largest finite iota), 2^16 (16-bit wrap) and 2048 (f16's exact integers).
constexpr std::size_t pinned_elements = 65541;

struct pinned_case {
  std::string name;
  init_spec init;
};

init_spec uniform(double low, double high) {
  init_spec init;
  init.kind = init_kind::uniform;
  init.low = low;
  init.high = high;
  return init;
}

init_spec constant(double value) {
  init_spec init;
  init.kind = init_kind::constant;
  init.value = value;
  return init;
}

init_spec of_kind(init_kind kind) {
  init_spec init;
  init.kind = kind;
  return init;
}

std::vector<pinned_case> pinned_cases() {
  return {
    {"uniform_default", uniform(-1.0, 1.0)},
    {"uniform_unit", uniform(0.0, 1.0)},
    {"uniform_wide", uniform(-300.5, 1000.25)},
    {"uniform_huge", uniform(-1e30, 1e30)},
    {"uniform_one_f16_ulp", uniform(1.0, 1.0 + std::ldexp(1.0, -10))},
    {"uniform_tiny", uniform(-1e-6, 1e-6)},
    {"constant_3", constant(3.0)},
    {"constant_tie", constant(-1.5)},
    {"constant_70000", constant(70000.0)},
    {"constant_1e39", constant(1e39)},
    {"constant_subnormal", constant(1e-7)},
    {"zeros", of_kind(init_kind::zeros)},
    {"ones", of_kind(init_kind::ones)},
    {"iota", of_kind(init_kind::iota)},
  };
}

std::string sha256_hex(const std::vector<std::byte>& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EXPECT_EQ(EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr), 1);
  std::string hex;
  char two[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(two, sizeof two, "%02x", digest[i]);
    hex += two;
  }
  return hex;
}

// "dtype case" -> digest, from the fixture.
std::map<std::string, std::string> pinned_digests() {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/gpu/fixtures/input_fill_digests.txt"};
  EXPECT_TRUE(in) << "missing tests/gpu/fixtures/input_fill_digests.txt";
  std::map<std::string, std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields{line};
    std::string type, name, digest;
    fields >> type >> name >> digest;
    out[type + " " + name] = digest;
  }
  return out;
}

} // namespace

TEST(input_fill_pinned, every_dtype_and_distribution_but_normal_matches_the_pinned_digests) {
  const auto pinned = pinned_digests();
  std::size_t checked = 0;
  for (dtype type : all_dtypes)
    for (const auto& c : pinned_cases()) {
      const std::string key = std::string{to_string(type)} + " " + c.name;
      std::vector<std::byte> buffer(pinned_elements * size_of(type));
      ASSERT_TRUE(fill_input(buffer, type, c.init, seed, arg)) << key;
      const auto found = pinned.find(key);
      ASSERT_NE(found, pinned.end()) << "no pinned digest for " << key;
      EXPECT_EQ(sha256_hex(buffer), found->second) << key;
      ++checked;
    }
  EXPECT_EQ(checked, pinned.size()) << "the fixture pins cases this test no longer checks";
}
