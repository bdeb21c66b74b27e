#include "gpu/runner/gpu_lock.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace warpforge::gpu {
namespace {

constexpr std::string_view lock_dir_env = "WARPFORGE_LOCK_DIR";
constexpr std::string_view fallback_lock_dir = "/tmp/warpforge-locks";
constexpr mode_t shared_dir_mode = 01777; // every user may lock; only owners remove (sticky)
constexpr mode_t lock_file_mode = 0666;
constexpr std::size_t max_holder_bytes = 512;

unexpected<gpu_lock_error> fail(gpu_lock_error_kind kind, std::string detail) {
  return unexpected{gpu_lock_error{kind, std::move(detail)}};
}

bool usable_as_file_name(std::string_view uuid) {
  if (uuid.empty())
    return false;
  for (char c : uuid)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return uuid != "." && uuid != "..";
}

// Whoever holds the lock wrote a line about itself into the file.
std::string read_holder(int fd) {
  std::array<char, max_holder_bytes> buffer{};
  const auto n = ::pread(fd, buffer.data(), buffer.size() - 1, 0);
  if (n <= 0)
    return "an unknown process";
  std::string text{buffer.data(), static_cast<std::size_t>(n)};
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.pop_back();
  return text.empty() ? "an unknown process" : text;
}

// A fixed-size record, padded with NULs, written over the previous holder's: the file is never
// truncated, so even a lock file that is not what it seems could lose at most its first bytes.
void write_holder(int fd, std::string_view holder) {
  std::string line = "pid " + std::to_string(::getpid()) + " (" + std::string{holder} + ")\n";
  line.resize(max_holder_bytes - 1, '\0');
  (void)::pwrite(fd, line.data(), line.size(), 0);
}

// Opens the lock file in a folder other users may write (1777): never through a symbolic link
// (O_NOFOLLOW), never a device or FIFO (O_NONBLOCK keeps the open from hanging on one), and only
// a regular file with a single name, so a link planted by another user cannot make warpforge
// write to a file of theirs or ours.
expected<int, gpu_lock_error> open_lock_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
                        lock_file_mode);
  if (fd < 0) {
    const std::string reason = errno == ELOOP ? "it is a symbolic link" : std::strerror(errno);
    return fail(gpu_lock_error_kind::io, "cannot open lock file " + path.string() + ": " + reason);
  }
  struct stat st{};
  std::string refusal;
  if (::fstat(fd, &st) != 0)
    refusal = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    refusal = "not a regular file";
  else if (st.st_nlink != 1)
    refusal = "it has " + std::to_string(st.st_nlink) + " names (a hard link)";
  if (!refusal.empty()) {
    ::close(fd);
    return fail(gpu_lock_error_kind::io, "refusing lock file " + path.string() + ": " + refusal);
  }
  return fd;
}

} // namespace

std::filesystem::path default_lock_dir() {
  if (const char* dir = std::getenv(std::string{lock_dir_env}.c_str()); dir != nullptr && *dir != '\0')
    return dir;
  return std::filesystem::path{fallback_lock_dir};
}

constexpr vocabulary::enum_word<gpu_lock_error_kind> gpu_lock_error_kind_words[] = {
    {gpu_lock_error_kind::busy, "busy"},
    {gpu_lock_error_kind::invalid, "invalid"},
    {gpu_lock_error_kind::io, "io"},
};
static_assert(vocabulary::covers(gpu_lock_error_kind_words, all_gpu_lock_error_kinds));

std::string_view to_string(gpu_lock_error_kind kind) { return vocabulary::word_of(gpu_lock_error_kind_words, kind); }

std::optional<gpu_lock_error_kind> gpu_lock_error_kind_from_string(std::string_view text) {
  return vocabulary::value_of(gpu_lock_error_kind_words, text);
}

std::string gpu_lock_error::to_string() const {
  return std::string{gpu::to_string(kind)} + ": " + detail;
}

expected<gpu_lock, gpu_lock_error> gpu_lock::acquire(std::string_view gpu_uuid, std::string_view holder,
                                                     lock_policy policy,
                                                     std::chrono::milliseconds timeout,
                                                     const std::filesystem::path& dir) {
  if (!usable_as_file_name(gpu_uuid))
    return fail(gpu_lock_error_kind::invalid, "GPU UUID '" + std::string{gpu_uuid}
                                                + "' cannot name a lock file");
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return fail(gpu_lock_error_kind::io, "cannot create lock folder " + dir.string() + ": " + ec.message());
    ::chmod(dir.c_str(), shared_dir_mode); // best effort: another user may lock the next GPU
  }
  auto path = dir / ("gpu-" + std::string{gpu_uuid} + ".lock");
  auto opened = open_lock_file(path);
  if (!opened)
    return unexpected{opened.error()};
  const int fd = *opened;

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      write_holder(fd, holder);
      return gpu_lock{fd, std::move(path)};
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      return fail(gpu_lock_error_kind::io, "cannot lock " + path.string() + ": " + reason);
    }
    if (policy == lock_policy::fail || std::chrono::steady_clock::now() >= deadline) {
      std::string detail = std::string{gpu_uuid} + " is in use by " + read_holder(fd) + " (lock "
                           + path.string() + ")";
      if (policy == lock_policy::wait)
        detail += "; waited " + std::to_string(timeout.count()) + " ms";
      ::close(fd);
      return fail(gpu_lock_error_kind::busy, std::move(detail));
    }
    std::this_thread::sleep_for(lock_retry_interval);
  }
}

gpu_lock::gpu_lock(gpu_lock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

gpu_lock& gpu_lock::operator=(gpu_lock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

gpu_lock::~gpu_lock() {
  release();
}

void gpu_lock::release() {
  if (fd_ < 0)
    return;
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  fd_ = -1;
}

} // namespace warpforge::gpu
