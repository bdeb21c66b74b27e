#include "deploy/observe/inject/log_file.hpp"

#include "foundation/json/writer.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace warpforge::observe::inject {
namespace {

int create_exclusively(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

void write_triple(json::writer& out, const std::array<std::uint32_t, 3>& values) {
  out.begin_array();
  for (std::uint32_t v : values) out.value(static_cast<std::uint64_t>(v));
  out.end_array();
}

} // namespace

std::string log_file::open(const std::string& path) {
  std::lock_guard lock(mutex_);
  std::string chosen = path;
  int fd = create_exclusively(chosen);
  if (fd < 0 && errno == EEXIST) {
    chosen = path + "." + std::to_string(::getpid());
    fd = create_exclusively(chosen);
  }
  if (fd < 0) return "open " + chosen + ": " + std::strerror(errno);
  file_ = ::fdopen(fd, "w");
  if (!file_) {
    ::close(fd);
    return "fdopen " + chosen + ": " + std::strerror(errno);
  }
  path_ = chosen;
  return {};
}

bool log_file::is_open() const {
  std::lock_guard lock(mutex_);
  return file_ != nullptr;
}

std::string launch_line(const launch_record& record) {
  json::writer out;
  out.begin_object();
  out.key("seq").value(record.sequence);
  out.key("kernel").value(record.kernel);
  out.key("demangled").value(record.demangled);
  out.key("grid");
  write_triple(out, record.grid);
  out.key("block");
  write_triple(out, record.block);
  out.key("smem").value(static_cast<std::uint64_t>(record.dynamic_smem));
  out.key("duration_ns").value(static_cast<std::uint64_t>(std::llround(record.duration_s * 1e9)));
  out.key("device").value(static_cast<std::uint64_t>(record.device));
  out.key("params").begin_array();
  for (const param_bytes& param : record.params) {
    out.begin_object();
    out.key("offset").value(static_cast<std::uint64_t>(param.offset));
    out.key("size").value(static_cast<std::uint64_t>(param.size));
    out.key("hex").value(param.hex);
    out.end_object();
  }
  out.end_array();
  if (!record.buffers.empty()) { // only the launches of WARPFORGE_OBSERVE_BUFFERS's kernel
    out.key("buffers").begin_array();
    for (const buffer_observation& buffer : record.buffers) {
      out.begin_object();
      out.key("param").value(static_cast<std::uint64_t>(buffer.param));
      out.key("allocation").value(buffer.allocation);
      out.key("allocation_bytes").value(buffer.allocation_bytes);
      out.key("before").value(buffer.before);
      out.key("after").value(buffer.after);
      out.end_object();
    }
    out.end_array();
  }
  out.end_object();
  return std::move(out).str();
}

void log_file::write_launch(const launch_record& record) {
  std::string line = launch_line(record);
  line.push_back('\n');
  std::lock_guard lock(mutex_);
  if (!file_) return;
  std::fwrite(line.data(), 1, line.size(), file_);
  ++launches_written_;
}

void log_file::flush() {
  std::lock_guard lock(mutex_);
  if (file_) std::fflush(file_);
}

void log_file::write_end(std::uint64_t dropped, const std::vector<std::string>& notes) {
  json::writer out;
  std::lock_guard lock(mutex_);
  if (!file_) return;
  out.begin_object();
  out.key("end").value(true);
  out.key("launches").value(launches_written_);
  out.key("dropped").value(dropped);
  out.key("notes").begin_array();
  for (const std::string& note : notes) out.value(note);
  out.end_array();
  out.end_object();
  std::string line = std::move(out).str() + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fclose(file_);
  file_ = nullptr;
}

} // namespace warpforge::observe::inject
