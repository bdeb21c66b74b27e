#include "storage/run_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <system_error>

namespace warpforge::storage {
namespace {

/// Suffixes tried after the plain name before create() gives up (-2 .. -max).
constexpr int max_name_suffix = 1000;

/// "YYYYmmdd-HHMMSS" plus its terminating NUL.
constexpr std::size_t timestamp_buffer = sizeof "YYYYmmdd-HHMMSS";

bool is_safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

store_error io_failure(std::string_view step, const std::filesystem::path& path,
                       const std::error_code& ec) {
  return store_error{store_error_code::io,
                     std::string{step} + " " + path.string() + ": " + ec.message()};
}

} // namespace

std::string path_component(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  for (char c : name)
    out.push_back(is_safe_char(c) ? c : '_');
  if (out.empty() || out == "." || out == "..")
    out.insert(out.begin(), '_');
  return out;
}

std::string run_directory_name(std::string_view campaign_name,
                               std::chrono::system_clock::time_point now) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, timestamp_buffer> stamp{};
  std::strftime(stamp.data(), stamp.size(), "%Y%m%d-%H%M%S", &utc);
  return path_component(campaign_name) + "-" + stamp.data();
}

expected<void, store_error> check_writable(const std::filesystem::path& dir) {
  auto probe = dir / (".warpforge-write-check-" + std::to_string(::getpid()));
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0)
    return unexpected{store_error{store_error_code::io, "check_writable " + dir.string() +
                                                            ": cannot create a file: " +
                                                            std::strerror(errno)}};
  const char byte = 0;
  bool wrote = ::write(fd, &byte, 1) == 1;
  int write_errno = errno;
  ::close(fd);
  ::unlink(probe.c_str());
  if (!wrote)
    return unexpected{store_error{store_error_code::io, "check_writable " + dir.string() +
                                                            ": cannot write a file: " +
                                                            std::strerror(write_errno)}};
  return {};
}

expected<run_directory, store_error> run_directory::create(
    const std::filesystem::path& root, std::string_view campaign_name,
    std::chrono::system_clock::time_point now, std::uint32_t mode) {
  std::error_code ec;
  auto absolute_root = std::filesystem::absolute(root, ec);
  if (ec)
    return unexpected{io_failure("run_directory::create: resolve", root, ec)};
  std::filesystem::create_directories(absolute_root, ec);
  if (ec)
    return unexpected{io_failure("run_directory::create: create", absolute_root, ec)};

  const std::string base = run_directory_name(campaign_name, now);
  for (int suffix = 1; suffix <= max_name_suffix; ++suffix) {
    auto candidate = absolute_root / (suffix == 1 ? base : base + "-" + std::to_string(suffix));
    // mkdir is atomic: EEXIST means someone else owns the name. Owner-only (0700) while it is
    // made; then exactly `mode` (chmod, unlike mkdir, ignores the umask).
    if (::mkdir(candidate.c_str(), S_IRWXU) != 0) {
      if (errno == EEXIST)
        continue;
      return unexpected{io_failure("run_directory::create: create", candidate,
                                   std::error_code{errno, std::generic_category()})};
    }
    if (::chmod(candidate.c_str(), static_cast<mode_t>(mode & 07777)) != 0)
      return unexpected{io_failure("run_directory::create: chmod", candidate,
                                   std::error_code{errno, std::generic_category()})};
    run_directory run{candidate};
    for (const auto& folder : {run.logs_dir(), run.jobs_dir(), run.artifacts_dir()}) {
      std::filesystem::create_directory(folder, ec);
      if (ec)
        return unexpected{io_failure("run_directory::create: create", folder, ec)};
    }
    return run;
  }
  return unexpected{store_error{store_error_code::io,
                                "run_directory::create: " + (absolute_root / base).string() +
                                    " and its suffixes up to -" +
                                    std::to_string(max_name_suffix) + " all exist"}};
}

expected<run_directory, store_error> run_directory::open(const std::filesystem::path& path) {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(path, ec);
  if (ec)
    return unexpected{io_failure("run_directory::open: resolve", path, ec)};
  if (!std::filesystem::is_directory(absolute, ec))
    return unexpected{store_error{store_error_code::not_a_run_directory,
                                  "run_directory::open: " + absolute.string() +
                                      " is not a folder"}};
  run_directory run{absolute};
  std::string missing;
  auto require = [&](const std::filesystem::path& p, bool folder) {
    bool present = folder ? std::filesystem::is_directory(p, ec)
                          : std::filesystem::is_regular_file(p, ec);
    if (present)
      return;
    if (!missing.empty())
      missing += ", ";
    missing += p.filename().string();
    if (folder)
      missing += "/";
  };
  require(run.database_path(), false);
  require(run.logs_dir(), true);
  require(run.jobs_dir(), true);
  require(run.artifacts_dir(), true);
  if (!missing.empty())
    return unexpected{store_error{store_error_code::not_a_run_directory,
                                  "run_directory::open: " + absolute.string() +
                                      " is not a run directory; missing: " + missing}};
  return run;
}

std::filesystem::path run_directory::database_path() const {
  return root_ / database_file;
}

std::filesystem::path run_directory::summary_path() const {
  return root_ / summary_file;
}

std::filesystem::path run_directory::feed_endpoint_path() const {
  return root_ / feed_endpoint_file;
}

std::filesystem::path run_directory::replay_endpoint_path() const {
  return root_ / replay_endpoint_file;
}

std::filesystem::path run_directory::logs_dir() const {
  return root_ / logs_folder;
}

std::filesystem::path run_directory::artifacts_dir() const {
  return root_ / artifacts_folder;
}

std::filesystem::path run_directory::jobs_dir() const {
  return root_ / jobs_folder;
}

std::filesystem::path run_directory::job_dir(std::string_view job_name) const {
  return jobs_dir() / path_component(job_name);
}

std::filesystem::path run_directory::iteration_dir(std::string_view job_name,
                                                   std::int64_t iteration) const {
  return job_dir(job_name) / ("iter-" + std::to_string(iteration));
}

std::filesystem::path run_directory::branch_dir(std::string_view job_name, std::int64_t iteration,
                                                std::int64_t ordinal) const {
  return iteration_dir(job_name, iteration) / ("branch-" + std::to_string(ordinal));
}

std::filesystem::path run_directory::relative(const std::filesystem::path& file) const {
  return file.lexically_relative(root_);
}

} // namespace warpforge::storage
