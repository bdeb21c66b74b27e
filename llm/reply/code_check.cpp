#include "llm/reply/code_check.hpp"

#include "llm/reply/phrases.hpp"
#include "llm/reply/source_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

namespace warpforge::llm {

namespace {

// Collects one code's problems, placing each by offset and capping each fault's count.
class collector {
public:
  collector(std::string_view code, std::string_view where) : code_(code), where_(where) {}

  void add(reply_fault fault, std::size_t offset, std::string reason) {
    if (++counts_[fault] > max_problems_per_fault)
      return;
    const auto at = source_text::position_of(code_, offset);
    problems_.push_back({fault, where_ + " " + source_text::describe(at), std::move(reason)});
  }
  void add_unplaced(reply_fault fault, std::string reason) {
    ++counts_[fault];
    problems_.push_back({fault, where_, std::move(reason)});
  }
  std::vector<reply_problem> finish() && {
    for (const auto& [fault, count] : counts_)
      if (count > max_problems_per_fault)
        problems_.push_back({fault, where_,
                             std::to_string(count - max_problems_per_fault) + " more like the " +
                               std::to_string(max_problems_per_fault) + " above"});
    return std::move(problems_);
  }

private:
  std::string_view code_;
  std::string where_;
  std::map<reply_fault, std::size_t> counts_;
  std::vector<reply_problem> problems_;
};

std::string hex_byte(unsigned char byte) {
  std::array<char, 8> text{};
  std::snprintf(text.data(), text.size(), "0x%02X", byte);
  return text.data();
}

// The code point of the UTF-8 sequence at `at` and its length, or nullopt if it is not one.
std::optional<std::pair<std::uint32_t, std::size_t>> decode_utf8(std::string_view text,
                                                                 std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || at + length > text.size())
    return std::nullopt;
  std::uint32_t point = lead & (0x7Fu >> length);
  for (std::size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[at + i]);
    if ((next & 0xC0) != 0x80)
      return std::nullopt;
    point = (point << 6) | (next & 0x3Fu);
  }
  return std::pair{point, length};
}

// What to write instead of a character models often put in code.
std::string ascii_for(std::uint32_t point) {
  switch (point) {
  case 0x2018: case 0x2019: return "; write ' instead";
  case 0x201C: case 0x201D: return "; write \" instead";
  case 0x2013: case 0x2014: case 0x2212: return "; write - instead";
  case 0x00D7: return "; write x or * instead";
  case 0x2026: return "; write the code out in full (an ellipsis elides it)";
  case 0x00A0: return "; write a plain space instead";
  case 0x2264: return "; write <= instead";
  case 0x2265: return "; write >= instead";
  case 0x2192: return "; write -> instead";
  default: return "; use ASCII only, in comments too";
  }
}

void check_ascii(std::string_view code, collector& out) {
  for (std::size_t i = 0; i < code.size();) {
    const auto byte = static_cast<unsigned char>(code[i]);
    if (byte < 0x80) {
      ++i;
      continue;
    }
    std::string reason = "non-ASCII byte " + hex_byte(byte);
    std::size_t length = 1;
    if (const auto decoded = decode_utf8(code, i)) {
      std::array<char, 16> point{};
      std::snprintf(point.data(), point.size(), "U+%04X", decoded->first);
      reason += std::string{" (the UTF-8 character "} + point.data() + ")" +
                ascii_for(decoded->first);
      length = decoded->second;
    } else {
      reason += ascii_for(0);
    }
    out.add(reply_fault::non_ascii, i, std::move(reason));
    i += length;
  }
}

std::string lowercase(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n*");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t\r\n*");
  return std::string{text.substr(first, last - first + 1)};
}

using phrases::phrase;

// `text` with each run of whitespace written as one space ("same   as\tbefore" -> "same as before").
std::string single_spaced(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  return out;
}

