#pragma once
// Who holds a deploy marker, well enough to tell on this host a deploy that still runs from one
// that was killed: the process id, the time the kernel started that process (a pid the kernel
// gave to another process since has another start time), the boot (the start time counts from
// it) and the host name (a project on a shared file system may be deployed from another host,
// whose processes cannot be checked from here).
//
//   auto me = this_process();                          // written into the marker at lock
//   if (liveness_of(marker.owner) == owner_liveness::alive) refuse("running (pid N)");

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::deploy {

struct process_identity {
  std::int64_t pid = 0;           // 0: not recorded (a marker older than the owner fields)
  std::uint64_t start_ticks = 0;  // /proc/<pid>/stat field 22: clock ticks after boot; 0: not recorded
  std::string boot_id;            // /proc/sys/kernel/random/boot_id; "": not recorded
  std::string host;               // gethostname(); "": not recorded

  friend bool operator==(const process_identity&, const process_identity&) = default;
};

/// How a marker's owner stands, seen from this process.
enum class owner_liveness : std::uint8_t {
  alive,     // this host and boot, and the pid runs with the recorded start time
  dead,      // no such process, a zombie, or the pid now names another process (another start
             // time or another boot): the deploy was killed and can be recovered
  elsewhere, // recorded on another host: whether it runs cannot be checked from here
};
std::string_view to_string(owner_liveness liveness);
inline constexpr owner_liveness all_owner_livenesses[] = {owner_liveness::alive, owner_liveness::dead,
                                                          owner_liveness::elsewhere};

/// This process: its pid, start time, boot and host.
process_identity this_process();

/// `owner` against the processes of this host. A marker without a start time (written before
/// the owner fields) is alive while any process has its pid: the cautious answer.
owner_liveness liveness_of(const process_identity& owner);

/// The host name, "" when the system will not say.
std::string this_host();

/// The start time (clock ticks after boot) of a live process `pid`, nullopt when there is no
/// such process or it is a zombie (ended, not yet reaped).
std::optional<std::uint64_t> start_ticks_of(std::int64_t pid);

} // namespace warpforge::deploy
