#include "gpu/json_fields.hpp"

#include <limits>
#include <utility>

namespace warpforge::gpu {

expected<simdjson::dom::object, json_error> parse_object(simdjson::dom::parser& parser,
                                                         std::string_view text,
                                                         std::string_view context) {
  simdjson::padded_string padded{text};
  simdjson::dom::element root;
  if (auto code = parser.parse(padded).get(root))
    return unexpected(json_error{std::string{context} + ": not JSON (" +
                                 simdjson::error_message(code) + ")"});
  simdjson::dom::object object;
  if (root.get(object) != simdjson::SUCCESS)
    return unexpected(json_error{std::string{context} + ": not a JSON object"});
  return object;
}

json_object_reader::json_object_reader(simdjson::dom::object object, std::string context)
  : object_(object), context_(std::move(context)) {}

std::string json_object_reader::context_of(std::string_view key) const {
  return context_ + "." + std::string{key};
}

void json_object_reader::fail(std::string_view key, std::string_view problem) {
  if (!error_)
    error_ = json_error{context_of(key) + ": " + std::string{problem}};
}

std::optional<simdjson::dom::element> json_object_reader::find(std::string_view key,
                                                               bool required) {
  if (error_)
    return std::nullopt;
  simdjson::dom::element element;
  if (object_.at_key(key).get(element) != simdjson::SUCCESS) {
    if (required)
      fail(key, "missing");
    return std::nullopt;
  }
  return element;
}

void json_object_reader::required(std::string_view key, std::string& out) {
  auto element = find(key, true);
  if (!element)
    return;
  std::string_view text;
  if (element->get(text) != simdjson::SUCCESS)
    return fail(key, "not a string");
  out = std::string{text};
}

// The typed reads that differ only in the simdjson type and the word for it.
template <class T>
void json_object_reader::read_required(std::string_view key, T& out, std::string_view expected) {
  auto element = find(key, true);
  if (!element)
    return;
  if (element->get(out) != simdjson::SUCCESS)
    fail(key, "not " + std::string{expected});
}

void json_object_reader::required(std::string_view key, std::uint64_t& out) {
  read_required(key, out, "an unsigned integer");
}

void json_object_reader::required(std::string_view key, std::int64_t& out) {
  read_required(key, out, "an integer");
}

void json_object_reader::required(std::string_view key, int& out) {
  std::int64_t wide = 0;
  required(key, wide);
  if (!ok())
    return;
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
    return fail(key, "out of range");
  out = static_cast<int>(wide);
}

void json_object_reader::required(std::string_view key, bool& out) {
  read_required(key, out, "a boolean");
}

void json_object_reader::required(std::string_view key, simdjson::dom::object& out) {
  read_required(key, out, "an object");
}

void json_object_reader::required(std::string_view key, simdjson::dom::array& out) {
  read_required(key, out, "an array");
}

void json_object_reader::required(std::string_view key, std::vector<std::string>& out) {
  simdjson::dom::array array;
  required(key, array);
  if (!ok())
    return;
  std::size_t index = 0;
  for (auto element : array) {
    std::string_view text;
    if (element.get(text) != simdjson::SUCCESS)
      return fail(key, "element " + std::to_string(index) + " is not a string");
    out.emplace_back(text);
    ++index;
  }
}

void json_object_reader::optional(std::string_view key, std::string& out) {
  std::optional<std::string> text;
  optional(key, text);
  if (text)
    out = std::move(*text);
}

void json_object_reader::optional(std::string_view key, std::optional<std::string>& out) {
  auto element = find(key, false);
  if (!element || element->is_null())
    return;
  std::string_view text;
  if (element->get(text) != simdjson::SUCCESS)
    return fail(key, "not a string");
  out = std::string{text};
}

} // namespace warpforge::gpu
