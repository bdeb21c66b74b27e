#pragma once
// Shared by the feed's socket tests: deadlines and events to publish.

#include "feed/event.hpp"
#include "feed/event_json.hpp"
#include "storage/database.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace warpforge::feed::testing {

/// The longest a test waits for a subscription or a message; generous for loaded CI machines.
inline constexpr std::chrono::milliseconds io_timeout{10'000};
/// How long a test listens to show that nothing (more) arrives.
inline constexpr std::chrono::milliseconds quiet_period{100};
/// A free port on the loopback interface, chosen when binding.
inline constexpr const char* ephemeral_loopback = "tcp://127.0.0.1:*";
/// A plausible event time, unix time [s].
inline constexpr double base_ts = 1764000000.0;

inline event numbered_event(std::uint64_t seq, event_type type = event_type::branch_measured,
                            std::string detail_json = "{}") {
  event e;
  e.seq = seq;
  e.ts = base_ts + static_cast<double>(seq) / 1000.0;
  e.type = type;
  e.campaign = "nightly";
  e.job = "gemm";
  e.iter = 0;
  e.branch = static_cast<std::int64_t>(seq);
  e.gpu = 0;
  e.detail_json = std::move(detail_json);
  return e;
}

/// Stores `e` as the store actor does (actors/store.cpp): the JSON as published, under its seq.
inline void store_event(storage::database& db, const event& e) {
  storage::event_row row;
  row.seq = static_cast<std::int64_t>(e.seq);
  row.ts = e.ts;
  row.type = std::string{to_string(e.type)};
  row.campaign = e.campaign;
  row.job = e.job;
  row.json = encode(e);
  if (auto stored = db.append_event(row); !stored)
    throw std::runtime_error("append_event: " + storage::to_string(stored.error()));
}

/// A run database at `path` holding numbered_event(1) .. numbered_event(count).
inline storage::database database_with_events(const std::filesystem::path& path, std::uint64_t count) {
  auto db = storage::database::open(path);
  if (!db)
    throw std::runtime_error("open: " + storage::to_string(db.error()));
  for (std::uint64_t seq = 1; seq <= count; ++seq)
    store_event(*db, numbered_event(seq));
  return std::move(*db);
}

} // namespace warpforge::feed::testing
