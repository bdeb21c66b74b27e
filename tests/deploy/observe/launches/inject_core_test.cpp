// The injection library's CUDA-free part on the CPU: the launch table joins what the callbacks
// saw with kernel records by either correlation id, and the lines the library writes are read
// back by read_launch_log unchanged (writer and reader agree).

#include "deploy/observe/inject/byte_hash.hpp"
#include "deploy/observe/inject/launch_table.hpp"
#include "deploy/observe/inject/log_file.hpp"
#include "deploy/observe/inject/notes.hpp"
#include "deploy/observe/launches/launch_log.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace warpforge::observe;
using namespace warpforge::observe::inject;
namespace fs = std::filesystem;

TEST(inject_launch_table, a_runtime_launch_and_its_nested_driver_call_are_one_launch) {
  launch_table table;
  table.open_runtime(10, "_Z5scaleIfEvPT_iS0_");
  table.add_driver(11, 10, "", {{0, 4, "07000000"}});
  table.add_driver(20, 0, "fill", {});
  EXPECT_EQ(table.waiting(), 2u);
  auto by_driver_id = table.take(11);
  ASSERT_TRUE(by_driver_id);
  EXPECT_EQ(by_driver_id->sequence, 0u);
  EXPECT_EQ(by_driver_id->kernel, "_Z5scaleIfEvPT_iS0_"); // the driver gave no name: kept
  EXPECT_EQ(by_driver_id->source, params_source::driver);
  ASSERT_EQ(by_driver_id->params.size(), 1u);
  EXPECT_FALSE(table.take(10)) << "taking a launch removes it under both ids";
  auto fill = table.take(20);
  ASSERT_TRUE(fill);
  EXPECT_EQ(fill->sequence, 1u);
  EXPECT_EQ(table.waiting(), 0u);
  EXPECT_EQ(table.next_sequence(), 2u);
}

TEST(inject_launch_table, runtime_parameters_never_replace_the_driver_calls) {
  launch_table table;
  table.open_runtime(1, "k");
  table.alias(2, 1); // an entry point calling another
  table.set_runtime_params(2, {{0, 4, "01000000"}}, {1, 1, 1, 32, 1, 1});
  auto runtime_only = table.take(1);
  ASSERT_TRUE(runtime_only);
  EXPECT_EQ(runtime_only->source, params_source::runtime_kernel);
  EXPECT_EQ(runtime_only->params.size(), 1u);

  table.open_runtime(3, "k");
  table.add_driver(4, 3, "k", {});
  table.set_runtime_params(3, {{0, 4, "01000000"}}, {1, 1, 1, 32, 1, 1});
  auto with_driver = table.take(3);
  ASSERT_TRUE(with_driver);
  EXPECT_EQ(with_driver->source, params_source::driver);
  EXPECT_TRUE(with_driver->params.empty());
}

TEST(inject_launch_table, a_failed_launch_is_forgotten) {
  launch_table table;
  table.open_runtime(5, "k");
  table.add_driver(6, 5, "k", {});
  table.forget(5);
  EXPECT_FALSE(table.take(6));
  EXPECT_EQ(table.waiting(), 0u);
}

TEST(inject_notes, a_repeated_note_is_kept_once_with_its_count) {
  note_list notes;
  notes.add("a");
  notes.add("b");
  notes.add("a");
  EXPECT_THAT(notes.summary(), ::testing::ElementsAre("a (2 times)", "b"));
}

