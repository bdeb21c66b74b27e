#include "llm/chat/anthropic_format.hpp"

#include "foundation/json/writer.hpp"
#include "llm/chat/json_read.hpp"

#include <algorithm>

namespace warpforge::llm {

namespace {

void write_system(json::writer& out, const std::vector<text_block>& system) {
  out.key("system").begin_array();
  for (const auto& block : system) {
    out.begin_object().key("type").value("text").key("text").value(block.text);
    if (block.cache)
      out.key("cache_control").begin_object().key("type").value("ephemeral").end_object();
    out.end_object();
  }
  out.end_array();
}

std::string write_body(const chat_request& request) {
  json::writer out;
  out.begin_object();
  out.key("model").value(request.model);
  out.key("max_tokens").value(request.max_tokens);
  if (!request.system.empty())
    write_system(out, request.system);
  out.key("messages").begin_array();
  for (const auto& message : request.messages)
    out.begin_object()
      .key("role").value(to_string(message.who))
      .key("content").value(message.text)
      .end_object();
  out.end_array();
  if (request.temperature)
    out.key("temperature").value(*request.temperature);
  out.key("stream").value(true);
  out.end_object();
  return std::move(out).str();
}

// Decodes one Messages stream. Usage arrives in message_start (input and cache tokens) and
// message_delta (the cumulative output count; newer API versions repeat the input counts there).
class anthropic_decoder final : public stream_decoder {
public:
  std::optional<stream_problem> on_event(std::string_view event, std::string_view data) override;
  expected<exchange_reply, stream_problem> finish() override;
  token_usage usage_so_far() const override { return reply_.usage; }

private:
  std::optional<std::string> on_message_start(simdjson::dom::element root);
  std::optional<std::string> on_text(simdjson::dom::element root, std::string_view pointer);
  std::optional<std::string> on_message_delta(simdjson::dom::element root);
  std::optional<std::string> read_usage(simdjson::dom::element usage_root, std::string_view base);
  stream_problem malformed(std::string_view event, const std::string& what) const;

