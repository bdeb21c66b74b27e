// The campaign actor's state without an actor system: it runs the spec the command parsed and
// never parses the plan's text (issue 23), and finds the rows an earlier recording left.
#include "actors/campaign.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

namespace warpforge::actors {
namespace {

constexpr const char* text = "name = \"nightly\"\n";

std::shared_ptr<const config::campaign_spec> spec_of_jobs(std::vector<std::string> names) {
  config::campaign_spec spec;
  spec.name = "nightly";
  spec.raw_text = text;
  for (auto& name : names) {
    config::job_spec job;
    job.name = std::move(name);
    spec.jobs.push_back(std::move(job));
  }
  return std::make_shared<const config::campaign_spec>(std::move(spec));
}

messages::campaign_plan plan_of(std::string spec_toml) {
  messages::campaign_plan plan;
  plan.name = "nightly";
  plan.spec_toml = std::move(spec_toml);
  return plan;
}

report::job_entry stored_job(std::int64_t id, std::string name) {
  report::job_entry job;
  job.row.id = id;
  job.row.name = std::move(name);
  return job;
}

TEST(CampaignState, TakesAPlanWhoseTextIsTheSpecItWasHanded) {
  campaign_state st;
  st.spec = spec_of_jobs({"gemm"});
  st.take(plan_of(text));
  ASSERT_TRUE(st.plan);
  EXPECT_EQ(st.plan->spec_toml, text);
}

TEST(CampaignState, RefusesAPlanOfAnotherTextInsteadOfParsingIt) {
  campaign_state st;
  st.spec = spec_of_jobs({"gemm"});
  EXPECT_THROW(st.take(plan_of("name = \"other\"\n")), std::logic_error);
  EXPECT_FALSE(st.plan);
}

TEST(CampaignState, RefusesAPlanWhenStartedWithoutASpec) {
  campaign_state st;
  EXPECT_THROW(st.take(plan_of(text)), std::logic_error);
  EXPECT_FALSE(st.plan);
}

TEST(CampaignState, FindsTheStoredRowsOfEveryJobInSpecOrder) {
  report::campaign_report stored;
  stored.campaign.id = 7;
  stored.campaign.name = "nightly";
  stored.jobs = {stored_job(12, "transpose"), stored_job(11, "gemm")};
  auto known = campaign_state::with_stored_ids(plan_of(text), *spec_of_jobs({"gemm", "transpose"}), stored);
  ASSERT_TRUE(known);
  EXPECT_EQ(known->campaign_id, 7);
  EXPECT_EQ(known->job_ids, (std::vector<std::int64_t>{11, 12}));
  EXPECT_TRUE(known->resume);
}

TEST(CampaignState, RecordsAfreshWhenTheStoreLacksAJobOrHoldsAnotherCampaign) {
  report::campaign_report stored;
  stored.campaign.id = 7;
  stored.campaign.name = "nightly";
  stored.jobs = {stored_job(11, "gemm")};
  EXPECT_FALSE(campaign_state::with_stored_ids(plan_of(text), *spec_of_jobs({"gemm", "transpose"}), stored));
  stored.campaign.name = "weekly";
  EXPECT_FALSE(campaign_state::with_stored_ids(plan_of(text), *spec_of_jobs({"gemm"}), stored));
}

} // namespace
} // namespace warpforge::actors
