#include "apps/warpforge/cli/user_errors.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <variant>

namespace warpforge::cli {
namespace {

// What each store failure means for the person who typed the command, and what to do about it.
std::string_view store_sentence(storage::store_error_code code) {
  using enum storage::store_error_code;
  switch (code) {
  case cannot_open: return "cannot be opened: check the path and its permissions";
  case not_a_run_directory:
    return "a run directory is the folder `warpforge run` printed, such as runs/<campaign>-<date>-<time>";
  case schema_too_new: return "it was written by a newer warpforge; use that version to read it";
  case schema_too_old: return "it was written by an older warpforge and is not upgraded yet";
  case migration_failed: return "upgrading its database failed and was undone; nothing changed";
  case constraint: return "the store refused a write that contradicts what it holds (a bug: please report it)";
  case io: return "the disk failed: it may be full, or the folder not writable";
  case not_found: return "the store has no such record";
  case busy: return "another warpforge process holds the database; try again when it is done";
  case read_only: return "the database cannot be written here";
  case corrupt: return "the file is damaged or is not a warpforge database";
  case invalid_argument: return "the store refused a value it was given";
  case sql: return "the store failed (a bug: please report it)";
  }
  return "the store failed";
}

std::string_view feed_sentence(feed::feed_errc code) {
  using enum feed::feed_errc;
  switch (code) {
  case bad_json:
  case missing_field:
  case bad_field:
  case bad_message: return "a malformed event arrived; it was skipped";
  case unsupported_schema: return "the event was written by another warpforge version";
  case unknown_event_type: return "the event's type is not one this warpforge knows";
  case bad_endpoint:
    return "a feed endpoint reads like tcp://127.0.0.1:5757; a run directory names its own feed";
  case remote_not_allowed: return "other hosts could reach this address; allow it explicitly ([feed] allow_remote)";
  case bad_option: return "a feed option is out of range";
  case socket_error: return "the network call failed";
  case address_in_use: return "another program (another campaign?) holds that address";
  case no_reply: return "nothing answered on the replay endpoint in time";
  case replay_refused: return "the replay endpoint refused the request";
  }
  return "the feed failed";
}

std::string_view dashboard_sentence(dashboard::dashboard_errc code) {
  using enum dashboard::dashboard_errc;
  switch (code) {
  case bad_listen_address: return "--listen takes host:port with a numeric host, such as 127.0.0.1:8757";
  case remote_not_allowed: return ""; // its message already says what to pass
  case socket_error: return "the page cannot be served on that address";
  case bad_source: return "the run directory or the feed endpoint cannot be read";
  }
  return "the dashboard failed";
}

// "P is not a folder" for a P that does not exist at all reads "P does not exist".
std::string said_plainly(std::string message) {
  constexpr std::string_view not_a_folder = " is not a folder";
  if (message.size() > not_a_folder.size() && message.ends_with(not_a_folder)) {
    const auto path = message.substr(0, message.size() - not_a_folder.size());
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec)
      return path + " does not exist";
  }
  return message;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}

} // namespace

std::string without_internal_names(std::string_view message) {
  // Leading "name: " segments whose name reads like code (snake_case or a qualified name).
  for (;;) {
    const auto colon = message.find(": ");
    if (colon == std::string_view::npos || colon == 0)
      break;
    const auto name = message.substr(0, colon);
    const bool code_like = std::all_of(name.begin(), name.end(), is_identifier_char) &&
                           (name.find('_') != std::string_view::npos || name.find("::") != std::string_view::npos);
    if (!code_like)
      break;
    message.remove_prefix(colon + 2);
  }
  // A trailing quoted statement: " [SELECT ...]".
  if (!message.empty() && message.back() == ']')
    if (const auto open = message.rfind(" ["); open != std::string_view::npos)
      message = message.substr(0, open);
  return std::string{message};
}

std::string user_message(const storage::store_error& error) {
  return said_plainly(without_internal_names(error.message)) + " (" + std::string{store_sentence(error.code)} + ")";
}

std::string user_message(const feed::feed_error& error, std::string_view endpoint) {
  std::string text;
  if (!endpoint.empty())
    text = std::string{endpoint} + ": ";
  text += error.message.empty() ? std::string{feed_sentence(error.code)}
                                : error.message + " (" + std::string{feed_sentence(error.code)} + ")";
  return text;
}

std::string user_message(const dashboard::dashboard_error& error) {
  // A source that cannot be read is said as the store's or the feed's own error.
  if (const auto* store = std::get_if<storage::store_error>(&error.cause))
    return user_message(*store);
  if (const auto* feed = std::get_if<feed::feed_error>(&error.cause))
    return user_message(*feed, error.place);
  const auto sentence = dashboard_sentence(error.code);
  return without_internal_names(error.message) + (sentence.empty() ? "" : " (" + std::string{sentence} + ")");
}

} // namespace warpforge::cli