  simdjson::dom::parser parser_;
  exchange_reply reply_;
  std::size_t events_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  bool stop_seen_ = false;
};

stream_problem anthropic_decoder::malformed(std::string_view event, const std::string& what) const {
  return {chat_error_kind::malformed_reply, false,
          "anthropic: stream event " + std::to_string(events_) + " (" +
            (event.empty() ? std::string{"unnamed"} : std::string{event}) + "): " + what};
}

std::optional<stream_problem> anthropic_decoder::on_event(std::string_view event,
                                                          std::string_view data) {
  ++events_;
  auto root = json_read::parse_object(parser_, data);
  if (!root)
    return malformed(event, root.error());
  auto type = json_read::required_string(*root, "/type");
  if (!type)
    return malformed(event, type.error());
  std::optional<std::string> problem;
  if (*type == "message_start")
    problem = on_message_start(*root);
  else if (*type == "content_block_start")
    problem = on_text(*root, "/content_block");
  else if (*type == "content_block_delta")
    problem = on_text(*root, "/delta");
  else if (*type == "message_delta")
    problem = on_message_delta(*root);
  else if (*type == "message_stop")
    stopped_ = true;
  else if (*type == "error") {
    auto error_type = json_read::optional_string(*root, "/error/type");
    auto message = json_read::optional_string(*root, "/error/message");
    return error_event_problem(
      "anthropic", error_type && *error_type ? **error_type : std::string_view{},
      message && *message ? **message : json_read::excerpt(data));
  }
  // ping, content_block_stop and event types added after this was written carry nothing we use.
  if (problem)
    return malformed(event, *problem);
  return std::nullopt;
}

std::optional<std::string> anthropic_decoder::on_message_start(simdjson::dom::element root) {
  started_ = true;
  auto id = json_read::optional_string(root, "/message/id");
  auto model = json_read::optional_string(root, "/message/model");
  if (!id)
    return id.error();
  if (!model)
    return model.error();
  reply_.id = std::string{id->value_or("")};
  reply_.model = std::string{model->value_or("")};
  if (!json_read::find(root, "/message/usage"))
    return "missing /message/usage";
  return read_usage(root, "/message/usage");
}

// A text block's opening text or a text_delta; other blocks (thinking, tool use) are skipped.
std::optional<std::string> anthropic_decoder::on_text(simdjson::dom::element root,
                                                      std::string_view pointer) {
  const std::string base{pointer};
  auto kind = json_read::required_string(root, base + "/type");
  if (!kind)
    return kind.error();
  if (*kind != "text" && *kind != "text_delta")
    return std::nullopt;
  // A block opens with its text so far (usually ""); a delta must carry its piece.
  if (*kind == "text") {
    auto text = json_read::optional_string(root, base + "/text");
    if (!text)
      return text.error();
    reply_.text += text->value_or("");
    return std::nullopt;
  }
  auto text = json_read::required_string(root, base + "/text");
  if (!text)
    return text.error();
  reply_.text += *text;
  return std::nullopt;
}

std::optional<std::string> anthropic_decoder::on_message_delta(simdjson::dom::element root) {
  auto stop = json_read::optional_string(root, "/delta/stop_reason");
  if (!stop)
    return stop.error();
  if (*stop) {
    reply_.stop = anthropic_stop_reason(**stop);
    stop_seen_ = true;
  }
  if (!json_read::find(root, "/usage"))
    return std::nullopt;
  return read_usage(root, "/usage");
}

// Counts present in a usage object replace the earlier ones: the stream's counts are cumulative.
std::optional<std::string> anthropic_decoder::read_usage(simdjson::dom::element root,
                                                         std::string_view base) {
  const std::pair<std::string_view, std::int64_t token_usage::*> fields[] = {
    {"/input_tokens", &token_usage::input},
    {"/output_tokens", &token_usage::output},
    {"/cache_read_input_tokens", &token_usage::cache_read},
    {"/cache_creation_input_tokens", &token_usage::cache_write}};
  for (auto [name, member] : fields) {
    auto count = json_read::optional_integer(root, std::string{base} + std::string{name});
    if (!count)
      return count.error();
    if (*count)
      reply_.usage.*member = **count;
  }
  reply_.usage_reported = true;
  return std::nullopt;
}

expected<exchange_reply, stream_problem> anthropic_decoder::finish() {
  if (!stopped_) {
    const std::string seen = events_ == 0 ? "no events"
                                          : std::to_string(events_) + " events";
    return unexpected(stream_problem{chat_error_kind::network, true,
                                     "anthropic: the stream ended before message_stop (after " +
                                       seen + ")"});
  }
  if (!started_)
    return unexpected(malformed("message_stop", "the stream had no message_start"));
  if (!stop_seen_)
    return unexpected(malformed("message_stop", "no message_delta gave a stop_reason"));
  return reply_;
}

} // namespace

stop_reason anthropic_stop_reason(std::string_view text) {
  if (text == "end_turn")
    return stop_reason::end;
  if (text == "max_tokens")
    return stop_reason::max_tokens;
  if (text == "stop_sequence")
    return stop_reason::stop_sequence;
  if (text == "refusal")
    return stop_reason::refusal;
  return stop_reason::other;
}

expected<wire_request, std::string> anthropic_format::encode(const chat_request& request,
                                                             std::string_view key) const {
  if (auto problem = request_problem(request))
    return unexpected("anthropic: cannot send the request: " + *problem);
  const auto breakpoints = std::count_if(request.system.begin(), request.system.end(),
                                         [](const text_block& block) { return block.cache; });
  if (static_cast<std::size_t>(breakpoints) > anthropic_max_cache_breakpoints)
    return unexpected("anthropic: cannot send the request: " + std::to_string(breakpoints) +
                      " system blocks ask for a cache breakpoint; the API allows at most " +
                      std::to_string(anthropic_max_cache_breakpoints));
  wire_request out;
  out.path = "/v1/messages";
  out.headers = {{"content-type", "application/json"},
                 {"accept", "text/event-stream"},
                 {"anthropic-version", std::string{anthropic_version}}};
  if (!key.empty())
    out.headers.emplace_back("x-api-key", std::string{key});
  out.body = write_body(request);
  return out;
}

std::unique_ptr<stream_decoder> anthropic_format::decoder() const {
  return std::make_unique<anthropic_decoder>();
}

continuation_request anthropic_format::continuation(const chat_request& original,
                                                    std::string_view partial) const {
  // The API rejects a final assistant turn that ends in whitespace; the model writes it again.
  std::size_t keep = partial.size();
  while (keep > 0 && (partial[keep - 1] == ' ' || partial[keep - 1] == '\n' ||
                      partial[keep - 1] == '\t' || partial[keep - 1] == '\r'))
    --keep;
  continuation_request out{original, keep};
  const std::string_view kept = partial.substr(0, keep);
  // A caller's own assistant prefill already ends the conversation: the reply continues it.
  if (!out.request.messages.empty() && out.request.messages.back().who == role::assistant)
    out.request.messages.back().text += kept;
  else
    out.request.messages.push_back({role::assistant, std::string{kept}});
  return out;
}

} // namespace warpforge::llm
