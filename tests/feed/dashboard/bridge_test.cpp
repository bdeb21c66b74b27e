// The bridge against a real run directory (SQLite), a real publisher and a real replay endpoint on
// 127.0.0.1 ephemeral ports: a finished run from its store, a live one from the store then the feed.

#include "feed/dashboard/bridge.hpp"

#include "feed/event_json.hpp"
#include "feed/publisher.hpp"
#include "feed/replay_server.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <mutex>
#include <thread>

namespace warpforge::dashboard {
namespace {

using namespace std::chrono_literals;

feed::event numbered(std::uint64_t seq) {
  feed::event e;
  e.seq = seq;
  e.ts = 1764018000.0 + static_cast<double>(seq);
  e.type = seq == 1 ? feed::event_type::campaign_started : feed::event_type::branch_measured;
  e.campaign = "nightly";
  if (seq > 1) {
    e.job = "transpose";
    e.iter = 1;
    e.branch = static_cast<std::int64_t>(seq);
    e.gpu = 0;
    e.detail_json = feed::detail{}.add("time_s", 1e-3).json();
  }
  return e;
}

/// The snapshots the bridge published, for the test thread to look at.
class snapshots {
public:
  std::function<void(std::string)> sink() {
    return [this](std::string s) {
      std::lock_guard lock{mutex_};
      all_.push_back(std::move(s));
    };
  }
  /// The latest snapshot's last_seq; -1 before any, 0 for null.
  std::int64_t last_seq() {
    std::lock_guard lock{mutex_};
    if (all_.empty())
      return -1;
    auto doc = parser_.parse(all_.back());
    return doc["last_seq"].is_null() ? 0 : doc["last_seq"].get_int64().value();
  }
  bool wait_for_seq(std::int64_t seq) {
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(10ms))
      if (last_seq() >= seq)
        return true;
    return false;
  }

private:
  std::mutex mutex_;
  std::vector<std::string> all_;
  simdjson::dom::parser parser_;
};

class Bridge : public ::testing::Test {
protected:
  std::filesystem::path root = std::filesystem::temp_directory_path() /
                               ("wf-bridge-" + std::to_string(::getpid()) + "-" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::optional<storage::run_directory> dir;
  std::optional<storage::database> db;

  void SetUp() override {
    std::filesystem::remove_all(root);
    dir.emplace(storage::run_directory::create(root, "nightly", std::chrono::system_clock::now()).value());
    db.emplace(storage::database::open(dir->database_path()).value());
  }
  void TearDown() override {
    db.reset();
    std::filesystem::remove_all(root);
  }

  void store(std::uint64_t seq) {
    const auto e = numbered(seq);
    storage::event_row row;
    row.seq = static_cast<std::int64_t>(seq);
    row.ts = e.ts;
    row.type = std::string{feed::to_string(e.type)};
    row.json = feed::encode(e);
    ASSERT_TRUE(db->append_event(row));
  }
};

TEST_F(Bridge, AFinishedRunIsShownFromItsStoreBeforeStartReturns) {
  for (std::uint64_t seq = 1; seq <= 5; ++seq)
    store(seq);
  snapshots seen;
  auto source = bridge::start(bridge_options{.run_dir = dir->path(), .endpoint = "tcp://127.0.0.1:9"}, seen.sink());
  ASSERT_TRUE(source) << to_string(source.error());
  EXPECT_EQ(seen.last_seq(), 5);
}

TEST_F(Bridge, ALiveRunGoesOnFromTheFeedAfterItsStore) {
  auto pub = feed::publisher::bind({.endpoint = "tcp://127.0.0.1:*"}).value();
  auto replay = feed::replay_server::start({.endpoint = "tcp://127.0.0.1:*", .database = dir->database_path()}).value();
  std::ofstream{dir->feed_endpoint_path()} << pub.endpoint() << '\n';
  std::ofstream{dir->replay_endpoint_path()} << replay.endpoint() << '\n';
  for (std::uint64_t seq = 1; seq <= 5; ++seq) {
    store(seq);
    pub.publish(numbered(seq));
  }
  snapshots seen;
  auto source = bridge::start(bridge_options{.run_dir = dir->path()}, seen.sink());
  ASSERT_TRUE(source) << to_string(source.error());
  EXPECT_EQ(source->endpoint(), pub.endpoint()) << "found in the run directory";
  EXPECT_EQ(seen.last_seq(), 5);
  ASSERT_TRUE(pub.wait_for_subscriptions(1, 10s));
  store(6); // published before anything showed the bridge its seam: replayed when 7 comes
  for (std::uint64_t seq = 7; seq <= 9; ++seq) {
    store(seq);
    pub.publish(numbered(seq));
  }
  EXPECT_TRUE(seen.wait_for_seq(9)) << "last seen " << seen.last_seq();
}

TEST_F(Bridge, FromTheFeedAloneItReplaysFromTheFirstEvent) {
  auto pub = feed::publisher::bind({.endpoint = "tcp://127.0.0.1:*"}).value();
  auto replay = feed::replay_server::start({.endpoint = "tcp://127.0.0.1:*", .database = dir->database_path()}).value();
  for (std::uint64_t seq = 1; seq <= 4; ++seq)
    store(seq); // before the dashboard existed
  snapshots seen;
  auto source = bridge::start(bridge_options{.endpoint = pub.endpoint(), .replay_endpoint = replay.endpoint()},
                              seen.sink());
  ASSERT_TRUE(source) << to_string(source.error());
  EXPECT_TRUE(seen.wait_for_seq(4)) << "last seen " << seen.last_seq();
}

TEST_F(Bridge, AFolderThatIsNotARunDirectoryIsABadSource) {
  snapshots seen;
  auto source = bridge::start(bridge_options{.run_dir = root / "nope"}, seen.sink());
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().code, dashboard_errc::bad_source);
  EXPECT_EQ(source.error().place, "run_dir");
  const auto* cause = std::get_if<storage::store_error>(&source.error().cause);
  ASSERT_NE(cause, nullptr) << "the store's own error comes with it";
  EXPECT_EQ(source.error().message, storage::to_string(*cause));
  EXPECT_EQ(seen.last_seq(), -1) << "nothing published";
}

TEST_F(Bridge, AFeedEndpointItCannotFollowIsABadSourceCarryingTheFeedsError) {
  snapshots seen;
  auto source = bridge::start(bridge_options{.endpoint = "carrier-pigeon://loft"}, seen.sink());
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().code, dashboard_errc::bad_source);
  EXPECT_EQ(source.error().place, "carrier-pigeon://loft");
  const auto* cause = std::get_if<feed::feed_error>(&source.error().cause);
  ASSERT_NE(cause, nullptr) << "the feed's own error comes with it";
  EXPECT_EQ(cause->code, feed::feed_errc::bad_endpoint);
  EXPECT_EQ(source.error().message, feed::to_string(*cause));
}

} // namespace
} // namespace warpforge::dashboard
