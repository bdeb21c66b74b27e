#include "apps/warpforge/cli/recorded_events.hpp"

#include "apps/warpforge/cli/user_errors.hpp"

#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <simdjson.h>

namespace warpforge::cli {

double recorded_event::number(const std::string& key, double otherwise) const {
  auto it = numbers.find(key);
  return it == numbers.end() ? otherwise : it->second;
}

std::string recorded_event::text(const std::string& key) const {
  auto it = texts.find(key);
  return it == texts.end() ? std::string{} : it->second;
}

namespace {

bool is_envelope(std::string_view key) {
  for (std::string_view name : {"schema", "seq", "ts", "campaign", "job", "iter", "branch", "gpu", "type"})
    if (key == name)
      return true;
  return false;
}

} // namespace

expected<std::vector<recorded_event>, std::string> read_events(const std::filesystem::path& run_dir) {
  auto db = storage::database::open_read_only(run_dir / storage::run_directory::database_file);
  if (!db)
    return unexpected{user_message(db.error())};
  std::vector<recorded_event> out;
  simdjson::dom::parser parser;
  constexpr std::int64_t page = 1000;
  for (std::int64_t after = 0;;) {
    auto rows = db->events_since(after, page);
    if (!rows)
      return unexpected{user_message(rows.error())};
    for (const auto& row : *rows) {
      after = row.seq;
      recorded_event e;
      e.type = row.type;
      e.iteration = row.iter.value_or(-1);
      e.branch = row.branch.value_or(-1);
      e.gpu = static_cast<int>(row.gpu.value_or(-1));
      simdjson::dom::object object;
      if (parser.parse(row.json).get(object) == simdjson::SUCCESS)
        for (auto field : object) {
          if (is_envelope(field.key))
            continue; // kept as the fields above, or not needed: the detail is what remains
          double number = 0;
          bool flag = false;
          std::string_view text;
          if (field.value.get(number) == simdjson::SUCCESS)
            e.numbers[std::string{field.key}] = number;
          else if (field.value.get(flag) == simdjson::SUCCESS)
            e.numbers[std::string{field.key}] = flag ? 1 : 0;
          else if (field.value.get(text) == simdjson::SUCCESS)
            e.texts[std::string{field.key}] = std::string{text};
        }
      out.push_back(std::move(e));
    }
    if (static_cast<std::int64_t>(rows->size()) < page)
      return out;
  }
}

} // namespace warpforge::cli
