#include "diagnosis/ncu_csv.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace warpforge::diagnosis {

namespace {

constexpr std::string_view duration_metric = "gpu__time_duration.sum";

struct record {
  std::vector<std::string> fields;
  std::uint32_t line = 0; // line the record starts on
};

// Reads CSV records (RFC 4180 quoting, CRLF or LF) and raw lines from ncu's output.
class csv_reader {
public:
  explicit csv_reader(std::string_view text) : text_(text) {}

  bool at_end() const { return pos_ >= text_.size(); }
  std::uint32_t line() const { return line_; }

  std::string_view peek_line() const {
    const std::size_t end = text_.find('\n', pos_);
    std::string_view l =
        text_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
    if (!l.empty() && l.back() == '\r')
      l.remove_suffix(1);
    return l;
  }

  void skip_line() {
    const std::size_t end = text_.find('\n', pos_);
    pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_;
  }

  expected<record, ncu_parse_error> read() {
    record out;
    out.line = line_;
    std::string field;
    while (true) {
      if (pos_ < text_.size() && text_[pos_] == '"') {
        const std::uint32_t opened = line_;
        ++pos_;
        while (true) {
          if (pos_ >= text_.size())
            return unexpected(ncu_parse_error{ncu_parse_failure::unterminated_quote, opened,
                                              "a quoted field never closes"});
          const char c = text_[pos_++];
          if (c == '"') {
            if (pos_ < text_.size() && text_[pos_] == '"') {
              field += '"';
              ++pos_;
              continue;
            }
            break;
          }
          if (c == '\n')
            ++line_;
          field += c;
        }
        // After the closing quote: up to the separator (ncu writes none; be lenient).
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
               text_[pos_] != '\r')
          field += text_[pos_++];
      } else {
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
               text_[pos_] != '\r')
          field += text_[pos_++];
      }
      out.fields.push_back(std::move(field));
      field.clear();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '\r')
        ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '\n') {
        ++pos_;
        ++line_;
      }
      return out;
    }
  }

private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
};

bool is_header(std::string_view line) {
  return (line.starts_with("\"ID\",") || line.starts_with("ID,")) &&
         line.find("Kernel Name") != std::string_view::npos;
}

bool is_metric_name(std::string_view name) { return name.find("__") != std::string_view::npos; }

std::optional<double> parse_number(std::string_view text) {
  std::string cleaned;
  for (const char c : text)
    if (c != ',' && c != ' ')
      cleaned += c;
  if (cleaned.empty() || cleaned == "n/a")
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(cleaned.c_str(), &end);
  if (end != cleaned.c_str() + cleaned.size() || errno == ERANGE)
    return std::nullopt;
  return value;
}

} // namespace

constexpr vocabulary::enum_word<ncu_parse_failure> ncu_parse_failure_words[] = {
    {ncu_parse_failure::no_header, "no_header"},
    {ncu_parse_failure::no_units_row, "no_units_row"},
    {ncu_parse_failure::wrong_field_count, "wrong_field_count"},
    {ncu_parse_failure::unterminated_quote, "unterminated_quote"},
};
static_assert(vocabulary::covers(ncu_parse_failure_words, all_ncu_parse_failures));

std::string_view to_string(ncu_parse_failure failure) { return vocabulary::word_of(ncu_parse_failure_words, failure); }

std::optional<ncu_parse_failure> ncu_parse_failure_from_string(std::string_view text) {
  return vocabulary::value_of(ncu_parse_failure_words, text);
}

std::string to_string(const ncu_parse_error& error) {
  std::string out;
  if (error.line > 0)
    out += "line " + std::to_string(error.line) + ": ";
  out += std::string{to_string(error.failure)} + ": " + error.message;
  return out;
}

const ncu_value* ncu_launch::find(std::string_view name) const {
  for (const auto& v : values)
    if (v.name == name)
      return &v;
  return nullptr;
}

