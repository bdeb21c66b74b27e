#pragma once
// <work_dir>/journal.json: the whole deploy so far, rewritten whole (files::write_file_atomically)
// after every step, so a reader or a kill never sees half of it.
//
//   {"job":"transpose","champion":"iter-3/branch-2","given":false,"choice":"...",
//    "project":"/app","file":"src/k.cuh","state":"running"|"accepted"|...,"reason":"",
//    "steps":[{"step":"gate","status":"passed","detail":"...","seconds":0.0,"attempt":1,
//              "log":"","timing":{"samples":[..],"median":1.2,"spread":0.1,"unit":"kernel_ms"}}],
//    "kernels":{"timed":true,"rows":[{"kernel":"transposeNaive","named":true,"verdict":"faster",
//               "before":{"samples_s":[..],"median_s":..,"spread_s":..,"launches":5},"after":{..}}],
//               "total":{"kernel":"all kernels",...}}}   (kernel_times.hpp; {"timed":false,"note":..}
//               for RESULT timing; absent before the first timing)

#include "deploy/deploy_steps.hpp"
#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace warpforge::deploy {

struct journal_header {
  std::string job;
  std::string champion;            // label
  bool given = false;              // a person chose the source
  std::string choice;              // for a given source: that the gain gate was a person's choice
  std::filesystem::path run_dir;
  std::filesystem::path project;
  std::filesystem::path file;      // relative to the project
};

class deploy_journal {
public:
  deploy_journal(std::filesystem::path work_dir, journal_header header);

  const std::filesystem::path& path() const { return path_; }
  /// Adds a step and rewrites the file; an error names the file (the deploy goes on: the sink
  /// has the record too).
  expected<void, std::string> add(const step_record& record);
  /// Keeps the kernel comparison (kernel_times.hpp's JSON) as "kernels"; written by finish().
  void set_kernels(std::string json_object) { kernels_ = std::move(json_object); }
  /// Sets the final state and rewrites the file.
  expected<void, std::string> finish(deploy_outcome outcome, const std::string& reason);

  /// The journal as JSON text.
  std::string json() const;

private:
  std::filesystem::path path_;
  journal_header header_;
  std::vector<step_record> steps_;
  std::string state_ = "running";
  std::string reason_;
  std::string kernels_; // "" = none
};

/// The JSON object of a timing (samples, median, spread, unit).
std::string timing_json(const timing_summary& timing);

} // namespace warpforge::deploy
