// [hosts] in the campaign spec (config/hosts_spec.hpp): what is read, and every refusal names the
// file, the key and the line. A calibrate campaign is used so the text needs no problem files.
#include "config/campaign_spec.hpp"
#include "config/hosts_spec.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace warpforge::config {
namespace {

using testing::expect_error;

const std::filesystem::path file = "campaign.toml";

// Line 1 and 2 are the campaign's; what a test appends starts on line 3.
std::string campaign(const std::string& hosts) {
  return "name = \"hosts\"\nkind = \"calibrate\"\n" + hosts;
}

toml_reader::placed_errors errors_of(const std::string& hosts) {
  auto spec = parse_campaign(campaign(hosts), file);
  EXPECT_FALSE(spec.has_value()) << hosts << "\nwas accepted";
  return spec ? toml_reader::placed_errors{} : spec.error();
}

hosts_spec hosts_of(const std::string& hosts) {
  auto spec = parse_campaign(campaign(hosts), file);
  EXPECT_TRUE(spec.has_value()) << (spec ? "" : to_string(spec.error()));
  return spec ? spec->hosts : hosts_spec{};
}

const std::string slurm_keys = "nodes = 2\ngpus_per_node = 4\ntime_limit = \"8:00:00\"\n";

TEST(HostsSpec, WithoutHostsTheCampaignUsesThisMachinesGpusOnly) {
  EXPECT_TRUE(hosts_of("").local_only());
}

TEST(HostsSpec, AddressesAreReadAsHostAndPortIpv6WithoutItsBrackets) {
  const auto hosts = hosts_of("[hosts]\naddresses = [\"node1:4242\", \"10.0.0.7:1\", \"[fd00::7]:65535\"]\n");
  ASSERT_EQ(hosts.addresses.size(), 3u);
  EXPECT_EQ(hosts.addresses[0], (host_address{"node1", 4242}));
  EXPECT_EQ(hosts.addresses[1], (host_address{"10.0.0.7", 1}));
  EXPECT_EQ(hosts.addresses[2], (host_address{"fd00::7", 65535}));
  EXPECT_EQ(hosts.addresses[2].to_string(), "[fd00::7]:65535");
  EXPECT_FALSE(hosts.slurm);
  EXPECT_FALSE(hosts.local_only());
}

TEST(HostsSpec, ASlurmSectionIsReadWithEveryKey) {
  const auto hosts = hosts_of("[hosts.slurm]\npartition = \"gpu\"\n" + slurm_keys +
                              "sbatch_options = [\"--account=proj42\", \"--exclusive\"]\n");
  ASSERT_TRUE(hosts.slurm);
  EXPECT_TRUE(hosts.addresses.empty());
  EXPECT_EQ(hosts.slurm->partition, "gpu");
  EXPECT_EQ(hosts.slurm->nodes, 2u);
  EXPECT_EQ(hosts.slurm->gpus_per_node, 4u);
  EXPECT_EQ(hosts.slurm->time_limit, "8:00:00");
  EXPECT_EQ(hosts.slurm->time_limit_s, 8u * 3600);
  EXPECT_EQ(hosts.slurm->sbatch_options, (std::vector<std::string>{"--account=proj42", "--exclusive"}));
  EXPECT_EQ(hosts.slurm->place.line, 3u);
}

TEST(HostsSpec, WithoutAPartitionTheClustersDefaultIsUsed) {
  const auto hosts = hosts_of("[hosts.slurm]\n" + slurm_keys);
  ASSERT_TRUE(hosts.slurm);
  EXPECT_EQ(hosts.slurm->partition, "");
  EXPECT_TRUE(hosts.slurm->sbatch_options.empty());
}

TEST(HostsSpecErrors, AnEmptyHostsTableNamesNoHosts) {
  expect_error(errors_of("[hosts]\n"), file, "hosts", 3, "names no hosts");
}

TEST(HostsSpecErrors, AddressesAndSlurmTogetherAreRefused) {
  expect_error(errors_of("[hosts]\naddresses = [\"node1:4242\"]\n[hosts.slurm]\n" + slurm_keys), file, "hosts.slurm", 5,
               "both addresses and [hosts.slurm]");
}

TEST(HostsSpecErrors, AnEmptyListOfAddressesIsRefused) {
  expect_error(errors_of("[hosts]\naddresses = []\n"), file, "hosts.addresses", 4, "empty");
}

TEST(HostsSpecErrors, EachBadAddressIsNamedByItsIndex) {
  const auto errors = errors_of("[hosts]\naddresses = [\"node1\", \"node1:0\", \"node1:70000\", \"fd00::7:1\", "
                                "\"no de:1\", \"[fd00::7]\", \"ok:1\", \"ok:1\", \"-x:1\"]\n");
  expect_error(errors, file, "hosts.addresses[0]", 4, "no port");
  expect_error(errors, file, "hosts.addresses[1]", 4, "not a number in [1, 65535]");
  expect_error(errors, file, "hosts.addresses[2]", 4, "not a number in [1, 65535]");
  expect_error(errors, file, "hosts.addresses[3]", 4, "in brackets");
  expect_error(errors, file, "hosts.addresses[4]", 4, "not a host name");
  expect_error(errors, file, "hosts.addresses[5]", 4, "[address]:port");
  expect_error(errors, file, "hosts.addresses[7]", 4, "listed twice");
  expect_error(errors, file, "hosts.addresses[8]", 4, "not a host name");
  EXPECT_EQ(errors.size(), 8u) << to_string(errors);
}

TEST(HostsSpecErrors, EachMissingSlurmKeyIsNamed) {
  const auto errors = errors_of("[hosts.slurm]\npartition = \"gpu\"\n");
  expect_error(errors, file, "hosts.slurm.nodes", 3, "missing");
  expect_error(errors, file, "hosts.slurm.gpus_per_node", 3, "missing");
  expect_error(errors, file, "hosts.slurm.time_limit", 3, "missing");
}

TEST(HostsSpecErrors, CountsOutOfRangeAreRefused) {
  const auto errors = errors_of("[hosts.slurm]\nnodes = 0\ngpus_per_node = 65\ntime_limit = \"60\"\n");
  expect_error(errors, file, "hosts.slurm.nodes", 4, "must be in [1, 1024] nodes, got 0");
  expect_error(errors, file, "hosts.slurm.gpus_per_node", 5, "must be in [1, 64] GPUs, got 65");
}

TEST(HostsSpecErrors, ATimeLimitOutsideSlurmsFormatOrUnlimitedIsRefused) {
  for (const std::string limit : {"UNLIMITED", "infinite", "1:60:00", "0", "0:00", "abc", "2-24:00", "1:2:3:4", "-5",
                                  "8h", ""}) {
    SCOPED_TRACE(limit);
    expect_error(errors_of("[hosts.slurm]\nnodes = 1\ngpus_per_node = 1\ntime_limit = \"" + limit + "\"\n"), file,
                 "hosts.slurm.time_limit", 6, "'" + limit + "'");
  }
  expect_error(errors_of("[hosts.slurm]\nnodes = 1\ngpus_per_node = 1\ntime_limit = 60\n"), file,
               "hosts.slurm.time_limit", 6, "expected a string");
}

TEST(HostsSpecErrors, APartitionWithShellCharactersIsRefused) {
  expect_error(errors_of("[hosts.slurm]\n" + slurm_keys + "partition = \"gpu; reboot\"\n"), file,
               "hosts.slurm.partition", 7, "not a partition name");
}

TEST(HostsSpecErrors, EachUnsafeOrOwnedSbatchOptionIsNamedByItsIndex) {
  const auto errors = errors_of("[hosts.slurm]\n" + slurm_keys +
                                "sbatch_options = [\"--account=a b\", \"--comment=$(id)\", \"-A proj\", \"--nodes=3\",\n"
                                "  \"--nod=3\", \"--comment=x\\nrm -rf /\", \"--qos='high'\", \"--Account=x\", \"--qos=normal\"]\n");
  const std::string key = "hosts.slurm.sbatch_options";
  expect_error(errors, file, key + "[0]", 7, "holds a space");
  expect_error(errors, file, key + "[1]", 7, "holds '$'");
  expect_error(errors, file, key + "[2]", 7, "not a long option");
  expect_error(errors, file, key + "[3]", 7, "--nodes is set by warpforge; use nodes");
  expect_error(errors, file, key + "[4]", 8, "--nod (short for --nodes) is set by warpforge");
  expect_error(errors, file, key + "[5]", 8, "holds a newline");
  expect_error(errors, file, key + "[6]", 8, "holds '''");
  expect_error(errors, file, key + "[7]", 8, "lower case");
  EXPECT_EQ(errors.size(), 8u) << to_string(errors);
}

TEST(HostsSpecErrors, AnUnknownKeyInTheSlurmTableIsRefused) {
  expect_error(errors_of("[hosts.slurm]\n" + slurm_keys + "gpus = 4\n"), file, "hosts.slurm.gpus", 7, "unknown");
}

std::uint64_t seconds_of(std::string_view limit) {
  auto seconds = parse_slurm_time_limit(limit);
  EXPECT_TRUE(seconds.has_value()) << limit << ": " << (seconds ? "" : seconds.error());
  return seconds ? *seconds : 0;
}

TEST(SlurmTimeLimit, EveryFormOfSlurmsTimeIsReadInSeconds) {
  EXPECT_EQ(seconds_of("90"), 90u * 60);
  EXPECT_EQ(seconds_of("90:30"), 90u * 60 + 30);
  EXPECT_EQ(seconds_of("8:00:00"), 8u * 3600);
  EXPECT_EQ(seconds_of("1-0"), 86400u);
  EXPECT_EQ(seconds_of("1-12:30"), 86400u + 12 * 3600 + 30 * 60);
  EXPECT_EQ(seconds_of("2-03:04:05"), 2u * 86400 + 3 * 3600 + 4 * 60 + 5);
}

TEST(SbatchOption, OptionsThatWouldKeepTheHostsFromArrivingOnceAndNowAreRefused) {
  for (const std::string option : {"--array=0-3", "--hold", "--test-only", "--begin=now+1hour",
                                   "--dependency=afterok:12", "--export=NONE"}) {
    const auto problem = sbatch_option_problem(option);
    ASSERT_TRUE(problem.has_value()) << option;
    EXPECT_NE(problem->find("is set by warpforge"), std::string::npos) << *problem;
  }
}

TEST(SbatchOption, PlainLongOptionsAreAllowed) {
  for (const std::string option : {"--account=proj42", "--qos=normal", "--exclusive", "--constraint=a100,h100",
                                   "--output=/scratch/%u/wf-%j.out", "--mem=0", "--time-min=60", "--mail-user=a@b.org"})
    EXPECT_EQ(sbatch_option_problem(option), std::nullopt) << option;
}

} // namespace
} // namespace warpforge::config
