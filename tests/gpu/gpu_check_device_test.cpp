// Needs a GPU (ctest -L gpu): the runner's device checks in this process, held to their host
// references. The device fill must give the host fill's bytes exactly, for every dtype and
// distribution; the device comparison must give compare_outputs' report for the same buffers;
// the device input check must name the byte inputs_unchanged names; the workspace keeps inputs
// across requests and drops them for another problem. Skips without a usable GPU.
#include "gpu/check/compare.hpp"
#include "gpu/check/element_access.hpp"
#include "gpu/check/float16.hpp"
#include "gpu/check/input_fill.hpp"
#include "gpu/check/poison.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/device_checks.hpp"
#include "gpu/runtime/device_workspace.hpp"
#include "gpu/runtime/timed_verification.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <span>
#include <vector>

using namespace warpforge;
using namespace warpforge::gpu;
using config::dtype;
using config::init_kind;

namespace {

constexpr std::uint64_t seed = 20240917;

device_workspace* workspace() {
  static auto made = [] {
    double setup_s = 0.0;
    auto ws = device_workspace::get(setup_s);
    if (ws)
      std::cout << "workspace made in " << setup_s << " s (check kernels "
                << ((*ws)->checks().cache_hit() ? "from the compile cache" : "compiled by NVRTC") << ")\n";
    return ws;
  }();
  return made ? *made : nullptr;
}

std::string why_no_gpu() {
  double setup_s = 0.0;
  auto ws = device_workspace::get(setup_s);
  return ws ? std::string{} : ws.error();
}

#define REQUIRE_GPU()                                                                              \
  if (!workspace())                                                                                \
  GTEST_SKIP() << "no usable GPU: " << why_no_gpu()

struct device_buffer {
  device_memory memory;
  explicit device_buffer(std::size_t bytes) { EXPECT_TRUE(allocate(memory, std::max<std::size_t>(bytes, 1))); }
  void upload(const std::vector<std::byte>& host) {
    EXPECT_TRUE(WARPFORGE_GPU_CALL(cudaMemcpy(memory.ptr, host.data(), host.size(), cudaMemcpyHostToDevice)));
    // From pageable memory cudaMemcpy may return before its DMA lands, and the workspace's
    // stream is non-blocking (it does not wait for the legacy stream): wait here, or the check
    // kernels may read the buffer half-written.
    EXPECT_TRUE(WARPFORGE_GPU_CALL(cudaDeviceSynchronize()));
  }
  std::vector<std::byte> download(std::size_t bytes) const {
    std::vector<std::byte> host(bytes);
    EXPECT_TRUE(WARPFORGE_GPU_CALL(cudaDeviceSynchronize())); // the workspace's stream is non-blocking
    EXPECT_TRUE(WARPFORGE_GPU_CALL(cudaMemcpy(host.data(), memory.ptr, bytes, cudaMemcpyDeviceToHost)));
    return host;
  }
};

config::init_spec spec(init_kind kind, double a = 0.0, double b = 0.0) {
  config::init_spec init;
  init.kind = kind;
  if (kind == init_kind::uniform && a < b) {
    init.low = a;
    init.high = b;
  }
  if (kind == init_kind::normal) {
    init.mean = a;
    init.stddev = b;
  }
  if (kind == init_kind::constant)
    init.value = a;
  return init;
}

// The first element where two buffers of `type` differ, for a readable failure.
std::string first_difference_text(const std::vector<std::byte>& want, const std::vector<std::byte>& got,
                                  dtype type) {
  const std::size_t n = want.size() / config::size_of(type);
  for (std::size_t i = 0; i < n; ++i)
    if (load_bits(want, type, i) != load_bits(got, type, i)) {
      char text[128];
      std::snprintf(text, sizeof text, "element %zu: host 0x%llx, device 0x%llx", i,
                    static_cast<unsigned long long>(load_bits(want, type, i)),
                    static_cast<unsigned long long>(load_bits(got, type, i)));
      return text;
    }
  return "no element differs";
}

// Field by field, with the first bad values compared by their bits (they may be NaN).
void expect_same_report(const compare_report& host, const compare_report& device, const std::string& what) {
  EXPECT_EQ(device.passed, host.passed) << what;
  EXPECT_EQ(device.elements, host.elements) << what;
  EXPECT_EQ(device.mismatches, host.mismatches) << what;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(device.max_abs_error), std::bit_cast<std::uint64_t>(host.max_abs_error))
    << what << ": max_abs_error device " << device.max_abs_error << ", host " << host.max_abs_error;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(device.max_rel_error), std::bit_cast<std::uint64_t>(host.max_rel_error))
    << what << ": max_rel_error device " << device.max_rel_error << ", host " << host.max_rel_error;
  EXPECT_EQ(device.first_bad_index, host.first_bad_index) << what;
  EXPECT_EQ(device.first_bad_got_bits, host.first_bad_got_bits) << what;
  EXPECT_EQ(device.first_bad_want_bits, host.first_bad_want_bits) << what;
  EXPECT_EQ(std::isnan(device.first_bad_got), std::isnan(host.first_bad_got)) << what;
  if (!std::isnan(host.first_bad_got)) {
    EXPECT_EQ(device.first_bad_got, host.first_bad_got) << what;
  }
  if (!std::isnan(host.first_bad_want)) {
    EXPECT_EQ(device.first_bad_want, host.first_bad_want) << what;
  }
  EXPECT_EQ(device.poisoned_elements, host.poisoned_elements) << what;
}

