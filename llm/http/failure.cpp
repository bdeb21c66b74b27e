#include "llm/http/failure.hpp"

namespace warpforge::llm::http {

std::string_view to_string(failure_kind kind) {
  switch (kind) {
  case failure_kind::bad_url: return "bad_url";
  case failure_kind::resolve: return "resolve";
  case failure_kind::connect: return "connect";
  case failure_kind::proxy: return "proxy";
  case failure_kind::tls: return "tls";
  case failure_kind::timeout_connect: return "timeout_connect";
  case failure_kind::timeout_first_byte: return "timeout_first_byte";
  case failure_kind::timeout_idle: return "timeout_idle";
  case failure_kind::timeout_total: return "timeout_total";
  case failure_kind::dropped: return "dropped";
  case failure_kind::protocol: return "protocol";
  }
  return "unknown";
}

} // namespace warpforge::llm::http
