#include "pipeline/llm/transcripts.hpp"

#include "foundation/json/writer.hpp"
#include "pipeline/records.hpp"

#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

std::string file_name(std::uint32_t call, const std::string& purpose) {
  char number[16];
  std::snprintf(number, sizeof number, "%02u", call);
  return std::string{number} + "-" + (purpose.empty() ? "chat" : purpose) + ".json";
}

void write_request(json::writer& w, const llm::chat_request& request) {
  w.key("request").begin_object();
  w.key("model").value(request.model);
  w.key("max_tokens").value(static_cast<std::int64_t>(request.max_tokens));
  w.key("system").begin_array();
  for (const auto& block : request.system)
    w.begin_object().key("cache").value(block.cache).key("text").value(block.text).end_object();
  w.end_array();
  w.key("messages").begin_array();
  for (const auto& m : request.messages)
    w.begin_object().key("role").value(m.who == llm::role::user ? "user" : "assistant").key("text").value(m.text).end_object();
  w.end_array();
  w.end_object();
}

void write_usage(json::writer& w, const llm::token_usage& u) {
  w.key("usage").begin_object();
  w.key("input").value(u.input).key("output").value(u.output);
  w.key("cache_read").value(u.cache_read).key("cache_write").value(u.cache_write);
  w.end_object();
}

void write_outcome(json::writer& w, const expected<llm::chat_reply, llm::chat_error>& answer) {
  if (!answer) {
    w.key("error").begin_object();
    w.key("kind").value(llm::to_string(answer.error().kind));
    w.key("message").value(answer.error().message);
    w.key("attempts").value(static_cast<std::int64_t>(answer.error().attempts));
    w.end_object();
    return;
  }
  const auto& r = *answer;
  w.key("reply").begin_object();
  w.key("model").value(r.model);
  w.key("stop").value(llm::to_string(r.stop));
  write_usage(w, r.usage);
  w.key("cost_usd").value(r.cost_usd);
  w.key("attempts").value(static_cast<std::int64_t>(r.attempts));
  w.key("continuations").value(static_cast<std::int64_t>(r.continuations));
  w.key("seconds").value(r.seconds);
  w.key("request_id").value(r.request_id);
  w.key("text").value(r.text);
  w.end_object();
}

std::optional<llm::stop_reason> stop_from(std::string_view text) {
  for (auto s : {llm::stop_reason::end, llm::stop_reason::max_tokens, llm::stop_reason::stop_sequence,
                 llm::stop_reason::refusal, llm::stop_reason::other})
    if (llm::to_string(s) == text)
      return s;
  return std::nullopt;
}

std::int64_t integer_or_zero(simdjson::dom::element e, const char* key) {
  std::int64_t v = 0;
  return e[key].get(v) == simdjson::SUCCESS ? v : 0;
}

llm::chat_error replay_error(std::string message) {
  return llm::chat_error{llm::chat_error_kind::config, std::move(message), std::nullopt, 0};
}

expected<llm::chat_reply, llm::chat_error> reply_from(simdjson::dom::element reply, const fs::path& file) {
  llm::chat_reply r;
  std::string_view text, stop, model;
  if (reply["text"].get(text) != simdjson::SUCCESS || reply["stop"].get(stop) != simdjson::SUCCESS ||
      !stop_from(stop))
    return unexpected{replay_error(file.string() + ": reply.text or reply.stop missing")};
  r.text = std::string{text};
  r.stop = *stop_from(stop);
  if (reply["model"].get(model) == simdjson::SUCCESS)
    r.model = std::string{model};
  if (simdjson::dom::element usage; reply["usage"].get(usage) == simdjson::SUCCESS)
    r.usage = {integer_or_zero(usage, "input"), integer_or_zero(usage, "output"), integer_or_zero(usage, "cache_read"),
               integer_or_zero(usage, "cache_write")};
  double cost = 0;
  if (reply["cost_usd"].get(cost) == simdjson::SUCCESS)
    r.cost_usd = cost;
  r.attempts = static_cast<std::uint32_t>(integer_or_zero(reply, "attempts"));
  r.continuations = static_cast<std::uint32_t>(integer_or_zero(reply, "continuations"));
  return r;
}

} // namespace

fs::path transcript_folder(const fs::path& run_dir, const std::string& job, std::int64_t iteration) {
  return run_dir / "llm" / job / ("iter-" + std::to_string(iteration));
}

recorded_chat::recorded_chat(llm::chat_client& inner, fs::path folder) : inner_(inner), folder_(std::move(folder)) {
  std::error_code ignored;
  fs::remove_all(folder_, ignored);
  fs::create_directories(folder_, ignored);
}

expected<llm::chat_reply, llm::chat_error> recorded_chat::chat(const llm::chat_request& request) {
  auto answer = inner_.chat(request);
  std::lock_guard lock{mutex_};
  const auto file = folder_ / file_name(++calls_, request.purpose);
  json::writer w;
  w.begin_object();
  w.key("call").value(static_cast<std::int64_t>(calls_));
  w.key("purpose").value(request.purpose);
  write_request(w, request);
  write_outcome(w, answer);
  w.end_object();
  std::ofstream out{file, std::ios::binary};
  out << std::move(w).str() << '\n';
  last_ = file;
  return answer;
}

std::string recorded_chat::last_file(const fs::path& relative_to) const {
  if (last_.empty())
    return {};
  std::error_code ec;
  auto relative = fs::relative(last_, relative_to, ec);
  return ec ? last_.generic_string() : relative.generic_string();
}

replayed_chat::replayed_chat(fs::path folder) : folder_(std::move(folder)) {}

expected<llm::chat_reply, llm::chat_error> replayed_chat::chat(const llm::chat_request& request) {
  const auto file = folder_ / file_name(++calls_, request.purpose);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return unexpected{replay_error("replay: no saved call " + file.string() +
                                   " (the earlier run made fewer calls here, or others: the replay has diverged)")};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.load(file.string()).get(root) != simdjson::SUCCESS)
    return unexpected{replay_error("replay: " + file.string() + " is not valid JSON")};
  if (simdjson::dom::element error; root["error"].get(error) == simdjson::SUCCESS) {
    std::string_view message, kind;
    if (error["message"].get(message) != simdjson::SUCCESS)
      message = "(no message saved)";
    auto saved = error["kind"].get(kind) == simdjson::SUCCESS ? llm::chat_error_kind_from_string(kind) : std::nullopt;
    return unexpected{llm::chat_error{saved.value_or(llm::chat_error_kind::network),
                                      "replayed failure: " + std::string{message}, std::nullopt,
                                      static_cast<std::uint32_t>(integer_or_zero(error, "attempts"))}};
  }
  simdjson::dom::element reply;
  if (root["reply"].get(reply) != simdjson::SUCCESS)
    return unexpected{replay_error("replay: " + file.string() + ": no reply")};
  return reply_from(reply, file);
}

} // namespace warpforge::pipeline
