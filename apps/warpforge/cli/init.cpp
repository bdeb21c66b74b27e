// `warpforge init --kernel NAME [--source FILE] [--out problem.toml] [--name N] [--build CMD --verify CMD]
// [--force] [--cache-dir DIR] [--timeout S] [--top-k K] [--coverage C] [--split R] -- program args...`:
// runs the program once under the injection library with the kernel's buffers watched (each
// pointer's allocation, its bytes hashed before and after the first launches), finds the kernel's
// source (--source, else the program's line info), and writes a drafted problem spec plus the
// kernel file it compiles (the code between the source's region markers), every guess commented
// (deploy/observe/draft/draft_problem.hpp). Nothing is written when the draft is refused.

#include "apps/warpforge/cli/commands.hpp"

#include "deploy/observe/draft/draft_problem.hpp"
#include "deploy/observe/draft/line_info.hpp"
#include "deploy/observe/run_observed.hpp"
#include "foundation/files/atomic_write.hpp"

#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

/// Lines of a failed program's output quoted on the terminal.
constexpr std::size_t failed_output_lines = 15;

std::optional<std::string> usage_problem(const init_options& o) {
  if (o.command.empty())
    return "no program: warpforge init --kernel NAME [options] -- program args...";
  if (!o.separator_given)
    return "put the program after --: warpforge init --kernel " + o.kernel + " -- " + o.command.front() + " ...";
  if (o.kernel.empty())
    return "--kernel names the kernel to draft a problem for";
  if (!(o.coverage > 0 && o.coverage <= 1))
    return "--coverage must be in (0, 1]";
  if (!(o.split >= 1))
    return "--split must be at least 1 (p95/p25 is never below 1)";
  if (!(o.timeout_s > 0))
    return "--timeout must be positive";
  if (o.build.empty() != o.verify.empty())
    return "--build and --verify go together (the [deploy] table needs both)";
  return std::nullopt;
}

/// A file name for the kernel's logs: its characters outside [A-Za-z0-9_.-] become '_'.
std::string file_name_of(std::string_view kernel) {
  std::string out;
  for (char c : kernel)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ? c : '_';
  return out;
}

std::optional<std::string> read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  if (!in)
    return std::nullopt;
  return std::string{std::istreambuf_iterator<char>{in}, {}};
}

std::string kernels_seen(const observe::observed_run& run) {
  std::string out;
  for (const auto& [name, count] : run.other_kernels)
    out += "\n  " + name + " (" + std::to_string(count) + " launches)";
  return out.empty() ? " (no kernel launched at all)" : ". Kernels seen:" + out;
}

struct located_source {
  fs::path file;
  std::string text;
  std::string found_by;
};

expected<located_source, std::string> locate_source(const init_options& o, const fs::path& program,
                                                     const std::string& symbol, const fs::path& log_dir) {
  located_source out;
  if (!o.source.empty()) {
    out.file = fs::absolute(o.source).lexically_normal();
    out.found_by = "--source";
  } else {
    auto place = observe::kernel_place_from_line_info(program, symbol, log_dir / "line-info");
    if (!place)
      return unexpected{"finding the kernel's source: " + place.error()};
    out.file = fs::absolute(place->file).lexically_normal();
    out.found_by = "the program's line info (nvdisasm -g: line " + std::to_string(place->line) + ")";
  }
  auto text = read_text(out.file);
  if (!text)
    return unexpected{"cannot read the kernel's source " + out.file.string() +
                      (o.source.empty() ? " (named by the program's line info; give --source)" : "")};
  out.text = std::move(*text);
  return out;
}

} // namespace