// Each marker of elided code, as the alternatives of one phrase; the first marker (in this
// order) found in a comment wins.
const std::vector<std::vector<phrase>>& elision_markers() {
  static const std::vector<std::vector<phrase>> markers{
    {{{"todo"}}, {{"fixme"}}},
    {{{"unchanged"}}},
    {{{"same", "as", "before"}, true}, {{"same", "as", "above"}, true},
     {{"same", "as", "the", "original"}, true}, {{"same", "as", "the", "previous"}, true}},
    {{{"as", "in", "the", "original"}}, {{"as", "in", "the", "previous"}}},
    {{{"rest", "of", "code"}}, {{"rest", "of", "kernel"}}, {{"rest", "of", "function"}},
     {{"rest", "of", "body"}}, {{"rest", "of", "loop"}}, {{"rest", "of", "implementation"}},
     {{"rest", "of", "file"}}, {{"rest", "of", "the", "code"}}, {{"rest", "of", "the", "kernel"}},
     {{"rest", "of", "the", "function"}}, {{"rest", "of", "the", "body"}}, {{"rest", "of", "the", "loop"}},
     {{"rest", "of", "the", "implementation"}}, {{"rest", "of", "the", "file"}}},
    {{{"your", "code", "here"}}, {{"your", "code", "goes", "here"}}, {{"the", "code", "here"}},
     {{"the", "code", "goes", "here"}}},
    {{{"fill", "in"}}, {{"implement", "this"}}, {{"implement", "here"}}, {{"for", "brevity"}},
     {{"not", "shown"}}, {{"elided"}}}};
  return markers;
}

// The elision marker in a comment's text, or nullopt.
std::optional<std::string> elision_marker(std::string_view comment) {
  const std::string text = lowercase(trimmed(comment));
  const auto words = phrases::words_of(text);
  for (const auto& marker : elision_markers())
    if (auto found = phrases::find_phrase(text, words, marker))
      return single_spaced(found->text);
  if (text.starts_with("..."))
    return "...";
  return std::nullopt;
}

// The first line of a comment, shortened, for quoting.
std::string quote(std::string_view text) {
  std::string line = trimmed(text.substr(0, text.find('\n')));
  if (line.size() > 60)
    line = line.substr(0, 57) + "...";
  return line;
}

} // namespace

namespace {

// "..." standing for code: not after a word, ',' or '(' (a variadic pack or parameter list).
void check_ellipses(std::string_view code, collector& out) {
  for (std::size_t at = code.find("..."); at != std::string_view::npos;
       at = code.find("...", at + 3)) {
    std::size_t before = at;
    while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1])))
      --before;
    const char previous = before == 0 ? '\0' : code[before - 1];
    if (!source_text::is_identifier_char(previous) && previous != ',' && previous != '(')
      out.add(reply_fault::elided_code, at,
              "'...' stands in for code that was left out; write every line of the kernel");
  }
}

void check_elision(const source_text::views& views,
                   const std::vector<source_text::function_definition>& definitions,
                   const kernel_contract& contract, collector& out) {
  for (const auto& comment : views.comments)
    if (const auto marker = elision_marker(comment.text))
      out.add(reply_fault::elided_code, comment.offset,
              "the comment '" + quote(comment.text) + "' marks code left out ('" + *marker +
                "'); write the complete kernel, every line, no placeholders");
  check_ellipses(views.code_only, out);
  for (const auto& definition : definitions) {
    const bool checked = definition.is_device || definition.name == contract.entry;
    if (!checked || definition.body_close >= views.code_only.size())
      continue;
    const std::string_view body = std::string_view{views.code_only}.substr(
      definition.body_open + 1, definition.body_close - definition.body_open - 1);
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
      out.add(reply_fault::elided_code, definition.body_open,
              "the body of '" + definition.name + "' is empty; write its code out in full");
  }
}

// Of the variant's definitions named like the entry, the one the compiler will take for it:
// a __global__ one with the contract's parameter types, else the first __global__ one, else
// the first (a variant may keep other overloads of the name beside it).
std::vector<source_text::function_definition>::const_iterator
entry_definition(const std::vector<source_text::function_definition>& definitions, const kernel_contract& contract) {
  const auto named = [&](const auto& d) { return d.name == contract.entry; };
  const auto exact = std::find_if(definitions.begin(), definitions.end(), [&](const auto& d) {
    return named(d) && d.is_global && source_text::parameter_types(d.parameters) == contract.parameter_types;
  });
  if (exact != definitions.end())
    return exact;
  const auto global = std::find_if(definitions.begin(), definitions.end(), [&](const auto& d) { return named(d) && d.is_global; });
  return global != definitions.end() ? global : std::find_if(definitions.begin(), definitions.end(), named);
}

