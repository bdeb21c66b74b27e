#include "llm/http/transport.hpp"

#include "llm/http/connection.hpp"
#include "llm/http/proxy.hpp"
#include "foundation/logging/logging.hpp"

#include <boost/beast/http/field.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace warpforge::llm::http {
namespace {

namespace bhttp = boost::beast::http;

// How much of the body one read hands on at most [bytes].
constexpr std::size_t body_piece_bytes = 16 * 1024;
constexpr const char* user_agent = "warpforge";

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

bool has_header(const request& r, std::string_view name) {
  return std::any_of(r.headers.begin(), r.headers.end(), [&](const header& h) { return same_name(h.name, name); });
}

bool breaks_a_line(std::string_view text) {
  return text.find_first_of(std::string_view{"\r\n\0", 3}) != std::string_view::npos;
}

/// Why `r` cannot be sent as given, or nothing. Names headers, never their values.
std::optional<failure> invalid(const request& r) {
  if (r.target.host.empty() || (r.target.scheme != "http" && r.target.scheme != "https"))
    return failure{failure_kind::bad_url, "the request has no http:// or https:// URL with a host"};
  if (r.method.empty() || r.method.find_first_of(" \r\n") != std::string::npos)
    return failure{failure_kind::bad_url, "the request method '" + r.method + "' is not an HTTP token"};
  for (const auto& h : r.headers)
    if (h.name.empty() || breaks_a_line(h.name) || h.name.find(':') != std::string::npos || breaks_a_line(h.value))
      return failure{failure_kind::bad_url, "the request header '" + h.name + "' has an empty name or a line break"};
  return std::nullopt;
}

/// The message on the wire: origin-form target, or absolute-form when a proxy relays plain http.
connection::outgoing outgoing_message(const request& r) {
  const bool relayed = r.proxy && !r.target.tls();
  connection::outgoing message;
  message.method_string(r.method);
  message.target(relayed ? r.target.origin() + r.target.target : r.target.target);
  message.version(11);
  if (!has_header(r, "Host"))
    message.set(bhttp::field::host, r.target.authority());
  if (!has_header(r, "User-Agent"))
    message.set(bhttp::field::user_agent, user_agent);
  if (relayed && !r.proxy->userinfo.empty())
    message.set(bhttp::field::proxy_authorization, proxy_authorization(*r.proxy));
  for (const auto& h : r.headers)
    message.insert(h.name, h.value);
  message.body() = r.body;
  if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH")
    message.prepare_payload();
  return message;
}

} // namespace

std::optional<std::string> response_head::find(std::string_view name) const {
  for (const auto& h : headers)
    if (same_name(h.name, name))
      return h.value;
  return std::nullopt;
}

expected<response_head, failure> send(const request& r, const std::function<void(const response_head&)>& on_head,
                                      const std::function<void(std::string_view)>& on_body) {
  if (auto problem = invalid(r))
    return unexpected{std::move(*problem)};
  const auto started = connection::clock::now();
  connection link{r.limits};
  if (auto opened = link.open(r.target, r.proxy, r.ca_file); !opened)
    return unexpected{std::move(opened.error())};
  auto message = outgoing_message(r);
  if (auto written = link.write(message); !written)
    return unexpected{std::move(written.error())};
  auto head = link.read_head(r.method == "HEAD");
  if (!head)
    return head;
  on_head(*head);
  std::array<char, body_piece_bytes> piece;
  std::size_t body_bytes = 0;
  while (!link.body_done()) {
    auto read = link.read_body(piece);
    if (!read)
      return unexpected{std::move(read.error())};
    if (*read > 0)
      on_body(std::string_view{piece.data(), *read});
    body_bytes += *read;
  }
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(connection::clock::now() - started);
  logging::get("llm.http")->debug("{} {}{} answered {} ({} body bytes, {} ms)", r.method, r.target.origin(),
                                  r.target.target.substr(0, r.target.target.find('?')), head->status, body_bytes,
                                  elapsed.count());
  return head;
}

} // namespace warpforge::llm::http
