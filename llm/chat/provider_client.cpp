#include "llm/chat/provider_client.hpp"

#include "llm/chat/anthropic_format.hpp"
#include "llm/chat/exchange.hpp"
#include "llm/chat/openai_format.hpp"
#include "foundation/logging/logging.hpp"

#include <algorithm>
#include <mutex>
#include <random>
#include <semaphore>
#include <thread>

namespace warpforge::llm {

namespace {

constexpr std::string_view redacted = "[redacted]";

// `text` with every occurrence of the key replaced: a provider may echo a key it rejects.
std::string without_key(std::string text, std::string_view key) {
  if (key.empty())
    return text;
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + redacted.size()))
    text.replace(at, key.size(), redacted);
  return text;
}

// The running account of one call, across its attempts and continuations.
struct call_tally {
  token_usage usage;
  double usd = 0;             // $
  std::uint32_t attempts = 0; // HTTP exchanges made
  std::vector<std::string> notes;

  void note(std::string text) {
    if (std::find(notes.begin(), notes.end(), text) == notes.end())
      notes.push_back(std::move(text));
  }
};

// One exchange slot of the client's concurrency limit, held for the exchange's duration.
class slot_guard {
public:
  explicit slot_guard(std::counting_semaphore<>& slots) : slots_(slots) { slots_.acquire(); }
  ~slot_guard() { slots_.release(); }
  slot_guard(const slot_guard&) = delete;
  slot_guard& operator=(const slot_guard&) = delete;

private:
  std::counting_semaphore<>& slots_;
};

class provider_client final : public chat_client {
public:
  provider_client(client_config config, http::url base, std::unique_ptr<wire_format> format,
                  std::shared_ptr<spend_ledger> ledger, price_table prices);
  expected<chat_reply, chat_error> chat(const chat_request& request) override;

private:
  expected<std::string, chat_error> read_key() const;
  expected<exchange_reply, chat_error> exchange_with_retries(const chat_request& request,
                                                             call_tally& tally);
  expected<exchange_reply, exchange_failure> attempt(const wire_request& wire,
                                                     const chat_request& request,
                                                     call_tally& tally);
  void charge(const chat_request& request, const token_usage& usage, call_tally& tally);
  std::chrono::milliseconds next_delay(std::uint32_t retry,
                                       std::optional<std::chrono::milliseconds> retry_after);

  const client_config config_;
  const exchange_target target_;
  const std::unique_ptr<wire_format> format_;
  const std::shared_ptr<spend_ledger> ledger_;
  const price_table prices_;
  const bool local_; // a server on this machine: an unpriced model there is free (prices.toml)
  std::counting_semaphore<> slots_;
  std::mutex rng_mutex_;
  std::mt19937_64 rng_; // back-off jitter
  std::shared_ptr<spdlog::logger> log_ = logging::get("llm");
};

provider_client::provider_client(client_config config, http::url base,
                                 std::unique_ptr<wire_format> format,
                                 std::shared_ptr<spend_ledger> ledger, price_table prices)
    : config_(std::move(config)),
      target_{format->name(), base, config_.limits, config_.ca_file, &config_.env},
      format_(std::move(format)),
      ledger_(std::move(ledger)),
      prices_(std::move(prices)),
      local_(http::is_loopback_host(base.host)),
      slots_(static_cast<std::ptrdiff_t>(config_.max_concurrent)),
      rng_(config_.jitter_seed != 0 ? config_.jitter_seed : std::random_device{}()) {}

expected<chat_reply, chat_error> provider_client::chat(const chat_request& request) {
  const auto start = std::chrono::steady_clock::now();
  if (ledger_)
    if (auto why = ledger_->exhausted())
      return unexpected(chat_error{chat_error_kind::budget_exhausted,
                                   std::string{format_->name()} + ": no call started: " + *why,
                                   std::nullopt, 0});
  call_tally tally;
  chat_reply reply;
  chat_request current = request;
  const std::uint32_t limit = request.max_continuations.value_or(config_.max_continuations);
  for (;;) {
    auto exchange = exchange_with_retries(current, tally);
    if (!exchange) {
      exchange.error().attempts = tally.attempts;
      return unexpected(std::move(exchange).error());
    }
    reply.text += exchange->text;
    reply.stop = exchange->stop;
    reply.model = exchange->model.empty() ? request.model : exchange->model;
    reply.request_id = exchange->id;
    if (reply.stop != stop_reason::max_tokens || reply.continuations >= limit)
      break;
    // Always built from the original request, so continuations never stack turns.
    auto next = format_->continuation(request, reply.text);
    reply.text.resize(next.keep);
    current = std::move(next.request);
    ++reply.continuations;
  }
  reply.usage = tally.usage;
  reply.cost_usd = tally.usd;
  reply.attempts = tally.attempts;
  reply.notes = std::move(tally.notes);
  reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
}

