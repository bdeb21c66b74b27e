#include "apps/warpforge/cli/recorded_events.hpp"

#include "apps/warpforge/cli/user_errors.hpp"

#include "feed/event.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <simdjson.h>

#include <algorithm>
#include <optional>

namespace warpforge::cli {

bool checked_record::sass_read() const {
  return std::none_of(methods.begin(), methods.end(),
                      [](const method_record& m) { return m.presence == sass::method_presence::unavailable; });
}

namespace {

constexpr std::string_view evidence_suffix = "#evidence"; // "<method>#evidence": its instructions
constexpr std::string_view matches_suffix = "#matches";   // "<method>#matches": how many

// The fields of one stored event: each read names the event and the key when it cannot be.
class event_fields {
public:
  event_fields(simdjson::dom::object object, const storage::event_row& row)
      : object_(object), where_("event #" + std::to_string(row.seq) + " (" + row.type + ")") {}

  double number(std::string_view key) {
    double value = 0;
    if (object_[key].get(value) != simdjson::SUCCESS)
      fail(key, "no number");
    return value;
  }
  std::int64_t integer(std::string_view key) {
    std::int64_t value = 0;
    if (object_[key].get(value) != simdjson::SUCCESS)
      fail(key, "no integer");
    return value;
  }
  bool flag(std::string_view key) {
    bool value = false;
    if (object_[key].get(value) != simdjson::SUCCESS)
      fail(key, "no boolean");
    return value;
  }
  /// A text the event may leave out (empty then).
  std::string optional_text(std::string_view key) {
    std::string_view value;
    return object_[key].get(value) == simdjson::SUCCESS ? std::string{value} : std::string{};
  }
  std::string text(std::string_view key) {
    std::string_view value;
    if (object_[key].get(value) != simdjson::SUCCESS)
      fail(key, "no text");
    return std::string{value};
  }
  void fail(std::string_view key, std::string_view problem) {
    if (!error_)
      error_ = where_ + ": " + std::string{key} + ": " + std::string{problem};
  }
  const std::optional<std::string>& error() const { return error_; }
  simdjson::dom::object object() const { return object_; }

private:
  simdjson::dom::object object_;
  std::string where_;
  std::optional<std::string> error_;
};

recorded_place place_of(const storage::event_row& row) {
  return {row.seq, row.iter.value_or(-1), row.branch.value_or(-1), static_cast<int>(row.gpu.value_or(-1))};
}

compiled_record compiled_of(const storage::event_row& row, event_fields& f) {
  return {place_of(row), f.text("arch"), f.flag("cache_hit"), f.number("compile_s"), f.optional_text("sass_check")};
}

bool is_envelope(std::string_view key) {
  for (std::string_view name : {"schema", "seq", "ts", "campaign", "job", "iter", "branch", "gpu", "type"})
    if (key == name)
      return true;
  return false;
}

// Beside the envelope, one key per method ("present", "absent", ...), with "<method>#evidence"
// and "<method>#matches" beside a present one.
checked_record checked_of(const storage::event_row& row, event_fields& f) {
  checked_record r{place_of(row), {}};
  for (auto field : f.object()) {
    const std::string_view key = field.key;
    if (is_envelope(key) || key.find('#') != std::string_view::npos)
      continue;
    std::string_view word;
    auto presence = field.value.get(word) == simdjson::SUCCESS ? sass::method_presence_from_string(word) : std::nullopt;
    if (!presence) {
      f.fail(key, "not a method's presence (present, absent, unavailable, not_checkable, unknown_method)");
      continue;
    }
    method_record m{std::string{key}, *presence, {}, 0};
    if (*presence == sass::method_presence::present) {
      m.evidence = f.optional_text(m.method + std::string{evidence_suffix});
      if (auto matches = f.object()[m.method + std::string{matches_suffix}]; !matches.error())
        m.matches = f.integer(m.method + std::string{matches_suffix});
    }
    r.methods.push_back(std::move(m));
  }
  std::sort(r.methods.begin(), r.methods.end(),
            [](const method_record& a, const method_record& b) { return a.method < b.method; });
  return r;
}

measured_record measured_of(const storage::event_row& row, event_fields& f) {
  measured_record m;
  m.at = place_of(row);
  m.time_s = f.number("time_s");
  m.ci95_low_s = f.number("ci95_low_s");
  m.ci95_high_s = f.number("ci95_high_s");
  m.cv = f.number("cv");
  m.samples = f.integer("samples");
  m.rounds = f.integer("rounds");
  m.kernel_s = f.number("kernel_s");
  m.load_s = f.number("load_s");
  m.check_s = f.number("check_s");
  m.warmup_s = f.number("warmup_s");
  m.timing_s = f.number("timing_s");
  m.race_kernels = f.integer("race_kernels");
  m.race_inputs_s = f.number("race_inputs_s");
  m.race_reference_s = f.number("race_reference_s");
  m.race_setup_s = f.number("race_setup_s");
  m.race_wall_s = f.number("race_wall_s");
  m.request_s = f.number("request_s");
  return m;
}

failed_record failed_of(const storage::event_row& row, event_fields& f) {
  failed_record r{place_of(row), vocabulary::branch_outcome::not_run, f.text("detail")};
  const auto word = f.text("outcome");
  if (auto outcome = vocabulary::from_string<vocabulary::branch_outcome>(word))
    r.outcome = *outcome;
  else
    f.fail("outcome", "unknown outcome '" + word + "'");
  return r;
}

// Adds the record `row` holds (if it is one of the four kinds); the error names what was wrong.
expected<void, std::string> add(recorded_results& out, const storage::event_row& row, simdjson::dom::parser& parser) {
  const auto type = feed::event_type_from_string(row.type);
  if (!type || (*type != feed::event_type::branch_compiled && *type != feed::event_type::branch_checked &&
                *type != feed::event_type::branch_measured && *type != feed::event_type::branch_failed))
    return {};
  simdjson::dom::object object;
  if (parser.parse(row.json).get(object) != simdjson::SUCCESS)
    return unexpected{"event #" + std::to_string(row.seq) + " (" + row.type + "): not a JSON object"};
  event_fields f{object, row};
  switch (*type) {
  case feed::event_type::branch_compiled: out.compiled.push_back(compiled_of(row, f)); break;
  case feed::event_type::branch_checked: out.checked.push_back(checked_of(row, f)); break;
  case feed::event_type::branch_measured: out.measured.push_back(measured_of(row, f)); break;
  default: out.failed.push_back(failed_of(row, f)); break;
  }
  if (f.error())
    return unexpected{*f.error()};
  return {};
}

} // namespace

expected<recorded_results, std::string> read_results(const std::filesystem::path& run_dir) {
  auto db = storage::database::open_read_only(run_dir / storage::run_directory::database_file);
  if (!db)
    return unexpected{user_message(db.error())};
  recorded_results out;
  simdjson::dom::parser parser;
  constexpr std::int64_t page = 1000; // events read at a time
  for (std::int64_t after = 0;;) {
    auto rows = db->events_since(after, page);
    if (!rows)
      return unexpected{user_message(rows.error())};
    for (const auto& row : *rows) {
      after = row.seq;
      if (auto added = add(out, row, parser); !added)
        return unexpected{added.error() + " in " + db->path().string()};
    }
    if (static_cast<std::int64_t>(rows->size()) < page)
      return out;
  }
}

} // namespace warpforge::cli