expected<ncu_report, ncu_parse_error> parse_ncu_raw_csv(std::string_view text) {
  ncu_report report;
  csv_reader reader{text};

  // Everything before the header is the profiled program's output or ncu's own messages.
  while (!reader.at_end() && !is_header(reader.peek_line())) {
    reader.skip_line();
    ++report.skipped_lines;
  }
  if (reader.at_end())
    return unexpected(ncu_parse_error{ncu_parse_failure::no_header, 0,
                                      "no `ncu --csv --page raw` header (a line starting with "
                                      "\"ID\" that names a \"Kernel Name\" column)"});
  auto header = reader.read();
  if (!header)
    return unexpected(std::move(header).error());
  const auto& names = header->fields;
  auto column = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      return std::nullopt;
    return static_cast<std::size_t>(it - names.begin());
  };

  auto next_record = [&]() -> std::optional<expected<record, ncu_parse_error>> {
    while (!reader.at_end()) {
      const std::string_view line = reader.peek_line();
      if (line.starts_with("==") || line.empty()) {
        reader.skip_line();
        ++report.skipped_lines;
        continue;
      }
      return reader.read();
    }
    return std::nullopt;
  };
  auto check_count = [&](const record& r) -> std::optional<ncu_parse_error> {
    if (r.fields.size() == names.size())
      return std::nullopt;
    return ncu_parse_error{ncu_parse_failure::wrong_field_count, r.line,
                           std::to_string(r.fields.size()) + " fields, the header has " +
                             std::to_string(names.size())};
  };

  // The units row: identity columns empty.
  const std::uint32_t header_line = header->line;
  auto units = next_record();
  if (!units)
    return unexpected(ncu_parse_error{ncu_parse_failure::no_units_row, header_line,
                                      "the header is not followed by a units row"});
  if (!*units)
    return unexpected(std::move(*units).error());
  const record& unit_row = **units;
  if (unit_row.fields.empty() || !unit_row.fields[0].empty())
    return unexpected(
        ncu_parse_error{ncu_parse_failure::no_units_row, unit_row.line,
                        "expected the units row (empty \"ID\" field) after the header, found '" +
                            (unit_row.fields.empty() ? std::string{} : unit_row.fields[0]) + "'"});
  if (auto bad = check_count(unit_row))
    return unexpected(std::move(*bad));

  const auto id = column("ID");
  const auto kernel = column("Kernel Name");
  const auto block = column("Block Size");
  const auto grid = column("Grid Size");
  const auto device = column("Device");
  const auto cc = column("CC");
  auto field = [](const record& r, const std::optional<std::size_t>& index) {
    return index ? r.fields[*index] : std::string{};
  };

  while (auto row = next_record()) {
    if (!*row)
      return unexpected(std::move(*row).error());
    const record& r = **row;
    if (auto bad = check_count(r))
      return unexpected(std::move(*bad));
    ncu_launch launch;
    launch.line = r.line;
    launch.id = field(r, id);
    launch.kernel_name = field(r, kernel);
    launch.block_size = field(r, block);
    launch.grid_size = field(r, grid);
    launch.device = field(r, device);
    launch.cc = field(r, cc);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (is_metric_name(names[i]))
        launch.values.push_back(
            {names[i], unit_row.fields[i], r.fields[i], parse_number(r.fields[i])});
    report.launches.push_back(std::move(launch));
  }
  return report;
}

const ncu_launch* longest_launch(const ncu_report& report, std::string_view name_part) {
  const ncu_launch* best = nullptr;
  double best_duration = -1.0;
  for (const auto& launch : report.launches) {
    if (!name_part.empty() && launch.kernel_name.find(name_part) == std::string::npos)
      continue;
    double duration = 0.0; // a launch without a duration counts as 0
    if (const ncu_value* v = launch.find(duration_metric); v && v->value) {
      // Compare in seconds: the units row may scale the column (usecond, msecond).
      auto seconds = from_nsight(*v->value, v->unit, metric_unit::seconds);
      duration = seconds ? *seconds : 0.0;
    }
    if (duration > best_duration) {
      best = &launch;
      best_duration = duration;
    }
  }
  return best;
}

schema_mapping map_to_schema(const ncu_launch& launch, const metric_schema& schema) {
  schema_mapping out;
  for (const auto& m : schema.metrics()) {
    if (m.derived())
      continue;
    const ncu_value* v = launch.find(m.nsight);
    if (v == nullptr) {
      out.missing.push_back(m.nsight);
      continue;
    }
    if (!v->value) {
      out.skipped.push_back({m.nsight, m.key, "no value ('" + v->text + "')"});
      continue;
    }
    auto converted = from_nsight(*v->value, v->unit, m.unit);
    if (!converted) {
      out.skipped.push_back({m.nsight, m.key, converted.error()});
      continue;
    }
    out.values.emplace(m.key, *converted);
  }
  for (const auto& v : launch.values)
    if (schema.find_nsight(v.name) == nullptr)
      out.unmapped.push_back(v.name);
  return out;
}

schema_mapping map_base_units(const nsight_values& values, const metric_schema& schema) {
  schema_mapping out;
  for (const auto& m : schema.metrics()) {
    if (m.derived())
      continue;
    const auto found = values.find(m.nsight);
    if (found == values.end()) {
      out.missing.push_back(m.nsight);
      continue;
    }
    auto converted = from_nsight(found->second, nsight_base_unit(m.unit), m.unit);
    if (!converted) {
      out.skipped.push_back({m.nsight, m.key, converted.error()});
      continue;
    }
    out.values.emplace(m.key, *converted);
  }
  for (const auto& [name, value] : values)
    if (schema.find_nsight(name) == nullptr)
      out.unmapped.push_back(name);
  return out;
}

} // namespace warpforge::diagnosis
