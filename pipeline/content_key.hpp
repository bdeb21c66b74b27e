#pragma once
// content_key: when two candidates of a job are the same kernel to measure. A model asked for
// "something new" sometimes sends back what it sent before (a round with no new idea); such a
// variant is recognised by its content and recorded as a duplicate of the earlier branch
// (candidate::duplicate_of) instead of being compiled, checked and raced again.
//
// The key covers what decides the measurement: the source with comments blanked and whitespace
// normalised (string and character literals kept as they are), the entry, every compile option
// NVRTC is given in its order (architecture, standard, -I, -D, flags) and the launch geometry.
// The source file's name is not part of it. Two sources that differ only in the spacing between
// tokens on a line ("a+b" and "a + b") are different keys: whitespace is normalised, not removed.
//
//   auto key = content_key_of(job, candidate, "sm_90");   // 64 hex digits (SHA-256)

#include "pipeline/candidate.hpp"
#include "pipeline/job_setup.hpp"

#include <string>
#include <string_view>

namespace warpforge::pipeline {

/// The source as the key reads it: comments blanked (llm/reply/source_text's reading: strings,
/// characters and raw strings kept), every line trimmed, each run of spaces and tabs one space,
/// blank lines dropped.
std::string normalised_source(std::string_view source);

/// The key of `what` compiled for `arch` as job `job` would compile and launch it: its compile
/// request (compile_order_for at its resolved point, the default point when it does not resolve)
/// and its launch (its own, else the problem's at that point).
std::string content_key_of(const job_setup& job, const candidate& what, const std::string& arch);

} // namespace warpforge::pipeline
