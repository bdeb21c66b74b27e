#include "llm/chat/json_read.hpp"

namespace warpforge::llm::json_read {

namespace {

std::string_view type_name(simdjson::dom::element_type type) {
  switch (type) {
    case simdjson::dom::element_type::ARRAY: return "an array";
    case simdjson::dom::element_type::OBJECT: return "an object";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64: return "an integer";
    case simdjson::dom::element_type::DOUBLE: return "a fractional number";
    case simdjson::dom::element_type::STRING: return "a string";
    case simdjson::dom::element_type::BOOL: return "a boolean";
    case simdjson::dom::element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

std::string wrong_type(std::string_view pointer, simdjson::dom::element element,
                       std::string_view wanted) {
  return std::string{pointer} + " is " + std::string{type_name(element.type())} + ", not " +
         std::string{wanted};
}

} // namespace

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  for (char c : text.substr(0, limit))
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (text.size() > limit)
    out += "...";
  return out;
}

expected<simdjson::dom::element, std::string> parse_object(simdjson::dom::parser& parser,
                                                           std::string_view text) {
  simdjson::dom::element root;
  if (auto code = parser.parse(text.data(), text.size()).get(root); code != simdjson::SUCCESS)
    return unexpected("not JSON (" + std::string{simdjson::error_message(code)} + "): '" +
                      excerpt(text) + "'");
  if (root.type() != simdjson::dom::element_type::OBJECT)
    return unexpected("not a JSON object: '" + excerpt(text) + "'");
  return root;
}

std::optional<simdjson::dom::element> find(simdjson::dom::element root, std::string_view pointer) {
  simdjson::dom::element element;
  if (root.at_pointer(pointer).get(element) != simdjson::SUCCESS || element.is_null())
    return std::nullopt;
  return element;
}

expected<std::optional<std::string_view>, std::string> optional_string(simdjson::dom::element root,
                                                                       std::string_view pointer) {
  auto element = find(root, pointer);
  if (!element)
    return std::optional<std::string_view>{};
  std::string_view value;
  if (element->get_string().get(value) != simdjson::SUCCESS)
    return unexpected(wrong_type(pointer, *element, "a string"));
  return std::optional<std::string_view>{value};
}

expected<std::optional<std::int64_t>, std::string> optional_integer(simdjson::dom::element root,
                                                                    std::string_view pointer) {
  auto element = find(root, pointer);
  if (!element)
    return std::optional<std::int64_t>{};
  std::int64_t value = 0;
  if (element->get_int64().get(value) != simdjson::SUCCESS)
    return unexpected(wrong_type(pointer, *element, "an integer"));
  if (value < 0)
    return unexpected(std::string{pointer} + " is negative (" + std::to_string(value) + ")");
  return std::optional<std::int64_t>{value};
}

expected<std::string_view, std::string> required_string(simdjson::dom::element root,
                                                        std::string_view pointer) {
  auto value = optional_string(root, pointer);
  if (!value)
    return unexpected(std::move(value).error());
  if (!*value)
    return unexpected("missing " + std::string{pointer});
  return **value;
}

expected<std::int64_t, std::string> required_integer(simdjson::dom::element root,
                                                     std::string_view pointer) {
  auto value = optional_integer(root, pointer);
  if (!value)
    return unexpected(std::move(value).error());
  if (!*value)
    return unexpected("missing " + std::string{pointer});
  return **value;
}

} // namespace warpforge::llm::json_read
