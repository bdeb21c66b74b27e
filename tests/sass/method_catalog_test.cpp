#include "sass/method_catalog.hpp"

#include "sass_test_support.hpp"

#include <gtest/gtest.h>

#include <set>

namespace warpforge::sass {
namespace {

/// A minimal valid [[method]] with the given overrides appended.
std::string method(std::string_view id, std::string_view axis, int priority,
                   std::string_view extra = "") {
  return "[[method]]\nid = \"" + std::string{id} + "\"\naxis = \"" + std::string{axis} +
         "\"\npriority = " + std::to_string(priority) +
         "\nname = \"n\"\nfindings = [\"memory_bound\"]\n" + std::string{extra} + "\n";
}

toml_reader::placed_errors errors_of(std::string_view text) {
  auto parsed = method_catalog::parse(text, "cat.toml");
  if (parsed) {
    ADD_FAILURE() << "parsed, but should not have:\n" << text;
    return {};
  }
  return parsed.error();
}

TEST(SassMethodCatalog, EveryAxisAndDirectionRoundTripsThroughItsName) {
  for (auto axis : all_method_axes)
    EXPECT_EQ(method_axis_from_string(to_string(axis)), axis);
  for (auto direction : all_trigger_directions)
    EXPECT_EQ(trigger_direction_from_string(to_string(direction)), direction);
  EXPECT_EQ(method_axis_from_string("bandwidth"), std::nullopt);
  EXPECT_EQ(trigger_direction_from_string("low"), std::nullopt);
}

TEST(SassMethodCatalog, TheBuiltInCatalogHasTwentyTwoTwentyTwoAndNineteenMethodsByPriority) {
  const auto& catalog = method_catalog::builtin();
  EXPECT_EQ(catalog.file(), builtin_catalog_file);
  EXPECT_EQ(catalog.methods().size(), 63u);
  const std::pair<method_axis, std::size_t> sizes[] = {
      {method_axis::compute, 22}, {method_axis::memory, 22}, {method_axis::latency, 19}};
  for (const auto& [axis, size] : sizes) {
    const auto methods = catalog.on_axis(axis);
    ASSERT_EQ(methods.size(), size) << to_string(axis);
    for (std::size_t i = 0; i < methods.size(); ++i) {
      EXPECT_EQ(methods[i]->priority, i + 1) << methods[i]->id;
      EXPECT_EQ(methods[i]->id.substr(0, methods[i]->id.find('.')), to_string(axis));
      EXPECT_FALSE(methods[i]->name.empty());
      EXPECT_FALSE(methods[i]->findings.empty()) << methods[i]->id;
    }
  }
  EXPECT_EQ(catalog.on_axis(method_axis::compute).front()->id, "compute.tensor_core");
  EXPECT_EQ(catalog.on_axis(method_axis::memory).front()->id, "memory.kernel_fusion");
  EXPECT_EQ(catalog.on_axis(method_axis::latency).front()->id, "latency.async_pipeline");
  EXPECT_EQ(catalog.on_axis(method_axis::latency).back()->id, "latency.atomic_optimize");
}

TEST(SassMethodCatalog, TheBuiltInCatalogKeepsTheRegistrysArchitecturesAndTriggers) {
  const auto& catalog = method_catalog::builtin();
  EXPECT_EQ(catalog.find("compute.tensor_core")->min_sm, 70u);
  EXPECT_EQ(catalog.find("compute.warp_shuffle")->min_sm, 30u);
  EXPECT_EQ(catalog.find("memory.ldmatrix_stmatrix")->min_sm, 75u);
  EXPECT_EQ(catalog.find("memory.async_copy")->min_sm, 80u);
  EXPECT_EQ(catalog.find("latency.pdl_overlap")->min_sm, 90u);
  EXPECT_EQ(catalog.find("compute.block_scaled_precision")->min_sm, 100u);
  EXPECT_EQ(catalog.find("memory.kernel_fusion")->min_sm, 0u);

  const auto& tensor = *catalog.find("compute.tensor_core")->trigger;
  EXPECT_EQ(tensor.metric, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active");
  EXPECT_EQ(tensor.direction, trigger_direction::low_is_bad);
  EXPECT_EQ(tensor.bad, 20.0);
  EXPECT_EQ(tensor.good, 60.0);

  const auto& mixed = *catalog.find("compute.mixed_precision")->trigger;
  EXPECT_EQ(mixed.direction, trigger_direction::high_is_bad);
  EXPECT_EQ(mixed.bad, 50.0);
  EXPECT_EQ(mixed.good, 30.0);

  const auto& fusion = *catalog.find("memory.kernel_fusion")->trigger;
  EXPECT_EQ(fusion.metric, "dram__bytes.sum");
  EXPECT_EQ(fusion.direction, trigger_direction::high_is_bad);
  EXPECT_EQ(fusion.bad, std::nullopt);
  EXPECT_FALSE(catalog.find("compute.reduction")->trigger.has_value());

  const auto& vectorized = catalog.find("memory.vectorized_access")->findings;
  EXPECT_NE(std::find(vectorized.begin(), vectorized.end(), "stall_mio_throttle"), vectorized.end());
}

TEST(SassMethodCatalog, EveryCatalogIdHasASignatureEntryAndBothFilesAgree) {
  const auto& catalog = method_catalog::builtin();
  const auto& table = signature_table::builtin();
  for (const auto& entry : catalog.methods()) {
    EXPECT_EQ(entry.signature, entry.id);
    EXPECT_NE(table.find(entry.id), nullptr) << entry.id;
  }
  EXPECT_EQ(toml_reader::to_string(cross_check(catalog, table)), "");
}

TEST(SassMethodCatalog, CoupledPairsAreSymmetricAndNameCatalogMethods) {
  const auto& catalog = method_catalog::builtin();
  EXPECT_EQ(catalog.couplings().size(), 10u);
  EXPECT_TRUE(catalog.coupled("memory.multi_stage_pipeline", "latency.async_pipeline"));
  EXPECT_TRUE(catalog.coupled("latency.async_pipeline", "memory.multi_stage_pipeline"));
  EXPECT_TRUE(catalog.coupled("memory.split_k_parallel_reduce", "latency.stream_k_load_balancing"));
  EXPECT_FALSE(catalog.coupled("compute.tensor_core", "memory.async_copy"));
  for (const auto& coupling : catalog.couplings())
    for (const auto& id : coupling.methods)
      EXPECT_NE(catalog.find(id), nullptr) << id;
}

TEST(SassMethodCatalog, LoadsAUsersCatalogFromAFile) {
  const test::temp_dir dir;
  const auto file = dir.write(
      "mine.toml", method("memory.a", "memory", 1, "min_sm = 80\nsignature = \"sig.a\"") +
                       method("memory.b", "memory", 2,
                              "trigger = { metric = \"m\", direction = \"high_is_bad\", bad = 3, "
                              "good = 1 }"));
  auto catalog = method_catalog::load(file);
  ASSERT_TRUE(catalog) << toml_reader::to_string(catalog.error());
  EXPECT_EQ(catalog->find("memory.a")->signature, "sig.a");
  EXPECT_EQ(catalog->find("memory.a")->min_sm, 80u);
  EXPECT_EQ(catalog->find("memory.b")->signature, "memory.b"); // defaults to the id
  EXPECT_EQ(catalog->find("memory.b")->trigger->bad, 3.0);
  EXPECT_EQ(catalog->find("memory.b")->line, 9u); // the first entry has one line more
}

TEST(SassMethodCatalog, AnUnknownAxisIsNamedByFileLineAndKey) {
  const auto errors = errors_of(method("memory.a", "bandwith", 1));
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(
    toml_reader::to_string(errors.front()),
    "cat.toml:3:8: method[0].axis: unknown value 'bandwith'; expected one of compute, memory "
    "or latency");
}

TEST(SassMethodCatalog, ADuplicateIdNamesTheFirstLine) {
  const auto errors = errors_of(method("memory.a", "memory", 1) + method("memory.a", "memory", 2));
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].line, 9u);
  EXPECT_EQ(errors[0].key, "method[1].id");
  EXPECT_NE(errors[0].message.find("duplicate id 'memory.a' (first at line 2)"), std::string::npos);
}

TEST(SassMethodCatalog, TheIdsAxisMustBeTheAxis) {
  const auto errors = errors_of(method("memory.a", "latency", 1));
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].key, "method[0].id");
  EXPECT_NE(errors[0].message.find("differs from axis = 'latency'"), std::string::npos);
  EXPECT_EQ(errors_of(method("Memory-A", "memory", 1)).front().key, "method[0].id");
}

