#include "gpu/runtime/counter_probe.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

TEST(counter_probe, every_availability_query_round_trips_through_its_name) {
  for (auto query : all_availability_queries)
    EXPECT_EQ(availability_query_from_string(to_string(query)), query) << to_string(query);
  EXPECT_FALSE(availability_query_from_string("maybe"));
}

TEST(counter_probe, nvidia_params_give_the_admin_only_flag) {
  auto on = parse_nvidia_params("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n"
                                "EnableMSI: 1\n");
  EXPECT_TRUE(on.known);
  EXPECT_TRUE(on.admin_only);
  auto off = parse_nvidia_params("RmProfilingAdminOnly: 0\n");
  EXPECT_TRUE(off.known);
  EXPECT_FALSE(off.admin_only);
  auto absent = parse_nvidia_params("EnableMSI: 1\n");
  EXPECT_FALSE(absent.known);
  EXPECT_NE(absent.detail.find("not present"), std::string::npos);
  auto garbled = parse_nvidia_params("RmProfilingAdminOnly: yes\n");
  EXPECT_FALSE(garbled.known);
}

TEST(counter_probe, a_missing_params_file_is_unknown_with_a_reason) {
  auto r = read_profiling_restriction("/nonexistent/nvidia/params");
  EXPECT_FALSE(r.known);
  EXPECT_NE(r.detail.find("/nonexistent/nvidia/params"), std::string::npos);
}

namespace {
counter_evidence supported(availability_query availability, bool admin_only, std::uint32_t uid) {
  counter_evidence e;
  e.restriction = {true, admin_only, ""};
  e.effective_uid = uid;
  e.device_supported = true;
  e.availability = availability;
  return e;
}
} // namespace

TEST(counter_probe, counters_are_readable_when_cupti_agrees_and_nothing_restricts) {
  EXPECT_EQ(decide_counter_access(supported(availability_query::succeeded, false, 1000)).access,
            counter_access::readable);
  EXPECT_EQ(decide_counter_access(supported(availability_query::succeeded, true, 0)).access,
            counter_access::readable);
}

TEST(counter_probe, admin_only_restricts_a_non_root_user_even_if_cupti_answered) {
  auto verdict = decide_counter_access(supported(availability_query::succeeded, true, 1000));
  EXPECT_EQ(verdict.access, counter_access::restricted_admin_only);
  EXPECT_NE(verdict.reason.find("euid 1000"), std::string::npos) << verdict.reason;
}

TEST(counter_probe, cupti_insufficient_privileges_means_restricted) {
  auto e = supported(availability_query::insufficient_privileges, false, 1000);
  e.restriction = {false, false, "unreadable"};
  EXPECT_EQ(decide_counter_access(e).access, counter_access::restricted_admin_only);
}

TEST(counter_probe, an_unsupported_device_says_which_check_failed) {
  counter_evidence e;
  e.device_supported = false;
  e.support_detail = "vgpu=DISABLED";
  auto verdict = decide_counter_access(e);
  EXPECT_EQ(verdict.access, counter_access::unsupported);
  EXPECT_NE(verdict.reason.find("vgpu=DISABLED"), std::string::npos);
}

TEST(counter_probe, failed_queries_are_unknown_never_readable) {
  counter_evidence no_answer;
  no_answer.support_detail = "cuptiProfilerDeviceSupported failed";
  EXPECT_EQ(decide_counter_access(no_answer).access, counter_access::unknown);
  auto failed = supported(availability_query::failed, false, 0);
  failed.availability_detail = "CUPTI_ERROR_UNKNOWN";
  auto verdict = decide_counter_access(failed);
  EXPECT_EQ(verdict.access, counter_access::unknown);
  EXPECT_NE(verdict.reason.find("CUPTI_ERROR_UNKNOWN"), std::string::npos);
}
