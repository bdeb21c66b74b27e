#include "sass/structure.hpp"

#include "sass/signature_table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

namespace warpforge::sass {
namespace {

// Opcodes whose first operand is not a destination: stores, reductions without a result,
// barriers and control flow. (ATOM/ATOMG return the old value: their first operand is one.)
const std::set<std::string, std::less<>> no_destination{
    "STG", "STS",  "STL",  "ST",    "STSM", "RED",  "REDG", "UTMASTG", "BAR", "BRA",
    "EXIT", "RET", "CALL", "BSSY",  "BSYNC", "WARPSYNC", "NOP", "MEMBAR", "DEPBAR", "ERRBAR",
    "CCTL", "YIELD", "BPT", "UTMALDG", "LDGSTS", "UBLKCP", "SYNCS", "ARRIVES", "WARPGROUP"};

// Stores a value is written out by (the value is their last operand).
const std::set<std::string, std::less<>> stores{"STG", "ST",  "STS",  "STSM",
                                                "RED", "REDG", "ATOM", "ATOMG"};

// Global loads: what an STS stages into shared memory in a tiled kernel.
const std::set<std::string, std::less<>> global_loads{"LDG", "LD"};
// Asynchronous copies into shared memory (cp.async, TMA, bulk copy).
const std::set<std::string, std::less<>> async_to_shared{"LDGSTS", "UTMALDG", "UBLKCP"};

const std::set<std::string, std::less<>> fma_opcodes{"FFMA", "DFMA", "HFMA2"};
const std::set<std::string, std::less<>> mma_opcodes{
    "HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA",
    "UTCHMMA", "UTCIMMA", "UTCQMMA", "UTCOMMA", "OMMA", "QMMA"};

// How far a value is traced back through its producers (instructions), at most.
constexpr int trace_depth = 24;

/// "R12" / "R12.reuse" / "-R12" / "|R12|" / "R2.64" -> 12 / 2; nullopt for RZ, URs, constants.
std::optional<int> register_number(std::string_view operand) {
  while (!operand.empty() && (operand.front() == '-' || operand.front() == '|' ||
                              operand.front() == '!' || operand.front() == '~'))
    operand.remove_prefix(1);
  if (operand.size() < 2 || operand.front() != 'R' || operand[1] < '0' || operand[1] > '9')
    return std::nullopt;
  int number = 0;
  const auto [end, status] = std::from_chars(operand.data() + 1, operand.data() + operand.size(),
                                             number);
  if (status != std::errc{})
    return std::nullopt;
  return number;
}

/// Every general register named inside an operand ("[R2.64+0x10]" -> 2; "desc[UR4][R6.64]" -> 6).
std::vector<int> registers_in(std::string_view operand) {
  std::vector<int> found;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    const bool starts = operand[i] == 'R' && (i == 0 || !std::isalnum(static_cast<unsigned char>(
                                                            operand[i - 1])));
    if (!starts)
      continue;
    if (auto reg = register_number(operand.substr(i)))
      found.push_back(*reg);
  }
  return found;
}

bool has_destination(const sass_instruction& instruction) {
  return !no_destination.contains(instruction.opcode) && !instruction.operands.empty() &&
         register_number(instruction.operands.front()).has_value();
}

bool has_modifier(const sass_instruction& instruction, std::string_view modifier) {
  return std::find(instruction.modifiers.begin(), instruction.modifiers.end(), modifier) !=
         instruction.modifiers.end();
}

bool matches_any(const std::vector<signature_pattern>& patterns, const std::string& mnemonic) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const signature_pattern& p) { return p.matches(mnemonic); });
}

bool inside(const sass_loop& loop, std::size_t index) {
  return index >= loop.first && index <= loop.last;
}

bool inside_any(const std::vector<sass_loop>& loops, std::size_t index) {
  return std::any_of(loops.begin(), loops.end(),
                     [&](const sass_loop& loop) { return inside(loop, index); });
}

/// Loops whose body holds a multiply-add: a GEMM- or convolution-like main loop.
std::vector<sass_loop> main_loops(const sass_kernel& kernel) {
  std::vector<sass_loop> result;
  for (const auto& loop : find_loops(kernel))
    for (std::size_t i = loop.first; i <= loop.last; ++i)
      if (is_multiply_add(kernel.instructions[i])) {
        result.push_back(loop);
        break;
      }
  return result;
}

/// Where a traced value comes from.
struct trace_result {
  bool reached = false; // some path reaches a multiply-add accumulator
  bool through = false; // some such path passes arithmetic matching the patterns
};

