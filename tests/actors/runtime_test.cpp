// The runtime end to end on the real components: SQLite in a temporary run directory, ZeroMQ on
// 127.0.0.1 with an ephemeral port, the real supervisor, store and feed actors.

#include "actors/registry.hpp"
#include "actors/runtime.hpp"
#include "feed/subscriber.hpp"
#include "storage/database.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include "runtime_fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>
#include <fstream>
#include <unistd.h>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;

class Runtime : public testing::runtime_fixture {
protected:
  static feed::event progress(int i) {
    feed::event e;
    e.type = feed::event_type::branch_measured;
    e.job = "transpose";
    e.iter = 0;
    e.branch = i;
    e.detail_json = feed::detail{}.add("time_s", 1e-3 * i).json();
    return e;
  }

  std::vector<storage::event_row> stored_events() {
    auto db = storage::database::open_read_only(dir / "warpforge.db");
    EXPECT_TRUE(db) << (db ? "" : storage::to_string(db.error()));
    auto rows = db->events_since(0, 100000);
    EXPECT_TRUE(rows);
    return *rows;
  }
};

TEST_F(Runtime, SubscriberReceivesTypedEventsInOrderAndTheStoreKeepsThemForLateJoiners) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;

  // The endpoint file lets `warpforge tail --run-dir` find the feed.
  std::ifstream endpoint_file{dir / "feed.endpoint"};
  std::string written;
  endpoint_file >> written;
  EXPECT_EQ(written, r.feed_endpoint());

  auto sub = feed::subscriber::connect(r.feed_endpoint(), {});
  ASSERT_TRUE(sub);
  ASSERT_TRUE(r.wait_for_subscribers(1, 10s));

  auto campaign = r.record(storage::campaign_record{"nightly", "c.toml", "name='nightly'", dir.string()});
  ASSERT_TRUE(campaign) << campaign.error();
  constexpr int count = 200;
  for (int i = 0; i < count; ++i)
    r.emit(progress(i));

  std::uint64_t last_seq = 0;
  for (int i = 0; i < count; ++i) {
    auto got = sub->receive(10s);
    while (got && *got && (**got).type == feed::event_type::heartbeat) // not the campaign's
      got = sub->receive(10s);
    ASSERT_TRUE(got) << to_string(got.error());
    ASSERT_TRUE(got->has_value()) << "timed out at event " << i;
    const auto& e = **got;
    EXPECT_EQ(e.type, feed::event_type::branch_measured);
    EXPECT_EQ(e.branch, i);
    EXPECT_EQ(e.campaign, "nightly") << "the feed stamps the campaign";
    EXPECT_GT(e.seq, last_seq);
    last_seq = e.seq;
  }
  r.stop();

  // A monitor joining now replays everything from the store, boot events included, in order.
  auto rows = stored_events();
  ASSERT_GE(rows.size(), static_cast<std::size_t>(count + 2)); // + actor_started x2
  EXPECT_EQ(rows.front().type, "actor_started");
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_EQ(rows[i].seq, rows[i - 1].seq + 1) << "gap or duplicate at " << i;
  EXPECT_EQ(rows.back().seq, static_cast<std::int64_t>(last_seq));
}

TEST_F(Runtime, AFeedKilledMidStreamIsRestartedAndTheSequenceNeitherRepeatsNorSkips) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;
  for (int i = 0; i < 50; ++i)
    r.emit(progress(i));
  // Only a weak address is kept: a strong handle would keep the dead actor (and, at shutdown,
  // the actor system) alive.
  caf::actor_addr feed_before;
  {
    auto handle = lookup<caf::actor>(r.system(), feed_name);
    ASSERT_TRUE(handle);
    feed_before = handle.address();
    caf::anon_send_exit(handle, caf::exit_reason::kill);
  }

  // Wait for the supervisor to report the restart, then keep publishing.
  bool restarted = false;
  for (int attempt = 0; attempt < 200 && !restarted; ++attempt) {
    auto report = r.report();
    ASSERT_TRUE(report);
    auto now = lookup<caf::actor>(r.system(), feed_name);
    restarted = report->restarts == 1 && now && now.address() != feed_before;
  }
  ASSERT_TRUE(restarted);
  for (int i = 50; i < 100; ++i)
    r.emit(progress(i));
  r.stop();

  auto rows = stored_events();
  for (std::size_t i = 1; i < rows.size(); ++i)
    ASSERT_EQ(rows[i].seq, rows[i - 1].seq + 1) << "gap or duplicate at " << i;
  int restarts = 0;
  int progress_events = 0;
  for (const auto& row : rows) {
    restarts += row.type == "actor_restarted";
    progress_events += row.type == "branch_measured";
  }
  EXPECT_EQ(restarts, 1);
  // Events queued to the killed feed may die with it; every event sent after the restart lands.
  EXPECT_GE(progress_events, 50);
  EXPECT_EQ(rows.back().type, "branch_measured");
}

