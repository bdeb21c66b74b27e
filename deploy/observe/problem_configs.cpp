#include "deploy/observe/problem_configs.hpp"

#include "config/resolved_problem.hpp"
#include "foundation/files/atomic_write.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;

std::string dim3_text(const std::array<std::uint32_t, 3>& v) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

std::string geometry_text(const std::array<std::uint32_t, 3>& grid, const std::array<std::uint32_t, 3>& block,
                          std::uint32_t smem) {
  return "grid " + dim3_text(grid) + " block " + dim3_text(block) + " smem " + std::to_string(smem);
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100.0);
  return text;
}

// The selection of the spec's kernel: the named kernel's (observed with --kernel: the user said
// which), else the one kernel whose name is the spec's entry.
expected<const kernel_selection*, std::string> selection_for(const observation& observed,
                                                             const config::problem_spec& spec) {
  if (!observed.kernel.empty() && observed.representative.size() == 1)
    return &observed.representative.front();
  std::vector<const kernel_selection*> matching;
  std::string seen;
  for (const auto& k : observed.representative) {
    launch_record named;
    named.kernel = k.kernel;
    named.demangled = k.demangled;
    if (matches_kernel(named, spec.kernel.entry))
      matching.push_back(&k);
    seen += (seen.empty() ? "" : ", ") + k.demangled;
  }
  if (matching.size() == 1)
    return matching.front();
  return unexpected("the observation holds " + std::to_string(observed.representative.size()) +
                    " kernels and " + std::to_string(matching.size()) + " of them are the problem's entry '" +
                    spec.kernel.entry + "' (seen: " + (seen.empty() ? "none" : seen) +
                    "); observe with --kernel " + spec.kernel.entry);
}

// A scalar argument whose value is exactly a dim name: (argument index, argument, dim name).
struct dim_binding {
  std::size_t index = 0;
  const config::scalar_spec* scalar = nullptr;
  std::string dim;
};

std::vector<dim_binding> dim_bindings(const config::problem_spec& spec) {
  std::vector<dim_binding> out;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const auto* scalar = std::get_if<config::scalar_spec>(&spec.args[i]);
    if (!scalar || scalar->float_value)
      continue;
    std::string text = scalar->value.expr.text();
    auto first = text.find_first_not_of(" \t");
    auto last = text.find_last_not_of(" \t");
    text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
    if (spec.find_dim(text))
      out.push_back({i, scalar, text});
  }
  return out;
}

// The dim value a parameter holds, decoded with its argument's dtype.
expected<std::int64_t, std::string> decode_dim(const param_bytes& param, const dim_binding& binding) {
  const auto type = binding.scalar->type;
  const std::string what = "argument " + std::to_string(binding.index) + " ('" + binding.scalar->name + "', " +
                           std::string{config::to_string(type)} + ", dim " + binding.dim + ")";
  if (config::is_floating_point(type))
    return unexpected(what + " is a floating-point type; dims are integers");
  if (param.size != config::size_of(type))
    return unexpected(what + ": the observed parameter has " + std::to_string(param.size) + " bytes, the dtype " +
                      std::to_string(config::size_of(type)));
  std::optional<std::int64_t> value;
  if (config::is_signed_integer(type))
    value = as_signed(param);
  else if (auto bits = as_unsigned(param); bits && *bits <= std::numeric_limits<std::int64_t>::max())
    value = static_cast<std::int64_t>(*bits);
  if (!value)
    return unexpected(what + ": the observed bytes '" + param.hex + "' do not decode");
  if (*value <= 0)
    return unexpected(what + ": observed value " + std::to_string(*value) + " is not a positive size");
  return *value;
}