expected<std::string, chat_error> provider_client::read_key() const {
  if (config_.api_key_env.empty())
    return std::string{};
  auto value = config_.env(config_.api_key_env);
  if (!value || value->empty())
    return unexpected(chat_error{chat_error_kind::config,
                                 std::string{format_->name()} + ": the key variable " +
                                   config_.api_key_env + " is not set (it is read at each call)",
                                 std::nullopt, 0});
  return std::move(*value);
}

expected<exchange_reply, chat_error> provider_client::exchange_with_retries(
  const chat_request& request, call_tally& tally) {
  auto key = read_key();
  if (!key)
    return unexpected(std::move(key).error());
  auto wire = format_->encode(request, *key);
  if (!wire)
    return unexpected(chat_error{chat_error_kind::config, wire.error(), std::nullopt, 0});
  const std::uint32_t max_attempts = config_.retry.max_attempts;
  for (std::uint32_t attempt_number = 1;; ++attempt_number) {
    auto outcome = attempt(*wire, request, tally);
    if (outcome)
      return std::move(*outcome);
    const exchange_failure& failure = outcome.error();
    std::string message = without_key(failure.message, *key);
    if (!failure.retryable || attempt_number >= max_attempts) {
      if (attempt_number > 1)
        message += " (gave up after " + std::to_string(attempt_number) + " attempts)";
      return unexpected(chat_error{failure.kind, std::move(message), failure.http_status, 0});
    }
    const auto delay = next_delay(attempt_number, failure.retry_after);
    log_->warn("{}; retry {} of {} in {} ms", message, attempt_number, max_attempts - 1,
               delay.count());
    config_.sleep(delay);
  }
}

expected<exchange_reply, exchange_failure> provider_client::attempt(const wire_request& wire,
                                                                    const chat_request& request,
                                                                    call_tally& tally) {
  auto decoder = format_->decoder();
  auto outcome = [&] {
    slot_guard slot{slots_};
    return run_exchange(target_, wire, *decoder);
  }();
  ++tally.attempts;
  charge(request, decoder->usage_so_far(), tally);
  if (outcome && !outcome->usage_reported)
    tally.note(std::string{format_->name()} +
               ": the server reported no token usage; its tokens are counted as 0");
  return outcome;
}

void provider_client::charge(const chat_request& request, const token_usage& usage,
                             call_tally& tally) {
  double usd = 0;
  if (auto cost = prices_.cost_usd(request.model, usage))
    usd = *cost;
  else if (!local_) // a local server's own model is free, as expected: nothing to say
    tally.note("no price for model '" + request.model +
               "' in the price table; its cost is counted as $0");
  tally.usage += usage;
  tally.usd += usd;
  if (ledger_)
    ledger_->charge(request.purpose, usage, usd);
}

std::chrono::milliseconds provider_client::next_delay(
  std::uint32_t retry, std::optional<std::chrono::milliseconds> retry_after) {
  std::uint64_t bits = 0;
  {
    std::lock_guard lock{rng_mutex_};
    bits = rng_();
  }
  return http::backoff_delay(config_.retry, retry, retry_after, bits);
}

} // namespace

expected<std::unique_ptr<chat_client>, std::string> make_provider_client(
  client_config config, std::shared_ptr<spend_ledger> ledger, price_table prices) {
  auto base = http::parse_url(config.base_url);
  if (!base)
    return unexpected("base_url: " + base.error());
  // The spec refuses this with its place (config/campaign_spec.cpp); every other caller is
  // refused here, before a connection exists: a key never crosses the network in clear text.
  if (!base->tls() && !config.api_key_env.empty() && !http::is_loopback_host(base->host))
    return unexpected("base_url: " + base->origin() + " is plain http:// to a host other than this one; the key in " +
                      config.api_key_env + " is never sent unencrypted (use https://, or a server on this host)");
  if (config.max_concurrent == 0)
    return unexpected(std::string{"max_concurrent: must be at least 1"});
  if (config.retry.max_attempts == 0)
    return unexpected(std::string{"retry.max_attempts: must be at least 1 (the first attempt)"});
  if (!config.env)
    config.env = http::process_environment();
  if (!config.sleep)
    config.sleep = [](std::chrono::milliseconds wait) { std::this_thread::sleep_for(wait); };
  std::unique_ptr<wire_format> format;
  if (config.provider == provider_kind::anthropic)
    format = std::make_unique<anthropic_format>();
  else // OpenAI's own API reads max_completion_tokens (its o-series reject max_tokens).
    format = std::make_unique<openai_format>(base->host == "api.openai.com"
                                               ? token_limit_field::max_completion_tokens
                                               : token_limit_field::max_tokens);
  return std::unique_ptr<chat_client>{std::make_unique<provider_client>(
    std::move(config), std::move(*base), std::move(format), std::move(ledger), std::move(prices))};
}

} // namespace warpforge::llm
