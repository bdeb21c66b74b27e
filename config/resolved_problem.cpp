#include "config/resolved_problem.hpp"

#include "config/defaults.hpp"
#include "config/kernel_entry.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

namespace warpforge::config {

tunable_point default_point(const problem_spec& spec) {
  tunable_point point;
  for (const auto& tunable : spec.tunables)
    point[tunable.name] = tunable.default_value;
  return point;
}

namespace {

// " at BLOCK=256, TILE=32" for messages; empty when the spec has no tunables.
std::string at_point(const tunable_point& point) {
  std::string out;
  for (const auto& [name, value] : point)
    out += (out.empty() ? " at " : ", ") + name + "=" + std::to_string(value);
  return out;
}

std::string expression_hint(const expression::error& error, const problem_spec& spec) {
  using expression::error_kind;
  switch (error.kind) {
  case error_kind::unknown_name: {
    std::vector<std::string_view> known;
    for (const auto& dim : spec.dims)
      known.push_back(dim.name);
    for (const auto& tunable : spec.tunables)
      known.push_back(tunable.name);
    const std::string_view name = error.names.empty() ? "" : error.names.front();
    if (auto match = toml_reader::did_you_mean(name, known); !match.empty())
      return match;
    if (known.empty())
      return "declare it under [dims] or as a [[tunables]] entry";
    return "expressions may use the dims and tunables: " + toml_reader::join_alternatives(known);
  }
  case error_kind::division_by_zero:
    return "guard the divisor (max(x, 1)) or exclude such points with a constraint";
  case error_kind::overflow: return "values must stay within int64";
  case error_kind::syntax:
  case error_kind::unknown_function:
  case error_kind::wrong_arity:
  case error_kind::type_mismatch:
  case error_kind::too_deep:
  case error_kind::domain:
  case error_kind::not_finite: return "see docs/specs.md, section Expressions";
  }
  return {};
}

// Evaluates one spec's expressions at one point and checks the results, collecting errors.
class resolver {
public:
  // `at`: the configuration whose dims the expressions see; none: [dims].
  resolver(const problem_spec& spec, const std::set<std::string, std::less<>>& skip_names,
           toml_reader::placed_errors& errors, const problem_config* at = nullptr)
      : spec_(spec), skip_names_(skip_names), errors_(errors), at_(at) {
    // A spec with [[configs]] is resolved at several: each error says at which.
    if (at_ != nullptr && !spec_.configs.empty())
      config_suffix_ = " (at config '" + at_->name + "', " + at_->origin + ")";
  }

  void error(const std::string& key, toml_reader::place place, std::string message,
             std::string hint) {
    errors_.push_back({spec_.file, place.line, place.column, key, std::move(message) + config_suffix_,
                       std::move(hint)});
  }

  // Checks that `point` is a point of the spec; returns the variables (dims + tunables).
  expression::integer_values variables_for(const tunable_point& point) {
    expression::integer_values variables;
    for (const auto& dim : spec_.dims)
      variables[dim.name] = dim.value;
    if (at_ != nullptr)
      for (const auto& [name, value] : at_->dims)
        variables[name] = value;
    for (std::size_t i = 0; i < spec_.tunables.size(); ++i) {
      const auto& tunable = spec_.tunables[i];
      const std::string key = "tunables[" + std::to_string(i) + "]";
      const auto it = point.find(tunable.name);
      if (it == point.end()) {
        error(key, tunable.place, "the point has no value for tunable '" + tunable.name + "'",
              "a point sets every tunable; start from default_point()");
        continue;
      }
      if (std::find(tunable.values.begin(), tunable.values.end(), it->second) ==
          tunable.values.end())
        error(key, tunable.place,
              "value " + std::to_string(it->second) + " is not one of the values of '" +
                tunable.name + "'",
              "a point takes each tunable's value from its `values` or `range`");
      variables[tunable.name] = it->second;
    }
    for (const auto& [name, value] : point)
      if (spec_.find_tunable(name) == nullptr)
        error("tunables", {}, "the point sets '" + name + "', which is not a tunable",
              "tunables are declared with [[tunables]]");
    return variables;
  }

  std::optional<std::int64_t> evaluate(const spec_expression& e,
                                       const expression::integer_values& variables,
                                       const tunable_point& point) {
    if (e.expr.empty())
      return std::nullopt; // reported when it failed to parse
    for (const auto& name : e.expr.names())
      if (skip_names_.contains(name))
        return std::nullopt;
    auto value = e.expr.evaluate(variables);
    if (value)
      return *value;
    const auto& failure = value.error();
    toml_reader::place at = e.place;
    if (at.column > 0 && failure.column > 0)
      at.column += failure.column - 1;
    std::string message = failure.message; // arithmetic failures quote the expression already
    if (failure.kind != expression::error_kind::unknown_name)
      message += at_point(point);
    error(e.key, at, std::move(message), expression_hint(failure, spec_));
    return std::nullopt;
  }