// Why the entry's declaration is not the original's (__global__, linkage, template), or nothing.
std::optional<std::string> changed_form(const source_text::function_definition& entry, const kernel_contract& contract) {
  const std::string name = "'" + contract.entry + "'";
  if (!entry.is_global)
    return name + " is not declared __global__";
  if (contract.extern_c && !entry.is_extern_c)
    return name + " is not declared extern \"C\" as the problem's kernel is (its name would be mangled and the "
                  "entry not found)";
  if (!contract.extern_c && entry.is_extern_c)
    return name + " is declared extern \"C\", but the problem's kernel has C++ linkage (the entry is looked up "
                  "by its C++ name); keep its linkage";
  if (!contract.template_head.empty() && entry.template_head.empty())
    return name + " is not a template, but the problem's kernel is one (" + contract.template_head +
           ") and is launched as its instantiation, which must still name it; keep the template parameters";
  if (contract.template_head.empty() && !entry.template_head.empty())
    return name + " is a template (" + entry.template_head +
           "), but the problem's kernel is not and is launched by its name alone; make it a plain function";
  return std::nullopt;
}

void check_entry(const std::vector<source_text::function_definition>& definitions,
                 const kernel_contract& contract, collector& out) {
  const std::string wanted = entry_declaration(contract);
  const auto entry = entry_definition(definitions, contract);
  if (entry == definitions.end()) {
    std::string reason = "no definition of the entry '" + contract.entry + "'";
    const auto other = std::find_if(definitions.begin(), definitions.end(),
                                    [](const auto& d) { return d.is_global; });
    if (other != definitions.end())
      reason += " (the __global__ function is named '" + other->name + "')";
    out.add_unplaced(reply_fault::missing_entry, reason + "; the kernel must define " + wanted);
    return;
  }
  if (const auto why = changed_form(*entry, contract)) {
    out.add(reply_fault::missing_entry, entry->name_offset, *why + "; declare it as " + wanted);
    return;
  }
  const auto types = source_text::parameter_types(entry->parameters);
  if (types == contract.parameter_types)
    return;
  std::string reason = "the entry's parameters are " + source_text::describe_signature(contract.entry, types);
  if (types.size() != contract.parameter_types.size()) {
    reason += ": " + std::to_string(types.size()) + " parameters, the problem passes " +
              std::to_string(contract.parameter_types.size());
  } else {
    for (std::size_t i = 0; i < types.size(); ++i)
      if (types[i] != contract.parameter_types[i])
        reason += "; parameter " + std::to_string(i + 1) + " is '" + types[i] + "', must be '" +
                  contract.parameter_types[i] + "'";
  }
  out.add(reply_fault::changed_signature, entry->name_offset,
          reason + "; keep the problem's parameter list exactly (names may differ): " + wanted);
}

} // namespace

