#include "pipeline/host_credential.hpp"

#include "gpu/runner/child_process.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

constexpr auto tool_timeout = std::chrono::seconds{60};

expected<fs::path, std::string> find_openssl(const fs::path& given) {
  if (!given.empty())
    return given;
  const char* path = std::getenv("PATH");
  std::istringstream folders{path ? path : "/usr/bin:/bin"};
  for (std::string folder; std::getline(folders, folder, ':');)
    if (!folder.empty() && ::access((fs::path{folder} / "openssl").c_str(), X_OK) == 0)
      return fs::path{folder} / "openssl";
  return unexpected{std::string{"no `openssl` tool on PATH (Debian/Ubuntu: apt-get install openssl)"}};
}

// A subject's common name: the campaign's name with anything but letters, digits and -_. dropped
// (a '/' would start another field of the subject).
std::string common_name(const std::string& campaign, const char* role) {
  std::string name = "warpforge ";
  for (char c : campaign)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
      name += c;
  return name + " " + role;
}

std::string tail_of(const fs::path& log) {
  std::ifstream in{log};
  std::stringstream text;
  text << in.rdbuf();
  auto s = text.str();
  return s.size() > 600 ? s.substr(s.size() - 600) : s;
}

expected<void, std::string> run_tool(const fs::path& openssl, std::vector<std::string> arguments, const fs::path& log,
                                     const std::string& step) {
  gpu::spawn_options spawn;
  spawn.executable = openssl;
  spawn.arguments = std::move(arguments);
  spawn.output_file = log;
  auto child = gpu::child_process::spawn(spawn);
  if (!child)
    return unexpected{step + ": " + child.error().detail};
  auto exit = child->wait_for_exit(std::chrono::duration_cast<std::chrono::milliseconds>(tool_timeout));
  if (!exit)
    return unexpected{step + ": openssl did not finish within " + std::to_string(tool_timeout.count()) + " s"};
  if (exit->exit_code != 0)
    return unexpected{step + ": openssl ended with " + exit->to_string() + ": " + tail_of(log)};
  return {};
}

credential_files files_in(const fs::path& dir) {
  return {dir / "ca.pem", dir / "member.pem", dir / "member.key"};
}

} // namespace

expected<credential_files, std::string> make_credential(const fs::path& dir, const std::string& campaign,
                                                        fs::path openssl) {
  auto tool = find_openssl(openssl);
  if (!tool)
    return unexpected{tool.error()};
  std::error_code ec;
  if (fs::exists(dir / "member.pem", ec))
    return unexpected{dir.string() + ": holds a credential already (a campaign's credential is made once)"};
  fs::create_directories(dir, ec);
  if (ec)
    return unexpected{"cannot create " + dir.string() + ": " + ec.message()};
  // The folder first: whatever the tool writes inside is out of others' reach from the start.
  fs::permissions(dir, fs::perms::owner_all, ec);
  if (ec)
    return unexpected{"cannot make " + dir.string() + " private: " + ec.message()};
  const auto files = files_in(dir);
  const auto ca_key = dir / "ca.key";
  const auto request = dir / "member.csr";
  const auto log = dir / "openssl.log";
  std::random_device entropy;
  const auto serial = std::to_string((static_cast<std::uint64_t>(entropy()) << 31) ^ entropy());
  const auto days = std::to_string(credential_days);
  const std::vector<std::string> ec_key = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
  auto ca_args = std::vector<std::string>{"req", "-x509"};
  ca_args.insert(ca_args.end(), ec_key.begin(), ec_key.end());
  ca_args.insert(ca_args.end(), {"-keyout", ca_key.string(), "-out", files.ca.string(), "-days", days, "-subj",
                                 "/CN=" + common_name(campaign, "campaign CA"), "-addext",
                                 "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"});
  auto member_args = std::vector<std::string>{"req"};
  member_args.insert(member_args.end(), ec_key.begin(), ec_key.end());
  member_args.insert(member_args.end(), {"-keyout", files.key.string(), "-out", request.string(), "-subj",
                                         "/CN=" + common_name(campaign, "campaign member")});
  const std::vector<std::string> sign_args = {"x509", "-req", "-in", request.string(), "-CA", files.ca.string(),
                                              "-CAkey", ca_key.string(), "-set_serial", serial, "-days", days,
                                              "-out", files.certificate.string()};
  expected<void, std::string> done = run_tool(*tool, ca_args, log, "making the campaign CA");
  if (done)
    done = run_tool(*tool, member_args, log, "making the member key");
  if (done)
    done = run_tool(*tool, sign_args, log, "signing the member certificate");
  // The CA's key signs nothing more: gone, whatever happened.
  fs::remove(ca_key, ec);
  fs::remove(request, ec);
  if (!done) {
    fs::remove(files.ca, ec);
    fs::remove(files.certificate, ec);
    fs::remove(files.key, ec);
    return unexpected{dir.string() + ": " + done.error()};
  }
  fs::remove(log, ec);
  for (const auto& f : {files.ca, files.certificate, files.key}) {
    fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write, ec);
    if (ec)
      return unexpected{"cannot restrict " + f.string() + " to its owner: " + ec.message()};
  }
  return files;
}

expected<credential_files, std::string> read_credential(const fs::path& dir) {
  const auto files = files_in(dir);
  for (const auto& f : {files.ca, files.certificate, files.key})
    if (::access(f.c_str(), R_OK) != 0)
      return unexpected{f.string() + ": missing or unreadable (the campaign's credential: made by `warpforge host "
                                     "--new-credential DIR`, or under the coordinator's <run>/credential/)"};
  struct stat st {};
  if (::stat(files.key.c_str(), &st) != 0)
    return unexpected{files.key.string() + ": cannot be read"};
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    return unexpected{files.key.string() + ": others than its owner may read it (chmod 600 " + files.key.string() +
                      "); a campaign's key is refused then"};
  return files;
}

} // namespace warpforge::pipeline