double value_of(dtype type, std::uint64_t bits) { return to_double(type, bits); }

std::uint64_t bits_of(dtype type, double value) {
  switch (type) {
  case dtype::f16: return double_to_f16(value);
  case dtype::bf16: return double_to_bf16(value);
  case dtype::f32: return std::bit_cast<std::uint32_t>(static_cast<float>(value));
  case dtype::f64: return std::bit_cast<std::uint64_t>(value);
  default: return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
  }
}

} // namespace

TEST(gpu_check_device, device_fill_gives_the_host_fills_bytes_for_every_dtype_and_distribution) {
  REQUIRE_GPU();
  auto& ws = *workspace();
  const std::vector<std::pair<std::string, config::init_spec>> specs{
    {"uniform [-1, 1)", spec(init_kind::uniform, -1.0, 1.0)},
    {"uniform [-300.5, 1000.25)", spec(init_kind::uniform, -300.5, 1000.25)},
    {"uniform [-1e30, 1e30)", spec(init_kind::uniform, -1e30, 1e30)},
    {"normal(0, 1)", spec(init_kind::normal, 0.0, 1.0)},
    {"normal(5, 2)", spec(init_kind::normal, 5.0, 2.0)},
    {"normal(-100, 1e4)", spec(init_kind::normal, -100.0, 1e4)},
    {"constant 3", spec(init_kind::constant, 3.0)},
    {"constant -1.5", spec(init_kind::constant, -1.5)},
    {"zeros", spec(init_kind::zeros)},
    {"ones", spec(init_kind::ones)},
    {"iota", spec(init_kind::iota)},
  };
  std::size_t compared = 0;
  for (dtype type : config::all_dtypes)
    for (const auto& [name, init] : specs)
      for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
        const auto what = std::string{to_string(type)} + " " + name + " n=" + std::to_string(n);
        std::vector<std::byte> host(n * config::size_of(type));
        ASSERT_TRUE(fill_input(host, type, init, seed, 3)) << what;
        auto plan = make_fill_plan(type, init, seed, 3);
        ASSERT_TRUE(plan) << what;
        device_buffer device{host.size()};
        ASSERT_TRUE(ws.checks().fill(*plan, device.memory.ptr, n, ws.stream())) << what;
        ASSERT_TRUE(WARPFORGE_GPU_CALL(cudaStreamSynchronize(ws.stream()))) << what;
        const auto back = device.download(host.size());
        ASSERT_TRUE(back == host) << what << ": " << first_difference_text(host, back, type);
        ++compared;
      }
  std::cout << compared << " device fills equal to the host's, byte for byte\n";
}

