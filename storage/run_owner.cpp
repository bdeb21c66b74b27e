#include "storage/run_owner.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

namespace warpforge::storage {
namespace {

constexpr std::size_t max_record_bytes = 512;

unexpected<store_error> fail(store_error_code code, std::string message) {
  return unexpected{store_error{code, std::move(message)}};
}

// The lock file, never through a link and only as a plain file with one name: a run directory
// may sit in a shared folder, and a planted link must not make warpforge write elsewhere.
expected<int, store_error> open_lock(const std::filesystem::path& path, bool create) {
  const int flags = (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
  const int fd = ::open(path.c_str(), flags, 0600);
  if (fd < 0)
    return fail(errno == ENOENT ? store_error_code::not_found : store_error_code::cannot_open,
                "run owner: " + path.string() + ": " +
                  (errno == ELOOP ? std::string{"it is a symbolic link"} : std::strerror(errno)));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    ::close(fd);
    return fail(store_error_code::cannot_open, "run owner: " + path.string() + " is not a plain file of its own");
  }
  return fd;
}

// "pid N: command", padded to a fixed size so a shorter record fully replaces a longer one
// without truncating the file.
void write_record(int fd, std::string_view command) {
  std::string record = std::to_string(::getpid()) + "\n" + std::string{command} + "\n";
  record.resize(max_record_bytes, '\0');
  (void)::pwrite(fd, record.data(), record.size(), 0);
}

run_holder read_record(int fd) {
  std::array<char, max_record_bytes + 1> buffer{};
  const auto n = ::pread(fd, buffer.data(), max_record_bytes, 0);
  run_holder h;
  if (n <= 0)
    return h;
  const std::string_view text{buffer.data(), std::strlen(buffer.data())};
  const auto eol = text.find('\n');
  std::from_chars(text.data(), text.data() + std::min(eol, text.size()), h.pid);
  if (eol != std::string_view::npos) {
    auto command = text.substr(eol + 1);
    while (!command.empty() && command.back() == '\n')
      command.remove_suffix(1);
    h.command = command;
  }
  return h;
}

std::string describe(const run_holder& h) {
  return "pid " + std::to_string(h.pid) + (h.command.empty() ? "" : ": " + h.command);
}

} // namespace

expected<run_owner, store_error> run_owner::claim(const run_directory& dir, std::string_view command) {
  const auto path = dir.path() / lock_file;
  auto fd = open_lock(path, true);
  if (!fd)
    return unexpected{fd.error()};
  if (::flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    const bool held = errno == EWOULDBLOCK;
    const std::string reason = held ? "campaign is running (" + describe(read_record(*fd)) + ") in " + dir.path().string()
                                    : "run owner: cannot lock " + path.string() + ": " + std::strerror(errno);
    ::close(*fd);
    return fail(held ? store_error_code::busy : store_error_code::io, reason);
  }
  write_record(*fd, command);
  return run_owner{*fd};
}

std::optional<run_holder> run_owner::holder(const run_directory& dir) {
  auto fd = open_lock(dir.path() / lock_file, false);
  if (!fd)
    return std::nullopt;
  std::optional<run_holder> h;
  if (::flock(*fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    h = read_record(*fd);
  else
    ::flock(*fd, LOCK_UN);
  ::close(*fd);
  return h;
}

run_owner::run_owner(run_owner&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

run_owner& run_owner::operator=(run_owner&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

run_owner::~run_owner() {
  if (fd_ >= 0)
    ::close(fd_); // closing the last descriptor drops the flock
}

} // namespace warpforge::storage
