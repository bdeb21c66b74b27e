#pragma once
// The words a person reads when a command fails: every store and feed error kind has one
// sentence here, said after the error's own place and detail, without the libraries' code names
// ("not_a_run_directory") or function names ("run_directory::open"), which stay in the logs.
// Commands print `warpforge <verb>: <user_message(error)>`.

#include "feed/dashboard/dashboard_error.hpp"
#include "feed/feed_error.hpp"
#include "storage/store_error.hpp"

#include <string>
#include <string_view>

namespace warpforge::cli {

/// "/tmp is not a run directory; missing: warpforge.db, logs/ (a run directory is the folder
/// `warpforge run` printed, such as runs/<campaign>-<date>-<time>)".
std::string user_message(const storage::store_error& error);

/// "tcp//x: expected transport://address (a feed endpoint reads like tcp://127.0.0.1:5757)".
std::string user_message(const feed::feed_error& error, std::string_view endpoint = {});

/// "'300.1.1.1' is not a numeric host (--listen takes host:port with a numeric host, such as
/// 127.0.0.1:8757)"; a run directory the dashboard cannot read reads as the store error it is, a
/// bad endpoint as the feed error.
std::string user_message(const dashboard::dashboard_error& error);

/// The message without the function names a library puts in front of it ("run_directory::open: ",
/// "insert_job: ") and without the SQL statement it quotes at its end (" [INSERT INTO ...]").
std::string without_internal_names(std::string_view message);

} // namespace warpforge::cli
