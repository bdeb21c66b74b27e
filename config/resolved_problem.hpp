#pragma once
// A problem spec at one tunable point: concrete launch geometry, buffer sizes, scalar values and
// compiler defines. This is the spec-to-buffer layout the compiler, the runner and the tuner use.
//
//   auto point = default_point(spec);           // every tunable at its default
//   point["BLOCK"] = 512;
//   auto r = resolve_problem(spec, point);      // r->launch.grid, r->args, r->defines
//   for (const auto& c : problem_configs(spec))  // the same at each configuration's dims
//     auto at_c = resolve_problem(spec, point, c);

#include "config/problem_configs.hpp"
#include "config/problem_spec.hpp"
#include "config/toml_reader/placed_error.hpp"
#include "foundation/expected/expected.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace warpforge::config {

/// A value for every tunable, by name.
using tunable_point = expression::integer_values;

struct launch_geometry {
  std::array<std::uint32_t, 3> grid{1, 1, 1};  // blocks in x, y, z
  std::array<std::uint32_t, 3> block{1, 1, 1}; // threads in x, y, z
  std::uint32_t dynamic_smem_bytes = 0;        // bytes of dynamic shared memory per block

  bool operator==(const launch_geometry&) const = default;
};

struct resolved_buffer {
  std::string name;
  dtype type = dtype::f32;
  arg_role role = arg_role::input;
  init_spec init;
  std::uint64_t count = 0; // elements, > 0
  std::uint64_t bytes = 0; // count * size_of(type)

  bool operator==(const resolved_buffer&) const = default;
};

struct resolved_scalar {
  std::string name;
  dtype type = dtype::i32;
  std::variant<std::int64_t, double> value; // double only for float dtypes; fits the dtype

  bool operator==(const resolved_scalar&) const = default;
};

using resolved_arg = std::variant<resolved_buffer, resolved_scalar>;

struct resolved_problem {
  tunable_point point;                // the tunables' values
  std::string entry;                  // the kernel's entry at this point: a template argument
                                      // naming a tunable replaced by its value
                                      // ("MatrixMulCUDA<BLOCK>" at BLOCK=32: "MatrixMulCUDA<32>")
  expression::integer_values variables; // dims and tunables: what the expressions saw
  launch_geometry launch;             // of the kernel under test
  std::optional<launch_geometry> reference_launch; // reference kind kernel: at the default point
  std::vector<resolved_arg> args;     // in the kernel's parameter order
  std::vector<std::string> defines;   // "-DNAME=value" per tunable, in spec order (dims are not
                                      // defined: a kernel parameter named like a dim would break)
  std::uint64_t output_bytes = 0;     // bytes of all output and inout buffers, in arg order:
                                      // the size of an expected-values file
  std::optional<std::int64_t> flop;   // [work] flop at this point and configuration, > 0; none:
                                      // not declared

  bool operator==(const resolved_problem&) const = default;
};

/// Every tunable at its default value.
tunable_point default_point(const problem_spec& spec);

/// Whether `point` satisfies every constraint; an error when a constraint cannot be evaluated
/// (division by zero, unknown name) or the point is not a point of this spec.
expected<bool, toml_reader::placed_error> check_constraints(const problem_spec& spec,
                                                            const tunable_point& point);

/// check_constraints, with errors counted as "not satisfied" (what a search strategy wants).
bool satisfies_constraints(const problem_spec& spec, const tunable_point& point);

/// The spec at `point` at its [dims]: the first error if the point is not one of the spec's (unknown or
/// missing tunable, value not listed), violates a constraint, or gives an invalid geometry or size.
expected<resolved_problem, toml_reader::placed_error> resolve_problem(const problem_spec& spec,
                                                                      const tunable_point& point);

/// resolve_problem at configuration `at` (one of problem_configs(spec)): the dims are its values;
/// when the spec has [[configs]], an error's message names the config.
expected<resolved_problem, toml_reader::placed_error>
resolve_problem(const problem_spec& spec, const tunable_point& point, const problem_config& at);

/// resolve_problem collecting every error; expressions that mention a name in `skip_names` are
/// not evaluated (the loader passes names whose declaration was already reported broken).
expected<resolved_problem, toml_reader::placed_errors>
resolve_problem_all(const problem_spec& spec, const tunable_point& point,
                    const std::set<std::string, std::less<>>& skip_names = {});

/// resolve_problem_all at configuration `at`.
expected<resolved_problem, toml_reader::placed_errors>
resolve_problem_all(const problem_spec& spec, const tunable_point& point, const problem_config& at,
                    const std::set<std::string, std::less<>>& skip_names = {});

} // namespace warpforge::config
