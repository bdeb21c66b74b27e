#pragma once
// `warpforge init`'s drafting: a problem spec a user only has to review, from the observed
// launches of one kernel (one template instantiation) and the user's source file holding it
// between region markers (deploy/region_markers.hpp).
//
//   the launches (run with WARPFORGE_OBSERVE_BUFFERS: each pointer's allocation, bytes hashed)
//     -> kernel_signature.hpp: entry (template-id), parameter kinds and dtypes
//     -> kernel_source.hpp:    parameter and template-parameter names, integer #defines
//     -> representative.hpp:   the configurations ([[configs]] when several)
//     -> here: dims from integer scalars, counts from allocations, roles from the hashes,
//        tunables from the #defines and template parameters that set the launch's block sizes,
//        launch expressions that reproduce every observed geometry, the reference (the original
//        kernel itself), the [deploy] table (the region in the user's file)
//
// Every guess carries a TOML comment saying how it was found; `review` lists the ones to check.
// Refused (an error naming the problem): no launch, several instantiations, a kernel outside any
// region, a pointer in no recorded allocation, parameter values missing, a type a spec cannot hold.

#include "deploy/observe/launches/launch_record.hpp"
#include "deploy/observe/representative.hpp"
#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace warpforge::observe {

struct draft_request {
  std::vector<launch_record> launches;   // the kernel's observed launches, in launch order
  representative_options options;        // how configurations are chosen (observe's defaults)
  std::string source_text;               // the user's source file
  std::filesystem::path source_file;     // absolute
  std::string source_found_by;           // how it was found: "the program's line info (nvdisasm -g)", "--source"
  std::filesystem::path problem_dir;     // absolute: where the spec and its kernel file go
  std::string name;                      // the problem's name; "" = the kernel's base name
  std::vector<std::string> command;      // the observed program and its arguments
  std::string build;                     // [deploy] build command; "" = [deploy] written commented out
  std::string verify;                    // [deploy] verify command; "" = likewise
};

struct drafted_problem {
  std::string spec_text;                 // problem.toml
  std::string kernel_file_name;          // "<kernel>.kernel.cu", beside the spec
  std::string kernel_text;               // the region's code, its tunable #defines #ifndef-guarded
  std::string region;                    // the region of the user's file it came from
  std::vector<std::string> review;       // each guess to check, one line
};

expected<drafted_problem, std::string> draft_problem(const draft_request& request);

/// "blockSize" -> "BLOCK_SIZE", "wA" -> "W_A", "n" -> "N".
std::string upper_snake(std::string_view name);

} // namespace warpforge::observe
