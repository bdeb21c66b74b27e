#include "deploy/observe/launches/launch_record.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using namespace warpforge::observe;

namespace {

template <class T>
param_bytes bytes_of(T value) {
  return param_bytes{0, sizeof(T), to_hex(&value, sizeof(T))};
}

launch_record named(std::string kernel, std::string demangled) {
  launch_record record;
  record.kernel = std::move(kernel);
  record.demangled = std::move(demangled);
  return record;
}

} // namespace

TEST(launch_record, to_hex_writes_memory_order_in_lowercase) {
  std::uint32_t value = 0x0a0b0cff;
  EXPECT_EQ(to_hex(&value, sizeof value), "ff0c0b0a");
}

TEST(launch_record, integers_decode_with_the_sign_of_their_width) {
  EXPECT_EQ(as_signed(bytes_of<std::int32_t>(-7)), -7);
  EXPECT_EQ(as_unsigned(bytes_of<std::int32_t>(-7)), 0xfffffff9u);
  EXPECT_EQ(as_signed(bytes_of<std::int8_t>(-128)), -128);
  EXPECT_EQ(as_signed(bytes_of<std::int16_t>(300)), 300);
  EXPECT_EQ(as_signed(bytes_of<std::int64_t>(-5'000'000'000)), -5'000'000'000);
  EXPECT_EQ(as_unsigned(bytes_of<std::uint64_t>(0x7f0000a00000)), 0x7f0000a00000u);
}

TEST(launch_record, floats_decode_by_size) {
  EXPECT_EQ(as_float(bytes_of<float>(2.5f)), 2.5);
  EXPECT_EQ(as_float(bytes_of<double>(-0.125)), -0.125);
  EXPECT_EQ(as_float(bytes_of<std::int16_t>(1)), std::nullopt);
}

TEST(launch_record, odd_sizes_and_bad_hex_decode_to_nothing) {
  EXPECT_EQ(as_signed(param_bytes{0, 3, "010203"}), std::nullopt);  // a 3-byte struct
  EXPECT_EQ(as_signed(param_bytes{0, 16, std::string(32, '0')}), std::nullopt);
  EXPECT_EQ(as_signed(param_bytes{0, 4, "0102"}), std::nullopt);    // hex shorter than size
  EXPECT_EQ(as_unsigned(param_bytes{0, 2, "zz00"}), std::nullopt);
  EXPECT_EQ(as_unsigned(param_bytes{0, 2, "FF00"}), 0xffu);         // upper case is accepted
}

TEST(launch_record, base_name_drops_return_type_template_arguments_and_parameters) {
  EXPECT_EQ(kernel_base_name("void scale<float>(float*, int, float)"), "scale");
  EXPECT_EQ(kernel_base_name("void ns::inner::transpose<32, (int)4>(float*, float const*)"),
            "ns::inner::transpose");
  EXPECT_EQ(kernel_base_name("void (anonymous namespace)::transpose<32>(float*, float const*, int, int)"),
            "(anonymous namespace)::transpose");
  EXPECT_EQ(kernel_base_name("void add_one(Pair<int, int>)"), "add_one");
  EXPECT_EQ(kernel_base_name("fill"), "fill");
}

TEST(launch_record, a_kernel_matches_by_symbol_signature_or_base_name) {
  auto templated = named("_Z9transposeILi32EEvPfPKfii",
                         "void transpose<32>(float*, float const*, int, int)");
  EXPECT_TRUE(matches_kernel(templated, "transpose"));
  EXPECT_TRUE(matches_kernel(templated, "_Z9transposeILi32EEvPfPKfii"));
  EXPECT_TRUE(matches_kernel(templated, "void transpose<32>(float*, float const*, int, int)"));
  EXPECT_FALSE(matches_kernel(templated, "transpose_naive"));
  EXPECT_FALSE(matches_kernel(templated, "trans"));
  EXPECT_TRUE(matches_kernel(templated, ""));

  auto anonymous = named("_ZN12_GLOBAL__N_19transposeILi32EEEvPfPKfii",
                         "void (anonymous namespace)::transpose<32>(float*, float const*, int, int)");
  EXPECT_TRUE(matches_kernel(anonymous, "transpose"));
  EXPECT_TRUE(matches_kernel(anonymous, "(anonymous namespace)::transpose"));

  auto extern_c = named("fill", "fill");
  EXPECT_TRUE(matches_kernel(extern_c, "fill"));
  EXPECT_FALSE(matches_kernel(extern_c, "fil"));
  EXPECT_TRUE(matches_kernel(named("fill", ""), "fill")); // not demangled: the symbol serves
}

TEST(launch_record, the_template_id_names_one_instantiation) {
  warpforge::observe::launch_record r256, r32;
  r256.kernel = "_Z7reduce7IiLj256ELb1EEvPKT_PS0_j";
  r256.demangled = "void reduce7<int, 256u, true>(int const*, int*, unsigned int)";
  r32.demangled = "void reduce7<int, 32u, true>(int const*, int*, unsigned int)";
  EXPECT_EQ(warpforge::observe::kernel_template_id(r256.demangled), "reduce7<int, 256u, true>");
  EXPECT_TRUE(warpforge::observe::matches_kernel(r256, "reduce7<int, 256u, true>"));
  EXPECT_FALSE(warpforge::observe::matches_kernel(r32, "reduce7<int, 256u, true>"));
  EXPECT_TRUE(warpforge::observe::matches_kernel(r32, "reduce7")) << "the base name still matches every one";
  EXPECT_EQ(warpforge::observe::kernel_template_id("transposeNaive(float*, int)"), "transposeNaive");
}
