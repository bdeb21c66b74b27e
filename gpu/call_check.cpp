#include "gpu/call_check.hpp"

#include <utility>

namespace warpforge::gpu {

std::string_view to_string(gpu_api api) {
  switch (api) {
    case gpu_api::cudart: return "cudart";
    case gpu_api::driver: return "driver";
    case gpu_api::nvrtc: return "nvrtc";
    case gpu_api::cupti: return "cupti";
  }
  return "unknown";
}

std::optional<gpu_api> gpu_api_from_string(std::string_view text) {
  for (auto api : all_gpu_apis)
    if (to_string(api) == text)
      return api;
  return std::nullopt;
}

std::string call_error::to_string() const {
  std::string out = call;
  out += " failed: ";
  out += code_name;
  out += " (";
  out += std::to_string(code);
  out += ")";
  if (!message.empty() && message != code_name) {
    out += ": ";
    out += message;
  }
  out += " [";
  out += file;
  out += ":";
  out += std::to_string(line);
  out += "]";
  return out;
}

call_error make_call_error(gpu_api api, long long code, std::string code_name, std::string message,
                           const char* call, const char* file, int line) {
  call_error error;
  error.api = api;
  error.code = code;
  error.code_name = std::move(code_name);
  error.message = std::move(message);
  error.call = call;
  error.file = file;
  error.line = line;
  return error;
}
} // namespace warpforge::gpu
