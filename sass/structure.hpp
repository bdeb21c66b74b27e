#pragma once
// What a kernel's SASS shows beyond single opcodes: its loops and where values come from. The
// method signatures that an opcode alone cannot show (sass/data/sass_signatures.toml, `structure`)
// are decided here, each from one kernel:
//
//   same_loop          every pattern matches inside one and the same loop body
//   register_tile      one loop body accumulates into at least `min_chains` independent chains of
//                      multiply-adds (a register tile of accumulators, not one unrolled chain) and
//                      does at least `min_reuse` multiply-adds per 32-bit word it loads (each
//                      loaded value reused from registers, not several chains each fed its own
//                      loads: an unrolled naive kernel with split accumulators is no tile)
//   epilogue           a main loop of multiply-adds, then a store whose value reaches the
//                      accumulator only through arithmetic matching the patterns (scale, bias,
//                      activation): arithmetic between the accumulation and the store
//   accumulator_store  a store matching the patterns writes a multiply-add accumulator
//                      (split-K's atomic reduction of partial sums)
//   staged             global data staged in shared memory: an STS whose value a global load
//                      produced, or an asynchronous copy to shared memory, and shared memory read
//                      by an instruction matching the patterns
//
// The analysis is linear, as the listing reads: a loop is a backward branch (BRA to a lower
// address) and the instructions from its target to it; "the value's producer" is the nearest
// earlier instruction in address order that writes the register. Control flow is not followed
// (a value written on another path counts), which errs toward finding a producer, never toward
// inventing arithmetic. A multiply-add ("MAC") is an FFMA / DFMA / HFMA2 whose two factors are
// general registers (not constants, immediates or uniform registers), or any MMA instruction.

#include "sass/disassembly.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::sass {

class signature_pattern;

/// A loop: a backward branch and the instructions from its target up to it.
struct sass_loop {
  std::size_t first = 0; // index of the branch target's instruction in the kernel
  std::size_t last = 0;  // index of the backward branch
};

/// The address a branch goes to: nvdisasm's `(.L_x_4) through the kernel's labels, or
/// cuobjdump's hex address; nullopt when the instruction is no BRA or the target is unknown.
std::optional<std::uint64_t> branch_target(const sass_kernel& kernel,
                                           const sass_instruction& instruction);

/// Every backward branch's loop, in address order of the branch.
std::vector<sass_loop> find_loops(const sass_kernel& kernel);

/// General registers (R0..R254; RZ excluded) the instruction writes: the first operand of an
/// instruction that has a destination, widened by .64 / .128 for vector loads.
std::vector<int> written_registers(const sass_instruction& instruction);
/// General registers it reads (every register operand but the destination; "R2.64" reads R2).
std::vector<int> read_registers(const sass_instruction& instruction);

/// Whether it is a multiply-add of two register factors (see above), or an MMA.
bool is_multiply_add(const sass_instruction& instruction);

/// The nearest instruction before `index` that writes `reg`, or nullopt.
std::optional<std::size_t> producer_of(const sass_kernel& kernel, std::size_t index, int reg);

/// The verdict of one structural analysis on one kernel.
struct structure_finding {
  bool present = false;
  std::vector<std::size_t> evidence; // instruction indices that show it (present), first first
  std::string detail;                // what was found or missing, for the reason text
};

/// Every pattern matches inside one loop body.
structure_finding find_same_loop(const sass_kernel& kernel,
                                 const std::vector<signature_pattern>& patterns,
                                 const std::vector<std::string>& mnemonics);
/// One loop body holds at least `min_chains` independent chains of multiply-adds that match,
/// and at least `min_reuse` such multiply-adds per 32-bit word it loads (0: no bound).
structure_finding find_register_tile(const sass_kernel& kernel,
                                     const std::vector<signature_pattern>& patterns,
                                     const std::vector<std::string>& mnemonics,
                                     std::uint32_t min_chains, double min_reuse = 0);

/// The 32-bit words an instruction loads from global or shared memory (LDG, LD, LDS, LDSM:
/// .64 two, .128 four, LDSM .X2 / .X4 two / four; 0 for anything else).
std::uint32_t loaded_words(const sass_instruction& instruction);
/// A store after a multiply-add main loop reaches the accumulator through matching arithmetic.
structure_finding find_epilogue(const sass_kernel& kernel,
                                const std::vector<signature_pattern>& patterns,
                                const std::vector<std::string>& mnemonics);
/// A store matching the patterns writes a multiply-add accumulator.
structure_finding find_accumulator_store(const sass_kernel& kernel,
                                         const std::vector<signature_pattern>& patterns,
                                         const std::vector<std::string>& mnemonics);
/// Global data staged in shared memory, read back by an instruction matching the patterns.
structure_finding find_staged(const sass_kernel& kernel,
                              const std::vector<signature_pattern>& patterns,
                              const std::vector<std::string>& mnemonics);

} // namespace warpforge::sass
