#pragma once
// Reading [hosts] from a TOML table the caller has parsed (config/campaign_spec.cpp does, so the
// errors join its list in file order). Includes toml++: include from .cpp files only.
//
//   if (const auto* table = r.table(root, "", "hosts", presence::optional))
//     spec.hosts = read_hosts_table(*table, r);

#include "config/hosts_spec.hpp"
#include "config/toml_reader/reader.hpp"

namespace warpforge::config {

/// The hosts of `table` (the root's "hosts"); every problem is reported through `r`, naming the
/// key, and what was read correctly is kept (the caller fails the load on any error).
hosts_spec read_hosts_table(const toml::table& table, toml_reader::reader& r);

} // namespace warpforge::config