TEST(inject_log_file, what_the_library_writes_reads_back_and_a_second_process_gets_its_own_file) {
  fs::path dir = fs::temp_directory_path() / ("warpforge-inject-core-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  launch_record record;
  record.sequence = 3;
  record.kernel = "_Z1kPc";
  record.demangled = "void k<\"q\\\">(char*)\n"; // quotes, backslash, control character
  record.grid = {7, 2, 1};
  record.block = {128, 1, 1};
  record.dynamic_smem = 96;
  record.duration_s = 12345e-9;
  record.device = 1;
  record.params = {{0, 8, "0011223344556677"}, {8, 4, "f9ffffff"}};

  log_file log;
  ASSERT_EQ(log.open((dir / "launches.jsonl").string()), "");
  log.write_launch(record);
  log.write_end(4, {"note \"one\""});
  log_file second;
  ASSERT_EQ(second.open((dir / "launches.jsonl").string()), "");
  EXPECT_EQ(second.path(), (dir / ("launches.jsonl." + std::to_string(::getpid()))).string());

  auto read = read_launch_log(dir / "launches.jsonl");
  ASSERT_TRUE(read) << read.error();
  EXPECT_TRUE(read->complete);
  EXPECT_EQ(read->dropped, 4u);
  EXPECT_THAT(read->notes, ::testing::ElementsAre("note \"one\""));
  ASSERT_EQ(read->launches.size(), 1u);
  const launch_record& back = read->launches[0];
  EXPECT_EQ(back.sequence, 3u);
  EXPECT_EQ(back.demangled, record.demangled);
  EXPECT_EQ(back.grid, record.grid);
  EXPECT_EQ(back.dynamic_smem, 96u);
  EXPECT_DOUBLE_EQ(back.duration_s, 12345e-9);
  EXPECT_EQ(back.device, 1u);
  ASSERT_EQ(back.params.size(), 2u);
  EXPECT_EQ(as_signed(back.params[1]), -7);
  fs::remove_all(dir);
}

TEST(inject_buffer_watch, a_hash_is_sixteen_hex_digits_that_change_with_any_byte) {
  byte_hash empty;
  EXPECT_EQ(empty.hex(), "cbf29ce484222325"); // the FNV-1a 64 offset basis: nothing hashed
  byte_hash a, b, chunked;
  const unsigned char bytes[] = {1, 2, 3, 4};
  const unsigned char other[] = {1, 2, 3, 5};
  a.add(bytes, 4);
  b.add(other, 4);
  chunked.add(bytes, 1);
  chunked.add(bytes + 1, 3);
  EXPECT_EQ(a.hex().size(), 16u);
  EXPECT_NE(a.hex(), b.hex());
  EXPECT_EQ(a.hex(), chunked.hex()) << "fed in chunks, as device memory is copied";
}

TEST(inject_buffer_watch, the_budget_hashes_the_first_launches_under_the_byte_limit_and_says_why_not_the_others) {
  hash_budget budget(2, 1000);
  EXPECT_EQ(budget.take(2000), "a launch's buffers (2000 bytes) exceed the hash budget of 1000 bytes a launch: not hashed");
  EXPECT_EQ(budget.take(1000), "");
  EXPECT_EQ(budget.take(10), "");
  EXPECT_EQ(budget.take(10), "later launches of the kernel are not hashed (the first 2 were)");
}

TEST(inject_buffer_watch, a_launchs_buffers_are_written_and_read_back_with_the_launch) {
  launch_record record;
  record.kernel = "_Z1kPfi";
  record.demangled = "k(float*, int)";
  record.params = {{0, 8, "0000a000007f0000"}, {8, 4, "20000000"}};
  record.buffers = {{0, 0x7f0000a00000, 4096, "1111111111111111", "2222222222222222"}};
  auto log = parse_launch_log(launch_line(record) + "\n", "buffers.jsonl");
  ASSERT_TRUE(log) << log.error();
  ASSERT_EQ(log->launches.size(), 1u);
  ASSERT_EQ(log->launches[0].buffers.size(), 1u);
  const auto& b = log->launches[0].buffers[0];
  EXPECT_EQ(b.param, 0u);
  EXPECT_EQ(b.allocation, 0x7f0000a00000u);
  EXPECT_EQ(b.allocation_bytes, 4096u);
  EXPECT_EQ(changed(b), true);
  record.buffers[0].after = "";
  auto unhashed = parse_launch_log(launch_line(record) + "\n", "buffers.jsonl");
  ASSERT_TRUE(unhashed) << unhashed.error();
  EXPECT_EQ(changed(unhashed->launches[0].buffers[0]), std::nullopt);
  record.buffers.clear();
  EXPECT_EQ(launch_line(record).find("buffers"), std::string::npos) << "no watched buffers: no key";
}

TEST(inject_buffer_watch, a_bad_hash_in_a_log_is_refused_naming_the_line_and_key) {
  const std::string line =
    R"({"seq":0,"kernel":"k","demangled":"k","grid":[1,1,1],"block":[1,1,1],"smem":0,"duration_ns":1,"device":0,)"
    R"("params":[],"buffers":[{"param":0,"allocation":1,"allocation_bytes":4,"before":"xyz","after":""}]})";
  auto log = parse_launch_log(line + "\n", "bad.jsonl");
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().find("bad.jsonl:1"), std::string::npos) << log.error();
  EXPECT_NE(log.error().find("buffers[0]"), std::string::npos) << log.error();
}
