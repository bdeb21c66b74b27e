#include "pipeline/content_key.hpp"

#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/compile_options.hpp"
#include "llm/reply/source_text.hpp"
#include "pipeline/build.hpp"

#include <cctype>
#include <vector>

namespace warpforge::pipeline {

namespace {

// Which bytes of `code` (source_text's code_only view: literal contents blanked, their quotes
// kept) lie inside a string or character literal, delimiters included. The quotes left in that
// view open and close literals as blank() read them: a ' after a digit is a digit separator.
std::vector<bool> literal_bytes(std::string_view code) {
  std::vector<bool> inside(code.size(), false);
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char quote = code[i];
    const bool opens = quote == '"' || (quote == '\'' && !(i > 0 && std::isdigit(static_cast<unsigned char>(code[i - 1]))));
    if (!opens)
      continue;
    std::size_t end = i + 1;
    while (end < code.size() && code[end] != quote && code[end] != '\n')
      ++end;
    const std::size_t last = end < code.size() && code[end] == quote ? end : end - 1;
    for (std::size_t j = i; j <= last && j < code.size(); ++j)
      inside[j] = true;
    i = last;
  }
  return inside;
}

bool blank_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

} // namespace

std::string normalised_source(std::string_view source) {
  const auto views = llm::source_text::blank(source);
  const std::string_view text = views.without_comments;
  const auto literal = literal_bytes(views.code_only);
  std::string out;
  out.reserve(text.size());
  std::string line;
  auto end_line = [&] {
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    if (!line.empty())
      out.append(line).push_back('\n');
    line.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (literal[i])
      line.push_back(c);
    else if (c == '\n')
      end_line();
    else if (blank_space(c)) {
      if (!line.empty() && line.back() != ' ')
        line.push_back(' ');
    } else {
      line.push_back(c);
    }
  }
  end_line();
  return out;
}

std::string content_key_of(const job_setup& job, const candidate& what, const std::string& arch) {
  const auto resolved = resolve_branch(job, what);
  const auto& at = resolved ? resolved->front() : job.defaults;
  const auto order = compile_order_for(job, what, at, {}, arch, {});
  std::string input;
  using gpu::cache_detail::add_field;
  add_field(input, "warpforge content key v1");
  add_field(input, normalised_source(order.request.source));
  add_field(input, order.request.entry);
  for (const auto& option : gpu::canonical_options(order.request))
    add_field(input, option);
  const auto launch = what.launch ? *what.launch : at.launch;
  std::string geometry;
  for (auto v : launch.grid)
    geometry += std::to_string(v) + ",";
  for (auto v : launch.block)
    geometry += std::to_string(v) + ",";
  geometry += std::to_string(launch.dynamic_smem_bytes);
  add_field(input, geometry);
  return gpu::cache_detail::sha256_hex(input);
}

} // namespace warpforge::pipeline
