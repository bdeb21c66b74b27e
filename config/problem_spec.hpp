#pragma once
// The problem spec: one CUDA kernel, its arguments, launch geometry, reference and tunables, read
// from TOML and validated up front (docs/specs.md is the reference of every field).
//
//   auto spec = load_problem("examples/vector_add/problem.toml");
//   if (!spec) for (auto& e : spec.error()) log(to_string(e));
//
// Validation collects every error of the file: TOML syntax, unknown keys (with "did you mean"),
// types, names, expression syntax, and every expression evaluated at the default tunable point
// (division by zero, non-positive sizes, launch limits, constraints), at [dims] and at each of its
// [[configs]]. A spec that loads can be resolved at its default point at every configuration
// without error (resolved_problem.hpp, problem_configs.hpp).

#include "config/defaults.hpp"
#include "config/dtype.hpp"
#include "config/deploy_target.hpp"
#include "config/toml_reader/placed_error.hpp"
#include "foundation/expected/expected.hpp"
#include "config/expression/expression.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace warpforge::config {

/// An integer expression as written in the spec, with its key and place for error messages.
struct spec_expression {
  expression::integer_expression expr; // a TOML integer becomes a constant expression
  std::string key;  // dotted path, e.g. "launch.grid[0]"
  toml_reader::place place; // of the expression's first character (inside the quotes for strings)

  bool operator==(const spec_expression&) const = default;
};

/// A CUDA source and its entry point.
struct kernel_spec {
  std::filesystem::path source;     // resolved against the spec file's folder; exists at load
  std::string entry;                // the __global__ function as written: an extern "C" name, a
                                    // C++ name ("ns::transposeNaive", "f(float*, int)" when
                                    // overloaded) or a template instantiation
                                    // ("MatrixMulCUDA<32>", "k<BLOCK>" with a tunable);
                                    // config/kernel_entry.hpp
  std::vector<std::filesystem::path> include_dirs; // [kernel] include_dirs: absolute, canonical
                                    // folders inside the problem's project, passed as -I in order
  std::vector<std::string> flags;   // extra compiler flags, e.g. "-use_fast_math"
  std::optional<std::string> arch;  // e.g. "sm_90a"; none = the GPU's own architecture

  bool operator==(const kernel_spec&) const = default;
};

/// A named problem dimension (`[dims] N = 1048576`), usable in every expression.
struct dim_spec {
  std::string name;
  std::int64_t value = 0;
  toml_reader::place place;

  bool operator==(const dim_spec&) const = default;
};

/// A compile-time parameter the tuner may vary; passed to the compiler as -DNAME=value.
struct tunable_spec {
  std::string name;
  std::vector<std::int64_t> values; // every allowed value, in spec order, distinct, non-empty
  std::int64_t default_value = 0;   // the baseline's value: `default`, else values.front()
  std::optional<std::string> method; // the optimisation method it stands for, e.g. "tiling_smem"
  toml_reader::place place;

  bool operator==(const tunable_spec&) const = default;
};

enum class arg_role : std::uint8_t {
  input,  // read by the kernel; initialised, and checked unchanged after the launch
  output, // written by the kernel; poisoned before the launch, compared with the reference
  inout,  // initialised, then compared with the reference after the launch
};
std::string_view to_string(arg_role role);
std::optional<arg_role> arg_role_from_string(std::string_view text);
inline constexpr arg_role all_arg_roles[] = {arg_role::input, arg_role::output, arg_role::inout};

enum class init_kind : std::uint8_t {
  uniform,  // uniform in [low, high); integer dtypes draw integers in [low, high]
  normal,   // normal(mean, stddev)
  constant, // every element = value
  zeros,    // every element 0
  ones,     // every element 1
  iota,     // element i = i (wrapping at the dtype's range for narrow integers)
};
std::string_view to_string(init_kind kind);
std::optional<init_kind> init_kind_from_string(std::string_view text);
inline constexpr init_kind all_init_kinds[] = {init_kind::uniform, init_kind::normal,
                                               init_kind::constant, init_kind::zeros,
                                               init_kind::ones, init_kind::iota};

/// How the runner fills an input or inout buffer (from the campaign's seed).
struct init_spec {
  init_kind kind = init_kind::uniform;
  double low = defaults::uniform_low;       // uniform: lower bound, in element units
  double high = defaults::uniform_high;     // uniform: upper bound, > low
  double mean = defaults::normal_mean;      // normal
  double stddev = defaults::normal_stddev;  // normal, > 0
  double value = 0.0;                       // constant

  bool operator==(const init_spec&) const = default;
};

/// A device buffer argument (passed to the kernel as a pointer).
struct buffer_spec {
  std::string name;
  dtype type = dtype::f32;
  spec_expression count; // elements, > 0
  arg_role role = arg_role::input;
  init_spec init;        // input and inout only
  toml_reader::place place;

  bool operator==(const buffer_spec&) const = default;
};

/// A by-value argument.
struct scalar_spec {
  std::string name;
  dtype type = dtype::i32;
  spec_expression value;             // integer value; unused when float_value is set
  std::optional<double> float_value; // set when the spec gave a TOML float (float dtypes only)
  toml_reader::place place;

  bool operator==(const scalar_spec&) const = default;
};

