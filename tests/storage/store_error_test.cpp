#include "storage/store_error.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace warpforge::storage {
namespace {

TEST(StoreError, EveryCodeHasAStableName) {
  const std::vector<std::pair<store_error_code, std::string_view>> expected_names{
      {store_error_code::cannot_open, "cannot_open"},
      {store_error_code::not_a_run_directory, "not_a_run_directory"},
      {store_error_code::schema_too_new, "schema_too_new"},
      {store_error_code::schema_too_old, "schema_too_old"},
      {store_error_code::migration_failed, "migration_failed"},
      {store_error_code::constraint, "constraint"},
      {store_error_code::io, "io"},
      {store_error_code::not_found, "not_found"},
      {store_error_code::busy, "busy"},
      {store_error_code::read_only, "read_only"},
      {store_error_code::corrupt, "corrupt"},
      {store_error_code::invalid_argument, "invalid_argument"},
      {store_error_code::sql, "sql"},
  };
  for (const auto& [code, name] : expected_names) {
    EXPECT_EQ(to_string(code), name);
    EXPECT_EQ(from_string<store_error_code>(name), code);
  }
  EXPECT_FALSE(from_string<store_error_code>("no_such_code"));
}

TEST(StoreError, ContextIsPutInFrontOfTheMessage) {
  store_error error{store_error_code::constraint, "UNIQUE constraint failed: jobs.name"};
  auto named = with_context(error, "insert_job");
  EXPECT_EQ(named.code, store_error_code::constraint);
  EXPECT_EQ(to_string(named), "constraint: insert_job: UNIQUE constraint failed: jobs.name");
}

} // namespace
} // namespace warpforge::storage
