#pragma once
// A reply in the documented JSON envelope holding one variant: the text a test's loopback server
// sends where a model's answer would come (hand-written, never presented as a model's).

#include "foundation/json/writer.hpp"

#include <string>
#include <string_view>

namespace warpforge::llm::testing {

/// "```json {analysis, variants: [{name: deployed, memo, methods: [memory.tiling_smem], code}]} ```"
inline std::string one_variant_envelope(std::string_view code, std::string_view analysis) {
  json::writer w;
  w.begin_object().key("analysis").value(analysis);
  w.key("variants").begin_array().begin_object();
  w.key("name").value("deployed").key("memo").value("build error fixed");
  w.key("methods").begin_array().value("memory.tiling_smem").end_array();
  w.key("code").value(code).end_object();
  w.end_array().end_object();
  return "```json\n" + std::move(w).str() + "\n```\n";
}

} // namespace warpforge::llm::testing