// The dims one representative binds, in the spec's [dims] order.
expected<std::vector<std::pair<std::string, std::int64_t>>, std::string>
dims_of(const representative_config& rep, const std::vector<dim_binding>& bindings, const config::problem_spec& spec,
        std::vector<std::string>& notes) {
  std::map<std::string, std::int64_t> bound;
  for (const auto& binding : bindings) {
    auto value = decode_dim(rep.scalars[binding.index], binding);
    if (!value)
      return unexpected(value.error());
    auto [it, inserted] = bound.emplace(binding.dim, *value);
    if (!inserted && it->second != *value)
      notes.push_back("dim " + binding.dim + " is bound by two arguments that disagree (" +
                      std::to_string(it->second) + " and " + std::to_string(*value) + "); the first is kept");
  }
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& dim : spec.dims)
    if (auto it = bound.find(dim.name); it != bound.end())
      out.emplace_back(dim.name, it->second);
  return out;
}

// The geometry the problem launches at `dims` and its default tunables.
expected<config::launch_geometry, std::string> problem_geometry(const config::problem_spec& spec,
                                                                const std::vector<std::pair<std::string, std::int64_t>>& dims) {
  auto at = spec;
  for (auto& dim : at.dims)
    for (const auto& [name, value] : dims)
      if (dim.name == name)
        dim.value = value;
  auto resolved = config::resolve_problem(at, config::default_point(at));
  if (!resolved)
    return unexpected(toml_reader::to_string(resolved.error()));
  return resolved->launch;
}

std::string config_name(const std::vector<std::pair<std::string, std::int64_t>>& dims) {
  std::string name;
  for (const auto& [dim, value] : dims)
    name += (name.empty() ? "" : "x") + std::to_string(value);
  return name;
}

// Checks the problem's geometry at the config against the program's; a mismatch is a note.
expected<void, std::string> compare_geometry(const config::problem_spec& spec, const observed_config& config,
                                             const representative_config& rep, std::vector<std::string>& notes) {
  auto geometry = problem_geometry(spec, config.dims);
  if (!geometry)
    return unexpected("config " + config.name + ": the problem cannot be resolved at these dims: " + geometry.error());
  auto resolved = geometry_text(geometry->grid, geometry->block, geometry->dynamic_smem_bytes);
  if (resolved != config.geometry)
    notes.push_back("config " + config.name + ": the problem launches " + resolved +
                    " at these dims (default tunables), the program launched " + config.geometry +
                    " (" + std::string{to_string(rep.bucket)} + " bucket)");
  return {};
}

// Every dim no scalar binds: a note each.
void note_unbound_dims(const config::problem_spec& spec, const std::vector<dim_binding>& bindings,
                       std::vector<std::string>& notes) {
  for (const auto& dim : spec.dims) {
    bool bound = false;
    for (const auto& binding : bindings)
      bound = bound || binding.dim == dim.name;
    if (!bound)
      notes.push_back("dim " + dim.name + " is no scalar argument's value; it keeps its [dims] value " +
                      std::to_string(dim.value) + " at every config");
  }
}

} // namespace