TEST(gpu_check_device, device_comparison_gives_the_host_comparisons_report) {
  REQUIRE_GPU();
  auto& ws = *workspace();
  constexpr std::size_t n = 100003;
  const config::tolerance tol{1e-3, 1e-5};
  std::mt19937_64 random{11};
  for (dtype type : config::all_dtypes) {
    const bool floating = config::is_floating_point(type);
    std::vector<std::byte> want(n * config::size_of(type));
    ASSERT_TRUE(fill_input(want, type, floating ? spec(init_kind::uniform, -4.0, 4.0) : spec(init_kind::iota), seed, 1));
    // Identical buffers first.
    device_buffer w{want.size()}, g{want.size()};
    w.upload(want);
    g.upload(want);
    auto same = compare_on_device(ws, type, g.memory.ptr, w.memory.ptr, n, tol);
    ASSERT_TRUE(same) << same.error().detail;
    expect_same_report(*compare_outputs(want, want, type, tol), same->report, std::string{to_string(type)} + " equal");

    // Then every rule at once: within and outside tolerance, NaN on either side, infinities of
    // both signs, a zero reference, the poison pattern on either side, random bit flips.
    auto got = want;
    auto reference = want;
    auto set = [&](std::vector<std::byte>& buffer, std::size_t i, std::uint64_t bits) { store_bits(buffer, type, i, bits); };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    if (floating) {
      set(got, 5, bits_of(type, value_of(type, load_bits(want, type, 5)) * (1.0 + 1e-4))); // within rtol
      set(got, 17, bits_of(type, value_of(type, load_bits(want, type, 17)) + 1.0));          // outside
      set(got, 23, bits_of(type, nan));                                                      // got NaN
      set(reference, 40, bits_of(type, nan));
      set(got, 40, bits_of(type, nan));                                                      // both NaN: ok
      set(reference, 41, bits_of(type, nan));                                                // want NaN only
      set(reference, 50, bits_of(type, inf));
      set(got, 50, bits_of(type, inf));                                                      // equal inf: ok
      set(reference, 51, bits_of(type, inf));
      set(got, 51, bits_of(type, -inf));                                                     // opposite inf
      set(reference, 52, bits_of(type, 0.0));
      set(got, 52, bits_of(type, 1e-3));                                                     // relative inf
      set(got, 60, bits_of(type, inf));                                                      // got inf only
    } else {
      set(got, 17, load_bits(want, type, 17) + 1);
      set(got, 18, load_bits(want, type, 18) - 3);
    }
    set(got, 70, poison_bits(type));
    set(got, 71, poison_bits(type));
    set(reference, 71, poison_bits(type));
    set(reference, 72, poison_bits(type));
    for (int flip = 0; flip < 20; ++flip) {
      const std::size_t i = 1000 + random() % (n - 1000);
      set(got, i, load_bits(got, type, i) ^ (std::uint64_t{1} << (random() % (8 * config::size_of(type)))));
    }
    w.upload(reference);
    g.upload(got);
    auto device = compare_on_device(ws, type, g.memory.ptr, w.memory.ptr, n, tol);
    ASSERT_TRUE(device) << device.error().detail;
    auto host = compare_outputs(got, reference, type, tol);
    ASSERT_TRUE(host);
    EXPECT_FALSE(host->passed);
    expect_same_report(*host, device->report, std::string{to_string(type)} + " perturbed");
    EXPECT_EQ(device->reference_poisoned, count_poisoned(reference, type)) << to_string(type);
  }
}

