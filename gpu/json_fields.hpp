#pragma once
// Reading warpforge's own JSON documents (runner protocol, device reports) into structs with
// simdjson's DOM API. Every failure names the field and what was wrong with it; nothing throws.
// Internal to gpu/: include it only from .cpp files (simdjson.h is heavy to compile).

#include "foundation/expected/expected.hpp"
#include "gpu/json_error.hpp"

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// Parses `text` and returns its top-level object.
expected<simdjson::dom::object, json_error> parse_object(simdjson::dom::parser& parser,
                                                         std::string_view text,
                                                         std::string_view context);

/// Reads fields of one JSON object. The first failure is kept and later reads become no-ops,
/// so a decoder reads every field and checks ok() once at the end.
class json_object_reader {
public:
  json_object_reader(simdjson::dom::object object, std::string context);

  void required(std::string_view key, std::string& out);
  void required(std::string_view key, std::uint64_t& out);
  void required(std::string_view key, std::int64_t& out);
  void required(std::string_view key, int& out);
  void required(std::string_view key, bool& out);
  void required(std::string_view key, simdjson::dom::object& out);
  void required(std::string_view key, simdjson::dom::array& out);
  /// An array of strings, appended to `out`; "element N is not a string" otherwise.
  void required(std::string_view key, std::vector<std::string>& out);
  /// A string naming one value of an enum, read with `parse` (the enum's from_string); a name it
  /// does not know is an error: "unknown value 'x'".
  template <class Enum>
  void required(std::string_view key, Enum& out, std::optional<Enum> (*parse)(std::string_view)) {
    std::string text;
    required(key, text);
    if (!ok())
      return;
    if (auto parsed = parse(text))
      out = *parsed;
    else
      fail(key, "unknown value '" + text + "'");
  }
  /// Absent or null leaves `out` unchanged; present with another type is an error.
  void optional(std::string_view key, std::string& out);
  void optional(std::string_view key, std::optional<std::string>& out);

  /// The object's key, for nested readers' context ("reply.body.devices[0]").
  std::string context_of(std::string_view key) const;

  bool ok() const { return !error_; }
  /// Records a failure found by the caller (e.g. an unknown enum value).
  void fail(std::string_view key, std::string_view problem);
  const json_error& error() const { return *error_; }

private:
  std::optional<simdjson::dom::element> find(std::string_view key, bool required);
  template <class T>
  void read_required(std::string_view key, T& out, std::string_view expected);

  simdjson::dom::object object_;
  std::string context_;
  std::optional<json_error> error_;
};

} // namespace warpforge::gpu
