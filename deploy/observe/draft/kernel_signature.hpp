#pragma once
// A kernel's demangled signature as the injection library recorded it ("void reduce7<int, 256u,
// true>(int const*, int*, unsigned int)"), read into what a problem spec needs: the entry (the
// template-id), the template arguments, and each parameter's kind and dtype. `warpforge init`
// (draft_problem.hpp) drafts the spec's [kernel] entry and [[args]] from it.

#include "config/dtype.hpp"
#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

enum class param_kind : std::uint8_t { pointer, scalar };

struct kernel_param {
  std::string type;           // as demangled: "float*", "int const*", "unsigned int"
  param_kind kind = param_kind::scalar;
  config::dtype dtype{};      // the scalar's type, or the pointed-to element's
  bool const_pointee = false; // "T const*": the kernel cannot write through it
};

struct kernel_signature {
  std::string template_id;                 // "MatrixMulCUDA<32>", "transposeNaive", "ns::k<int, 4u>"
  std::string base_name;                   // "MatrixMulCUDA", "ns::k" (qualified)
  std::vector<std::string> template_args;  // as demangled: "int", "256u", "true"
  std::vector<kernel_param> params;        // in order
};

/// Reads a demangled signature (an extern "C" name without parameters is refused: its types are
/// unknown). An error names the parameter a problem spec cannot describe (a struct, a reference,
/// a pointer to a pointer...) and why.
expected<kernel_signature, std::string> parse_kernel_signature(std::string_view demangled);

/// The dtype of a C++ element type as the demangler writes it ("float", "unsigned int",
/// "__half", "long long"); nullopt for any other.
std::optional<config::dtype> dtype_of_cpp_type(std::string_view type);

/// Splits a comma-separated list at its top level (brackets of all kinds nest), each part trimmed.
std::vector<std::string> split_top_level(std::string_view list);

} // namespace warpforge::observe
