#include "deploy/observe/launches/launch_log.hpp"

#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <set>
#include <sstream>

namespace warpforge::observe {
namespace {

namespace dom = simdjson::dom;

/// Why a line was rejected (the caller adds file and line).
using line_error = std::string;

line_error key_error(std::string_view key, std::string_view problem) {
  return "key \"" + std::string(key) + "\": " + std::string(problem);
}

/// Every key of `object` is one of `allowed` (or `optional`), and every one of `allowed` is present.
std::optional<line_error> check_keys(dom::object object, std::initializer_list<std::string_view> allowed,
                                     std::initializer_list<std::string_view> optional = {}) {
  std::set<std::string_view> seen;
  for (auto field : object) {
    if (std::find(allowed.begin(), allowed.end(), field.key) == allowed.end() &&
        std::find(optional.begin(), optional.end(), field.key) == optional.end())
      return "unknown key \"" + std::string(field.key) + "\"";
    seen.insert(field.key);
  }
  for (std::string_view key : allowed)
    if (!seen.contains(key)) return "missing key \"" + std::string(key) + "\"";
  return std::nullopt;
}

expected<std::uint64_t, line_error> read_unsigned(dom::object object, std::string_view key,
                                                  std::uint64_t max) {
  std::uint64_t value = 0;
  if (object[key].get_uint64().get(value) != simdjson::SUCCESS)
    return unexpected(key_error(key, "not a non-negative integer"));
  if (value > max) return unexpected(key_error(key, std::to_string(value) + " is too large"));
  return value;
}

expected<std::string, line_error> read_string(dom::object object, std::string_view key) {
  std::string_view value;
  if (object[key].get_string().get(value) != simdjson::SUCCESS)
    return unexpected(key_error(key, "not a string"));
  return std::string(value);
}

expected<std::array<std::uint32_t, 3>, line_error> read_triple(dom::object object,
                                                              std::string_view key) {
  dom::array array;
  if (object[key].get_array().get(array) != simdjson::SUCCESS || array.size() != 3)
    return unexpected(key_error(key, "not an array of 3 integers"));
  std::array<std::uint32_t, 3> out{};
  std::size_t i = 0;
  for (dom::element element : array) {
    std::uint64_t value = 0;
    if (element.get_uint64().get(value) != simdjson::SUCCESS ||
        value > std::numeric_limits<std::uint32_t>::max())
      return unexpected(key_error(key, "not an array of 3 integers (32-bit, >= 0)"));
    out[i++] = static_cast<std::uint32_t>(value);
  }
  return out;
}

expected<param_bytes, line_error> read_param(dom::element element, std::size_t index) {
  std::string key = "params[" + std::to_string(index) + "]";
  dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS)
    return unexpected(key_error(key, "not an object"));
  if (auto bad = check_keys(object, {"offset", "size", "hex"})) return unexpected(key_error(key, *bad));
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  auto offset = read_unsigned(object, "offset", max32);
  auto size = read_unsigned(object, "size", max32);
  auto hex = read_string(object, "hex");
  if (!offset) return unexpected(key + "." + offset.error());
  if (!size) return unexpected(key + "." + size.error());
  if (!hex) return unexpected(key + "." + hex.error());
  bool hex_digits = std::all_of(hex->begin(), hex->end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  if (!hex_digits || hex->size() != 2 * *size)
    return unexpected(key_error(key, "hex must be " + std::to_string(2 * *size) +
                                         " lowercase hex digits (size " + std::to_string(*size) +
                                         "), got \"" + *hex + "\""));
  return param_bytes{static_cast<std::uint32_t>(*offset), static_cast<std::uint32_t>(*size),
                     std::move(*hex)};
}

expected<std::vector<param_bytes>, line_error> read_params(dom::object object) {
  dom::array array;
  if (object["params"].get_array().get(array) != simdjson::SUCCESS)
    return unexpected(key_error("params", "not an array"));
  std::vector<param_bytes> params;
  for (dom::element element : array) {
    auto param = read_param(element, params.size());
    if (!param) return unexpected(param.error());
    params.push_back(std::move(*param));
  }
  return params;
}

/// A 16-hex-digit hash, or "" (not hashed).
bool is_hash(std::string_view text) {
  return text.empty() || (text.size() == 16 && std::all_of(text.begin(), text.end(), [](char c) {
                            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                          }));
}

expected<std::vector<buffer_observation>, line_error> read_buffers(dom::object object) {
  std::vector<buffer_observation> buffers;
  dom::element element;
  if (object["buffers"].get(element) != simdjson::SUCCESS) return buffers; // optional
  dom::array array;
  if (element.get_array().get(array) != simdjson::SUCCESS)
    return unexpected(key_error("buffers", "not an array"));
  for (dom::element item : array) {
    std::string key = "buffers[" + std::to_string(buffers.size()) + "]";
    dom::object entry;
    if (item.get_object().get(entry) != simdjson::SUCCESS) return unexpected(key_error(key, "not an object"));
    if (auto bad = check_keys(entry, {"param", "allocation", "allocation_bytes", "before", "after"}))
      return unexpected(key_error(key, *bad));
    auto param = read_unsigned(entry, "param", std::numeric_limits<std::uint32_t>::max());
    auto allocation = read_unsigned(entry, "allocation", std::numeric_limits<std::uint64_t>::max());
    auto bytes = read_unsigned(entry, "allocation_bytes", std::numeric_limits<std::uint64_t>::max());
    auto before = read_string(entry, "before");
    auto after = read_string(entry, "after");
    for (const auto* error : {param ? nullptr : &param.error(), allocation ? nullptr : &allocation.error(),
                              bytes ? nullptr : &bytes.error(), before ? nullptr : &before.error(),
                              after ? nullptr : &after.error()})
      if (error) return unexpected(key + "." + *error);
    if (!is_hash(*before) || !is_hash(*after))
      return unexpected(key_error(key, "before and after must be 16 lowercase hex digits or \"\""));
    buffers.push_back({static_cast<std::uint32_t>(*param), *allocation, *bytes, std::move(*before),
                       std::move(*after)});
  }
  return buffers;
}

expected<launch_record, line_error> read_launch_line(dom::object object) {
  if (auto bad = check_keys(object, {"seq", "kernel", "demangled", "grid", "block", "smem",
                                     "duration_ns", "device", "params"}, {"buffers"}))
    return unexpected(*bad);
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
  auto seq = read_unsigned(object, "seq", max64);
  if (!seq) return unexpected(seq.error());
  auto kernel = read_string(object, "kernel");
  if (!kernel) return unexpected(kernel.error());
  auto demangled = read_string(object, "demangled");
  if (!demangled) return unexpected(demangled.error());
  auto grid = read_triple(object, "grid");
  if (!grid) return unexpected(grid.error());
  auto block = read_triple(object, "block");
  if (!block) return unexpected(block.error());
  auto smem = read_unsigned(object, "smem", max32);
  if (!smem) return unexpected(smem.error());
  auto duration_ns = read_unsigned(object, "duration_ns", max64);
  if (!duration_ns) return unexpected(duration_ns.error());
  auto device = read_unsigned(object, "device", max32);
  if (!device) return unexpected(device.error());
  auto params = read_params(object);
  if (!params) return unexpected(params.error());
  auto buffers = read_buffers(object);
  if (!buffers) return unexpected(buffers.error());
  launch_record record;
  record.sequence = *seq;
  record.kernel = std::move(*kernel);
  record.demangled = std::move(*demangled);
  record.grid = *grid;
  record.block = *block;
  record.dynamic_smem = static_cast<std::uint32_t>(*smem);
  record.duration_s = static_cast<double>(*duration_ns) * 1e-9;
  record.device = static_cast<std::uint32_t>(*device);
  record.params = std::move(*params);
  record.buffers = std::move(*buffers);
  return record;
}

/// Reads the end line into `log` (complete, dropped, notes); returns the launch count it states.
expected<std::uint64_t, line_error> read_end_line(dom::object object, launch_log& log) {
  if (auto bad = check_keys(object, {"end", "launches", "dropped", "notes"})) return unexpected(*bad);
  bool end = false;
  if (object["end"].get_bool().get(end) != simdjson::SUCCESS || !end)
    return unexpected(key_error("end", "must be true"));
  constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
  auto launches = read_unsigned(object, "launches", max64);
  if (!launches) return unexpected(launches.error());
  auto dropped = read_unsigned(object, "dropped", max64);
  if (!dropped) return unexpected(dropped.error());
  dom::array notes;
  if (object["notes"].get_array().get(notes) != simdjson::SUCCESS)
    return unexpected(key_error("notes", "not an array of strings"));
  for (dom::element note : notes) {
    std::string_view text;
    if (note.get_string().get(text) != simdjson::SUCCESS)
      return unexpected(key_error("notes", "not an array of strings"));
    log.notes.emplace_back(text);
  }
  log.complete = true;
  log.dropped = *dropped;
  return *launches;
}

} // namespace

namespace {

/// One line of the log: a launch goes into `log.launches`, the end line sets `log`'s summary and
/// `stated_launches`.
std::optional<line_error> read_line(dom::parser& parser, std::string_view line, launch_log& log,
                                    std::optional<std::uint64_t>& stated_launches) {
  dom::object object;
  auto error = parser.parse(simdjson::padded_string(line)).get_object().get(object);
  if (error != simdjson::SUCCESS)
    return "not a JSON object (" + std::string(simdjson::error_message(error)) + ")";
  if (object["end"].error() == simdjson::SUCCESS) {
    auto stated = read_end_line(object, log);
    if (!stated) return stated.error();
    stated_launches = *stated;
    return std::nullopt;
  }
  auto record = read_launch_line(object);
  if (!record) return record.error();
  log.launches.push_back(std::move(*record));
  return std::nullopt;
}

/// Sorts by sequence and checks what the whole log must satisfy (unique seq, the end line's count).
std::optional<std::string> finish(launch_log& log, std::optional<std::uint64_t> stated_launches) {
  std::stable_sort(log.launches.begin(), log.launches.end(),
                   [](const launch_record& a, const launch_record& b) { return a.sequence < b.sequence; });
  for (std::size_t i = 1; i < log.launches.size(); ++i)
    if (log.launches[i].sequence == log.launches[i - 1].sequence)
      return "seq " + std::to_string(log.launches[i].sequence) + " appears twice";
  if (stated_launches && *stated_launches != log.launches.size())
    return "the end line states " + std::to_string(*stated_launches) + " launches, the log holds " +
           std::to_string(log.launches.size());
  return std::nullopt;
}

} // namespace

expected<launch_log, std::string> parse_launch_log(std::string_view text, std::string_view origin) {
  launch_log log;
  std::optional<std::uint64_t> stated_launches;
  dom::parser parser;
  std::size_t line_number = 0;
  auto place = [&] { return std::string(origin) + ":" + std::to_string(line_number) + ": "; };
  while (!text.empty()) {
    ++line_number;
    std::size_t newline = text.find('\n');
    bool cut_off = newline == std::string_view::npos; // the last line has no newline
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(cut_off ? text.size() : newline + 1);
    if (stated_launches) return unexpected(place() + "a line after the end line");
    if (line.empty()) return unexpected(place() + "empty line");
    if (auto bad = read_line(parser, line, log, stated_launches)) {
      // A program killed mid-write leaves a partial last line and no end line: not an error.
      if (cut_off && !stated_launches) {
        log.notes.push_back(place() + "cut-off last line ignored (" + *bad + ")");
        break;
      }
      return unexpected(place() + *bad);
    }
  }
  if (auto bad = finish(log, stated_launches)) return unexpected(std::string(origin) + ": " + *bad);
  return log;
}

expected<launch_log, std::string> read_launch_log(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected("cannot open the launch log " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return unexpected("cannot read the launch log " + path.string());
  return parse_launch_log(text.str(), path.string());
}

} // namespace warpforge::observe
