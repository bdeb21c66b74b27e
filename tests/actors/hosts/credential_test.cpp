// A campaign's credential (pipeline/host_credential.hpp), made by the real `openssl` tool, and
// the ledger that sends kernels to hosts as source and options (pipeline/kernel_ledger.hpp).

#include "gpu/runner/child_process.hpp"
#include "pipeline/host_credential.hpp"
#include "pipeline/kernel_ledger.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;

struct scratch {
  fs::path dir = fs::temp_directory_path() / ("wf-credential-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  scratch() { fs::remove_all(dir); }
  ~scratch() { fs::remove_all(dir); }
};

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 0777;
}

// `openssl verify -CAfile ca cert`'s exit code.
int openssl_verify(const fs::path& ca, const fs::path& cert, const fs::path& log) {
  gpu::spawn_options spawn;
  spawn.executable = "/usr/bin/openssl";
  spawn.arguments = {"verify", "-CAfile", ca.string(), cert.string()};
  spawn.output_file = log;
  auto child = gpu::child_process::spawn(spawn);
  EXPECT_TRUE(child.has_value());
  auto exit = child->wait_for_exit(std::chrono::seconds{30});
  return exit && exit->exit_code ? *exit->exit_code : -1;
}

TEST(HostCredential, IsACampaignCaAndAMemberCertificateItSignedEveryFileForItsOwnerOnly) {
  scratch s;
  auto made = make_credential(s.dir / "credential", "nightly/sweep");
  ASSERT_TRUE(made) << made.error();
  EXPECT_EQ(mode_of(s.dir / "credential"), 0700u);
  for (const auto& f : {made->ca, made->certificate, made->key})
    EXPECT_EQ(mode_of(f), 0600u) << f;
  // The CA's key is gone: nobody can sign another member; nothing else is left behind.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(s.dir / "credential"))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ca.pem", "member.key", "member.pem"}));
  EXPECT_EQ(openssl_verify(made->ca, made->certificate, s.dir / "verify.log"), 0);

  auto read = read_credential(s.dir / "credential");
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read->key, made->key);
}

TEST(HostCredential, TwoCampaignsTrustEachOthersMembersNot) {
  scratch s;
  auto one = make_credential(s.dir / "one", "a");
  auto two = make_credential(s.dir / "two", "b");
  ASSERT_TRUE(one && two);
  EXPECT_NE(openssl_verify(one->ca, two->certificate, s.dir / "verify.log"), 0);
}

TEST(HostCredential, IsMadeOnceAndAKeyOthersMayReadIsRefused) {
  scratch s;
  ASSERT_TRUE(make_credential(s.dir, "a"));
  auto again = make_credential(s.dir, "a");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().find("holds a credential already"), std::string::npos) << again.error();

  fs::permissions(s.dir / "member.key", fs::perms::owner_read | fs::perms::group_read);
  auto read = read_credential(s.dir);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find((s.dir / "member.key").string()), std::string::npos) << read.error();
  EXPECT_NE(read.error().find("chmod 600"), std::string::npos) << read.error();

  fs::remove(s.dir / "ca.pem");
  read = read_credential(s.dir);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("ca.pem: missing"), std::string::npos) << read.error();
}

// --- the ledger ---------------------------------------------------------------------------------

gpu::compile_request request_for(const std::string& entry) {
  gpu::compile_request r;
  r.source = "extern \"C\" __global__ void " + entry + "() {}";
  r.entry = entry;
  r.arch = "sm_90";
  return r;
}

// A stand-in compiler: the "CUBIN" is the entry's name, so two kernels differ and one is stable.
gpu::compile_result fake_compile(const gpu::compile_request& r) {
  gpu::compiled_kernel k;
  k.entry = r.entry;
  k.cubin.assign(r.entry.begin(), r.entry.end());
  return k;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream{p} << text;
}

TEST(KernelLedger, NamesTheSourceOfEveryCubinOfARaceAndRebuildsThemElsewhere) {
  scratch s;
  kernel_ledger ledger;
  auto compile = ledger.recording(fake_compile);
  ASSERT_TRUE(compile(request_for("incumbent")));
  ASSERT_TRUE(compile(request_for("challenger")));
  write(s.dir / "coordinator/a.cubin", "incumbent");
  write(s.dir / "coordinator/b.cubin", "challenger");

  gpu::race_request race;
  race.kernels = {{s.dir / "coordinator/a.cubin", "incumbent", {}}, {s.dir / "coordinator/b.cubin", "challenger", {}}};
  race.reference = gpu::kernel_launch{s.dir / "coordinator/a.cubin", "incumbent", {}};
  auto builds = ledger.builds_for(race);
  ASSERT_TRUE(builds) << builds.error();
  ASSERT_EQ(builds->size(), 2u); // the reference is the incumbent's CUBIN: sent once
  EXPECT_EQ((*builds)[0].request.entry, "incumbent");
  EXPECT_EQ((*builds)[1].request.source, request_for("challenger").source);

  int compiles = 0;
  auto host_compile = [&](const gpu::compile_request& r) {
    ++compiles;
    return fake_compile(r);
  };
  auto on_host = race;
  ASSERT_TRUE(rebuild_on_host(on_host, *builds, host_compile, s.dir / "host"));
  EXPECT_EQ(compiles, 2);
  EXPECT_EQ(on_host.kernels[0].cubin_path.parent_path(), s.dir / "host");
  EXPECT_EQ(on_host.reference->cubin_path, on_host.kernels[0].cubin_path);
  std::ifstream made{on_host.kernels[1].cubin_path};
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>{made}, {}), "challenger");
  // Built once per host: the next race with the same kernels compiles nothing.
  auto again = race;
  ASSERT_TRUE(rebuild_on_host(again, *builds, host_compile, s.dir / "host"));
  EXPECT_EQ(compiles, 2);
}

TEST(KernelLedger, RefusesACubinItDidNotMakeAndAHashThatIsNotOne) {
  scratch s;
  kernel_ledger ledger;
  write(s.dir / "stranger.cubin", "made elsewhere");
  gpu::race_request race;
  race.kernels = {{s.dir / "stranger.cubin", "k", {}}};
  auto builds = ledger.builds_for(race);
  ASSERT_FALSE(builds);
  EXPECT_NE(builds.error().find("did not compile it"), std::string::npos) << builds.error();

  kernel_build bad{(s.dir / "stranger.cubin").string(), request_for("k"), "../../etc/passwd"};
  auto rebuilt = rebuild_on_host(race, {bad}, fake_compile, s.dir / "host");
  ASSERT_FALSE(rebuilt);
  EXPECT_NE(rebuilt.error().find("not 64 hex digits"), std::string::npos) << rebuilt.error();
  EXPECT_FALSE(fs::exists(s.dir / "host"));
}

} // namespace
} // namespace warpforge::pipeline
