#include "llm/chat/openai_format.hpp"

#include "foundation/json/writer.hpp"
#include "llm/chat/json_read.hpp"

namespace warpforge::llm {

namespace {

std::string joined_system(const std::vector<text_block>& system) {
  std::string text;
  for (const auto& block : system) {
    if (!text.empty())
      text += "\n\n";
    text += block.text;
  }
  return text;
}

std::string write_body(const chat_request& request, token_limit_field limit_field) {
  json::writer out;
  out.begin_object();
  out.key("model").value(request.model);
  out.key("messages").begin_array();
  if (!request.system.empty())
    out.begin_object()
      .key("role").value("system")
      .key("content").value(joined_system(request.system))
      .end_object();
  for (const auto& message : request.messages)
    out.begin_object()
      .key("role").value(to_string(message.who))
      .key("content").value(message.text)
      .end_object();
  out.end_array();
  out.key(limit_field == token_limit_field::max_tokens ? "max_tokens" : "max_completion_tokens")
    .value(request.max_tokens);
  if (request.temperature)
    out.key("temperature").value(*request.temperature);
  out.key("stream").value(true);
  out.key("stream_options").begin_object().key("include_usage").value(true).end_object();
  out.end_object();
  return std::move(out).str();
}

// Decodes one chat-completions stream. Only choice 0 is read (one is asked for).
class openai_decoder final : public stream_decoder {
public:
  std::optional<stream_problem> on_event(std::string_view event, std::string_view data) override;
  expected<exchange_reply, stream_problem> finish() override;
  token_usage usage_so_far() const override { return reply_.usage; }

private:
  std::optional<std::string> on_chunk(simdjson::dom::element root);
  std::optional<std::string> on_choice(simdjson::dom::element root);
  std::optional<std::string> read_usage(simdjson::dom::element root);
  stream_problem malformed(const std::string& what) const {
    return {chat_error_kind::malformed_reply, false,
            "openai: stream chunk " + std::to_string(chunks_) + ": " + what};
  }

  simdjson::dom::parser parser_;
  exchange_reply reply_;
  std::size_t chunks_ = 0;
  bool done_ = false;        // [DONE] arrived
  bool finish_seen_ = false; // a finish_reason arrived
};

std::optional<stream_problem> openai_decoder::on_event(std::string_view, std::string_view data) {
  ++chunks_;
  if (data == "[DONE]") {
    done_ = true;
    return std::nullopt;
  }
  auto root = json_read::parse_object(parser_, data);
  if (!root)
    return malformed(root.error());
  if (json_read::find(*root, "/error")) {
    auto message = provider_error_message(data);
    return error_event_problem("openai", provider_error_type(data),
                               message.value_or(json_read::excerpt(data)));
  }
  if (auto problem = on_chunk(*root))
    return malformed(*problem);
  return std::nullopt;
}

std::optional<std::string> openai_decoder::on_chunk(simdjson::dom::element root) {
  auto id = json_read::optional_string(root, "/id");
  auto model = json_read::optional_string(root, "/model");
  if (!id)
    return id.error();
  if (!model)
    return model.error();
  if (*id && reply_.id.empty())
    reply_.id = std::string{**id};
  if (*model && reply_.model.empty())
    reply_.model = std::string{**model};
  const bool has_usage = json_read::find(root, "/usage").has_value();
  if (has_usage)
    if (auto problem = read_usage(root))
      return problem;
  auto choices = json_read::find(root, "/choices");
  if (!choices) {
    if (has_usage)
      return std::nullopt;
    return std::string{"a chunk with neither choices nor usage"};
  }
  simdjson::dom::array list;
  if (choices->get_array().get(list) != simdjson::SUCCESS)
    return std::string{"/choices is not an array"};
  if (list.size() == 0)
    return std::nullopt; // the usage chunk's empty choices
  return on_choice(root);
}

std::optional<std::string> openai_decoder::on_choice(simdjson::dom::element root) {
  auto content = json_read::optional_string(root, "/choices/0/delta/content");
  if (!content)
    return content.error();
  reply_.text += content->value_or("");
  auto finish = json_read::optional_string(root, "/choices/0/finish_reason");
  if (!finish)
    return finish.error();
  if (*finish) {
    reply_.stop = openai_stop_reason(**finish);
    finish_seen_ = true;
  }
  return std::nullopt;
}

// prompt_tokens include the cached ones; here they are split so each is priced once.
std::optional<std::string> openai_decoder::read_usage(simdjson::dom::element root) {
  auto prompt = json_read::required_integer(root, "/usage/prompt_tokens");
  if (!prompt)
    return prompt.error();
  auto completion = json_read::required_integer(root, "/usage/completion_tokens");
  if (!completion)
    return completion.error();
  auto cached = json_read::optional_integer(root, "/usage/prompt_tokens_details/cached_tokens");
  if (!cached)
    return cached.error();
  const std::int64_t cache_read = std::min(cached->value_or(0), *prompt);
  reply_.usage = token_usage{*prompt - cache_read, *completion, cache_read, 0};
  reply_.usage_reported = true;
  return std::nullopt;
}

expected<exchange_reply, stream_problem> openai_decoder::finish() {
  // Some servers close without [DONE] after the last chunk; a finish_reason says the reply is whole.
  if (!done_ && !finish_seen_) {
    const std::string seen = chunks_ == 0 ? "no chunks" : std::to_string(chunks_) + " chunks";
    return unexpected(stream_problem{
      chat_error_kind::network, true,
      "openai: the stream ended before a finish_reason or [DONE] (after " + seen + ")"});
  }
  if (!finish_seen_)
    return unexpected(malformed("[DONE] came without any finish_reason"));
  return reply_;
}

} // namespace

stop_reason openai_stop_reason(std::string_view text) {
  if (text == "stop")
    return stop_reason::end;
  if (text == "length")
    return stop_reason::max_tokens;
  if (text == "content_filter")
    return stop_reason::refusal;
  return stop_reason::other;
}

expected<wire_request, std::string> openai_format::encode(const chat_request& request,
                                                          std::string_view key) const {
  if (auto problem = request_problem(request))
    return unexpected("openai: cannot send the request: " + *problem);
  wire_request out;
  out.path = "/chat/completions";
  out.headers = {{"content-type", "application/json"}, {"accept", "text/event-stream"}};
  if (!key.empty())
    out.headers.emplace_back("authorization", "Bearer " + std::string{key});
  out.body = write_body(request, limit_field_);
  return out;
}

std::unique_ptr<stream_decoder> openai_format::decoder() const {
  return std::make_unique<openai_decoder>();
}

continuation_request openai_format::continuation(const chat_request& original,
                                                 std::string_view partial) const {
  continuation_request out{original, partial.size()};
  out.request.messages.push_back({role::assistant, std::string{partial}});
  out.request.messages.push_back({role::user, std::string{openai_continue_prompt}});
  return out;
}

} // namespace warpforge::llm
