#include "deploy/project_guard.hpp"

#include "foundation/files/atomic_write.hpp"

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

// The file is written whole and synced under a name of its own beside `path`, then linked to
// `path`: link() fails with EEXIST when one is there, so creation stays exclusive, and a kill at
// any moment leaves either no file or the whole text, never an empty marker nobody can read.
expected<void, project_write_error> create_exclusive(const fs::path& path, std::string_view text) {
  auto temp = path;
  temp += ".creating-" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return failure("create " + temp.string() + ": " + std::strerror(errno));
  auto give_up = [&](std::string step) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return failure(step + " " + temp.string() + ": " + std::strerror(error));
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return give_up("write");
    done += static_cast<std::size_t>(n);
  }
  // The marker is what makes a killed deploy recoverable: it must be on disk before the target
  // file changes.
  if (::fsync(fd) != 0)
    return give_up("fsync");
  ::close(fd);
  const bool linked = ::link(temp.c_str(), path.c_str()) == 0;
  const int error = errno;
  ::unlink(temp.c_str());
  if (!linked)
    return failure("create " + path.string() + ": " + std::strerror(error), error == EEXIST);
  if (const int folder = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); folder >= 0) {
    ::fsync(folder); // the new name on disk too; a kill alone never loses it either way
    ::close(folder);
  }
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