/// Traces the value of `reg` just before `index` back through its producers to a multiply-add
/// accumulator (a MAC, in a loop or in its unrolled tail), noting the arithmetic on the way.
/// Memoised on (index, register): values fan in, and paths repeat.
class accumulator_trace {
public:
  accumulator_trace(const sass_kernel& kernel, const std::vector<std::string>& mnemonics,
                    const std::vector<signature_pattern>& patterns)
      : kernel_(kernel), mnemonics_(mnemonics), patterns_(patterns) {}

  trace_result from(std::size_t index, int reg, int depth = 0) {
    const auto producer = producer_of(kernel_, index, reg);
    if (!producer || depth > trace_depth)
      return {};
    if (auto known = memo_.find({*producer, reg}); known != memo_.end())
      return known->second;
    trace_result out;
    const auto& instruction = kernel_.instructions[*producer];
    if (is_multiply_add(instruction)) {
      out.reached = true;
    } else {
      const bool arithmetic = matches_any(patterns_, mnemonics_[*producer]);
      for (int source : read_registers(instruction)) {
        const auto r = from(*producer, source, depth + 1);
        out.reached = out.reached || r.reached;
        out.through = out.through || (r.reached && (r.through || arithmetic));
      }
      if (out.through && arithmetic)
        arithmetic_.insert(*producer);
    }
    memo_.emplace(std::pair{*producer, reg}, out);
    return out;
  }
  /// The matching arithmetic seen on paths to the accumulator, in address order.
  std::vector<std::size_t> arithmetic() const { return {arithmetic_.begin(), arithmetic_.end()}; }

private:
  const sass_kernel& kernel_;
  const std::vector<std::string>& mnemonics_;
  const std::vector<signature_pattern>& patterns_;
  std::map<std::pair<std::size_t, int>, trace_result> memo_;
  std::set<std::size_t> arithmetic_;
};

/// The value register a store writes (its last operand), if it is a general register.
std::optional<int> stored_register(const sass_instruction& instruction) {
  if (!stores.contains(instruction.opcode) || instruction.operands.empty())
    return std::nullopt;
  return register_number(instruction.operands.back());
}

} // namespace

std::optional<std::uint64_t> branch_target(const sass_kernel& kernel,
                                           const sass_instruction& instruction) {
  if (instruction.opcode != "BRA" || instruction.operands.empty())
    return std::nullopt;
  std::string_view target = instruction.operands.back();
  if (const auto open = target.find("`("); open != std::string_view::npos) {
    target = target.substr(open + 2);
    target = target.substr(0, target.find(')'));
    const auto found = kernel.labels.find(target);
    return found == kernel.labels.end() ? std::nullopt : std::optional{found->second};
  }
  if (!target.starts_with("0x"))
    return std::nullopt;
  std::uint64_t address = 0;
  const auto [end, status] =
      std::from_chars(target.data() + 2, target.data() + target.size(), address, 16);
  return status == std::errc{} ? std::optional{address} : std::nullopt;
}

std::vector<sass_loop> find_loops(const sass_kernel& kernel) {
  std::vector<sass_loop> loops;
  const auto& code = kernel.instructions;
  for (std::size_t i = 0; i < code.size(); ++i) {
    const auto target = code[i].never_executes() ? std::nullopt : branch_target(kernel, code[i]);
    if (!target || *target >= code[i].address) // forward, or ptxas's closing `BRA self` trap
      continue;
    const auto first = std::find_if(code.begin(), code.end(), [&](const sass_instruction& at) {
      return at.address >= *target;
    });
    loops.push_back({static_cast<std::size_t>(first - code.begin()), i});
  }
  return loops;
}

std::vector<int> written_registers(const sass_instruction& instruction) {
  if (instruction.never_executes() || !has_destination(instruction))
    return {};
  const int first = *register_number(instruction.operands.front());
  int width = 1;
  if (instruction.opcode.starts_with("LD") || instruction.opcode == "LDS" ||
      instruction.opcode.starts_with("MOV") || instruction.opcode.starts_with("SHFL"))
    width = has_modifier(instruction, "128") ? 4 : has_modifier(instruction, "64") ? 2 : 1;
  if (has_modifier(instruction, "WIDE")) // IMAD.WIDE: a 64-bit result in a register pair
    width = 2;
  if (mma_opcodes.contains(instruction.opcode))
    width = 4; // a fragment of accumulators; enough to link the MMA to its readers
  std::vector<int> result;
  for (int r = 0; r < width; ++r)
    result.push_back(first + r);
  return result;
}