TEST(SassMethodCatalog, APriorityIsUniqueWithinItsAxis) {
  const auto errors = errors_of(method("memory.a", "memory", 1) + method("memory.b", "memory", 1) +
                                method("latency.c", "latency", 1));
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].key, "method[1].priority");
  EXPECT_NE(errors[0].message.find("already taken by 'memory.a'"), std::string::npos);
}

TEST(SassMethodCatalog, AnUnknownFindingSuggestsTheRuleId) {
  const std::string text = "[[method]]\nid = \"memory.a\"\naxis = \"memory\"\npriority = 1\n"
                           "name = \"n\"\nfindings = [\"memory_bound\", \"bank_conflict\"]\n";
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].key, "method[0].findings[1]");
  EXPECT_EQ(errors[0].line, 6u);
  EXPECT_EQ(errors[0].hint, "did you mean 'bank_conflicts'?");
}

TEST(SassMethodCatalog, ATriggerMustAgreeWithItsDirection) {
  auto errors = errors_of(method("memory.a", "memory", 1,
                                 "trigger = { metric = \"m\", direction = \"low_is_bad\", bad = 60, "
                                 "good = 20 }"));
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].key, "method[0].trigger");
  EXPECT_NE(errors[0].message.find("contradict direction 'low_is_bad'"), std::string::npos);

  errors = errors_of(method("memory.a", "memory", 1, "trigger = { metric = \"m\", bad = 1 }"));
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].key, "method[0].trigger.direction");

  errors = errors_of(method("memory.a", "memory", 1, "trigger = { metrc = \"m\" }"));
  ASSERT_EQ(errors.size(), 2u) << toml_reader::to_string(errors); // unknown key + missing metric
}

