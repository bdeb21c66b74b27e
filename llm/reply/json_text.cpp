#include "llm/reply/json_text.hpp"

#include "llm/reply/source_text.hpp"

#include <simdjson.h>

#include <string>

namespace warpforge::llm::json_text {

namespace {

// The content of the first ``` fence whose content starts with '{' (after blanks), or an empty
// view. A fence inside a JSON string cannot end the block early: JSON strings hold no raw
// newline, and the closing fence starts a line.
std::string_view fenced_object(std::string_view reply) {
  for (std::size_t fence = reply.find("```"); fence != std::string_view::npos;
       fence = reply.find("```", fence + 3)) {
    const std::size_t line_end = reply.find('\n', fence);
    if (line_end == std::string_view::npos)
      return {};
    const std::size_t close = reply.find("\n```", line_end);
    const std::size_t end = close == std::string_view::npos ? reply.size() : close;
    const std::string_view content = reply.substr(line_end + 1, end - line_end - 1);
    const std::size_t first = content.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && content[first] == '{')
      return content;
    if (close == std::string_view::npos)
      return {};
    fence = close + 1; // past this block's closing fence
  }
  return {};
}

} // namespace

expected<located, reply_problem> locate(std::string_view reply) {
  std::string_view region = fenced_object(reply);
  if (region.empty())
    region = reply;
  const std::size_t open = region.find('{');
  const std::size_t close = region.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    const bool blank = reply.find_first_not_of(" \t\r\n") == std::string_view::npos;
    return unexpected(reply_problem{
      reply_fault::no_json, "reply",
      blank ? std::string{"the reply is empty"}
            : "the reply holds no JSON object (no '{' ... '}'); answer with the one JSON object "
              "the instructions describe"});
  }
  const std::size_t offset = static_cast<std::size_t>(region.data() - reply.data()) + open;
  return located{reply.substr(offset, close - open + 1), offset};
}

namespace {

// Visits every value so that simdjson's on-demand parser meets the first syntax error, and
// returns it; the document's location then points at it.
simdjson::error_code visit(simdjson::ondemand::value value, int depth) {
  using simdjson::ondemand::json_type;
  json_type type{};
  if (auto error = value.type().get(type); error || depth > 64)
    return error ? error : simdjson::DEPTH_ERROR;
  switch (type) {
  case json_type::object: {
    simdjson::ondemand::object object;
    if (auto error = value.get_object().get(object))
      return error;
    for (auto field : object) {
      std::string_view key;
      simdjson::ondemand::value child;
      if (auto error = field.unescaped_key().get(key))
        return error;
      if (auto error = field.value().get(child))
        return error;
      if (auto error = visit(child, depth + 1))
        return error;
    }
    return simdjson::SUCCESS;
  }
  case json_type::array: {
    simdjson::ondemand::array array;
    if (auto error = value.get_array().get(array))
      return error;
    for (auto element : array) {
      simdjson::ondemand::value child;
      if (auto error = element.get(child))
        return error;
      if (auto error = visit(child, depth + 1))
        return error;
    }
    return simdjson::SUCCESS;
  }
  case json_type::string: return value.get_string().error();
  case json_type::number: return value.get_number().error();
  case json_type::boolean: return value.get_bool().error();
  case json_type::null: return value.is_null().error();
  }
  return simdjson::SUCCESS;
}

std::string hint_for(simdjson::error_code error) {
  switch (error) {
  case simdjson::UNESCAPED_CHARS:
    return "a string holds a raw line break or tab: inside JSON strings write each line break "
           "as \\n and each tab as \\t, and escape \" as \\\" and \\ as \\\\";
  case simdjson::UNCLOSED_STRING:
    return "a string is opened but never closed (was the reply cut off?)";
  case simdjson::TAPE_ERROR:
    return "check the commas, colons and braces there (no trailing commas, keys in quotes)";
  case simdjson::T_ATOM_ERROR: case simdjson::F_ATOM_ERROR: case simdjson::N_ATOM_ERROR:
    return "true, false and null are the only bare words; put text in quotes";
  default: return "the reply must hold one valid JSON object";
  }
}

} // namespace

reply_problem syntax_problem(std::string_view reply, const located& json) {
  simdjson::dom::parser dom;
  simdjson::error_code error = dom.parse(json.text.data(), json.text.size()).error();
  std::string where = "reply";
  const simdjson::padded_string padded{json.text};
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document;
  simdjson::ondemand::value root;
  if (auto found = parser.iterate(padded).get(document); found == simdjson::SUCCESS) {
    found = document.get_value().get(root);
    if (found == simdjson::SUCCESS)
      found = visit(root, 0);
    const char* at = nullptr;
    if (found != simdjson::SUCCESS && document.current_location().get(at) == simdjson::SUCCESS) {
      const auto offset = json.offset + static_cast<std::size_t>(at - padded.data());
      where.append(" ").append(source_text::describe(source_text::position_of(reply, offset)));
    }
  }
  return {reply_fault::bad_json, where,
          std::string{"the JSON does not parse: "} + simdjson::error_message(error) + "; " +
            hint_for(error)};
}

} // namespace warpforge::llm::json_text