std::vector<int> read_registers(const sass_instruction& instruction) {
  std::vector<int> result;
  const std::size_t skip = has_destination(instruction) ? 1 : 0;
  for (std::size_t i = skip; i < instruction.operands.size(); ++i)
    for (int reg : registers_in(instruction.operands[i]))
      result.push_back(reg);
  return result;
}

bool is_multiply_add(const sass_instruction& instruction) {
  if (instruction.never_executes())
    return false;
  if (mma_opcodes.contains(instruction.opcode))
    return true;
  if (!fma_opcodes.contains(instruction.opcode) || instruction.operands.size() < 4)
    return false;
  return register_number(instruction.operands[1]) && register_number(instruction.operands[2]);
}

std::optional<std::size_t> producer_of(const sass_kernel& kernel, std::size_t index, int reg) {
  for (std::size_t j = index; j-- > 0;) {
    const auto written = written_registers(kernel.instructions[j]);
    if (std::find(written.begin(), written.end(), reg) != written.end())
      return j;
  }
  return std::nullopt;
}

structure_finding find_same_loop(const sass_kernel& kernel,
                                 const std::vector<signature_pattern>& patterns,
                                 const std::vector<std::string>& mnemonics) {
  structure_finding result;
  const auto loops = find_loops(kernel);
  for (const auto& loop : loops) {
    std::vector<std::size_t> evidence;
    for (const auto& pattern : patterns)
      for (std::size_t i = loop.first; i <= loop.last; ++i)
        if (!kernel.instructions[i].never_executes() && pattern.matches(mnemonics[i])) {
          evidence.push_back(i);
          break;
        }
    if (evidence.size() == patterns.size()) {
      result.present = true;
      result.evidence = std::move(evidence);
      result.detail = "all in the loop ending at " + kernel.instructions[loop.last].text;
      return result;
    }
  }
  result.detail = loops.empty() ? "the kernel has no loop"
                                : "no loop body holds all of them (" +
                                      std::to_string(loops.size()) + " loops)";
  return result;
}

std::uint32_t loaded_words(const sass_instruction& instruction) {
  if (instruction.never_executes())
    return 0;
  const auto& op = instruction.opcode;
  if (op != "LDG" && op != "LD" && op != "LDS" && op != "LDSM")
    return 0;
  if (op == "LDSM") // a matrix fragment: one word per 8x8 matrix per thread
    return has_modifier(instruction, "X4") ? 4 : has_modifier(instruction, "X2") ? 2 : 1;
  return has_modifier(instruction, "128") ? 4 : has_modifier(instruction, "64") ? 2 : 1;
}

structure_finding find_register_tile(const sass_kernel& kernel,
                                     const std::vector<signature_pattern>& patterns,
                                     const std::vector<std::string>& mnemonics,
                                     std::uint32_t min_chains, double min_reuse) {
  structure_finding result;
  std::size_t most = 0;
  std::string reuse_short; // the best loop that had the chains but not the reuse
  for (const auto& loop : find_loops(kernel)) {
    // A chain starts at a multiply-add whose addend is carried around the loop: nothing earlier
    // in the body writes it, and a multiply-add later in the body does (the chain's end). Addends
    // computed in the body (an exponential's range reduction) start no chain.
    std::vector<std::size_t> starts;
    for (std::size_t i = loop.first; i <= loop.last; ++i) {
      const auto& instruction = kernel.instructions[i];
      if (!is_multiply_add(instruction) || !matches_any(patterns, mnemonics[i]))
        continue;
      const auto addend = register_number(instruction.operands.back());
      if (!addend)
        continue;
      const auto producer = producer_of(kernel, i, *addend);
      if (producer && *producer >= loop.first)
        continue;
      for (std::size_t j = i + 1; j <= loop.last; ++j) {
        const auto written = written_registers(kernel.instructions[j]);
        if (is_multiply_add(kernel.instructions[j]) &&
            std::find(written.begin(), written.end(), *addend) != written.end()) {
          starts.push_back(i);
          break;
        }
      }
    }
    most = std::max(most, starts.size());
    if (starts.size() < min_chains)
      continue;
    // Chains alone are ILP: a naive kernel unrolled with split accumulators has them too, each
    // fed by its own two loads. A tile reuses every loaded value from registers.
    std::size_t macs = 0;
    std::size_t words = 0;
    for (std::size_t i = loop.first; i <= loop.last; ++i) {
      if (is_multiply_add(kernel.instructions[i]) && matches_any(patterns, mnemonics[i]))
        ++macs;
      words += loaded_words(kernel.instructions[i]);
    }
    char ratio[96];
    std::snprintf(ratio, sizeof ratio, "%zu multiply-adds per %zu loaded 32-bit words (%.2f)", macs, words,
                  words == 0 ? 0.0 : static_cast<double>(macs) / static_cast<double>(words));
    if (words > 0 && static_cast<double>(macs) < min_reuse * static_cast<double>(words)) {
      reuse_short = std::to_string(starts.size()) + " independent chains in the loop ending at " +
                    kernel.instructions[loop.last].text + ", but " + ratio;
      continue;
    }
    result.present = true;
    result.evidence = std::move(starts);
    result.detail = std::to_string(result.evidence.size()) +
                    " independent multiply-add chains in the loop ending at " +
                    kernel.instructions[loop.last].text + ", " + (words == 0 ? "loading nothing" : ratio);
    return result;
  }
  if (!reuse_short.empty()) {
    char bound[64];
    std::snprintf(bound, sizeof bound, "%.2f", min_reuse);
    result.detail = reuse_short + ": a register tile reuses each loaded word, at least " + bound +
                    " multiply-adds per word";
    return result;
  }
  result.detail = "at most " + std::to_string(most) + " independent multiply-add chain(s) in a " +
                  "loop body; a register tile needs " + std::to_string(min_chains);
  return result;
}

