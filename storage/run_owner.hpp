#pragma once
// The one process that may write a run directory. `run` and `resume` claim it before they write
// anything; a second claim while the first holder lives is refused with its pid and command, so
// two campaigns never interleave their writes in one database. The claim is an flock on
// <run-dir>/owner.lock: the kernel drops it when the holder exits, however it exits (SIGKILL
// included), so a dead run is free to resume with no stale-lock cleanup. The descriptor is
// close-on-exec: the runners a campaign starts do not keep the claim alive after it dies.
//
//   auto owner = run_owner::claim(dir, "warpforge resume " + dir.path().string());
//   if (!owner) fail(owner.error());          // busy: "campaign is running (pid 4242: warpforge run c.toml)"
//   run_owner::holder(dir);                    // for `status`: who writes it now, if anyone

#include "foundation/expected/expected.hpp"
#include "storage/run_directory.hpp"
#include "storage/store_error.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::storage {

struct run_holder {
  long pid = 0;          // the owning process
  std::string command;   // what it said it was running
};

class run_owner {
public:
  static constexpr std::string_view lock_file = "owner.lock";

  /// Claims `dir` for this process. busy when a live process holds it (the message names it);
  /// cannot_open when the lock file cannot be made or is not a plain file of its own (a link).
  static expected<run_owner, store_error> claim(const run_directory& dir, std::string_view command);
  /// Who holds `dir` now; nullopt when nobody does (never claimed, or its owner has exited).
  static std::optional<run_holder> holder(const run_directory& dir);

  run_owner(run_owner&& other) noexcept;
  run_owner& operator=(run_owner&& other) noexcept;
  run_owner(const run_owner&) = delete;
  run_owner& operator=(const run_owner&) = delete;
  ~run_owner(); // releases the claim

private:
  explicit run_owner(int fd) : fd_(fd) {}
  int fd_ = -1;
};

} // namespace warpforge::storage
