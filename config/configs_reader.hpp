#pragma once
// Internal to config/: reading a problem's [[configs]], inline in the spec or from the TOML file
// its `configs_file` names (a file of [[configs]] tables only, what `warpforge observe --problem`
// writes). Errors name the file they are in, the key and the place.

#include "config/problem_spec.hpp"
#include "config/toml_reader/reader.hpp"

#include <functional>
#include <set>
#include <string>

namespace warpforge::config::detail {

/// Reads the configurations of the spec whose root is `root` into spec.configs (and
/// spec.configs_file), reporting through `spec_reader` (and a reader of the configs file). The
/// [dims] must be read already; a dim named in `broken_names` (declared, but rejected) is not
/// reported again. With `read_file` false the configs file is named (spec.configs_file) but not
/// read (load_options::read_configs_file).
void read_configs(const toml::table& root, toml_reader::reader& spec_reader, problem_spec& spec,
                  const std::set<std::string, std::less<>>& broken_names, bool read_file = true);

} // namespace warpforge::config::detail
