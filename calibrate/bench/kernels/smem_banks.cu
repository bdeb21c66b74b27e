// smem_banks (banks): one warp, lane l reading the 4-byte word at l x stride, for strides of
// 1 .. 64 words (kernels/smem.cuh). Stride s puts min(s, banks) lanes on one bank, so the cost
// of a warp access grows with the stride until the stride equals the bank count and then stays
// flat: the value is that stride. Prints the curve (curve_x = stride in bytes).
#include "smem.cuh"

int main() {
  wf_device();
  const wf_bank_sweep sweep = wf_sweep_bank_strides();
  wf_print_result(wf_banks_from(sweep), sweep.sm_clock_mhz());
}