  launch_geometry launch(const launch_spec& launch, const std::string& prefix,
                         const expression::integer_values& variables, const tunable_point& point) {
    launch_geometry out;
    const std::array<std::uint64_t, 3> grid_limits{defaults::max_grid_x, defaults::max_grid_y,
                                                   defaults::max_grid_z};
    const std::array<std::uint64_t, 3> block_limits{defaults::max_block_x, defaults::max_block_y,
                                                    defaults::max_block_z};
    constexpr std::array<char, 3> axis{'x', 'y', 'z'};
    bool block_known = true;
    for (std::size_t i = 0; i < 3; ++i) {
      if (auto g = evaluate(launch.grid[i], variables, point)) {
        if (*g < 1 || static_cast<std::uint64_t>(*g) > grid_limits[i])
          error(launch.grid[i].key, launch.grid[i].place,
                std::string{"grid "} + axis[i] + " must be in [1, " +
                  std::to_string(grid_limits[i]) + "], got " + std::to_string(*g) +
                  at_point(point),
                "grid counts blocks; CUDA limits x to 2^31-1 and y, z to 65535");
        else
          out.grid[i] = static_cast<std::uint32_t>(*g);
      }
      if (auto b = evaluate(launch.block[i], variables, point)) {
        if (*b < 1 || static_cast<std::uint64_t>(*b) > block_limits[i]) {
          error(launch.block[i].key, launch.block[i].place,
                std::string{"block "} + axis[i] + " must be in [1, " +
                  std::to_string(block_limits[i]) + "], got " + std::to_string(*b) +
                  at_point(point),
                "block counts threads; CUDA limits x and y to 1024 and z to 64");
          block_known = false;
        } else {
          out.block[i] = static_cast<std::uint32_t>(*b);
        }
      } else {
        block_known = false;
      }
    }
    const std::uint64_t threads = std::uint64_t{out.block[0]} * out.block[1] * out.block[2];
    if (block_known && threads > defaults::max_threads_per_block)
      error(prefix + ".block", launch.block[0].place,
            "a block of " + std::to_string(out.block[0]) + " x " + std::to_string(out.block[1]) +
              " x " + std::to_string(out.block[2]) + " = " + std::to_string(threads) +
              " threads exceeds " + std::to_string(defaults::max_threads_per_block) +
              at_point(point),
            "lower the block size, or add a constraint excluding such points");
    if (auto smem = evaluate(launch.dynamic_smem, variables, point)) {
      if (*smem < 0 || *smem > std::numeric_limits<std::uint32_t>::max())
        error(launch.dynamic_smem.key, launch.dynamic_smem.place,
              "dynamic shared memory must be in [0, 2^32) bytes, got " + std::to_string(*smem) +
                at_point(point),
              "dynamic_smem is in bytes");
      else
        out.dynamic_smem_bytes = static_cast<std::uint32_t>(*smem);
    }
    return out;
  }

  resolved_buffer buffer(const buffer_spec& spec, const expression::integer_values& variables,
                         const tunable_point& point, std::uint64_t& output_bytes) {
    resolved_buffer out{spec.name, spec.type, spec.role, spec.init, 0, 0};
    auto count = evaluate(spec.count, variables, point);
    if (!count)
      return out;
    if (*count < 1) {
      error(spec.count.key, spec.count.place,
            "buffer '" + spec.name + "' must have a positive element count, got " +
              std::to_string(*count) + at_point(point),
            "count is in elements, not bytes");
      return out;
    }
    out.count = static_cast<std::uint64_t>(*count);
    if (__builtin_mul_overflow(out.count, std::uint64_t{size_of(spec.type)}, &out.bytes)) {
      error(spec.count.key, spec.count.place, "buffer '" + spec.name + "' size overflows 64 bits",
            "count is in elements, not bytes");
      return out;
    }
    if (spec.role != arg_role::input)
      output_bytes += out.bytes;
    return out;
  }

  resolved_scalar scalar(const scalar_spec& spec, const expression::integer_values& variables,
                         const tunable_point& point) {
    resolved_scalar out{spec.name, spec.type, std::int64_t{0}};
    if (spec.float_value) {
      out.value = *spec.float_value;
      return out;
    }
    auto value = evaluate(spec.value, variables, point);
    if (!value)
      return out;
    if (is_floating_point(spec.type)) {
      out.value = static_cast<double>(*value);
      return out;
    }
    if (!fits_integer(spec.type, *value))
      error(spec.value.key, spec.value.place,
            "value " + std::to_string(*value) + " does not fit in " +
              std::string{to_string(spec.type)} + at_point(point),
            "pick a wider dtype, matching the kernel's parameter type");
    out.value = *value;
    return out;
  }

  // [work] flop: the work of one launch, for the physical-limit gate's compute floor.
  std::optional<std::int64_t> flop(const spec_expression& e, const expression::integer_values& variables,
                                   const tunable_point& point) {
    auto value = evaluate(e, variables, point);
    if (value && *value < 1) {
      error(e.key, e.place, "flop must be positive, got " + std::to_string(*value) + at_point(point),
            "the floating-point operations one launch does, e.g. \"2 * M * N * K\" for a GEMM");
      return std::nullopt;
    }
    return value;
  }

