#pragma once
// tests/cheat/cheats.tsv read for the cheat suite's tests: one entry per kernel, with the outcome
// it must get through the runner alone and through `warpforge bench`.

#include "foundation/vocabulary/branch.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace warpforge::cheat {

struct cheat_entry {
  std::filesystem::path file;        // absolute
  std::string problem;               // "transpose", "vector_add"
  std::string kind;                  // "memo_by_pointer", "honest", ...
  std::optional<vocabulary::branch_outcome> runner; // none: not asserted through the runner alone
  std::vector<vocabulary::branch_outcome> bench;    // any of these
  std::string reason;                // a phrase the detail must contain ("" = none)
  std::string caught;                // by what

  std::string name() const { return file.filename().string(); }
  std::string source() const {
    std::ifstream in{file};
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

inline std::vector<std::string> split_tabs(const std::string& line, char at = '\t') {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in{line};
  while (std::getline(in, field, at))
    out.push_back(field);
  return out;
}

/// The repository the kernels are read from: $WARPFORGE_SOURCE_ROOT (a copy of the tree on a GPU
/// node), else the tree this binary was built from.
inline std::filesystem::path source_root() {
  const char* root = std::getenv("WARPFORGE_SOURCE_ROOT");
  return root && *root ? std::filesystem::path{root} : std::filesystem::path{WARPFORGE_SOURCE_DIR};
}

/// The manifest's entries; a malformed line gives an entry with an empty kind (tests assert on it).
inline std::vector<cheat_entry> load_cheats(const std::filesystem::path& root = source_root()) {
  std::vector<cheat_entry> out;
  std::ifstream in{root / "tests/cheat/cheats.tsv"};
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#')
      continue;
    const auto f = split_tabs(line);
    cheat_entry e;
    if (f.size() != 7) {
      out.push_back(e);
      continue;
    }
    e.file = root / f[0];
    e.problem = f[1];
    e.kind = f[2];
    if (f[3] != "-")
      e.runner = vocabulary::from_string<vocabulary::branch_outcome>(f[3]);
    for (const auto& word : split_tabs(f[4], '|'))
      if (auto outcome = vocabulary::from_string<vocabulary::branch_outcome>(word))
        e.bench.push_back(*outcome);
    e.reason = f[5] == "-" ? "" : f[5];
    e.caught = f[6];
    out.push_back(e);
  }
  return out;
}

inline std::vector<cheat_entry> cheats_for(const std::string& problem) {
  std::vector<cheat_entry> out;
  for (auto& e : load_cheats())
    if (e.problem == problem)
      out.push_back(e);
  return out;
}

} // namespace warpforge::cheat
