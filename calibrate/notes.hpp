#pragma once
// Notes kept per parameter across calibrate runs (the seed's results/progress_notes.json): why a
// parameter was set aside and what to try next, free annotations, a request to measure it again,
// and a backlog of ideas. The next run sees the trail the moment the parameter comes up again.
// Persisted as JSON, written to a temporary file beside its place and renamed over it, so a kill
// mid-write leaves the previous notes whole.
//
//   auto book = notes::load(run_dir / "notes.json");          // a missing file is empty notes
//   book->defer("l2_size", "knee blurred by the L2 partitions", "sweep with one SM per partition");
//   book->save(run_dir / "notes.json");
//
// Times are UTC, ISO 8601 ("2026-11-05T10:04:00Z"), taken when the note is made.

#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

/// One time a parameter was set aside.
struct deferral {
  std::string reason;    // why it was set aside
  std::string next_idea; // what to try when it comes back
  std::string time_utc;  // when, ISO 8601 UTC

  bool operator==(const deferral&) const = default;
};

/// A free note on a parameter (seed: --annotate), with its time.
struct annotation {
  std::string text;
  std::string time_utc; // ISO 8601 UTC

  bool operator==(const annotation&) const = default;
};

struct parameter_notes {
  std::optional<deferral> deferred;   // set aside now: the schedule skips it until mark_retry
  std::vector<deferral> past_deferrals; // earlier deferrals, oldest first (the trail)
  bool retry = false;                 // measure again at the next plan even if it did not pass
  std::vector<annotation> annotations; // oldest first
  std::vector<std::string> backlog;   // ideas not yet tried, oldest first

  bool operator==(const parameter_notes&) const = default;
};

class notes {
public:
  /// Sets `name` aside with why and what to try next (an earlier deferral moves to the trail);
  /// clears a retry request.
  void defer(std::string name, std::string reason, std::string next_idea);
  /// Adds a free note; changes nothing else.
  void annotate(std::string name, std::string text);
  /// Brings `name` back: ends its deferral (kept in the trail) and asks the schedule to measure
  /// it again even if its last result did not pass.
  void mark_retry(std::string name);
  /// The retry was taken (the engine measured it again).
  void clear_retry(std::string name);
  /// Adds an idea to try for `name`.
  void add_backlog(std::string name, std::string idea);

  /// The notes of `name`, or nullptr when it has none.
  const parameter_notes* find(std::string_view name) const;
  bool is_deferred(std::string_view name) const;
  bool retry_requested(std::string_view name) const;
  /// Every parameter with notes, by name.
  const std::map<std::string, parameter_notes, std::less<>>& all() const { return by_name_; }
  /// The notes of `name` as lines for a person or a prompt: the deferral now in force, the trail,
  /// annotations and backlog; empty when it has none.
  std::string describe(std::string_view name) const;

  std::string to_json() const;
  /// Notes from to_json()'s text; the error names the field.
  static expected<notes, std::string> from_json(std::string_view text);
  /// The notes at `path`; a missing file is empty notes (a first run).
  static expected<notes, std::string> load(const std::filesystem::path& path);
  /// Writes the notes to `path` atomically (creating its folder).
  expected<void, std::string> save(const std::filesystem::path& path) const;

  bool operator==(const notes&) const = default;

private:
  std::map<std::string, parameter_notes, std::less<>> by_name_;
};

} // namespace warpforge::calibrate