namespace {

// Host-side constructs, found on the code with comments and literals blanked: each found with
// its offset and the text quoted.
constexpr std::string_view host_main =
  "a host main(); kernel mode compiles device code only, the runner allocates and launches";
constexpr std::string_view host_streams = "CUDA streams and events are host-side; the runner times the kernel";
constexpr std::string_view host_runtime = "a host CUDA runtime call; the runner allocates, copies and launches";
constexpr std::string_view host_library = "a host C++ library facility; device code cannot use it";
constexpr std::string_view host_launch =
  "a kernel launch (<<< >>>); the runner launches the entry with the problem's (or the variant's) launch geometry";

void add_host(collector& out, std::size_t offset, std::string_view text, std::string_view reason) {
  std::string message = "'";
  message.append(text).append("': ").append(reason);
  out.add(reply_fault::host_code, offset, std::move(message));
}

void check_host_calls(std::string_view code, collector& out) {
  const auto words = phrases::words_of(code);
  for (const auto& w : words)
    if (w.text == "main") {
      const std::size_t paren = phrases::skip_space(code, w.offset + w.text.size());
      if (paren < code.size() && code[paren] == '(')
        add_host(out, w.offset, code.substr(w.offset, paren + 1 - w.offset), host_main);
    }
  for (const auto& found : phrases::words_starting_with(code, {"cudaStream", "cudaEvent"}))
    add_host(out, found.offset, found.text, host_streams);
  for (const auto& found : phrases::words_starting_with(
         code, {"cudaMalloc", "cudaMemcpy", "cudaMemset", "cudaFree", "cudaDeviceSynchronize", "cudaDeviceReset",
                "cudaSetDevice", "cudaGetDevice", "cudaLaunchKernel", "cudaGraph", "cudaFuncSetAttribute",
                "cudaHostAlloc"}))
    add_host(out, found.offset, found.text, host_runtime);
  static constexpr std::array<std::string_view, 7> std_facilities{"chrono", "cout", "cerr", "thread",
                                                                  "vector", "string", "map"};
  for (std::size_t k = 0; k + 1 < words.size(); ++k) {
    if (words[k].text != "std")
      continue;
    const std::size_t colons = phrases::skip_space(code, words[k].offset + 3);
    if (code.substr(colons, 2) != "::")
      continue;
    const auto& next = words[k + 1];
    const bool adjacent = phrases::skip_space(code, colons + 2) == next.offset;
    if (adjacent && std::find(std_facilities.begin(), std_facilities.end(), next.text) != std_facilities.end())
      add_host(out, words[k].offset, code.substr(words[k].offset, next.offset + next.text.size() - words[k].offset),
               host_library);
  }
  for (auto at = code.find("<<<"); at != std::string_view::npos; at = code.find("<<<", at + 3))
    add_host(out, at, "<<<", host_launch);
}

// Headers NVRTC does not have or that only serve host code. Device printf needs no include,
// so <cstdio> and <stdio.h> count as host headers too (NVRTC ships neither).
bool is_host_header(std::string_view header) {
  static constexpr std::array<std::string_view, 28> headers{
    "iostream", "iomanip", "fstream", "sstream", "vector", "string", "map", "unordered_map",
    "set", "list", "deque", "memory", "thread", "mutex", "chrono", "functional", "algorithm",
    "random", "cstdio", "stdio.h", "cstdlib", "stdlib.h", "ctime", "time.h", "cuda_runtime.h",
    "cuda_runtime_api.h", "cuda.h", "nvrtc.h"};
  return std::find(headers.begin(), headers.end(), header) != headers.end() ||
         header.starts_with("cublas") || header.starts_with("curand") ||
         header.starts_with("cudnn") || header.starts_with("thrust/");
}

// The header of an "#include <h>" or "#include "h"" line (spaces and tabs around '#'), with its
// offset; nullopt for any other line.
std::optional<std::pair<std::size_t, std::string_view>> included_header(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#')
    return std::nullopt;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.substr(i, 7) != "include")
    return std::nullopt;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string_view::npos || (line[i] != '<' && line[i] != '"'))
    return std::nullopt;
  const std::size_t end = line.find_first_of(">\"", i + 1);
  if (end == std::string_view::npos || end == i + 1)
    return std::nullopt;
  return std::pair{i + 1, line.substr(i + 1, end - i - 1)};
}

void check_host_code(const source_text::views& views, collector& out) {
  check_host_calls(views.code_only, out);
  const std::string_view text = views.without_comments;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (const auto header = included_header(text.substr(start, end - start)); header && is_host_header(header->second))
      out.add(reply_fault::host_code, start + header->first,
              "#include <" + std::string{header->second} +
                "> is a host header (NVRTC compiles device code with no host headers; device "
                "printf needs no include); remove it");
    start = end + 1;
  }
}

} // namespace

std::vector<reply_problem> check_code(std::string_view code, std::string_view where,
                                      const kernel_contract& contract) {
  collector out{code, where};
  if (code.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.add_unplaced(reply_fault::no_code, "the code is empty; give the complete kernel source");
    return std::move(out).finish();
  }
  check_ascii(code, out);
  const auto views = source_text::blank(code);
  const auto definitions = source_text::find_definitions(views);
  check_elision(views, definitions, contract, out);
  check_entry(definitions, contract, out);
  check_host_code(views, out);
  return std::move(out).finish();
}

} // namespace warpforge::llm
