#include "gpu/device_report.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

namespace {

host_report sample_report() {
  host_report r;
  r.status = gpu_status::ok;
  r.driver_version = 13000;
  r.runtime_version = 13000;
  r.cupti_version = 130001;
  r.device_count = 1;
  r.visible_devices = "0";
  r.profiling_admin_only_known = true;
  r.profiling_admin_only = true;
  r.effective_uid = 1000;
  device_info d;
  d.ordinal = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-01234567-89ab-cdef-0123-456789abcdef";
  d.pci_bus_id = "0000:3B:00.0";
  d.sm_major = 9;
  d.sm_minor = 0;
  d.memory_bytes = 85'017'853'952ULL;
  d.sm_count = 132;
  d.l2_bytes = 52'428'800;
  d.shared_memory_per_block_optin_bytes = 232'448;
  d.registers_per_sm = 65'536;
  d.max_threads_per_sm = 2'048;
  d.sm_clock_khz = 1'980'000;
  d.memory_clock_khz = 0;
  d.memory_bus_width_bits = 5'120;
  d.ecc_enabled = true;
  d.counters = counter_access::restricted_admin_only;
  d.counter_reason = "RmProfilingAdminOnly=1 and euid 1000 is not root";
  d.notes = {"memory clock unknown: the driver reported 0"};
  r.devices.push_back(d);
  return r;
}

} // namespace

TEST(device_report, every_gpu_status_round_trips_through_its_name) {
  for (auto status : all_gpu_statuses)
    EXPECT_EQ(gpu_status_from_string(to_string(status)), status) << to_string(status);
  EXPECT_FALSE(gpu_status_from_string("fine"));
}

TEST(device_report, every_counter_access_round_trips_through_its_name) {
  for (auto access : all_counter_accesses)
    EXPECT_EQ(counter_access_from_string(to_string(access)), access) << to_string(access);
  EXPECT_FALSE(counter_access_from_string("maybe"));
}

TEST(device_report, arch_is_sm_major_minor) {
  device_info d;
  d.sm_major = 9;
  d.sm_minor = 0;
  EXPECT_EQ(d.arch(), "sm_90");
  d.sm_major = 12;
  d.sm_minor = 1;
  EXPECT_EQ(d.arch(), "sm_121");
}

TEST(device_report, cuda_versions_print_as_major_dot_minor) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(cuda_version_text(0), "none");
}

TEST(device_report, a_full_report_round_trips_through_json) {
  auto report = sample_report();
  auto json = to_json(report);
  EXPECT_NE(json.find(R"("arch":"sm_90")"), std::string::npos);
  auto decoded = host_report_from_json(json);
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, report);
}

TEST(device_report, a_no_gpu_report_round_trips_with_unset_visible_devices) {
  host_report report;
  report.status = gpu_status::no_driver;
  report.reason = "cudaGetDeviceCount(&count) failed: cudaErrorInsufficientDriver (35)";
  report.runtime_version = 13000;
  auto json = to_json(report);
  EXPECT_NE(json.find(R"("visible_devices":null)"), std::string::npos);
  auto decoded = host_report_from_json(json);
  ASSERT_TRUE(decoded) << decoded.error().detail;
  EXPECT_EQ(*decoded, report);
  EXPECT_FALSE(decoded->visible_devices);
}

TEST(device_report, a_broken_report_names_the_bad_field) {
  auto json = to_json(sample_report());
  auto replace = [&](std::string from, std::string to) {
    auto copy = json;
    copy.replace(copy.find(from), from.size(), to);
    return copy;
  };
  auto bad_status = host_report_from_json(replace(R"("status":"ok")", R"("status":"great")"));
  ASSERT_FALSE(bad_status);
  EXPECT_EQ(bad_status.error().detail, "host_report.status: unknown value 'great'");
  auto bad_device = host_report_from_json(replace(R"("sm_count":132)", R"("sm_count":"132")"));
  ASSERT_FALSE(bad_device);
  EXPECT_EQ(bad_device.error().detail, "host_report.devices[0].sm_count: not an integer");
  auto missing = host_report_from_json(replace(R"("l2_bytes":52428800,)", ""));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().detail, "host_report.devices[0].l2_bytes: missing");
  EXPECT_FALSE(host_report_from_json("null"));
  EXPECT_FALSE(host_report_from_json(""));
}

TEST(device_report, the_text_form_shows_the_reason_and_each_device) {
  auto text = to_text(sample_report());
  EXPECT_NE(text.find("NVIDIA H100 80GB HBM3 (sm_90)"), std::string::npos) << text;
  EXPECT_NE(text.find("SM clock:             1980 MHz"), std::string::npos) << text;
  EXPECT_NE(text.find("memory clock:         unknown"), std::string::npos) << text;
  EXPECT_NE(text.find("restricted_admin_only"), std::string::npos) << text;
}

namespace warpforge::gpu {
namespace {

// What status, report, run and diagnose say when there is no GPU: the reason, once, for a person.
TEST(ShortNoGpuReason, KeepsTheFirstClauseWithoutTheCallTextOrItsSourcePlace) {
  EXPECT_EQ(short_no_gpu_reason("no CUDA driver: libcuda.so.1 could not be loaded (is the NVIDIA driver installed "
                                "and on LD_LIBRARY_PATH?); cudaGetDeviceCount(&count) failed: "
                                "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA "
                                "runtime version [gpu/runtime/device_query.cpp:142]"),
            "no CUDA driver: libcuda.so.1 could not be loaded (is the NVIDIA driver installed and on LD_LIBRARY_PATH?)");
  EXPECT_EQ(short_no_gpu_reason("cudaGetDeviceCount(&count) failed: no device [gpu/runtime/device_query.cpp:142]"),
            "cudaGetDeviceCount(&count) failed: no device");
  EXPECT_EQ(short_no_gpu_reason("gpu.0 is out of service"), "gpu.0 is out of service");
  EXPECT_EQ(short_no_gpu_reason(""), "no GPU visible");
}

} // namespace
} // namespace warpforge::gpu
