#include "gpu/call_check.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <utility>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<gpu_api> gpu_api_words[] = {
    {gpu_api::cudart, "cudart"},
    {gpu_api::driver, "driver"},
    {gpu_api::nvrtc, "nvrtc"},
    {gpu_api::cupti, "cupti"},
};
static_assert(vocabulary::covers(gpu_api_words, all_gpu_apis));

std::string_view to_string(gpu_api api) { return vocabulary::word_of(gpu_api_words, api); }

std::optional<gpu_api> gpu_api_from_string(std::string_view text) {
  return vocabulary::value_of(gpu_api_words, text);
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