/// One kernel argument, in the kernel's parameter order.
using arg_spec = std::variant<buffer_spec, scalar_spec>;

/// Launch geometry; missing trailing dimensions are the constant 1.
struct launch_spec {
  std::array<spec_expression, 3> grid;  // blocks in x, y, z
  std::array<spec_expression, 3> block; // threads in x, y, z; product <= 1024
  spec_expression dynamic_smem;         // bytes of dynamic shared memory, >= 0

  bool operator==(const launch_spec&) const = default;
};

enum class reference_kind : std::uint8_t {
  self,   // the baseline kernel at its default point gives the expected outputs
  kernel, // a separate reference kernel, same arguments, optional own launch geometry
  file,   // a file of expected output values (docs/specs.md, "Expected-values file")
};
std::string_view to_string(reference_kind kind);
std::optional<reference_kind> reference_kind_from_string(std::string_view text);
inline constexpr reference_kind all_reference_kinds[] = {reference_kind::self, reference_kind::kernel,
                                                         reference_kind::file};

struct reference_spec {
  reference_kind kind = reference_kind::self;
  kernel_spec kernel;                  // kind kernel: source, entry, flags (arch: the problem's)
  std::optional<launch_spec> launch;   // kind kernel: own geometry; none = the problem's
  std::filesystem::path expected_file; // kind file: resolved against the spec folder; exists
  std::optional<double> rtol;          // relative tolerance, 1.0 = 100%; none = per-dtype default
  std::optional<double> atol;          // absolute tolerance, output units; none = per-dtype default
  // May a candidate compute in a narrower type than the problem's outputs (cvt.rn.f16.f32 in its
  // PTX, HMMA/HFMA2/F2F in its SASS: pipeline/code_check.hpp)? none = the default: false for
  // f32/f64 outputs when no buffer is f16/bf16, true otherwise (narrow outputs, half inputs).
  std::optional<bool> allow_lower_precision;

  bool operator==(const reference_spec&) const = default;
};

/// Outputs pass when |got - want| <= atol + rtol * |want| for every element.
struct tolerance {
  double rtol = 0.0; // relative, 1.0 = 100%
  double atol = 0.0; // absolute, in the output's unit

  bool operator==(const tolerance&) const = default;
};

/// The spec's rtol/atol where given, else the defaults for `output` (defaults.hpp).
tolerance tolerance_for(const reference_spec& reference, dtype output);

/// One weighted configuration as written (`[[configs]]` in the spec or in its configs_file):
/// the dims it sets. problem_configs() (problem_configs.hpp) gives them normalised and complete.
struct config_spec {
  std::string name;            // unique; "config-<i>" (1-based) when the spec gives none
  double weight = 1.0;         // as written, finite and > 0
  std::vector<dim_spec> dims;  // overrides of [dims], in file order; each a declared dim, > 0
  std::string file;            // the file it was written in: the spec, or its configs_file
  toml_reader::place place;    // of its [[configs]] header

  bool operator==(const config_spec&) const = default;
};

struct problem_spec {
  std::string file;     // the spec file as given; names it in errors
  std::string raw_text; // the TOML exactly as read (the store records it)
  std::string name;
  kernel_spec kernel;
  std::vector<dim_spec> dims;             // in file order
  std::vector<tunable_spec> tunables;     // in file order
  std::vector<spec_expression> constraints; // each must be non-zero at every point the tuner runs
  std::vector<arg_spec> args;             // the kernel's parameters, in order
  launch_spec launch;
  reference_spec reference;
  std::vector<config_spec> configs;       // none: one configuration, at [dims]
  std::filesystem::path configs_file;     // where `configs` came from, when not inline; resolved
                                          // against the spec's folder
  std::optional<deploy::deploy_target> deploy; // [deploy]: the project a champion goes back into
  std::optional<spec_expression> flop;    // [work] flop: floating-point operations of one launch
                                          // (an expression of dims and tunables, > 0); none: not
                                          // declared (the physical-limit gate then has no
                                          // compute floor: docs/measurement.md)

  const dim_spec* find_dim(std::string_view dim_name) const;
  const tunable_spec* find_tunable(std::string_view tunable_name) const;

  bool operator==(const problem_spec&) const = default;
};

/// Name of an argument (buffer or scalar).
const std::string& arg_name(const arg_spec& arg);

/// How much of a problem the loader reads.
struct load_options {
  /// Read the file `configs_file` names into `configs`. Off for `warpforge observe --problem`,
  /// which writes that file (and must work before it exists, or when it no longer fits the
  /// problem): `configs_file` is still resolved and set, the key still checked (a string, not
  /// beside inline [[configs]]), `configs` stays empty (one configuration, at [dims]).
  bool read_configs_file = true;
};

/// Reads and validates the problem spec at `path`; relative paths inside resolve against its folder.
expected<problem_spec, toml_reader::placed_errors> load_problem(const std::filesystem::path& path,
                                                                const load_options& options = {});

/// Validates `text` as if read from `file` (used in errors; its folder resolves relative paths).
expected<problem_spec, toml_reader::placed_errors> parse_problem(std::string_view text,
                                                                 const std::filesystem::path& file,
                                                                 const load_options& options = {});

} // namespace warpforge::config