expected<configs_mapping, std::string> map_to_configs(const observation& observed, const config::problem_spec& spec) {
  auto selection = selection_for(observed, spec);
  if (!selection)
    return unexpected(selection.error());
  const auto& reps = (*selection)->selection.configs;
  if (reps.empty())
    return unexpected("the observation has no representative configuration of " + (*selection)->demangled +
                      " (no launch with a duration)");
  auto bindings = dim_bindings(spec);
  if (bindings.empty())
    return unexpected("no scalar argument of " + spec.file +
                      " has a value that is exactly a dim name (value = \"ROWS\"): nothing maps launches onto dims");
  configs_mapping out;
  out.kernel = (*selection)->kernel;
  out.covered = (*selection)->selection.covered;
  for (std::size_t i = 0; i < reps.size(); ++i) {
    const auto& rep = reps[i];
    if (rep.scalars.empty())
      return unexpected("scalar values are needed to map launches onto dims; observe with cupti (this observation, by " +
                        observed.method + ", has none)");
    if (rep.scalars.size() != spec.args.size())
      return unexpected("the observed kernel " + (*selection)->demangled + " has " + std::to_string(rep.scalars.size()) +
                        " parameters, " + spec.file + " declares " + std::to_string(spec.args.size()) +
                        " arguments: is it the same kernel?");
    auto dims = dims_of(rep, bindings, spec, out.notes);
    if (!dims)
      return unexpected("representative " + std::to_string(i + 1) + ": " + dims.error());
    const auto name = config_name(*dims);
    auto same = std::find_if(out.configs.begin(), out.configs.end(), [&](const auto& c) { return c.dims == *dims; });
    if (same != out.configs.end()) {
      same->weight += static_cast<double>(rep.launches);
      same->representatives.push_back(i);
      out.notes.push_back("config " + name + ": representatives " + std::to_string(same->representatives.front() + 1) +
                          " and " + std::to_string(i + 1) + " have the same dims; one config, weights added");
      continue;
    }
    observed_config config{name, static_cast<double>(rep.launches), *dims, {i}, geometry_text(rep.grid, rep.block, rep.dynamic_smem)};
    if (auto checked = compare_geometry(spec, config, rep, out.notes); !checked)
      return unexpected(checked.error());
    out.configs.push_back(std::move(config));
  }
  note_unbound_dims(spec, bindings, out.notes);
  return out;
}

std::string configs_toml(const configs_mapping& mapping, const observation& observed) {
  auto one_line = [](std::string text) {
    for (char& c : text)
      if (c == '\n' || c == '\r')
        c = ' ';
    return text;
  };
  std::string command;
  for (const auto& arg : observed.command)
    command += (command.empty() ? "" : " ") + arg;
  std::string out = "# Written by `warpforge observe --problem`: where the program spends the time of kernel\n# " +
                    one_line(mapping.kernel) + ", as [[configs]] for the problem (configs_file = \"<this file>\").\n";
  out += "# command: " + one_line(command) + "\n";
  out += "# signature: " + observed.signature + "  captured: " + observed.captured_at + "  method: " +
         observed.method + "\n";
  out += "# coverage: " + percent(mapping.covered) + " of the kernel's time in " + std::to_string(mapping.configs.size()) +
         " configs\n";
  for (const auto& note : mapping.notes)
    out += "# note: " + one_line(note) + "\n";
  for (const auto& config : mapping.configs) {
    char weight[32];
    std::snprintf(weight, sizeof weight, "%.6g", config.weight);
    out += "\n# " + config.geometry + "\n[[configs]]\nname = \"" + config.name + "\"\nweight = " + weight + "\ndims = { ";
    for (std::size_t i = 0; i < config.dims.size(); ++i)
      out += (i ? ", " : "") + config.dims[i].first + " = " + std::to_string(config.dims[i].second);
    out += " }\n";
  }
  return out;
}

expected<void, std::string> write_configs_file(const fs::path& path, const configs_mapping& mapping,
                                               const observation& observed) {
  return files::write_file_atomically(path, configs_toml(mapping, observed));
}

fs::path default_configs_path(const fs::path& problem_file, std::string_view kernel) {
  std::string stem{kernel};
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      c = '_';
  return problem_file.parent_path() / (stem + ".configs.toml");
}

expected<config::problem_spec, toml_reader::placed_errors> load_problem_to_observe(const fs::path& path) {
  return config::load_problem(path, {.read_configs_file = false});
}

configs_destination configs_destination_for(const config::problem_spec& spec, const fs::path& configs_out,
                                            std::string_view kernel) {
  auto same_file = [](const fs::path& a, const fs::path& b) {
    return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
  };
  if (!configs_out.empty())
    return {configs_out, !spec.configs_file.empty() && same_file(configs_out, spec.configs_file)};
  if (!spec.configs_file.empty())
    return {spec.configs_file, true};
  return {default_configs_path(spec.file, kernel), false};
}

} // namespace warpforge::observe
