// The shared host/device generator (gpu/check/counter_generator.hpp): its basic-operation
// logarithm and cosine are accurate, its rounding matches the host's IEEE conversions, and the
// `normal` inputs it makes stay normal. (Its other distributions are pinned bit for bit by
// input_fill_pinned_test.cpp; host == device is checked on a GPU by gpu_runner_device_tests.)
#include "gpu/check/counter_generator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

using namespace warpforge::gpu;
namespace gen = warpforge::gpu::generator;

namespace {

constexpr std::uint64_t seed = 20240917;
constexpr int test_points = 200000;

// Distance in units in the last place between two finite doubles of the same sign.
double ulps(double got, double want) {
  if (got == want)
    return 0.0;
  return std::fabs(got - want) / (std::nextafter(std::fabs(want), INFINITY) - std::fabs(want));
}

// The standard normal CDF.
double phi(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

} // namespace

TEST(counter_generator, natural_log_is_within_one_ulp_of_libm) {
  std::mt19937_64 random{1};
  double worst = 0.0;
  for (int i = 0; i < test_points; ++i) {
    // The generator's own arguments: 1 - u for u = k 2^-53 ...
    const double u = static_cast<double>(random() >> 11) * 0x1p-53;
    const double x = 1.0 - u;
    if (x != 1.0)
      worst = std::max(worst, ulps(gen::natural_log(x), std::log(x)));
    // ... and any positive normal double.
    const double y = std::ldexp(1.0 + static_cast<double>(random() >> 12) * 0x1p-52,
                                static_cast<int>(random() % 2000) - 1000);
    if (y != 1.0)
      worst = std::max(worst, ulps(gen::natural_log(y), std::log(y)));
  }
  EXPECT_LE(worst, 1.0);
  EXPECT_EQ(gen::natural_log(1.0), 0.0);
  EXPECT_EQ(gen::natural_log(0x1p-53), std::log(0x1p-53));
}

TEST(counter_generator, cos_two_pi_is_accurate_on_the_whole_turn) {
  std::mt19937_64 random{2};
  double worst = 0.0;
  for (int i = 0; i < test_points; ++i) {
    const double u = static_cast<double>(random() >> 11) * 0x1p-53;
    // 80-bit long double: a reference more precise than the double under test.
    const long double want = std::cos(2.0L * std::numbers::pi_v<long double> * static_cast<long double>(u));
    worst = std::max(worst, static_cast<double>(std::fabs(static_cast<long double>(gen::cos_two_pi(u)) - want)));
  }
  EXPECT_LT(worst, 4e-16); // absolute: a couple of ulps of 1
  EXPECT_EQ(gen::cos_two_pi(0.0), 1.0);
  EXPECT_EQ(gen::cos_two_pi(0.5), -1.0);
  EXPECT_EQ(gen::cos_two_pi(0.25), 0.0);
}

TEST(counter_generator, rounding_to_f32_matches_the_hosts_conversion) {
  std::mt19937_64 random{3};
  for (int i = 0; i < test_points; ++i) {
    // Doubles across f32's whole range, subnormals and overflow included.
    const double mantissa = 1.0 + static_cast<double>(random() >> 12) * 0x1p-52;
    const int exponent = static_cast<int>(random() % 300) - 160;
    const double value = (random() & 1 ? -1.0 : 1.0) * std::ldexp(mantissa, exponent);
    if (std::fabs(value) >= 0x1p128) // static_cast<float> is undefined there; inf by IEEE
      continue;
    ASSERT_EQ(gen::encode_binary(value, 8, 23), std::bit_cast<std::uint32_t>(static_cast<float>(value)))
      << value;
  }
  // The overflow threshold: FLT_MAX + half an ulp ties to even, i.e. up to infinity.
  EXPECT_EQ(gen::encode_binary(0x1p128 - 0x1p103, 8, 23), 0x7F800000u);
  EXPECT_EQ(gen::encode_binary(std::nextafter(0x1p128 - 0x1p103, 0.0), 8, 23), 0x7F7FFFFFu);
}

TEST(counter_generator, decoding_is_exact_for_every_f16_and_bf16_pattern) {
  for (std::uint64_t bits = 0; bits < 0x10000; ++bits) {
    const double f16 = gen::decode_binary(bits, 5, 10);
    const double bf16 = gen::decode_binary(bits, 8, 7);
    if (!std::isnan(f16)) {
      ASSERT_EQ(gen::encode_binary(f16, 5, 10), bits) << std::hex << bits;
    }
    // bf16 is the top half of an f32: the same value as the float with those bits.
    ASSERT_TRUE(std::isnan(bf16) ? std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits << 16)))
                                 : bf16 == std::bit_cast<float>(static_cast<std::uint32_t>(bits << 16)))
      << std::hex << bits;
  }
}

TEST(counter_generator, round_to_nearest_even_matches_nearbyint) {
  for (double v : {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999999999999996, 0x1p52 - 0.5, -0x1p52 + 0.5,
                   1e300, -7.5, 3.0, 1e-300})
    EXPECT_EQ(gen::round_to_nearest_even(v), std::nearbyint(v) + 0.0) << v; // +0.0: -0 == +0
}

TEST(counter_generator, normal_deviates_stay_standard_normal) {
  const std::uint64_t key = gen::stream_key(seed, 0);
  constexpr std::size_t n = 1 << 20;
  std::vector<double> xs(n);
  for (std::size_t i = 0; i < n; ++i)
    xs[i] = gen::normal_deviate(key, i);
  double mean = 0.0;
  for (double x : xs)
    mean += x;
  mean /= n;
  double m2 = 0.0, m3 = 0.0, m4 = 0.0;
  for (double x : xs) {
    const double d = x - mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  // Standard errors at n = 2^20: mean 0.001, variance 0.0014, skewness 0.0024, kurtosis 0.0048.
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(m2, 1.0, 0.007);
  EXPECT_NEAR(m3 / std::pow(m2, 1.5), 0.0, 0.012);
  EXPECT_NEAR(m4 / (m2 * m2), 3.0, 0.024);
  // Kolmogorov-Smirnov distance to the normal CDF, below the 1% critical value 1.63 / sqrt(n).
  std::sort(xs.begin(), xs.end());
  double distance = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double cdf = phi(xs[i]);
    distance = std::max({distance, cdf - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - cdf});
  }
  EXPECT_LT(distance, 1.63 / std::sqrt(static_cast<double>(n)));
}

TEST(counter_generator, normal_differs_from_the_former_libm_formula_only_in_the_last_bits) {
  const std::uint64_t key = gen::stream_key(seed, 5);
  double worst = 0.0;
  for (std::uint64_t i = 0; i < test_points; ++i) {
    const double u1 = gen::unit(key, 2 * i);
    const double u2 = gen::unit(key, 2 * i + 1);
    const double libm = std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
    worst = std::max(worst, std::fabs(gen::normal_deviate(key, i) - libm));
  }
  EXPECT_LT(worst, 1e-14);
}