TEST(gpu_check_device, the_device_input_check_names_the_first_changed_byte) {
  REQUIRE_GPU();
  auto& ws = *workspace();
  std::mt19937_64 random{5};
  for (std::size_t bytes : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9},
                            std::size_t{1000}, std::size_t{4099}, std::size_t{1} << 22}) {
    std::vector<std::byte> before(bytes);
    for (auto& b : before)
      b = static_cast<std::byte>(random());
    device_buffer a{bytes}, b{bytes};
    a.upload(before);
    std::vector<std::size_t> positions{0, bytes / 2, bytes - 1};
    for (std::size_t at : positions) {
      auto after = before;
      after[at] ^= std::byte{0x10};
      if (at + 3 < bytes)
        after[at + 3] ^= std::byte{0x01}; // a later difference must not hide the first
      b.upload(after);
      auto device = first_difference_on_device(ws, a.memory.ptr, b.memory.ptr, bytes);
      ASSERT_TRUE(device) << device.error().detail;
      EXPECT_EQ(*device, inputs_unchanged(before, after)) << bytes << " bytes, changed at " << at;
    }
    b.upload(before);
    auto unchanged = first_difference_on_device(ws, a.memory.ptr, b.memory.ptr, bytes);
    ASSERT_TRUE(unchanged);
    EXPECT_TRUE(unchanged->unchanged) << bytes;
  }
}

TEST(gpu_check_device, sparse_poison_writes_the_pattern_exactly_where_the_host_rule_says) {
  REQUIRE_GPU();
  auto& ws = *workspace();
  verification_random random{31};
  for (auto type : {config::dtype::f32, config::dtype::f16, config::dtype::f64, config::dtype::i8})
    for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{5}, std::uint64_t{1} << 20}) {
      const std::size_t size = config::size_of(type);
      std::vector<std::byte> before(count * size, std::byte{0x11}); // never the poison pattern
      device_buffer buffer{before.size()};
      buffer.upload(before);
      const auto p = sparse_poison_for(random.next(), count);
      ASSERT_TRUE(ws.checks().sparse_poison(type, p, buffer.memory.ptr, count, ws.stream()));
      const auto after = buffer.download(before.size());
      std::vector<std::byte> expected = before;
      std::uint64_t poisoned = 0;
      for (std::uint64_t i = 0; i < count; ++i)
        if (is_poisoned(p, i)) {
          fill_poison(std::span{expected}.subspan(i * size, size), type);
          ++poisoned;
        }
      EXPECT_EQ(after, expected) << config::to_string(type) << " x " << count;
      EXPECT_GE(poisoned, 1u) << "at least one element, however small the buffer";
    }
}

TEST(gpu_check_device, the_workspace_keeps_inputs_for_a_problem_and_drops_them_for_another) {
  REQUIRE_GPU();
  auto& ws = *workspace();
  const auto problem = [](std::uint64_t count) {
    std::vector<candidate_arg> args;
    args.emplace_back(candidate_buffer_arg{"in", dtype::f32, count, config::arg_role::input, spec(init_kind::normal, 0.0, 1.0), {}});
    args.emplace_back(candidate_buffer_arg{"out", dtype::f32, count, config::arg_role::output, {}, {}});
    return args;
  };
  const auto a = problem(1 << 22);
  const auto b = problem((1 << 22) + 1);
  ws.use_problem(a);
  double generated_s = 0.0;
  auto first = ws.pristine(a, seed, generated_s);
  ASSERT_TRUE(first) << first.error().detail;
  EXPECT_GT(generated_s, 0.0);
  const auto* kept = (*first)[0]->buffers[0].ptr;
  generated_s = 0.0;
  auto again = ws.pristine(a, seed, generated_s);
  ASSERT_TRUE(again);
  EXPECT_EQ(generated_s, 0.0) << "reused, not generated";
  EXPECT_EQ((*again)[0]->buffers[0].ptr, kept);
  auto other_seed = ws.pristine(a, seed + 1, generated_s);
  ASSERT_TRUE(other_seed);
  EXPECT_GT(generated_s, 0.0) << "another seed, other inputs";
  EXPECT_EQ(ws.cache().entries(), 2u);

  ws.use_problem(b);
  EXPECT_EQ(ws.cache().entries(), 0u) << "a new problem replaces the old one's buffers";
  std::cout << "cache budget " << (ws.cache().budget() >> 20) << " MiB\n";
}
