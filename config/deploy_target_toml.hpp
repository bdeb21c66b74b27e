#pragma once
// Reading [deploy] from a TOML table the caller has parsed (config/problem_spec.cpp does, so the
// errors join its list in file order). Includes toml++: include from .cpp files only.
//
//   if (const auto* table = r.table(root, "", "deploy", presence::optional))
//     spec.deploy = deploy::read_deploy_table(*table, "deploy", r, spec_file);

#include "config/deploy_target.hpp"
#include "config/toml_reader/reader.hpp"

namespace warpforge::deploy {

/// The target of `table` (dotted key `path`, "deploy" at the root), or nullopt when an error was
/// reported through `r`. Relative paths resolve against the folder of `spec_file`.
std::optional<deploy_target> read_deploy_table(const toml::table& table, std::string_view path,
                                               toml_reader::reader& r,
                                               const std::filesystem::path& spec_file);

} // namespace warpforge::deploy
