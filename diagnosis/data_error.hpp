#pragma once
// A problem in one of diagnosis/'s data files (metric schema, GPU specs, rule matrix), with its
// place, in the same shape and text as config/'s spec errors:
//
//   diagnosis/data/rules.toml:41:8: rule[7].when: unknown metric 'dram_throughtput' (hint: did you mean 'dram_throughput'?)
//
// Loaders collect every error of a file, in file order, not only the first.

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::diagnosis {

struct data_error {
  std::string file;         // the data file as named by the caller ("<builtin>/rules.toml", a path)
  std::uint32_t line = 0;   // 1-based; 0 = the file as a whole
  std::uint32_t column = 0; // 1-based; 0 = the whole line
  std::string key; // dotted path, e.g. "metric[3].unit" (0-based index) or "rule.memory_bound.when"
  std::string message;      // what is wrong
  std::string hint;         // how to fix it; may be empty

  bool operator==(const data_error&) const = default;
};

using data_errors = std::vector<data_error>;

/// `file:line:col: key: message (hint: ...)`; unknown or empty parts are left out.
std::string to_string(const data_error& error);

/// One error per line.
std::string to_string(const data_errors& errors);

} // namespace warpforge::diagnosis