structure_finding find_epilogue(const sass_kernel& kernel,
                                const std::vector<signature_pattern>& patterns,
                                const std::vector<std::string>& mnemonics) {
  structure_finding result;
  const auto loops = main_loops(kernel);
  if (loops.empty()) {
    result.detail = "no main loop of multiply-adds: nothing to fuse an epilogue onto";
    return result;
  }
  const auto all_loops = find_loops(kernel);
  for (std::size_t i = loops.front().last + 1; i < kernel.instructions.size(); ++i) {
    const auto value = stored_register(kernel.instructions[i]);
    if (!value || kernel.instructions[i].never_executes() || inside_any(all_loops, i))
      continue;
    accumulator_trace trace{kernel, mnemonics, patterns};
    if (trace.from(i, *value).through) {
      const auto path = trace.arithmetic();
      result.present = true;
      result.evidence = {i};
      result.evidence.insert(result.evidence.end(), path.begin(), path.end());
      result.detail = "the accumulator passes " + std::to_string(path.size()) +
                      " arithmetic instruction(s) on its way to " + kernel.instructions[i].text;
      return result;
    }
  }
  result.detail = "every store after the main loop writes the accumulator (or no accumulator) "
                  "without arithmetic in between";
  return result;
}

structure_finding find_accumulator_store(const sass_kernel& kernel,
                                         const std::vector<signature_pattern>& patterns,
                                         const std::vector<std::string>& mnemonics) {
  structure_finding result;
  const std::vector<signature_pattern> none;
  for (std::size_t i = 0; i < kernel.instructions.size(); ++i) {
    const auto value = stored_register(kernel.instructions[i]);
    if (!value || kernel.instructions[i].never_executes() || !matches_any(patterns, mnemonics[i]))
      continue;
    if (accumulator_trace{kernel, mnemonics, none}.from(i, *value).reached) {
      result.present = true;
      result.evidence = {i};
      result.detail = kernel.instructions[i].text + " writes a multiply-add accumulator";
      return result;
    }
  }
  result.detail = "no matching store writes a multiply-add accumulator";
  return result;
}

structure_finding find_staged(const sass_kernel& kernel,
                              const std::vector<signature_pattern>& patterns,
                              const std::vector<std::string>& mnemonics) {
  structure_finding result;
  std::optional<std::size_t> staging;
  std::optional<std::size_t> reader;
  for (std::size_t i = 0; i < kernel.instructions.size(); ++i) {
    const auto& instruction = kernel.instructions[i];
    if (instruction.never_executes())
      continue;
    if (!staging && async_to_shared.contains(instruction.opcode))
      staging = i;
    if (!staging && instruction.opcode == "STS")
      if (const auto value = stored_register(instruction))
        if (const auto producer = producer_of(kernel, i, *value);
            producer && global_loads.contains(kernel.instructions[*producer].opcode))
          staging = i;
    if (!reader && matches_any(patterns, mnemonics[i]))
      reader = i;
  }
  if (staging && reader) {
    result.present = true;
    result.evidence = {*staging, *reader};
    result.detail = "global data reaches shared memory through " +
                    kernel.instructions[*staging].text + " and is read by " +
                    kernel.instructions[*reader].text;
    return result;
  }
  result.detail = !staging ? "nothing stores globally loaded data into shared memory (shared "
                             "memory, if used, holds computed values such as partial results)"
                           : "shared memory is written but never read by a matching instruction";
  return result;
}

} // namespace warpforge::sass
