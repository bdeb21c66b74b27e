#include "diagnosis/data_error.hpp"

namespace warpforge::diagnosis {

std::string to_string(const data_error& error) {
  std::string out = error.file;
  if (error.line > 0) {
    out += ':' + std::to_string(error.line);
    if (error.column > 0)
      out += ':' + std::to_string(error.column);
  }
  out += ": ";
  if (!error.key.empty())
    out += error.key + ": ";
  out += error.message;
  if (!error.hint.empty())
    out += " (hint: " + error.hint + ")";
  return out;
}

std::string to_string(const data_errors& errors) {
  std::string out;
  for (const auto& error : errors) {
    out += to_string(error);
    out += '\n';
  }
  return out;
}

} // namespace warpforge::diagnosis
