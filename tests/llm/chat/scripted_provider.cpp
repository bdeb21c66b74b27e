#include "tests/llm/chat/scripted_provider.hpp"

#include <stdexcept>

namespace warpforge::llm::scripted {

void recorded_waits::add(std::chrono::milliseconds wait) {
  std::lock_guard lock{mutex_};
  waits_.push_back(wait);
}

std::vector<std::chrono::milliseconds> recorded_waits::all() const {
  std::lock_guard lock{mutex_};
  return waits_;
}

namespace {

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string anthropic_start(const usage_counts& usage) {
  return R"({"type":"message_start","message":{"id":"msg_test","type":"message","role":"assistant",)"
         R"("model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"usage":{)"
         R"("input_tokens":)" + std::to_string(usage.input) +
         R"(,"output_tokens":1,"cache_read_input_tokens":)" + std::to_string(usage.cache_read) +
         R"(,"cache_creation_input_tokens":)" + std::to_string(usage.cache_write) + "}}}";
}

std::string anthropic_delta(std::string_view piece) {
  return R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":)" +
         quoted(piece) + "}}";
}

} // namespace

void anthropic_partial(connection& c, std::string_view text, usage_counts usage) {
  c.start_sse(200, {{"request-id", "req_test_1"}});
  c.send_event("message_start", anthropic_start(usage));
  c.send_event("content_block_start",
               R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})");
  c.send_event("content_block_delta", anthropic_delta(text));
}

void anthropic_reply(connection& c, std::string_view text, std::string_view stop,
                     usage_counts usage) {
  const std::size_t half = text.size() / 2;
  anthropic_partial(c, text.substr(0, half), usage);
  c.send_event("ping", R"({"type":"ping"})");
  c.send_event("content_block_delta", anthropic_delta(text.substr(half)));
  c.send_event("content_block_stop", R"({"type":"content_block_stop","index":0})");
  c.send_event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":)" +
                                  quoted(stop) + R"(,"stop_sequence":null},"usage":{"output_tokens":)" +
                                  std::to_string(usage.output) + "}}");
  c.send_event("message_stop", R"({"type":"message_stop"})");
  c.end_chunked();
}

void openai_reply(connection& c, std::string_view text, std::string_view finish,
                  usage_counts usage, bool with_usage) {
  const std::string head = R"({"id":"chatcmpl-test","object":"chat.completion.chunk",)"
                           R"("model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":)";
  c.start_sse(200, {{"x-request-id", "req_openai_1"}});
  const std::size_t half = text.size() / 2;
  c.send_event("", head + R"({"role":"assistant","content":)" + quoted(text.substr(0, half)) +
                     R"(},"finish_reason":null}]})");
  c.send_event("", head + R"({"content":)" + quoted(text.substr(half)) + R"(},"finish_reason":)" +
                     quoted(finish) + "}]}");
  if (with_usage)
    c.send_event("", R"({"id":"chatcmpl-test","object":"chat.completion.chunk","choices":[],)"
                     R"("usage":{"prompt_tokens":)" + std::to_string(usage.input + usage.cache_read) +
                     R"(,"completion_tokens":)" + std::to_string(usage.output) +
                     R"(,"prompt_tokens_details":{"cached_tokens":)" +
                     std::to_string(usage.cache_read) + "}}}");
  c.send_event("", "[DONE]");
  c.end_chunked();
}

client_config config_for(provider_kind provider, const loopback_server& server,
                         std::shared_ptr<recorded_waits> waits, bool with_key) {
  client_config config;
  config.provider = provider;
  config.base_url = provider == provider_kind::anthropic ? server.base_url()
                                                          : server.base_url() + "/v1";
  config.api_key_env = with_key ? std::string{key_variable} : std::string{};
  config.limits.connect = std::chrono::milliseconds{2'000};
  config.limits.first_byte = std::chrono::milliseconds{2'000};
  config.limits.idle = std::chrono::milliseconds{2'000};
  config.limits.total = std::chrono::milliseconds{5'000};
  config.retry.max_attempts = 3;
  config.retry.base = std::chrono::milliseconds{1};
  config.retry.cap = std::chrono::milliseconds{8};
  config.retry.max_retry_after = std::chrono::milliseconds{10'000};
  config.env = [](std::string_view name) -> std::optional<std::string> {
    if (name == key_variable)
      return std::string{secret_key};
    return std::nullopt; // no proxy variables: loopback goes direct anyway
  };
  config.sleep = [waits](std::chrono::milliseconds wait) { waits->add(wait); };
  config.jitter_seed = 42;
  return config;
}

std::unique_ptr<chat_client> make_client(const client_config& config,
                                         std::shared_ptr<spend_ledger> ledger) {
  auto prices = price_table::built_in();
  if (!prices)
    throw std::runtime_error(prices.error());
  auto client = make_provider_client(config, std::move(ledger), std::move(*prices));
  if (!client)
    throw std::runtime_error(client.error());
  return std::move(*client);
}

chat_request simple_request(std::string model) {
  chat_request request;
  request.model = std::move(model);
  request.system = {{"You write CUDA kernels.", true}, {"Run 7.", false}};
  request.messages = {{role::user, "Make it faster."}};
  request.max_tokens = 256;
  request.purpose = "propose";
  return request;
}

} // namespace warpforge::llm::scripted
