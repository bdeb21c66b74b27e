// The store's language-model accounting: its state writes an llm_call_record into llm_calls (a
// repeated write replaces the row), and the running store actor answers the record with the row's
// id, so the message crosses the typed interface as the engine sends it.

#include "actors/registry.hpp"
#include "actors/store.hpp"
#include "storage/database.hpp"

#include <caf/scoped_actor.hpp>

#include "runtime_fixture.hpp"

#include <gtest/gtest.h>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;

storage::llm_call_record sample_call(std::int64_t job_id) {
  return storage::llm_call_record{job_id, 2, 1, "propose", "claude-sonnet-4-5", "ok", 3400, 2100, 9000, 500,
                                  0.0625, 12.5, 2, "jobs/transpose/iter-2/llm/propose-1.json"};
}

class Store : public testing::runtime_fixture {};

TEST_F(Store, AnLlmCallIsOneRowAndARepeatedWriteReplacesIt) {
  store_state store;
  store.open(dir / "warpforge.db");
  auto campaign = store.record(storage::campaign_record{"nightly", "c.toml", "", dir.string()});
  ASSERT_TRUE(campaign) << storage::to_string(campaign.error());
  auto job = store.record(storage::job_record{*campaign, "transpose", "p.toml"});
  ASSERT_TRUE(job) << storage::to_string(job.error());

  auto call = sample_call(*job);
  auto first = store.record(call);
  ASSERT_TRUE(first) << storage::to_string(first.error());
  call.outcome = "overloaded";
  call.output_tokens = 0;
  auto again = store.record(call);
  ASSERT_TRUE(again) << storage::to_string(again.error());
  EXPECT_EQ(*again, *first) << "the same (job, iteration, seq): the same row";

  auto rows = store.db->load_llm_calls(*job);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  const auto& row = rows->front();
  EXPECT_EQ(row.iteration, 2);
  EXPECT_EQ(row.seq, 1);
  EXPECT_EQ(row.purpose, "propose");
  EXPECT_EQ(row.outcome, "overloaded");
  EXPECT_EQ(row.input_tokens, 3400);
  EXPECT_EQ(row.output_tokens, 0);
  EXPECT_EQ(row.cache_read_tokens, 9000);
  EXPECT_EQ(row.cache_write_tokens, 500);
  EXPECT_DOUBLE_EQ(row.cost_usd, 0.0625);
  EXPECT_DOUBLE_EQ(row.seconds, 12.5);
  EXPECT_EQ(row.attempts, 2);
  EXPECT_EQ(row.transcript, call.transcript);
  EXPECT_GT(row.created_at, 0.0) << "the store stamps the write";

  auto orphan = store.record(sample_call(*job + 100));
  ASSERT_FALSE(orphan) << "a call of a job the store does not know";
  EXPECT_EQ(orphan.error().code, storage::store_error_code::constraint);
}

// Seen on the H100: the diagnosis of an iteration's champion arrives after the election, and its
// update (gaps only) erased the champion and the end time the election had written.
TEST_F(Store, AnIterationUpdateKeepsWhatAnEarlierOneWroteAndItLeavesOut) {
  store_state store;
  store.open(dir / "warpforge.db");
  auto campaign = store.record(storage::campaign_record{"nightly", "c.toml", "", dir.string()});
  ASSERT_TRUE(campaign);
  auto job = store.record(storage::job_record{*campaign, "transpose", "p.toml"});
  ASSERT_TRUE(job);
  for (std::int64_t ordinal : {0, 1}) {
    storage::branch_record b;
    b.key = {*job, 1, ordinal};
    b.kind = ordinal == 0 ? vocabulary::branch_kind::baseline : vocabulary::branch_kind::branch;
    ASSERT_TRUE(store.record(b));
  }
  ASSERT_TRUE(store.record(storage::iteration_update{*job, 1, vocabulary::iteration_state::finished, 1, true, {}}));
  ASSERT_TRUE(store.record(storage::iteration_update{*job, 1, vocabulary::iteration_state::finished, -1, false,
                                                     R"({"compute":0.4})"}));
  auto rows = store.db->load_iterations(*job);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE(rows->front().champion_branch_id.has_value()) << "the champion stays";
  EXPECT_TRUE(rows->front().finished_at.has_value()) << "the end stays";
  EXPECT_EQ(rows->front().gaps_json, R"({"compute":0.4})");
}

TEST_F(Store, TheStoreActorAnswersAnLlmCallWithItsRowId) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto campaign = (*rt)->record(storage::campaign_record{"nightly", "c.toml", "", dir.string()});
  ASSERT_TRUE(campaign) << campaign.error();
  auto job = (*rt)->record(storage::job_record{*campaign, "transpose", "p.toml"});
  ASSERT_TRUE(job) << job.error();

  std::int64_t id = 0;
  std::string failure;
  { // no handle may outlive this block: stopping the runtime waits for the detached store's
    // thread, which a handle still held here keeps alive
    auto handle = lookup<messages::store_actor>((*rt)->system(), store_name);
    ASSERT_TRUE(handle);
    caf::scoped_actor self{(*rt)->system()};
    self->request(handle, 5s, sample_call(*job))
      .receive([&](std::int64_t written) { id = written; },
               [&](caf::error& err) { failure = (*rt)->system().render(err); });
  }
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_GT(id, 0);
  (*rt)->stop();

  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db);
  auto rows = db->load_llm_calls(*job);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().id, id);
  EXPECT_EQ(rows->front().model, "claude-sonnet-4-5");
}

} // namespace
} // namespace warpforge::actors
