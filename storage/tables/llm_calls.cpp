// llm_calls (migration 2): one request to a language model while proposing an iteration of a
// job, keyed by (job_id, iteration, seq).

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table llm_calls{"llm_calls", key_source::database,
                          column{"id", &llm_call_row::id},
                          column{"job_id", &llm_call_row::job_id},
                          column{"iteration", &llm_call_row::iteration},
                          column{"seq", &llm_call_row::seq},
                          column{"purpose", &llm_call_row::purpose},
                          column{"model", &llm_call_row::model},
                          column{"outcome", &llm_call_row::outcome},
                          column{"input_tokens", &llm_call_row::input_tokens},
                          column{"output_tokens", &llm_call_row::output_tokens},
                          column{"cache_read_tokens", &llm_call_row::cache_read_tokens},
                          column{"cache_write_tokens", &llm_call_row::cache_write_tokens},
                          column{"cost_usd", &llm_call_row::cost_usd},
                          column{"seconds", &llm_call_row::seconds},
                          column{"attempts", &llm_call_row::attempts},
                          column{"transcript", &llm_call_row::transcript},
                          column{"created_at", &llm_call_row::created_at}};

} // namespace

expected<row_id, store_error> database::insert_llm_call(const llm_call_row& row) {
  // A repeated write (a store restart, a resumed campaign) replaces the row and keeps its id.
  return named("insert_llm_call",
               upsert_row(conn_, llm_calls, row, {"job_id", "iteration", "seq"}, on_conflict::replace));
}

expected<std::vector<llm_call_row>, store_error> database::load_llm_calls(row_id job_id) {
  return named("load_llm_calls",
               select_rows(conn_, llm_calls, "WHERE job_id = ? ORDER BY iteration, seq", job_id));
}

expected<std::map<row_id, llm_spend>, store_error> database::llm_spend_by_job(row_id campaign_id) {
  auto sums = select_with(
      conn_,
      "SELECT c.job_id, count(*), sum(c.outcome <> 'ok'), sum(c.input_tokens), sum(c.output_tokens), "
      "sum(c.cache_read_tokens), sum(c.cache_write_tokens), sum(c.cost_usd), sum(c.seconds) "
      "FROM llm_calls c JOIN jobs j ON c.job_id = j.id WHERE j.campaign_id = ? GROUP BY c.job_id",
      [](const statement& s) -> expected<std::pair<row_id, llm_spend>, store_error> {
        return std::pair{s.column_int64(0),
                         llm_spend{s.column_int64(1), s.column_int64(2), s.column_int64(3), s.column_int64(4),
                                   s.column_int64(5), s.column_int64(6), s.column_double(7), s.column_double(8)}};
      },
      campaign_id);
  if (!sums)
    return unexpected{with_context(std::move(sums).error(), "llm_spend_by_job")};
  return std::map<row_id, llm_spend>{sums->begin(), sums->end()};
}

} // namespace warpforge::storage
