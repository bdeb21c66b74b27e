#pragma once
// One kernel launch as a real program made it: what the injection library (deploy/observe/inject/)
// records for every launch and writes to the launch log (launch_log.hpp), and what the
// representative-configuration selection (deploy/observe/representative.hpp) groups.
//
// This header and launch_record.cpp use only the standard library: launch_record.cpp is also
// compiled into the injection library, so the kernel filter there is this same rule.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

struct param_bytes {            // one kernel parameter as passed, from cuFuncGetParamInfo
  std::uint32_t offset = 0;     // bytes into the parameter buffer
  std::uint32_t size = 0;       // bytes
  std::string hex;              // the bytes, little-endian order as in memory, lowercase hex
};

/// The parameter's bytes as a signed / unsigned integer (size 1, 2, 4 or 8), or as f32/f64.
/// nullopt for any other size, or when hex is not 2 * size lowercase/uppercase hex digits.
std::optional<std::int64_t> as_signed(const param_bytes&);
std::optional<std::uint64_t> as_unsigned(const param_bytes&);
std::optional<double> as_float(const param_bytes&); // size 4 -> f32, 8 -> f64

/// `size` bytes at `data` as lowercase hex, in memory order (the inverse of what as_* decode).
std::string to_hex(const void* data, std::size_t size);

/// A parameter that points into a device allocation the program made (cudaMalloc, cuMemAlloc*):
/// recorded only for the launches of the kernel named by WARPFORGE_OBSERVE_BUFFERS
/// (`warpforge init`), so a problem spec can size and classify the buffer.
struct buffer_observation {
  std::uint32_t param = 0;             // 0-based index of the parameter holding the pointer
  std::uint64_t allocation = 0;        // the allocation's base address
  std::uint64_t allocation_bytes = 0;  // its size, bytes
  std::string before;                  // hash of the allocation's bytes before the launch
                                       // (16 hex digits, FNV-1a 64); "" = not hashed (budget)
  std::string after;                   // the same once the launch completed; "" = not hashed
};

/// Whether the launch changed the buffer's bytes: nullopt when it was not hashed.
std::optional<bool> changed(const buffer_observation&);

struct launch_record {
  std::uint64_t sequence = 0;          // 0-based launch order in the program (all kernels)
  std::string kernel;                  // symbol as launched (mangled for C++ kernels)
  std::string demangled;               // __cxa_demangle of kernel; == kernel for extern "C"
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t dynamic_smem = 0;      // bytes
  double duration_s = 0.0;             // GPU time (CUPTI activity end - start); 0 = unknown
  std::vector<param_bytes> params;     // empty when the launch path gave none
  std::uint32_t device = 0;
  std::vector<buffer_observation> buffers; // pointer parameters inside a recorded allocation
                                           // (only for WARPFORGE_OBSERVE_BUFFERS's kernel)
};

/// Whether `record` is the kernel a user named: equal to kernel, to demangled, or to demangled's
/// base name ("transpose" matches "void transpose<32>(float*, ...)" and "transpose").
/// The base name is the function's name without return type, template arguments and
/// parameters; both its qualified ("ns::transpose") and unqualified ("transpose") forms match.
/// The template-id form, the demangled name without return type and parameters
/// ("reduce7<int, 256u, true>"), matches too: it names one instantiation.
/// An empty name matches every record.
bool matches_kernel(const launch_record& record, std::string_view name);

/// The qualified base name of a demangled signature: "void ns::f<32>(float*, int)" -> "ns::f".
/// A name with no parameter list (an extern "C" symbol) is returned unchanged.
std::string kernel_base_name(std::string_view demangled);

/// The demangled name without return type and parameters, template arguments kept:
/// "void ns::f<32>(float*, int)" -> "ns::f<32>". Unchanged without a parameter list.
std::string kernel_template_id(std::string_view demangled);

} // namespace warpforge::observe
