// `warpforge observe [--kernel NAME] [--method auto|cupti|ncu] [--cache-dir DIR] [--fresh]
// [--source FILE]... [--top-k 5] [--coverage 0.9] [--split 2.5] [--problem P [--configs-out F]]
// [--timeout S] [--json] -- program args...`: run a real program once, unmodified, and record every
// launch of the kernel, in every CUDA process it starts (deploy/observe/run_observed.hpp); pick its
// representative configurations (deploy/observe/representative.hpp); keep it all in
// <cache-dir>/<kernel>.observed.json, reused while the program's signature holds.
// With --problem: the problem is loaded without its configs file (observe writes it: it may not
// exist yet), and the configs are written to --configs-out, else the file the problem's
// configs_file names, else <problem's folder>/<kernel or entry>.configs.toml, in which case the
// terminal says to add configs_file = "<that name>" to the problem (deploy/observe/problem_configs.hpp).
// Prints a table of the configurations, the coverage, and where the files are; --json prints the
// same with each representative's `share` of the kept time and, with --problem, the configs
// written with their `weight` (launch counts).

#include "apps/warpforge/cli/commands.hpp"

#include "apps/warpforge/cli/text.hpp"
#include "config/problem_spec.hpp"
#include "foundation/json/writer.hpp"
#include "deploy/observe/observation_file.hpp"
#include "deploy/observe/problem_configs.hpp"
#include "deploy/observe/run_observed.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;
using observe::observation;

/// Lines of a failed program's output quoted on the terminal.
constexpr std::size_t failed_output_lines = 15;

std::string now_utc() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100.0);
  return text;
}

std::string dim3(const std::array<std::uint32_t, 3>& v) {
  return std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]);
}

// A parameter for people: integers as numbers, 8-byte values past 32 bits (pointers) in hex.
std::string param_text(const observe::param_bytes& p) {
  if (p.size == 8)
    if (auto bits = observe::as_unsigned(p); bits && *bits >= (std::uint64_t{1} << 32)) {
      char text[24];
      std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(*bits));
      return text;
    }
  if (auto value = observe::as_signed(p))
    return std::to_string(*value);
  return "<" + std::to_string(p.size) + " bytes>";
}

std::optional<std::string> usage_problem(const observe_options& o) {
  if (o.command.empty())
    return "no program: warpforge observe [options] -- program args...";
  if (!o.separator_given)
    return "put the program after --: warpforge observe [options] -- " + o.command.front() + " ...";
  if (!observe::observe_method_from_string(o.method))
    return "--method " + o.method + ": one of auto, cupti, ncu";
  if (o.top_k == 0)
    return "--top-k must be at least 1";
  if (!(o.coverage > 0 && o.coverage <= 1))
    return "--coverage must be in (0, 1]";
  if (!(o.split >= 1))
    return "--split must be at least 1 (p95/p25 is never below 1)";
  if (!(o.timeout_s > 0))
    return "--timeout must be positive";
  if (!o.configs_out.empty() && o.problem_path.empty())
    return "--configs-out needs --problem";
  return std::nullopt;
}

// The cached observation when its signature is `signature` (and --fresh is not given); says why not.
std::optional<observation> reusable(const fs::path& file, const std::string& signature, const observe_options& o) {
  std::error_code ec;
  if (o.fresh || !fs::exists(file, ec))
    return std::nullopt;
  auto cached = observe::read_observation(file);
  if (!cached) {
    std::cerr << "warpforge observe: the cache is unreadable, observing again: " << cached.error() << '\n';
    return std::nullopt;
  }
  if (auto why = observe::stale_reason(*cached, signature)) {
    std::cerr << "warpforge observe: observing again: " << *why << '\n';
    return std::nullopt;
  }
  if (o.method != "auto" && cached->method != o.method) {
    std::cerr << "warpforge observe: observing again: the cache was observed by " << cached->method
              << ", --method " << o.method << " asks for another\n";
    return std::nullopt;
  }
  if (!o.problem_path.empty() && cached->method == "ncu" && o.method == "auto") {
    std::cerr << "warpforge observe: observing again: the cache was observed by ncu, which gives no scalar values, "
                 "and --problem needs them to map launches onto dims\n";
    return std::nullopt;
  }
  std::cerr << "warpforge observe: reusing " << file.string() << " (captured " << cached->captured_at << " by "
            << cached->method << "; --fresh observes again)\n";
  return std::move(*cached);
}

// The kernels a run saw besides the named one, for "no launches of X".
std::string kernels_seen(const observe::observed_run& run) {
  std::string out;
  for (const auto& [name, count] : run.other_kernels)
    out += "\n  " + name + " (" + std::to_string(count) + " launches)";
  return out.empty() ? " (no kernel launched at all" + std::string{run.method == "ncu" ? ", or none matched ncu's filter)" : ")"}
                     : ". Kernels seen:" + out;
}

struct fresh_result {
  observation observed;
  bool program_failed = false;
};

