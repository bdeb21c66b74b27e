#pragma once
// deployer: writes the winner into the user's project (backup first), builds, verifies, and
// rolls back on regression.

#include "messages/ids.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>

namespace warpforge::messages {

struct deploy_request {
  branch_ref champion;
  std::string source_path;   // the champion's kernel source
  std::string target_path;   // the file in the user's project it replaces
  std::string build_command; // run in the project after writing
  std::string verify_command;
  friend bool operator==(const deploy_request&, const deploy_request&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deploy_request& x) {
  return f(caf::meta::type_name("deploy_request"), x.champion, x.source_path, x.target_path,
           x.build_command, x.verify_command);
}

enum class deploy_outcome : std::uint8_t { deployed, build_failed, verify_failed, rolled_back };

struct deploy_result {
  deploy_outcome outcome = deploy_outcome::rolled_back;
  std::string backup_path;
  std::string detail; // the failing command's tail, or what was verified
  friend bool operator==(const deploy_result&, const deploy_result&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deploy_result& x) {
  return f(caf::meta::type_name("deploy_result"), x.outcome, x.backup_path, x.detail);
}

using deployer_actor = caf::typed_actor<
  caf::replies_to<deploy_request>::with<deploy_result>,
  status_handler>;

} // namespace warpforge::messages
