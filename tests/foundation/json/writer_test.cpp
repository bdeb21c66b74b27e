#include "foundation/json/writer.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>

namespace warpforge::json {
namespace {

TEST(JsonWriter, WritesNestedContainersWithCommasInTheRightPlaces) {
  writer w;
  w.begin_object()
    .key("a").value(1)
    .key("list").begin_array().value("x").value(true).null().end_array()
    .key("empty").begin_object().end_object()
    .end_object();
  EXPECT_EQ(w.view(), R"({"a":1,"list":["x",true,null],"empty":{}})");
}

TEST(JsonWriter, EscapesControlCharactersQuotesAndBackslashes) {
  writer w;
  w.value(std::string_view{"q\"b\\n\n\t\x01", 8});
  EXPECT_EQ(w.view(), R"("q\"b\\n\n\t\u0001")");
}

TEST(JsonWriter, WritesNonFiniteDoublesAsNullAndRoundTripsFiniteOnes) {
  writer w;
  w.begin_array()
    .value(std::numeric_limits<double>::quiet_NaN())
    .value(std::numeric_limits<double>::infinity())
    .value(0.1)
    .end_array();
  simdjson::dom::parser parser;
  auto doc = parser.parse(w.view());
  ASSERT_FALSE(doc.error());
  auto array = doc.value().get_array().value();
  EXPECT_TRUE(array.at(0).value().is_null());
  EXPECT_TRUE(array.at(1).value().is_null());
  EXPECT_EQ(array.at(2).value().get_double().value(), 0.1);
}

TEST(JsonWriter, UnbalancedEndIsAnInvariantViolation) {
  writer w;
  EXPECT_THROW(w.end_object(), std::logic_error);
}

} // namespace
} // namespace warpforge::json