TEST(SassMethodCatalog, ACoupledPairMustNameTwoKnownMethods) {
  auto errors = errors_of(method("memory.a", "memory", 1) +
                          "[[coupled]]\nmethods = [\"memory.a\", \"memory.zz\"]\n");
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].key, "coupled[0].methods[1]");
  EXPECT_NE(errors[0].message.find("unknown method 'memory.zz'"), std::string::npos);

  errors = errors_of(method("memory.a", "memory", 1) + "[[coupled]]\nmethods = [\"memory.a\"]\n");
  EXPECT_NE(errors.at(0).message.find("expected two method ids"), std::string::npos);
}

TEST(SassMethodCatalog, CrossCheckNamesAMissingSignatureInTheCatalog) {
  auto catalog = method_catalog::parse(method("memory.a", "memory", 1) +
                                           method("memory.b", "memory", 2, "signature = \"gone\""),
                                       "cat.toml");
  ASSERT_TRUE(catalog) << toml_reader::to_string(catalog.error());
  auto table = signature_table::parse("[[signature]]\nid = \"memory.a\"\npatterns = ['^A']\n",
                                      "sig.toml");
  ASSERT_TRUE(table);
  const auto errors = cross_check(*catalog, *table);
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors);
  EXPECT_EQ(errors[0].file, "cat.toml");
  EXPECT_EQ(errors[0].line, 8u);
  EXPECT_EQ(errors[0].key, "method[1].signature");
  EXPECT_NE(errors[0].message.find("signature 'gone' of method 'memory.b' is not in sig.toml"),
            std::string::npos);
}

TEST(SassMethodCatalog, CrossCheckNamesASignatureForAnUnknownMethodInTheTable) {
  auto catalog = method_catalog::parse(method("memory.a", "memory", 1), "cat.toml");
  ASSERT_TRUE(catalog);
  auto table = signature_table::parse("[[signature]]\nid = \"memory.a\"\npatterns = ['^A']\n\n"
                                      "[[signature]]\nid = \"latency.nope\"\npatterns = ['^B']\n\n"
                                      "[[signature]]\nid = \"spills\"\npatterns = ['^STL']\n",
                                      "sig.toml");
  ASSERT_TRUE(table);
  const auto errors = cross_check(*catalog, *table);
  ASSERT_EQ(errors.size(), 1u) << toml_reader::to_string(errors); // "spills" is a short name: fine
  EXPECT_EQ(toml_reader::to_string(errors[0]).substr(0, 32), "sig.toml:5: signature[1].id: sig");
  EXPECT_NE(errors[0].message.find("'latency.nope' names no method of cat.toml"), std::string::npos);
}

TEST(SassMethodCatalog, AFileThatCannotBeReadIsAnErrorNamingIt) {
  auto catalog = method_catalog::load("/no/such/catalog.toml");
  ASSERT_FALSE(catalog);
  EXPECT_EQ(catalog.error().front().file, "/no/such/catalog.toml");
  EXPECT_EQ(catalog.error().front().line, 0u);
}

} // namespace
} // namespace warpforge::sass
