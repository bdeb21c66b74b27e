// docs/events.md is the feed's contract: every event a real campaign stores (the real binary on
// two stand-in GPUs, then a bench with a candidate that does not compile, then a campaign stopped
// with SIGINT and resumed) must carry only detail fields its row documents, and every event type
// the feed knows must have a row. A field renamed in the code or in the docs fails here.

#include "campaign_fixture.hpp"

#include "feed/event.hpp"

#include <simdjson.h>

#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace warpforge {
namespace {

using testing::campaign_fixture;

// Every `name` in the detail column of each event type's row; "as <type>" rows take that type's
// fields too. Types whose detail keys are data (branch_checked: one key per claimed method) are
// marked open.
struct documented_events {
  std::map<std::string, std::set<std::string>> fields;
  std::set<std::string> open;
};

// The backticked words of `text`, in order.
std::vector<std::string> backticked(std::string_view text) {
  std::vector<std::string> out;
  for (auto open = text.find('`'); open != std::string_view::npos; open = text.find('`', open)) {
    const auto close = text.find('`', open + 1);
    if (close == std::string_view::npos)
      break;
    out.emplace_back(text.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return out;
}

documented_events read_events_doc() {
  // (libstdc++'s std::regex recurses per character and overflows the stack on these long rows)
  std::ifstream in{WARPFORGE_SOURCE_DIR "/docs/events.md"};
  documented_events doc;
  std::map<std::string, std::string> inherits;
  for (std::string line; std::getline(in, line);) {
    // | `type` | ids | detail |
    if (line.rfind("| `", 0) != 0)
      continue;
    const auto type_end = line.find('`', 3);
    const auto ids_end = line.find('|', line.find('|', type_end) + 1);
    if (type_end == std::string::npos || ids_end == std::string::npos)
      continue;
    const std::string type = line.substr(3, type_end - 3);
    const std::string detail = line.substr(ids_end + 1);
    auto& fields = doc.fields[type];
    for (auto& name : backticked(detail))
      fields.insert(std::move(name));
    if (const auto as = detail.find(" as "); as != std::string::npos && as < 3) {
      const auto from_end = detail.find_first_of(";| ", as + 4);
      inherits[type] = detail.substr(as + 4, from_end - as - 4);
    }
    if (detail.find("one key per") != std::string::npos)
      doc.open.insert(type);
  }
  for (const auto& [type, from] : inherits)
    doc.fields[type].insert(doc.fields[from].begin(), doc.fields[from].end());
  return doc;
}

class EventSchema : public campaign_fixture {
protected:
  // (type, field) pairs stored in this run directory that docs/events.md does not list.
  std::set<std::string> undocumented(const documented_events& doc, std::set<std::string>& seen_types) {
    static const std::set<std::string> envelope{"schema", "seq", "ts", "campaign", "job", "iter", "branch", "gpu", "type"};
    std::set<std::string> out;
    auto db = storage::database::open_read_only(run_dir() / "warpforge.db");
    if (!db) {
      ADD_FAILURE() << "no run database in " << run_dir() << ": " << storage::to_string(db.error()) << "\n"
                    << stderr_text();
      return out;
    }
    simdjson::dom::parser parser;
    auto rows = db->raw().prepare("SELECT json FROM events ORDER BY seq");
    EXPECT_TRUE(rows);
    for (auto step = rows ? rows->step() : unexpected{rows.error()}; step && *step == storage::step_result::row;
         step = rows->step()) {
      const auto text = rows->column_text(0);
      auto e = parser.parse(text);
      EXPECT_FALSE(e.error()) << text;
      const std::string type{e["type"].get_string().value()};
      seen_types.insert(type);
      if (!doc.fields.contains(type)) {
        out.insert(type + " (no row)");
        continue;
      }
      if (doc.open.contains(type))
        continue;
      simdjson::dom::object fields;
      if (e.get(fields) != simdjson::SUCCESS) {
        ADD_FAILURE() << "not an object: " << text;
        continue;
      }
      const auto& documented = doc.fields.at(type);
      for (auto field : fields) {
        const std::string key{field.key};
        if (!envelope.contains(key) && !documented.contains(key))
          out.insert(type + "." + key);
      }
    }
    return out;
  }
};

TEST_F(EventSchema, EveryStoredEventCarriesOnlyDocumentedFieldsAndEveryTypeHasARow) {
  const auto doc = read_events_doc();
  for (auto type : feed::all_event_types)
    EXPECT_TRUE(doc.fields.contains(std::string{feed::to_string(type)}))
      << feed::to_string(type) << " has no row in docs/events.md";

  std::set<std::string> seen;
  std::set<std::string> problems;
  ASSERT_EQ(wait_exit(start({"run", write_campaign(2).string()})), 0) << stderr_text();
  problems.merge(undocumented(doc, seen));
  std::filesystem::remove_all(dir / "runs");

  const pid_t stopped = start({"run", write_campaign(3).string()}, 150);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM measurements", 2)) << stderr_text();
  ::kill(stopped, SIGINT);
  EXPECT_EQ(wait_exit(stopped), 130);
  problems.merge(undocumented(doc, seen));
  ASSERT_EQ(wait_exit(start({"resume", run_dir().string()})), 0) << stderr_text();
  problems.merge(undocumented(doc, seen));
  std::filesystem::remove_all(dir / "runs");

  // Exit 1: a candidate failed (it does not compile), which is what this run is for.
  const int bench = wait_exit(start({"bench", WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml", "--run-root",
                                     (dir / "runs").string(), "--quiet", "--candidate",
                                     WARPFORGE_SOURCE_DIR "/tests/fixtures/faults/syntax_error.cu"}));
  EXPECT_EQ(bench, 1) << stderr_text();
  problems.merge(undocumented(doc, seen));

  for (const auto& p : problems)
    ADD_FAILURE() << "not in docs/events.md: " << p;
  for (const auto* type : {"campaign_started", "campaign_finished", "campaign_interrupted", "job_started",
                           "job_finished", "iteration_started", "iteration_finished", "branch_proposed",
                           "branch_compiled", "branch_measured", "branch_failed", "champion_elected",
                           "gpu_leased", "gpu_released", "runner_started", "actor_started"})
    EXPECT_TRUE(seen.contains(type)) << type << " was never emitted: the runs above should cover it";
}

} // namespace
} // namespace warpforge