exit_code init(const init_options& o) {
  if (auto problem = usage_problem(o)) {
    std::cerr << "warpforge init: " << *problem << '\n';
    return exit_code::usage;
  }
  const fs::path spec_file = fs::absolute(o.out).lexically_normal();
  std::error_code ec;
  if (fs::exists(spec_file, ec) && !o.force) {
    std::cerr << "warpforge init: " << spec_file.string() << " exists; --force replaces it\n";
    return exit_code::bad_input;
  }
  auto program = observe::resolve_program(o.command.front(), "");
  if (!program) {
    std::cerr << "warpforge init: " << program.error() << '\n';
    return exit_code::bad_input;
  }
  if (!o.source.empty() && !fs::is_regular_file(o.source, ec)) {
    std::cerr << "warpforge init: --source " << o.source << " is not a readable file\n";
    return exit_code::bad_input;
  }

  const fs::path log_dir = fs::path{o.cache_dir} / (file_name_of(o.kernel) + ".init");
  observe::observe_request request;
  request.command = o.command;
  request.kernel = o.kernel;
  request.buffers_kernel = o.kernel;
  request.method = observe::observe_method::cupti; // ncu gives no argument values, and no allocations
  request.timeout = std::chrono::seconds{static_cast<std::int64_t>(o.timeout_s + 0.999)};
  request.log_dir = log_dir;
  fs::create_directories(log_dir, ec);
  auto run = observe::run_observed(request);
  if (!run) {
    std::cerr << "warpforge init: " << run.error() << "\n(the program's output and logs: " << log_dir.string() << ")\n";
    return exit_code::failure;
  }
  if (run->exit.exit_code != 0)
    std::cerr << "warpforge init: the program ended with " << run->exit.to_string()
              << "; drafting from what was observed. Its last output:\n"
              << observe::output_tail(run->output, failed_output_lines);
  for (const auto& note : run->notes)
    std::cerr << "warpforge init: note: " << note << '\n';
  if (run->launches.empty()) {
    std::cerr << "warpforge init: the kernel '" << o.kernel << "' never launched in the observed run" << kernels_seen(*run)
              << '\n';
    return exit_code::failure;
  }

  auto source = locate_source(o, *program, run->launches.front().kernel, log_dir);
  if (!source) {
    std::cerr << "warpforge init: " << source.error() << '\n';
    return exit_code::failure;
  }
  observe::draft_request draft;
  draft.launches = std::move(run->launches);
  draft.options = {.split_ratio = o.split, .coverage = o.coverage, .top_k = o.top_k};
  draft.source_text = std::move(source->text);
  draft.source_file = source->file;
  draft.source_found_by = source->found_by;
  draft.problem_dir = spec_file.parent_path();
  draft.name = o.name;
  draft.command = run->command;
  draft.build = o.build;
  draft.verify = o.verify;
  auto drafted = observe::draft_problem(draft);
  if (!drafted) {
    std::cerr << "warpforge init: cannot draft a problem: " << drafted.error() << '\n';
    return exit_code::failure;
  }
  const fs::path kernel_file = spec_file.parent_path() / drafted->kernel_file_name;
  if (fs::exists(kernel_file, ec) && !o.force) {
    std::cerr << "warpforge init: " << kernel_file.string() << " exists; --force replaces it\n";
    return exit_code::bad_input;
  }
  for (const auto& [file, text] : {std::pair{kernel_file, drafted->kernel_text}, std::pair{spec_file, drafted->spec_text}})
    if (auto written = files::write_file_atomically(file, text); !written) {
      std::cerr << "warpforge init: cannot write " << file.string() << ": " << written.error() << '\n';
      return exit_code::failure;
    }
  std::cout << "drafted " << spec_file.string() << " and " << kernel_file.string() << " (region '" << drafted->region
            << "' of " << draft.source_file.string() << ", found by " << draft.source_found_by << ")\n";
  if (!drafted->review.empty()) {
    std::cout << "review:\n";
    for (const auto& line : drafted->review)
      std::cout << "  - " << line << '\n';
  }
  std::cout << "every guess is commented in the spec; check it with: warpforge bench " << spec_file.string() << '\n';
  return exit_code::ok;
}

} // namespace warpforge::cli