// Runs the program under observation and fills an observation (not yet selected).
expected<fresh_result, std::string> observe_program(const observe_options& o, const fs::path& log_dir,
                                                    const std::string& signature) {
  observe::observe_request request;
  request.command = o.command;
  request.kernel = o.kernel;
  request.method = *observe::observe_method_from_string(o.method);
  request.timeout = std::chrono::seconds{static_cast<std::int64_t>(o.timeout_s + 0.999)};
  request.log_dir = log_dir;
  auto run = observe::run_observed(request);
  if (!run)
    return unexpected(run.error());
  fresh_result out;
  auto& ob = out.observed;
  ob.kernel = o.kernel;
  ob.signature = signature;
  ob.captured_at = now_utc();
  ob.method = run->method;
  ob.command = run->command;
  ob.workdir = fs::current_path().string();
  ob.exit = run->exit.to_string();
  ob.wall_s = run->wall_s;
  ob.launches = std::move(run->launches);
  ob.notes = std::move(run->notes);
  out.program_failed = run->exit.exit_code != 0;
  if (out.program_failed)
    std::cerr << "warpforge observe: the program ended with " << ob.exit << "; what was observed is kept. Its last output:\n"
              << observe::output_tail(run->output, failed_output_lines);
  if (ob.launches.empty())
    return unexpected("no launches of " + (o.kernel.empty() ? std::string{"any kernel"} : "'" + o.kernel + "'") +
                      " were observed" + kernels_seen(*run));
  return out;
}

void print_table(const observation& ob, std::ostream& out) {
  for (const auto& k : ob.representative) {
    const auto& s = k.selection;
    out << "kernel " << k.demangled << ": " << s.launches << " launches, " << format_time(s.total_s) << " in all\n";
    out << "  #  grid            block       smem    bucket  launches  total ms   share   median us  scalars\n";
    for (std::size_t i = 0; i < s.configs.size(); ++i) {
      const auto& c = s.configs[i];
      std::string scalars;
      for (const auto& p : c.scalars)
        scalars += (scalars.empty() ? "" : " ") + param_text(p);
      char row[256];
      std::snprintf(row, sizeof row, "  %-2zu %-15s %-11s %-7u %-7s %-9zu %-10.3f %-7s %-10.2f ", i + 1,
                    dim3(c.grid).c_str(), dim3(c.block).c_str(), c.dynamic_smem,
                    std::string{observe::to_string(c.bucket)}.c_str(), c.launches, c.total_s * 1e3,
                    percent(c.coverage).c_str(), c.median_s * 1e6);
      out << row << (scalars.empty() ? "-" : scalars) << '\n';
    }
    out << "  coverage: " << percent(s.covered) << " of the kernel's time in " << s.configs.size() << " configs\n";
    for (const auto& note : s.notes)
      out << "  note: " << note << '\n';
  }
  for (const auto& note : ob.notes)
    out << "note: " << note << '\n';
}

// --problem's outcome: what was written where, and whether the problem reads that file.
struct written_configs {
  observe::configs_mapping mapping;
  observe::configs_destination destination;
};

// JSON: each representative's `share` is its time over the kept configurations' time (sums to 1),
// `coverage` over all the kernel's time (the table's share column); with --problem, the configs
// written, each `weight` its launch count (deploy/observe/problem_configs.hpp says why).
void print_json(const observation& ob, const fs::path& cache_file, const std::optional<written_configs>& configs,
                bool reused, std::ostream& out) {
  json::writer w;
  w.begin_object().key("observation").value(cache_file.string()).key("reused").value(reused)
    .key("configs_file").value(configs ? configs->destination.path.string() : std::string{})
    .key("method").value(ob.method).key("exit").value(ob.exit)
    .key("launches").value(std::uint64_t{ob.launches.size()}).key("kernels").begin_array();
  for (const auto& k : ob.representative) {
    w.begin_object().key("kernel").value(k.kernel).key("demangled").value(k.demangled)
      .key("total_s").value(k.selection.total_s).key("covered").value(k.selection.covered).key("configs").begin_array();
    for (const auto& c : k.selection.configs)
      w.begin_object().key("grid").value(dim3(c.grid)).key("block").value(dim3(c.block))
        .key("smem").value(std::uint64_t{c.dynamic_smem}).key("bucket").value(observe::to_string(c.bucket))
        .key("launches").value(std::uint64_t{c.launches}).key("total_s").value(c.total_s)
        .key("median_s").value(c.median_s).key("share").value(c.weight).key("coverage").value(c.coverage).end_object();
    w.end_array().end_object();
  }
  w.end_array();
  if (configs) {
    w.key("problem_reads_configs_file").value(configs->destination.problem_reads_it).key("problem_configs").begin_array();
    for (const auto& c : configs->mapping.configs) {
      w.begin_object().key("name").value(c.name).key("weight").value(c.weight).key("geometry").value(c.geometry)
        .key("dims").begin_object();
      for (const auto& [dim, value] : c.dims)
        w.key(dim).value(value);
      w.end_object().end_object();
    }
    w.end_array();
  }
  w.key("notes").begin_array();
  for (const auto& note : ob.notes)
    w.value(note);
  w.end_array().end_object();
  out << std::move(w).str() << '\n';
}

