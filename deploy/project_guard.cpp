#include "deploy/project_guard.hpp"

#include "files/atomic_write.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

unexpected<project_write_error> failure(std::string message, bool exists = false) {
  return unexpected{project_write_error{exists, std::move(message)}};
}

expected<void, project_write_error> create_exclusive(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    return failure("create " + path.string() + ": " + std::strerror(error), error == EEXIST);
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      return failure("write " + path.string() + ": " + std::strerror(error));
    }
    done += static_cast<std::size_t>(n);
  }
  // The marker is what makes a killed deploy recoverable: it must be on disk before the target
  // file changes.
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced)
    return failure("fsync " + path.string() + ": " + std::strerror(errno));
  return {};
}

expected<void, project_write_error> replace(const fs::path& path, std::string_view text) {
  struct stat before {};
  const bool had_mode = ::stat(path.c_str(), &before) == 0;
  if (auto written = files::write_file_atomically(path, text); !written)
    return failure(written.error());
  if (had_mode) // the rename gave the file a new inode: keep the user's permission bits
    ::chmod(path.c_str(), before.st_mode & 07777);
  return {};
}

} // namespace

expected<void, project_write_error> write_inside_project(const deploy_target& target,
                                                         const fs::path& path, project_write how,
                                                         std::string_view text) {
  if (auto why = outside_target_reason(target, path); !why.empty())
    return failure("refused to write inside the project: " + why);
  // Write through the resolved name: a rename over a symlink would replace the link itself.
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(path, ec);
  if (ec)
    return failure("cannot resolve " + path.string() + ": " + ec.message());
  switch (how) {
    case project_write::replace: return replace(real, text);
    case project_write::create_exclusive: return create_exclusive(real, text);
    case project_write::remove:
      if (::unlink(real.c_str()) != 0 && errno != ENOENT)
        return failure("remove " + real.string() + ": " + std::strerror(errno));
      return {};
  }
  return failure("unknown write");
}

} // namespace warpforge::deploy