  void constraints(const expression::integer_values& variables, const tunable_point& point) {
    for (const auto& constraint : spec_.constraints) {
      auto value = evaluate(constraint, variables, point);
      if (value && *value == 0)
        error(constraint.key, constraint.place,
              "constraint \"" + constraint.expr.text() + "\" is false" + at_point(point),
              "the default point (and every point tried) must satisfy every constraint");
    }
  }

private:
  const problem_spec& spec_;
  const std::set<std::string, std::less<>>& skip_names_;
  toml_reader::placed_errors& errors_;
  const problem_config* at_ = nullptr;
  std::string config_suffix_;
};

// Every expression of `spec` at `point`, with the dims of `at` (none: [dims]).
expected<resolved_problem, toml_reader::placed_errors>
resolve_at(const problem_spec& spec, const tunable_point& point, const problem_config* at,
           const std::set<std::string, std::less<>>& skip_names);

} // namespace

expected<resolved_problem, toml_reader::placed_errors>
resolve_problem_all(const problem_spec& spec, const tunable_point& point,
                    const std::set<std::string, std::less<>>& skip_names) {
  return resolve_at(spec, point, nullptr, skip_names);
}

expected<resolved_problem, toml_reader::placed_errors>
resolve_problem_all(const problem_spec& spec, const tunable_point& point, const problem_config& at,
                    const std::set<std::string, std::less<>>& skip_names) {
  return resolve_at(spec, point, &at, skip_names);
}

expected<resolved_problem, toml_reader::placed_error>
resolve_problem(const problem_spec& spec, const tunable_point& point, const problem_config& at) {
  auto all = resolve_problem_all(spec, point, at);
  if (!all)
    return unexpected(std::move(all.error().front()));
  return std::move(*all);
}

namespace {

expected<resolved_problem, toml_reader::placed_errors>
resolve_at(const problem_spec& spec, const tunable_point& point, const problem_config* at,
           const std::set<std::string, std::less<>>& skip_names) {
  toml_reader::placed_errors errors;
  resolver r{spec, skip_names, errors, at};
  resolved_problem out;
  out.point = point;
  out.entry = entry_at_point(spec.kernel.entry, point);
  out.variables = r.variables_for(point);
  if (!errors.empty())
    return unexpected(std::move(errors)); // not a point of this spec: nothing else is meaningful
  r.constraints(out.variables, point);
  out.launch = r.launch(spec.launch, "launch", out.variables, point);
  if (spec.reference.kind == reference_kind::kernel && spec.reference.launch) {
    const tunable_point defaults_point = default_point(spec);
    const expression::integer_values default_variables =
      defaults_point == point ? out.variables : r.variables_for(defaults_point);
    out.reference_launch =
      r.launch(*spec.reference.launch, "reference.launch", default_variables, defaults_point);
  } else if (spec.reference.kind == reference_kind::kernel) {
    // The reference runs with the problem's geometry at the default point.
    const tunable_point defaults_point = default_point(spec);
    if (defaults_point == point) {
      out.reference_launch = out.launch;
    } else {
      const expression::integer_values default_variables = r.variables_for(defaults_point);
      out.reference_launch = r.launch(spec.launch, "launch", default_variables, defaults_point);
    }
  }
  for (const auto& arg : spec.args) {
    if (const auto* buffer = std::get_if<buffer_spec>(&arg))
      out.args.emplace_back(r.buffer(*buffer, out.variables, point, out.output_bytes));
    else
      out.args.emplace_back(r.scalar(std::get<scalar_spec>(arg), out.variables, point));
  }
  for (const auto& tunable : spec.tunables)
    out.defines.push_back("-D" + tunable.name + "=" + std::to_string(point.at(tunable.name)));
  if (spec.flop)
    out.flop = r.flop(*spec.flop, out.variables, point);
  if (!errors.empty())
    return unexpected(std::move(errors));
  return out;
}

} // namespace

expected<resolved_problem, toml_reader::placed_error> resolve_problem(const problem_spec& spec,
                                                                      const tunable_point& point) {
  auto all = resolve_problem_all(spec, point);
  if (!all)
    return unexpected(std::move(all.error().front()));
  return std::move(*all);
}

expected<bool, toml_reader::placed_error> check_constraints(const problem_spec& spec,
                                                            const tunable_point& point) {
  toml_reader::placed_errors errors;
  const std::set<std::string, std::less<>> no_skip;
  resolver r{spec, no_skip, errors};
  const expression::integer_values variables = r.variables_for(point);
  if (!errors.empty())
    return unexpected(std::move(errors.front()));
  for (const auto& constraint : spec.constraints) {
    auto value = r.evaluate(constraint, variables, point);
    if (!value)
      return unexpected(std::move(errors.front()));
    if (*value == 0)
      return false;
  }
  return true;
}

bool satisfies_constraints(const problem_spec& spec, const tunable_point& point) {
  auto satisfied = check_constraints(spec, point);
  return satisfied && *satisfied;
}

} // namespace warpforge::config