// --problem: maps the observation onto the problem's dims and writes the configs file.
expected<written_configs, std::string> write_problem_configs(const observation& ob, const config::problem_spec& spec,
                                                             const observe_options& o) {
  auto mapped = observe::map_to_configs(ob, spec);
  if (!mapped)
    return unexpected(mapped.error());
  auto destination =
    observe::configs_destination_for(spec, o.configs_out, o.kernel.empty() ? spec.kernel.entry : o.kernel);
  if (auto written = observe::write_configs_file(destination.path, *mapped, ob); !written)
    return unexpected(written.error());
  for (const auto& note : mapped->notes)
    std::cerr << "warpforge observe: " << note << '\n';
  return written_configs{std::move(*mapped), std::move(destination)};
}

// "configs: F (...)": whether the problem reads F, else the line that makes it.
std::string configs_line(const config::problem_spec& spec, const observe::configs_destination& destination) {
  const auto& path = destination.path;
  if (destination.problem_reads_it)
    return "configs: " + path.string() + " (the problem's configs_file)";
  if (!spec.configs_file.empty())
    return "configs: " + path.string() + " (not the problem's configs_file, " + spec.configs_file.string() +
           ": the problem does not read it)";
  const auto folder = fs::absolute(fs::path{spec.file}).parent_path().lexically_normal();
  const auto name = fs::absolute(path).lexically_normal().lexically_relative(folder);
  return "configs: " + path.string() + " (" + spec.file + " does not name it yet: add configs_file = \"" +
         name.generic_string() + "\" to it)";
}

// Selects (with this run's options), keeps the observation, prints it, writes the problem's configs.
exit_code observe_finish(const observe_options& o, observation& ob, const std::optional<config::problem_spec>& spec,
                         const fs::path& cache_file, bool reused, bool program_failed) {
  ob.options = {.split_ratio = o.split, .coverage = o.coverage, .top_k = o.top_k};
  ob.representative = observe::select_per_kernel(ob.launches, ob.options).value(); // options checked
  if (auto written = observe::write_observation(cache_file, ob); !written) {
    std::cerr << "warpforge observe: " << written.error() << '\n';
    return exit_code::failure;
  }
  std::optional<written_configs> configs;
  bool configs_failed = false;
  if (spec) {
    auto written = write_problem_configs(ob, *spec, o);
    if (written)
      configs = std::move(*written);
    else
      std::cerr << "warpforge observe: no configs written: " << written.error() << '\n';
    configs_failed = !written;
  }
  if (o.json)
    print_json(ob, cache_file, configs, reused, std::cout);
  else {
    print_table(ob, std::cout);
    std::cout << "observation: " << cache_file.string() << (reused ? " (reused)" : "") << '\n';
    if (!reused)
      std::cout << "program output and launch log: "
                << fs::path{cache_file}.replace_extension().replace_extension(".run").string() << '\n';
    if (configs)
      std::cout << configs_line(*spec, configs->destination) << '\n';
  }
  return program_failed || configs_failed ? exit_code::failure : exit_code::ok;
}

} // namespace

exit_code observe(const observe_options& o) {
  if (auto problem = usage_problem(o)) {
    std::cerr << "warpforge observe: " << *problem << '\n';
    return exit_code::usage;
  }
  std::optional<config::problem_spec> spec;
  if (!o.problem_path.empty()) {
    auto loaded = observe::load_problem_to_observe(o.problem_path); // its configs file is what observe writes
    if (!loaded) {
      std::cerr << "warpforge observe: " << toml_reader::to_string(loaded.error()) << '\n';
      return exit_code::bad_input;
    }
    spec = std::move(*loaded);
  }
  auto program = observe::resolve_program(o.command.front(), "");
  if (!program) {
    std::cerr << "warpforge observe: " << program.error() << '\n';
    return exit_code::bad_input;
  }
  std::vector<fs::path> sources(o.sources.begin(), o.sources.end());
  const observe::signature_inputs signed_inputs{
    *program, std::vector<std::string>(o.command.begin() + 1, o.command.end()), o.kernel, sources, {}};
  auto signature = observe::observation_signature(signed_inputs);
  if (!signature) {
    std::cerr << "warpforge observe: " << signature.error() << '\n';
    return exit_code::bad_input;
  }
  const auto cache_file = observe::observation_path(o.cache_dir, o.kernel);
  auto observed = reusable(cache_file, *signature, o);
  const bool reused = observed.has_value();
  bool program_failed = false;
  if (!observed) {
    auto log_dir = cache_file;
    log_dir.replace_extension().replace_extension(".run"); // <kernel>.run/
    auto fresh = observe_program(o, log_dir, *signature);
    if (!fresh) {
      std::cerr << "warpforge observe: " << fresh.error() << "\n(the program's output and logs: " << log_dir.string()
                << ")\n";
      return exit_code::failure;
    }
    observed = std::move(fresh->observed);
    program_failed = fresh->program_failed;
    for (auto& note : observe::signature_notes(signed_inputs)) // large argument files: by size+mtime
      observed->notes.push_back(std::move(note));
  }
  return observe_finish(o, *observed, spec, cache_file, reused, program_failed);
}

} // namespace warpforge::cli
