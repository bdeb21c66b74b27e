// What `warpforge status` shows of one campaign, read across the tables in one snapshot.

#include "storage/database.hpp"
#include "storage/query.hpp"

#include <optional>

namespace warpforge::storage {

expected<campaign_summary, store_error> database::load_campaign_summary() {
  auto snapshot = read_snapshot();
  if (!snapshot)
    return unexpected{with_context(std::move(snapshot).error(), "load_campaign_summary")};
  auto latest = latest_campaign();
  if (!latest)
    return unexpected{with_context(std::move(latest).error(), "load_campaign_summary")};
  if (!*latest)
    return unexpected{store_error{store_error_code::not_found, "load_campaign_summary: no campaign in the database"}};
  return named("load_campaign_summary", summarize(**latest));
}

expected<campaign_summary, store_error> database::load_campaign_summary(row_id campaign_id) {
  auto snapshot = read_snapshot();
  if (!snapshot)
    return unexpected{with_context(std::move(snapshot).error(), "load_campaign_summary")};
  return named("load_campaign_summary", summarize(campaign_id));
}

expected<std::optional<transaction>, store_error> database::read_snapshot() {
  // Unless the caller's batch already is one. A read transaction has nothing to commit: the
  // guard's rollback simply ends it.
  if (conn_.in_transaction())
    return std::optional<transaction>{};
  auto tx = transaction::begin(conn_, transaction_mode::deferred);
  if (!tx)
    return unexpected{std::move(tx).error()};
  return std::optional<transaction>{std::move(*tx)};
}

expected<campaign_summary, store_error> database::summarize(row_id campaign_id) {
  campaign_summary summary;
  auto campaign = load_campaign(campaign_id);
  if (!campaign)
    return unexpected{std::move(campaign).error()};
  summary.campaign = std::move(*campaign);

  auto jobs = load_jobs(campaign_id);
  if (!jobs)
    return unexpected{std::move(jobs).error()};
  summary.jobs = std::move(*jobs);

  using outcome_count = std::pair<std::optional<vocabulary::branch_outcome>, std::int64_t>;
  auto counts = select_with(
      conn_,
      "SELECT b.outcome, count(*) FROM branches b JOIN iterations i ON b.iteration_id = i.id "
      "JOIN jobs j ON i.job_id = j.id WHERE j.campaign_id = ? GROUP BY b.outcome",
      [](const statement& s) -> expected<outcome_count, store_error> {
        auto outcome = read_value<std::optional<vocabulary::branch_outcome>>(s, 0, {"branches", "outcome"});
        if (!outcome)
          return unexpected{std::move(outcome).error()};
        return outcome_count{*outcome, s.column_int64(1)};
      },
      campaign_id);
  if (!counts)
    return unexpected{std::move(counts).error()};
  for (auto outcome : vocabulary::all_branch_outcomes)
    summary.branch_outcomes[outcome] = 0;
  for (const auto& [outcome, count] : *counts) {
    if (outcome)
      summary.branch_outcomes[*outcome] = count;
    else
      summary.branches_pending = count; // no outcome yet: still in the pipeline
  }

  auto spend = llm_spend_by_job(campaign_id);
  if (!spend)
    return unexpected{std::move(spend).error()};
  summary.llm_by_job = std::move(*spend);

  auto last = last_event();
  if (!last)
    return unexpected{std::move(last).error()};
  if (*last) {
    summary.last_event_seq = (*last)->seq;
    summary.last_event_ts = (*last)->ts;
  }
  return summary;
}

} // namespace warpforge::storage
