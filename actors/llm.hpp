#pragma once
// llm: the campaign's language model, a thin shell over one llm::chat_client (the provider's
// client with its spend ledger, retries and concurrency limit). Every request is handed to a
// detached worker of its own, which blocks on the HTTP exchange and answers the asker directly;
// this actor only dispatches and keeps the status: calls, failures, tokens, dollars, in flight.
// The llm proposer reaches it through actor_chat_client (a chat_client any thread can call).

#include "llm/chat/chat.hpp"
#include "messages/llm.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>

namespace warpforge::actors {

inline constexpr std::string_view llm_name = "llm";

struct llm_state {
  static inline const char* name = "llm";

  std::shared_ptr<llm::chat_client> client;
  std::int64_t calls = 0;      // requests dispatched
  std::int64_t failures = 0;   // requests that ended without a reply
  std::int64_t in_flight = 0;
  std::int64_t tokens = 0;     // every kind, replies only
  double cost_usd = 0;         // dollars

  void done(const messages::chat_done& d);
  messages::component_status status() const;
};

messages::llm_actor::behavior_type llm(messages::llm_actor::stateful_pointer<llm_state> self,
                                       std::shared_ptr<llm::chat_client> client);

/// A chat_client over the llm actor registered under llm_name: each call is a blocking request
/// from the calling thread (the llm proposer's worker), so it waits as long as the model takes.
class actor_chat_client final : public llm::chat_client {
public:
  /// `patience`: how long a call looks for the llm actor while the supervisor may be restarting
  /// it (its back-off is shorter than the default).
  explicit actor_chat_client(caf::actor_system& system, std::chrono::milliseconds patience = std::chrono::seconds{5})
      : system_(system), patience_(patience) {}
  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override;

private:
  caf::actor_system& system_;
  std::chrono::milliseconds patience_;
};

} // namespace warpforge::actors