TEST_F(Runtime, StartFailsWithAClearReasonWhenTheFeedCannotBind) {
  auto o = options();
  o.feed.publisher.endpoint = "tcp://0.0.0.0:*"; // remote without allow_remote
  o.supervision.max_restarts = 0;
  auto rt = runtime::start(o);
  ASSERT_FALSE(rt);
  EXPECT_NE(rt.error().find("feed"), std::string::npos) << rt.error();
  EXPECT_NE(rt.error().find("remote_not_allowed"), std::string::npos)
    << "the reason keeps the feed's own words: " << rt.error();
}

TEST_F(Runtime, AnIterationUpdateStoresItsStateFinishTimeAndRooflineGaps) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto campaign = (*rt)->record(storage::campaign_record{"nightly", "c.toml", "", dir.string()});
  ASSERT_TRUE(campaign) << campaign.error();
  auto job = (*rt)->record(storage::job_record{*campaign, "transpose", "p.toml"});
  ASSERT_TRUE(job) << job.error();
  const std::string gaps = R"({"compute":0.9,"memory":0.08,"latency":0.5})";
  auto iteration = (*rt)->record(storage::iteration_update{*job, 1, vocabulary::iteration_state::finished, -1, true, gaps});
  ASSERT_TRUE(iteration) << iteration.error();
  (*rt)->stop();

  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db);
  auto rows = db->load_iterations(*job);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  const auto& row = rows->front();
  EXPECT_EQ(row.id, *iteration);
  EXPECT_EQ(row.state, vocabulary::iteration_state::finished);
  EXPECT_EQ(row.gaps_json, std::optional<std::string>{gaps});
  EXPECT_TRUE(row.finished_at.has_value());
  EXPECT_FALSE(row.champion_branch_id.has_value()) << "-1 means none";
}

TEST_F(Runtime, KeyedWritesRepeatedAfterAStoreRestartChangeNothing) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto campaign = (*rt)->record(storage::campaign_record{"nightly", "c.toml", "", dir.string()});
  auto job = (*rt)->record(storage::job_record{*campaign, "transpose", "p.toml"});
  ASSERT_TRUE(job) << job.error();
  const storage::branch_record branch{{*job, 2, 3}, vocabulary::branch_kind::branch, -1, "[]", "{\"TILE\":32}", "a.cu"};
  auto first = (*rt)->record(branch);
  ASSERT_TRUE(first) << first.error();
  storage::measurement_record m;
  m.key = {*job, 2, 3};
  m.gpu = 0;
  m.median_s = 1e-3;
  ASSERT_TRUE((*rt)->record(m));
  // The store goes down and comes back; the writer repeats what it had sent.
  // Waits for the supervisor to register the new store (not a fixed sleep: a loaded machine may
  // take longer); the bound only ends a broken restart.
  const auto killed = lookup<caf::actor>((*rt)->system(), store_name).address();
  caf::anon_send_exit(lookup<messages::store_actor>((*rt)->system(), store_name), caf::exit_reason::kill);
  bool restarted = false;
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       !restarted && std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(5ms)) {
    auto now = lookup<caf::actor>((*rt)->system(), store_name);
    restarted = now && now.address() != killed;
  }
  ASSERT_TRUE(restarted) << "the store was not restarted";
  auto again = (*rt)->record(branch);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(*again, *first) << "the same row, not a second one";
  m.median_s = 2e-3;
  ASSERT_TRUE((*rt)->record(m));
  ASSERT_TRUE((*rt)->record(storage::branch_outcome_change{{*job, 2, 3}, vocabulary::branch_outcome::passed, ""}));
  (*rt)->stop();

  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db);
  EXPECT_EQ(*db->raw().query_int64("SELECT count(*) FROM branches"), 1);
  EXPECT_EQ(*db->raw().query_int64("SELECT count(*) FROM iterations"), 1);
  auto measurements = db->load_measurements(*first);
  ASSERT_TRUE(measurements);
  ASSERT_EQ(measurements->size(), 1u) << "a repeated measurement replaces the first";
  EXPECT_DOUBLE_EQ(measurements->front().median_s, 2e-3);
}

} // namespace
} // namespace warpforge::actors
